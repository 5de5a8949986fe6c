//! Finding an agent binary and checking its version.

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::signal::kill_group;

/// How long `--version` may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of `--version`'s output is read.
const PROBE_OUTPUT_LIMIT: u64 = 64 * 1024;

/// The program could not be found.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// The configured path is not an executable file.
    #[error("the configured program {} {problem}", path.display())]
    Configured {
        /// The configured path.
        path: PathBuf,
        /// What is wrong with it.
        problem: NotExecutable,
    },
    /// Not in any searched directory.
    #[error("{name} not found; searched: {}", display_paths(searched))]
    NotFound {
        /// The program name.
        name: String,
        /// Every directory searched, in order.
        searched: Vec<PathBuf>,
    },
}

/// Why a path is not a program to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotExecutable {
    Missing,
    NotAFile,
    NoExecutePermission,
}

impl fmt::Display for NotExecutable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotExecutable::Missing => "does not exist",
            NotExecutable::NotAFile => "is not a file",
            NotExecutable::NoExecutePermission => "is not executable",
        })
    }
}

fn display_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "(nothing)".to_owned();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Finds `name`: the `configured` path if given (it must be an executable file), else the first
/// executable `name` in the entries of `env_path` (a `PATH` value), then in the usual install
/// directories of Claude Code: `~/.local/bin`, `~/.claude/local`, `~/.npm-global/bin`,
/// `$NPM_CONFIG_PREFIX/bin`, `/usr/local/bin`.
///
/// A `name` containing a `/` is a path and is only checked itself.
pub fn locate_program(
    name: &str,
    configured: Option<&Path>,
    env_path: Option<&OsStr>,
    home: Option<&Path>,
) -> Result<PathBuf, LocateError> {
    let npm_prefix =
        std::env::var_os("NPM_CONFIG_PREFIX").or_else(|| std::env::var_os("npm_config_prefix"));
    locate_in(name, configured, env_path, home, npm_prefix.as_deref())
}

fn locate_in(
    name: &str,
    configured: Option<&Path>,
    env_path: Option<&OsStr>,
    home: Option<&Path>,
    npm_prefix: Option<&OsStr>,
) -> Result<PathBuf, LocateError> {
    if let Some(path) = configured {
        return match executable_problem(path) {
            None => Ok(path.to_path_buf()),
            Some(problem) => Err(LocateError::Configured {
                path: path.to_path_buf(),
                problem,
            }),
        };
    }
    if name.contains('/') {
        let path = PathBuf::from(name);
        if executable_problem(&path).is_none() {
            return Ok(path);
        }
        return Err(LocateError::NotFound {
            name: name.to_owned(),
            searched: vec![path],
        });
    }
    let searched = search_dirs(env_path, home, npm_prefix);
    for dir in &searched {
        let candidate = dir.join(name);
        if executable_problem(&candidate).is_none() {
            return Ok(candidate);
        }
    }
    Err(LocateError::NotFound {
        name: name.to_owned(),
        searched,
    })
}

/// The directories searched, in order, without duplicates or empty entries.
fn search_dirs(
    env_path: Option<&OsStr>,
    home: Option<&Path>,
    npm_prefix: Option<&OsStr>,
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = env_path
        .map(|path| std::env::split_paths(path).collect())
        .unwrap_or_default();
    if let Some(home) = home {
        for sub in [".local/bin", ".claude/local", ".npm-global/bin"] {
            dirs.push(home.join(sub));
        }
    }
    if let Some(prefix) = npm_prefix.filter(|p| !p.is_empty()) {
        dirs.push(Path::new(prefix).join("bin"));
    }
    dirs.push(PathBuf::from("/usr/local/bin"));

    let mut unique: Vec<PathBuf> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        if !dir.as_os_str().is_empty() && !unique.contains(&dir) {
            unique.push(dir);
        }
    }
    unique
}

