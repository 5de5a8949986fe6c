//! One agent session as clients see it: its status, the prompts that wait for the user, its
//! events and a snapshot of its whole state. The reducer that produces them is the core's
//! (`session_state.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::agent::{AgentInfo, PermissionRequest, QuestionRequest, TokenUsage};
use crate::log::{LogEntry, NoteCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Starting,
    Running,
    AwaitingPermission,
    AwaitingAnswer,
    Completed,
    Interrupted,
    RateLimited,
    NeedsLogin,
    Failed,
    /// A new turn waits for one of the manager's agent slots (`max_running_agents`); it
    /// starts, in order, when one frees. Neither working nor settled.
    Queued,
}

impl Status {
    /// The session waits for the user.
    pub fn awaits_user(self) -> bool {
        matches!(self, Status::AwaitingPermission | Status::AwaitingAnswer)
    }

    /// Nothing is happening until the user acts.
    pub fn is_settled(self) -> bool {
        matches!(
            self,
            Status::Completed
                | Status::Interrupted
                | Status::RateLimited
                | Status::NeedsLogin
                | Status::Failed
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Starting => "starting",
            Status::Running => "running",
            Status::AwaitingPermission => "awaiting_permission",
            Status::AwaitingAnswer => "awaiting_answer",
            Status::Completed => "completed",
            Status::Interrupted => "interrupted",
            Status::RateLimited => "rate_limited",
            Status::NeedsLogin => "needs_login",
            Status::Failed => "failed",
            Status::Queued => "queued",
        }
    }
}

/// Which log an entry belongs to: the session's own, or a subagent's (by its tool-use id).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "scope", content = "tool_use_id", rename_all = "snake_case")]
pub enum Scope {
    Main,
    Subagent(String),
}

/// A request waiting for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one prompt at a time per session: size does not matter
pub enum Prompt {
    Permission(PermissionRequest),
    Question(QuestionRequest),
}

impl Prompt {
    pub fn request_id(&self) -> &str {
        match self {
            Prompt::Permission(request) => &request.request_id,
            Prompt::Question(request) => &request.request_id,
        }
    }

    /// The tool call the prompt is about, when the agent names it.
    pub fn tool_use_id(&self) -> Option<&str> {
        match self {
            Prompt::Permission(request) => request.tool_use_id.as_deref(),
            Prompt::Question(request) => request.tool_use_id.as_deref(),
        }
    }
}

/// How a prompt left the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PromptResolution {
    Allowed,
    Denied,
    Answered,
    Declined,
    /// The agent withdrew it (interrupt) or the process went away.
    Withdrawn,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoProgress {
    pub done: usize,
    pub total: usize,
}

/// Where one item of the agent's TODO list stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One item of the agent's TODO list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoItem {
    pub id: String,
    /// What the item says (untrusted model text).
    pub content: String,
    pub status: TodoStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageView {
    pub tokens: TokenUsage,
    pub context_used: u64,
    pub context_window: Option<u64>,
    pub cost_usd: Option<f64>,
}

/// Where a subagent is. Agents word it their own way; this is what codiva makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubagentStatus {
    /// Its call was seen; the agent has not said it started.
    Starting,
    Running,
    Completed,
    Failed,
    /// Killed, stopped or cancelled before it finished.
    Stopped,
    /// A word of a later version: it has settled, nothing more is known.
    #[serde(other)]
    Unknown,
}

impl SubagentStatus {
    /// Its name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            SubagentStatus::Starting => "starting",
            SubagentStatus::Running => "running",
            SubagentStatus::Completed => "completed",
            SubagentStatus::Failed => "failed",
            SubagentStatus::Stopped => "stopped",
            SubagentStatus::Unknown => "unknown",
        }
    }

    /// What an agent's word for a settled task means (Claude Code's `completed`, `failed`,
    /// `killed`, `stopped`, `cancelled`).
    pub fn settled(word: &str) -> Self {
        match word {
            "completed" => SubagentStatus::Completed,
            "failed" => SubagentStatus::Failed,
            "killed" | "stopped" | "cancelled" => SubagentStatus::Stopped,
            _ => SubagentStatus::Unknown,
        }
    }
}

impl std::fmt::Display for SubagentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubagentView {
    pub tool_use_id: String,
    pub task_id: Option<String>,
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub background: bool,
    pub status: SubagentStatus,
    pub last_tool: Option<String>,
    pub tokens: u64,
    pub tool_uses: u64,
    pub elapsed_ms: u64,
    pub summary: Option<String>,
}

