//! The daemon's edges: its start-up warnings reach the user once (not with every connection);
//! `exec --attach` that cannot start its daemon fails as a runtime failure (exit 1, not clap's
//! usage code 2); a daemon whose socket file is removed stops, or listens again while sessions
//! work.

use std::os::unix::fs::MetadataExt;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use codiva_testkit::{Reply, Script};
use serde_json::{Value, json};

use crate::daemon::DaemonWorld;
use crate::serve::client::Server;

/// A state file that is not JSON: the daemon starts with a `corrupt` warning.
fn with_corrupt_state(daemon: &DaemonWorld) {
    let dir = daemon.world.repo.path().join(".codiva");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("state.json"), b"{\"version\":1,\"sessions\":[").unwrap();
}

#[test]
fn the_start_up_warnings_reach_the_first_ui_and_no_other_connection() {
    let daemon = DaemonWorld::new(|_| Script::new().then(Reply::text("ok")));
    with_corrupt_state(&daemon);
    // Commands that only look (the version check of `attach`, `status`) leave them for a UI.
    let _ = daemon.socket();
    let (ok, _, stderr) = daemon.run(&["status"]);
    assert!(ok, "{stderr}");

    // The first UI gets them in `initialize` — once, not also as notifications.
    let mut first = daemon.attach();
    let init = first.ok("initialize", json!({}));
    assert!(init["warnings"].to_string().contains("corrupt"), "{init}");
    first.ok("manager/snapshot", json!({}));

    // Every later connection: none, neither in `initialize` nor as a notification.
    let mut second = daemon.attach();
    let init = second.ok("initialize", json!({}));
    assert_eq!(init["warnings"], json!([]), "{init}");
    second.ok("manager/snapshot", json!({}));
    second.ok("session/list", json!({}));
    for client in [&first, &second] {
        let warnings: Vec<&Value> = client
            .arrived
            .iter()
            .filter(|note| note["method"] == "warning")
            .collect();
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    assert!(first.close().success());
    assert!(second.close().success());
}

#[test]
fn exec_attach_that_cannot_start_the_daemon_is_a_runtime_failure() {
    let daemon = DaemonWorld::new(|_| Script::new().then(Reply::text("ok")));
    // The socket's directory cannot be created: a file stands where it would be.
    let runtime = daemon.runtime.path().join("not-a-directory");
    std::fs::write(&runtime, b"").unwrap();
    let output = daemon
        .codiva(&["exec", "--attach", "--json", "say ok"])
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}\n{stdout}");
    assert!(stderr.contains("codiva: failed:"), "{stderr}");
    assert!(stderr.contains("not-a-directory"), "{stderr}");
    let exit: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(exit["event"], "exit", "{exit}");
    assert_eq!(exit["status"], "failed", "{exit}");
    assert_eq!(exit["code"], 1, "{exit}");
}

/// Waits (bounded) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn daemon_log(daemon: &DaemonWorld) -> String {
    std::fs::read_dir(daemon.world.state.path().join("daemon"))
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .collect()
}

