//! What front ends see of the manager's sessions.

use std::path::PathBuf;

use serde::Serialize;

use crate::session_log::LogEntry;
use crate::session_state::{SessionEvent, Status, TodoProgress};

/// Where a session is in its life, beyond the agent's own status.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// What the manager tells front ends.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
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
}

/// What discarding a session would remove from its worktree and branch (all of it is kept under
/// `refs/codiva/archive/<slug>`, which restore brings back).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DiscardPreview {
    pub uncommitted: Vec<String>,
    pub unmerged_commits: Vec<String>,
}

/// A page of a session's log.
#[derive(Debug, Clone, Serialize)]
pub struct ReadPage {
    pub entries: Vec<LogEntry>,
    /// Pass as `after` to read on; `None` at the end.
    pub next_after: Option<u64>,
    pub dropped_entries: u64,
}
