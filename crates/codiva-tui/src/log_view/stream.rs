//! The message being written: plain text, wrapped once per width and then incrementally. Greedy
//! wrapping decides a row only from the text before it, so a delta can change nothing but the
//! last row: appending re-wraps from the last row's start, and the rows above keep their byte
//! ranges (a delta costs the size of the last row plus the delta, not of the message).
//!
//! Memory is capped like a log entry's text ([`MAX_MESSAGE_TEXT`]), but from the other end: a
//! reply longer than the cap keeps its newest half-cap and a first row says how many bytes went
//! before, so the tail keeps following however long the reply (the completed entry then shows
//! the message's head, cut by the core, with the count of what is not kept).

use codiva_protocol::text::{MAX_MESSAGE_TEXT, ceil_boundary};

use crate::width::{Row, wrap_text};

#[derive(Debug, Default)]
pub(crate) struct StreamText {
    text: String,
    rows: Vec<Row>,
    /// The width `rows` are wrapped at; 0 before the first wrap.
    width: u16,
    /// Bytes of the message dropped from the front to keep within the cap.
    hidden: usize,
}

/// One row of the streaming text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamRow<'a> {
    /// The first row of a message cut at the cap: how many bytes are not shown.
    Hidden(usize),
    Text(&'a str),
}

impl StreamText {
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text (an extension of the current text is appended instead).
    pub(crate) fn set(&mut self, text: &str) {
        match text.strip_prefix(self.text.as_str()) {
            Some(delta) if !self.text.is_empty() => self.push(delta),
            _ => {
                self.clear();
                self.push(text);
            }
        }
    }

    pub(crate) fn push(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        let start = self.rows.pop().map_or(0, |row| row.start);
        self.text.push_str(delta);
        if self.width > 0 {
            self.wrap_from(start);
        }
        if self.text.len() > MAX_MESSAGE_TEXT {
            self.drop_front(self.text.len() - MAX_MESSAGE_TEXT / 2);
        }
    }

    /// Drops the text before byte `want` (rounded up to a row start, so the rows after keep
    /// their wrapping); the cost is paid once per half-cap of growth.
    fn drop_front(&mut self, want: usize) {
        let want = ceil_boundary(&self.text, want);
        let at_row = self.rows.iter().map(|row| row.start).find(|&s| s >= want);
        let cut = at_row
            .or_else(|| self.text[want..].find('\n').map(|i| want + i + 1))
            .unwrap_or(want);
        self.text.drain(..cut);
        self.hidden += cut;
        let first = self.rows.partition_point(|row| row.start < cut);
        self.rows.drain(..first);
        for row in &mut self.rows {
            row.start -= cut;
            row.end -= cut;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.text = String::new();
        self.rows = Vec::new();
        self.hidden = 0;
    }

    /// Wraps at `width` (the whole text once when the width changes).
    pub(crate) fn set_width(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.rows.clear();
            self.wrap_from(0);
        }
    }

    fn wrap_from(&mut self, start: usize) {
        if self.text.is_empty() {
            return;
        }
        let tail = &self.text[start..];
        self.rows.extend(
            wrap_text(tail, usize::from(self.width.max(1)))
                .into_iter()
                .map(|row| Row {
                    start: row.start + start,
                    end: row.end + start,
                    width: row.width,
                }),
        );
    }

    /// Rows at the width last set. A final newline does not show an empty row (the next
    /// delta fills it).
    pub(crate) fn rows(&self) -> usize {
        let text_rows = match self.rows.last() {
            Some(last) if last.start == self.text.len() && self.text.ends_with('\n') => {
                self.rows.len() - 1
            }
            _ => self.rows.len(),
        };
        text_rows + usize::from(self.hidden > 0)
    }

    /// Rows at another width (a full wrap).
    pub(crate) fn rows_at(&self, width: u16) -> usize {
        if self.text.is_empty() {
            return 0;
        }
        wrap_text(&self.text, usize::from(width.max(1))).len() + usize::from(self.hidden > 0)
    }

