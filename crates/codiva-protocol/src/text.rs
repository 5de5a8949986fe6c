//! Text rules every side shares: how a long text is cut (and how a front end recognises a
//! cut text), and how a title that may come from model output is made safe for a list row or
//! a terminal title.

/// `index` moved back to the nearest character boundary of `text` (the text's length when past
/// its end): where a cut that must not exceed `index` bytes falls. The one way this codebase
/// rounds a byte offset into text.
pub fn floor_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    let mut at = index;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `index` moved forward to the nearest character boundary of `text` (the text's length when
/// past its end): where a cut that must drop at least `index` bytes falls.
pub fn ceil_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    let mut at = index;
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The longest start of `text` of at most `max` bytes that ends on a character boundary.
pub fn head(text: &str, max: usize) -> &str {
    &text[..floor_boundary(text, max)]
}

/// The longest end of `text` of at most `max` bytes that starts on a character boundary.
pub fn tail(text: &str, max: usize) -> &str {
    &text[ceil_boundary(text, text.len().saturating_sub(max))..]
}

/// Longest text kept for one assistant message or thinking block.
pub const MAX_MESSAGE_TEXT: usize = 256 * 1024;

/// Cuts `text` to at most `max` bytes on a character boundary, keeping its start and saying how
/// much was cut (`…\n… [N more bytes]`). Idempotent: a text this function (or [`truncate_front`])
/// already cut keeps its marker (the real size), so an entry capped again (copied into another
/// log on restore, or updated) does not report the size of the marker instead.
pub fn truncate(mut text: String, max: usize) -> String {
    if text.len() <= max || cut(&text).is_some_and(|cut| cut.kept.len() <= max) {
        return text;
    }
    let at = floor_boundary(&text, max);
    let total = text.len();
    text.truncate(at);
    text.push_str(&format!(
        "{TRUNCATION_MARKER_START}{} more bytes]",
        total - at
    ));
    text
}

/// Cuts `text` to at most `max` bytes keeping its end, for a reply whose reader followed its
/// tail: `[N more bytes] …\n` then the kept end, which starts where [`tail_start`] says (a line
/// outside a code fence where it can). Idempotent like [`truncate`], and a text cut before
/// this existed (its head kept, from an old log) stays as it is.
pub fn truncate_front(text: String, max: usize) -> String {
    if text.len() <= max || cut(&text).is_some_and(|cut| cut.kept.len() <= max) {
        return text;
    }
    let at = tail_start(&text, max);
    front_marked(at, &text[at..])
}

/// `kept`, the end of a text whose first `cut` bytes are not kept, in [`truncate_front`]'s form
/// (`kept` alone when nothing was cut).
pub fn front_marked(cut: usize, kept: &str) -> String {
    if cut == 0 {
        return kept.to_owned();
    }
    format!("{FRONT_MARKER_START}{cut}{FRONT_MARKER_END}{kept}")
}

/// Where the kept end of `text` starts when at most `max` bytes of it are kept: the first
/// [`next_block_start`] at or after the earliest place allowed, so the kept part renders as
/// Markdown the way it did in the whole text; else the first line start there that is not inside
/// a fenced code block; else the first line start; else a character boundary. A streaming
/// reply's front is dropped at the same block starts, so both show the same rows.
pub fn tail_start(text: &str, max: usize) -> usize {
    let earliest = ceil_boundary(text, text.len().saturating_sub(max));
    if earliest == 0 {
        return 0;
    }
    let mut block = 0;
    while let Some(next) = next_block_start(text, block) {
        if next >= earliest {
            return next;
        }
        block = next;
    }
    let mut in_fence = false;
    let mut first_line = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if start >= earliest && start < text.len() {
            first_line.get_or_insert(start);
            if !in_fence {
                return start;
            }
        }
        if is_fence(line) {
            in_fence = !in_fence;
        }
        start += line.len();
    }
    first_line.unwrap_or(earliest)
}

