//! What every end-to-end harness (`claude/`, `codex/`, `acp/`) reads from the events it
//! recorded and from the wire log, written once; each harness keeps its own method names.

use std::path::{Path, PathBuf};

use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry};
use codiva_protocol::session::{Scope, SessionEvent};

/// The final version of every main-log entry seen, in order.
pub fn main_log(events: &[SessionEvent]) -> Vec<LogEntry> {
    let mut entries: Vec<LogEntry> = Vec::new();
    for event in events {
        if let SessionEvent::Log {
            scope: Scope::Main,
            entry,
            ..
        } = event
        {
            match entries.iter_mut().find(|e| e.id == entry.id) {
                Some(existing) => *existing = entry.clone(),
                None => entries.push(entry.clone()),
            }
        }
    }
    entries
}

pub fn tools(events: &[SessionEvent]) -> Vec<ToolEntry> {
    main_log(events)
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Tool(tool) => Some(*tool),
            _ => None,
        })
        .collect()
}

pub fn assistant_texts(events: &[SessionEvent]) -> Vec<String> {
    main_log(events)
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Assistant { text } => Some(text),
            _ => None,
        })
        .collect()
}

pub fn notes(events: &[SessionEvent]) -> Vec<String> {
    main_log(events)
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Note { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

/// Every streamed piece of text, in order.
pub fn streamed(events: &[SessionEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Stream { text, reset: false } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Each event as a JSON line of at most 300 characters (for assertion messages).
pub fn dump(events: &[SessionEvent]) -> String {
    events
        .iter()
        .map(|event| {
            let text = serde_json::to_string(event).unwrap_or_default();
            text.chars().take(300).collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Session `id`'s wire log among the manager's (`<repo>-<id>.log` in `dir`).
pub fn wire_log_of(dir: &Path, id: &str) -> PathBuf {
    std::fs::read_dir(dir)
        .expect("wire log dir")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().ends_with(&format!("-{id}.log")))
        })
        .expect("the session's wire log")
}

/// The last 30 lines of a wire log, each cut at 400 characters (for assertion messages).
pub fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..]
        .iter()
        .map(|line| line.chars().take(400).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names (file stems) of the fixtures in `dir`, sorted.
pub fn fixture_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("fixture dir")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            Some(path.file_stem()?.to_str()?.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// The conversation a log shows: user messages, texts, thinking and tool calls, in order
/// (notes and subagents left out).
pub fn conversation<'a>(entries: impl IntoIterator<Item = &'a EntryKind>) -> Vec<String> {
    entries
        .into_iter()
        .filter_map(|kind| match kind {
            EntryKind::User { text } => Some(format!("user: {text}")),
            EntryKind::Assistant { text } => Some(format!("text: {text}")),
            EntryKind::Thinking { text } => Some(format!("thinking: {text}")),
            EntryKind::Tool(tool) => Some(format!("tool: {}", tool.tool_use_id)),
            _ => None,
        })
        .collect()
}

/// What a restart restores is what was shown: the log rebuilt from codiva's own history of
/// `events` (what a restored Codex or ACP session gets) has the live log's conversation.
pub fn assert_restore_shows_what_was_shown(name: &str, agent: &str, events: &[SessionEvent]) {
    let mut history = codiva_core::history::History::new(agent);
    for event in events {
        history.apply(0, event);
    }
    let shown = main_log(events);
    let restored = history.log_entries();
    assert_eq!(
        conversation(&restored),
        conversation(shown.iter().map(|entry| &entry.kind)),
        "[{name}] the restored log against the live one"
    );
}
