//! The seam between codiva and an agent: a [`Provider`] (one per kind of agent: Claude Code,
//! Codex, any ACP agent) and the [`Connection`] it opens for each agent process. Which agents
//! exist is data ([`catalog`], and the config file's `[agents.<id>]`); [`discovery`] finds them
//! on this machine. What fails at the seam is a typed error ([`LineError`], [`TitleError`],
//! [`RecordsError`]).
//!
//! The generic session task (`session_task`) owns everything with a clock or a file
//! descriptor — the process, its stdin, epochs, restarts, the interrupt grace, stop escalation
//! and the wire log — for every provider. A provider is pure translation: the command line
//! for a fresh or resumed start; each line the agent writes turned into provider-neutral
//! [`AgentEvent`]s (and the answers to the agent's own requests); codiva's commands (a message,
//! an interrupt, a prompt's answer, a model or mode) encoded into lines. What a provider cannot
//! do is data ([`AgentCapabilities`]) and optional parts answer `None`, so front ends show a
//! feature only when it is there.

pub mod catalog;
pub mod discovery;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use codiva_protocol::UserInput;
use codiva_protocol::agent::{
    AgentCapabilities, LoginState, PermissionRequest, QuestionRequest, QuestionResponse,
};
use codiva_protocol::log::EntryKind;
use codiva_protocol::tool::{PermissionMode, PermissionOption};

use crate::agent_event::AgentEvent;

/// An input that cannot be used: which field, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct InvalidInput {
    /// The field as the caller named it (`permission_mode`, `images[0].data`, `suggestion`).
    pub field: String,
    pub message: String,
}

impl InvalidInput {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        InvalidInput {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The image types agents take (the media types of `UserInput::images`).
pub const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// `Ok` when `media_type` is one of [`IMAGE_TYPES`]; else why `agent` (its name for people)
/// does not take it. For agents that read an image's bytes themselves.
pub fn check_image_type(field: &str, agent: &str, media_type: &str) -> Result<(), InvalidInput> {
    if IMAGE_TYPES.contains(&media_type) {
        Ok(())
    } else {
        Err(InvalidInput::new(
            field,
            format!("{agent} does not take images of type {media_type}"),
        ))
    }
}

/// Why a line from the agent could not be read ([`Connection::receive`]): the line is skipped
/// with a note.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Not JSON.
    #[error("not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    /// JSON, but not a JSON-RPC message (Codex, ACP agents).
    #[error(transparent)]
    JsonRpc(#[from] crate::jsonrpc::MessageError),
    /// JSON, but not a line of the agent's own protocol (its parser's error, whole).
    #[error(transparent)]
    Protocol(Box<dyn std::error::Error + Send + Sync>),
}

/// Why an agent's one-shot gave no title ([`Provider::read_title`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TitleError {
    /// The agent has no one-shot for titles.
    #[error("the agent makes no titles")]
    Unsupported,
    /// Its output holds no answer (`output`: its start, one line).
    #[error("the agent printed no result (exit {}): {output}", if *.exited_ok { "0" } else { "non-zero" })]
    NoResult { exited_ok: bool, output: String },
    /// The model answered an error (`status`: its HTTP status, when given).
    #[error("the agent answered an error{}: {message}", status.map(|status| format!(" (HTTP {status})")).unwrap_or_default())]
    Refused {
        status: Option<u64>,
        message: String,
    },
    /// The answer has no text.
    #[error("the agent's answer has no text")]
    NoText,
}

/// Why the agent's own records of a conversation could not be read ([`Provider::conversation`],
/// [`Provider::whole_message`]): the provider's error, whole.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct RecordsError(pub Box<dyn std::error::Error + Send + Sync>);

impl RecordsError {
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        RecordsError(Box::new(error))
    }
}

/// What one agent process is started for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launch {
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    /// The agent conversation to continue (an id the agent gave; see [`TurnEnd`]).
    ///
    /// [`TurnEnd`]: crate::agent_event::TurnEnd
    pub resume: Option<String>,
    /// Appended to the agent's system prompt.
    pub append_system_prompt: Option<String>,
    /// The message a process of its own runs (agents started per turn, with the message in
    /// their command line: [`Provider::process_per_turn`]); `None` for long-lived agents.
    pub input: Option<UserInput>,
    /// The directory the process runs in (the session's worktree), for agents whose handshake
    /// names it; empty when unknown.
    pub cwd: PathBuf,
    /// The session's MCP servers and tool rules (agents with [`AgentCapabilities::mcp_servers`]).
    pub extras: AgentExtras,
}

