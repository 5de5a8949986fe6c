//! `history/list`, `history/read` and `history/adopt` over `codiva serve`: a conversation the
//! real `claude` had in the repository by itself (run by the test, the sandbox's HOME) is
//! listed, read with its tool card, and adopted as a session whose next message resumes it —
//! the mock's request for that message carries the earlier turn.

use codiva_testkit::{Match, RawClaude, Reply, Rule, Script};
use serde_json::json;

use super::client::World;

fn script() -> Script {
    Script::new()
        .rule(Rule::new(
            Match::LastUserContains("OUTSIDE-SERVE".into()),
            Reply::tool_use(
                "Bash",
                json!({"command": "echo from-outside", "description": "echo"}),
            ),
        ))
        .rule(Rule::new(
            Match::LastUserContains("from-outside".into()),
            Reply::text("Done outside."),
        ))
        .always(Reply::text("Continued."))
}

#[test]
fn a_conversation_begun_outside_is_listed_read_and_continued_over_serve() {
    let world = World::new(|_| script());
    let root = world.repo.path().canonicalize().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let outside = runtime.block_on(async {
        let mut claude = RawClaude::spawn(&world.sandbox, &world.mock, &root);
        claude.say("OUTSIDE-SERVE: echo it").await;
        let result = claude.until_result(|_| json!({"behavior": "allow"})).await;
        claude.finish().await;
        result["session_id"].as_str().unwrap().to_owned()
    });

    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let listed = server.ok("history/list", json!({}));
    let conversations = listed["conversations"].as_array().unwrap();
    assert_eq!(conversations.len(), 1, "{listed}");
    assert_eq!(conversations[0]["id"], outside.as_str());
    assert_eq!(conversations[0]["agent"], "claude");
    assert_eq!(
        conversations[0]["first_instruction"],
        "OUTSIDE-SERVE: echo it"
    );
    let cwd = conversations[0]["cwd"].clone();

    let read = server.ok(
        "history/read",
        json!({"agent": "claude", "id": outside, "cwd": cwd}),
    );
    let entries = read["entries"].as_array().unwrap();
    assert!(
        entries
            .iter()
            .any(|entry| entry["kind"] == "tool" && entry["name"] == "Bash"),
        "{read}"
    );
    assert_eq!(read["skipped_bytes"], 0);

    // A name that is no conversation id is invalid params.
    let err = server
        .call(
            "history/read",
            json!({"agent": "claude", "id": "../x", "cwd": cwd}),
        )
        .unwrap_err();
    assert_eq!(err["code"], -32602, "{err}");

    let adopted = server.ok(
        "history/adopt",
        json!({"agent": "claude", "id": outside, "cwd": cwd, "place": "in_place"}),
    );
    let id = adopted["session"]["id"].as_str().unwrap().to_owned();
    assert_eq!(adopted["session"]["in_place"], true);
    server.ok(
        "session/send",
        json!({"session_id": id, "text": "CONTINUED over serve"}),
    );
    server.wait_status(&id, "running");
    server.wait_status(&id, "completed");
    let request = world
        .mock
        .message_requests()
        .into_iter()
        .rev()
        .find(|request| {
            request
                .last_user_text()
                .is_some_and(|text| text.contains("CONTINUED over serve"))
        })
        .expect("the message reached the model");
    assert!(
        request
            .user_texts()
            .iter()
            .any(|text| text.contains("OUTSIDE-SERVE")),
        "the resumed request carries the earlier turn"
    );
    assert!(server.close().success());
}