/// The first place after `from` (a line start outside any fenced code block) where a top-level
/// Markdown block starts that nothing before it reaches into: a complete line outside a fenced
/// code block, after a blank line, that starts in column 0 with neither a list marker, a quote
/// nor HTML. Markdown rendered in pieces cut there reads as the whole rendered at once, one
/// blank row between the pieces. `None` when there is none yet.
pub fn next_block_start(text: &str, from: usize) -> Option<usize> {
    BlockScan::new(from).next(text)
}

/// [`next_block_start`] over a text that grows: each call reads only what was added since the
/// last (a growing text is read once in all, however it arrives).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockScan {
    from: usize,
    /// The start of the first line not read yet.
    line: usize,
    /// How far that line was searched for its end.
    searched: usize,
    in_fence: bool,
    after_blank: bool,
}

impl BlockScan {
    /// A scan from `from`, a line start outside any fenced code block.
    pub fn new(from: usize) -> Self {
        Self {
            from,
            line: from,
            searched: from,
            in_fence: false,
            after_blank: false,
        }
    }

    /// The next block start in `text` (the text this scan read, grown), or `None` until the
    /// text has one.
    pub fn next(&mut self, text: &str) -> Option<usize> {
        while let Some(end) = text[self.searched.min(text.len())..].find('\n') {
            let end = self.searched + end + 1;
            let line = &text[self.line..end];
            let start = self.line;
            self.line = end;
            self.searched = end;
            if start > self.from
                && !self.in_fence
                && self.after_blank
                && starts_top_level_block(line)
            {
                // Read again from here: the block start is the next scan's first line.
                *self = Self::new(start);
                return Some(start);
            }
            if is_fence(line) {
                self.in_fence = !self.in_fence;
            }
            self.after_blank = !self.in_fence && line.trim().is_empty();
        }
        self.searched = text.len();
        None
    }

    /// The scan of the same text with its first `bytes` dropped (`bytes` at most where the scan
    /// started).
    pub fn shifted(self, bytes: usize) -> Self {
        Self {
            from: self.from - bytes,
            line: self.line - bytes,
            searched: self.searched - bytes,
            ..self
        }
    }
}

/// A line that starts a block in column 0 that no later line can join from before it.
fn starts_top_level_block(line: &str) -> bool {
    let Some(first) = line.chars().next() else {
        return false;
    };
    if first.is_whitespace() || matches!(first, '>' | '<' | '-' | '*' | '+' | '|' | '[') {
        return false;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    !(digits > 0 && matches!(line.as_bytes().get(digits), Some(b'.' | b')')))
}

/// A line that opens or closes a fenced code block (three backticks or tildes, up to three
/// spaces in).
pub fn is_fence(line: &str) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    indent <= 3 && (rest.starts_with("```") || rest.starts_with("~~~"))
}

/// Which end of a cut text was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// [`truncate`]: the start, the marker after it.
    Head,
    /// [`truncate_front`]: the end, the marker before it.
    Tail,
}

/// A text [`truncate`] or [`truncate_front`] cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut<'a> {
    /// The part kept, without the marker.
    pub kept: &'a str,
    /// How many bytes were cut.
    pub cut: usize,
    pub end: Kept,
}

/// What [`truncate`] or [`truncate_front`] made of a text (`None` for a text with no marker).
pub fn cut(text: &str) -> Option<Cut<'_>> {
    if let Some(rest) = text.strip_prefix(FRONT_MARKER_START)
        && let Some((count, kept)) = rest.split_once(FRONT_MARKER_END)
        && let Some(cut) = byte_count(count)
    {
        return Some(Cut {
            kept,
            cut,
            end: Kept::Tail,
        });
    }
    let start = text.rfind(TRUNCATION_MARKER_START)?;
    let count = text[start + TRUNCATION_MARKER_START.len()..].strip_suffix(" more bytes]")?;
    Some(Cut {
        kept: &text[..start],
        cut: byte_count(count)?,
        end: Kept::Head,
    })
}

/// A text [`truncate`] or [`truncate_front`] cut: the part kept (without the marker) and how
/// many bytes were cut (`None` for a text with no marker).
pub fn cut_text(text: &str) -> Option<(&str, usize)> {
    cut(text).map(|cut| (cut.kept, cut.cut))
}

