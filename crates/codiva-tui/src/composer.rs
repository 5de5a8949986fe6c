//! The composer: the one multi-line text input used everywhere (new instructions, follow-ups,
//! free-text answers, the prompt editor).
//!
//! Soft-wrapped at the real width through [`crate::width`] (word boundary when possible, CJK =
//! 2 cells), grows to [`MAX_ROWS`] rows then scrolls to keep the caret visible, and reports the
//! caret's screen position so the app can put the real terminal cursor there (IME pre-edit then
//! appears in place). Enter submits; Shift+Enter, Alt+Enter, Ctrl+J and a trailing `\` insert a
//! newline (see [`keys`] for the encodings); ↑ on the top row walks the [`InputHistory`].

mod editor;
mod input_history;
mod keys;
mod layout;

#[cfg(test)]
mod editor_tests;
#[cfg(test)]
mod keys_tests;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

pub use input_history::InputHistory;

use crate::{theme, width};
use editor::Editor;
use keys::{Command, Decoded, SequenceDecoder};

/// The most rows the composer grows to; more text scrolls inside.
pub const MAX_ROWS: u16 = 8;

/// What a key did, for the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    /// Nothing visible changed (a no-op motion, a release event).
    None,
    /// The text or the caret changed: redraw.
    Changed,
    /// Enter with something to send: the text (the composer is now empty).
    Submit(String),
    /// A key the composer does not use (Esc, Tab, Ctrl+C, PageUp, Enter on an empty
    /// composer, …): the app decides.
    Unhandled(KeyEvent),
}

/// Walking the input history: which entry is shown, and the draft to come back to.
#[derive(Debug, Clone)]
struct Recall {
    index: usize,
    draft: String,
}

#[derive(Debug, Clone)]
pub struct Composer {
    editor: Editor,
    placeholder: String,
    input_history: InputHistory,
    recall: Option<Recall>,
    decoder: SequenceDecoder,
    /// The editor before the first character of a possible escape sequence.
    before_sequence: Option<Box<Editor>>,
    /// The column ↑↓ aim for (kept across a run of vertical moves).
    goal_column: Option<usize>,
    /// Geometry of the last render: wrap width and first visible row.
    wrap_width: usize,
    scroll: usize,
}

impl Default for Composer {
    fn default() -> Self {
        Self::new()
    }
}

impl Composer {
    pub fn new() -> Self {
        Self {
            editor: Editor::default(),
            placeholder: String::new(),
            input_history: InputHistory::new(),
            recall: None,
            decoder: SequenceDecoder::default(),
            before_sequence: None,
            goal_column: None,
            wrap_width: layout::wrap_width(80),
            scroll: 0,
        }
    }

    /// Text shown dimmed while the composer is empty.
    pub fn with_placeholder(mut self, text: impl Into<String>) -> Self {
        self.placeholder = text.into();
        self
    }

    /// Changes the placeholder (the same composer serves several views).
    pub fn set_placeholder(&mut self, text: impl Into<String>) {
        self.placeholder = text.into();
    }

    pub fn text(&self) -> &str {
        self.editor.text()
    }

    /// Replaces the text (caret at the end, undo steps forgotten).
    pub fn set_text(&mut self, text: &str) {
        self.editor.reset(&normalize(text));
        self.after_reset();
    }

    pub fn clear(&mut self) {
        self.set_text("");
    }

    pub fn is_empty(&self) -> bool {
        self.editor.text().is_empty()
    }

    /// The caret as a byte offset into [`Composer::text`].
    pub fn caret(&self) -> usize {
        self.editor.caret()
    }

    pub fn set_input_history(&mut self, history: InputHistory) {
        self.input_history = history;
        self.recall = None;
    }

    /// An input history entry is shown (↑↓ walk the input history, not the text).
    pub fn is_recalling(&self) -> bool {
        self.recall.is_some()
    }

    pub fn input_history(&self) -> &InputHistory {
        &self.input_history
    }

    fn after_reset(&mut self) {
        self.recall = None;
        self.decoder.reset();
        self.before_sequence = None;
        self.goal_column = None;
        self.scroll = 0;
    }

    /// Visual rows the composer wants at `width` columns: 1 to [`MAX_ROWS`].
    pub fn desired_height(&self, width: u16) -> u16 {
        let rows = layout::rows(self.editor.text(), layout::wrap_width(width)).len();
        u16::try_from(rows).unwrap_or(MAX_ROWS).clamp(1, MAX_ROWS)
    }

