//! Table-driven tests of the session state machine on hand-built event sequences.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use codiva_protocol::tool::PermissionMode;
use serde_json::{Value, json};

use super::*;
use crate::agent_event::{
    AgentBlock, PermissionRequest, QuestionRequest, SubagentStart, TokenUsage, TurnEnd,
};
use crate::claude::tools;
use crate::session_log::ToolStatus;

// -- builders ---------------------------------------------------------------------------------

fn agent(event: AgentEvent) -> Input {
    Input::Agent(event)
}

fn connected() -> Input {
    agent(AgentEvent::Connected(AgentInfo::default()))
}

fn turn_started() -> Input {
    agent(AgentEvent::TurnStarted {
        agent_session_id: "sess-1".to_owned(),
        model: Some("claude-opus-5-5".to_owned()),
        permission_mode: Some(PermissionMode::Default),
    })
}

fn sent(text: &str) -> Input {
    Input::UserSent {
        text: text.to_owned(),
        echo: text.to_owned(),
    }
}

fn echo(text: &str) -> Input {
    agent(AgentEvent::UserEcho {
        text: text.to_owned(),
    })
}

fn end(outcome: TurnOutcome) -> Input {
    agent(AgentEvent::TurnEnded(TurnEnd {
        outcome,
        agent_session_id: Some("sess-1".to_owned()),
        process_cost_usd: None,
        context_window: None,
        denials: Vec::new(),
        final_text: None,
    }))
}

fn completed() -> Input {
    end(TurnOutcome::Completed)
}

fn permission(request_id: &str) -> Input {
    agent(AgentEvent::PermissionRequest(PermissionRequest {
        request_id: request_id.to_owned(),
        tool: "Write".to_owned(),
        view: crate::claude::tool_view::tool_view(
            "Write",
            &json!({"file_path": "/w/a.txt", "content": "a"}),
        ),
        options: crate::claude::tool_view::permission_options("Write", &[]),
        input: json!({"file_path": "/w/a.txt", "content": "a"}),
        description: Some("a.txt".to_owned()),
        suggestions: Vec::new(),
        tool_use_id: Some(format!("toolu_{request_id}")),
        agent_id: None,
        blocked_path: None,
        reason: None,
    }))
}

fn question(request_id: &str) -> Input {
    agent(AgentEvent::QuestionRequest(QuestionRequest {
        request_id: request_id.to_owned(),
        questions: Vec::new(),
        input: json!({"questions": []}),
        tool_use_id: Some(format!("toolu_{request_id}")),
    }))
}

fn answered(request_id: &str, resolution: PromptResolution) -> Input {
    Input::PromptAnswered {
        request_id: request_id.to_owned(),
        resolution,
    }
}

fn withdrawn(request_id: &str) -> Input {
    agent(AgentEvent::RequestWithdrawn {
        request_id: request_id.to_owned(),
    })
}

fn subagent(task_id: &str, background: bool) -> Input {
    agent(AgentEvent::SubagentStarted(SubagentStart {
        task_id: task_id.to_owned(),
        tool_use_id: Some(format!("toolu_{task_id}")),
        description: Some("Inspect the repo".to_owned()),
        subagent_type: Some("general-purpose".to_owned()),
        background,
    }))
}

fn settled(task_id: &str) -> Input {
    agent(AgentEvent::SubagentSettled {
        task_id: task_id.to_owned(),
        status: "completed".to_owned(),
        summary: Some("done".to_owned()),
    })
}

fn background(task_ids: &[&str]) -> Input {
    agent(AgentEvent::BackgroundTasks {
        task_ids: task_ids.iter().map(|id| (*id).to_owned()).collect(),
    })
}

fn exited(code: i32, stderr: &str, requested: bool) -> Input {
    Input::ProcessExited {
        code: Some(code),
        signal: None,
        stderr_tail: stderr.to_owned(),
        requested,
    }
}

fn retrying(attempt: u32) -> Input {
    agent(AgentEvent::Retrying(RetryInfo {
        attempt,
        max: 10,
        delay_ms: 500,
        status: Some(529),
        error: Some("overloaded".to_owned()),
    }))
}

fn message_started(id: &str) -> Input {
    agent(AgentEvent::MessageStarted {
        message_id: id.to_owned(),
    })
}

thread_local! {
    /// The calls [`tool_use`] made, by id, for [`tool_result`] to word its TODO change.
    static CALLS: std::cell::RefCell<HashMap<String, (String, Value)>> = Default::default();
}

/// A top-level tool call as the Claude translator words it (summary, subagent call).
fn tool_use(id: &str, name: &str, input: Value) -> Input {
    CALLS.with(|calls| {
        calls
            .borrow_mut()
            .insert(id.to_owned(), (name.to_owned(), input.clone()))
    });
    agent(AgentEvent::Block {
        message_id: format!("msg_{id}"),
        parent: None,
        block: AgentBlock::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            summary: tools::tool_summary(name, &input),
            view: crate::claude::tool_view::tool_view(name, &input),
            subagent: tools::subagent_call(name, &input),
            input,
        },
        usage: None,
        model: None,
    })
}

