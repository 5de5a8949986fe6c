//! Lines the CLI writes on stdout.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::content::{ContentBlock, ModelUsage, TextOrBlocks, Usage};

/// One parsed stdout line.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    System(System),
    StreamEvent(StreamEvent),
    Assistant(AssistantLine),
    User(UserLine),
    Result(ResultLine),
    ControlRequest(ControlRequest),
    ControlCancelRequest(ControlCancelRequest),
    ControlResponse(ControlResponse),
    /// `rate_limit_event`: the plan usage of a subscription (OAuth) login, written when a
    /// response's `anthropic-ratelimit-unified-*` headers change the reading (never with an
    /// API key).
    RateLimit(RateLimitEvent),
    /// A `type` this version of codiva does not know (e.g. `tool_use_summary`). Logged and
    /// skipped by the reader.
    Unknown {
        kind: String,
    },
}

/// Why a line could not be parsed. The reader logs it with the offending line and goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    subtype: Option<std::borrow::Cow<'a, str>>,
}

fn typed<'a, T: Deserialize<'a>>(line: &'a [u8], what: &str) -> Result<T, ParseError> {
    serde_json::from_slice(line).map_err(|err| ParseError {
        message: format!("invalid {what} line: {err}"),
    })
}

/// Parses one stdout line (without its newline).
///
/// The line is read twice: a cheap first pass finds `type`/`subtype` (key order is not stable,
/// so no prefix matching), the second deserialises the one type that applies.
pub fn parse_line(line: &[u8]) -> Result<Inbound, ParseError> {
    // Most lines of a reply: read in one pass (the first pass would scan the whole line too).
    if let Some(event) = content_block_delta(line) {
        return Ok(Inbound::StreamEvent(event));
    }
    let probe: Probe = serde_json::from_slice(line).map_err(|err| ParseError {
        message: format!("not a protocol line: {err}"),
    })?;
    Ok(match probe.kind.as_ref() {
        "system" => Inbound::System(parse_system(line, probe.subtype.as_deref())?),
        "stream_event" => Inbound::StreamEvent(typed(line, "stream_event")?),
        "assistant" => Inbound::Assistant(typed(line, "assistant")?),
        "user" => Inbound::User(typed(line, "user")?),
        "result" => Inbound::Result(typed(line, "result")?),
        "control_request" => Inbound::ControlRequest(parse_control_request(line)?),
        "control_cancel_request" => {
            Inbound::ControlCancelRequest(typed(line, "control_cancel_request")?)
        }
        "control_response" => Inbound::ControlResponse(typed(line, "control_response")?),
        "rate_limit_event" => Inbound::RateLimit(typed(line, "rate_limit_event")?),
        other => Inbound::Unknown {
            kind: other.to_owned(),
        },
    })
}

fn parse_system(line: &[u8], subtype: Option<&str>) -> Result<System, ParseError> {
    Ok(match subtype.unwrap_or("") {
        "init" => System::Init(typed(line, "system/init")?),
        "status" => System::Status(typed(line, "system/status")?),
        "api_retry" => System::ApiRetry(typed(line, "system/api_retry")?),
        "thinking_tokens" => System::ThinkingTokens(typed(line, "system/thinking_tokens")?),
        "task_started" => System::TaskStarted(typed(line, "system/task_started")?),
        "task_progress" => System::TaskProgress(typed(line, "system/task_progress")?),
        "task_updated" => System::TaskUpdated(typed(line, "system/task_updated")?),
        "task_notification" => System::TaskNotification(typed(line, "system/task_notification")?),
        "background_tasks_changed" => {
            System::BackgroundTasksChanged(typed(line, "system/background_tasks_changed")?)
        }
        "compact_boundary" => System::CompactBoundary(typed(line, "system/compact_boundary")?),
        other => System::Unknown {
            subtype: other.to_owned(),
        },
    })
}

// ---------------------------------------------------------------------------------------------
// system/*

/// `{"type":"system","subtype":…}` lines.
#[derive(Debug, Clone, PartialEq)]
pub enum System {
    Init(SystemInit),
    Status(SystemStatus),
    ApiRetry(ApiRetry),
    ThinkingTokens(ThinkingTokens),
    TaskStarted(TaskStarted),
    TaskProgress(TaskProgress),
    TaskUpdated(TaskUpdated),
    TaskNotification(TaskNotification),
    BackgroundTasksChanged(BackgroundTasksChanged),
    CompactBoundary(CompactBoundary),
    Unknown { subtype: String },
}

