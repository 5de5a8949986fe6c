//! ACP lines → provider-neutral [`AgentEvent`]s (and the replies some need). Message and
//! thought chunks are accumulated into whole messages (ACP marks no message's end: a message
//! ends where something else begins); `tool_call`s are upserts keyed by `toolCallId`;
//! unknown updates and notifications are ignored; unknown requests are refused with -32601 so
//! that the agent does not wait for an answer.

use codiva_protocol::agent::{CommandInfo, NoteLevel, PermissionRequest, QuestionRequest};
use codiva_protocol::log::NoteCode;
use codiva_protocol::tool::PermissionMode;
use serde_json::Value;

use super::connection::{AcpConnection, PendingPermission, Sent};
use super::rpc::{self, Message, RpcError};
use super::tools::{self, Call};
use crate::agent_event::{
    AgentBlock, AgentEvent, PlanText, TurnEnd, TurnOutcome, model_choice, plan_call, todo_status,
};
use crate::json::{items, str_at};
use crate::provider::{OutLine, Received};

/// xAI's question extension (an ACP extension method: `_` + vendor + name).
const ASK_USER_QUESTION: &str = "_x.ai/ask_user_question";
/// Grok's second notification rail (the `update` envelope of `session/update`).
const GROK_NOTIFICATION: &str = "_x.ai/session_notification";

struct Out {
    replies: Vec<OutLine>,
    events: Vec<AgentEvent>,
}

impl AcpConnection {
    pub(super) fn translate(&mut self, message: Message) -> Received {
        let was_running = self.prompt_running;
        let mut out = Out {
            replies: Vec::new(),
            events: Vec::new(),
        };
        match message {
            Message::Response { id, result } => {
                if let Some(sent) = id.as_u64().and_then(|id| self.sent.remove(&id)) {
                    self.response(sent, result, &mut out);
                }
            }
            Message::Request { id, method, params } => {
                self.agent_request(id, &method, params, &mut out)
            }
            Message::Notification { method, params } => match method.as_str() {
                "session/update" => {
                    self.update(params.get("update").unwrap_or(&Value::Null), &mut out);
                }
                GROK_NOTIFICATION => {
                    self.grok_update(params.get("update").unwrap_or(&Value::Null));
                }
                _ => {}
            },
        }
        if was_running && !self.turn_announced {
            self.turn_announced = true;
            out.events.insert(0, self.turn_started());
        }
        Received {
            replies: out.replies,
            events: out.events,
            close_input: false,
        }
    }

    fn turn_started(&self) -> AgentEvent {
        AgentEvent::TurnStarted {
            agent_session_id: self.session_id.clone().unwrap_or_default(),
            model: self.model.clone(),
            permission_mode: self.neutral_mode(),
        }
    }

