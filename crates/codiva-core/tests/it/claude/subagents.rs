//! Subagents (the Agent tool): the completion gate for background agents, and subagent output
//! kept out of the main log (PROTOCOL_NOTES §1.9).

use codiva_protocol::log::EntryKind;
use codiva_protocol::session::{Scope, SessionEvent, Status};
use codiva_testkit::{Match, MockMessage, Reply, Script};
use serde_json::json;

use super::harness::Run;

/// Every status with its detail, in the order reported.
fn status_events(run: &Run) -> Vec<(Status, Option<String>)> {
    run.events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Status { status, detail, .. } => Some((*status, detail.clone())),
            _ => None,
        })
        .collect()
}

/// Texts logged in `scope` (assistant messages and subagent prompts).
fn texts_in(run: &Run, wanted: &Scope) -> Vec<String> {
    run.events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Log { scope, entry, .. } if scope == wanted => match &entry.kind {
                EntryKind::Assistant { text } | EntryKind::SubagentPrompt { text } => {
                    Some(text.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn background_agent_holds_completion_until_it_finishes() {
    let agent_id = "toolu_bg_agent_0001";
    let sub_text = "SUBAGENT-TEXT the repo has README.md only.";
    let script = Script::new()
        // The subagent's own conversation starts with the Agent prompt.
        .then_when(
            Match::FirstUserContains("SUBAGENT-PROMPT".into()),
            Reply::text_slow(sub_text, 2, 120),
        )
        // The turn the CLI starts by itself once the agent finished.
        .then_when(
            Match::AnyUserContains("<task-notification>".into()),
            Reply::text("All done."),
        )
        .then_when(
            Match::FirstUserContains("PARENT-PROMPT".into()),
            Reply::message(MockMessage::new().tool_use_with_id(
                agent_id,
                "Agent",
                json!({
                    "description": "Inspect the repo",
                    "prompt": "SUBAGENT-PROMPT list files",
                    "subagent_type": "general-purpose",
                    "run_in_background": true
                }),
            )),
        )
        .then_when(
            Match::FirstUserContains("PARENT-PROMPT".into()),
            Reply::text("Parent done while the agent works."),
        );
    let mut run = Run::start(
        "claude-task-agent-bg",
        script,
        "PARENT-PROMPT inspect the repo in the background",
    );
    // The parent's first result arrives while the agent still works.
    run.until("the gate", |event| {
        matches!(event, SessionEvent::Status { status: Status::Running, detail: Some(d), .. }
            if d == "waiting for 1 background agent")
    })
    .await;
    assert!(
        run.assistant_texts()
            .contains(&"Parent done while the agent works.".to_owned()),
        "the gate follows the parent's answer"
    );
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.status, Status::Running);
    assert_eq!(snapshot.subagents.len(), 1);
    assert_eq!(
        snapshot.subagents[0].status,
        codiva_protocol::session::SubagentStatus::Running
    );
    assert!(snapshot.subagents[0].background);

    // The CLI starts a turn by itself to hand the agent's report to the parent.
    run.until("the follow-up answer", |event| {
        matches!(event, SessionEvent::Log { scope: Scope::Main, entry, .. }
            if matches!(&entry.kind, EntryKind::Assistant { text } if text == "All done."))
    })
    .await;
    assert_eq!(
        run.until_settled().await,
        Status::Completed,
        "events:\n{}",
        run.dump()
    );
    let statuses = status_events(&run);
    let settled: Vec<_> = statuses.iter().filter(|(s, _)| s.is_settled()).collect();
    assert_eq!(
        settled,
        vec![&(Status::Completed, None)],
        "Completed exactly once, at the very end: {statuses:?}"
    );
    assert_eq!(
        run.assistant_texts(),
        vec![
            "Parent done while the agent works.".to_owned(),
            "All done.".to_owned()
        ]
    );
    let main = texts_in(&run, &Scope::Main);
    assert!(
        main.iter()
            .all(|t| !t.contains("SUBAGENT-TEXT") && !t.contains("SUBAGENT-PROMPT")),
        "the subagent's lines stay out of the main log: {main:?}"
    );
    let sub = texts_in(&run, &Scope::Subagent(agent_id.to_owned()));
    assert_eq!(
        sub.iter().filter(|t| t.as_str() == sub_text).count(),
        1,
        "the agent's answer is in its own log once (its report is the same text): {sub:?}"
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "Agent");
    assert_eq!(tools[0].tool_use_id, agent_id);
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.status, Status::Completed);
    assert_eq!(snapshot.subagents.len(), 1);
    let agent = &snapshot.subagents[0];
    assert_eq!(agent.tool_use_id, agent_id);
    assert_eq!(
        agent.status,
        codiva_protocol::session::SubagentStatus::Completed
    );
    assert_eq!(agent.description.as_deref(), Some("Inspect the repo"));
    assert_eq!(agent.subagent_type.as_deref(), Some("general-purpose"));
    assert!(agent.background);
    assert!(
        snapshot.log.iter().all(|entry| !matches!(
            &entry.kind,
            EntryKind::Assistant { text } if text.contains("SUBAGENT-TEXT")
        )),
        "nor in the snapshot's log"
    );
    run.finish().await;
}

#[tokio::test]
async fn foreground_agent_logs_in_its_own_scope() {
    let agent_id = "toolu_fg_agent_0001";
    let sub_text = "FG-SUBAGENT-TEXT two files found.";
    let script = Script::new()
        // The subagent looks first (a read-only command, allowed without asking), then reports.
        .then_when(
            Match::FirstUserContains("SUBAGENT-PROMPT".into()),
            Reply::message(
                MockMessage::new()
                    .text("FG-SUBAGENT-LOOKING at the files.")
                    .tool_use_with_id(
                        "toolu_fg_sub_ls_0001",
                        "Bash",
                        json!({"command": "ls", "description": "List files"}),
                    ),
            ),
        )
        .then_when(
            Match::FirstUserContains("SUBAGENT-PROMPT".into()),
            Reply::text(sub_text),
        )
        .then_when(
            Match::FirstUserContains("PARENT-PROMPT".into()),
            Reply::message(MockMessage::new().tool_use_with_id(
                agent_id,
                "Agent",
                json!({
                    "description": "Count files",
                    "prompt": "SUBAGENT-PROMPT count the files",
                    "subagent_type": "general-purpose",
                    "run_in_background": false
                }),
            )),
        )
        .then_when(
            Match::FirstUserContains("PARENT-PROMPT".into()),
            Reply::text("The agent counted the files."),
        );
    let mut run = Run::start(
        "claude-task-agent",
        script,
        "PARENT-PROMPT count files with an agent",
    );
    assert_eq!(run.until_settled().await, Status::Completed);
    let statuses = status_events(&run);
    assert!(
        statuses
            .iter()
            .all(|(_, d)| !d.as_deref().is_some_and(|d| d.contains("background"))),
        "a foreground agent is no background gate: {statuses:?}"
    );
    let sub = texts_in(&run, &Scope::Subagent(agent_id.to_owned()));
    assert!(
        sub.iter().any(|t| t.contains("SUBAGENT-PROMPT")),
        "the subagent's log starts with its prompt: {sub:?}"
    );
    assert!(
        sub.contains(&sub_text.to_owned()),
        "the subagent's answer is in its own log: {sub:?}"
    );
    let sub_tools: Vec<(String, String)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Log {
                scope: Scope::Subagent(id),
                entry,
                ..
            } if id == agent_id => match &entry.kind {
                EntryKind::Tool(tool) => Some((tool.name.clone(), format!("{:?}", tool.status))),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        sub_tools.last(),
        Some(&("Bash".to_owned(), "Succeeded".to_owned())),
        "the subagent's tool call is in its log: {sub_tools:?}"
    );
    let main = texts_in(&run, &Scope::Main);
    assert!(
        main.iter()
            .all(|t| !t.contains("FG-SUBAGENT") && !t.contains("SUBAGENT-PROMPT")),
        "the main log has none of it: {main:?}"
    );
    assert_eq!(
        run.assistant_texts(),
        vec!["The agent counted the files.".to_owned()]
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].tool_use_id, agent_id);
    assert!(
        tools[0]
            .result
            .as_deref()
            .is_some_and(|r| r.contains("FG-SUBAGENT-TEXT")),
        "the Agent tool's result carries the report: {:?}",
        tools[0].result
    );
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.subagents.len(), 1);
    let agent = &snapshot.subagents[0];
    assert_eq!(
        agent.status,
        codiva_protocol::session::SubagentStatus::Completed
    );
    assert!(!agent.background);
    assert_eq!(agent.description.as_deref(), Some("Count files"));
    run.finish().await;
}
