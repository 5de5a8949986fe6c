//! codiva's configuration file: `$CODIVA_CONFIG`, else `$XDG_CONFIG_HOME/codiva/config.toml`,
//! else `~/.config/codiva/config.toml`. Every key is optional; the README's "Configuration"
//! section lists them.
//!
//! Loading never fails: a missing file gives the defaults, invalid TOML gives the defaults and a
//! warning naming the file and line, and a key with an invalid value keeps its default (with a
//! warning naming the key) while the other keys still load. Warnings are worded in the UI's
//! language (`config_words.rs`).
//!
//! Besides codiva's own keys the file configures agents: `<id>_path` is the program of a
//! built-in agent (one key per row of [`crate::provider::catalog::BUILTIN`]), and
//! `[agents.<id>]` adds an agent over the Agent Client Protocol ([`AgentEntry`]).

use codiva_protocol::lang::Lang;
use codiva_protocol::tool::PermissionMode;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::{Table, Value};

use crate::acp::SystemPromptVia;
use crate::git::IgnoredMode;
use crate::provider::catalog;

#[path = "config_words.rs"]
mod words;
pub use words::{Expected, Found, Problem};

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
/// Largest `check_timeout` accepted (a day, in seconds).
const CHECK_TIMEOUT_LIMIT: i64 = 24 * 3600;
/// `daemon_idle_exit`'s default: 30 minutes.
pub const DEFAULT_DAEMON_IDLE_EXIT: u64 = 30 * 60;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `agent`: the agent new sessions run (`claude`, `codex`, …). Default: the first installed
    /// of the catalog's agents.
    pub agent: Option<String>,
    /// `<id>_path` (`claude_path`, `gemini_path`, …): the program of a built-in agent, by its
    /// id. Default: none (the usual search: `PATH`, …).
    pub agent_paths: BTreeMap<String, PathBuf>,
    /// `[agents.<id>]`: agents over the Agent Client Protocol the user adds, in id order.
    pub agents: Vec<AgentEntry>,
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
    /// `auto_address_review`: when a lookup finds new unresolved review threads on a session's
    /// own open pull request while its agent is idle, they are sent to the agent without being
    /// asked (as `/address-review`), at most twice per session. Default: `false`.
    pub auto_address_review: bool,
    /// `agent_idle_stop`: an agent process idle this long is stopped; the next message resumes
    /// its conversation. Seconds, or a duration (`"10m"`, `"90s"`, `"1h"`); `0` = never.
    /// Default: 10 minutes.
    pub agent_idle_stop: Option<Duration>,
    /// `max_running_agents`: at most this many agents run a turn at once; further turns wait
    /// (`queued`) and start in order. `0` = no limit. Default: no limit (`None`).
    pub max_running_agents: Option<u32>,
    /// `check`: a command run (`sh -c`) in a session's worktree whenever its turn completes,
    /// and on demand; its result shows per session. The repository's `.codiva/config.toml`
    /// may name its own (it wins). Default: none.
    pub check: Option<String>,
    /// `check_timeout`: seconds a check may run before it is killed (`timed_out`). Default:
    /// 600.
    pub check_timeout: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            agent: None,
            agent_paths: BTreeMap::new(),
            agents: Vec::new(),
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
            auto_address_review: false,
            agent_idle_stop: Some(DEFAULT_AGENT_IDLE_STOP),
            max_running_agents: None,
            check: None,
            check_timeout: crate::check::DEFAULT_CHECK_TIMEOUT.as_secs(),
        }
    }
}

/// `[agents.<id>]`: an agent over the Agent Client Protocol that the user adds. It is listed
/// and run like the built-in ones (`/agent`, `agents/list`, `exec --agent <id>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEntry {
    pub id: String,
    /// `display_name`. Default: the id.
    pub display_name: Option<String>,
    /// `command`: the program (a path, `~/` allowed, or a name looked for like the built-in
    /// agents' programs).
    pub command: PathBuf,
    /// `args`: its arguments.
    pub args: Vec<String>,
    /// `env`: variables set for it.
    pub env: Vec<(String, String)>,
    /// `system_prompt`: how the system prompt reaches it. Default: in the first prompt.
    pub system_prompt: SystemPromptVia,
    /// `modes`: its mode id for each neutral permission mode (`plan = "read-only"`).
    pub modes: Vec<(PermissionMode, String)>,
}

