//! Codex as a [`Provider`]: `codex app-server` (JSON-RPC over stdio), one thread per
//! process. The handshake (`initialize`, `initialized`, `model/list`, then `thread/start` or
//! `thread/resume`) comes from the launch; messages become `turn/start` (or `turn/steer` into
//! the running turn); answers to approvals go back as decisions. The notifications are turned
//! into events in `translate`.

use std::collections::HashMap;
use std::path::PathBuf;

use codiva_protocol::UserInput;
use codiva_protocol::agent::{
    AgentCapabilities, LoginState, PermissionRequest, QuestionRequest, QuestionResponse,
};
use codiva_protocol::tool::{PermissionMode, PermissionOption};
use serde_json::{Map, Value, json};

use super::{items, launch, mcp, rpc};
use crate::agent_event::AgentEvent;
use crate::provider::{
    CommandLine, Connection, InvalidInput, Launch, OutLine, Provider, Received, catalog,
};

/// Codex, run from `program`.
#[derive(Debug, Clone)]
pub struct CodexProvider {
    program: PathBuf,
}

impl CodexProvider {
    pub fn new(program: PathBuf) -> Self {
        CodexProvider { program }
    }
}

/// The approval policies codex takes as a permission mode (`approvalPolicy`).
pub const APPROVAL_POLICIES: &[&str] = &["untrusted", "on-request", "never"];
/// The policy when the user chose none: ask before anything codex does not trust.
pub const DEFAULT_APPROVAL_POLICY: &str = "untrusted";

/// Codex's approval policy for the neutral mode `mode`: `default` asks before anything codex
/// does not trust (`untrusted`), `auto` lets the model decide when to ask (`on-request`),
/// `dontAsk` never asks (`never`: what the sandbox refuses fails). Codex has no plan, edits-only
/// or unsandboxed mode.
pub fn approval_policy(mode: PermissionMode) -> Option<&'static str> {
    match mode {
        PermissionMode::Default => Some("untrusted"),
        PermissionMode::Auto => Some("on-request"),
        PermissionMode::DontAsk => Some("never"),
        _ => None,
    }
}

/// The neutral mode of codex's approval policy `policy` (`other` for one codiva never sets).
pub fn mode_of(policy: &str) -> PermissionMode {
    PermissionMode::ALL
        .into_iter()
        .find(|mode| approval_policy(*mode) == Some(policy))
        .unwrap_or(PermissionMode::Other)
}