    fn response(&mut self, sent: Sent, result: Result<Value, RpcError>, out: &mut Out) {
        match (sent, result) {
            (Sent::Initialize, Ok(answer)) => {
                self.info.version = Some(
                    str_at(&answer, "/agentInfo/version")
                        .unwrap_or_default()
                        .to_owned(),
                );
                self.load_session = answer
                    .pointer("/agentCapabilities/loadSession")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                self.images = answer
                    .pointer("/agentCapabilities/promptCapabilities/image")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                self.http_mcp = answer
                    .pointer("/agentCapabilities/mcpCapabilities/http")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let left_out: Vec<&str> = self
                    .launch
                    .extras
                    .mcp_servers
                    .iter()
                    .filter(|(_, server)| {
                        !self.http_mcp
                            && matches!(server, codiva_protocol::mcp::McpServerConfig::Http { .. })
                    })
                    .map(|(name, _)| name.as_str())
                    .collect();
                if !left_out.is_empty() {
                    out.events.push(note(
                        NoteLevel::Warning,
                        format!(
                            "the agent takes no MCP servers over HTTP: {} left out",
                            left_out.join(", ")
                        ),
                    ));
                }
                out.replies = match self.launch.resume.clone() {
                    Some(id) if self.load_session => self.load_session(id),
                    Some(id) => {
                        out.events.push(note(
                            NoteLevel::Warning,
                            format!("the agent cannot load conversation {id}: a new one starts"),
                        ));
                        self.new_session()
                    }
                    None => self.new_session(),
                };
            }
            (Sent::Initialize, Err(error)) => {
                let message = format!("the agent refused to start: {}", error_text(&error));
                self.fail_queued(&error, &message, out);
            }
            (sent @ (Sent::NewSession | Sent::LoadSession(_)), Ok(answer)) => {
                // `session/load` answers without the id: it is the one loaded.
                let loaded = matches!(sent, Sent::LoadSession(_));
                self.session_id = match sent {
                    Sent::LoadSession(id) => Some(id),
                    _ => str_at(&answer, "/sessionId").map(str::to_owned),
                };
                self.session_state(&answer);
                out.events.push(AgentEvent::Connected(self.info.clone()));
                if !self.launch.extras.mcp_servers.is_empty() {
                    out.events.push(AgentEvent::McpServers(self.mcp_states()));
                }
                let barrier = if loaded && self.agent.replay_after_load_answer {
                    self.replay_barrier()
                } else {
                    None
                };
                out.replies = match barrier {
                    Some(lines) => lines,
                    None => self.session_ready(),
                };
            }
            // The replay is over (an error changes nothing: the mode stays as it was).
            (Sent::ReplayBarrier, _) => out.replies = self.session_ready(),
            (Sent::ModeKept(wanted), _) => {
                let kept = self.neutral_mode().unwrap_or(PermissionMode::Other);
                out.events.push(note(
                    NoteLevel::Warning,
                    format!(
                        "{} cannot go back to {wanted} during a session: it stays in {kept} \
                         (its next process starts in {wanted})",
                        self.agent.display_name
                    ),
                ));
                out.events.push(AgentEvent::PermissionModeChanged(kept));
            }
            (Sent::LoadSession(id), Err(error)) => {
                // The conversation is gone: this process goes on with a new one.
                out.events.push(note(
                    NoteLevel::Warning,
                    format!(
                        "cannot load conversation {id} ({}): a new one starts",
                        error_text(&error)
                    ),
                ));
                self.instructions_due = self.agent.system_prompt
                    == super::preset::SystemPromptVia::FirstPrompt
                    && self.launch.append_system_prompt.is_some();
                out.replies = self.new_session();
            }
            (Sent::NewSession, Err(error)) => {
                self.opening_session = false;
                let message = format!("cannot start a session: {}", error_text(&error));
                self.fail_queued(&error, &message, out);
            }
            (Sent::Prompt, result) => self.prompt_ended(result, out),
            (Sent::SetModel(model), Ok(answer)) => {
                self.session_state(&answer);
                self.model = Some(model.clone());
                out.events.push(AgentEvent::ModelChanged(Some(model)));
            }
            (Sent::SetMode(mode), Ok(_)) => {
                self.mode = Some(mode);
                if let Some(mode) = self.neutral_mode() {
                    out.events.push(AgentEvent::PermissionModeChanged(mode));
                }
            }
            (Sent::SetModel(_), Err(error)) => out.events.push(AgentEvent::RequestFailed {
                what: "set_model".to_owned(),
                error: error_text(&error),
            }),
            (Sent::SetMode(_), Err(error)) => out.events.push(AgentEvent::RequestFailed {
                what: "set_mode".to_owned(),
                error: error_text(&error),
            }),
        }
    }

    /// The messages waiting for a session that could not be had: each one's turn fails.
    fn fail_queued(&mut self, error: &RpcError, message: &str, out: &mut Out) {
        for _ in self.queued.drain(..) {
            let outcome = failure(error, None, message.to_owned());
            out.events.push(turn_ended(outcome, None, None, None));
        }
    }