/// What a session adds to its agent beyond the prompt: MCP servers and tool rules
/// (`session/create`'s `mcp_servers`, `allowed_tools`, `disallowed_tools`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentExtras {
    /// The session's private MCP config file (`{"mcpServers":{…}}`, mode 0600), written by the
    /// manager; the agent reads its servers from there, never from its command line.
    pub mcp_config: Option<PathBuf>,
    /// The servers that file holds, for agents that take them in their handshake.
    pub mcp_servers: std::collections::BTreeMap<String, codiva_protocol::mcp::McpServerConfig>,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
}

impl AgentExtras {
    /// Nothing is added.
    pub fn is_empty(&self) -> bool {
        self.mcp_config.is_none()
            && self.mcp_servers.is_empty()
            && self.allowed_tools.is_empty()
            && self.disallowed_tools.is_empty()
    }

    /// `line` with every MCP header value and server variable value (tokens, keys) replaced
    /// by `<redacted>`: what the wire log keeps of a line that gives an agent its servers
    /// in its handshake (ACP's `session/new`, Codex's `thread/start`).
    pub fn redact<'a>(&self, line: &'a str) -> std::borrow::Cow<'a, str> {
        use codiva_protocol::mcp::McpServerConfig;
        let mut out = std::borrow::Cow::Borrowed(line);
        for server in self.mcp_servers.values() {
            let values = match server {
                McpServerConfig::Stdio { env, .. } => env.values(),
                McpServerConfig::Http { headers, .. } => headers.values(),
            };
            for value in values.filter(|value| !value.is_empty()) {
                // As it stands in a JSON string.
                let quoted = serde_json::to_string(value).unwrap_or_default();
                let escaped = quoted.trim_matches('"');
                if !escaped.is_empty() && out.contains(escaped) {
                    out = std::borrow::Cow::Owned(out.replace(escaped, "<redacted>"));
                }
            }
        }
        out
    }
}

/// How to start one agent process; the process module builds the `Command` from it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandLine {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Variables set for this agent on top of the session's environment.
    pub env: Vec<(String, String)>,
}

/// One line to the agent's stdin, without its newline. It never contains one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutLine(String);

