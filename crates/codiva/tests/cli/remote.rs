//! Remote repositories: a loopback `sshd` (Debian's openssh-server, temporary keys) runs
//! `codiva attach --stdio --repo PATH` for the client, which bridges the SSH channel to that
//! repository's daemon. A dropped connection loses nothing: the daemon and its agent go on, and
//! attaching again shows the session as it went on.

use std::path::Path;
use std::process::Command;

use codiva_testkit::{Match, MockMessage, Reply, Script, Sshd, claude_binary};
use serde_json::json;

use crate::daemon::DaemonWorld;
use crate::serve::client::{Server, alive};

fn script() -> Script {
    Script::new().then_when(
        Match::LastUserContains("SLOW".into()),
        // About five seconds of streaming.
        Reply::message(MockMessage::new().text_slow("remote words ".repeat(40), 4, 50)),
    )
}

/// The daemon world's environment, given to every session of the server (`SetEnv`): what
/// `codiva` run there sees, as if the user had logged in on that host.
pub fn sshd_for(daemon: &DaemonWorld) -> Sshd {
    let world = &daemon.world;
    let mut env = world.sandbox.claude_env(&world.mock.url());
    env.extend([
        (
            "CODIVA_CLAUDE".to_owned(),
            claude_binary().display().to_string(),
        ),
        (
            "CODIVA_STATE_DIR".to_owned(),
            world.state.path().display().to_string(),
        ),
        (
            "CODIVA_CONFIG".to_owned(),
            world.config.display().to_string(),
        ),
        (
            "XDG_RUNTIME_DIR".to_owned(),
            daemon.runtime.path().display().to_string(),
        ),
    ]);
    Sshd::start(&env).unwrap()
}

/// `ssh … codiva attach --stdio --repo PATH` as a JSON-RPC client.
fn attach_over_ssh(sshd: &Sshd, repo: &Path, state: &Path) -> Server {
    let argv = sshd.ssh_argv();
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .arg("-T")
        .arg(sshd.destination())
        .arg(format!(
            "{} attach --stdio --repo '{}'",
            env!("CARGO_BIN_EXE_codiva"),
            repo.display()
        ));
    let mut client = Server::start(command, state);
    client.owns_agents = false;
    client
}

#[test]
fn a_dropped_ssh_connection_loses_nothing() {
    let daemon = DaemonWorld::new(|_| script());
    let sshd = sshd_for(&daemon);
    let repo = daemon.world.repo.path().to_path_buf();
    let state = daemon.world.state.path().to_path_buf();

    let mut first = attach_over_ssh(&sshd, &repo, &state);
    let init = first.ok("initialize", json!({}));
    assert_eq!(
        init["server"]["version"],
        env!("CARGO_PKG_VERSION"),
        "{init}"
    );
    first.ok("session/create", json!({"prompt": "SLOW over ssh"}));
    first.wait("streamed text", |m, p| {
        m == "session/stream" && p["session_id"] == "slow-over-ssh"
    });
    let agents = daemon.world.recorded_children();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let daemon_pid = daemon.daemon_pid().expect("the daemon runs on the host");

    // The connection drops mid-turn: the ssh client is killed.
    first.child.kill().unwrap();
    let _ = first.child.wait();
    assert!(
        alive(agents[0].0),
        "the agent goes on without the connection"
    );
    assert!(alive(daemon_pid), "so does the daemon");

    let mut second = attach_over_ssh(&sshd, &repo, &state);
    second.ok("initialize", json!({}));
    let snapshot = second.ok("manager/snapshot", json!({}));
    let session = &snapshot["sessions"][0];
    assert_eq!(session["id"], "slow-over-ssh", "{snapshot}");
    if session["status"] != "completed" {
        second.wait_status("slow-over-ssh", "completed");
    }
    assert_eq!(
        daemon.world.recorded_children(),
        agents,
        "the same agent finished the turn"
    );
    assert_eq!(daemon.daemon_pid(), Some(daemon_pid), "the same daemon");
    let read = second.ok(
        "session/read",
        json!({"session_id": "slow-over-ssh", "limit": 100}),
    );
    let text = read.to_string();
    assert!(
        text.contains(&"remote words ".repeat(40).trim_end().to_owned()),
        "the whole reply is in the log: {text}"
    );
    assert!(second.close().success());
}

