#![allow(clippy::unwrap_used, clippy::expect_used)]

use codiva_protocol::log::LogEntry;
use serde_json::Value;

use super::*;

fn log(kind: EntryKind, update: bool) -> SessionEvent {
    SessionEvent::Log {
        scope: Scope::Main,
        entry: LogEntry {
            id: 0,
            at_ms: 0,
            kind,
        },
        update,
        dropped: 0,
    }
}

fn user(text: &str) -> SessionEvent {
    log(EntryKind::User { text: text.into() }, false)
}

fn assistant(text: &str) -> SessionEvent {
    log(EntryKind::Assistant { text: text.into() }, false)
}

fn tool(id: &str, status: ToolStatus, update: bool) -> SessionEvent {
    log(
        EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: id.into(),
            name: "Bash".into(),
            summary: format!("cargo test {id}"),
            view: crate::claude::tool_view::tool_view("Bash", &Value::Null),
            input: Value::Null,
            status,
            result: Some("ok".into()),
            duration_ms: None,
        })),
        update,
    )
}

fn status(status: Status, detail: Option<&str>) -> SessionEvent {
    SessionEvent::Status {
        status,
        detail: detail.map(str::to_owned),
        detail_code: None,
    }
}

fn fold(history: &mut History, events: &[SessionEvent]) {
    for (at, event) in events.iter().enumerate() {
        history.apply(at as u64 * 10, event);
    }
}

#[test]
fn a_turn_keeps_messages_tools_final_text_and_outcome() {
    let mut history = History::new("claude");
    fold(
        &mut history,
        &[
            status(Status::Starting, None),
            user("fix the bug"),
            SessionEvent::Model {
                model: Some("opus".into()),
            },
            status(Status::Running, None),
            assistant("Let me look."),
            tool("t1", ToolStatus::Running, false),
            tool("t1", ToolStatus::Failed, true),
            assistant("Fixed it."),
            status(Status::Completed, None),
        ],
    );
    let turns: Vec<&TurnRecord> = history.turns().collect();
    assert_eq!(turns.len(), 1);
    let turn = turns[0];
    assert_eq!(turn.agent.label(), "claude (opus)");
    assert_eq!(turn.user, vec![Capped::new("fix the bug", 100)]);
    assert_eq!(turn.final_text.as_ref().unwrap().text, "Fixed it.");
    assert_eq!(turn.tools.len(), 1);
    assert_eq!(turn.tools[0].outcome, ToolOutcome::Failed);
    assert_eq!(turn.tools[0].summary, "cargo test t1");
    assert_eq!(turn.outcome, Some(Outcome::Completed));
    assert_eq!((turn.started_at, turn.ended_at), (10, Some(80)));
    assert_eq!(
        history.first_instruction.as_ref().unwrap().text,
        "fix the bug"
    );
    assert!(history.open_turn().is_none());
}

#[test]
fn a_message_sent_while_the_turn_runs_is_folded_into_it() {
    let mut history = History::new("claude");
    fold(
        &mut history,
        &[
            user("first"),
            status(Status::Running, None),
            status(Status::AwaitingPermission, None),
            user("also this"),
            status(Status::Running, None),
            status(Status::Completed, None),
            user("next"),
            status(Status::Interrupted, Some("stopped by the user")),
        ],
    );
    let turns: Vec<&TurnRecord> = history.turns().collect();
    assert_eq!(turns.len(), 2);
    let texts: Vec<&str> = turns[0].user.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["first", "also this"]);
    assert_eq!(turns[1].outcome, Some(Outcome::Interrupted));
    assert_eq!(
        turns[1].detail.as_ref().unwrap().text,
        "stopped by the user"
    );
    assert_eq!(history.first_instruction.as_ref().unwrap().text, "first");
}

