//! Fast replay of every captured Claude fixture: each stdout line is parsed, translated and
//! reduced by the session state machine, without a process or a model server.
//!
//! The host's side is not in a capture, so it is reconstructed from what the CLI echoes
//! (`--replay-user-messages`):
//! * `Input::ProcessStarted` first;
//! * `Input::UserSent` for every `isReplay` user echo, placed where the host sent it: before the
//!   `system/init` that opened the echo's turn (the echo itself comes after the init, and a
//!   turn the CLI starts by itself — no host message — opens its own turn in the reducer);
//! * a `control_response` echo of a `can_use_tool` request id → `Input::PromptAnswered`
//!   (`deny` with `interrupt:true` also → `Input::InterruptRequested`, as the driver does);
//! * a `control_response` to one of codiva's own requests → the translator is told what was
//!   asked (`initialize`, `interrupt` (+ `Input::InterruptRequested`), `set_model`,
//!   `set_permission_mode`), judged by the answer's shape;
//! * process boundaries (captures of restarts hold several processes' stdout in a row): a
//!   second `initialize` answer means a new process (the previous one, if still up, was
//!   killed: `ProcessExited` by signal 9, then `ProcessStarted`); a failed `--resume` result
//!   (`No conversation found…`) comes from a process of its own that exits right after it.
//!
//! Where the host sent a message is only known up to the turn it opened, so a message queued
//! behind a running turn (claude-queued-message) replays as if sent after that turn's end; a
//! second echo inside one turn is a message the CLI folded into it (claude-folded-*), replayed
//! as sent just before its echo.
//!
//! Every fixture must be listed in [`EXPECTED`] with the status after each of its `result`
//! lines, so a new capture cannot be silently skipped.

use std::collections::{HashMap, HashSet};

use codiva_core::agent_event::AgentEvent;
use codiva_core::claude::translate::{ASK_USER_QUESTION, Translator};
use codiva_core::history::{History, Outcome};
use codiva_core::session_state::{Input, SessionState};
use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{PromptResolution, Scope, SessionEvent, Status};
use codiva_wire::claude::{CliRequest, ContentBlock, HostRequest, Inbound, UserLine, parse_line};
use serde_json::Value;

use Status::{Completed, Failed, Interrupted, NeedsLogin, RateLimited, Running};

/// The status after each `result` line of a fixture, in order (the last one is the final
/// status). Written from each fixture's `result` lines: `completed` → Completed,
/// `aborted_streaming`/`aborted_tools` → Interrupted, `api_error` → NeedsLogin (401),
/// RateLimited (429) or Failed; a result while a background agent still runs → Running.
const EXPECTED: &[(&str, &[Status])] = &[
    ("claude-api-401", &[NeedsLogin]),
    ("claude-api-529", &[Completed]),
    ("claude-api-529-exhausted", &[Failed]),
    ("claude-ask-user-question", &[Completed]),
    ("claude-ask-user-question-decline", &[Completed]),
    ("claude-bash", &[Completed]),
    ("claude-basic-ja", &[Completed]),
    ("claude-deny-and-stop", &[Interrupted, Completed]),
    // A message sent mid-turn is folded into it: one result for both, then a next turn.
    ("claude-folded-during-bash", &[Completed, Completed]),
    ("claude-folded-during-permission", &[Completed, Completed]),
    ("claude-folded-during-question", &[Completed, Completed]),
    ("claude-interrupt", &[Interrupted, Completed]),
    ("claude-interrupt-bash", &[Interrupted, Completed]),
    (
        "claude-interrupt-during-permission",
        &[Interrupted, Completed],
    ),
    // Killed mid-turn (first process), a failed --resume (second process, its result is the
    // resume failure: the kill's Interrupted stands), then a fresh third process.
    ("claude-killed-before-transcript", &[Interrupted, Completed]),
    // Killed mid-turn (no result), restarted, then a normal turn.
    ("claude-killed-midturn", &[Completed]),
    (
        "claude-message-after-result",
        &[Completed, Completed, Completed],
    ),
    (
        "claude-oauth-plan-usage",
        &[Completed, Completed, RateLimited, Completed],
    ),
    ("claude-parallel-tools", &[Completed]),
    ("claude-queued-message", &[Completed, Completed]),
    ("claude-resume", &[Completed]),
    ("claude-resume-first", &[Completed]),
    ("claude-set-model", &[Completed, Completed]),
    ("claude-set-permission-mode", &[Completed, Completed]),
    ("claude-stream-cut", &[Completed]),
    ("claude-task-agent", &[Completed]),
    // The parent turn ends while its background agent runs (completion gate); the agent
    // finishes and the CLI starts the hand-back turn by itself.
    ("claude-task-agent-bg", &[Running, Completed]),
    ("claude-todo-tasks", &[Completed]),
    ("claude-todo-write", &[Completed]),
    ("claude-two-turns", &[Completed, Completed]),
    ("claude-write-allow", &[Completed]),
    ("claude-write-allow-always", &[Completed]),
    ("claude-write-deny", &[Completed]),
];

