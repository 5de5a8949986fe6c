//! The params and results of the requests in [`crate::methods`], and the params of the
//! notifications.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::approval::ApprovalPolicy;
use crate::input::ImageInput;
use crate::manager::SessionInfo;
use crate::session::SessionEvent;

/// Params of a request that takes none (`{}` or absent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoParams {}

/// The result of a request that only succeeds or fails: `{}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Done {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InitializeResult {
    /// Bumped on incompatible changes.
    pub protocol_version: String,
    pub server: ServerInfo,
    pub repo: RepoInfo,
    pub capabilities: Capabilities,
    /// What the user should see from start-up (a corrupt state file, pruned sessions, …).
    pub warnings: Vec<String>,
    /// Every agent the server knows, as `agents/list` lists them but without what that runs
    /// each agent for (`login`, `version`): a client draws its first screen from this and
    /// takes those from `agents/list` when they come. Empty from servers that predate it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<crate::agent::AgentAvailability>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RepoInfo {
    pub root: PathBuf,
    pub base: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Capabilities {
    pub agents: Vec<String>,
    pub images: bool,
    pub merge: bool,
    pub discard_confirmation: bool,
    pub subagent_logs: bool,
    /// Notifications carry `seq`; `manager/snapshot` answers with the `seq` it reflects.
    pub event_seq: bool,
}

/// `agents/list`: every agent codiva knows, installed or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentsResult {
    pub agents: Vec<crate::agent::AgentAvailability>,
}

/// Params naming one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionParams {
    pub session_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreateParams {
    pub prompt: String,
    #[serde(default)]
    pub images: Vec<ImageInput>,
    pub model: Option<String>,
    pub permission_mode: Option<crate::tool::PermissionMode>,
    /// The agent to run (an id of `agents/list`; none: the default agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The session's approval policy (none: the server's default for new sessions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<ApprovalPolicy>,
    /// Run in this directory itself, with no worktree or branch of its own (an absolute path:
    /// the repository's root or a directory inside it). One such session at a time per
    /// directory; merge, pull request and sync are refused for it, and discarding it only
    /// forgets the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_place: Option<PathBuf>,
    /// MCP servers the agent gets, by name (written to a private config file for the agent;
    /// refused for an agent that takes none: `agents/list` capability `mcp_servers`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, crate::mcp::McpServerConfig>,
    /// Appended to the agent's system prompt (after codiva's own additions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    /// Tools the agent may use without asking (its own rule syntax: `Bash(git *)`,
    /// `mcp__server__tool`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// Tools the agent may not use at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disallowed_tools: Vec<String>,
}

/// Params of `session/setApprovalPolicy`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalParams {
    /// The session whose policy this is; none: the default for sessions created from now on.
    pub session_id: Option<String>,
    pub policy: ApprovalPolicy,
}

/// A result carrying one session's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionResult {
    pub session: SessionInfo,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionListResult {
    pub sessions: Vec<SessionInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadParams {
    pub session_id: String,
    pub after: Option<u64>,
    /// Default 200, clamped to 1–1000.
    pub limit: Option<usize>,
    /// Read a subagent's log (the tool-use id of its `Agent` call) instead of the main log.
    pub subagent: Option<String>,
}

/// Params naming one entry of a session's (or a subagent's) log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FullMessageParams {
    pub session_id: String,
    /// The entry's id in its log.
    pub entry: u64,
    /// The subagent's log (the tool-use id of its `Agent` call) instead of the main log.
    pub subagent: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FullMessageResult {
    /// The message's whole text.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendParams {
    pub session_id: String,
    pub text: String,
    #[serde(default)]
    pub images: Vec<ImageInput>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResumeParams {
    pub session_id: String,
    pub text: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    AllowAlways,
    Deny,
    DenyAndStop,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
/// An answer to a permission request: `option` names one of the request's options (the way
/// to answer), or the older form `decision` (+ `suggestion`) picks one by its kind. Exactly one
/// of `option` and `decision`; an option the request does not offer is refused.
pub struct PermissionParams {
    pub session_id: String,
    pub request_id: String,
    /// The id of one of the request's `options`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<String>,
    #[serde(default)]
    pub decision: Option<Decision>,
    /// For `allow_always`: the index of the agent's suggested scope (none: the whole tool).
    pub suggestion: Option<usize>,
    /// The reason given with a deny.
    pub message: Option<String>,
}

/// One answer: a label or free text, or several labels of a multi-select question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Answer {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionParams {
    pub session_id: String,
    pub request_id: String,
    /// Keyed by question text.
    #[serde(default)]
    pub answers: BTreeMap<String, Answer>,
    #[serde(default)]
    pub decline: bool,
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelParams {
    pub session_id: String,
    /// `null`: the agent's default.
    pub model: Option<String>,
}

/// Params of `session/setAgent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentParams {
    pub session_id: String,
    /// An installed agent's id (`agents/list`).
    pub agent: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModeParams {
    pub session_id: String,
    pub mode: crate::tool::PermissionMode,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RenameParams {
    pub session_id: String,
    /// Sanitised (control characters dropped) and cut to 80 characters.
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfirmParams {
    pub session_id: String,
    /// Absent: preview only. The token of a preview: confirm exactly that.
    pub confirm_token: Option<String>,
}

/// The answer to `session/pr`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrResult {
    /// The session branch's pull request.
    pub pr: crate::github::SessionPr,
    /// `true` when this request opened it; `false` when the session had it already (the
    /// branch was pushed again).
    pub created: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SyncResult {
    /// What happened, in one line.
    pub message: String,
}

/// The answer to `session/fixCi`: what was sent to the session's agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FixCiResult {
    /// The pull request whose checks failed.
    pub pr: u64,
    /// The failed checks' names (sanitised).
    pub checks: Vec<String>,
    /// Bytes of failed-step log included (at most the budget, see `docs/github.md`).
    pub log_bytes: u64,
    /// Earlier log lines were left out to stay within the budget.
    pub log_truncated: bool,
    /// What happened, in one line.
    pub message: String,
}

/// The answer to `session/addressReview`: what was sent to the session's agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AddressReviewResult {
    /// The pull request whose review threads were sent.
    pub pr: u64,
    /// Unresolved threads sent.
    pub threads: u64,
    /// Unresolved threads left out: the byte budget was spent (see `docs/github.md`).
    #[serde(default)]
    pub left_out: u64,
    /// Bytes of review text (diff hunks and comments) sent.
    pub review_bytes: u64,
    /// Some hunk or comment was cut to fit the budget.
    #[serde(default)]
    pub truncated: bool,
    /// What happened, in one line.
    pub message: String,
}

/// Params of `session/commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommitParams {
    pub session_id: String,
    /// Absent: the session's agent is asked to commit its work with a message of its own.
    /// Given: codiva stages every uncommitted file of the worktree and commits with it.
    #[serde(default)]
    pub message: Option<String>,
}

/// The answer to `session/commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommitResult {
    /// The new commit, when codiva committed itself.
    #[serde(default)]
    pub commit: Option<String>,
    /// How many files it took (codiva's commit), or were uncommitted (the agent's).
    pub files: u64,
    /// The agent was asked to commit (no message given).
    pub asked_agent: bool,
    /// What happened, in one line.
    pub message: String,
}

/// The answer to `session/commits`: the commits of the session's branch that its base lacks,
/// newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommitsResult {
    /// Each commit's subject (its first line; agent-written text, sanitised: one line, no
    /// control characters, at most 200 characters).
    pub subjects: Vec<String>,
    /// The branch has more commits than these (at most 100 are listed).
    pub more: bool,
}

