//! The text of a session's changes, for a diff view: everything the worktree holds that its
//! base lacks — commits, uncommitted edits and untracked files — as one unified diff, bounded
//! in size (git is stopped once the budget is spent).

use std::path::Path;

use codiva_protocol::manager::DiffText;

use super::runner::Git;
use super::{GitError, Repo, check_name};

/// The most diff text one call returns (1 MiB).
pub const DIFF_TEXT_CAP: usize = 1024 * 1024;
/// Untracked files shown as new files, at most.
const UNTRACKED_SHOWN: usize = 200;

impl Repo {
    /// The worktree's changes since it left `base` (the merge base): committed, uncommitted and
    /// untracked, at most `cap` bytes. Carried symlinks (see [`super::ignored`]) are left out.
    pub async fn diff_text(
        &self,
        worktree: &Path,
        base: &str,
        cap: usize,
    ) -> Result<DiffText, GitError> {
        check_name(base)?;
        let merge_base = Git::new(worktree)
            .args(["merge-base", base, "HEAD"])
            .text()
            .await?;
        // The work tree against the merge base: commits and uncommitted edits in one diff.
        let (tracked, mut truncated) = Git::new(worktree)
            .args([
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "-M",
                &merge_base,
                "--",
            ])
            .output_capped(cap)
            .await?;
        // A git stopped at the cap exits by a signal: that is the truncation, not a failure.
        if !tracked.success() && !truncated {
            return Err(tracked.into_error());
        }
        let mut text = String::from_utf8_lossy(&tracked.stdout).into_owned();
        if !truncated {
            let shown = self.untracked(worktree).await?;
            for (index, path) in shown.iter().enumerate() {
                let room = cap.saturating_sub(text.len());
                if index >= UNTRACKED_SHOWN || room == 0 {
                    truncated = true;
                    break;
                }
                let new_file = no_index(worktree, "/dev/null", path, room).await?;
                text.push_str(&new_file.text);
                if new_file.truncated {
                    truncated = true;
                    break;
                }
            }
        }
        Ok(DiffText { text, truncated })
    }
}

/// `git diff --no-index a b` in `dir`, at most `cap` bytes (it exits 1 when they differ; one
/// stopped at the cap exits by a signal: that is the truncation, not a failure).
pub(super) async fn no_index(
    dir: &Path,
    a: &str,
    b: &str,
    cap: usize,
) -> Result<DiffText, GitError> {
    let (out, truncated) = Git::new(dir)
        .args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-index",
            "--",
            a,
            b,
        ])
        .output_capped(cap)
        .await?;
    if out.code.is_some_and(|code| code > 1) && !truncated {
        return Err(out.into_error());
    }
    Ok(DiffText {
        text: String::from_utf8_lossy(&out.stdout).into_owned(),
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn git(dir: &Path, args: &[&str]) {
        let out = Git::new(dir).args(args).run().await.unwrap();
        assert!(out.success());
    }

    async fn repo_with_session() -> (tempfile::TempDir, Repo, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        git(&root, &["init", "-q", "-b", "main"]).await;
        git(&root, &["config", "user.email", "t@example.invalid"]).await;
        git(&root, &["config", "user.name", "T"]).await;
        std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        git(&root, &["add", "a.txt"]).await;
        git(&root, &["commit", "-q", "-m", "first"]).await;
        let worktree = dir.path().join("wt");
        git(
            &root,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "s",
                worktree.to_str().unwrap(),
            ],
        )
        .await;
        let repo = Repo::open(&root).await.unwrap();
        (dir, repo, worktree)
    }

    #[tokio::test]
    async fn commits_uncommitted_and_untracked_in_one_diff() {
        let (_dir, repo, wt) = repo_with_session().await;
        std::fs::write(wt.join("b.txt"), "bee\n").unwrap();
        git(&wt, &["add", "b.txt"]).await;
        git(&wt, &["commit", "-q", "-m", "add b"]).await;
        std::fs::write(wt.join("a.txt"), "one\nTWO\n").unwrap();
        std::fs::write(wt.join("new.txt"), "fresh\n").unwrap();
        let diff = repo.diff_text(&wt, "main", DIFF_TEXT_CAP).await.unwrap();
        assert!(!diff.truncated);
        assert!(
            diff.text.contains("diff --git a/a.txt b/a.txt"),
            "{}",
            diff.text
        );
        assert!(diff.text.contains("+TWO"));
        assert!(diff.text.contains("diff --git a/b.txt b/b.txt"));
        assert!(diff.text.contains("+bee"));
        assert!(diff.text.contains("new.txt"));
        assert!(diff.text.contains("+fresh"));
    }

    #[tokio::test]
    async fn the_text_is_bounded() {
        let (_dir, repo, wt) = repo_with_session().await;
        let big: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
        std::fs::write(wt.join("a.txt"), big).unwrap();
        std::fs::write(wt.join("untracked.txt"), "x\n").unwrap();
        let diff = repo.diff_text(&wt, "main", 4096).await.unwrap();
        assert!(diff.truncated);
        assert!(diff.text.len() <= 4096);
        assert!(!diff.text.contains("untracked.txt"));
    }
}
