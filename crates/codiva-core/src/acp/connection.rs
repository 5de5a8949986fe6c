//! An ACP agent as a [`Provider`], and one agent process as a [`Connection`]: the handshake
//! (`initialize`, then `session/new` with the worktree as cwd, or `session/load` to resume),
//! messages as `session/prompt` (one at a time: a message sent while a prompt runs waits for
//! its end), `session/cancel` to interrupt, answers to the agent's requests, model and mode
//! changes. The agent's lines are turned into events in `translate`.

use std::collections::{HashMap, HashSet, VecDeque};

use codiva_protocol::UserInput;
use codiva_protocol::agent::{
    AgentCapabilities, AgentInfo, LoginState, PermissionRequest, QuestionRequest, QuestionResponse,
};
use codiva_protocol::tool::{PermissionMode, PermissionOption, PermissionOptionKind};
use serde_json::{Map, Value, json};

use super::preset::{AcpAgent, LoginVia, SystemPromptVia};
use super::rpc;
use super::tools::{self, Call};
use crate::provider::{
    CommandLine, Connection, InvalidInput, Launch, OutLine, Provider, Received, RecordsError,
};

/// An ACP agent, started as its [`AcpAgent`] says.
#[derive(Debug, Clone)]
pub struct AcpProvider {
    agent: AcpAgent,
}

impl AcpProvider {
    pub fn new(agent: AcpAgent) -> Self {
        AcpProvider { agent }
    }

    pub fn agent(&self) -> &AcpAgent {
        &self.agent
    }
}

impl Provider for AcpProvider {
    fn id(&self) -> &'static str {
        self.agent.name
    }

    fn display_name(&self) -> &'static str {
        self.agent.display_name
    }

    fn capabilities(&self) -> AgentCapabilities {
        AgentCapabilities {
            permissions: true,
            interrupt: true,
            set_model: true,
            set_mode: !self.agent.modes.is_empty(),
            resume: true,
            model_catalog: true,
            // `usage_update` is the context's size, not tokens per response; not all send it.
            usage: false,
            cost: false,
            transcript_restore: false,
            titles: false,
            mcp_servers: true,
            mcp_status: false,
            mcp_reconnect: false,
            tool_rules: false,
        }
    }

    fn command(&self, _launch: &Launch) -> CommandLine {
        CommandLine {
            program: self.agent.program.clone(),
            args: self.agent.process_args().iter().map(Into::into).collect(),
            env: self.agent.env.clone(),
        }
    }

    fn connect(&self, launch: &Launch) -> Box<dyn Connection> {
        Box::new(AcpConnection::new(self.agent.clone(), launch.clone()))
    }

    fn check_permission_mode(&self, field: &str, mode: PermissionMode) -> Result<(), InvalidInput> {
        if self.agent.mode_id(mode).is_some() || self.agent.start_mode() == Some(mode) {
            return Ok(());
        }
        let names: Vec<&str> = (self.agent.start_mode().iter())
            .chain(self.agent.modes.iter().map(|(m, _)| m))
            .map(|m| m.name())
            .collect();
        Err(InvalidInput::new(
            field,
            if names.is_empty() {
                format!(
                    "{} has no permission modes, got {}",
                    self.agent.display_name, mode
                )
            } else {
                format!(
                    "{} takes {}, got {}",
                    self.agent.display_name,
                    names.join(", "),
                    mode
                )
            },
        ))
    }

    fn login_state(&self, env: &crate::process::EnvPolicy) -> Option<LoginState> {
        self.agent.credentials.state(env)
    }

    fn version_flag(&self) -> Option<&'static str> {
        self.agent.version_flag
    }

    fn login(&self) -> Option<crate::login::LoginCommand> {
        let args = match &self.agent.login {
            LoginVia::Authenticate => self.agent.args.clone(),
            LoginVia::Command(args) => args.clone(),
        };
        Some(crate::login::LoginCommand {
            command: CommandLine {
                program: self.agent.program.clone(),
                args: args.iter().map(Into::into).collect(),
                env: self.agent.env.clone(),
            },
            accepts_code: false,
        })
    }

    fn login_dialogue(
        &self,
        env: &crate::process::EnvPolicy,
    ) -> Option<Box<dyn crate::login::LoginDialogue>> {
        (self.agent.login == LoginVia::Authenticate).then(|| {
            Box::new(super::auth::AcpLogin::new(
                self.agent.auth_env.clone(),
                env.clone(),
            )) as Box<dyn crate::login::LoginDialogue>
        })
    }

    fn check_image(&self, field: &str, media_type: &str, _data: &str) -> Result<(), InvalidInput> {
        crate::provider::check_image_type(field, self.agent.display_name, media_type)
    }

    fn listed_conversations(
        &self,
        dirs: &[std::path::PathBuf],
        env: &crate::process::EnvPolicy,
        limit: std::time::Duration,
    ) -> Option<Result<Vec<codiva_protocol::outside::OutsideConversation>, RecordsError>> {
        super::outside::list(&self.agent, dirs, env, limit)
            .map_err(RecordsError::new)
            .transpose()
    }

    fn read_outside(
        &self,
        cwd: &std::path::Path,
        id: &str,
        _window: u64,
        env: &crate::process::EnvPolicy,
    ) -> Option<Result<crate::outside::OutsideLog, RecordsError>> {
        // The agent replays the whole conversation; the log keeps its newest entries within
        // the session log's budget, and what the agent writes is bounded (`acp/outside.rs`).
        Some(
            super::outside::read(&self.agent, cwd, id, env, super::outside::READ_LIMIT)
                .map_err(RecordsError::new),
        )
    }
}

