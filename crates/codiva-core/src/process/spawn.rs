//! Spawning an agent CLI: its own process group, a scrubbed environment, piped stdio, a bounded
//! stderr tail, one reaper task, an escalating shutdown and a group kill when the last handle
//! goes away.

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use super::child_registry::ChildRegistry;
use super::line_reader::LineReader;
use super::parent_watch::ParentWatch;
use super::signal::{SIGKILL, SIGTERM, kill_group, signal_group};

/// Variables that are removed from every agent's environment, whatever the [`EnvPolicy`]: they
/// would make Claude Code believe it runs nested inside another Claude Code session.
pub const SCRUBBED_VARS: &[&str] = &[
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SESSION_ID",
];

/// How much of the end of stderr is kept ([`ProcessControl::stderr_tail`]).
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// How long [`ProcessControl::shutdown`] waits between SIGTERM and SIGKILL.
const TERM_TO_KILL: Duration = Duration::from_secs(2);

/// How long the reaper waits for stderr to reach EOF after the group is gone, so that
/// `stderr_tail` is complete once `wait` returns.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// What to start.
#[derive(Clone, Debug)]
pub struct SpawnSpec {
    /// The program (a path, or a bare name looked up in `PATH`).
    pub program: PathBuf,
    /// The arguments.
    pub args: Vec<OsString>,
    /// The working directory; it must exist.
    pub cwd: PathBuf,
    /// The environment.
    pub env: EnvPolicy,
    /// A human-readable name for logs and the child registry (e.g. `claude session 3`).
    pub label: String,
}

/// The environment of a child. [`SCRUBBED_VARS`] are always removed, even from `set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvPolicy {
    /// Inherit codiva's environment minus `remove`, plus `set`.
    Inherit {
        /// Variables to remove.
        remove: Vec<String>,
        /// Variables to set (after removal).
        set: Vec<(String, String)>,
    },
    /// Exactly these variables (tests use this: an allowlist).
    Exact(Vec<(String, String)>),
}

impl EnvPolicy {
    /// The value of `name` a child started with this policy sees (`None`: unset or empty).
    pub fn var(&self, name: &str) -> Option<String> {
        if SCRUBBED_VARS.contains(&name) {
            return None;
        }
        let value = match self {
            EnvPolicy::Inherit { remove, set } => {
                match set.iter().rev().find(|(key, _)| key == name) {
                    Some((_, value)) => Some(value.clone()),
                    None if remove.iter().any(|key| key == name) => None,
                    None => std::env::var(name).ok(),
                }
            }
            EnvPolicy::Exact(vars) => vars
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone()),
        };
        value.filter(|value| !value.is_empty())
    }
}

/// Why a child could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The program does not exist.
    #[error("cannot start {}: no such program (is it installed and on PATH?)", program.display())]
    NotFound {
        /// The program as given.
        program: PathBuf,
    },
    /// The program exists but may not be executed.
    #[error("cannot start {}: permission denied (is it an executable file?)", program.display())]
    PermissionDenied {
        /// The program as given.
        program: PathBuf,
    },
    /// The working directory does not exist or is not a directory.
    #[error(
        "cannot start {}: working directory {} does not exist or is not a directory",
        program.display(),
        cwd.display()
    )]
    CwdMissing {
        /// The program as given.
        program: PathBuf,
        /// The missing directory.
        cwd: PathBuf,
    },
    /// Any other I/O failure.
    #[error("cannot start {}: {source}", program.display())]
    Io {
        /// The program as given.
        program: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitInfo {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal.
    Signal(i32),
    /// Its status could not be collected (a failed `wait`, or the reaper task was dropped
    /// because the runtime shut down).
    Unknown,
}

impl ExitInfo {
    /// Whether it exited with code 0.
    pub fn success(self) -> bool {
        self == ExitInfo::Code(0)
    }

    fn from_status(status: io::Result<ExitStatus>) -> Self {
        let Ok(status) = status else {
            return ExitInfo::Unknown;
        };
        if let Some(code) = status.code() {
            return ExitInfo::Code(code);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return ExitInfo::Signal(signal);
            }
        }
        ExitInfo::Unknown
    }
}

