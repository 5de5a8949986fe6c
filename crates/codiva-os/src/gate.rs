//! A descriptor watched for reading through an epoll set of its own, which sits in the
//! runtime's epoll: closing the gate stops the descriptor's readiness from waking the runtime,
//! opening it lets it through again — one `epoll_ctl` each. Taking a descriptor out of the
//! runtime's epoll and putting it back costs a registration each time (tokio's and the
//! kernel's: two `epoll_ctl`s and an allocation); an agent's stdout read in batches did that
//! every 100 ms (`PacedPipe` in the core).
//!
//! In the inner set the descriptor is level-triggered; the runtime registers the inner set
//! edge-triggered, and Linux signals the inner set readable each time the descriptor gets data
//! while the gate is open, and when the gate opens on data already there. A closed gate (the
//! descriptor's events set to none) signals no data; a hang-up (the writer gone) it signals
//! anyway, as epoll always does — once, at the end of a stream.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::task::{Context, Poll};

use tokio::io::Interest;
use tokio::io::unix::{AsyncFd, AsyncFdReadyGuard};

/// See the [module docs](self). Made inside the runtime; the watched descriptor must outlive
/// the gate (the caller keeps it) and is made non-blocking.
#[derive(Debug)]
pub struct Gate {
    epoll: AsyncFd<OwnedFd>,
    watched: RawFd,
}

impl Gate {
    /// Watches `fd` for reading, with the gate open.
    pub fn new(fd: BorrowedFd<'_>) -> io::Result<Self> {
        let watched = fd.as_raw_fd();
        set_nonblocking(watched)?;
        // SAFETY: epoll_create1 takes no pointers; a negative result is an error.
        let raw = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a new fd that nothing else owns.
        let epoll = unsafe { OwnedFd::from_raw_fd(raw) };
        control(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, watched, READ)?;
        // SAFETY: the OwnedFd is valid and stays owned by the AsyncFd, which neither replaces
        // nor closes it while registered.
        let epoll = unsafe { AsyncFd::register_with_interest(epoll, Interest::READABLE) }
            .map_err(io::Error::from)?;
        Ok(Gate { epoll, watched })
    }

    /// Lets the descriptor's readiness wake the runtime again (at once if it has data).
    pub fn open(&self) -> io::Result<()> {
        control(
            self.epoll.as_raw_fd(),
            libc::EPOLL_CTL_MOD,
            self.watched,
            READ,
        )
    }

    /// Stops the descriptor's readiness from waking the runtime.
    pub fn close(&self) -> io::Result<()> {
        control(self.epoll.as_raw_fd(), libc::EPOLL_CTL_MOD, self.watched, 0)
    }

    /// Ready when the descriptor may have data (the gate open): read it, and on `WouldBlock`
    /// [`AsyncFdReadyGuard::clear_ready`] the guard before polling again.
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, OwnedFd>>> {
        self.epoll.poll_read_ready(cx)
    }
}

const READ: u32 = libc::EPOLLIN as u32 | libc::EPOLLRDHUP as u32;

fn control(epoll: RawFd, op: libc::c_int, fd: RawFd, events: u32) -> io::Result<()> {
    let mut event = libc::epoll_event {
        events,
        u64: u64::try_from(fd).unwrap_or_default(),
    };
    // SAFETY: both are descriptors the gate holds; `event` lives for the call.
    let result = unsafe { libc::epoll_ctl(epoll, op, fd, &mut event) };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: F_GETFL/F_SETFL on a descriptor the caller holds; no pointers.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::time::Duration;

    use super::*;

    async fn readable(gate: &Gate, within: Duration) -> bool {
        tokio::time::timeout(
            within,
            std::future::poll_fn(|cx| gate.poll_read_ready(cx).map(|guard| guard.map(drop))),
        )
        .await
        .is_ok()
    }

    /// Open, data wakes the reader; closed, data and even the writer's end do not; opened
    /// again, what came meanwhile wakes it at once.
    #[tokio::test]
    async fn a_closed_gate_lets_nothing_through_and_opening_it_does() {
        let (reader, writer) = std::io::pipe().unwrap();
        let (mut reader, mut writer) = (std::fs::File::from(OwnedFd::from(reader)), writer);
        let gate = Gate::new(std::os::fd::AsFd::as_fd(&reader)).unwrap();
        writer.write_all(b"one\n").unwrap();
        assert!(readable(&gate, Duration::from_secs(30)).await);
        let mut buf = [0u8; 64];
        assert_eq!(reader.read(&mut buf).unwrap(), 4);
        // Drained: the readiness is cleared once a read finds nothing.
        std::future::poll_fn(|cx| {
            if let Poll::Ready(Ok(mut guard)) = gate.poll_read_ready(cx) {
                assert_eq!(
                    reader.read(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                guard.clear_ready();
            }
            Poll::Ready(())
        })
        .await;
        gate.close().unwrap();
        assert!(
            !readable(&gate, Duration::from_millis(100)).await,
            "a closed gate woke the reader before any write"
        );
        writer.write_all(b"two\n").unwrap();
        assert!(
            !readable(&gate, Duration::from_millis(100)).await,
            "a closed gate woke the reader on data"
        );
        // The writer's end closing is reported all the same (epoll always reports a hang-up).
        drop(writer);
        assert!(readable(&gate, Duration::from_secs(30)).await);
        gate.open().unwrap();
        assert!(readable(&gate, Duration::from_secs(30)).await);
        assert_eq!(reader.read(&mut buf).unwrap(), 4);
        assert_eq!(reader.read(&mut buf).unwrap(), 0, "the end of the pipe");
    }
}