/// What a request of ours was, to read its answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Sent {
    Initialize,
    NewSession,
    LoadSession(String),
    Prompt,
    SetModel(String),
    SetMode(String),
    /// The request whose answer ends a replay that trails the load's answer
    /// ([`AcpAgent::replay_after_load_answer`]).
    ReplayBarrier,
    /// The current mode set again instead of the launch mode asked for, which the agent cannot
    /// switch back to ([`AcpAgent::launch_mode`]): its answer says so.
    ModeKept(PermissionMode),
}

/// A permission request the user has not answered yet.
#[derive(Debug, Clone)]
pub(super) struct PendingPermission {
    pub id: Value,
    pub call_id: Option<String>,
    pub options: Vec<PermissionOption>,
}

/// One ACP agent process.
#[derive(Debug)]
pub struct AcpConnection {
    pub(super) agent: AcpAgent,
    pub(super) launch: Launch,
    next_id: u64,
    pub(super) sent: HashMap<u64, Sent>,
    pub(super) info: AgentInfo,
    pub(super) load_session: bool,
    pub(super) images: bool,
    /// The agent takes MCP servers over HTTP (`mcpCapabilities.http`).
    pub(super) http_mcp: bool,
    pub(super) session_id: Option<String>,
    /// A `session/new` or `session/load` is out: the replay of a loaded conversation is not
    /// logged again.
    pub(super) opening_session: bool,
    /// The standing instructions still have to open a prompt ([`SystemPromptVia::FirstPrompt`]).
    pub(super) instructions_due: bool,
    /// Messages waiting for the session or for the running prompt's end.
    pub(super) queued: VecDeque<UserInput>,
    pub(super) prompt_running: bool,
    /// The running prompt's turn was announced (`TurnStarted`).
    pub(super) turn_announced: bool,
    pub(super) model: Option<String>,
    /// The id of the agent's model config option (`configOptions`), when it has one.
    pub(super) model_option: Option<String>,
    pub(super) mode: Option<String>,
    /// Set before the session existed, applied once it does.
    pub(super) wanted_model: Option<String>,
    pub(super) wanted_mode: Option<String>,
    pub(super) permissions: HashMap<String, PendingPermission>,
    pub(super) questions: HashMap<String, Value>,
    pub(super) calls: HashMap<String, Call>,
    pub(super) finished_calls: HashSet<String>,
    pub(super) denied_calls: HashSet<String>,
    pub(super) text: String,
    pub(super) thought: String,
    pub(super) message_seq: u64,
    pub(super) plan_seq: u64,
    pub(super) context_window: Option<u64>,
    pub(super) final_text: Option<String>,
    /// The agent's class of the running prompt's failure, reported before its error.
    pub(super) failure_class: Option<String>,
}