impl std::fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitInfo::Code(code) => write!(f, "exit code {code}"),
            ExitInfo::Signal(signal) => write!(f, "killed by signal {signal}"),
            ExitInfo::Unknown => f.write_str("unknown exit status"),
        }
    }
}

/// A running agent: its pipes and its control handle.
///
/// The process lives as long as some clone of [`ProcessControl`] does: when the last one is
/// dropped without the child having exited, its whole process group is SIGKILLed.
#[derive(Debug)]
pub struct AgentProcess {
    /// The child's pid, which is also its process group id.
    pub pid: u32,
    /// The child's stdin.
    pub stdin: StdinWriter,
    /// The child's stdout, line by line.
    pub stdout: LineReader<ChildStdout>,
    /// Waiting, signalling, stderr.
    pub control: ProcessControl,
}

/// The write end of a child's stdin. Writing is crate-private: only the agent adapters (through
/// their own serializer) write to an agent.
#[derive(Debug)]
pub struct StdinWriter {
    pipe: Option<ChildStdin>,
    scratch: Vec<u8>,
}

impl StdinWriter {
    fn new(pipe: ChildStdin) -> Self {
        Self {
            pipe: Some(pipe),
            scratch: Vec::new(),
        }
    }

    /// Writes `line` and a `\n` in one write, then flushes. Fails with `InvalidInput` if `line`
    /// contains `\n` or `\r` (one call, one line), and with `BrokenPipe` after [`close`].
    ///
    /// [`close`]: Self::close
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "the agent adapters of this crate are its callers")
    )]
    pub(crate) async fn write_line(&mut self, line: &str) -> io::Result<()> {
        if line.bytes().any(|b| b == b'\n' || b == b'\r') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a line written to an agent must not contain a newline or carriage return",
            ));
        }
        let Some(pipe) = self.pipe.as_mut() else {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "stdin is closed"));
        };
        self.scratch.clear();
        self.scratch.reserve(line.len() + 1);
        self.scratch.extend_from_slice(line.as_bytes());
        self.scratch.push(b'\n');
        let result = async {
            pipe.write_all(&self.scratch).await?;
            pipe.flush().await
        }
        .await;
        if self.scratch.capacity() > 1024 * 1024 {
            self.scratch = Vec::new();
        }
        result
    }

    /// Closes the pipe: the child reads EOF.
    pub async fn close(&mut self) {
        if let Some(mut pipe) = self.pipe.take() {
            // Flushing a pipe is a no-op; shutting it down only drops it. Errors (a child that
            // already exited) change nothing.
            let _ = pipe.shutdown().await;
        }
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.pipe.is_none()
    }
}

/// A cheaply cloneable handle to a child: wait for it, read its stderr tail, stop it.
#[derive(Clone)]
pub struct ProcessControl {
    shared: Arc<Shared>,
}

struct Shared {
    pid: u32,
    label: String,
    exit: watch::Receiver<Option<ExitInfo>>,
    /// Set by the reaper as soon as the leader is reaped: from then on its pid (the group id)
    /// may be reused, so the group is never signalled again.
    reaped: Arc<AtomicBool>,
    stderr: Arc<Mutex<StderrTail>>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The last handle is gone: no orphans. The reaper task will reap the leader and remove
        // the registry record.
        if !self.reaped.load(Ordering::Acquire) {
            tracing::debug!(pid = self.pid, label = %self.label, "last handle dropped: killing group");
            kill_group(self.pid);
        }
    }
}

impl std::fmt::Debug for ProcessControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessControl")
            .field("pid", &self.shared.pid)
            .field("label", &self.shared.label)
            .field("exit", &self.try_exit())
            .finish()
    }
}