/// Nobody can reach a daemon whose socket file was removed: with nothing working it stops as
/// `codiva stop` would (the state written), and the next client's daemon restores the sessions.
#[test]
fn a_daemon_whose_socket_is_removed_stops_when_nothing_works() {
    let daemon = DaemonWorld::new(|_| Script::new().then(Reply::text("Done.")));
    let mut client = daemon.attach();
    client.ok("initialize", json!({}));
    let created = client.ok("session/create", json!({"prompt": "finish quickly"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    client.wait_status(&id, "completed");
    assert!(client.close().success());
    let pid = daemon.daemon_pid().expect("the daemon runs");
    let socket = daemon.socket();

    std::fs::remove_file(&socket).unwrap();
    DaemonWorld::wait_gone(pid, "the daemon without a socket");
    assert!(
        daemon_log(&daemon).contains("its socket was removed"),
        "{}",
        daemon_log(&daemon)
    );
    let (ok, stdout, _) = daemon.run(&["status"]);
    assert!(ok && stdout.contains("no daemon runs"), "{stdout}");

    // The next client starts a daemon that has the session.
    let mut client = daemon.attach();
    client.ok("initialize", json!({}));
    let list = client.ok("session/list", json!({}));
    assert_eq!(list["sessions"][0]["id"], id.as_str(), "{list}");
    assert_eq!(list["sessions"][0]["status"], "completed", "{list}");
    assert!(client.close().success());
}

/// With a session working (here: waiting on a permission), the daemon binds its socket again:
/// a new client reaches it, answers, and the turn completes in the same daemon.
#[test]
fn a_daemon_whose_socket_is_removed_while_sessions_work_listens_again() {
    let daemon = DaemonWorld::new(|_| {
        Script::new()
            .then(Reply::tool_use(
                "Bash",
                json!({"command": "touch kept.txt", "description": "keep"}),
            ))
            .then(Reply::text("Kept."))
    });
    let mut first = daemon.attach();
    first.ok("initialize", json!({}));
    let created = first.ok("session/create", json!({"prompt": "ASK keep it"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    let prompt = first.wait_prompt(&id, "permission");
    let pid = daemon.daemon_pid().expect("the daemon runs");
    let socket = daemon.socket();
    let bound = std::fs::metadata(&socket).unwrap().ino();

    std::fs::remove_file(&socket).unwrap();
    // The daemon binds the socket, then says so in its log: the file alone can be seen first.
    wait_until(
        "the socket to be bound again, and the daemon to say so",
        || {
            std::fs::metadata(&socket).is_ok_and(|meta| meta.ino() != bound)
                && daemon_log(&daemon).contains("listening on it again")
        },
    );
    // The same daemon, reachable: a new client answers the prompt.
    let mut second = daemon.attach();
    second.ok("initialize", json!({}));
    assert_eq!(daemon.daemon_pid(), Some(pid));
    second.ok(
        "session/respondPermission",
        json!({"session_id": id, "request_id": prompt["request_id"], "decision": "allow"}),
    );
    second.wait_status(&id, "completed");
    first.wait_status(&id, "completed");
    assert!(first.close().success());
    assert!(second.close().success());
}

/// `codiva ARGS` as a build of another version (the testing hook of docs/daemon.md).
fn as_version(
    daemon: &DaemonWorld,
    version: &str,
    protocol: Option<&str>,
    args: &[&str],
) -> Output {
    let mut command = daemon.codiva(args);
    command
        .env("CODIVA_TEST_HOOKS", "1")
        .env("CODIVA_TEST_VERSION", version)
        .stdin(Stdio::null());
    if let Some(protocol) = protocol {
        command.env("CODIVA_TEST_PROTOCOL_VERSION", protocol);
    }
    command.output().unwrap()
}

fn status_json(daemon: &DaemonWorld) -> Value {
    let (ok, stdout, stderr) = daemon.run(&["status", "--json"]);
    assert!(ok, "{stderr}");
    serde_json::from_str(stdout.trim()).unwrap()
}

/// A client and a daemon of different versions, end to end: with nothing working the client
/// replaces the daemon; with a session working it attaches when the protocol is the same, and
/// otherwise says in one line what to do.
#[test]
fn a_daemon_of_another_version_is_replaced_kept_or_refused() {
    let daemon = DaemonWorld::new(|_| {
        Script::new()
            .then(Reply::tool_use(
                "Bash",
                json!({"command": "touch v.txt", "description": "touch"}),
            ))
            .then(Reply::text("Touched."))
    });
    // Without the hook's switch the variable is ignored.
    let output = daemon
        .codiva(&["attach", "--print-socket"])
        .env("CODIVA_TEST_VERSION", "0.0.9")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        status_json(&daemon)["daemon"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(daemon.run(&["stop"]).0);

    // An old daemon with nothing working: replaced by this version's.
    let output = as_version(&daemon, "0.0.9", None, &["attach", "--print-socket"]);
    assert!(output.status.success(), "{output:?}");
    let old = daemon.daemon_pid().expect("the old daemon runs");
    assert_eq!(status_json(&daemon)["daemon"]["version"], "0.0.9");
    let _ = daemon.socket();
    DaemonWorld::wait_gone(old, "the replaced daemon");
    assert_eq!(
        status_json(&daemon)["daemon"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(daemon.run(&["stop"]).0);

    // An old daemon of the same protocol with a session working: attached to, as it is.
    let output = as_version(&daemon, "0.0.9", None, &["attach", "--print-socket"]);
    assert!(output.status.success(), "{output:?}");
    let old = daemon.daemon_pid().expect("the old daemon runs");
    // Its own client (of its version) starts a session that waits on a permission.
    let mut command = daemon.codiva(&["attach", "--stdio"]);
    command
        .env("CODIVA_TEST_HOOKS", "1")
        .env("CODIVA_TEST_VERSION", "0.0.9");
    let mut client = Server::start(command, daemon.world.state.path());
    client.owns_agents = false;
    client.ok("initialize", json!({}));
    let created = client.ok("session/create", json!({"prompt": "ASK touch it"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    let prompt = client.wait_prompt(&id, "permission");
    let _ = daemon.socket();
    assert_eq!(daemon.daemon_pid(), Some(old), "kept");
    assert_eq!(status_json(&daemon)["daemon"]["version"], "0.0.9");

    // A client of another protocol: one line, and the daemon and its session go on.
    let output = as_version(&daemon, "0.3.0", Some("99"), &["attach", "--print-socket"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "codiva: the running daemon is codiva 0.0.9 (protocol {}) and 1 session is working; use codiva 0.0.9 until they finish, then `codiva stop`",
            codiva_protocol::PROTOCOL_VERSION
        )
    );
    assert_eq!(daemon.daemon_pid(), Some(old), "left running");
    client.ok(
        "session/respondPermission",
        json!({"session_id": id, "request_id": prompt["request_id"], "decision": "allow"}),
    );
    client.wait_status(&id, "completed");
    assert!(client.close().success());
}

/// `codiva status | true`, `… | head -1`: a reader that left is no crash (it was a panic on the
/// broken pipe, exit 101). Every command that prints ends quietly, with or without a daemon.
#[test]
fn commands_end_quietly_when_the_reader_of_their_output_left() {
    let daemon = DaemonWorld::new(|_| Script::new().then(Reply::text("ok")));
    let closed = |args: &[&str]| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = daemon
            .codiva(args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "codiva {args:?}: {stderr}");
        assert!(stderr.is_empty(), "codiva {args:?} is quiet: {stderr}");
    };
    // No daemon: the line that says so.
    closed(&["status"]);
    closed(&["status", "--json"]);
    closed(&["stop"]);
    // A daemon (started by `attach --print-socket`), listed and stopped.
    closed(&["attach", "--print-socket"]);
    assert!(daemon.daemon_pid().is_some(), "the daemon runs");
    closed(&["status"]);
    closed(&["status", "--json"]);
    let pid = daemon.daemon_pid().unwrap();
    closed(&["stop"]);
    DaemonWorld::wait_gone(pid, "the daemon");
}

/// `exec --attach --json` on a slowly streaming reply, once its first `stream` event is out:
/// the daemon, exec, and the rest of exec's output lines.
fn exec_attach_streaming() -> (
    DaemonWorld,
    std::process::Child,
    std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
) {
    use std::io::{BufRead as _, BufReader};
    let daemon = DaemonWorld::new(|_| {
        Script::new().always(Reply::text_slow("slow words ".repeat(200), 200, 100))
    });
    let mut child = daemon
        .codiva(&["exec", "--attach", "--json", "stream slowly"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        assert!(Instant::now() < deadline, "no stream");
        let line = lines.next().expect("exec ended before streaming").unwrap();
        if serde_json::from_str::<Value>(&line).unwrap()["event"] == "stream" {
            break;
        }
    }
    (daemon, child, lines)
}

/// `exec --attach`: a Ctrl+C mid-turn ends exec at once (exit 130; it used to wait for the
/// daemon's session to settle) and interrupts the session's turn, which stays in the daemon.
#[test]
fn exec_attach_ctrl_c_ends_exec_at_once_and_interrupts_the_turn() {
    let (daemon, mut child, lines) = exec_attach_streaming();
    let sent = Instant::now();
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let exited = child.wait().unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "exec took {:?} after Ctrl+C",
        sent.elapsed()
    );
    assert_eq!(exited.code(), Some(130), "{rest:?}");
    // The daemon's session was interrupted and stays.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (ok, stdout, stderr) = daemon.run(&["status", "--json"]);
        assert!(ok, "{stderr}");
        let status: Value = serde_json::from_str(stdout.trim()).unwrap();
        if status["sessions"][0]["status"] == "interrupted" {
            break;
        }
        assert!(Instant::now() < deadline, "not interrupted: {status}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Regression: `exec --attach` whose daemon died mid-turn (SIGKILL) exited 1 ("the daemon went
/// away"). It starts a new daemon, attaches again and exits with the session's real outcome:
/// the daemon's death stopped the agent, so the session comes back interrupted (130) — and it
/// is there for `codiva` to resume.
#[test]
fn exec_attach_attaches_again_after_its_daemon_is_killed() {
    let (daemon, child, lines) = exec_attach_streaming();
    let first = daemon.daemon_pid().expect("the daemon runs");
    let status = std::process::Command::new("kill")
        .args(["-KILL", &first.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let exited = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&exited.stderr);
    assert!(stderr.contains("attaching again"), "{stderr}");
    assert_eq!(exited.status.code(), Some(130), "{rest:?}\n{stderr}");
    let last: Value = serde_json::from_str(rest.last().expect("an exit line")).unwrap();
    assert_eq!(last["event"], "exit", "{last}");
    assert_eq!(last["status"], "interrupted", "{last}");
    let second = daemon.daemon_pid().expect("a new daemon runs");
    assert_ne!(second, first);
    let (ok, stdout, stderr) = daemon.run(&["status", "--json"]);
    assert!(ok, "{stderr}");
    let status: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(status["sessions"][0]["status"], "interrupted", "{status}");
    let (ok, _, stderr) = daemon.run(&["stop"]);
    assert!(ok, "{stderr}");
}