/// `system/init`: emitted before every turn (same `session_id` each time).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SystemInit {
    pub session_id: String,
    pub cwd: Option<String>,
    pub model: Option<String>,
    #[serde(rename = "permissionMode")]
    pub permission_mode: Option<String>,
    pub tools: Vec<String>,
    pub slash_commands: Vec<String>,
    pub agents: Vec<String>,
    pub claude_code_version: Option<String>,
    #[serde(rename = "apiKeySource")]
    pub api_key_source: Option<String>,
    /// Each MCP server the CLI was given, with its status.
    pub mcp_servers: Vec<McpServerLine>,
}

/// One MCP server in `system/init` (`{"name","status","source"}`) or in the answer to
/// `mcp_status` (`{"mcpServers":[{"name","status","error",…}]}`). `status`: `pending`,
/// `connected`, `failed`, `needs-auth` or `disabled`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct McpServerLine {
    pub name: String,
    pub status: String,
    pub error: Option<String>,
}

/// The answer to an `mcp_status` request.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct McpStatusResponse {
    pub mcp_servers: Vec<McpServerLine>,
}

/// `system/status`: `{"status":"requesting"}` before each model request, or a permission-mode
/// change (`{"status":null,"permissionMode":"acceptEdits"}`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SystemStatus {
    pub status: Option<String>,
    #[serde(rename = "permissionMode")]
    pub permission_mode: Option<String>,
}

/// `system/api_retry`: the CLI is about to retry a failed model request.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ApiRetry {
    pub attempt: u32,
    pub max_retries: u32,
    pub retry_delay_ms: u64,
    /// HTTP status, `null` for a cut connection.
    pub error_status: Option<u16>,
    /// e.g. `overloaded`, `rate_limit`, `authentication_failed`, `server_error`, `unknown`.
    pub error: Option<String>,
}

/// `system/thinking_tokens`: progress while the model thinks.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ThinkingTokens {
    pub estimated_tokens: u64,
    pub estimated_tokens_delta: u64,
}

/// `system/task_started`: the Agent tool started a subagent.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TaskStarted {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub is_backgrounded: bool,
    pub task_type: Option<String>,
}

/// Usage figures of a running or finished subagent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct TaskUsage {
    pub total_tokens: u64,
    pub tool_uses: u64,
    pub duration_ms: u64,
}

/// `system/task_progress`: a subagent used a tool.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TaskProgress {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub description: Option<String>,
    pub usage: Option<TaskUsage>,
    pub last_tool_name: Option<String>,
}

/// `system/task_updated`: a patch to a task's state (`patch.status`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TaskUpdated {
    pub task_id: String,
    pub patch: TaskPatch,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TaskPatch {
    /// `pending | running | completed | failed | killed | paused`.
    pub status: Option<String>,
}

/// `system/task_notification`: a subagent finished (`completed | failed | stopped`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TaskNotification {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub status: Option<String>,
    pub summary: Option<String>,
    pub output_file: Option<String>,
    pub usage: Option<TaskUsage>,
}

/// `system/background_tasks_changed`: the whole set of live background tasks (replace).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct BackgroundTasksChanged {
    pub tasks: Vec<BackgroundTask>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct BackgroundTask {
    pub task_id: String,
    pub task_type: Option<String>,
    pub subagent_type: Option<String>,
    pub description: Option<String>,
}

/// `system/compact_boundary`: the conversation was compacted.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct CompactBoundary {
    pub compact_metadata: Option<CompactMetadata>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct CompactMetadata {
    pub trigger: Option<String>,
    pub pre_tokens: Option<u64>,
}

// ---------------------------------------------------------------------------------------------
// stream_event

/// `stream_event`: one raw Anthropic SSE event of the top-level agent (subagents have none).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StreamEvent {
    pub event: ApiStreamEvent,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
}