impl ProcessControl {
    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.shared.pid
    }

    /// The child's process group id (equal to its pid).
    pub fn pgid(&self) -> u32 {
        self.shared.pid
    }

    /// The label given at spawn.
    pub fn label(&self) -> &str {
        &self.shared.label
    }

    /// The last [`STDERR_TAIL_BYTES`] of the child's stderr, cut on UTF-8 boundaries (other
    /// invalid UTF-8 is replaced). Complete once [`wait`](Self::wait) has returned.
    pub fn stderr_tail(&self) -> String {
        lock(&self.shared.stderr).render()
    }

    /// Waits until the child has exited and its group is gone. Any number of callers may wait.
    pub async fn wait(&self) -> ExitInfo {
        let mut exit = self.shared.exit.clone();
        if let Ok(info) = exit.wait_for(Option::is_some).await {
            return info.unwrap_or(ExitInfo::Unknown);
        }
        // The reaper task was dropped (runtime shutdown) without publishing an exit.
        exit.borrow().unwrap_or(ExitInfo::Unknown)
    }

    /// How the child ended, if it has.
    pub fn try_exit(&self) -> Option<ExitInfo> {
        *self.shared.exit.borrow()
    }

    /// Stops the child: close stdin → wait `grace` → SIGTERM to the group → wait 2 s → SIGKILL
    /// to the group → wait. Returns as soon as the child has exited at any step.
    pub async fn shutdown(&self, stdin: Option<StdinWriter>, grace: Duration) -> ExitInfo {
        if let Some(mut stdin) = stdin {
            stdin.close().await;
        }
        if let Ok(info) = tokio::time::timeout(grace, self.wait()).await {
            return info;
        }
        tracing::debug!(pid = self.pid(), label = %self.label(), "sending SIGTERM to group");
        self.signal_if_running(SIGTERM);
        if let Ok(info) = tokio::time::timeout(TERM_TO_KILL, self.wait()).await {
            return info;
        }
        tracing::debug!(pid = self.pid(), label = %self.label(), "sending SIGKILL to group");
        self.signal_if_running(SIGKILL);
        self.wait().await
    }

    /// SIGKILLs the whole group now (does not wait; use [`wait`](Self::wait)).
    pub fn kill_group_now(&self) {
        self.signal_if_running(SIGKILL);
    }

    fn signal_if_running(&self, signal: i32) {
        // Once the leader is reaped the reaper has killed the group, and the group id (the
        // leader's pid) may be reused by an unrelated process.
        if self.shared.reaped.load(Ordering::Acquire) {
            return;
        }
        if let Err(err) = signal_group(self.shared.pid, signal) {
            tracing::warn!(pid = self.pid(), signal, %err, "cannot signal process group");
        }
    }
}

