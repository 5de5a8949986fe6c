//! What a background daemon needs of the OS: a child detached from the terminal (a session and
//! process group of its own), and the user it runs as.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes `command` start in a new session (`setsid`): its own process group, no controlling
/// terminal, so neither the terminal's hang-up nor a signal to the starter's group reaches it.
/// The caller points its stdio away from the terminal.
pub fn new_session(command: &mut Command) -> &mut Command {
    // SAFETY: `setsid` is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// This process's effective user id.
pub fn effective_uid() -> u32 {
    // SAFETY: `geteuid` cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detached_child_leads_its_own_session() {
        // Its session id is its own pid: it leads a new session.
        let output =
            new_session(Command::new("/bin/sh").args(["-c", "echo $$ $(ps -o sid= -p $$)"]))
                .output()
                .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        let mut parts = text.split_whitespace();
        assert_eq!(parts.next(), parts.next(), "{text}");
    }
}
