//! What the permission and question dialogs share: the action they hand back to the app, and
//! one layout (title, fixed header, shrinkable body, scrolling choices, key hints) that serves
//! drawing, the height a dialog asks for and mouse hit-testing alike, so a click always lands on
//! what was drawn.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use codiva_protocol::agent::QuestionResponse;

use crate::i18n::{AppText, t};
use crate::theme::{self, glyph};
use crate::width;

/// Cells of the left margin: the body is indented by it, and a choice's pointer sits in it.
pub(crate) const INDENT: usize = 2;

/// What a dialog asks the app to do after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogAction {
    /// Nothing for the app to do: the key moved the cursor, or the dialog does not use it.
    None,
    Respond(PermissionAnswer),
    Answer(QuestionResponse),
    /// The user wants to type text (a deny reason, a free-text answer) in the app's composer;
    /// the app calls `provide_text` with it.
    WantText {
        purpose: TextPurpose,
    },
}

/// A person's answer to a permission request: one of the options the request offered, by its
/// id, with the reason given for a deny.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionAnswer {
    pub option: String,
    pub message: Option<String>,
}

/// What the text the app collects is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextPurpose {
    /// Why the tool is denied; an empty text denies with a default message.
    DenyReason,
    /// A free-text answer to question `question` (an index into the request's questions).
    FreeText { question: usize },
}

impl TextPurpose {
    /// A placeholder for the composer while it collects this text.
    pub fn hint(self) -> &'static str {
        match self {
            TextPurpose::DenyReason => t(AppText::TextDenyReason),
            TextPurpose::FreeText { .. } => t(AppText::TextFreeAnswer),
        }
    }
}

/// Tabs become spaces and other control characters go: a cell must hold what it shows.
pub(crate) fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\n' => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` wrapped to `width` cells, each row indented by `indent` cells and drawn in `style`.
pub(crate) fn wrapped(text: &str, indent: usize, width: usize, style: Style) -> Vec<Line<'static>> {
    let text = sanitize(text);
    let pad = " ".repeat(indent);
    width::wrap_text(&text, width.saturating_sub(indent).max(1))
        .into_iter()
        .map(|row| {
            Line::from(vec![
                Span::raw(pad.clone()),
                Span::styled(text[row.start..row.end].trim_end().to_owned(), style),
            ])
        })
        .collect()
}

/// The dialog's first row: a rule with the title in it, `── Allow Bash? ─────`.
pub(crate) fn title_line(title: &str, note: Option<&str>, width: usize) -> Line<'static> {
    let title = width::truncate(title, width.saturating_sub(6));
    let mut spans = vec![
        Span::styled("── ", theme::border()),
        Span::styled(title.clone(), theme::warning().patch(theme::bold())),
    ];
    let mut used = 3 + width::str_width(&title);
    if let Some(note) = note {
        let note = width::truncate(note, width.saturating_sub(used + 5));
        if !note.is_empty() {
            used += 1 + width::str_width(&note);
            spans.push(Span::raw(" "));
            spans.push(Span::styled(note, theme::dim()));
        }
    }
    spans.push(Span::raw(" "));
    spans.push(Span::styled(
        "─".repeat(width.saturating_sub(used + 1)),
        theme::border(),
    ));
    Line::from(spans)
}

/// The key hints under the choices.
pub(crate) fn footer_line(hint: &str, width: usize) -> Line<'static> {
    let pad = " ".repeat(INDENT);
    Line::styled(
        format!(
            "{pad}{}",
            width::truncate(hint, width.saturating_sub(INDENT))
        ),
        theme::dim(),
    )
}

