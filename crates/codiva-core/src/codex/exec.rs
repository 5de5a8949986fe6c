//! The fallback when `codex app-server` is unavailable: `codex exec --json`, one process per
//! message ([`Provider::process_per_turn`]). The message is the last argument (after `--`,
//! cut to Linux's per-argument limit in UTF-8 bytes), stdin is closed at once (codex reads it
//! to EOF and would wait on an open pipe), the thread id resumes the next message
//! (`exec … resume <id>`). There are no approvals (only `approval_policy=never` runs without a
//! terminal; the `workspace-write` sandbox bounds what runs), no deltas (whole messages), no
//! interrupt but stopping the process. Facts: docs/protocol/codex.md.

use std::ffi::OsString;
use std::path::PathBuf;

use codiva_protocol::UserInput;
use codiva_protocol::agent::{
    AgentCapabilities, AgentInfo, NoteLevel, PermissionRequest, QuestionRequest, QuestionResponse,
    RetryInfo, TokenUsage,
};
use codiva_protocol::log::NoteCode;
use codiva_protocol::session::TodoStatus;
use codiva_protocol::tool::{PermissionMode, PermissionOption, ToolContent};
use serde_json::Value;

use super::items::{edit_view, other_view, shell_view};
use crate::agent_event::{AgentBlock, AgentEvent, PlanText, TurnEnd, TurnOutcome, plan_call};
use crate::json::items;
use crate::provider::{
    CommandLine, Connection, InvalidInput, Launch, OutLine, Provider, Received, catalog,
};

/// Linux's limit on one argument (`MAX_ARG_STRLEN`, 32 pages), counting its NUL.
pub const MAX_ARGUMENT_BYTES: usize = 128 * 1024 - 1;
/// The only approval policy `exec` can run with (it cannot ask anyone).
pub const EXEC_APPROVAL_POLICY: &str = "never";

/// Codex run as `codex exec --json`, one process per message.
#[derive(Debug, Clone)]
pub struct CodexExecProvider {
    program: PathBuf,
}

impl CodexExecProvider {
    pub fn new(program: PathBuf) -> Self {
        CodexExecProvider { program }
    }
}

/// The message as one argument: its text (an agent command as `/name args`), cut at a char
/// boundary so that it fits [`MAX_ARGUMENT_BYTES`] with the note saying so. `true` when cut.
pub fn prompt_argument(input: &UserInput) -> (String, bool) {
    let text = input.wire_text();
    if text.len() <= MAX_ARGUMENT_BYTES {
        return (text, false);
    }
    let note = format!("\n[… cut by codiva: the message had {} bytes]", text.len());
    let kept = codiva_protocol::text::head(&text, MAX_ARGUMENT_BYTES - note.len());
    (format!("{kept}{note}"), true)
}

/// `value` as a TOML basic string (JSON's string escapes are TOML's).
fn toml_string(value: &str) -> String {
    Value::from(value).to_string()
}

impl Provider for CodexExecProvider {
    fn id(&self) -> &'static str {
        catalog::CODEX.id
    }

    fn display_name(&self) -> &'static str {
        catalog::CODEX.display_name
    }

    fn capabilities(&self) -> AgentCapabilities {
        AgentCapabilities {
            interrupt: true,
            set_model: true,
            resume: true,
            usage: true,
            ..AgentCapabilities::default()
        }
    }

    fn process_per_turn(&self) -> bool {
        true
    }

    fn command(&self, launch: &Launch) -> CommandLine {
        let mut args: Vec<OsString> = [
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--sandbox",
            "workspace-write",
            "-c",
            "approval_policy=\"never\"",
            "-c",
            "tools.update_plan.enabled=true",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        if let Some(model) = &launch.model {
            args.extend(["-m".into(), model.into()]);
        }
        if let Some(prompt) = &launch.append_system_prompt {
            let setting = format!("developer_instructions={}", toml_string(prompt));
            args.extend(["-c".into(), setting.into()]);
        }
        if let Some(thread) = &launch.resume {
            args.extend(["resume".into(), thread.into()]);
        }
        let (prompt, _) = prompt_argument(&launch.input.clone().unwrap_or_default());
        args.extend(["--".into(), prompt.into()]);
        CommandLine {
            program: self.program.clone(),
            args,
            env: Vec::new(),
        }
    }

    fn connect(&self, launch: &Launch) -> Box<dyn Connection> {
        Box::new(ExecConnection::new(launch))
    }

    fn check_permission_mode(&self, field: &str, mode: PermissionMode) -> Result<(), InvalidInput> {
        if super::connection::approval_policy(mode) == Some(EXEC_APPROVAL_POLICY) {
            Ok(())
        } else {
            Err(InvalidInput::new(
                field,
                "Codex exec runs only with the approval policy never (dontAsk)",
            ))
        }
    }

    fn check_image(&self, field: &str, _media_type: &str, _data: &str) -> Result<(), InvalidInput> {
        Err(InvalidInput::new(field, "Codex exec takes no images"))
    }
}

