//! A session's log as clients read it: entries with stable ids, tool calls and notes. The
//! capping and the byte budget that keep a log small are the core's (`session_log.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::NoteLevel;
use crate::tool::ToolCallView;

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
/// wording; a front end may word it otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoteCode {
    pub name: String,
    pub args: Vec<String>,
}

impl NoteCode {
    pub fn new(name: &str, args: &[&str]) -> Self {
        NoteCode {
            name: name.to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        }
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
