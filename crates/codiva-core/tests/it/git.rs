//! The git layer against real git on temporary repositories.
//!
//! The helpers below run git with `GIT_CONFIG_GLOBAL=/dev/null` and `GIT_CONFIG_NOSYSTEM=1` and
//! configure identity locally in each repository (linked worktrees share that config), so the
//! repositories do not depend on the machine; the module under test honours the user's config.

mod archive;
mod finish;
mod worktree;

use std::path::{Path, PathBuf};
use std::process::Command;

use codiva_core::git::Repo;
use tempfile::TempDir;

/// Runs git in `dir` for test setup; panics on failure. Returns trimmed stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let (ok, stdout, stderr) = git_try(dir, args);
    assert!(ok, "git {args:?} in {} failed: {stderr}", dir.display());
    stdout
}

/// Runs git in `dir`: (success, stdout, stderr).
pub(crate) fn git_try(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).trim().to_string(),
        String::from_utf8_lossy(&output.stderr).trim().to_string(),
    )
}

/// A temporary directory holding a repository `main/` (branch `main`, one commit).
pub(crate) struct TestRepo {
    pub(crate) tmp: TempDir,
    pub(crate) root: PathBuf,
}

impl TestRepo {
    pub(crate) fn new() -> TestRepo {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap().join("main");
        std::fs::create_dir(&root).unwrap();
        init_repo(&root);
        write(&root, "README.md", "line one\nline two\n");
        commit_all(&root, "initial");
        TestRepo { tmp, root }
    }

    pub(crate) async fn open(&self) -> Repo {
        Repo::open(&self.root).await.unwrap()
    }
}

pub(crate) fn init_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    configure(dir);
}

/// Identity and signing, locally (tests only).
pub(crate) fn configure(dir: &Path) {
    git(dir, &["config", "user.name", "codiva test"]);
    git(dir, &["config", "user.email", "test@codiva.invalid"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
}

pub(crate) fn write(dir: &Path, rel: &str, content: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

pub(crate) fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}