/// What front ends receive from one session. Serialised as JSON for `codiva exec --json`; the
/// params of `codiva serve`'s `session/…` notifications (without `event`, with `session_id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionEvent {
    Status {
        status: Status,
        detail: Option<String>,
        /// What `detail` says, by name and values, for front ends that word it otherwise:
        /// `retrying` [attempt, max, delay_ms, HTTP status or "", error or ""],
        /// `stalled` [minutes], `waiting_for_agents` [count], `collecting_results` [],
        /// `step` [done, total].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail_code: Option<NoteCode>,
    },
    Connected {
        agent: AgentInfo,
    },
    /// The agent's own session id (what `--resume` takes); `None` when the session's
    /// conversation is gone (a failed resume, a switch to an agent with none to resume).
    AgentSession {
        id: Option<String>,
    },
    Model {
        model: Option<String>,
    },
    PermissionMode {
        mode: crate::tool::PermissionMode,
    },
    /// A new or changed log entry.
    Log {
        #[serde(flatten)]
        scope: Scope,
        entry: LogEntry,
        update: bool,
        /// How many of the scope's oldest entries were dropped, in all, to keep its log within
        /// the daemon's budget: a client drops as many from its copy (absent while none).
        #[serde(default, skip_serializing_if = "is_zero")]
        dropped: u64,
    },
    /// Streamed text of the message being written (`reset` drops what came before).
    Stream {
        text: String,
        reset: bool,
    },
    PromptOpened {
        prompt: Prompt,
    },
    PromptClosed {
        request_id: String,
        resolution: PromptResolution,
    },
    Todos {
        progress: TodoProgress,
        /// The whole list as it stands now.
        #[serde(default)]
        items: Vec<TodoItem>,
    },
    Usage {
        usage: UsageView,
    },
    Subagent {
        subagent: SubagentView,
    },
    /// The session goes on with another agent (`from`, `to`: their names for people): what
    /// the previous one said of itself (its handshake, its model, its permission mode) no
    /// longer holds, and the next process connects anew. Its conversation, if it resumes one,
    /// comes as `agent_session`, and the permission mode it goes on in, if any, as
    /// `permission_mode`.
    AgentSwitched {
        from: String,
        to: String,
    },
    /// The agent process ended (`requested` when codiva asked it to).
    AgentExited {
        code: Option<i32>,
        signal: Option<i32>,
        requested: bool,
    },
    /// The session's MCP servers and their status, as the agent reported them (all of them,
    /// each time one changes).
    McpServers {
        servers: Vec<crate::mcp::McpServerState>,
    },
    /// Something the user should know that is not part of the conversation (the wire log
    /// cannot be written); the manager passes it on as a warning.
    Warning {
        message: String,
    },
    /// The agent's login's plan usage changed (subscription logins of agents that report it).
    PlanUsage {
        usage: crate::plan_usage::PlanUsage,
    },
}

/// A copy of a session's state for front ends (`session/snapshot`, a TUI attaching late).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionSnapshot {
    pub status: Status,
    pub detail: Option<String>,
    /// See [`SessionEvent::Status`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_code: Option<NoteCode>,
    pub connected: bool,
    pub agent_session_id: Option<String>,
    pub model: Option<String>,
    /// The entry of the agent's model catalog that `model` is (`sonnet` for the reported
    /// `claude-sonnet-4-5-…`; `crate::agent::catalog_entry`): what a model picker marks as
    /// current. `None` when the agent reported no catalog or no single entry matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_entry: Option<String>,
    pub permission_mode: Option<crate::tool::PermissionMode>,
    pub prompts: Vec<Prompt>,
    pub todos: TodoProgress,
    /// The TODO list's items.
    #[serde(default)]
    pub todo_items: Vec<TodoItem>,
    pub usage: UsageView,
    pub subagents: Vec<SubagentView>,
    pub log: Vec<LogEntry>,
    pub dropped_entries: u64,
    pub streaming: String,
    /// What the agent said about itself when it connected (its commands, models and account;
    /// the `agent` of [`SessionEvent::Connected`]): a client that attaches later knows it too.
    /// `None` before the agent's handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentInfo>,
    /// The `seq` of the manager's stream this snapshot stands at: it holds every event of the
    /// session with a `seq` up to this one and none after, so a client applies exactly the
    /// session's events with a greater `seq` over it. Absent where the snapshot is not taken
    /// in the manager's stream (the fold itself; a session codiva runs on its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
