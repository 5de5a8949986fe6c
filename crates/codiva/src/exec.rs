//! `codiva exec`: a headless, one-shot front end. It runs one session in the current
//! directory, answers prompts by policy (`--approve`, `--answers`), prints the session's events
//! (JSON lines with `--json`, readable text otherwise) and exits with the session's outcome.
//! It is a client like the UI, of the same server (`codiva_server`): the session runs in this
//! process, the one session of an ephemeral manager (`Manager::start_ephemeral`: in place in
//! the current directory, any directory, nothing recorded, run once), or, with `--attach`, in
//! the repository's daemon (`attach.rs`); either is followed on one path (`follow.rs`).

mod attach;
mod attempts;
mod follow;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use codiva_core::manager::{BudgetOptions, Ephemeral, Manager, ManagerOptions};
use codiva_core::process::EnvPolicy;
use codiva_core::{config, paths, wire_log};
use codiva_os::shutdown_signals::{self, ShutdownSignals};
use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, LogEntry, ToolStatus};
use codiva_protocol::session::{Scope, SessionEvent, Status};
use codiva_protocol::tool::PermissionMode;
use serde_json::Value;

#[derive(Args, Debug)]
pub struct ExecArgs {
    /// The instruction for the agent.
    prompt: String,
    /// Model to use (e.g. `claude-sonnet-4-5`).
    #[arg(long)]
    model: Option<String>,
    /// The agent's permission mode (`default`, `acceptEdits`, `plan`, …).
    #[arg(long)]
    permission_mode: Option<String>,
    /// Which tool permissions to grant without asking.
    #[arg(long, value_enum, default_value = "none")]
    approve: Approve,
    /// Continue an earlier agent session (its id, as printed in `agent_session` events).
    #[arg(long)]
    resume: Option<String>,
    /// Print events as JSON lines.
    #[arg(long)]
    json: bool,
    /// Answers for the agent's questions: a JSON object `{"<question>": "<answer>" | [..]}`.
    /// Questions without an answer are declined.
    #[arg(long)]
    answers: Option<PathBuf>,
    /// The agent to run: `claude`, `codex`, or an ACP agent (`grok`, `gemini`, `codex-acp`,
    /// `claude-code-acp`) — default: the config's `agent`, else the first installed.
    #[arg(long)]
    agent: Option<String>,
    /// The `claude` binary (default: `$CODIVA_CLAUDE`, then `PATH` and the usual install dirs;
    /// the flag wins over the variable).
    #[arg(long)]
    claude: Option<PathBuf>,
    /// After a completed session with commits ahead of the base's upstream: push the current
    /// branch and open a draft pull request (`gh`).
    #[arg(long)]
    pr: bool,
    /// MCP servers for the agent: a JSON file `{"mcpServers":{…}}`, passed to it by path; only
    /// its servers are used (Claude Code; Codex gets them in its thread's config, an ACP agent
    /// in its handshake).
    #[arg(long, value_name = "FILE")]
    mcp_config: Option<PathBuf>,
    /// Text appended to the agent's system prompt.
    #[arg(long, value_name = "TEXT")]
    append_system_prompt: Option<String>,
    /// A tool the agent may use without asking, in the agent's rule syntax (`Bash(git *)`,
    /// `mcp__server__tool`); repeatable.
    #[arg(long = "allowed-tool", value_name = "RULE")]
    allowed_tools: Vec<String>,
    /// A tool the agent may not use; repeatable.
    #[arg(long = "disallowed-tool", value_name = "RULE")]
    disallowed_tools: Vec<String>,
    /// Run the session in the repository's daemon (started when it does not run), on its own
    /// worktree and branch like the UI's sessions; it stays there afterwards.
    #[arg(long, conflicts_with_all = ["resume", "pr"])]
    attach: bool,
    /// Run the session in the daemon of a repository on another host, over `ssh`
    /// (`[USER@]HOST:/path/to/repo`; implies `--attach`; `$CODIVA_SSH` is the ssh command,
    /// `$CODIVA_REMOTE_CODIVA` the codiva there).
    #[arg(long, value_name = "[USER@]HOST:PATH", conflicts_with_all = ["resume", "pr"])]
    remote: Option<String>,
    /// Give the instruction to several agents or models at once, each in a session of its own
    /// (worktree and branch) in the repository's daemon: `claude,codex,claude:opus`. Waits for
    /// all, prints their comparison (`--json`: as one object); exit 0 when at least one
    /// completed and passed the repository's check (or completed, with no check).
    #[arg(
        long,
        value_name = "AGENT[:MODEL],…",
        conflicts_with_all = [
            "resume", "pr", "agent", "model", "remote", "attach", "mcp_config",
            "append_system_prompt", "allowed_tools", "disallowed_tools",
        ]
    )]
    attempts: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Approve {
    /// Allow every tool.
    All,
    /// Deny every tool that asks.
    None,
    /// Allow file edits (Write, Edit, MultiEdit, NotebookEdit); deny the rest.
    Edits,
}

