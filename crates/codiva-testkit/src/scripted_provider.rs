//! A scripted provider: codiva's [`Provider`] seam implemented for the test kit's own fake
//! agent (`codiva-fake-agent`, a real child process speaking a small JSON line protocol), with
//! no Claude code anywhere. Tests drive the generic session task and the manager through it,
//! which proves that nothing there depends on Claude Code.

use std::path::{Path, PathBuf};

use codiva_core::agent_event::{AgentBlock, AgentEvent, TurnEnd, TurnOutcome};
use codiva_core::provider::{
    CommandLine, Connection, ConversationLog, InvalidInput, Launch, OutLine, Provider, Received,
};
use codiva_protocol::UserInput;
use codiva_protocol::agent::{
    AgentCapabilities, AgentInfo, PermissionRequest, Question, QuestionOption, QuestionRequest,
    QuestionResponse,
};
use codiva_protocol::log::EntryKind;
use codiva_protocol::tool::{PermissionMode, PermissionOption, PermissionOptionKind, ToolCallView};
use serde_json::{Value, json};

/// The fake agent at `program`, recording its conversations under `home`.
#[derive(Debug, Clone)]
pub struct ScriptedProvider {
    program: PathBuf,
    home: PathBuf,
    interrupt: bool,
}

impl ScriptedProvider {
    pub fn new(program: PathBuf, home: PathBuf) -> Self {
        ScriptedProvider {
            program,
            home,
            interrupt: true,
        }
    }

    /// An agent whose capabilities say it cannot interrupt a turn (the server must refuse it).
    pub fn without_interrupt(mut self) -> Self {
        self.interrupt = false;
        self
    }
}

impl Provider for ScriptedProvider {
    fn id(&self) -> &'static str {
        "scripted"
    }

    fn display_name(&self) -> &'static str {
        "the scripted agent"
    }

    fn capabilities(&self) -> AgentCapabilities {
        AgentCapabilities {
            permissions: true,
            interrupt: self.interrupt,
            // No `set_model`: the fake agent has no models.
            resume: true,
            transcript_restore: true,
            mcp_servers: false,
            mcp_status: false,
            mcp_reconnect: false,
            tool_rules: false,
            ..AgentCapabilities::default()
        }
    }

    /// The fake agent knows two modes.
    fn check_permission_mode(&self, field: &str, mode: PermissionMode) -> Result<(), InvalidInput> {
        match mode {
            PermissionMode::Default | PermissionMode::Plan => Ok(()),
            _ => Err(InvalidInput::new(
                field,
                format!("expected default or plan, got {:?}", mode.name()),
            )),
        }
    }

    fn command(&self, launch: &Launch) -> CommandLine {
        let mut args = Vec::new();
        if let Some(id) = &launch.resume {
            args.push("--resume".into());
            args.push(id.into());
        }
        CommandLine {
            program: self.program.clone(),
            args,
            env: vec![(
                "FAKE_AGENT_HOME".to_owned(),
                self.home.display().to_string(),
            )],
        }
    }

    fn connect(&self, _launch: &Launch) -> Box<dyn Connection> {
        Box::new(ScriptedConnection)
    }

    fn conversation(
        &self,
        _cwd: &Path,
        id: &str,
    ) -> Option<Result<ConversationLog, codiva_core::provider::RecordsError>> {
        let path = self.home.join(format!("{id}.jsonl"));
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) => {
                let named = std::io::Error::new(err.kind(), format!("{}: {err}", path.display()));
                return Some(Err(codiva_core::provider::RecordsError::new(named)));
            }
        };
        let main = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter_map(|line| {
                let text = line.get("text")?.as_str()?.to_owned();
                match line.get("role")?.as_str()? {
                    "user" => Some(EntryKind::User { text }),
                    "assistant" => Some(EntryKind::Assistant { text }),
                    _ => None,
                }
            })
            .collect();
        Some(Ok(ConversationLog {
            main,
            subagents: Vec::new(),
            todos: None,
        }))
    }
}

/// One fake-agent process.
struct ScriptedConnection;

fn line(value: Value) -> Vec<OutLine> {
    OutLine::new(value.to_string()).into_iter().collect()
}

