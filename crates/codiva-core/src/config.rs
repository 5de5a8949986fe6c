//! codiva's configuration file: `$CODIVA_CONFIG`, else `$XDG_CONFIG_HOME/codiva/config.toml`,
//! else `~/.config/codiva/config.toml`. Every key is optional; the README's "Configuration"
//! section lists them.
//!
//! Loading never fails: a missing file gives the defaults, invalid TOML gives the defaults and a
//! warning naming the file and line, and a key with an invalid value keeps its default (with a
//! warning naming the key) while the other keys still load.

use codiva_protocol::tool::PermissionMode;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::{Table, Value};

use crate::git::IgnoredMode;

/// Largest `max_restarts` accepted.
const MAX_RESTARTS_LIMIT: i64 = 100;
/// The default of `agent_idle_stop`.
pub const DEFAULT_AGENT_IDLE_STOP: Duration = Duration::from_secs(10 * 60);
/// Largest `agent_idle_stop` accepted (a week).
const AGENT_IDLE_STOP_LIMIT: u64 = 7 * 24 * 60 * 60;
/// Largest `max_running_agents` accepted.
const MAX_RUNNING_AGENTS_LIMIT: i64 = 1000;
/// Largest `wire_log_max_mb` accepted (1 TiB).
const WIRE_LOG_MAX_MB_LIMIT: i64 = 1024 * 1024;
/// Largest `daemon_idle_exit` accepted (a week, in seconds).
const DAEMON_IDLE_EXIT_LIMIT: i64 = 7 * 24 * 3600;
/// `daemon_idle_exit`'s default: 30 minutes.
pub const DEFAULT_DAEMON_IDLE_EXIT: u64 = 30 * 60;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `agent`: the agent new sessions run (`claude`, `codex`). Default: the first installed
    /// of Claude Code, then Codex.
    pub agent: Option<String>,
    /// `claude_path`: the Claude Code binary. Default: none (the usual search: `PATH`, …).
    pub claude_path: Option<PathBuf>,
    /// `codex_path`: the Codex binary. Default: none (the usual search).
    pub codex_path: Option<PathBuf>,
    /// `model`: the model for new sessions (`--model`). Default: the CLI's own choice.
    pub model: Option<String>,
    /// `permission_mode`: for new sessions (`--permission-mode`). Default: the CLI's (`default`).
    pub permission_mode: Option<PermissionMode>,
    /// `ignored_files`: how ignored files reach a new worktree. Default: `symlink`.
    pub ignored_files: IgnoredMode,
    /// `ignored_files_exclude`: extra names never carried (`!name` re-includes a default
    /// exclude). Default: none.
    pub ignored_files_exclude: Vec<String>,
    /// `fetch_base`: fetch `origin/<base>` before creating a worktree. Default: `true`.
    pub fetch_base: bool,
    /// `max_restarts`: restarts of an agent process after an unexpected exit. Default: 3.
    pub max_restarts: u32,
    /// `wire_log_max_mb`: cap of one session's wire log in MiB (rotated once, so at most twice
    /// this on disk); 0 = no wire log. Default: 16.
    pub wire_log_max_mb: u64,
    /// `daemon_idle_exit`: seconds after which the repository's daemon exits by itself when no
    /// agent works, no prompt waits and no client is attached; 0 = never. Default: 1800.
    pub daemon_idle_exit: u64,
    /// `notifications`: the terminal UI notifies (terminal escape sequence, else `notify-send`
    /// / `osascript`) when a session waits for the user, completes, fails or is interrupted
    /// while the terminal is not focused. Default: `true`.
    pub notifications: bool,
    /// `mouse`: the terminal UI takes mouse events (click, wheel, drag-select); `false` leaves
    /// the mouse to the terminal (native selection). Default: `true`.
    pub mouse: bool,
    /// `language`: the terminal UI's language, `en`, `ja` or `auto` (the locale decides;
    /// `CODIVA_LANG` overrides this key). Default: `auto` (`None`).
    pub language: Option<String>,
    /// `gh_path`: the GitHub CLI. Default: `gh` from `PATH`.
    pub gh_path: Option<PathBuf>,
    /// `github_repo`: `HOST/OWNER/REPO` pull requests go to, passed to `gh --repo`, for a base
    /// remote `gh` cannot map (a mirror, a local path, a host with a port). Default: none (gh
    /// reads the checkout's remotes).
    pub github_repo: Option<String>,
    /// `auto_pr`: a session that completes with commits ahead of its base gets a draft pull
    /// request (pushed without being asked). Default: `false`.
    pub auto_pr: bool,
    /// `auto_ready`: a session's draft pull request is marked ready for review once its checks
    /// pass. Default: `false`.
    pub auto_ready: bool,
    /// `titles`: where a new session's title comes from: `agent` (its agent's cheapest model
    /// names it, when the agent can; else, or when that fails, the prompt's first line) or
    /// `prompt` (the prompt's first line). Default: `agent`.
    pub titles: crate::title::TitleMode,
    /// `auto_recover`: a session whose pull request turns red or conflicting is repaired
    /// without being asked (fix-ci or sync), at most twice per session and kind. Default:
    /// `false`.
    pub auto_recover: bool,
    /// `agent_idle_stop`: an agent process idle this long is stopped; the next message resumes
    /// its conversation. Seconds, or a duration (`"10m"`, `"90s"`, `"1h"`); `0` = never.
    /// Default: 10 minutes.
    pub agent_idle_stop: Option<Duration>,
    /// `max_running_agents`: at most this many agents run a turn at once; further turns wait
    /// (`queued`) and start in order. `0` = no limit. Default: no limit (`None`).
    pub max_running_agents: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            agent: None,
            claude_path: None,
            codex_path: None,
            model: None,
            permission_mode: None,
            ignored_files: IgnoredMode::Symlink,
            ignored_files_exclude: Vec::new(),
            fetch_base: true,
            max_restarts: 3,
            wire_log_max_mb: crate::wire_log::DEFAULT_CAP / (1024 * 1024),
            daemon_idle_exit: DEFAULT_DAEMON_IDLE_EXIT,
            notifications: true,
            mouse: true,
            language: None,
            gh_path: None,
            github_repo: None,
            auto_pr: false,
            auto_ready: false,
            titles: crate::title::TitleMode::Agent,
            auto_recover: false,
            agent_idle_stop: Some(DEFAULT_AGENT_IDLE_STOP),
            max_running_agents: None,
        }
    }
}