    /// Row `row`: the note of what is hidden first (if anything is), then the text's rows.
    pub(crate) fn row(&self, row: usize) -> Option<StreamRow<'_>> {
        if row >= self.rows() {
            return None;
        }
        let row = match row.checked_sub(usize::from(self.hidden > 0)) {
            Some(row) => row,
            None => return Some(StreamRow::Hidden(self.hidden)),
        };
        self.rows
            .get(row)
            .map(|r| StreamRow::Text(&self.text[r.start..r.end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_wrap_matches_wrapping_at_once() {
        let text = "Hello wonderful world,\nthis is 日本語のテキスト with emoji 🎌 and a-very-long-word-here.\n\nEnd";
        let mut stream = StreamText::default();
        stream.set_width(9);
        for (i, c) in text.char_indices() {
            stream.push(&text[i..i + c.len_utf8()]);
        }
        let mut once = StreamText::default();
        once.set(text);
        once.set_width(9);
        assert_eq!(stream.rows, once.rows);
        assert_eq!(stream.rows, wrap_text(text, 9));
    }

    /// Regression: a reply longer than the cap kept growing in the core but froze on screen.
    /// Past the cap the newest text is kept, the tail follows, and a first row counts the rest.
    #[test]
    fn a_reply_past_the_cap_keeps_its_tail_and_counts_what_is_hidden() {
        let mut stream = StreamText::default();
        stream.set_width(40);
        let mut sent = 0;
        let mut line = 0;
        while sent < 3 * MAX_MESSAGE_TEXT {
            let delta = format!("line {line} of a long reply, with some words\n");
            sent += delta.len();
            stream.push(&delta);
            line += 1;
        }
        assert!(stream.text().len() <= MAX_MESSAGE_TEXT);
        // The last line sent is the last row on screen (wrapped in two at 40 columns).
        let rows = stream.rows();
        let text_of = |row| match stream.row(row) {
            Some(StreamRow::Text(text)) => text.trim_end().to_owned(),
            other => panic!("expected text, got {other:?}"),
        };
        assert_eq!(
            format!("{} {}", text_of(rows - 2), text_of(rows - 1)),
            format!("line {} of a long reply, with some words", line - 1)
        );
        let Some(StreamRow::Hidden(hidden)) = stream.row(0) else {
            panic!("the first row says what is hidden");
        };
        assert_eq!(hidden + stream.text().len(), sent);
        // The kept rows are exactly the wrap of the kept text (cut at a row start).
        let mut once = StreamText::default();
        once.set(stream.text());
        once.set_width(40);
        assert_eq!(stream.rows, once.rows);
    }

    /// Regression: a reply over the cap with non-ASCII text, streaming in a session that is not
    /// open (no width: no rows to cut at), crashed the UI cutting inside a character. Every
    /// width (0 too), every phase of the cap, deltas of every size.
    #[test]
    fn a_multibyte_reply_past_the_cap_is_cut_on_boundaries_at_any_width() {
        let piece = "日本語のテキスト é 🎌 ";
        for width in [None, Some(0), Some(1), Some(80)] {
            for step in [3, 5, 4096, 70_001] {
                let mut stream = StreamText::default();
                if let Some(width) = width {
                    stream.set_width(width);
                }
                let text: String = piece.repeat(2 * MAX_MESSAGE_TEXT / piece.len() + 3);
                let mut sent = 0;
                while sent < text.len() {
                    let end = ceil_boundary(&text, sent + step);
                    stream.push(&text[sent..end]);
                    sent = end;
                }
                assert!(stream.text().len() <= MAX_MESSAGE_TEXT);
                assert!(text.ends_with(stream.text()));
                for row in 0..stream.rows() {
                    assert!(stream.row(row).is_some());
                }
            }
        }
    }
}