#[test]
fn a_turn_the_agent_starts_by_itself_has_no_user_message() {
    let mut history = History::new("claude");
    assert!(history.apply(0, &assistant("the background agent finished")));
    assert!(history.apply(1, &status(Status::Completed, None)));
    let turn = history.turns().next().unwrap();
    assert!(turn.user.is_empty());
    assert_eq!(turn.outcome, Some(Outcome::Completed));
}

#[test]
fn late_updates_subagents_and_other_events_change_nothing() {
    let mut history = History::new("claude");
    fold(
        &mut history,
        &[
            user("go"),
            tool("t1", ToolStatus::Running, false),
            status(Status::Completed, None),
        ],
    );
    let before = history.clone();
    assert!(!history.apply(5, &tool("t1", ToolStatus::Succeeded, true)));
    assert!(!history.apply(5, &log(EntryKind::Assistant { text: "x".into() }, true)));
    assert!(!history.apply(5, &status(Status::Failed, Some("again"))));
    assert!(!history.apply(
        5,
        &SessionEvent::Log {
            scope: Scope::Subagent("t9".into()),
            entry: LogEntry {
                id: 0,
                at_ms: 0,
                kind: EntryKind::User { text: "sub".into() },
            },
            update: false,
            dropped: 0,
        }
    ));
    assert!(!history.apply(
        5,
        &SessionEvent::Stream {
            text: "x".into(),
            reset: false
        }
    ));
    assert_eq!(history, before);
}

#[test]
fn texts_are_cut_on_character_boundaries_with_the_real_size_noted() {
    let mut history = History::new("claude");
    // Three-byte characters: the cap falls inside one.
    let long = "日本語".repeat(MAX_FINAL_TEXT);
    history.apply(0, &user(&long));
    history.apply(1, &assistant(&long));
    let turn = history.open_turn().unwrap();
    let kept = &turn.user[0];
    assert!(kept.text.len() <= MAX_USER_TEXT && kept.text.len() > MAX_USER_TEXT - 3);
    assert_eq!(kept.full_bytes, Some(long.len()));
    assert!(long.starts_with(&kept.text));
    let final_text = turn.final_text.as_ref().unwrap();
    assert!(final_text.text.len() <= MAX_FINAL_TEXT);
    assert!(
        final_text
            .display()
            .ends_with(&format!("[cut: {} bytes in all]", long.len()))
    );
    assert_eq!(Capped::new("short", 10).full_bytes, None);
}

#[test]
fn messages_and_tool_calls_per_turn_are_capped_and_counted() {
    let mut history = History::new("claude");
    for n in 0..MAX_USER_MESSAGES + 3 {
        history.apply(0, &user(&format!("m{n}")));
    }
    for n in 0..MAX_TOOLS + 5 {
        history.apply(0, &tool(&format!("t{n}"), ToolStatus::Running, false));
    }
    let turn = history.open_turn().unwrap();
    assert_eq!((turn.user.len(), turn.user_omitted), (MAX_USER_MESSAGES, 3));
    assert_eq!((turn.tools.len(), turn.tools_omitted), (MAX_TOOLS, 5));
}

#[test]
fn the_oldest_turns_go_first_and_are_counted() {
    let mut history = History::new("claude");
    let big = "x".repeat(MAX_FINAL_TEXT);
    let turns = 200;
    for n in 0..turns {
        history.apply(n, &user(&format!("instruction {n}")));
        history.apply(n, &assistant(&big));
        history.apply(n, &status(Status::Completed, None));
        assert!(history.bytes() <= HISTORY_BUDGET);
    }
    let kept = history.turns().count() as u64;
    assert!(kept > 10 && kept < turns, "{kept}");
    assert_eq!(history.dropped_turns + kept, turns);
    // The newest stays; the first instruction is kept apart.
    let newest = history.turns().last().unwrap();
    assert_eq!(newest.user[0].text, format!("instruction {}", turns - 1));
    assert_eq!(
        history.first_instruction.as_ref().unwrap().text,
        "instruction 0"
    );
    // What the budget counts is close to what is written.
    let written = crate::history_file::encode("s", &history).unwrap().len();
    assert!(written <= HISTORY_BUDGET + 4096, "{written}");
    // A reload counts the same.
    let mut reloaded: History =
        serde_json::from_slice(&serde_json::to_vec(&history).unwrap()).unwrap();
    reloaded.after_load();
    assert_eq!(reloaded.bytes(), history.bytes());
}

