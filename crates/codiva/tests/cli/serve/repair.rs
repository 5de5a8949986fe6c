//! Repairing pull requests and committing through `codiva serve`, with the real `gh` against
//! the mock GitHub (`pull_requests.rs`' hub): `session/fixCi` sends the failed log tail to the
//! agent once (the mock model server's recorded request holds it); `session/recover` on two
//! stuck sessions (one red, one conflicting) reports how many repairs succeeded; a sync of a
//! session with a pull request pushes; `session/commit` both ways; merge and PR refusals offer
//! `/commit` when work is uncommitted.

use codiva_testkit::{MockCheck, MockJob, MockMergeable, MockRun, MockStep, Reply, Script};
use serde_json::{Value, json};

use super::client::World;
use super::pull_requests::{hub, serve, wait_prs};

/// A line of the failed step's log the agent must see.
const FAILURE: &str = "error[E0425]: cannot find value `tokn` in this scope";

fn step(name: &str, conclusion: &str, log: &str) -> MockStep {
    MockStep {
        name: name.into(),
        conclusion: conclusion.into(),
        log: log.into(),
    }
}

/// Run `id` of branch `branch`: a setup step that passed and a build step that failed.
fn red_run(id: u64, branch: &str) -> MockRun {
    MockRun {
        id,
        head_branch: branch.into(),
        conclusion: "failure".into(),
        jobs: vec![MockJob {
            id: id * 100 + 1,
            name: "build".into(),
            conclusion: "failure".into(),
            steps: vec![
                step(
                    "Set up job",
                    "success",
                    "2026-12-01T00:00:00.0Z runner ready\n",
                ),
                step(
                    "Run cargo build",
                    "failure",
                    &format!(
                        "2026-12-01T00:00:01.0Z Compiling app v0.1.0\n2026-12-01T00:00:02.0Z {FAILURE}\n"
                    ),
                ),
            ],
        }],
    }
}

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

