//! The bounded line reader against a model, arbitrary chunking, and a lazily generated 100 MB line.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use codiva_core::process::{DEFAULT_MAX_LINE, LineReader, READ_CHUNK, ReadLine};
use proptest::prelude::*;
use tokio::io::{AsyncRead, ReadBuf};

/// Hands out `data` in chunks of the given sizes (cycled), returning `Pending` (after waking
/// itself) before every other chunk to exercise re-polling.
struct ChunkedReader {
    data: Vec<u8>,
    sizes: Vec<usize>,
    pos: usize,
    turn: usize,
    pend: bool,
}

impl ChunkedReader {
    fn new(data: Vec<u8>, sizes: Vec<usize>) -> Self {
        Self {
            data,
            sizes,
            pos: 0,
            turn: 0,
            pend: false,
        }
    }
}

impl AsyncRead for ChunkedReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        this.pend = !this.pend;
        if this.pend {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let size = this.sizes[this.turn % this.sizes.len()].max(1);
        this.turn += 1;
        let n = size.min(buf.remaining()).min(this.data.len() - this.pos);
        buf.put_slice(&this.data[this.pos..this.pos + n]);
        this.pos += n;
        Poll::Ready(Ok(()))
    }
}

/// `a` repeated `a_count` times, then `tail`, generated on the fly.
struct LazyLine {
    a_count: u64,
    tail: &'static [u8],
    tail_pos: usize,
}

impl AsyncRead for LazyLine {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.a_count > 0 {
            let n = (buf.remaining() as u64).min(this.a_count) as usize;
            buf.initialize_unfilled_to(n).fill(b'a');
            buf.advance(n);
            this.a_count -= n as u64;
        } else {
            let n = buf.remaining().min(this.tail.len() - this.tail_pos);
            buf.put_slice(&this.tail[this.tail_pos..this.tail_pos + n]);
            this.tail_pos += n;
        }
        Poll::Ready(Ok(()))
    }
}

/// What the reader must return for `input`.
fn model(input: &[u8], max: usize) -> Vec<ReadLine> {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    // `split` yields a last (possibly empty) piece after the last newline; it is a line only if
    // it is not empty.
    if lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            if line.len() > max {
                ReadLine::Oversized {
                    bytes: line.len() as u64,
                }
            } else {
                ReadLine::Line(line.strip_suffix(b"\r").unwrap_or(line).to_vec())
            }
        })
        .collect()
}

fn read_all<R: AsyncRead + Unpin>(reader: &mut LineReader<R>) -> Vec<ReadLine> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut out = Vec::new();
        while let Some(item) = reader.next_line().await.unwrap() {
            out.push(item);
        }
        out
    })
}

fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            3 => Just(b'\n'),
            1 => Just(b'\r'),
            6 => b'a'..=b'e',
            2 => any::<u8>(),
        ],
        0..3000,
    )
}

proptest! {
    #[test]
    fn arbitrary_chunking_yields_the_model_lines(
        input in line_bytes(),
        sizes in prop::collection::vec(1usize..400, 1..20),
        max in prop_oneof![0usize..80, Just(DEFAULT_MAX_LINE)],
    ) {
        let mut reader = LineReader::with_max_line(ChunkedReader::new(input.clone(), sizes), max);
        prop_assert_eq!(read_all(&mut reader), model(&input, max));
        prop_assert!(reader.peak_buffer_capacity() <= max.saturating_add(READ_CHUNK));
    }

    #[test]
    fn random_garbage_never_panics(
        input in prop::collection::vec(any::<u8>(), 0..5000),
        sizes in prop::collection::vec(1usize..5000, 1..5),
        max in 0usize..300,
    ) {
        let mut reader = LineReader::with_max_line(ChunkedReader::new(input.clone(), sizes), max);
        prop_assert_eq!(read_all(&mut reader), model(&input, max));
    }
}

#[test]
fn truncated_last_line_is_returned() {
    for (input, expected) in [
        (&b"{\"a\":1}\n{\"b\""[..], vec!["{\"a\":1}", "{\"b\""]),
        (b"only\r", vec!["only"]),
        (b"\n", vec![""]),
        (b"x\n\n", vec!["x", ""]),
    ] {
        let mut reader = LineReader::new(ChunkedReader::new(input.to_vec(), vec![3]));
        let expected: Vec<ReadLine> = expected
            .into_iter()
            .map(|s| ReadLine::Line(s.as_bytes().to_vec()))
            .collect();
        assert_eq!(read_all(&mut reader), expected, "{input:?}");
    }
}

#[test]
fn hundred_megabyte_line_is_skipped_with_flat_memory() {
    const LEN: u64 = 100_000_000;
    for max in [1024 * 1024, DEFAULT_MAX_LINE] {
        let source = LazyLine {
            a_count: LEN,
            tail: b"\n{\"ok\":1}\n",
            tail_pos: 0,
        };
        let mut reader = LineReader::with_max_line(source, max);
        assert_eq!(
            read_all(&mut reader),
            vec![
                ReadLine::Oversized { bytes: LEN },
                ReadLine::Line(b"{\"ok\":1}".to_vec())
            ]
        );
        assert!(
            reader.peak_buffer_capacity() <= max + READ_CHUNK,
            "peak {} for max {max}",
            reader.peak_buffer_capacity()
        );
    }
}

#[test]
fn oversized_last_line_without_newline() {
    let source = LazyLine {
        a_count: 300_000,
        tail: b"",
        tail_pos: 0,
    };
    let mut reader = LineReader::with_max_line(source, 1000);
    assert_eq!(
        read_all(&mut reader),
        vec![ReadLine::Oversized { bytes: 300_000 }]
    );
}
