//! The derived status, case by case.

use super::*;

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
            "process exit before it took up the first message: failed, its error line",
            vec![
                Input::ProcessStarted,
                sent("hi"),
                exited(
                    1,
                    "WARNING: proceeding, even though we could not update PATH\n\
                     Error: approval_policy = \"untrusted\" is no longer supported\n\n",
                    false,
                ),
            ],
            Status::Failed,
            Some(
                "the agent exited before its first turn (exit code 1): \
                 Error: approval_policy = \"untrusted\" is no longer supported",
            ),
        ),
        (
            "process exit before it took up a later message: failed",
            with(
                running(),
                [
                    completed(),
                    sent("and then?"),
                    exited(2, "warning: x\nbad flag --foo\n", false),
                ],
            ),
            Status::Failed,
            Some("the agent exited before it took up the message (exit code 2): bad flag --foo"),
        ),
        (
            "requested exit before it took up the message",
            with(
                running(),
                [completed(), sent("and then?"), exited(0, "", true)],
            ),
            Status::Interrupted,
            None,
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
            let names = code.flatten().map(|code| code.name.as_str());
            assert_eq!(names, expected, "case: {name}");
        }
        assert_eq!(
            run.state
                .snapshot()
                .detail_code
                .map(|code| code.name.as_str()),
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