/// Starts `spec` in its own process group, recording it in `registry` (if any) until it is
/// reaped.
pub async fn spawn(
    spec: SpawnSpec,
    registry: Option<&ChildRegistry>,
) -> Result<AgentProcess, SpawnError> {
    let program = spec.program.clone();
    match std::fs::metadata(&spec.cwd) {
        Ok(meta) if meta.is_dir() => {}
        _ => {
            return Err(SpawnError::CwdMissing {
                program,
                cwd: spec.cwd,
            });
        }
    }

    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // We kill the whole group ourselves; `kill_on_drop` would reach only the leader.
        .kill_on_drop(false);
    #[cfg(unix)]
    command.process_group(0);
    apply_env(&mut command, &spec.env);

    let mut child = command
        .spawn()
        .map_err(|err| classify_spawn_error(err, &program))?;
    let (Some(pid), Some(stdin), Some(stdout), Some(stderr)) = (
        child.id(),
        child.stdin.take(),
        child.stdout.take(),
        child.stderr.take(),
    ) else {
        // Unreachable in practice: all three are piped and the child was never waited on.
        let _ = child.start_kill();
        return Err(SpawnError::Io {
            program,
            source: io::Error::other("the child's pid or stdio pipes are missing"),
        });
    };
    tracing::debug!(pid, label = %spec.label, program = %program.display(), "spawned agent");

    let registry = registry.cloned();
    if let Some(Err(err)) = registry
        .as_ref()
        .map(|r| r.record(pid, &spec.label, &program))
    {
        tracing::warn!(pid, %err, "cannot record child in the registry");
    }

    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let (stderr_done_tx, stderr_done_rx) = oneshot::channel::<()>();
    tokio::spawn(read_stderr(stderr, Arc::clone(&tail), stderr_done_tx));

    // Stops the group if codiva itself dies without cleaning up (parent_watch.rs).
    let parent_watch = ParentWatch::start(pid)
        .inspect_err(|err| tracing::warn!(pid, %err, "cannot start the agent's watcher"))
        .ok();

    let (exit_tx, exit_rx) = watch::channel(None);
    let reaped = Arc::new(AtomicBool::new(false));
    let reaper_flag = Arc::clone(&reaped);
    let label = spec.label.clone();
    tokio::spawn(async move {
        let info = ExitInfo::from_status(child.wait().await);
        reaper_flag.store(true, Ordering::Release);
        // The leader is gone; its background jobs (an agent's shells) and the watcher must not
        // outlive it. The watcher keeps the group id from being reused until this signal.
        kill_group(pid);
        if let Some(parent_watch) = parent_watch {
            parent_watch.reap().await;
        }
        let _ = tokio::time::timeout(STDERR_DRAIN, stderr_done_rx).await;
        if let Some(Err(err)) = registry.map(|r| r.remove(pid)) {
            tracing::warn!(pid, %err, "cannot remove child from the registry");
        }
        tracing::debug!(pid, %label, %info, "agent exited");
        exit_tx.send_replace(Some(info));
    });

    Ok(AgentProcess {
        pid,
        stdin: StdinWriter::new(stdin),
        stdout: LineReader::new(stdout),
        control: ProcessControl {
            shared: Arc::new(Shared {
                pid,
                label: spec.label,
                exit: exit_rx,
                reaped,
                stderr: tail,
            }),
        },
    })
}

pub(crate) fn apply_env(command: &mut Command, policy: &EnvPolicy) {
    let allowed = |name: &str| !SCRUBBED_VARS.contains(&name);
    match policy {
        EnvPolicy::Inherit { remove, set } => {
            for name in remove {
                command.env_remove(name);
            }
            for (name, value) in set.iter().filter(|(name, _)| allowed(name)) {
                command.env(name, value);
            }
        }
        EnvPolicy::Exact(vars) => {
            command.env_clear();
            for (name, value) in vars.iter().filter(|(name, _)| allowed(name)) {
                command.env(name, value);
            }
        }
    }
    for name in SCRUBBED_VARS {
        command.env_remove(name);
    }
}

fn classify_spawn_error(err: io::Error, program: &std::path::Path) -> SpawnError {
    let program = program.to_path_buf();
    match err.kind() {
        io::ErrorKind::NotFound => SpawnError::NotFound { program },
        io::ErrorKind::PermissionDenied => SpawnError::PermissionDenied { program },
        _ => SpawnError::Io {
            program,
            source: err,
        },
    }
}

async fn read_stderr(
    mut stderr: ChildStderr,
    tail: Arc<Mutex<StderrTail>>,
    done: oneshot::Sender<()>,
) {
    let mut buf = vec![0u8; 8 * 1024];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => lock(&tail).push(&buf[..n]),
        }
    }
    let _ = done.send(());
}

fn lock(tail: &Mutex<StderrTail>) -> std::sync::MutexGuard<'_, StderrTail> {
    // A panic while pushing bytes leaves the buffer consistent enough to render.
    tail.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The last [`STDERR_TAIL_BYTES`] bytes written to stderr.
