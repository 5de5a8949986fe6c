//! A JSON-RPC client for `codiva serve --stdio`, running the real binary in a sandbox.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use codiva_testkit::{AgentSandbox, MockServer, Script, TestRepo, claude_binary};
use serde_json::{Value, json};

pub const WAIT: Duration = Duration::from_secs(90);

/// Everything a serve test needs: the mock, a repo, a sandboxed HOME, a state dir.
pub struct World {
    pub mock: MockServer,
    pub repo: TestRepo,
    pub sandbox: AgentSandbox,
    pub state: tempfile::TempDir,
    pub config: PathBuf,
}

impl World {
    pub fn new(script: impl FnOnce(&Path) -> Script) -> World {
        let repo = TestRepo::new().unwrap();
        let mock = MockServer::start(script(repo.path())).unwrap();
        let state = tempfile::tempdir().unwrap();
        let config = state.path().join("config.toml");
        // Titles from the prompt: a one-shot title request would take the mock's scripted answers.
        std::fs::write(&config, "fetch_base = false\ntitles = \"prompt\"\n").unwrap();
        World {
            mock,
            repo,
            sandbox: AgentSandbox::new().unwrap(),
            state,
            config,
        }
    }

    pub fn command(&self, cwd: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
        command
            .args(["serve", "--stdio"])
            .current_dir(cwd)
            .env_clear()
            .envs(self.sandbox.claude_env(&self.mock.url()))
            .env("CODIVA_CLAUDE", claude_binary())
            .env("CODIVA_STATE_DIR", self.state.path())
            .env("CODIVA_CONFIG", &self.config);
        command
    }

    pub fn serve(&self) -> Server {
        Server::start(self.command(self.repo.path()), self.state.path())
    }

    /// Path of a session's worktree.
    pub fn worktree(&self, id: &str) -> PathBuf {
        self.repo.path().join(".codiva/worktrees").join(id)
    }

    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Pids of the agent processes codiva has recorded as live.
    pub fn recorded_children(&self) -> Vec<(u32, u32)> {
        let Ok(entries) = std::fs::read_dir(self.state.path().join("children")) else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
            .filter_map(|text| serde_json::from_str::<Value>(&text).ok())
            .filter_map(|record| {
                Some((
                    u32::try_from(record["pid"].as_u64()?).ok()?,
                    u32::try_from(record["pgid"].as_u64()?).ok()?,
                ))
            })
            .collect()
    }
}

pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    /// Notifications received and not yet waited for.
    pub notes: Vec<Value>,
    /// Notifications that `wait` returned.
    pub seen: Vec<Value>,
    /// Every notification, in the order the server wrote them.
    pub arrived: Vec<Value>,
    next_id: u64,
    state_dir: PathBuf,
    /// Whether dropping this client kills the agents recorded in the state dir (a server
    /// owns them; a client of a daemon does not).
    pub owns_agents: bool,
}

impl Server {
    pub fn start(mut command: Command, state_dir: &Path) -> Server {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start codiva serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|err| panic!("serve wrote a non-JSON line ({err}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            notes: Vec::new(),
            seen: Vec::new(),
            arrived: Vec::new(),
            next_id: 1,
            state_dir: state_dir.to_path_buf(),
            owns_agents: true,
        }
    }

    pub fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and waits for its response (notifications meanwhile are kept).
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write_raw(format!("{line}\n").as_bytes());
        self.response(json!(id))
    }

    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        self.call(method, params)
            .unwrap_or_else(|err| panic!("{method} failed: {err}"))
    }

    /// Waits for the response with this id.
    pub fn response(&mut self, id: Value) -> Result<Value, Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            let message = self.next_message(deadline, &format!("the response to {id}"));
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notes.push(message);
                continue;
            }
            if message["id"] == id {
                return match message.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(message["result"].clone()),
                };
            }
            panic!("unexpected message: {message}");
        }
    }

    fn next_message(&mut self, deadline: Instant, what: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(message) => {
                if message.get("id").is_none() {
                    self.arrived.push(message.clone());
                }
                message
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = self.child.wait();
                let mut stderr = String::new();
                if let Some(mut pipe) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                }
                panic!("serve exited while waiting for {what}; stderr:\n{stderr}")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let tail: Vec<String> = self
                    .notes
                    .iter()
                    .filter(|n| {
                        !matches!(
                            n["method"].as_str(),
                            Some("session/stream" | "session/usage" | "session/log")
                        )
                    })
                    .rev()
                    .take(40)
                    .map(|n| n.to_string().chars().take(400).collect())
                    .collect();
                panic!(
                    "timed out waiting for {what}; last notifications (newest first):\n{}",
                    tail.join("\n")
                )
            }
        }
    }

    /// Waits for a notification matching `pred` (looking at those already received first);
    /// returns its params.
    pub fn wait(&mut self, what: &str, pred: impl Fn(&str, &Value) -> bool) -> Value {
        if let Some(index) = self
            .notes
            .iter()
            .position(|n| pred(n["method"].as_str().unwrap_or(""), &n["params"]))
        {
            let note = self.notes.remove(index);
            self.seen.push(note.clone());
            return note["params"].clone();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let message = self.next_message(deadline, what);
            if message.get("id").is_some() {
                panic!("unexpected response while waiting for {what}: {message}");
            }
            if pred(message["method"].as_str().unwrap_or(""), &message["params"]) {
                self.seen.push(message.clone());
                return message["params"].clone();
            }
            self.notes.push(message);
        }
    }

    /// Waits until session `id` reports `status`.
    pub fn wait_status(&mut self, id: &str, status: &str) -> Value {
        self.wait(&format!("{id} to be {status}"), |method, params| {
            method == "session/status" && params["session_id"] == id && params["status"] == status
        })
    }

    /// Waits for a prompt (permission or question) of session `id`; returns the prompt.
    pub fn wait_prompt(&mut self, id: &str, kind: &str) -> Value {
        let method = format!("session/{kind}");
        self.wait(&format!("a {kind} from {id}"), |m, params| {
            m == method && params["session_id"] == id
        })["prompt"]
            .clone()
    }

    /// Kills the server with SIGKILL (no cleanup at all).
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes stdin and waits for a clean exit.
    pub fn close(mut self) -> std::process::ExitStatus {
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not exit after stdin EOF"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !self.owns_agents {
            return;
        }
        // Whatever agent processes it left behind (a test that failed half-way).
        if let Ok(entries) = std::fs::read_dir(self.state_dir.join("children")) {
            for entry in entries.filter_map(|e| e.ok()) {
                if let Ok(text) = std::fs::read_to_string(entry.path())
                    && let Ok(record) = serde_json::from_str::<Value>(&text)
                    && let Some(pgid) = record["pgid"].as_u64()
                {
                    codiva_testkit::kill_process_group(u32::try_from(pgid).unwrap_or(0));
                }
            }
        }
    }
}

/// `true` while a process with this pid exists (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}
