//! The cards' side of the view: the card cursor (keyboard), opening and closing (keyboard and
//! mouse), the animation tick, subagents and the retry row. Every change re-measures only the
//! entries it changes the look of.

use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_protocol::session::SubagentView;
use ratatui::layout::Rect;

use super::LogView;
use super::block::{Action, CardKey, Openness, display};
use super::fold::Fold;
use crate::theme::glyph;

/// How a card's openness changes.
#[derive(Debug, Clone, Copy)]
enum Change {
    /// Enter: closed → open → fully open (when cut) → closed.
    Cycle,
    /// A click on the header: closed ↔ open.
    Flip,
    /// A click on "… N more lines".
    Full,
}

impl LogView {
    /// The animation clock: spinners show frame `tick` (the app advances it, e.g. every
    /// 100 ms while something runs; nothing here keeps time). Only entries that draw a spinner
    /// are redrawn, and none is re-measured.
    pub fn set_tick(&mut self, tick: u64) {
        let frames = glyph::SPINNER.len() as u64;
        let frame = usize::try_from(tick % frames).unwrap_or(0);
        if frame == self.look.spinner {
            return;
        }
        self.look.spinner = frame;
        let ids: Vec<u64> = self.animated.iter().copied().collect();
        for id in ids {
            if let Ok(index) = self.position(id) {
                // The height does not depend on the frame: a new revision is enough.
                self.entries[index].revision = self.bump();
            }
        }
    }

    /// Whether something on screen animates (the app ticks only then).
    pub fn is_animating(&self) -> bool {
        !self.animated.is_empty()
    }

    /// The one "retrying" row at the end of the log (`None`: gone). Each attempt replaces it.
    pub fn set_retry(&mut self, text: Option<String>) {
        self.retry = text
            .map(|text| display(text.lines().next().unwrap_or_default()))
            .filter(|text| !text.is_empty());
        if self.retry.is_some() && self.stream.is_retired() {
            // The attempt's text was given up: the retry row replaces it.
            self.stream.clear();
        }
    }

    /// A subagent's latest status (`SessionEvent::Subagent`); redraws the card of its call.
    pub fn set_subagent(&mut self, view: SubagentView) {
        let tool_use_id = view.tool_use_id.clone();
        self.look
            .subagents
            .entry(tool_use_id.clone())
            .or_default()
            .view = Some(view);
        self.touch_agent(&tool_use_id, true);
    }

    /// An entry of a subagent's own log (`SessionEvent::Log` with `Scope::Subagent(id)`): kept
    /// inside the view and shown only in the open card of its call, never at the top level.
    pub fn apply_subagent_entry(&mut self, tool_use_id: &str, entry: LogEntry, update: bool) {
        let _ = update; // As for the top level, the id decides.
        let entries = &mut self
            .look
            .subagents
            .entry(tool_use_id.to_owned())
            .or_default()
            .entries;
        match entries.binary_search_by_key(&entry.id, |e| e.id) {
            Ok(index) => entries[index] = entry,
            Err(index) => entries.insert(index, entry),
        }
        self.touch_agent(tool_use_id, false);
    }

    /// Replaces a subagent's whole log (a page read from the session).
    pub fn set_subagent_entries(&mut self, tool_use_id: &str, mut entries: Vec<LogEntry>) {
        entries.sort_by_key(|e| e.id);
        entries.dedup_by_key(|e| e.id);
        self.look
            .subagents
            .entry(tool_use_id.to_owned())
            .or_default()
            .entries = entries;
        self.touch_agent(tool_use_id, false);
    }

    /// Redraws the card of subagent `tool_use_id` (`always`: also when closed).
    fn touch_agent(&mut self, tool_use_id: &str, always: bool) {
        let Some(&id) = self.agent_calls.get(tool_use_id) else {
            return;
        };
        if (always || self.look.is_open(CardKey::Entry(id)))
            && let Ok(index) = self.position(id)
        {
            self.touch(index);
        }
    }

    /// Moves the card cursor to the next card (from the top of the view when there is none),
    /// scrolling it into view. `false` when there is no next card.
    pub fn select_next_card(&mut self) -> bool {
        self.move_cursor(true)
    }

