//! Fast replay of every captured Codex fixture (`tests/fixtures/codex`, both directions of a
//! real `codex app-server` run): codex's lines go through a fresh [`CodexConnection`] and the
//! session state machine; codiva's lines are checked against what the connection writes.
//!
//! The host's actions are read off codiva's captured lines: a `turn/start` or `turn/steer`
//! that the connection did not write by itself is a message sent (`send`), a `turn/interrupt`
//! an interrupt, an answer `{"decision":…}` the user's answer to the open permission prompt.
//! Every other line codiva wrote (the handshake, a message queued until the thread existed,
//! an interrupt waiting for its turn) must be exactly what the connection produced, in order.
//! A second `initialize` starts a new process (the resume fixture holds two).

use std::collections::VecDeque;

use codiva_core::agent_event::AgentEvent;
use codiva_core::codex::CodexConnection;
use codiva_core::provider::{Connection, Launch, OutLine};
use codiva_core::session_state::{Input, SessionState};
use codiva_protocol::UserInput;
use codiva_protocol::agent::PermissionRequest;
use codiva_protocol::input::ImageInput;
use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{PromptResolution, SessionEvent, Status};
use codiva_protocol::tool::{PermissionOptionKind, ToolContent};
use serde_json::Value;

use Status::{Completed, Failed, Interrupted, NeedsLogin};

/// The status after each `turn/completed` of a fixture, in order.
const EXPECTED: &[(&str, &[Status])] = &[
    ("codex-basic", &[Completed]),
    ("codex-command-accept", &[Completed]),
    ("codex-command-cancel", &[Interrupted]),
    ("codex-command-decline", &[Completed]),
    ("codex-command-session", &[Completed, Completed]),
    ("codex-file-change", &[Completed]),
    ("codex-http-401", &[NeedsLogin]),
    ("codex-image", &[Completed, Completed]),
    ("codex-interrupt", &[Interrupted, Completed]),
    ("codex-plan", &[Completed]),
    ("codex-resume", &[Completed, Completed]),
    ("codex-resume-first", &[Completed]),
    // The steering message is folded into the running turn: one turn/completed for both.
    ("codex-steer", &[Completed]),
    ("codex-stream-cut", &[Failed]),
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

/// The launch a process was started for, read off its `thread/start` or `thread/resume`.
fn launch_of(lines: &[(bool, String)], from: usize) -> Launch {
    let params = lines[from..]
        .iter()
        .filter(|(ours, _)| *ours)
        .map(|(_, line)| json(line))
        .find(|line| {
            matches!(
                line["method"].as_str(),
                Some("thread/start" | "thread/resume")
            )
        })
        .map(|line| line["params"].clone())
        .unwrap_or(Value::Null);
    let text = |key: &str| params[key].as_str().map(str::to_owned);
    Launch {
        model: text("model"),
        permission_mode: text("approvalPolicy").map(|policy| codiva_core::codex::mode_of(&policy)),
        resume: params.get("excludeTurns").and_then(|_| text("threadId")),
        append_system_prompt: text("developerInstructions"),
        input: None,
        cwd: std::path::PathBuf::new(),
        extras: Default::default(),
    }
}

fn replay(name: &str) -> Replayed {
    let path = crate::fixtures::codex_dir().join(format!("{name}.jsonl"));
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
    let mut connection: Option<CodexConnection> = None;
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
                            code: Some(0),
                            signal: None,
                            stderr_tail: String::new(),
                            requested: true,
                        },
                    );
                }
                let mut fresh = CodexConnection::new(launch_of(&lines, index));
                produced = fresh.opening().into();
                connection = Some(fresh);
                apply(&mut state, Input::ProcessStarted);
            }
            let conn = connection.as_mut().expect("a line before initialize");
            if produced.is_empty() {
                let written = match method {
                    "turn/start" | "turn/steer" => {
                        let text = value["params"]["input"][0]["text"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned();
                        apply(
                            &mut state,
                            Input::UserSent {
                                text: text.clone(),
                                echo: text.clone(),
                            },
                        );
                        let images = value["params"]["input"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|item| item["url"].as_str()?.strip_prefix("data:"))
                            .filter_map(|url| {
                                let (media_type, data) = url.split_once(";base64,")?;
                                Some(ImageInput {
                                    media_type: media_type.to_owned(),
                                    data: data.to_owned(),
                                })
                            })
                            .collect();
                        conn.send(&UserInput::with_images(text, images))
                    }
                    "turn/interrupt" => {
                        apply(&mut state, Input::InterruptRequested);
                        conn.interrupt()
                    }
                    _ => {
                        let decision = &value["result"]["decision"];
                        assert!(
                            !decision.is_null(),
                            "[{name}] unexpected line of ours: {line}"
                        );
                        let request = open.remove(0);
                        let kind = match decision.as_str() {
                            Some("accept") => PermissionOptionKind::AllowOnce,
                            Some("acceptForSession") => PermissionOptionKind::AllowAlways,
                            Some("decline") => PermissionOptionKind::Deny,
                            Some("cancel") => PermissionOptionKind::DenyAndStop,
                            _ => panic!("[{name}] a decision codiva does not send: {decision}"),
                        };
                        let option = request.option_of(kind).expect("the option").clone();
                        let resolution = match kind {
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
                        if kind == PermissionOptionKind::DenyAndStop {
                            apply(&mut state, Input::InterruptRequested);
                        }
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
    let names = crate::support::fixture_names(&crate::fixtures::codex_dir());
    let listed: Vec<&str> = EXPECTED.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, listed, "every fixture is listed in EXPECTED");
    for (name, expected) in EXPECTED {
        let replayed = replay(name);
        assert_eq!(replayed.statuses, *expected, "[{name}]");
        assert!(
            replayed.state.snapshot().prompts.is_empty(),
            "[{name}] prompts left open"
        );
        crate::support::assert_restore_shows_what_was_shown(name, "codex", &replayed.events);
    }
}

fn assistant_texts(replayed: &Replayed) -> Vec<String> {
    replayed
        .state
        .snapshot()
        .log
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Assistant { text } => Some(text),
            _ => None,
        })
        .collect()
}

#[test]
fn streamed_text_is_logged_once_complete_with_usage_and_catalog() {
    let replayed = replay("codex-basic");
    let streamed: String = replayed
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Stream { text, reset: false } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let texts = assistant_texts(&replayed);
    assert_eq!(texts.len(), 1);
    assert_eq!(streamed, texts[0]);
    let snapshot = replayed.state.snapshot();
    assert!(snapshot.usage.tokens.input > 0);
    assert!(snapshot.usage.context_window.is_some());
    assert!(replayed.agent_events.iter().any(|event| matches!(
        event,
        AgentEvent::Connected(info) if info.models.len() > 5 && info.version.is_some()
    )));
}

#[test]
fn command_output_streams_into_the_running_call() {
    let replayed = replay("codex-command-accept");
    let updates: Vec<Option<String>> = replayed
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Log { entry, .. } => match &entry.kind {
                EntryKind::Tool(tool) if tool.status == ToolStatus::Running => {
                    match &tool.view.content[..] {
                        [ToolContent::Terminal { output, .. }] => Some(output.clone()),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        updates.first(),
        Some(&None),
        "the call starts without output"
    );
    // Measured: the first output comes with the command's first yield, not as a delta; the
    // later lines stream.
    assert!(
        updates
            .iter()
            .any(|output| output.as_deref() == Some("made 2\n")),
        "{updates:?}"
    );
}

#[test]
fn a_declined_command_is_a_denied_tool() {
    let replayed = replay("codex-command-decline");
    let tools: Vec<_> = replayed
        .state
        .snapshot()
        .log
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Tool(tool) => Some(tool),
            _ => None,
        })
        .collect();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].status, ToolStatus::Denied);
    assert_eq!(tools[0].name, "shell");
}

