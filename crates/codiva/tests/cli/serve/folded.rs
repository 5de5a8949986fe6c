//! Messages sent while a turn is mid-way — during a permission prompt, during a question,
//! while a Bash command runs — are folded by Claude Code into that turn (one `result` answers
//! both). Through `codiva serve`: every session ends `completed` with both messages in its log,
//! merge is allowed, and the same holds after a restart (the log rebuilt from the transcript).

use serde_json::{Value, json};

use codiva_testkit::{Match, Reply, Script};

use super::client::World;

const PERMISSION: &str = "PERM commit the notes";
const QUESTION: &str = "ASK me first";
const BASH: &str = "SHELL wait a moment";
const FOLDED: &str = "FOLDED also mention the weather";

fn users(server: &mut super::client::Server, id: &str) -> Vec<String> {
    let page = server.ok("session/read", json!({"session_id": id}));
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["kind"] == "user")
        .map(|entry| entry["text"].as_str().unwrap().to_owned())
        .collect()
}

fn status(server: &mut super::client::Server, id: &str) -> Value {
    let list = server.ok("session/list", json!({}));
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap()["status"]
        .clone()
}

#[test]
fn messages_sent_mid_turn_end_completed_and_survive_a_restart() {
    let world = World::new(|_| {
        Script::new()
            .then_when(
                Match::LastUserContains(PERMISSION.into()),
                Reply::tool_use(
                    "Bash",
                    json!({"command": "printf 'notes\\n' > notes.txt && git add notes.txt && git commit -qm 'Add notes'",
                           "description": "Commit the notes"}),
                ),
            )
            .then_when(
                Match::LastUserContains(QUESTION.into()),
                Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which greeting?", "header": "Greeting",
                        "multiSelect": false, "options": [
                            {"label": "こんにちは", "description": "Japanese"},
                            {"label": "Hello", "description": "English"}]}]}),
                ),
            )
            .then_when(
                Match::LastUserContains(BASH.into()),
                Reply::tool_use(
                    "Bash",
                    json!({"command": "sleep 2; echo slept", "description": "Wait"}),
                ),
            )
            .rule(
                codiva_testkit::Rule::new(
                    Match::LastUserContains(FOLDED.into()),
                    Reply::text("Done, and it is sunny."),
                )
                .times(codiva_testkit::Times::N(3)),
            )
    });
    let ids = [
        "perm-commit-the-notes",
        "ask-me-first",
        "shell-wait-a-moment",
    ];
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    for prompt in [PERMISSION, QUESTION, BASH] {
        server.ok("session/create", json!({"prompt": prompt}));
    }

    let permission = server.wait_prompt(ids[0], "permission");
    server.ok(
        "session/send",
        json!({"session_id": ids[0], "text": FOLDED}),
    );
    let question = server.wait_prompt(ids[1], "question");
    server.ok(
        "session/send",
        json!({"session_id": ids[1], "text": FOLDED}),
    );
    server.wait("the Bash call to start", |m, p| {
        m == "session/log" && p["session_id"] == ids[2] && p["entry"]["name"] == "Bash"
    });
    server.ok(
        "session/send",
        json!({"session_id": ids[2], "text": FOLDED}),
    );

    assert_eq!(status(&mut server, ids[0]), "awaiting_permission");
    server.ok(
        "session/respondPermission",
        json!({"session_id": ids[0], "request_id": permission["request_id"], "decision": "allow"}),
    );
    server.ok(
        "session/answerQuestion",
        json!({"session_id": ids[1], "request_id": question["request_id"], "answers": {"Which greeting?": "Hello"}}),
    );
    for id in ids {
        server.wait_status(id, "completed");
    }
    for (id, prompt) in ids.iter().zip([PERMISSION, QUESTION, BASH]) {
        assert_eq!(status(&mut server, id), "completed", "{id}");
        assert_eq!(users(&mut server, id), [prompt, FOLDED], "{id}");
    }
    // Nothing is left open: the session with a commit merges.
    server.ok("session/merge", json!({"session_id": ids[0]}));
    assert_eq!(
        std::fs::read_to_string(world.repo.path().join("notes.txt")).unwrap(),
        "notes\n"
    );
    assert!(server.close().success());

    // After a restart: the same statuses, and both messages in the rebuilt logs.
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    for (id, prompt) in ids.iter().zip([PERMISSION, QUESTION, BASH]).skip(1) {
        assert_eq!(status(&mut server, id), "completed", "{id}");
        assert_eq!(
            users(&mut server, id),
            [prompt, FOLDED],
            "{id} after a restart"
        );
    }
    assert!(server.close().success());
}
