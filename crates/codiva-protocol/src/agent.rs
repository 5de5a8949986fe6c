//! What clients see of an agent: its handshake, its requests for permission and answers, and
//! the retry and usage figures it reports. Provider-neutral; no agent's wire format is named.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::{PermissionOption, PermissionOptionKind, ToolCallView};

/// What the agent said about itself when it connected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    pub version: Option<String>,
    pub models: Vec<ModelChoice>,
    pub commands: Vec<CommandInfo>,
    pub account: Option<Account>,
    pub permission_mode: Option<crate::tool::PermissionMode>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelChoice {
    pub id: String,
    pub display_name: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandInfo {
    pub name: String,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Account {
    /// Where the API key in use comes from (`ANTHROPIC_API_KEY`, `apiKeyHelper`, …; `none`).
    pub api_key_source: Option<String>,
    /// Where the login token in use comes from (`CLAUDE_CODE_OAUTH_TOKEN`, …; `none`).
    pub token_source: Option<String>,
    pub api_provider: Option<String>,
    pub email: Option<String>,
    pub subscription: Option<String>,
}

/// The entry of an agent's model catalog (one of `ids`: `default`, `opus`, `sonnet`, …, or full
/// names) that the model `model` it reports is: that entry itself, else the one alias that is a
/// word of the model's name (`sonnet` for `claude-sonnet-4-5-20250929`; `default`, which names
/// no model of its own, never matches a word). `None` when none or several match.
pub fn catalog_entry<'a>(model: &str, ids: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let ids: Vec<&str> = ids.into_iter().collect();
    if let Some(exact) = ids.iter().find(|id| **id == model) {
        return Some(exact);
    }
    let words: Vec<&str> = model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let mut found = ids
        .iter()
        .filter(|id| **id != "default" && words.contains(id));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

impl Account {
    /// A subscription login (a plan, not a per-token bill): the agent names its plan, or it
    /// runs on a login token (Claude Code's `tokenSource`, e.g. `CLAUDE_CODE_OAUTH_TOKEN`).
    pub fn is_subscription(&self) -> bool {
        self.subscription.is_some()
            || self
                .token_source
                .as_deref()
                .is_some_and(|source| !source.is_empty() && source != "none")
    }
}

/// A failed model request that the agent is about to retry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RetryInfo {
    pub attempt: u32,
    pub max: u32,
    pub delay_ms: u64,
    pub status: Option<u16>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
}

impl TokenUsage {
    /// The prompt's size: what the model read, cached or not.
    pub fn context(&self) -> u64 {
        self.input + self.cache_read + self.cache_creation
    }
}

/// The agent asks whether it may use a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRequest {
    pub request_id: String,
    /// The agent's own name of the tool.
    pub tool: String,
    /// Kind, title and content of the call: what front ends draw.
    #[serde(flatten)]
    pub view: ToolCallView,
    /// The input as the agent sent it, kept for display.
    pub input: Value,
    pub description: Option<String>,
    /// The answers offered, in order: allow once, allow always (each scope), deny, deny and
    /// stop. An answer names one by its id; an id not listed is refused.
    #[serde(default)]
    pub options: Vec<PermissionOption>,
    /// Scopes the agent offers for "always allow" in its own words, kept for display (the
    /// allow-always options are these, in order, then the whole tool).
    pub suggestions: Vec<Value>,
    pub tool_use_id: Option<String>,
    /// Set when a subagent asks.
    pub agent_id: Option<String>,
    pub blocked_path: Option<String>,
    pub reason: Option<String>,
}

impl PermissionRequest {
    /// The option `id`, if the request offers it.
    pub fn option(&self, id: &str) -> Option<&PermissionOption> {
        self.options.iter().find(|option| option.id == id)
    }

    /// The first option of `kind`.
    pub fn option_of(&self, kind: PermissionOptionKind) -> Option<&PermissionOption> {
        self.options.iter().find(|option| option.kind == kind)
    }

    /// The allow-always options, in order (the agent's scopes, then the whole tool).
    pub fn always_options(&self) -> impl Iterator<Item = &PermissionOption> {
        self.options
            .iter()
            .filter(|option| option.kind == PermissionOptionKind::AllowAlways)
    }
}

