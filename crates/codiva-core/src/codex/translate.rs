//! `codex app-server` lines → provider-neutral [`AgentEvent`]s (and the replies some need).
//! Unknown notifications are ignored (codex sends many informational ones); unknown server
//! requests are refused with a JSON-RPC error so that codex does not wait for an answer.

use codiva_protocol::agent::{AgentInfo, NoteLevel, PermissionRequest, RetryInfo, TokenUsage};
use codiva_protocol::log::NoteCode;
use serde_json::{Value, json};

use super::connection::{Approval, CodexConnection, Sent, received};
use super::items;
use super::rpc::{self, Message, RpcError};
use crate::agent_event::{
    AgentBlock, AgentEvent, PlanText, TurnEnd, TurnOutcome, model_choice, plan_call, todo_status,
};
use crate::json::{items, str_at};
use crate::provider::{OutLine, Received};

impl CodexConnection {
    pub(super) fn translate(&mut self, message: Message) -> Received {
        match message {
            Message::Response { id, result } => {
                let sent = id.as_u64().and_then(|id| self.sent.remove(&id));
                match sent {
                    Some(sent) => self.response(sent, result),
                    None => received(Vec::new(), Vec::new(), false),
                }
            }
            Message::Request { id, method, params } => self.server_request(id, &method, params),
            Message::Notification { method, params } => {
                let mut replies = Vec::new();
                let events = self.notification(&method, &params, &mut replies);
                received(replies, events, false)
            }
        }
    }

    fn response(&mut self, sent: Sent, result: Result<Value, RpcError>) -> Received {
        let mut events = Vec::new();
        let mut replies = Vec::new();
        let mut close_input = false;
        match (sent, result) {
            (Sent::Initialize, Ok(answer)) => {
                // `userAgent` is `<client>/<codex version> (…)`.
                self.version = str_at(&answer, "/userAgent")
                    .and_then(|agent| agent.split_whitespace().next())
                    .and_then(|first| first.split_once('/'))
                    .map(|(_, version)| version.to_owned());
                replies = self.after_initialize();
            }
            (Sent::ModelList, answer) => {
                let models = answer
                    .ok()
                    .and_then(|answer| answer.get("data").and_then(Value::as_array).cloned())
                    .unwrap_or_default()
                    .iter()
                    .filter(|model| model.get("hidden").and_then(Value::as_bool) != Some(true))
                    .filter_map(|model| model_choice(model, "/id", "/displayName"))
                    .collect();
                events.push(AgentEvent::Connected(AgentInfo {
                    version: self.version.clone(),
                    models,
                    commands: Vec::new(),
                    account: None,
                    permission_mode: Some(super::connection::mode_of(&self.approval_policy)),
                }));
            }
            (Sent::ThreadStart | Sent::ThreadResume, Ok(answer)) => {
                if self.model.is_none() {
                    self.model = str_at(&answer, "/model").map(str::to_owned);
                }
                if let Some(thread_id) = str_at(&answer, "/thread/id") {
                    replies = self.thread_ready(thread_id.to_owned());
                }
                if !self.mcp_servers.is_empty() {
                    // Given to the thread; codex reports each one's start-up next.
                    events.push(AgentEvent::McpServers(self.mcp_servers.clone()));
                }
            }
            (Sent::ThreadResume, Err(error)) => {
                // This process has no thread: it ends, and a new one starts afresh.
                events.push(AgentEvent::ResumeFailed {
                    message: error.message,
                });
                close_input = true;
            }
            (Sent::ThreadStart, Err(error)) => {
                self.queued.clear();
                events.push(AgentEvent::TurnEnded(TurnEnd::failed(format!(
                    "cannot start a thread: {}",
                    error.message
                ))));
            }
            (Sent::TurnStart, Ok(answer)) => {
                if let Some(turn_id) = str_at(&answer, "/turn/id")
                    && self.turn_starting
                {
                    replies = self.turn_known(turn_id);
                }
            }
            (Sent::TurnStart, Err(error)) => {
                self.turn_starting = false;
                events.push(AgentEvent::TurnEnded(TurnEnd::failed(error.message)));
            }
            (Sent::TurnSteer(input), Err(_)) => {
                // The turn ended before the message reached it: it starts one of its own.
                self.turn_id = None;
                replies = crate::provider::Connection::send(self, &input);
            }
            (Sent::Initialize, Err(error)) => events.push(AgentEvent::RequestFailed {
                what: "initialize".to_owned(),
                error: error.message,
            }),
            (Sent::McpReload, Err(error)) => events.push(AgentEvent::RequestFailed {
                what: "mcp_reconnect".to_owned(),
                error: error.message,
            }),
            (Sent::TurnSteer(_) | Sent::Interrupt | Sent::McpReload, _) => {}
        }
        received(replies, events, close_input)
    }

