//! No agent outlives its owner: `codiva exec` and `codiva serve` stopped by a signal stop and
//! reap their agents and exit with 128 + the signal; SIGKILLed, they leave no agent working
//! (each agent's watcher stops its group). Bounds are the acceptance limits, polled.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use codiva_core::process::procfs::live_group_members;
use codiva_testkit::{Match, MockMessage, Reply, Script, claude_binary};
use serde_json::{Value, json};

use crate::exec::Exec;
use crate::serve::client::{World, alive};

/// How long after a signal (or a SIGKILL) an agent may still run, and `codiva serve` too: a
/// stop's designed worst case (2 s for the agent to leave after its input closes, 2 s after
/// SIGTERM, then SIGKILL — `session_task::SHUTDOWN_GRACE`, `process::TERM_TO_KILL`) and 1 s
/// for a loaded machine. (It was 2 s, which held only while the agent left at once on EOF and
/// failed at load averages above 20.)
const BOUND: Duration = Duration::from_secs(5);
/// How long a test waits for a turn to get going.
const START: Duration = Duration::from_secs(90);

/// A reply that streams for about a minute.
fn slow_reply() -> Reply {
    Reply::message(MockMessage::new().text_slow("slow words ".repeat(300), 4, 50))
}

fn slow_script() -> Script {
    Script::new().then_when(Match::LastUserContains("SLOW".into()), slow_reply())
}

fn send_signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid}");
}

/// The agents codiva has recorded as live: (pid, pgid).
pub fn recorded_agents(state_dir: &Path) -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir(state_dir.join("children")) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .filter_map(|text| serde_json::from_str::<Value>(&text).ok())
        .filter_map(|record| {
            Some((
                u32::try_from(record["pid"].as_u64()?).ok()?,
                u32::try_from(record["pgid"].as_u64()?).ok()?,
            ))
        })
        .collect()
}

/// Pids whose command line contains `marker` (an agent's tool process runs in a session of its
/// own, outside the agent's group).
pub fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
        })
        .filter(|pid| alive(*pid))
        .collect()
}

