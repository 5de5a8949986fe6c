//! Rebuilds log entries from the lines of one transcript file: the line shapes, the
//! per-file rebuild state (main log, sidechains, pending tool calls, TODO list) and the
//! small text helpers it uses (system reminders, command echoes, timestamps).

use std::collections::{HashMap, VecDeque};

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, ToolEntry, ToolStatus};
use codiva_wire::claude::{ContentBlock, INTERRUPT_MARKERS, UserContent};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{MAX_PENDING_TOOLS, MAX_TODOS, NO_RESULT, SUBAGENT_LOG_BUDGET, TodoItem};
use crate::claude::tool_view::tool_view;
use crate::claude::tools::{self, tool_summary};
use crate::session_log::Log;

/// The fields of a transcript line that matter here; the big ones stay unparsed until needed.
#[derive(Deserialize)]
pub(super) struct RawLine<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    subtype: Option<String>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(rename = "isMeta", default)]
    is_meta: bool,
    #[serde(rename = "isSynthetic", default)]
    is_synthetic: bool,
    #[serde(rename = "isCompactSummary", default)]
    is_compact_summary: bool,
    #[serde(rename = "isApiErrorMessage", default)]
    is_api_error_message: bool,
    #[serde(rename = "agentId", default)]
    agent_id: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    origin: Option<Value>,
    #[serde(rename = "permissionDecision", default)]
    permission_decision: Option<Value>,
    #[serde(rename = "toolDenialKind", default)]
    tool_denial_kind: Option<Value>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(rename = "toolUseResult", default, borrow)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    attachment: Option<&'a RawValue>,
}

impl RawLine<'_> {
    /// The line's `message`, when it has one that reads as a message.
    fn message(&self) -> Option<Message> {
        serde_json::from_str(self.message?.get()).ok()
    }
}

/// An `attachment` line's body; only a message the user sent mid-turn matters here.
#[derive(Deserialize)]
pub(super) struct Attachment {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    prompt: Option<UserContent>,
}

#[derive(Deserialize)]
pub(super) struct Message {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: UserContent,
}

/// Which log a line goes to: the main one, or a subagent's by agent id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    Main,
    Side(String),
}

pub(super) struct Rebuilt {
    pub(super) log: Log,
    pub(super) prompt_seen: bool,
}

impl Rebuilt {
    pub(super) fn new(budget: usize) -> Self {
        Rebuilt {
            log: Log::with_budget(budget),
            prompt_seen: false,
        }
    }
}

pub(super) struct Pending {
    target: Target,
    entry_id: u64,
    started_ms: Option<u64>,
    name: String,
    /// Kept for the task tools only.
    input: Option<Value>,
}

/// The state of one file being read.
pub(super) struct Rebuild {
    /// A subagent's own file: every line belongs to it.
    pub(super) subagent_file: bool,
    pub(super) main: Rebuilt,
    pub(super) sidechains: HashMap<String, Rebuilt>,
    pub(super) pending: HashMap<String, Pending>,
    pub(super) pending_order: VecDeque<String>,
    /// agentId → the Agent tool call that started it (from the tool results).
    pub(super) agent_tools: HashMap<String, String>,
    pub(super) last_model: Option<String>,
    pub(super) todos: Option<Vec<TodoItem>>,
    pub(super) skipped: u64,
}

impl Rebuild {
    pub(super) fn new(subagent_file: bool, budget: usize) -> Self {
        Rebuild {
            subagent_file,
            main: Rebuilt::new(budget),
            sidechains: HashMap::new(),
            pending: HashMap::new(),
            pending_order: VecDeque::new(),
            agent_tools: HashMap::new(),
            last_model: None,
            todos: None,
            skipped: 0,
        }
    }