/// A successful result of the call [`tool_use`] made with `id`; `structured` is Claude's
/// `tool_use_result`, from which the translator words the call's TODO change.
fn tool_result(id: &str, structured: Option<Value>) -> Input {
    let call = CALLS.with(|calls| calls.borrow().get(id).cloned());
    let todo =
        call.and_then(|(name, input)| tools::todo_change(&name, &input, structured.as_ref()));
    agent(AgentEvent::ToolResult {
        parent: None,
        tool_use_id: id.to_owned(),
        text: "ok".to_owned(),
        is_error: false,
        todo,
    })
}

/// A process that is up, connected, with one turn running.
fn running() -> Vec<Input> {
    vec![
        Input::ProcessStarted,
        sent("hi"),
        connected(),
        turn_started(),
    ]
}

fn with(mut base: Vec<Input>, more: impl IntoIterator<Item = Input>) -> Vec<Input> {
    base.extend(more);
    base
}

/// Applies inputs 100 ms apart, draining after each one like the driver does.
struct Run {
    state: SessionState,
    now: u64,
    events: Vec<SessionEvent>,
}

impl Run {
    fn new() -> Self {
        Run {
            state: SessionState::new(),
            now: 0,
            events: Vec::new(),
        }
    }

    fn of(inputs: impl IntoIterator<Item = Input>) -> Self {
        let mut run = Run::new();
        run.all(inputs);
        run
    }

    fn all(&mut self, inputs: impl IntoIterator<Item = Input>) -> &mut Self {
        for input in inputs {
            self.apply(input);
        }
        self
    }

    fn apply(&mut self, input: Input) -> &mut Self {
        self.now += 100;
        self.at(self.now, input)
    }

    fn at(&mut self, now: u64, input: Input) -> &mut Self {
        self.now = now;
        self.state.apply(now, input);
        self.events.extend(self.state.drain_events());
        self
    }

    fn status(&self) -> (Status, Option<&str>) {
        (self.state.status(), self.state.detail())
    }

    fn closed(&self) -> Vec<(String, PromptResolution)> {
        self.events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::PromptClosed {
                    request_id,
                    resolution,
                } => Some((request_id.clone(), *resolution)),
                _ => None,
            })
            .collect()
    }

    fn notes(&self) -> Vec<(NoteLevel, String)> {
        self.state
            .log()
            .entries()
            .filter_map(|entry| match &entry.kind {
                EntryKind::Note { level, text, .. } => Some((*level, text.clone())),
                _ => None,
            })
            .collect()
    }
}

// -- status table -----------------------------------------------------------------------------