/// A problem found while loading the file; the affected key (or the whole file) has its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    pub file: PathBuf,
    /// The key whose value was rejected (`None`: the file as a whole; `agents.<id>` or
    /// `agents.<id>.<key>` in an agent's entry).
    pub key: Option<String>,
    /// 1-based line of a syntax error.
    pub line: Option<usize>,
    /// What is wrong, as data.
    pub problem: Problem,
    /// [`ConfigWarning::problem`] in the UI's language.
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

/// What decides the warnings' language besides the file's `language`: `CODIVA_LANG` and the
/// locale.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LangEnv {
    pub codiva_lang: Option<String>,
    pub locale: Option<String>,
}

impl LangEnv {
    /// This process's `CODIVA_LANG` and locale (`LC_ALL`, `LC_MESSAGES`, `LANG`).
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        LangEnv {
            codiva_lang: var("CODIVA_LANG"),
            locale: codiva_protocol::lang::locale_from_env(),
        }
    }

    /// The UI's language for a file whose `language` is `config`.
    pub fn lang(&self, config: Option<&str>) -> Lang {
        Lang::choose(self.codiva_lang.as_deref(), config, self.locale.as_deref())
    }
}

/// Reads the configuration at `path` (see the module docs for how problems are handled), its
/// warnings in the UI's language.
pub fn load(path: &Path) -> (Config, Vec<ConfigWarning>) {
    load_in(path, &LangEnv::from_process())
}

/// [`load`] with the warnings' language decided by `env` and the file.
pub fn load_in(path: &Path, env: &LangEnv) -> (Config, Vec<ConfigWarning>) {
    let lang = env.lang(None);
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => parse_in(&text, path, env),
            Err(_) => (
                Config::default(),
                vec![warning(path, None, None, Problem::NotUtf8, lang)],
            ),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => (Config::default(), vec![]),
        Err(error) => (
            Config::default(),
            vec![warning(
                path,
                None,
                None,
                Problem::Unreadable(error.to_string()),
                lang,
            )],
        ),
    }
}

/// Parses configuration text; `path` only names the file in warnings, which are in the
/// language the file's `language` names (else English).
pub fn parse(text: &str, path: &Path) -> (Config, Vec<ConfigWarning>) {
    parse_in(text, path, &LangEnv::default())
}

/// [`parse`] with the warnings' language decided by `env` and the file.
pub fn parse_in(text: &str, path: &Path, env: &LangEnv) -> (Config, Vec<ConfigWarning>) {
    let mut config = Config::default();
    let table = match text.parse::<Table>() {
        Ok(table) => table,
        Err(error) => {
            let line = error
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
            let problem = Problem::InvalidToml(error.message().trim().to_owned());
            return (
                config,
                vec![warning(path, None, line, problem, env.lang(None))],
            );
        }
    };
    let mut problems: Vec<(String, Problem)> = Vec::new();
    for (key, value) in &table {
        let result = match key.as_str() {
            "agent" => non_empty_string(value).map(|agent| config.agent = Some(agent)),
            "agents" => {
                config.agents = agents(value, &mut problems);
                Ok(())
            }
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
                    Err(invalid(Expected::HostOwnerRepo, Found::Text(repo)))
                }
            }),
            "auto_pr" => boolean(value).map(|flag| config.auto_pr = flag),
            "auto_ready" => boolean(value).map(|flag| config.auto_ready = flag),
            "titles" => one_of(value, &["agent", "prompt"]).map(|mode| {
                config.titles = crate::title::TitleMode::parse(mode).unwrap_or_default();
            }),
            "auto_recover" => boolean(value).map(|flag| config.auto_recover = flag),
            "auto_address_review" => boolean(value).map(|flag| config.auto_address_review = flag),
            "agent_idle_stop" => duration(value, AGENT_IDLE_STOP_LIMIT)
                .map(|after| config.agent_idle_stop = (!after.is_zero()).then_some(after)),
            "max_running_agents" => integer(value, 0, MAX_RUNNING_AGENTS_LIMIT).map(|n| {
                config.max_running_agents = u32::try_from(n).ok().filter(|n| *n > 0);
            }),
            "check" => non_empty_string(value).map(|command| config.check = Some(command)),
            "check_timeout" => integer(value, 1, CHECK_TIMEOUT_LIMIT).map(|n| {
                config.check_timeout = u64::try_from(n).unwrap_or(600);
            }),
            other => match catalog::by_path_key(other) {
                Some(spec) => non_empty_string(value).map(|path| {
                    config
                        .agent_paths
                        .insert(spec.id.to_owned(), expand_home(&path));
                }),
                None => Err(Problem::UnknownKey),
            },
        };
        if let Err(problem) = result {
            problems.push((key.clone(), problem));
        }
    }
    let lang = env.lang(config.language.as_deref());
    let warnings = problems
        .into_iter()
        .map(|(key, problem)| warning(path, Some(key), None, problem, lang))
        .collect();
    (config, warnings)
}

