//! A small line diff for previews (an Edit's `old_string` → `new_string`, a Write's content):
//! the common prefix and suffix are trimmed, the middle is diffed by longest common subsequence
//! over lines, and the result is drawn as unified-diff rows with `+`/`-` gutters, a few lines of
//! context around each change, and a row budget.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::dialog::sanitize;
use crate::theme;
use crate::width;

/// The largest LCS table (old lines × new lines, after trimming) we fill; beyond it the middle
/// is shown as "all removed, then all added", which is still a correct (if coarse) diff.
const MAX_TABLE_CELLS: usize = 1 << 20;

/// How a line of the diff relates the two texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Same,
    Removed,
    Added,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub change: Change,
    pub text: String,
}

impl DiffLine {
    fn new(change: Change, text: &str) -> Self {
        DiffLine {
            change,
            text: text.to_owned(),
        }
    }
}

/// The lines of `text`: no trailing empty line for a final `\n`, `\r` of CRLF dropped, and an
/// empty text has no lines.
pub fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

/// The line diff from `old` to `new`; in a changed block removed lines come before added ones.
pub fn diff_lines(old: &str, new: &str) -> Vec<DiffLine> {
    let a = split_lines(old);
    let b = split_lines(new);
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let mut out: Vec<DiffLine> = a[..prefix]
        .iter()
        .map(|line| DiffLine::new(Change::Same, line))
        .collect();
    diff_middle(
        &a[prefix..a.len() - suffix],
        &b[prefix..b.len() - suffix],
        &mut out,
    );
    out.extend(
        a[a.len() - suffix..]
            .iter()
            .map(|line| DiffLine::new(Change::Same, line)),
    );
    out
}

fn diff_middle(a: &[&str], b: &[&str], out: &mut Vec<DiffLine>) {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 || n.saturating_mul(m) > MAX_TABLE_CELLS {
        out.extend(a.iter().map(|line| DiffLine::new(Change::Removed, line)));
        out.extend(b.iter().map(|line| DiffLine::new(Change::Added, line)));
        return;
    }
    // lcs[i * (m + 1) + j]: length of the LCS of a[i..] and b[j..].
    let cols = m + 1;
    let mut lcs = vec![0u32; (n + 1) * cols];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * cols + j] = if a[i] == b[j] {
                lcs[(i + 1) * cols + j + 1] + 1
            } else {
                lcs[(i + 1) * cols + j].max(lcs[i * cols + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            out.push(DiffLine::new(Change::Same, a[i]));
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * cols + j] >= lcs[i * cols + j + 1] {
            out.push(DiffLine::new(Change::Removed, a[i]));
            i += 1;
        } else {
            out.push(DiffLine::new(Change::Added, b[j]));
            j += 1;
        }
    }
    out.extend(
        a[i..]
            .iter()
            .map(|line| DiffLine::new(Change::Removed, line)),
    );
    out.extend(b[j..].iter().map(|line| DiffLine::new(Change::Added, line)));
}

/// Every line of `text` as an added line (a new file's content).
pub fn all_added(text: &str) -> Vec<DiffLine> {
    split_lines(text)
        .into_iter()
        .map(|line| DiffLine::new(Change::Added, line))
        .collect()
}

/// One row source of a preview: a diff line, or a run of unchanged lines left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item<'a> {
    Line(&'a DiffLine),
    Skipped,
}

/// The lines worth showing: every change with `context` unchanged lines on each side; the other
/// unchanged runs collapse into one `⋯` row. Several diffs (a MultiEdit) are separated by `⋯`.
fn hunk_items(diffs: &[Vec<DiffLine>], context: usize) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    for (k, diff) in diffs.iter().enumerate() {
        if k > 0 {
            items.push(Item::Skipped);
        }
        let mut keep = vec![false; diff.len()];
        for (i, line) in diff.iter().enumerate() {
            if line.change != Change::Same {
                let from = i.saturating_sub(context);
                let to = (i + context + 1).min(diff.len());
                keep[from..to].iter_mut().for_each(|k| *k = true);
            }
        }
        let mut skipping = false;
        for (line, keep) in diff.iter().zip(keep) {
            if keep {
                items.push(Item::Line(line));
                skipping = false;
            } else if !skipping {
                items.push(Item::Skipped);
                skipping = true;
            }
        }
    }
    // A leading or trailing `⋯` says nothing the reader needs.
    while items.first() == Some(&Item::Skipped) {
        items.remove(0);
    }
    while items.last() == Some(&Item::Skipped) {
        items.pop();
    }
    items
}

