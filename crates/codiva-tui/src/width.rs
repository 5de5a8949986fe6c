//! Display width and wrapping: the one implementation every widget uses, for drawing and for
//! mapping positions (caret, mouse) alike. East-Asian wide characters and emoji take 2 cells;
//! combining marks and zero-width joiners take 0; a grapheme cluster is never split.

use unicode_width::UnicodeWidthStr;

/// Cells `text` takes on one line (tabs count as 4, control characters as 0).
pub fn str_width(text: &str) -> usize {
    if is_plain_ascii(text) {
        return text.len();
    }
    graphemes(text).map(grapheme_width).sum()
}

/// `text`'s grapheme clusters with their byte offsets, as `grapheme_indices(true)` gives them,
/// without segmenting the ASCII in between: a printable ASCII character followed by ASCII (or
/// the end) is a cluster of its own (no rule joins it to what follows; a cluster only ever
/// begins at a boundary, where this always is). Everything else is segmented by the rules.
/// Chrome text is mostly ASCII with a `·` or an arrow here and there, drawn every frame; one
/// such character made a whole line go through segmentation.
pub fn grapheme_indices(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        let &byte = bytes.get(at)?;
        let end = if (0x20..0x7f).contains(&byte) && bytes.get(at + 1).is_none_or(u8::is_ascii) {
            at + 1
        } else {
            unicode_segmentation::GraphemeCursor::new(at, text.len(), true)
                .next_boundary(text, 0)
                .ok()
                .flatten()
                .unwrap_or(text.len())
        };
        let start = at;
        at = end;
        Some((start, &text[start..end]))
    })
}

/// `text`'s grapheme clusters ([`grapheme_indices`] without the offsets).
pub fn graphemes(text: &str) -> impl Iterator<Item = &str> {
    grapheme_indices(text).map(|(_, grapheme)| grapheme)
}

/// Printable ASCII only: every byte is a grapheme of one cell (the fast path of wrapping and
/// measuring; grapheme segmentation was most of a streamed reply's wrapping cost).
fn is_plain_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// Cells one grapheme cluster takes.
pub fn grapheme_width(grapheme: &str) -> usize {
    match grapheme {
        "\t" => 4,
        g if g.chars().all(char::is_control) => 0,
        // The full-width ideographic space is wide, as terminals draw it.
        "\u{3000}" => 2,
        g => g.width().min(2),
    }
}

/// A piece of a wrapped line: byte range in the source and its width in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub start: usize,
    pub end: usize,
    pub width: usize,
}

/// Wraps one logical line (no `\n` inside) into rows of at most `width` cells. Rows break
/// where the Unicode line breaking rules (UAX #14) allow it — after a space, between two
/// ideographs or kana, never before `。` or `、` — taking the last such place that fits; a run
/// with no place to break is cut at a grapheme boundary. An empty line is one empty row (empty
/// lines keep their height). Trailing spaces stay on the row that ends with them, so the caret
/// after them has a place.
pub fn wrap_line(line: &str, width: usize) -> Vec<Row> {
    if is_plain_ascii(line) {
        wrap_ascii(line.as_bytes(), width)
    } else {
        wrap_graphemes(line, width, grapheme_cells(line))
    }
}

/// [`wrap_line`] for printable ASCII: one cell per byte, and a row may break only after a
/// space, so each row ends after the last space that fits, or is cut where it is full (the
/// rows [`wrap_graphemes`] gives, found a row at a time instead of a byte at a time: most of
/// a streamed reply).
fn wrap_ascii(line: &[u8], width: usize) -> Vec<Row> {
    let width = width.max(1);
    let mut rows = Vec::with_capacity(line.len() / width + 1);
    let mut start = 0;
    while line.len() - start > width {
        let end = match line[start..start + width].iter().rposition(|&b| b == b' ') {
            Some(space) => start + space + 1,
            None => start + width,
        };
        rows.push(Row {
            start,
            end,
            width: end - start,
        });
        start = end;
    }
    rows.push(Row {
        start,
        end: line.len(),
        width: line.len() - start,
    });
    rows
}

/// `line`'s grapheme clusters as (byte offset, whether it is whitespace, cells).
fn grapheme_cells(line: &str) -> impl Iterator<Item = (usize, bool, usize)> + '_ {
    grapheme_indices(line).map(|(i, grapheme)| {
        let space = grapheme.chars().all(char::is_whitespace);
        (i, space, grapheme_width(grapheme))
    })
}