impl AcpConnection {
    pub fn new(agent: AcpAgent, launch: Launch) -> Self {
        let wanted_mode = launch
            .permission_mode
            .and_then(|mode| agent.mode_id(mode))
            .map(str::to_owned);
        AcpConnection {
            instructions_due: agent.system_prompt == SystemPromptVia::FirstPrompt
                && launch.resume.is_none()
                && launch.append_system_prompt.is_some(),
            wanted_model: launch.model.clone(),
            wanted_mode,
            agent,
            launch,
            next_id: 0,
            sent: HashMap::new(),
            info: AgentInfo::default(),
            load_session: false,
            images: false,
            http_mcp: false,
            session_id: None,
            opening_session: false,
            queued: VecDeque::new(),
            prompt_running: false,
            turn_announced: false,
            model: None,
            model_option: None,
            mode: None,
            permissions: HashMap::new(),
            questions: HashMap::new(),
            calls: HashMap::new(),
            finished_calls: HashSet::new(),
            denied_calls: HashSet::new(),
            text: String::new(),
            thought: String::new(),
            message_seq: 0,
            plan_seq: 0,
            context_window: None,
            final_text: None,
            failure_class: None,
        }
    }

    pub(super) fn request(&mut self, sent: Sent, method: &str, params: Value) -> Vec<OutLine> {
        self.next_id += 1;
        self.sent.insert(self.next_id, sent);
        rpc::request(self.next_id, method, params)
    }

    fn cwd(&self) -> String {
        self.launch.cwd.display().to_string()
    }

    /// The session's MCP servers as codiva shows them: ACP reports no MCP status (neither
    /// claude-code-acp 0.16.2 nor codex-acp 0.16.0 sends one, measured), so each one the agent
    /// was given is `not_reported`; an HTTP one the agent takes no HTTP for was not given
    /// (failed, saying so).
    pub(super) fn mcp_states(&self) -> Vec<codiva_protocol::mcp::McpServerState> {
        use codiva_protocol::mcp::{McpServerConfig, McpServerState, McpStatus};
        self.launch
            .extras
            .mcp_servers
            .iter()
            .map(|(name, server)| {
                let given = self.http_mcp || !matches!(server, McpServerConfig::Http { .. });
                McpServerState {
                    name: name.clone(),
                    status: if given {
                        McpStatus::NotReported
                    } else {
                        McpStatus::Failed
                    },
                    error: (!given)
                        .then(|| "not given: the agent takes no MCP servers over HTTP".to_owned()),
                }
            })
            .collect()
    }

    /// The session's MCP servers as ACP's `mcpServers` (`env` and `headers` as name/value
    /// lists); HTTP ones only when the agent takes them.
    pub(super) fn mcp_servers(&self) -> Value {
        use codiva_protocol::mcp::McpServerConfig;
        let pairs = |map: &std::collections::BTreeMap<String, String>| -> Vec<Value> {
            map.iter()
                .map(|(name, value)| json!({"name": name, "value": value}))
                .collect()
        };
        let servers: Vec<Value> = self
            .launch
            .extras
            .mcp_servers
            .iter()
            .filter_map(|(name, server)| match server {
                McpServerConfig::Stdio { command, args, env } => Some(json!({
                    "name": name, "command": command, "args": args, "env": pairs(env),
                })),
                McpServerConfig::Http { url, headers } => self.http_mcp.then(
                    || json!({"type": "http", "name": name, "url": url, "headers": pairs(headers)}),
                ),
            })
            .collect();
        Value::Array(servers)
    }

