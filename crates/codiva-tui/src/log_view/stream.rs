//! The message being written: plain text, wrapped once per width and then incrementally. Greedy
//! wrapping decides a row only from the text before it, so a delta can change nothing but the
//! last row: appending re-wraps from the last row's start, and the rows above keep their byte
//! ranges (a delta costs the size of the last row plus the delta, not of the message).

use crate::width::{Row, wrap_text};

#[derive(Debug, Default)]
pub(crate) struct StreamText {
    text: String,
    rows: Vec<Row>,
    /// The width `rows` are wrapped at; 0 before the first wrap.
    width: u16,
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
                self.text.clear();
                self.rows.clear();
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
    }

    pub(crate) fn clear(&mut self) {
        self.text = String::new();
        self.rows = Vec::new();
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
        match self.rows.last() {
            Some(last) if last.start == self.text.len() && self.text.ends_with('\n') => {
                self.rows.len() - 1
            }
            _ => self.rows.len(),
        }
    }

    /// The source text of row `row`.
    pub(crate) fn row(&self, row: usize) -> Option<&str> {
        if row >= self.rows() {
            return None;
        }
        self.rows.get(row).map(|r| &self.text[r.start..r.end])
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
}