/// `None` if `path` is an executable file, else what is wrong.
fn executable_problem(path: &Path) -> Option<NotExecutable> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Some(NotExecutable::Missing);
    };
    if !meta.is_file() {
        return Some(NotExecutable::NotAFile);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Some(NotExecutable::NoExecutePermission);
        }
    }
    None
}

/// A `major.minor.patch` version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major.
    pub major: u32,
    /// Minor.
    pub minor: u32,
    /// Patch.
    pub patch: u32,
}

impl Version {
    /// A version.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch,
        }
    }

    /// The first `N.N.N` in `text` (as in `2.1.332 (Claude Code)`), if any. A triple must not
    /// be glued to a preceding digit or dot.
    pub fn find_in(text: &str) -> Option<Version> {
        let bytes = text.as_bytes();
        (0..bytes.len())
            .filter(|&i| {
                bytes[i].is_ascii_digit()
                    && (i == 0 || !(bytes[i - 1].is_ascii_digit() || bytes[i - 1] == b'.'))
            })
            .find_map(|i| parse_triple(&text[i..]))
    }
}

/// Parses `N.N.N` at the start of `text`.
fn parse_triple(text: &str) -> Option<Version> {
    let mut parts = [0u32; 3];
    let mut rest = text;
    for (index, part) in parts.iter_mut().enumerate() {
        if index > 0 {
            rest = rest.strip_prefix('.')?;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        *part = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
    }
    Some(Version::new(parts[0], parts[1], parts[2]))
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// `program --version` failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// It could not be started.
    #[error("cannot run {} --version: {source}", program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// It did not finish in time (and was killed).
    #[error("{} --version did not finish within {} s", program.display(), after.as_secs())]
    Timeout {
        /// The program.
        program: PathBuf,
        /// The time limit.
        after: Duration,
    },
    /// It printed no `N.N.N`.
    #[error("{} --version printed no version ({status}): {output:?}", program.display())]
    NoVersion {
        /// The program.
        program: PathBuf,
        /// Its exit status.
        status: String,
        /// The start of its stdout and stderr.
        output: String,
    },
}

/// Runs `program --version` (in its own process group; killed after 10 s) and returns the first
/// `N.N.N` of its stdout, else of its stderr.
pub async fn probe_version(program: &Path) -> Result<Version, ProbeError> {
    probe_version_with(program, "--version").await
}

/// [`probe_version`] with the program's own version flag.
pub async fn probe_version_with(program: &Path, flag: &str) -> Result<Version, ProbeError> {
    probe_version_within(program, flag, PROBE_TIMEOUT).await
}

async fn probe_version_within(
    program: &Path,
    flag: &str,
    limit: Duration,
) -> Result<Version, ProbeError> {
    let inherit = super::EnvPolicy::Inherit {
        remove: Vec::new(),
        set: Vec::new(),
    };
    let run = run_captured(program, &[flag.into()], &inherit, limit).await?;
    Version::find_in(&run.stdout)
        .or_else(|| Version::find_in(&run.stderr))
        .ok_or_else(|| {
            let mut output = format!("{}{}", run.stdout, run.stderr);
            if let Some((cut, _)) = output.char_indices().nth(200) {
                output.truncate(cut);
            }
            ProbeError::NoVersion {
                program: program.to_path_buf(),
                status: run.status,
                output,
            }
        })
}

/// What a short command printed and how it ended.
#[derive(Debug, Clone)]
pub struct Captured {
    pub stdout: String,
    pub stderr: String,
    /// It exited with 0.
    pub success: bool,
    /// How it ended, for messages.
    pub status: String,
}

/// Runs `program args` to its end (stdin closed, its own process group, output capped, the
/// group killed after `limit` or once it exits): version probes, login checks.
pub async fn run_captured(
    program: &Path,
    args: &[std::ffi::OsString],
    env: &super::EnvPolicy,
    limit: Duration,
) -> Result<Captured, ProbeError> {
    run_supervised(program, args, env, limit, None).await
}

/// A one-shot that may run long (a title request to a model) kept as an agent is: recorded in
/// the child registry under `label` until it is reaped (a codiva that dies leaves a record the
/// next one reaps), and watched like an agent (`parent_watch.rs`): when codiva's process ends
/// however it ends — or the run is dropped (a stop) — the watcher stops its group at once.
pub struct Supervision<'a> {
    pub registry: Option<&'a super::ChildRegistry>,
    pub label: &'a str,
}

