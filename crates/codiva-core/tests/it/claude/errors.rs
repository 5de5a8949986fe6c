//! API errors, retries, stream faults and a killed CLI (PROTOCOL_NOTES §1.8).

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{AgentSandbox, Match, MockMessage, Reply, Rule, Script, Times};

use super::harness::{Run, Setup};

fn setup(max_retries: u32) -> Setup {
    Setup {
        sandbox: AgentSandbox::new()
            .expect("sandbox")
            .with_max_retries(max_retries),
        ..Setup::default()
    }
}

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

fn notes(log: &[LogEntry], level: NoteLevel) -> Vec<String> {
    log.iter()
        .filter_map(|entry| match &entry.kind {
            EntryKind::Note { level: l, text, .. } if *l == level => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn api_401_needs_login() {
    let script = Script::new().rule(
        Rule::new(
            Match::Any,
            Reply::error(401, "authentication_error", "invalid x-api-key"),
        )
        .times(Times::Always),
    );
    let mut run = Run::start_with("claude-api-401", script, setup(1), Some("hello"));
    assert_eq!(run.until_settled().await, Status::NeedsLogin);
    let statuses = status_events(&run);
    assert!(
        statuses
            .iter()
            .any(|(s, d)| *s == Status::Running && d.as_deref() == Some("retrying (1/1)")),
        "the CLI retries a 401 once before giving up: {statuses:?}"
    );
    let (last, detail) = statuses.last().cloned().expect("a status");
    assert_eq!(last, Status::NeedsLogin);
    let detail = detail.expect("a detail");
    assert!(detail.contains("Invalid API key"), "detail: {detail}");
    let errors = notes(&run.main_log(), NoteLevel::Error);
    assert_eq!(
        errors
            .iter()
            .filter(|t| t.contains("Invalid API key"))
            .count(),
        1,
        "the CLI's error text is logged once: {errors:?}"
    );
    assert!(run.assistant_texts().is_empty(), "no model answer");
    assert_eq!(
        run.mock.message_requests().len(),
        2,
        "one try plus one retry"
    );
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.status, Status::NeedsLogin);
    run.finish().await;
}

#[tokio::test]
async fn api_529_retries_then_succeeds() {
    let answer = "Recovered after the overload.";
    let script = Script::new()
        .rule(Rule::new(Match::Any, Reply::overloaded()).times(Times::N(2)))
        .then(Reply::text(answer));
    let mut run = Run::start_with("claude-api-529", script, setup(3), Some("hello"));
    assert_eq!(run.until_settled().await, Status::Completed);
    let statuses = status_events(&run);
    let retry_1 = statuses
        .iter()
        .position(|(s, d)| *s == Status::Running && d.as_deref() == Some("retrying (1/3)"))
        .unwrap_or_else(|| panic!("no 'retrying (1/3)' status: {statuses:?}"));
    let retry_2 = statuses
        .iter()
        .position(|(s, d)| *s == Status::Running && d.as_deref() == Some("retrying (2/3)"))
        .unwrap_or_else(|| panic!("no 'retrying (2/3)' status: {statuses:?}"));
    assert!(retry_1 < retry_2);
    assert!(
        !statuses
            .iter()
            .any(|(_, d)| d.as_deref() == Some("retrying (3/3)")),
        "only two retries: {statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&(Status::Completed, None)));
    assert!(
        !statuses[..statuses.len() - 1]
            .iter()
            .any(|(s, _)| s.is_settled()),
        "nothing settles before the answer: {statuses:?}"
    );
    assert_eq!(run.assistant_texts(), vec![answer.to_owned()]);
    assert!(notes(&run.main_log(), NoteLevel::Error).is_empty());
    assert_eq!(run.mock.message_requests().len(), 3);
    run.finish().await;
}

#[tokio::test]
async fn api_529_exhausted_fails() {
    let script =
        Script::new().rule(Rule::new(Match::Any, Reply::overloaded()).times(Times::Always));
    let mut run = Run::start_with("claude-api-529-exhausted", script, setup(2), Some("hello"));
    assert_eq!(run.until_settled().await, Status::Failed);
    let statuses = status_events(&run);
    for attempt in ["retrying (1/2)", "retrying (2/2)"] {
        assert!(
            statuses
                .iter()
                .any(|(s, d)| *s == Status::Running && d.as_deref() == Some(attempt)),
            "no '{attempt}' status: {statuses:?}"
        );
    }
    let (last, detail) = statuses.last().cloned().expect("a status");
    assert_eq!(last, Status::Failed);
    let detail = detail.expect("a failure detail");
    assert!(
        detail.contains("529") && detail.contains("Overloaded"),
        "detail: {detail}"
    );
    let errors = notes(&run.main_log(), NoteLevel::Error);
    assert_eq!(
        errors.iter().filter(|t| t.contains("529")).count(),
        1,
        "logged once: {errors:?}"
    );
    assert_eq!(run.mock.message_requests().len(), 3, "one try, two retries");
    assert!(run.assistant_texts().is_empty());
    run.finish().await;
}

#[tokio::test]
async fn stream_cut_mid_answer_is_retried_from_scratch() {
    let answer = "The answer is forty-two, computed carefully.";
    // message_start, content_block_start, ping, then three deltas ("The ", "answ", "er i").
    let script = Script::new()
        .then(Reply::cut_after(
            MockMessage::new().text_slow(answer, 4, 10),
            6,
        ))
        .then(Reply::text_slow(answer, 4, 5));
    let mut run = Run::start_with("claude-stream-cut", script, setup(2), Some("hello"));
    assert_eq!(run.until_settled().await, Status::Completed);
    // What was streamed: the partial attempt, a reset, the full second attempt, a reset.
    let mut attempts: Vec<String> = vec![String::new()];
    for event in &run.events {
        if let SessionEvent::Stream { text, reset } = event {
            if *reset {
                attempts.push(String::new());
            } else if let Some(current) = attempts.last_mut() {
                current.push_str(text);
            }
        }
    }
    attempts.retain(|text| !text.is_empty());
    assert_eq!(
        attempts,
        vec!["The answer i".to_owned(), answer.to_owned()],
        "the partial text was dropped before the retry streamed"
    );
    assert_eq!(run.streamed_text(), "", "nothing left streaming");
    assert_eq!(
        run.assistant_texts(),
        vec![answer.to_owned()],
        "exactly one assistant entry: the full second attempt"
    );
    let statuses = status_events(&run);
    assert!(
        statuses
            .iter()
            .any(|(s, d)| *s == Status::Running && d.as_deref() == Some("retrying (1/2)")),
        "the cut is retried: {statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&(Status::Completed, None)));
    assert_eq!(run.mock.message_requests().len(), 2);
    run.finish().await;
}

fn transcript(run: &Run, session: &str) -> Option<std::path::PathBuf> {
    let projects = run.sandbox.home.path().join(".claude/projects");
    std::fs::read_dir(projects)
        .ok()?
        .filter_map(Result::ok)
        .map(|dir| dir.path().join(format!("{session}.jsonl")))
        .find(|path| path.exists())
}

async fn wait_for_transcript(run: &Run, session: &str) {
    for _ in 0..100 {
        if transcript(run, session).is_some() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("[{}] the CLI wrote no transcript for {session}", run.name);
}

fn kill_claude(run: &Run) -> u32 {
    let records = run.registry.records().expect("registry");
    let claude = records
        .iter()
        .find(|record| record.label == "claude")
        .unwrap_or_else(|| panic!("no claude in the registry: {records:?}"));
    let status = std::process::Command::new("kill")
        .args(["-9", &claude.pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    claude.pid
}

#[tokio::test]
async fn killed_cli_mid_turn_is_interrupted_then_resumes() {
    let long_text = "word ".repeat(400);
    let script = Script::new()
        .then(Reply::text_slow(long_text, 5, 50))
        .then(Reply::text("Back again."));
    let mut run = Run::start(
        "claude-killed-midturn",
        script,
        "FIRST-PROMPT tell a long story",
    );
    run.until("the first streamed text", |event| {
        matches!(event, SessionEvent::Stream { reset: false, .. })
    })
    .await;
    let session_id = run.snapshot().await.agent_session_id;
    let session = session_id.clone().expect("the CLI reported its session");
    // The CLI writes its transcript lazily (about 100 ms after the stream starts); killed
    // before that, there is nothing to resume (see `killed_cli_before_its_transcript_exists`).
    wait_for_transcript(&run, &session).await;
    let old_pid = kill_claude(&run);

    assert_eq!(run.until_settled().await, Status::Interrupted);
    let statuses = status_events(&run);
    let (_, detail) = statuses.last().cloned().expect("a status");
    let detail = detail.expect("an interrupted status with a reason");
    assert!(
        detail.contains("signal 9"),
        "the detail names the signal: {detail}"
    );
    let warnings = notes(&run.main_log(), NoteLevel::Warning);
    assert!(
        warnings
            .iter()
            .any(|t| t.contains("ended mid-turn") && t.contains("signal 9")),
        "warnings: {warnings:?}"
    );
    assert_eq!(run.streamed_text(), "", "the partial stream was dropped");

    // The engine restarts the CLI (with --resume) by itself.
    let restart_note = |event: &SessionEvent| {
        matches!(event, SessionEvent::Log { entry, .. }
            if matches!(&entry.kind, EntryKind::Note { text, .. } if text.starts_with("restarting the agent")))
    };
    if !run.events.iter().any(restart_note) {
        run.until("the restart note", restart_note).await;
    }

    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.status, Status::Interrupted);
    assert!(
        snapshot
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("signal 9")),
        "the reason survives the automatic restart: {:?}",
        snapshot.detail
    );

    run.send("again");
    run.until_status(Status::Running).await;
    let settled = run.until_settled().await;
    assert_eq!(settled, Status::Completed, "events:\n{}", run.dump());
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("Back again.")
    );
    let snapshot = run.snapshot().await;
    assert_eq!(
        snapshot.agent_session_id, session_id,
        "the same agent session continued"
    );
    let records = run.registry.records().expect("registry");
    assert!(
        records.iter().all(|record| record.pid != old_pid),
        "the killed process left the registry"
    );
    let requests = run.mock.message_requests();
    let last = requests.last().expect("requests");
    let texts = last.user_texts();
    assert!(
        texts.iter().any(|t| t.contains("FIRST-PROMPT")),
        "the resumed conversation carries the first prompt: {texts:?}"
    );
    assert!(texts.last().is_some_and(|t| t.contains("again")));
    run.finish().await;
}

/// Killed before the CLI wrote its transcript: `--resume` cannot work ("No conversation found
/// with session ID"), so the session must not keep resuming a conversation that does not
/// exist; the next message starts a new one.
#[tokio::test]
async fn killed_cli_before_its_transcript_exists() {
    let script = Script::new()
        .then_when(
            Match::LastUserContains("again".into()),
            Reply::text("Back again."),
        )
        .then_when(
            Match::FirstUserContains("FIRST-PROMPT".into()),
            Reply::text_slow("word ".repeat(400), 5, 50),
        );
    let mut run = Run::start(
        "claude-killed-before-transcript",
        script,
        "FIRST-PROMPT tell a long story",
    );
    run.until("the agent session id", |event| {
        matches!(event, SessionEvent::AgentSession { .. })
    })
    .await;
    let session = run
        .snapshot()
        .await
        .agent_session_id
        .expect("the CLI reported its session");
    kill_claude(&run);
    assert_eq!(run.until_settled().await, Status::Interrupted);
    assert!(
        transcript(&run, &session).is_none(),
        "the scenario needs a kill before the transcript is written"
    );

    run.send("again");
    let settled = run.until_settled().await;
    assert_eq!(settled, Status::Completed, "events:\n{}", run.dump());
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("Back again.")
    );
    let restarts = run
        .main_log()
        .iter()
        .filter(|entry| {
            matches!(&entry.kind, EntryKind::Note { text, .. } if text.starts_with("restarting the agent"))
        })
        .count();
    assert!(restarts <= 1, "no restart loop: {restarts} restarts");
    let snapshot = run.snapshot().await;
    assert_ne!(
        snapshot.agent_session_id.as_deref(),
        Some(session.as_str()),
        "a new agent session"
    );
    run.finish().await;
}
