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