#[test]
fn derived_status_table() {
    let message = |text: &str| text.to_owned();
    let cases: Vec<(&str, Vec<Input>, Status, Option<&str>)> = vec![
        ("fresh", vec![], Status::Starting, None),
        (
            "process up",
            vec![Input::ProcessStarted],
            Status::Starting,
            None,
        ),
        (
            "message sent, no handshake yet",
            vec![Input::ProcessStarted, sent("hi")],
            Status::Starting,
            None,
        ),
        (
            "connected with a turn open",
            vec![Input::ProcessStarted, sent("hi"), connected()],
            Status::Running,
            None,
        ),
        ("turn started", running(), Status::Running, None),
        (
            "turn started without a handshake",
            vec![Input::ProcessStarted, sent("hi"), turn_started()],
            Status::Running,
            None,
        ),
        (
            "agent starts a turn by itself",
            vec![Input::ProcessStarted, connected(), turn_started()],
            Status::Running,
            None,
        ),
        (
            "permission prompt",
            with(running(), [permission("p1")]),
            Status::AwaitingPermission,
            None,
        ),
        (
            "question prompt",
            with(running(), [question("q1")]),
            Status::AwaitingAnswer,
            None,
        ),
        (
            "permission answered",
            with(
                running(),
                [permission("p1"), answered("p1", PromptResolution::Allowed)],
            ),
            Status::Running,
            None,
        ),
        (
            "prompt withdrawn",
            with(running(), [permission("p1"), withdrawn("p1")]),
            Status::Running,
            None,
        ),
        (
            "withdrawing an unknown id changes nothing",
            with(running(), [permission("p1"), withdrawn("p2")]),
            Status::AwaitingPermission,
            None,
        ),
        (
            "completed",
            with(running(), [completed()]),
            Status::Completed,
            None,
        ),
        (
            "interrupted",
            with(running(), [end(TurnOutcome::Interrupted)]),
            Status::Interrupted,
            None,
        ),
        (
            "needs login",
            with(
                running(),
                [end(TurnOutcome::NeedsLogin {
                    message: message("Invalid API key · Fix external API key"),
                })],
            ),
            Status::NeedsLogin,
            Some("Invalid API key · Fix external API key"),
        ),
        (
            "rate limited",
            with(
                running(),
                [end(TurnOutcome::RateLimited {
                    message: message("rate limited"),
                })],
            ),
            Status::RateLimited,
            Some("rate limited"),
        ),
        (
            "failed",
            with(
                running(),
                [end(TurnOutcome::Failed {
                    message: message("API Error: 500"),
                })],
            ),
            Status::Failed,
            Some("API Error: 500"),
        ),
        (
            "spawn failed",
            vec![Input::SpawnFailed {
                message: message("cannot start Claude Code: not found"),
            }],
            Status::Failed,
            Some("cannot start Claude Code: not found"),
        ),
        (
            "retrying",
            with(running(), [retrying(1)]),
            Status::Running,
            Some("retrying (1/10)"),
        ),
        (
            "retry cleared by a new message",
            with(running(), [retrying(1), retrying(2), message_started("m1")]),
            Status::Running,
            None,
        ),
        (
            "retry cleared by the turn's end",
            with(running(), [retrying(3), completed()]),
            Status::Completed,
            None,
        ),
        (
            "completion gate: one background agent",
            with(running(), [subagent("t1", true), completed()]),
            Status::Running,
            Some("waiting for 1 background agent"),
        ),
        (
            "completion gate: two agents",
            with(
                running(),
                [subagent("t1", true), subagent("t2", true), completed()],
            ),
            Status::Running,
            Some("waiting for 2 background agents"),
        ),
        (
            "completion gate released by SubagentSettled",
            with(
                running(),
                [subagent("t1", true), completed(), settled("t1")],
            ),
            Status::Running,
            Some("collecting background results"),
        ),
        (
            "completion gate released by an empty background set",
            with(
                running(),
                [
                    background(&["t1"]),
                    subagent("t1", true),
                    completed(),
                    background(&[]),
                ],
            ),
            Status::Running,
            Some("collecting background results"),
        ),
        (
            "the follow-up turn the agent starts by itself completes the session",
            with(
                running(),
                [
                    subagent("t1", true),
                    completed(),
                    settled("t1"),
                    turn_started(),
                    completed(),
                ],
            ),
            Status::Completed,
            None,
        ),
        (
            "the follow-up turn via background_tasks_changed",
            with(
                running(),
                [
                    background(&["t1"]),
                    subagent("t1", true),
                    completed(),
                    background(&[]),
                    turn_started(),
                    completed(),
                ],
            ),
            Status::Completed,
            None,
        ),
        (
            "completion gate held by the second of two agents",
            with(
                running(),
                [
                    subagent("t1", true),
                    subagent("t2", true),
                    completed(),
                    settled("t1"),
                ],
            ),
            Status::Running,
            Some("waiting for 1 background agent"),
        ),
        (
            "a background agent known only from background_tasks_changed",
            with(running(), [background(&["t9"]), completed()]),
            Status::Running,
            Some("waiting for 1 background agent"),
        ),
        (
            "no gate for an interrupted turn",
            with(
                running(),
                [subagent("t1", true), end(TurnOutcome::Interrupted)],
            ),
            Status::Interrupted,
            None,
        ),
        (
            "a finished subagent does not hold the gate",
            with(
                running(),
                [subagent("t1", false), settled("t1"), completed()],
            ),
            Status::Completed,
            None,
        ),
        (
            "a new process forgets the old one's tasks",
            with(
                running(),
                [subagent("t1", true), completed(), Input::ProcessStarted],
            ),
            Status::Completed,
            None,
        ),
        (
            "queued turn keeps running",
            with(running(), [sent("and then?"), completed()]),
            Status::Running,
            None,
        ),
        (
            "a message echoed mid-turn is folded into it: one result ends both",
            with(
                running(),
                [
                    echo("hi"),
                    permission("p1"),
                    sent("also this"),
                    echo("also this"),
                ],
            ),
            Status::AwaitingPermission,
            None,
        ),
        (
            "a folded message ends with the turn it joined",
            with(
                running(),
                [
                    echo("hi"),
                    sent("also this"),
                    echo("also this"),
                    completed(),
                ],
            ),
            Status::Completed,
            None,
        ),
        (
            "a message not yet taken up keeps the session running after a result",
            with(running(), [echo("hi"), sent("also this"), completed()]),
            Status::Running,
            None,
        ),
        (
            "a message sent just after a result is a new turn",
            with(
                running(),
                [
                    echo("hi"),
                    completed(),
                    sent("next"),
                    turn_started(),
                    echo("next"),
                    completed(),
                ],
            ),
            Status::Completed,
            None,
        ),
        (
            "an echo of something never sent (local command output) changes nothing",
            with(
                running(),
                [
                    echo("hi"),
                    completed(),
                    echo("<local-command-stdout>Set model</local-command-stdout>"),
                ],
            ),
            Status::Completed,
            None,
        ),
        (
            "a message that is never echoed (a slash command) ends with the turn it started",
            with(
                running(),
                [
                    echo("hi"),
                    completed(),
                    sent("/cost"),
                    turn_started(),
                    completed(),
                ],
            ),
            Status::Completed,
            None,
        ),
        (
            "queued turn ends",
            with(
                running(),
                [sent("and then?"), completed(), turn_started(), completed()],
            ),
            Status::Completed,
            None,
        ),
        (
            "process exit before the first turn",
            vec![
                Input::ProcessStarted,
                exited(1, "Error: unknown option\n", false),
            ],
            Status::Failed,
            Some("the agent exited before its first turn (exit code 1): Error: unknown option"),
        ),
        (
            "process exit mid-turn",
            with(running(), [exited(1, "\npanic: boom\n", false)]),
            Status::Interrupted,
            Some("the agent process ended mid-turn (exit code 1): panic: boom"),
        ),
        (
            "requested exit mid-turn",
            with(running(), [exited(0, "ignored", true)]),
            Status::Interrupted,
            None,
        ),
        (
            "exit after a completed turn",
            with(running(), [completed(), exited(0, "", false)]),
            Status::Completed,
            None,
        ),
        (
            "exit with a prompt pending",
            with(running(), [permission("p1"), exited(137, "", false)]),
            Status::Interrupted,
            Some("the agent process ended mid-turn (exit code 137)"),
        ),
    ];
    for (name, inputs, status, detail) in cases {
        let run = Run::of(inputs);
        assert_eq!(run.status(), (status, detail), "case: {name}");
        // The last status event agrees with the queries.
        let last = run.events.iter().rev().find_map(|event| match event {
            SessionEvent::Status { status, detail, .. } => Some((*status, detail.clone())),
            _ => None,
        });
        if status != Status::Starting {
            assert_eq!(
                last,
                Some((status, detail.map(str::to_owned))),
                "case: {name}"
            );
        }
        // A running session's detail also comes by name and values, for other languages.
        let code = run.events.iter().rev().find_map(|event| match event {
            SessionEvent::Status { detail_code, .. } => Some(detail_code.clone()),
            _ => None,
        });
        let expected = detail.and_then(|detail| {
            [
                ("retrying", "retrying"),
                ("stalled", "stalled"),
                ("waiting for", "waiting_for_agents"),
                ("collecting", "collecting_results"),
                ("step", "step"),
            ]
            .into_iter()
            .find(|(prefix, _)| detail.starts_with(prefix))
            .map(|(_, code)| code)
        });
        if status != Status::Starting {
            let names = code.flatten().map(|code| code.name);
            assert_eq!(names.as_deref(), expected, "case: {name}");
        }
        assert_eq!(
            run.state
                .snapshot()
                .detail_code
                .map(|code| code.name)
                .as_deref(),
            expected,
            "case: {name}"
        );
    }
}

