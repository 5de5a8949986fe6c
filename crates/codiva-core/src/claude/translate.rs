//! Claude Code stream-json lines → provider-neutral [`AgentEvent`]s.

use std::collections::HashMap;

use codiva_protocol::agent::{
    Account, AgentInfo, CommandInfo, ModelChoice, PermissionRequest, QuestionRequest, RetryInfo,
    TokenUsage,
};
use codiva_protocol::mcp::{McpServerState, McpStatus};
use codiva_protocol::session::SubagentStatus;
use codiva_wire::claude::{
    ApiStreamEvent, AssistantLine, CliRequest, ContentBlock, Delta, HostRequest, Inbound,
    InitializeResponse, McpServerLine, McpStatusResponse, ResultLine, System, UserLine,
};
use serde_json::Value;

use crate::agent_event::{
    AgentBlock, AgentEvent, SubagentProgress, SubagentStart, TurnEnd, TurnOutcome,
};

pub use super::tools::ASK_USER_QUESTION;
use super::{tool_view, tools};

/// Line kinds Claude Code sends that codiva has no use for (progress ticks of a running tool,
/// its own summaries, keep-alives, login chatter): dropped without a word.
const HARMLESS_KINDS: &[&str] = &[
    "tool_progress",
    "tool_use_summary",
    "keep_alive",
    "auth_status",
    "streamlined_text",
    "streamlined_tool_use_summary",
    "prompt_suggestion",
];

/// `system` subtypes likewise (hooks' progress, files it persisted).
const HARMLESS_SYSTEM_SUBTYPES: &[&str] = &[
    "hook_started",
    "hook_progress",
    "hook_response",
    "files_persisted",
];

/// Stateful translator for one CLI process.
#[derive(Debug, Default)]
pub struct Translator {
    /// Host requests sent and not answered yet, by request id.
    pending: HashMap<String, HostRequest>,
    /// The last API error seen in the current turn (`error` of a synthetic message).
    last_api_error: Option<(Option<String>, String)>,
    /// Top-level calls of the TODO tools not answered yet: name and input, by tool-use id.
    todo_calls: HashMap<String, (String, Value)>,
}

