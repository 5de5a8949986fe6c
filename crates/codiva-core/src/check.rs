//! A repository's check command (`check = "cargo test -q"`) run in a session's worktree: the
//! user's own command, through `sh -c`, in its own process group, with the manager's
//! environment (plus `CODIVA_WORKTREE` and `CODIVA_REPO_ROOT`), a time limit, and the end of its
//! output kept. It is watched like an agent (`process/parent_watch.rs`: it dies with codiva
//! however codiva ends) and recorded in the child registry until reaped. A stop (its session
//! discarded or merged, the manager shutting down) or the time limit kills its whole group.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codiva_protocol::group::CheckState;
use tokio::sync::oneshot;

use crate::process::locate::{Supervised, Supervision};
use crate::process::output::{Ended, Tail, read_until_exit};
use crate::process::signal::kill_group;
use crate::process::{ChildRegistry, EnvPolicy};

/// The time limit when the configuration names none.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(600);
/// The end of a check's output that is kept.
pub const CHECK_TAIL: usize = 16 * 1024;
/// How long the output is still read after the command exited (a grandchild holding the pipe
/// open is then killed with the group).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// The check as the user's configuration names it (`check`, `check_timeout`); the
/// repository's `.codiva/config.toml` overrides both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    pub command: Option<String>,
    pub timeout: Duration,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            command: None,
            timeout: DEFAULT_CHECK_TIMEOUT,
        }
    }
}

/// What to run, and where.
#[derive(Debug, Clone)]
pub struct CheckSpec {
    /// Given to `sh -c`.
    pub command: String,
    pub worktree: PathBuf,
    pub repo_root: PathBuf,
    pub timeout: Duration,
    pub env: EnvPolicy,
    pub registry: Option<ChildRegistry>,
}

/// How a check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFinish {
    pub state: CheckState,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Why it could not run, or that it was stopped (state `error`).
    pub detail: Option<String>,
    pub duration_ms: u64,
    /// The end of its output (stdout and stderr as they came), made safe to show.
    pub tail: String,
    /// Output bytes before `tail` that were not kept.
    pub omitted_bytes: u64,
}

/// Runs the check to its end, its time limit, or `stop` (a send, or the sender dropped).
pub async fn run(spec: CheckSpec, stop: oneshot::Receiver<()>) -> CheckFinish {
    let started = Instant::now();
    let elapsed = move || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut command = crate::process::tool_command("sh", &spec.worktree);
    command.arg("-c").arg(&spec.command);
    crate::process::spawn::apply_env(&mut command, &spec.env);
    command
        .env("CODIVA_WORKTREE", &spec.worktree)
        .env("CODIVA_REPO_ROOT", &spec.repo_root);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return CheckFinish {
                state: CheckState::Error,
                exit_code: None,
                signal: None,
                detail: Some(format!("cannot run sh: {err}")),
                duration_ms: elapsed(),
                tail: String::new(),
                omitted_bytes: 0,
            };
        }
    };
    let pid = child.id();
    // Recorded in the child registry and watched until it is reaped.
    let supervision = Supervision {
        registry: spec.registry.as_ref(),
        label: "check",
    };
    let supervised = pid.map(|pid| Supervised::start(pid, Path::new("sh"), &supervision));
    let mut tail = Tail::new(CHECK_TAIL);
    let deadline = tokio::time::Instant::now() + spec.timeout;
    let (ended, status) = read_until_exit(&mut child, deadline, DRAIN_AFTER_EXIT, stop, |chunk| {
        tail.push(chunk)
    })
    .await;
    let ended_by = match ended {
        Ended::Exited => None,
        Ended::TimedOut => Some(CheckState::TimedOut),
        Ended::Stopped => Some(CheckState::Error),
    };
    // Whatever is left of its group (the command when stopped or late; anything it started
    // otherwise). It is unreaped until the wait below, so the group id is still its own.
    if let Some(pid) = pid {
        kill_group(pid);
    }
    let status = match status {
        Some(status) => status,
        None => child.wait().await,
    };
    if let Some(supervised) = supervised {
        supervised.finish().await;
    }
    let (tail, omitted_bytes) = finish(tail);
    let duration_ms = elapsed();
    let (exit_code, signal) = match &status {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt as _;
            (status.code(), status.signal())
        }
        Err(_) => (None, None),
    };
    let (state, detail) = match (ended_by, &status) {
        (Some(CheckState::TimedOut), _) => (
            CheckState::TimedOut,
            Some(format!(
                "stopped after the time limit of {} s",
                spec.timeout.as_secs()
            )),
        ),
        (Some(_), _) => (
            CheckState::Error,
            Some("stopped with its session".to_owned()),
        ),
        (None, Ok(status)) if status.success() => (CheckState::Passed, None),
        (None, Ok(_)) => (CheckState::Failed, None),
        (None, Err(err)) => (
            CheckState::Error,
            Some(format!("cannot wait for it: {err}")),
        ),
    };
    let stopped = ended_by.is_some();
    CheckFinish {
        state,
        exit_code: if stopped { None } else { exit_code },
        signal: if stopped { None } else { signal },
        detail,
        duration_ms,
        tail,
        omitted_bytes,
    }
}

/// The output's kept tail as text, and how many bytes came before it: a character the cut
/// split is dropped whole (its bytes counted as omitted), invalid UTF-8 becomes U+FFFD, and
/// control characters other than newline and tab become U+FFFD too (the output is shown on
/// terminals).
fn finish(tail: Tail) -> (String, u64) {
    let mut start = 0;
    if tail.dropped > 0 {
        // Continuation bytes of a character whose start was dropped.
        while start < tail.bytes.len() && start < 3 && (tail.bytes[start] & 0xC0) == 0x80 {
            start += 1;
        }
    }
    let text: String = String::from_utf8_lossy(&tail.bytes[start..])
        .replace("\r\n", "\n")
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            '\r' => '\n',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect();
    (text, tail.dropped + start as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_end_and_cuts_between_characters() {
        let mut tail = Tail::new(CHECK_TAIL);
        // "é" is two bytes: the cut drops its first, so its second goes too.
        tail.push("é".as_bytes());
        tail.push(&vec![b'a'; CHECK_TAIL - 1]);
        let (text, omitted) = finish(tail);
        assert_eq!(omitted, 2);
        assert_eq!(text, "a".repeat(CHECK_TAIL - 1));
    }

    #[test]
    fn control_characters_do_not_reach_a_terminal() {
        let mut tail = Tail::new(CHECK_TAIL);
        tail.push("ok\tdone\r\n\u{1b}[31mred\u{7}".as_bytes());
        let (text, omitted) = finish(tail);
        assert_eq!(omitted, 0);
        assert_eq!(text, "ok\tdone\n\u{FFFD}[31mred\u{FFFD}");
    }
}
