//! A one-shot child's stdout and stderr read as they come, until it exits and its pipes close
//! (or a short drain after its exit: something it left running may hold them open), its
//! deadline, or a stop — the loop a repository's check (`check.rs`) and the setup script
//! (`git/setup.rs`) both run, and the tail of the output they keep.

use std::future::Future;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::time::Instant;

/// Why [`read_until_exit`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The child exited (its pipes closed or the drain ran out).
    Exited,
    /// The deadline came before it exited; it is neither killed nor reaped.
    TimedOut,
    /// `stop` came before it exited; it is neither killed nor reaped.
    Stopped,
}

/// Reads `child`'s piped stdout and stderr (taken from it) into `sink` as they come, until it
/// exits and both pipes close, `drain` after its exit (but not past `deadline`), `deadline`
/// before it exits, or `stop` before it exits. The exit status when it was reaped here.
pub(crate) async fn read_until_exit<S: Future>(
    child: &mut Child,
    deadline: Instant,
    drain: Duration,
    stop: S,
    mut sink: impl FnMut(&[u8]),
) -> (Ended, Option<std::io::Result<ExitStatus>>) {
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let (mut out_open, mut err_open) = (stdout.is_some(), stderr.is_some());
    let (mut out_buf, mut err_buf) = ([0u8; 8192], [0u8; 8192]);
    let mut stop = std::pin::pin!(stop);
    let mut status = None;
    let mut drain_until = None;
    loop {
        if status.is_some() && !out_open && !err_open {
            return (Ended::Exited, status);
        }
        let wake = drain_until.unwrap_or(deadline);
        tokio::select! {
            read = read_some(&mut stdout, &mut out_buf), if out_open => match read {
                Ok(n) if n > 0 => sink(&out_buf[..n]),
                _ => out_open = false,
            },
            read = read_some(&mut stderr, &mut err_buf), if err_open => match read {
                Ok(n) if n > 0 => sink(&err_buf[..n]),
                _ => err_open = false,
            },
            exit = child.wait(), if status.is_none() => {
                status = Some(exit);
                drain_until = Some((Instant::now() + drain).min(deadline));
            },
            _ = &mut stop, if status.is_none() => return (Ended::Stopped, None),
            () = tokio::time::sleep_until(wake) => {
                let ended = if status.is_none() { Ended::TimedOut } else { Ended::Exited };
                return (ended, status);
            },
        }
    }
}

/// The last `cap` bytes of a child's output, and how many came before them.
pub(crate) struct Tail {
    pub(crate) bytes: Vec<u8>,
    pub(crate) dropped: u64,
    cap: usize,
}

impl Tail {
    pub(crate) fn new(cap: usize) -> Tail {
        Tail {
            bytes: Vec::new(),
            dropped: 0,
            cap,
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > self.cap {
            let excess = self.bytes.len() - self.cap;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }
}

async fn read_some<R: AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match pipe {
        Some(pipe) => pipe.read(buf).await,
        None => Ok(0),
    }
}
