//! Finishing work: diff, merge, merge conflict, refusal on a dirty main checkout, discard with
//! confirmation, restore.

use serde_json::json;

use codiva_testkit::{Match, Reply, Script};

use super::client::World;

fn script() -> Script {
    Script::new()
        .then_when(
            Match::FirstUserContains("ONE".into()),
            Reply::text("One done."),
        )
        .then_when(
            Match::FirstUserContains("TWO".into()),
            Reply::text("Two done."),
        )
        .then_when(
            Match::FirstUserContains("THREE".into()),
            Reply::text("Three done."),
        )
}

#[test]
fn merge_conflict_discard_and_restore() {
    let world = World::new(|_| script());
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    for prompt in [
        "ONE edits the readme",
        "TWO edits the readme",
        "THREE keeps notes",
    ] {
        server.ok("session/create", json!({"prompt": prompt}));
    }
    let (one, two, three) = (
        "one-edits-the-readme",
        "two-edits-the-readme",
        "three-keeps-notes",
    );
    for id in [one, two, three] {
        server.wait_status(id, "completed");
    }
    // The "agent's" work: the same line changed differently in two sessions.
    for (id, text) in [(one, "one\n"), (two, "two\n")] {
        let worktree = world.worktree(id);
        std::fs::write(worktree.join("README.md"), text).unwrap();
        world.git(
            &worktree,
            &["commit", "-qam", &format!("{id} edits README")],
        );
    }

    let diff = server.ok("session/diff", json!({"session_id": one}));
    assert_eq!(diff["files"][0]["path"], "README.md");
    assert_eq!(diff["commits_ahead"], 1);

    // A dirty main checkout refuses the merge, and nothing changes.
    let readme = world.repo.path().join("README.md");
    let original = std::fs::read_to_string(&readme).unwrap();
    std::fs::write(&readme, "local edit\n").unwrap();
    let refused = server
        .call("session/merge", json!({"session_id": one}))
        .unwrap_err();
    assert_eq!(refused["code"], -32002, "{refused}");
    std::fs::write(&readme, &original).unwrap();

    let merged = server.ok("session/merge", json!({"session_id": one}));
    assert_eq!(merged["session"]["phase"], "merged");
    let parents = world.git(
        world.repo.path(),
        &["rev-list", "--parents", "-n", "1", "HEAD"],
    );
    assert_eq!(
        parents.split_whitespace().count(),
        3,
        "a --no-ff merge commit"
    );
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), "one\n");
    assert!(
        !world.worktree(one).exists(),
        "the merged worktree is removed"
    );

    let conflict = server
        .call("session/merge", json!({"session_id": two}))
        .unwrap_err();
    assert_eq!(conflict["code"], -32002);
    assert_eq!(conflict["data"]["reason"], "merge_conflict");
    assert_eq!(conflict["data"]["args"][2], "README.md");
    assert!(
        conflict["message"].as_str().unwrap().contains("README.md"),
        "{conflict}"
    );
    assert_eq!(
        world
            .git(world.repo.path(), &["status", "--porcelain"])
            .trim(),
        "",
        "the main checkout is left clean"
    );
    let list = server.ok("session/list", json!({}));
    let two_info = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == two)
        .unwrap()
        .clone();
    assert_eq!(two_info["phase"], "conflict");
    assert_eq!(two_info["files"], json!(["README.md"]));

    // Discard needs a confirmation and says first what would be lost.
    let worktree = world.worktree(three);
    std::fs::write(worktree.join("kept.txt"), "committed\n").unwrap();
    world.git(&worktree, &["add", "kept.txt"]);
    world.git(&worktree, &["commit", "-qm", "Keep notes"]);
    std::fs::write(worktree.join("scratch.txt"), "uncommitted\n").unwrap();
    let preview = server.ok("session/discard", json!({"session_id": three}));
    assert_eq!(preview["outcome"], "needs_confirmation");
    assert_eq!(preview["preview"]["uncommitted"], json!(["scratch.txt"]));
    assert_eq!(
        preview["preview"]["unmerged_commits"],
        json!(["Keep notes"])
    );
    assert!(
        worktree.exists(),
        "nothing happens without the confirmation"
    );
    let wrong = server
        .call(
            "session/discard",
            json!({"session_id": three, "confirm_token": "nope"}),
        )
        .unwrap_err();
    assert_eq!(wrong["code"], -32002);
    let token = preview["confirm_token"].clone();
    let discarded = server.ok(
        "session/discard",
        json!({"session_id": three, "confirm_token": token}),
    );
    assert_eq!(discarded["outcome"], "discarded");
    assert!(!worktree.exists());
    assert!(
        world
            .git(
                world.repo.path(),
                &["branch", "--list", "codiva/three-keeps-notes"]
            )
            .trim()
            .is_empty()
    );
    let restored = server.ok("session/restore", json!({"session_id": three}));
    assert_eq!(restored["session"]["phase"], "active");
    assert_eq!(
        std::fs::read_to_string(worktree.join("kept.txt")).unwrap(),
        "committed\n",
        "the branch and its commit are back"
    );
    assert!(server.close().success());
}

