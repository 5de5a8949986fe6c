//! No tool process outlives its session: Claude Code runs its Bash tools in sessions of their
//! own (out of reach of a signal to the agent's process group), so a discarded session and a
//! stopped daemon must still leave none of them running — the real `claude` against the mock
//! model server, its Bash tool looping until stopped.

use std::time::{Duration, Instant};

use codiva_testkit::{Reply, Script};
use serde_json::json;

use crate::daemon::DaemonWorld;
use crate::orphans::{assert_agents_gone, processes_with};

/// A Bash command that runs until it is killed, marked so the test can find it.
fn looping(marker: &str) -> String {
    format!("echo started; while :; do sleep 0.2; done # {marker}")
}

fn wait_for_tool(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while processes_with(marker).is_empty() {
        assert!(Instant::now() < deadline, "the Bash tool never started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn discarding_a_session_or_stopping_the_daemon_leaves_no_tool_process() {
    let discard_marker = format!("codiva-discarded-tool-{}", std::process::id());
    let stop_marker = format!("codiva-stopped-tool-{}", std::process::id());
    let (first, second) = (looping(&discard_marker), looping(&stop_marker));
    let daemon = DaemonWorld::new(move |_| {
        let tool = |command: &str| {
            Reply::tool_use(
                "Bash",
                json!({"command": command, "description": "loop", "timeout": 600000}),
            )
        };
        Script::new()
            .then_when(
                codiva_testkit::Match::FirstUserContains("first loop".into()),
                tool(&first),
            )
            .then_when(
                codiva_testkit::Match::FirstUserContains("second loop".into()),
                tool(&second),
            )
    });
    let mut client = daemon.attach();
    client.ok("initialize", json!({}));
    let mut start = |prompt: &str, marker: &str| {
        let created = client.ok(
            "session/create",
            json!({"prompt": prompt, "approval_policy": {"mode": "allow_all"}}),
        );
        let id = created["session"]["id"].as_str().unwrap().to_owned();
        wait_for_tool(marker);
        id
    };
    let discarded = start("first loop", &discard_marker);
    start("second loop", &stop_marker);
    let agents = daemon.world.recorded_children();

    // Discarded mid-tool: its agent and the tool are gone.
    let preview = client.ok("session/discard", json!({"session_id": discarded}));
    let token = preview["confirm_token"].as_str().unwrap().to_owned();
    client.ok(
        "session/discard",
        json!({"session_id": discarded, "confirm_token": token}),
    );
    assert_agents_gone(&[], Some(&discard_marker), Instant::now());
    assert!(
        !processes_with(&stop_marker).is_empty(),
        "the other runs on"
    );

    // `codiva stop` mid-tool: every agent and every tool is gone.
    let (ok, stdout, stderr) = daemon.run(&["stop"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("stopped the daemon"), "{stdout}");
    assert_agents_gone(&agents, Some(&stop_marker), Instant::now());
    assert!(client.close().success());
}
