//! No agent outlives codiva, however codiva ends: a SIGKILLed, crashed or OOM-killed codiva runs
//! none of its cleanup, and Claude Code left alone finishes its turn unsupervised (its stdin's
//! EOF only ends it after the turn) and its tool processes run on.
//!
//! Next to every agent runs a watcher: a tiny `sh` in the agent's process group whose stdin is
//! the read end of a pipe whose only write end codiva holds (close-on-exec, so no other child
//! inherits it). When codiva's process ends, by any means, the kernel closes that end; the
//! watcher's `read` returns and it stops the agent the way Claude Code tears down cleanly —
//! SIGTERM to the leader, which kills its tool processes (they run in sessions of their own,
//! out of reach of a group signal; see docs/protocol/claude.md) — then, after at most
//! [`GRACE_TENTHS`] tenths of a second, SIGKILLs the whole group, itself included.
//!
//! Why not `PR_SET_PDEATHSIG`: on Linux it fires when the *thread* that forked the child exits,
//! and agents are spawned from tokio threads (blocking-pool threads end when idle); it is
//! Linux-only; and it would reach the leader alone with a signal it cannot escalate. The pipe
//! depends only on the process's lifetime and works wherever `sh` does.

use std::io;
use std::process::Stdio;

use tokio::process::{Child, Command};

/// How long the watcher lets the agent stop after SIGTERM before it SIGKILLs the group, in
/// tenths of a second. Claude Code exits within about half a second of a SIGTERM.
const GRACE_TENTHS: u32 = 10;

/// The watcher's script. `$1` is the agent's pid (its group id). SIGTERM, SIGINT and SIGHUP
/// are ignored so that codiva's own group SIGTERM (an orderly stop) leaves the watcher in place
/// until the group SIGKILL that follows the leader's exit.
fn script() -> String {
    format!(
        "trap '' TERM INT HUP; read _ ; kill -TERM \"$1\" 2>/dev/null; i=0; \
         while [ $i -lt {GRACE_TENTHS} ] && kill -0 \"$1\" 2>/dev/null; do sleep 0.1; i=$((i+1)); done; \
         kill -KILL 0"
    )
}

/// A running watcher. Holding it keeps the agent supervised; dropping it (or codiva's exit)
/// closes the pipe and the watcher stops the agent's group.
#[derive(Debug)]
pub(crate) struct ParentWatch {
    _write_end: io::PipeWriter,
    child: Child,
}

impl ParentWatch {
    /// Starts the watcher in the process group `pgid` (the agent's pid). Fails when the group
    /// is already gone (the agent exited at once).
    pub(crate) fn start(pgid: u32) -> io::Result<ParentWatch> {
        let (read_end, write_end) = io::pipe()?;
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(script())
            .arg("codiva-watch")
            .arg(pgid.to_string())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .current_dir("/")
            .stdin(Stdio::from(read_end))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(false);
        #[cfg(unix)]
        command.process_group(i32::try_from(pgid).map_err(io::Error::other)?);
        let child = command.spawn()?;
        // The read end given to the child was moved into `command`; drop the parent's copy now
        // so that only the watcher holds it.
        drop(command);
        Ok(ParentWatch {
            _write_end: write_end,
            child,
        })
    }

    /// Waits for the watcher to end (the group SIGKILL after the agent's exit ends it).
    pub(crate) async fn reap(mut self) {
        let _ = self.child.wait().await;
    }
}