#[test]
fn a_retry_detail_carries_its_cause_and_delay() {
    let run = Run::of(with(running(), [retrying(2)]));
    assert_eq!(
        run.state.detail_code(),
        Some(NoteCode::new(
            "retrying",
            &["2", "10", "500", "529", "overloaded"]
        ))
    );
}

// -- prompts ----------------------------------------------------------------------------------

#[test]
fn prompts_are_shown_first_in_first_out() {
    let mut run = Run::of(with(
        running(),
        [permission("p1"), question("q2"), permission("p3")],
    ));
    assert_eq!(run.status(), (Status::AwaitingPermission, None));
    assert_eq!(run.state.current_prompt().unwrap().request_id(), "p1");
    assert_eq!(run.state.pending_prompts(), 3);

    run.apply(answered("p1", PromptResolution::Allowed));
    assert_eq!(run.status(), (Status::AwaitingAnswer, None));
    assert_eq!(run.state.current_prompt().unwrap().request_id(), "q2");

    // Answering a later one first leaves the order of the rest alone.
    run.apply(answered("p3", PromptResolution::Denied));
    assert_eq!(run.state.current_prompt().unwrap().request_id(), "q2");

    run.apply(answered("q2", PromptResolution::Answered));
    assert_eq!(run.status(), (Status::Running, None));
    assert_eq!(
        run.closed(),
        vec![
            ("p1".to_owned(), PromptResolution::Allowed),
            ("p3".to_owned(), PromptResolution::Denied),
            ("q2".to_owned(), PromptResolution::Answered),
        ]
    );
}

#[test]
fn a_repeated_request_id_opens_one_prompt() {
    let run = Run::of(with(running(), [permission("p1"), permission("p1")]));
    assert_eq!(run.state.pending_prompts(), 1);
    let opened = run
        .events
        .iter()
        .filter(|event| matches!(event, SessionEvent::PromptOpened { .. }))
        .count();
    assert_eq!(opened, 1);
}

#[test]
fn answering_a_closed_prompt_is_ignored() {
    let mut run = Run::of(with(running(), [permission("p1"), withdrawn("p1")]));
    run.apply(answered("p1", PromptResolution::Allowed));
    assert_eq!(
        run.closed(),
        vec![("p1".to_owned(), PromptResolution::Withdrawn)]
    );
    assert_eq!(run.status(), (Status::Running, None));
}

