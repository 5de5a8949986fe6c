//! The message being written, drawn by the same Markdown rules as the completed message that
//! replaces it, so nothing the reader follows moves when it completes.
//!
//! Markdown is rendered per block, not per delta of the whole text: the text is cut into pieces
//! at [`codiva_protocol::text::next_block_start`] (a top-level block nothing before it reaches into), and pieces
//! rendered apart read exactly as the whole rendered at once, one blank row between them. A
//! settled piece is rendered once per width; only the open last piece is rendered again, once
//! per frame that follows a delta ([`StreamText::prepare`]). The cost of a delta is the size of
//! the block being written, not of the message.
//!
//! Memory is capped like a log entry's text ([`MAX_MESSAGE_TEXT`]), and from the same end: a
//! reply longer than the cap keeps its newest half-cap (cut at a block start, as the core cuts
//! the completed message at one) and a first row says how much went before, so the tail keeps
//! following however long the reply; the completed entry keeps the end too, with a first row
//! that says what is not kept and that Enter opens it all.

use codiva_protocol::text::{BlockScan, Kept, MAX_MESSAGE_TEXT, cut, tail_start};
use ratatui::text::Line;

use super::entry_block::assistant;

#[derive(Debug, Default)]
pub(crate) struct StreamText {
    text: String,
    /// The width the rows are rendered at; 0 before the first.
    width: u16,
    /// Settled pieces: where each starts in `text` (the first at 0) and its first row in
    /// `settled`.
    pieces: Vec<Piece>,
    /// The settled pieces' rows at `width`, one blank row between pieces.
    settled: Vec<Line<'static>>,
    /// Where the open piece starts in `text`: the end of the settled ones.
    open_start: usize,
    /// The search for the open piece's end (reads each byte once).
    scan: BlockScan,
    /// The open piece's rows at `width`, as of the last [`StreamText::prepare`].
    open: Vec<Line<'static>>,
    /// The open piece changed since it was rendered.
    open_stale: bool,
    /// Bytes of the message dropped from the front to keep within the cap.
    hidden: usize,
    /// The session reset the stream (its message is complete): the rows stay on screen until
    /// the completed entry replaces them, so no frame in between shows neither.
    retired: bool,
}

#[derive(Debug, Clone, Copy)]
struct Piece {
    start: usize,
    row: usize,
}

/// One row of the streaming text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum StreamRow<'a> {
    /// The first row of a message cut at the cap: how many bytes are not shown.
    Hidden(usize),
    Text(&'a Line<'static>),
}

