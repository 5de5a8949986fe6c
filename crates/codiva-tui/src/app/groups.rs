//! Groups of attempts in the list: the groups the manager reports (`manager/snapshot`'s
//! `groups`, `group/updated`, `group/removed`), which of them the user collapsed, and the list's
//! rows — a group's parent row (its instruction, how many of its attempts run, wait or are
//! done, its elapsed time) at the place of its first attempt, its attempts under it unless it
//! is collapsed. A group whose attempt was kept is a group no more: its sessions are listed as
//! any others.

use std::collections::HashSet;

use codiva_protocol::group::GroupInfo;
use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::session::Status;

use super::activity::Activity;

/// One row of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListRow {
    /// The session at this index of the app's sessions.
    Session(usize),
    /// The parent row of the group with this id.
    Group(String),
}

/// The groups the manager reports, and the ones collapsed in this UI.
#[derive(Debug, Clone, Default)]
pub struct Groups {
    list: Vec<GroupInfo>,
    collapsed: HashSet<String>,
}

impl Groups {
    /// A group was created or changed (`group/updated`): kept by id.
    pub fn upsert(&mut self, group: GroupInfo) {
        match self.list.iter_mut().find(|g| g.id == group.id) {
            Some(existing) => *existing = group,
            None => self.list.push(group),
        }
    }

    /// `group/removed`.
    pub fn remove(&mut self, id: &str) {
        self.list.retain(|g| g.id != id);
        self.collapsed.remove(id);
    }

    /// Every group as the manager has them now (at start, and after a resync); the collapsed
    /// ones that still exist stay collapsed.
    pub fn replace(&mut self, groups: Vec<GroupInfo>) {
        self.list = groups;
        let ids: HashSet<&str> = self.list.iter().map(|g| g.id.as_str()).collect();
        self.collapsed.retain(|id| ids.contains(id.as_str()));
    }

    pub fn get(&self, id: &str) -> Option<&GroupInfo> {
        self.list.iter().find(|g| g.id == id)
    }

    /// The group `session` is drawn under: its group, while that one is known and no attempt of
    /// it was kept.
    pub fn of<'a>(&'a self, session: &SessionInfo) -> Option<&'a GroupInfo> {
        let id = session.group.as_deref()?;
        self.get(id).filter(|g| g.kept.is_none())
    }

    pub fn is_collapsed(&self, id: &str) -> bool {
        self.collapsed.contains(id)
    }

    /// Collapses an expanded group, expands a collapsed one.
    pub fn toggle(&mut self, id: &str) {
        if !self.collapsed.remove(id) {
            self.collapsed.insert(id.to_owned());
        }
    }

    pub fn expand(&mut self, id: &str) {
        self.collapsed.remove(id);
    }

    pub fn collapse(&mut self, id: &str) {
        self.collapsed.insert(id.to_owned());
    }

    /// The list's rows over `sessions` (in their order): each group's parent row where its
    /// first attempt would be, then its attempts (in the group's order) unless it is
    /// collapsed. `shows(index)`: the sessions the filter keeps; a group is listed while one of
    /// its attempts is.
    pub fn rows(&self, sessions: &[SessionInfo], shows: impl Fn(usize) -> bool) -> Vec<ListRow> {
        let mut rows = Vec::with_capacity(sessions.len() + self.list.len());
        let mut placed: HashSet<&str> = HashSet::new();
        for (index, session) in sessions.iter().enumerate() {
            let Some(group) = self.of(session) else {
                if shows(index) {
                    rows.push(ListRow::Session(index));
                }
                continue;
            };
            if !placed.insert(group.id.as_str()) {
                continue;
            }
            let members: Vec<usize> = members(group, sessions)
                .into_iter()
                .filter(|index| shows(*index))
                .collect();
            if members.is_empty() {
                continue;
            }
            rows.push(ListRow::Group(group.id.clone()));
            if !self.is_collapsed(&group.id) {
                rows.extend(members.into_iter().map(ListRow::Session));
            }
        }
        rows
    }
}

/// The indices of `group`'s attempts in `sessions`, in the group's order (attempts not listed
/// are left out, sessions that name the group but are not among its attempts come last).
pub fn members(group: &GroupInfo, sessions: &[SessionInfo]) -> Vec<usize> {
    let mut indices: Vec<usize> = group
        .attempts
        .iter()
        .filter_map(|attempt| sessions.iter().position(|s| s.id == attempt.session_id))
        .collect();
    for (index, session) in sessions.iter().enumerate() {
        if session.group.as_deref() == Some(group.id.as_str()) && !indices.contains(&index) {
            indices.push(index);
        }
    }
    indices
}

/// How many of a group's attempts run, wait for the user, or are done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Being prepared, starting, running or queued.
    pub running: usize,
    /// Waiting for the user: a permission, a question, a login, a conflict.
    pub waiting: usize,
    /// Ended — completed, interrupted, rate-limited or failed (the row says which) — merged or
    /// discarded.
    pub done: usize,
}

impl Counts {
    pub fn of<'a>(sessions: impl IntoIterator<Item = &'a SessionInfo>) -> Counts {
        let mut counts = Counts::default();
        for session in sessions {
            match state(session) {
                State::Running => counts.running += 1,
                State::Waiting => counts.waiting += 1,
                State::Done => counts.done += 1,
            }
        }
        counts
    }
}

enum State {
    Running,
    Waiting,
    Done,
}

