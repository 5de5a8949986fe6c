//! How the reducer takes one provider-neutral `AgentEvent`: content blocks into the log,
//! tool results, usage, subagents and the TODO list.

use std::collections::BTreeSet;

use codiva_protocol::agent::{AgentInfo, NoteLevel, TokenUsage};
use codiva_protocol::log::{EntryKind, NoteCode, NoteName, ToolEntry, ToolStatus};
use codiva_protocol::session::{
    Prompt, PromptResolution, Scope, SessionEvent, SubagentStatus, TodoItem, TodoStatus,
};
use codiva_protocol::text::one_line;
use codiva_protocol::tool::ToolContent;

use super::{MAX_TODO_CHARS, MAX_TODOS, OpenTurn, SessionState, ToolRef, scope_of};
use crate::agent_event::{AgentBlock, AgentEvent, TodoChange};

impl SessionState {
    pub(super) fn agent_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::Connected(info) => self.connect(info),
            AgentEvent::TurnStarted {
                agent_session_id,
                model,
                permission_mode,
            } => self.turn_started(agent_session_id, model, permission_mode),
            AgentEvent::Requesting => {}
            AgentEvent::PermissionModeChanged(mode) => self.set_permission_mode(mode),
            AgentEvent::McpServers(servers) => {
                self.outbox.push(SessionEvent::McpServers { servers });
            }
            AgentEvent::ModelChanged(model) => {
                if model != self.model {
                    self.model = model.clone();
                    self.outbox.push(SessionEvent::Model { model });
                }
            }
            AgentEvent::Retrying(retry) => {
                self.reset_stream();
                self.retry = Some(retry);
            }
            AgentEvent::MessageStarted { .. } => {
                self.retry = None;
                self.reset_stream();
            }
            AgentEvent::TextDelta { text } => self.text_delta(text),
            AgentEvent::ThinkingDelta { text } => {
                if self.thinking_text.len() < codiva_protocol::text::MAX_MESSAGE_TEXT {
                    self.thinking_text.push_str(&text);
                }
            }
            AgentEvent::Block {
                message_id,
                parent,
                block,
                usage,
                model: _,
            } => self.block(message_id, parent, block, usage),
            AgentEvent::Usage {
                response_id,
                usage,
                context_window,
            } => self.usage_reported(response_id, usage, context_window),
            AgentEvent::ApiError {
                parent, message, ..
            } => {
                self.reset_stream();
                let scope = scope_of(parent);
                self.note(scope, NoteLevel::Error, message);
            }
            AgentEvent::ToolResult {
                parent: _,
                tool_use_id,
                text,
                is_error,
                todo,
            } => self.tool_result(&tool_use_id, text, is_error, todo),
            AgentEvent::ToolOutput { tool_use_id, text } => self.tool_output(&tool_use_id, &text),
            AgentEvent::ToolUnreported { tool_use_id } => self.tool_unreported(&tool_use_id),
            AgentEvent::ToolUpdated {
                tool_use_id,
                view,
                input,
                summary,
            } => self.tool_updated(&tool_use_id, view, input, summary),
            AgentEvent::SubagentPrompt { parent, text } => {
                self.push_entry(Scope::Subagent(parent), EntryKind::SubagentPrompt { text });
            }
            AgentEvent::UserEcho { text } => self.user_echo(&text),
            AgentEvent::InterruptMarker => {
                self.reset_stream();
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Info,
                    NoteCode::new(NoteName::Interrupted, &[]),
                    "interrupted".to_owned(),
                );
            }
            AgentEvent::SyntheticContinuation => {
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Info,
                    NoteCode::new(NoteName::ContinuedAfterCut, &[]),
                    "the answer was cut off; the agent continues".to_owned(),
                );
            }
            AgentEvent::PermissionRequest(request) => {
                self.open_prompt(Prompt::Permission(request));
            }
            AgentEvent::QuestionRequest(request) => {
                self.open_prompt(Prompt::Question(request));
            }
            AgentEvent::RequestWithdrawn { request_id } => {
                self.close_prompt(&request_id, PromptResolution::Withdrawn);
            }
            AgentEvent::SubagentStarted(start) => self.subagent_started(&start),
            AgentEvent::SubagentProgress(progress) => self.subagent_progress(&progress),
            AgentEvent::SubagentSettled {
                task_id,
                status,
                summary,
            } => self.subagent_settled(&task_id, status, summary),
            AgentEvent::BackgroundTasks { task_ids } => self.background_tasks_now(task_ids),
            AgentEvent::Compacted {
                trigger,
                pre_tokens,
            } => self.compacted(trigger, pre_tokens),
            AgentEvent::PlanUsage(usage) => {
                // Only a subscription login reports plan usage (docs/protocol/claude.md, "Plan usage").
                self.on_subscription();
                self.outbox.push(SessionEvent::PlanUsage { usage });
            }
            AgentEvent::TurnEnded(end) => self.turn_ended(end),
            AgentEvent::ResumeFailed { message } => {
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Warning,
                    NoteCode::new(NoteName::ResumeFailed, &[&message]),
                    format!("the conversation could not be resumed ({message}); a new one starts"),
                );
            }
            AgentEvent::RequestFailed { what, error } => {
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Warning,
                    NoteCode::new(NoteName::RequestFailed, &[&what, &error]),
                    format!("{what} failed: {error}"),
                );
            }
            AgentEvent::Note { level, text, code } => {
                self.push_entry(Scope::Main, EntryKind::Note { level, text, code });
            }
        }
    }

    /// A response's usage (counted once per response) and the context window, if said.
    fn usage_reported(
        &mut self,
        response_id: String,
        usage: TokenUsage,
        context_window: Option<u64>,
    ) {
        if context_window.is_some() {
            self.usage.context_window = context_window;
        }
        if !self.count_usage(response_id, None, usage) && context_window.is_some() {
            self.outbox.push(SessionEvent::Usage {
                usage: self.usage.clone(),
            });
        }
    }

    fn subagent_progress(&mut self, progress: &crate::agent_event::SubagentProgress) {
        if let Some(tool_use_id) = self.task_to_tool.get(&progress.task_id).cloned() {
            self.update_subagent(&tool_use_id, |view| {
                view.last_tool = progress.last_tool.clone();
                view.tokens = progress.tokens;
                view.tool_uses = progress.tool_uses;
                view.elapsed_ms = progress.elapsed_ms;
            });
        }
    }

    /// A turn began: the oldest message waiting started it (or the agent did by itself), and
    /// what the agent says of the turn (its conversation, model, mode) is taken.
    fn turn_started(
        &mut self,
        agent_session_id: String,
        model: Option<String>,
        permission_mode: Option<codiva_protocol::tool::PermissionMode>,
    ) {
        if self.turn.is_none() {
            // A turn for the oldest message waiting, or one the agent started by
            // itself (e.g. after a background agent).
            self.turn = Some(OpenTurn { cancelled: false });
            if let Some(message) = self.unacked.iter_mut().find(|m| !m.started_turn) {
                message.started_turn = true;
            }
        }
        self.follow_up_since = None;
        // A turn cannot begin before the handshake; some agents skip it (what they
        // said of themselves before, if anything, stands).
        if !self.connected {
            self.connect(self.agent.clone().unwrap_or_default());
        }
        if !agent_session_id.is_empty()
            && self.agent_session_id.as_deref() != Some(&agent_session_id)
        {
            self.agent_session_id = Some(agent_session_id.clone());
            self.outbox.push(SessionEvent::AgentSession {
                id: Some(agent_session_id),
            });
        }
        if model.is_some() && model != self.model {
            self.model = model.clone();
            self.outbox.push(SessionEvent::Model { model });
        }
        if let Some(mode) = permission_mode {
            self.set_permission_mode(mode);
        }
    }

    fn text_delta(&mut self, text: String) {
        // The snapshot's copy is capped from the front, as the log caps the completed
        // message: a client that attaches mid-stream gets the end, after a
        // `[N more bytes] …` line, and the deltas that follow continue it. The deltas
        // always go out, so a front end keeps following (it caps its own copy).
        codiva_protocol::view::push_stream(&mut self.stream_text, &text);
        // Deltas reduced together (a batch of lines) leave as one event.
        match self.outbox.last_mut() {
            Some(SessionEvent::Stream {
                text: pending,
                reset: false,
            }) => pending.push_str(&text),
            _ => self
                .outbox
                .push(SessionEvent::Stream { text, reset: false }),
        }
    }

    fn subagent_started(&mut self, start: &crate::agent_event::SubagentStart) {
        self.running_tasks.insert(start.task_id.clone());
        if start.background {
            self.background_tasks.insert(start.task_id.clone());
        }
        let tool_use_id = start
            .tool_use_id
            .clone()
            .unwrap_or_else(|| start.task_id.clone());
        self.task_to_tool
            .insert(start.task_id.clone(), tool_use_id.clone());
        self.update_subagent(&tool_use_id, |view| {
            view.task_id = Some(start.task_id.clone());
            view.background = start.background;
            view.status = SubagentStatus::Running;
            if start.description.is_some() {
                view.description = start.description.clone();
            }
            if start.subagent_type.is_some() {
                view.subagent_type = start.subagent_type.clone();
            }
        });
    }

    /// A subagent ended: its card's status and summary; a completed one's report is logged.
    fn subagent_settled(&mut self, task_id: &str, status: SubagentStatus, summary: Option<String>) {
        self.running_tasks.remove(task_id);
        self.background_tasks.remove(task_id);
        if let Some(tool_use_id) = self.task_to_tool.get(task_id).cloned() {
            self.update_subagent(&tool_use_id, |view| {
                view.status = status;
                if summary.is_some() {
                    view.summary = summary.clone();
                }
            });
            if status == SubagentStatus::Completed
                && let Some(report) = summary.filter(|text| !text.trim().is_empty())
            {
                self.log_subagent_report(tool_use_id, report);
            }
        }
        self.release_gate();
    }

    /// The background tasks still running, as the agent listed them now.
    fn background_tasks_now(&mut self, task_ids: Vec<String>) {
        let live: BTreeSet<String> = task_ids.into_iter().collect();
        let gone: Vec<String> = self.background_tasks.difference(&live).cloned().collect();
        for task in gone {
            self.running_tasks.remove(&task);
        }
        self.running_tasks.extend(live.iter().cloned());
        self.background_tasks = live;
        self.release_gate();
    }

    /// The conversation was compacted: a note front ends draw as a divider.
    fn compacted(&mut self, trigger: Option<String>, pre_tokens: Option<u64>) {
        let mut text = "conversation compacted".to_owned();
        if let Some(trigger) = &trigger {
            text.push_str(&format!(" ({trigger})"));
        }
        if let Some(tokens) = pre_tokens {
            text.push_str(&format!(", {tokens} tokens before"));
        }
        // Front ends draw it as a divider, found and worded by its code.
        let tokens = pre_tokens
            .map(|tokens| tokens.to_string())
            .unwrap_or_default();
        let code = NoteCode::new(
            NoteName::Compacted,
            &[trigger.as_deref().unwrap_or(""), &tokens],
        );
        self.coded_note(Scope::Main, NoteLevel::Info, code, text);
    }

    pub(super) fn block(
        &mut self,
        message_id: String,
        parent: Option<String>,
        block: AgentBlock,
        usage: Option<TokenUsage>,
    ) {
        if let Some(usage) = usage {
            self.count_usage(message_id, parent.as_deref(), usage);
        }
        let scope = scope_of(parent.clone());
        match block {
            AgentBlock::Text(text) => {
                if scope == Scope::Main {
                    self.reset_stream();
                }
                self.push_entry(scope, EntryKind::Assistant { text });
            }
            AgentBlock::Thinking(text) => {
                if scope == Scope::Main {
                    self.thinking_text.clear();
                }
                self.push_entry(scope, EntryKind::Thinking { text });
            }
            AgentBlock::ToolUse {
                id,
                name,
                input,
                summary,
                view,
                subagent,
            } => {
                if scope == Scope::Main {
                    self.reset_stream();
                }
                if parent.is_none()
                    && let Some(call) = subagent
                {
                    self.update_subagent(&id, |view| {
                        view.description = call.description.clone();
                        view.subagent_type = call.subagent_type.clone();
                        view.background = call.background;
                    });
                }
                let entry = self.push_entry(
                    scope.clone(),
                    EntryKind::Tool(Box::new(ToolEntry {
                        tool_use_id: id.clone(),
                        name,
                        summary,
                        view,
                        input,
                        status: ToolStatus::Running,
                        result: None,
                        duration_ms: None,
                    })),
                );
                self.tools.insert(
                    id,
                    ToolRef {
                        scope,
                        entry_id: entry.id,
                        started_ms: self.now_ms,
                    },
                );
            }
        }
    }

    /// Adds the usage of model message `message_id` once; `true` when it was new (a usage
    /// event went out).
    fn count_usage(&mut self, message_id: String, parent: Option<&str>, usage: TokenUsage) -> bool {
        if !self.seen_messages.insert(message_id) {
            return false;
        }
        self.usage.tokens.input += usage.input;
        self.usage.tokens.output += usage.output;
        self.usage.tokens.cache_read += usage.cache_read;
        self.usage.tokens.cache_creation += usage.cache_creation;
        if parent.is_none() {
            self.usage.context_used = usage.context() + usage.output;
        }
        self.outbox.push(SessionEvent::Usage {
            usage: self.usage.clone(),
        });
        true
    }

    /// A running call refined by the agent: its view (and input, summary) replaced.
    fn tool_updated(
        &mut self,
        tool_use_id: &str,
        view: codiva_protocol::tool::ToolCallView,
        input: Option<serde_json::Value>,
        summary: Option<String>,
    ) {
        let Some(tool) = self.tools.get(tool_use_id) else {
            return;
        };
        let (scope, entry_id) = (tool.scope.clone(), tool.entry_id);
        self.update_entry(&scope, entry_id, |kind| {
            if let EntryKind::Tool(tool) = kind {
                tool.view = view;
                if let Some(input) = input {
                    tool.input = input;
                }
                if let Some(summary) = summary {
                    tool.summary = summary;
                }
            }
        });
    }

    /// Streamed output of a running call: appended to its terminal content (up to the size
    /// a tool result is kept at; beyond that the result brings the rest).
    fn tool_output(&mut self, tool_use_id: &str, text: &str) {
        let Some(tool) = self.tools.get(tool_use_id) else {
            return;
        };
        let (scope, entry_id) = (tool.scope.clone(), tool.entry_id);
        let full = self.log_mut(&scope).get(entry_id).is_none_or(|entry| {
            matches!(&entry.kind, EntryKind::Tool(tool) if tool.view.content.iter().any(|c| matches!(
                c,
                ToolContent::Terminal { output: Some(output), .. }
                    if output.len() >= crate::session_log::MAX_TOOL_RESULT
            )))
        });
        if full {
            return;
        }
        self.update_entry(&scope, entry_id, |kind| {
            if let EntryKind::Tool(tool) = kind {
                for content in &mut tool.view.content {
                    if let ToolContent::Terminal { output, .. } = content {
                        output.get_or_insert_with(String::new).push_str(text);
                    }
                }
            }
        });
    }

    /// A call whose turn ended without its outcome: shown as unreported, not running. It stays
    /// known, so that a report that comes later still gives it its outcome.
    fn tool_unreported(&mut self, tool_use_id: &str) {
        let Some(tool) = self.tools.get(tool_use_id) else {
            return;
        };
        let (scope, entry_id) = (tool.scope.clone(), tool.entry_id);
        let duration = self.now_ms.saturating_sub(tool.started_ms);
        self.update_entry(&scope, entry_id, |kind| {
            if let EntryKind::Tool(entry) = kind
                && entry.status == ToolStatus::Running
            {
                entry.status = ToolStatus::Unreported;
                entry.duration_ms = Some(duration);
            }
        });
    }

    pub(super) fn tool_result(
        &mut self,
        tool_use_id: &str,
        text: String,
        is_error: bool,
        todo: Option<TodoChange>,
    ) {
        let Some(tool) = self.tools.remove(tool_use_id) else {
            return;
        };
        let status = if self.denied_tools.remove(tool_use_id) {
            ToolStatus::Denied
        } else if is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Succeeded
        };
        let duration = self.now_ms.saturating_sub(tool.started_ms);
        self.update_entry(&tool.scope, tool.entry_id, |kind| {
            if let EntryKind::Tool(entry) = kind {
                entry.status = status;
                // Output streamed so far gives way to the whole output.
                for content in &mut entry.view.content {
                    if let ToolContent::Terminal {
                        output: output @ Some(_),
                        ..
                    } = content
                    {
                        *output = Some(text.clone());
                    }
                }
                entry.result = Some(text);
                entry.duration_ms = Some(duration);
            }
        });
        if tool.scope == Scope::Main
            && status == ToolStatus::Succeeded
            && let Some(change) = todo
        {
            self.track_todos(change);
        }
    }

    pub(super) fn track_todos(&mut self, change: TodoChange) {
        let before = self.todos.clone();
        match change {
            TodoChange::Created { id, content } => {
                if self.todos.len() < MAX_TODOS {
                    let id = id.unwrap_or_else(|| (self.todos.len() + 1).to_string());
                    self.todos.push(TodoItem {
                        id,
                        content: one_line(&content, MAX_TODO_CHARS),
                        status: TodoStatus::Pending,
                    });
                }
            }
            TodoChange::Updated {
                id,
                status,
                content,
            } => {
                if let Some(todo) = self.todos.iter_mut().find(|todo| todo.id == id) {
                    if let Some(status) = status {
                        todo.status = status;
                    }
                    if let Some(content) = content {
                        todo.content = one_line(&content, MAX_TODO_CHARS);
                    }
                }
            }
            TodoChange::Deleted { id } => self.todos.retain(|todo| todo.id != id),
            TodoChange::Replaced { items } => {
                self.todos = items
                    .into_iter()
                    .take(MAX_TODOS)
                    .enumerate()
                    .map(|(index, (content, status))| TodoItem {
                        id: (index + 1).to_string(),
                        content: one_line(&content, MAX_TODO_CHARS),
                        status,
                    })
                    .collect();
            }
        }
        if self.todos != before {
            self.outbox.push(SessionEvent::Todos {
                progress: self.todo_progress(),
                items: self.todos.clone(),
            });
        }
    }

    /// The TODO list as it stands.
    pub fn todo_items(&self) -> &[TodoItem] {
        &self.todos
    }
}

impl SessionState {
    /// The agent is connected and says this of itself.
    fn connect(&mut self, info: AgentInfo) {
        self.connected = true;
        if self.permission_mode.is_none() {
            self.permission_mode = info.permission_mode;
        }
        self.outbox.push(SessionEvent::Connected {
            agent: info.clone(),
        });
        if info.account.as_ref().is_some_and(|a| a.is_subscription()) {
            self.on_subscription();
        }
        self.agent = Some(info);
    }

    /// The agent turned out to run on a subscription login: the cost it reports is no bill.
    /// A cost already reported is withdrawn (front ends and the header's total drop it).
    pub(super) fn on_subscription(&mut self) {
        if self.subscription {
            return;
        }
        self.subscription = true;
        self.cost_base = 0.0;
        if self.usage.cost_usd.take().is_some() {
            self.outbox.push(SessionEvent::Usage {
                usage: self.usage.clone(),
            });
        }
    }
}
