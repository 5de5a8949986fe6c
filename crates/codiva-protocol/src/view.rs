//! What a client knows about a session, and about the manager's list of sessions: one pure
//! fold of the protocol's events, defined here once.
//!
//! A session's view is a [`SessionSnapshot`]: [`SessionSnapshot::initial`] is a session no
//! event has touched, and [`SessionSnapshot::apply`] takes one [`SessionEvent`]. The daemon's
//! own `session/snapshot` is this fold of the events it emitted (the core's tests check it for
//! every captured session and for generated ones), so a client that attaches late — a
//! `session/snapshot`, then the events after it — knows exactly what a client that watched from
//! the start knows. The list is a [`ManagerSnapshot`] and [`ManagerSnapshot::apply`] takes one
//! [`SequencedEvent`], reporting a gap instead of papering over it.
//!
//! `docs/serve-api.md` ("What a client knows") states these rules for clients written in other
//! languages, and `docs/conformance/` holds event streams with the view after each step.

use crate::agent::catalog_entry;
use crate::log::LogEntry;
use crate::manager::{ManagerEvent, ManagerSnapshot, SequencedEvent, SessionInfo};
use crate::session::{Scope, SessionEvent, SessionSnapshot, Status, TodoProgress, UsageView};
use crate::text::{Kept, MAX_MESSAGE_TEXT, cut, front_marked, tail_start};

impl SessionSnapshot {
    /// A session before its first event: starting, nothing known.
    pub fn initial() -> Self {
        SessionSnapshot {
            status: Status::Starting,
            detail: None,
            detail_code: None,
            connected: false,
            agent_session_id: None,
            model: None,
            model_entry: None,
            permission_mode: None,
            prompts: Vec::new(),
            todos: TodoProgress::default(),
            todo_items: Vec::new(),
            usage: UsageView::default(),
            subagents: Vec::new(),
            log: Vec::new(),
            dropped_entries: 0,
            streaming: String::new(),
            agent: None,
            seq: None,
        }
    }

    /// Takes one event of this session.
    pub fn apply(&mut self, event: &SessionEvent) {
        match event {
            SessionEvent::Status {
                status,
                detail,
                detail_code,
            } => {
                self.status = *status;
                self.detail = detail.clone();
                self.detail_code = detail_code.clone();
            }
            SessionEvent::Connected { agent } => {
                self.connected = true;
                if self.permission_mode.is_none() {
                    self.permission_mode = agent.permission_mode;
                }
                self.agent = Some(agent.clone());
                self.model_entry = self.current_entry();
            }
            SessionEvent::AgentSession { id } => self.agent_session_id = id.clone(),
            SessionEvent::Model { model } => {
                self.model = model.clone();
                self.model_entry = self.current_entry();
            }
            SessionEvent::PermissionMode { mode } => self.permission_mode = Some(*mode),
            SessionEvent::Log {
                scope: Scope::Main,
                entry,
                update,
                dropped,
            } => {
                apply_entry(&mut self.log, entry, *update);
                // Entries the daemon dropped to stay within its budget go here too, oldest
                // first (the event says how many are gone in all).
                let gone = dropped.saturating_sub(self.dropped_entries);
                let gone = usize::try_from(gone)
                    .unwrap_or(usize::MAX)
                    .min(self.log.len());
                self.log.drain(..gone);
                self.dropped_entries = self.dropped_entries.max(*dropped);
            }
            // A subagent's log is read on its own (`session/read` with its scope).
            SessionEvent::Log { .. } => {}
            SessionEvent::Stream { text, reset } => {
                if *reset {
                    self.streaming.clear();
                }
                push_stream(&mut self.streaming, text);
            }
            SessionEvent::PromptOpened { prompt } => {
                if !self
                    .prompts
                    .iter()
                    .any(|p| p.request_id() == prompt.request_id())
                {
                    self.prompts.push(prompt.clone());
                }
            }
            SessionEvent::PromptClosed { request_id, .. } => {
                self.prompts.retain(|p| p.request_id() != request_id);
            }
            SessionEvent::Todos { progress, items } => {
                self.todos = *progress;
                self.todo_items = items.clone();
            }
            SessionEvent::Usage { usage } => self.usage = usage.clone(),
            SessionEvent::Subagent { subagent } => {
                match self
                    .subagents
                    .binary_search_by(|s| s.tool_use_id.cmp(&subagent.tool_use_id))
                {
                    Ok(at) => self.subagents[at] = subagent.clone(),
                    Err(at) => self.subagents.insert(at, subagent.clone()),
                }
            }
            SessionEvent::AgentExited { .. } => self.connected = false,
            SessionEvent::AgentSwitched { .. } => {
                self.connected = false;
                self.agent = None;
                self.model = None;
                self.model_entry = None;
                self.permission_mode = None;
            }
            SessionEvent::McpServers { .. }
            | SessionEvent::Warning { .. }
            | SessionEvent::PlanUsage { .. } => {}
        }
    }

