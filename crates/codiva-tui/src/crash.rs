//! Crash handling: a panic hook that writes a crash log under the state directory, asks for the
//! session state to be saved, and prints a short report on the normal screen. A panic off the UI
//! thread (a task codiva survives) only writes the log; the UI shows it as an error notice.
//!
//! Install it before [`crate::run::run`]: `run` installs the terminal's hook
//! ([`crate::terminal::restore_on_panic`]) on top of this one, so the terminal is already
//! restored when this hook runs.
//!
//! The log (`<state dir>/crashes/crash-<unix ms>.txt`, the newest [`KEEP_CRASH_LOGS`] kept)
//! holds the version, OS and architecture, the values of `TERM` and `TERM_PROGRAM` (no other
//! environment variable is ever read for it), the terminal size, how many sessions were in each
//! status, the panic message and location, the thread, and the backtrace.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many crash logs are kept (the oldest are deleted).
pub const KEEP_CRASH_LOGS: usize = 10;

/// The only environment variables a crash log shows.
pub const LOGGED_VARS: [&str; 2] = ["TERM", "TERM_PROGRAM"];

/// How many sessions are in each status, kept up to date by the UI and read by the hook.
/// Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct StatusCounts(Arc<Mutex<BTreeMap<String, usize>>>);

impl StatusCounts {
    /// Replaces the counts (e.g. with [`crate::notify::StatusWatch::counts`]).
    pub fn set(&self, counts: BTreeMap<String, usize>) {
        let mut guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *guard = counts;
    }

    /// The counts, without waiting (`None` when another thread holds them, e.g. it panicked
    /// while setting them).
    pub fn get(&self) -> Option<BTreeMap<String, usize>> {
        match self.0.try_lock() {
            Ok(guard) => Some(guard.clone()),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner().clone()),
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

/// A new [`StatusCounts`] to hand to [`CrashInfo`] and keep updating from the UI.
pub fn status_counts_handle() -> StatusCounts {
    StatusCounts::default()
}

/// What the hook needs besides the panic.
pub struct CrashInfo {
    /// codiva's version.
    pub version: String,
    pub status_counts: StatusCounts,
    /// Saves the session state (it must bound its own wait; it runs on the panicking thread).
    pub flush: Option<Box<dyn Fn() + Send + Sync>>,
}

/// Everything a crash log says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashReport {
    pub unix_ms: u64,
    pub version: String,
    pub os: String,
    pub arch: String,
    /// `TERM` and `TERM_PROGRAM` with their values (`None`: unset).
    pub terminal: Vec<(String, Option<String>)>,
    /// Columns and rows.
    pub size: Option<(u16, u16)>,
    pub status_counts: Option<BTreeMap<String, usize>>,
    pub message: String,
    pub location: Option<String>,
    pub thread: Option<String>,
    pub backtrace: String,
}

impl CrashReport {
    /// A report for a panic `message`; `env` is asked for [`LOGGED_VARS`] only.
    pub fn new(
        version: &str,
        message: String,
        location: Option<String>,
        backtrace: String,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Self {
        CrashReport {
            unix_ms: unix_ms(),
            version: version.to_owned(),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
            terminal: LOGGED_VARS
                .iter()
                .map(|name| ((*name).to_owned(), env(name)))
                .collect(),
            size: None,
            status_counts: None,
            message,
            location,
            thread: None,
            backtrace,
        }
    }

    /// The log's text.
    pub fn render(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "codiva crash report");
        let _ = writeln!(text, "time (unix ms): {}", self.unix_ms);
        let _ = writeln!(text, "codiva version: {}", self.version);
        let _ = writeln!(text, "os: {} ({})", self.os, self.arch);
        for (name, value) in &self.terminal {
            let value = value.as_deref().map_or("(unset)".to_owned(), printable);
            let _ = writeln!(text, "{name}: {value}");
        }
        match self.size {
            Some((columns, rows)) => {
                let _ = writeln!(text, "terminal size: {columns}x{rows}");
            }
            None => {
                let _ = writeln!(text, "terminal size: unknown");
            }
        }
        match &self.status_counts {
            Some(counts) if counts.is_empty() => {
                let _ = writeln!(text, "sessions: none");
            }
            Some(counts) => {
                let counts: Vec<String> = counts
                    .iter()
                    .map(|(status, count)| format!("{status} {count}"))
                    .collect();
                let _ = writeln!(text, "sessions: {}", counts.join(", "));
            }
            None => {
                let _ = writeln!(text, "sessions: unknown");
            }
        }
        let _ = writeln!(
            text,
            "thread: {}",
            self.thread.as_deref().unwrap_or("(unnamed)")
        );
        let _ = writeln!(
            text,
            "location: {}",
            self.location.as_deref().unwrap_or("unknown")
        );
        let _ = writeln!(text, "message: {}", printable(&self.message));
        let _ = writeln!(text, "\nbacktrace:\n{}", self.backtrace);
        text
    }
}

/// Writes `report` to `<state_dir>/crashes/crash-<unix ms>.txt` and deletes all but the newest
/// [`KEEP_CRASH_LOGS`] crash logs. Returns the new file's path.
pub fn write_crash_log(state_dir: &Path, report: &CrashReport) -> io::Result<PathBuf> {
    let dir = state_dir.join("crashes");
    std::fs::create_dir_all(&dir)?;
    let text = report.render();
    let mut suffix = 0u32;
    let path = loop {
        let name = match suffix {
            0 => format!("crash-{}.txt", report.unix_ms),
            n => format!("crash-{}-{n}.txt", report.unix_ms),
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(text.as_bytes())?;
                file.sync_all()?;
                break path;
            }
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists && suffix < 100 => {
                suffix += 1;
            }
            Err(err) => return Err(err),
        }
    };
    prune(&dir, KEEP_CRASH_LOGS);
    Ok(path)
}