/// A problem found while loading the file; the affected key (or the whole file) has its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    pub file: PathBuf,
    /// The key whose value was rejected (`None`: the file as a whole).
    pub key: Option<String>,
    /// 1-based line of a syntax error.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        match &self.key {
            Some(key) => write!(f, ": {key}: {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

/// Where the configuration file is: `$CODIVA_CONFIG`, else `$XDG_CONFIG_HOME/codiva/config.toml`
/// (if set to an absolute path), else `~/.config/codiva/config.toml`.
pub fn config_path() -> PathBuf {
    config_path_from(
        |name| std::env::var_os(name).filter(|value| !value.is_empty()),
        &crate::paths::home_dir(),
    )
}

fn config_path_from(var: impl Fn(&str) -> Option<OsString>, home: &Path) -> PathBuf {
    if let Some(path) = var("CODIVA_CONFIG") {
        return PathBuf::from(path);
    }
    match var("XDG_CONFIG_HOME").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("codiva/config.toml"),
        _ => home.join(".config/codiva/config.toml"),
    }
}

/// Reads the configuration at `path` (see the module docs for how problems are handled).
pub fn load(path: &Path) -> (Config, Vec<ConfigWarning>) {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => parse(&text, path),
            Err(_) => (
                Config::default(),
                vec![file_warning(
                    path,
                    None,
                    "not UTF-8 text; using the defaults",
                )],
            ),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => (Config::default(), vec![]),
        Err(error) => (
            Config::default(),
            vec![file_warning(
                path,
                None,
                &format!("cannot be read ({error}); using the defaults"),
            )],
        ),
    }
}