/// A preview drawn for one width: the rows, and how many diff lines did not fit the budget.
#[derive(Debug, Clone, Default)]
pub struct Preview {
    pub rows: Vec<Line<'static>>,
    pub hidden_lines: usize,
}

/// Draws `diffs` (one per edit) as unified-diff rows indented by `indent` cells, wrapping long
/// lines to `width`, stopping after `max_rows` rows. A diff without changes draws
/// "(no changes)".
pub fn render_diffs(
    diffs: &[Vec<DiffLine>],
    context: usize,
    indent: usize,
    width: usize,
    max_rows: usize,
) -> Preview {
    let items = hunk_items(diffs, context);
    let pad = " ".repeat(indent);
    if !items.iter().any(|item| matches!(item, Item::Line(_))) {
        return Preview {
            rows: vec![Line::styled(format!("{pad}(no changes)"), theme::dim())],
            hidden_lines: 0,
        };
    }
    let text_width = width.saturating_sub(indent + 2).max(1);
    let mut preview = Preview::default();
    for (k, item) in items.iter().enumerate() {
        let rows = match item {
            Item::Skipped => vec![Line::styled(format!("{pad}  ⋯"), theme::dim())],
            Item::Line(line) => line_rows(line, &pad, text_width),
        };
        let room = max_rows.saturating_sub(preview.rows.len());
        if rows.len() > room {
            if preview.rows.is_empty() {
                preview.rows.extend(rows.into_iter().take(room));
            }
            preview.hidden_lines = items[k..]
                .iter()
                .filter(|item| matches!(item, Item::Line(_)))
                .count();
            break;
        }
        preview.rows.extend(rows);
    }
    preview
}

fn line_rows(line: &DiffLine, pad: &str, text_width: usize) -> Vec<Line<'static>> {
    let (gutter, style): (&str, Style) = match line.change {
        Change::Same => (" ", theme::text()),
        Change::Removed => ("-", theme::diff_removed()),
        Change::Added => ("+", theme::diff_added()),
    };
    let text = sanitize(&line.text);
    width::wrap_line(&text, text_width)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let gutter = if i == 0 { gutter } else { " " };
            Line::from(vec![
                Span::raw(pad.to_owned()),
                Span::styled(format!("{gutter} "), style),
                Span::styled(text[row.start..row.end].trim_end().to_owned(), style),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compact(diff: &[DiffLine]) -> Vec<String> {
        diff.iter()
            .map(|line| {
                let mark = match line.change {
                    Change::Same => ' ',
                    Change::Removed => '-',
                    Change::Added => '+',
                };
                format!("{mark}{}", line.text)
            })
            .collect()
    }

    #[test]
    fn diffs_lines() {
        assert_eq!(
            compact(&diff_lines("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n")),
            [" a", "-b", "+B", " c", " d", "+e"]
        );
        assert_eq!(compact(&diff_lines("", "x")), ["+x"]);
        assert_eq!(compact(&diff_lines("x\r\ny", "x\ny")), [" x", " y"]);
        assert_eq!(
            compact(&diff_lines("a\nx\nb\ny\nc", "a\nb\nc")),
            [" a", "-x", " b", "-y", " c"]
        );
    }

    #[test]
    fn hunks_keep_context_and_collapse_the_rest() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old.replace("10\n", "ten\n");
        let diff = diff_lines(&old, &new);
        let preview = render_diffs(&[diff], 2, 0, 40, 100);
        let rows: Vec<String> = preview.rows.iter().map(ToString::to_string).collect();
        assert_eq!(rows, ["  8", "  9", "- 10", "+ ten", "  11", "  12"]);
    }

    #[test]
    fn budget_counts_hidden_lines() {
        let added = all_added("1\n2\n3\n4\n5\n");
        let preview = render_diffs(&[added], 3, 2, 40, 3);
        assert_eq!(preview.rows.len(), 3);
        assert_eq!(preview.hidden_lines, 2);
    }
}
