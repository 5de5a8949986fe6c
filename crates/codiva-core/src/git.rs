//! The git layer: the only place in codiva that runs git.
//!
//! Every call goes through [`runner`]: the git CLI with an argument vector (never a shell), a
//! timeout (30 s, 10 s for `fetch`), `GIT_TERMINAL_PROMPT=0`, `-z`/porcelain output wherever
//! output is parsed, and git's stderr kept in [`GitError::Command`]. The user's own git
//! configuration is honoured. The repository's `.gitignore` and the contents of `.git/` are never
//! written by codiva itself; git's own commands (`worktree add`, `update-ref`, …) do the rest.
//!
//! - [`Repo::open`] is the preflight (a work tree with at least one commit) and finds the main
//!   checkout even when started inside a linked worktree.
//! - [`Repo::create_worktree`] makes `.codiva/worktrees/<slug>` on branch `codiva/<slug>` and
//!   carries the ignored files ([`ignored`]).
//! - [`Repo::run_setup`] runs the optional `.codiva/setup` script in a new worktree.
//! - [`finish`]: diff stat, merge, sync; [`archive`]: discard and remove with an archive ref that
//!   keeps the branch tip and the uncommitted work, for [`Repo::restore`].
//! - [`commit`]: `/commit <message>`: stage the uncommitted files by name and commit.
//! - [`diff_text`]: a session's whole diff (commits, uncommitted, untracked), bounded.
//!
//! See `docs/git.md` for the commands in order.

pub mod archive;
pub mod commit;
pub mod compare;
pub mod diff_text;
pub mod finish;
pub mod ignored;
pub mod push;
mod repo;
mod runner;
pub mod setup;
pub mod worktree;

use std::path::PathBuf;

pub use archive::{CommitSummary, DiscardPreview, DiscardResult};
pub use commit::CommitOutcome;
pub use compare::check_relative_path;
pub use diff_text::DIFF_TEXT_CAP;
pub use finish::{MergeOutcome, SyncOutcome};
pub use ignored::{DEFAULT_IGNORED_EXCLUDES, IgnoredMode, SHARED_SYMLINK_NOTICE, is_excluded};
pub use repo::{HeadStamp, Repo, StartFacts};
pub use setup::{SETUP_OUTPUT_CAP, SETUP_TIMEOUT, SetupResult};
pub use worktree::{Worktree, WorktreeOptions};

/// The directory (relative to the main checkout) that holds everything codiva writes.
pub const CODIVA_DIR: &str = ".codiva";
/// Where the worktrees live, relative to the main checkout.
pub const WORKTREES_DIR: &str = ".codiva/worktrees";
/// The prefix of every session branch.
pub const BRANCH_PREFIX: &str = "codiva/";
/// The prefix of the refs that keep the tip of a discarded branch.
pub const ARCHIVE_REF_PREFIX: &str = "refs/codiva/archive/";

/// The branch of session `slug` (`codiva/<slug>`).
pub fn branch_name(slug: &str) -> String {
    format!("{BRANCH_PREFIX}{slug}")
}

/// The archive ref of session `slug` (`refs/codiva/archive/<slug>`).
pub fn archive_ref(slug: &str) -> String {
    format!("{ARCHIVE_REF_PREFIX}{slug}")
}

/// Why a git operation failed. The first variants are user errors with a one-line message.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The path is not inside a git work tree.
    #[error("{} is not inside a git repository (run codiva in a git checkout)", path.display())]
    NotARepo {
        /// The path that was checked.
        path: PathBuf,
    },
    /// The repository has no commit yet, so there is nothing to branch from.
    #[error("the repository at {} has no commits yet; make a first commit and try again", path.display())]
    NoCommits {
        /// The main checkout.
        path: PathBuf,
    },
    /// git is not installed or not on `PATH`.
    #[error("git was not found on PATH (install git)")]
    GitNotFound,
    /// A slug, branch or base name that codiva refuses to pass to git.
    #[error("invalid name {name:?}: {reason}")]
    InvalidName {
        /// The name as given.
        name: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// `restore` found no archive ref for the slug.
    #[error("nothing to restore: no archived branch for {slug:?} (refs/codiva/archive/{slug})")]
    NoArchive {
        /// The slug.
        slug: String,
    },
    /// `restore` would overwrite an existing branch or worktree.
    #[error("cannot restore {slug:?}: {what} already exists")]
    AlreadyExists {
        /// The slug.
        slug: String,
        /// What is in the way (a branch or a directory).
        what: String,
    },
    /// git exited with a failure status.
    #[error("`git {args}` failed ({}): {stderr}", exit_label(*code))]
    Command {
        /// The arguments, space-joined (for messages only).
        args: String,
        /// The exit code; `None` if git was killed by a signal.
        code: Option<i32>,
        /// git's stderr, trimmed.
        stderr: String,
    },
    /// git did not finish in time and was killed.
    #[error("`git {args}` timed out after {secs} s")]
    Timeout {
        /// The arguments, space-joined.
        args: String,
        /// The timeout.
        secs: u64,
    },
    /// A file-system operation or starting git failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

fn exit_label(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exit {code}"),
        None => "killed by a signal".to_string(),
    }
}

/// Refuses names git could read as an option or that would escape `.codiva/worktrees`.
pub(crate) fn check_name(name: &str) -> Result<(), GitError> {
    let reason = if name.is_empty() {
        Some("empty")
    } else if name.starts_with('-') {
        Some("starts with '-'")
    } else if name.chars().any(|c| c.is_control() || c == ' ') {
        Some("contains a space or a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(GitError::InvalidName {
            name: name.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// A slug must be a single path segment of `[a-z0-9-]` (what [`crate::slug::slugify`] makes).
pub(crate) fn check_slug(slug: &str) -> Result<(), GitError> {
    check_name(slug)?;
    if slug.bytes().all(|b| {
        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.' || b == b'_'
    }) && !slug.starts_with('.')
    {
        Ok(())
    } else {
        Err(GitError::InvalidName {
            name: slug.to_string(),
            reason: "a slug may contain only a-z, 0-9, '-', '_' and '.', and may not start with '.'",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_name("main").is_ok());
        assert!(check_name("feature/x").is_ok());
        assert!(check_name("-x").is_err());
        assert!(check_name("").is_err());
        assert!(check_name("a b").is_err());
        assert!(check_slug("fix-login-2").is_ok());
        assert!(check_slug("../x").is_err());
        assert!(check_slug("a/b").is_err());
        assert!(check_slug("..").is_err());
        assert!(check_slug("Upper").is_err());
    }

    #[test]
    fn command_error_message_keeps_stderr() {
        let err = GitError::Command {
            args: "merge --no-ff codiva/x".into(),
            code: Some(128),
            stderr: "fatal: boom".into(),
        };
        assert_eq!(
            err.to_string(),
            "`git merge --no-ff codiva/x` failed (exit 128): fatal: boom"
        );
    }
}