/// Parses configuration text; `path` only names the file in warnings.
pub fn parse(text: &str, path: &Path) -> (Config, Vec<ConfigWarning>) {
    let mut config = Config::default();
    let table = match text.parse::<Table>() {
        Ok(table) => table,
        Err(error) => {
            let line = error
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
            let message = format!(
                "invalid TOML ({}); using the defaults",
                error.message().trim()
            );
            return (config, vec![file_warning(path, line, &message)]);
        }
    };
    let mut warnings = Vec::new();
    for (key, value) in &table {
        let result = match key.as_str() {
            "agent" => non_empty_string(value).map(|agent| config.agent = Some(agent)),
            "claude_path" => non_empty_string(value).map(|path| {
                config.claude_path = Some(expand_home(&path));
            }),
            "codex_path" => non_empty_string(value).map(|path| {
                config.codex_path = Some(expand_home(&path));
            }),
            "model" => non_empty_string(value).map(|model| config.model = Some(model)),
            "permission_mode" => one_of(value, &PermissionMode::NAMES)
                .map(|mode| config.permission_mode = PermissionMode::from_name(mode)),
            "ignored_files" => one_of(value, &["symlink", "copy", "none"]).map(|mode| {
                config.ignored_files = match mode {
                    "copy" => IgnoredMode::Copy,
                    "none" => IgnoredMode::None,
                    _ => IgnoredMode::Symlink,
                };
            }),
            "ignored_files_exclude" => {
                string_list(value).map(|list| config.ignored_files_exclude = list)
            }
            "fetch_base" => boolean(value).map(|flag| config.fetch_base = flag),
            "max_restarts" => integer(value, 0, MAX_RESTARTS_LIMIT)
                .map(|n| config.max_restarts = u32::try_from(n).unwrap_or(3)),
            "wire_log_max_mb" => integer(value, 0, WIRE_LOG_MAX_MB_LIMIT)
                .map(|n| config.wire_log_max_mb = u64::try_from(n).unwrap_or(16)),
            "daemon_idle_exit" => integer(value, 0, DAEMON_IDLE_EXIT_LIMIT).map(|n| {
                config.daemon_idle_exit = u64::try_from(n).unwrap_or(DEFAULT_DAEMON_IDLE_EXIT);
            }),
            "notifications" => boolean(value).map(|flag| config.notifications = flag),
            "mouse" => boolean(value).map(|flag| config.mouse = flag),
            "language" => one_of(value, &["auto", "en", "ja"])
                .map(|lang| config.language = (lang != "auto").then(|| lang.to_owned())),
            "gh_path" => non_empty_string(value).map(|path| {
                config.gh_path = Some(expand_home(&path));
            }),
            "github_repo" => non_empty_string(value).and_then(|repo| {
                if repo.split('/').filter(|part| !part.is_empty()).count() == 3 {
                    config.github_repo = Some(repo);
                    Ok(())
                } else {
                    Err(format!("expected HOST/OWNER/REPO, found {repo:?}"))
                }
            }),
            "auto_pr" => boolean(value).map(|flag| config.auto_pr = flag),
            "auto_ready" => boolean(value).map(|flag| config.auto_ready = flag),
            "titles" => one_of(value, &["agent", "prompt"]).map(|mode| {
                config.titles = crate::title::TitleMode::parse(mode).unwrap_or_default();
            }),
            "auto_recover" => boolean(value).map(|flag| config.auto_recover = flag),
            "agent_idle_stop" => duration(value, AGENT_IDLE_STOP_LIMIT)
                .map(|after| config.agent_idle_stop = (!after.is_zero()).then_some(after)),
            "max_running_agents" => integer(value, 0, MAX_RUNNING_AGENTS_LIMIT).map(|n| {
                config.max_running_agents = u32::try_from(n).ok().filter(|n| *n > 0);
            }),
            _ => Err("unknown key (ignored)".to_owned()),
        };
        if let Err(message) = result {
            warnings.push(ConfigWarning {
                file: path.to_owned(),
                key: Some(key.clone()),
                line: None,
                message,
            });
        }
    }
    (config, warnings)
}

