//! What clients see of the session manager: session rows and phases, its events (each with a
//! sequence number), log pages, diffs and discard previews (its refusals' names are
//! [`crate::error::RefusalCode`]).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::github::SessionPrs;
use crate::log::{LogEntry, NoteCode};
use crate::session::{SessionEvent, Status, TodoProgress};

/// Where a session is in its life, beyond the agent's own status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum SessionPhase {
    /// Its worktree is being made.
    Preparing,
    /// The agent session runs or waits (see `status`).
    Active,
    /// Merging into the base hit conflicts; the merge was aborted.
    Conflict { files: Vec<String> },
    /// Merged into the base; the worktree is gone.
    Merged { commit: String },
    /// Discarded; `restore` brings the branch and worktree back.
    Discarded,
}

/// One row of `session/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    pub prompt: String,
    pub branch: String,
    pub worktree: PathBuf,
    pub base: String,
    #[serde(flatten)]
    pub phase: SessionPhase,
    pub status: Status,
    pub detail: Option<String>,
    /// What `detail` says, by name and values (see `SessionEvent::Status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_code: Option<NoteCode>,
    pub agent: String,
    pub agent_session_id: Option<String>,
    pub model: Option<String>,
    pub cost_usd: Option<f64>,
    /// Time spent preparing or running, in milliseconds.
    pub active_ms: u64,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
    pub pending_prompts: usize,
    pub todos: TodoProgress,
    /// Its pull requests and what was last found about them.
    #[serde(default)]
    pub prs: SessionPrs,
    /// It runs in a directory itself (`worktree`), with no worktree or branch of its own
    /// (`session/create`'s `in_place`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_place: bool,
    /// Its MCP servers and their status as the agent last reported it (none before the agent
    /// reported any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<crate::mcp::McpServerState>,
    /// What its agent's process group uses, as last sampled (every ~2 s while a process
    /// runs); absent while no agent process runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceUsage>,
    /// The comments on its diff not yet sent to the agent (`review/add`, `review/send`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review: Vec<crate::review::ReviewComment>,
    /// The group of attempts it is one of (`manager/snapshot`'s `groups`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Its latest check (the repository's `check` command in its worktree); absent before
    /// one ran since codiva started, or when the repository names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Box<crate::group::CheckRun>>,
}

/// What one session's agent uses: every process in the agent's process group (the agent and
/// whatever it started), read from `/proc` by the manager. A measurement, never a status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceUsage {
    /// Resident memory of the group's processes, in bytes.
    pub rss_bytes: u64,
    /// CPU time the group used over the last sampling period, in percent of one core (above
    /// 100 when it used more than one core).
    pub cpu_percent: f64,
    /// Processes in the group.
    pub processes: u32,
}

/// One session's sample in a [`ManagerEvent::Resources`] batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionResources {
    pub id: String,
    /// `None`: its agent process is gone since the last sample.
    pub resources: Option<ResourceUsage>,
}

/// What the manager tells front ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
// A session's row is the most frequent of these after a session's own events: not boxed, one
// allocation fewer per event.
#[allow(clippy::large_enum_variant)]
pub enum ManagerEvent {
    /// A session was created, changed phase, status or metadata.
    Session {
        session: SessionInfo,
    },
    /// Something happened inside a session (log entries, stream, prompts, …).
    Event {
        id: String,
        event: SessionEvent,
    },
    Removed {
        id: String,
    },
    Warning {
        message: String,
    },
    /// The main checkout switched branches: new sessions start from (and merge into) this one.
    Base {
        branch: String,
    },
    /// A session's pull requests or what was found about them changed (a lookup answered or
    /// failed, a pull request was opened or found in the agent's output).
    PrStatus {
        id: String,
        prs: SessionPrs,
    },
    /// An agent's login command (`agents/login`) printed something or ended.
    Login {
        login: crate::agent::LoginProgress,
    },
    /// The sessions whose resource use changed since the last sample (one batch per sampling
    /// period, ~2 s, and only while some agent process runs).
    Resources {
        sessions: Vec<SessionResources>,
    },
    /// A group of attempts was created, changed, or had one attempt kept.
    Group {
        change: crate::group::GroupChange,
        group: crate::group::GroupInfo,
    },
    /// None of a group's sessions is listed any more.
    GroupRemoved {
        id: String,
    },
}

/// A manager event with its place in the manager's stream: `seq` grows by one per event, so a
/// client that sees a number skipped knows it missed events and resyncs (`manager/snapshot`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SequencedEvent {
    pub seq: u64,
    #[serde(flatten)]
    pub event: ManagerEvent,
}

/// Every session's row, consistent with the event stream up to and including `seq`: apply the
/// events with a greater `seq` on top of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ManagerSnapshot {
    pub seq: u64,
    pub sessions: Vec<SessionInfo>,
    /// Every group of attempts whose sessions are listed, in the order of their ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<crate::group::GroupInfo>,
}

/// What discarding a session would remove from its worktree and branch (all of it is kept under
/// `refs/codiva/archive/<slug>`, which restore brings back).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiscardPreview {
    pub uncommitted: Vec<String>,
    pub unmerged_commits: Vec<String>,
}

/// A discard preview with the token that confirms exactly it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FreshPreview {
    pub preview: DiscardPreview,
    pub confirm_token: String,
}

/// The answer to a discard (or remove) request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum DiscardOutcome {
    /// Nothing was done: this is what would be lost; call again with the token to confirm.
    NeedsConfirmation {
        preview: DiscardPreview,
        confirm_token: String,
    },
    Discarded {
        session: Box<SessionInfo>,
    },
    Removed {
        id: String,
    },
}

/// A page of a session's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadPage {
    pub entries: Vec<LogEntry>,
    /// Pass as `after` to read on; `None` at the end.
    pub next_after: Option<u64>,
    pub dropped_entries: u64,
}

/// One file of `git diff --numstat`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileStat {
    /// The path (the new path of a rename).
    pub path: String,
    /// The old path of a rename or copy.
    pub old_path: Option<String>,
    /// Lines added; `None` for a binary file.
    pub added: Option<u64>,
    /// Lines deleted; `None` for a binary file.
    pub deleted: Option<u64>,
}

/// One entry of `git status --porcelain=v1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StatusEntry {
    /// The two status letters `XY` (`??` untracked, ` M` modified, `A ` added, `UU` unmerged…).
    pub status: String,
    /// The path (a directory ends with `/`).
    pub path: String,
    /// The original path of a rename or copy.
    pub orig_path: Option<String>,
}

/// What a session changed relative to its base.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiffStat {
    /// Committed changes, `base...HEAD`.
    pub files: Vec<FileStat>,
    /// Sum of `files[].added`.
    pub insertions: u64,
    /// Sum of `files[].deleted`.
    pub deletions: u64,
    /// Uncommitted changes in the worktree, untracked files included (the symlinks codiva
    /// carried are left out).
    pub uncommitted: Vec<StatusEntry>,
    /// Commits in `base..HEAD`.
    pub commits_ahead: u64,
}

/// A session's unified diff against its base.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiffText {
    /// `git diff` output (no colour), committed and uncommitted changes, then untracked files.
    pub text: String,
    /// The budget ran out: the text stops early.
    pub truncated: bool,
}