impl OutLine {
    /// `None` when `text` holds a line break (it would be two lines to the agent).
    pub fn new(text: String) -> Option<Self> {
        (!text.contains(['\n', '\r'])).then_some(OutLine(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What one line from the agent means.
#[derive(Debug, Default, PartialEq)]
pub struct Received {
    /// Answers to the agent's own requests, written at once, before the events are applied.
    pub replies: Vec<OutLine>,
    pub events: Vec<AgentEvent>,
    /// Close the agent's input after the replies: the process cannot go on (e.g. the
    /// conversation it was to resume does not exist) and ends when its input closes.
    pub close_input: bool,
}

/// A conversation's log rebuilt from the agent's own records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConversationLog {
    pub main: Vec<EntryKind>,
    /// Each subagent's entries, by the tool-use id of the call that started it.
    pub subagents: Vec<(String, Vec<EntryKind>)>,
    /// The agent's TODO list as the records leave it (`None`: they keep none).
    pub todos: Option<Vec<codiva_protocol::session::TodoItem>>,
}

/// A kind of agent: how to start its processes and how to talk to each one.
pub trait Provider: Send + Sync + fmt::Debug {
    /// A short stable name (`claude`), kept with each session.
    fn id(&self) -> &'static str;
    /// The agent's name for people (`Claude Code`).
    fn display_name(&self) -> &'static str;
    fn capabilities(&self) -> AgentCapabilities;
    /// The command line of one process, fresh or resuming.
    fn command(&self, launch: &Launch) -> CommandLine;
    /// Each message runs in a process of its own: started with the message in its command line
    /// ([`Launch::input`]), its input closed at once, ending with the turn. A message sent
    /// while a turn runs stops that turn; an interrupt stops the process. Long-lived agents
    /// (the default) take messages on their input.
    fn process_per_turn(&self) -> bool {
        false
    }
    /// The translator for one new process, started for `launch` (an agent whose handshake
    /// carries the model, mode or conversation to resume reads them here).
    fn connect(&self, launch: &Launch) -> Box<dyn Connection>;
    /// `Ok` when the agent has permission mode `mode`; `field` names the input.
    fn check_permission_mode(&self, field: &str, mode: PermissionMode) -> Result<(), InvalidInput>;
    /// The agent's own login check, run to its end (`None`: it has none).
    fn login_check(&self) -> Option<CommandLine> {
        None
    }
    /// The flag that makes its program print its version (`None`: none known; an agent that
    /// would start instead is never asked).
    fn version_flag(&self) -> Option<&'static str> {
        None
    }
    /// Model names the agent itself resolves to its latest model of a kind (`None` of them:
    /// it has no such aliases). A model picker offers only these before the agent reports its
    /// catalog.
    fn model_aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// The agent's own interactive login command (`None`: it has none codiva can run).
    fn login(&self) -> Option<crate::login::LoginCommand> {
        None
    }
    /// Whether the agent is logged in, from where it keeps its login (files, variables in
    /// `env`), without starting anything (`None`: not known this way; see
    /// [`Provider::login_check`]).
    fn login_state(&self, env: &crate::process::EnvPolicy) -> Option<LoginState> {
        let _ = env;
        None
    }
    /// A login the agent performs itself over its own protocol, run with its
    /// [`Provider::login`] command line (`None`: its login command is the whole login).
    fn login_dialogue(
        &self,
        env: &crate::process::EnvPolicy,
    ) -> Option<Box<dyn crate::login::LoginDialogue>> {
        let _ = env;
        None
    }
    /// What the login check printed (stdout then stderr) means; `success`: it exited 0.
    fn read_login(&self, output: &str, success: bool) -> LoginState {
        let _ = (output, success);
        LoginState::Unknown {
            reason: "the agent has no login check".to_owned(),
        }
    }
    /// A one-shot run of the agent's cheapest model, without tools, whose output holds a short
    /// title for a session whose first instruction is `instruction`
    /// ([`AgentCapabilities::titles`]; `None`: the agent cannot make one).
    fn title_request(&self, instruction: &str) -> Option<CommandLine> {
        let _ = instruction;
        None
    }
    /// The title in what the one-shot wrote on stdout (`success`: it exited 0), as the model
    /// gave it: the caller sanitises it. `Err` when there is none.
    fn read_title(&self, stdout: &str, success: bool) -> Result<String, TitleError> {
        let _ = (stdout, success);
        Err(TitleError::Unsupported)
    }
    /// `Ok` when the agent takes this image; `field` names it (`images[0]`).
    fn check_image(&self, field: &str, media_type: &str, data: &str) -> Result<(), InvalidInput> {
        let _ = (field, media_type, data);
        Ok(())
    }
    /// The log of conversation `id` run in `cwd`, rebuilt from the agent's own records
    /// (blocking IO); `None` when the agent keeps none ([`AgentCapabilities::transcript_restore`]).
    fn conversation(&self, cwd: &Path, id: &str) -> Option<Result<ConversationLog, RecordsError>> {
        let _ = (cwd, id);
        None
    }
    /// The whole text of an assistant message of conversation `id` run in `cwd` that the log
    /// cut: the one that starts or ends with `kept` (the log keeps a reply's end) and is `total`
    /// bytes long (blocking IO). `None` when the agent keeps no transcript; `Ok(None)` when the
    /// transcript lacks that message.
    fn whole_message(
        &self,
        cwd: &Path,
        id: &str,
        kept: &str,
        total: usize,
    ) -> Option<Result<Option<String>, RecordsError>> {
        let _ = (cwd, id, kept, total);
        None
    }
    /// The most recent conversation the agent recorded for `cwd` (blocking IO), to adopt a
    /// worktree whose session codiva lost.
    fn latest_conversation(&self, cwd: &Path) -> Option<String> {
        let _ = cwd;
        None
    }
    /// The conversations the agent recorded that ran in one of `dirs` (blocking IO; each
    /// record read from its head only, `crate::outside::HEAD_BYTES`), for the history of
    /// conversations begun outside codiva. `None` when it keeps no records it can list.
    /// `env` is the one its processes get (where an agent keeps its records may be set there).
    fn outside_conversations(
        &self,
        dirs: &[PathBuf],
        env: &crate::process::EnvPolicy,
    ) -> Option<Vec<codiva_protocol::outside::OutsideConversation>> {
        let _ = (dirs, env);
        None
    }
    /// The conversations the agent itself lists over its protocol (an ACP agent's
    /// `session/list`) that ran in one of `dirs`: one exchange with a process of its own, at
    /// most `limit` long (blocking). `None` when it lists none this way (no such request, or
    /// its handshake does not offer it); `Err` says why the listing failed.
    fn listed_conversations(
        &self,
        dirs: &[PathBuf],
        env: &crate::process::EnvPolicy,
        limit: std::time::Duration,
    ) -> Option<Result<Vec<codiva_protocol::outside::OutsideConversation>, RecordsError>> {
        let _ = (dirs, env, limit);
        None
    }
    /// Conversation `id` that ran in `cwd`, rebuilt for reading only from the end of its
    /// record (at most `window` bytes read; blocking IO). `None` when it keeps no records.
    fn read_outside(
        &self,
        cwd: &Path,
        id: &str,
        window: u64,
        env: &crate::process::EnvPolicy,
    ) -> Option<Result<crate::outside::OutsideLog, RecordsError>> {
        let _ = (cwd, id, window, env);
        None
    }
    /// Makes conversation `id` that ran in `from` one that a process in `to` resumes
    /// (blocking IO): for an agent that finds a conversation by its directory, its records
    /// are copied there. `Ok` when nothing needs doing.
    fn carry_conversation(&self, id: &str, from: &Path, to: &Path) -> Result<(), RecordsError> {
        let _ = (id, from, to);
        Ok(())
    }
}

/// One agent process as the provider speaks to it. Pure translation: the session task does
/// all the IO and calls these in order. Each method returns the lines to write, in order.
pub trait Connection: Send {
    /// Written as soon as the process runs (a handshake).
    fn opening(&mut self) -> Vec<OutLine>;
    /// One line the agent wrote (never blank). `Err` when it cannot be read.
    fn receive(&mut self, line: &[u8]) -> Result<Received, LineError>;
    /// A user message.
    fn send(&mut self, input: &UserInput) -> Vec<OutLine>;
    /// Stop the running turn.
    fn interrupt(&mut self) -> Vec<OutLine>;
    /// The user's answer to a permission request: one of the options it offers (already
    /// checked), with the reason given for a deny.
    fn answer_permission(
        &mut self,
        request: &PermissionRequest,
        option: &PermissionOption,
        message: Option<&str>,
    ) -> Vec<OutLine>;
    /// The user's answer to a question.
    fn answer_question(
        &mut self,
        request: &QuestionRequest,
        response: &QuestionResponse,
    ) -> Vec<OutLine>;
    /// Refuse a prompt without asking anyone (its turn was interrupted), and stop the turn.
    fn refuse(&mut self, request_id: &str, message: &str) -> Vec<OutLine>;
    /// `None`: back to the agent's default model.
    fn set_model(&mut self, model: Option<&str>) -> Vec<OutLine>;
    /// A mode [`Provider::check_permission_mode`] accepted.
    fn set_permission_mode(&mut self, mode: PermissionMode) -> Vec<OutLine>;
    /// Connect MCP server `server` again (agents with [`AgentCapabilities::mcp_servers`]); the
    /// outcome comes back as [`AgentEvent::McpServers`].
    fn mcp_reconnect(&mut self, server: &str) -> Vec<OutLine> {
        let _ = server;
        Vec::new()
    }
}

/// An agent codiva knows but cannot run here, and how to install it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingAgent {
    pub id: &'static str,
    pub name: &'static str,
    /// How to install it (a command line).
    pub install: String,
}

/// The first word of `output` that is a version number (`2.1.332 (Claude Code)` → `2.1.332`,
/// `codex-cli 0.171.0` → `0.171.0`).
pub fn version_in(output: &str) -> Option<String> {
    output.split_whitespace().find_map(|word| {
        let word = word.trim_start_matches('v');
        let mut parts = word.split('.');
        let numeric = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
        let ok = parts.next().is_some_and(numeric)
            && parts
                .next()
                .is_some_and(|p| numeric(p.split(['-', '+']).next().unwrap_or("")));
        ok.then(|| word.to_owned())
    })
}

/// The agents a manager can run (one provider each, in the order of preference) and the ones
/// it knows but cannot run; which one new sessions run when they name none.
#[derive(Debug, Clone, Default)]
pub struct Providers {
    installed: Vec<(Arc<dyn Provider>, Option<PathBuf>)>,
    missing: Vec<MissingAgent>,
    default: Option<usize>,
    /// What each program's `--version` said, kept while the file is unchanged.
    versions: VersionCache,
}

/// Versions by program, each with the (mtime, size) of the file that said it: a program
/// replaced or updated in place (a new mtime or size) is asked again.
type VersionCache = Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, (FileStamp, String)>>>;

type FileStamp = (std::time::SystemTime, u64);

/// The (mtime, size) of the file `program` names (through symlinks).
fn file_stamp(program: &std::path::Path) -> Option<FileStamp> {
    let metadata = std::fs::metadata(program).ok()?;
    Some((metadata.modified().ok()?, metadata.len()))
}

/// `program`'s version: the cached one while its file is unchanged, else its own `flag`'s
/// answer (kept for next time).
async fn program_version(
    cache: VersionCache,
    program: PathBuf,
    flag: &'static str,
    env: crate::process::EnvPolicy,
    limit: std::time::Duration,
) -> Option<String> {
    let stamp = file_stamp(&program);
    let cached = |cache: &VersionCache| {
        cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&program)
            .filter(|(cached, _)| Some(*cached) == stamp)
            .map(|(_, version)| version.clone())
    };
    if let Some(version) = cached(&cache) {
        return Some(version);
    }
    let run = crate::process::run_captured(&program, &[flag.into()], &env, limit)
        .await
        .ok()?;
    let version = run.success.then(|| version_in(&run.stdout)).flatten()?;
    // Only when the file did not change while it ran.
    if let Some(stamp) = stamp.filter(|stamp| file_stamp(&program) == Some(*stamp)) {
        cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(program, (stamp, version.clone()));
    }
    Some(version)
}

