//! Display width and wrapping: the one implementation every widget uses, for drawing and for
//! mapping positions (caret, mouse) alike. East-Asian wide characters and emoji take 2 cells;
//! combining marks and zero-width joiners take 0; a grapheme cluster is never split.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Cells `text` takes on one line (tabs count as 4, control characters as 0).
pub fn str_width(text: &str) -> usize {
    text.graphemes(true).map(grapheme_width).sum()
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
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut start = 0;
    let mut row_width = 0;
    // Byte offsets where the Unicode rules let a row begin next to a wide character, in order
    // (the end of the line is not one). Between two narrow characters a row begins only after
    // a space, as it always did: a URL or `well-known` stays whole.
    let mut breaks = unicode_linebreak::linebreaks(line)
        .map(|(at, _)| at)
        .filter(|at| *at < line.len() && next_to_wide(line, *at))
        .peekable();
    let mut after_space = false;
    // The last break opportunity in the current row: (byte offset, width up to it).
    let mut last_break: Option<(usize, usize)> = None;
    for (offset, grapheme) in line.grapheme_indices(true) {
        while breaks.next_if(|at| *at < offset).is_some() {}
        let opportunity = breaks.next_if_eq(&offset).is_some();
        if (opportunity || after_space) && offset > start {
            last_break = Some((offset, row_width));
        }
        after_space = grapheme.chars().all(char::is_whitespace);
        let w = grapheme_width(grapheme);
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
    for grapheme in text.graphemes(true) {
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
    for (offset, grapheme) in text.grapheme_indices(true) {
        let w = grapheme_width(grapheme);
        if used + w > column {
            return offset;
        }
        used += w;
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