impl Provider for CodexProvider {
    fn id(&self) -> &'static str {
        catalog::CODEX.id
    }

    fn display_name(&self) -> &'static str {
        catalog::CODEX.display_name
    }

    fn capabilities(&self) -> AgentCapabilities {
        AgentCapabilities {
            permissions: true,
            interrupt: true,
            // Both apply from the next turn (`turn/start` overrides).
            set_model: true,
            set_mode: true,
            resume: true,
            model_catalog: true,
            usage: true,
            cost: false,
            transcript_restore: false,
            titles: false,
            // Given to the thread as config; statuses from its start-up notifications; a
            // reconnect restarts every MCP server of the thread (`mcp`).
            mcp_servers: true,
            mcp_status: true,
            mcp_reconnect: true,
            tool_rules: false,
        }
    }

    fn command(&self, _launch: &Launch) -> CommandLine {
        CommandLine {
            program: self.program.clone(),
            args: launch::args(),
            env: Vec::new(),
        }
    }

    fn connect(&self, launch: &Launch) -> Box<dyn Connection> {
        Box::new(CodexConnection::new(launch.clone()))
    }

    fn check_permission_mode(&self, field: &str, mode: PermissionMode) -> Result<(), InvalidInput> {
        if approval_policy(mode).is_some() {
            Ok(())
        } else {
            Err(InvalidInput::new(
                field,
                format!(
                    "Codex takes default ({}), auto ({}) or dontAsk ({}), got {}",
                    APPROVAL_POLICIES[0],
                    APPROVAL_POLICIES[1],
                    APPROVAL_POLICIES[2],
                    mode.name()
                ),
            ))
        }
    }

    fn version_flag(&self) -> Option<&'static str> {
        Some("--version")
    }

    /// A model provider in codex's `config.toml` that needs no OpenAI login
    /// (`requires_openai_auth = false`) is a login of its own: codex runs with it although
    /// `codex login status` says "Not logged in". Otherwise the login check decides.
    /// Its rollouts under `$CODEX_HOME/sessions` (`codex/outside.rs`).
    fn outside_conversations(
        &self,
        dirs: &[PathBuf],
        env: &crate::process::EnvPolicy,
    ) -> Option<Vec<codiva_protocol::outside::OutsideConversation>> {
        let home = super::outside::codex_home(env)?;
        Some(super::outside::list(&home, dirs))
    }

    fn read_outside(
        &self,
        _cwd: &std::path::Path,
        id: &str,
        window: u64,
        env: &crate::process::EnvPolicy,
    ) -> Option<Result<crate::outside::OutsideLog, crate::provider::RecordsError>> {
        let home = super::outside::codex_home(env)?;
        Some(super::outside::read(&home, id, window).map_err(crate::provider::RecordsError::new))
    }

    fn login_state(&self, env: &crate::process::EnvPolicy) -> Option<LoginState> {
        let home = super::outside::codex_home(env)?;
        let config = std::fs::read_to_string(home.join("config.toml")).ok()?;
        provider_without_login(&config).map(|name| LoginState::LoggedIn {
            method: Some(format!("model provider {name} (no OpenAI login needed)")),
        })
    }

    /// `codex login status`: exit 0 and how (`API key configured - sk-…`), or exit 1 and `Not
    /// logged in` (it looks at codex's own stored login only: a configured model provider that
    /// needs none still says "Not logged in", which [`Provider::login_state`] reads first;
    /// docs/protocol/codex.md).
    fn login_check(&self) -> Option<CommandLine> {
        Some(CommandLine {
            program: self.program.clone(),
            args: vec!["login".into(), "status".into()],
            env: Vec::new(),
        })
    }

    /// `codex login`: prints the address and waits for the browser's redirect to its own
    /// server on localhost:1455 (so the browser must run where the agent runs).
    fn login(&self) -> Option<crate::login::LoginCommand> {
        Some(crate::login::LoginCommand {
            command: CommandLine {
                program: self.program.clone(),
                args: vec!["login".into()],
                env: Vec::new(),
            },
            accepts_code: false,
        })
    }

    fn read_login(&self, output: &str, success: bool) -> LoginState {
        let lines = || {
            output
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.starts_with("WARNING:"))
        };
        if lines().any(|line| line == "Not logged in") {
            return LoginState::NotLoggedIn;
        }
        if success {
            return LoginState::LoggedIn {
                method: lines().next().map(str::to_owned),
            };
        }
        LoginState::Unknown {
            reason: format!(
                "codex login status: {}",
                lines().find(|line| !line.is_empty()).unwrap_or_default()
            ),
        }
    }

    fn check_image(&self, field: &str, media_type: &str, _data: &str) -> Result<(), InvalidInput> {
        crate::provider::check_image_type(field, self.display_name(), media_type)
    }
}

/// What a request of ours was, to read its answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Sent {
    Initialize,
    ModelList,
    ThreadStart,
    ThreadResume,
    TurnStart,
    /// The message, to start a turn with it if the running one ended first.
    TurnSteer(UserInput),
    Interrupt,
    /// `config/mcpServer/reload` (a reconnect).
    McpReload,
}

/// An approval request the user has not answered yet.
#[derive(Debug, Clone)]
pub(super) struct Approval {
    pub id: Value,
    pub decisions: Option<Vec<Value>>,
}

