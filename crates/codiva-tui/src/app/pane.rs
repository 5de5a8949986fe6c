//! One session's detail state: its log view, the prompts waiting for the user, and the dialog
//! of the oldest one.
//!
//! What the pane knows of its session is the protocol's fold (`codiva_protocol::view`):
//! [`Pane::restore`] takes a `session/snapshot` as the view (on attach, after a resync, after a
//! daemon restart) and [`Pane::apply`] folds the live events into it, so a client that attached
//! late shows what one that watched from the start shows. A snapshot says its place in the
//! manager's stream (`seq`): the events that arrive while it is asked for are kept, and exactly
//! those after its place are folded again over it; one it holds that is read after it is not
//! applied again. (A snapshot from a server that says no place may hold any of the kept events:
//! those harmless twice — prompts by `request_id`, the rest replaces — go over it again.) The log and
//! the streamed text are drawn by the [`LogView`], which is fed the same events and reads the
//! log on its own (`session/read`); the view keeps neither, so they are held once.

use codiva_protocol::agent::AgentInfo;
use codiva_protocol::log::LogEntry;
use codiva_protocol::log::NoteCode;
use codiva_protocol::session::{
    Prompt, Scope, SessionEvent, SessionSnapshot, SubagentView, TodoItem, UsageView,
};

use super::Effect;
use crate::log_view::LogView;
use crate::permission_dialog::PermissionDialog;
use crate::question_dialog::QuestionDialog;

pub enum Dialog {
    Permission(PermissionDialog),
    Question(QuestionDialog),
}

impl Dialog {
    /// Esc inside the dialog: one level back (the scope menu to the choices, a question to the
    /// one before); `false` when it is at its top level.
    pub fn step_back(&mut self) -> bool {
        match self {
            Dialog::Permission(dialog) => dialog.step_back(),
            Dialog::Question(dialog) => dialog.step_back(),
        }
    }

    /// Where Esc leads inside the dialog, for the footer; `None` at its top level.
    pub fn back_hint(&self) -> Option<crate::i18n::AppText> {
        match self {
            Dialog::Permission(dialog) => dialog.back_hint(),
            Dialog::Question(dialog) => dialog.back_hint(),
        }
    }
}

pub struct Pane {
    pub log: LogView,
    /// The session as the fold of its events says it (without its log and streamed text).
    view: SessionSnapshot,
    dialog: Option<(String, Dialog)>,
    /// The log was asked for (`session/read`); events before the answer are kept.
    pub requested: bool,
    loaded: bool,
    early: Vec<(LogEntry, bool)>,
    /// A TODO list came by event (newer than the one read with the log).
    todos_seen: bool,
    /// A search in the log (`/`).
    pub search: Option<crate::search::Search>,
    /// When the oldest waiting prompt arrived (an app-wide sequence number), for the inbox.
    pub waiting_since: Option<u64>,
    /// The worktree's uncommitted files, once looked up (`app/repair.rs`).
    pub uncommitted: Option<Vec<String>>,
    /// A `session/snapshot` was asked for: the events that came since (with their `seq` in the
    /// manager's stream, when known), applied again over it.
    awaiting_snapshot: Option<Vec<(Option<u64>, SessionEvent)>>,
}

impl Default for Pane {
    fn default() -> Self {
        Pane {
            log: LogView::default(),
            view: SessionSnapshot::initial(),
            dialog: None,
            requested: false,
            loaded: false,
            early: Vec::new(),
            todos_seen: false,
            search: None,
            waiting_since: None,
            uncommitted: None,
            awaiting_snapshot: None,
        }
    }
}

/// Whether the snapshot holds what `event` says (it is applied again over a snapshot that may
/// be older than it); the log and the streamed text are read on their own (`session/read`).
fn in_snapshot(event: &SessionEvent) -> bool {
    matches!(
        event,
        SessionEvent::PromptOpened { .. }
            | SessionEvent::PromptClosed { .. }
            | SessionEvent::Connected { .. }
            | SessionEvent::Usage { .. }
            | SessionEvent::Todos { .. }
            | SessionEvent::PermissionMode { .. }
            | SessionEvent::Subagent { .. }
            | SessionEvent::Status { .. }
    )
}