#[test]
fn an_agent_switch_is_a_marker_and_the_next_turn_runs_on_the_new_agent() {
    let mut history = History::new("claude");
    history.apply(0, &user("start"));
    history.switch_agent(
        5,
        AgentRef {
            name: "codex".into(),
            model: Some("gpt".into()),
        },
    );
    history.apply(6, &user("go on"));
    assert!(matches!(
        history.items[1],
        HistoryItem::AgentSwitch { ref from, ref to, at: 5 } if from.name == "claude" && to.name == "codex"
    ));
    // The open turn was settled by the switch.
    let turns: Vec<&TurnRecord> = history.turns().collect();
    assert_eq!(turns[0].outcome, Some(Outcome::Interrupted));
    assert_eq!(turns[1].agent.label(), "codex (gpt)");
    // An unknown item kind from a newer codiva reads as Unknown.
    let item: HistoryItem = serde_json::from_str(r#"{"kind":"plan","steps":[]}"#).unwrap();
    assert_eq!(item, HistoryItem::Unknown);
}

#[test]
fn log_entries_rebuild_the_conversation_with_notes() {
    let mut history = History::new("claude");
    fold(
        &mut history,
        &[
            user("fix it"),
            tool("t1", ToolStatus::Running, false),
            tool("t1", ToolStatus::Succeeded, true),
            assistant("done"),
            status(Status::Completed, None),
            user("again"),
            status(Status::Failed, Some("API Error: 500")),
        ],
    );
    history.dropped_turns = 2;
    let entries = history.log_entries();
    let kinds: Vec<String> = entries
        .iter()
        .map(|entry| match entry {
            EntryKind::User { text } => format!("user {text}"),
            EntryKind::Assistant { text } => format!("assistant {text}"),
            EntryKind::Tool(tool) => format!("tool {} {:?}", tool.summary, tool.status),
            EntryKind::Note { text, .. } => format!("note {text}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "note 2 earlier turns are not in codiva's summary (it keeps the latest)",
            "user fix it",
            "tool cargo test t1 Succeeded",
            "assistant done",
            "user again",
            "note turn failed: API Error: 500",
        ]
    );
}

fn handover_sample() -> History {
    let mut history = History::new("claude");
    for n in 0..6 {
        history.apply(
            n,
            &user(&format!("指示{n}：日本語のテキストを直してください。")),
        );
        history.apply(n, &tool(&format!("t{n}"), ToolStatus::Running, false));
        history.apply(n, &assistant(&"完了しました。".repeat(20)));
        history.apply(n, &status(Status::Completed, None));
    }
    history
}

#[test]
fn the_handover_keeps_within_its_budget_and_cuts_only_between_characters() {
    let history = handover_sample();
    let full = handover::render(&history, "codiva/日本語", usize::MAX);
    for budget in 0..full.len() + 10 {
        let text = handover::render(&history, "codiva/日本語", budget);
        assert!(text.len() <= budget, "{budget}: {}", text.len());
        // Every budget falls somewhere: inside a character, slicing would have panicked.
        assert!(!text.contains('\u{fffd}'));
    }
    assert!(full.contains("codiva/日本語"));
    assert!(full.contains("## First instruction\n指示0"));
    assert!(full.contains("## Latest instruction\n指示5"));
    for n in 0..6 {
        assert!(full.contains(&format!("### Turn {}", n + 1)), "{full}");
    }
}

#[test]
fn a_small_handover_prefers_the_newest_turns() {
    let history = handover_sample();
    let full = handover::render(&history, "b", usize::MAX);
    let text = handover::render(&history, "b", full.len() / 2);
    assert!(text.contains("### Turn 6"), "{text}");
    assert!(!text.contains("### Turn 1 "), "{text}");
    assert!(text.contains("earlier turns omitted"), "{text}");
    // Oldest first among those kept.
    let five = text.find("### Turn 5").unwrap();
    let six = text.find("### Turn 6").unwrap();
    assert!(five < six);
}

fn thinking(text: &str, update: bool) -> SessionEvent {
    log(EntryKind::Thinking { text: text.into() }, update)
}

/// Regression: a restored Codex or ACP session (rebuilt from this record) lost its thinking
/// and the text said just before a tool call. They are kept in their place among the tool
/// calls; the final text keeps its own, longer cap; a record of an earlier version (no
/// `said`) rebuilds as before.
#[test]
fn a_restored_turn_keeps_thinking_and_the_text_before_each_tool_call() {
    let mut history = History::new("codex");
    let long_final = "é".repeat(MAX_SAID_TEXT);
    fold(
        &mut history,
        &[
            user("fix it"),
            thinking("Let me", false),
            thinking("Let me look at the tests", true),
            assistant("I'll run the tests first."),
            tool("t1", ToolStatus::Running, false),
            tool("t1", ToolStatus::Succeeded, true),
            assistant("They fail; fixing."),
            tool("t2", ToolStatus::Succeeded, false),
            assistant(&long_final),
            status(Status::Completed, None),
        ],
    );
    let kinds = |entries: &[EntryKind]| -> Vec<String> {
        entries
            .iter()
            .map(|entry| match entry {
                EntryKind::User { text } => format!("user {text}"),
                EntryKind::Assistant { text } if text.len() > 100 => {
                    format!("assistant {} bytes", text.len())
                }
                EntryKind::Assistant { text } => format!("assistant {text}"),
                EntryKind::Thinking { text } => format!("thinking {text}"),
                EntryKind::Tool(tool) => format!("tool {}", tool.tool_use_id),
                other => format!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(
        kinds(&history.log_entries()),
        [
            "user fix it",
            "thinking Let me look at the tests",
            "assistant I'll run the tests first.",
            "tool t1",
            "assistant They fail; fixing.",
            "tool t2",
            // Whole: the final text's cap, not the shorter one of the texts before it.
            &format!("assistant {} bytes", long_final.len()),
        ]
    );
    // Saved and read back: the same.
    let text = serde_json::to_string(&history).unwrap();
    let mut back: History = serde_json::from_str(&text).unwrap();
    back.after_load();
    assert_eq!(back.log_entries(), history.log_entries());
    // A record of an earlier version has no `said`: tools, then the final text.
    let mut old = history.clone();
    for item in &mut old.items {
        if let HistoryItem::Turn(turn) = item {
            turn.said.clear();
        }
    }
    assert_eq!(
        kinds(&old.log_entries()),
        [
            "user fix it",
            "tool t1",
            "tool t2",
            &format!("assistant {} bytes", long_final.len()),
        ]
    );
}

#[test]
fn texts_beyond_the_cap_are_counted_and_the_final_text_still_ends_the_turn() {
    let mut history = History::new("codex");
    let mut events = vec![user("go")];
    for n in 0..MAX_SAID + 3 {
        events.push(assistant(&format!("step {n}")));
    }
    events.push(status(Status::Completed, None));
    fold(&mut history, &events);
    let entries = history.log_entries();
    let texts: Vec<&str> = entries
        .iter()
        .filter_map(|entry| match entry {
            EntryKind::Assistant { text } | EntryKind::Note { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts.len(), MAX_SAID + 2, "{texts:?}");
    assert_eq!(
        texts[MAX_SAID],
        "3 more texts in this turn are not in the summary"
    );
    assert_eq!(texts[MAX_SAID + 1], format!("step {}", MAX_SAID + 2));
}