/// Exit codes (documented in the README).
mod code {
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const NEEDS_LOGIN: u8 = 3;
    pub const RATE_LIMITED: u8 = 4;
    pub const PR_FAILED: u8 = 5;
    pub const INTERRUPTED: u8 = 130;
}

pub async fn run(args: ExecArgs) -> ExitCode {
    match run_inner(args).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("codiva: {message}");
            ExitCode::from(code::USAGE)
        }
    }
}

async fn run_inner(args: ExecArgs) -> Result<ExitCode, String> {
    let permission_mode = match &args.permission_mode {
        Some(name) => Some(PermissionMode::from_name(name).ok_or_else(|| {
            format!(
                "--permission-mode: expected one of {}, got {name:?}",
                PermissionMode::NAMES.join(", ")
            )
        })?),
        None => None,
    };
    let answers = match &args.answers {
        Some(path) => load_answers(path)?,
        None => BTreeMap::new(),
    };
    if let Some(list) = &args.attempts {
        return attempts::drive(&args, list, permission_mode, &answers).await;
    }
    if args.attach || args.remote.is_some() {
        let mut printer = Printer::new(args.json);
        let outcome = attach::drive(&args, permission_mode, &answers, &mut printer).await?;
        return Ok(printer.finish(outcome));
    }
    let cwd = std::env::current_dir().map_err(|err| format!("no current directory: {err}"))?;
    let (settings, warnings) = config::load(&config::config_path());
    let flags = crate::agents::Flags {
        claude: args.claude.clone(),
    };
    let found = crate::agents::find(&settings, &flags).await;
    let provider = choose_agent(args.agent.as_deref(), &found)?;
    if let Some(mode) = permission_mode {
        provider
            .check_permission_mode("--permission-mode", mode)
            .map_err(|err| err.to_string())?;
    }
    let extras = extras(&args, provider.as_ref())?;
    for warning in warnings
        .iter()
        .map(ToString::to_string)
        .chain(found.warnings())
        .chain(found.problems().into_iter().map(|(_, problem)| problem))
    {
        eprintln!("codiva: warning: {warning}");
    }
    let state_dir = paths::state_dir();
    let registry = match crate::bootstrap::open_registry(&state_dir) {
        Ok(registry) => Some(registry),
        Err(err) => {
            eprintln!("codiva: warning: cannot use the child registry: {err}");
            None
        }
    };
    let github = crate::bootstrap::github_options(&settings);
    let options = ManagerOptions {
        cwd: cwd.clone(),
        providers: found.providers,
        env: EnvPolicy::Inherit {
            remove: crate::bootstrap::codiva_own_vars(),
            set: Vec::new(),
        },
        state_dir,
        registry,
        model: settings.model.clone(),
        permission_mode: settings.permission_mode,
        fetch_base: false,
        ignored_files: settings.ignored_files,
        ignored_files_exclude: Vec::new(),
        max_restarts: settings.max_restarts,
        wire_log_cap: settings.wire_log_max_mb.saturating_mul(1024 * 1024),
        holder: "codiva exec".to_owned(),
        github: github.clone(),
        titles: settings.titles,
        budget: BudgetOptions::default(),
        // An ephemeral manager runs no check (it has no repository).
        checks: Default::default(),
    };
    let ephemeral = Ephemeral {
        // Its wire log is named after it: one file per run.
        id: format!(
            "exec-{}-{}",
            wire_log::timestamp(std::time::SystemTime::now()).replace(':', ""),
            std::process::id()
        ),
        resume: args.resume.clone(),
        mcp_config: extras.mcp_config,
    };
    let manager = Manager::start_ephemeral(options, ephemeral)
        .await
        .map_err(|err| err.to_string())?;
    let client = codiva_server::in_process::client(
        manager.clone(),
        codiva_server::Host::new(crate::daemon::versions()),
    );
    let mut printer = Printer::new(args.json);
    let mut signals = ShutdownSignals::all_terminating();
    let mut params = follow::create_params(&args, permission_mode, follow::Host::InProcess)?;
    params.agent = Some(provider.id().to_owned());
    params.in_place = Some(cwd.clone());
    let (followed, mut events) = match follow::subscribe(&client).await {
        Ok(mut events) => {
            let followed = follow::run(
                &client,
                &mut events,
                params,
                follow::Host::InProcess,
                &mut signals,
                (args.approve, &answers),
                &mut printer,
            )
            .await;
            (followed, Some(events))
        }
        Err(failed) => (Ok(failed), None),
    };
    // Every way out stops the agent first: none outlives `codiva exec`. A session that ran its
    // turn has stopped its agent and its manager already (its events ended then); one stopped
    // here (a signal) ends as the rest of its events say (its turn interrupted).
    let mut signal = followed.as_ref().ok().and_then(|f| f.signal);
    let id = followed.as_ref().map(|f| f.id.clone()).unwrap_or_default();
    let mut ended = None;
    tokio::select! {
        (_, last) = async {
            match events.as_mut() {
                Some(events) => tokio::join!(manager.shutdown(), follow::ended_with(events, &id)),
                None => (manager.shutdown().await, None),
            }
        } => ended = last,
        // Another signal while the agent stops: exit now. The agent's watcher (process::spawn)
        // stops its group as soon as this process is gone.
        received = signals.recv() => signal = signal.or(Some(received)),
    }
    let followed = followed?;
    let (status, detail) = ended.unwrap_or((followed.status, followed.detail));
    let mut outcome = Outcome {
        status,
        detail,
        signal,
        pr_failed: None,
        in_daemon: false,
    };
    if args.pr && outcome.signal.is_none() && outcome.status == Status::Completed {
        let opened = crate::exec_pr::open(&cwd, &github.gh, &args.prompt).await;
        outcome.pr_failed = printer.pr(opened);
    }
    Ok(printer.finish(outcome))
}