fn text_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl Connection for ScriptedConnection {
    fn opening(&mut self) -> Vec<OutLine> {
        Vec::new()
    }

    fn receive(&mut self, bytes: &[u8]) -> Result<Received, codiva_core::provider::LineError> {
        let value: Value = serde_json::from_slice(bytes)?;
        let text = |key: &str| text_of(&value, key);
        let event = match text("type").as_str() {
            "hello" => AgentEvent::Connected(AgentInfo::default()),
            "turn" => AgentEvent::TurnStarted {
                agent_session_id: text("session"),
                model: None,
                permission_mode: None,
            },
            "echo" => AgentEvent::UserEcho { text: text("text") },
            "message" => AgentEvent::MessageStarted {
                message_id: text("id"),
            },
            "delta" => AgentEvent::TextDelta { text: text("text") },
            "text" => AgentEvent::Block {
                message_id: text("id"),
                parent: None,
                block: AgentBlock::Text(text("text")),
                usage: None,
                model: None,
            },
            "ask" => AgentEvent::PermissionRequest(PermissionRequest {
                request_id: text("id"),
                view: ToolCallView {
                    title: text("tool"),
                    ..ToolCallView::default()
                },
                options: PermissionOption::standard(&text("tool"), Vec::new()),
                tool: text("tool"),
                input: value.get("input").cloned().unwrap_or(Value::Null),
                description: None,
                suggestions: Vec::new(),
                tool_use_id: None,
                agent_id: None,
                blocked_path: None,
                reason: None,
            }),
            "question" => AgentEvent::QuestionRequest(QuestionRequest {
                request_id: text("id"),
                questions: vec![Question {
                    question: text("question"),
                    header: None,
                    options: value
                        .get("options")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|label| QuestionOption {
                            label: label.to_owned(),
                            description: None,
                        })
                        .collect(),
                    multi_select: false,
                }],
                input: value.clone(),
                tool_use_id: None,
            }),
            "end" => AgentEvent::TurnEnded(TurnEnd {
                outcome: match text("outcome").as_str() {
                    "completed" => TurnOutcome::Completed,
                    "interrupted" => TurnOutcome::Interrupted,
                    other => TurnOutcome::Failed {
                        message: other.to_owned(),
                    },
                },
                agent_session_id: Some(text("session")),
                process_cost_usd: None,
                context_window: None,
                denials: Vec::new(),
                final_text: None,
            }),
            other => {
                let unknown = format!("unknown line type {other:?}");
                return Err(codiva_core::provider::LineError::Protocol(unknown.into()));
            }
        };
        Ok(Received {
            replies: Vec::new(),
            events: vec![event],
            close_input: false,
        })
    }

    fn send(&mut self, input: &UserInput) -> Vec<OutLine> {
        line(json!({"type": "user", "text": input.wire_text()}))
    }

    fn interrupt(&mut self) -> Vec<OutLine> {
        line(json!({"type": "interrupt"}))
    }

    fn answer_permission(
        &mut self,
        request: &PermissionRequest,
        option: &PermissionOption,
        _message: Option<&str>,
    ) -> Vec<OutLine> {
        let allow = matches!(
            option.kind,
            PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
        );
        line(json!({"type": "permission", "id": request.request_id, "allow": allow}))
    }

    fn answer_question(
        &mut self,
        request: &QuestionRequest,
        response: &QuestionResponse,
    ) -> Vec<OutLine> {
        let answers: serde_json::Map<String, Value> = match response {
            QuestionResponse::Answers(answers) => answers
                .iter()
                .map(|(question, labels)| (question.clone(), Value::String(labels.join(", "))))
                .collect(),
            QuestionResponse::Decline { .. } => serde_json::Map::new(),
        };
        line(json!({"type": "answer", "id": request.request_id, "answers": answers}))
    }

    fn refuse(&mut self, request_id: &str, _message: &str) -> Vec<OutLine> {
        line(json!({"type": "permission", "id": request_id, "allow": false}))
    }

    fn set_model(&mut self, model: Option<&str>) -> Vec<OutLine> {
        line(json!({"type": "set_model", "model": model}))
    }

    fn set_permission_mode(&mut self, mode: PermissionMode) -> Vec<OutLine> {
        line(json!({"type": "set_mode", "mode": mode.name()}))
    }
}