/// One `codex app-server` process.
#[derive(Debug)]
pub struct CodexConnection {
    pub(super) launch: Launch,
    next_id: u64,
    pub(super) sent: HashMap<u64, Sent>,
    pub(super) version: Option<String>,
    pub(super) thread_id: Option<String>,
    /// The running turn (from `turn/start`'s answer or `turn/started`).
    pub(super) turn_id: Option<String>,
    /// A `turn/start` is out and its turn not known yet.
    pub(super) turn_starting: bool,
    /// Messages sent before the thread existed.
    pub(super) queued: Vec<UserInput>,
    pub(super) interrupt_pending: bool,
    pub(super) model: Option<String>,
    pub(super) approval_policy: String,
    /// Set by `set_model` / `set_permission_mode`, sent with the next `turn/start`.
    pub(super) overrides: Map<String, Value>,
    pub(super) approvals: HashMap<String, Approval>,
    /// Tool items seen starting, by id (an approval request names only the item).
    pub(super) items: HashMap<String, Value>,
    pub(super) last_error: Option<Value>,
    pub(super) final_text: Option<String>,
    pub(super) context_window: Option<u64>,
    pub(super) usage_seq: u64,
    pub(super) plan_seq: u64,
    /// The MCP servers' statuses as codex last reported them.
    pub(super) mcp_servers: Vec<codiva_protocol::mcp::McpServerState>,
}

impl CodexConnection {
    pub fn new(launch: Launch) -> Self {
        let approval_policy = launch
            .permission_mode
            .and_then(approval_policy)
            .unwrap_or(DEFAULT_APPROVAL_POLICY)
            .to_owned();
        let launch_servers = launch.extras.mcp_servers.clone();
        CodexConnection {
            model: launch.model.clone(),
            launch,
            next_id: 0,
            sent: HashMap::new(),
            version: None,
            thread_id: None,
            turn_id: None,
            turn_starting: false,
            queued: Vec::new(),
            interrupt_pending: false,
            approval_policy,
            overrides: Map::new(),
            approvals: HashMap::new(),
            items: HashMap::new(),
            last_error: None,
            final_text: None,
            context_window: None,
            usage_seq: 0,
            plan_seq: 0,
            mcp_servers: mcp::pending(&launch_servers),
        }
    }

    pub(super) fn request(&mut self, sent: Sent, method: &str, params: Value) -> Vec<OutLine> {
        self.next_id += 1;
        self.sent.insert(self.next_id, sent);
        rpc::request(self.next_id, method, params)
    }

    /// After `initialize`: the notification, the model catalog, then the thread.
    pub(super) fn after_initialize(&mut self) -> Vec<OutLine> {
        let mut lines = rpc::notification("initialized");
        lines.extend(self.request(Sent::ModelList, "model/list", json!({})));
        let mut params = Map::new();
        if let Some(model) = &self.launch.model {
            params.insert("model".into(), json!(model));
        }
        params.insert("approvalPolicy".into(), json!(self.approval_policy));
        params.insert("sandbox".into(), json!("workspace-write"));
        if let Some(prompt) = &self.launch.append_system_prompt {
            params.insert("developerInstructions".into(), json!(prompt));
        }
        if let Some(config) = mcp::thread_config(&self.launch.extras.mcp_servers) {
            params.insert("config".into(), config);
        }
        let lines_for_thread = match self.launch.resume.clone() {
            Some(thread_id) => {
                params.insert("threadId".into(), json!(thread_id));
                params.insert("excludeTurns".into(), json!(true));
                self.request(Sent::ThreadResume, "thread/resume", Value::Object(params))
            }
            None => self.request(Sent::ThreadStart, "thread/start", Value::Object(params)),
        };
        lines.extend(lines_for_thread);
        lines
    }

    /// The thread exists: the messages sent before it go out.
    pub(super) fn thread_ready(&mut self, thread_id: String) -> Vec<OutLine> {
        self.thread_id = Some(thread_id);
        let queued = std::mem::take(&mut self.queued);
        queued.iter().flat_map(|input| self.send(input)).collect()
    }

    /// The running turn is known: an interrupt asked for before goes out now.
    pub(super) fn turn_known(&mut self, turn_id: &str) -> Vec<OutLine> {
        self.turn_starting = false;
        self.turn_id = Some(turn_id.to_owned());
        if std::mem::take(&mut self.interrupt_pending) {
            self.interrupt()
        } else {
            Vec::new()
        }
    }
}