/// The pids of `parent`'s children named `name`.
fn children_named(parent: u32, name: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name is in parentheses and may hold spaces.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = &stat[open + 1..close];
        let ppid = stat[close + 2..]
            .split_whitespace()
            .nth(1)
            .and_then(|ppid| ppid.parse::<u32>().ok());
        if comm == name && ppid == Some(parent) {
            found.push(pid);
        }
    }
    found
}

/// `codiva --remote user@127.0.0.1:/repo` in a pty: the session is created on the host, the ssh
/// client is killed mid-turn, the UI attaches again by itself and finds the session went on
/// with the same agent; quitting leaves it there and says how to re-attach.
#[test]
fn the_terminal_ui_on_a_remote_repository_survives_a_dropped_connection() {
    use codiva_testkit::pty::Pty;
    use std::time::Duration;
    const WAIT: Duration = Duration::from_secs(60);
    // About fifteen seconds of streaming: the connection drops and comes back mid-turn.
    let daemon = DaemonWorld::new(|_| {
        Script::new().then_when(
            Match::LastUserContains("SLOW".into()),
            Reply::message(MockMessage::new().text_slow("remote words ".repeat(120), 4, 40)),
        )
    });
    let sshd = sshd_for(&daemon);
    let repo = daemon.world.repo.path().to_path_buf();
    let local = tempfile::tempdir().unwrap();
    let target = format!("{}:{}", sshd.destination(), repo.display());
    let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
    command
        .arg("--remote")
        .arg(&target)
        .current_dir(local.path())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", local.path())
        .env("TERM", "xterm-256color")
        .env("LANG", "C.UTF-8")
        .env("CODIVA_STATE_DIR", local.path().join("state"))
        .env("CODIVA_CONFIG", local.path().join("config.toml"))
        .env("CODIVA_SSH", sshd.ssh_argv().join(" "))
        .env("CODIVA_REMOTE_CODIVA", env!("CARGO_BIN_EXE_codiva"));
    let mut pty = Pty::spawn(command, 40, 120).unwrap();
    let screen = pty.wait_for_text("codiva 0.1.0", WAIT);
    assert!(
        screen.contains("127.0.0.1:"),
        "the header names the host: {screen}"
    );
    pty.type_line("SLOW from afar");
    pty.wait_for_text("Running", WAIT);
    let agents = daemon.world.recorded_children();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let daemon_pid = daemon.daemon_pid().expect("the daemon runs on the host");

    let ssh = children_named(pty.pid(), "ssh");
    assert_eq!(ssh.len(), 1, "one ssh client: {ssh:?}");
    Command::new("kill")
        .arg("-KILL")
        .arg(ssh[0].to_string())
        .status()
        .unwrap();
    // Attached again by itself: a new ssh client, the same daemon and agent.
    pty.wait_for(
        "a new connection",
        WAIT,
        |_| matches!(children_named(pty.pid(), "ssh").as_slice(), [pid] if *pid != ssh[0]),
    );
    // The turn is still going on there, then it completes.
    pty.wait_for_text("Running", WAIT);
    pty.wait_for_text("Completed", WAIT);
    assert_eq!(daemon.world.recorded_children(), agents, "the same agent");
    assert_eq!(daemon.daemon_pid(), Some(daemon_pid), "the same daemon");

    pty.type_line("/exit");
    let status = pty
        .wait_exit(Duration::from_secs(30))
        .expect("codiva exits after /exit");
    assert!(status.success(), "{status:?}");
    let output = String::from_utf8_lossy(&pty.output()).into_owned();
    assert!(
        output.contains("keep running on 127.0.0.1"),
        "says where the sessions went on: {output}"
    );
    assert!(alive(daemon_pid), "the daemon stays on the host");
}

