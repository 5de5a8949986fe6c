//! The session log: what a person reads about a session, with hard memory caps.
//!
//! Entries get stable ids (they survive the dropping of old entries); each entry's text is
//! capped, and the whole log keeps within a byte budget by dropping its oldest entries. The
//! conversation's full text lives in the agent's own transcript, not here.

use std::collections::VecDeque;

use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_protocol::text::{MAX_MESSAGE_TEXT, truncate, truncate_front};
use serde_json::Value;

/// Longest text kept for one tool result.
pub const MAX_TOOL_RESULT: usize = 16 * 1024;
/// Largest tool input kept (as serialised JSON); larger inputs are replaced by a summary.
pub const MAX_TOOL_INPUT: usize = 64 * 1024;
/// Byte budget of one log; the oldest entries go first.
pub const LOG_BUDGET: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, Default)]
pub struct Log {
    entries: VecDeque<LogEntry>,
    next_id: u64,
    bytes: usize,
    dropped: u64,
    budget: usize,
}

impl Log {
    pub fn new() -> Self {
        Log {
            budget: LOG_BUDGET,
            ..Log::default()
        }
    }

    pub fn with_budget(budget: usize) -> Self {
        Log {
            budget,
            ..Log::default()
        }
    }

    /// Appends an entry and returns a copy of it (with its id).
    pub fn push(&mut self, at_ms: u64, kind: EntryKind) -> LogEntry {
        let entry = LogEntry {
            id: self.next_id,
            at_ms,
            kind: capped(kind),
        };
        self.next_id += 1;
        self.bytes += entry_size(&entry);
        self.entries.push_back(entry.clone());
        self.enforce_budget();
        entry
    }

    /// Changes an entry in place; returns the updated copy (`None` if it was dropped).
    pub fn update(&mut self, id: u64, change: impl FnOnce(&mut EntryKind)) -> Option<LogEntry> {
        let first = self.entries.front()?.id;
        let index = usize::try_from(id.checked_sub(first)?).ok()?;
        let entry = self.entries.get_mut(index)?;
        let before = entry_size(entry);
        change(&mut entry.kind);
        entry.kind = capped(std::mem::replace(
            &mut entry.kind,
            EntryKind::User {
                text: String::new(),
            },
        ));
        let after = entry_size(entry);
        let copy = entry.clone();
        self.bytes = self.bytes.saturating_sub(before) + after;
        self.enforce_budget();
        Some(copy)
    }

    pub fn get(&self, id: u64) -> Option<&LogEntry> {
        let first = self.entries.front()?.id;
        self.entries
            .get(usize::try_from(id.checked_sub(first)?).ok()?)
    }

    pub fn entries(&self) -> impl Iterator<Item = &LogEntry> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many old entries were dropped to stay within the budget.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn enforce_budget(&mut self) {
        while self.bytes > self.budget && self.entries.len() > 1 {
            if let Some(old) = self.entries.pop_front() {
                self.bytes = self.bytes.saturating_sub(entry_size(&old));
                self.dropped += 1;
            }
        }
    }
}

/// What an entry really costs in memory: the entry itself plus every heap allocation it owns
/// (capacity plus allocator overhead), so that the budget bounds the process's memory, not just
/// its text.
fn entry_size(entry: &LogEntry) -> usize {
    std::mem::size_of::<LogEntry>()
        + match &entry.kind {
            EntryKind::User { text }
            | EntryKind::Assistant { text }
            | EntryKind::Thinking { text }
            | EntryKind::SubagentPrompt { text }
            | EntryKind::Note { text, .. } => string_heap(text),
            EntryKind::Tool(tool) => {
                string_heap(&tool.tool_use_id)
                    + string_heap(&tool.summary)
                    + string_heap(&tool.name)
                    + tool.result.as_ref().map_or(0, string_heap)
                    + json_heap(&tool.input)
            }
        }
}

/// Allocator overhead assumed per heap block.
const ALLOCATION_OVERHEAD: usize = 16;

fn string_heap(text: &String) -> usize {
    match text.capacity() {
        0 => 0,
        capacity => capacity + ALLOCATION_OVERHEAD,
    }
}

fn json_heap(value: &Value) -> usize {
    let value_size = std::mem::size_of::<Value>();
    match value {
        Value::String(text) => string_heap(text),
        Value::Array(items) => {
            items.capacity() * value_size
                + ALLOCATION_OVERHEAD
                + items.iter().map(json_heap).sum::<usize>()
        }
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| {
                std::mem::size_of::<String>()
                    + string_heap(key)
                    + value_size
                    + ALLOCATION_OVERHEAD
                    + json_heap(value)
            })
            .sum(),
        _ => 0,
    }
}

/// Roughly the size of `value` serialised (decides whether a tool input is kept).
fn json_size(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        Value::Array(items) => items.iter().map(json_size).sum::<usize>() + 2,
        Value::Object(map) => {
            map.iter()
                .map(|(k, v)| k.len() + 3 + json_size(v))
                .sum::<usize>()
                + 2
        }
        _ => 8,
    }
}

fn capped(kind: EntryKind) -> EntryKind {
    match kind {
        // A reply is read as it streams, from its end: keep the end, so what its reader
        // followed stays on screen when it completes. A thinking card shows its first line.
        EntryKind::Assistant { text } => EntryKind::Assistant {
            text: truncate_front(text, MAX_MESSAGE_TEXT),
        },
        EntryKind::Thinking { text } => EntryKind::Thinking {
            text: truncate(text, MAX_MESSAGE_TEXT),
        },
        EntryKind::User { text } => EntryKind::User {
            text: truncate(text, MAX_MESSAGE_TEXT),
        },
        EntryKind::SubagentPrompt { text } => EntryKind::SubagentPrompt {
            text: truncate(text, MAX_MESSAGE_TEXT),
        },
        EntryKind::Note { level, text, code } => EntryKind::Note {
            level,
            text: truncate(text, MAX_TOOL_RESULT),
            code,
        },
        EntryKind::Tool(mut tool) => {
            tool.result = tool.result.map(|text| truncate(text, MAX_TOOL_RESULT));
            if json_size(&tool.input) > MAX_TOOL_INPUT {
                tool.input = Value::String(format!(
                    "[input of about {} bytes not kept]",
                    json_size(&tool.input)
                ));
            }
            EntryKind::Tool(tool)
        }
    }
}

/// A page of a session's log.
#[derive(Debug, Clone, Default)]
pub struct LogPage {
    pub entries: Vec<LogEntry>,
    /// The id to pass as `after` to read on; `None` at the end of the log.
    pub next_after: Option<u64>,
    pub dropped: u64,
}
