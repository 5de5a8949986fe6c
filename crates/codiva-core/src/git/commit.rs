//! Committing a session's uncommitted work from codiva (`/commit <message>`,
//! `session/commit`): every file `git status` lists (the symlinks codiva carried into the
//! worktree left out) is staged by name, then committed with the user's message. The user's
//! git configuration and hooks apply; a hook or a missing identity fails as
//! [`GitError::Command`] with git's message.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use codiva_protocol::manager::StatusEntry;

use super::runner::Git;
use super::{GitError, Repo};

/// A commit may run hooks (formatters, linters): as long as a merge.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The result of [`Repo::commit_all`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// A commit was made.
    Committed {
        /// The new commit.
        commit: String,
        /// How many files it took.
        files: usize,
    },
    /// The worktree had nothing uncommitted.
    NothingToCommit,
}

impl Repo {
    /// The worktree's uncommitted files (tracked changes and untracked files, without the
    /// links codiva carried), as `git status` lists them.
    pub async fn uncommitted_files(&self, worktree: &Path) -> Result<Vec<StatusEntry>, GitError> {
        self.uncommitted(worktree).await
    }

    /// Stages every uncommitted file of `worktree` by name (`git add -A -- :(literal)<path>…`,
    /// so deletions and renames are taken too) and commits them with `message`.
    pub async fn commit_all(
        &self,
        worktree: &Path,
        message: &str,
    ) -> Result<CommitOutcome, GitError> {
        let entries = self.uncommitted(worktree).await?;
        if entries.is_empty() {
            return Ok(CommitOutcome::NothingToCommit);
        }
        let mut add: Vec<OsString> = vec!["add".into(), "-A".into(), "--".into()];
        for entry in &entries {
            for path in std::iter::once(&entry.path).chain(entry.orig_path.as_ref()) {
                add.push(format!(":(literal){path}").into());
            }
        }
        Git::new(worktree).args(add).run().await?;
        // `-m` takes the next argument whole, even one that starts with `-`.
        Git::new(worktree)
            .args(["commit", "--quiet", "-m", message])
            .timeout(COMMIT_TIMEOUT)
            .run()
            .await?;
        let commit = Git::new(worktree)
            .args(["rev-parse", "HEAD"])
            .text()
            .await?;
        Ok(CommitOutcome::Committed {
            commit,
            files: entries.len(),
        })
    }
}
