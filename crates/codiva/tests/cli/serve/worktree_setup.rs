//! What a new worktree gets (shared ignored files, `.codiva/setup`, `.codiva/prompt.md`), and
//! `sync` and `remove`.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use codiva_testkit::{Match, Reply, Script};

use super::client::World;

#[test]
fn setup_prompt_carry_sync_and_remove() {
    let world = World::new(|_| {
        Script::new()
            .then_when(
                Match::FirstUserContains("SETUP".into()),
                Reply::text("Set up."),
            )
            .then_when(
                Match::LastUserContains("conflicts in: README.md".into()),
                Reply::text("I will resolve them."),
            )
    });
    let repo = world.repo.path();
    std::fs::write(repo.join(".gitignore"), "node_modules/\n").unwrap();
    world.git(repo, &["add", ".gitignore"]);
    world.git(repo, &["commit", "-qm", "ignore node_modules"]);
    std::fs::create_dir_all(repo.join("node_modules/left-pad")).unwrap();
    std::fs::write(
        repo.join("node_modules/left-pad/index.js"),
        "module.exports = 1;\n",
    )
    .unwrap();
    std::fs::create_dir_all(repo.join(".codiva")).unwrap();
    std::fs::write(
        repo.join(".codiva/prompt.md"),
        "\u{feff}Always answer in haiku.\n",
    )
    .unwrap();
    let setup = repo.join(".codiva/setup");
    std::fs::write(
        &setup,
        "#!/bin/sh\necho setup-ran-in-$(basename \"$PWD\")\n",
    )
    .unwrap();
    std::fs::set_permissions(&setup, std::fs::Permissions::from_mode(0o755)).unwrap();

    let mut server = world.serve();
    server.ok(
        "session/create",
        json!({"prompt": "SETUP check everything"}),
    );
    let id = "setup-check-everything";
    server.wait_status(id, "completed");
    let worktree = world.worktree(id);

    // Ignored files are shared into the worktree as symlinks.
    let link = worktree.join("node_modules");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(link.join("left-pad/index.js").exists());
    // The setup script ran in the worktree; its output is in the session's log.
    let log = server.ok("session/read", json!({"session_id": id}));
    assert!(
        log.to_string()
            .contains("setup-ran-in-setup-check-everything"),
        "{log}"
    );
    // The repo-wide instructions and the symlink notice reached the agent's system prompt.
    let first = world.mock.message_requests()[0].body.to_string();
    assert!(
        first.contains("Always answer in haiku."),
        "prompt.md is appended"
    );
    assert!(
        first.contains("readlink"),
        "the shared-symlink notice is there"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join(".gitignore")).unwrap(),
        "node_modules/\n",
        "the repository's own .gitignore is untouched"
    );

    // sync: the base moved on and conflicts with the session's commit.
    std::fs::write(worktree.join("README.md"), "session\n").unwrap();
    world.git(&worktree, &["commit", "-qam", "session edit"]);
    std::fs::write(repo.join("README.md"), "base\n").unwrap();
    world.git(repo, &["commit", "-qam", "base edit"]);
    let sync = server.ok("session/sync", json!({"session_id": id}));
    assert!(
        sync["message"].as_str().unwrap().contains("README.md"),
        "{sync}"
    );
    server.wait_status(id, "completed");
    let readme = std::fs::read_to_string(worktree.join("README.md")).unwrap();
    assert!(
        readme.contains("<<<<<<<"),
        "conflict markers are left for the agent: {readme}"
    );

    // remove = discard + forget, after a confirmation.
    world.git(&worktree, &["merge", "--abort"]);
    let preview = server.ok("session/remove", json!({"session_id": id}));
    assert_eq!(preview["outcome"], "needs_confirmation");
    let removed = server.ok(
        "session/remove",
        json!({"session_id": id, "confirm_token": preview["confirm_token"]}),
    );
    assert_eq!(removed["outcome"], "removed");
    assert_eq!(server.ok("session/list", json!({}))["sessions"], json!([]));
    assert!(!worktree.exists());
    assert!(
        repo.join("node_modules/left-pad/index.js").exists(),
        "the shared files survive"
    );
    assert!(server.close().success());
    assert!(world.mock.unmatched().is_empty());
}

#[test]
fn the_base_follows_the_checked_out_branch() {
    let world = World::new(|_| {
        Script::new().then_when(
            Match::FirstUserContains("ON DEVELOP".into()),
            Reply::text("ok"),
        )
    });
    let mut server = world.serve();
    assert_eq!(server.ok("initialize", json!({}))["repo"]["base"], "main");
    world.git(world.repo.path(), &["checkout", "-q", "-b", "develop"]);
    let base = server.wait("the new base", |m, _| m == "repo/base");
    assert_eq!(base["base"], "develop");
    let session = server.ok("session/create", json!({"prompt": "ON DEVELOP work"}));
    assert_eq!(session["session"]["base"], "develop");
    server.wait_status("on-develop-work", "completed");
    assert!(server.close().success());
}