    /// Models, modes and config options of a `session/new`, `session/load` or config answer.
    fn session_state(&mut self, answer: &Value) {
        if let Some(models) = answer.get("models").filter(|m| m.is_object()) {
            self.info.models = items(models, "availableModels")
                .filter_map(|model| model_choice(model, "/modelId", "/name"))
                .collect();
            self.model = str_at(models, "/currentModelId").map(str::to_owned);
        }
        if let Some(modes) = answer.get("modes").filter(|m| m.is_object()) {
            self.mode = str_at(modes, "/currentModeId").map(str::to_owned);
        }
        self.config_options(answer.get("configOptions").unwrap_or(&Value::Null));
        self.info.permission_mode = self.neutral_mode();
    }

    /// `configOptions`: the model and mode selectors (codex-acp's way).
    fn config_options(&mut self, options: &Value) {
        for option in options.as_array().into_iter().flatten() {
            let current = str_at(option, "/currentValue").map(str::to_owned);
            match str_at(option, "/category").or_else(|| str_at(option, "/id")) {
                Some("model") => {
                    self.model_option = str_at(option, "/id").map(str::to_owned);
                    self.info.models = items(option, "options")
                        .filter_map(|choice| model_choice(choice, "/value", "/name"))
                        .collect();
                    self.model = current;
                }
                Some("mode") => self.mode = current,
                _ => {}
            }
        }
    }

    fn prompt_ended(&mut self, result: Result<Value, RpcError>, out: &mut Out) {
        self.prompt_running = false;
        self.flush(out);
        let outcome = match &result {
            Ok(answer) => match str_at(answer, "/stopReason").unwrap_or("end_turn") {
                "end_turn" => TurnOutcome::Completed,
                "cancelled" => TurnOutcome::Interrupted,
                other => {
                    // max_tokens, max_turn_requests, refusal: the turn is over, not failed.
                    out.events.push(AgentEvent::Note {
                        level: NoteLevel::Warning,
                        text: format!("the agent stopped the turn: {other}"),
                        code: Some(NoteCode::new(
                            codiva_protocol::log::NoteName::StopReason,
                            &[other],
                        )),
                    });
                    TurnOutcome::Completed
                }
            },
            Err(error) => {
                let class = self
                    .failure_class
                    .take()
                    .or_else(|| str_at(&error.data, "/error_type").map(str::to_owned));
                failure(error, class.as_deref(), error_text(error))
            }
        };
        self.failure_class = None;
        // Calls the agent will not finish: denied ones, and every one of a cancelled turn.
        let open: Vec<String> = self
            .calls
            .keys()
            .filter(|id| !self.finished_calls.contains(*id))
            .filter(|id| outcome == TurnOutcome::Interrupted || self.denied_calls.contains(*id))
            .cloned()
            .collect();
        for id in open {
            let denied = self.denied_calls.contains(&id);
            self.finished_calls.insert(id.clone());
            out.events.push(AgentEvent::ToolResult {
                parent: None,
                tool_use_id: id,
                text: if denied { "denied" } else { "cancelled" }.to_owned(),
                is_error: true,
                todo: None,
            });
        }
        // Calls the turn ended without an outcome for: the answer to `session/prompt` ends the
        // turn, and codex-acp forgets a turn once it has answered, so a command's end that its
        // Codex reports after that never comes (docs/protocol/acp.md "Turns"). Their outcome
        // is unknown; they stay open, so that an update that does come still gives it.
        let mut unreported: Vec<&String> = self
            .calls
            .keys()
            .filter(|id| !self.finished_calls.contains(*id))
            .collect();
        unreported.sort();
        for id in unreported {
            out.events.push(AgentEvent::ToolUnreported {
                tool_use_id: id.clone(),
            });
        }
        self.permissions.clear();
        self.questions.clear();
        // Finished calls need only their ids (a late update of one is ignored); calls still
        // open keep their fields for updates that arrive after the turn's end.
        let finished = &self.finished_calls;
        self.calls.retain(|id, _| !finished.contains(id));
        self.denied_calls.retain(|id| !finished.contains(id));
        out.events.push(turn_ended(
            outcome,
            self.session_id.clone(),
            self.context_window,
            self.final_text.take(),
        ));
        out.replies.extend(self.next_prompt());
    }