struct Fixture {
    name: String,
    lines: Vec<String>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = crate::fixtures::dir();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixtures in {}", dir.display());
    paths
        .into_iter()
        .map(|path| Fixture {
            name: path.file_stem().unwrap().to_string_lossy().into_owned(),
            lines: std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(str::to_owned)
                .collect(),
        })
        .collect()
}

/// What the host did, reconstructed, or a line the CLI wrote.
enum Step {
    UserSent(String),
    Line(usize),
}

/// `true` for the echo of a message the host sent (not the `<local-command-stdout>` echo that
/// follows `set_model`).
fn is_host_echo(line: &UserLine) -> bool {
    line.is_replay && !line.text().starts_with("<local-command-stdout>")
}

fn plan(parsed: &[Inbound]) -> Vec<Step> {
    let mut before: HashMap<usize, Vec<String>> = HashMap::new();
    let mut turn_start: Option<usize> = None;
    let mut echoed_in_turn = false;
    for (index, line) in parsed.iter().enumerate() {
        match line {
            Inbound::System(codiva_wire::claude::System::Init(_)) => {
                turn_start = Some(index);
                echoed_in_turn = false;
            }
            Inbound::Result(_) => turn_start = None,
            Inbound::User(user) if is_host_echo(user) => {
                // A second echo in one turn is a message the CLI folded into it: the host
                // sent it while the turn ran, any time before its echo.
                let at = match turn_start {
                    Some(start) if !echoed_in_turn => start,
                    _ => index,
                };
                echoed_in_turn = true;
                before.entry(at).or_default().push(user.text());
            }
            _ => {}
        }
    }
    let mut steps = Vec::new();
    for index in 0..parsed.len() {
        for text in before.remove(&index).unwrap_or_default() {
            steps.push(Step::UserSent(text));
        }
        steps.push(Step::Line(index));
    }
    steps
}

/// The answer to `initialize` (the first thing a new process prints).
fn is_initialize_answer(line: &Inbound) -> bool {
    matches!(line, Inbound::ControlResponse(response)
        if response.response.response.as_ref().is_some_and(|answer| answer.get("commands").is_some()))
}

/// The result a process started with `--resume <unknown id>` prints before exiting.
fn is_resume_failure(line: &Inbound) -> bool {
    matches!(line, Inbound::Result(result)
        if result.terminal_reason.is_none()
            && result.errors.iter().any(|error| error.starts_with("No conversation found")))
}

/// Texts a person could read in one log entry.
fn entry_texts(kind: &EntryKind) -> Vec<&str> {
    match kind {
        EntryKind::User { text }
        | EntryKind::Assistant { text }
        | EntryKind::Thinking { text }
        | EntryKind::SubagentPrompt { text }
        | EntryKind::Note { text, .. } => vec![text.as_str()],
        EntryKind::Tool(tool) => {
            let mut texts = vec![tool.summary.as_str(), tool.tool_use_id.as_str()];
            texts.extend(tool.result.as_deref());
            texts
        }
    }
}

/// Texts a line carries (assistant blocks, user text, tool results and their ids).
fn line_texts(line: &Inbound) -> Vec<String> {
    let block_texts = |blocks: &[ContentBlock]| -> Vec<String> {
        blocks
            .iter()
            .flat_map(|block| match block {
                ContentBlock::Text { text } => vec![text.clone()],
                ContentBlock::Thinking { thinking, .. } => vec![thinking.clone()],
                ContentBlock::ToolUse { id, .. } => vec![id.clone()],
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    ..
                } => vec![tool_use_id.clone(), content.to_text()],
                _ => Vec::new(),
            })
            .collect()
    };
    match line {
        Inbound::Assistant(assistant) => block_texts(&assistant.message.content),
        Inbound::User(user) => {
            let mut texts = vec![user.text()];
            if let codiva_wire::claude::UserContent::Blocks(blocks) = &user.message.content {
                texts.extend(block_texts(blocks));
            }
            texts
        }
        Inbound::Result(result) => result.result.iter().cloned().collect(),
        _ => Vec::new(),
    }
    .into_iter()
    .filter(|text| !text.trim().is_empty())
    .collect()
}

