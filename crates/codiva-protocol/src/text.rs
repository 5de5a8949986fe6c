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

/// Cuts `text` to at most `max` bytes on a character boundary, saying how much was cut.
/// Idempotent: a text this function already cut keeps its marker (the real size), so an
/// entry capped again (copied into another log on restore, or updated) does not report the
/// size of the marker instead.
pub fn truncate(mut text: String, max: usize) -> String {
    if text.len() <= max || already_truncated(&text, max) {
        return text;
    }
    let cut = floor_boundary(&text, max);
    let total = text.len();
    text.truncate(cut);
    text.push_str(&format!(
        "{TRUNCATION_MARKER_START}{} more bytes]",
        total - cut
    ));
    text
}

/// `text` is what [`truncate`] made of a longer text: at most `max` bytes, then its marker.
fn already_truncated(text: &str, max: usize) -> bool {
    let Some(start) = text.rfind(TRUNCATION_MARKER_START) else {
        return false;
    };
    let count = text[start + TRUNCATION_MARKER_START.len()..].strip_suffix(" more bytes]");
    start <= max && count.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A text [`truncate`] cut: the part kept (without the marker) and how many bytes were cut
/// (`None` for a text that ends in no marker).
pub fn cut_text(text: &str) -> Option<(&str, usize)> {
    let start = text.rfind(TRUNCATION_MARKER_START)?;
    let count = text[start + TRUNCATION_MARKER_START.len()..].strip_suffix(" more bytes]")?;
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((&text[..start], count.parse().ok()?))
}

/// How [`truncate`]'s marker starts.
const TRUNCATION_MARKER_START: &str = "\n… [";

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