/// One `codex exec --json` process: its stdout events turned into agent events.
#[derive(Debug, Default)]
pub struct ExecConnection {
    model: Option<String>,
    cut: bool,
    thread_id: Option<String>,
    last_error: Option<String>,
    final_text: Option<String>,
    started: Vec<String>,
    plan_seq: u64,
}

impl ExecConnection {
    pub fn new(launch: &Launch) -> Self {
        let cut = launch
            .input
            .as_ref()
            .is_some_and(|input| prompt_argument(input).1);
        ExecConnection {
            model: launch.model.clone(),
            cut,
            ..ExecConnection::default()
        }
    }

    fn translate(&mut self, line: &Value) -> Vec<AgentEvent> {
        let str_at = |pointer: &str| line.pointer(pointer).and_then(Value::as_str);
        match str_at("/type").unwrap_or_default() {
            "thread.started" => {
                self.thread_id = str_at("/thread_id").map(str::to_owned);
                let mut events = vec![AgentEvent::Connected(AgentInfo {
                    permission_mode: Some(PermissionMode::DontAsk),
                    ..AgentInfo::default()
                })];
                if self.cut {
                    events.push(AgentEvent::Note {
                        level: NoteLevel::Warning,
                        text: format!(
                            "the message was cut to {MAX_ARGUMENT_BYTES} bytes (the longest argument a program can get)"
                        ),
                        code: Some(NoteCode::new(codiva_protocol::log::NoteName::MessageCut, &[])),
                    });
                }
                events
            }
            "turn.started" => vec![AgentEvent::TurnStarted {
                agent_session_id: self.thread_id.clone().unwrap_or_default(),
                model: self.model.clone(),
                permission_mode: Some(PermissionMode::DontAsk),
            }],
            "item.started" | "item.updated" => self.item(line.get("item"), false),
            "item.completed" => self.item(line.get("item"), true),
            "error" => {
                let message = str_at("/message").unwrap_or_default();
                // "Reconnecting... 2/5 (stream disconnected before completion: …)"
                let Some(rest) = message.strip_prefix("Reconnecting... ") else {
                    self.last_error = Some(message.to_owned());
                    return Vec::new();
                };
                let (count, detail) = rest.split_once(' ').unwrap_or((rest, ""));
                let (attempt, max) = super::translate::attempts(count);
                let detail = detail.trim_start_matches('(').trim_end_matches(')');
                vec![AgentEvent::Retrying(RetryInfo {
                    attempt,
                    max,
                    delay_ms: 0,
                    status: status_in(detail),
                    error: Some(detail.to_owned()),
                })]
            }
            "turn.completed" => {
                let usage = line.get("usage").cloned().unwrap_or(Value::Null);
                let number = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                let cached = number("cached_input_tokens");
                let written = number("cache_write_input_tokens");
                vec![
                    AgentEvent::Usage {
                        response_id: format!(
                            "{}:{}",
                            self.thread_id.clone().unwrap_or_default(),
                            self.started.len()
                        ),
                        usage: TokenUsage {
                            input: number("input_tokens").saturating_sub(cached + written),
                            output: number("output_tokens"),
                            cache_read: cached,
                            cache_creation: written,
                        },
                        context_window: None,
                    },
                    self.end(TurnOutcome::Completed),
                ]
            }
            "turn.failed" => {
                let message = str_at("/error/message")
                    .map(str::to_owned)
                    .or_else(|| self.last_error.take())
                    .unwrap_or_else(|| "the turn failed".to_owned());
                let outcome = match status_in(&message) {
                    Some(401) => TurnOutcome::NeedsLogin { message },
                    Some(429) => TurnOutcome::RateLimited { message },
                    _ if message.starts_with("Quota exceeded") => {
                        TurnOutcome::RateLimited { message }
                    }
                    _ => TurnOutcome::Failed { message },
                };
                vec![self.end(outcome)]
            }
            _ => Vec::new(),
        }
    }