impl Translator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers a host request so that its answer can be interpreted.
    pub fn sent_request(&mut self, request_id: &str, request: &HostRequest) {
        self.pending.insert(request_id.to_owned(), request.clone());
    }

    /// The host request `request_id` answers, while it is unanswered.
    pub fn pending_request(&self, request_id: &str) -> Option<&HostRequest> {
        self.pending.get(request_id)
    }

    pub fn translate(&mut self, line: Inbound) -> Vec<AgentEvent> {
        match line {
            Inbound::System(system) => self.system(system),
            Inbound::StreamEvent(event) => {
                if event.parent_tool_use_id.is_some() {
                    return Vec::new();
                }
                match event.event {
                    ApiStreamEvent::MessageStart { message } => vec![AgentEvent::MessageStarted {
                        message_id: message.id,
                    }],
                    ApiStreamEvent::ContentBlockDelta { delta, .. } => match delta {
                        Delta::TextDelta { text } => vec![AgentEvent::TextDelta { text }],
                        Delta::ThinkingDelta { thinking } => {
                            vec![AgentEvent::ThinkingDelta { text: thinking }]
                        }
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                }
            }
            Inbound::Assistant(line) => self.assistant(line),
            Inbound::User(line) => self.user(line),
            Inbound::Result(result) => vec![self.result(result)],
            Inbound::ControlRequest(request) => match request.request {
                CliRequest::CanUseTool(ask) => {
                    if ask.tool_name == ASK_USER_QUESTION {
                        vec![AgentEvent::QuestionRequest(QuestionRequest {
                            request_id: request.request_id,
                            questions: crate::agent_event::questions(&ask.input),
                            input: ask.input,
                            tool_use_id: ask.tool_use_id,
                        })]
                    } else {
                        vec![AgentEvent::PermissionRequest(PermissionRequest {
                            request_id: request.request_id,
                            view: tool_view::tool_view(&ask.tool_name, &ask.input),
                            options: tool_view::permission_options(
                                &ask.tool_name,
                                &ask.permission_suggestions,
                            ),
                            tool: ask.tool_name,
                            input: ask.input,
                            description: ask.description,
                            suggestions: ask.permission_suggestions,
                            tool_use_id: ask.tool_use_id,
                            agent_id: ask.agent_id,
                            blocked_path: ask.blocked_path,
                            reason: ask.decision_reason,
                        })]
                    }
                }
                // Answered by the session (codiva registers no hooks / supports no other
                // requests); nothing for the state machine.
                CliRequest::HookCallback { .. } | CliRequest::Unknown { .. } => Vec::new(),
            },
            Inbound::ControlCancelRequest(cancel) => vec![AgentEvent::RequestWithdrawn {
                request_id: cancel.request_id,
            }],
            Inbound::ControlResponse(response) => {
                let body = response.response;
                // Echoes of our own answers (--replay-user-messages) carry ids we never sent
                // a request with: they are ignored here.
                let Some(request) = self.pending.remove(&body.request_id) else {
                    return Vec::new();
                };
                if !body.is_success() {
                    return vec![AgentEvent::RequestFailed {
                        what: request.subtype().to_owned(),
                        error: body.error.unwrap_or_else(|| "unknown error".to_owned()),
                    }];
                }
                let answer = body.response.unwrap_or(Value::Null);
                match request {
                    HostRequest::Initialize => vec![AgentEvent::Connected(agent_info(answer))],
                    HostRequest::SetModel(_) => vec![AgentEvent::ModelChanged(
                        answer
                            .get("model")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    )],
                    HostRequest::SetPermissionMode(mode) => {
                        vec![AgentEvent::PermissionModeChanged(tool_view::mode(
                            answer.get("mode").and_then(Value::as_str).unwrap_or(&mode),
                        ))]
                    }
                    HostRequest::McpStatus => {
                        let status: McpStatusResponse =
                            serde_json::from_value(answer).unwrap_or_default();
                        vec![AgentEvent::McpServers(mcp_states(status.mcp_servers))]
                    }
                    HostRequest::Interrupt | HostRequest::McpReconnect(_) => Vec::new(),
                }
            }
            Inbound::RateLimit(event) => vec![AgentEvent::PlanUsage(super::plan_usage::reading(
                &event.rate_limit_info,
            ))],
            // Kinds codiva has no use for are not news; a kind nobody knows is a diagnostic
            // for `CODIVA_LOG`, never a line in the user's log (the wire log keeps the line).
            Inbound::Unknown { kind } => {
                if !HARMLESS_KINDS.contains(&kind.as_str()) {
                    tracing::info!(kind, "ignored an unknown line kind from Claude Code");
                }
                Vec::new()
            }
        }
    }

    fn system(&mut self, system: System) -> Vec<AgentEvent> {
        match system {
            System::Init(init) => {
                self.last_api_error = None;
                let mut events = vec![AgentEvent::TurnStarted {
                    agent_session_id: init.session_id,
                    model: init.model,
                    permission_mode: init.permission_mode.as_deref().map(tool_view::mode),
                }];
                if !init.mcp_servers.is_empty() {
                    events.push(AgentEvent::McpServers(mcp_states(init.mcp_servers)));
                }
                events
            }
            System::Status(status) => {
                let mut events = Vec::new();
                if status.status.as_deref() == Some("requesting") {
                    events.push(AgentEvent::Requesting);
                }
                if let Some(mode) = status.permission_mode {
                    events.push(AgentEvent::PermissionModeChanged(tool_view::mode(&mode)));
                }
                events
            }
            System::ApiRetry(retry) => vec![AgentEvent::Retrying(RetryInfo {
                attempt: retry.attempt,
                max: retry.max_retries,
                delay_ms: retry.retry_delay_ms,
                status: retry.error_status,
                error: retry.error,
            })],
            System::ThinkingTokens(_) => Vec::new(),
            System::TaskStarted(task) => vec![AgentEvent::SubagentStarted(SubagentStart {
                task_id: task.task_id,
                tool_use_id: task.tool_use_id,
                description: task.description,
                subagent_type: task.subagent_type,
                background: task.is_backgrounded,
            })],
            System::TaskProgress(progress) => {
                let usage = progress.usage.unwrap_or_default();
                vec![AgentEvent::SubagentProgress(SubagentProgress {
                    task_id: progress.task_id,
                    last_tool: progress.last_tool_name,
                    tokens: usage.total_tokens,
                    tool_uses: usage.tool_uses,
                    elapsed_ms: usage.duration_ms,
                })]
            }
            System::TaskUpdated(update) => match update.patch.status.as_deref() {
                // `paused` is still alive; only terminal statuses settle a task.
                Some(status @ ("completed" | "failed" | "killed" | "stopped" | "cancelled")) => {
                    vec![AgentEvent::SubagentSettled {
                        task_id: update.task_id,
                        status: SubagentStatus::settled(status),
                        summary: None,
                    }]
                }
                _ => Vec::new(),
            },
            System::TaskNotification(note) => vec![AgentEvent::SubagentSettled {
                task_id: note.task_id,
                status: note
                    .status
                    .as_deref()
                    .map_or(SubagentStatus::Completed, SubagentStatus::settled),
                summary: note.summary,
            }],
            System::BackgroundTasksChanged(changed) => vec![AgentEvent::BackgroundTasks {
                task_ids: changed.tasks.into_iter().map(|task| task.task_id).collect(),
            }],
            System::CompactBoundary(compact) => {
                let meta = compact.compact_metadata.unwrap_or_default();
                vec![AgentEvent::Compacted {
                    trigger: meta.trigger,
                    pre_tokens: meta.pre_tokens,
                }]
            }
            System::Unknown { subtype } => {
                if !HARMLESS_SYSTEM_SUBTYPES.contains(&subtype.as_str()) {
                    tracing::info!(subtype, "ignored an unknown system line from Claude Code");
                }
                Vec::new()
            }
        }
    }

    fn assistant(&mut self, line: AssistantLine) -> Vec<AgentEvent> {
        if line.is_synthetic() {
            let message = codiva_wire::claude::blocks_text(&line.message.content);
            self.last_api_error = Some((line.error.clone(), message.clone()));
            return vec![AgentEvent::ApiError {
                parent: line.parent_tool_use_id,
                message,
                status: line.api_error_status,
                kind: line.error,
            }];
        }
        let usage = line.message.usage.map(|usage| TokenUsage {
            input: usage.input_tokens,
            output: usage.output_tokens,
            cache_read: usage.cache_read_input_tokens,
            cache_creation: usage.cache_creation_input_tokens,
        });
        let message_id = line.message.id;
        let model = line.message.model;
        line.message
            .content
            .into_iter()
            .filter_map(|block| {
                let block = match block {
                    ContentBlock::Text { text } => AgentBlock::Text(text),
                    ContentBlock::Thinking { thinking, .. } => AgentBlock::Thinking(thinking),
                    ContentBlock::ToolUse { id, name, input } => {
                        let top_level = line.parent_tool_use_id.is_none();
                        if top_level && tools::keeps_todos(&name) {
                            self.todo_calls
                                .insert(id.clone(), (name.clone(), input.clone()));
                        }
                        AgentBlock::ToolUse {
                            summary: tools::tool_summary(&name, &input),
                            view: tool_view::tool_view(&name, &input),
                            subagent: top_level
                                .then(|| tools::subagent_call(&name, &input))
                                .flatten(),
                            id,
                            name,
                            input,
                        }
                    }
                    _ => return None,
                };
                Some(AgentEvent::Block {
                    message_id: message_id.clone(),
                    parent: line.parent_tool_use_id.clone(),
                    block,
                    usage,
                    model: model.clone(),
                })
            })
            .collect()
    }

    fn result(&mut self, result: ResultLine) -> AgentEvent {
        let last_error = self.last_api_error.take();
        if result.terminal_reason.is_none()
            && let Some(message) = result
                .errors
                .iter()
                .find(|error| error.starts_with("No conversation found"))
        {
            return AgentEvent::ResumeFailed {
                message: message.clone(),
            };
        }
        let text = || {
            result
                .result
                .clone()
                .or_else(|| last_error.as_ref().map(|(_, message)| message.clone()))
                .filter(|text| !text.is_empty())
                .or_else(|| result.errors.first().cloned())
                .unwrap_or_else(|| format!("the agent reported an error ({})", result.subtype))
        };
        let outcome = match result.terminal_reason.as_deref() {
            Some("aborted_streaming" | "aborted_tools") => TurnOutcome::Interrupted,
            _ if !result.is_error => TurnOutcome::Completed,
            _ => {
                let kind = last_error.as_ref().and_then(|(kind, _)| kind.as_deref());
                match (result.api_error_status, kind) {
                    (Some(401 | 403), _) | (_, Some("authentication_failed")) => {
                        TurnOutcome::NeedsLogin { message: text() }
                    }
                    (Some(429), _) | (_, Some("rate_limit")) => {
                        TurnOutcome::RateLimited { message: text() }
                    }
                    _ => TurnOutcome::Failed { message: text() },
                }
            }
        };
        let context_window = result
            .model_usage
            .values()
            .filter_map(|usage| usage.context_window)
            .max();
        let final_text = match outcome {
            TurnOutcome::Completed => result.result.clone(),
            _ => None,
        };
        AgentEvent::TurnEnded(TurnEnd {
            outcome,
            agent_session_id: result.session_id.filter(|id| !id.is_empty()),
            process_cost_usd: result.total_cost_usd,
            context_window,
            denials: result
                .permission_denials
                .into_iter()
                .map(|denial| denial.tool_name)
                .collect(),
            final_text,
        })
    }

    fn user(&mut self, line: UserLine) -> Vec<AgentEvent> {
        if line.is_replay {
            // Echo of our own message, or of a local command (`<local-command-stdout>` after
            // set_model): a delivery acknowledgement, nothing new to show.
            return vec![AgentEvent::UserEcho { text: line.text() }];
        }
        if line.is_interrupt_marker() {
            return vec![AgentEvent::InterruptMarker];
        }
        if line.is_synthetic {
            return vec![AgentEvent::SyntheticContinuation];
        }
        let results: Vec<AgentEvent> = line
            .tool_results()
            .filter_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } => Some(AgentEvent::ToolResult {
                    parent: line.parent_tool_use_id.clone(),
                    tool_use_id: tool_use_id.clone(),
                    text: tools::result_text(content.to_text(), line.tool_use_result.as_ref()),
                    is_error: *is_error,
                    todo: self
                        .todo_calls
                        .remove(tool_use_id)
                        .and_then(|(name, input)| {
                            tools::todo_change(&name, &input, line.tool_use_result.as_ref())
                        }),
                }),
                _ => None,
            })
            .collect();
        if !results.is_empty() {
            return results;
        }
        let text = line.text();
        match line.parent_tool_use_id {
            Some(parent) => vec![AgentEvent::SubagentPrompt { parent, text }],
            None => Vec::new(),
        }
    }
}

