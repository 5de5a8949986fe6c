//! Preflight, `.codiva/`, slugs, worktree creation, ignored-file carry, setup script.

use std::os::unix::fs::PermissionsExt;

use codiva_core::git::{GitError, IgnoredMode, Repo, WorktreeOptions};
use codiva_core::slug::slugify;

use super::{TestRepo, commit_all, git, git_try, init_repo, write};

fn local() -> WorktreeOptions {
    WorktreeOptions {
        fetch: false,
        ignored: IgnoredMode::None,
        exclude: Vec::new(),
    }
}

#[tokio::test]
async fn not_a_repo_and_no_commits_are_user_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let err = Repo::open(tmp.path()).await.unwrap_err();
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");
    assert!(err.to_string().contains("is not inside a git repository"));

    let missing = tmp.path().join("missing");
    let err = Repo::open(&missing).await.unwrap_err();
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");

    init_repo(tmp.path());
    let err = Repo::open(tmp.path()).await.unwrap_err();
    assert!(matches!(err, GitError::NoCommits { .. }), "{err:?}");
    assert!(!err.to_string().contains('\n'));

    // Inside `.git/` there is no work tree.
    let err = Repo::open(&tmp.path().join(".git")).await.unwrap_err();
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");
}

#[tokio::test]
async fn opened_from_a_subdirectory_or_a_linked_worktree_the_root_is_the_main_checkout() {
    let t = TestRepo::new();
    write(&t.root, "sub/dir/file.txt", "x");
    commit_all(&t.root, "sub");
    let repo = Repo::open(&t.root.join("sub/dir")).await.unwrap();
    assert_eq!(repo.root(), t.root);

    let linked = t.tmp.path().canonicalize().unwrap().join("linked");
    git(
        &t.root,
        &[
            "worktree",
            "add",
            "-q",
            linked.to_str().unwrap(),
            "-b",
            "side",
        ],
    );
    assert!(linked.join(".git").is_file());
    let repo = Repo::open(&linked.join("sub")).await.unwrap();
    assert_eq!(repo.root(), t.root);
    assert_eq!(
        repo.current_branch().await.unwrap().as_deref(),
        Some("main")
    );

    // `.codiva/` goes to the main checkout, even though `.git` is a file where we started.
    repo.ensure_codiva_dir().unwrap();
    assert!(t.root.join(".codiva/.gitignore").is_file());
}

/// The manager's start asks the branch and the worktrees alongside the preflight, from where it
/// was started: from a subdirectory or a linked worktree they must still be the main checkout's.
#[tokio::test]
async fn open_for_start_reads_the_main_checkout_from_anywhere() {
    let t = TestRepo::new();
    write(&t.root, "sub/file.txt", "x");
    commit_all(&t.root, "sub");
    let (repo, facts) = Repo::open_for_start(&t.root.join("sub")).await.unwrap();
    assert_eq!(repo.root(), t.root);
    assert_eq!(facts.branch.as_deref(), Some("main"));
    assert_eq!(facts.worktrees.unwrap(), vec![t.root.clone()]);

    let linked = t.tmp.path().canonicalize().unwrap().join("linked");
    let linked_arg = linked.to_str().unwrap();
    git(
        &t.root,
        &["worktree", "add", "-q", linked_arg, "-b", "side"],
    );
    let (repo, facts) = Repo::open_for_start(&linked.join("sub")).await.unwrap();
    assert_eq!(repo.root(), t.root);
    assert_eq!(
        facts.branch.as_deref(),
        Some("main"),
        "not the linked worktree's"
    );
    assert_eq!(
        facts.worktrees.unwrap(),
        vec![t.root.clone(), linked.clone()]
    );

    // Detached in the main checkout: no branch.
    git(&t.root, &["checkout", "-q", "--detach"]);
    let (_, facts) = Repo::open_for_start(&t.root).await.unwrap();
    assert_eq!(facts.branch, None);
}

#[tokio::test]
async fn open_for_start_refuses_what_open_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let err = Repo::open_for_start(tmp.path()).await.unwrap_err();
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");
    let err = Repo::open_for_start(&tmp.path().join("missing"))
        .await
        .unwrap_err();
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");
    init_repo(tmp.path());
    let err = Repo::open_for_start(tmp.path()).await.unwrap_err();
    assert!(matches!(err, GitError::NoCommits { .. }), "{err:?}");
    let err = Repo::open_for_start(&tmp.path().join(".git"))
        .await
        .unwrap_err();
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");
}

#[tokio::test]
async fn current_branch_is_none_when_detached() {
    let t = TestRepo::new();
    let repo = t.open().await;
    git(&t.root, &["checkout", "-q", "--detach"]);
    assert_eq!(repo.current_branch().await.unwrap(), None);
}