impl Providers {
    /// One agent, the default (tests, benches).
    pub fn one(provider: Arc<dyn Provider>) -> Self {
        Providers {
            installed: vec![(provider, None)],
            missing: Vec::new(),
            default: Some(0),
            versions: VersionCache::default(),
        }
    }

    /// `installed` (each with the program that runs it) and `missing`; the default is the
    /// installed agent `preferred` names, else the first installed.
    pub fn new(
        installed: Vec<(Arc<dyn Provider>, Option<PathBuf>)>,
        missing: Vec<MissingAgent>,
        preferred: Option<&str>,
    ) -> Self {
        let default = preferred
            .and_then(|id| installed.iter().position(|(p, _)| p.id() == id))
            .or((!installed.is_empty()).then_some(0));
        Providers {
            installed,
            missing,
            default,
            versions: VersionCache::default(),
        }
    }

    /// The installed agent `id`.
    pub fn get(&self, id: &str) -> Option<&Arc<dyn Provider>> {
        self.installed
            .iter()
            .map(|(provider, _)| provider)
            .find(|provider| provider.id() == id)
    }

    /// The agent new sessions run when they name none (`None`: no agent is installed).
    pub fn default_provider(&self) -> Option<&Arc<dyn Provider>> {
        self.default.map(|index| &self.installed[index].0)
    }