fn agent_info(answer: Value) -> AgentInfo {
    let init: InitializeResponse = serde_json::from_value(answer).unwrap_or_default();
    AgentInfo {
        version: init.claude_code_version,
        models: init
            .models
            .into_iter()
            .map(|model| ModelChoice {
                id: model.value,
                display_name: model.display_name,
                description: model.description,
            })
            .collect(),
        commands: init
            .commands
            .into_iter()
            .map(|command| CommandInfo {
                name: command.name,
                description: command.description,
                argument_hint: command.argument_hint,
            })
            .collect(),
        account: init.account.map(|account| Account {
            api_key_source: account.api_key_source,
            token_source: account.token_source,
            api_provider: account.api_provider,
            email: account.email,
            subscription: account.subscription_type,
        }),
        permission_mode: init.current_permission_mode.as_deref().map(tool_view::mode),
    }
}

/// The CLI's MCP server statuses in the neutral form (`needs-auth` → `needs_auth`; a status
/// this codiva does not know stays `unknown`, never guessed).
fn mcp_states(servers: Vec<McpServerLine>) -> Vec<McpServerState> {
    servers
        .into_iter()
        .map(|server| McpServerState {
            status: match server.status.as_str() {
                "pending" => McpStatus::Pending,
                "connected" => McpStatus::Connected,
                "failed" => McpStatus::Failed,
                "needs-auth" => McpStatus::NeedsAuth,
                "disabled" => McpStatus::Disabled,
                _ => McpStatus::Unknown,
            },
            name: server.name,
            error: server.error,
        })
        .collect()
}