/// The Anthropic Messages API streaming events codiva reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApiStreamEvent {
    MessageStart {
        message: StreamMessageStart,
    },
    ContentBlockStart {
        #[serde(default)]
        index: u32,
        content_block: ContentBlock,
    },
    ContentBlockDelta {
        #[serde(default)]
        index: u32,
        delta: Delta,
    },
    ContentBlockStop {
        #[serde(default)]
        index: u32,
    },
    MessageDelta {
        #[serde(default)]
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<Usage>,
    },
    MessageStop {},
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct StreamMessageStart {
    pub id: String,
    pub model: Option<String>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct MessageDeltaBody {
    pub stop_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Delta {
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    SignatureDelta {},
    #[serde(other)]
    Unknown,
}

/// The line of a streamed reply (most of them: one per few tokens), read in one pass and
/// without serde's buffering of internally tagged enums (which copies the whole event into an
/// intermediate tree first). `None` for any other line or event, or one this cannot read: then
/// the line takes the general path, which reports what is wrong with it.
fn content_block_delta(line: &[u8]) -> Option<StreamEvent> {
    /// Where a delta line's event type is looked for.
    const DELTA_PREFIX: usize = 1024;
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        event: Event<'a>,
        #[serde(default)]
        parent_tool_use_id: Option<String>,
    }
    #[derive(Deserialize)]
    struct Event<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(default)]
        index: u32,
        #[serde(borrow)]
        delta: Body<'a>,
    }
    #[derive(Deserialize)]
    struct Body<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        thinking: Option<String>,
        #[serde(default)]
        partial_json: Option<String>,
    }
    // Other lines skip the attempt: reading one to its end and failing costs as much as the
    // parse that follows. A delta says what it is within its first bytes (its text is a few
    // tokens; one with a longer text takes the general path), so long lines (tool results,
    // completed messages) are not scanned to their end for it.
    // Built once: building a finder per line cost more than the search.
    static DELTA: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"content_block_delta\""));
    DELTA.find(&line[..line.len().min(DELTA_PREFIX)])?;
    let line: Line = serde_json::from_slice(line).ok()?;
    if line.kind != "stream_event" || line.event.kind != "content_block_delta" {
        return None;
    }
    let body = line.event.delta;
    let delta = match body.kind.as_ref() {
        "text_delta" => Delta::TextDelta { text: body.text? },
        "thinking_delta" => Delta::ThinkingDelta {
            thinking: body.thinking?,
        },
        "input_json_delta" => Delta::InputJsonDelta {
            partial_json: body.partial_json?,
        },
        "signature_delta" => Delta::SignatureDelta {},
        _ => Delta::Unknown,
    };
    Some(StreamEvent {
        event: ApiStreamEvent::ContentBlockDelta {
            index: line.event.index,
            delta,
        },
        parent_tool_use_id: line.parent_tool_use_id,
    })
}

// ---------------------------------------------------------------------------------------------
// assistant / user

/// `assistant`: one completed content block of a model message (same `message.id` across the
/// blocks of one message).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AssistantLine {
    pub message: AssistantMessage,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// Set on the CLI's synthetic API-error messages, e.g. `authentication_failed`.
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub is_api_error_message: bool,
    #[serde(default)]
    pub api_error_status: Option<u16>,
    #[serde(default)]
    pub api_error_type: Option<String>,
    #[serde(default)]
    pub agent_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct AssistantMessage {
    pub id: String,
    pub model: Option<String>,
    pub content: Vec<ContentBlock>,
    pub usage: Option<Usage>,
}

impl AssistantLine {
    /// The CLI's own error message (`model: "<synthetic>"`), not model output.
    pub fn is_synthetic(&self) -> bool {
        self.message.model.as_deref() == Some("<synthetic>") || self.is_api_error_message
    }
}

/// `user`: an echo of a host message, tool results, interrupt markers, synthetic
/// continuations, subagent prompts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UserLine {
    pub message: UserMessage,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default, rename = "isReplay")]
    pub is_replay: bool,
    #[serde(default, rename = "isSynthetic")]
    pub is_synthetic: bool,
    #[serde(default)]
    pub tool_use_result: Option<Value>,
    #[serde(default)]
    pub agent_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UserMessage {
    #[serde(default)]
    pub content: UserContent,
}

/// The `content` of a user message.
pub type UserContent = TextOrBlocks<ContentBlock>;

/// The marker the CLI writes when a turn is interrupted.
pub const INTERRUPT_MARKERS: [&str; 2] = [
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
];

/// The text blocks among `blocks`, joined by newlines.
pub fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl UserLine {
    /// Text blocks (or the plain string) of the message, joined by newlines.
    pub fn text(&self) -> String {
        match &self.message.content {
            UserContent::Text(text) => text.clone(),
            UserContent::Blocks(blocks) => blocks_text(blocks),
        }
    }

    /// `true` for the CLI's `[Request interrupted by user…]` marker.
    pub fn is_interrupt_marker(&self) -> bool {
        !self.is_replay && INTERRUPT_MARKERS.contains(&self.text().as_str())
    }

    /// The `tool_result` blocks of the message.
    pub fn tool_results(&self) -> impl Iterator<Item = &ContentBlock> {
        let blocks: &[ContentBlock] = match &self.message.content {
            UserContent::Blocks(blocks) => blocks,
            UserContent::Text(_) => &[],
        };
        blocks
            .iter()
            .filter(|block| matches!(block, ContentBlock::ToolResult { .. }))
    }
}

// ---------------------------------------------------------------------------------------------
// result

/// `result`: the end of a turn (exactly one per turn).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ResultLine {
    /// `success` or `error_during_execution` (also `error_max_turns`, …).
    pub subtype: String,
    pub is_error: bool,
    /// `completed | aborted_streaming | aborted_tools | api_error` (absent for some errors).
    pub terminal_reason: Option<String>,
    pub result: Option<String>,
    pub session_id: Option<String>,
    pub total_cost_usd: Option<f64>,
    pub usage: Option<Usage>,
    #[serde(rename = "modelUsage")]
    pub model_usage: HashMap<String, ModelUsage>,
    pub permission_denials: Vec<PermissionDenial>,
    pub errors: Vec<String>,
    pub api_error_status: Option<u16>,
    pub stop_reason: Option<String>,
    pub num_turns: Option<u32>,
    pub duration_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_use_id: Option<String>,
    pub tool_input: Value,
}