    /// The installed agents, in order of preference.
    pub fn installed(&self) -> Vec<&Arc<dyn Provider>> {
        self.installed
            .iter()
            .map(|(provider, _)| provider)
            .collect()
    }

    /// The known agent `id` that is not installed.
    pub fn missing(&self, id: &str) -> Option<&MissingAgent> {
        self.missing.iter().find(|agent| agent.id == id)
    }

    /// [`Providers::availability`] with each installed agent's login check run and its
    /// version asked (each at most `limit`, all side by side) in `env`. A version is asked
    /// once per program file (while its mtime and size stay).
    pub async fn availability_with_login(
        &self,
        env: &crate::process::EnvPolicy,
        limit: std::time::Duration,
    ) -> Vec<codiva_protocol::agent::AgentAvailability> {
        // Side by side: each check is a child process of its own.
        let checks: Vec<_> = self
            .installed
            .iter()
            .map(|(provider, _)| {
                let provider = provider.clone();
                let env = env.clone();
                tokio::spawn(async move {
                    if let Some(state) = provider.login_state(&env) {
                        // Its files and variables: no process.
                        return Some(state);
                    }
                    let command = provider.login_check()?;
                    let run =
                        crate::process::run_captured(&command.program, &command.args, &env, limit)
                            .await;
                    Some(match run {
                        Ok(run) => provider
                            .read_login(&format!("{}{}", run.stdout, run.stderr), run.success),
                        Err(err) => LoginState::Unknown {
                            reason: err.to_string(),
                        },
                    })
                })
            })
            .collect();
        let versions: Vec<_> = self
            .installed
            .iter()
            .map(|(provider, program)| {
                let flag = provider.version_flag();
                let program = program.clone();
                let env = env.clone();
                let cache = self.versions.clone();
                tokio::spawn(
                    async move { program_version(cache, program?, flag?, env, limit).await },
                )
            })
            .collect();
        let mut agents = self.availability();
        for (agent, check) in agents.iter_mut().zip(checks) {
            agent.login = check.await.unwrap_or_else(|err| {
                Some(LoginState::Unknown {
                    reason: err.to_string(),
                })
            });
        }
        for (agent, version) in agents.iter_mut().zip(versions) {
            agent.version = version.await.ok().flatten();
        }
        agents
    }