fn file_warning(path: &Path, line: Option<usize>, message: &str) -> ConfigWarning {
    ConfigWarning {
        file: path.to_owned(),
        key: None,
        line,
        message: message.to_owned(),
    }
}

/// How a value is named in a warning: its type, and the value itself for short scalars.
fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text:?}"),
        Value::Integer(n) => format!("the integer {n}"),
        Value::Float(n) => format!("the float {n}"),
        Value::Boolean(flag) => format!("the boolean {flag}"),
        Value::Datetime(date) => format!("the datetime {date}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Table(_) => "a table".to_owned(),
    }
}

fn non_empty_string(value: &Value) -> Result<String, String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Value::String(_) => Err("expected a non-empty string, found \"\"".to_owned()),
        other => Err(format!("expected a string, found {}", describe(other))),
    }
}

fn one_of<'a>(value: &Value, allowed: &[&'a str]) -> Result<&'a str, String> {
    let expected = || format!("expected one of {}", allowed.join(", "));
    match value {
        Value::String(text) => allowed
            .iter()
            .find(|candidate| **candidate == text.as_str())
            .copied()
            .ok_or_else(|| format!("{}, found {text:?}", expected())),
        other => Err(format!("{}, found {}", expected(), describe(other))),
    }
}

fn string_list(value: &Value) -> Result<Vec<String>, String> {
    let Value::Array(items) = value else {
        return Err(format!(
            "expected an array of strings, found {}",
            describe(value)
        ));
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(text) => Ok(text.clone()),
            other => Err(format!(
                "expected an array of strings, found {} in it",
                describe(other)
            )),
        })
        .collect()
}

fn boolean(value: &Value) -> Result<bool, String> {
    match value {
        Value::Boolean(flag) => Ok(*flag),
        other => Err(format!("expected true or false, found {}", describe(other))),
    }
}

fn integer(value: &Value, min: i64, max: i64) -> Result<i64, String> {
    match value {
        Value::Integer(n) if (min..=max).contains(n) => Ok(*n),
        Value::Integer(n) => Err(format!(
            "expected an integer from {min} to {max}, found {n}"
        )),
        other => Err(format!("expected an integer, found {}", describe(other))),
    }
}

/// A duration: whole seconds (an integer, or a string of digits), or a string of digits with a
/// unit `s`, `m` or `h` (`"90s"`, `"10m"`, `"1h"`); at most `max_secs` seconds.
fn duration(value: &Value, max_secs: u64) -> Result<Duration, String> {
    let expected = "expected seconds or a duration such as \"10m\", \"90s\" or \"1h\"";
    let secs = match value {
        Value::Integer(n) => u64::try_from(*n).map_err(|_| format!("{expected}, found {n}"))?,
        Value::String(text) => {
            let text = text.trim();
            let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
                Some(at) => text.split_at(at),
                None => (text, "s"),
            };
            let scale = match unit.trim() {
                "s" => 1,
                "m" => 60,
                "h" => 60 * 60,
                _ => return Err(format!("{expected}, found {text:?}")),
            };
            digits
                .parse::<u64>()
                .ok()
                .and_then(|n| n.checked_mul(scale))
                .ok_or_else(|| format!("{expected}, found {text:?}"))?
        }
        other => return Err(format!("{expected}, found {}", describe(other))),
    };
    if secs > max_secs {
        return Err(format!("expected at most {max_secs} seconds, found {secs}"));
    }
    Ok(Duration::from_secs(secs))
}

/// `~/x` → `<home>/x`.
fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => crate::paths::home_dir().join(rest),
        None => PathBuf::from(path),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
