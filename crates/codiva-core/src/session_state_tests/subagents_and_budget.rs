//! Subagents, stall detection and the log budget.

use super::*;
use codiva_protocol::session::SubagentStatus;

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
    assert_eq!(view.status, SubagentStatus::Completed);
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
