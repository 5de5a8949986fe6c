//! A Unix stream socket split so that its writer costs no wake-up while the peer keeps up.
//!
//! tokio registers a socket for both directions, edge-triggered. A Unix socket signals "writable"
//! each time its peer reads, so a daemon that sends a client a line wakes a second time as soon
//! as the client has read it, for nothing: one wasted wake-up per line sent, ~20 a second
//! while a reply streams. [`split`] registers the reading half for reading only and writes
//! through a second descriptor of the same socket that is in no epoll set, except while the
//! socket is full: then it waits for room like any other writer and leaves the set again once
//! a write went through.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// Splits a connected socket into its two halves (must run inside the runtime). Dropping the
/// writer shuts the socket down for writing, as tokio's halves do: the peer reads the end.
pub fn split(stream: tokio::net::UnixStream) -> io::Result<(SocketReader, SocketWriter)> {
    let stream = stream.into_std()?;
    stream.set_nonblocking(true)?;
    let writer = stream.try_clone()?;
    let reader = register(stream, Interest::READABLE)?;
    Ok((
        SocketReader { fd: reader },
        SocketWriter {
            state: WriterState::Quiet(writer),
        },
    ))
}

/// `stream` in the runtime's epoll for `interest` only.
fn register(stream: UnixStream, interest: Interest) -> io::Result<AsyncFd<UnixStream>> {
    // SAFETY: the AsyncFd owns the stream, so its fd stays open (and is not replaced) for as
    // long as it is registered; `into_inner` deregisters before handing it back.
    unsafe { AsyncFd::register_with_interest(stream, interest) }.map_err(io::Error::from)
}

/// The reading half: in the runtime's epoll for reading only.
#[derive(Debug)]
pub struct SocketReader {
    fd: AsyncFd<UnixStream>,
}

impl AsyncRead for SocketReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match guard.try_io(|fd| fd.get_ref().read(unfilled)) {
                Ok(Ok(read)) => {
                    buf.advance(read);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(err)) => return Poll::Ready(Err(err)),
                Err(_would_block) => continue,
            }
        }
    }
}

/// The writing half: see the [module docs](self).
#[derive(Debug)]
pub struct SocketWriter {
    state: WriterState,
}

#[derive(Debug)]
enum WriterState {
    /// In no epoll set: writes go straight out.
    Quiet(UnixStream),
    /// The socket was full: in the epoll set for writing until a write goes through.
    Waiting(AsyncFd<UnixStream>),
    /// Only while switching (or after a failed switch).
    Broken,
}

impl SocketWriter {
    /// Whether the writer is registered for room (the socket filled up and nothing went
    /// through since).
    pub fn is_waiting(&self) -> bool {
        matches!(self.state, WriterState::Waiting(_))
    }

    fn stream(&self) -> Option<&UnixStream> {
        match &self.state {
            WriterState::Quiet(stream) => Some(stream),
            WriterState::Waiting(fd) => Some(fd.get_ref()),
            WriterState::Broken => None,
        }
    }
}

fn broken() -> io::Error {
    io::Error::other("the socket's writer failed to wait for room")
}

impl AsyncWrite for SocketWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                WriterState::Quiet(stream) => match stream.write(buf) {
                    Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                        let WriterState::Quiet(stream) =
                            std::mem::replace(&mut this.state, WriterState::Broken)
                        else {
                            unreachable!("matched above");
                        };
                        this.state = WriterState::Waiting(register(stream, Interest::WRITABLE)?);
                    }
                    result => return Poll::Ready(result),
                },
                WriterState::Waiting(fd) => {
                    let mut guard = ready!(fd.poll_write_ready(cx))?;
                    match guard.try_io(|fd| fd.get_ref().write(buf)) {
                        Ok(Ok(written)) => {
                            let WriterState::Waiting(fd) =
                                std::mem::replace(&mut this.state, WriterState::Broken)
                            else {
                                unreachable!("matched above");
                            };
                            this.state = WriterState::Quiet(fd.into_inner());
                            return Poll::Ready(Ok(written));
                        }
                        Ok(Err(err)) => return Poll::Ready(Err(err)),
                        Err(_would_block) => continue,
                    }
                }
                WriterState::Broken => return Poll::Ready(Err(broken())),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.stream().map_or(Err(broken()), |stream| {
            match stream.shutdown(Shutdown::Write) {
                // The peer already went away: the end it would read is moot.
                Err(err) if err.kind() == io::ErrorKind::NotConnected => Ok(()),
                result => result,
            }
        }))
    }
}

impl Drop for SocketWriter {
    fn drop(&mut self) {
        if let Some(stream) = self.stream() {
            let _ = stream.shutdown(Shutdown::Write);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Lines go both ways; a full socket puts the writer in the epoll set until a write goes
    /// through; a slow peer gets every byte in order; the writer's drop ends the peer's reading.
    #[tokio::test]
    async fn both_halves_carry_everything_and_a_full_socket_waits() {
        let (ours, theirs) = tokio::net::UnixStream::pair().unwrap();
        let (mut reader, mut writer) = split(ours).unwrap();
        let (mut their_read, mut their_write) = theirs.into_split();

        their_write.write_all(b"hello\n").await.unwrap();
        let mut got = [0u8; 6];
        reader.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"hello\n");

        let sent: Vec<u8> = (0..4_000_000u32).map(|i| (i % 251) as u8).collect();
        // Nobody reads yet: the socket fills, and the writer waits in the epoll set.
        let mut at = 0;
        let mut noop = Context::from_waker(std::task::Waker::noop());
        loop {
            let end = (at + 65_536).min(sent.len());
            match Pin::new(&mut writer).poll_write(&mut noop, &sent[at..end]) {
                Poll::Ready(written) => at += written.unwrap(),
                Poll::Pending => break,
            }
            assert!(at < sent.len(), "4 MB fitted in the socket");
        }
        assert!(writer.is_waiting());

        let slow_reader = tokio::spawn(async move {
            let mut received = Vec::new();
            let mut chunk = vec![0u8; 7_000];
            loop {
                let n = their_read.read(&mut chunk).await.unwrap();
                if n == 0 {
                    return received;
                }
                received.extend_from_slice(&chunk[..n]);
            }
        });
        writer.write_all(&sent[at..]).await.unwrap();
        // The last write went through: out of the epoll set again.
        assert!(!writer.is_waiting());
        drop(writer);
        let received = tokio::time::timeout(std::time::Duration::from_secs(60), slow_reader)
            .await
            .expect("the peer read everything and then the end")
            .unwrap();
        assert_eq!(received.len(), sent.len());
        assert!(received == sent, "the bytes arrived in order");

        // The reader sees the peer's end too.
        drop(their_write);
        let mut rest = Vec::new();
        reader.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
    }
}
