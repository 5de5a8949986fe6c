//! Tables: box-drawing borders, columns sized to fit the width (the widest columns shrink
//! first), cells cut with `…`, alignment honoured.

use pulldown_cmark::Alignment;

use super::inline::{Piece, StyledText, cut, pieces_width};
use crate::theme;

/// A table being collected from parser events.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub aligns: Vec<Alignment>,
    pub rows: Vec<Vec<StyledText>>,
    /// How many of `rows` are the header (0 or 1).
    pub header_rows: usize,
}

/// Cell widths after fitting `natural` widths (plus borders) into `width` cells: the widest
/// columns are cut down first, to a common cap, and no column gets narrower than one cell.
fn fit_columns(natural: &[usize], width: usize) -> Vec<usize> {
    let borders = 3 * natural.len() + 1;
    let budget = width.saturating_sub(borders).max(natural.len());
    if natural.iter().sum::<usize>() <= budget {
        return natural.to_vec();
    }
    // The largest cap with sum(min(w, cap)) <= budget.
    let (mut low, mut high) = (1, natural.iter().copied().max().unwrap_or(1));
    while low < high {
        let mid = (low + high).div_ceil(2);
        let used: usize = natural.iter().map(|&w| w.min(mid)).sum();
        if used <= budget {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let mut widths: Vec<usize> = natural.iter().map(|&w| w.min(low).max(1)).collect();
    // Hand what is left to the capped columns, left to right.
    let mut left = budget.saturating_sub(widths.iter().sum());
    for (w, &n) in widths.iter_mut().zip(natural) {
        if left == 0 {
            break;
        }
        if *w < n {
            *w += 1;
            left -= 1;
        }
    }
    widths
}

fn border_row(widths: &[usize], left: &str, middle: &str, right: &str) -> Vec<Piece> {
    let mut text = String::from(left);
    for (index, &w) in widths.iter().enumerate() {
        if index > 0 {
            text.push_str(middle);
        }
        text.extend(std::iter::repeat_n('─', w + 2));
    }
    text.push_str(right);
    vec![Piece::new(text, theme::border())]
}

/// The table's rows, each at most `width` cells when the width allows one cell per column.
pub(crate) fn layout(table: &Table, width: usize) -> Vec<Vec<Piece>> {
    let columns = table
        .aligns
        .len()
        .max(table.rows.iter().map(Vec::len).max().unwrap_or(0));
    if columns == 0 {
        return Vec::new();
    }
    let cells: Vec<Vec<Vec<Piece>>> = table
        .rows
        .iter()
        .map(|row| row.iter().map(StyledText::single_row).collect())
        .collect();
    let mut natural = vec![1; columns];
    for row in &cells {
        for (column, cell) in row.iter().enumerate() {
            natural[column] = natural[column].max(pieces_width(cell));
        }
    }
    let widths = fit_columns(&natural, width);

    let mut out = vec![border_row(&widths, "┌", "┬", "┐")];
    for (index, row) in cells.into_iter().enumerate() {
        if index > 0 && index == table.header_rows {
            out.push(border_row(&widths, "├", "┼", "┤"));
        }
        let mut line = Vec::new();
        let mut row = row.into_iter();
        for (column, &w) in widths.iter().enumerate() {
            line.push(Piece::new(
                if column == 0 { "│ " } else { " │ " },
                theme::border(),
            ));
            let cell = row.next().unwrap_or_default();
            let ellipsis = cell.last().map_or(theme::text(), |piece| piece.style);
            let (cell, used) = cut(cell, w, ellipsis);
            let pad = w - used.min(w);
            let (before, after) = match table.aligns.get(column) {
                Some(Alignment::Right) => (pad, 0),
                Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                _ => (0, pad),
            };
            if before > 0 {
                line.push(Piece::new(" ".repeat(before), theme::text()));
            }
            line.extend(cell);
            if after > 0 {
                line.push(Piece::new(" ".repeat(after), theme::text()));
            }
        }
        line.push(Piece::new(" │", theme::border()));
        out.push(line);
    }
    out.push(border_row(&widths, "└", "┴", "┘"));
    out
}

#[cfg(test)]
mod tests {
    use super::fit_columns;

    #[test]
    fn widest_columns_shrink_first() {
        // Borders take 3 * 3 + 1 = 10 cells.
        assert_eq!(fit_columns(&[5, 30, 10], 80), [5, 30, 10]);
        assert_eq!(fit_columns(&[5, 30, 10], 40), [5, 15, 10]);
        assert_eq!(fit_columns(&[5, 30, 20], 40), [5, 13, 12]);
        assert_eq!(fit_columns(&[50, 50], 20), [7, 6]);
        assert_eq!(fit_columns(&[4, 4], 3), [1, 1]);
    }
}
