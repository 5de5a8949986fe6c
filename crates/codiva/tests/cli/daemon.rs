//! The repository's daemon (`codiva serve --listen`) and its command-line clients: `attach
//! --stdio` starts it and bridges to it, a client leaving never stops a session, `status` lists
//! without a UI, `stop` ends the daemon and every agent, a SIGKILLed daemon is replaced by one
//! that restores the sessions, and a client of another user is refused.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codiva_testkit::{Match, MockMessage, Reply, Script, claude_binary};
use serde_json::{Value, json};

use crate::orphans::assert_agents_gone;
use crate::serve::client::{Server, World, alive};

/// How long a daemon may take to exit after `codiva stop` answered (it has then stopped its
/// agents), or to be gone after a SIGKILL.
const EXIT_BOUND: Duration = Duration::from_secs(10);

fn script() -> Script {
    Script::new()
        .then_when(
            Match::LastUserContains("SLOW".into()),
            // About five seconds of streaming.
            Reply::message(MockMessage::new().text_slow("slow words ".repeat(40), 4, 50)),
        )
        .then_when(
            Match::LastUserContains("continue please".into()),
            Reply::text("Continued by the new daemon."),
        )
}

/// A world with its own runtime directory (the daemon's socket goes there) and a daemon that is
/// stopped — and, failing that, killed with its agents — when the test ends.
pub struct DaemonWorld {
    pub world: World,
    pub runtime: tempfile::TempDir,
}

impl DaemonWorld {
    pub fn new(script: impl FnOnce(&Path) -> Script) -> DaemonWorld {
        DaemonWorld {
            world: World::new(script),
            runtime: tempfile::tempdir().unwrap(),
        }
    }

    /// `codiva ARGS` in the repository, in the test's sandbox.
    pub fn codiva(&self, args: &[&str]) -> Command {
        let world = &self.world;
        let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
        command
            .args(args)
            .current_dir(world.repo.path())
            .env_clear()
            .envs(world.sandbox.claude_env(&world.mock.url()))
            .env("CODIVA_CLAUDE", claude_binary())
            .env("CODIVA_STATE_DIR", world.state.path())
            .env("CODIVA_CONFIG", &world.config)
            .env("XDG_RUNTIME_DIR", self.runtime.path());
        command
    }

    /// A client over `codiva attach --stdio` (which starts the daemon when it does not run).
    pub fn attach(&self) -> Server {
        let mut client =
            Server::start(self.codiva(&["attach", "--stdio"]), self.world.state.path());
        // The daemon owns the agents; the test's end stops it (Drop below).
        client.owns_agents = false;
        client
    }

    /// Runs `codiva ARGS` to its end: (success, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (bool, String, String) {
        let output = self.codiva(args).stdin(Stdio::null()).output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// The pid of the process holding the repository's lock (the daemon), from its lock file.
    pub fn daemon_pid(&self) -> Option<u32> {
        let text =
            std::fs::read_to_string(self.world.repo.path().join(".codiva/manager.lock")).ok()?;
        let holder: Value = serde_json::from_str(text.trim()).ok()?;
        let pid = u32::try_from(holder["pid"].as_u64()?).ok()?;
        alive(pid).then_some(pid)
    }

    /// The socket's path, as `attach --print-socket` prints it (starting the daemon).
    pub fn socket(&self) -> PathBuf {
        let (ok, stdout, stderr) = self.run(&["attach", "--print-socket"]);
        assert!(ok, "attach --print-socket failed: {stderr}");
        PathBuf::from(stdout.trim())
    }

