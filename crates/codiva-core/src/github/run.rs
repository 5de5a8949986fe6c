//! Running one `gh` command: argument vector, own process group, explicit environment, a
//! timeout that kills the group, the child always reaped, stdout capped, stderr's tail kept.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::AsyncReadExt as _;

use super::GhError;
use crate::process::signal::kill_group;

/// The timeout of one `gh` call (a lookup is one GraphQL request; `pr create` three).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of stdout kept (a `pr list` of 100 pull requests with their check rollups).
const STDOUT_CAP: usize = 16 * 1024 * 1024;
/// How much of the end of stderr is kept.
const STDERR_TAIL: usize = 4 * 1024;

/// Set on every call, whatever the [`GhEnv`]: never prompt, no update check, no spinner, no
/// colour, no pager, and git (which `gh` runs) never asks for credentials either.
const FIXED_ENV: &[(&str, &str)] = &[
    ("GH_PROMPT_DISABLED", "1"),
    ("GH_NO_UPDATE_NOTIFIER", "1"),
    ("GH_SPINNER_DISABLED", "1"),
    ("NO_COLOR", "1"),
    ("CLICOLOR", "0"),
    ("GH_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// The environment `gh` runs with (plus [`FIXED_ENV`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GhEnv {
    /// codiva's own environment: the user's `gh` login (its config directory or their own
    /// `GH_TOKEN`), proxy and certificate settings.
    Inherit,
    /// Exactly these variables and nothing else (tests; include `PATH` so that `gh` finds
    /// git).
    Only(Vec<(String, String)>),
}

/// How to run `gh`: which binary, with which environment, against which repository.
#[derive(Clone, Debug)]
pub struct Gh {
    program: PathBuf,
    env: GhEnv,
    repo: Option<String>,
    timeout: Duration,
}

/// What a finished `gh` call produced, whatever its exit status.
#[derive(Debug)]
pub struct GhOutput {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// stdout (at most 16 MiB).
    pub stdout: Vec<u8>,
    /// The last 4 KiB of stderr, trimmed.
    pub stderr: String,
    /// The arguments, space-joined (for messages).
    pub args: String,
}

impl GhOutput {
    /// Exit status 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl Gh {
    /// `program` (a path or a name looked up in `PATH`) with codiva's environment, the
    /// repository taken by `gh` from the working directory's remotes, and a 30 s timeout.
    pub fn new(program: impl Into<PathBuf>) -> Gh {
        Gh {
            program: program.into(),
            env: GhEnv::Inherit,
            repo: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Runs `gh` with `env`.
    pub fn with_env(mut self, env: GhEnv) -> Gh {
        self.env = env;
        self
    }

    /// Names the repository explicitly (`--repo HOST/OWNER/REPO`) instead of letting `gh` read
    /// it from the checkout's remotes: for a remote `gh` cannot map to its host (a mirror, a
    /// local path, a host with a port). The passed flag, not `GH_REPO`: `gh pr create` 2.23
    /// ignores the variable when it checks the checkout's remotes.
    pub fn with_repo(mut self, repo: impl Into<String>) -> Gh {
        self.repo = Some(repo.into());
        self
    }

    /// Changes the timeout of each call.
    pub fn with_timeout(mut self, timeout: Duration) -> Gh {
        self.timeout = timeout;
        self
    }

    /// The timeout of each call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `gh <args> [--repo R]` in `cwd` and returns its output whatever the exit status;
    /// an error only when it could not be started, timed out, or could not be waited for.
    pub async fn output(&self, cwd: &Path, args: &[OsString]) -> Result<GhOutput, GhError> {
        let mut args = args.to_vec();
        if let Some(repo) = &self.repo {
            args.push("--repo".into());
            args.push(repo.into());
        }
        self.output_as_given(cwd, &args, &[]).await
    }

    /// The repository named with [`Gh::with_repo`], if any.
    pub fn repo(&self) -> Option<&str> {
        self.repo.as_deref()
    }

    /// Runs `gh <args>` exactly as given (no `--repo`: `gh api` has no such flag; its caller
    /// names the repository itself), with `env` added to its environment, and everything else
    /// as [`Gh::output`].
    pub(crate) async fn output_as_given(
        &self,
        cwd: &Path,
        args: &[OsString],
        env: &[(&str, String)],
    ) -> Result<GhOutput, GhError> {
        // A multi-line argument (a GraphQL document) is named, not quoted, in messages.
        let label = args
            .iter()
            .map(|a| a.to_string_lossy())
            .map(|a| match a.split_once('=') {
                Some((name, value)) if value.contains('\n') => format!("{name}=…").into(),
                _ => a,
            })
            .collect::<Vec<_>>()
            .join(" ");
        tracing::debug!(cwd = %cwd.display(), "gh {label}");
        let mut command = crate::process::tool_command(&self.program, cwd);
        command.args(args);
        if let GhEnv::Only(vars) = &self.env {
            command.env_clear();
            for (key, value) in vars {
                command.env(key, value);
            }
        }
        for (key, value) in FIXED_ENV {
            command.env(key, value);
        }
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(err) if err.kind() == io::ErrorKind::NotFound && cwd.is_dir() => {
                return Err(GhError::NotInstalled);
            }
            Err(err) => {
                return Err(GhError::Io(format!(
                    "starting gh in {}: {err}",
                    cwd.display()
                )));
            }
        };
        let pgid = child.id();
        let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(GhError::Io("gh's output was not piped".into()));
        };
        let limit = u64::try_from(STDOUT_CAP).unwrap_or(u64::MAX);
        let run = async {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let mut stdout = stdout.take(limit);
            let (read_out, read_err) =
                tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
            read_out?;
            read_err?;
            let status = child.wait().await?;
            Ok::<_, io::Error>((status, out, err))
        };
        let finished = tokio::time::timeout(self.timeout, run).await;
        match finished {
            Ok(Ok((status, stdout, stderr))) => Ok(GhOutput {
                code: status.code(),
                stdout,
                stderr: tail(&stderr),
                args: label,
            }),
            Ok(Err(err)) => Err(GhError::Io(format!("waiting for gh {label}: {err}"))),
            Err(_elapsed) => {
                // Kill gh and whatever it started (git, a credential helper), then reap it.
                if let Some(pgid) = pgid {
                    kill_group(pgid);
                }
                let _ = child.kill().await;
                tracing::warn!("gh {label} timed out after {:?}", self.timeout);
                Err(GhError::Timeout {
                    args: label,
                    secs: self.timeout.as_secs(),
                })
            }
        }
    }
}

/// The last [`STDERR_TAIL`] bytes of `bytes` as trimmed (lossy) UTF-8.
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.len() <= STDERR_TAIL {
        return text.to_string();
    }
    format!("…{}", codiva_protocol::text::tail(text, STDERR_TAIL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_keeps_its_end_at_a_char_boundary() {
        let long = format!("{}end", "é".repeat(STDERR_TAIL));
        let kept = tail(long.as_bytes());
        assert!(kept.starts_with('…'));
        assert!(kept.ends_with("end"));
        assert!(kept.len() <= STDERR_TAIL + '…'.len_utf8());
    }

    #[tokio::test]
    async fn a_missing_binary_is_not_installed() {
        let dir = tempfile::tempdir().unwrap();
        let gh = Gh::new(dir.path().join("no-such-gh"));
        let err = gh
            .output(dir.path(), &["--version".into()])
            .await
            .unwrap_err();
        assert_eq!(err, GhError::NotInstalled);
    }

    #[tokio::test]
    async fn the_environment_is_only_what_was_given() {
        let dir = tempfile::tempdir().unwrap();
        // `env` stands in for gh: it prints the environment it was given.
        let gh =
            Gh::new("/usr/bin/env").with_env(GhEnv::Only(vec![("ONLY_THIS".into(), "1".into())]));
        let out = gh.output(dir.path(), &[]).await.unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let mut names: Vec<&str> = text.lines().filter_map(|l| l.split('=').next()).collect();
        names.sort_unstable();
        let mut want: Vec<&str> = FIXED_ENV.iter().map(|(k, _)| *k).collect();
        want.push("ONLY_THIS");
        want.sort_unstable();
        assert_eq!(names, want);
    }

    #[tokio::test]
    async fn a_slow_gh_times_out_and_its_group_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        // A shell stands in for a hanging gh; its background child shares the group.
        let script = format!("(sleep 2; touch '{}') & wait", marker.display());
        let gh = Gh::new("/bin/sh").with_timeout(Duration::from_millis(300));
        let err = gh
            .output(dir.path(), &["-c".into(), script.into()])
            .await
            .unwrap_err();
        assert!(matches!(err, GhError::Timeout { secs: 0, .. }), "{err:?}");
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert!(
            !marker.exists(),
            "a process gh started outlived the timeout"
        );
    }
}