/// A message as codex's input items: the text (an agent command as `/name args`) and each
/// image as a data URL.
fn input_items(input: &UserInput) -> Value {
    let text = input.wire_text();
    let mut items = vec![json!({"type": "text", "text": text, "text_elements": []})];
    items.extend(input.images.iter().map(|image| {
        json!({"type": "image", "url": format!("data:{};base64,{}", image.media_type, image.data)})
    }));
    Value::Array(items)
}

impl Connection for CodexConnection {
    fn opening(&mut self) -> Vec<OutLine> {
        let client = json!({
            "name": "codiva",
            "title": "codiva",
            "version": env!("CARGO_PKG_VERSION"),
        });
        self.request(
            Sent::Initialize,
            "initialize",
            json!({"clientInfo": client, "capabilities": null}),
        )
    }

    fn receive(&mut self, line: &[u8]) -> Result<Received, crate::provider::LineError> {
        let message = rpc::parse(line)?;
        Ok(self.translate(message))
    }

    fn send(&mut self, input: &UserInput) -> Vec<OutLine> {
        let Some(thread_id) = self.thread_id.clone() else {
            self.queued.push(input.clone());
            return Vec::new();
        };
        if let Some(turn_id) = self.turn_id.clone() {
            // Into the running turn: codex folds it in (its echo arrives in this turn).
            return self.request(
                Sent::TurnSteer(input.clone()),
                "turn/steer",
                json!({"threadId": thread_id, "expectedTurnId": turn_id, "input": input_items(input)}),
            );
        }
        let mut params = std::mem::take(&mut self.overrides);
        params.insert("threadId".into(), json!(thread_id));
        params.insert("input".into(), input_items(input));
        self.turn_starting = true;
        self.request(Sent::TurnStart, "turn/start", Value::Object(params))
    }

    fn interrupt(&mut self) -> Vec<OutLine> {
        match (self.thread_id.clone(), self.turn_id.clone()) {
            (Some(thread_id), Some(turn_id)) => self.request(
                Sent::Interrupt,
                "turn/interrupt",
                json!({"threadId": thread_id, "turnId": turn_id}),
            ),
            _ => {
                // The turn is not known yet: stop it as soon as it is.
                self.interrupt_pending = true;
                Vec::new()
            }
        }
    }

    fn answer_permission(
        &mut self,
        request: &PermissionRequest,
        option: &PermissionOption,
        _message: Option<&str>,
    ) -> Vec<OutLine> {
        let Some(approval) = self.approvals.remove(&request.request_id) else {
            return Vec::new();
        };
        let decision = items::decision(option, approval.decisions.as_ref());
        rpc::respond(&approval.id, json!({ "decision": decision }))
    }

    fn answer_question(
        &mut self,
        _request: &QuestionRequest,
        _response: &QuestionResponse,
    ) -> Vec<OutLine> {
        // Codex's questions are refused when they arrive (unknown server requests).
        Vec::new()
    }

    fn refuse(&mut self, request_id: &str, _message: &str) -> Vec<OutLine> {
        match self.approvals.remove(request_id) {
            Some(approval) => rpc::respond(&approval.id, json!({"decision": "cancel"})),
            None => Vec::new(),
        }
    }

    fn set_model(&mut self, model: Option<&str>) -> Vec<OutLine> {
        // Codex has no "back to the default" override; `None` keeps the model in use.
        if let Some(model) = model {
            self.model = Some(model.to_owned());
            self.overrides.insert("model".into(), json!(model));
        }
        Vec::new()
    }

    fn set_permission_mode(&mut self, mode: PermissionMode) -> Vec<OutLine> {
        // `check_permission_mode` let only codex's policies through.
        let Some(policy) = approval_policy(mode) else {
            return Vec::new();
        };
        self.approval_policy = policy.to_owned();
        self.overrides
            .insert("approvalPolicy".into(), json!(policy));
        Vec::new()
    }

    fn mcp_reconnect(&mut self, _server: &str) -> Vec<OutLine> {
        // Codex restarts every MCP server of the thread; the statuses follow as start-up
        // notifications.
        self.request(Sent::McpReload, "config/mcpServer/reload", Value::Null)
    }
}

