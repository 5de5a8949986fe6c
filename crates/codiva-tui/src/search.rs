//! Search in rows of text (the log, the full-message view): `/` opens a prompt, Enter jumps to
//! the first match at or below the top row, `n`/`N` go to the next and previous one, wrapping
//! around the ends with a notice, and every match on screen is highlighted. Matching is
//! case-insensitive (Unicode lower case, so it works for any script, CJK included) inside one
//! row as drawn: a match that a wrap splits over two rows is not found.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::theme;
use crate::width::grapheme_width;

/// Longest query, in characters.
const MAX_QUERY: usize = 200;

/// A search over some rows: its query, being typed or done.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    /// The prompt takes the keys.
    pub editing: bool,
    /// The row of the match last jumped to (`n`/`N` go on from it).
    pub current: Option<usize>,
}

/// What a key did to a search prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKey {
    /// The query changed (or nothing happened).
    Edited,
    /// Enter: search for the query.
    Submit,
    /// Esc: the search ends.
    Cancel,
}

impl Search {
    /// An empty prompt taking the keys.
    pub fn prompt() -> Self {
        Search {
            query: String::new(),
            editing: true,
            current: None,
        }
    }

    /// A key while the prompt is open.
    pub fn key(&mut self, key: KeyEvent) -> PromptKey {
        match key.code {
            KeyCode::Enter => {
                self.editing = false;
                if self.query.is_empty() {
                    PromptKey::Cancel
                } else {
                    PromptKey::Submit
                }
            }
            KeyCode::Esc => PromptKey::Cancel,
            KeyCode::Backspace => {
                self.query.pop();
                PromptKey::Edited
            }
            KeyCode::Char(c)
                if !key.modifiers.contains(KeyModifiers::CONTROL)
                    && !c.is_control()
                    && self.query.chars().count() < MAX_QUERY =>
            {
                self.query.push(c);
                PromptKey::Edited
            }
            _ => PromptKey::Edited,
        }
    }

    /// The prompt's line (`/query`), for a footer.
    pub fn prompt_line(&self) -> String {
        format!("/{}", self.query)
    }
}

/// The byte ranges of `line` that match `query`, case-insensitively, left to right and not
/// overlapping (none for an empty query).
pub fn matches(line: &str, query: &str) -> Vec<(usize, usize)> {
    let needle: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
    if needle.is_empty() {
        return Vec::new();
    }
    // Each lower-case char of `line` with the byte range of the char it came from.
    let hay: Vec<(char, usize, usize)> = line
        .char_indices()
        .flat_map(|(at, c)| {
            let end = at + c.len_utf8();
            c.to_lowercase().map(move |lower| (lower, at, end))
        })
        .collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i..i + needle.len()]
            .iter()
            .zip(&needle)
            .all(|((c, _, _), n)| c == n)
        {
            let (start, end) = (hay[i].1, hay[i + needle.len() - 1].2);
            if found.last().is_none_or(|&(_, last_end)| start >= last_end) {
                found.push((start, end));
            }
            i += needle.len();
        } else {
            i += 1;
        }
    }
    found
}

/// Whether `query` matches across the break between row `row` and the row after it, `next`
/// (a line the wrapping cut: joined at the break with a space, as a wrapped word gap, and
/// without one, as a word cut mid-way or CJK text); the match must start in `row`.
pub fn spans_break(row: &str, next: &str, query: &str) -> bool {
    let head = row.trim_end();
    let tail = next.trim_start();
    if head.is_empty() || tail.is_empty() || query.is_empty() {
        return false;
    }
    [format!("{head} {tail}"), format!("{head}{tail}")]
        .iter()
        .any(|joined| {
            matches(joined, query)
                .iter()
                .any(|&(start, end)| start < head.len() && end > head.len())
        })
}

/// Where a search landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub row: usize,
    /// It went past the last row to the first (or back past the first to the last).
    pub wrapped: bool,
}

/// Where the next search of `rows` rows starts: after (`forward`) or before the `current`
/// match, or at `top` without one; and whether getting there went round an end.
pub fn start(rows: usize, top: usize, current: Option<usize>, forward: bool) -> (usize, bool) {
    let last = rows.saturating_sub(1);
    match current {
        None => (top.min(last), false),
        Some(row) if forward && row < last => (row + 1, false),
        Some(_) if forward => (0, true),
        Some(row) => match row.min(last).checked_sub(1) {
            Some(before) => (before, false),
            None => (last, true),
        },
    }
}

/// The first of `rows` rows (`row(i)` gives row `i`'s text) that matches `query`, from `from`
/// (included) forward, or backward from `from` (included); wraps around the ends once.
pub fn find<'a>(
    rows: usize,
    row: impl Fn(usize) -> Option<&'a str>,
    query: &str,
    from: usize,
    forward: bool,
) -> Option<Found> {
    if rows == 0 || query.is_empty() {
        return None;
    }
    let from = from.min(rows - 1);
    let hit = |i: usize| {
        row(i).is_some_and(|text| {
            !matches(text, query).is_empty()
                || row(i + 1).is_some_and(|next| spans_break(text, next, query))
        })
    };
    let order: Box<dyn Iterator<Item = (usize, bool)>> = if forward {
        Box::new(
            (from..rows)
                .map(|i| (i, false))
                .chain((0..from).map(|i| (i, true))),
        )
    } else {
        Box::new(
            (0..=from)
                .rev()
                .map(|i| (i, false))
                .chain((from + 1..rows).rev().map(|i| (i, true))),
        )
    };
    order
        .into_iter()
        .find(|&(i, _)| hit(i))
        .map(|(row, wrapped)| Found { row, wrapped })
}

/// Paints every match of `query` in `area` of `buf` (after the rows were drawn): the text is
/// read back from the cells, a wide character counted once.
pub fn highlight(buf: &mut Buffer, area: Rect, query: &str) {
    let area = area.intersection(buf.area);
    if query.is_empty() {
        return;
    }
    for y in area.top()..area.bottom() {
        // The row's text and, for each byte range of a grapheme, its cell and width.
        let mut text = String::new();
        let mut cells: Vec<(usize, u16, usize)> = Vec::new();
        let mut x = area.left();
        while x < area.right() {
            let symbol = buf[(x, y)].symbol().to_owned();
            let width = grapheme_width(&symbol).max(1);
            cells.push((text.len(), x, width));
            text.push_str(&symbol);
            x = x.saturating_add(u16::try_from(width).unwrap_or(1));
        }
        for (start, end) in matches(&text, query) {
            for &(at, x, width) in &cells {
                if at >= start && at < end {
                    for dx in 0..width {
                        let cx = x.saturating_add(u16::try_from(dx).unwrap_or(0));
                        if cx < area.right() {
                            buf[(cx, y)].set_style(theme::search_match());
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
