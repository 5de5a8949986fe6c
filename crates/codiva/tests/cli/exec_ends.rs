//! `codiva exec` always ends, with the true outcome (issue 25, item 1): with each agent — the
//! real Claude Code, Codex (app-server), codex-acp and claude-code-acp against the mock model
//! server, and an agent that exits 1 at start — exec exits within a few seconds of the turn's
//! end with the documented code. ACP agents do not exit when their input closes: exec stops
//! them. A Ctrl+C after the turn ended (or while the agent lingers) ends exec at once.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use codiva_testkit::{AgentSandbox, MockServer, Reply, Script, TestRepo};
use serde_json::Value;

/// How long after the turn's end (its settled status) exec may take to exit.
const AFTER_TURN: Duration = Duration::from_secs(5);
/// A run that takes longer has hung.
const HUNG: Duration = Duration::from_secs(120);

/// One `codiva exec --json` run, its lines read as they come.
struct Run {
    child: Child,
    lines: mpsc::Receiver<(Instant, Value)>,
    started: Instant,
}

/// What a run printed and how it ended.
struct Ended {
    code: Option<i32>,
    events: Vec<Value>,
    /// When the first settled status (`completed`, `failed`, …) was printed.
    settled_at: Option<Instant>,
    exited_at: Instant,
    stderr: String,
}

impl Run {
    fn start(dir: &Path, state: &Path, agent: &str, env: Vec<(String, String)>) -> Run {
        let mut child = Command::new(env!("CARGO_BIN_EXE_codiva"))
            .args(["exec", "--json", "--agent", agent, "say hello"])
            .current_dir(dir)
            .env_clear()
            .envs(env)
            .env("CODIVA_STATE_DIR", state)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run codiva exec");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value =
                    serde_json::from_str(&line).unwrap_or_else(|err| panic!("{err}: {line}"));
                if tx.send((Instant::now(), value)).is_err() {
                    break;
                }
            }
        });
        Run {
            child,
            lines,
            started: Instant::now(),
        }
    }

    /// Waits for the next line (none: exec closed its output or hung).
    fn next(&mut self) -> Option<(Instant, Value)> {
        let left = HUNG.saturating_sub(self.started.elapsed());
        self.lines.recv_timeout(left).ok()
    }

    /// Reads every line until exec exits; kills it (and fails) if it hangs.
    fn finish(mut self, mut events: Vec<Value>, mut settled_at: Option<Instant>) -> Ended {
        while let Some((at, event)) = self.next() {
            if settled_at.is_none() && is_settled(&event) {
                settled_at = Some(at);
            }
            events.push(event);
        }
        let exited = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if self.started.elapsed() > HUNG {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("codiva exec hung: {events:#?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let exited_at = Instant::now();
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
        }
        Ended {
            code: exited.code(),
            events,
            settled_at,
            exited_at,
            stderr,
        }
    }
}

fn is_settled(event: &Value) -> bool {
    event["event"] == "status"
        && matches!(
            event["status"].as_str(),
            Some("completed" | "failed" | "interrupted" | "needs_login" | "rate_limited")
        )
}

impl Ended {
    /// The turn ended (a settled status was printed) and exec exited within [`AFTER_TURN`].
    fn ended_promptly(&self) {
        let settled = self
            .settled_at
            .unwrap_or_else(|| panic!("no settled status: {:#?}", self.events));
        let after = self.exited_at.duration_since(settled);
        assert!(
            after < AFTER_TURN,
            "exec exited {after:?} after the turn's end; stderr: {}",
            self.stderr
        );
    }

    fn exit_line(&self) -> &Value {
        let last = self.events.last().expect("no output");
        assert_eq!(last["event"], "exit", "{:#?}", self.events);
        last
    }
}

/// The agents the test kit has a sandbox environment for.
#[derive(Clone, Copy)]
enum Agent {
    Claude,
    Codex,
    CodexAcp,
    ClaudeCodeAcp,
}

impl Agent {
    fn id(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::CodexAcp => "codex-acp",
            Agent::ClaudeCodeAcp => "claude-code-acp",
        }
    }

    /// The agent's environment against the mock, and the variable naming its binary.
    fn env(self, sandbox: &AgentSandbox, mock: &MockServer) -> Vec<(String, String)> {
        let path = |p: std::path::PathBuf| p.to_string_lossy().into_owned();
        let (mut env, var, binary) = match self {
            Agent::Claude => (
                sandbox.claude_env(&mock.url()),
                "CODIVA_CLAUDE",
                path(codiva_testkit::claude_binary()),
            ),
            Agent::Codex => (
                sandbox.codex_env(&mock.url()).unwrap(),
                "CODIVA_CODEX",
                path(codiva_testkit::codex_binary()),
            ),
            Agent::CodexAcp => (
                sandbox.codex_acp_env(&mock.url()).unwrap(),
                "CODIVA_CODEX_ACP",
                path(codiva_testkit::codex_acp_binary()),
            ),
            Agent::ClaudeCodeAcp => (
                sandbox.claude_env(&mock.url()),
                "CODIVA_CLAUDE_CODE_ACP",
                path(codiva_testkit::claude_code_acp_binary()),
            ),
        };
        env.push((var.to_owned(), binary));
        env
    }
}

