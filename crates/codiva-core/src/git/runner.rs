//! Running one git command: argument vector, timeout, stderr kept, process group killed on
//! timeout.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::GitError;
use crate::process::signal::kill_group;

/// The timeout of an ordinary git call.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The timeout of `git fetch` at worktree creation: a quick try, never a long wait.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of git's stderr an error keeps.
const STDERR_CAP: usize = 4 * 1024;

/// Variables set on every git call: never prompt for credentials, never take optional locks
/// (codiva's `status` calls must not fight with the agent's own git commands over `index.lock`).
const GIT_ENV: &[(&str, &str)] = &[("GIT_TERMINAL_PROMPT", "0"), ("GIT_OPTIONAL_LOCKS", "0")];

/// One git invocation, built like a `Command`.
#[derive(Debug)]
pub(crate) struct Git {
    cwd: PathBuf,
    args: Vec<OsString>,
    timeout: Duration,
    env: Vec<(&'static str, OsString)>,
}

/// What a finished git call produced.
#[derive(Debug)]
pub(crate) struct GitOutput {
    /// The exit code (`None`: killed by a signal).
    pub(crate) code: Option<i32>,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
    args: String,
}

impl GitOutput {
    pub(crate) fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// stdout as (lossy) UTF-8 with surrounding whitespace removed.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_string()
    }

    /// stdout split at NUL bytes, empty fields dropped.
    pub(crate) fn nul_fields(&self) -> Vec<String> {
        split_nul(&self.stdout)
    }

    /// The error describing this (failed) call.
    pub(crate) fn into_error(self) -> GitError {
        GitError::Command {
            args: self.args,
            code: self.code,
            stderr: self.stderr,
        }
    }
}

/// Splits `-z` output at NUL bytes, dropping empty fields.
pub(crate) fn split_nul(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|field| !field.is_empty())
        .map(|field| String::from_utf8_lossy(field).into_owned())
        .collect()
}

impl Git {
    /// `git` run in `cwd`.
    pub(crate) fn new(cwd: &Path) -> Self {
        Git {
            cwd: cwd.to_path_buf(),
            args: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            env: Vec::new(),
        }
    }

    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub(crate) fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub(crate) fn env(mut self, key: &'static str, value: impl AsRef<OsStr>) -> Self {
        self.env.push((key, value.as_ref().to_os_string()));
        self
    }

    fn args_label(&self) -> String {
        self.args
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Starts git with piped output, in its own process group (so that a timeout also kills
    /// what git started: ssh, helpers), with the fixed environment.
    fn spawn(&self) -> Result<tokio::process::Child, GitError> {
        let mut command = crate::process::tool_command("git", &self.cwd);
        command.args(&self.args);
        for (key, value) in GIT_ENV {
            command.env(key, value);
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        match command.spawn() {
            Ok(child) => Ok(child),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                // Either git or the working directory is missing.
                if self.cwd.is_dir() {
                    return Err(GitError::GitNotFound);
                }
                Err(GitError::Io(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("directory {} does not exist", self.cwd.display()),
                )))
            }
            Err(err) => Err(GitError::Io(err)),
        }
    }

    /// Runs git and returns its output whatever the exit status.
    pub(crate) async fn output(self) -> Result<GitOutput, GitError> {
        let label = self.args_label();
        tracing::debug!(cwd = %self.cwd.display(), "git {label}");
        let child = self.spawn()?;
        let pid = child.id();
        match tokio::time::timeout(self.timeout, child.wait_with_output()).await {
            Ok(Ok(output)) => Ok(GitOutput {
                code: output.status.code(),
                stdout: output.stdout,
                stderr: cap_stderr(&output.stderr),
                args: label,
            }),
            Ok(Err(err)) => Err(GitError::Io(err)),
            Err(_elapsed) => {
                // Dropping the child (kill_on_drop) kills git itself; its helpers share the group.
                if let Some(pid) = pid {
                    kill_group(pid);
                }
                tracing::warn!("git {label} timed out after {:?}", self.timeout);
                Err(GitError::Timeout {
                    args: label,
                    secs: self.timeout.as_secs(),
                })
            }
        }
    }

    /// Runs git and keeps at most `cap` bytes of its stdout (a diff can be any size): past the
    /// cap git is killed and the output is marked truncated. Whatever the exit status.
    pub(crate) async fn output_capped(self, cap: usize) -> Result<(GitOutput, bool), GitError> {
        use tokio::io::AsyncReadExt as _;
        let label = self.args_label();
        tracing::debug!(cwd = %self.cwd.display(), "git {label} (stdout capped at {cap})");
        let mut child = self.spawn()?;
        let pid = child.id();
        let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(GitError::Io(io::Error::other("git's output was not piped")));
        };
        let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
        let run = async {
            let mut err = Vec::new();
            // Past the cap git is killed at once (else it would block on a full pipe and
            // stderr would never end).
            let read_out = async {
                let mut out = Vec::new();
                stdout.take(limit).read_to_end(&mut out).await?;
                if out.len() > cap
                    && let Some(pid) = pid
                {
                    kill_group(pid);
                }
                Ok::<_, io::Error>(out)
            };
            let (read_out, _) = tokio::join!(read_out, stderr.read_to_end(&mut err));
            let mut out = read_out?;
            let truncated = out.len() > cap;
            out.truncate(cap);
            let status = child.wait().await?;
            Ok::<_, io::Error>((out, err, status, truncated))
        };
        match tokio::time::timeout(self.timeout, run).await {
            Ok(Ok((stdout, stderr, status, truncated))) => Ok((
                GitOutput {
                    code: status.code(),
                    stdout,
                    stderr: cap_stderr(&stderr),
                    args: label,
                },
                truncated,
            )),
            Ok(Err(err)) => Err(GitError::Io(err)),
            Err(_elapsed) => {
                if let Some(pid) = pid {
                    kill_group(pid);
                }
                Err(GitError::Timeout {
                    args: label,
                    secs: self.timeout.as_secs(),
                })
            }
        }
    }

