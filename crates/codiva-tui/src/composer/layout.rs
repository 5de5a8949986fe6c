//! The composer's geometry: one function maps text to visual rows at a width, and everything
//! that needs positions (drawing, the caret, ↑↓, Home/End, clicks) goes through it.

use crate::width::{self, Row};

/// Cells in front of each row: the prompt glyph and a space.
pub(crate) const GUTTER: u16 = 2;

/// The wrap width for a composer `area_width` cells wide: the gutter and one cell at the right
/// edge are kept free, so a caret after a full row still has a cell of its own.
pub(crate) fn wrap_width(area_width: u16) -> usize {
    usize::from(area_width.saturating_sub(GUTTER + 1)).max(1)
}

/// The visual rows of `text` (at least one; empty lines keep their row).
pub(crate) fn rows(text: &str, wrap_width: usize) -> Vec<Row> {
    width::wrap_text(text, wrap_width)
}

/// Whether `rows[index]` continues on the next row (a soft wrap, not a newline).
fn wraps_into_next(rows: &[Row], index: usize) -> bool {
    rows.get(index + 1)
        .is_some_and(|next| next.start == rows[index].end)
}

/// The visual row and cell column of the caret.
pub(crate) fn caret_position(
    text: &str,
    rows: &[Row],
    caret: usize,
    upstream: bool,
) -> (usize, usize) {
    let mut index = rows.iter().rposition(|row| row.start <= caret).unwrap_or(0);
    if upstream && index > 0 && rows[index].start == caret && wraps_into_next(rows, index - 1) {
        index -= 1;
    }
    let Some(row) = rows.get(index) else {
        return (0, 0);
    };
    let end = caret.clamp(row.start, row.end);
    (index, width::str_width(&text[row.start..end]))
}

/// The caret offset (and its upstream flag) at cell `column` of visual row `index`.
pub(crate) fn caret_at(text: &str, rows: &[Row], index: usize, column: usize) -> (usize, bool) {
    let Some(row) = rows.get(index) else {
        return (text.len(), false);
    };
    let in_row = &text[row.start..row.end];
    let mut offset = row.start + width::byte_at_column(in_row, column);
    // A soft-wrapped row ends where the next begins; past its text, stay on this row.
    let soft = wraps_into_next(rows, index);
    if soft && offset == row.end {
        return (offset, true);
    }
    if offset > row.end {
        offset = row.end;
    }
    (offset, false)
}

/// The start and end offsets of visual row `index`, the end with its upstream flag.
pub(crate) fn row_bounds(rows: &[Row], index: usize) -> Option<(usize, usize, bool)> {
    let row = rows.get(index)?;
    Some((row.start, row.end, wraps_into_next(rows, index)))
}