/// The status line's retry note ("retrying in 4s"), only while the agent retries.
fn retry_text(detail: Option<&str>, detail_code: Option<&NoteCode>) -> Option<String> {
    let retrying =
        detail_code.is_some_and(|code| code.name == codiva_protocol::log::NoteName::Retrying);
    crate::i18n::status_detail(detail, detail_code).filter(|_| retrying)
}

impl Pane {
    /// Applies one session event (the run mode's permissions are allowed by the manager:
    /// they never get here).
    /// `at`: the event's `seq` in the manager's stream, when known.
    pub fn apply(&mut self, event: SessionEvent, seq: u64, at: Option<u64>) -> Vec<Effect> {
        // The snapshot the view stands on holds it (an event read after the snapshot's answer).
        if self.awaiting_snapshot.is_none()
            && let (Some(at), Some(place)) = (at, self.view.seq)
            && at <= place
        {
            return Vec::new();
        }
        if let Some(later) = &mut self.awaiting_snapshot
            && (at.is_some() || in_snapshot(&event))
        {
            later.push((at, event.clone()));
        }
        if !matches!(
            event,
            SessionEvent::Log {
                scope: Scope::Main,
                ..
            } | SessionEvent::Stream { .. }
        ) {
            self.log.drop_retired_stream();
        }
        let was_waiting = !self.view.prompts.is_empty();
        if !matches!(
            event,
            SessionEvent::Log { .. } | SessionEvent::Stream { .. }
        ) {
            self.view.apply(&event);
        }
        match event {
            SessionEvent::Log {
                scope: Scope::Main,
                entry,
                update,
                ..
            } => {
                if self.loaded || !self.requested {
                    self.log.apply(entry, update);
                } else {
                    self.early.push((entry, update));
                }
            }
            SessionEvent::Log {
                scope: Scope::Subagent(tool_use_id),
                entry,
                update,
                ..
            } => self.log.apply_subagent_entry(&tool_use_id, entry, update),
            SessionEvent::Subagent { subagent } => self.log.set_subagent(subagent),
            SessionEvent::Status {
                detail,
                detail_code,
                ..
            } => self
                .log
                .set_retry(retry_text(detail.as_deref(), detail_code.as_ref())),
            SessionEvent::Stream { text, reset } => {
                if reset {
                    self.log.reset_stream();
                } else {
                    self.log.push_stream(&text);
                }
            }
            SessionEvent::PromptOpened { .. } if !was_waiting && !self.view.prompts.is_empty() => {
                self.waiting_since = Some(seq);
            }
            SessionEvent::PromptClosed { request_id, .. } => {
                if self.view.prompts.is_empty() {
                    self.waiting_since = None;
                } else if was_waiting {
                    // The next prompt of this session waits from now on.
                    self.waiting_since = Some(seq);
                }
                if self
                    .dialog
                    .as_ref()
                    .is_some_and(|(open, _)| *open == request_id)
                {
                    self.dialog = None;
                }
            }
            SessionEvent::Todos { items, .. } => {
                self.todos_seen = true;
                self.log.set_todos(items);
            }
            _ => {}
        }
        Vec::new()
    }

    /// A `session/snapshot` is asked for: events from now on are kept for [`Pane::restore`].
    pub fn await_snapshot(&mut self) {
        self.awaiting_snapshot.get_or_insert_with(Vec::new);
        // The next snapshot places the view again (a new connection's `seq`s start over).
        self.view.seq = None;
    }

    /// After a resync the log read before may miss entries: `true` when it is to be read again
    /// now (the view is open; events until the answer are kept, as at the first read), else it
    /// is read again when the view next opens. A read still on its way is left to finish.
    pub fn read_again(&mut self, open: bool) -> bool {
        if !self.requested || !self.loaded {
            return false;
        }
        self.requested = open;
        self.loaded = false;
        self.early.clear();
        open
    }

    /// Whether a `session/snapshot` was asked for and has not arrived.
    pub fn awaits_snapshot(&self) -> bool {
        self.awaiting_snapshot.is_some()
    }

    /// The snapshot could not be had: nothing to apply the kept events over.
    pub fn snapshot_failed(&mut self) {
        self.awaiting_snapshot = None;
    }