    /// Every agent, installed first, as clients see them.
    pub fn availability(&self) -> Vec<codiva_protocol::agent::AgentAvailability> {
        use codiva_protocol::agent::{AgentAvailability, AgentStatus};
        let installed = self
            .installed
            .iter()
            .enumerate()
            .map(|(index, (provider, program))| AgentAvailability {
                id: provider.id().to_owned(),
                name: provider.display_name().to_owned(),
                status: AgentStatus::Ready,
                default: self.default == Some(index),
                capabilities: Some(provider.capabilities()),
                program: program.as_ref().map(|p| p.display().to_string()),
                install: None,
                login: None,
                version: None,
                model_aliases: provider
                    .model_aliases()
                    .iter()
                    .map(|alias| (*alias).to_owned())
                    .collect(),
            });
        let missing = self.missing.iter().map(|agent| AgentAvailability {
            id: agent.id.to_owned(),
            name: agent.name.to_owned(),
            status: AgentStatus::NotInstalled,
            default: false,
            capabilities: None,
            program: None,
            install: Some(agent.install.clone()),
            login: None,
            version: None,
            model_aliases: Vec::new(),
        });
        installed.chain(missing).collect()
    }

    /// The ids of the installed agents, in order.
    pub fn ids(&self) -> Vec<&'static str> {
        self.installed.iter().map(|(p, _)| p.id()).collect()
    }
}

#[cfg(test)]
mod version_tests {
    use super::version_in;