/// A marker's count: decimal digits only.
fn byte_count(digits: &str) -> Option<usize> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// How [`truncate`]'s marker starts.
const TRUNCATION_MARKER_START: &str = "\n… [";
/// How [`truncate_front`]'s marker starts and ends (the count between).
const FRONT_MARKER_START: &str = "[";
const FRONT_MARKER_END: &str = " more bytes] …\n";

/// The first line of `text`, cut to `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(max).collect();
    if line.chars().count() > max || text.lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// What a login command said after its prompt on the same line: Claude Code prints
/// `Paste code here if prompted > ` without a newline, so its answer to a code follows on that
/// line (`… > That doesn't look like the full code. …`). `None` when only the prompt is there.
pub fn after_prompt(line: &str) -> Option<&str> {
    let rest = match line.rfind("> ") {
        Some(at) => &line[at + 2..],
        None => line,
    };
    let rest = rest.trim();
    (!rest.is_empty() && !rest.ends_with('>')).then_some(rest)
}

/// The longest session title, in characters.
pub const MAX_TITLE_CHARS: usize = 80;

/// A title fit for a list row and a terminal title (it may come from model output): control
/// and bidirectional-override characters dropped, whitespace runs made one space, trimmed, at
/// most [`MAX_TITLE_CHARS`] characters. `None` when nothing is left.
pub fn sanitize_title(text: &str) -> Option<String> {
    sanitize_title_to(text, MAX_TITLE_CHARS)
}

/// A new session's title: the start of its prompt's first line (cut with `…`), sanitised as
/// [`sanitize_title`] does.
pub fn default_title(prompt: &str) -> String {
    let line = one_line(prompt, 50);
    sanitize_title(&line).unwrap_or_default()
}

