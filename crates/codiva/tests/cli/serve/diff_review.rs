//! Comments on a session's diff sent back to its agent as one review, through `codiva serve`
//! with the real `claude` against the mock model server: two comments on two files (one
//! committed on the branch, one uncommitted), anchored where the diff draws their lines, go in
//! one message that names both anchors; after the server is killed and started again they are
//! neither back nor sent a second time.

use serde_json::{Value, json};

use codiva_testkit::{Match, Reply, Script};

use super::client::World;

const REVIEWED: &str = "Addressed both review comments.";

/// The agent's requests whose last user message holds `needle`.
fn asked(world: &World, needle: &str) -> Vec<String> {
    world
        .mock
        .message_requests()
        .iter()
        .filter_map(|request| request.last_user_text())
        .filter(|text| text.contains(needle))
        .collect()
}

/// The `(start, end)` line of `line` in the diff of `path` on the branch's side, counted
/// from the hunk headers as the diff view does.
fn line_in_diff(diff: &str, path: &str, wanted: &str) -> u32 {
    let mut in_file = false;
    let mut new = 0u32;
    for line in diff.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            in_file = rest.ends_with(&format!(" b/{path}"));
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ ") {
            let plus = rest.split_whitespace().nth(1).unwrap();
            new = plus[1..]
                .split(',')
                .next()
                .unwrap()
                .parse::<u32>()
                .unwrap()
                .max(1);
            continue;
        }
        if !in_file || line.starts_with("+++") || line.starts_with("---") {
            continue;
        }
        match line.as_bytes().first() {
            Some(b'+') | Some(b' ') => {
                if line[1..] == *wanted {
                    return new;
                }
                new += 1;
            }
            _ => {}
        }
    }
    panic!("{wanted:?} is not in the diff of {path}:\n{diff}")
}

#[test]
fn two_comments_on_two_files_go_to_the_agent_as_one_review_once() {
    let world = World::new(|_| {
        Script::new()
            .then_when(
                Match::LastUserContains("Review of your changes".into()),
                Reply::text(REVIEWED),
            )
            .always(Reply::text("Done."))
    });
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    server.ok("session/create", json!({"prompt": "write the parser"}));
    let id = "write-the-parser";
    server.wait_status(id, "completed");

    // The branch's work: a committed file and an uncommitted edit, as an agent leaves them.
    let worktree = world.worktree(id);
    std::fs::write(
        worktree.join("parse.rs"),
        "pub fn parse(text: &str) -> Config {\n    toml::from_str(text).unwrap()\n}\n",
    )
    .unwrap();
    world.git(&worktree, &["add", "parse.rs"]);
    world.git(&worktree, &["commit", "-qm", "parser"]);
    std::fs::write(
        worktree.join("notes.md"),
        "# Notes\n\nThe parser panics on bad input (日本語).\n",
    )
    .unwrap();
    let diff = server.ok("session/diffText", json!({"session_id": id}))["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let unwrap_line = line_in_diff(&diff, "parse.rs", "    toml::from_str(text).unwrap()");
    let notes_line = line_in_diff(
        &diff,
        "notes.md",
        "The parser panics on bad input (日本語).",
    );
    assert_eq!((unwrap_line, notes_line), (2, 3));

    server.ok(
        "review/add",
        json!({"session_id": id,
               "anchor": {"path": "parse.rs", "side": "new", "start_line": 2, "end_line": 2},
               "lines": ["+    toml::from_str(text).unwrap()"],
               "body": "Return the error instead of unwrap."}),
    );
    let added = server.ok(
        "review/add",
        json!({"session_id": id,
               "anchor": {"path": "notes.md", "side": "new", "start_line": 1, "end_line": 3},
               "lines": ["+# Notes", "+", "+The parser panics on bad input (日本語)."],
               "body": "Say what it does now: 直したら書き直して。"}),
    );
    let comments = added["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 2);
    assert_eq!(comments[1]["id"], "c2");
    // Every client sees them on the session's row, and they are kept with it.
    let row = |server: &mut super::client::Server| -> Value {
        server.ok("session/list", json!({}))["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row(&mut server)["review"].as_array().unwrap().len(), 2);
    // Edited and kept across a restart before they are sent.
    server.ok(
        "review/edit",
        json!({"session_id": id, "comment_id": "c1",
               "body": "Return the error instead of unwrapping it."}),
    );
    assert!(server.close().success());
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let review = row(&mut server)["review"].clone();
    assert_eq!(review.as_array().unwrap().len(), 2, "{review}");
    assert_eq!(
        review[0]["body"],
        "Return the error instead of unwrapping it."
    );

    let sent = server.ok("review/send", json!({"session_id": id}));
    assert_eq!(sent["sent"], 2);
    assert_eq!(sent["cut_bytes"], 0);
    server.wait(&format!("{id} to answer the review"), |method, params| {
        method == "session/log"
            && params["session_id"] == id
            && params["entry"]["text"].as_str() == Some(REVIEWED)
    });
    server.wait_status(id, "completed");
    let messages = asked(&world, "Review of your changes");
    assert_eq!(messages.len(), 1, "one message: {messages:?}");
    let message = &messages[0];
    for needed in [
        "parse.rs:2\n",
        "+    toml::from_str(text).unwrap()",
        "Return the error instead of unwrapping it.",
        "notes.md:1-3\n",
        "+The parser panics on bad input (日本語).",
        "直したら書き直して。",
    ] {
        assert!(message.contains(needed), "{needed:?} in {message}");
    }
    assert!(row(&mut server).get("review").is_none());

    // Killed at once and started again: the sent comments are not back, and nothing is sent
    // twice.
    server.kill9();
    drop(server);
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    assert!(row(&mut server).get("review").is_none());
    let err = server
        .call("review/send", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(err["data"]["reason"], "no_review_comments", "{err}");
    assert_eq!(asked(&world, "Review of your changes").len(), 1);
    assert!(server.close().success());
}
