//! Sending signals to processes and process groups: the only `unsafe` of the process layer.

use std::io;

/// SIGTERM.
pub(crate) const SIGTERM: i32 = libc::SIGTERM;
/// SIGKILL.
pub(crate) const SIGKILL: i32 = libc::SIGKILL;

/// Sends `signal` to every process of group `pgid`. `Ok(false)` if the group no longer exists.
pub(crate) fn signal_group(pgid: u32, signal: i32) -> io::Result<bool> {
    raw_kill(-target(pgid, "pgid", "group")?, signal)
}

/// SIGKILLs every process of group `pgid` (a child started in a group of its own), best
/// effort: a failure is only logged, and a group already gone is no failure.
pub(crate) fn kill_group(pgid: u32) {
    if let Err(err) = signal_group(pgid, SIGKILL) {
        tracing::debug!("kill of group {pgid} failed: {err}");
    }
}

/// Sends `signal` to the single process `pid`. `Ok(false)` if it no longer exists.
pub(crate) fn signal_pid(pid: u32, signal: i32) -> io::Result<bool> {
    raw_kill(target(pid, "pid", "pid")?, signal)
}

/// `id` (a pid or a pgid: `name`, `what` in the refusal) as `kill(2)` takes it; refused out of
/// range, and for 0 or 1: with a pgid, our own group or (as -1) every process we may signal;
/// with a pid, init.
fn target(id: u32, name: &str, what: &str) -> io::Result<libc::pid_t> {
    let Ok(id) = libc::pid_t::try_from(id) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name} out of range"),
        ));
    };
    if id <= 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("refusing to signal {what} 0 or 1"),
        ));
    }
    Ok(id)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};

    /// The group's leader is killed (a second kill of a group gone is harmless); our own group or
    /// init's is never signalled.
    #[test]
    fn kill_group_kills_the_leader_and_never_group_0_or_1() {
        let mut leader = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = leader.id();
        kill_group(pgid);
        assert_eq!(leader.wait().unwrap().signal(), Some(SIGKILL));
        kill_group(pgid);
        assert!(signal_group(0, SIGKILL).is_err());
        assert!(signal_group(1, SIGKILL).is_err());
    }
}
