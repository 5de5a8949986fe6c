//! An agent's stdout read in batches, not line by line.
//!
//! An agent writes each JSON line on its own (Claude Code streams a long reply as ~700 lines a
//! second), and the kernel reports every write to a pipe registered with epoll, so a reader
//! that simply waits on the pipe wakes a runtime thread per line — on a VM that wake-up costs
//! more than parsing the line. [`PacedPipe`] reads whatever is there. While lines come densely
//! (two reads with data within [`DENSE_GAP`]), it takes the pipe out of epoll for a rest of
//! [`REST`] each time the pipe runs dry, and then reads what accumulated meanwhile in one go;
//! as soon as a rest brings fewer than [`MIN_LINES`] lines it waits on the pipe again, so a
//! trickle of lines (a slow stream, a request after a quiet spell) is read as it comes, and an
//! idle agent costs nothing. A line is delayed by at most one rest, and only within a dense
//! stream; nothing is dropped or reordered. Text that comes faster than anyone reads (lines at
//! [`FAST_RATE`] or more) rests twice as long: the terminal UI draws such text at 10 frames a
//! second, so batches 100 ms apart lose nothing on screen and halve the work per batch of
//! every process on the way. A fast writer is not held back: a rest is shortened so that what
//! arrives during it stays under half of the pipe's buffer, from the rate the last batch came
//! in at, so the writer does not find the pipe full; the first time that happens the pipe's
//! buffer is grown from Linux's default 64 KiB to [`GROWN_PIPE`], so a writer much faster
//! than a model still comes in batches, not a read every few ms.
//!
//! The rest is timed by a timer of its own (a timerfd in the runtime's epoll), not by tokio's:
//! tokio's timer wheel keeps a deadline that lies past the current 64 ms window in a coarser
//! level and wakes its driver at the window's end to move it down, so a 50 ms rest that began
//! late in a window cost a second wake-up that did nothing — after most batches.

use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use codiva_os::timer::Timer;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::unix::pipe;
use tokio::process::ChildStdout;
use tokio::time::Instant;

/// How long the pipe rests after a batch at most (lines written meanwhile are read together);
/// twice this for lines at [`FAST_RATE`] or more.
pub const REST: Duration = Duration::from_millis(50);
/// The shortest rest (below it, waiting on the pipe is as cheap).
const MIN_REST: Duration = Duration::from_millis(1);
/// Bytes a rest may let accumulate: half of Linux's default pipe buffer (half of the grown
/// one once grown).
const REST_BYTES: u64 = 32 * 1024;
/// The pipe's buffer once a writer filled half of the default one within a rest. Linux lets a
/// user grow pipes up to 1 MiB; the pages count against the user's pipe quota (64 MiB by
/// default), so only a pipe that needs it is grown, and to half of the allowed size.
pub const GROWN_PIPE: usize = 512 * 1024;
/// Lines coming in at this many bytes a second or more are text faster than anyone reads
/// (a model writes a few KiB a second; a stream-json line wraps its text in ~250 bytes):
/// they rest twice [`REST`].
pub const FAST_RATE: u64 = 128 * 1024;
/// Two reads with data this close together make a dense stream (worth resting for).
pub const DENSE_GAP: Duration = Duration::from_millis(10);
/// A rest that brings fewer lines than this ends the dense stream (resting saved nothing).
pub const MIN_LINES: u64 = 3;

/// See the [module docs](self).
#[derive(Debug)]
pub struct PacedPipe {
    state: State,
    rest: Duration,
    /// Bytes and lines (up to [`MIN_LINES`]) read since the pipe last rested (or started
    /// waiting on the pipe).
    read_since_rest: u64,
    lines_since_rest: u64,
    /// Whether the bytes since then came after a rest.
    after_rest: bool,
    /// When a read last brought data, and whether lines come densely.
    last_data: Option<Instant>,
    dense: bool,
    /// How long the last rest was (the next one is sized from what came in after it).
    last_rest: Duration,
    /// Times the rests (made at the first one).
    timer: Option<Timer>,
    /// Bytes a rest may let accumulate ([`REST_BYTES`], more once the pipe was grown), and
    /// whether growing was tried.
    rest_bytes: u64,
    grow_tried: bool,
}