/// Wraps `line` given its grapheme clusters as (byte offset, whether it is whitespace, cells).
fn wrap_graphemes(
    line: &str,
    width: usize,
    graphemes: impl Iterator<Item = (usize, bool, usize)>,
) -> Vec<Row> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut start = 0;
    let mut row_width = 0;
    // Byte offsets where the Unicode rules let a row begin next to a wide character, in order
    // (the end of the line is not one). Between two narrow characters a row begins only after
    // a space, as it always did: a URL or `well-known` stays whole.
    // (Printable ASCII has no wide character: no such place, and no need to look.)
    let wide_breaks: Vec<usize> = if is_plain_ascii(line) {
        Vec::new()
    } else {
        unicode_linebreak::linebreaks(line)
            .map(|(at, _)| at)
            .filter(|at| *at < line.len() && next_to_wide(line, *at))
            .collect()
    };
    let mut breaks = wide_breaks.into_iter().peekable();
    let mut after_space = false;
    // The last break opportunity in the current row: (byte offset, width up to it).
    let mut last_break: Option<(usize, usize)> = None;
    for (offset, space, w) in graphemes {
        while breaks.next_if(|at| *at < offset).is_some() {}
        let opportunity = breaks.next_if_eq(&offset).is_some();
        if (opportunity || after_space) && offset > start {
            last_break = Some((offset, row_width));
        }
        after_space = space;
        if row_width + w > width && row_width > 0 {
            match last_break {
                Some((at, at_width)) if at > start && at_width > 0 => {
                    rows.push(Row {
                        start,
                        end: at,
                        width: at_width,
                    });
                    row_width -= at_width;
                    start = at;
                }
                _ => {
                    rows.push(Row {
                        start,
                        end: offset,
                        width: row_width,
                    });
                    row_width = 0;
                    start = offset;
                }
            }
            last_break = None;
        }
        row_width += w;
    }
    rows.push(Row {
        start,
        end: line.len(),
        width: row_width,
    });
    rows
}

/// Whether `at` is next to a wide (East Asian) character.
fn next_to_wide(line: &str, at: usize) -> bool {
    let wide =
        |c: Option<char>| c.is_some_and(|c| unicode_width::UnicodeWidthChar::width(c) == Some(2));
    wide(line[..at].chars().next_back()) || wide(line[at..].chars().next())
}

/// Wraps text that may contain newlines: the rows of each line, in order, with byte ranges
/// into `text`.
pub fn wrap_text(text: &str, width: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        for row in wrap_line(line, width) {
            rows.push(Row {
                start: row.start + offset,
                end: row.end + offset,
                width: row.width,
            });
        }
        offset += line.len() + 1;
    }
    rows
}

/// Cuts `text` to at most `width` cells, ending with `…` when something was cut.
pub fn truncate(text: &str, width: usize) -> String {
    if str_width(text) <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for grapheme in graphemes(text) {
        let w = grapheme_width(grapheme);
        if used + w > width - 1 {
            break;
        }
        used += w;
        out.push_str(grapheme);
    }
    out.push('…');
    out
}