/// Deletes the oldest crash logs in `dir` beyond `keep` (other files are left alone).
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<((u64, u32), PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            Some((log_order(&name)?, entry.path()))
        })
        .collect();
    if logs.len() <= keep {
        return;
    }
    logs.sort();
    let excess = logs.len() - keep;
    for (_, path) in logs.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

/// `crash-<ms>.txt` → `(ms, 0)`, `crash-<ms>-<n>.txt` → `(ms, n)`; other names → `None`.
fn log_order(name: &str) -> Option<(u64, u32)> {
    let stem = name.strip_prefix("crash-")?.strip_suffix(".txt")?;
    match stem.split_once('-') {
        Some((ms, n)) => Some((ms.parse().ok()?, n.parse().ok()?)),
        None => Some((stem.parse().ok()?, 0)),
    }
}

/// Panics on other threads than the UI's (a tokio task, a reader thread) that the program
/// survived: the message and where its crash log went, for the UI to show.
static CONTAINED: Mutex<Vec<ContainedPanic>> = Mutex::new(Vec::new());

/// A panic off the UI thread: the program goes on, so nothing is printed over the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainedPanic {
    pub message: String,
    /// The crash log, or why it could not be written.
    pub log: Result<PathBuf, String>,
}

/// The contained panics since the last call, oldest first.
pub fn take_contained() -> Vec<ContainedPanic> {
    std::mem::take(
        &mut *CONTAINED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
}

/// Installs the crash hook (see the module docs). It replaces the hook installed before (the
/// standard one prints the message and a backtrace hint; the report says more).
///
/// Call it on the UI thread: a panic there ends codiva (state saved, short report printed); a
/// panic on any other thread only kills that thread or task, so the hook writes the crash log
/// and leaves the report to the UI ([`take_contained`]) instead of printing over its screen.
pub fn install(state_dir: PathBuf, info: CrashInfo) {
    let ui_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |panic| {
        let env = |name: &str| std::env::var(name).ok();
        let mut report = CrashReport::new(
            &info.version,
            panic_message(panic.payload()),
            panic.location().map(ToString::to_string),
            std::backtrace::Backtrace::force_capture().to_string(),
            &env,
        );
        report.size = crossterm::terminal::size().ok();
        report.status_counts = info.status_counts.get();
        report.thread = std::thread::current().name().map(str::to_owned);
        let written = write_crash_log(&state_dir, &report);
        if std::thread::current().id() != ui_thread {
            let contained = ContainedPanic {
                message: crate::notify::sanitize_title(&report.message, 300),
                log: written.map_err(|err| err.to_string()),
            };
            CONTAINED
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(contained);
            return;
        }
        if let Some(flush) = &info.flush {
            flush();
        }
        let _ = io::stderr().write_all(short_report(&report.message, &written).as_bytes());
    }));
}

/// What the user reads after a crash.
pub fn short_report(message: &str, written: &io::Result<PathBuf>) -> String {
    let message = crate::notify::sanitize_title(message, 300);
    let log = match written {
        Ok(path) => format!("A crash log was written to {}.", path.display()),
        Err(err) => format!("The crash log could not be written ({err})."),
    };
    format!(
        "\ncodiva crashed: {message}. {log} Your sessions are saved; run codiva again to \
         continue.\n"
    )
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no message)".to_owned()
    }
}

/// `text` with control characters written as escapes, so that the log is safe to `cat`.
fn printable(text: &str) -> String {
    text.chars()
        .map(|ch| match ch {
            '\n' | '\t' => ch.to_string(),
            ch if ch.is_control() => ch.escape_unicode().to_string(),
            ch => ch.to_string(),
        })
        .collect()
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
#[path = "crash_tests.rs"]
mod tests;