#[test]
fn fix_ci_sends_the_failed_log_tail_to_the_agent_once() {
    let world = World::new(|_| Script::new().always(Reply::text("Done.")));
    let hub = hub(&world, "");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let id = "fix-the-login";
    server.ok("session/create", json!({"prompt": "Fix the login"}));
    server.wait_status(id, "completed");
    let worktree = world.worktree(id);

    // No pull request yet: refused, and work left uncommitted is offered `/commit`.
    let err = server
        .call("session/fixCi", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(refusal(&err).0, "no_pr", "{err}");
    std::fs::write(worktree.join("login.rs"), "fn login() {}\n").unwrap();
    let err = server
        .call("session/pr", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(
        refusal(&err),
        (
            "nothing_to_push",
            vec![format!("codiva/{id}").as_str(), "main", "1"]
        ),
        "{err}"
    );
    assert!(
        err["message"].as_str().unwrap().contains("/commit"),
        "{err}"
    );

    std::fs::remove_file(worktree.join("login.rs")).unwrap();
    commit_file(&world, &worktree, "login.rs", "Fix the login");
    let opened = server.ok("session/pr", json!({"session_id": id}));
    assert_eq!(opened["pr"]["number"], 1);

    // Nothing failing (no checks yet): refused.
    let err = server
        .call("session/fixCi", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(
        refusal(&err),
        ("nothing_failing", vec!["1", "none"]),
        "{err}"
    );

    hub.mock.set_checks(
        1,
        vec![
            MockCheck::completed("build", "FAILURE").in_run(42),
            MockCheck::completed("lint", "SUCCESS").in_run(42),
        ],
    );
    hub.mock.add_run(red_run(42, &format!("codiva/{id}")));
    let sent = server.ok("session/fixCi", json!({"session_id": id}));
    assert_eq!(sent["pr"], 1, "{sent}");
    assert_eq!(sent["checks"], json!(["build"]));
    assert!(sent["log_bytes"].as_u64().unwrap() > 0, "{sent}");
    assert_eq!(sent["log_truncated"], false);
    server.wait_status(id, "completed");

    // The agent got one message with the failed check, its URL and the failed step's log —
    // and not the log of the step that passed.
    let asked: Vec<String> = world
        .mock
        .message_requests()
        .iter()
        .filter_map(|r| r.last_user_text())
        .filter(|text| text.contains(FAILURE))
        .collect();
    assert_eq!(asked.len(), 1, "sent once: {asked:#?}");
    let text = &asked[0];
    assert!(text.contains("pull request #1"), "{text}");
    assert!(text.contains("- build: "), "{text}");
    assert!(text.contains("/actions/runs/42"), "{text}");
    assert!(!text.contains("runner ready"), "{text}");
    assert!(!text.contains("lint"), "only the failed check: {text}");
    assert!(text.contains("Do not push"), "{text}");
    // gh was asked the recorded requests of `gh run view --log-failed` and nothing else.
    assert!(
        hub.mock.unmatched().is_empty(),
        "{:?}",
        hub.mock.unmatched()
    );
    let paths: Vec<String> = hub
        .mock
        .requests()
        .iter()
        .map(|r| r.path.clone())
        .filter(|p| p.contains("/actions/"))
        .collect();
    assert!(
        paths.iter().any(|p| p.ends_with("/actions/runs/42/logs")),
        "{paths:?}"
    );
}

#[test]
fn recover_repairs_two_stuck_sessions_one_by_one_and_counts_honestly() {
    let world = World::new(|_| Script::new().always(Reply::text("Done.")));
    let hub = hub(&world, "");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let (red, conflicting) = ("red-checks", "conflicting-branch");
    for prompt in ["Red checks", "Conflicting branch"] {
        server.ok("session/create", json!({"prompt": prompt}));
    }
    for (n, id) in [red, conflicting].into_iter().enumerate() {
        server.wait_status(id, "completed");
        commit_file(&world, &world.worktree(id), &format!("{id}.txt"), id);
        let opened = server.ok("session/pr", json!({"session_id": id}));
        assert_eq!(opened["pr"]["number"], n + 1, "{opened}");
    }
    // Nothing stuck yet.
    let none = server.ok("session/recover", json!({"dry_run": true}));
    assert_eq!(none["items"], json!([]), "{none}");

    hub.mock
        .set_checks(1, vec![MockCheck::completed("build", "FAILURE").in_run(7)]);
    hub.mock.add_run(red_run(7, &format!("codiva/{red}")));
    hub.mock
        .update_pr(2, |pr| pr.mergeable = MockMergeable::Conflicting);
    wait_prs(&mut server, red, "red", |p| {
        p["prs"][0]["view"]["checks"] == "failed"
    });
    wait_prs(&mut server, conflicting, "conflicting", |p| {
        p["prs"][0]["view"]["mergeable"] == "conflicting"
    });

    // The y/n's counts: what would be done, nothing done yet.
    let plan = server.ok("session/recover", json!({"dry_run": true}));
    assert_eq!(
        plan["items"],
        json!([
            {"session_id": conflicting, "kind": "sync", "ok": null, "message": ""},
            {"session_id": red, "kind": "fix_ci", "ok": null, "message": ""},
        ]),
        "{plan}"
    );
    assert_eq!(
        (plan["succeeded"].as_u64(), plan["failed"].as_u64()),
        (Some(0), Some(0))
    );

    // The base moved on; the remote refuses the conflicting session's push.
    commit_file(&world, world.repo.path(), "base.txt", "Base moves on");
    let hook = hub.bare.path().join("hooks/pre-receive");
    std::fs::write(&hook, "#!/bin/sh\necho 'refused by policy' >&2\nexit 1\n").unwrap();
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();

    let done = server.ok("session/recover", json!({}));
    assert_eq!(done["succeeded"], 1, "{done}");
    assert_eq!(done["failed"], 1, "{done}");
    let items = done["items"].as_array().unwrap();
    assert_eq!(items[0]["session_id"], conflicting);
    assert_eq!(items[0]["ok"], false, "the push was refused: {done}");
    let message = items[0]["message"].as_str().unwrap();
    assert!(
        message.contains("merged main into the session"),
        "{message}"
    );
    assert!(message.contains("refused by policy"), "{message}");
    assert_eq!(items[1]["session_id"], red);
    assert_eq!(items[1]["ok"], true, "{done}");
    server.wait_status(red, "completed");
    let asked = world
        .mock
        .message_requests()
        .iter()
        .filter_map(|r| r.last_user_text())
        .filter(|text| text.contains(FAILURE))
        .count();
    assert_eq!(asked, 1);

    // Without the hook the sync pushes: the remote branch has the base's commit.
    std::fs::remove_file(&hook).unwrap();
    let synced = server.ok("session/sync", json!({"session_id": conflicting}));
    let message = synced["message"].as_str().unwrap();
    assert!(message.contains("pushed to origin"), "{message}");
    let remote_tip = world.git(
        hub.bare.path(),
        &["rev-parse", &format!("refs/heads/codiva/{conflicting}")],
    );
    assert_eq!(
        remote_tip,
        world.git(&world.worktree(conflicting), &["rev-parse", "HEAD"])
    );
    let base_tip = world.git(world.repo.path(), &["rev-parse", "main"]);
    // Fails (and the test with it) unless the base's commit is in the pushed branch.
    world.git(
        hub.bare.path(),
        &[
            "merge-base",
            "--is-ancestor",
            base_tip.trim(),
            &format!("refs/heads/codiva/{conflicting}"),
        ],
    );
}

#[test]
fn commit_with_a_message_or_by_the_agent() {
    use codiva_testkit::{Match, Rule, Times};
    let world = World::new(|_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains("agent commit".into()),
                    Reply::text("Committed."),
                )
                .times(Times::Always),
            )
            .rule(
                Rule::new(
                    Match::LastUserContains("List the files".into()),
                    Reply::tool_use(
                        "Bash",
                        json!({"command": "touch made.txt", "description": "make a file"}),
                    ),
                )
                .times(Times::Always),
            )
            .rule(
                Rule::new(
                    Match::LastUserContains("Commit all of your uncommitted changes".into()),
                    Reply::tool_use(
                        "Bash",
                        json!({"command": "git commit -m 'agent commit'", "description": "commit"}),
                    ),
                )
                .times(Times::Always),
            )
            .always(Reply::text("Done."))
    });
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let id = "write-notes";
    let rules =
        json!({"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "git commit"}]});
    server.ok(
        "session/create",
        json!({"prompt": "Write notes", "approval_policy": rules}),
    );
    server.wait_status(id, "completed");
    let worktree = world.worktree(id);

    let err = server
        .call(
            "session/commit",
            json!({"session_id": id, "message": "Nothing"}),
        )
        .unwrap_err();
    assert_eq!(refusal(&err).0, "nothing_to_commit", "{err}");

    // A merge with nothing committed offers /commit.
    std::fs::write(worktree.join("a.txt"), "a\n").unwrap();
    std::fs::create_dir(worktree.join("dir")).unwrap();
    std::fs::write(worktree.join("dir/b.txt"), "b\n").unwrap();
    let err = server
        .call("session/merge", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(refusal(&err).0, "nothing_to_merge", "{err}");
    assert_eq!(refusal(&err).1.get(2), Some(&"2"), "{err}");
    assert!(
        err["message"].as_str().unwrap().contains("/commit"),
        "{err}"
    );

    // codiva commits with the message given (a leading dash stays the message).
    let err = server
        .call(
            "session/commit",
            json!({"session_id": id, "message": " \n"}),
        )
        .unwrap_err();
    assert_eq!(refusal(&err).0, "empty_instruction", "{err}");
    let committed = server.ok(
        "session/commit",
        json!({"session_id": id, "message": "-Add a and b\u{1b}[31m"}),
    );
    assert_eq!(committed["asked_agent"], false, "{committed}");
    assert_eq!(committed["files"], 2);
    let head = world.git(&worktree, &["rev-parse", "HEAD"]);
    assert_eq!(committed["commit"], head.trim());
    assert_eq!(
        world.git(&worktree, &["log", "-1", "--format=%s"]).trim(),
        "-Add a and b",
        "the escape sequence was removed"
    );
    assert_eq!(
        world
            .git(&worktree, &["show", "--name-only", "--format=", "HEAD"])
            .trim(),
        "a.txt\ndir/b.txt"
    );
    assert_eq!(world.git(&worktree, &["status", "--porcelain"]), "");

    // Without a message the agent is asked, and commits itself.
    // Staged by hand; the agent's `git commit` takes it.
    std::fs::write(worktree.join("notes.txt"), "notes\n").unwrap();
    world.git(&worktree, &["add", "notes.txt"]);
    let asked = server.ok("session/commit", json!({"session_id": id}));
    assert_eq!(asked["asked_agent"], true, "{asked}");
    assert_eq!(asked["files"], 1);
    assert_eq!(asked["commit"], Value::Null);
    server.wait_status(id, "completed");
    assert_eq!(
        world.git(&worktree, &["log", "-1", "--format=%s"]).trim(),
        "agent commit"
    );
    assert_eq!(world.git(&worktree, &["status", "--porcelain"]), "");

    // While the agent works (here: waits for a permission), neither commits nor fix-ci.
    std::fs::write(worktree.join("later.txt"), "later\n").unwrap();
    server.ok(
        "session/send",
        json!({"session_id": id, "text": "List the files"}),
    );
    let permission = server.wait_prompt(id, "permission");
    for (method, params) in [
        (
            "session/commit",
            json!({"session_id": id, "message": "Later"}),
        ),
        ("session/commit", json!({"session_id": id})),
        ("session/fixCi", json!({"session_id": id})),
    ] {
        let err = server.call(method, params).unwrap_err();
        assert_eq!(refusal(&err).0, "still_working", "{method}: {err}");
    }
    server.ok(
        "session/respondPermission",
        json!({"session_id": id, "request_id": permission["request_id"], "decision": "deny"}),
    );
    server.wait_status(id, "completed");
    assert_eq!(
        world.git(&worktree, &["log", "-1", "--format=%s"]).trim(),
        "agent commit",
        "nothing was committed while it worked"
    );
}

/// How many of the agent's requests ended with the failed log tail (one per fix-ci).
fn fix_ci_messages(world: &World) -> usize {
    world
        .mock
        .message_requests()
        .iter()
        .filter_map(|r| r.last_user_text())
        .filter(|text| text.contains(FAILURE))
        .count()
}

#[test]
fn auto_recover_repairs_at_most_twice_per_kind_across_a_restart() {
    let world = World::new(|_| Script::new().always(Reply::text("Done.")));
    let hub = hub(&world, "auto_recover = true\n");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let id = "flaky-build";
    server.ok("session/create", json!({"prompt": "Flaky build"}));
    server.wait_status(id, "completed");
    commit_file(&world, &world.worktree(id), "build.txt", "Flaky build");
    server.ok("session/pr", json!({"session_id": id}));
    hub.mock.add_run(red_run(9, &format!("codiva/{id}")));
    let red = || vec![MockCheck::completed("build", "FAILURE").in_run(9)];
    let running = || vec![MockCheck::running("build").in_run(9)];

    // Red twice (with a run in between): repaired each time, without being asked.
    for attempt in 1..=2 {
        hub.mock.set_checks(1, running());
        wait_prs(&mut server, id, "running", |p| {
            p["prs"][0]["view"]["checks"] == "pending"
        });
        hub.mock.set_checks(1, red());
        wait_prs(&mut server, id, "red", |p| {
            p["prs"][0]["view"]["checks"] == "failed"
        });
        server.wait_status(id, "completed");
        assert_eq!(fix_ci_messages(&world), attempt);
    }
    // A third time: not again. A fix-ci asked for by hand waits behind any automatic one in
    // the session's lane, so it is the third message exactly when no automatic one was sent.
    hub.mock.set_checks(1, running());
    wait_prs(&mut server, id, "running", |p| {
        p["prs"][0]["view"]["checks"] == "pending"
    });
    hub.mock.set_checks(1, red());
    wait_prs(&mut server, id, "red", |p| {
        p["prs"][0]["view"]["checks"] == "failed"
    });
    server.ok("session/fixCi", json!({"session_id": id}));
    server.wait_status(id, "completed");
    assert_eq!(fix_ci_messages(&world), 3);
    assert!(server.close().success());

    // The count is kept in the state file: a restart (its first lookup finds it red) does
    // not start over.
    let state = std::fs::read_to_string(world.repo.path().join(".codiva/state.json")).unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(
        state["sessions"][0]["recover_attempts"],
        json!({"fix_ci": 2}),
        "{state}"
    );
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    wait_prs(&mut server, id, "red after the restart", |p| {
        p["prs"][0]["view"]["checks"] == "failed"
    });
    server.ok("session/fixCi", json!({"session_id": id}));
    server.wait_status(id, "completed");
    assert_eq!(fix_ci_messages(&world), 4);
}

/// Regression: the fix-ci message tells the agent "Do not push: the branch is pushed for you",
/// yet its fix commit never reached the remote and the pull request stayed red. Now a repair
/// turn that completes with new commits pushes them, the log says so, and the pull request's
/// checks are looked up again; a repair turn with no commit pushes nothing and says that.
#[test]
fn a_fix_ci_turn_that_commits_pushes_the_fix_and_the_checks_are_looked_up_again() {
    use codiva_testkit::{Match, Rule, Times};
    let world = World::new(|_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains(FAILURE.into()),
                    Reply::tool_use(
                        "Bash",
                        json!({"command": "git commit -m 'Fix the typo'", "description": "commit the fix"}),
                    ),
                )
                .times(Times::Once),
            )
            .always(Reply::text("Done."))
    });
    let hub = hub(&world, "");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let id = "typo-in-login";
    let rules =
        json!({"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "git commit"}]});
    server.ok(
        "session/create",
        json!({"prompt": "Typo in login", "approval_policy": rules}),
    );
    server.wait_status(id, "completed");
    let worktree = world.worktree(id);
    commit_file(&world, &worktree, "login.rs", "Typo in login");
    let opened = server.ok("session/pr", json!({"session_id": id}));
    assert_eq!(opened["pr"]["number"], 1);
    let branch = format!("refs/heads/codiva/{id}");
    let pushed_tip = world.git(hub.bare.path(), &["rev-parse", &branch]);

    hub.mock
        .set_checks(1, vec![MockCheck::completed("build", "FAILURE").in_run(42)]);
    hub.mock.add_run(red_run(42, &format!("codiva/{id}")));
    wait_prs(&mut server, id, "red", |p| {
        p["prs"][0]["view"]["checks"] == "failed"
    });
    // The fix, staged; the agent's `git commit` takes it.
    std::fs::write(worktree.join("login.rs"), "fn login() { token }\n").unwrap();
    world.git(&worktree, &["add", "login.rs"]);
    server.ok("session/fixCi", json!({"session_id": id}));
    server.wait_status(id, "completed");
    let fixed = world.git(&worktree, &["rev-parse", "HEAD"]);
    assert_ne!(fixed, pushed_tip, "the agent committed its fix");

    // The fix reaches the remote by itself, and the log says so.
    let note = wait_note(&mut server, id, "repair_pushed");
    assert_eq!(
        note["code"]["args"],
        json!([format!("codiva/{id}"), "origin"]),
        "{note}"
    );
    assert_eq!(world.git(hub.bare.path(), &["rev-parse", &branch]), fixed);
    // The pull request is looked up again: green checks are seen.
    hub.mock
        .set_checks(1, vec![MockCheck::completed("build", "SUCCESS").in_run(43)]);
    wait_prs(&mut server, id, "green", |p| {
        p["prs"][0]["view"]["checks"] == "passed"
    });

    // Red again; this time the agent commits nothing (the rule answered once): nothing is
    // pushed, and the log says that.
    server.notes.retain(|n| n["method"] != "session/prStatus");
    hub.mock
        .set_checks(1, vec![MockCheck::completed("build", "FAILURE").in_run(42)]);
    wait_prs(&mut server, id, "red again", |p| {
        p["prs"][0]["view"]["checks"] == "failed"
    });
    server.ok("session/fixCi", json!({"session_id": id}));
    server.wait_status(id, "completed");
    wait_note(&mut server, id, "repair_not_pushed");
    assert_eq!(world.git(hub.bare.path(), &["rev-parse", &branch]), fixed);
}

/// Waits until session `id`'s log has a note with code `code`; returns the entry.
pub(super) fn wait_note(server: &mut super::client::Server, id: &str, code: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let read = server.ok("session/read", json!({"session_id": id, "limit": 500}));
        let found = read["entries"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|e| e["kind"] == "note" && e["code"]["name"] == code)
            .cloned();
        if let Some(entry) = found {
            return entry;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no {code} note in {id}'s log: {read}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