    fn server_request(&mut self, id: Value, method: &str, params: Value) -> Received {
        let request_id = match &id {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let item_id = str_at(&params, "/itemId").map(str::to_owned);
        let decisions = params
            .get("availableDecisions")
            .and_then(Value::as_array)
            .cloned();
        let (tool, item, rule) = match method {
            "item/commandExecution/requestApproval" => {
                let rule = str_at(&params, "/commandActions/0/command")
                    .or_else(|| str_at(&params, "/command"))
                    .map(str::to_owned);
                let mut item = json!({"type": "commandExecution"});
                item["command"] = params.get("command").cloned().unwrap_or(Value::Null);
                item["cwd"] = params.get("cwd").cloned().unwrap_or(Value::Null);
                ("shell", item, rule)
            }
            "item/fileChange/requestApproval" => {
                let item = item_id
                    .as_ref()
                    .and_then(|id| self.items.get(id).cloned())
                    .unwrap_or_else(|| json!({"type": "fileChange"}));
                ("apply_patch", item, None)
            }
            other => {
                let text = format!("refused a request codiva does not support: {other}");
                let replies = rpc::respond_error(
                    &id,
                    rpc::METHOD_NOT_FOUND,
                    &format!("codiva does not support {other}"),
                );
                let note = AgentEvent::Note {
                    level: NoteLevel::Warning,
                    text,
                    code: Some(NoteCode::new(
                        codiva_protocol::log::NoteName::UnsupportedRequest,
                        &[other],
                    )),
                };
                return received(replies, vec![note], false);
            }
        };
        let reason = str_at(&params, "/reason").map(str::to_owned);
        let request = PermissionRequest {
            request_id: request_id.clone(),
            tool: tool.to_owned(),
            view: items::tool_view(&item),
            input: params.clone(),
            description: reason.clone(),
            options: items::permission_options(decisions.as_ref(), rule.as_deref()),
            suggestions: Vec::new(),
            tool_use_id: item_id,
            agent_id: None,
            blocked_path: None,
            reason,
        };
        self.approvals
            .insert(request_id, Approval { id, decisions });
        received(
            Vec::new(),
            vec![AgentEvent::PermissionRequest(request)],
            false,
        )
    }

    fn notification(
        &mut self,
        method: &str,
        params: &Value,
        replies: &mut Vec<OutLine>,
    ) -> Vec<AgentEvent> {
        match method {
            "turn/started" => {
                self.final_text = None;
                self.last_error = None;
                if let Some(turn_id) = str_at(params, "/turn/id") {
                    replies.extend(self.turn_known(turn_id));
                }
                vec![AgentEvent::TurnStarted {
                    agent_session_id: str_at(params, "/threadId")
                        .map(str::to_owned)
                        .or_else(|| self.thread_id.clone())
                        .unwrap_or_default(),
                    model: self.model.clone(),
                    permission_mode: Some(super::connection::mode_of(&self.approval_policy)),
                }]
            }
            "turn/completed" => vec![self.turn_completed(params)],
            "mcpServer/startupStatus/updated" => {
                let thread = str_at(params, "/threadId");
                match super::mcp::startup_status(params) {
                    // Another thread's server (one thread per process: none expected).
                    Some(_)
                        if thread.is_some()
                            && self.thread_id.is_some()
                            && thread != self.thread_id.as_deref() =>
                    {
                        Vec::new()
                    }
                    Some(state) => {
                        super::mcp::apply(&mut self.mcp_servers, state);
                        vec![AgentEvent::McpServers(self.mcp_servers.clone())]
                    }
                    None => Vec::new(),
                }
            }
            "item/started" => self.item_started(params.get("item").unwrap_or(&Value::Null)),
            "item/completed" => self.item_completed(params.get("item").unwrap_or(&Value::Null)),
            "item/agentMessage/delta" => delta(params, |text| AgentEvent::TextDelta { text }),
            "item/reasoning/summaryTextDelta" | "item/reasoning/textDelta" => {
                delta(params, |text| AgentEvent::ThinkingDelta { text })
            }
            "item/commandExecution/outputDelta" => {
                let tool_use_id = str_at(params, "/itemId").unwrap_or_default().to_owned();
                delta(params, |text| AgentEvent::ToolOutput {
                    tool_use_id: tool_use_id.clone(),
                    text,
                })
            }
            "turn/plan/updated" => self.plan(params),
            "thread/tokenUsage/updated" => self.usage(params),
            "error" => self.error(params),
            "serverRequest/resolved" => {
                let request_id = params.get("requestId").map(|id| match id {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                });
                match request_id.filter(|id| self.approvals.remove(id).is_some()) {
                    Some(request_id) => vec![AgentEvent::RequestWithdrawn { request_id }],
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    fn item_started(&mut self, item: &Value) -> Vec<AgentEvent> {
        let id = str_at(item, "/id").unwrap_or_default().to_owned();
        match str_at(item, "/type").unwrap_or("") {
            "userMessage" => {
                let text = items(item, "content")
                    .filter_map(|part| str_at(part, "/text"))
                    .collect::<Vec<_>>()
                    .join("\n");
                vec![AgentEvent::UserEcho { text }]
            }
            "agentMessage" => vec![AgentEvent::MessageStarted { message_id: id }],
            kind if items::is_tool_item(kind) => {
                self.items.insert(id.clone(), item.clone());
                vec![AgentEvent::block(id, items::tool_block(item))]
            }
            _ => Vec::new(),
        }
    }

    fn item_completed(&mut self, item: &Value) -> Vec<AgentEvent> {
        let id = str_at(item, "/id").unwrap_or_default().to_owned();
        match str_at(item, "/type").unwrap_or("") {
            "agentMessage" => {
                let text = str_at(item, "/text").unwrap_or_default().to_owned();
                if text.is_empty() {
                    return Vec::new();
                }
                self.final_text = Some(text.clone());
                vec![AgentEvent::block(id, AgentBlock::Text(text))]
            }
            "reasoning" => {
                let parts = |key: &str| {
                    items(item, key)
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n\n")
                };
                let mut text = parts("summary");
                if text.is_empty() {
                    text = parts("content");
                }
                if text.is_empty() {
                    return Vec::new();
                }
                vec![AgentEvent::block(id, AgentBlock::Thinking(text))]
            }
            kind if items::is_tool_item(kind) => {
                let mut events = Vec::new();
                if self.items.remove(&id).is_none() {
                    events.push(AgentEvent::block(id.clone(), items::tool_block(item)));
                }
                let (text, is_error) = items::tool_result(item);
                events.push(AgentEvent::ToolResult {
                    parent: None,
                    tool_use_id: id,
                    text,
                    is_error,
                    todo: None,
                });
                events
            }
            _ => Vec::new(),
        }
    }

    /// A plan update is logged as a call of the plan tool whose result sets the TODO list.
    fn plan(&mut self, params: &Value) -> Vec<AgentEvent> {
        self.plan_seq += 1;
        let id = format!(
            "plan-{}-{}",
            str_at(params, "/turnId").unwrap_or_default(),
            self.plan_seq
        );
        let steps = items(params, "plan")
            .map(|step| {
                (
                    str_at(step, "/step").unwrap_or_default().to_owned(),
                    todo_status(str_at(step, "/status").unwrap_or_default()),
                )
            })
            .collect();
        let explanation = str_at(params, "/explanation").map(str::to_owned);
        plan_call(
            id,
            "update_plan",
            params.clone(),
            steps,
            PlanText::Explanation(explanation),
        )
        .into()
    }

    fn usage(&mut self, params: &Value) -> Vec<AgentEvent> {
        self.context_window = params
            .pointer("/tokenUsage/modelContextWindow")
            .and_then(Value::as_u64)
            .or(self.context_window);
        // Only a response of the running turn counts: a resumed thread reports its last
        // turn's usage again before any turn runs.
        let Some(last) = params.pointer("/tokenUsage/last") else {
            return Vec::new();
        };
        if self.turn_id.is_none() || str_at(params, "/turnId") != self.turn_id.as_deref() {
            return Vec::new();
        }
        let number = |key: &str| last.get(key).and_then(Value::as_u64).unwrap_or(0);
        let cached = number("cachedInputTokens");
        let written = number("cacheWriteInputTokens");
        self.usage_seq += 1;
        vec![AgentEvent::Usage {
            response_id: format!(
                "{}:{}",
                str_at(params, "/turnId").unwrap_or_default(),
                self.usage_seq
            ),
            usage: TokenUsage {
                input: number("inputTokens").saturating_sub(cached + written),
                output: number("outputTokens"),
                cache_read: cached,
                cache_creation: written,
            },
            context_window: self.context_window,
        }]
    }

    fn error(&mut self, params: &Value) -> Vec<AgentEvent> {
        let error = params.get("error").cloned().unwrap_or(Value::Null);
        if params.get("willRetry").and_then(Value::as_bool) != Some(true) {
            self.last_error = Some(error);
            return Vec::new();
        }
        // "Reconnecting... 2/5" (or "Reconnecting... waiting for network").
        let message = str_at(&error, "/message").unwrap_or_default();
        let (attempt, max) = attempts(message.rsplit(' ').next().unwrap_or_default());
        let detail = str_at(&error, "/additionalDetails").unwrap_or(message);
        vec![AgentEvent::Retrying(RetryInfo {
            attempt,
            max,
            delay_ms: 0,
            status: http_status(&error),
            error: Some(detail.to_owned()),
        })]
    }

    fn turn_completed(&mut self, params: &Value) -> AgentEvent {
        self.turn_id = None;
        self.turn_starting = false;
        self.interrupt_pending = false;
        self.approvals.clear();
        self.items.clear();
        let turn = params.get("turn").unwrap_or(&Value::Null);
        let outcome = match str_at(turn, "/status").unwrap_or("") {
            "completed" => TurnOutcome::Completed,
            "interrupted" => TurnOutcome::Interrupted,
            _ => {
                let error = turn
                    .get("error")
                    .filter(|error| !error.is_null())
                    .cloned()
                    .or_else(|| self.last_error.take())
                    .unwrap_or(Value::Null);
                failure(&error)
            }
        };
        AgentEvent::TurnEnded(TurnEnd {
            outcome,
            agent_session_id: str_at(params, "/threadId")
                .map(str::to_owned)
                .or_else(|| self.thread_id.clone()),
            process_cost_usd: None,
            context_window: self.context_window,
            denials: Vec::new(),
            final_text: self.final_text.take(),
        })
    }
}

fn delta(params: &Value, event: impl Fn(String) -> AgentEvent) -> Vec<AgentEvent> {
    match str_at(params, "/delta") {
        Some(text) if !text.is_empty() => vec![event(text.to_owned())],
        _ => Vec::new(),
    }
}

/// The HTTP status somewhere in a `codexErrorInfo` (`{"httpConnectionFailed":
/// {"httpStatusCode":401}}`, `{"responseStreamDisconnected":{…}}`, …).
fn http_status(error: &Value) -> Option<u16> {
    let info = error.get("codexErrorInfo")?.as_object()?;
    info.values()
        .find_map(|detail| detail.get("httpStatusCode").and_then(Value::as_u64))
        .and_then(|status| u16::try_from(status).ok())
}

/// How a failed turn's error is classified: not logged in, rate limited, or failed.
fn failure(error: &Value) -> TurnOutcome {
    let message = str_at(error, "/message")
        .unwrap_or("the turn failed")
        .to_owned();
    let kind = str_at(error, "/codexErrorInfo").unwrap_or_default();
    match (http_status(error), kind) {
        (Some(401), _) | (_, "unauthorized") => TurnOutcome::NeedsLogin { message },
        (Some(429), _) | (_, "usageLimitExceeded") => TurnOutcome::RateLimited { message },
        _ => TurnOutcome::Failed { message },
    }
}

/// The paths no captured run takes (codex cannot be made to produce them on demand): lines
/// built in the measured shapes.
/// The attempt and the most attempts of a retry as Codex counts them in its "Reconnecting…"
/// messages (`2/5`); `(0, 0)` when the text is not a count.
pub(super) fn attempts(count: &str) -> (u32, u32) {
    count
        .split_once('/')
        .and_then(|(n, m)| Some((n.parse().ok()?, m.parse().ok()?)))
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::agent_event::AgentEvent;
    use crate::codex::CodexConnection;
    use crate::provider::{Connection, Launch, OutLine};
    use codiva_protocol::UserInput;

    fn parse(line: &OutLine) -> Value {
        serde_json::from_str(line.as_str()).unwrap()
    }

    /// A connection whose thread `t1` exists (handshake answered).
    fn ready(launch: Launch) -> CodexConnection {
        let mut connection = CodexConnection::new(launch);
        connection.opening();
        let init = json!({"id": 1, "result": {"userAgent": "codiva/0.171.0 (x)"}});
        connection.receive(init.to_string().as_bytes()).unwrap();
        let thread = json!({"id": 3, "result": {"thread": {"id": "t1"}, "model": "gpt-5.5"}});
        connection.receive(thread.to_string().as_bytes()).unwrap();
        connection
    }

    #[test]
    fn an_unknown_server_request_is_refused_and_an_unknown_notification_ignored() {
        let mut connection = ready(Launch::default());
        let request = json!({"method": "item/tool/somethingNew", "id": 7, "params": {}});
        let received = connection.receive(request.to_string().as_bytes()).unwrap();
        assert_eq!(received.replies.len(), 1);
        let reply = parse(&received.replies[0]);
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["error"]["code"], -32601);
        assert!(matches!(&received.events[..], [AgentEvent::Note { .. }]));
        let note = json!({"method": "thread/somethingNew", "params": {"x": 1}, "extra": true});
        let received = connection.receive(note.to_string().as_bytes()).unwrap();
        assert!(received.replies.is_empty() && received.events.is_empty());
        assert!(connection.receive(b"{\"result\":1").is_err());
    }

    #[test]
    fn a_failed_resume_ends_the_process() {
        let mut connection = CodexConnection::new(Launch {
            resume: Some("gone".to_owned()),
            ..Launch::default()
        });
        connection.opening();
        let init = json!({"id": 1, "result": {"userAgent": "codiva/0.171.0 (x)"}});
        let received = connection.receive(init.to_string().as_bytes()).unwrap();
        let methods: Vec<Value> = received
            .replies
            .iter()
            .map(|line| parse(line)["method"].clone())
            .collect();
        assert_eq!(
            methods,
            [
                json!("initialized"),
                json!("model/list"),
                json!("thread/resume")
            ]
        );
        assert!(connection.send(&UserInput::text("hi")).is_empty(), "queued");
        let error = json!({"id": 3, "error": {"code": -32600, "message": "no rollout found for thread id gone"}});
        let received = connection.receive(error.to_string().as_bytes()).unwrap();
        assert!(received.close_input);
        assert!(matches!(
            &received.events[..],
            [AgentEvent::ResumeFailed { message }] if message.contains("no rollout found")
        ));
    }

    #[test]
    fn an_interrupt_before_the_turn_is_known_goes_out_with_it() {
        let mut connection = ready(Launch::default());
        let start = connection.send(&UserInput::text("go"));
        assert_eq!(parse(&start[0])["method"], "turn/start");
        assert!(connection.interrupt().is_empty(), "no turn id yet");
        let answer = json!({"id": 4, "result": {"turn": {"id": "u1", "status": "inProgress"}}});
        let received = connection.receive(answer.to_string().as_bytes()).unwrap();
        let interrupt = parse(&received.replies[0]);
        assert_eq!(interrupt["method"], "turn/interrupt");
        assert_eq!(
            interrupt["params"],
            json!({"threadId": "t1", "turnId": "u1"})
        );
    }

    #[test]
    fn a_steer_that_missed_its_turn_starts_a_turn_of_its_own() {
        let mut connection = ready(Launch::default());
        connection.send(&UserInput::text("first"));
        let started =
            json!({"method": "turn/started", "params": {"threadId": "t1", "turn": {"id": "u1"}}});
        connection.receive(started.to_string().as_bytes()).unwrap();
        let steer = connection.send(&UserInput::text("second"));
        let steer = parse(&steer[0]);
        assert_eq!(steer["method"], "turn/steer");
        assert_eq!(steer["params"]["expectedTurnId"], "u1");
        let refused =
            json!({"id": steer["id"], "error": {"code": -32600, "message": "no active turn"}});
        let received = connection.receive(refused.to_string().as_bytes()).unwrap();
        let start = parse(&received.replies[0]);
        assert_eq!(start["method"], "turn/start");
        assert_eq!(start["params"]["input"][0]["text"], "second");
    }

    #[test]
    fn model_and_mode_changes_ride_on_the_next_turn() {
        let mut connection = ready(Launch::default());
        assert!(connection.set_model(Some("gpt-6-sol")).is_empty());
        assert!(
            connection
                .set_permission_mode(codiva_protocol::tool::PermissionMode::Auto)
                .is_empty()
        );
        let start = parse(&connection.send(&UserInput::text("go"))[0]);
        assert_eq!(start["params"]["model"], "gpt-6-sol");
        assert_eq!(start["params"]["approvalPolicy"], "on-request");
        let answer = json!({"id": 4, "result": {"turn": {"id": "u1"}}});
        connection.receive(answer.to_string().as_bytes()).unwrap();
        let done = json!({"method": "turn/completed", "params": {"threadId": "t1", "turn": {"id": "u1", "status": "completed"}}});
        connection.receive(done.to_string().as_bytes()).unwrap();
        let next = parse(&connection.send(&UserInput::text("again"))[0]);
        assert!(
            next["params"].get("model").is_none(),
            "overrides are sent once"
        );
    }

    #[test]
    fn retry_counts_are_read_from_codexs_words() {
        assert_eq!(super::attempts("2/5"), (2, 5));
        assert_eq!(super::attempts("network"), (0, 0));
        assert_eq!(super::attempts("x/5"), (0, 0));
    }
}
