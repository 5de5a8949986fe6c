//! Review threads of a session's pull request going back to its agent, through `codiva serve`
//! with the real `gh` against the mock GitHub and the real `claude` against the mock model
//! server: a pull request with two unresolved review threads and one resolved shows the count;
//! `session/addressReview` sends exactly the two, once; the agent's fix commit reaches the
//! remote when its turn completes; the count goes when a reviewer resolves the threads.
//! `auto_address_review` sends new threads without being asked, at most twice per session.

use codiva_testkit::{Match, MockReviewThread, Reply, Rule, Script, Times};
use serde_json::{Value, json};

use super::client::World;
use super::pull_requests::{hub, serve, wait_prs};

/// The first unresolved thread's comment: the agent's rule answers it with a commit.
const FIRST: &str = "unwrap panics when the token is missing";
const SECOND: &str = "this TODO should go before merging";
const RESOLVED: &str = "typo in the heading (fixed already)";

fn commit_file(world: &World, dir: &std::path::Path, file: &str, subject: &str) {
    std::fs::write(dir.join(file), format!("{subject}\n")).unwrap();
    world.git(dir, &["add", file]);
    world.git(dir, &["commit", "-qm", subject]);
}

fn refusal(err: &Value) -> (&str, Vec<&str>) {
    let args = err["data"]["args"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    (err["data"]["reason"].as_str().unwrap_or(""), args)
}

/// Pull request `number`: two unresolved threads (the second with a reply) and one resolved.
fn review(mock: &codiva_testkit::MockGitHub, number: u64) {
    mock.add_review_thread(
        number,
        MockReviewThread::new(
            "login.rs",
            1,
            "@@ -0,0 +1 @@\n+fn login() { token.unwrap() }",
            "alice",
            FIRST,
        ),
    );
    let mut second = MockReviewThread::new("login.rs", 1, "@@ -0,0 +1 @@\n+// TODO", "bob", SECOND);
    // A reviewer's text with an escape sequence: none reaches the agent (gh shows it in caret
    // notation, codiva drops what is left).
    second
        .comments
        .push(("carol".into(), "agreed \u{1b}]0;pwned\u{7}fully".into()));
    mock.add_review_thread(number, second);
    mock.add_review_thread(
        number,
        MockReviewThread::new("README.md", 1, "@@ -1 +1 @@\n+# Lgoin", "dave", RESOLVED).resolved(),
    );
}

/// The agent's requests whose last user message holds `needle`.
fn asked(world: &World, needle: &str) -> Vec<String> {
    world
        .mock
        .message_requests()
        .iter()
        .filter_map(|r| r.last_user_text())
        .filter(|text| text.contains(needle))
        .collect()
}

/// How many times the review threads were read in full (`/address-review`, automatic or not).
fn review_reads(hub: &super::pull_requests::Hub) -> usize {
    hub.mock
        .requests()
        .iter()
        .filter(|r| r.operation.as_deref() == Some("ReviewThreads"))
        .count()
}

fn unresolved(p: &Value) -> Option<u64> {
    p["prs"][0]["view"]["unresolved_reviews"].as_u64()
}

#[test]
fn address_review_sends_the_unresolved_threads_once_and_pushes_the_fix() {
    let world = World::new(|_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains(FIRST.into()),
                    Reply::tool_use(
                        "Bash",
                        json!({"command": "git commit -m 'Address the review'", "description": "commit the fix"}),
                    ),
                )
                .times(Times::Once),
            )
            .always(Reply::text("Done."))
    });
    let hub = hub(&world, "");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let id = "login-token";
    let rules =
        json!({"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "git commit"}]});
    server.ok(
        "session/create",
        json!({"prompt": "Login token", "approval_policy": rules}),
    );
    server.wait_status(id, "completed");
    let worktree = world.worktree(id);

    // No pull request: refused.
    let err = server
        .call("session/addressReview", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(refusal(&err).0, "no_pr", "{err}");

    commit_file(&world, &worktree, "login.rs", "Login token");
    let opened = server.ok("session/pr", json!({"session_id": id}));
    assert_eq!(opened["pr"]["number"], 1);
    let branch = format!("refs/heads/codiva/{id}");
    let pushed_tip = world.git(hub.bare.path(), &["rev-parse", &branch]);

    // No thread yet: the count is 0, and there is nothing to send.
    wait_prs(&mut server, id, "counted", |p| unresolved(p) == Some(0));
    let err = server
        .call("session/addressReview", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(
        refusal(&err),
        ("no_unresolved_reviews", vec!["1", "0"]),
        "{err}"
    );

    // Reviewed: the count shows the two unresolved threads, not the resolved one.
    review(&hub.mock, 1);
    wait_prs(&mut server, id, "two unresolved", |p| {
        unresolved(p) == Some(2)
    });

    // The fix, staged; the agent's `git commit` takes it.
    std::fs::write(worktree.join("login.rs"), "fn login() { token? }\n").unwrap();
    world.git(&worktree, &["add", "login.rs"]);
    let sent = server.ok("session/addressReview", json!({"session_id": id}));
    assert_eq!(sent["pr"], 1, "{sent}");
    assert_eq!(sent["threads"], 2, "{sent}");
    assert_eq!(sent["left_out"], 0, "{sent}");
    assert!(sent["review_bytes"].as_u64().unwrap() > 0, "{sent}");
    server.wait_status(id, "completed");

    // The model got exactly one message with the two threads — anchors, hunks, authors,
    // bodies — and not the resolved one; the reviewer's escape sequence is gone.
    let messages = asked(&world, FIRST);
    assert_eq!(messages.len(), 1, "sent once: {messages:#?}");
    let text = &messages[0];
    assert!(
        text.contains("2 unresolved review threads on pull request #1"),
        "{text}"
    );
    assert!(text.contains("1. login.rs:1\n"), "{text}");
    assert!(text.contains("+fn login() { token.unwrap() }"), "{text}");
    assert!(text.contains(&format!("@alice: {FIRST}")), "{text}");
    assert!(text.contains(&format!("@bob: {SECOND}")), "{text}");
    assert!(text.contains("@carol: agreed "), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
    assert!(!text.contains(RESOLVED), "{text}");
    assert!(
        text.contains("\n2. login.rs:1\n") && !text.contains("\n3. "),
        "{text}"
    );
    assert!(text.contains("Do not push"), "{text}");
    assert!(asked(&world, SECOND).len() == 1);

    // The agent's fix commit reaches the remote when its turn completes.
    let fixed = world.git(&worktree, &["rev-parse", "HEAD"]);
    assert_ne!(fixed, pushed_tip, "the agent committed its fix");
    let note = super::repair::wait_note(&mut server, id, "repair_pushed");
    assert_eq!(
        note["code"]["args"],
        json!([format!("codiva/{id}"), "origin"]),
        "{note}"
    );
    assert_eq!(world.git(hub.bare.path(), &["rev-parse", &branch]), fixed);

    // Asked again while the threads are still open: they were sent already, not again.
    let err = server
        .call("session/addressReview", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(
        refusal(&err),
        ("no_unresolved_reviews", vec!["1", "2"]),
        "{err}"
    );
    assert_eq!(asked(&world, FIRST).len(), 1);

    // The reviewer resolves both: the count goes.
    hub.mock.resolve_thread(1, 0);
    hub.mock.resolve_thread(1, 1);
    wait_prs(&mut server, id, "resolved", |p| unresolved(p) == Some(0));

    // Every request gh sent was answered (the review documents included).
    assert!(
        hub.mock.unmatched().is_empty(),
        "{:?}",
        hub.mock.unmatched()
    );
    assert!(server.close().success());

    // What was sent is kept: the state file names both threads.
    let state = std::fs::read_to_string(world.repo.path().join(".codiva/state.json")).unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    let sent = state["sessions"][0]["reviews_sent"].as_array().unwrap();
    assert_eq!(sent.len(), 2, "{state}");
}

#[test]
fn auto_address_review_sends_new_threads_at_most_twice() {
    let world = World::new(|_| Script::new().always(Reply::text("Done.")));
    let hub = hub(&world, "auto_address_review = true\n");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let id = "auto-review";
    server.ok("session/create", json!({"prompt": "Auto review"}));
    server.wait_status(id, "completed");
    commit_file(&world, &world.worktree(id), "auto.rs", "Auto review");
    server.ok("session/pr", json!({"session_id": id}));
    wait_prs(&mut server, id, "counted", |p| unresolved(p) == Some(0));

    // Three rounds of a new thread: the first two go to the agent by themselves.
    for round in 1..=3_u64 {
        let body = format!("review round {round}");
        hub.mock.add_review_thread(
            1,
            MockReviewThread::new("auto.rs", 1, "@@ -0,0 +1 @@\n+Auto review", "alice", &body),
        );
        wait_prs(&mut server, id, &body, |p| unresolved(p) == Some(round));
        if round <= 2 {
            server.wait(&format!("{id}: round {round} sent"), |method, params| {
                method == "session/status"
                    && params["session_id"] == id
                    && params["status"] == "running"
            });
            server.wait_status(id, "completed");
            let messages = asked(&world, &body);
            assert_eq!(messages.len(), 1, "{messages:#?}");
            // Only the new thread: the earlier ones were sent already.
            if round == 2 {
                assert!(!messages[0].contains("review round 1"), "{}", messages[0]);
            }
        }
        if round == 1 {
            // A restart: its first count (1, where nothing was known) starts an automatic
            // address-review that finds every thread sent already — nothing goes, and that
            // attempt is given back (else round 2 would not go).
            assert!(server.close().success());
            let reads = review_reads(&hub);
            server = serve(&world, &hub, 200);
            server.ok("initialize", json!({}));
            wait_prs(&mut server, id, "counted after the restart", |p| {
                unresolved(p) == Some(1)
            });
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while review_reads(&hub) == reads {
                assert!(std::time::Instant::now() < deadline, "no automatic read");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
    // The third was not sent without being asked; asked, it goes (and only it).
    let sent = server.ok("session/addressReview", json!({"session_id": id}));
    assert_eq!(sent["threads"], 1, "{sent}");
    server.wait_status(id, "completed");
    assert_eq!(asked(&world, "review round 3").len(), 1);
    assert_eq!(asked(&world, "review round 1").len(), 1);
}