/// The agent asks the user questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionRequest {
    pub request_id: String,
    pub questions: Vec<Question>,
    /// The tool input as the agent sent it (answers are merged into it).
    pub input: Value,
    pub tool_use_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Question {
    pub question: String,
    pub header: Option<String>,
    pub options: Vec<QuestionOption>,
    pub multi_select: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionOption {
    pub label: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoteLevel {
    Info,
    Warning,
    Error,
}

/// A person's answer to a [`QuestionRequest`], as a front end holds it (sent as
/// `QuestionParams`).
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionResponse {
    /// Answers keyed by question text. Several labels answer a multi-select question; any
    /// other text is a free-text answer.
    Answers(BTreeMap<String, Vec<String>>),
    /// The user would rather not answer.
    Decline { message: Option<String> },
}

/// What an agent can do, as data. A front end offers a feature only when it is `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct AgentCapabilities {
    /// It asks before using tools, and takes answers.
    pub permissions: bool,
    /// A running turn can be stopped while the process lives.
    pub interrupt: bool,
    /// The model can be changed in a running process.
    pub set_model: bool,
    /// The permission mode can be changed in a running process.
    pub set_mode: bool,
    /// A new process can continue an earlier conversation.
    pub resume: bool,
    /// It reports the models it offers.
    pub model_catalog: bool,
    /// It reports token usage.
    pub usage: bool,
    /// It reports what its turns cost.
    pub cost: bool,
    /// A conversation's log can be rebuilt from the agent's own records
    /// (a provider's `restore`).
    pub transcript_restore: bool,
    /// It can name a session: a one-shot request to its cheapest model, without tools, gives
    /// a short title for the first instruction (config `titles = "agent"`).
    #[serde(default)]
    pub titles: bool,
    /// It takes extra MCP servers (`session/create`'s `mcp_servers`).
    #[serde(default)]
    pub mcp_servers: bool,
    /// It reports each MCP server's status (`SessionInfo::mcp_servers`). Without it a
    /// session's servers show `not_reported`: the agent was given them and says nothing more.
    #[serde(default)]
    pub mcp_status: bool,
    /// A failed MCP server can be connected again (`session/mcpReconnect`).
    #[serde(default)]
    pub mcp_reconnect: bool,
    /// It takes allowed and disallowed tools (`session/create`'s `allowed_tools`,
    /// `disallowed_tools`).
    #[serde(default)]
    pub tool_rules: bool,
}

impl AgentCapabilities {
    /// Of the extras asked for — MCP servers, allowed tools, disallowed tools, each as its
    /// caller names it (`session/create`'s field, `codiva exec`'s flag) and whether it was
    /// given — the first the agent does not take.
    pub fn extra_not_taken<'a>(
        &self,
        [mcp_servers, allowed_tools, disallowed_tools]: [(&'a str, bool); 3],
    ) -> Option<&'a str> {
        [
            (mcp_servers, self.mcp_servers),
            (allowed_tools, self.tool_rules),
            (disallowed_tools, self.tool_rules),
        ]
        .into_iter()
        .find(|&((_, asked), takes)| asked && !takes)
        .map(|((name, _), _)| name)
    }
}

/// One agent codiva knows, as `agents/list` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentAvailability {
    /// The stable id sessions name (`SessionInfo::agent`, `session/create`'s `agent`).
    pub id: String,
    /// The agent's name for people.
    pub name: String,
    pub status: AgentStatus,
    /// New sessions run it when they name no agent.
    pub default: bool,
    /// What it can do (known once it is installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<AgentCapabilities>,
    /// The program that runs it, when installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// How to install it (a command line), when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
    /// What the agent's own login check says (`None`: not checked, or it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<LoginState>,
    /// The installed agent's version, as its `--version` says (`None`: not asked, or it has no
    /// such flag codiva knows of).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Model names the agent resolves itself to its latest model of a kind (Claude's `opus`,
    /// `sonnet`, …): what a model picker can offer before a session reports the agent's own
    /// catalog. Never model ids, which go stale.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_aliases: Vec<String>,
}