/// The model provider codex's `config.toml` selects (`model_provider`, or the selected
/// `profile`'s), when its `[model_providers.<name>]` says `requires_openai_auth = false`:
/// its name, sanitised for display.
fn provider_without_login(config: &str) -> Option<String> {
    let config: toml::Table = config.parse().ok()?;
    let profile = config
        .get("profile")
        .and_then(toml::Value::as_str)
        .and_then(|name| config.get("profiles")?.get(name));
    let name = profile
        .and_then(|profile| profile.get("model_provider"))
        .or_else(|| config.get("model_provider"))
        .and_then(toml::Value::as_str)?;
    let provider = config.get("model_providers")?.get(name)?;
    let needs_login = provider
        .get("requires_openai_auth")
        .and_then(toml::Value::as_bool)
        .unwrap_or(true);
    (!needs_login).then(|| codiva_protocol::text::sanitize_title_to(name, 60).unwrap_or_default())
}

/// The events of one server line (used by `translate`).
pub(super) fn received(
    replies: Vec<OutLine>,
    events: Vec<AgentEvent>,
    close_input: bool,
) -> Received {
    Received {
        replies,
        events,
        close_input,
    }
}

#[cfg(test)]
mod login_tests {
    use super::*;

    /// What `codex login status` printed here (0.171.0, stdout then stderr): before and after
    /// `codex login --with-api-key`.
    #[test]
    fn the_login_check_reads_login_status() {
        let provider = CodexProvider::new("codex".into());
        let warning = "WARNING: proceeding, even though we could not create PATH aliases: \
                       Refusing to create helper binaries under temporary dir \"/tmp\"\n";
        let out = format!("{warning}Not logged in\n");
        assert_eq!(provider.read_login(&out, false), LoginState::NotLoggedIn);
        let out = format!(
            "{warning}API key configured - sk-test-***67890\n\
             Authentication is checked when you send a request.\n"
        );
        assert_eq!(
            provider.read_login(&out, true),
            LoginState::LoggedIn {
                method: Some("API key configured - sk-test-***67890".into())
            }
        );
        assert!(matches!(
            provider.read_login("", false),
            LoginState::Unknown { .. }
        ));
    }

    /// Regression: codex with a configured provider that needs no OpenAI login was listed "not
    /// logged in" although it runs (its `login status` looks at codex's own login only).
    #[test]
    fn a_provider_that_needs_no_openai_login_is_a_login() {
        let home = tempfile::tempdir().unwrap();
        let codex_home = home.path().join(".codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        let provider = CodexProvider::new("codex".into());
        let env = crate::process::EnvPolicy::Exact(vec![(
            "HOME".to_owned(),
            home.path().display().to_string(),
        )]);
        assert_eq!(provider.login_state(&env), None, "no config: ask codex");
        let write = |text: &str| std::fs::write(codex_home.join("config.toml"), text).unwrap();
        write(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
             base_url = \"http://127.0.0.1:1/v1\"\nrequires_openai_auth = false\n",
        );
        assert_eq!(
            provider.login_state(&env),
            Some(LoginState::LoggedIn {
                method: Some("model provider mock (no OpenAI login needed)".into())
            })
        );
        // A provider that needs the login (the default), or none selected: codex decides.
        write("model_provider = \"azure\"\n[model_providers.azure]\nbase_url = \"x\"\n");
        assert_eq!(provider.login_state(&env), None);
        write("[model_providers.mock]\nrequires_openai_auth = false\n");
        assert_eq!(provider.login_state(&env), None);
        // Selected through a profile; CODEX_HOME moves the config.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(
            elsewhere.path().join("config.toml"),
            "profile = \"local\"\n[profiles.local]\nmodel_provider = \"ollama\"\n\
             [model_providers.ollama]\nrequires_openai_auth = false\n",
        )
        .unwrap();
        let moved = crate::process::EnvPolicy::Exact(vec![(
            "CODEX_HOME".to_owned(),
            elsewhere.path().display().to_string(),
        )]);
        assert!(matches!(
            provider.login_state(&moved),
            Some(LoginState::LoggedIn { .. })
        ));
        // An unreadable config: codex decides.
        std::fs::write(elsewhere.path().join("config.toml"), "[[[").unwrap();
        assert_eq!(provider.login_state(&moved), None);
    }
}
