//! The reducer's small writers: the prompt queue (open, close, withdraw), notes, log
//! entries in the main or a subagent's log, and subagent views.

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, LogEntry, NoteCode};
use codiva_protocol::session::{Prompt, PromptResolution, Scope, SessionEvent, SubagentView};
use codiva_protocol::tool::PermissionMode;

use super::SessionState;
use crate::session_log::Log;

impl SessionState {
    pub(super) fn open_prompt(&mut self, prompt: Prompt) {
        if self
            .prompts
            .iter()
            .any(|p| p.request_id() == prompt.request_id())
        {
            return;
        }
        self.prompts.push_back(prompt.clone());
        self.outbox.push(SessionEvent::PromptOpened { prompt });
    }

    pub(super) fn close_prompt(&mut self, request_id: &str, resolution: PromptResolution) {
        let Some(index) = self
            .prompts
            .iter()
            .position(|p| p.request_id() == request_id)
        else {
            return;
        };
        let Some(prompt) = self.prompts.remove(index) else {
            return;
        };
        if resolution == PromptResolution::Denied
            && let Some(tool_use_id) = prompt.tool_use_id()
        {
            self.denied_tools.insert(tool_use_id.to_owned());
        }
        self.outbox.push(SessionEvent::PromptClosed {
            request_id: request_id.to_owned(),
            resolution,
        });
    }

    pub(super) fn withdraw_all_prompts(&mut self) {
        while let Some(prompt) = self.prompts.pop_front() {
            self.outbox.push(SessionEvent::PromptClosed {
                request_id: prompt.request_id().to_owned(),
                resolution: PromptResolution::Withdrawn,
            });
        }
    }

    pub(super) fn set_permission_mode(&mut self, mode: PermissionMode) {
        if self.permission_mode != Some(mode) {
            self.permission_mode = Some(mode);
            self.outbox.push(SessionEvent::PermissionMode { mode });
        }
    }

    pub(super) fn reset_stream(&mut self) {
        self.thinking_text.clear();
        if !self.stream_text.is_empty() {
            self.stream_text.clear();
            self.outbox.push(SessionEvent::Stream {
                text: String::new(),
                reset: true,
            });
        }
    }

    pub(super) fn note(&mut self, scope: Scope, level: NoteLevel, text: String) {
        self.push_entry(
            scope,
            EntryKind::Note {
                level,
                text,
                code: None,
            },
        );
    }

    /// A note of a known kind (front ends may word it in their language).
    pub(super) fn coded_note(
        &mut self,
        scope: Scope,
        level: NoteLevel,
        code: NoteCode,
        text: String,
    ) {
        self.push_entry(
            scope,
            EntryKind::Note {
                level,
                text,
                code: Some(code),
            },
        );
    }

    pub(super) fn log_mut(&mut self, scope: &Scope) -> &mut Log {
        match scope {
            Scope::Main => &mut self.log,
            Scope::Subagent(id) => self
                .subagents
                .entry(id.clone())
                .or_default()
                .log
                .get_or_insert_with(|| Log::with_budget(crate::session_log::LOG_BUDGET / 8)),
        }
    }

    pub(super) fn push_entry(&mut self, scope: Scope, kind: EntryKind) -> LogEntry {
        let now = self.now_ms;
        let log = self.log_mut(&scope);
        let entry = log.push(now, kind);
        let dropped = log.dropped();
        self.outbox.push(SessionEvent::Log {
            scope,
            entry: entry.clone(),
            update: false,
            dropped,
        });
        entry
    }

    pub(super) fn update_entry(
        &mut self,
        scope: &Scope,
        id: u64,
        change: impl FnOnce(&mut EntryKind),
    ) {
        let log = self.log_mut(scope);
        if let Some(entry) = log.update(id, change) {
            let dropped = log.dropped();
            self.outbox.push(SessionEvent::Log {
                scope: scope.clone(),
                entry,
                update: true,
                dropped,
            });
        }
    }

    pub(super) fn update_subagent(
        &mut self,
        tool_use_id: &str,
        change: impl FnOnce(&mut SubagentView),
    ) {
        let subagent = self.subagents.entry(tool_use_id.to_owned()).or_default();
        let view = subagent.view.get_or_insert_with(|| SubagentView {
            tool_use_id: tool_use_id.to_owned(),
            task_id: None,
            description: None,
            subagent_type: None,
            background: false,
            status: codiva_protocol::session::SubagentStatus::Starting,
            last_tool: None,
            tokens: 0,
            tool_uses: 0,
            elapsed_ms: 0,
            summary: None,
        });
        change(view);
        let view = view.clone();
        self.outbox.push(SessionEvent::Subagent { subagent: view });
    }
}