/// The valid entries of `[agents]`; every problem goes to `problems` under its key.
fn agents(value: &Value, problems: &mut Vec<(String, Problem)>) -> Vec<AgentEntry> {
    let Value::Table(entries) = value else {
        problems.push(("agents".to_owned(), invalid(Expected::Table, found(value))));
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(id, entry)| {
            let key = format!("agents.{id}");
            let left_out = |problem| Problem::AgentLeftOut {
                id: id.clone(),
                problem: Box::new(problem),
            };
            let checked = agent_entry(id, entry, &key, problems);
            checked
                .map_err(|(at, problem)| problems.push((at, left_out(problem))))
                .ok()
        })
        .collect()
}

/// One `[agents.<id>]` (`key`); an unknown key in it is reported and ignored, any other problem
/// leaves the agent out (`Err` with the key it is about).
fn agent_entry(
    id: &str,
    entry: &Value,
    key: &str,
    problems: &mut Vec<(String, Problem)>,
) -> Result<AgentEntry, (String, Problem)> {
    let at = |field: &str| format!("{key}.{field}");
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err((key.to_owned(), Problem::AgentBadId));
    }
    if catalog::builtin(id).is_some() {
        return Err((
            key.to_owned(),
            Problem::AgentIsBuiltIn { id: id.to_owned() },
        ));
    }
    let Value::Table(fields) = entry else {
        return Err((key.to_owned(), invalid(Expected::Table, found(entry))));
    };
    let mut agent = AgentEntry {
        id: id.to_owned(),
        display_name: None,
        command: PathBuf::new(),
        args: Vec::new(),
        env: Vec::new(),
        system_prompt: SystemPromptVia::FirstPrompt,
        modes: Vec::new(),
    };
    let mut command = None;
    for (field, value) in fields {
        let checked = match field.as_str() {
            "command" => non_empty_string(value).map(|text| command = Some(expand_home(&text))),
            "args" => string_list(value).map(|args| agent.args = args),
            "env" => string_table(value).map(|env| agent.env = env),
            "display_name" => non_empty_string(value).map(|name| agent.display_name = Some(name)),
            "system_prompt" => one_of(value, &SystemPromptVia::NAMES).map(|name| {
                agent.system_prompt =
                    SystemPromptVia::from_name(name).unwrap_or(SystemPromptVia::FirstPrompt);
            }),
            "modes" => modes(value).map(|modes| agent.modes = modes),
            _ => {
                problems.push((at(field), Problem::UnknownKey));
                Ok(())
            }
        };
        checked.map_err(|problem| (at(field), problem))?;
    }
    agent.command = command.ok_or_else(|| (key.to_owned(), Problem::AgentWithoutCommand))?;
    Ok(agent)
}

/// `modes`: a table of neutral permission mode → the agent's mode id.
fn modes(value: &Value) -> Result<Vec<(PermissionMode, String)>, Problem> {
    string_table(value)?
        .into_iter()
        .map(|(name, id)| match PermissionMode::from_name(&name) {
            Some(mode) => Ok((mode, id)),
            None => Err(Problem::NotAMode {
                name,
                modes: PermissionMode::NAMES.map(str::to_owned).to_vec(),
            }),
        })
        .collect()
}

