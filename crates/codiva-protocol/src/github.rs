//! What clients see of a session's pull requests: their identity (number and URL, kept by the
//! manager), what was last found about each (state, draft, checks, mergeability), and whether
//! the last lookup failed. See `docs/github.md`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::vocabulary::closed_vocabulary;

/// Open, merged, or closed without merging.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrState {
    Open,
    Merged,
    Closed,
}

/// The checks of the pull request's head commit, summed up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrChecks {
    /// No check run and no commit status.
    None,
    /// Something still runs (or is queued) and nothing has failed.
    Pending,
    /// At least one check failed.
    Failed,
    /// Every check passed.
    Passed,
}

/// Whether the pull request merges cleanly into its base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrMergeable {
    Mergeable,
    Conflicting,
    /// Not computed yet by GitHub, or merged.
    Unknown,
}

/// A check that failed (text from GitHub: sanitise before showing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrFailedCheck {
    pub name: String,
    pub url: String,
}

/// What was last found about a pull request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrView {
    pub state: PrState,
    pub draft: bool,
    pub checks: PrChecks,
    pub mergeable: PrMergeable,
    /// The checks that failed, in rollup order.
    #[serde(default)]
    pub failed: Vec<PrFailedCheck>,
    /// How many of its review threads are unresolved; `None` while not looked up (or the last
    /// look failed before any answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved_reviews: Option<u64>,
}

/// One pull request of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionPr {
    pub number: u64,
    pub url: String,
    /// The head branch is the session's own (codiva or the agent opened it from the session's
    /// branch); otherwise a pull request the agent opened from another branch.
    pub own: bool,
    /// What was last found; `None` while it has not been looked up yet (number known, state
    /// loading).
    #[serde(default)]
    pub view: Option<PrView>,
}

closed_vocabulary! {
    /// Why a pull-request lookup failed.
    pub enum PrLookupFailure {
        /// GitHub's rate limit is reached.
        RateLimited = "rate_limited",
        /// `gh` is not logged in.
        NotAuthenticated = "not_authenticated",
        /// `gh` is not installed.
        NotInstalled = "not_installed",
        /// GitHub could not be reached.
        Network = "network",
        /// `gh` did not answer in time.
        Timeout = "timeout",
        /// Anything else: the message says what.
        Other = "other",
    }
}

/// Why the last lookup failed and gh's message. What was known before is kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrUnavailable {
    pub reason: PrLookupFailure,
    pub message: String,
}

/// A session's pull requests and how they are being watched.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionPrs {
    /// Its pull requests, the session branch's own first.
    #[serde(default)]
    pub prs: Vec<SessionPr>,
    /// The manager looks them up (the session has a pull request or its branch was pushed).
    #[serde(default)]
    pub watched: bool,
    /// A lookup has answered (found or absent) at least once since codiva started: before
    /// that, an empty `prs` means "checking", after it "no pull request".
    #[serde(default)]
    pub checked: bool,
    /// The last lookup failed (what was known is kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<PrUnavailable>,
    /// Lookups pause until then (milliseconds since the Unix epoch) after a rate limit or an
    /// authentication error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_until_ms: Option<u64>,
}

impl SessionPrs {
    /// The session branch's own pull request, if it has one.
    pub fn own(&self) -> Option<&SessionPr> {
        self.prs.iter().find(|pr| pr.own)
    }
}
