//! `codiva serve` killed with SIGKILL mid-turn, then started again.

use std::time::Duration;

use serde_json::json;

use codiva_testkit::{Match, MockMessage, Reply, Script};

use super::client::{World, alive};

#[test]
fn sigkill_mid_turn_then_restart_resumes() {
    let world = World::new(|_| {
        Script::new()
            .then_when(
                Match::LastUserContains("SLOW".into()),
                Reply::message(MockMessage::new().text_slow("slow words ".repeat(300), 4, 50)),
            )
            .then_when(
                Match::LastUserContains("QUICK".into()),
                Reply::text("Quick one done."),
            )
            .then_when(
                Match::LastUserContains("continue please".into()),
                Reply::text("Continued after the restart."),
            )
    });
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    server.ok("session/create", json!({"prompt": "QUICK finish first"}));
    server.wait_status("quick-finish-first", "completed");
    server.ok("session/create", json!({"prompt": "SLOW keep streaming"}));
    let agent = server.wait("the agent session id", |m, p| {
        m == "session/agentSession" && p["session_id"] == "slow-keep-streaming"
    })["id"]
        .as_str()
        .unwrap()
        .to_owned();
    server.wait("streamed text", |m, p| {
        m == "session/stream" && p["session_id"] == "slow-keep-streaming"
    });
    // Let the agent write its transcript and codiva its state file.
    std::thread::sleep(Duration::from_millis(1500));
    let children = world.recorded_children();
    assert!(!children.is_empty());
    server.kill9();
    drop(server);

    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    assert_eq!(init["warnings"], json!([]));
    for (pid, _) in &children {
        assert!(!alive(*pid), "agent {pid} of the killed server was reaped");
    }
    let list = server.ok("session/list", json!({}));
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    let slow = sessions
        .iter()
        .find(|s| s["id"] == "slow-keep-streaming")
        .unwrap();
    assert_eq!(slow["status"], "interrupted");
    assert_eq!(slow["agent_session_id"], agent.as_str());
    let quick = server.ok("session/read", json!({"session_id": "quick-finish-first"}));
    let texts: Vec<&str> = quick["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        ["QUICK finish first", "Quick one done."],
        "log rebuilt from the transcript"
    );
    let slow_log = server.ok("session/read", json!({"session_id": "slow-keep-streaming"}));
    assert_eq!(slow_log["entries"][0]["text"], "SLOW keep streaming");

    server.ok(
        "session/send",
        json!({"session_id": "slow-keep-streaming", "text": "continue please"}),
    );
    server.wait_status("slow-keep-streaming", "completed");
    let list = server.ok("session/list", json!({}));
    let slow = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "slow-keep-streaming")
        .unwrap()
        .clone();
    assert_eq!(
        slow["agent_session_id"],
        agent.as_str(),
        "the same CLI session continues"
    );
    let last = world.mock.message_requests().last().cloned().unwrap();
    assert!(last.body.to_string().contains("SLOW keep streaming"));
    assert!(server.close().success());
}

/// A session that needs a login when codiva stops still needs it after a restart, with the
/// agent's own detail, instead of showing as interrupted.
#[test]
fn needs_login_survives_a_restart() {
    let mut world = World::new(|_| {
        Script::new().always(Reply::error(
            401,
            "authentication_error",
            "invalid x-api-key",
        ))
    });
    world.sandbox = codiva_testkit::AgentSandbox::new()
        .unwrap()
        .with_max_retries(1);
    let mut server = world.serve();
    server.ok("session/create", json!({"prompt": "say hello"}));
    server.wait_status("say-hello", "needs_login");
    let before = server.ok("session/list", json!({}))["sessions"][0].clone();
    assert!(before["detail"].is_string(), "{before}");
    assert!(server.close().success());

    let mut server = world.serve();
    let after = server.ok("session/list", json!({}))["sessions"][0].clone();
    assert_eq!(after["status"], "needs_login", "{after}");
    assert_eq!(after["detail"], before["detail"]);
    let snapshot = server.ok("session/snapshot", json!({"session_id": "say-hello"}));
    assert_eq!(snapshot["status"], "needs_login", "{snapshot}");
    assert!(server.close().success());
}