#[derive(Debug)]
enum State {
    /// In epoll: woken when the agent writes.
    Listening(pipe::Receiver),
    /// Out of epoll until the timer fires.
    Resting { fd: OwnedFd },
    /// Only while switching (or after a failed switch).
    Closed,
}

impl PacedPipe {
    /// Takes over a child's stdout (must run inside the runtime).
    pub fn new(stdout: ChildStdout) -> io::Result<Self> {
        Self::with_rest(stdout.into_owned_fd()?, REST)
    }

    /// A pipe read end that rests `rest` after each batch.
    pub fn with_rest(fd: OwnedFd, rest: Duration) -> io::Result<Self> {
        Ok(PacedPipe {
            state: State::Listening(pipe::Receiver::from_owned_fd(fd)?),
            rest,
            read_since_rest: 0,
            lines_since_rest: 0,
            after_rest: false,
            last_data: None,
            dense: false,
            last_rest: rest,
            timer: None,
            rest_bytes: REST_BYTES,
            grow_tried: false,
        })
    }

    /// Whether to rest now that the pipe ran dry: lines come densely, and the last rest (if
    /// this batch followed one) brought enough of them to have saved wake-ups.
    fn rest_worth_it(&self) -> bool {
        self.dense && (!self.after_rest || self.lines_since_rest >= MIN_LINES)
    }

    /// The next rest: [`REST`], twice that for lines at [`FAST_RATE`] or more, but shorter
    /// when at the rate the last batch came in the pipe would fill past `rest_bytes` meanwhile.
    fn next_rest(&self) -> Duration {
        let since = self.last_rest.as_secs_f64();
        let rate = self.read_since_rest as f64 / since.max(f64::EPSILON);
        let longest = if rate >= FAST_RATE as f64 {
            self.rest * 2
        } else {
            self.rest
        };
        let scaled = since * self.rest_bytes as f64 / (self.read_since_rest as f64).max(1.0);
        Duration::from_secs_f64(scaled.min(longest.as_secs_f64()))
            .clamp(MIN_REST.min(self.rest), longest)
    }

    /// Grows the pipe (once) when a batch filled half of its buffer: see the module docs.
    /// Refused (the user's pipe quota is used up, or not Linux), the rests stay short.
    fn grow_if_filling(&mut self, fd: &OwnedFd) {
        if self.grow_tried || self.read_since_rest <= self.rest_bytes {
            return;
        }
        self.grow_tried = true;
        if let Ok(size) = grow_pipe(fd, GROWN_PIPE) {
            self.rest_bytes = self.rest_bytes.max(size as u64 / 2);
        }
    }
}