    /// Waits until `pid` is gone.
    pub fn wait_gone(pid: u32, what: &str) {
        let deadline = Instant::now() + EXIT_BOUND;
        while alive(pid) {
            assert!(Instant::now() < deadline, "{what} (pid {pid}) still runs");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for DaemonWorld {
    fn drop(&mut self) {
        let pid = self.daemon_pid();
        let _ = self.run(&["stop"]);
        if let Some(pid) = pid.filter(|pid| alive(*pid)) {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(pid.to_string())
                .status();
        }
        for (_, pgid) in self.world.recorded_children() {
            codiva_testkit::kill_process_group(pgid);
        }
    }
}

/// Every notification's `seq` is one more than the last one's.
pub fn assert_seq_in_order(server: &Server) {
    let seqs: Vec<u64> = server
        .arrived
        .iter()
        .filter_map(|note| note["params"]["seq"].as_u64())
        .collect();
    assert!(!seqs.is_empty());
    for pair in seqs.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "a gap or a repeat in {seqs:?}");
    }
}

#[test]
fn a_client_leaving_keeps_the_session_and_stop_ends_everything() {
    let daemon = DaemonWorld::new(|_| script());
    let socket = daemon.socket();
    assert_eq!(
        socket.parent().unwrap(),
        daemon.runtime.path().join("codiva")
    );
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(socket.parent().unwrap()), 0o700);
    let pid = daemon.daemon_pid().expect("the daemon holds the lock");
    assert_eq!(daemon.socket(), socket, "the same daemon, found again");
    assert_eq!(daemon.daemon_pid(), Some(pid));

