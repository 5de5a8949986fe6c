//! A session as a reader sees it (a page of its log, a snapshot) and as it comes back from
//! disk (`RestoredSession`, rebuilt from the agent's transcript).

use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_protocol::session::{Scope, SessionSnapshot, SubagentView};
use codiva_protocol::tool::PermissionMode;

use super::SessionState;
use crate::agent_event::TurnOutcome;
use crate::session_log::LogPage;

/// What a session brought back from disk starts with: its log (rebuilt from the agent's
/// transcript), how its last turn ended, and the agent session to resume. No process runs
/// until the next message.
#[derive(Debug, Clone, Default)]
pub struct RestoredSession {
    pub main: Vec<EntryKind>,
    /// Subagent logs by the tool-use id of their `Agent` call.
    pub subagents: Vec<(String, Vec<EntryKind>)>,
    pub outcome: Option<TurnOutcome>,
    pub detail: Option<String>,
    pub agent_session_id: Option<String>,
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    pub cost_usd: Option<f64>,
    /// The agent's TODO list as its records leave it.
    pub todos: Vec<super::TodoItem>,
}

impl SessionState {
    /// A page of the main log or of a subagent's log.
    pub fn read_log(&self, scope: &Scope, after: Option<u64>, limit: usize) -> LogPage {
        let log = match scope {
            Scope::Main => Some(&self.log),
            Scope::Subagent(id) => self.subagent_log(id),
        };
        let Some(log) = log else {
            return LogPage::default();
        };
        let limit = limit.max(1);
        let mut entries: Vec<LogEntry> = log
            .entries()
            .filter(|entry| after.is_none_or(|after| entry.id > after))
            .take(limit + 1)
            .cloned()
            .collect();
        let more = entries.len() > limit;
        entries.truncate(limit);
        LogPage {
            next_after: if more {
                entries.last().map(|e| e.id)
            } else {
                None
            },
            entries,
            dropped: log.dropped(),
        }
    }

    pub fn restored(restored: RestoredSession) -> Self {
        let mut state = SessionState::new();
        for kind in restored.main {
            state.log.push(0, kind);
        }
        for (tool_use_id, entries) in restored.subagents {
            let scope = Scope::Subagent(tool_use_id);
            for kind in entries {
                state.log_mut(&scope).push(0, kind);
            }
        }
        state.agent_session_id = restored.agent_session_id;
        state.model = restored.model;
        state.permission_mode = restored.permission_mode;
        state.todos = restored.todos;
        state.usage.cost_usd = restored.cost_usd;
        state.last_outcome = restored.outcome;
        state.exit_note = restored.detail;
        let (status, detail) = state.derive_status();
        state.status = status;
        state.detail = detail;
        state
    }
}

impl SessionState {
    pub fn snapshot(&self) -> SessionSnapshot {
        let mut subagents: Vec<SubagentView> = self.subagents().cloned().collect();
        subagents.sort_by(|a, b| a.tool_use_id.cmp(&b.tool_use_id));
        SessionSnapshot {
            status: self.status,
            detail: self.detail.clone(),
            detail_code: self.detail_code(),
            connected: self.connected,
            agent_session_id: self.agent_session_id.clone(),
            model: self.model.clone(),
            model_entry: self.model.as_deref().and_then(|model| {
                let agent = self.agent.as_ref()?;
                codiva_protocol::agent::catalog_entry(
                    model,
                    agent.models.iter().map(|m| m.id.as_str()),
                )
                .map(str::to_owned)
            }),
            permission_mode: self.permission_mode,
            prompts: self.prompts.iter().cloned().collect(),
            todos: self.todo_progress(),
            todo_items: self.todos.clone(),
            usage: self.usage.clone(),
            subagents,
            log: self.log.entries().cloned().collect(),
            dropped_entries: self.log.dropped(),
            streaming: self.stream_text.clone(),
            agent: self.agent.clone(),
            seq: None,
        }
    }
}