// ---------------------------------------------------------------------------------------------
// control messages

/// `control_request` from the CLI: it asks the host something.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlRequest {
    pub request_id: String,
    pub request: CliRequest,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CliRequest {
    CanUseTool(CanUseTool),
    HookCallback {
        callback_id: String,
        input: Value,
    },
    /// A request codiva does not support; it must be answered with an error.
    Unknown {
        subtype: String,
    },
}

#[derive(Deserialize)]
struct RawControlRequest {
    request_id: String,
    request: Value,
}

fn parse_control_request(line: &[u8]) -> Result<ControlRequest, ParseError> {
    let raw: RawControlRequest = typed(line, "control_request")?;
    let subtype = raw
        .request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let request = match subtype.as_str() {
        "can_use_tool" => {
            CliRequest::CanUseTool(serde_json::from_value(raw.request).map_err(|err| {
                ParseError {
                    message: format!("invalid can_use_tool request: {err}"),
                }
            })?)
        }
        "hook_callback" => CliRequest::HookCallback {
            callback_id: raw
                .request
                .get("callback_id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            input: raw.request.get("input").cloned().unwrap_or(Value::Null),
        },
        _ => CliRequest::Unknown { subtype },
    };
    Ok(ControlRequest {
        request_id: raw.request_id,
        request,
    })
}

/// `can_use_tool`: may the agent run this tool? (Also how AskUserQuestion and ExitPlanMode
/// reach the host.)
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct CanUseTool {
    pub tool_name: String,
    pub display_name: Option<String>,
    pub input: Value,
    pub description: Option<String>,
    /// Echoed back unchanged as `updatedPermissions` for an "always allow".
    #[serde(deserialize_with = "super::content::null_as_default")]
    pub permission_suggestions: Vec<Value>,
    pub tool_use_id: Option<String>,
    pub agent_id: Option<String>,
    pub blocked_path: Option<String>,
    pub decision_reason: Option<String>,
    pub decision_reason_type: Option<String>,
    pub requires_user_interaction: bool,
}

/// `control_cancel_request`: the CLI withdraws a request it sent (e.g. after an interrupt).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ControlCancelRequest {
    pub request_id: String,
}

/// `control_response`: the CLI's answer to a host request, or (with
/// `--replay-user-messages`) an echo of the host's own answers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ControlResponse {
    pub response: ControlResponseBody,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ControlResponseBody {
    /// `success` or `error`.
    pub subtype: String,
    pub request_id: String,
    pub response: Option<Value>,
    pub error: Option<String>,
    pub error_code: Option<String>,
}

impl ControlResponseBody {
    pub fn is_success(&self) -> bool {
        self.subtype == "success"
    }
}

/// The CLI's answer to `initialize`: what it can do and who is logged in.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct InitializeResponse {
    pub commands: Vec<SlashCommand>,
    pub agents: Vec<AgentInfo>,
    pub models: Vec<ModelInfo>,
    pub account: Option<AccountInfo>,
    pub pid: Option<u32>,
    pub claude_code_version: Option<String>,
    pub current_permission_mode: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SlashCommand {
    pub name: String,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct AgentInfo {
    pub name: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelInfo {
    pub value: String,
    pub resolved_model: Option<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AccountInfo {
    pub token_source: Option<String>,
    pub api_key_source: Option<String>,
    pub api_provider: Option<String>,
    pub email: Option<String>,
    pub subscription_type: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// rate_limit_event

/// `{"type":"rate_limit_event","rate_limit_info":{…}}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct RateLimitEvent {
    pub rate_limit_info: RateLimitInfo,
}

/// The reading: the representative window (`rateLimitType`) with its status and reset, and
/// each window (`unifiedWindows`, omitted when none resets within a year).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RateLimitInfo {
    /// `allowed`, `allowed_warning` or `rejected`.
    pub status: Option<String>,
    /// Unix seconds.
    pub resets_at: Option<u64>,
    /// `five_hour`, `seven_day`, …
    pub rate_limit_type: Option<String>,
    /// 0–1, with a warning.
    pub utilization: Option<f64>,
    pub surpassed_threshold: Option<f64>,
    pub unified_windows: std::collections::BTreeMap<String, RateLimitWindow>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RateLimitWindow {
    /// 0–1.
    pub utilization: Option<f64>,
    pub resets_at: Option<u64>,
    pub status: Option<String>,
    pub surpassed_threshold: Option<f64>,
}
