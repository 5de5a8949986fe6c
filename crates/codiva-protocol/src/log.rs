//! A session's log as clients read it: entries with stable ids, tool calls and notes. The
//! capping and the byte budget that keep a log small are the core's (`session_log.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::NoteLevel;
use crate::tool::ToolCallView;
use crate::vocabulary::closed_vocabulary;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    pub id: u64,
    /// Milliseconds since the session was created.
    pub at_ms: u64,
    #[serde(flatten)]
    pub kind: EntryKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EntryKind {
    /// An instruction the user sent.
    User {
        text: String,
    },
    Assistant {
        text: String,
    },
    Thinking {
        text: String,
    },
    // Boxed: a tool call is the largest kind by far, and every entry of a log (text, notes)
    // would otherwise be as large as one (the schema is the same).
    Tool(Box<ToolEntry>),
    /// A subagent's prompt, as the top of its own log.
    SubagentPrompt {
        text: String,
    },
    Note {
        level: NoteLevel,
        text: String,
        /// What kind of note this is, for front ends that show it in another language.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<NoteCode>,
    },
}

/// A note's stable name and values (`restarting` with `["1", "3"]`): `text` is its English
/// wording; a front end may word it otherwise. A session's status detail is named the same way
/// (`SessionEvent::Status`'s `detail_code`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoteCode {
    pub name: NoteName,
    pub args: Vec<String>,
}

impl NoteCode {
    /// `name` is a [`NoteName`] or its wire name (tests write them; a name this version does
    /// not know is `Unknown`; a test holds the core to the enum).
    pub fn new(name: impl Into<NoteName>, args: &[&str]) -> Self {
        NoteCode {
            name: name.into(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        }
    }
}

closed_vocabulary! {
    /// What a note (or a running session's status detail) says, by name; its values are the
    /// code's `args`, in the order given here. `unknown`: a name of a later codiva; the note's
    /// `text` (the detail's `detail`) says it in English.
    pub enum NoteName {
        // Notes in a session's log.
        /// The conversation was compacted: the trigger (`auto`, `manual`, or empty) and the
        /// tokens before (or empty).
        Compacted = "compacted",
        Interrupted = "interrupted",
        ContinuedAfterCut = "continued_after_cut",
        /// The session switched agents: from, to.
        AgentSwitched = "agent_switched",
        /// Permissions denied in the turn: the tools, comma-separated.
        Denied = "denied",
        /// No output from the agent: minutes (also a status detail).
        Stalled = "stalled",
        /// The resume failed: the agent's message.
        ResumeFailed = "resume_failed",
        /// A request to the agent failed: what, the error.
        RequestFailed = "request_failed",
        /// The process ended mid-turn: how, detail.
        EndedMidTurn = "ended_mid_turn",
        /// The process exited before its first turn: how, detail.
        ExitedBeforeFirstTurn = "exited_before_first_turn",
        /// The process exited before it took up a message (after turns of its own): how,
        /// detail.
        ExitedBeforeTurn = "exited_before_turn",
        /// The process ended outside a turn: how.
        ProcessEnded = "process_ended",
        /// An agent line that could not be read: the error.
        UnreadableLine = "unreadable_line",
        /// An agent line over the limit: its bytes.
        OversizedLine = "oversized_line",
        /// The agent exited too often in a row: the count.
        RestartLimit = "restart_limit",
        /// Restarting the agent: attempt, maximum.
        Restarting = "restarting",
        StopAfterInterrupt = "stop_after_interrupt",
        /// An agent line of an unknown kind (written by older versions only).
        UnknownLine = "unknown_line",
        /// The idle agent was stopped: seconds idle.
        IdleStopped = "idle_stopped",
        /// A queued message was not sent: its text.
        NotSent = "not_sent",
        /// The repair's commits were pushed: branch, remote.
        RepairPushed = "repair_pushed",
        /// Pushing the repair's commits failed: branch, detail.
        RepairPushFailed = "repair_push_failed",
        RepairNotPushed = "repair_not_pushed",
        /// The message to the agent was cut to fit its command line.
        MessageCut = "message_cut",
        /// The agent asked for something codiva does not support: what.
        UnsupportedRequest = "unsupported_request",
        /// The agent stopped the turn for a reason of its own: the reason.
        StopReason = "stop_reason",
        /// A permission allowed by the session's approval policy: tool, reason.
        AllowedByPolicy = "allowed_by_policy",
        // A running session's status detail.
        /// The API call is retried: attempt, maximum, delay in ms, HTTP status, error (the
        /// last two may be empty).
        Retrying = "retrying",
        /// TODO progress: done, total.
        Step = "step",
        /// Waiting for background agents: how many.
        WaitingForAgents = "waiting_for_agents",
        CollectingResults = "collecting_results",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolEntry {
    pub tool_use_id: String,
    /// The agent's own name of the tool.
    pub name: String,
    /// One line: file name, command, pattern, description…
    pub summary: String,
    /// Kind, title and content: what front ends draw.
    #[serde(flatten)]
    pub view: ToolCallView,
    /// The input as the agent sent it, kept for display.
    pub input: Value,
    pub status: ToolStatus,
    pub result: Option<String>,
    pub duration_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Running,
    Succeeded,
    Failed,
    Denied,
    /// The call's turn ended and the agent never said how the call ended (its protocol says
    /// the turn is over; the call's own outcome is unknown). A later report of the call still
    /// gives it its outcome.
    Unreported,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log holds thousands of entries per session (the TUI keeps them for every session it
    /// opened; the bench's 20 sessions × 1,000 entries): every entry is as large as the largest
    /// kind, so the tool call, five times the size of the others, is boxed. Regression: the
    /// neutral tool call unboxed made every entry 248 bytes (168 before it), +2.4 MiB there.
    #[test]
    fn every_log_entry_is_not_as_large_as_a_tool_call() {
        assert!(
            std::mem::size_of::<LogEntry>() <= 96,
            "{} bytes",
            std::mem::size_of::<LogEntry>()
        );
        assert!(std::mem::size_of::<ToolEntry>() > 2 * std::mem::size_of::<LogEntry>());
    }
}