    pub(super) fn line(&mut self, line: Option<&[u8]>) {
        let parsed = line.and_then(|line| serde_json::from_slice::<RawLine>(line).ok());
        let Some(line) = parsed else {
            self.skipped += 1;
            return;
        };
        let target = match (&line.agent_id, line.is_sidechain && !self.subagent_file) {
            (Some(agent_id), true) => Target::Side(agent_id.clone()),
            // A sidechain line without an agent id has no log to go to; never the main one.
            (None, true) => return,
            (_, false) => Target::Main,
        };
        let ok = match line.kind.as_str() {
            "user" => self.user(&line, target),
            "assistant" => self.assistant(&line, target),
            "system" => {
                if line.subtype.as_deref() == Some("compact_boundary") {
                    self.push(
                        &target,
                        note(NoteLevel::Info, "the conversation was compacted"),
                    );
                }
                true
            }
            "attachment" => self.attachment(&line, target),
            // queue-operation, api-request*, tools-used, last-prompt, atis-latch, cost-state,
            // summary and kinds added later: nothing a person reads.
            _ => true,
        };
        if !ok {
            self.skipped += 1;
        }
    }

    fn rebuilt(&mut self, target: &Target) -> &mut Rebuilt {
        match target {
            Target::Main => &mut self.main,
            Target::Side(agent_id) => self
                .sidechains
                .entry(agent_id.clone())
                .or_insert_with(|| Rebuilt::new(SUBAGENT_LOG_BUDGET)),
        }
    }

    fn push(&mut self, target: &Target, kind: EntryKind) -> u64 {
        self.rebuilt(target).log.push(0, kind).id
    }

    fn is_subagent(&self, target: &Target) -> bool {
        self.subagent_file || matches!(target, Target::Side(_))
    }

    fn assistant(&mut self, line: &RawLine, target: Target) -> bool {
        let Some(message) = line.message() else {
            return false;
        };
        let blocks = match message.content {
            UserContent::Blocks(blocks) => blocks,
            UserContent::Text(text) => vec![ContentBlock::Text { text }],
        };
        if message.model.as_deref() == Some("<synthetic>") || line.is_api_error_message {
            let text = codiva_wire::claude::blocks_text(&blocks);
            if !text.trim().is_empty() {
                self.push(&target, note(NoteLevel::Error, &text));
            }
            return true;
        }
        if !self.is_subagent(&target) && message.model.is_some() {
            self.last_model = message.model;
        }
        for block in blocks {
            match block {
                ContentBlock::Text { text } if !text.trim().is_empty() => {
                    self.push(&target, EntryKind::Assistant { text });
                }
                ContentBlock::Thinking { thinking, .. } if !thinking.trim().is_empty() => {
                    self.push(&target, EntryKind::Thinking { text: thinking });
                }
                ContentBlock::ToolUse { id, name, input } => {
                    let entry_id = self.push(
                        &target,
                        EntryKind::Tool(Box::new(ToolEntry {
                            tool_use_id: id.clone(),
                            summary: tool_summary(&name, &input),
                            view: tool_view(&name, &input),
                            name: name.clone(),
                            input: input.clone(),
                            status: ToolStatus::Running,
                            result: None,
                            duration_ms: None,
                        })),
                    );
                    let keep_input =
                        matches!(name.as_str(), "TaskCreate" | "TaskUpdate" | "TodoWrite");
                    self.pending_insert(
                        id,
                        Pending {
                            target: target.clone(),
                            entry_id,
                            started_ms: line.timestamp.as_deref().and_then(crate::rfc3339::millis),
                            name,
                            input: keep_input.then_some(input),
                        },
                    );
                }
                _ => {}
            }
        }
        true
    }

    fn pending_insert(&mut self, id: String, pending: Pending) {
        if self.pending.insert(id.clone(), pending).is_none() {
            self.pending_order.push_back(id);
        }
        while self.pending.len() > MAX_PENDING_TOOLS {
            match self.pending_order.pop_front() {
                Some(old) => {
                    self.pending.remove(&old);
                }
                None => break,
            }
        }
    }