    /// Moves the card cursor to the previous card (from the bottom of the view when there is
    /// none), scrolling it into view.
    pub fn select_previous_card(&mut self) -> bool {
        self.move_cursor(false)
    }

    pub fn has_selected_card(&self) -> bool {
        self.look.selected.is_some()
    }

    /// Hides the card cursor.
    pub fn clear_selection(&mut self) {
        if let Some(old) = self.look.selected.take()
            && let Ok(index) = self.position(old.entry())
        {
            self.touch(index);
        }
    }

    /// Opens or closes the card under the cursor (Enter): closed → open → everything (when
    /// the result was cut) → closed. `false` without a cursor.
    pub fn toggle_selected(&mut self) -> bool {
        match self.look.selected {
            Some(key) => self.change(key, Change::Cycle),
            None => false,
        }
    }

    /// A click at (`column`, `row`) in `area` (laid out as last drawn): on a card's header it
    /// opens or closes the card, on "… N more lines" it shows everything; either way the card
    /// gets the cursor. `false` when the click is not on such a row.
    pub fn toggle_at(&mut self, area: Rect, column: u16, row: u16) -> bool {
        if !area.contains((column, row).into()) || area.width != self.index_width {
            return false;
        }
        let height = usize::from(area.height);
        let view = self.viewport(height);
        let y = usize::from(row - area.y);
        if y >= view.rows {
            return false;
        }
        let (index, offset) = self.index.find(view.top + y);
        if index >= self.entries.len() {
            return false;
        }
        let Some(hit) = self
            .block(index)
            .hits
            .iter()
            .find(|hit| hit.row == offset)
            .copied()
        else {
            return false;
        };
        let change = match hit.action {
            Action::Toggle => Change::Flip,
            Action::ShowMore => Change::Full,
        };
        self.change(hit.key, change)
    }

    /// Applies `change` to card `key`, gives it the cursor and keeps its header in view.
    fn change(&mut self, key: CardKey, change: Change) -> bool {
        let Ok(index) = self.position(key.entry()) else {
            return false;
        };
        let hits = &self.block(index).hits;
        if !hits
            .iter()
            .any(|h| h.key == key && h.action == Action::Toggle)
        {
            return false;
        }
        let cut = hits
            .iter()
            .any(|h| h.key == key && h.action == Action::ShowMore);
        let now = self.look.openness(key);
        let next = match (change, now) {
            (Change::Full, _) => Some(Openness::Full),
            (Change::Flip | Change::Cycle, None) => Some(Openness::Open),
            (Change::Cycle, Some(Openness::Open)) if cut => Some(Openness::Full),
            (Change::Flip | Change::Cycle, Some(_)) => None,
        };
        match next {
            Some(openness) => self.look.open.insert(key, openness),
            None => self.look.open.remove(&key),
        };
        let old = self.look.selected.replace(key);
        if let Some(old) = old.filter(|old| old.entry() != key.entry())
            && let Ok(old_index) = self.position(old.entry())
        {
            self.touch(old_index);
        }
        match (key, self.entries[index].fold) {
            // Opening or closing a fold shows or hides its calls.
            (CardKey::Fold(_), Fold::Head { len }) => {
                for i in index..(index + len).min(self.entries.len()) {
                    self.touch(i);
                }
            }
            _ => self.touch(index),
        }
        self.settle_selection();
        let key = self.look.selected.unwrap_or(key);
        self.reveal(key, next.is_some());
        true
    }

    /// The cursor on a card that is no longer shown moves to what shows it: a call folded away
    /// to its fold, a subagent's entry to the subagent's card.
    pub(super) fn settle_selection(&mut self) {
        let Some(key) = self.look.selected else {
            return;
        };
        let Ok(index) = self.position(key.entry()) else {
            self.look.selected = None;
            return;
        };
        let settled = match (key, self.entries[index].fold) {
            (CardKey::Entry(_), Fold::Member { head, .. })
                if !self.look.is_open(CardKey::Fold(head)) =>
            {
                CardKey::Fold(head)
            }
            (CardKey::Fold(id), Fold::Member { .. } | Fold::None) => CardKey::Entry(id),
            (CardKey::Nested { parent, .. }, _) if !self.look.is_open(CardKey::Entry(parent)) => {
                CardKey::Entry(parent)
            }
            _ => return,
        };
        self.look.selected = Some(settled);
        self.touch(index);
        if let Ok(head) = self.position(settled.entry())
            && head != index
        {
            self.touch(head);
        }
    }

