//! The agent's TODO list in the log: the core sends the whole list on every change
//! (`SessionEvent::Todos`); the view draws it as a checklist under the card of the latest call
//! that changed it (see [`super::cards::todo_checklist`]), re-measuring only the blocks whose
//! look changed.

use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::TodoItem;

use super::LogView;
use super::cards;
use super::fold::Fold;

impl LogView {
    /// The agent's TODO list as it stands (empty: none), drawn under the latest call that
    /// changed it: the latest TODO call that succeeded, as the log stands — one still running
    /// has changed nothing yet. A function of the log, so a UI that attached late draws it where
    /// one that watched does.
    pub fn set_todos(&mut self, items: Vec<TodoItem>) {
        let anchor = self
            .entries
            .iter()
            .rev()
            .find(|stored| changed_todos(&stored.entry.kind))
            .map(|stored| stored.entry.id);
        self.look.todos = items;
        self.move_todo_anchor(anchor);
    }

    /// `entry` came or changed: a TODO call that now succeeded, after the anchor, takes the list.
    pub(super) fn follow_todo_call(&mut self, id: u64, kind: &EntryKind) {
        if changed_todos(kind) && self.look.todo_anchor.is_none_or(|anchor| id > anchor) {
            self.move_todo_anchor(Some(id));
        }
    }

    fn move_todo_anchor(&mut self, anchor: Option<u64>) {
        let before = self.look.todo_anchor;
        self.look.todo_anchor = anchor;
        for id in [before, anchor].into_iter().flatten() {
            self.touch_with_head(id);
        }
    }

    /// The TODO list the view draws.
    pub fn todos(&self) -> &[TodoItem] {
        &self.look.todos
    }

    /// Redraws entry `id` and the "N tools" line of the fold it is in.
    fn touch_with_head(&mut self, id: u64) {
        let Ok(index) = self.position(id) else {
            return;
        };
        self.touch(index);
        if let Fold::Member { head, .. } = self.entries[index].fold
            && let Ok(head) = self.position(head)
        {
            self.touch(head);
        }
    }
}

fn changed_todos(kind: &EntryKind) -> bool {
    matches!(kind, EntryKind::Tool(tool) if cards::is_todo(tool) && tool.status == ToolStatus::Succeeded)
}