/// `codiva exec --remote`: the session runs in the host's daemon and exec prints its reply; a
/// host without codiva, or with one too old for `attach`, is one line saying what to do.
#[test]
fn exec_runs_a_session_on_a_remote_host_or_says_what_is_missing() {
    let daemon = DaemonWorld::new(|_| Script::new().always(Reply::text("Hello from the host.")));
    let sshd = sshd_for(&daemon);
    let repo = daemon.world.repo.path().to_path_buf();
    let local = tempfile::tempdir().unwrap();
    let target = format!("{}:{}", sshd.destination(), repo.display());
    let exec = |remote_codiva: &str| {
        Command::new(env!("CARGO_BIN_EXE_codiva"))
            .args(["exec", "--remote", &target, "say hello"])
            .current_dir(local.path())
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", local.path())
            .env("CODIVA_STATE_DIR", local.path().join("state"))
            .env("CODIVA_SSH", sshd.ssh_argv().join(" "))
            .env("CODIVA_REMOTE_CODIVA", remote_codiva)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let ran = exec(env!("CARGO_BIN_EXE_codiva"));
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Hello from the host."),
        "{stdout}\n{stderr}"
    );
    assert!(
        daemon.daemon_pid().is_some(),
        "the session stays in the host's daemon"
    );

    let missing = exec("/nonexistent/codiva");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(!missing.status.success());
    assert!(
        stderr.contains("codiva is not installed on 127.0.0.1"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");

    // An older codiva: no `attach` subcommand (what clap says for one it does not know).
    let old = local.path().join("old-codiva");
    std::fs::write(
        &old,
        "#!/bin/sh\necho \"error: unrecognized subcommand '$1'\" >&2\nexit 2\n",
    )
    .unwrap();
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let older = exec(&old.display().to_string());
    let stderr = String::from_utf8_lossy(&older.stderr);
    assert!(!older.status.success());
    assert!(stderr.contains("older than this one"), "{stderr}");
}

/// Regression: `codiva exec --remote` whose ssh connection dropped mid-turn exited 1 ("the
/// daemon went away") while the session went on and completed on the host. It attaches again
/// by itself and exits with the session's real outcome (completed: 0).
#[test]
fn exec_over_ssh_survives_a_dropped_connection_and_exits_with_the_real_outcome() {
    use std::time::{Duration, Instant};
    // About eight seconds of streaming: the connection drops and comes back mid-turn.
    let daemon = DaemonWorld::new(|_| {
        Script::new().then_when(
            Match::LastUserContains("SLOW".into()),
            Reply::message(MockMessage::new().text_slow("remote words ".repeat(60), 4, 50)),
        )
    });
    let sshd = sshd_for(&daemon);
    let repo = daemon.world.repo.path().to_path_buf();
    let local = tempfile::tempdir().unwrap();
    let target = format!("{}:{}", sshd.destination(), repo.display());
    let exec = Command::new(env!("CARGO_BIN_EXE_codiva"))
        .args([
            "exec",
            "--remote",
            &target,
            "SLOW over a dropped connection",
        ])
        .current_dir(local.path())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", local.path())
        .env("CODIVA_STATE_DIR", local.path().join("state"))
        .env("CODIVA_SSH", sshd.ssh_argv().join(" "))
        .env("CODIVA_REMOTE_CODIVA", env!("CARGO_BIN_EXE_codiva"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Mid-turn: the model is answering (slowly) when the ssh client is killed.
    let deadline = Instant::now() + Duration::from_secs(60);
    while daemon.world.mock.message_requests().is_empty() {
        assert!(Instant::now() < deadline, "the turn never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let ssh = children_named(exec.id(), "ssh");
    assert_eq!(ssh.len(), 1, "one ssh client: {ssh:?}");
    let daemon_pid = daemon.daemon_pid().expect("the daemon runs on the host");
    Command::new("kill")
        .arg("-KILL")
        .arg(ssh[0].to_string())
        .status()
        .unwrap();
    let output = exec.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "completed on the host: {:?}\n{stderr}",
        output.status
    );
    assert!(stderr.contains("attaching again"), "{stderr}");
    assert_eq!(daemon.daemon_pid(), Some(daemon_pid), "the same daemon");
    assert_eq!(
        daemon.world.mock.message_requests().len(),
        1,
        "the one turn, not started again"
    );
}
