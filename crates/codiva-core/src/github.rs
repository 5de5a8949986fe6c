//! The GitHub layer: pull requests through the user's own `gh` CLI, never a token of codiva's.
//!
//! Its own module next to [`crate::git`] (not inside it): `git` is the only place that runs git
//! and pushing a branch stays there ([`crate::git::Repo::push_branch`]); this module runs `gh`,
//! a different program with its own failure modes (authentication, API budget, the network).
//!
//! - [`Gh`] runs one `gh` command: argument vector, its own process group, a timeout that
//!   kills the group, the child always reaped, the environment given explicitly ([`GhEnv`]).
//! - [`Gh::create_draft_pr`], [`Gh::lookup_branch`], [`Gh::lookup_number`],
//!   [`Gh::lookup_branches`] (one `gh pr list` for many sessions), [`Gh::mark_ready`],
//!   [`Gh::failed_log`] (the failed steps' log tail of a GitHub Actions run),
//!   [`Gh::review_threads`] and [`Gh::unresolved_counts`] (a pull request's review threads:
//!   [`review_threads`]).
//! - A lookup is tri-state ([`PrLookup`]): found, absent, or unavailable with the reason — a
//!   failure is never "no pull request".
//! - [`poll`]: which sessions to look up now, batching, and the back-off, as pure functions.
//!
//! See `docs/github.md`.

mod client;
pub mod draft;
pub mod poll;
pub mod review_threads;
mod run;
pub mod status;

use std::time::SystemTime;

pub use client::{
    BATCH_LIMIT_MAX, BATCH_LIMIT_MIN, CreatedPr, FailedLog, NewPr, PR_JSON_FIELDS, batch_limit,
};
pub use run::{DEFAULT_TIMEOUT, Gh, GhEnv, GhOutput};
pub use status::{Checks, FailedCheck, Mergeable, PrLookup, PrState, PrStatus};

/// Why a `gh` call failed. [`GhError::backs_off`] tells which failures pause polling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GhError {
    /// `gh` could not be started (not installed, or not where it was said to be).
    #[error("the GitHub CLI `gh` was not found (install it: https://cli.github.com)")]
    NotInstalled,
    /// `gh` has no credentials for the host, or GitHub refused them.
    #[error("gh is not authenticated (run `gh auth login`): {detail}")]
    NotAuthenticated {
        /// gh's message.
        detail: String,
    },
    /// The API budget is spent (REST or GraphQL).
    #[error("GitHub rate limit reached{}: {detail}", reset_label(*reset))]
    RateLimited {
        /// When the budget comes back, if gh said so (gh 2.23 does not print it).
        reset: Option<SystemTime>,
        /// gh's message.
        detail: String,
    },
    /// GitHub could not be reached or failed (connection, TLS, DNS, HTTP 5xx).
    #[error("GitHub could not be reached: {detail}")]
    Network {
        /// gh's message.
        detail: String,
    },
    /// `gh` did not finish in time; its process group was killed.
    #[error("`gh {args}` timed out after {secs} s")]
    Timeout {
        /// The arguments, space-joined.
        args: String,
        /// The timeout.
        secs: u64,
    },
    /// `gh` answered something this layer cannot read.
    #[error("unexpected output from `gh {args}`: {detail}")]
    BadOutput {
        /// The arguments, space-joined.
        args: String,
        /// What was wrong.
        detail: String,
    },
    /// Any other failure, with the end of gh's stderr.
    #[error("`gh {args}` failed ({}): {stderr_tail}", exit_label(*code))]
    Other {
        /// The arguments, space-joined.
        args: String,
        /// The exit code; `None` if killed by a signal.
        code: Option<i32>,
        /// The last bytes of stderr.
        stderr_tail: String,
    },
    /// Starting or waiting for `gh` failed for another reason.
    #[error("running gh: {0}")]
    Io(String),
}

impl GhError {
    /// Whether polling should pause after this error: asking again soon cannot help (no `gh`,
    /// no login) or makes it worse (the budget is shared with the agents' own `gh`).
    pub fn backs_off(&self) -> bool {
        matches!(
            self,
            GhError::NotInstalled | GhError::NotAuthenticated { .. } | GhError::RateLimited { .. }
        )
    }
}

fn reset_label(reset: Option<SystemTime>) -> String {
    match reset.and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok()) {
        Some(d) => format!(" (resets at unix time {})", d.as_secs()),
        None => String::new(),
    }
}

fn exit_label(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exit {code}"),
        None => "killed by a signal".to_string(),
    }
}