    /// Handles a bracketed paste: inserted as text in one undo step, newlines included (never
    /// submits). `\r\n` and `\r` become `\n`; other control characters except tabs are dropped.
    pub fn handle_paste(&mut self, text: &str) {
        self.decoder.reset();
        self.before_sequence = None;
        self.goal_column = None;
        self.recall = None;
        self.editor.insert(&normalize(text));
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerAction {
        match self.decoder.feed(&key) {
            Decoded::Pass => self.before_sequence = None,
            Decoded::Started => self.before_sequence = Some(Box::new(self.editor.clone())),
            Decoded::Continued => {}
            Decoded::Complete(decoded) => {
                // The sequence's characters were typed as text; take them back and act on the
                // key they encode instead.
                if let Some(before) = self.before_sequence.take() {
                    self.editor = *before;
                }
                return self.apply(decoded);
            }
        }
        self.apply(key)
    }

    fn apply(&mut self, key: KeyEvent) -> ComposerAction {
        let Some(command) = keys::command_for(&key) else {
            return ComposerAction::None;
        };
        if !matches!(command, Command::Up | Command::Down) {
            self.goal_column = None;
        }
        let before = (
            self.editor.revision(),
            self.editor.caret(),
            self.editor.upstream(),
        );
        let edits = !matches!(
            command,
            Command::Left
                | Command::Right
                | Command::Up
                | Command::Down
                | Command::Home
                | Command::End
                | Command::WordLeft
                | Command::WordRight
                | Command::Enter
                | Command::Unhandled
        );
        if edits {
            // Editing a recalled entry makes it the draft.
            self.recall = None;
        }
        match command {
            Command::Insert(c) => self.editor.type_char(c),
            Command::Newline => self.editor.insert("\n"),
            Command::Enter => return self.enter(key),
            Command::Left => self.editor.move_left(),
            Command::Right => self.editor.move_right(),
            Command::Up => return self.vertical(-1),
            Command::Down => return self.vertical(1),
            Command::Home => self.home_end(false),
            Command::End => self.home_end(true),
            Command::WordLeft => self.editor.word_left(),
            Command::WordRight => self.editor.word_right(),
            Command::Backspace => self.editor.backspace(),
            Command::Delete => self.editor.delete_forward(),
            Command::DeleteWordBack => self.editor.delete_word_back(),
            Command::DeleteWordForward => self.editor.delete_word_forward(),
            Command::KillToLineEnd => self.editor.kill_to_line_end(),
            Command::ClearAll => self.editor.clear_all(),
            Command::Undo => {
                return changed(self.editor.undo());
            }
            Command::Redo => {
                return changed(self.editor.redo());
            }
            Command::Unhandled => return ComposerAction::Unhandled(key),
        }
        changed(
            before
                != (
                    self.editor.revision(),
                    self.editor.caret(),
                    self.editor.upstream(),
                ),
        )
    }

    fn enter(&mut self, key: KeyEvent) -> ComposerAction {
        let text = self.editor.text();
        let caret = self.editor.caret();
        let at_line_end = text[caret..].starts_with('\n') || caret == text.len();
        if at_line_end && text[..caret].ends_with('\\') {
            self.recall = None;
            self.editor.replace(caret - 1..caret, "\n");
            return ComposerAction::Changed;
        }
        if text.trim().is_empty() {
            return ComposerAction::Unhandled(key);
        }
        let text = text.to_owned();
        self.input_history.push(text.clone());
        self.clear();
        ComposerAction::Submit(text)
    }

    /// ↑ (`step` -1) or ↓ (+1) by visual row; past the top or bottom row, the input history.
    fn vertical(&mut self, step: isize) -> ComposerAction {
        let text = self.editor.text();
        let rows = layout::rows(text, self.wrap_width);
        let (row, column) =
            layout::caret_position(text, &rows, self.editor.caret(), self.editor.upstream());
        let target = row.checked_add_signed(step).filter(|&t| t < rows.len());
        let Some(target) = target else {
            self.goal_column = None;
            return if step < 0 {
                self.recall_older()
            } else {
                self.recall_newer()
            };
        };
        let goal = *self.goal_column.get_or_insert(column);
        let (caret, upstream) = layout::caret_at(text, &rows, target, goal);
        self.editor.set_caret(caret, upstream);
        ComposerAction::Changed
    }

    fn home_end(&mut self, end: bool) {
        let text = self.editor.text();
        let rows = layout::rows(text, self.wrap_width);
        let (row, _) =
            layout::caret_position(text, &rows, self.editor.caret(), self.editor.upstream());
        if let Some((start, stop, soft)) = layout::row_bounds(&rows, row) {
            if end {
                self.editor.set_caret(stop, soft);
            } else {
                self.editor.set_caret(start, false);
            }
        }
    }

    fn recall_older(&mut self) -> ComposerAction {
        let entries = self.input_history.entries();
        let index = match &self.recall {
            Some(recall) if recall.index == 0 => return ComposerAction::None,
            Some(recall) => recall.index - 1,
            None if entries.is_empty() => return ComposerAction::None,
            None => entries.len() - 1,
        };
        let draft = match self.recall.take() {
            Some(recall) => recall.draft,
            None => self.editor.text().to_owned(),
        };
        let entry = entries[index].clone();
        self.show_recalled(&entry);
        self.recall = Some(Recall { index, draft });
        ComposerAction::Changed
    }

    fn recall_newer(&mut self) -> ComposerAction {
        let Some(recall) = self.recall.take() else {
            return ComposerAction::None;
        };
        let next = recall.index + 1;
        match self.input_history.entries().get(next).cloned() {
            Some(entry) => {
                self.show_recalled(&entry);
                self.recall = Some(Recall {
                    index: next,
                    draft: recall.draft,
                });
            }
            None => self.show_recalled(&recall.draft),
        }
        ComposerAction::Changed
    }

    fn show_recalled(&mut self, text: &str) {
        self.editor.reset(text);
        self.scroll = 0;
    }

    /// Draws the composer into `area` and returns the caret's screen position (where the app
    /// should put the terminal cursor), or `None` when the area is empty.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return None;
        }
        for position in area.positions() {
            buf[position].reset();
        }
        self.wrap_width = layout::wrap_width(area.width);
        let text = self.editor.text();
        let rows = layout::rows(text, self.wrap_width);
        let (caret_row, caret_column) =
            layout::caret_position(text, &rows, self.editor.caret(), self.editor.upstream());
        let visible = usize::from(area.height);
        if caret_row < self.scroll {
            self.scroll = caret_row;
        } else if caret_row >= self.scroll + visible {
            self.scroll = caret_row + 1 - visible;
        }
        self.scroll = self.scroll.min(rows.len().saturating_sub(visible));