    /// `session/new`, with the system prompt where the agent takes one.
    pub(super) fn new_session(&mut self) -> Vec<OutLine> {
        let mut params = json!({"cwd": self.cwd(), "mcpServers": self.mcp_servers()});
        if let Some(prompt) = self.launch.append_system_prompt.clone() {
            match self.agent.system_prompt {
                SystemPromptVia::MetaRules => params["_meta"] = json!({ "rules": prompt }),
                SystemPromptVia::MetaSystemPromptAppend => {
                    params["_meta"] = json!({"systemPrompt": {"append": prompt}});
                }
                SystemPromptVia::FirstPrompt => {}
            }
        }
        self.opening_session = true;
        self.request(Sent::NewSession, "session/new", params)
    }

    pub(super) fn load_session(&mut self, id: String) -> Vec<OutLine> {
        self.opening_session = true;
        let params = json!({"sessionId": id, "cwd": self.cwd(), "mcpServers": self.mcp_servers()});
        self.request(Sent::LoadSession(id), "session/load", params)
    }

    /// After a `session/load` answered before its replay was over: the current mode set again
    /// (no effect), whose answer comes after the replay; the session is ready then. `None`
    /// when the agent has no mode to set.
    pub(super) fn replay_barrier(&mut self) -> Option<Vec<OutLine>> {
        let mode = self.mode.clone()?;
        let params = json!({"sessionId": self.session_id, "modeId": mode});
        Some(self.request(Sent::ReplayBarrier, "session/set_mode", params))
    }

    /// The session exists: the model and mode asked for go out, then the first message.
    pub(super) fn session_ready(&mut self) -> Vec<OutLine> {
        self.opening_session = false;
        let mut lines = Vec::new();
        if let Some(model) = self.wanted_model.take()
            && self.model.as_deref() != Some(model.as_str())
        {
            lines.extend(self.model_request(&model));
        }
        if let Some(mode) = self.wanted_mode.take()
            && self.mode.as_deref() != Some(mode.as_str())
        {
            lines.extend(self.mode_request(&mode));
        }
        lines.extend(self.next_prompt());
        lines
    }

    /// The next message waiting, when the session is free.
    pub(super) fn next_prompt(&mut self) -> Vec<OutLine> {
        if self.prompt_running || self.session_id.is_none() || self.opening_session {
            return Vec::new();
        }
        match self.queued.pop_front() {
            Some(input) => self.prompt(&input),
            None => Vec::new(),
        }
    }

    fn prompt(&mut self, input: &UserInput) -> Vec<OutLine> {
        let mut text = match &input.command {
            Some(command) if input.text.is_empty() => format!("/{command}"),
            Some(command) => format!("/{command} {}", input.text),
            None => input.text.clone(),
        };
        if std::mem::take(&mut self.instructions_due)
            && let Some(instructions) = &self.launch.append_system_prompt
        {
            text = format!(
                "[Standing instructions from codiva: follow them for this whole session]\n\
                 {instructions}\n[End of standing instructions]\n\n{text}"
            );
        }
        let mut blocks = vec![json!({"type": "text", "text": text})];
        if self.images {
            blocks.extend(input.images.iter().map(
                |image| json!({"type": "image", "mimeType": image.media_type, "data": image.data}),
            ));
        }
        self.prompt_running = true;
        self.turn_announced = false;
        self.final_text = None;
        let params = json!({"sessionId": self.session_id, "prompt": blocks});
        self.request(Sent::Prompt, "session/prompt", params)
    }

