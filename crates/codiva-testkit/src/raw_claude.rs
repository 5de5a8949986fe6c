//! One real `claude` process in stream-json mode, driven line by line by a test with nothing of
//! codiva in between: for checking the mock against the real CLI and for capturing fixtures.
//! Every failure panics with the CLI's stderr, as a test helper should.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::{AgentSandbox, CLAUDE_STREAM_JSON_ARGS, MockServer, ProcessGroupGuard, claude_binary};

/// How long one stdout line (or the exit) may take.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(90);

pub struct RawClaude {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    group: ProcessGroupGuard,
    stderr_path: PathBuf,
    /// Every stdout line read so far, parsed.
    pub seen: Vec<Value>,
}

impl RawClaude {
    /// Starts `claude` with [`CLAUDE_STREAM_JSON_ARGS`] in `cwd`, in its own process group, with
    /// the sandbox's environment pointed at `server`; stderr goes to the sandbox's tmp dir.
    pub fn spawn(sandbox: &AgentSandbox, server: &MockServer, cwd: &Path) -> RawClaude {
        let stderr_path = sandbox.tmp.path().join("claude.stderr");
        let stderr = std::fs::File::create(&stderr_path)
            .unwrap_or_else(|err| panic!("cannot create {}: {err}", stderr_path.display()));
        let mut child = tokio::process::Command::new(claude_binary())
            .args(CLAUDE_STREAM_JSON_ARGS)
            .env_clear()
            .envs(sandbox.claude_env(&server.url()))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start claude: {err}"));
        let group = ProcessGroupGuard::new(child.id());
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            panic!("claude's pipes were not set up");
        };
        RawClaude {
            child,
            stdin: Some(stdin),
            lines: BufReader::new(stdout).lines(),
            group,
            stderr_path,
            seen: Vec::new(),
        }
    }

    /// Writes one line.
    pub async fn send(&mut self, value: Value) {
        let Some(stdin) = self.stdin.as_mut() else {
            panic!("stdin is closed");
        };
        let written = async {
            stdin.write_all(format!("{value}\n").as_bytes()).await?;
            stdin.flush().await
        };
        if let Err(err) = written.await {
            panic!("cannot write to claude: {err}; stderr: {}", self.stderr());
        }
    }

    /// Sends a user message with `text`.
    pub async fn say(&mut self, text: &str) {
        self.send(
            json!({"type": "user", "message": {"role": "user", "content": text},
                         "parent_tool_use_id": null, "session_id": ""}),
        )
        .await;
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// What the CLI wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// The next stdout line (also kept in [`RawClaude::seen`]); `None` at the end.
    pub async fn next_line(&mut self) -> Option<Value> {
        let line = match tokio::time::timeout(LINE_TIMEOUT, self.lines.next_line()).await {
            Ok(Ok(line)) => line?,
            Ok(Err(err)) => panic!("cannot read claude's stdout: {err}"),
            Err(_) => panic!(
                "no stdout line for {LINE_TIMEOUT:?}; stderr: {}",
                self.stderr()
            ),
        };
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("non-JSON stdout line {line:?}: {e}"));
        self.seen.push(value.clone());
        Some(value)
    }

    /// Reads up to the next `result`, answering each `can_use_tool` with `on_permission` (given
    /// the request).
    pub async fn until_result(&mut self, on_permission: impl FnMut(&Value) -> Value) -> Value {
        self.until_result_interrupting(on_permission, |_| false)
            .await
    }

    /// [`RawClaude::until_result`], sending an interrupt after each line for which
    /// `interrupt_after` is true.
    pub async fn until_result_interrupting(
        &mut self,
        mut on_permission: impl FnMut(&Value) -> Value,
        mut interrupt_after: impl FnMut(&Value) -> bool,
    ) -> Value {
        while let Some(line) = self.next_line().await {
            if line["type"] == "result" {
                return line;
            }
            if line["type"] == "control_request" && line["request"]["subtype"] == "can_use_tool" {
                let response = json!({"type": "control_response", "response": {
                    "subtype": "success",
                    "request_id": line["request_id"],
                    "response": on_permission(&line["request"]),
                }});
                self.send(response).await;
            }
            if interrupt_after(&line) {
                self.send(json!({"type": "control_request", "request_id": "i1",
                                 "request": {"subtype": "interrupt"}}))
                    .await;
            }
        }
        panic!("stdout closed before a result; stderr: {}", self.stderr());
    }

    /// Closes stdin, reads to the end, waits for the exit and checks that no process of the
    /// group survives it.
    pub async fn finish(mut self) -> ExitStatus {
        self.close_stdin();
        while self.next_line().await.is_some() {}
        let status = match tokio::time::timeout(LINE_TIMEOUT, self.child.wait()).await {
            Ok(Ok(status)) => status,
            Ok(Err(err)) => panic!("cannot wait for claude: {err}"),
            Err(_) => panic!("claude did not exit; stderr: {}", self.stderr()),
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self.group.live_members().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let survivors = self.group.live_members();
        assert!(
            survivors.is_empty(),
            "processes survived claude: {survivors:?}"
        );
        status
    }
}