impl AsyncRead for PacedPipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                State::Resting { .. } => {
                    if let Some(timer) = &this.timer {
                        ready!(timer.poll_expired(cx))?;
                    }
                    let State::Resting { fd, .. } =
                        std::mem::replace(&mut this.state, State::Closed)
                    else {
                        unreachable!("matched above");
                    };
                    // Already non-blocking (set when it was first taken).
                    this.state = State::Listening(pipe::Receiver::from_owned_fd_unchecked(fd)?);
                    this.read_since_rest = 0;
                    this.lines_since_rest = 0;
                    this.after_rest = true;
                }
                State::Listening(receiver) => {
                    let before = buf.filled().len();
                    match Pin::new(receiver).poll_read(cx, buf) {
                        Poll::Ready(Ok(())) => {
                            let new = &buf.filled()[before..];
                            if !new.is_empty() {
                                this.read_since_rest += new.len() as u64;
                                // Only whether a rest brought MIN_LINES matters: count no
                                // further (a fast batch is megabytes).
                                let wanted = MIN_LINES.saturating_sub(this.lines_since_rest);
                                this.lines_since_rest += memchr::memchr_iter(b'\n', new)
                                    .take(usize::try_from(wanted).unwrap_or(usize::MAX))
                                    .count()
                                    as u64;
                                let now = Instant::now();
                                this.dense |= this
                                    .last_data
                                    .is_some_and(|last| now.duration_since(last) <= DENSE_GAP);
                                this.last_data = Some(now);
                            }
                            return Poll::Ready(Ok(()));
                        }
                        Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                        Poll::Pending if this.read_since_rest > 0 && !this.rest_worth_it() => {
                            // A trickle: wait on the pipe, read each line as it comes.
                            this.dense = false;
                            this.after_rest = false;
                            this.read_since_rest = 0;
                            this.lines_since_rest = 0;
                            return Poll::Pending;
                        }
                        Poll::Pending if this.read_since_rest > 0 => {
                            // Dry after a batch: rest out of epoll instead of waking per write.
                            let State::Listening(receiver) =
                                std::mem::replace(&mut this.state, State::Closed)
                            else {
                                unreachable!("matched above");
                            };
                            let fd = receiver.into_nonblocking_fd()?;
                            this.grow_if_filling(&fd);
                            let rest = this.next_rest();
                            this.last_rest = rest;
                            let timer = match this.timer.take() {
                                Some(timer) => timer,
                                None => Timer::new()?,
                            };
                            timer.arm(rest)?;
                            this.timer = Some(timer);
                            this.state = State::Resting { fd };
                        }
                        Poll::Pending => return Poll::Pending,
                    }
                }
                State::Closed => {
                    return Poll::Ready(Err(io::Error::other("the agent's stdout is closed")));
                }
            }
        }
    }
}

/// Sets the pipe's buffer to `size` bytes; the size it has now.
#[cfg(target_os = "linux")]
fn grow_pipe(fd: &OwnedFd, size: usize) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let size = libc::c_int::try_from(size).map_err(io::Error::other)?;
    // SAFETY: F_SETPIPE_SZ takes an int and no pointers, on a pipe we own.
    let result = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, size) };
    usize::try_from(result).map_err(|_| io::Error::last_os_error())
}

