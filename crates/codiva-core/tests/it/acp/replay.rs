//! Fast replay of every captured ACP fixture (`tests/fixtures/acp`, both directions of real
//! codex-acp, claude-code-acp and Gemini CLI runs): the agent's lines go through a fresh [`AcpConnection`]
//! (from the preset of the agent that wrote them) and the session state machine; codiva's
//! lines are checked against what the connection writes.
//!
//! The host's actions are read off codiva's captured lines: a `session/prompt` the connection
//! did not write by itself is a message sent, a `session/cancel` an interrupt, an answer
//! `{"outcome":{"outcome":"selected","optionId":…}}` the user's choice of that option in the
//! open permission prompt, a model or mode request the user's choice of that model or mode.
//! The system prompt a process was launched with is read off its `session/new` (`_meta`) or
//! the standing instructions opening its first prompt. Every other line codiva wrote (the handshake, a message queued until
//! the session existed) must be exactly what the connection produced, in order. A second
//! `initialize` starts a new process (the load fixtures hold one each).

use std::collections::VecDeque;
use std::path::PathBuf;

use codiva_core::acp::{AcpAgent, AcpConnection};
use codiva_core::agent_event::AgentEvent;
use codiva_core::provider::{Connection, Launch, OutLine};
use codiva_core::session_state::{Input, SessionState};
use codiva_protocol::UserInput;
use codiva_protocol::agent::PermissionRequest;
use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{PromptResolution, SessionEvent, Status};
use codiva_protocol::tool::{PermissionMode, PermissionOptionKind};
use serde_json::Value;

use Status::{Completed, Interrupted, NeedsLogin};

/// The status after each turn's end of a fixture, in order. A reject ends codex-acp's prompt
/// `cancelled` and claude-code-acp's `end_turn`: each status is what the agent said.
const EXPECTED: &[(&str, &[Status])] = &[
    ("acp-claude-basic", &[Completed]),
    ("acp-claude-cancel", &[Interrupted, Completed]),
    ("acp-claude-http-401", &[NeedsLogin]),
    // The first process and, after it was stopped, the one that loads the conversation.
    ("acp-claude-load", &[Completed, Completed]),
    ("acp-claude-load-first", &[Completed]),
    ("acp-claude-model-mode", &[Completed, Completed]),
    ("acp-claude-permission-allow", &[Completed]),
    ("acp-claude-permission-deny", &[Completed]),
    ("acp-claude-plan", &[Completed]),
    ("acp-claude-system-prompt", &[Completed]),
    ("acp-codex-basic", &[Completed]),
    ("acp-codex-cancel", &[Interrupted, Completed]),
    ("acp-codex-http-401", &[NeedsLogin]),
    ("acp-codex-load", &[Completed, Completed]),
    ("acp-codex-load-first", &[Completed]),
    ("acp-codex-model-mode", &[Completed, Completed]),
    ("acp-codex-permission-allow", &[Completed]),
    ("acp-codex-permission-deny", &[Interrupted]),
    ("acp-codex-plan", &[Completed]),
    ("acp-codex-system-prompt", &[Completed]),
    ("acp-gemini-basic", &[Completed]),
    ("acp-gemini-cancel", &[Interrupted, Completed]),
    ("acp-gemini-http-401", &[NeedsLogin]),
    ("acp-gemini-load", &[Completed, Completed]),
    ("acp-gemini-load-first", &[Completed]),
    ("acp-gemini-model-mode", &[Completed, Completed]),
    ("acp-gemini-permission-allow", &[Completed]),
    ("acp-gemini-permission-deny", &[Completed]),
    ("acp-gemini-system-prompt", &[Completed, Completed]),
    ("acp-gemini-todos", &[Completed]),
    ("acp-gemini-write-file", &[Completed]),
];

struct Replayed {
    state: SessionState,
    events: Vec<SessionEvent>,
    agent_events: Vec<AgentEvent>,
    statuses: Vec<Status>,
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("not JSON ({err}): {text}"))
}

/// The preset of the agent that wrote fixture `name`.
fn agent_of(name: &str) -> AcpAgent {
    if name.starts_with("acp-claude") {
        AcpAgent::claude_code_acp(PathBuf::from("claude-code-acp"))
    } else if name.starts_with("acp-gemini") {
        AcpAgent::gemini(PathBuf::from("gemini"))
    } else {
        AcpAgent::codex_acp(PathBuf::from("codex-acp"))
    }
}

const INSTRUCTIONS_END: &str = "\n[End of standing instructions]\n\n";

/// A first message's standing instructions and the user's text after them.
fn split_instructions(text: &str) -> (Option<String>, String) {
    match (
        text.strip_prefix("[Standing instructions"),
        text.split_once(INSTRUCTIONS_END),
    ) {
        (Some(_), Some((head, rest))) => {
            let instructions = head.split_once('\n').map(|(_, body)| body.to_owned());
            (instructions, rest.to_owned())
        }
        _ => (None, text.to_owned()),
    }
}