impl StreamText {
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// No message is being written (a retired one may still be shown).
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty() || self.retired
    }

    /// The message is complete: its rows stay until [`StreamText::clear`] (the completed entry
    /// arrived) or the next text.
    pub(crate) fn retire(&mut self) {
        if self.text.is_empty() {
            self.clear();
        } else {
            self.retired = true;
        }
    }

    pub(crate) fn is_retired(&self) -> bool {
        self.retired
    }

    /// Replaces the text (an extension of the current text is appended instead). A text the
    /// core capped from the front (a session's snapshot of a reply past the cap: `[N more
    /// bytes] …` then its end) shows its end after the row that counts what went before.
    pub(crate) fn set(&mut self, text: &str) {
        if self.retired {
            self.clear();
        }
        if let Some(cut) = cut(text).filter(|cut| cut.end == Kept::Tail) {
            self.clear();
            self.hidden = cut.cut;
            self.push(cut.kept);
            return;
        }
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
        if self.retired {
            self.clear();
        }
        self.text.push_str(delta);
        self.open_stale = true;
        self.settle();
        if self.text.len() > MAX_MESSAGE_TEXT {
            self.drop_front(self.text.len() - MAX_MESSAGE_TEXT / 2);
        }
    }

    /// Renders the pieces that became complete (once each).
    fn settle(&mut self) {
        while let Some(end) = self.scan.next(&self.text) {
            let row = self.settled_rows_with_gap();
            self.pieces.push(Piece {
                start: self.open_start,
                row,
            });
            if self.width > 0 {
                let rows = assistant(&self.text[self.open_start..end], usize::from(self.width));
                if !self.settled.is_empty() {
                    self.settled.push(Line::default());
                }
                self.settled.extend(rows);
            }
            self.open_start = end;
        }
    }

    /// Where the next settled piece's rows start.
    fn settled_rows_with_gap(&self) -> usize {
        self.settled.len() + usize::from(!self.settled.is_empty())
    }

    /// Keeps the text from the first block start at or after byte `want` (where the core's cut
    /// would fall), so the rows after it keep their rendering; the cost is paid once per
    /// half-cap of growth.
    fn drop_front(&mut self, want: usize) {
        let first = self.pieces.partition_point(|piece| piece.start < want);
        let cut = match self.pieces.get(first) {
            Some(piece) => piece.start,
            None if self.open_start >= want => self.open_start,
            // One block longer than the cap: where the core would cut it.
            None => tail_start(&self.text, self.text.len() - want),
        };
        if cut == 0 {
            return;
        }
        self.text.drain(..cut);
        self.hidden += cut;
        if cut <= self.open_start {
            let row = self.pieces.get(first).map_or(self.settled.len(), |p| p.row);
            self.settled.drain(..row.min(self.settled.len()));
            self.pieces.drain(..first);
            for piece in &mut self.pieces {
                piece.start -= cut;
                piece.row -= row;
            }
            self.open_start -= cut;
            self.scan = self.scan.shifted(cut);
        } else {
            self.pieces.clear();
            self.settled.clear();
            self.open_start = 0;
            self.scan = BlockScan::new(0);
            self.open_stale = true;
        }
        // A piece may start at the new front.
        self.settle();
    }

    pub(crate) fn clear(&mut self) {
        *self = Self {
            width: self.width,
            ..Self::default()
        };
    }

    /// Renders at `width` (every piece once when the width changes).
    pub(crate) fn set_width(&mut self, width: u16) {
        if width == self.width {
            return;
        }
        self.width = width;
        self.settled.clear();
        let starts: Vec<usize> = self.pieces.iter().map(|piece| piece.start).collect();
        let ends = starts.iter().skip(1).copied().chain([self.open_start]);
        for (piece, (start, end)) in self.pieces.iter_mut().zip(starts.iter().zip(ends)) {
            piece.row = self.settled.len() + usize::from(!self.settled.is_empty());
            if width > 0 {
                if !self.settled.is_empty() {
                    self.settled.push(Line::default());
                }
                self.settled
                    .extend(assistant(&self.text[*start..end], usize::from(width)));
            }
        }
        self.open_stale = true;
        self.prepare();
    }

    /// Renders the open piece again if it changed (once per frame, before drawing).
    pub(crate) fn prepare(&mut self) {
        if !self.open_stale || self.width == 0 {
            return;
        }
        self.open_stale = false;
        self.open = if self.open_start < self.text.len() {
            assistant(&self.text[self.open_start..], usize::from(self.width))
        } else {
            Vec::new()
        };
        if self
            .open
            .iter()
            .all(|line| line.spans.is_empty() || blank(line))
        {
            self.open.clear();
        }
    }

    /// The blank row between the settled rows and the open piece's, when both have rows.
    fn gap(&self) -> usize {
        usize::from(!self.settled.is_empty() && !self.open.is_empty())
    }

    /// Rows at the width last set, as of the last [`StreamText::prepare`].
    pub(crate) fn rows(&self) -> usize {
        if self.text.is_empty() {
            return 0;
        }
        usize::from(self.hidden > 0) + self.settled.len() + self.gap() + self.open.len()
    }

    /// Rows at another width (a full render).
    pub(crate) fn rows_at(&self, width: u16) -> usize {
        if self.text.is_empty() {
            return 0;
        }
        let mut rows = usize::from(self.hidden > 0);
        let mut start = 0;
        let mut any = false;
        let ends = self
            .pieces
            .iter()
            .skip(1)
            .map(|piece| piece.start)
            .chain([self.open_start, self.text.len()]);
        for end in ends {
            if end > start {
                let piece = assistant(&self.text[start..end], usize::from(width.max(1)));
                if !piece.is_empty() {
                    rows += piece.len() + usize::from(any);
                    any = true;
                }
            }
            start = end;
        }
        rows
    }

    /// Row `row`: the note of what is hidden first (if anything is), then the rendered rows.
    pub(crate) fn row(&self, row: usize) -> Option<StreamRow<'_>> {
        if row >= self.rows() {
            return None;
        }
        let row = match row.checked_sub(usize::from(self.hidden > 0)) {
            Some(row) => row,
            None => return Some(StreamRow::Hidden(self.hidden)),
        };
        if let Some(line) = self.settled.get(row) {
            return Some(StreamRow::Text(line));
        }
        let row = row - self.settled.len();
        if self.gap() == 1 && row == 0 {
            return Some(StreamRow::Text(&BLANK));
        }
        self.open.get(row - self.gap()).map(StreamRow::Text)
    }
}