#[test]
fn prompts_cannot_outlive_the_last_open_turn() {
    let run = Run::of(with(
        running(),
        [permission("p1"), end(TurnOutcome::Interrupted)],
    ));
    assert_eq!(run.status(), (Status::Interrupted, None));
    assert_eq!(run.state.pending_prompts(), 0);
    assert!(run.state.snapshot().prompts.is_empty());
    assert_eq!(
        run.closed(),
        vec![("p1".to_owned(), PromptResolution::Withdrawn)]
    );
}

#[test]
fn a_denied_prompt_marks_its_tool_denied() {
    let run = Run::of(with(
        running(),
        [
            tool_use("toolu_p1", "Write", json!({"file_path": "/w/a.txt"})),
            permission("p1"),
            answered("p1", PromptResolution::Denied),
            agent(AgentEvent::ToolResult {
                parent: None,
                tool_use_id: "toolu_p1".to_owned(),
                text: "The user does not want new files right now.".to_owned(),
                is_error: true,
                todo: None,
            }),
            completed(),
        ],
    ));
    let tool = run
        .state
        .log()
        .entries()
        .find_map(|entry| match &entry.kind {
            EntryKind::Tool(tool) => Some(tool.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(tool.status, ToolStatus::Denied);
    assert_eq!(tool.summary, "a.txt");
}

// -- the interrupt fence ----------------------------------------------------------------------

#[test]
fn interrupt_marks_only_the_running_turn() {
    let mut run = Run::of(running());
    assert!(!run.state.current_turn_cancelled());
    run.apply(Input::InterruptRequested);
    assert!(run.state.current_turn_cancelled());
    // Late prompts of the cancelled turn never reach the reducer: the driver sees
    // `current_turn_cancelled()` and denies them on the wire. The fence stays up until the
    // turn ends, also when another message is queued behind it.
    run.apply(agent(AgentEvent::TextDelta {
        text: "late text".to_owned(),
    }));
    assert!(run.state.current_turn_cancelled());
    run.apply(sent("next"));
    assert!(run.state.current_turn_cancelled());
    run.apply(end(TurnOutcome::Interrupted));
    // The queued turn is a new turn, not cancelled.
    assert!(run.state.turn_open());
    assert!(!run.state.current_turn_cancelled());
    assert_eq!(run.status(), (Status::Running, None));
    run.all([turn_started(), completed()]);
    assert_eq!(run.status(), (Status::Completed, None));
    assert!(!run.state.current_turn_cancelled());
}

#[test]
fn interrupt_while_idle_changes_nothing() {
    let mut run = Run::of(with(running(), [completed()]));
    run.apply(Input::InterruptRequested);
    assert!(!run.state.current_turn_cancelled());
    assert_eq!(run.status(), (Status::Completed, None));
}

// -- process lifecycle ------------------------------------------------------------------------

#[test]
fn process_exit_mid_turn_leaves_a_note_and_clears_everything() {
    let run = Run::of(with(
        running(),
        [
            subagent("t1", true),
            permission("p1"),
            exited(1, "line 1\nline 2\nline 3\nline 4\n", false),
        ],
    ));
    assert_eq!(run.state.status(), Status::Interrupted);
    assert!(!run.state.turn_open());
    assert!(!run.state.is_connected());
    assert_eq!(run.state.running_subagents(), 0);
    assert_eq!(
        run.closed(),
        vec![("p1".to_owned(), PromptResolution::Withdrawn)]
    );
    let notes = run.notes();
    let (level, text) = notes.last().unwrap();
    assert_eq!(*level, NoteLevel::Warning);
    // Only the last three stderr lines are kept.
    assert_eq!(
        text,
        "the agent process ended mid-turn (exit code 1): line 2 | line 3 | line 4"
    );
}

#[test]
fn completion_gate_waits_for_the_agents_then_for_the_follow_up_turn() {
    let mut run = Run::of(with(running(), [subagent("t1", true), completed()]));
    assert_eq!(
        run.status(),
        (Status::Running, Some("waiting for 1 background agent"))
    );
    assert_eq!(run.state.running_subagents(), 1);
    run.apply(settled("t1"));
    let released = run.now;
    assert_eq!(
        run.status(),
        (Status::Running, Some("collecting background results"))
    );
    // The follow-up turn may never come: the session settles after the grace period.
    run.at(released + FOLLOW_UP_GRACE_MS - 1, Input::Tick);
    assert_eq!(run.status().0, Status::Running);
    run.at(released + FOLLOW_UP_GRACE_MS, Input::Tick);
    assert_eq!(run.status(), (Status::Completed, None));
}

#[test]
fn a_user_message_while_collecting_background_results_starts_a_normal_turn() {
    let mut run = Run::of(with(
        running(),
        [subagent("t1", true), completed(), settled("t1")],
    ));
    run.apply(sent("what did it find?"));
    assert_eq!(run.status(), (Status::Running, None));
    run.all([turn_started(), completed()]);
    assert_eq!(run.status(), (Status::Completed, None));
}

#[test]
fn process_started_resets_the_task_set_and_the_gate() {
    let mut run = Run::of(with(running(), [subagent("t1", true), completed()]));
    assert_eq!(run.state.running_subagents(), 1);
    assert_eq!(run.status().0, Status::Running);
    run.apply(Input::ProcessStarted);
    assert_eq!(run.state.running_subagents(), 0);
    assert!(!run.state.turn_open());
    assert_eq!(run.status(), (Status::Completed, None));
    // A settlement of the old process's task later on is harmless.
    run.apply(settled("t1"));
    assert_eq!(run.status(), (Status::Completed, None));
}

#[test]
fn a_restarted_process_runs_the_next_turn() {
    let mut run = Run::of(with(running(), [exited(1, "crash", false)]));
    assert_eq!(run.state.status(), Status::Interrupted);
    run.all([Input::ProcessStarted, sent("again")]);
    // The previous outcome exists, so the new process is not "starting" from scratch.
    assert_eq!(run.status(), (Status::Running, None));
    run.all([connected(), turn_started(), completed()]);
    assert_eq!(run.status(), (Status::Completed, None));
}

// -- streaming, usage, todos ------------------------------------------------------------------

#[test]
fn message_start_and_retry_reset_the_stream() {
    let mut run = Run::of(running());
    run.apply(agent(AgentEvent::TextDelta {
        text: "partial ".to_owned(),
    }));
    assert_eq!(run.state.streaming_text(), "partial ");
    run.apply(retrying(1));
    assert_eq!(run.state.streaming_text(), "");
    assert_eq!(run.status(), (Status::Running, Some("retrying (1/10)")));
    run.all([
        message_started("m2"),
        agent(AgentEvent::TextDelta {
            text: "whole".to_owned(),
        }),
    ]);
    assert_eq!(run.state.streaming_text(), "whole");
    assert_eq!(run.status(), (Status::Running, None));
    assert!(run.events.contains(&SessionEvent::Stream {
        text: String::new(),
        reset: true
    }));
}

/// Regression: past the per-message cap the deltas stopped, and the UI's tail froze while the
/// session still ran. The snapshot's copy stays capped; every delta is still sent.
#[test]
fn deltas_past_the_message_cap_are_still_sent() {
    let mut run = Run::of(running());
    let delta = "x".repeat(64 * 1024);
    let count = 2 * crate::session_log::MAX_MESSAGE_TEXT / delta.len();
    for _ in 0..count {
        run.apply(agent(AgentEvent::TextDelta {
            text: delta.clone(),
        }));
    }
    let sent = run
        .events
        .iter()
        .filter(|event| matches!(event, SessionEvent::Stream { reset: false, .. }))
        .count();
    assert_eq!(sent, count);
    assert!(run.state.streaming_text().len() <= crate::session_log::MAX_MESSAGE_TEXT);
}

#[test]
fn usage_is_counted_once_per_message() {
    let block = |message_id: &str, text: &str, input: u64, output: u64| {
        agent(AgentEvent::Block {
            message_id: message_id.to_owned(),
            parent: None,
            block: AgentBlock::Text(text.to_owned()),
            usage: Some(TokenUsage {
                input,
                output,
                cache_read: 10,
                cache_creation: 5,
            }),
            model: None,
        })
    };
    let run = Run::of(with(
        running(),
        [
            // Claude emits one assistant line per block, each with the message's usage.
            block("m1", "one", 100, 1),
            block("m1", "two", 100, 1),
            block("m1", "three", 100, 1),
            block("m2", "four", 200, 7),
        ],
    ));
    let usage = run.state.usage();
    assert_eq!(
        usage.tokens,
        TokenUsage {
            input: 300,
            output: 8,
            cache_read: 20,
            cache_creation: 10,
        }
    );
    assert_eq!(usage.context_used, 200 + 10 + 5 + 7);
}

#[test]
fn task_tools_drive_the_todo_progress() {
    let mut run = Run::of(running());
    let create = |tool_use_id: &str, task_id: &str| {
        [
            tool_use(tool_use_id, "TaskCreate", json!({"subject": "Write tests"})),
            tool_result(
                tool_use_id,
                Some(json!({"task": {"id": task_id, "subject": "Write tests"}})),
            ),
        ]
    };
    run.all(create("c1", "1"));
    run.all(create("c2", "2"));
    assert_eq!(
        run.state.todo_progress(),
        TodoProgress { done: 0, total: 2 }
    );
    assert_eq!(run.status(), (Status::Running, Some("step 0/2")));

    run.all([
        tool_use(
            "u1",
            "TaskUpdate",
            json!({"taskId": "1", "status": "in_progress"}),
        ),
        tool_result("u1", None),
    ]);
    assert_eq!(
        run.state.todo_progress(),
        TodoProgress { done: 0, total: 2 }
    );
    run.all([
        tool_use(
            "u2",
            "TaskUpdate",
            json!({"taskId": "1", "status": "completed"}),
        ),
        tool_result("u2", None),
    ]);
    assert_eq!(run.status(), (Status::Running, Some("step 1/2")));
    run.all([
        tool_use(
            "u3",
            "TaskUpdate",
            json!({"taskId": 2, "status": "deleted"}),
        ),
        tool_result("u3", None),
    ]);
    assert_eq!(
        run.state.todo_progress(),
        TodoProgress { done: 1, total: 1 }
    );
    // A failed tool call changes nothing.
    run.all([
        tool_use("u4", "TaskCreate", json!({"subject": "x"})),
        agent(AgentEvent::ToolResult {
            parent: None,
            tool_use_id: "u4".to_owned(),
            text: "InputValidationError".to_owned(),
            is_error: true,
            todo: None,
        }),
    ]);
    assert_eq!(
        run.state.todo_progress(),
        TodoProgress { done: 1, total: 1 }
    );
    let todo_events: Vec<TodoProgress> = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Todos { progress, .. } => Some(*progress),
            _ => None,
        })
        .collect();
    assert_eq!(
        todo_events,
        vec![
            TodoProgress { done: 0, total: 1 },
            TodoProgress { done: 0, total: 2 },
            // The item became active: the list changed, not the count.
            TodoProgress { done: 0, total: 2 },
            TodoProgress { done: 1, total: 2 },
            TodoProgress { done: 1, total: 1 },
        ]
    );
    assert_eq!(
        run.state.todo_items(),
        [TodoItem {
            id: "1".to_owned(),
            content: "Write tests".to_owned(),
            status: TodoStatus::Completed,
        }]
    );
    assert_eq!(run.state.snapshot().todo_items, run.state.todo_items());
}

#[test]
fn todo_write_replaces_the_list() {
    let mut run = Run::of(running());
    run.all([
        tool_use(
            "w1",
            "TodoWrite",
            json!({"todos": [
                {"content": "a", "status": "completed", "activeForm": "Doing a"},
                {"content": "b", "status": "in_progress", "activeForm": "Doing b"},
                {"content": "c", "status": "pending", "activeForm": "Doing c"},
            ]}),
        ),
        tool_result("w1", Some(json!({"oldTodos": [], "newTodos": []}))),
    ]);
    assert_eq!(
        run.state.todo_progress(),
        TodoProgress { done: 1, total: 3 }
    );
    let statuses: Vec<(&str, TodoStatus)> = run
        .state
        .todo_items()
        .iter()
        .map(|item| (item.content.as_str(), item.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("a", TodoStatus::Completed),
            ("b", TodoStatus::InProgress),
            ("c", TodoStatus::Pending),
        ]
    );
    let Some(SessionEvent::Todos { items, .. }) = run
        .events
        .iter()
        .rev()
        .find(|event| matches!(event, SessionEvent::Todos { .. }))
    else {
        panic!("no todos event");
    };
    assert_eq!(items, run.state.todo_items());
    run.all([
        tool_use(
            "w2",
            "TodoWrite",
            json!({"todos": [{"content": "a", "status": "completed", "activeForm": "a"}]}),
        ),
        tool_result("w2", None),
    ]);
    assert_eq!(
        run.state.todo_progress(),
        TodoProgress { done: 1, total: 1 }
    );
    run.apply(completed());
    assert_eq!(run.status(), (Status::Completed, None));
}

// -- subagents --------------------------------------------------------------------------------

#[test]
fn subagent_blocks_go_to_the_subagent_log() {
    let run = Run::of(with(
        running(),
        [
            tool_use(
                "toolu_t1",
                "Agent",
                json!({"description": "Inspect the repo", "prompt": "List files", "run_in_background": false}),
            ),
            subagent("t1", false),
            agent(AgentEvent::SubagentPrompt {
                parent: "toolu_t1".to_owned(),
                text: "List files".to_owned(),
            }),
            agent(AgentEvent::Block {
                message_id: "msg_sub".to_owned(),
                parent: Some("toolu_t1".to_owned()),
                block: AgentBlock::Text("secret subagent text".to_owned()),
                usage: None,
                model: None,
            }),
            settled("t1"),
            tool_result("toolu_t1", None),
            completed(),
        ],
    ));
    assert_eq!(run.status(), (Status::Completed, None));
    let main_texts: Vec<String> = run
        .state
        .log()
        .entries()
        .map(|entry| format!("{:?}", entry.kind))
        .collect();
    assert!(
        !main_texts
            .iter()
            .any(|text| text.contains("secret subagent text")),
        "{main_texts:?}"
    );
    let sub: Vec<&EntryKind> = run
        .state
        .subagent_log("toolu_t1")
        .unwrap()
        .entries()
        .map(|entry| &entry.kind)
        .collect();
    assert_eq!(
        sub,
        vec![
            &EntryKind::SubagentPrompt {
                text: "List files".to_owned()
            },
            &EntryKind::Assistant {
                text: "secret subagent text".to_owned()
            },
            // The completion notice's summary ends the subagent's log.
            &EntryKind::Assistant {
                text: "done".to_owned()
            },
        ]
    );
    let view = run.state.subagents().next().unwrap();
    assert_eq!(view.status, "completed");
    assert_eq!(view.description.as_deref(), Some("Inspect the repo"));
    assert!(!view.background);
}

// -- stall ------------------------------------------------------------------------------------

#[test]
fn stall_is_flagged_after_silence_and_cleared_by_output() {
    let mut run = Run::of(running());
    let start = run.now;
    run.at(start + STALL_AFTER_MS - 1, Input::Tick);
    assert!(!run.state.is_stalled());
    assert_eq!(run.status(), (Status::Running, None));
    run.at(start + STALL_AFTER_MS, Input::Tick);
    assert!(run.state.is_stalled());
    assert_eq!(
        run.status(),
        (Status::Running, Some("stalled: no output for 10 minutes"))
    );
    // One note, however many ticks.
    run.at(start + 2 * STALL_AFTER_MS, Input::Tick);
    let warnings = run
        .notes()
        .into_iter()
        .filter(|(level, _)| *level == NoteLevel::Warning)
        .count();
    assert_eq!(warnings, 1);
    run.apply(agent(AgentEvent::Requesting));
    assert!(!run.state.is_stalled());
    assert_eq!(run.status(), (Status::Running, None));
}

#[test]
fn no_stall_while_idle_or_waiting_for_the_user() {
    let mut idle = Run::of(with(running(), [completed()]));
    idle.at(idle.now + 10 * STALL_AFTER_MS, Input::Tick);
    assert!(!idle.state.is_stalled());

    let mut asking = Run::of(with(running(), [permission("p1")]));
    asking.at(asking.now + 10 * STALL_AFTER_MS, Input::Tick);
    assert!(!asking.state.is_stalled());
    assert_eq!(asking.status(), (Status::AwaitingPermission, None));
}

/// Regression: the user took longer than the stall limit to answer a prompt; the clock must
/// restart at the answer, not at the agent's last line before the prompt.
#[test]
fn no_stall_right_after_a_slow_answer() {
    let mut run = Run::of(with(running(), [permission("p1")]));
    let answer_at = run.now + 2 * STALL_AFTER_MS;
    run.at(answer_at, answered("p1", PromptResolution::Allowed));
    run.at(answer_at + 1_000, Input::Tick);
    assert!(!run.state.is_stalled());
    assert_eq!(run.status(), (Status::Running, None));
    run.at(answer_at + STALL_AFTER_MS, Input::Tick);
    assert!(run.state.is_stalled());
}

// -- the log budget ---------------------------------------------------------------------------

/// What one entry of `text` costs in a log (the accounting is the log's own business).
fn entry_cost(text: &str) -> usize {
    let mut log = Log::with_budget(usize::MAX);
    log.push(
        0,
        EntryKind::Assistant {
            text: text.to_owned(),
        },
    );
    log.bytes()
}

#[test]
fn log_budget_drops_the_oldest_entries() {
    let text = "x".repeat(100);
    let budget = 6 * entry_cost(&text) + entry_cost(&text) / 2;
    let mut log = Log::with_budget(budget);
    let ids: Vec<u64> = (0..10)
        .map(|_| log.push(0, EntryKind::Assistant { text: text.clone() }).id)
        .collect();
    assert_eq!(ids, (0..10).collect::<Vec<_>>());
    assert!(log.bytes() <= budget, "{}", log.bytes());
    assert_eq!(log.len(), 6);
    assert_eq!(log.dropped(), 4);
    assert_eq!(log.entries().next().unwrap().id, 4);
    assert!(log.get(3).is_none());
    assert_eq!(log.get(4).unwrap().id, 4);
    assert_eq!(log.get(9).unwrap().id, 9);
    assert!(log.get(10).is_none());
    // Updating a dropped entry does nothing; updating a kept one works.
    assert!(log.update(0, |_| panic!("dropped entry changed")).is_none());
    let updated = log
        .update(9, |kind| {
            *kind = EntryKind::Assistant {
                text: "short".to_owned(),
            }
        })
        .unwrap();
    assert_eq!(updated.id, 9);
    assert!(log.bytes() <= budget);
}

#[test]
fn log_budget_keeps_the_newest_entry_even_when_it_is_too_big() {
    let mut log = Log::with_budget(100);
    log.push(
        0,
        EntryKind::User {
            text: "a".to_owned(),
        },
    );
    log.push(
        0,
        EntryKind::User {
            text: "b".repeat(500),
        },
    );
    assert_eq!(log.len(), 1);
    assert_eq!(log.entries().next().unwrap().id, 1);
    assert_eq!(log.dropped(), 1);
}

#[test]
fn snapshot_reports_dropped_entries() {
    let mut run = Run::of(running());
    // Room for one entry and a half.
    run.state.log = Log::with_budget(entry_cost(&"y".repeat(150)) * 3 / 2);
    for index in 0..5 {
        run.apply(agent(AgentEvent::Block {
            message_id: format!("m{index}"),
            parent: None,
            block: AgentBlock::Text("y".repeat(150)),
            usage: None,
            model: None,
        }));
    }
    let snapshot = run.state.snapshot();
    assert_eq!(snapshot.log.len(), 1);
    assert_eq!(snapshot.dropped_entries, 4);
    assert_eq!(snapshot.log[0].id, 4);
}