    /// The fold of `events` over [`SessionSnapshot::initial`].
    pub fn folded<'a>(events: impl IntoIterator<Item = &'a SessionEvent>) -> Self {
        let mut view = SessionSnapshot::initial();
        for event in events {
            view.apply(event);
        }
        view
    }

    /// The catalog entry `model` is, against the agent's reported models.
    fn current_entry(&self) -> Option<String> {
        let model = self.model.as_deref()?;
        let agent = self.agent.as_ref()?;
        catalog_entry(model, agent.models.iter().map(|m| m.id.as_str())).map(str::to_owned)
    }
}

/// A new entry goes at the end; an update replaces the entry of its id (one already dropped,
/// or never seen, is left out).
fn apply_entry(log: &mut Vec<LogEntry>, entry: &LogEntry, update: bool) {
    if update {
        if let Ok(at) = log.binary_search_by(|e| e.id.cmp(&entry.id)) {
            log[at] = entry.clone();
        }
    } else if log.last().is_none_or(|last| last.id < entry.id) {
        log.push(entry.clone());
    }
}

/// Appends a streamed delta to the text of the message being written, keeping at most
/// [`MAX_MESSAGE_TEXT`]: past it, the text keeps its end (half the cap) after a
/// `[N more bytes] …` line, as the log keeps a long message once it completes.
pub fn push_stream(stream: &mut String, delta: &str) {
    if stream.len() + delta.len() <= MAX_MESSAGE_TEXT {
        stream.push_str(delta);
        return;
    }
    let (hidden, mut kept) = match cut(stream) {
        Some(cut) if cut.end == Kept::Tail => (cut.cut, cut.kept.to_owned()),
        _ => (0, std::mem::take(stream)),
    };
    kept.push_str(delta);
    let at = tail_start(&kept, MAX_MESSAGE_TEXT / 2);
    *stream = front_marked(hidden + at, &kept[at..]);
}

/// What [`ManagerSnapshot::apply`] made of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    Applied,
    /// Its `seq` was already applied (or is in the snapshot): nothing changed.
    Duplicate,
    /// Events were missed before it: nothing changed; take a new `manager/snapshot`.
    Gap,
}

impl ManagerSnapshot {
    /// Takes one of the manager's events, in `seq` order.
    ///
    /// The rows are kept in the order of their ids. A row's `active_ms` is the time as of the
    /// event that carried the row: while its status is `running`, a client adds the time since
    /// it received it (a `manager/snapshot` gives the time as of its answer).
    pub fn apply(&mut self, event: &SequencedEvent) -> Applied {
        if event.seq <= self.seq {
            return Applied::Duplicate;
        }
        if event.seq != self.seq + 1 {
            return Applied::Gap;
        }
        self.seq = event.seq;
        match &event.event {
            ManagerEvent::Session { session } => self.upsert(session),
            ManagerEvent::Removed { id } => self.sessions.retain(|s| s.id != *id),
            ManagerEvent::PrStatus { id, prs } => {
                if let Some(row) = self.row(id) {
                    row.prs = prs.clone();
                }
            }
            ManagerEvent::Resources { sessions } => {
                for sample in sessions {
                    if let Some(row) = self.row(&sample.id) {
                        row.resources = sample.resources;
                    }
                }
            }
            ManagerEvent::Group { group, .. } => {
                match self.groups.binary_search_by(|g| g.id.cmp(&group.id)) {
                    Ok(at) => self.groups[at] = group.clone(),
                    Err(at) => self.groups.insert(at, group.clone()),
                }
            }
            ManagerEvent::GroupRemoved { id } => self.groups.retain(|g| g.id != *id),
            // What happens inside a session is in its own view; a change to its row comes as
            // a `Session` event of its own.
            ManagerEvent::Event { .. }
            | ManagerEvent::Warning { .. }
            | ManagerEvent::Base { .. }
            | ManagerEvent::Login { .. } => {}
        }
        Applied::Applied
    }

    fn upsert(&mut self, session: &SessionInfo) {
        match self.sessions.binary_search_by(|s| s.id.cmp(&session.id)) {
            Ok(at) => self.sessions[at] = session.clone(),
            Err(at) => self.sessions.insert(at, session.clone()),
        }
    }

    fn row(&mut self, id: &str) -> Option<&mut SessionInfo> {
        self.sessions.iter_mut().find(|s| s.id == id)
    }
}