/// The agent answers; its turn completes; exec exits 0 within seconds of it.
fn completes_and_exits(agent: Agent) {
    let repo = TestRepo::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mock =
        MockServer::start(Script::new().always(Reply::text("Hello from the mock."))).unwrap();
    let run = Run::start(
        repo.path(),
        state.path(),
        agent.id(),
        agent.env(&sandbox, &mock),
    );
    let ended = run.finish(Vec::new(), None);
    ended.ended_promptly();
    let exit = ended.exit_line();
    assert_eq!(
        (&exit["status"], &exit["code"]),
        (&Value::from("completed"), &Value::from(0)),
        "stderr: {}",
        ended.stderr
    );
    assert_eq!(ended.code, Some(0), "stderr: {}", ended.stderr);
}

#[test]
fn exec_with_claude_exits_after_its_turn() {
    completes_and_exits(Agent::Claude);
}

#[test]
fn exec_with_codex_exits_after_its_turn() {
    completes_and_exits(Agent::Codex);
}

#[test]
fn exec_with_codex_acp_exits_after_its_turn() {
    completes_and_exits(Agent::CodexAcp);
}

#[test]
fn exec_with_claude_code_acp_exits_after_its_turn() {
    completes_and_exits(Agent::ClaudeCodeAcp);
}

/// An agent that exits 1 at start, a harmless warning on its first stderr line and its error
/// last (as codex does with a fatal config): `failed` at once with the error line, exit 1.
#[test]
fn exec_with_an_agent_that_exits_at_start_fails_at_once_with_its_error() {
    let repo = TestRepo::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let agent = bin.path().join("codex-acp");
    std::fs::write(
        &agent,
        "#!/bin/sh\necho 'WARNING: proceeding, even though we could not update PATH' >&2\n\
         echo 'Error: unknown variant `bogus`, expected one of `untrusted`, `on-request`' >&2\n\
         echo '' >&2\nexit 1\n",
    )
    .unwrap();
    let mut perms = std::fs::metadata(&agent).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&agent, perms).unwrap();
    let env = vec![
        ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
        (
            "HOME".to_owned(),
            state.path().to_string_lossy().into_owned(),
        ),
        (
            "CODIVA_CODEX_ACP".to_owned(),
            agent.to_string_lossy().into_owned(),
        ),
    ];
    let run = Run::start(repo.path(), state.path(), "codex-acp", env);
    let ended = run.finish(Vec::new(), None);
    ended.ended_promptly();
    let exit = ended.exit_line();
    assert_eq!(exit["status"], "failed", "{:#?}", ended.events);
    let detail = exit["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("Error: unknown variant `bogus`") && !detail.contains("WARNING"),
        "the agent's error line is the detail: {detail}"
    );
    assert_eq!(ended.code, Some(1), "stderr: {}", ended.stderr);
    assert!(
        ended.stderr.contains("failed") && ended.stderr.contains("unknown variant"),
        "{}",
        ended.stderr
    );
}

/// The real Codex with a fatal setting in its config.toml exits before its turn: `failed`, its
/// own error line, exit 1, at once.
#[test]
fn exec_with_codex_and_a_fatal_config_fails_at_once() {
    let repo = TestRepo::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mock = MockServer::start(Script::new().always(Reply::text("never"))).unwrap();
    let mut env = Agent::Codex.env(&sandbox, &mock);
    let config = sandbox.codex_home().join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("approval_policy = \"untrusted\"\n{text}")).unwrap();
    env.push(("RUST_LOG".to_owned(), "warn".to_owned()));
    let run = Run::start(repo.path(), state.path(), "codex", env);
    let ended = run.finish(Vec::new(), None);
    ended.ended_promptly();
    let exit = ended.exit_line();
    assert_eq!(exit["status"], "failed", "{:#?}", ended.events);
    let detail = exit["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("no longer supported") && !detail.contains("WARNING"),
        "the agent's error line: {detail}"
    );
    assert_eq!(ended.code, Some(1), "stderr: {}", ended.stderr);
    assert!(mock.requests().is_empty(), "no model request");
}

/// A Ctrl+C while the agent runs its turn ends exec at once: the agent is stopped, exit 130.
#[test]
fn exec_ctrl_c_ends_it_at_once() {
    let repo = TestRepo::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    // A reply that streams for a long time: the turn is still running at the Ctrl+C.
    let mock = MockServer::start(Script::new().always(Reply::text_slow(
        "slow words ".repeat(200),
        200,
        100,
    )))
    .unwrap();
    let mut run = Run::start(
        repo.path(),
        state.path(),
        Agent::CodexAcp.id(),
        Agent::CodexAcp.env(&sandbox, &mock),
    );
    let mut events = Vec::new();
    // Wait until the agent streams its reply: the turn runs.
    loop {
        let (_, event) = run
            .next()
            .unwrap_or_else(|| panic!("no stream: {events:#?}"));
        let streaming = event["event"] == "stream";
        events.push(event);
        if streaming {
            break;
        }
    }
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-INT", &run.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let ended = run.finish(events, None);
    let took = ended.exited_at.duration_since(sent);
    assert!(
        took < AFTER_TURN,
        "exec took {took:?} after Ctrl+C; stderr: {}",
        ended.stderr
    );
    assert_eq!(ended.code, Some(130), "stderr: {}", ended.stderr);
    // The outcome is the session's as it ended: its turn was interrupted.
    assert_eq!(
        ended.exit_line()["status"],
        "interrupted",
        "{:#?}",
        ended.events
    );
}