/// `--mcp-config`, `--allowed-tool` and `--disallowed-tool`, for an agent that takes them.
fn extras(
    args: &ExecArgs,
    provider: &dyn codiva_core::provider::Provider,
) -> Result<codiva_core::provider::AgentExtras, String> {
    let asked = [
        ("--mcp-config", args.mcp_config.is_some()),
        ("--allowed-tool", !args.allowed_tools.is_empty()),
        ("--disallowed-tool", !args.disallowed_tools.is_empty()),
    ];
    if let Some(flag) = provider.capabilities().extra_not_taken(asked) {
        return Err(format!(
            "{flag}: {} does not take it",
            provider.display_name()
        ));
    }
    let mcp_config = match &args.mcp_config {
        Some(path) => Some(
            std::fs::canonicalize(path)
                .ok()
                .filter(|path| path.is_file())
                .ok_or_else(|| format!("--mcp-config: no file {}", path.display()))?,
        ),
        None => None,
    };
    // Read as well, for agents that take the servers in their handshake (ACP).
    let mcp_servers = match &mcp_config {
        Some(path) => mcp_servers_in(path)?,
        None => BTreeMap::new(),
    };
    Ok(codiva_core::provider::AgentExtras {
        mcp_config,
        mcp_servers,
        allowed_tools: args.allowed_tools.clone(),
        disallowed_tools: args.disallowed_tools.clone(),
    })
}

/// The servers of an MCP config file (`{"mcpServers": {…}}`), for `--mcp-config`.
pub(crate) fn mcp_servers_in(
    path: &std::path::Path,
) -> Result<BTreeMap<String, codiva_protocol::mcp::McpServerConfig>, String> {
    #[derive(serde::Deserialize)]
    struct File {
        #[serde(rename = "mcpServers")]
        mcp_servers: BTreeMap<String, codiva_protocol::mcp::McpServerConfig>,
    }
    let bytes =
        std::fs::read(path).map_err(|err| format!("--mcp-config: {}: {err}", path.display()))?;
    serde_json::from_slice::<File>(&bytes)
        .map(|file| file.mcp_servers)
        .map_err(|err| format!("--mcp-config: {}: {err}", path.display()))
}

