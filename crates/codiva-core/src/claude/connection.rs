//! Claude Code as a [`Provider`]: its command line (`launch`), its stream-json lines turned
//! into events (`translate`), codiva's commands encoded as its control protocol, and its
//! transcripts (`transcript`) for restoring a conversation's log.

use std::path::{Path, PathBuf};

use codiva_protocol::agent::{
    AgentCapabilities, LoginState, PermissionRequest, QuestionRequest, QuestionResponse,
};
use codiva_protocol::tool::{PermissionMode, PermissionOption, PermissionOptionKind};
use codiva_wire::claude::{self, CliRequest, HostRequest, Inbound, Outbound, PermissionDecision};
use serde_json::{Map, Value, json};

use super::launch;
use super::translate::Translator;
use super::{accepts, title, tool_view, transcript};
use crate::provider::{
    CommandLine, Connection, ConversationLog, InvalidInput, Launch, LineError, OutLine, Provider,
    Received, RecordsError, TitleError, catalog,
};
use crate::session::DENY_MESSAGE;

/// Claude Code, run from `program`, keeping its transcripts under `home` (`~/.claude`).
#[derive(Debug, Clone)]
pub struct ClaudeProvider {
    program: PathBuf,
    home: PathBuf,
}

impl ClaudeProvider {
    pub fn new(program: PathBuf, home: PathBuf) -> Self {
        ClaudeProvider { program, home }
    }
}

impl Provider for ClaudeProvider {
    fn id(&self) -> &'static str {
        catalog::CLAUDE.id
    }

    fn display_name(&self) -> &'static str {
        catalog::CLAUDE.display_name
    }

    fn capabilities(&self) -> AgentCapabilities {
        AgentCapabilities {
            permissions: true,
            interrupt: true,
            set_model: true,
            set_mode: true,
            resume: true,
            model_catalog: true,
            usage: true,
            cost: true,
            transcript_restore: true,
            titles: true,
            mcp_servers: true,
            mcp_status: true,
            mcp_reconnect: true,
            tool_rules: true,
        }
    }

    fn command(&self, launch: &Launch) -> CommandLine {
        CommandLine {
            program: self.program.clone(),
            args: launch::args(launch),
            env: Vec::new(),
        }
    }

    fn connect(&self, launch: &Launch) -> Box<dyn Connection> {
        Box::new(ClaudeConnection {
            has_mcp: launch.extras.mcp_config.is_some(),
            ..ClaudeConnection::default()
        })
    }

    fn check_permission_mode(&self, field: &str, mode: PermissionMode) -> Result<(), InvalidInput> {
        accepts::check_permission_mode(field, mode)
    }

    /// `claude auth status`: JSON with `loggedIn`, `authMethod` and, for a key,
    /// `apiKeySource`; exit 1 when not logged in (docs/protocol/claude.md).
    fn version_flag(&self) -> Option<&'static str> {
        Some("--version")
    }

    /// `default` (its own choice) and the families `--model` resolves to their latest model
    /// (`claude --help`: "Use an alias for the latest model"; 2.1.332 knows these among its
    /// aliases, docs/protocol/claude.md).
    fn model_aliases(&self) -> &'static [&'static str] {
        &["default", "opus", "sonnet", "haiku"]
    }

    fn login_check(&self) -> Option<CommandLine> {
        Some(CommandLine {
            program: self.program.clone(),
            args: vec!["auth".into(), "status".into()],
            env: Vec::new(),
        })
    }

    /// `claude auth login`: prints the address, then reads the code the browser shows.
    fn login(&self) -> Option<crate::login::LoginCommand> {
        Some(crate::login::LoginCommand {
            command: CommandLine {
                program: self.program.clone(),
                args: vec!["auth".into(), "login".into()],
                env: Vec::new(),
            },
            accepts_code: true,
        })
    }

    fn read_login(&self, output: &str, _success: bool) -> LoginState {
        let Some(status) = output
            .find('{')
            .and_then(|start| serde_json::from_str::<Value>(&output[start..]).ok())
        else {
            return LoginState::Unknown {
                reason: format!("claude auth status: {}", output.trim()),
            };
        };
        match status.get("loggedIn").and_then(Value::as_bool) {
            Some(true) => {
                let method = status.get("authMethod").and_then(Value::as_str);
                let source = status.get("apiKeySource").and_then(Value::as_str);
                LoginState::LoggedIn {
                    method: match (method, source) {
                        (Some(method), Some(source)) => Some(format!("{method} from {source}")),
                        (method, _) => method.map(str::to_owned),
                    },
                }
            }
            Some(false) => LoginState::NotLoggedIn,
            None => LoginState::Unknown {
                reason: "claude auth status has no loggedIn".to_owned(),
            },
        }
    }

    /// `claude -p` one-shot with `haiku` and no tools (`claude/title.rs`).
    fn title_request(&self, instruction: &str) -> Option<CommandLine> {
        Some(CommandLine {
            program: self.program.clone(),
            args: title::args(instruction),
            env: Vec::new(),
        })
    }

    fn read_title(&self, stdout: &str, success: bool) -> Result<String, TitleError> {
        title::read(stdout, success)
    }

    fn check_image(&self, field: &str, media_type: &str, data: &str) -> Result<(), InvalidInput> {
        accepts::check_image(field, media_type, data)
    }

    fn conversation(&self, cwd: &Path, id: &str) -> Option<Result<ConversationLog, RecordsError>> {
        let read = transcript::read_transcript(&self.home, cwd, id);
        Some(
            read.map(|log| ConversationLog {
                main: log.main,
                subagents: log
                    .subagents
                    .into_iter()
                    .map(|(tool_use_id, sub)| (tool_use_id, sub.entries))
                    .collect(),
                todos: log.todos.map(|items| {
                    items
                        .into_iter()
                        .map(|item| codiva_protocol::session::TodoItem {
                            id: item.id,
                            content: item.text,
                            status: crate::agent_event::todo_status(&item.status),
                        })
                        .collect()
                }),
            })
            .map_err(RecordsError::new),
        )
    }

    fn whole_message(
        &self,
        cwd: &Path,
        id: &str,
        kept: &str,
        total: usize,
    ) -> Option<Result<Option<String>, RecordsError>> {
        Some(
            super::full_text::find_full_text(&self.home, cwd, id, kept, total)
                .map_err(RecordsError::new),
        )
    }

    fn latest_conversation(&self, cwd: &Path) -> Option<String> {
        newest_transcript(&transcript::project_dir(&self.home, cwd))
    }

    fn outside_conversations(
        &self,
        dirs: &[PathBuf],
        _env: &crate::process::EnvPolicy,
    ) -> Option<Vec<codiva_protocol::outside::OutsideConversation>> {
        Some(
            dirs.iter()
                .flat_map(|dir| super::outside::list(&self.home, dir))
                .collect(),
        )
    }

    fn read_outside(
        &self,
        cwd: &Path,
        id: &str,
        window: u64,
        _env: &crate::process::EnvPolicy,
    ) -> Option<Result<crate::outside::OutsideLog, RecordsError>> {
        Some(super::outside::read(&self.home, cwd, id, window).map_err(RecordsError::new))
    }

    fn carry_conversation(&self, id: &str, from: &Path, to: &Path) -> Result<(), RecordsError> {
        super::outside::carry(&self.home, id, from, to).map_err(RecordsError::new)
    }
}

