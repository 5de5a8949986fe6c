//! The mouse: click selects (rows, the caret, dialog choices — a click never confirms), the
//! wheel scrolls, a drag selects text, which is copied exactly as shown (through OSC 52, the
//! terminal's clipboard). Hit-testing uses the layout of the last frame and `width`, the same
//! function drawing uses.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;

use super::pane::Dialog;
use super::{App, Effect, Focus, View};
use crate::width::str_width;

/// Where things were in the last frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    pub header: Rect,
    /// The list rows and the index of the session on the first row.
    pub list: Option<(Rect, usize)>,
    pub log: Option<Rect>,
    pub dialog: Option<Rect>,
    pub composer: Option<Rect>,
}

/// A text selection in screen cells, from where the drag began to where it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    /// The region the drag started in; the selection stays inside it.
    pub region: Rect,
    pub anchor: (u16, u16),
    pub head: (u16, u16),
    /// Released: copy it with the next frame.
    pub done: bool,
}

/// Lines scrolled per wheel notch.
const WHEEL_LINES: usize = 3;

fn contains(area: Rect, column: u16, row: u16) -> bool {
    area.contains(Position::new(column, row))
}

impl App {
    pub(super) fn mouse(&mut self, event: MouseEvent) -> Vec<Effect> {
        if self.overlay_open() {
            return self.overlay_mouse(event);
        }
        let (column, row) = (event.column, event.row);
        match event.kind {
            MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
                self.wheel(event.kind == MouseEventKind::ScrollUp);
                Vec::new()
            }
            MouseEventKind::Down(MouseButton::Left) => self.click(column, row),
            MouseEventKind::Drag(MouseButton::Left) => {
                self.drag(column, row);
                Vec::new()
            }
            MouseEventKind::Up(MouseButton::Left) => {
                self.release();
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The wheel scrolls the open session's log, or moves the list's selection.
    fn wheel(&mut self, up: bool) {
        match &self.view {
            View::Detail(id) => {
                let id = id.clone();
                let log = &mut self.pane(&id).log;
                if up {
                    log.scroll_up(WHEEL_LINES);
                } else {
                    log.scroll_down(WHEEL_LINES);
                }
            }
            View::List => self.move_selection(if up { -1 } else { 1 }),
        }
    }

    /// A left click: a dialog's choice or tab, the composer's caret, a list row (its PR cell
    /// opens the pull request), a log card or link; in the log or the header it starts a
    /// selection.
    fn click(&mut self, column: u16, row: u16) -> Vec<Effect> {
        let layout = self.layout;
        self.selection = None;
        if let Some(area) = layout.dialog
            && contains(area, column, row)
        {
            self.click_dialog(area, column, row);
            return Vec::new();
        }
        if let Some(area) = layout.composer
            && contains(area, column, row)
        {
            // A click places the caret; a drag from here selects (and copies) text.
            self.focus = Focus::Composer;
            self.composer.cursor_from_click(area, column, row);
            self.selection = Some(Selection {
                region: area,
                anchor: (column, row),
                head: (column, row),
                done: false,
            });
            return Vec::new();
        }
        if let Some((area, first)) = layout.list
            && contains(area, column, row)
        {
            return self.click_list(area, first, column, row);
        }
        // A click on a card opens or closes it; on a link, opens the link.
        if let (Some(area), View::Detail(id)) = (layout.log, &self.view)
            && contains(area, column, row)
        {
            let id = id.clone();
            if self.pane(&id).log.toggle_at(area, column, row) {
                self.focus = Focus::Log;
                return Vec::new();
            }
            if let Some(url) = self.pane(&id).log.link_at(area, column, row) {
                return vec![Effect::OpenUrl { url }];
            }
        }
        // Text selection starts in the log or the header.
        let region = layout
            .log
            .filter(|area| contains(*area, column, row))
            .or_else(|| Some(layout.header).filter(|area| contains(*area, column, row)));
        if let Some(region) = region {
            if layout.log == Some(region) {
                self.focus = Focus::Log;
            }
            self.selection = Some(Selection {
                region,
                anchor: (column, row),
                head: (column, row),
                done: false,
            });
        }
        Vec::new()
    }

    /// A click in the dialog: the keys go to it, and the choice or tab under the pointer is
    /// selected.
    fn click_dialog(&mut self, area: Rect, column: u16, row: u16) {
        self.focus = Focus::Dialog;
        if let Some(id) = self.shown_dialog.clone().or_else(|| self.current_id()) {
            match self.pane(&id).dialog() {
                Some(Dialog::Permission(dialog)) => {
                    if let Some(choice) = dialog.choice_at(area, column, row) {
                        dialog.select_choice(choice);
                    }
                }
                Some(Dialog::Question(dialog)) => {
                    if let Some(tab) = dialog.tab_at(area, column, row) {
                        dialog.select_tab(tab);
                    } else if let Some(choice) = dialog.choice_at(area, column, row) {
                        dialog.select_choice(choice);
                    }
                }
                None => {}
            }
        }
    }

    /// A click on a list row selects its session (and moves the keys to its dialog when it
    /// waits); on its PR cell it opens the pull request.
    fn click_list(&mut self, area: Rect, first: usize, column: u16, row: u16) -> Vec<Effect> {
        // The list may be filtered or grouped: rows map to sessions through the last frame.
        let shown = self
            .list_rows
            .get(first + usize::from(row - area.y))
            .cloned();
        // A group's row: selected, and it collapses or expands.
        if let Some(super::groups::ListRow::Group(id)) = &shown {
            self.focus = Focus::List;
            self.toggle_group(id, None);
            self.select_row(&super::groups::ListRow::Group(id.clone()));
            return Vec::new();
        }
        let shown = match shown {
            Some(super::groups::ListRow::Session(index)) => Some(index),
            _ => None,
        };
        if let Some(index) = shown.filter(|index| *index < self.sessions.len()) {
            self.select_row(&super::groups::ListRow::Session(index));
            self.focus = Focus::List;
            // A click on the PR cell opens the pull request.
            if let Some(start) =
                super::list_view::pr_cell_start(usize::from(area.width), &self.sessions)
                && usize::from(column.saturating_sub(area.x)) >= start
                && let Some(url) = crate::pr_cell::primary_url(&self.sessions[index].prs)
            {
                return vec![Effect::OpenUrl {
                    url: url.to_owned(),
                }];
            }
            let waiting = self
                .panes
                .get(&self.sessions[index].id)
                .is_some_and(|pane| pane.has_dialog());
            if waiting {
                self.focus = Focus::Dialog;
            }
        }
        Vec::new()
    }

    /// A drag extends the selection; past the log's edge the log scrolls and the selection
    /// follows.
    fn drag(&mut self, column: u16, row: u16) {
        let layout = self.layout;
        let Some(mut selection) = self.selection else {
            return;
        };
        let region = selection.region;
        // Past the log's edge, the log scrolls and the selection follows.
        if layout.log == Some(region)
            && let View::Detail(id) = &self.view
        {
            let id = id.clone();
            if row < region.y {
                self.pane(&id).log.scroll_up(1);
                selection.anchor.1 = selection
                    .anchor
                    .1
                    .saturating_add(1)
                    .min(region.bottom() - 1);
            } else if row >= region.bottom() {
                self.pane(&id).log.scroll_down(1);
                selection.anchor.1 = selection.anchor.1.saturating_sub(1).max(region.y);
            }
        }
        selection.head = (
            column.clamp(region.x, region.right().saturating_sub(1)),
            row.clamp(region.y, region.bottom().saturating_sub(1)),
        );
        self.selection = Some(selection);
    }

    /// The button is up: a selection is done (a click without a drag selects nothing).
    fn release(&mut self) {
        if let Some(selection) = &mut self.selection {
            if selection.anchor == selection.head {
                self.selection = None;
            } else {
                selection.done = true;
            }
        }
    }
}

impl Selection {
    /// (start, end) in reading order.
    fn ordered(&self) -> ((u16, u16), (u16, u16)) {
        let (a, b) = (self.anchor, self.head);
        if (a.1, a.0) <= (b.1, b.0) {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// The cells of row `y` that are selected: `start..end` columns.
    fn columns(&self, y: u16) -> Option<(u16, u16)> {
        let (start, end) = self.ordered();
        if y < start.1 || y > end.1 {
            return None;
        }
        let from = if y == start.1 { start.0 } else { self.region.x };
        let to = if y == end.1 {
            end.0 + 1
        } else {
            self.region.right()
        };
        Some((from, to.min(self.region.right())))
    }

    /// Shows the selection (reversed cells).
    pub fn highlight(&self, buf: &mut Buffer) {
        for y in self.region.y..self.region.bottom() {
            if let Some((from, to)) = self.columns(y) {
                for x in from..to {
                    if let Some(cell) = buf.cell_mut(Position::new(x, y)) {
                        cell.modifier.insert(Modifier::REVERSED);
                    }
                }
            }
        }
    }

    /// The selected text exactly as shown: each row's symbols (a wide character once, not its
    /// padding cell), trailing blanks trimmed, rows joined by newlines.
    pub fn text(&self, buf: &Buffer) -> String {
        let mut lines = Vec::new();
        for y in self.region.y..self.region.bottom() {
            let Some((from, to)) = self.columns(y) else {
                continue;
            };
            let mut line = String::new();
            let mut x = from;
            while x < to {
                let symbol = buf
                    .cell(Position::new(x, y))
                    .map(|cell| cell.symbol().to_owned())
                    .unwrap_or_default();
                let width = str_width(&symbol).max(1);
                line.push_str(&symbol);
                x = x.saturating_add(u16::try_from(width).unwrap_or(1));
            }
            lines.push(line.trim_end().to_owned());
        }
        lines.join("\n")
    }
}

/// The OSC 52 sequence that puts `text` on the clipboard (wrapped for tmux when inside it).
pub fn osc52(text: &str, in_tmux: bool) -> String {
    use base64::Engine as _;
    let payload = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let sequence = format!("\x1b]52;c;{payload}\x07");
    if in_tmux {
        format!("\x1bPtmux;{}\x1b\\", sequence.replace('\x1b', "\x1b\x1b"))
    } else {
        sequence
    }
}