/// Holds a supervised child's record and watcher until it is reaped (a one-shot here, a
/// repository's check in `check.rs`); dropped early (the run's future cancelled), the
/// watcher's pipe closes and it stops the group.
pub(crate) struct Supervised {
    pid: u32,
    registry: Option<super::ChildRegistry>,
    watch: Option<super::parent_watch::ParentWatch>,
}

impl Supervised {
    pub(crate) fn start(pid: u32, program: &Path, supervision: &Supervision<'_>) -> Supervised {
        let registry = supervision.registry.cloned();
        if let Some(Err(err)) = registry
            .as_ref()
            .map(|registry| registry.record(pid, supervision.label, program))
        {
            tracing::warn!(pid, label = supervision.label, %err, "cannot record a child in the registry");
        }
        let watch = super::parent_watch::ParentWatch::start(pid)
            .inspect_err(|err| {
                tracing::warn!(pid, label = supervision.label, %err, "cannot start a child's watcher");
            })
            .ok();
        Supervised {
            pid,
            registry,
            watch,
        }
    }

    /// The child was reaped and its group killed: the watcher (killed with it) is reaped.
    pub(crate) async fn finish(mut self) {
        if let Some(watch) = self.watch.take() {
            watch.reap().await;
        }
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        if let Some(Err(err)) = self.registry.as_ref().map(|r| r.remove(self.pid)) {
            tracing::warn!(pid = self.pid, %err, "cannot remove a child from the registry");
        }
    }
}

/// [`run_captured`], supervised when `supervision` says so (see [`Supervision`]).
pub async fn run_supervised(
    program: &Path,
    args: &[std::ffi::OsString],
    env: &super::EnvPolicy,
    limit: Duration,
    supervision: Option<Supervision<'_>>,
) -> Result<Captured, ProbeError> {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    super::spawn::apply_env(&mut command, env);
    #[cfg(unix)]
    command.process_group(0);
    let spawn_error = |source| ProbeError::Spawn {
        program: program.to_path_buf(),
        source,
    };
    let mut child = command.spawn().map_err(spawn_error)?;
    let pid = child.id();
    let supervised = match (pid, &supervision) {
        (Some(pid), Some(supervision)) => Some(Supervised::start(pid, program, supervision)),
        _ => None,
    };
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();

    let run = async {
        let (out, err, status) =
            tokio::join!(read_limited(stdout), read_limited(stderr), child.wait());
        (out, err, status)
    };
    let Ok((out, err, status)) = tokio::time::timeout(limit, run).await else {
        // Still unreaped, so the group id is still ours.
        if let Some(pid) = pid {
            kill_group(pid);
        }
        let _ = child.wait().await;
        if let Some(supervised) = supervised {
            supervised.finish().await;
        }
        return Err(ProbeError::Timeout {
            program: program.to_path_buf(),
            after: limit,
        });
    };
    let status = status.map_err(spawn_error)?;
    if let Some(pid) = pid {
        // Anything it left running in its group.
        kill_group(pid);
    }
    if let Some(supervised) = supervised {
        supervised.finish().await;
    }
    Ok(Captured {
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        success: status.success(),
        status: status.to_string(),
    })
}

async fn read_limited<R: AsyncRead + Unpin>(pipe: Option<R>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(pipe) = pipe {
        // A read error leaves what was read; the version is parsed from that.
        let _ = pipe.take(PROBE_OUTPUT_LIMIT).read_to_end(&mut out).await;
    }
    out
}

