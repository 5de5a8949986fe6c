//! Diff stat, merge, discard (preview, archive, restore), sync.

use codiva_core::git::{
    DiscardResult, IgnoredMode, MergeOutcome, Repo, SyncOutcome, Worktree, WorktreeOptions,
};

use super::{TestRepo, commit_all, git, git_try, write};

pub(crate) fn options() -> WorktreeOptions {
    WorktreeOptions {
        fetch: false,
        ignored: IgnoredMode::Symlink,
        exclude: Vec::new(),
    }
}

pub(crate) async fn session(repo: &Repo, slug: &str) -> Worktree {
    repo.create_worktree(slug, "main", &options())
        .await
        .unwrap()
}

#[tokio::test]
async fn diff_stat_counts_commits_lines_and_uncommitted_files() {
    let t = TestRepo::new();
    write(&t.root, ".gitignore", "node_modules/\n");
    commit_all(&t.root, "ignore");
    write(&t.root, "node_modules/x.js", "x");
    let repo = t.open().await;
    let wt = session(&repo, "stat").await;
    write(&wt.path, "new.txt", "a\nb\n");
    write(&wt.path, "README.md", "line one\nline 2\n");
    commit_all_explicit(&wt.path, &["new.txt", "README.md"], "work");
    write(&wt.path, "scratch.txt", "wip\n");
    // The base moves on too: `base...HEAD` ignores that.
    write(&t.root, "other.txt", "main only\n");
    commit_all(&t.root, "main moves");

    let stat = repo.diff_stat(&wt.path, "main").await.unwrap();
    assert_eq!(stat.commits_ahead, 1);
    let files: Vec<_> = stat.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, vec!["README.md", "new.txt"]);
    assert_eq!((stat.insertions, stat.deletions), (3, 1));
    let uncommitted: Vec<_> = stat.uncommitted.iter().map(|e| e.path.as_str()).collect();
    // The carried `node_modules` link is not the session's work.
    assert_eq!(uncommitted, vec!["scratch.txt"]);
    assert_eq!(stat.uncommitted[0].status, "??");
}

/// Commits explicit paths (never `add -A` in a symlink-mode worktree).
pub(crate) fn commit_all_explicit(dir: &std::path::Path, paths: &[&str], message: &str) {
    let mut args = vec!["add", "--"];
    args.extend_from_slice(paths);
    git(dir, &args);
    git(dir, &["commit", "-q", "-m", message]);
}

#[tokio::test]
async fn merge_lands_a_no_ff_merge_commit_on_the_base() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = session(&repo, "feature").await;
    write(&wt.path, "feature.txt", "done\n");
    let tip = commit_all(&wt.path, "add feature");
    let before = git(&t.root, &["rev-parse", "HEAD"]);

    let outcome = repo.merge("codiva/feature", "main").await.unwrap();
    let MergeOutcome::Merged { commit } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(commit, git(&t.root, &["rev-parse", "main"]));
    let parents = git(&t.root, &["rev-list", "--parents", "-n", "1", "HEAD"]);
    assert_eq!(parents, format!("{commit} {before} {tip}"));
    assert!(t.root.join("feature.txt").is_file());
    assert_eq!(git(&t.root, &["status", "--porcelain"]), "");

    assert_eq!(
        repo.merge("codiva/feature", "main").await.unwrap(),
        MergeOutcome::UpToDate
    );
    repo.remove_after_merge(&wt.path, &wt.branch, "main", &wt.slug)
        .await
        .unwrap();
    assert!(!wt.path.exists());
    assert!(!git_try(&t.root, &["rev-parse", "--verify", "codiva/feature"]).0);
}

