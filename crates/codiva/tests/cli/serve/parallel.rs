//! Three sessions in parallel: a permission, a question, an interrupt and a resume.

use serde_json::{Value, json};

use codiva_testkit::{Match, MockMessage, Reply, Rule, Script};

use super::client::World;

#[test]
fn three_sessions_in_parallel() {
    let world = World::new(|repo| {
        let alpha_file = repo.join(".codiva/worktrees/alpha-writes-a-file/alpha.txt");
        Script::new()
            .then_when(
                Match::FirstUserContains("ALPHA".into()),
                Reply::message(
                    MockMessage::new()
                        .text_slow("Writing the file now. ", 3, 40)
                        .tool_use("Write", json!({"file_path": alpha_file, "content": "alpha\n"})),
                ),
            )
            .then_when(
                Match::FirstUserContains("ALPHA".into()),
                Reply::text("Alpha done."),
            )
            .then_when(
                Match::FirstUserContains("BRAVO".into()),
                Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which greeting?", "header": "Greeting", "multiSelect": false,
                        "options": [{"label": "Hello", "description": "plain"}, {"label": "こんにちは", "description": "Japanese"}]}]}),
                ),
            )
            .then_when(
                Match::FirstUserContains("BRAVO".into()),
                Reply::text("Bravo done."),
            )
            .then_when(
                Match::FirstUserContains("CHARLIE".into()),
                Reply::message(MockMessage::new().text_slow("Charlie is slow. ".repeat(60), 4, 50)),
            )
            .rule(Rule::new(
                Match::FirstUserContains("CHARLIE".into()),
                Reply::text("Charlie resumed and done."),
            ))
    });
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    assert_eq!(init["protocol_version"], "1");
    assert_eq!(init["repo"]["base"], "main");

    let mut ids = Vec::new();
    for prompt in [
        "ALPHA writes a file",
        "BRAVO asks a question",
        "CHARLIE streams slowly",
    ] {
        let started = std::time::Instant::now();
        let session = server.ok("session/create", json!({"prompt": prompt}))["session"].clone();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "create answers before the worktree is ready"
        );
        assert_eq!(session["phase"], "preparing");
        ids.push(session["id"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        ids,
        [
            "alpha-writes-a-file",
            "bravo-asks-a-question",
            "charlie-streams-slowly"
        ]
    );

    // Charlie streams; interrupt it while it does.
    server.wait("charlie streaming", |m, p| {
        m == "session/stream" && p["session_id"] == "charlie-streams-slowly"
    });
    // Alpha asks for a permission, Bravo asks a question: all three are live at once.
    let permission = server.wait_prompt("alpha-writes-a-file", "permission");
    assert_eq!(permission["tool"], "Write");
    let question = server.wait_prompt("bravo-asks-a-question", "question");
    assert_eq!(question["questions"][0]["question"], "Which greeting?");
    let list = server.ok("session/list", json!({}));
    let live = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            matches!(
                s["status"].as_str(),
                Some("running" | "awaiting_permission" | "awaiting_answer")
            )
        })
        .count();
    assert_eq!(live, 3, "three sessions work in parallel: {list}");

    server.ok(
        "session/interrupt",
        json!({"session_id": "charlie-streams-slowly"}),
    );
    server.wait_status("charlie-streams-slowly", "interrupted");
    server.ok(
        "session/respondPermission",
        json!({"session_id": "alpha-writes-a-file", "request_id": permission["request_id"], "decision": "allow"}),
    );
    server.ok(
        "session/answerQuestion",
        json!({"session_id": "bravo-asks-a-question", "request_id": question["request_id"], "answers": {"Which greeting?": "こんにちは"}}),
    );
    server.ok(
        "session/resume",
        json!({"session_id": "charlie-streams-slowly"}),
    );
    for id in &ids {
        server.wait_status(id, "completed");
    }

    // Each has its own worktree and branch.
    for id in &ids {
        let worktree = world.worktree(id);
        assert!(worktree.is_dir(), "{id} has a worktree");
        let branch = world.git(&worktree, &["rev-parse", "--abbrev-ref", "HEAD"]);
        assert_eq!(branch.trim(), format!("codiva/{id}"));
    }
    assert_eq!(
        std::fs::read_to_string(world.worktree("alpha-writes-a-file").join("alpha.txt")).unwrap(),
        "alpha\n"
    );
    let read = server.ok(
        "session/read",
        json!({"session_id": "bravo-asks-a-question", "limit": 100}),
    );
    let texts: Vec<&str> = read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(texts.contains(&"BRAVO asks a question"));
    assert!(texts.contains(&"Bravo done."));
    let last = world.mock.message_requests();
    assert!(
        last.iter().any(|r| r
            .body
            .to_string()
            .contains(r#"\"Which greeting?\"=\"こんにちは\""#)),
        "the answer reached the model"
    );
    assert!(world.mock.unmatched().is_empty());
    let list = server.ok("session/list", json!({}));
    for session in list["sessions"].as_array().unwrap() {
        assert_eq!(session["status"], "completed", "{session}");
        assert!(session["agent_session_id"].is_string());
        assert!(session["active_ms"].as_u64().unwrap() > 0);
    }
    assert!(server.close().success());
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(world.repo.path().join(".codiva/state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["sessions"].as_array().unwrap().len(), 3);
    assert!(
        world.recorded_children().is_empty(),
        "every agent was reaped"
    );
}