/// A version outside the range codiva was tested with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutsideTested {
    Older { found: Version, oldest: Version },
    Newer { found: Version, newest: Version },
}

/// Where `found` is when it is outside the tested range `tested_min..=tested_max` (codiva
/// warns, never refuses; the warning's words are `startup_words.rs`'s).
pub fn version_check(
    found: Version,
    tested_min: Version,
    tested_max: Version,
) -> Option<OutsideTested> {
    if found < tested_min {
        Some(OutsideTested::Older {
            found,
            oldest: tested_min,
        })
    } else if found > tested_max {
        Some(OutsideTested::Newer {
            found,
            newest: tested_max,
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_first_triple() {
        assert_eq!(
            Version::find_in("2.1.332 (Claude Code)"),
            Some(Version::new(2, 1, 332))
        );
        assert_eq!(
            Version::find_in("codex-cli v0.46.0-alpha, build 1.2"),
            Some(Version::new(0, 46, 0))
        );
        assert_eq!(
            Version::find_in("1.2 and 3.4.5"),
            Some(Version::new(3, 4, 5))
        );
        assert_eq!(Version::find_in("v10.20"), None);
        assert_eq!(Version::find_in(""), None);
        assert_eq!(Version::find_in("99999999999.1.1"), None);
    }

    #[test]
    fn orders_and_displays() {
        assert!(Version::new(1, 10, 0) > Version::new(1, 9, 99));
        assert_eq!(Version::new(2, 0, 1).to_string(), "2.0.1");
    }

    #[test]
    fn version_check_warns_outside_range() {
        let min = Version::new(2, 0, 0);
        let max = Version::new(2, 1, 400);
        assert_eq!(version_check(Version::new(2, 1, 0), min, max), None);
        assert_eq!(version_check(min, min, max), None);
        assert_eq!(version_check(max, min, max), None);
        assert_eq!(
            version_check(Version::new(1, 9, 9), min, max),
            Some(OutsideTested::Older {
                found: Version::new(1, 9, 9),
                oldest: min
            })
        );
        assert_eq!(
            version_check(Version::new(3, 0, 0), min, max),
            Some(OutsideTested::Newer {
                found: Version::new(3, 0, 0),
                newest: max
            })
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn probe_timeout_kills_the_group() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("slow");
        let pid_file = dir.path().join("pid");
        let script = format!(
            "#!/bin/sh\necho $$ > '{}'\nsleep 1000 &\nsleep 1000\n",
            pid_file.display()
        );
        std::fs::write(&agent, script).unwrap();
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = probe_version_within(&agent, "--version", Duration::from_millis(500))
            .await
            .unwrap_err();
        assert!(matches!(err, ProbeError::Timeout { .. }), "{err:?}");
        let pgid: u32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        for _ in 0..100 {
            if super::super::procfs::live_group_members(pgid).is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("leftover processes in group {pgid}");
    }

    #[test]
    fn search_order_and_dedup() {
        let path = std::env::join_paths(["/a", "", "/b", "/a"]).unwrap();
        let dirs = search_dirs(
            Some(&path),
            Some(Path::new("/home/u")),
            Some(OsStr::new("/opt/npm")),
        );
        let expected: Vec<PathBuf> = [
            "/a",
            "/b",
            "/home/u/.local/bin",
            "/home/u/.claude/local",
            "/home/u/.npm-global/bin",
            "/opt/npm/bin",
            "/usr/local/bin",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(dirs, expected);
    }

    #[test]
    fn not_found_lists_searched_dirs() {
        let err = locate_in(
            "no-such-agent-xyz",
            None,
            Some(OsStr::new("/nonexistent-dir")),
            Some(Path::new("/nonexistent-home")),
            None,
        )
        .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("no-such-agent-xyz not found"), "{message}");
        assert!(message.contains("/nonexistent-dir"), "{message}");
        assert!(
            message.contains("/nonexistent-home/.claude/local"),
            "{message}"
        );
    }
}