#[tokio::test]
async fn codiva_gitignore_is_written_once_and_hides_the_directory() {
    let t = TestRepo::new();
    write(&t.root, ".gitignore", "node_modules/\n");
    commit_all(&t.root, "ignore");
    let repo = t.open().await;
    repo.ensure_codiva_dir().unwrap();
    let ignore = t.root.join(".codiva/.gitignore");
    assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");
    std::fs::write(&ignore, "# mine\n*\n").unwrap();
    write(&t.root, ".codiva/state.json", "{}");
    repo.ensure_codiva_dir().unwrap();
    assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "# mine\n*\n");
    assert_eq!(git(&t.root, &["status", "--porcelain"]), "");
    assert_eq!(
        std::fs::read_to_string(t.root.join(".gitignore")).unwrap(),
        "node_modules/\n"
    );
}

#[tokio::test]
async fn taken_slugs_and_slugify_avoid_worktrees_branches_and_archives() {
    let t = TestRepo::new();
    let repo = t.open().await;
    std::fs::create_dir_all(t.root.join(".codiva/worktrees/fix-bug")).unwrap();
    git(&t.root, &["branch", "codiva/fix-bug-2"]);
    let head = git(&t.root, &["rev-parse", "HEAD"]);
    git(
        &t.root,
        &["update-ref", "refs/codiva/archive/fix-bug-3", &head],
    );
    git(&t.root, &["branch", "unrelated"]);
    let taken = repo.taken_slugs().await.unwrap();
    let names: Vec<_> = taken.iter().map(String::as_str).collect();
    assert_eq!(names, vec!["fix-bug", "fix-bug-2", "fix-bug-3"]);
    assert_eq!(slugify("Fix bug", &taken), "fix-bug-4");
    assert_eq!(slugify("バグを直す", &taken), "task");
}

#[tokio::test]
async fn worktree_without_origin_starts_from_the_local_base() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = repo
        .create_worktree("first", "main", &WorktreeOptions::default())
        .await
        .unwrap();
    assert_eq!(wt.path, t.root.join(".codiva/worktrees/first"));
    assert_eq!(wt.branch, "codiva/first");
    assert_eq!(wt.start_point, "main");
    assert!(wt.warnings.is_empty(), "{:?}", wt.warnings);
    assert_eq!(git(&wt.path, &["branch", "--show-current"]), "codiva/first");
    assert_eq!(
        git(&wt.path, &["rev-parse", "HEAD"]),
        git(&t.root, &["rev-parse", "main"])
    );
    assert!(repo.worktree_exists(&wt.path).await);
    assert!(
        !repo
            .worktree_exists(&t.root.join(".codiva/worktrees/none"))
            .await
    );
    // The main checkout stays clean: `.codiva/` is ignored by its own .gitignore.
    assert_eq!(git(&t.root, &["status", "--porcelain"]), "");
    // Invalid slugs never reach git.
    let err = repo
        .create_worktree("../x", "main", &local())
        .await
        .unwrap_err();
    assert!(matches!(err, GitError::InvalidName { .. }), "{err:?}");
}