    fn agent_request(&mut self, id: Value, method: &str, params: Value, out: &mut Out) {
        let request_id = rpc::id_text(&id);
        match method {
            "session/request_permission" => {
                self.flush(out);
                let call_update = params.get("toolCall").cloned().unwrap_or(Value::Null);
                let call_id = str_at(&call_update, "/toolCallId").map(str::to_owned);
                if let Some(call_id) = &call_id {
                    self.upsert_call(call_id, &call_update, out);
                }
                let call = call_id
                    .as_ref()
                    .and_then(|id| self.calls.get(id).cloned())
                    .unwrap_or_else(|| {
                        let mut call = Call::default();
                        call.merge(&call_update);
                        call
                    });
                let options =
                    tools::permission_options(params.get("options").unwrap_or(&Value::Null));
                let tool = call.name();
                out.events
                    .push(AgentEvent::PermissionRequest(PermissionRequest {
                        request_id: request_id.clone(),
                        tool,
                        view: call.view(),
                        input: call.input(),
                        description: None,
                        options: options.clone(),
                        suggestions: Vec::new(),
                        tool_use_id: call_id.clone(),
                        agent_id: None,
                        blocked_path: None,
                        reason: None,
                    }));
                self.permissions.insert(
                    request_id,
                    PendingPermission {
                        id,
                        call_id,
                        options,
                    },
                );
            }
            ASK_USER_QUESTION => {
                self.flush(out);
                let questions = crate::agent_event::questions(&params);
                out.events
                    .push(AgentEvent::QuestionRequest(QuestionRequest {
                        request_id: request_id.clone(),
                        questions,
                        tool_use_id: str_at(&params, "/toolCallId").map(str::to_owned),
                        input: params,
                    }));
                self.questions.insert(request_id, id);
            }
            other => {
                out.replies.extend(rpc::respond_error(
                    &id,
                    rpc::METHOD_NOT_FOUND,
                    &format!("codiva does not support {other}"),
                ));
                out.events.push(AgentEvent::Note {
                    level: NoteLevel::Warning,
                    text: format!("refused a request codiva does not support: {other}"),
                    code: Some(NoteCode::new(
                        codiva_protocol::log::NoteName::UnsupportedRequest,
                        &[other],
                    )),
                });
            }
        }
    }

    /// Grok's own updates: only a failed `retry_state` is read (the one shape known,
    /// docs/protocol/acp.md): its `error_type` classes the failure the prompt's error then reports (`auth`,
    /// `rate_limit`, `network`, `api`). Retries under way and the rest are ignored.
    fn grok_update(&mut self, update: &Value) {
        if str_at(update, "/sessionUpdate") == Some("retry_state")
            && str_at(update, "/type") == Some("failed")
        {
            self.failure_class = str_at(update, "/error_type").map(str::to_owned);
        }
    }