/// The agent `--agent` names, else the default; an error line says what is missing and how to
/// install it.
fn choose_agent(
    name: Option<&str>,
    found: &crate::agents::Found,
) -> Result<std::sync::Arc<dyn codiva_core::provider::Provider>, String> {
    let providers = &found.providers;
    let problems = found.problems();
    let problem = |id: &str| {
        problems
            .iter()
            .find(|(agent, _)| *agent == id)
            .map(|(_, problem)| problem.clone())
    };
    let Some(name) = name else {
        return providers.default_provider().cloned().ok_or_else(|| {
            if let Some((_, problem)) = problems.first() {
                return problem.clone();
            }
            format!(
                "no coding agent is installed; install one ({})",
                codiva_core::manager::install_hints(providers)
            )
        });
    };
    if let Some(provider) = providers.get(name) {
        return Ok(provider.clone());
    }
    if let Some(problem) = problem(name) {
        return Err(problem);
    }
    match providers.missing(name) {
        Some(agent) => Err(format!(
            "{} is not installed; install it with: {}",
            agent.name, agent.install
        )),
        None => {
            let known: Vec<String> = providers
                .availability()
                .into_iter()
                .map(|agent| agent.id)
                .collect();
            Err(format!(
                "--agent: no agent {name:?} (known: {})",
                known.join(", ")
            ))
        }
    }
}

fn load_answers(path: &PathBuf) -> Result<BTreeMap<String, Vec<String>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|err| format!("{} is not valid JSON: {err}", path.display()))?;
    let Value::Object(map) = value else {
        return Err(format!(
            "{} must hold a JSON object {{\"question\": \"answer\"}}",
            path.display()
        ));
    };
    map.into_iter()
        .map(|(question, answer)| {
            let labels = match answer {
                Value::String(text) => vec![text],
                Value::Array(items) => items
                    .into_iter()
                    .map(|item| match item {
                        Value::String(text) => Ok(text),
                        other => Err(format!("answer {other} to {question:?} is not a string")),
                    })
                    .collect::<Result<_, _>>()?,
                other => return Err(format!("answer {other} to {question:?} is not a string")),
            };
            Ok((question, labels))
        })
        .collect()
}

struct Outcome {
    status: Status,
    detail: Option<String>,
    /// The signal that stopped codiva (the agent was stopped and reaped first).
    signal: Option<i32>,
    /// `--pr` failed: why.
    pr_failed: Option<String>,
    /// `--attach`: the session stays in the daemon (a signal only interrupted its turn).
    in_daemon: bool,
}

/// Writes events to stdout: JSON lines, or text for a person.
struct Printer {
    json: bool,
    /// Put before each answer's line (`--attempts`: which attempt it answered).
    prefix: Option<String>,
    streamed: String,
    /// What streamed of the message just finished (its line is ended): the agent's message
    /// entry that follows repeats it, and only what did not stream is printed.
    finished: String,
    out: std::io::Stdout,
}

impl Printer {
    fn new(json: bool) -> Self {
        Printer {
            json,
            prefix: None,
            streamed: String::new(),
            finished: String::new(),
            out: std::io::stdout(),
        }
    }