    let mut first = daemon.attach();
    let init = first.ok("initialize", json!({}));
    assert_eq!(init["server"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(init["protocol_version"], codiva_protocol::PROTOCOL_VERSION);
    first.ok("session/create", json!({"prompt": "SLOW keep streaming"}));
    first.wait("streamed text", |m, p| {
        m == "session/stream" && p["session_id"] == "slow-keep-streaming"
    });
    let mut second = daemon.attach();
    let snapshot = second.ok("manager/snapshot", json!({}));
    assert_eq!(snapshot["sessions"][0]["status"], "running", "{snapshot}");
    let agents = daemon.world.recorded_children();
    assert_eq!(agents.len(), 1, "{agents:?}");
    // The first client leaves mid-turn: the agent goes on.
    assert!(first.close().success());
    assert!(alive(agents[0].0), "the agent outlives the client");
    second.wait_status("slow-keep-streaming", "completed");
    assert_eq!(
        daemon.world.recorded_children(),
        agents,
        "the same agent finished the turn"
    );
    assert_seq_in_order(&second);
    let snapshot_seq = snapshot["seq"].as_u64().unwrap();
    assert!(
        second
            .arrived
            .iter()
            .any(|n| n["params"]["seq"].as_u64() == Some(snapshot_seq + 1)),
        "the events after the snapshot"
    );

    let (ok, stdout, stderr) = daemon.run(&["status", "--json"]);
    assert!(ok, "{stderr}");
    let status: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(status["sessions"][0]["id"], "slow-keep-streaming");
    assert_eq!(status["sessions"][0]["status"], "completed");
    assert_eq!(status["daemon"]["socket"], socket.display().to_string());
    let (ok, stdout, _) = daemon.run(&["status"]);
    assert!(ok);
    assert!(stdout.contains("slow-keep-streaming"), "{stdout}");
    assert!(stdout.contains("completed"), "{stdout}");
    // One session is one session, in either language.
    assert!(
        stdout.lines().next().unwrap().ends_with(": 1 session"),
        "{stdout}"
    );
    let output = daemon
        .codiva(&["status"])
        .env("CODIVA_LANG", "ja")
        .output()
        .unwrap();
    let japanese = String::from_utf8_lossy(&output.stdout);
    assert!(japanese.contains("セッション 1 件"), "{japanese}");

    let (ok, stdout, stderr) = daemon.run(&["stop"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("stopped the daemon"), "{stdout}");
    DaemonWorld::wait_gone(pid, "the daemon");
    assert!(!socket.exists(), "the socket is removed");
    assert_agents_gone(&agents, None, Instant::now());
    // The second client's connection ended with the daemon.
    assert!(second.close().success());
    let (ok, stdout, _) = daemon.run(&["status"]);
    assert!(ok);
    assert!(stdout.contains("no daemon runs"), "{stdout}");
}

#[test]
fn a_sigkilled_daemon_is_replaced_by_one_that_restores_the_sessions() {
    let daemon = DaemonWorld::new(|_| script());
    let mut client = daemon.attach();
    client.ok("session/create", json!({"prompt": "SLOW keep streaming"}));
    client.wait("streamed text", |m, p| {
        m == "session/stream" && p["session_id"] == "slow-keep-streaming"
    });
    // Let the agent write its transcript and the daemon its state file.
    std::thread::sleep(Duration::from_millis(1500));
    let agents = daemon.world.recorded_children();
    assert_eq!(agents.len(), 1);
    let pid = daemon.daemon_pid().unwrap();
    let killed = Instant::now();
    assert!(
        Command::new("kill")
            .arg("-KILL")
            .arg(pid.to_string())
            .status()
            .unwrap()
            .success()
    );
    // The bridge ends with the daemon's connection.
    assert!(client.close().success());
    assert_agents_gone(&agents, None, killed);

    let mut client = daemon.attach();
    client.ok("initialize", json!({}));
    let replacement = daemon.daemon_pid().unwrap();
    assert_ne!(replacement, pid);
    let list = client.ok("session/list", json!({}));
    assert_eq!(list["sessions"][0]["status"], "interrupted", "{list}");
    client.ok(
        "session/send",
        json!({"session_id": "slow-keep-streaming", "text": "continue please"}),
    );
    client.wait_status("slow-keep-streaming", "completed");
    let log = client.ok("session/read", json!({"session_id": "slow-keep-streaming"}));
    assert!(
        log.to_string().contains("Continued by the new daemon."),
        "{log}"
    );
    assert!(daemon.run(&["stop"]).0);
    DaemonWorld::wait_gone(replacement, "the new daemon");
}

#[test]
fn a_client_of_another_user_is_refused() {
    let daemon = DaemonWorld::new(|_| script());
    // Let another user reach the socket (as a careless chmod would): the peer check still
    // refuses it.
    std::fs::set_permissions(
        daemon.runtime.path(),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let socket = daemon.socket();
    std::fs::set_permissions(
        socket.parent().unwrap(),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/perl",
        ])
        .args([
            "-MIO::Socket::UNIX",
            "-e",
            "$SIG{PIPE} = 'IGNORE'; my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die \"connect: $!\"; \
             print $s qq({\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/list\"}\\n); \
             while (my $l = <$s>) { print $l }",
        ])
        .arg(&socket)
        .env_clear()
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one error line, then the end: {stdout}");
    let error: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(error["error"]["code"], -32002, "{error}");
    assert_eq!(error["error"]["data"]["reason"], "not_owner", "{error}");
    assert_eq!(error["error"]["data"]["args"][1], "65534", "{error}");
    // The owner is still served.
    let mut client = daemon.attach();
    assert_eq!(client.ok("session/list", json!({}))["sessions"], json!([]));
    assert!(client.close().success());
}

/// `codiva exec --attach`: the session runs in the daemon; a tool the `--approve` policy does
/// not allow is denied by exec (nobody to ask), the turn completes, the exit code is exec's and
/// the session stays in the daemon.
#[test]
fn exec_attach_runs_its_session_in_the_daemon() {
    let daemon = DaemonWorld::new(|_| {
        let first = || Match::FirstUserContains("tidy the readme".into());
        Script::new()
            .then_when(
                first(),
                Reply::tool_use(
                    "Bash",
                    json!({"command": "echo tidy > tidy.txt", "description": "Tidy"}),
                ),
            )
            .then_when(first(), Reply::text("Left the readme as it was."))
    });
    let (ok, stdout, stderr) = daemon.run(&[
        "exec",
        "--attach",
        "--json",
        "--approve",
        "edits",
        "tidy the readme",
    ]);
    assert!(ok, "exec --attach failed: {stderr}\n{stdout}");
    assert!(
        stderr.contains("runs in the repository's daemon"),
        "{stderr}"
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let exit = lines.last().unwrap();
    assert_eq!(exit["event"], "exit", "{exit}");
    assert_eq!(exit["status"], "completed", "{exit}");
    assert_eq!(exit["code"], 0, "{exit}");
    assert!(
        lines
            .iter()
            .any(|line| line.to_string().contains("Allow") || line["event"] == "prompt_opened"),
        "the permission was printed: {stdout}"
    );
    let denied = daemon
        .world
        .mock
        .message_requests()
        .iter()
        .any(|r| r.body.to_string().contains("codiva exec --approve edits"));
    assert!(denied, "exec denied the Bash it was not allowed to approve");
    // The session stays in the daemon, which goes on running.
    let (ok, stdout, _) = daemon.run(&["status", "--json"]);
    assert!(ok);
    let status: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(status["sessions"][0]["id"], "tidy-the-readme", "{status}");
    assert_eq!(status["sessions"][0]["status"], "completed", "{status}");
    assert!(daemon.daemon_pid().is_some());
}

/// With `daemon_idle_exit = 2`, the daemon stays while a client is attached and exits by itself
/// once none is and no agent works.
#[test]
fn an_idle_daemon_exits_by_itself() {
    let daemon = DaemonWorld::new(|_| Script::new());
    std::fs::write(
        &daemon.world.config,
        "fetch_base = false\ntitles = \"prompt\"\ndaemon_idle_exit = 2\n",
    )
    .unwrap();
    let mut client = daemon.attach();
    client.ok("initialize", json!({}));
    let pid = daemon.daemon_pid().unwrap();
    // Longer than the idle time, with a client attached: it stays.
    std::thread::sleep(Duration::from_secs(4));
    assert!(alive(pid), "a daemon with a client stays");
    assert!(client.close().success());
    let deadline = Instant::now() + Duration::from_secs(60);
    while alive(pid) {
        assert!(Instant::now() < deadline, "the idle daemon did not exit");
        std::thread::sleep(Duration::from_millis(100));
    }
    let socket = daemon.runtime.path().join("codiva");
    let left: Vec<_> = std::fs::read_dir(&socket).unwrap().collect();
    assert!(left.is_empty(), "the socket is removed: {left:?}");
    let log = std::fs::read_dir(daemon.world.state.path().join("daemon"))
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .collect::<String>();
    assert!(log.contains("idle for 2 s"), "{log}");
}

/// Two clients of one daemon: both see the permission; answered in one, it closes in the
/// other (with its resolution); both see every event in `seq` order.
#[test]
fn a_permission_answered_in_one_client_closes_in_the_other() {
    let daemon = DaemonWorld::new(|_| {
        Script::new()
            .then(Reply::tool_use(
                "Bash",
                json!({"command": "touch said-hi.txt", "description": "say hi"}),
            ))
            .then(Reply::text("Said hi."))
    });
    let mut first = daemon.attach();
    let mut second = daemon.attach();
    first.ok("initialize", json!({}));
    second.ok("initialize", json!({}));
    let created = first.ok("session/create", json!({"prompt": "ASK say hi"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    let prompt = first.wait_prompt(&id, "permission");
    let seen_there = second.wait_prompt(&id, "permission");
    assert_eq!(prompt["request_id"], seen_there["request_id"]);
    second.ok(
        "session/respondPermission",
        json!({"session_id": id, "request_id": prompt["request_id"], "decision": "allow"}),
    );
    let closed = first.wait("the prompt closed", |m, p| {
        m == "session/promptClosed" && p["session_id"] == id.as_str()
    });
    assert_eq!(closed["request_id"], prompt["request_id"]);
    assert_eq!(closed["resolution"], "allowed");
    first.wait_status(&id, "completed");
    second.wait_status(&id, "completed");
    assert_seq_in_order(&first);
    assert_seq_in_order(&second);
    assert!(first.close().success());
    assert!(second.close().success());
}

/// What the session of [`attached_after_the_prompt_opened`] asks.
#[derive(Clone, Copy, PartialEq)]
enum Asks {
    Permission,
    Question,
    /// A foreground subagent asks to run a command.
    SubagentPermission,
}

/// Attach equals watching (issue 24), through `codiva attach --stdio`: a client that attaches
/// after the prompt opened (the first client gone) finds it in `session/snapshot` (placed in the
/// stream by its `seq`), with the agent's info, and answering it completes the turn.
fn attached_after_the_prompt_opened(asks: Asks) {
    let daemon = DaemonWorld::new(move |_| {
        let touch = |file: &str| {
            Reply::tool_use(
                "Bash",
                json!({"command": format!("touch {file}"), "description": "touch a file"}),
            )
        };
        match asks {
            Asks::Permission => Script::new()
                .then(touch("late.txt"))
                .then(Reply::text("Touched.")),
            Asks::Question => Script::new()
                .then(Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which file?", "header": "File", "multiSelect": false,
                        "options": [{"label": "late.txt", "description": "the late one"}, {"label": "early.txt", "description": "the early one"}]}]}),
                ))
                .then(Reply::text("Touched.")),
            Asks::SubagentPermission => Script::new()
                .then_when(
                    Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                    Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_sub_touch_0001",
                        "Bash",
                        json!({"command": "touch late.txt", "description": "touch a file"}),
                    )),
                )
                .then_when(
                    Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                    Reply::text("The file is there."),
                )
                .then_when(
                    Match::FirstUserContains("ASK touch late".into()),
                    Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_agent_0001",
                        "Agent",
                        json!({
                            "description": "Touch a file",
                            "prompt": "SUBAGENT-PROMPT touch late.txt",
                            "subagent_type": "general-purpose",
                            "run_in_background": false
                        }),
                    )),
                )
                .then_when(
                    Match::FirstUserContains("ASK touch late".into()),
                    Reply::text("Touched."),
                ),
        }
    });
    let kind = if asks == Asks::Question {
        "question"
    } else {
        "permission"
    };
    let mut first = daemon.attach();
    first.ok("initialize", json!({}));
    let created = first.ok("session/create", json!({"prompt": "ASK touch late"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    let prompt = first.wait_prompt(&id, kind);
    assert!(first.close().success());

    let mut late = daemon.attach();
    late.ok("initialize", json!({}));
    let rows = late.ok("manager/snapshot", json!({}));
    let waiting = if asks == Asks::Question {
        "awaiting_answer"
    } else {
        "awaiting_permission"
    };
    assert_eq!(rows["sessions"][0]["status"], waiting, "{rows}");
    assert_eq!(rows["sessions"][0]["pending_prompts"], 1, "{rows}");
    let snapshot = late.ok("session/snapshot", json!({"session_id": id}));
    assert!(snapshot["seq"].is_u64(), "placed in the stream: {snapshot}");
    let prompts = snapshot["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 1, "{snapshot}");
    assert_eq!(prompts[0]["request_id"], prompt["request_id"], "{snapshot}");
    assert!(
        snapshot["agent"]["version"].is_string(),
        "the agent's info: {snapshot}"
    );
    match asks {
        Asks::Question => {
            assert_eq!(prompts[0]["kind"], "question", "{snapshot}");
            late.ok(
                "session/answerQuestion",
                json!({"session_id": id, "request_id": prompt["request_id"],
                    "answers": {"Which file?": "late.txt"}}),
            );
        }
        Asks::Permission | Asks::SubagentPermission => {
            assert_eq!(prompts[0]["tool"], "Bash", "{snapshot}");
            if asks == Asks::SubagentPermission {
                assert_eq!(
                    snapshot["subagents"][0]["status"], "running",
                    "its subagent runs: {snapshot}"
                );
            }
            late.ok(
                "session/respondPermission",
                json!({"session_id": id, "request_id": prompt["request_id"], "decision": "allow"}),
            );
        }
    }
    late.wait_status(&id, "completed");
    if asks != Asks::Question {
        assert!(daemon.world.worktree(&id).join("late.txt").is_file());
    }
    assert!(late.close().success());
}

#[test]
fn a_client_attached_after_the_prompt_opened_finds_and_answers_it() {
    attached_after_the_prompt_opened(Asks::Permission);
}

#[test]
fn a_client_attached_after_the_question_opened_finds_and_answers_it() {
    attached_after_the_prompt_opened(Asks::Question);
}

#[test]
fn a_client_attached_after_a_subagents_permission_opened_finds_and_answers_it() {
    attached_after_the_prompt_opened(Asks::SubagentPermission);
}
