//! Conversations the agents recorded themselves that codiva does not manage (begun in a plain
//! terminal in the repository): listed by `history/list`, read by `history/read` (read-only,
//! rebuilt from the agent's own records with bounded memory) and taken on as a session by
//! `history/adopt`, which resumes the agent's own conversation. Not codiva's own history of its
//! sessions (the core's `history`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::log::LogEntry;

/// One conversation an agent recorded for a directory of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutsideConversation {
    /// The agent that recorded it (`claude`, `codex`, an ACP agent's id such as `codex-acp`).
    pub agent: String,
    /// The agent's own conversation id (what resuming it takes).
    pub id: String,
    /// The directory it ran in (the repository's root or one of its worktrees).
    pub cwd: String,
    /// When its record was last written, in milliseconds since the Unix epoch (an ACP agent's
    /// `updatedAt`; 0 when unknown).
    pub modified_ms: u64,
    /// The size of its record on disk, in bytes; 0 when unknown (an ACP agent's `session/list`
    /// gives no size).
    pub size_bytes: u64,
    /// Its first instruction, read from the head of the record only (an ACP agent's: the title
    /// its `session/list` gives): one line, no control characters, at most 200 characters
    /// (user-written text; `None` when there is none).
    pub first_instruction: Option<String>,
}

impl OutsideConversation {
    /// `query` (case-insensitive, by Unicode lower case) is in its first instruction, agent, id
    /// or directory; an empty query matches all (`history/list`'s query, a front end's filter).
    pub fn matches(&self, query: &str) -> bool {
        let query = query.trim().to_lowercase();
        if query.is_empty() {
            return true;
        }
        [
            self.first_instruction.as_deref().unwrap_or(""),
            &self.agent,
            &self.id,
            &self.cwd,
        ]
        .iter()
        .any(|field| field.to_lowercase().contains(&query))
    }
}

/// Params of `history/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryListParams {
    /// Only the conversations whose first instruction, agent, id or directory contains this
    /// (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// The answer to `history/list`: newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryListResult {
    pub conversations: Vec<OutsideConversation>,
    /// More matched than are listed (at most 500 are).
    pub more: bool,
    /// Agents whose own listing failed (an ACP agent that did not start, or did not answer
    /// `session/list` in time): the others' conversations are listed all the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<HistoryListFailure>,
}

/// An agent whose conversations could not be listed, and why (one line, sanitised).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryListFailure {
    pub agent: String,
    pub error: String,
}

/// Which conversation: `history/read`'s params, and part of `history/adopt`'s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutsideConversationRef {
    pub agent: String,
    pub id: String,
    /// The directory it ran in, as `history/list` gave it.
    pub cwd: String,
}

/// The answer to `history/read`: the conversation's log, rebuilt from the agent's records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryReadResult {
    /// Oldest first (with the session log's caps: the newest entries win).
    pub entries: Vec<LogEntry>,
    /// Bytes at the start of a large record that were not read (only its end is).
    pub skipped_bytes: u64,
    /// Older entries dropped to keep within the log's budget.
    pub dropped_entries: u64,
}

/// Where an adopted conversation goes on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdoptPlace {
    /// In the directory it ran in (a session in place: no worktree or branch of its own).
    #[default]
    InPlace,
    /// In a new worktree on a new branch.
    Worktree,
    /// A place of a later version (refused).
    #[serde(other)]
    Unknown,
}

/// Params of `history/adopt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryAdoptParams {
    pub agent: String,
    pub id: String,
    /// The directory it ran in, as `history/list` gave it.
    pub cwd: String,
    #[serde(default)]
    pub place: AdoptPlace,
}

#[cfg(test)]
mod tests {
    use super::OutsideConversation;

    fn conversation(id: &str, first: Option<&str>) -> OutsideConversation {
        OutsideConversation {
            agent: "claude".into(),
            id: id.into(),
            cwd: "/work/repo".into(),
            modified_ms: 1,
            size_bytes: 1,
            first_instruction: first.map(str::to_owned),
        }
    }

    #[test]
    fn a_search_matches_any_field_by_lower_case() {
        let one = conversation("abc-123", Some("Fix the ÉCRAN and 日本語"));
        assert!(one.matches("écran"));
        assert!(one.matches("日本"));
        assert!(one.matches("ABC-1"));
        assert!(one.matches("claude"));
        assert!(one.matches("/work/REPO"));
        assert!(one.matches("  "));
        assert!(!one.matches("codex"));
        assert!(!conversation("x", None).matches("fix"));
    }
}