/// A stale token discards nothing and comes back with a fresh preview; discard then restore gives
/// back the worktree as it was: commits, staged and unstaged changes, untracked files.
#[test]
fn discard_is_tied_to_the_preview_and_restore_is_exact() {
    use std::os::unix::fs::PermissionsExt;

    let world = World::new(|_| script());
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    server.ok(
        "session/create",
        json!({"prompt": "ONE keeps a scratchpad"}),
    );
    let id = "one-keeps-a-scratchpad";
    server.wait_status(id, "completed");
    let worktree = world.worktree(id);
    std::fs::write(worktree.join("kept.txt"), "committed\n").unwrap();
    world.git(&worktree, &["add", "kept.txt"]);
    world.git(&worktree, &["commit", "-qm", "Keep notes"]);
    std::fs::write(worktree.join("README.md"), "staged\n").unwrap();
    world.git(&worktree, &["add", "README.md"]);
    std::fs::write(worktree.join("README.md"), "staged, then edited\n").unwrap();
    std::fs::create_dir_all(worktree.join("scratch/メモ")).unwrap();
    std::fs::write(worktree.join("scratch/メモ/today.txt"), "uncommitted\n").unwrap();
    std::fs::write(worktree.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(
        worktree.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();

    let preview = server.ok("session/discard", json!({"session_id": id}));
    assert_eq!(preview["outcome"], "needs_confirmation");
    assert_eq!(
        preview["preview"]["uncommitted"],
        json!(["README.md", "run.sh", "scratch/"])
    );
    let old = preview["confirm_token"].clone();

    // A file appears after the preview: the old token discards nothing.
    std::fs::write(worktree.join("late.txt"), "not in the preview\n").unwrap();
    let refused = server
        .call(
            "session/discard",
            json!({"session_id": id, "confirm_token": old}),
        )
        .unwrap_err();
    assert_eq!(refused["code"], -32002, "{refused}");
    assert_eq!(refused["data"]["reason"], "changed_since_preview");
    assert_eq!(refused["data"]["args"], json!([id]));
    assert_eq!(
        refused["data"]["preview"]["uncommitted"],
        json!(["README.md", "late.txt", "run.sh", "scratch/"])
    );
    assert_eq!(
        refused["data"]["preview"]["unmerged_commits"],
        json!(["Keep notes"])
    );
    let fresh = refused["data"]["confirm_token"].clone();
    assert!(fresh.is_string() && fresh != old, "{refused}");
    assert!(worktree.join("late.txt").is_file(), "nothing was removed");
    // Remove (discard + forget) refuses the old token the same way.
    let refused = server
        .call(
            "session/remove",
            json!({"session_id": id, "confirm_token": old}),
        )
        .unwrap_err();
    assert_eq!(refused["data"]["reason"], "changed_since_preview");
    assert_eq!(refused["data"]["confirm_token"], fresh);

    let state = |world: &World| {
        [
            vec!["rev-parse", "HEAD"],
            vec!["status", "--porcelain=v1", "--untracked-files=all"],
            vec!["diff", "--cached"],
            vec!["diff"],
        ]
        .iter()
        .map(|args| world.git(&worktree, args))
        .collect::<Vec<_>>()
    };
    let before = state(&world);
    let discarded = server.ok(
        "session/discard",
        json!({"session_id": id, "confirm_token": fresh}),
    );
    assert_eq!(discarded["outcome"], "discarded");
    assert!(!worktree.exists());

    let restored = server.ok("session/restore", json!({"session_id": id}));
    assert_eq!(restored["session"]["phase"], "active");
    assert_eq!(state(&world), before);
    assert_eq!(
        std::fs::read_to_string(worktree.join("scratch/メモ/today.txt")).unwrap(),
        "uncommitted\n"
    );
    let mode = std::fs::metadata(worktree.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "the executable bit is back");
    assert_eq!(
        world
            .git(
                world.repo.path(),
                &["rev-list", "--count", &format!("main..codiva/{id}")]
            )
            .trim(),
        "1",
        "the archive commits are not on the branch"
    );
    assert!(server.close().success());
}