/// The session id of the most recently written transcript in a CLI project directory.
fn newest_transcript(project_dir: &Path) -> Option<String> {
    std::fs::read_dir(project_dir)
        .ok()?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "jsonl"))
        .filter_map(|entry| {
            let modified = entry.metadata().ok()?.modified().ok()?;
            let stem = entry.path().file_stem()?.to_str()?.to_owned();
            Some((modified, stem))
        })
        .max()
        .map(|(_, stem)| stem)
}

/// One Claude Code process: the translator and the ids of codiva's own requests.
#[derive(Debug, Default)]
pub struct ClaudeConnection {
    translator: Translator,
    request_seq: u64,
    /// It was given MCP servers: their status is asked for at the start and after a reconnect.
    has_mcp: bool,
}

impl ClaudeConnection {
    fn request(&mut self, request: HostRequest) -> Vec<OutLine> {
        self.request_seq += 1;
        let request_id = format!("codiva_{}", self.request_seq);
        self.translator.sent_request(&request_id, &request);
        encode(&Outbound::Request {
            request_id,
            request,
        })
    }
}

impl Connection for ClaudeConnection {
    fn opening(&mut self) -> Vec<OutLine> {
        let mut lines = self.request(HostRequest::Initialize);
        if self.has_mcp {
            // `system/init` only comes with a turn; this shows the servers before one.
            lines.extend(self.request(HostRequest::McpStatus));
        }
        lines
    }

    fn receive(&mut self, line: &[u8]) -> Result<Received, LineError> {
        let line = claude::parse_line(line).map_err(|err| LineError::Protocol(Box::new(err)))?;
        let mut replies = Vec::new();
        // A reconnect answered (done or not): the servers' statuses as they are now.
        let reconnected = matches!(&line, Inbound::ControlResponse(response)
            if matches!(self.translator.pending_request(&response.response.request_id),
                Some(HostRequest::McpReconnect(_))));
        if let Inbound::ControlRequest(request) = &line {
            match &request.request {
                CliRequest::CanUseTool(_) => {}
                // codiva registers no hooks and supports no other requests.
                CliRequest::HookCallback { .. } => {
                    replies = encode(&Outbound::HookAnswer {
                        request_id: request.request_id.clone(),
                        output: json!({}),
                    })
                }
                CliRequest::Unknown { subtype } => {
                    replies = encode(&Outbound::Unsupported {
                        request_id: request.request_id.clone(),
                        subtype: subtype.clone(),
                    })
                }
            }
        }
        let events = self.translator.translate(line);
        if reconnected {
            replies.extend(self.request(HostRequest::McpStatus));
        }
        Ok(Received {
            replies,
            events,
            close_input: false,
        })
    }