    fn update(&mut self, update: &Value, out: &mut Out) {
        let kind = str_at(update, "/sessionUpdate").unwrap_or("");
        if self.opening_session
            && matches!(
                kind,
                "user_message_chunk"
                    | "agent_message_chunk"
                    | "agent_thought_chunk"
                    | "tool_call"
                    | "tool_call_update"
                    | "plan"
            )
        {
            // A loaded conversation's replay: codiva's log has it already.
            return;
        }
        match kind {
            "agent_message_chunk" => {
                let text = str_at(update, "/content/text").unwrap_or_default();
                if text.is_empty() {
                    return;
                }
                self.flush_thought(out);
                self.text.push_str(text);
                out.events.push(AgentEvent::TextDelta {
                    text: text.to_owned(),
                });
            }
            "agent_thought_chunk" => {
                let text = str_at(update, "/content/text").unwrap_or_default();
                if text.is_empty() {
                    return;
                }
                self.flush_text(out);
                self.thought.push_str(text);
                out.events.push(AgentEvent::ThinkingDelta {
                    text: text.to_owned(),
                });
            }
            "tool_call" | "tool_call_update" => {
                let Some(id) = str_at(update, "/toolCallId").map(str::to_owned) else {
                    return;
                };
                self.flush(out);
                self.upsert_call(&id, update, out);
            }
            "plan" => {
                self.flush(out);
                self.plan(update, out);
            }
            "available_commands_update" => {
                self.info.commands = items(update, "availableCommands")
                    .filter_map(|command| {
                        Some(CommandInfo {
                            name: str_at(command, "/name")?.to_owned(),
                            description: str_at(command, "/description").map(str::to_owned),
                            argument_hint: str_at(command, "/input/hint").map(str::to_owned),
                        })
                    })
                    .collect();
                out.events.push(AgentEvent::Connected(self.info.clone()));
            }
            "current_mode_update" => {
                self.mode = str_at(update, "/currentModeId").map(str::to_owned);
                if let Some(mode) = self.neutral_mode() {
                    out.events.push(AgentEvent::PermissionModeChanged(mode));
                }
            }
            "config_option_update" => {
                let (model, mode) = (self.model.clone(), self.mode.clone());
                self.config_options(update.get("configOptions").unwrap_or(&Value::Null));
                if self.model != model {
                    out.events
                        .push(AgentEvent::ModelChanged(self.model.clone()));
                }
                if self.mode != mode
                    && let Some(mode) = self.neutral_mode()
                {
                    out.events.push(AgentEvent::PermissionModeChanged(mode));
                }
            }
            "usage_update" => {
                if let Some(size) = update.get("size").and_then(Value::as_u64) {
                    self.context_window = Some(size);
                }
            }
            // user_message_chunk outside a replay, session_info_update, and kinds newer
            // than this version.
            _ => {}
        }
    }

    /// A `tool_call` or `tool_call_update` (or the call of a permission request): the first
    /// one for an id logs the call, later ones refine it; a final status gives its result.
    fn upsert_call(&mut self, id: &str, update: &Value, out: &mut Out) {
        if self.finished_calls.contains(id) {
            return;
        }
        match self.calls.get_mut(id) {
            Some(call) => {
                call.merge(update);
                let call = call.clone();
                out.events.push(AgentEvent::ToolUpdated {
                    tool_use_id: id.to_owned(),
                    view: call.view(),
                    input: Some(call.input()),
                    summary: Some(call.title()),
                });
            }
            None => {
                let mut call = Call::default();
                call.merge(update);
                out.events.push(AgentEvent::block(
                    id.to_owned(),
                    AgentBlock::ToolUse {
                        id: id.to_owned(),
                        name: call.name(),
                        input: call.input(),
                        summary: call.title(),
                        view: call.view(),
                        subagent: None,
                    },
                ));
                self.calls.insert(id.to_owned(), call);
            }
        }
        let Some(call) = self.calls.get(id) else {
            return;
        };
        let status = call.status().to_owned();
        if matches!(status.as_str(), "completed" | "failed") {
            let text = call.output();
            self.finished_calls.insert(id.to_owned());
            out.events.push(AgentEvent::ToolResult {
                parent: None,
                tool_use_id: id.to_owned(),
                text: if text.is_empty() {
                    status.clone()
                } else {
                    text
                },
                is_error: status == "failed",
                todo: None,
            });
        }
    }