/// One choice drawn as rows: the pointer when selected, an optional marker (`(•)`, `[ ]`), the
/// label, then `note` (a description or a key hint) after it when it fits, else wrapped below.
pub(crate) fn choice_rows(
    selected: bool,
    marker: Option<&str>,
    label: &str,
    note: Option<&str>,
    width: usize,
) -> Vec<Line<'static>> {
    let marker = marker.map(|marker| format!("{marker} "));
    let lead = INDENT + marker.as_deref().map_or(0, width::str_width);
    let avail = width.saturating_sub(lead).max(1);
    let label = sanitize(label);
    let label_style = if selected {
        theme::selected()
    } else {
        theme::text()
    };
    let mut rows: Vec<Vec<Span<'static>>> = Vec::new();
    let mut last_width = 0;
    for (i, row) in width::wrap_text(&label, avail).into_iter().enumerate() {
        let mut spans = Vec::new();
        if i == 0 {
            if selected {
                spans.push(Span::styled(format!("{} ", glyph::PROMPT), theme::accent()));
            } else {
                spans.push(Span::raw(" ".repeat(INDENT)));
            }
            if let Some(marker) = &marker {
                spans.push(Span::styled(marker.clone(), label_style_marker(selected)));
            }
        } else {
            spans.push(Span::raw(" ".repeat(lead)));
        }
        let text = label[row.start..row.end].trim_end();
        last_width = width::str_width(text);
        spans.push(Span::styled(text.to_owned(), label_style));
        rows.push(spans);
    }
    if let Some(note) = note.map(sanitize).filter(|note| !note.is_empty()) {
        let fits_inline = !note.contains('\n') && last_width + 2 + width::str_width(&note) <= avail;
        if let (true, Some(last)) = (fits_inline, rows.last_mut()) {
            last.push(Span::styled(format!("  {note}"), theme::dim()));
        } else {
            for row in width::wrap_text(&note, avail) {
                rows.push(vec![
                    Span::raw(" ".repeat(lead)),
                    Span::styled(note[row.start..row.end].trim_end().to_owned(), theme::dim()),
                ]);
            }
        }
    }
    rows.into_iter().map(Line::from).collect()
}

fn label_style_marker(selected: bool) -> Style {
    if selected {
        theme::accent()
    } else {
        theme::text()
    }
}

/// A body row; a row standing for lines left out says how many (`elided`), so a note written
/// when the body is cut further can count them.
pub(crate) struct BodyRow {
    pub line: Line<'static>,
    pub elided: usize,
}

impl BodyRow {
    pub fn new(line: Line<'static>) -> Self {
        BodyRow { line, elided: 0 }
    }

    /// "… N more lines".
    pub fn more(lines: usize) -> Self {
        BodyRow {
            line: more_line(lines),
            elided: lines,
        }
    }

    fn weight(&self) -> usize {
        self.elided.max(1)
    }
}

fn more_line(lines: usize) -> Line<'static> {
    let noun = if lines == 1 { "line" } else { "lines" };
    Line::styled(
        format!("{}… {lines} more {noun}", " ".repeat(INDENT)),
        theme::dim(),
    )
}

/// A dialog's content laid out for one width.
pub(crate) struct Sections {
    pub title: Line<'static>,
    /// Rows that always show (a tab row).
    pub header: Vec<Line<'static>>,
    /// What the dialog is about; cut from the bottom when space is short.
    pub body: Vec<BodyRow>,
    /// Each choice's rows; they scroll when space is short, keeping `selected` visible.
    pub choices: Vec<Vec<Line<'static>>>,
    pub selected: usize,
    pub footer: Option<Line<'static>>,
}

/// What one row of the dialog shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Title,
    Header(usize),
    Body(usize),
    BodyMore(usize),
    Blank,
    Choice { index: usize, row: usize },
    MoreAbove(usize),
    MoreBelow(usize),
    Footer,
}

impl Sections {
    fn choice_heights(&self) -> Vec<usize> {
        self.choices.iter().map(|rows| rows.len().max(1)).collect()
    }

    /// Rows the dialog takes when nothing has to give.
    pub fn natural_height(&self) -> usize {
        let choices: usize = self.choice_heights().iter().sum();
        let gap = usize::from(!self.body.is_empty() && choices > 0);
        1 + self.header.len() + self.body.len() + gap + choices + usize::from(self.footer.is_some())
    }

