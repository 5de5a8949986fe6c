//! Streaming, usage and the TODO list.

use super::*;

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
    let count = 2 * codiva_protocol::text::MAX_MESSAGE_TEXT / delta.len();
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
    assert!(run.state.streaming_text().len() <= codiva_protocol::text::MAX_MESSAGE_TEXT);
}

/// Regression (issue 24): the snapshot's copy of a reply past the cap kept its start, so a
/// client attaching mid-stream showed the start with the next deltas glued to it. It keeps the
/// end, after the marker the completed entry has, and the count adds up to what was sent.
#[test]
fn the_snapshot_of_a_reply_past_the_cap_keeps_its_end() {
    use codiva_protocol::text::{Kept, cut};
    let mut run = Run::of(running());
    let mut sent = String::new();
    let mut part = 0;
    while sent.len() < 3 * codiva_protocol::text::MAX_MESSAGE_TEXT {
        part += 1;
        let delta = format!("## 第{part}部\n\n日本語の段落 é 🎌 {part}.\n\n");
        sent.push_str(&delta);
        run.apply(agent(AgentEvent::TextDelta { text: delta }));
        let streaming = run.state.streaming_text();
        assert!(streaming.len() <= codiva_protocol::text::MAX_MESSAGE_TEXT + 32);
        match cut(streaming) {
            Some(cut) => {
                assert_eq!(cut.end, Kept::Tail);
                assert!(sent.ends_with(cut.kept));
                assert_eq!(cut.cut + cut.kept.len(), sent.len());
                let block = cut.kept.starts_with("## 第") || cut.kept.starts_with("日本語");
                assert!(block, "from a block start: {:?}", &cut.kept[..20]);
            }
            None => assert_eq!(streaming, sent),
        }
    }
    assert!(cut(run.state.streaming_text()).is_some());
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

/// Regression: a session that ran on a subscription login (no cost shown) and went on with
/// another agent on an API key never showed that agent's cost: the subscription stayed.
#[test]
fn a_switch_from_a_subscription_agent_shows_the_next_agents_cost() {
    let subscription = AgentInfo {
        account: Some(codiva_protocol::agent::Account {
            subscription: Some("Claude Max".to_owned()),
            ..Default::default()
        }),
        ..AgentInfo::default()
    };
    let ended = |cost: f64| {
        agent(AgentEvent::TurnEnded(TurnEnd {
            outcome: TurnOutcome::Completed,
            agent_session_id: Some("sess-1".to_owned()),
            process_cost_usd: Some(cost),
            context_window: None,
            denials: Vec::new(),
            final_text: None,
        }))
    };
    let mut run = Run::of([
        Input::ProcessStarted,
        sent("hi"),
        agent(AgentEvent::Connected(subscription)),
        turn_started(),
        ended(0.5),
    ]);
    assert_eq!(run.state.usage().cost_usd, None, "a plan is no bill");
    run.all([
        exited(0, "", true),
        Input::AgentSwitched {
            from: "Claude Code".to_owned(),
            to: "Codex".to_owned(),
            resume: None,
            permission_mode: None,
        },
        Input::ProcessStarted,
        sent("go on"),
        connected(),
        turn_started(),
        ended(0.25),
    ]);
    assert_eq!(run.state.usage().cost_usd, Some(0.25));
}

/// Regression: a switch to an agent that lacks the session's permission mode dropped it for
/// the agent, while the snapshot (and every UI) still showed it.
#[test]
fn a_switch_says_the_permission_mode_the_session_goes_on_in() {
    let mut run = Run::of(with(
        running(),
        [agent(AgentEvent::PermissionModeChanged(
            PermissionMode::Plan,
        ))],
    ));
    assert_eq!(run.state.permission_mode(), Some(PermissionMode::Plan));
    let switch = |permission_mode| Input::AgentSwitched {
        from: "Claude Code".to_owned(),
        to: "Codex".to_owned(),
        resume: None,
        permission_mode,
    };
    run.apply(switch(None));
    assert_eq!(run.state.permission_mode(), None, "the mode was dropped");
    run.apply(switch(Some(PermissionMode::AcceptEdits)));
    assert_eq!(
        run.state.permission_mode(),
        Some(PermissionMode::AcceptEdits)
    );
    assert!(run.events.contains(&SessionEvent::PermissionMode {
        mode: PermissionMode::AcceptEdits
    }));
}
