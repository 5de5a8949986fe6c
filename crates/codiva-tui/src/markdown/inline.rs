//! Styled text: the sanitising choke point, a buffer of styled runs, wrapping it into rows and
//! cutting rows to a width. Every piece of model text reaches a `Span` through [`sanitize_into`].

use ratatui::style::Style;
use unicode_segmentation::UnicodeSegmentation;

use crate::width::{grapheme_width, str_width, wrap_line};

/// Cells a tab becomes outside code blocks (the width `width::str_width` gives a tab).
const TAB: &str = "    ";

/// A run of text in one style; `link` indexes the renderer's URL table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Piece {
    pub text: String,
    pub style: Style,
    pub link: Option<usize>,
}

impl Piece {
    pub fn new(text: impl Into<String>, style: Style) -> Self {
        Self {
            text: text.into(),
            style,
            link: None,
        }
    }
}

/// Characters never passed to the terminal: C0 and C1 controls, DEL (ESC, BEL, CSI `\u{9b}`,
/// `\r`, …) and the bidirectional overrides that would reorder what the user reads.
pub(crate) fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Appends `text` without unsafe characters; a tab becomes spaces.
pub(crate) fn sanitize_into(out: &mut String, text: &str) {
    if !text.chars().any(is_unsafe) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        if c == '\t' {
            out.push_str(TAB);
        } else if !is_unsafe(c) {
            out.push(c);
        }
    }
}

pub(crate) fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    sanitize_into(&mut out, text);
    out
}

/// One line of code: tabs expanded to 4-column stops, unsafe characters removed.
pub(crate) fn sanitize_code_line(line: &str) -> String {
    if !line.chars().any(is_unsafe) {
        return line.to_owned();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut column = 0;
    for grapheme in line.graphemes(true) {
        if grapheme == "\t" {
            let pad = 4 - column % 4;
            out.extend(std::iter::repeat_n(' ', pad));
            column += pad;
        } else if grapheme.chars().any(is_unsafe) {
            // `\r\n` and friends: keep whatever printable part the cluster has.
            out.extend(grapheme.chars().filter(|&c| !is_unsafe(c)));
        } else {
            out.push_str(grapheme);
            column += grapheme_width(grapheme);
        }
    }
    out
}

/// Cells `text` takes (ASCII fast path over [`str_width`]).
pub(crate) fn measure(text: &str) -> usize {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        text.len()
    } else {
        str_width(text)
    }
}

pub(crate) fn pieces_width(pieces: &[Piece]) -> usize {
    pieces.iter().map(|piece| measure(&piece.text)).sum()
}

#[derive(Debug, Clone, Copy)]
struct Run {
    start: usize,
    style: Style,
    link: Option<usize>,
}

/// Inline content of one block: sanitised text plus the style runs over it. `\n` is a hard
/// line break.
#[derive(Debug, Default)]
pub(crate) struct StyledText {
    text: String,
    runs: Vec<Run>,
}

impl StyledText {
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn mark(&mut self, style: Style, link: Option<usize>) {
        let same = self
            .runs
            .last()
            .is_some_and(|run| run.style == style && run.link == link);
        if !same {
            self.runs.push(Run {
                start: self.text.len(),
                style,
                link,
            });
        }
    }

    /// Appends model text (sanitised here).
    pub fn push(&mut self, text: &str, style: Style, link: Option<usize>) {
        if text.is_empty() {
            return;
        }
        self.mark(style, link);
        sanitize_into(&mut self.text, text);
    }

    pub fn push_break(&mut self) {
        self.text.push('\n');
    }

    /// Rows of at most `width` cells (hard breaks kept, trailing spaces of a row dropped).
    pub fn wrap(&self, width: usize) -> Vec<Vec<Piece>> {
        let mut rows = Vec::new();
        let mut offset = 0;
        let text = self.text.strip_suffix('\n').unwrap_or(&self.text);
        for line in text.split('\n') {
            for row in wrap_line(line, width) {
                let start = offset + row.start;
                let end = offset + line[..row.end].trim_end_matches(' ').len().max(row.start);
                rows.push(self.pieces(start, end));
            }
            offset += line.len() + 1;
        }
        rows
    }

    /// Everything on one row (hard breaks become spaces): a table cell.
    pub fn single_row(&self) -> Vec<Piece> {
        let mut pieces = self.pieces(0, self.text.len());
        for piece in &mut pieces {
            if piece.text.contains('\n') {
                piece.text = piece.text.replace('\n', " ");
            }
        }
        pieces
    }

    /// The styled pieces covering bytes `start..end`.
    fn pieces(&self, start: usize, end: usize) -> Vec<Piece> {
        let mut pieces = Vec::new();
        let first = self.runs.partition_point(|run| run.start <= start);
        let mut index = first.saturating_sub(1);
        while index < self.runs.len() {
            let run = self.runs[index];
            if run.start >= end {
                break;
            }
            let run_end = self
                .runs
                .get(index + 1)
                .map_or(self.text.len(), |next| next.start);
            let from = run.start.max(start);
            let to = run_end.min(end);
            if from < to {
                pieces.push(Piece {
                    text: self.text[from..to].to_owned(),
                    style: run.style,
                    link: run.link,
                });
            }
            index += 1;
        }
        pieces
    }
}

/// Cuts `pieces` to `width` cells, ending with `…` (in `ellipsis` style) when something was cut.
/// Returns the pieces and the width they take.
pub(crate) fn cut(pieces: Vec<Piece>, width: usize, ellipsis: Style) -> (Vec<Piece>, usize) {
    let total = pieces_width(&pieces);
    if total <= width {
        return (pieces, total);
    }
    if width == 0 {
        return (Vec::new(), 0);
    }
    let budget = width - 1;
    let mut used = 0;
    let mut out = Vec::new();
    for mut piece in pieces {
        let piece_width = measure(&piece.text);
        if used + piece_width <= budget {
            used += piece_width;
            out.push(piece);
            continue;
        }
        let mut end = 0;
        for (offset, grapheme) in piece.text.grapheme_indices(true) {
            let w = grapheme_width(grapheme);
            if used + w > budget {
                break;
            }
            used += w;
            end = offset + grapheme.len();
        }
        if end > 0 {
            piece.text.truncate(end);
            out.push(piece);
        }
        break;
    }
    out.push(Piece::new("…", ellipsis));
    (out, used + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_controls_and_expands_tabs() {
        assert_eq!(sanitize("a\x1b[2Jb\x07c\u{9b}1m\r"), "a[2Jbc1m");
        assert_eq!(sanitize("a\tb"), "a    b");
        assert_eq!(sanitize("\u{202e}evil"), "evil");
        assert_eq!(sanitize_code_line("\tx\ty"), "    x   y");
        assert_eq!(sanitize_code_line("ab\r"), "ab");
    }

    #[test]
    fn cut_keeps_width() {
        let pieces = vec![
            Piece::new("日本語", Style::default()),
            Piece::new("abc", Style::default()),
        ];
        let (out, used) = cut(pieces, 6, Style::default());
        let text: String = out.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(text, "日本…");
        assert_eq!(used, 5);
    }
}
