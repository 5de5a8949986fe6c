//! A one-shot timer of its own in the runtime's epoll (a timerfd), for deadlines that come
//! round often: tokio's timer wheel keeps a deadline that lies past its current 64 ms window
//! in a coarser level and wakes its driver at the window's end to move it down, so a 50 ms
//! deadline set late in a window costs a second wake-up that does nothing. A [`Timer`] wakes
//! once, when it fires; arming it is one syscall.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// See the [module docs](self). Made once, armed for each deadline; must be made inside the
/// runtime.
#[derive(Debug)]
pub struct Timer {
    fd: AsyncFd<OwnedFd>,
}

impl Timer {
    pub fn new() -> io::Result<Self> {
        // SAFETY: timerfd_create takes no pointers; a negative result is an error.
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a new fd that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: the OwnedFd is valid and stays owned by the AsyncFd, which neither replaces
        // nor closes it while registered.
        let fd = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
            .map_err(io::Error::from)?;
        Ok(Timer { fd })
    }

    /// Fires once, `after` from now (at least a nanosecond: zero would disarm it); replaces
    /// any earlier arming.
    pub fn arm(&self, after: Duration) -> io::Result<()> {
        let after = after.max(Duration::from_nanos(1));
        self.set(libc::timespec {
            tv_sec: libc::time_t::try_from(after.as_secs()).unwrap_or(libc::time_t::MAX),
            tv_nsec: libc::c_long::from(after.subsec_nanos()),
        })
    }

    /// Fires at `at` (at once if that has passed).
    pub fn arm_at(&self, at: tokio::time::Instant) -> io::Result<()> {
        self.arm(at.saturating_duration_since(tokio::time::Instant::now()))
    }

    /// Stops it (it does not fire until armed again).
    pub fn disarm(&self) -> io::Result<()> {
        self.set(libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        })
    }

    fn set(&self, value: libc::timespec) -> io::Result<()> {
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: value,
        };
        // SAFETY: the fd is a timerfd we own; `spec` lives for the call; no old value asked.
        let result =
            unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        if result < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Ready once the timer fired (its count read, so the next arming starts afresh).
    pub fn poll_expired(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let mut count = [0u8; 8];
            let read = guard.try_io(|fd| {
                // SAFETY: reading 8 bytes into a buffer of 8 from a timerfd we own.
                let n = unsafe { libc::read(fd.as_raw_fd(), count.as_mut_ptr().cast(), 8) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(())
                }
            });
            match read {
                Ok(result) => return Poll::Ready(result),
                // Not fired yet (the readiness was stale): wait again.
                Err(_would_block) => continue,
            }
        }
    }

    /// Waits until the timer fires.
    pub async fn expired(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| self.poll_expired(cx)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// It fires once per arming, again when armed again, and not when disarmed.
    #[tokio::test]
    async fn the_timer_fires_once_per_arming() {
        let timer = Timer::new().unwrap();
        for _ in 0..3 {
            timer.arm(Duration::from_millis(5)).unwrap();
            tokio::time::timeout(Duration::from_secs(30), timer.expired())
                .await
                .expect("the timer fired")
                .unwrap();
        }
        // Fired and not armed again: it stays quiet.
        let quiet = tokio::time::timeout(Duration::from_millis(50), timer.expired()).await;
        assert!(quiet.is_err(), "a timer that was not armed again fired");
        // Armed, then disarmed: quiet too; armed for a time past: at once.
        timer.arm(Duration::from_millis(5)).unwrap();
        timer.disarm().unwrap();
        let quiet = tokio::time::timeout(Duration::from_millis(50), timer.expired()).await;
        assert!(quiet.is_err(), "a disarmed timer fired");
        timer
            .arm_at(tokio::time::Instant::now() - Duration::from_millis(1))
            .unwrap();
        tokio::time::timeout(Duration::from_secs(30), timer.expired())
            .await
            .expect("a time past fires at once")
            .unwrap();
    }
}