fn parent_of(line: &Inbound) -> Option<&str> {
    match line {
        Inbound::Assistant(assistant) => assistant.parent_tool_use_id.as_deref(),
        Inbound::User(user) => user.parent_tool_use_id.as_deref(),
        Inbound::StreamEvent(event) => event.parent_tool_use_id.as_deref(),
        _ => None,
    }
}

/// Invariants that hold whenever nothing is happening.
fn assert_settled_invariants(name: &str, at: &str, state: &SessionState) {
    let snapshot = state.snapshot();
    assert!(
        snapshot.prompts.is_empty(),
        "{name} {at}: status {:?} with pending prompts {:?}",
        snapshot.status,
        snapshot.prompts
    );
    for entry in state.log().entries() {
        if let EntryKind::Tool(tool) = &entry.kind {
            assert_ne!(
                tool.status,
                ToolStatus::Running,
                "{name} {at}: tool {} ({}) still running while {:?}",
                tool.name,
                tool.tool_use_id,
                snapshot.status
            );
        }
    }
}

pub(crate) struct Replay {
    pub(crate) name: String,
    /// Every event the state machine emitted, in order.
    pub(crate) events: Vec<SessionEvent>,
    /// The state at the end.
    pub(crate) snapshot: codiva_protocol::session::SessionSnapshot,
    statuses_after_results: Vec<Status>,
    main_texts: Vec<String>,
    /// How many texts only subagent lines carry (what the leak check looks for).
    subagent_only: usize,
}