#[tokio::test]
async fn merge_conflict_is_aborted_and_leaves_the_main_checkout_clean() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let a = session(&repo, "a").await;
    let b = session(&repo, "b").await;
    write(&a.path, "README.md", "line one from a\nline two\n");
    commit_all(&a.path, "a edits");
    write(&b.path, "README.md", "line one from b\nline two\n");
    commit_all(&b.path, "b edits");

    assert!(matches!(
        repo.merge("codiva/a", "main").await.unwrap(),
        MergeOutcome::Merged { .. }
    ));
    let head = git(&t.root, &["rev-parse", "HEAD"]);
    let outcome = repo.merge("codiva/b", "main").await.unwrap();
    assert_eq!(
        outcome,
        MergeOutcome::Conflict {
            files: vec!["README.md".to_string()]
        }
    );
    assert_eq!(git(&t.root, &["status", "--porcelain"]), "");
    assert_eq!(git(&t.root, &["rev-parse", "HEAD"]), head);
    assert!(!git_try(&t.root, &["rev-parse", "--verify", "--quiet", "MERGE_HEAD"]).0);
    assert_eq!(
        std::fs::read_to_string(t.root.join("README.md")).unwrap(),
        "line one from a\nline two\n"
    );
}

#[tokio::test]
async fn merge_is_refused_when_dirty_or_on_another_branch() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = session(&repo, "x").await;
    write(&wt.path, "x.txt", "x\n");
    commit_all(&wt.path, "x");

    write(&t.root, "README.md", "edited in main\n");
    let MergeOutcome::Refused { reason } = repo.merge("codiva/x", "main").await.unwrap() else {
        panic!("expected refusal");
    };
    assert!(
        reason.contains("uncommitted changes") && reason.contains("README.md"),
        "{reason}"
    );
    git(&t.root, &["checkout", "-q", "--", "README.md"]);

    git(&t.root, &["checkout", "-q", "-b", "other"]);
    let MergeOutcome::Refused { reason } = repo.merge("codiva/x", "main").await.unwrap() else {
        panic!("expected refusal");
    };
    assert!(reason.contains("on other, not main"), "{reason}");
    git(&t.root, &["checkout", "-q", "main"]);

    // An untracked file in the main checkout does not block.
    write(&t.root, "notes.txt", "mine\n");
    assert!(matches!(
        repo.merge("codiva/x", "main").await.unwrap(),
        MergeOutcome::Merged { .. }
    ));
    assert!(t.root.join("notes.txt").is_file());
}

#[tokio::test]
async fn discard_previews_keeps_an_archive_and_restore_brings_it_back() {
    let t = TestRepo::new();
    write(&t.root, ".gitignore", "node_modules/\n");
    commit_all(&t.root, "ignore");
    write(&t.root, "node_modules/dep.js", "shared\n");
    let repo = t.open().await;
    let wt = session(&repo, "gone").await;
    write(&wt.path, "kept.txt", "committed\n");
    commit_all_explicit(&wt.path, &["kept.txt"], "unmerged work");
    write(&wt.path, "lost.txt", "uncommitted\n");

    let preview = repo
        .discard_preview(&wt.path, &wt.branch, "main", &wt.slug)
        .await
        .unwrap();
    let lost: Vec<_> = preview
        .uncommitted
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    assert_eq!(lost, vec!["lost.txt"]);
    assert_eq!(preview.commits.len(), 1);
    assert_eq!(preview.commits[0].subject, "unmerged work");
    let tip = git(&wt.path, &["rev-parse", "HEAD"]);

    let archive = repo
        .discard(&wt.path, &wt.branch, "main", &wt.slug, &preview.token)
        .await
        .unwrap();
    assert_eq!(archive, DiscardResult::Discarded);
    assert!(!wt.path.exists());
    assert!(
        !git_try(
            &t.root,
            &["rev-parse", "--verify", "--quiet", "refs/heads/codiva/gone"]
        )
        .0
    );
    // The archive keeps the tip as its first parent (the uncommitted file made an archive commit).
    assert_eq!(
        git(&t.root, &["rev-parse", "refs/codiva/archive/gone^1"]),
        tip
    );
    // Removing the worktree did not follow the shared link.
    assert_eq!(
        std::fs::read_to_string(t.root.join("node_modules/dep.js")).unwrap(),
        "shared\n"
    );
    assert!(repo.taken_slugs().await.unwrap().contains("gone"));

    let restored = repo.restore("gone", &options()).await.unwrap();
    assert_eq!(restored.path, wt.path);
    assert_eq!(restored.branch, "codiva/gone");
    assert_eq!(git(&restored.path, &["rev-parse", "HEAD"]), tip);
    assert!(restored.path.join("kept.txt").is_file());
    assert_eq!(
        std::fs::read_to_string(restored.path.join("lost.txt")).unwrap(),
        "uncommitted\n",
        "uncommitted work comes back too"
    );
    assert_eq!(
        std::fs::read_link(restored.path.join("node_modules")).unwrap(),
        t.root.join("node_modules")
    );
    assert!(
        !git_try(
            &t.root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "refs/codiva/archive/gone"
            ]
        )
        .0
    );
    assert!(repo.restore("gone", &options()).await.is_err());
}