    fn send(&mut self, input: &codiva_protocol::UserInput) -> Vec<OutLine> {
        encode(&Outbound::User(super::input::to_claude(input.clone())))
    }

    fn interrupt(&mut self) -> Vec<OutLine> {
        self.request(HostRequest::Interrupt)
    }

    fn answer_permission(
        &mut self,
        request: &PermissionRequest,
        option: &PermissionOption,
        message: Option<&str>,
    ) -> Vec<OutLine> {
        let deny = |interrupt| PermissionDecision::Deny {
            message: message.unwrap_or(DENY_MESSAGE).to_owned(),
            interrupt,
        };
        let decision = match option.kind {
            PermissionOptionKind::AllowOnce => allow(request.input.clone(), Vec::new()),
            PermissionOptionKind::AllowAlways => {
                let rules = match tool_view::chosen_suggestion(option, &request.suggestions) {
                    Some(chosen) => vec![chosen.clone()],
                    // Only the tool-wide option stands for the whole tool; any other id
                    // allows this call alone, never more than was chosen.
                    None if option.id == PermissionOption::ALLOW_ALWAYS => vec![json!({
                        "type": "addRules",
                        "rules": [{"toolName": request.tool}],
                        "behavior": "allow",
                        "destination": "session",
                    })],
                    None => Vec::new(),
                };
                allow(request.input.clone(), rules)
            }
            PermissionOptionKind::Deny => deny(false),
            PermissionOptionKind::DenyAndStop => deny(true),
        };
        encode(&Outbound::Permission {
            request_id: request.request_id.clone(),
            decision,
        })
    }

    fn answer_question(
        &mut self,
        request: &QuestionRequest,
        response: &QuestionResponse,
    ) -> Vec<OutLine> {
        let decision = match response {
            QuestionResponse::Answers(answers) => {
                let mut input = match &request.input {
                    Value::Object(map) => map.clone(),
                    _ => Map::new(),
                };
                let answers: Map<String, Value> = answers
                    .iter()
                    .map(|(question, labels)| (question.clone(), Value::String(labels.join(", "))))
                    .collect();
                input.insert("answers".to_owned(), Value::Object(answers));
                allow(Value::Object(input), Vec::new())
            }
            QuestionResponse::Decline { message } => PermissionDecision::Deny {
                message: message
                    .clone()
                    .unwrap_or_else(|| "The user declined to answer these questions.".to_owned()),
                interrupt: false,
            },
        };
        encode(&Outbound::Permission {
            request_id: request.request_id.clone(),
            decision,
        })
    }

    fn refuse(&mut self, request_id: &str, message: &str) -> Vec<OutLine> {
        encode(&Outbound::Permission {
            request_id: request_id.to_owned(),
            decision: PermissionDecision::Deny {
                message: message.to_owned(),
                interrupt: true,
            },
        })
    }

    fn set_model(&mut self, model: Option<&str>) -> Vec<OutLine> {
        self.request(HostRequest::SetModel(model.map(str::to_owned)))
    }

    fn set_permission_mode(&mut self, mode: PermissionMode) -> Vec<OutLine> {
        // `check_permission_mode` let only Claude Code's own modes through.
        let Some(name) = tool_view::mode_name(mode) else {
            return Vec::new();
        };
        self.request(HostRequest::SetPermissionMode(name.to_owned()))
    }

    fn mcp_reconnect(&mut self, server: &str) -> Vec<OutLine> {
        self.request(HostRequest::McpReconnect(server.to_owned()))
    }
}

fn allow(input: Value, updated_permissions: Vec<Value>) -> PermissionDecision {
    PermissionDecision::Allow {
        updated_input: Some(input),
        updated_permissions,
    }
}

/// Claude's one serializer; its output is always one line.
fn encode(message: &Outbound) -> Vec<OutLine> {
    OutLine::new(claude::encode(message).into_string())
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `claude auth status` printed here (2.1.332), without and with an API key.
    #[test]
    fn the_login_check_reads_auth_status() {
        let provider = ClaudeProvider::new("claude".into(), "/tmp".into());
        let out = r#"{
  "loggedIn": false,
  "authMethod": "none",
  "apiProvider": "firstParty"
}"#;
        assert_eq!(provider.read_login(out, false), LoginState::NotLoggedIn);
        let out =
            r#"{"loggedIn": true, "authMethod": "api_key", "apiKeySource": "ANTHROPIC_API_KEY"}"#;
        assert_eq!(
            provider.read_login(out, true),
            LoginState::LoggedIn {
                method: Some("api_key from ANTHROPIC_API_KEY".into())
            }
        );
        assert!(matches!(
            provider.read_login("error: unknown command", false),
            LoginState::Unknown { .. }
        ));
    }
}
