//! Search in the session log (`/` with the log's keys, then `n`/`N`): rows are matched as they
//! are drawn at the current width ([`crate::search::matches`]), entry by entry from the top row
//! shown, so a search costs the entries it passes, not the whole log; the row found becomes the
//! top row. The streaming reply is not searched (it becomes an entry when it completes).

use super::{LogView, entry_block, line_text};
use crate::search::{Found, matches, spans_break};

impl LogView {
    /// The row that matches `query` after the `current` match (`forward`) or before it, or
    /// from the top row shown without one; wraps around the ends once. The view scrolls so
    /// that the row is at its top (as far as the log goes).
    pub fn find_text(
        &mut self,
        query: &str,
        forward: bool,
        current: Option<usize>,
    ) -> Option<Found> {
        let rows = self.index.total();
        if self.index_width == 0 || rows == 0 || query.is_empty() {
            return None;
        }
        let top = self.viewport(usize::from(self.height)).top.min(rows - 1);
        let (from, went_round) = crate::search::start(rows, top, current, forward);
        let (start, _) = self.index.find(from);
        let count = self.entries.len();
        let order: Vec<(usize, bool)> = if forward {
            (start..count)
                .map(|i| (i, false))
                .chain((0..=start.min(count - 1)).map(|i| (i, true)))
                .collect()
        } else {
            (0..=start.min(count - 1))
                .rev()
                .map(|i| (i, false))
                .chain((start..count).rev().map(|i| (i, true)))
                .collect()
        };
        for (index, wrapped) in order {
            if self.index.height(index) == 0 {
                continue;
            }
            let first = self.index.prefix(index);
            let texts = self.row_texts(index);
            let in_pass = |row: usize| match (forward, wrapped) {
                (true, false) => row >= from,
                (true, true) => row < from,
                (false, false) => row <= from,
                (false, true) => row > from,
            };
            let hit = |(at, text): (usize, &String)| {
                let row = first + at;
                let spans = texts
                    .get(at + 1)
                    .is_some_and(|next| spans_break(text, next, query));
                (in_pass(row) && (!matches(text, query).is_empty() || spans)).then_some(row)
            };
            let found = if forward {
                texts.iter().enumerate().find_map(hit)
            } else {
                texts.iter().enumerate().rev().find_map(hit)
            };
            if let Some(row) = found {
                self.follow = false;
                self.anchor = self.anchor_at(row);
                return Some(Found {
                    row,
                    wrapped: wrapped || went_round,
                });
            }
        }
        None
    }

    /// The text of entry `index`'s rows as drawn (its gap row left out).
    fn row_texts(&mut self, index: usize) -> Vec<String> {
        let width = self.index_width;
        let stored = &self.entries[index];
        let (entries, look) = (&self.entries, &self.look);
        let block =
            self.cache
                .get_or_render(stored.entry.id, stored.revision, width, self.frame, || {
                    entry_block::block(entries, index, width, look)
                });
        block.lines.iter().map(line_text).collect()
    }
}
