//! Pushing a session's branch to the base's remote, for a pull request.

use std::path::Path;
use std::time::Duration;

use super::runner::Git;
use super::{GitError, Repo, check_name};

/// `git push` talks to a server and may run a pre-push hook: give it longer than a local call.
pub(crate) const PUSH_TIMEOUT: Duration = Duration::from_secs(120);

impl Repo {
    /// The remote of the base branch: `branch.<base>.remote` when the base tracks one, else
    /// `origin` when it exists, else `None` (nowhere to push).
    pub async fn base_remote(&self, base: &str) -> Result<Option<String>, GitError> {
        check_name(base)?;
        let tracked = Git::new(self.root())
            .args(["config", "--get", &format!("branch.{base}.remote")])
            .output()
            .await?;
        let remote = tracked.text();
        // `.` means "this repository": not a remote to push a pull request to.
        if tracked.success() && !remote.is_empty() && remote != "." {
            return Ok(Some(remote));
        }
        let remotes = Git::new(self.root()).arg("remote").text().await?;
        Ok(remotes
            .lines()
            .any(|r| r.trim() == "origin")
            .then(|| "origin".to_string()))
    }

    /// Pushes `branch` (from `worktree`) to the same branch name on `remote`: never forced,
    /// no upstream set (the session branch keeps not tracking the remote), the user's hooks and
    /// credentials as configured, no prompt.
    pub async fn push_branch(
        &self,
        worktree: &Path,
        remote: &str,
        branch: &str,
    ) -> Result<(), GitError> {
        check_name(remote)?;
        check_name(branch)?;
        Git::new(worktree)
            .args([
                "push",
                "--quiet",
                "--porcelain",
                remote,
                &format!("refs/heads/{branch}:refs/heads/{branch}"),
            ])
            .timeout(PUSH_TIMEOUT)
            .run()
            .await?;
        Ok(())
    }

    /// The commit checked out in `worktree` (`HEAD`).
    pub async fn head_commit(&self, worktree: &Path) -> Result<String, GitError> {
        Git::new(worktree)
            .args(["rev-parse", "--verify", "HEAD"])
            .text()
            .await
    }

    /// The URL of `remote` (`git remote get-url`), `None` when it has none.
    pub async fn remote_url(&self, remote: &str) -> Result<Option<String>, GitError> {
        check_name(remote)?;
        let output = Git::new(self.root())
            .args(["remote", "get-url", remote])
            .output()
            .await?;
        let url = output.text();
        Ok((output.success() && !url.is_empty()).then_some(url))
    }

    /// The subjects of the commits in `to` that `from` lacks (revisions: `refs/heads/x`,
    /// `HEAD`, `refs/remotes/origin/main`), newest first, at most `max`.
    pub async fn commit_subjects(
        &self,
        from: &str,
        to: &str,
        max: usize,
    ) -> Result<Vec<String>, GitError> {
        check_name(from)?;
        check_name(to)?;
        let text = Git::new(self.root())
            .args([
                "log",
                "--no-color",
                "--format=%s",
                &format!("--max-count={max}"),
                &format!("{from}..{to}"),
                "--",
            ])
            .text()
            .await?;
        Ok(text.lines().map(str::to_owned).collect())
    }

    /// The branch `remote`'s HEAD names (`refs/remotes/<remote>/HEAD`, as `git clone` or `git
    /// remote set-head` left it), else `main` or `master` when the remote has one.
    pub async fn remote_default_branch(&self, remote: &str) -> Result<Option<String>, GitError> {
        check_name(remote)?;
        let head = Git::new(self.root())
            .args([
                "symbolic-ref",
                "--quiet",
                "--short",
                &format!("refs/remotes/{remote}/HEAD"),
            ])
            .output()
            .await?;
        let prefix = format!("{remote}/");
        if head.success()
            && let Some(branch) = head.text().strip_prefix(&prefix)
        {
            return Ok(Some(branch.to_owned()));
        }
        for candidate in ["main", "master"] {
            if Git::new(self.root())
                .args([
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("refs/remotes/{remote}/{candidate}"),
                ])
                .check()
                .await?
            {
                return Ok(Some(candidate.to_owned()));
            }
        }
        Ok(None)
    }
}