        let text_x = area.x.saturating_add(layout::GUTTER);
        let text_cells = usize::from(area.width.saturating_sub(layout::GUTTER));
        let shown = rows.iter().enumerate().skip(self.scroll).take(visible);
        for (screen_row, (index, row)) in shown.enumerate() {
            let y = area.y + u16::try_from(screen_row).unwrap_or(0);
            let last_visible = screen_row + 1 == visible;
            let (gutter, style) = if index == 0 {
                (theme::glyph::PROMPT, theme::accent())
            } else if screen_row == 0 {
                (theme::glyph::MORE_ABOVE, theme::dim())
            } else if last_visible && index + 1 < rows.len() {
                (theme::glyph::MORE_BELOW, theme::dim())
            } else {
                ("", theme::dim())
            };
            draw(buf, area.x, y, gutter, usize::from(layout::GUTTER), style);
            draw(
                buf,
                text_x,
                y,
                &text[row.start..row.end],
                text_cells,
                theme::text(),
            );
        }
        if text.is_empty() && !self.placeholder.is_empty() {
            let placeholder = width::truncate(&self.placeholder, text_cells);
            draw(buf, text_x, area.y, &placeholder, text_cells, theme::dim());
        }

        let column = u16::try_from(caret_column).unwrap_or(u16::MAX);
        let column = column.min(area.width.saturating_sub(layout::GUTTER + 1));
        let row = u16::try_from(caret_row - self.scroll).unwrap_or(0);
        Some((text_x.saturating_add(column), area.y + row))
    }

    /// Places the caret at a click on screen cell (`column`, `row`), using the geometry of the
    /// last render into `area`. Clicks outside `area` are ignored.
    pub fn cursor_from_click(&mut self, area: Rect, column: u16, row: u16) {
        if !area.contains((column, row).into()) {
            return;
        }
        let wrap_width = layout::wrap_width(area.width);
        let text = self.editor.text();
        let rows = layout::rows(text, wrap_width);
        let index = (self.scroll + usize::from(row - area.y)).min(rows.len().saturating_sub(1));
        let cell = usize::from(column.saturating_sub(area.x + layout::GUTTER));
        let (caret, upstream) = layout::caret_at(text, &rows, index, cell);
        self.editor.set_caret(caret, upstream);
        self.decoder.reset();
        self.before_sequence = None;
        self.goal_column = None;
    }
}

fn changed(changed: bool) -> ComposerAction {
    if changed {
        ComposerAction::Changed
    } else {
        ComposerAction::None
    }
}

/// Line endings to `\n`; control characters other than newline and tab dropped.
fn normalize(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    text.chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect()
}

/// Draws `text` (one row, no newlines) from cell (`x`, `y`), at most `max` cells, each grapheme
/// at the column [`width`] gives it; a tab is drawn as spaces.
fn draw(buf: &mut Buffer, x: u16, y: u16, text: &str, max: usize, style: Style) {
    let right = usize::from(buf.area.right());
    let mut column = usize::from(x);
    let limit = (column + max).min(right);
    for grapheme in width::graphemes(text) {
        let cells = width::grapheme_width(grapheme);
        if cells == 0 {
            continue;
        }
        if column + cells > limit {
            break;
        }
        let Ok(cell_x) = u16::try_from(column) else {
            break;
        };
        let Ok(cells16) = u16::try_from(cells) else {
            break;
        };
        if grapheme == "\t" {
            for offset in 0..cells16 {
                buf[(cell_x + offset, y)].set_symbol(" ").set_style(style);
            }
        } else {
            buf[(cell_x, y)].set_symbol(grapheme).set_style(style);
            for offset in 1..cells16 {
                buf[(cell_x + offset, y)].reset();
            }
        }
        column += cells;
    }
}
