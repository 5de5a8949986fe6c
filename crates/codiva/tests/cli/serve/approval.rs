//! The approval policy kept by the manager: `allow_edits` lets a Write through without a prompt
//! reaching the client while a Bash still asks; a policy set later allows what is waiting.

use serde_json::json;

use codiva_testkit::{Reply, Script};

use super::client::World;

const ID: &str = "edits-write-then-bash";

#[test]
fn allow_edits_lets_a_write_through_and_a_bash_still_asks() {
    let world = World::new(|repo| {
        let file = repo.join(".codiva/worktrees").join(ID).join("hello.txt");
        let touched = repo.join(".codiva/worktrees").join(ID).join("bash.txt");
        Script::new()
            .then(Reply::tool_use(
                "Write",
                json!({"file_path": file, "content": "hello\n"}),
            ))
            .then(Reply::tool_use(
                "Bash",
                json!({"command": format!("touch {}", touched.display()), "description": "touch a file"}),
            ))
            .then(Reply::text("Done."))
    });
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let created = server.ok(
        "session/create",
        json!({"prompt": "EDITS write then bash", "approval_policy": {"mode": "allow_edits"}}),
    );
    assert_eq!(created["session"]["id"], ID);

    // The Write went through by itself: the first prompt the client sees is the Bash.
    let prompt = server.wait_prompt(ID, "permission");
    assert_eq!(prompt["tool"], "Bash", "{prompt}");
    assert_eq!(
        std::fs::read_to_string(world.worktree(ID).join("hello.txt")).unwrap(),
        "hello\n"
    );
    let permissions: Vec<_> = server
        .notes
        .iter()
        .chain(&server.seen)
        .filter(|n| n["method"] == "session/permission")
        .collect();
    assert_eq!(permissions.len(), 1, "only the Bash asked: {permissions:?}");

    // A policy set now (by any client) answers the waiting Bash too.
    server.ok(
        "session/setApprovalPolicy",
        json!({"session_id": ID, "policy": {"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "touch"}]}}),
    );
    server.wait_status(ID, "completed");
    assert!(world.worktree(ID).join("bash.txt").is_file());

    // The log says what the policy allowed, and why.
    let read = server.ok("session/read", json!({"session_id": ID, "limit": 100}));
    let notes: Vec<&str> = read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "note")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(
        notes.contains(&"Write allowed by the approval policy (allow edits)"),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"Bash allowed by the approval policy (rule Bash \"touch\")"),
        "{notes:?}"
    );
    assert!(server.close().success());
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(world.repo.path().join(".codiva/state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        state["sessions"][0]["approval"]["mode"], "rules",
        "the policy is kept with the session"
    );
}

/// A bad policy is refused naming the field; the default for new sessions can be set.
#[test]
fn the_default_policy_is_set_and_a_bad_one_refused() {
    let world = World::new(|_| Script::new());
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    server.ok(
        "session/setApprovalPolicy",
        json!({"policy": {"mode": "allow_all"}}),
    );
    let err = server
        .call(
            "session/setApprovalPolicy",
            json!({"policy": {"mode": "deny_everything"}}),
        )
        .unwrap_err();
    assert_eq!(err["code"], -32602, "{err}");
    assert!(server.close().success());
}