    /// The session's state as `session/snapshot` gave it (`seq`: the app's count of events,
    /// for the inbox), then the events that came since it was asked for. The log is read on
    /// its own (`session/read`, when the view opens).
    pub fn restore(&mut self, snapshot: SessionSnapshot, seq: u64) {
        let later = self.awaiting_snapshot.take().unwrap_or_default();
        let mut snapshot = snapshot;
        let streaming = std::mem::take(&mut snapshot.streaming);
        snapshot.log = Vec::new();
        self.view = snapshot;
        self.waiting_since = if self.view.prompts.is_empty() {
            None
        } else {
            self.waiting_since.or(Some(seq))
        };
        if self.dialog.as_ref().is_some_and(|(open, _)| {
            !self
                .view
                .prompts
                .iter()
                .any(|p| p.request_id() == open.as_str())
        }) {
            self.dialog = None;
        }
        self.log.set_retry(retry_text(
            self.view.detail.as_deref(),
            self.view.detail_code.as_ref(),
        ));
        for view in &self.view.subagents {
            self.log.set_subagent(view.clone());
        }
        self.todos_seen = true;
        self.log.set_todos(self.view.todo_items.clone());
        // The message being written as the snapshot has it; deltas after it follow (below).
        // A snapshot that does not say its place may hold some of the deltas that came while
        // it was asked for, or not: its text stands until the message's entry replaces it.
        self.log.set_streaming(&streaming);
        // A snapshot that says its place in the stream holds exactly the events up to it:
        // every later one, streamed text included, goes over it. One that does not may hold
        // any of them: those that are harmless twice go over it again.
        let place = self.view.seq;
        for (at, event) in later {
            let again = match (place, at) {
                (Some(place), Some(at)) => at > place,
                _ => in_snapshot(&event),
            };
            if again {
                self.apply(event, seq, at);
            }
        }
    }

    /// The session's log arrived (`session/read`); entries seen meanwhile are applied after it.
    /// The log as read when the session's view first opened, with the TODO list of the same
    /// moment (a list that came by event since is newer and stays).
    pub fn load(
        &mut self,
        entries: Vec<LogEntry>,
        subagents: Vec<(SubagentView, Vec<LogEntry>)>,
        todos: Vec<TodoItem>,
    ) {
        for (view, entries) in subagents {
            let id = view.tool_use_id.clone();
            self.log.set_subagent(view);
            self.log.set_subagent_entries(&id, entries);
        }
        let last = entries.last().map(|e| e.id);
        self.log.set_entries(entries);
        for (entry, update) in std::mem::take(&mut self.early) {
            if update || last.is_none_or(|last| entry.id > last) {
                self.log.apply(entry, update);
            }
        }
        // Drawn under the latest TODO call of the log just loaded.
        let todos = if self.todos_seen {
            self.log.todos().to_vec()
        } else {
            todos
        };
        self.log.set_todos(todos);
        self.loaded = true;
    }

    pub fn has_dialog(&self) -> bool {
        !self.view.prompts.is_empty()
    }

    /// The prompts waiting for the user, oldest first.
    pub fn prompts(&self) -> &[Prompt] {
        &self.view.prompts
    }

    /// What the agent said of itself when it connected.
    pub fn agent(&self) -> Option<&AgentInfo> {
        self.view.agent.as_ref()
    }

    /// The session's usage, once the agent reported any (all zeros reads as none).
    pub fn usage(&self) -> Option<&UsageView> {
        Some(&self.view.usage).filter(|usage| **usage != UsageView::default())
    }

    pub fn permission_mode(&self) -> Option<codiva_protocol::tool::PermissionMode> {
        self.view.permission_mode
    }

    /// The dialog of the oldest waiting prompt (made when first needed; it keeps partial
    /// answers while the user looks elsewhere).
    /// The dialog as last built, while its prompt is still the oldest (no building here).
    pub fn built_dialog(&self) -> Option<&Dialog> {
        let prompt = self.view.prompts.first()?;
        self.dialog
            .as_ref()
            .filter(|(id, _)| id == prompt.request_id())
            .map(|(_, dialog)| dialog)
    }

    pub fn dialog(&mut self) -> Option<&mut Dialog> {
        let prompt = self.view.prompts.first()?;
        let stale = self
            .dialog
            .as_ref()
            .is_none_or(|(id, _)| id != prompt.request_id());
        if stale {
            let dialog = match prompt {
                Prompt::Permission(request) => Dialog::Permission(PermissionDialog::new(request)),
                Prompt::Question(request) => Dialog::Question(QuestionDialog::new(request)),
            };
            self.dialog = Some((prompt.request_id().to_owned(), dialog));
        }
        self.dialog.as_mut().map(|(_, dialog)| dialog)
    }
}