#[tokio::test]
async fn worktree_starts_from_a_fetched_origin_and_falls_back_when_fetch_fails() {
    let t = TestRepo::new();
    let base = t.tmp.path().canonicalize().unwrap();
    let origin = base.join("origin.git");
    git(
        &base,
        &[
            "clone",
            "-q",
            "--bare",
            t.root.to_str().unwrap(),
            origin.to_str().unwrap(),
        ],
    );
    git(
        &t.root,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    // A newer commit lands on origin from another clone.
    let other = base.join("other");
    git(
        &base,
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    super::configure(&other);
    write(&other, "upstream.txt", "new\n");
    let upstream = commit_all(&other, "upstream change");
    git(&other, &["push", "-q", "origin", "main"]);

    let repo = t.open().await;
    let wt = repo
        .create_worktree("fetched", "main", &WorktreeOptions::default())
        .await
        .unwrap();
    assert_eq!(wt.start_point, "origin/main");
    assert_eq!(git(&wt.path, &["rev-parse", "HEAD"]), upstream);
    assert!(wt.path.join("upstream.txt").is_file());
    // The session branch does not track origin/main.
    let (tracks, _, _) = git_try(&t.root, &["config", "branch.codiva/fetched.merge"]);
    assert!(!tracks);

    // fetch off: the local base.
    let wt = repo
        .create_worktree("nofetch", "main", &local())
        .await
        .unwrap();
    assert_eq!(wt.start_point, "main");

    // origin pointing at a missing path: fall back with a warning.
    git(
        &t.root,
        &[
            "remote",
            "set-url",
            "origin",
            base.join("gone.git").to_str().unwrap(),
        ],
    );
    let wt = repo
        .create_worktree("fallback", "main", &WorktreeOptions::default())
        .await
        .unwrap();
    assert_eq!(wt.start_point, "main");
    assert_eq!(wt.warnings.len(), 1, "{:?}", wt.warnings);
    assert!(wt.warnings[0].contains("fetch"), "{:?}", wt.warnings);
    assert_eq!(
        git(&wt.path, &["rev-parse", "HEAD"]),
        git(&t.root, &["rev-parse", "main"])
    );
}

/// A repo with ignored dependencies, config and build output.
async fn ignored_fixture() -> (TestRepo, Repo) {
    let t = TestRepo::new();
    write(
        &t.root,
        ".gitignore",
        "node_modules/\ntarget/\ndist/\n*.tsbuildinfo\n.env\n",
    );
    commit_all(&t.root, "ignores");
    write(
        &t.root,
        "node_modules/pkg/index.js",
        "module.exports = 1;\n",
    );
    write(&t.root, "target/debug/app", "bin");
    write(&t.root, "dist/app.js", "built");
    write(&t.root, "app.tsbuildinfo", "{}");
    write(&t.root, ".env", "SECRET=1\n");
    let repo = t.open().await;
    repo.ensure_codiva_dir().unwrap();
    write(&t.root, ".codiva/state.json", "{}");
    (t, repo)
}

fn options(ignored: IgnoredMode, exclude: &[&str]) -> WorktreeOptions {
    WorktreeOptions {
        fetch: false,
        ignored,
        exclude: exclude.iter().map(|s| s.to_string()).collect(),
    }
}

#[tokio::test]
async fn ignored_files_are_symlinked_by_default_minus_build_output() {
    let (t, repo) = ignored_fixture().await;
    let wt = repo
        .create_worktree("links", "main", &WorktreeOptions::default())
        .await
        .unwrap();
    let mut carried: Vec<_> = wt.carried.iter().map(|p| p.to_str().unwrap()).collect();
    carried.sort();
    assert_eq!(carried, vec![".env", "node_modules"]);
    assert_eq!(
        std::fs::read_link(wt.path.join("node_modules")).unwrap(),
        t.root.join("node_modules")
    );
    assert!(wt.path.join("node_modules/pkg/index.js").is_file());
    assert!(
        std::fs::symlink_metadata(wt.path.join(".env"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    for absent in ["target", "dist", "app.tsbuildinfo", ".codiva"] {
        assert!(
            std::fs::symlink_metadata(wt.path.join(absent)).is_err(),
            "{absent} must not be carried"
        );
    }
}

#[tokio::test]
async fn ignored_files_copy_none_and_negation() {
    let (t, repo) = ignored_fixture().await;
    let wt = repo
        .create_worktree("copied", "main", &options(IgnoredMode::Copy, &[]))
        .await
        .unwrap();
    let meta = std::fs::symlink_metadata(wt.path.join("node_modules")).unwrap();
    assert!(meta.is_dir() && !meta.file_type().is_symlink());
    assert_eq!(
        std::fs::read_to_string(wt.path.join("node_modules/pkg/index.js")).unwrap(),
        "module.exports = 1;\n"
    );
    assert!(!wt.path.join("dist").exists());

    let wt = repo
        .create_worktree("nothing", "main", &options(IgnoredMode::None, &[]))
        .await
        .unwrap();
    assert!(wt.carried.is_empty());
    assert!(std::fs::symlink_metadata(wt.path.join("node_modules")).is_err());

    let wt = repo
        .create_worktree(
            "negated",
            "main",
            &options(IgnoredMode::Symlink, &["!dist", ".env"]),
        )
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_link(wt.path.join("dist")).unwrap(),
        t.root.join("dist")
    );
    assert!(std::fs::symlink_metadata(wt.path.join(".env")).is_err());
    assert!(!wt.path.join("target").exists());
}

fn setup_script(t: &TestRepo, body: &str, mode: u32) {
    let path = t.root.join(".codiva/setup");
    write(&t.root, ".codiva/setup", &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn setup_script_runs_in_the_worktree_and_reports_failure() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = repo
        .create_worktree("setup", "main", &local())
        .await
        .unwrap();
    assert_eq!(repo.run_setup(&wt.path).await, None);

    setup_script(&t, "echo installing; echo warn >&2; pwd > where.txt", 0o644);
    assert_eq!(
        repo.run_setup(&wt.path).await,
        None,
        "not executable: not run"
    );

    setup_script(
        &t,
        "echo installing; echo warn >&2; pwd > where.txt; echo \"$CODIVA_REPO_ROOT\"",
        0o755,
    );
    let result = repo.run_setup(&wt.path).await.unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(result.code, Some(0));
    assert!(result.output.contains("installing") && result.output.contains("warn"));
    assert!(result.output.contains(t.root.to_str().unwrap()));
    assert_eq!(
        std::fs::read_to_string(wt.path.join("where.txt"))
            .unwrap()
            .trim(),
        wt.path.to_str().unwrap()
    );

    setup_script(&t, "echo broken >&2; exit 3", 0o755);
    let result = repo.run_setup(&wt.path).await.unwrap();
    assert!(!result.success);
    assert_eq!(result.code, Some(3));
    assert!(result.output.contains("broken"));
}