/// As [`sanitize_title`], at most `max_chars` characters: a front end with room for more than
/// a title shows this much of a session's prompt in its place while the title is the
/// prompt's start ([`default_title`]).
pub fn sanitize_title_to(text: &str, max_chars: usize) -> Option<String> {
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let mut out = String::new();
    for word in text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().filter(|c| !bidi(*c) && !c.is_control()));
    }
    let out: String = out.trim().chars().take(max_chars).collect();
    let out = out.trim_end().to_owned();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Texts with characters of every UTF-8 length, combining marks and emoji sequences.
    const TEXTS: [&str; 5] = [
        "",
        "ascii only",
        "日本語のテキスト",
        "a é 日 🎌 e\u{301} 👩\u{200d}💻 z",
        "\u{10ffff}\u{80}\u{800}\u{10000}",
    ];

    #[test]
    fn every_cut_of_every_text_lands_on_a_boundary() {
        for text in TEXTS {
            for index in 0..=text.len() + 2 {
                let floor = floor_boundary(text, index);
                let ceil = ceil_boundary(text, index);
                assert!(text.is_char_boundary(floor) && text.is_char_boundary(ceil));
                assert!(floor <= index.min(text.len()) && ceil >= index.min(text.len()));
                // Nothing closer: no boundary lies strictly between the two and `index`.
                assert!((floor + 1..index.min(text.len())).all(|i| !text.is_char_boundary(i)));
                assert!((index + 1..ceil).all(|i| !text.is_char_boundary(i)));
                let head = head(text, index);
                let tail = tail(text, index);
                assert!(head.len() <= index && text.starts_with(head));
                assert!(tail.len() <= index && text.ends_with(tail));
                let cut = truncate(text.to_owned(), index);
                assert!(cut.starts_with(head), "{text:?} at {index}: {cut:?}");
            }
        }
    }

    /// Regression: a cut reply once kept its head, so the tail its reader followed while
    /// it streamed was gone when it completed. The front cut keeps the end, at most `max` bytes,
    /// on a character boundary, says how much went, reads back, and is idempotent.
    #[test]
    fn a_front_cut_keeps_the_end_of_every_text_at_every_size() {
        for text in TEXTS {
            for max in 0..=text.len() + 2 {
                let out = truncate_front(text.to_owned(), max);
                if text.len() <= max {
                    assert_eq!(out, text);
                    continue;
                }
                let cut = cut(&out).unwrap();
                assert_eq!(cut.end, Kept::Tail, "{text:?} at {max}: {out:?}");
                assert!(cut.kept.len() <= max && text.ends_with(cut.kept));
                assert_eq!(cut.kept.len() + cut.cut, text.len());
                assert_eq!(cut_text(&out), Some((cut.kept, cut.cut)));
                assert_eq!(truncate_front(out.clone(), max), out);
                assert_eq!(truncate(out.clone(), max), out);
            }
        }
    }

    /// Texts cut before the front cut existed (their head kept) still read as cut, and capping
    /// them again leaves them alone.
    #[test]
    fn a_head_cut_from_an_old_log_still_reads() {
        let old = "The start of it\n… [300000 more bytes]";
        let cut = cut(old).unwrap();
        assert_eq!(
            (cut.kept, cut.cut, cut.end),
            ("The start of it", 300000, Kept::Head)
        );
        assert_eq!(truncate_front(old.to_owned(), 20), old);
        for text in TEXTS {
            for max in 0..text.len() {
                let out = truncate(text.to_owned(), max);
                let cut = super::cut(&out).unwrap();
                assert_eq!(
                    (cut.end, cut.kept.len() + cut.cut),
                    (Kept::Head, text.len())
                );
            }
        }
        for not_cut in [
            "[12 more bytes]",
            "[x more bytes] …\nrest",
            "a\n… [ more bytes]",
        ] {
            assert_eq!(super::cut(not_cut), None, "{not_cut:?}");
        }
    }

    /// The kept end starts at a line outside a code fence where there is one, so it renders as
    /// it did in the whole text.
    #[test]
    fn the_kept_end_starts_at_a_line_outside_a_fence() {
        let text = "intro line\n```\ncode 1\ncode 2\n```\nafter the code\nlast\n";
        let inside = text.find("code 1").unwrap();
        // Anywhere inside the fence: the cut moves past the closing fence.
        for max in text.len() - inside - 3..=text.len() - inside + 2 {
            let at = tail_start(text, max);
            assert_eq!(&text[at..], "after the code\nlast\n", "max {max}");
        }
        assert_eq!(&text[tail_start(text, 8)..], "last\n");
        // One long line: a character boundary.
        let line = "日本語".repeat(10);
        for max in 0..line.len() {
            let at = tail_start(&line, max);
            assert!(line.is_char_boundary(at) && line.len() - at <= max);
        }
    }

    /// The kept end starts at a top-level block where one is in reach: not in a list, a quote
    /// or a paragraph's middle.
    #[test]
    fn the_kept_end_starts_at_a_block_nothing_reaches_into() {
        let text = "# Plan\n\n1. one\n\n2. two\n   more\n\n> quote\n\n- item\n\nLast words\nend\n";
        let last = text.find("Last").unwrap();
        assert_eq!(next_block_start(text, 0), Some(last));
        for max in text.len() - last..text.len() {
            assert_eq!(tail_start(text, max), last, "max {max}");
        }
        assert_eq!(&text[tail_start(text, 6)..], "end\n");
        // A block start that is not complete yet (the line may still become a list item).
        assert_eq!(next_block_start("a\n\n12", 0), None);
        assert_eq!(next_block_start("a\n\n12. x\n", 0), None);
        assert_eq!(next_block_start("a\n\n12 x\n", 0), Some(3));
        assert_eq!(next_block_start("```\na\n\nb\n```\n", 0), None);
    }

    #[test]
    fn one_line_and_titles_take_any_text() {
        for text in TEXTS {
            for max in 0..=text.chars().count() + 1 {
                let line = one_line(text, max);
                assert!(line.chars().count() <= max + 1);
                let title = sanitize_title_to(text, max).unwrap_or_default();
                assert!(title.chars().count() <= max);
            }
        }
    }
}