    /// A plan is logged as a call of the plan whose result sets the TODO list.
    fn plan(&mut self, update: &Value, out: &mut Out) {
        self.plan_seq += 1;
        let id = format!("plan-{}", self.plan_seq);
        let steps = items(update, "entries")
            .map(|entry| {
                (
                    str_at(entry, "/content").unwrap_or_default().to_owned(),
                    todo_status(str_at(entry, "/status").unwrap_or_default()),
                )
            })
            .collect();
        self.finished_calls.insert(id.clone());
        out.events.extend(plan_call(
            id,
            "plan",
            update.clone(),
            steps,
            PlanText::Steps,
        ));
    }

    fn flush(&mut self, out: &mut Out) {
        self.flush_thought(out);
        self.flush_text(out);
    }

    fn flush_text(&mut self, out: &mut Out) {
        if self.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.text);
        self.final_text = Some(text.clone());
        self.message_seq += 1;
        out.events.push(AgentEvent::block(
            format!("message-{}", self.message_seq),
            AgentBlock::Text(text),
        ));
    }

    fn flush_thought(&mut self, out: &mut Out) {
        if self.thought.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.thought);
        self.message_seq += 1;
        out.events.push(AgentEvent::block(
            format!("message-{}", self.message_seq),
            AgentBlock::Thinking(text),
        ));
    }
}

fn note(level: NoteLevel, text: String) -> AgentEvent {
    AgentEvent::Note {
        level,
        text,
        code: None,
    }
}

fn turn_ended(
    outcome: TurnOutcome,
    agent_session_id: Option<String>,
    context_window: Option<u64>,
    final_text: Option<String>,
) -> AgentEvent {
    AgentEvent::TurnEnded(TurnEnd {
        outcome,
        agent_session_id,
        process_cost_usd: None,
        context_window,
        denials: Vec::new(),
        final_text,
    })
}

/// An error's message with the agent's detail (`data.message`, `data.details` or `data` as
/// text). A message that is itself an API's JSON error body (Gemini CLI passes the model API's
/// body on) reads as that body's `error.message`.
fn error_text(error: &RpcError) -> String {
    let detail = match &error.data {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        data => str_at(data, "/message")
            .or_else(|| str_at(data, "/details"))
            .map(str::to_owned),
    };
    let message = serde_json::from_str::<Value>(&error.message)
        .ok()
        .and_then(|body| str_at(&body, "/error/message").map(str::to_owned))
        .unwrap_or_else(|| error.message.clone());
    match detail {
        Some(detail) if !message.contains(&detail) => format!("{message}: {detail}"),
        _ => message,
    }
}

/// A failed request's outcome: the agent's own class of the failure where it gives one
/// (Grok's `error_type`: `auth`, `rate_limit`; `api` covers any HTTP status, so it falls
/// through to the words), then ACP's "authentication required", an HTTP 401 as the error
/// code (Gemini CLI answers a failed prompt with the model API's HTTP status as the code) or
/// the agent's words for a rejected key mean log in again; 429 as the code is a rate limit.
/// HTTP statuses some agents answer as JSON-RPC error codes.
const HTTP_UNAUTHORIZED: i64 = 401;
const HTTP_RATE_LIMITED: i64 = 429;

fn failure(error: &RpcError, class: Option<&str>, message: String) -> TurnOutcome {
    match class {
        Some("auth") => return TurnOutcome::NeedsLogin { message },
        Some("rate_limit") => return TurnOutcome::RateLimited { message },
        _ => {}
    }
    let lower = message.to_lowercase();
    let auth_words = [
        "authentication required",
        "invalid api key",
        "401 unauthorized",
        "unauthorized (401)",
    ];
    if error.code == HTTP_RATE_LIMITED {
        return TurnOutcome::RateLimited { message };
    }
    if error.code == rpc::AUTH_REQUIRED
        || error.code == HTTP_UNAUTHORIZED
        || str_at(&error.data, "/codex_error_info") == Some("unauthorized")
        || auth_words.iter().any(|words| lower.contains(words))
    {
        TurnOutcome::NeedsLogin { message }
    } else {
        TurnOutcome::Failed { message }
    }
}
