//! The optional `.codiva/setup` script, run in each new worktree before the agent starts.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;
use tokio::time::Instant;

use super::Repo;
use crate::process::output::{Ended, Tail, read_until_exit};
use crate::process::signal::kill_group;

/// How long the setup script may run before its process group is killed.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// How much of the script's output is kept (the end of it).
pub const SETUP_OUTPUT_CAP: usize = 64 * 1024;
/// After the script exits, how long its output pipes are still read (a background process it
/// left behind may hold them open).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// How the setup script went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupResult {
    /// Exit code 0.
    pub success: bool,
    /// The exit code; `None` if it was killed, timed out or could not be started.
    pub code: Option<i32>,
    /// It ran out of time and was killed.
    pub timed_out: bool,
    /// stdout and stderr interleaved as they arrived, the last [`SETUP_OUTPUT_CAP`] bytes.
    pub output: String,
}

impl Repo {
    /// `<root>/.codiva/setup` if it is an executable file.
    pub fn setup_script(&self) -> Option<PathBuf> {
        let path = self.root().join(".codiva").join("setup");
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() {
            return None;
        }
        if meta.permissions().mode() & 0o111 == 0 {
            tracing::warn!(
                "{} exists but is not executable; not running it (chmod +x to enable)",
                path.display()
            );
            return None;
        }
        Some(path)
    }

    /// Runs `.codiva/setup` (if present and executable) with the worktree as its working
    /// directory, in its own process group, killed after [`SETUP_TIMEOUT`]. The script sees
    /// `CODIVA_REPO_ROOT` (the main checkout) and `CODIVA_WORKTREE`. `None` when there is no
    /// script.
    pub async fn run_setup(&self, worktree: &Path) -> Option<SetupResult> {
        self.run_setup_with_timeout(worktree, SETUP_TIMEOUT).await
    }

    /// [`Repo::run_setup`] with another timeout.
    pub async fn run_setup_with_timeout(
        &self,
        worktree: &Path,
        timeout: Duration,
    ) -> Option<SetupResult> {
        let script = self.setup_script()?;
        Some(run_script(&script, self.root(), worktree, timeout).await)
    }
}

async fn run_script(script: &Path, root: &Path, worktree: &Path, timeout: Duration) -> SetupResult {
    let mut command = Command::new(script);
    command
        .current_dir(worktree)
        .env("CODIVA_REPO_ROOT", root)
        .env("CODIVA_WORKTREE", worktree)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return SetupResult {
                success: false,
                code: None,
                timed_out: false,
                output: format!("codiva: cannot run {}: {err}", script.display()),
            };
        }
    };
    let pid = child.id();
    let mut tail = Tail::new(SETUP_OUTPUT_CAP);
    let deadline = Instant::now() + timeout;
    let never = std::future::pending::<()>();
    let (ended, mut status) =
        read_until_exit(&mut child, deadline, DRAIN_AFTER_EXIT, never, |chunk| {
            tail.push(chunk)
        })
        .await;
    let timed_out = ended == Ended::TimedOut;
    if timed_out {
        if let Some(pid) = pid {
            kill_group(pid);
        }
        status = Some(child.wait().await);
    }
    let code = match (&status, timed_out) {
        (Some(Ok(exit)), false) => exit.code(),
        _ => None,
    };
    let mut output = into_string(tail);
    if timed_out {
        output.push_str(&format!(
            "\n[codiva: {} timed out after {} s and was killed]",
            script.display(),
            timeout.as_secs()
        ));
    } else if let Some(Err(err)) = &status {
        output.push_str(&format!(
            "\n[codiva: cannot wait for the setup script: {err}]"
        ));
    }
    SetupResult {
        success: code == Some(0),
        code,
        timed_out,
        output,
    }
}

/// The output's kept tail as text, after a line that says how many bytes came before it.
fn into_string(tail: Tail) -> String {
    let text = String::from_utf8_lossy(&tail.bytes);
    if tail.dropped == 0 {
        text.into_owned()
    } else {
        format!(
            "[codiva: {} bytes of earlier output omitted]\n{text}",
            tail.dropped
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_end() {
        let mut tail = Tail::new(SETUP_OUTPUT_CAP);
        tail.push(&vec![b'a'; SETUP_OUTPUT_CAP]);
        tail.push(b"end");
        let text = into_string(tail);
        assert!(text.starts_with("[codiva: 3 bytes of earlier output omitted]\n"));
        assert!(text.ends_with("aend"));
    }

    fn script(body: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("setup");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        (dir, path)
    }

    #[tokio::test]
    async fn timeout_kills_the_group() {
        let (dir, path) = script("echo started; sleep 30 & sleep 30");
        let started = Instant::now();
        let result = run_script(&path, dir.path(), dir.path(), Duration::from_millis(500)).await;
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(result.timed_out);
        assert!(!result.success);
        assert!(result.output.contains("started"), "{}", result.output);
        assert!(result.output.contains("timed out"), "{}", result.output);
    }

    #[tokio::test]
    async fn a_leftover_background_process_does_not_block() {
        let (dir, path) = script("sleep 5 & echo done");
        let started = Instant::now();
        let result = run_script(&path, dir.path(), dir.path(), Duration::from_secs(20)).await;
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(result.success, "{result:?}");
        assert!(result.output.contains("done"));
    }
}