    fn write(&mut self, text: &str) {
        // A closed stdout (a pipe whose reader left) must not stop the session's cleanup.
        let mut out = self.out.lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    fn json_line(&mut self, value: &impl serde::Serialize) {
        if let Ok(line) = serde_json::to_string(value) {
            self.write(&format!("{line}\n"));
        }
    }

    fn event(&mut self, event: &SessionEvent) {
        if self.json {
            self.json_line(event);
            return;
        }
        match event {
            SessionEvent::Stream { text, reset } => {
                if *reset {
                    if !self.streamed.is_empty() {
                        self.write("\n");
                        self.finished = std::mem::take(&mut self.streamed);
                    }
                } else {
                    self.streamed.push_str(text);
                    self.write(text);
                }
            }
            SessionEvent::Log {
                scope: Scope::Main,
                entry,
                update,
                ..
            } => self.entry(entry, *update),
            SessionEvent::Status { status, detail, .. } => {
                let mut line = format!("· {}", status.as_str());
                if let Some(detail) = detail {
                    line.push_str(&format!(" — {detail}"));
                }
                self.line(&line);
            }
            SessionEvent::Subagent { subagent }
                if subagent.status != codiva_protocol::session::SubagentStatus::Running =>
            {
                let description = subagent.description.as_deref().unwrap_or("subagent");
                self.line(&format!("  ↳ {description}: {}", subagent.status));
            }
            _ => {}
        }
    }

    fn entry(&mut self, entry: &LogEntry, update: bool) {
        if !matches!(entry.kind, EntryKind::Assistant { .. }) {
            self.finished.clear();
        }
        match &entry.kind {
            EntryKind::Assistant { text } => {
                if !self.streamed.is_empty() && text.starts_with(self.streamed.as_str()) {
                    let rest = text[self.streamed.len()..].to_owned();
                    self.write(&rest);
                    self.write("\n");
                } else if !self.finished.is_empty() && text.starts_with(self.finished.as_str()) {
                    // Streamed whole already (the stream was reset before the entry came).
                    let rest = text[self.finished.len()..].trim_start().to_owned();
                    if !rest.is_empty() {
                        self.line(&rest);
                    }
                } else {
                    self.line(text);
                }
                self.streamed.clear();
                self.finished.clear();
            }
            EntryKind::Tool(tool) if update => {
                let mark = match tool.status {
                    ToolStatus::Running => "…",
                    ToolStatus::Succeeded => "✓",
                    ToolStatus::Failed => "✗",
                    ToolStatus::Denied => "denied",
                    ToolStatus::Unreported => "unreported",
                };
                let duration = tool
                    .duration_ms
                    .map(|ms| format!(" ({ms} ms)"))
                    .unwrap_or_default();
                self.line(&format!(
                    "⏺ {} {} {mark}{duration}",
                    tool.name, tool.summary
                ));
            }
            EntryKind::Note { level, text, .. } => {
                let prefix = match level {
                    NoteLevel::Info => "note",
                    NoteLevel::Warning => "warning",
                    NoteLevel::Error => "error",
                };
                self.line(&format!("! {prefix}: {text}"));
            }
            _ => {}
        }
    }

    fn decision(&mut self, answer: &follow::PromptAnswer) {
        if !self.json {
            let prefix = self.prefix.clone().unwrap_or_default();
            self.line(&format!("{prefix}  → {}", answer.describe()));
        }
    }

    fn note(&mut self, text: &str) {
        if !self.json {
            self.line(&format!("! {text}"));
        }
    }

    fn line(&mut self, text: &str) {
        if !self.streamed.is_empty() {
            self.write("\n");
            self.streamed.clear();
        }
        self.write(&format!("{text}\n"));
    }

    /// Prints what `--pr` did; returns why it failed.
    fn pr(&mut self, opened: Result<crate::exec_pr::Opened, String>) -> Option<String> {
        use crate::exec_pr::Opened;
        let (event, text) = match &opened {
            Ok(Opened::Created { number, url }) => (
                serde_json::json!({"event": "pr", "outcome": "created", "number": number, "url": url}),
                format!("opened draft pull request #{number}: {url}"),
            ),
            Ok(Opened::Existing { number, url }) => (
                serde_json::json!({"event": "pr", "outcome": "existing", "number": number, "url": url}),
                format!("pushed; pull request #{number} was open already: {url}"),
            ),
            Ok(Opened::NothingAhead { upstream }) => (
                serde_json::json!({"event": "pr", "outcome": "nothing_ahead", "upstream": upstream}),
                format!("no commits ahead of {upstream}: no pull request"),
            ),
            Err(reason) => (
                serde_json::json!({"event": "pr", "outcome": "failed", "reason": reason}),
                format!("no pull request: {reason}"),
            ),
        };
        if self.json {
            self.json_line(&event);
        } else {
            self.line(&text);
        }
        opened.err()
    }

    /// Prints the final line and returns the exit code.
    fn finish(&mut self, outcome: Outcome) -> ExitCode {
        let code = match outcome.status {
            _ if outcome.signal.is_some() => outcome
                .signal
                .map_or(code::FAILED, shutdown_signals::exit_status),
            Status::Completed if outcome.pr_failed.is_some() => code::PR_FAILED,
            Status::Completed => 0,
            Status::NeedsLogin => code::NEEDS_LOGIN,
            Status::RateLimited => code::RATE_LIMITED,
            Status::Interrupted => code::INTERRUPTED,
            _ => code::FAILED,
        };
        if self.json {
            self.json_line(&serde_json::json!({
                "event": "exit",
                "status": outcome.status,
                "detail": outcome.detail,
                "code": code,
            }));
        }
        if let Some(signal) = outcome.signal {
            if outcome.in_daemon {
                eprintln!(
                    "codiva: stopped by {}; the session's turn was interrupted (the session stays in the daemon)",
                    shutdown_signals::name(signal)
                );
            } else {
                eprintln!(
                    "codiva: stopped by {}; the agent was stopped",
                    shutdown_signals::name(signal)
                );
            }
        } else if let Some(reason) = &outcome.pr_failed {
            eprintln!("codiva: the session completed; no pull request: {reason}");
        } else if code != 0 {
            let reason = match outcome.status {
                Status::NeedsLogin => "needs login",
                Status::RateLimited => "rate limited",
                Status::Interrupted => "interrupted",
                Status::Failed => "failed",
                _ => "did not finish",
            };
            match outcome.detail {
                Some(detail) => eprintln!("codiva: {reason}: {detail}"),
                None => eprintln!("codiva: {reason}"),
            }
        }
        ExitCode::from(code)
    }
}