    fn user(&mut self, line: &RawLine, target: Target) -> bool {
        let Some(message) = line.message() else {
            return false;
        };
        if line.is_meta || line.is_synthetic {
            return true;
        }
        if line.is_compact_summary {
            self.push(
                &target,
                note(NoteLevel::Info, "the conversation was compacted"),
            );
            return true;
        }
        let blocks = match message.content {
            UserContent::Text(text) => vec![ContentBlock::Text { text }],
            UserContent::Blocks(blocks) => blocks,
        };
        let mut text = String::new();
        let mut results = false;
        for block in blocks {
            match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } => {
                    results = true;
                    self.tool_result(line, &tool_use_id, content.to_text(), is_error);
                }
                ContentBlock::Text { text: part } => {
                    let part = strip_system_reminders(&part);
                    if !part.is_empty() {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(part.trim());
                    }
                }
                ContentBlock::Image {} => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str("[image]");
                }
                _ => {}
            }
        }
        if text.is_empty() {
            return true;
        }
        if INTERRUPT_MARKERS.contains(&text.as_str()) {
            self.push(&target, note(NoteLevel::Info, "interrupted"));
            return true;
        }
        if results {
            // Text next to tool results is the harness's, not the user's.
            return true;
        }
        let origin = line
            .origin
            .as_ref()
            .and_then(|origin| origin.get("kind"))
            .and_then(Value::as_str);
        if origin == Some("task-notification") || text.starts_with("<task-notification>") {
            let summary = tag_text(&text, "summary").unwrap_or("a background agent finished");
            self.push(&target, note(NoteLevel::Info, summary));
            return true;
        }
        if is_command_echo(&text) {
            return true;
        }
        let rebuilt = self.rebuilt(&target);
        let first = !rebuilt.prompt_seen;
        rebuilt.prompt_seen = true;
        let kind = if self.is_subagent(&target) && first {
            EntryKind::SubagentPrompt { text }
        } else {
            EntryKind::User { text }
        };
        self.push(&target, kind);
        true
    }

    /// A message the user sent while a turn ran, which the CLI folded into that turn, is kept
    /// as a `queued_command` attachment (no `user` line of its own): it is the user's message.
    fn attachment(&mut self, line: &RawLine, target: Target) -> bool {
        let Some(attachment) = line
            .attachment
            .and_then(|raw| serde_json::from_str::<Attachment>(raw.get()).ok())
        else {
            return false;
        };
        if attachment.kind != "queued_command" || target != Target::Main {
            return true;
        }
        let text = match attachment.prompt {
            Some(UserContent::Text(text)) => text.trim().to_owned(),
            Some(UserContent::Blocks(blocks)) => blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text { text } => Some(text.trim()),
                    ContentBlock::Image {} => Some("[image]"),
                    _ => None,
                })
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("\n"),
            None => String::new(),
        };
        if !text.is_empty() && !is_command_echo(&text) {
            self.push(&target, EntryKind::User { text });
        }
        true
    }

    fn tool_result(&mut self, line: &RawLine, tool_use_id: &str, text: String, is_error: bool) {
        let structured = || {
            line.tool_use_result
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        };
        let structured = structured();
        let agent_id = structured
            .as_ref()
            .and_then(|value| value.get("agentId"))
            .and_then(Value::as_str);
        if let (Some(agent_id), false) = (agent_id, self.subagent_file) {
            self.agent_tools
                .insert(agent_id.to_owned(), tool_use_id.to_owned());
        }
        let Some(pending) = self.pending.remove(tool_use_id) else {
            return;
        };
        let rejected = line
            .permission_decision
            .as_ref()
            .and_then(|decision| decision.get("decision"))
            .and_then(Value::as_str)
            == Some("reject");
        let status = if rejected || line.tool_denial_kind.is_some() {
            ToolStatus::Denied
        } else if is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Succeeded
        };
        let duration = pending
            .started_ms
            .zip(line.timestamp.as_deref().and_then(crate::rfc3339::millis))
            .map(|(start, end)| end.saturating_sub(start));
        self.rebuilt(&pending.target)
            .log
            .update(pending.entry_id, |kind| {
                if let EntryKind::Tool(entry) = kind {
                    entry.status = status;
                    entry.result = Some(tools::result_text(text, structured.as_ref()));
                    entry.duration_ms = duration;
                }
            });
        let main = pending.target == Target::Main && !self.subagent_file;
        if let (ToolStatus::Succeeded, true, Some(input)) = (status, main, &pending.input) {
            self.track_todos(&pending.name, input, structured.as_ref());
        }
    }

    fn track_todos(&mut self, name: &str, input: &Value, structured: Option<&Value>) {
        let todos = self.todos.get_or_insert_with(Vec::new);
        let field = |value: &Value, key: &str| value.get(key).and_then(json_id);
        match name {
            "TaskCreate" => {
                let id = structured
                    .and_then(|value| value.pointer("/task/id"))
                    .and_then(json_id)
                    .unwrap_or_else(|| (todos.len() + 1).to_string());
                if todos.len() < MAX_TODOS {
                    todos.push(TodoItem {
                        id,
                        text: field(input, "subject").unwrap_or_default(),
                        status: "pending".to_owned(),
                    });
                }
            }
            "TaskUpdate" => {
                let Some(id) = field(input, "taskId") else {
                    return;
                };
                match field(input, "status").as_deref() {
                    Some("deleted") => todos.retain(|todo| todo.id != id),
                    status => {
                        if let Some(todo) = todos.iter_mut().find(|todo| todo.id == id) {
                            if let Some(status) = status {
                                todo.status = status.to_owned();
                            }
                            if let Some(subject) = field(input, "subject") {
                                todo.text = subject;
                            }
                        }
                    }
                }
            }
            "TodoWrite" => {
                *todos = input
                    .get("todos")
                    .and_then(Value::as_array)
                    .map(|items| {
                        items
                            .iter()
                            .take(MAX_TODOS)
                            .enumerate()
                            .map(|(index, item)| TodoItem {
                                id: (index + 1).to_string(),
                                text: field(item, "content").unwrap_or_default(),
                                status: field(item, "status")
                                    .unwrap_or_else(|| "pending".to_owned()),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
            }
            _ => {}
        }
    }

    /// Tool calls that never got a result end as failed (nothing runs after a restore).
    pub(super) fn finish(&mut self) {
        for (_, pending) in self.pending.drain() {
            let log = match &pending.target {
                Target::Main => &mut self.main.log,
                Target::Side(agent_id) => match self.sidechains.get_mut(agent_id) {
                    Some(rebuilt) => &mut rebuilt.log,
                    None => continue,
                },
            };
            log.update(pending.entry_id, |kind| {
                if let EntryKind::Tool(tool) = kind
                    && let ToolEntry {
                        status: status @ ToolStatus::Running,
                        result,
                        ..
                    } = &mut **tool
                {
                    *status = ToolStatus::Failed;
                    *result = Some(NO_RESULT.to_owned());
                }
            });
        }
        self.pending_order.clear();
    }
}

pub(super) fn note(level: NoteLevel, text: &str) -> EntryKind {
    EntryKind::Note {
        level,
        text: text.to_owned(),
        code: None,
    }
}

pub(super) fn json_id(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// `text` without its `<system-reminder>…</system-reminder>` sections, trimmed.
pub(super) fn strip_system_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        match rest[start..].find(CLOSE) {
            Some(end) => rest = &rest[start + end + CLOSE.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out.trim().to_owned()
}

/// Lines the CLI writes for slash commands and local shell commands (`/model`, `!ls`).
pub(super) fn is_command_echo(text: &str) -> bool {
    const TAGS: [&str; 7] = [
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<bash-input>",
    ];
    TAGS.iter().any(|tag| text.starts_with(tag))
}

/// The text inside the first `<tag>…</tag>` of `text`.
pub(super) fn tag_text<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim()).filter(|inner| !inner.is_empty())
}