static BLANK: Line<'static> = Line {
    style: ratatui::style::Style::new(),
    alignment: None,
    spans: Vec::new(),
};

fn blank(line: &Line<'_>) -> bool {
    line.spans.iter().all(|span| span.content.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use codiva_protocol::text::ceil_boundary;

    /// The rows as text (the hidden row as `↑ N`).
    fn shown(stream: &mut StreamText) -> Vec<String> {
        stream.prepare();
        (0..stream.rows())
            .map(|row| match stream.row(row) {
                Some(StreamRow::Text(line)) => {
                    line.spans.iter().map(|s| s.content.as_ref()).collect()
                }
                Some(StreamRow::Hidden(bytes)) => format!("↑ {bytes}"),
                None => panic!("row {row} of {}", stream.rows()),
            })
            .collect()
    }

    fn completed(text: &str, width: u16) -> Vec<String> {
        assistant(text, usize::from(width))
            .iter()
            .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    const MARKDOWN: &str = "# Plan 日本語\n\nHello **wonderful** world,\nthis is 日本語のテキスト with emoji 🎌 and a-very-long-word-here.\n\n1. one\n2. two\n\n   still two\n\n3. three\n\n- a\n  - nested\n\n> quoted\n>\n> more\n\n```rust\nfn main() {}\n\nlet x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nA paragraph\nacross lines.\n\n\n\nEnd";

    /// Regression: the streaming reply was plain text and the completed one
    /// Markdown, so the rows the reader followed jumped when it completed. At every point of
    /// the stream and at every width, the rows are the Markdown of the text so far, rendered
    /// at once, as the completed message is.
    #[test]
    fn streaming_rows_are_the_completed_messages_rows() {
        for width in [9, 40, 80] {
            let mut stream = StreamText::default();
            stream.set_width(width);
            for (i, c) in MARKDOWN.char_indices() {
                stream.push(&MARKDOWN[i..i + c.len_utf8()]);
                if c == '\n' || i % 7 == 0 {
                    let so_far = &MARKDOWN[..i + c.len_utf8()];
                    assert_eq!(shown(&mut stream), completed(so_far, width), "{so_far:?}");
                }
            }
            assert_eq!(shown(&mut stream), completed(MARKDOWN, width));
            assert_eq!(stream.rows_at(width), stream.rows());
            // Another width: the whole rendered again, the same as the completed message.
            stream.set_width(width + 3);
            assert_eq!(shown(&mut stream), completed(MARKDOWN, width + 3));
        }
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
            let delta = format!("Line {line} of a long reply, with some words\n\n");
            sent += delta.len();
            stream.push(&delta);
            line += 1;
        }
        assert!(stream.text().len() <= MAX_MESSAGE_TEXT);
        // The last paragraph sent is the last rows on screen (wrapped in two at 40 columns).
        let rows = shown(&mut stream);
        assert_eq!(
            format!(
                "{} {}",
                rows[rows.len() - 2].trim_end(),
                rows[rows.len() - 1].trim_end()
            ),
            format!("Line {} of a long reply, with some words", line - 1)
        );
        assert_eq!(rows[0], format!("↑ {}", sent - stream.text().len()));
        // The kept rows are exactly the Markdown of the kept text.
        assert_eq!(rows[1..], completed(stream.text(), 40));
    }

    /// A session's snapshot of a reply past the cap (the core keeps its end after a marker):
    /// the end, after the row that counts what went before, and the deltas continue it.
    #[test]
    fn a_snapshot_cut_from_the_front_shows_its_end_and_the_count() {
        let mut stream = StreamText::default();
        stream.set_width(40);
        stream.set("[300000 more bytes] …\n## 第9部\n\n日本語の段落。");
        stream.push("続き。");
        assert_eq!(stream.text(), "## 第9部\n\n日本語の段落。続き。");
        let rows = shown(&mut stream);
        assert_eq!(rows[0], "↑ 300000");
        assert_eq!(rows[1..], completed(stream.text(), 40));
    }

    /// Regression: a reply over the cap with non-ASCII text, streaming in a session that is not
    /// open (no width: no rows to cut at), crashed the UI cutting inside a character. Every
    /// width (0 too), every phase of the cap, deltas of every size, with and without lines.
    #[test]
    fn a_multibyte_reply_past_the_cap_is_cut_on_boundaries_at_any_width() {
        for piece in ["日本語のテキスト é 🎌 ", "日本語\n\né 🎌\n"] {
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
                    stream.prepare();
                    for row in 0..stream.rows() {
                        assert!(stream.row(row).is_some());
                    }
                }
            }
        }
    }
}