#[test]
fn a_file_change_request_shows_each_file_as_a_diff() {
    let replayed = replay("codex-file-change");
    let request = replayed
        .agent_events
        .iter()
        .find_map(|event| match event {
            AgentEvent::PermissionRequest(request) => Some(request.clone()),
            _ => None,
        })
        .expect("a permission request");
    assert_eq!(request.tool, "apply_patch");
    let diffs: Vec<(&str, Option<&str>, &str)> = request
        .view
        .content
        .iter()
        .filter_map(|content| match content {
            ToolContent::Diff { path, old, new } => {
                Some((path.as_str(), old.as_deref(), new.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        diffs,
        vec![
            (
                "<CWD>/README.md",
                Some("# test repo\n"),
                "# test repo\nPatched by codex.\n"
            ),
            ("<CWD>/hello.txt", None, "hello from codex\n日本語の行\n"),
        ]
    );
}

#[test]
fn a_plan_update_replaces_the_todo_list() {
    let replayed = replay("codex-plan");
    let progress: Vec<(usize, usize)> = replayed
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Todos { progress, .. } => Some((progress.done, progress.total)),
            _ => None,
        })
        .collect();
    assert_eq!(progress, vec![(0, 3), (1, 3)]);
}

#[test]
fn retries_are_reported_and_the_final_error_is_the_reason() {
    let replayed = replay("codex-stream-cut");
    let retries: Vec<(u32, u32)> = replayed
        .agent_events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Retrying(retry) => Some((retry.attempt, retry.max)),
            _ => None,
        })
        .collect();
    assert_eq!(retries, vec![(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]);
    assert!(assistant_texts(&replayed).is_empty(), "no cut text is kept");
    let snapshot = replayed.state.snapshot();
    assert!(snapshot.log.iter().any(|entry| matches!(
        &entry.kind,
        EntryKind::Note { text, .. } if text.contains("stream disconnected before completion")
    )));

    let replayed = replay("codex-http-401");
    assert!(replayed.agent_events.iter().any(|event| matches!(
        event,
        AgentEvent::Retrying(retry) if retry.status == Some(401)
    )));
}

#[test]
fn a_resumed_thread_keeps_its_id_and_does_not_count_old_usage_again() {
    let first = replay("codex-resume-first");
    let replayed = replay("codex-resume");
    let first_id = first.state.snapshot().agent_session_id;
    assert!(first_id.is_some());
    assert_eq!(replayed.state.snapshot().agent_session_id, first_id);
    // Both processes of the resume fixture report usage: the second one first repeats the
    // last turn's usage before any turn runs; only the two turns' responses count.
    let counted = replayed
        .agent_events
        .iter()
        .filter(|event| matches!(event, AgentEvent::Usage { .. }))
        .count();
    assert_eq!(counted, 2);
}

/// The status after each process of a `codex exec --json` fixture (one process per message).
const EXPECTED_EXEC: &[(&str, &[Status])] = &[
    ("codex-exec-command", &[Completed, Completed]),
    ("codex-exec-http-401", &[NeedsLogin]),
    // The first process was stopped mid-turn (interrupt), the second one completed.
    ("codex-exec-interrupt", &[Interrupted, Completed]),
    ("codex-exec-long", &[Completed]),
];

/// Replays an exec fixture: each `thread.started` is a new process started for a message; a
/// process whose turn did not end was stopped by an interrupt.
fn replay_exec(name: &str) -> (SessionState, Vec<Status>) {
    use codiva_core::codex::exec::ExecConnection;
    let path = crate::fixtures::codex_exec_dir().join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path:?}: {err}"));
    let mut state = SessionState::new();
    let mut now = 0;
    let mut apply = |state: &mut SessionState, input: Input| {
        now += 10;
        state.apply(now, input);
    };
    let mut statuses = Vec::new();
    let mut connection: Option<ExecConnection> = None;
    let end_process = |state: &mut SessionState,
                       apply: &mut dyn FnMut(&mut SessionState, Input),
                       statuses: &mut Vec<Status>| {
        let stopped = state.turn_open();
        if stopped {
            apply(state, Input::InterruptRequested);
        }
        apply(
            state,
            Input::ProcessExited {
                code: Some(0),
                signal: None,
                stderr_tail: String::new(),
                requested: true,
            },
        );
        state.drain_events();
        statuses.push(state.snapshot().status);
    };
    for line in text.lines() {
        let line = line.strip_prefix("<< ").expect("codex's lines only");
        if json(line)["type"] == "thread.started" {
            if connection.is_some() {
                end_process(&mut state, &mut apply, &mut statuses);
            }
            connection = Some(ExecConnection::new(&Launch::default()));
            apply(&mut state, Input::ProcessStarted);
            let message = Input::UserSent {
                text: "message".to_owned(),
                echo: "message".to_owned(),
            };
            apply(&mut state, message);
        }
        let conn = connection.as_mut().expect("a line before thread.started");
        let received = conn.receive(line.as_bytes()).expect("a readable line");
        assert!(received.replies.is_empty(), "exec is never written to");
        for event in received.events {
            apply(&mut state, Input::Agent(event));
        }
    }
    end_process(&mut state, &mut apply, &mut statuses);
    (state, statuses)
}

#[test]
fn every_exec_fixture_replays_to_its_statuses() {
    let names = crate::support::fixture_names(&crate::fixtures::codex_exec_dir());
    let listed: Vec<&str> = EXPECTED_EXEC.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, listed, "every fixture is listed in EXPECTED_EXEC");
    for (name, expected) in EXPECTED_EXEC {
        let (_, statuses) = replay_exec(name);
        assert_eq!(statuses, *expected, "[{name}]");
    }
    let (state, _) = replay_exec("codex-exec-command");
    let log = state.snapshot().log;
    assert!(log.iter().any(|entry| matches!(
        &entry.kind,
        EntryKind::Tool(tool) if tool.name == "shell" && tool.status == ToolStatus::Succeeded
    )));
    assert!(
        log.iter()
            .any(|entry| matches!(&entry.kind, EntryKind::Thinking { .. }))
    );
}