    pub(super) fn model_request(&mut self, model: &str) -> Vec<OutLine> {
        let session = self.session_id.clone();
        match self.model_option.clone() {
            Some(option) => self.request(
                Sent::SetModel(model.to_owned()),
                "session/set_config_option",
                json!({"sessionId": session, "configId": option, "value": model}),
            ),
            None => self.request(
                Sent::SetModel(model.to_owned()),
                "session/set_model",
                json!({"sessionId": session, "modelId": model}),
            ),
        }
    }

    pub(super) fn mode_request(&mut self, mode: &str) -> Vec<OutLine> {
        let params = json!({"sessionId": self.session_id, "modeId": mode});
        self.request(Sent::SetMode(mode.to_owned()), "session/set_mode", params)
    }

    fn cancel(&self) -> Vec<OutLine> {
        rpc::notification("session/cancel", json!({ "sessionId": self.session_id }))
    }

    /// The neutral mode the agent is in: the one it reports, else the one its process was
    /// started in (`None` when neither is known).
    pub(super) fn neutral_mode(&self) -> Option<PermissionMode> {
        match self.mode.as_deref() {
            Some(mode) => Some(self.agent.mode_of(mode)),
            None => self.agent.start_mode(),
        }
    }
}

fn outcome(option_id: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option_id}})
}

fn cancelled() -> Value {
    json!({"outcome": {"outcome": "cancelled"}})
}

impl Connection for AcpConnection {
    fn opening(&mut self) -> Vec<OutLine> {
        self.request(Sent::Initialize, "initialize", rpc::initialize_params())
    }

    fn receive(&mut self, line: &[u8]) -> Result<Received, crate::provider::LineError> {
        let message = rpc::parse(line)?;
        Ok(self.translate(message))
    }

    fn send(&mut self, input: &UserInput) -> Vec<OutLine> {
        self.queued.push_back(input.clone());
        if self.session_id.is_none() && !self.opening_session && self.info.version.is_some() {
            // An earlier session/new failed: try again for this message.
            return self.new_session();
        }
        self.next_prompt()
    }

    fn interrupt(&mut self) -> Vec<OutLine> {
        if !self.prompt_running {
            return Vec::new();
        }
        // ACP: the client answers its pending requests `cancelled` when it cancels.
        let mut lines = self.cancel();
        for (_, pending) in self.permissions.drain() {
            lines.extend(rpc::respond(&pending.id, cancelled()));
        }
        for (_, id) in self.questions.drain() {
            lines.extend(rpc::respond(&id, json!({"outcome": "cancelled"})));
        }
        lines
    }

    fn answer_permission(
        &mut self,
        request: &PermissionRequest,
        option: &PermissionOption,
        _message: Option<&str>,
    ) -> Vec<OutLine> {
        let Some(pending) = self.permissions.remove(&request.request_id) else {
            return Vec::new();
        };
        let Some(choice) = tools::agent_option(option, &pending.options) else {
            return rpc::respond(&pending.id, cancelled());
        };
        if matches!(
            option.kind,
            PermissionOptionKind::Deny | PermissionOptionKind::DenyAndStop
        ) && let Some(call) = &pending.call_id
        {
            self.denied_calls.insert(call.clone());
        }
        let mut lines = rpc::respond(&pending.id, outcome(&choice));
        if option.kind == PermissionOptionKind::DenyAndStop {
            lines.extend(self.cancel());
        }
        lines
    }

    fn answer_question(
        &mut self,
        request: &QuestionRequest,
        response: &QuestionResponse,
    ) -> Vec<OutLine> {
        let Some(id) = self.questions.remove(&request.request_id) else {
            return Vec::new();
        };
        let result = match response {
            QuestionResponse::Answers(answers) => {
                let answers: Map<String, Value> = answers
                    .iter()
                    .map(|(question, labels)| (question.clone(), json!(labels)))
                    .collect();
                json!({"outcome": "accepted", "answers": answers})
            }
            QuestionResponse::Decline { .. } => json!({"outcome": "cancelled"}),
        };
        rpc::respond(&id, result)
    }