fn replay(fixture: &Fixture) -> Replay {
    let name = fixture.name.as_str();
    let parsed: Vec<Inbound> = fixture
        .lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            parse_line(line.as_bytes()).unwrap_or_else(|err| {
                panic!(
                    "{name}:{}: a real capture must parse: {err}\n{line}",
                    index + 1
                )
            })
        })
        .collect();

    let mut state = SessionState::new();
    let mut translator = Translator::new();
    let mut now = 0u64;
    state.apply(now, Input::ProcessStarted);
    assert_eq!(state.status(), Status::Starting, "{name}");
    let mut process_alive = true;
    let mut initialized = false;

    // can_use_tool request id → is it an AskUserQuestion?
    let mut cli_requests: HashMap<String, bool> = HashMap::new();
    let mut statuses_after_results = Vec::new();
    let mut main_texts = Vec::new();
    let mut events = Vec::new();
    let mut sent_texts = Vec::new();
    let mut history = History::new("claude");
    let mut watch = crate::view::Watch::new(name);

    for step in plan(&parsed) {
        now += 25;
        let index = match step {
            Step::UserSent(text) => {
                sent_texts.push(text.clone());
                state.apply(
                    now,
                    Input::UserSent {
                        echo: text.clone(),
                        text,
                    },
                );
                collect_main(
                    &mut state,
                    &mut watch,
                    &mut main_texts,
                    &mut events,
                    &mut history,
                    now,
                );
                continue;
            }
            Step::Line(index) => index,
        };
        let at = format!("line {}", index + 1);
        let line = parsed[index].clone();
        let resume_failure = is_resume_failure(&line);
        let new_process = if is_initialize_answer(&line) {
            std::mem::replace(&mut initialized, true)
        } else {
            resume_failure
        };
        if new_process {
            if process_alive {
                state.apply(
                    now,
                    Input::ProcessExited {
                        code: None,
                        signal: Some(9),
                        stderr_tail: String::new(),
                        requested: false,
                    },
                );
            }
            state.apply(now, Input::ProcessStarted);
            translator = Translator::new();
            cli_requests.clear();
            process_alive = true;
        }
        match &line {
            Inbound::ControlRequest(request) => {
                if let CliRequest::CanUseTool(ask) = &request.request {
                    cli_requests.insert(
                        request.request_id.clone(),
                        ask.tool_name == ASK_USER_QUESTION,
                    );
                }
            }
            Inbound::ControlResponse(response) => {
                let body = &response.response;
                let answer = body.response.clone().unwrap_or(Value::Null);
                if let Some(question) = cli_requests.remove(&body.request_id) {
                    // The echo of the host's answer: the host answered just before.
                    let allowed = answer["behavior"] == "allow";
                    let resolution = match (question, allowed) {
                        (false, true) => PromptResolution::Allowed,
                        (false, false) => PromptResolution::Denied,
                        (true, true) => PromptResolution::Answered,
                        (true, false) => PromptResolution::Declined,
                    };
                    assert!(
                        state.prompt(&body.request_id).is_some(),
                        "{name} {at}: an answer to a prompt that is not open"
                    );
                    state.apply(
                        now,
                        Input::PromptAnswered {
                            request_id: body.request_id.clone(),
                            resolution,
                        },
                    );
                    if answer["interrupt"] == true {
                        state.apply(now, Input::InterruptRequested);
                    }
                } else {
                    let request = if answer.get("commands").is_some() {
                        Some(HostRequest::Initialize)
                    } else if answer.get("still_queued").is_some() {
                        state.apply(now, Input::InterruptRequested);
                        Some(HostRequest::Interrupt)
                    } else if answer.get("model").is_some() {
                        Some(HostRequest::SetModel(None))
                    } else {
                        answer
                            .get("mode")
                            .and_then(Value::as_str)
                            .map(|mode| HostRequest::SetPermissionMode(mode.to_owned()))
                    };
                    if let Some(request) = request {
                        translator.sent_request(&body.request_id, &request);
                    }
                }
            }
            _ => {}
        }
        let is_result = matches!(line, Inbound::Result(_));
        let prompt_kind = match &line {
            Inbound::ControlRequest(request) => match &request.request {
                CliRequest::CanUseTool(ask) if ask.tool_name == ASK_USER_QUESTION => {
                    Some(Status::AwaitingAnswer)
                }
                CliRequest::CanUseTool(_) => Some(Status::AwaitingPermission),
                _ => None,
            },
            _ => None,
        };
        for event in translator.translate(line) {
            if let AgentEvent::Note { text, .. } = &event {
                assert!(
                    !text.contains("unknown"),
                    "{name} {at}: a real capture has a line kind codiva does not know: {text}"
                );
            }
            state.apply(now, Input::Agent(event));
        }
        if resume_failure {
            // The driver forgets the lost conversation; the process exits without reading.
            state.apply(now, Input::ForgetAgentSession);
            state.apply(
                now,
                Input::ProcessExited {
                    code: Some(1),
                    signal: None,
                    stderr_tail: String::new(),
                    requested: true,
                },
            );
            process_alive = false;
        }
        collect_main(
            &mut state,
            &mut watch,
            &mut main_texts,
            &mut events,
            &mut history,
            now,
        );
        let status = state.status();
        if let Some(expected) = prompt_kind {
            assert_eq!(status, expected, "{name} {at}");
        }
        if is_result {
            statuses_after_results.push(status);
        }
        if status.is_settled() {
            assert_settled_invariants(name, &at, &state);
        }
    }
    assert_settled_invariants(name, "at the end", &state);

    // What the user sent is in the main log.
    let user_entries: Vec<&str> = state
        .log()
        .entries()
        .filter_map(|entry| match &entry.kind {
            EntryKind::User { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(user_entries, sent_texts, "{name}");

    // A completed turn's final text is an assistant entry of the main log.
    for line in &parsed {
        if let Inbound::Result(result) = line
            && !result.is_error
            && let Some(text) = result.result.as_deref().filter(|text| !text.is_empty())
        {
            assert!(
                state.log().entries().any(
                    |entry| matches!(&entry.kind, EntryKind::Assistant { text: t } if t == text)
                ),
                "{name}: the final text {text:?} is not in the main log"
            );
        }
    }

    // Subagent lines never leak into the main log.
    let mut main_line_texts: HashSet<String> = HashSet::new();
    let mut sub_line_texts: HashSet<String> = HashSet::new();
    for line in &parsed {
        let texts = line_texts(line);
        if parent_of(line).is_some() {
            sub_line_texts.extend(texts);
        } else {
            main_line_texts.extend(texts);
        }
    }
    // … and what a subagent wrote is in its own log.
    for line in &parsed {
        if let Inbound::Assistant(assistant) = line
            && let Some(parent) = assistant.parent_tool_use_id.as_deref()
        {
            let log = state
                .subagent_log(parent)
                .unwrap_or_else(|| panic!("{name}: no log for subagent {parent}"));
            for block in &assistant.message.content {
                if let ContentBlock::Text { text } = block {
                    assert!(
                        log.entries().any(|entry| matches!(
                            &entry.kind, EntryKind::Assistant { text: t } if t == text)),
                        "{name}: subagent text {text:?} is not in the log of {parent}"
                    );
                }
            }
        }
    }
    let subagent_only = sub_line_texts.difference(&main_line_texts).count();
    let leaked: Vec<&String> = main_texts
        .iter()
        .filter(|text| sub_line_texts.contains(*text) && !main_line_texts.contains(*text))
        .collect();
    assert!(
        leaked.is_empty(),
        "{name}: subagent text in the main log: {leaked:?}"
    );

    check_history(name, &history, &parsed, &sent_texts, state.status());

    watch.finish();
    Replay {
        name: name.to_owned(),
        events,
        snapshot: state.snapshot(),
        statuses_after_results,
        main_texts,
        subagent_only,
    }
}

/// The history folded from a fixture's events: every message sent, in order, in the turns;
/// every turn settled once the session is; the last turn ends as the session does, with the
/// agent's last answer as its final text.
fn check_history(
    name: &str,
    history: &History,
    parsed: &[Inbound],
    sent_texts: &[String],
    status: Status,
) {
    let users: Vec<&str> = history
        .turns()
        .flat_map(|turn| turn.user.iter().map(|message| message.text.as_str()))
        .collect();
    assert_eq!(users, sent_texts, "{name}: the history's messages");
    assert_eq!(history.dropped_turns, 0, "{name}");
    if !status.is_settled() {
        return;
    }
    assert!(history.open_turn().is_none(), "{name}: a turn left open");
    let last = history
        .turns()
        .last()
        .unwrap_or_else(|| panic!("{name}: no turn"));
    let expected = match status {
        Completed => Outcome::Completed,
        Interrupted => Outcome::Interrupted,
        Failed => Outcome::Failed,
        NeedsLogin => Outcome::NeedsLogin,
        _ => Outcome::RateLimited,
    };
    assert_eq!(last.outcome, Some(expected), "{name}");
    let last_result = parsed.iter().rev().find_map(|line| match line {
        Inbound::Result(result) => Some(result),
        _ => None,
    });
    if status == Completed
        && let Some(text) = last_result
            .filter(|result| !result.is_error)
            .and_then(|result| result.result.as_deref())
            .filter(|text| !text.is_empty())
    {
        assert_eq!(
            last.final_text.as_ref().map(|text| text.text.as_str()),
            Some(text),
            "{name}: the last turn's final text"
        );
    }
}

/// Drains the state's events and keeps the texts of main-scope log entries (new and updated).
/// Every event also goes into the session's neutral history.
fn collect_main(
    state: &mut SessionState,
    watch: &mut crate::view::Watch,
    main_texts: &mut Vec<String>,
    events: &mut Vec<SessionEvent>,
    history: &mut History,
    now: u64,
) {
    for event in watch.drain(state) {
        history.apply(now, &event);
        if let SessionEvent::Log {
            scope: Scope::Main,
            entry,
            ..
        } = &event
        {
            main_texts.extend(entry_texts(&entry.kind).into_iter().map(str::to_owned));
        }
        events.push(event);
    }
}

/// Every fixture, replayed.
pub(crate) fn replay_all() -> Vec<Replay> {
    fixtures().iter().map(replay).collect()
}

#[test]
fn every_fixture_replays_to_its_expected_status() {
    let table: HashMap<&str, &[Status]> = EXPECTED.iter().copied().collect();
    let mut failures = Vec::new();
    let mut subagent_only = 0;
    for fixture in fixtures() {
        let Some(expected) = table.get(fixture.name.as_str()) else {
            failures.push(format!(
                "fixture {} is not in the replay table: add it to EXPECTED in \
                 crates/codiva-core/tests/it/replay.rs with the status after each of its \
                 `result` lines",
                fixture.name
            ));
            continue;
        };
        let replayed = replay(&fixture);
        subagent_only += replayed.subagent_only;
        if replayed.statuses_after_results.as_slice() != *expected {
            failures.push(format!(
                "{}: statuses after each result {:?}, expected {:?}",
                fixture.name, replayed.statuses_after_results, expected
            ));
        }
        assert!(!replayed.main_texts.is_empty(), "{}", fixture.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        subagent_only > 0,
        "no fixture has subagent lines: the leak check checked nothing"
    );
}

#[test]
fn every_table_entry_has_a_fixture() {
    let names: HashSet<String> = fixtures().into_iter().map(|fixture| fixture.name).collect();
    for (name, statuses) in EXPECTED {
        assert!(
            names.contains(*name),
            "{name} is in the replay table but has no fixture"
        );
        assert!(!statuses.is_empty(), "{name}: no results listed");
    }
}

/// A turn the agent starts by itself (no host message, e.g. after a background agent) opens
/// at its `system/init` and closes at its `result`.
#[test]
fn a_turn_the_agent_starts_by_itself_opens_and_closes() {
    let fixture = fixtures()
        .into_iter()
        .find(|fixture| fixture.name == "claude-basic-ja")
        .expect("claude-basic-ja fixture");
    let mut state = SessionState::new();
    let mut translator = Translator::new();
    state.apply(0, Input::ProcessStarted);
    for line in &fixture.lines {
        let line = parse_line(line.as_bytes()).unwrap();
        // No UserSent at all: the init opens the turn, the result closes it.
        for event in translator.translate(line) {
            state.apply(1, Input::Agent(event));
        }
    }
    state.drain_events();
    assert_eq!(state.status(), Status::Completed);
    assert!(!state.turn_open());
}

/// A background agent's launch note (addressed to the model: its agent id, "do not mention to
/// the user") is Claude Code's bookkeeping, not output: the call's result carries none of it,
/// live or restored from the transcript.
#[test]
fn a_background_launch_note_is_not_a_result() {
    let fixture = fixtures()
        .into_iter()
        .find(|fixture| fixture.name == "claude-task-agent-bg")
        .expect("claude-task-agent-bg fixture");
    let replayed = replay(&fixture);
    let agent_results: Vec<&str> = replayed
        .snapshot
        .log
        .iter()
        .filter_map(|entry| match &entry.kind {
            EntryKind::Tool(tool) if tool.name == "Agent" => tool.result.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(agent_results, [""], "{:?}", replayed.snapshot.log);
}

/// A subscription login's usage readings (captured with `CLAUDE_CODE_OAUTH_TOKEN` against the
/// mock answering `anthropic-ratelimit-unified-*` headers): one event per changed reading, the
/// warning past the agent's threshold, the refusal with its reset time, and the session going
/// on after it.
#[test]
fn a_subscription_logins_usage_reaches_the_front_ends() {
    use codiva_protocol::plan_usage::{UsageLimit, UsageState};
    let fixture = fixtures()
        .into_iter()
        .find(|f| f.name == "claude-oauth-plan-usage")
        .unwrap();
    let replayed = replay(&fixture);
    let readings: Vec<_> = replayed
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::PlanUsage { usage } => Some(usage.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(readings.len(), 4, "{readings:#?}");
    let five = |i: usize| {
        readings[i]
            .windows
            .iter()
            .find(|w| w.kind == "five_hour")
            .unwrap()
            .clone()
    };
    let seven = |i: usize| {
        readings[i]
            .windows
            .iter()
            .find(|w| w.kind == "seven_day")
            .unwrap()
            .clone()
    };
    assert_eq!(
        (five(0).utilization, five(0).state),
        (0.42, UsageState::Allowed)
    );
    assert_eq!(seven(0).utilization, 0.1);
    assert_eq!(
        (five(1).utilization, five(1).state),
        (0.91, UsageState::Warning)
    );
    assert_eq!(five(2).state, UsageState::Rejected);
    assert_eq!(
        readings[2].limited,
        Some(UsageLimit {
            kind: Some("five_hour".into()),
            resets_at: five(2).resets_at
        })
    );
    assert_eq!(readings[3].limited, None);
    assert_eq!(five(3).utilization, 0.05);
    // The CLI warns early on its representative window (here the 7-day one).
    assert_eq!(seven(3).state, UsageState::Warning);
    // Regression: the header and status bar showed a USD cost for this login. Its results
    // carry `total_cost_usd`, but a subscription is no per-token bill: no cost is reported.
    let costs: Vec<Option<f64>> = replayed
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Usage { usage } => Some(usage.cost_usd),
            _ => None,
        })
        .collect();
    assert!(!costs.is_empty());
    assert!(costs.iter().all(Option::is_none), "{costs:?}");
    assert_eq!(replayed.snapshot.usage.cost_usd, None);
}

/// An API-key login's cost is reported; an agent found to run on a subscription afterwards
/// (its first plan-usage reading) withdraws the cost it had reported.
#[test]
fn a_cost_is_reported_for_an_api_key_and_withdrawn_for_a_subscription() {
    let fixture = fixtures()
        .into_iter()
        .find(|f| f.name == "claude-basic-ja")
        .unwrap();
    let mut translator = Translator::new();
    let mut state = SessionState::new();
    state.apply(0, Input::ProcessStarted);
    for line in &fixture.lines {
        let Ok(parsed) = parse_line(line.as_bytes()) else {
            continue;
        };
        for event in translator.translate(parsed) {
            state.apply(1, Input::Agent(event));
        }
    }
    let cost = state.usage().cost_usd;
    assert!(cost.is_some_and(|c| c > 0.0), "{cost:?}");
    state.drain_events();
    let reading = r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1796143389,"rateLimitType":"five_hour","utilization":0.42},"session_id":"s"}"#;
    for event in translator.translate(parse_line(reading.as_bytes()).unwrap()) {
        state.apply(2, Input::Agent(event));
    }
    assert_eq!(state.usage().cost_usd, None);
    let withdrawn = state
        .drain_events()
        .into_iter()
        .any(|event| matches!(event, SessionEvent::Usage { usage } if usage.cost_usd.is_none()));
    assert!(withdrawn, "front ends hear that the cost is gone");
}

/// Regression: `ignored an unknown line kind from the agent: tool_progress` showed in the
/// session's log while a subagent ran. Line kinds Claude Code sends that codiva has no use for
/// are dropped silently, and a kind nobody knows is a diagnostic for `CODIVA_LOG`, never a
/// line in the user's log.
#[test]
fn harmless_and_unknown_line_kinds_leave_no_note() {
    let lines = [
        r#"{"type":"tool_progress","tool_use_id":"t1","tool_name":"Bash","parent_tool_use_id":"a1","elapsed_time_seconds":3,"session_id":"s"}"#,
        r#"{"type":"tool_use_summary","summary":"ran the tests","preceding_tool_use_ids":["t1"],"session_id":"s"}"#,
        r#"{"type":"keep_alive"}"#,
        r#"{"type":"auth_status","isAuthenticating":false,"output":[],"session_id":"s"}"#,
        r#"{"type":"system","subtype":"hook_started","hook_id":"h","hook_name":"x","hook_event":"PreToolUse","session_id":"s"}"#,
        r#"{"type":"system","subtype":"files_persisted","files":[],"failed":[],"processed_at":"t","session_id":"s"}"#,
        r#"{"type":"a_kind_from_the_future","x":1}"#,
        r#"{"type":"system","subtype":"a_subtype_from_the_future"}"#,
    ];
    let mut translator = Translator::new();
    let mut state = SessionState::new();
    state.apply(0, Input::ProcessStarted);
    for line in lines {
        let events = translator.translate(parse_line(line.as_bytes()).unwrap());
        assert!(events.is_empty(), "{line}: {events:?}");
    }
    assert!(state.snapshot().log.is_empty());
}

/// The compaction divider is a coded note (`compacted`, its trigger and the tokens before),
/// so a front end words it in its own language and finds it by its code.
#[test]
fn a_compaction_is_a_coded_note() {
    let mut translator = Translator::new();
    let mut state = SessionState::new();
    state.apply(0, Input::ProcessStarted);
    let line = r#"{"type":"system","subtype":"compact_boundary","session_id":"s","uuid":"u","compact_metadata":{"trigger":"auto","pre_tokens":155000}}"#;
    for event in translator.translate(parse_line(line.as_bytes()).unwrap()) {
        state.apply(1, Input::Agent(event));
    }
    let notes: Vec<_> = state
        .snapshot()
        .log
        .iter()
        .filter_map(|entry| match &entry.kind {
            EntryKind::Note { text, code, .. } => Some((text.clone(), code.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        [(
            "conversation compacted (auto), 155000 tokens before".to_owned(),
            Some(codiva_protocol::log::NoteCode::new(
                "compacted",
                &["auto", "155000"]
            ))
        )]
    );
}