fn warning(
    path: &Path,
    key: Option<String>,
    line: Option<usize>,
    problem: Problem,
    lang: Lang,
) -> ConfigWarning {
    ConfigWarning {
        file: path.to_owned(),
        key,
        line,
        message: problem.words(lang),
        problem,
    }
}

fn invalid(expected: Expected, found: Found) -> Problem {
    Problem::Invalid {
        expected,
        found,
        in_list: false,
    }
}

/// What a value is, for a warning: its type, and the value itself for short scalars.
fn found(value: &Value) -> Found {
    match value {
        Value::String(text) => Found::Text(text.clone()),
        Value::Integer(n) => Found::Integer(*n),
        Value::Float(n) => Found::Float(n.to_string()),
        Value::Boolean(flag) => Found::Boolean(*flag),
        Value::Datetime(date) => Found::Datetime(date.to_string()),
        Value::Array(_) => Found::Array,
        Value::Table(_) => Found::Table,
    }
}

fn non_empty_string(value: &Value) -> Result<String, Problem> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Value::String(text) => Err(invalid(Expected::NonEmptyText, Found::Text(text.clone()))),
        other => Err(invalid(Expected::Text, found(other))),
    }
}

fn one_of<'a>(value: &Value, allowed: &[&'a str]) -> Result<&'a str, Problem> {
    let expected = || Expected::OneOf(allowed.iter().map(|name| (*name).to_owned()).collect());
    match value {
        Value::String(text) => allowed
            .iter()
            .find(|candidate| **candidate == text.as_str())
            .copied()
            .ok_or_else(|| invalid(expected(), Found::Text(text.clone()))),
        other => Err(invalid(expected(), found(other))),
    }
}

fn string_list(value: &Value) -> Result<Vec<String>, Problem> {
    let Value::Array(items) = value else {
        return Err(invalid(Expected::TextArray, found(value)));
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(text) => Ok(text.clone()),
            other => Err(Problem::Invalid {
                expected: Expected::TextArray,
                found: found(other),
                in_list: true,
            }),
        })
        .collect()
}

/// A table whose values are strings (`env`, `modes`), in key order.
fn string_table(value: &Value) -> Result<Vec<(String, String)>, Problem> {
    let Value::Table(table) = value else {
        return Err(invalid(Expected::TextTable, found(value)));
    };
    table
        .iter()
        .map(|(key, item)| match item {
            Value::String(text) => Ok((key.clone(), text.clone())),
            other => Err(Problem::Invalid {
                expected: Expected::TextTable,
                found: found(other),
                in_list: true,
            }),
        })
        .collect()
}

fn boolean(value: &Value) -> Result<bool, Problem> {
    match value {
        Value::Boolean(flag) => Ok(*flag),
        other => Err(invalid(Expected::Boolean, found(other))),
    }
}

fn integer(value: &Value, min: i64, max: i64) -> Result<i64, Problem> {
    match value {
        Value::Integer(n) if (min..=max).contains(n) => Ok(*n),
        Value::Integer(n) => Err(invalid(
            Expected::IntegerIn { min, max },
            Found::Number(n.to_string()),
        )),
        other => Err(invalid(Expected::Integer, found(other))),
    }
}

/// A duration: whole seconds (an integer, or a string of digits), or a string of digits with a
/// unit `s`, `m` or `h` (`"90s"`, `"10m"`, `"1h"`); at most `max_secs` seconds.
fn duration(value: &Value, max_secs: u64) -> Result<Duration, Problem> {
    let bad = |found| invalid(Expected::Duration, found);
    let secs = match value {
        Value::Integer(n) => u64::try_from(*n).map_err(|_| bad(Found::Integer(*n)))?,
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
                _ => return Err(bad(Found::Text(text.to_owned()))),
            };
            digits
                .parse::<u64>()
                .ok()
                .and_then(|n| n.checked_mul(scale))
                .ok_or_else(|| bad(Found::Text(text.to_owned())))?
        }
        other => return Err(bad(found(other))),
    };
    if secs > max_secs {
        return Err(invalid(
            Expected::AtMostSeconds(max_secs),
            Found::Number(secs.to_string()),
        ));
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