    fn end(&mut self, outcome: TurnOutcome) -> AgentEvent {
        AgentEvent::TurnEnded(TurnEnd {
            outcome,
            agent_session_id: self.thread_id.clone(),
            process_cost_usd: None,
            context_window: None,
            denials: Vec::new(),
            final_text: self.final_text.take(),
        })
    }

    fn item(&mut self, item: Option<&Value>, completed: bool) -> Vec<AgentEvent> {
        let Some(item) = item else {
            return Vec::new();
        };
        let str_at = |key: &str| item.get(key).and_then(Value::as_str);
        // `item_<n>` counts per process: the thread id keeps it apart from earlier turns'.
        let id = format!(
            "{}:{}",
            self.thread_id.clone().unwrap_or_default(),
            str_at("id").unwrap_or_default()
        );
        let block = |block| AgentEvent::block(id.clone(), block);
        match str_at("type").unwrap_or_default() {
            "agent_message" if completed => {
                let text = str_at("text").unwrap_or_default().to_owned();
                self.final_text = Some(text.clone());
                vec![block(AgentBlock::Text(text))]
            }
            "reasoning" if completed => {
                vec![block(AgentBlock::Thinking(
                    str_at("text").unwrap_or_default().to_owned(),
                ))]
            }
            "error" => vec![AgentEvent::Note {
                level: NoteLevel::Warning,
                text: str_at("message").unwrap_or_default().to_owned(),
                code: None,
            }],
            "todo_list" if !completed => self.plan(item),
            "agent_message" | "reasoning" | "todo_list" => Vec::new(),
            kind => {
                let mut events = Vec::new();
                if !self.started.contains(&id) {
                    self.started.push(id.clone());
                    events.push(block(tool_block(&id, kind, item)));
                }
                if completed {
                    let status = str_at("status").unwrap_or("completed");
                    let output = str_at("aggregated_output").map(str::to_owned);
                    let text = match item.get("exit_code").and_then(Value::as_i64) {
                        Some(code) if code != 0 => {
                            format!("{}(exit code {code})", output.unwrap_or_default())
                        }
                        _ => output.unwrap_or_else(|| status.to_owned()),
                    };
                    events.push(AgentEvent::ToolResult {
                        parent: None,
                        tool_use_id: id,
                        text,
                        is_error: status != "completed",
                        todo: None,
                    });
                }
                events
            }
        }
    }

    /// `todo_list` (started on the first plan, updated on later ones; `completed: bool`).
    fn plan(&mut self, item: &Value) -> Vec<AgentEvent> {
        self.plan_seq += 1;
        let id = format!("plan-{}", self.plan_seq);
        let items = items(item, "items")
            .map(|step| {
                let done = step.get("completed").and_then(Value::as_bool) == Some(true);
                (
                    step.get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    if done {
                        TodoStatus::Completed
                    } else {
                        TodoStatus::Pending
                    },
                )
            })
            .collect();
        plan_call(id, "update_plan", item.clone(), items, PlanText::Nothing).into()
    }
}