/// Params of `session/recover`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecoverParams {
    /// Only say which sessions are stuck and what would be done (for a y/n with counts).
    #[serde(default)]
    pub dry_run: bool,
}

/// What recovering a stuck session takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoverKind {
    /// Its pull request's checks failed: `session/fixCi`.
    FixCi,
    /// Its pull request conflicts with the base: `session/sync`.
    Sync,
}

/// One stuck session and, unless it was a dry run, how its repair went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecoverItem {
    pub session_id: String,
    pub kind: RecoverKind,
    /// The repair was done (fix-ci: the failures were sent to the agent; sync: merged, or
    /// the agent was asked to resolve it, and pushed). `None` in a dry run.
    #[serde(default)]
    pub ok: Option<bool>,
    /// What happened, or why it failed, in one line.
    #[serde(default)]
    pub message: String,
}

/// The answer to `session/recover`: the stuck sessions in the order they were handled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecoverResult {
    pub items: Vec<RecoverItem>,
    /// How many repairs succeeded (0 in a dry run).
    pub succeeded: u64,
    /// How many failed.
    pub failed: u64,
}

// -- notification params ----------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionUpdatedParams {
    pub seq: u64,
    pub session: SessionInfo,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRemovedParams {
    pub seq: u64,
    pub session_id: String,
}

/// A session's event (`session/status`, `session/log`, …): the event's fields, its
/// `event` name, the session and the event's place in the stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionEventParams {
    pub seq: u64,
    pub session_id: String,
    #[serde(flatten)]
    pub event: SessionEvent,
}

/// `agents/loginProgress`: a login command's progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LoginProgressParams {
    pub seq: u64,
    #[serde(flatten)]
    pub login: crate::agent::LoginProgress,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoginParams {
    /// The agent's id (`agents/list`).
    pub agent: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoginStarted {
    pub login_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoginInputParams {
    pub login_id: String,
    /// One line; a newline is added.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoginIdParams {
    pub login_id: String,
}

/// `session/prStatus`: the session's pull requests as they are now known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrStatusParams {
    pub seq: u64,
    pub session_id: String,
    #[serde(flatten)]
    pub prs: crate::github::SessionPrs,
}

/// `session/resources`: the sessions whose agents' resource use changed (one batch per
/// sampling period).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourcesParams {
    pub seq: u64,
    pub sessions: Vec<crate::manager::SessionResources>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BaseParams {
    pub seq: u64,
    pub base: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WarningParams {
    /// Absent for the start-up warnings sent before any event, and for "events were dropped".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    pub message: String,
}

/// The configuration file as `config/read` and `config/set` give it: every key codiva reads,
/// in the README's order, with what the file says (`value`, the TOML text of it) or the default
/// that applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigResult {
    /// Where the file is (it may not exist yet: every key then has its default).
    pub path: String,
    pub fields: Vec<ConfigField>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigField {
    pub key: String,
    pub kind: ConfigFieldKind,
    /// The default in English words, shown when the file does not set the key.
    pub default: String,
    /// The value as the file writes it (TOML), `None` when not set.
    pub value: Option<String>,
}

/// What a configuration key holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConfigFieldKind {
    /// Free text (a model name, a path).
    Text,
    /// One of these words.
    Choice {
        choices: Vec<String>,
    },
    Bool,
    Integer {
        min: i64,
        max: i64,
    },
    /// A list of strings.
    List,
}

/// One key of the configuration file set from what the user typed (strings bare or quoted,
/// a list as `a, b` or a TOML array); an empty `value` removes the key. Everything else in the
/// file — comments, layout, unknown keys — is kept. Refused (`config_not_toml`,
/// `config_unknown_key`, `config_invalid`, `config_unwritable`) without touching the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigSetParams {
    pub key: String,
    pub value: String,
}
