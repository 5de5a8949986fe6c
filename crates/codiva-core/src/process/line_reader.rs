//! A bounded, cancel-safe line reader for an agent's stdout.
//!
//! Agents speak JSON lines; one line can carry a whole file or an image (tens of MiB), but a
//! runaway line must not take codiva's memory with it. [`LineReader`] returns each line as bytes
//! (the caller parses), and a line longer than the limit is skipped up to and including its
//! newline and reported as [`ReadLine::Oversized`], after which reading resumes at the next line.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};

/// The default longest line: 64 MiB plus 1 KiB of JSON framing.
pub const DEFAULT_MAX_LINE: usize = 64 * 1024 * 1024 + 1024;

/// How many bytes one read asks for. The reader holds at most `max_line + READ_CHUNK` bytes.
pub const READ_CHUNK: usize = 64 * 1024;

/// Above this capacity the buffer is given back once the large line is consumed.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// One item read by [`LineReader::next_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadLine {
    /// A line, without its `\n` and without one trailing `\r`.
    Line(Vec<u8>),
    /// A line longer than the limit, skipped. `bytes` is its length without the newline.
    Oversized {
        /// The skipped line's length in bytes (without the terminating `\n`).
        bytes: u64,
    },
}

/// Reads lines from `R` with a bounded buffer. See the [module docs](self).
///
/// [`next_line`](Self::next_line) is cancel-safe: all progress lives in the reader, so it can be
/// used in `tokio::select!` without losing data.
#[derive(Debug)]
pub struct LineReader<R: AsyncRead + Unpin> {
    inner: R,
    /// Unconsumed bytes are `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    /// `buf[start..scanned]` is known to hold no `\n`.
    scanned: usize,
    max_line: usize,
    /// `Some(n)`: inside an oversized line, `n` bytes of it discarded so far.
    discarding: Option<u64>,
    eof: bool,
    /// The largest buffer capacity so far.
    peak_capacity: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader with the [`DEFAULT_MAX_LINE`] limit.
    pub fn new(inner: R) -> Self {
        Self::with_max_line(inner, DEFAULT_MAX_LINE)
    }

