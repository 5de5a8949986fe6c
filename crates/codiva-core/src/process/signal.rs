//! Sending signals to processes and process groups: the only `unsafe` of the process layer.

use std::io;

/// SIGTERM.
pub(crate) const SIGTERM: i32 = libc::SIGTERM;
/// SIGKILL.
pub(crate) const SIGKILL: i32 = libc::SIGKILL;

/// Sends `signal` to every process of group `pgid`. `Ok(false)` if the group no longer exists.
pub(crate) fn signal_group(pgid: u32, signal: i32) -> io::Result<bool> {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "pgid out of range",
        ));
    };
    // pgid 0 or 1 would signal our own group or (with -1) every process we may signal.
    if pgid <= 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "refusing to signal group 0 or 1",
        ));
    }
    raw_kill(-pgid, signal)
}

/// Sends `signal` to the single process `pid`. `Ok(false)` if it no longer exists.
pub(crate) fn signal_pid(pid: u32, signal: i32) -> io::Result<bool> {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "pid out of range",
        ));
    };
    if pid <= 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "refusing to signal pid 0 or 1",
        ));
    }
    raw_kill(pid, signal)
}

fn raw_kill(target: libc::pid_t, signal: i32) -> io::Result<bool> {
    // SAFETY: `kill(2)` takes two plain integers and touches no memory of ours; it cannot
    // violate memory safety. The callers above exclude the targets 0, -1 and 1 (our own group,
    // "every process", init).
    let rc = unsafe { libc::kill(target, signal) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) {
        Ok(false)
    } else {
        Err(err)
    }
}