    pub fn desired_height(&self, max: u16) -> u16 {
        u16::try_from(self.natural_height()).map_or(max, |natural| natural.min(max))
    }

    /// What each of `height` rows shows, and the scroll offset (first choice shown) that keeps
    /// the selected choice visible, starting from `scroll`. Pure: rendering stores the offset
    /// and hit-testing recomputes the same rows from it.
    pub fn place(&self, height: usize, scroll: usize) -> (Vec<Slot>, usize) {
        let heights = self.choice_heights();
        let total: usize = heights.iter().sum();
        let selected = self.selected.min(heights.len().saturating_sub(1));
        let mut rem = height;
        let title_h = rem.min(1);
        rem -= title_h;
        let header_h = self.header.len().min(rem);
        rem -= header_h;
        let selected_h = heights.get(selected).copied().unwrap_or(0);
        let choices_min = total.min(selected_h + 2).min(rem);
        let body_min = self.body.len().min(2);
        let footer_h =
            usize::from(self.footer.is_some() && rem > choices_min + body_min && total > 0);
        rem -= footer_h;
        let choices_h = total.min(rem.saturating_sub(body_min)).max(choices_min);
        rem -= choices_h;
        let body_h = self.body.len().min(rem);
        rem -= body_h;
        let gap_h = usize::from(rem > 0 && body_h > 0 && choices_h > 0);

        let mut slots = Vec::with_capacity(height);
        if title_h > 0 {
            slots.push(Slot::Title);
        }
        slots.extend((0..header_h).map(Slot::Header));
        if body_h < self.body.len() && body_h > 0 {
            slots.extend((0..body_h - 1).map(Slot::Body));
            let hidden = self.body[body_h - 1..].iter().map(BodyRow::weight).sum();
            slots.push(Slot::BodyMore(hidden));
        } else {
            slots.extend((0..body_h).map(Slot::Body));
        }
        if gap_h > 0 {
            slots.push(Slot::Blank);
        }
        let scroll = if total <= choices_h {
            slots.extend(choice_slots(&heights, 0, heights.len()));
            0
        } else {
            let scroll = adjust_scroll(&heights, selected, scroll, choices_h);
            let end = window_end(&heights, scroll, choices_h);
            let start_len = slots.len();
            if scroll > 0 {
                slots.push(Slot::MoreAbove(scroll));
            }
            slots.extend(choice_slots(&heights, scroll, end));
            slots.truncate(start_len + choices_h - usize::from(end < heights.len()));
            while slots.len() < start_len + choices_h - usize::from(end < heights.len()) {
                slots.push(Slot::Blank);
            }
            if end < heights.len() {
                slots.push(Slot::MoreBelow(heights.len() - end));
            }
            scroll
        };
        if footer_h > 0 {
            slots.push(Slot::Footer);
        }
        (slots, scroll)
    }

    /// Places and draws the dialog into `area`, keeping `scroll` (the dialog's own) current.
    pub fn render(&self, area: Rect, buf: &mut Buffer, scroll: &mut usize) {
        let (slots, placed) = self.place(usize::from(area.height), *scroll);
        *scroll = placed;
        self.draw(&slots, area, buf);
    }

    /// The slot drawn at (`column`, `row`) when the dialog was rendered into `area` at `scroll`.
    pub fn slot_at(&self, area: Rect, scroll: usize, column: u16, row: u16) -> Option<Slot> {
        let (slots, _) = self.place(usize::from(area.height), scroll);
        slot_at(&slots, area, column, row)
    }

    /// The choice drawn at (`column`, `row`), as [`Sections::slot_at`].
    pub fn choice_at(&self, area: Rect, scroll: usize, column: u16, row: u16) -> Option<usize> {
        match self.slot_at(area, scroll, column, row)? {
            Slot::Choice { index, .. } => Some(index),
            _ => None,
        }
    }

