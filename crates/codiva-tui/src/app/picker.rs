//! A list to pick one thing from, drawn over the body: the restore list (discarded sessions)
//! and the model picker (the agent's own model list, the current one marked). Keys move and
//! choose; what a choice does is the caller's ([`PickerKind`]).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::dialog::sanitize;
use crate::i18n::{ViewText, t};
use crate::theme;
use crate::width::{fit, str_width, truncate};

/// What choosing a row does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerKind {
    /// Rows are discarded sessions (value: the id); choosing restores one.
    Restore,
    /// Rows are models (value: the model id, `""` the default); for this session, or for new
    /// sessions (`None`).
    Model { id: Option<String> },
    /// Rows are agents (value: the agent's id); for this session, or for new sessions.
    Agent { id: Option<String> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerRow {
    pub value: String,
    pub label: String,
    pub detail: String,
    /// The current choice (marked).
    pub current: bool,
}

#[derive(Debug, Clone)]
pub struct Picker {
    pub kind: PickerKind,
    pub title: String,
    pub rows: Vec<PickerRow>,
    /// Shown when there is no row.
    pub empty: String,
    pub selected: usize,
}

pub enum PickerAction {
    None,
    Close,
    Choose(String),
}

impl Picker {
    pub fn new(kind: PickerKind, title: String, rows: Vec<PickerRow>, empty: String) -> Self {
        let selected = rows.iter().position(|row| row.current).unwrap_or(0);
        Picker {
            kind,
            title,
            rows,
            empty,
            selected,
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> PickerAction {
        if move_selection(&mut self.selected, self.rows.len(), key.code) {
            return PickerAction::None;
        }
        match key.code {
            KeyCode::Enter => {
                if let Some(row) = self.rows.get(self.selected) {
                    return PickerAction::Choose(row.value.clone());
                }
                return PickerAction::Close;
            }
            KeyCode::Esc | KeyCode::Char('q') => return PickerAction::Close,
            _ => {}
        }
        PickerAction::None
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        crate::width::set_line(
            buf,
            area.x,
            area.y,
            &Line::styled(truncate(&format!(" {}", self.title), width), theme::bold()),
            area.width,
        );
        let rows = usize::from(area.height.saturating_sub(1));
        if self.rows.is_empty() {
            if rows > 0 {
                crate::width::set_line(
                    buf,
                    area.x,
                    area.y + 1,
                    &Line::styled(format!("  {}", self.empty), theme::dim()),
                    area.width,
                );
            }
            return;
        }
        let first = self
            .selected
            .saturating_sub(rows.saturating_sub(1))
            .min(self.rows.len().saturating_sub(rows.max(1)));
        let label_width = self
            .rows
            .iter()
            .map(|row| str_width(&row.label))
            .max()
            .unwrap_or(0)
            .min(width / 2);
        let current = t(ViewText::ModelCurrent);
        for (y, selected, row) in visible_rows(&self.rows, self.selected, first, area.y + 1, rows) {
            let (style, marker) = theme::pick_row(selected);
            let dot = if row.current {
                theme::glyph::ATTENTION
            } else {
                " "
            };
            let mut spans = vec![
                marker,
                Span::styled(format!("{dot} "), theme::accent()),
                Span::styled(fit(&sanitize(&row.label), label_width), style),
            ];
            let mut detail = sanitize(&row.detail).into_owned();
            if row.current {
                detail = if detail.is_empty() {
                    format!("({current})")
                } else {
                    format!("({current}) {detail}")
                };
            }
            let used = 4 + label_width + 2;
            spans.push(Span::styled(
                format!("  {}", truncate(&detail, width.saturating_sub(used))),
                theme::dim(),
            ));
            crate::width::set_line(buf, area.x, y, &Line::from(spans), area.width);
        }
    }
}

/// Up/`k`, Down/`j`, Home and End move `selected` over a list of `count` rows (a picker, the
/// config view); whether `code` was one of them.
pub(super) fn move_selection(selected: &mut usize, count: usize, code: KeyCode) -> bool {
    let last = count.saturating_sub(1);
    *selected = match code {
        KeyCode::Up | KeyCode::Char('k') => selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => (*selected + 1).min(last),
        KeyCode::Home => 0,
        KeyCode::End => last,
        _ => return false,
    };
    true
}

/// The rows of `items` that `height` lines from line `top` show, from row `first` on: each
/// with its line, whether it is the `selected` row, and the item.
pub(super) fn visible_rows<T>(
    items: &[T],
    selected: usize,
    first: usize,
    top: u16,
    height: usize,
) -> impl Iterator<Item = (u16, bool, &T)> {
    items
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .zip(top..=u16::MAX)
        .map(move |((index, item), y)| (y, index == selected, item))
}