    /// What `claude --version` (2.1.332) and `codex --version` (0.171.0) print here.
    #[test]
    fn versions_are_read_from_what_the_agents_print() {
        assert_eq!(
            version_in("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(
            version_in("codex-cli 0.171.0\n").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(version_in("v1.2.3-beta.1").as_deref(), Some("1.2.3-beta.1"));
        assert_eq!(version_in("no version here 2024"), None);
    }

    /// A program's `--version` runs once while its file stays; a program changed in place is
    /// asked again.
    #[tokio::test]
    async fn a_version_is_asked_once_per_program_file() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("agent");
        let runs = dir.path().join("runs");
        let write = |version: &str| {
            std::fs::write(
                &program,
                format!(
                    "#!/bin/sh\necho x >> '{}'\necho 'agent {version}'\n",
                    runs.display()
                ),
            )
            .unwrap();
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        write("1.2.3");
        let cache = super::VersionCache::default();
        let env = crate::process::EnvPolicy::Exact(vec![("PATH".into(), "/usr/bin:/bin".into())]);
        let limit = std::time::Duration::from_secs(10);
        let ask = || {
            super::program_version(
                cache.clone(),
                program.clone(),
                "--version",
                env.clone(),
                limit,
            )
        };
        let count = || {
            std::fs::read_to_string(&runs)
                .unwrap_or_default()
                .lines()
                .count()
        };
        assert_eq!(ask().await.as_deref(), Some("1.2.3"));
        assert_eq!(ask().await.as_deref(), Some("1.2.3"));
        assert_eq!(count(), 1, "asked once");
        // Updated in place: another size (and mtime).
        write("1.2.40");
        assert_eq!(ask().await.as_deref(), Some("1.2.40"));
        assert_eq!(count(), 2);
    }
}

#[cfg(test)]
mod redact_tests {
    use super::AgentExtras;

    #[test]
    fn header_and_variable_values_are_redacted_as_json_carries_them() {
        let extras = AgentExtras {
            mcp_servers: serde_json::from_value(serde_json::json!({
                "ops": {"type": "http", "url": "http://127.0.0.1:1/mcp",
                        "headers": {"Authorization": "Bearer t\"ok"}},
                "tool": {"type": "stdio", "command": "srv", "env": {"KEY": "k1", "EMPTY": ""}}
            }))
            .unwrap(),
            ..AgentExtras::default()
        };
        let line = serde_json::json!({"headers": {"Authorization": "Bearer t\"ok"},
            "env": {"KEY": "k1", "EMPTY": ""}, "command": "srv"})
        .to_string();
        let kept = extras.redact(&line);
        assert!(!kept.contains("k1") && !kept.contains(r#"t\"ok"#), "{kept}");
        assert_eq!(kept.matches("<redacted>").count(), 2, "{kept}");
        assert!(kept.contains(r#""EMPTY":"""#) && kept.contains(r#""command":"srv""#));
        assert!(matches!(
            extras.redact("nothing secret"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}

#[cfg(test)]
mod error_tests {
    use super::{Launch, LineError, Provider, RecordsError};
    use crate::jsonrpc::MessageError;
    use std::path::PathBuf;

    /// A line no provider can read says why, with its parser's error kept whole.
    #[test]
    fn unreadable_lines_keep_the_parsers_error() {
        let claude = crate::claude::ClaudeProvider::new("claude".into(), PathBuf::from("/h"));
        let codex = crate::codex::CodexProvider::new("codex".into());
        let acp = crate::acp::AcpProvider::new(crate::acp::AcpAgent::gemini("gemini".into()));
        let launch = Launch::default();
        let err = claude.connect(&launch).receive(b"nope").unwrap_err();
        let LineError::Protocol(source) = &err else {
            panic!("{err:?}");
        };
        assert!(source.is::<codiva_wire::claude::ParseError>(), "{source:?}");
        for provider in [&codex as &dyn Provider, &acp] {
            let mut connection = provider.connect(&launch);
            assert!(matches!(
                connection.receive(b"[1]"),
                Err(LineError::JsonRpc(MessageError::NotAnObject))
            ));
            assert!(matches!(
                connection.receive(b"{\"method\":"),
                Err(LineError::JsonRpc(MessageError::NotJson(_)))
            ));
            assert!(matches!(
                connection.receive(b"{}"),
                Err(LineError::JsonRpc(MessageError::NoKind))
            ));
        }
    }

    /// Codex and ACP agents take the API's four image types and name themselves otherwise.
    #[test]
    fn an_image_type_an_agent_does_not_take_is_refused_in_its_name() {
        for agent in [
            &crate::codex::CodexProvider::new("codex".into()) as &dyn Provider,
            &crate::acp::AcpProvider::new(crate::acp::AcpAgent::custom(
                "grok",
                "Grok",
                "grok".into(),
                Vec::new(),
            )),
        ] {
            for media_type in super::IMAGE_TYPES {
                assert_eq!(agent.check_image("images[0]", media_type, ""), Ok(()));
            }
            let refused = agent.check_image("images[0]", "image/bmp", "").unwrap_err();
            assert_eq!(refused.field, "images[0]");
            assert_eq!(
                refused.message,
                format!(
                    "{} does not take images of type image/bmp",
                    agent.display_name()
                )
            );
        }
    }

    /// The records' error is the provider's own, reachable as the source.
    #[test]
    fn a_missing_transcript_is_the_providers_error() {
        let home = tempfile::tempdir().unwrap();
        let claude = crate::claude::ClaudeProvider::new("claude".into(), home.path().into());
        let provider: &dyn Provider = &claude;
        let Some(Err(RecordsError(source))) = provider.conversation(home.path(), "gone") else {
            panic!("a transcript that is not there is an error");
        };
        assert!(
            matches!(
                source.downcast_ref::<crate::claude::transcript::TranscriptError>(),
                Some(crate::claude::transcript::TranscriptError::NotFound { .. })
            ),
            "{source:?}"
        );
        // Its text is the provider's own.
        let reason = provider
            .conversation(home.path(), "gone")
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(reason.starts_with("no transcript at "), "{reason}");
    }
}