#[cfg(not(target_os = "linux"))]
fn grow_pipe(_fd: &OwnedFd, _size: usize) -> io::Result<usize> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// Lines that come one at a time, further apart than [`DENSE_GAP`], are read as they come:
    /// with an hour-long rest, a read that waited for a rest would never end.
    #[tokio::test]
    async fn a_trickle_is_read_as_it_comes() {
        use tokio::io::AsyncReadExt;
        let (mut tx, rx) = pipe::pipe().unwrap();
        let fd = rx.into_nonblocking_fd().unwrap();
        let mut pipe = PacedPipe::with_rest(fd, Duration::from_secs(3600)).unwrap();
        let mut buf = [0u8; 64];
        for i in 0..4 {
            let line = format!("line {i}\n");
            tx.write_all(line.as_bytes()).await.unwrap();
            let read = tokio::time::timeout(Duration::from_secs(60), pipe.read(&mut buf));
            let n = read.await.expect("read without resting").unwrap();
            assert_eq!(&buf[..n], line.as_bytes());
            // Poll once more with the pipe dry (where a rest would begin).
            let dry = tokio::time::timeout(Duration::from_millis(1), pipe.read(&mut buf)).await;
            assert!(dry.is_err(), "nothing was written");
            assert!(
                matches!(pipe.state, State::Listening(_)),
                "resting after line {i}"
            );
            tokio::time::sleep(DENSE_GAP * 3).await;
        }
    }

    #[tokio::test]
    async fn a_fast_writer_shortens_the_rest() {
        let (_tx, rx) = pipe::pipe().unwrap();
        let fd = rx.into_nonblocking_fd().unwrap();
        let mut pipe = PacedPipe::with_rest(fd, Duration::from_millis(20)).unwrap();
        pipe.read_since_rest = 1000;
        assert_eq!(
            pipe.next_rest(),
            Duration::from_millis(20),
            "a trickle: a full rest"
        );
        // Text faster than anyone reads: twice the rest.
        pipe.read_since_rest = FAST_RATE / 50 + 1;
        assert_eq!(pipe.next_rest(), Duration::from_millis(40));
        // 128 KiB came in after a 20 ms rest: 5 ms keeps the next batch at 32 KiB.
        pipe.read_since_rest = 128 * 1024;
        assert_eq!(pipe.next_rest(), Duration::from_millis(5));
        pipe.read_since_rest = u64::MAX / 2;
        assert_eq!(pipe.next_rest(), MIN_REST);
        // In a grown pipe the same batch may come in whole: 20 ms (40 at most, at its rate).
        pipe.rest_bytes = 256 * 1024;
        pipe.read_since_rest = 128 * 1024;
        assert_eq!(pipe.next_rest(), Duration::from_millis(40));
    }

    /// A writer that fills half of the pipe within a rest gets a bigger pipe, once; a slower
    /// one keeps Linux's default.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_pipe_filling_within_a_rest_is_grown() {
        use std::os::fd::AsRawFd;
        fn size(pipe: &PacedPipe) -> libc::c_int {
            let fd = match &pipe.state {
                State::Listening(receiver) => receiver.as_raw_fd(),
                State::Resting { fd } => fd.as_raw_fd(),
                State::Closed => panic!("closed"),
            };
            // SAFETY: F_GETPIPE_SZ on a pipe the test owns, no pointers.
            unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) }
        }
        async fn batch(tx: &mut pipe::Sender, pipe: &mut PacedPipe, bytes: usize) {
            use tokio::io::AsyncReadExt;
            // Lines of 64 bytes (a rest that brings too few lines ends the dense stream).
            let lines: Vec<u8> = (0..bytes)
                .map(|i| if i % 64 == 63 { b'\n' } else { b'x' })
                .collect();
            tx.write_all(&lines).await.unwrap();
            let mut buf = vec![0u8; 64 * 1024];
            let mut read = 0;
            while read < bytes {
                read += pipe.read(&mut buf).await.unwrap();
            }
            // Dry: the pipe rests (and grows if it was filling).
            let dry = tokio::time::timeout(Duration::from_millis(1), pipe.read(&mut buf)).await;
            assert!(dry.is_err(), "nothing more was written");
        }
        let (mut tx, rx) = pipe::pipe().unwrap();
        let fd = rx.into_nonblocking_fd().unwrap();
        // Rests far longer than the test's look at a dry pipe (1 ms).
        let mut pipe = PacedPipe::with_rest(fd, Duration::from_millis(30)).unwrap();
        pipe.dense = true;
        let default = size(&pipe);
        batch(&mut tx, &mut pipe, 16 * 1024).await;
        assert!(matches!(pipe.state, State::Resting { .. }));
        assert_eq!(size(&pipe), default, "a batch under half the pipe");
        batch(&mut tx, &mut pipe, 48 * 1024).await;
        assert!(matches!(pipe.state, State::Resting { .. }));
        assert_eq!(size(&pipe), GROWN_PIPE as libc::c_int);
        assert_eq!(pipe.rest_bytes, GROWN_PIPE as u64 / 2);
    }

    use crate::process::{LineReader, ReadLine};

    #[tokio::test]
    async fn lines_written_while_resting_arrive_in_order_and_eof_ends() {
        let (mut tx, rx) = pipe::pipe().unwrap();
        let fd = rx.into_nonblocking_fd().unwrap();
        let mut reader =
            LineReader::new(PacedPipe::with_rest(fd, Duration::from_millis(5)).unwrap());
        let writer = tokio::spawn(async move {
            for i in 0..200 {
                tx.write_all(format!("line {i}\n").as_bytes())
                    .await
                    .unwrap();
                if i % 10 == 0 {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        });
        let mut got = Vec::new();
        while let Some(item) = reader.next_line().await.unwrap() {
            let ReadLine::Line(line) = item else {
                panic!("unexpected {item:?}");
            };
            got.push(String::from_utf8(line).unwrap());
        }
        writer.await.unwrap();
        let want: Vec<String> = (0..200).map(|i| format!("line {i}")).collect();
        assert_eq!(got, want);
    }
}