/// The launch a process was started for: a `session/load` of ours names the conversation;
/// the system prompt is in `session/new`'s `_meta` or opens the first prompt.
fn launch_of(lines: &[(bool, String)], from: usize) -> Launch {
    let ours: Vec<Value> = lines[from..]
        .iter()
        .filter(|(ours, _)| *ours)
        .map(|(_, line)| json(line))
        .collect();
    let opening = || {
        ours.iter()
            .skip(1)
            .take_while(|line| line["method"] != "initialize")
    };
    let resume = opening()
        .take_while(|line| line["method"] != "session/prompt")
        .find(|line| line["method"] == "session/load")
        .and_then(|line| line["params"]["sessionId"].as_str().map(str::to_owned));
    let meta = opening()
        .find(|line| line["method"] == "session/new")
        .and_then(|line| {
            let meta = &line["params"]["_meta"];
            meta.pointer("/systemPrompt/append")
                .or(meta.get("rules"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let first_prompt = opening()
        .find(|line| line["method"] == "session/prompt")
        .and_then(|line| {
            line["params"]["prompt"][0]["text"]
                .as_str()
                .map(str::to_owned)
        })
        .and_then(|text| split_instructions(&text).0);
    Launch {
        resume,
        append_system_prompt: meta.or(first_prompt),
        cwd: PathBuf::from("<CWD>"),
        ..Launch::default()
    }
}

fn replay(name: &str) -> Replayed {
    let path = crate::fixtures::acp_dir().join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path:?}: {err}"));
    let lines: Vec<(bool, String)> = text
        .lines()
        .map(
            |line| match (line.strip_prefix(">> "), line.strip_prefix("<< ")) {
                (Some(ours), _) => (true, ours.to_owned()),
                (_, Some(theirs)) => (false, theirs.to_owned()),
                _ => panic!("[{name}] a line without direction: {line}"),
            },
        )
        .collect();
    let mut state = SessionState::new();
    let mut watch = crate::view::Watch::new(name);
    let mut now = 0;
    let mut apply = |state: &mut SessionState, input: Input| {
        now += 10;
        state.apply(now, input);
    };
    let mut connection: Option<AcpConnection> = None;
    let mut produced: VecDeque<OutLine> = VecDeque::new();
    let mut open: Vec<PermissionRequest> = Vec::new();
    let mut events = Vec::new();
    let mut agent_events = Vec::new();
    let mut statuses = Vec::new();
    for (index, (ours, line)) in lines.iter().enumerate() {
        if *ours {
            let value = json(line);
            let method = value["method"].as_str().unwrap_or_default();
            if method == "initialize" {
                if connection.is_some() {
                    apply(
                        &mut state,
                        Input::ProcessExited {
                            code: None,
                            signal: Some(15),
                            stderr_tail: String::new(),
                            requested: true,
                        },
                    );
                }
                let mut fresh = AcpConnection::new(agent_of(name), launch_of(&lines, index));
                produced = fresh.opening().into();
                connection = Some(fresh);
                apply(&mut state, Input::ProcessStarted);
            }
            let conn = connection.as_mut().expect("a line before initialize");
            if produced.is_empty() {
                let written = match method {
                    "session/prompt" => {
                        let captured = value["params"]["prompt"][0]["text"]
                            .as_str()
                            .unwrap_or_default();
                        let (_, text) = split_instructions(captured);
                        apply(
                            &mut state,
                            Input::UserSent {
                                text: text.clone(),
                                echo: text.clone(),
                            },
                        );
                        conn.send(&UserInput::text(text))
                    }
                    "session/cancel" => {
                        apply(&mut state, Input::InterruptRequested);
                        conn.interrupt()
                    }
                    "session/set_model" | "session/set_config_option" => {
                        let params = &value["params"];
                        let model = params["modelId"].as_str().or(params["value"].as_str());
                        conn.set_model(model)
                    }
                    "session/set_mode" => {
                        let id = value["params"]["modeId"].as_str().unwrap_or_default();
                        conn.set_permission_mode(agent_of(name).mode_of(id))
                    }
                    _ => {
                        let chosen = value["result"]["outcome"]["optionId"]
                            .as_str()
                            .unwrap_or_else(|| panic!("[{name}] unexpected line of ours: {line}"));
                        let request = open.remove(0);
                        let option = request.option(chosen).expect("an offered option").clone();
                        let resolution = match option.kind {
                            PermissionOptionKind::Deny | PermissionOptionKind::DenyAndStop => {
                                PromptResolution::Denied
                            }
                            _ => PromptResolution::Allowed,
                        };
                        apply(
                            &mut state,
                            Input::PromptAnswered {
                                request_id: request.request_id.clone(),
                                resolution,
                            },
                        );
                        conn.answer_permission(&request, &option, None)
                    }
                };
                produced.extend(written);
            }
            let next = produced.pop_front().unwrap_or_else(|| {
                panic!("[{name}] codiva wrote nothing for line {index}: {line}")
            });
            assert_eq!(
                json(next.as_str()),
                value,
                "[{name}] line {index}: what the connection writes differs from the capture"
            );
            continue;
        }
        let conn = connection.as_mut().expect("a line before initialize");
        let received = conn
            .receive(line.as_bytes())
            .unwrap_or_else(|err| panic!("[{name}] line {index} unreadable: {err}"));
        produced.extend(received.replies);
        for event in received.events {
            agent_events.push(event.clone());
            if let AgentEvent::PermissionRequest(request) = &event {
                open.push(request.clone());
            }
            let ended = matches!(event, AgentEvent::TurnEnded(_));
            apply(&mut state, Input::Agent(event));
            events.extend(watch.drain(&mut state));
            if ended {
                statuses.push(state.snapshot().status);
            }
        }
        events.extend(watch.drain(&mut state));
    }
    assert!(
        produced.is_empty(),
        "[{name}] the connection wrote lines the capture does not have: {produced:?}"
    );
    watch.finish();
    Replayed {
        state,
        events,
        agent_events,
        statuses,
    }
}

#[test]
fn every_fixture_replays_to_its_statuses() {
    let names = crate::support::fixture_names(&crate::fixtures::acp_dir());
    let listed: Vec<&str> = EXPECTED.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, listed, "every fixture is listed in EXPECTED");
    for (name, expected) in EXPECTED {
        let replayed = replay(name);
        assert_eq!(replayed.statuses, *expected, "[{name}]");
        assert!(
            replayed.state.snapshot().prompts.is_empty(),
            "[{name}] prompts left open"
        );
        crate::support::assert_restore_shows_what_was_shown(name, "acp", &replayed.events);
    }
}

fn logged(replayed: &Replayed) -> Vec<EntryKind> {
    replayed
        .state
        .snapshot()
        .log
        .into_iter()
        .map(|entry| entry.kind)
        .collect()
}

#[test]
fn chunks_become_one_message_and_the_streamed_text_matches_it() {
    for name in ["acp-codex-basic", "acp-claude-basic", "acp-gemini-basic"] {
        let replayed = replay(name);
        let streamed: String = replayed
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Stream { text, reset: false } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let texts: Vec<String> = logged(&replayed)
            .into_iter()
            .filter_map(|kind| match kind {
                EntryKind::Assistant { text } => Some(text),
                _ => None,
            })
            .collect();
        assert_eq!(texts, [streamed], "[{name}]");
    }
}

#[test]
fn a_call_sent_twice_is_one_entry_and_a_rejected_call_is_denied() {
    for (name, status) in [
        ("acp-claude-permission-allow", ToolStatus::Succeeded),
        ("acp-claude-permission-deny", ToolStatus::Denied),
        ("acp-codex-permission-allow", ToolStatus::Succeeded),
        ("acp-codex-permission-deny", ToolStatus::Denied),
        ("acp-gemini-permission-allow", ToolStatus::Succeeded),
        ("acp-gemini-permission-deny", ToolStatus::Denied),
        ("acp-gemini-write-file", ToolStatus::Succeeded),
        ("acp-gemini-todos", ToolStatus::Succeeded),
    ] {
        let replayed = replay(name);
        let tools: Vec<ToolStatus> = logged(&replayed)
            .into_iter()
            .filter_map(|kind| match kind {
                EntryKind::Tool(tool) => Some(tool.status),
                _ => None,
            })
            .collect();
        assert_eq!(tools, [status], "[{name}]");
    }
}

#[test]
fn model_and_mode_changes_are_reported_as_the_agent_confirms_them() {
    for (name, model, mode) in [
        (
            "acp-claude-model-mode",
            "haiku",
            PermissionMode::AcceptEdits,
        ),
        ("acp-codex-model-mode", "gpt-5.4", PermissionMode::Auto),
        (
            "acp-gemini-model-mode",
            "gemini-3.8-flash",
            PermissionMode::Plan,
        ),
    ] {
        let replayed = replay(name);
        let snapshot = replayed.state.snapshot();
        assert_eq!(snapshot.model.as_deref(), Some(model), "[{name}]");
        assert_eq!(snapshot.permission_mode, Some(mode), "[{name}]");
    }
}

#[test]
fn a_plan_sets_the_todo_list_and_a_load_does_not_log_the_replay() {
    for name in ["acp-claude-plan", "acp-codex-plan"] {
        let replayed = replay(name);
        let done: Vec<usize> = replayed
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Todos { progress, .. } => Some(progress.done),
                _ => None,
            })
            .collect();
        assert_eq!(done, [0, 1], "[{name}]");
    }
    // Gemini CLI's replay trails the load's answer: still not logged.
    for name in ["acp-claude-load", "acp-codex-load", "acp-gemini-load"] {
        let replayed = replay(name);
        let texts: Vec<String> = logged(&replayed)
            .into_iter()
            .filter_map(|kind| match kind {
                EntryKind::Assistant { text } => Some(text),
                _ => None,
            })
            .collect();
        // The loaded process replays the first answer; the log keeps it once.
        assert_eq!(
            texts,
            ["I will remember kiwi.", "You said kiwi."],
            "[{name}]"
        );
        assert!(
            !replayed
                .agent_events
                .iter()
                .any(|event| matches!(event, AgentEvent::Note { .. })),
            "[{name}] the conversation loaded"
        );
    }
}