#[derive(Debug, Default)]
struct StderrTail {
    bytes: Vec<u8>,
    truncated: bool,
}

impl StderrTail {
    fn push(&mut self, chunk: &[u8]) {
        if chunk.len() >= STDERR_TAIL_BYTES {
            self.truncated |= chunk.len() > STDERR_TAIL_BYTES || !self.bytes.is_empty();
            self.bytes.clear();
            self.bytes
                .extend_from_slice(&chunk[chunk.len() - STDERR_TAIL_BYTES..]);
            return;
        }
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > STDERR_TAIL_BYTES {
            let excess = self.bytes.len() - STDERR_TAIL_BYTES;
            self.bytes.drain(..excess);
            self.truncated = true;
        }
    }

    fn render(&self) -> String {
        let mut bytes = self.bytes.as_slice();
        if self.truncated {
            // Skip the continuation bytes of a character whose start was dropped.
            let skip = bytes
                .iter()
                .take(3)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count();
            bytes = &bytes[skip..];
        }
        bytes = &bytes[..bytes.len() - incomplete_suffix_len(bytes)];
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// The length of a multi-byte UTF-8 sequence cut short at the end of `bytes` (0 if none).
fn incomplete_suffix_len(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let needed = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<ProcessControl>();
        assert_send_sync::<AgentProcess>();
        assert_send_sync::<SpawnError>();
    }

    #[test]
    fn tail_keeps_the_end_on_char_boundaries() {
        let mut tail = StderrTail::default();
        for _ in 0..STDERR_TAIL_BYTES {
            tail.push("é".as_bytes());
        }
        tail.push(b"x");
        let text = tail.render();
        assert!(text.ends_with("éx"));
        assert!(text.chars().all(|c| c == 'é' || c == 'x'));
        assert!(text.len() <= STDERR_TAIL_BYTES);
    }

    #[test]
    fn tail_drops_an_incomplete_last_char() {
        let mut tail = StderrTail::default();
        tail.push(b"ok \xE2\x82");
        assert_eq!(tail.render(), "ok ");
        tail.push(b"\xAC");
        assert_eq!(tail.render(), "ok €");
    }

    #[test]
    fn big_chunk_keeps_only_its_end() {
        let mut tail = StderrTail::default();
        let mut chunk = vec![b'a'; 3 * STDERR_TAIL_BYTES];
        chunk.extend_from_slice(b"END");
        tail.push(&chunk);
        let text = tail.render();
        assert_eq!(text.len(), STDERR_TAIL_BYTES);
        assert!(text.ends_with("aEND"));
    }

    #[tokio::test]
    async fn write_line_rejects_newlines_and_writes_lines() {
        let dir = std::env::temp_dir();
        let mut process = spawn(
            SpawnSpec {
                program: "cat".into(),
                args: Vec::new(),
                cwd: dir,
                env: EnvPolicy::Inherit {
                    remove: Vec::new(),
                    set: Vec::new(),
                },
                label: "cat".into(),
            },
            None,
        )
        .await
        .unwrap();
        assert_eq!(
            process.stdin.write_line("a\nb").await.unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            process.stdin.write_line("a\rb").await.unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        process
            .stdin
            .write_line(r#"{"hello":"wörld"}"#)
            .await
            .unwrap();
        let line = process.stdout.next_line().await.unwrap().unwrap();
        assert_eq!(
            line,
            super::super::ReadLine::Line(r#"{"hello":"wörld"}"#.as_bytes().to_vec())
        );
        process.stdin.close().await;
        assert_eq!(
            process.stdin.write_line("late").await.unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
        assert_eq!(process.control.wait().await, ExitInfo::Code(0));
        assert_eq!(process.stdout.next_line().await.unwrap(), None);
    }
}
