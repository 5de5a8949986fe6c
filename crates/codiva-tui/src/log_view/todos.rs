//! The agent's TODO list in the log: the core sends the whole list on every change
//! (`SessionEvent::Todos`); the view draws it as a checklist under the card of the latest call
//! that changed it (see [`super::cards::todo_checklist`]), re-measuring only the blocks whose
//! look changed.

use codiva_protocol::log::EntryKind;
use codiva_protocol::session::TodoItem;

use super::LogView;
use super::cards;
use super::fold::Fold;

impl LogView {
    /// The agent's TODO list as it stands (empty: none).
    pub fn set_todos(&mut self, items: Vec<TodoItem>) {
        let anchor = self
            .entries
            .iter()
            .rev()
            .find_map(|stored| match &stored.entry.kind {
                EntryKind::Tool(tool) if cards::is_todo(tool) => Some(stored.entry.id),
                _ => None,
            });
        let before = self.look.todo_anchor;
        self.look.todos = items;
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