    /// Draws the rows `place` chose into `area`, clearing it first.
    pub fn draw(&self, slots: &[Slot], area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let pad = " ".repeat(INDENT);
        for (slot, y) in slots.iter().zip(area.top()..area.bottom()) {
            let owned;
            let line = match *slot {
                Slot::Title => &self.title,
                Slot::Header(i) => &self.header[i],
                Slot::Body(i) => &self.body[i].line,
                Slot::BodyMore(n) => {
                    owned = more_line(n);
                    &owned
                }
                Slot::Choice { index, row } => &self.choices[index][row],
                Slot::MoreAbove(n) => {
                    owned =
                        Line::styled(format!("{pad}{} {n} more", glyph::MORE_ABOVE), theme::dim());
                    &owned
                }
                Slot::MoreBelow(n) => {
                    owned =
                        Line::styled(format!("{pad}{} {n} more", glyph::MORE_BELOW), theme::dim());
                    &owned
                }
                Slot::Footer => match &self.footer {
                    Some(line) => line,
                    None => continue,
                },
                Slot::Blank => continue,
            };
            crate::width::set_line(buf, area.x, y, line, area.width);
        }
    }
}

/// The slot under a cell, if the cell is inside the dialog.
fn slot_at(slots: &[Slot], area: Rect, column: u16, row: u16) -> Option<Slot> {
    if column < area.left() || column >= area.right() || row < area.top() || row >= area.bottom() {
        return None;
    }
    slots.get(usize::from(row - area.top())).copied()
}

fn choice_slots(heights: &[usize], start: usize, end: usize) -> Vec<Slot> {
    (start..end)
        .flat_map(|index| (0..heights[index]).map(move |row| Slot::Choice { index, row }))
        .collect()
}

/// The end (exclusive) of the choices shown from `start` in `height` rows, keeping a row for
/// each "more" marker needed. At least one choice shows (clipped if it must be).
fn window_end(heights: &[usize], start: usize, height: usize) -> usize {
    let mut used = usize::from(start > 0);
    let mut end = start;
    while end < heights.len() {
        let marker = usize::from(end + 1 < heights.len());
        if used + heights[end] + marker > height {
            break;
        }
        used += heights[end];
        end += 1;
    }
    if end == start && start < heights.len() {
        end = start + 1;
    }
    end
}

/// The first choice to show so that `selected` is visible, moving `scroll` as little as possible
/// and filling the rows when the choices end early.
fn adjust_scroll(heights: &[usize], selected: usize, scroll: usize, height: usize) -> usize {
    let mut start = scroll.min(selected);
    while start < selected && window_end(heights, start, height) <= selected {
        start += 1;
    }
    while start > 0 && window_end(heights, start - 1, height) == heights.len() {
        start -= 1;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_keeps_the_selection_visible() {
        let heights = [1, 1, 1, 1, 1, 1];
        // 4 rows: ↑ marker, two choices, ↓ marker.
        assert_eq!(window_end(&heights, 0, 4), 3);
        assert_eq!(adjust_scroll(&heights, 0, 0, 4), 0);
        assert_eq!(adjust_scroll(&heights, 3, 0, 4), 2);
        assert_eq!(window_end(&heights, 2, 4), 4);
        assert_eq!(adjust_scroll(&heights, 5, 0, 4), 3);
        assert_eq!(window_end(&heights, 3, 4), 6);
        // Moving back up scrolls only when the selection leaves the window.
        assert_eq!(adjust_scroll(&heights, 4, 3, 4), 3);
        assert_eq!(adjust_scroll(&heights, 2, 3, 4), 2);
    }

    #[test]
    fn sanitizes_tabs_and_controls() {
        assert_eq!(sanitize("a\tb\r\u{1b}c\nd"), "a    bc\nd");
        assert!(matches!(sanitize("plain"), Cow::Borrowed(_)));
    }
}