    /// Runs git; a non-zero exit is a [`GitError::Command`].
    pub(crate) async fn run(self) -> Result<GitOutput, GitError> {
        let output = self.output().await?;
        if output.success() {
            Ok(output)
        } else {
            Err(output.into_error())
        }
    }

    /// Runs git and returns its trimmed stdout; a non-zero exit is an error.
    pub(crate) async fn text(self) -> Result<String, GitError> {
        Ok(self.run().await?.text())
    }

    /// Runs git for its exit status only: `Ok(true)` on 0, `Ok(false)` on 1, an error otherwise.
    pub(crate) async fn check(self) -> Result<bool, GitError> {
        let output = self.output().await?;
        match output.code {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(output.into_error()),
        }
    }
}

fn cap_stderr(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.len() <= STDERR_CAP {
        return text.to_string();
    }
    format!("{}…", codiva_protocol::text::head(text, STDERR_CAP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_split_drops_empty_fields() {
        assert_eq!(split_nul(b"a\0b c\0\0"), vec!["a", "b c"]);
        assert!(split_nul(b"").is_empty());
    }

    #[test]
    fn stderr_is_capped_at_a_char_boundary() {
        let long = "é".repeat(STDERR_CAP);
        let capped = cap_stderr(long.as_bytes());
        assert!(capped.len() <= STDERR_CAP + '…'.len_utf8());
        assert!(capped.ends_with('…'));
    }

    #[tokio::test]
    async fn failing_command_keeps_stderr_and_args() {
        let dir = tempfile::tempdir().unwrap();
        let err = Git::new(dir.path())
            .args(["rev-parse", "--verify", "no-such-ref"])
            .run()
            .await
            .unwrap_err();
        match err {
            GitError::Command { args, code, stderr } => {
                assert_eq!(args, "rev-parse --verify no-such-ref");
                assert_eq!(code, Some(128));
                assert!(!stderr.is_empty());
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_slow_command_times_out_and_its_group_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        // A shell alias stands in for a hanging fetch; the test itself may use a shell.
        let alias = format!("alias.nap=!sleep 2; touch '{}'", marker.display());
        let started = std::time::Instant::now();
        let err = Git::new(dir.path())
            .args(["-c", &alias, "nap"])
            .timeout(Duration::from_millis(300))
            .run()
            .await
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(
            matches!(&err, GitError::Timeout { secs: 0, args } if args.ends_with("nap")),
            "{err:?}"
        );
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert!(
            !marker.exists(),
            "the shell git started outlived the timeout"
        );
    }

    #[tokio::test]
    async fn missing_cwd_is_an_io_error() {
        let err = Git::new(Path::new("/nonexistent/codiva/dir"))
            .arg("status")
            .run()
            .await
            .unwrap_err();
        assert!(matches!(err, GitError::Io(_)), "{err:?}");
    }
}
