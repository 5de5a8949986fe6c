//! An agent's stdout read in batches, not line by line.
//!
//! An agent writes each JSON line on its own (Claude Code streams a long reply as ~700 lines a
//! second), and the kernel reports every write to a pipe registered with epoll, so a reader
//! that simply waits on the pipe wakes a runtime thread per line — on a VM that wake-up costs
//! more than parsing the line. [`PacedPipe`] reads whatever is there; when the pipe runs dry
//! after a read that brought data, it takes the pipe out of epoll for [`REST`] and then reads
//! what accumulated meanwhile in one go. When a rest brought nothing, it waits on the pipe again
//! (an idle agent costs nothing). A line is delayed by at most one rest; nothing is dropped or
//! reordered, and a fast writer is not held back beyond the pipe's own buffer.

use std::future::Future;
use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::unix::pipe;
use tokio::process::ChildStdout;
use tokio::time::Sleep;

/// How long the pipe rests after a batch (lines written meanwhile are read together).
pub const REST: Duration = Duration::from_millis(20);

/// See the [module docs](self).
#[derive(Debug)]
pub struct PacedPipe {
    state: State,
    rest: Duration,
    /// Whether a read brought data since the pipe last rested.
    read_since_rest: bool,
}

#[derive(Debug)]
enum State {
    /// In epoll: woken when the agent writes.
    Listening(pipe::Receiver),
    /// Out of epoll until the timer fires.
    Resting { fd: OwnedFd, wake: Pin<Box<Sleep>> },
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
            read_since_rest: false,
        })
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
                State::Resting { wake, .. } => {
                    ready!(wake.as_mut().poll(cx));
                    let State::Resting { fd, .. } =
                        std::mem::replace(&mut this.state, State::Closed)
                    else {
                        unreachable!("matched above");
                    };
                    // Already non-blocking (set when it was first taken).
                    this.state = State::Listening(pipe::Receiver::from_owned_fd_unchecked(fd)?);
                    this.read_since_rest = false;
                }
                State::Listening(receiver) => {
                    let before = buf.filled().len();
                    match Pin::new(receiver).poll_read(cx, buf) {
                        Poll::Ready(Ok(())) => {
                            this.read_since_rest |= buf.filled().len() > before;
                            return Poll::Ready(Ok(()));
                        }
                        Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                        Poll::Pending if this.read_since_rest => {
                            // Dry after a batch: rest out of epoll instead of waking per write.
                            let State::Listening(receiver) =
                                std::mem::replace(&mut this.state, State::Closed)
                            else {
                                unreachable!("matched above");
                            };
                            let fd = receiver.into_nonblocking_fd()?;
                            this.state = State::Resting {
                                fd,
                                wake: Box::pin(tokio::time::sleep(this.rest)),
                            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

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