    /// The cards of entry `index` in order: (row in its block, card).
    fn cards_of(&mut self, index: usize) -> Vec<(usize, CardKey)> {
        let may_have_cards = matches!(
            self.entries[index].entry.kind,
            EntryKind::Tool(_) | EntryKind::Thinking { .. }
        );
        if !may_have_cards || self.index.height(index) == 0 {
            return Vec::new();
        }
        self.block(index)
            .hits
            .iter()
            .filter(|hit| hit.action == Action::Toggle)
            .map(|hit| (hit.row, hit.key))
            .collect()
    }

    fn move_cursor(&mut self, forward: bool) -> bool {
        if self.index_width == 0 || self.entries.is_empty() {
            return false;
        }
        // Where to look from: the cursor's card (excluded), else the view's edge (included).
        let current = self.look.selected.and_then(|key| {
            let index = self.position(key.entry()).ok()?;
            let row = self
                .cards_of(index)
                .into_iter()
                .find(|&(_, k)| k == key)
                .map_or(0, |(row, _)| row);
            Some((index, row))
        });
        let (start, row, inclusive) = match current {
            Some((index, row)) => (index, row, false),
            None => {
                let view = self.viewport(usize::from(self.height));
                let edge = if forward {
                    view.top
                } else {
                    (view.top + view.rows).saturating_sub(1)
                };
                match self.index.find(edge) {
                    (index, row) if index < self.entries.len() => (index, row, true),
                    _ if forward => return false,
                    _ => (self.entries.len() - 1, usize::MAX, true),
                }
            }
        };
        let found = if forward {
            (start..self.entries.len()).find_map(|index| {
                self.cards_of(index)
                    .into_iter()
                    .find(|&(r, _)| index > start || r > row || (inclusive && r == row))
                    .map(|(_, key)| key)
            })
        } else {
            (0..=start).rev().find_map(|index| {
                self.cards_of(index)
                    .into_iter()
                    .rev()
                    .find(|&(r, _)| index < start || r < row || (inclusive && r == row))
                    .map(|(_, key)| key)
            })
        };
        let Some(key) = found else {
            return false;
        };
        let old = self.look.selected.replace(key);
        for entry in [old.map(CardKey::entry), Some(key.entry())]
            .into_iter()
            .flatten()
        {
            if let Ok(index) = self.position(entry) {
                self.touch(index);
            }
        }
        self.reveal(key, false);
        true
    }

    /// Scrolls the least that shows card `key`'s header row and, for a card just opened
    /// (`body`), as much of what follows it in its entry as fits below the header.
    fn reveal(&mut self, key: CardKey, body: bool) {
        if self.index_width == 0 || self.height == 0 {
            return;
        }
        let Ok(index) = self.position(key.entry()) else {
            return;
        };
        let Some(row) = self
            .cards_of(index)
            .into_iter()
            .find(|&(_, k)| k == key)
            .map(|(row, _)| row)
        else {
            return;
        };
        let start = self.index.prefix(index);
        let header = start + row;
        let last = if body {
            start + self.block(index).lines.len().saturating_sub(1)
        } else {
            header
        }
        .max(header);
        let height = usize::from(self.height);
        let view = self.viewport(height);
        if header < view.top {
            self.follow = false;
            self.anchor = self.anchor_at(header);
        } else if last >= view.top + view.rows {
            // Scrolled up, the last row is the status row.
            let top = (last + 2).saturating_sub(height).min(header);
            if top >= self.total().saturating_sub(height) {
                self.follow = true;
            } else {
                self.follow = false;
                self.anchor = self.anchor_at(top);
            }
        }
    }
}