/// Polls until every agent (its pid and its whole group), and every process whose command
/// line holds `marker`, is gone; panics with what is left once `since + BOUND` has passed.
pub fn assert_agents_gone(agents: &[(u32, u32)], marker: Option<&str>, since: Instant) {
    loop {
        let left: Vec<u32> = agents
            .iter()
            .flat_map(|(pid, pgid)| {
                let mut left = live_group_members(*pgid);
                if alive(*pid) && !left.contains(pid) {
                    left.push(*pid);
                }
                left
            })
            .chain(marker.map(processes_with).unwrap_or_default())
            .collect();
        if left.is_empty() {
            return;
        }
        if since.elapsed() > BOUND {
            for (_, pgid) in agents {
                codiva_testkit::kill_process_group(*pgid);
            }
            panic!(
                "agent processes {left:?} still run {:?} after codiva was told to stop",
                since.elapsed()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_exit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("codiva did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `codiva exec --json` running in the background.
struct ExecRun {
    child: Child,
    events: mpsc::Receiver<Value>,
}

impl ExecRun {
    fn start(exec: &Exec, args: &[&str]) -> ExecRun {
        let mut child = Command::new(env!("CARGO_BIN_EXE_codiva"))
            .arg("exec")
            .arg("--json")
            .args(args)
            .current_dir(exec.repo.path())
            .env_clear()
            .envs(exec.sandbox.claude_env(&exec.mock.url()))
            .env("CODIVA_CLAUDE", claude_binary())
            .env("CODIVA_STATE_DIR", exec.state.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(value) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        ExecRun { child, events }
    }

    /// Waits for an event named `name`; returns every event until then.
    fn wait_event(&self, name: &str) -> Vec<Value> {
        let deadline = Instant::now() + START;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self
                .events
                .recv_timeout(left)
                .unwrap_or_else(|err| panic!("no {name} event ({err}); saw {seen:?}"));
            let found = event["event"] == name;
            seen.push(event);
            if found {
                return seen;
            }
        }
    }
}

impl Drop for ExecRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a slowly streaming turn, sends `signal` to `codiva exec`, and checks that no agent
/// runs `BOUND` later and that codiva exits with `code`.
fn exec_stopped_by(signal: &str, code: i32) {
    let exec = Exec::new(|_| slow_script());
    let mut run = ExecRun::start(&exec, &["SLOW keep streaming"]);
    run.wait_event("stream");
    let agents = recorded_agents(exec.state.path());
    assert_eq!(agents.len(), 1, "{agents:?}");
    let sent = Instant::now();
    send_signal(run.child.id(), signal);
    assert_agents_gone(&agents, None, sent);
    let status = wait_exit(&mut run.child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(code), "exit status after SIG{signal}");
    // The reader thread may still be handing over the last lines after the process ended.
    let exit = run.wait_event("exit").pop().expect("an exit event");
    assert_eq!(exit["code"], code);
    assert!(
        recorded_agents(exec.state.path()).is_empty(),
        "the agent was reaped (its registry record removed)"
    );
}

#[test]
fn exec_sigterm_mid_turn_stops_the_agent_and_exits_143() {
    exec_stopped_by("TERM", 143);
}

#[test]
fn exec_sighup_mid_turn_stops_the_agent_and_exits_129() {
    exec_stopped_by("HUP", 129);
}

#[test]
fn exec_sigint_mid_turn_interrupts_and_exits_130() {
    exec_stopped_by("INT", 130);
}

#[test]
fn exec_sigkill_mid_stream_leaves_no_agent() {
    let exec = Exec::new(|_| slow_script());
    let mut run = ExecRun::start(&exec, &["SLOW keep streaming"]);
    run.wait_event("stream");
    let agents = recorded_agents(exec.state.path());
    assert_eq!(agents.len(), 1, "{agents:?}");
    let killed = Instant::now();
    run.child.kill().unwrap();
    assert_agents_gone(&agents, None, killed);
}

#[test]
fn exec_sigkill_mid_tool_leaves_no_tool_process() {
    let marker = format!("codiva-orphan-{}", std::process::id());
    let command = format!("echo started; while :; do sleep 0.2; done # {marker}");
    let exec = Exec::new(|_| {
        Script::new()
            .then(Reply::tool_use(
                "Bash",
                json!({"command": command, "description": "loop", "timeout": 600000}),
            ))
            .then(Reply::text("Done."))
    });
    let mut run = ExecRun::start(&exec, &["--approve", "all", "run the loop"]);
    run.wait_event("prompt_closed");
    let deadline = Instant::now() + START;
    while processes_with(&marker).is_empty() {
        assert!(Instant::now() < deadline, "the Bash tool never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let agents = recorded_agents(exec.state.path());
    assert_eq!(agents.len(), 1, "{agents:?}");
    let killed = Instant::now();
    run.child.kill().unwrap();
    assert_agents_gone(&agents, Some(&marker), killed);
}

/// `codiva serve` with a slowly streaming session.
fn serve_mid_stream(world: &World) -> crate::serve::client::Server {
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    server.ok("session/create", json!({"prompt": "SLOW keep streaming"}));
    server.wait("streamed text", |m, p| {
        m == "session/stream" && p["session_id"] == "slow-keep-streaming"
    });
    server
}

#[test]
fn serve_sigterm_with_stdin_open_reaps_and_exits_promptly() {
    let world = World::new(|_| slow_script());
    let mut server = serve_mid_stream(&world);
    let agents = world.recorded_children();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let sent = Instant::now();
    send_signal(server.child.id(), "TERM");
    assert_agents_gone(&agents, None, sent);
    let status = wait_exit(&mut server.child, BOUND.saturating_sub(sent.elapsed()));
    assert_eq!(status.code(), Some(143));
    let state = std::fs::read_to_string(world.repo.path().join(".codiva/state.json")).unwrap();
    assert!(
        state.contains("slow-keep-streaming"),
        "the state was written: {state}"
    );
}

fn idle_serve_stopped_by(signal: &str, code: i32) {
    let world = World::new(|_| Script::new());
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let sent = Instant::now();
    send_signal(server.child.id(), signal);
    let status = wait_exit(&mut server.child, BOUND);
    assert_eq!(status.code(), Some(code), "exit status after SIG{signal}");
    assert!(sent.elapsed() <= BOUND);
}

#[test]
fn serve_sigint_with_stdin_open_exits_promptly() {
    idle_serve_stopped_by("INT", 130);
}

#[test]
fn serve_sighup_with_stdin_open_exits_promptly() {
    idle_serve_stopped_by("HUP", 129);
}

#[test]
fn serve_sigkill_mid_stream_leaves_no_agent() {
    let world = World::new(|_| slow_script());
    let mut server = serve_mid_stream(&world);
    let agents = world.recorded_children();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let killed = Instant::now();
    server.child.kill().unwrap();
    assert_agents_gone(&agents, None, killed);
}