/// Pads or cuts `text` to exactly `width` cells.
pub fn fit(text: &str, width: usize) -> String {
    let mut out = truncate(text, width);
    let used = str_width(&out);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

/// The byte offset in `text` of the cell column `column` (the grapheme that covers it, or the
/// end): what a click or a vertical caret move lands on.
pub fn byte_at_column(text: &str, column: usize) -> usize {
    let mut used = 0;
    for (offset, grapheme) in grapheme_indices(text) {
        let w = grapheme_width(grapheme);
        if used + w > column {
            return offset;
        }
        used += w;
    }
    text.len()
}

/// Draws `line` at (`x`, `y`) in at most `max_width` cells: what ratatui's `Buffer::set_line`
/// draws, with printable ASCII spans written a byte a cell (ratatui segments every span into
/// grapheme clusters and measures each; the log's rows are mostly ASCII, drawn every frame).
pub fn set_line(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    y: u16,
    line: &ratatui::text::Line<'_>,
    max_width: u16,
) -> (u16, u16) {
    let mut remaining = max_width;
    let mut x = x;
    for span in line {
        if remaining == 0 {
            break;
        }
        let style = line.style.patch(span.style);
        let text = span.content.as_ref();
        let end = if is_plain_ascii(text) {
            let room = buf.area.right().saturating_sub(x).min(remaining);
            let cells = u16::try_from(text.len()).unwrap_or(u16::MAX).min(room);
            for (column, byte) in (x..x + cells).zip(text.bytes()) {
                buf[(column, y)].set_char(char::from(byte)).set_style(style);
            }
            x + cells
        } else {
            set_stringn(buf, x, y, text, remaining, style)
        };
        remaining = remaining.saturating_sub(end.saturating_sub(x));
        x = end;
    }
    (x, y)
}

/// ratatui's `Buffer::set_stringn` (the same cells, widths and cut), segmenting with
/// [`graphemes`]. Returns the column after the last cell written.
fn set_stringn(
    buf: &mut ratatui::buffer::Buffer,
    mut x: u16,
    y: u16,
    text: &str,
    max_width: u16,
    style: ratatui::style::Style,
) -> u16 {
    use ratatui::buffer::CellWidth as _;
    let mut remaining = buf.area.right().saturating_sub(x).min(max_width);
    for symbol in graphemes(text) {
        if symbol.contains(char::is_control) {
            continue;
        }
        let width = symbol.cell_width();
        if width == 0 {
            continue;
        }
        let Some(left) = remaining.checked_sub(width) else {
            break;
        };
        remaining = left;
        buf[(x, y)].set_symbol(symbol).set_style(style);
        let next = x + width;
        x += 1;
        // The cells a wide symbol covers are reset (they would be hidden by it).
        while x < next {
            buf[(x, y)].reset();
            x += 1;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_segmentation::UnicodeSegmentation;

    proptest::proptest! {
        /// The ASCII rows are the rows the general wrapping gives that text, at any width.
        #[test]
        fn ascii_rows_are_the_general_rows(line in "[ a-c.]{0,80}", width in 0usize..24) {
            let cells = line.bytes().enumerate().map(|(i, b)| (i, b == b' ', 1));
            proptest::prop_assert_eq!(
                wrap_ascii(line.as_bytes(), width),
                wrap_graphemes(&line, width, cells)
            );
        }

        /// Any text, multibyte and mixed with newlines, combining marks and emoji sequences, at
        /// any width (0 too): every cutting function returns whole characters within its width,
        /// and the rows of a text cover it in order on character boundaries.
        #[test]
        fn any_text_is_cut_on_boundaries_at_any_width(
            text in "[a \n\t\u{301}\u{200d}é日本🎌👩💻\u{10ffff}-]{0,60}",
            width in 0usize..12,
        ) {
            let cut = truncate(&text, width);
            proptest::prop_assert!(str_width(&cut) <= width);
            proptest::prop_assert_eq!(str_width(&fit(&text, width)), width);
            let mut end = 0;
            for row in wrap_text(&text, width) {
                proptest::prop_assert!(row.start >= end && row.start <= row.end);
                proptest::prop_assert!(text.is_char_boundary(row.start));
                proptest::prop_assert!(text.is_char_boundary(row.end));
                end = row.end;
            }
            for column in 0..=width + 2 {
                proptest::prop_assert!(text.is_char_boundary(byte_at_column(&text, column)));
            }
        }
    }

    #[test]
    fn graphemes_are_the_clusters_the_rules_give() {
        let texts = [
            "",
            "plain ascii",
            "a\u{301}b",         // a combining accent joins the letter before it
            "x\r\ny\n\tz\u{7f}", // CR LF is one cluster; controls alone
            "e\u{308}\u{301} 日本語 🎌 👍🏽 👨‍👩‍👧", // marks, wide, flags, modifiers, ZWJ
            "· ↑↓ choose · Enter allow · Esc back",
            "ｶﾞ halfwidth kana with a sound mark",
            "a\u{200d}b ok\u{fe0f}",
            "🇯🇵x",
        ];
        for text in texts {
            let ours: Vec<(usize, &str)> = grapheme_indices(text).collect();
            let theirs: Vec<(usize, &str)> = text.grapheme_indices(true).collect();
            assert_eq!(ours, theirs, "{text:?}");
        }
    }

    #[test]
    fn set_line_draws_what_ratatui_draws() {
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        use ratatui::style::{Color, Style};
        use ratatui::text::{Line, Span};
        let lines = [
            Line::from(vec![
                Span::styled("plain ascii, ", Style::default().fg(Color::Red)),
                Span::raw("日本語 and 🎌"),
                Span::styled(
                    " tail\tcut off at the edge of the area",
                    Style::default().bold(),
                ),
            ])
            .style(Style::default().bg(Color::Blue)),
            Line::from("short"),
            Line::from(""),
        ];
        for width in [0, 5, 17, 30, 60] {
            for x in [0, 3] {
                let area = Rect::new(0, 0, 40, 1);
                let mut ours = Buffer::empty(area);
                let mut theirs = Buffer::empty(area);
                for line in &lines {
                    let end = set_line(&mut ours, x, 0, line, width);
                    assert_eq!(
                        end,
                        theirs.set_line(x, 0, line, width),
                        "{line:?} at {width}"
                    );
                    assert_eq!(ours, theirs, "{line:?} at {width}");
                }
            }
        }
    }

    fn rows(text: &str, width: usize) -> Vec<&str> {
        wrap_line(text, width)
            .into_iter()
            .map(|row| &text[row.start..row.end])
            .collect()
    }

    #[test]
    fn widths() {
        assert_eq!(str_width("abc"), 3);
        assert_eq!(str_width("日本語"), 6);
        assert_eq!(str_width("🎌"), 2);
        assert_eq!(str_width("👩‍💻"), 2);
        assert_eq!(str_width("e\u{301}"), 1);
        assert_eq!(str_width("\u{3000}"), 2);
    }

    #[test]
    fn the_ascii_fast_path_wraps_as_grapheme_segmentation_does() {
        let samples = [
            "",
            " ",
            "a",
            "The **parser** reads line 12 of the input and hands each `event` to the reducer.",
            "averyveryverylongwordwithoutanybreakopportunityatall and then words",
            "  leading and trailing spaces   ",
            "x = [1, 2, 3]; // {braces} ~tilde~ |pipes| \\backslash",
        ];
        for text in samples {
            assert!(is_plain_ascii(text));
            for width in [1, 3, 7, 10, 40, 120] {
                let slow = wrap_graphemes(text, width, grapheme_cells(text));
                assert_eq!(wrap_line(text, width), slow, "{text:?} at {width}");
            }
            let slow: usize = text.graphemes(true).map(grapheme_width).sum();
            assert_eq!(str_width(text), slow);
        }
        assert!(!is_plain_ascii("tab\there"));
        assert!(!is_plain_ascii("日本"));
    }

    #[test]
    fn wraps_at_words_then_graphemes() {
        assert_eq!(rows("hello world foo", 11), ["hello ", "world foo"]);
        assert_eq!(rows("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(
            rows("日本語のテキスト", 5),
            ["日本", "語の", "テキ", "スト"]
        );
        assert_eq!(rows("", 10), [""]);
        assert_eq!(rows("a 👩‍💻 b", 3), ["a ", "👩‍💻 ", "b"]);
    }

    #[test]
    fn japanese_breaks_by_the_unicode_rules() {
        // Between kana and ideographs, never before `。` or `、`; English words stay whole.
        assert_eq!(
            rows(
                "設定ファイルを読みました。codiva を再起動してください。",
                16
            ),
            [
                "設定ファイルを読",
                "みました。",
                "codiva を再起動",
                "してください。"
            ]
        );
        assert_eq!(rows("これは、テスト。", 6), ["これ", "は、テ", "スト。"]);
        // Between narrow characters only at spaces: a URL stays whole.
        assert_eq!(
            rows("see https://example.com/docs now", 26),
            ["see ", "https://example.com/docs ", "now"]
        );
        // After a space even where the Unicode rules would not break (before `/`).
        assert_eq!(rows("run /model /prompt", 12), ["run /model ", "/prompt"]);
        // A long word with no place to break is cut at a grapheme.
        assert_eq!(
            rows("日本語のsupercalifragilistic", 10),
            ["日本語の", "supercalif", "ragilistic"]
        );
    }

    #[test]
    fn text_rows_keep_empty_lines() {
        let text = "a\n\nb";
        let rows = wrap_text(text, 10);
        assert_eq!(rows.len(), 3);
        assert_eq!(&text[rows[2].start..rows[2].end], "b");
    }

    #[test]
    fn truncate_and_fit() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("日本語", 5), "日本…");
        assert_eq!(fit("ab", 4), "ab  ");
        assert_eq!(str_width(&fit("日本語テキスト", 7)), 7);
    }

    #[test]
    fn columns_map_to_bytes() {
        assert_eq!(byte_at_column("日本", 0), 0);
        assert_eq!(byte_at_column("日本", 1), 0);
        assert_eq!(byte_at_column("日本", 2), 3);
        assert_eq!(byte_at_column("ab", 5), 2);
    }
}
