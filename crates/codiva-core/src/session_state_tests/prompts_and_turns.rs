//! Prompts, the interrupt fence and the agent process's lifecycle.

use super::*;

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