fn state(session: &SessionInfo) -> State {
    match &session.phase {
        SessionPhase::Preparing => State::Running,
        SessionPhase::Conflict { .. } => State::Waiting,
        SessionPhase::Merged { .. } | SessionPhase::Discarded => State::Done,
        SessionPhase::Active => match session.status {
            Status::Starting | Status::Running | Status::Queued => State::Running,
            Status::AwaitingPermission | Status::AwaitingAnswer | Status::NeedsLogin => {
                State::Waiting
            }
            Status::Completed | Status::Interrupted | Status::RateLimited | Status::Failed => {
                State::Done
            }
        },
    }
}

/// A group's elapsed time: its attempts run side by side, so the longest of theirs.
pub fn elapsed_ms<'a>(
    activity: Activity<'_>,
    sessions: impl IntoIterator<Item = &'a SessionInfo>,
) -> u64 {
    sessions
        .into_iter()
        .map(|s| activity.elapsed_ms(s))
        .max()
        .unwrap_or(0)
}

/// What the attempt was started with (`claude`, `claude:opus`), from its group; else its
/// agent. Sanitised: another client may have named anything.
pub fn attempt_label(group: Option<&GroupInfo>, session: &SessionInfo) -> String {
    let label = group
        .and_then(|g| g.attempts.iter().find(|a| a.session_id == session.id))
        .map_or_else(|| session.agent.clone(), |a| a.spec.to_string());
    codiva_protocol::text::sanitize_title(&label).unwrap_or_default()
}

impl super::App {
    /// The rows the list shows, in order (every session and group without a filter).
    pub(super) fn visible_rows(&self) -> Vec<ListRow> {
        let query = self.filter.as_ref().map_or("", |f| f.query.as_str());
        let sessions = &self.sessions;
        self.groups.rows(sessions, |index| {
            sessions
                .get(index)
                .is_some_and(|s| super::filter::matches(s, query))
        })
    }

    /// The row the selection is on.
    pub(super) fn selected_row(&self) -> ListRow {
        match &self.selected_group {
            Some(id) => ListRow::Group(id.clone()),
            None => ListRow::Session(self.selected),
        }
    }

    /// Puts the selection on `row` (a group's parent row, or a session's).
    pub(super) fn select_row(&mut self, row: &ListRow) {
        match row {
            ListRow::Session(index) => {
                self.selected = *index;
                self.selected_group = None;
            }
            ListRow::Group(id) => {
                self.selected_group = Some(id.clone());
                if let Some(first) = self
                    .groups
                    .get(id)
                    .and_then(|g| members(g, &self.sessions).first().copied())
                {
                    self.selected = first;
                }
            }
        }
    }

    /// Every group as the manager has them now (at start and after a resync).
    pub fn take_groups(&mut self, groups: Vec<GroupInfo>) {
        self.groups.replace(groups);
        self.keep_selection_shown();
    }

    /// The selection is on a row the list shows: a session hidden in a collapsed group puts it
    /// on the group's row; a group that is listed no more puts it on its first session.
    pub(super) fn keep_selection_shown(&mut self) {
        if let Some(id) = &self.selected_group
            && self.groups.get(id).is_none_or(|g| g.kept.is_some())
        {
            self.selected_group = None;
        }
        if self.selected_group.is_some() {
            return;
        }
        let hidden = self
            .sessions
            .get(self.selected)
            .and_then(|s| self.groups.of(s))
            .filter(|g| self.groups.is_collapsed(&g.id))
            .map(|g| g.id.clone());
        if let Some(id) = hidden {
            self.selected_group = Some(id);
        }
    }

    /// The session `id` is shown: its group, when collapsed, opens (the inbox goes to it).
    pub(super) fn reveal(&mut self, id: &str) {
        let group = self
            .sessions
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| self.groups.of(s))
            .map(|g| g.id.clone());
        if let Some(group) = group {
            self.groups.expand(&group);
        }
    }

    /// The group the selection is in: its parent row, or one of its attempts.
    pub(super) fn selected_group_id(&self) -> Option<String> {
        if let Some(id) = &self.selected_group {
            return Some(id.clone());
        }
        let session = match &self.view {
            super::View::List => self.sessions.get(self.selected),
            super::View::Detail(id) => self.sessions.iter().find(|s| s.id == *id),
        }?;
        session
            .group
            .clone()
            .filter(|id| self.groups.get(id).is_some())
    }

    /// The list's selection is on a group's row.
    pub(super) fn on_group_row(&self) -> bool {
        self.selected_group.is_some()
    }

    /// A key on a group's row: Enter collapses or expands it, ← collapses, → expands.
    pub(super) fn group_row_key(&mut self, code: crossterm::event::KeyCode) {
        use crossterm::event::KeyCode;
        let Some(id) = self.selected_group.clone() else {
            return;
        };
        let open = match code {
            KeyCode::Left => Some(false),
            KeyCode::Right => Some(true),
            _ => None,
        };
        self.toggle_group(&id, open);
    }

    /// ← on an attempt: the selection goes to its group's row (`false`: not an attempt).
    pub(super) fn select_group_row(&mut self) -> bool {
        let group = self
            .sessions
            .get(self.selected)
            .and_then(|s| self.groups.of(s))
            .map(|g| g.id.clone());
        match group {
            Some(id) => {
                self.select_row(&ListRow::Group(id));
                true
            }
            None => false,
        }
    }

    /// Enter or a click on a group's row, ←/→ on it: the group collapses or expands.
    pub(super) fn toggle_group(&mut self, id: &str, open: Option<bool>) {
        match open {
            Some(true) => self.groups.expand(id),
            Some(false) => self.groups.collapse(id),
            None => self.groups.toggle(id),
        }
    }
}