#[tokio::test]
async fn discard_works_when_the_worktree_was_deleted_behind_our_back() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = session(&repo, "deleted").await;
    write(&wt.path, "w.txt", "w\n");
    let tip = commit_all(&wt.path, "w");
    std::fs::remove_dir_all(&wt.path).unwrap();
    assert!(!repo.worktree_exists(&wt.path).await);

    let token = repo
        .discard_preview(&wt.path, &wt.branch, "main", &wt.slug)
        .await
        .unwrap()
        .token;
    let discarded = repo
        .discard(&wt.path, &wt.branch, "main", &wt.slug, &token)
        .await
        .unwrap();
    assert_eq!(discarded, DiscardResult::Discarded);
    assert_eq!(
        git(&t.root, &["rev-parse", "refs/codiva/archive/deleted"]),
        tip
    );
    assert!(!git(&t.root, &["worktree", "list"]).contains("deleted"));
    assert!(
        !git_try(
            &t.root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "refs/heads/codiva/deleted"
            ]
        )
        .0
    );
    // Discarding twice is harmless and keeps the archive.
    let token = repo
        .discard_preview(&wt.path, &wt.branch, "main", &wt.slug)
        .await
        .unwrap()
        .token;
    repo.discard(&wt.path, &wt.branch, "main", &wt.slug, &token)
        .await
        .unwrap();
    assert_eq!(
        git(&t.root, &["rev-parse", "refs/codiva/archive/deleted"]),
        tip
    );
    // A path outside .codiva/worktrees is refused.
    assert!(
        repo.discard(&t.root, "main", "main", "main", &token)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn sync_merges_the_base_reports_conflicts_and_dirty_worktrees() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = session(&repo, "sync").await;
    assert_eq!(
        repo.sync(&wt.path, "main").await.unwrap(),
        SyncOutcome::UpToDate
    );

    write(&wt.path, "session.txt", "s\n");
    commit_all(&wt.path, "session work");
    write(&t.root, "base.txt", "b\n");
    commit_all(&t.root, "base work");
    let outcome = repo.sync(&wt.path, "main").await.unwrap();
    let SyncOutcome::Merged { commit } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(commit, git(&wt.path, &["rev-parse", "HEAD"]));
    assert!(wt.path.join("base.txt").is_file());

    // Dirty: nothing done.
    write(&wt.path, "session.txt", "changed\n");
    assert_eq!(
        repo.sync(&wt.path, "main").await.unwrap(),
        SyncOutcome::Dirty {
            files: vec!["session.txt".to_string()]
        }
    );
    git(&wt.path, &["checkout", "-q", "--", "session.txt"]);

    // Conflict: markers stay for the agent.
    write(&wt.path, "README.md", "session line\nline two\n");
    commit_all(&wt.path, "session edits readme");
    write(&t.root, "README.md", "base line\nline two\n");
    commit_all(&t.root, "base edits readme");
    assert_eq!(
        repo.sync(&wt.path, "main").await.unwrap(),
        SyncOutcome::Conflict {
            files: vec!["README.md".to_string()]
        }
    );
    let text = std::fs::read_to_string(wt.path.join("README.md")).unwrap();
    assert!(
        text.contains("<<<<<<<") && text.contains(">>>>>>>"),
        "{text}"
    );
    assert!(
        git_try(
            &wt.path,
            &["rev-parse", "--verify", "--quiet", "MERGE_HEAD"]
        )
        .0
    );
    // The main checkout is untouched.
    assert_eq!(git(&t.root, &["status", "--porcelain"]), "");
}