fn tool_block(id: &str, kind: &str, item: &Value) -> AgentBlock {
    let command = item.get("command").and_then(Value::as_str);
    let paths: Vec<String> = items(item, "changes")
        .filter_map(|change| {
            change
                .get("path")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    let (name, view) = match kind {
        "command_execution" => (
            "shell",
            shell_view(command.unwrap_or_default().to_owned(), None),
        ),
        "file_change" => (
            "apply_patch",
            edit_view(vec![ToolContent::Text {
                text: paths.join("\n"),
            }]),
        ),
        other => (other, other_view(other)),
    };
    AgentBlock::ToolUse {
        id: id.to_owned(),
        name: name.to_owned(),
        input: item.clone(),
        summary: command
            .map(str::to_owned)
            .unwrap_or_else(|| paths.join(", ")),
        view,
        subagent: None,
    }
}

/// The HTTP status in codex's error text (`unexpected status 401 Unauthorized: …`,
/// `last status: 429 Too Many Requests`).
fn status_in(text: &str) -> Option<u16> {
    let at = text.find("status ").or_else(|| text.find("status: "))?;
    let rest = text[at..].split_once(' ')?.1.trim_start_matches(": ");
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|digits| digits.parse().ok())
}

impl Connection for ExecConnection {
    fn opening(&mut self) -> Vec<OutLine> {
        Vec::new()
    }

    fn receive(&mut self, line: &[u8]) -> Result<Received, crate::provider::LineError> {
        let value: Value = serde_json::from_slice(line)?;
        Ok(Received {
            replies: Vec::new(),
            events: self.translate(&value),
            close_input: false,
        })
    }

    // The message is in the command line and the input is closed: nothing is ever written.
    fn send(&mut self, _input: &UserInput) -> Vec<OutLine> {
        Vec::new()
    }

    fn interrupt(&mut self) -> Vec<OutLine> {
        Vec::new()
    }

    fn answer_permission(
        &mut self,
        _request: &PermissionRequest,
        _option: &PermissionOption,
        _message: Option<&str>,
    ) -> Vec<OutLine> {
        Vec::new()
    }

    fn answer_question(
        &mut self,
        _request: &QuestionRequest,
        _response: &QuestionResponse,
    ) -> Vec<OutLine> {
        Vec::new()
    }

    fn refuse(&mut self, _request_id: &str, _message: &str) -> Vec<OutLine> {
        Vec::new()
    }

    fn set_model(&mut self, model: Option<&str>) -> Vec<OutLine> {
        // The next process is started with it (the session task keeps the model).
        self.model = model.map(str::to_owned);
        Vec::new()
    }

    fn set_permission_mode(&mut self, _mode: PermissionMode) -> Vec<OutLine> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_to_one_argument_at_a_char_boundary() {
        let long = UserInput::text("日本語".repeat(20_000));
        let (argument, cut) = prompt_argument(&long);
        assert!(cut);
        assert!(argument.len() <= MAX_ARGUMENT_BYTES);
        assert!(argument.ends_with("the message had 180000 bytes]"));
        let (short, cut) = prompt_argument(&UserInput::text("-- hi"));
        assert_eq!((short.as_str(), cut), ("-- hi", false));
    }

    #[test]
    fn http_statuses_are_read_from_codex_error_text() {
        assert_eq!(
            status_in("unexpected status 401 Unauthorized: Incorrect API key"),
            Some(401)
        );
        assert_eq!(
            status_in("exceeded retry limit, last status: 429 Too Many Requests"),
            Some(429)
        );
        assert_eq!(status_in("stream disconnected before completion"), None);
    }

    #[test]
    fn the_command_line_ends_with_the_message_after_a_double_dash() {
        let provider = CodexExecProvider::new("codex".into());
        let command = provider.command(&Launch {
            model: Some("gpt-5.5".into()),
            resume: Some("t1".into()),
            append_system_prompt: Some("say \"hi\"\nplease".into()),
            input: Some(UserInput::text("--help")),
            ..Launch::default()
        });
        let args: Vec<String> = command
            .args
            .iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        assert_eq!(&args[args.len() - 4..], ["resume", "t1", "--", "--help"]);
        assert!(args.contains(&r#"developer_instructions="say \"hi\"\nplease""#.to_owned()));
    }
}