    fn refuse(&mut self, request_id: &str, _message: &str) -> Vec<OutLine> {
        if let Some(pending) = self.permissions.remove(request_id) {
            return rpc::respond(&pending.id, cancelled());
        }
        match self.questions.remove(request_id) {
            Some(id) => rpc::respond(&id, json!({"outcome": "cancelled"})),
            None => Vec::new(),
        }
    }

    fn set_model(&mut self, model: Option<&str>) -> Vec<OutLine> {
        // ACP has no "back to the default"; `None` keeps the model in use.
        let Some(model) = model else {
            return Vec::new();
        };
        if self.session_id.is_none() {
            self.wanted_model = Some(model.to_owned());
            return Vec::new();
        }
        self.model_request(model)
    }

    fn set_permission_mode(&mut self, mode: PermissionMode) -> Vec<OutLine> {
        let Some(id) = self.agent.mode_id(mode).map(str::to_owned) else {
            if self.agent.start_mode() != Some(mode) {
                return Vec::new();
            }
            // The launch mode: a session not open yet stays in it; an agent switched away
            // from it cannot go back (its next process starts there again).
            self.wanted_mode = None;
            return match self.mode.clone() {
                Some(current) if self.session_id.is_some() => {
                    let params = json!({"sessionId": self.session_id, "modeId": current});
                    self.request(Sent::ModeKept(mode), "session/set_mode", params)
                }
                _ => Vec::new(),
            };
        };
        if self.session_id.is_none() {
            self.wanted_mode = Some(id);
            return Vec::new();
        }
        self.mode_request(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_event::AgentEvent;

    fn parse(line: &OutLine) -> Value {
        serde_json::from_str(line.as_str()).unwrap()
    }

    fn feed(connection: &mut AcpConnection, value: Value) -> Received {
        connection.receive(value.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn a_resumed_process_loads_then_prompts_without_logging_the_replay() {
        let agent = AcpAgent::custom("t", "T", "t".into(), Vec::new());
        let mut connection = AcpConnection::new(
            agent,
            Launch {
                resume: Some("s1".into()),
                cwd: "/w".into(),
                ..Launch::default()
            },
        );
        assert_eq!(parse(&connection.opening()[0])["method"], "initialize");
        assert!(connection.send(&UserInput::text("hi")).is_empty(), "queued");
        let init = json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,
            "agentCapabilities":{"loadSession":true},"agentInfo":{"version":"1"}}});
        let received = feed(&mut connection, init);
        let load = parse(&received.replies[0]);
        assert_eq!(load["method"], "session/load");
        assert_eq!(
            load["params"],
            json!({"sessionId":"s1","cwd":"/w","mcpServers":[]})
        );
        let replay = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
            "update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"old"}}}});
        assert!(feed(&mut connection, replay).events.is_empty());
        let loaded = feed(&mut connection, json!({"jsonrpc":"2.0","id":2,"result":{}}));
        assert!(matches!(&loaded.events[..], [AgentEvent::Connected(_)]));
        let prompt = parse(&loaded.replies[0]);
        assert_eq!(prompt["method"], "session/prompt");
        assert_eq!(prompt["params"]["sessionId"], "s1");
        let chunk = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
            "update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"new"}}}});
        let received = feed(&mut connection, chunk);
        assert!(matches!(
            &received.events[..],
            [AgentEvent::TurnStarted { agent_session_id, .. }, AgentEvent::TextDelta { .. }]
                if agent_session_id == "s1"
        ));
        let done = feed(
            &mut connection,
            json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}),
        );
        assert!(matches!(
            &done.events[..],
            [AgentEvent::Block { .. }, AgentEvent::TurnEnded(end)]
                if end.outcome == crate::agent_event::TurnOutcome::Completed
        ));
    }
}