    /// A reader whose lines may be at most `max_line` bytes long (without the newline).
    pub fn with_max_line(inner: R, max_line: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            max_line,
            discarding: None,
            eof: false,
            peak_capacity: 0,
        }
    }

    /// The line limit.
    pub fn max_line(&self) -> usize {
        self.max_line
    }

    /// The largest capacity the internal buffer has had, for diagnostics and tests of the
    /// memory bound: never more than `max_line + READ_CHUNK`.
    pub fn peak_buffer_capacity(&self) -> usize {
        self.peak_capacity
    }

    /// The wrapped reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Unwraps the reader; buffered bytes are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The same reader over `f(inner)`, keeping what it has buffered (to wrap the source once
    /// reading has started, e.g. in a [`PacedPipe`](super::PacedPipe)).
    pub fn try_map_inner<S: AsyncRead + Unpin, E>(
        self,
        f: impl FnOnce(R) -> Result<S, E>,
    ) -> Result<LineReader<S>, E> {
        Ok(LineReader {
            inner: f(self.inner)?,
            buf: self.buf,
            start: self.start,
            scanned: self.scanned,
            max_line: self.max_line,
            discarding: self.discarding,
            eof: self.eof,
            peak_capacity: self.peak_capacity,
        })
    }

    /// The next line if it is already buffered whole (no read): lets a caller take every line
    /// that one read brought in as a batch. `None` when the next line needs more input (or
    /// the end of the input is to be reported, which [`next_line`](Self::next_line) does).
    pub fn next_buffered_line(&mut self) -> Option<ReadLine> {
        if self.discarding.is_some() {
            return None;
        }
        let offset = find_newline(&self.buf[self.scanned..])?;
        let end = self.scanned + offset;
        let item = self.take_line(end);
        self.consume_to(end + 1);
        Some(item)
    }

    /// The next line, or `None` at the end of the input. A last line without a newline is
    /// returned as a line. After an I/O error the reader may be called again.
    pub async fn next_line(&mut self) -> io::Result<Option<ReadLine>> {
        loop {
            if let Some(discarded) = self.discarding {
                if let Some(item) = self.discard_step(discarded).await? {
                    return Ok(Some(item));
                }
                continue;
            }

            if let Some(offset) = find_newline(&self.buf[self.scanned..]) {
                let end = self.scanned + offset;
                let item = self.take_line(end);
                self.consume_to(end + 1);
                return Ok(Some(item));
            }
            self.scanned = self.buf.len();

            let pending = self.buf.len() - self.start;
            if pending > self.max_line {
                // The line is already too long: drop what we hold and skip to its newline.
                self.discarding = Some(pending as u64);
                self.reset_buffer();
                continue;
            }
            if self.eof {
                if pending == 0 {
                    return Ok(None);
                }
                let end = self.buf.len();
                let item = self.take_line(end);
                self.consume_to(end);
                return Ok(Some(item));
            }
            self.fill().await?;
        }
    }

    /// One read while skipping an oversized line. Returns the `Oversized` item once its newline
    /// (or the end of the input) is reached.
    async fn discard_step(&mut self, discarded: u64) -> io::Result<Option<ReadLine>> {
        if self.eof {
            self.discarding = None;
            return Ok(Some(ReadLine::Oversized { bytes: discarded }));
        }
        debug_assert!(self.buf.is_empty());
        self.fill().await?;
        match find_newline(&self.buf) {
            Some(offset) => {
                self.discarding = None;
                self.consume_to(offset + 1);
                Ok(Some(ReadLine::Oversized {
                    bytes: discarded + offset as u64,
                }))
            }
            None => {
                self.discarding = Some(discarded + self.buf.len() as u64);
                self.buf.clear();
                self.start = 0;
                self.scanned = 0;
                Ok(None)
            }
        }
    }

    /// The line `buf[start..end]`, or `Oversized` if it is longer than the limit.
    fn take_line(&self, end: usize) -> ReadLine {
        let len = end - self.start;
        if len > self.max_line {
            return ReadLine::Oversized { bytes: len as u64 };
        }
        let mut line = &self.buf[self.start..end];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        ReadLine::Line(line.to_vec())
    }

    fn consume_to(&mut self, pos: usize) {
        self.start = pos;
        self.scanned = pos;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
            self.scanned = 0;
            if self.buf.capacity() > SHRINK_ABOVE {
                self.reset_buffer();
            }
        }
    }

    fn reset_buffer(&mut self) {
        self.buf = Vec::new();
        self.start = 0;
        self.scanned = 0;
    }

    /// Reads once (up to [`READ_CHUNK`] bytes) into the buffer, first moving the unconsumed
    /// bytes to the front if the buffer lacks room. Sets `eof` on a zero-length read.
    async fn fill(&mut self) -> io::Result<()> {
        if self.buf.capacity() - self.buf.len() < READ_CHUNK {
            self.make_room();
        }
        let before = self.buf.len();
        // `read_buf` appends into spare capacity without zeroing it first, and it is
        // cancel-safe: if the future is dropped no bytes were taken from `inner`.
        let mut limited = (&mut self.inner).take(READ_CHUNK as u64);
        let n = limited.read_buf(&mut self.buf).await?;
        debug_assert_eq!(self.buf.len(), before + n);
        if n == 0 {
            self.eof = true;
        }
        Ok(())
    }

    /// Ensures at least `READ_CHUNK` bytes of spare capacity, keeping `buf.len() - start`
    /// bytes of pending data, and growing at most to `max_line + READ_CHUNK`.
    fn make_room(&mut self) {
        let pending = self.buf.len() - self.start;
        if self.start > 0 {
            if self.buf.capacity() > SHRINK_ABOVE && pending <= READ_CHUNK {
                let mut fresh = Vec::with_capacity(pending + READ_CHUNK);
                fresh.extend_from_slice(&self.buf[self.start..]);
                self.buf = fresh;
            } else {
                self.buf.copy_within(self.start.., 0);
                self.buf.truncate(pending);
            }
            self.scanned -= self.start;
            self.start = 0;
        }
        let spare = self.buf.capacity() - self.buf.len();
        if spare >= READ_CHUNK {
            return;
        }
        // Grow geometrically (so a long line costs amortised O(n) copies), capped at the bound.
        let cap_limit = self.max_line.saturating_add(READ_CHUNK);
        let wanted = (self.buf.capacity() * 2)
            .max(pending + READ_CHUNK)
            .max(2 * READ_CHUNK)
            .min(cap_limit.max(pending + READ_CHUNK));
        self.buf.reserve_exact(wanted - self.buf.len());
        self.peak_capacity = self.peak_capacity.max(self.buf.capacity());
    }
}

/// The position of the first `\n` in `bytes`. The compiler turns this into a word-at-a-time
/// scan that runs at several GB/s; see the throughput test.
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(input: &[u8], max: usize) -> Vec<ReadLine> {
        let mut reader = LineReader::with_max_line(input, max);
        let mut out = Vec::new();
        while let Some(item) = reader.next_line().await.unwrap() {
            out.push(item);
        }
        out
    }

    fn line(s: &str) -> ReadLine {
        ReadLine::Line(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn splits_lines_and_strips_cr() {
        let got = collect(b"a\r\nbb\n\nlast", 100).await;
        assert_eq!(got, vec![line("a"), line("bb"), line(""), line("last")]);
    }

    #[tokio::test]
    async fn skips_oversized_line_and_resyncs() {
        let got = collect(b"ok\n0123456789\nnext\n", 5).await;
        assert_eq!(
            got,
            vec![line("ok"), ReadLine::Oversized { bytes: 10 }, line("next")]
        );
    }

    #[tokio::test]
    async fn buffered_lines_come_without_a_read() {
        let mut reader = LineReader::with_max_line(&b"a\nbb\n0123456789\ncc"[..], 5);
        assert_eq!(reader.next_buffered_line(), None);
        assert_eq!(reader.next_line().await.unwrap(), Some(line("a")));
        assert_eq!(reader.next_buffered_line(), Some(line("bb")));
        assert_eq!(
            reader.next_buffered_line(),
            Some(ReadLine::Oversized { bytes: 10 })
        );
        // The last line has no newline: only `next_line` sees the end of the input.
        assert_eq!(reader.next_buffered_line(), None);
        let mut reader = reader
            .try_map_inner(Ok::<_, std::convert::Infallible>)
            .unwrap();
        assert_eq!(reader.next_line().await.unwrap(), Some(line("cc")));
        assert_eq!(reader.next_line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn empty_input_is_end() {
        assert!(collect(b"", 5).await.is_empty());
    }
}