/// What an agent's own login check (`claude auth status`, `codex login status`) says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LoginState {
    /// Logged in; `method` in the agent's words (`api_key from ANTHROPIC_API_KEY`).
    LoggedIn {
        method: Option<String>,
    },
    NotLoggedIn,
    /// The check gave no answer codiva can read (it failed, or timed out).
    Unknown {
        reason: String,
    },
}

/// An agent's own login command, run by codiva on the machine its agents run on
/// (`agents/login`), as it goes. codiva stores nothing: the agent keeps its credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LoginProgress {
    pub login_id: String,
    /// The agent's id.
    pub agent: String,
    pub phase: LoginPhase,
    /// The address the agent asks the user to open (the first it printed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A one-time code the agent printed for the user to enter on that page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The agent waits for a code the browser shows, to be typed back (`agents/loginInput`).
    #[serde(default)]
    pub accepts_code: bool,
    /// Its last lines of output, escape sequences removed.
    #[serde(default)]
    pub output: Vec<String>,
    /// Why it failed (`phase: failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The ways to log in the agent offers, in its own words (sanitised), when it offers more
    /// than one (an ACP agent's `authMethods`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<LoginMethod>,
    /// The login waits for the user to pick one of `methods`: `agents/loginInput` with its id.
    #[serde(default)]
    pub choose_method: bool,
    /// The chosen way needs these environment variables set where the agents run (an API
    /// key); codiva stores no key, so the login ends here (`phase: failed`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_vars: Vec<String>,
}

/// One way an agent offers to log in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LoginMethod {
    /// The agent's id of it.
    pub id: String,
    /// Its name, in the agent's words.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The environment variables it reads (an API key): set them where the agents run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_vars: Vec<String>,
}

/// Where a login run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoginPhase {
    Running,
    /// The login command ended and the agent's login check says logged in.
    Succeeded,
    Failed,
    Cancelled,
}

/// Whether an agent can run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// Installed: sessions can run it.
    Ready,
    /// Its program was not found.
    NotInstalled,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_extra_asked_that_the_agent_does_not_take_is_named() {
        let asked =
            |mcp, allowed, disallowed| [("mcp", mcp), ("allow", allowed), ("deny", disallowed)];
        let none = AgentCapabilities::default();
        assert_eq!(none.extra_not_taken(asked(false, false, false)), None);
        assert_eq!(none.extra_not_taken(asked(true, true, true)), Some("mcp"));
        assert_eq!(
            none.extra_not_taken(asked(false, false, true)),
            Some("deny")
        );
        let mcp_only = AgentCapabilities {
            mcp_servers: true,
            ..none
        };
        assert_eq!(
            mcp_only.extra_not_taken(asked(true, true, false)),
            Some("allow")
        );
        let rules_only = AgentCapabilities {
            tool_rules: true,
            ..none
        };
        assert_eq!(rules_only.extra_not_taken(asked(false, true, true)), None);
        assert_eq!(
            rules_only.extra_not_taken(asked(true, true, true)),
            Some("mcp")
        );
    }

    #[test]
    fn a_reported_model_finds_its_catalog_entry() {
        let claude = ["default", "opus", "opus[1m]", "sonnet", "haiku"];
        assert_eq!(catalog_entry("sonnet", claude), Some("sonnet"));
        assert_eq!(
            catalog_entry("claude-sonnet-4-5-20250929", claude),
            Some("sonnet")
        );
        assert_eq!(catalog_entry("claude-opus-5-5", claude), Some("opus"));
        assert_eq!(catalog_entry("opus[1m]", claude), Some("opus[1m]"));
        // Nothing or several: not known.
        assert_eq!(catalog_entry("gpt-5.5", claude), None);
        assert_eq!(catalog_entry("claude-opus-haiku", claude), None);
        assert_eq!(catalog_entry("default-model", claude), None);
        let codex = ["gpt-5.5", "gpt-5.4", "gpt-5.4-mini"];
        assert_eq!(catalog_entry("gpt-5.4", codex), Some("gpt-5.4"));
        assert_eq!(catalog_entry("gpt-5.4-preview", codex), None);
        assert_eq!(catalog_entry("", codex), None);
    }
}
