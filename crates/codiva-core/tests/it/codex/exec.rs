//! End-to-end: the fallback, `codex exec --json` (one process per message), through the
//! Manager against the mock Responses API.

use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{MockMessage, Reply, Script};
use serde_json::json;

use super::harness::Run;

#[tokio::test]
async fn a_command_and_a_message_then_the_next_message_resumes_the_thread() {
    let script = Script::new()
        .then(Reply::message(
            MockMessage::new()
                .thinking("**Plan** touch it", "")
                .tool_use(
                    "exec_command",
                    json!({"cmd": "touch made.txt && echo made"}),
                ),
        ))
        .then(Reply::text("The command ran."))
        .then(Reply::text("Still here."));
    let mut run = Run::start_exec("codex-exec-command", script, "touch a file").await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(run.worktree().join("made.txt").exists(), "the command ran");
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert_eq!(run.assistant_texts(), vec!["The command ran.".to_owned()]);
    let thread = run
        .snapshot()
        .await
        .agent_session_id
        .expect("the thread id");
    assert!(run.snapshot().await.usage.tokens.input > 0);

    run.send("are you there?").await;
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.snapshot().await.agent_session_id.as_deref(),
        Some(thread.as_str()),
        "the second process resumed the thread"
    );
    let request = run.mock.response_requests().pop().expect("a request");
    assert!(request.body.to_string().contains("The command ran."));
    run.finish().await;
}

#[tokio::test]
async fn http_401_retries_then_needs_login() {
    let script = Script::new().always(Reply::error(401, "invalid_api_key", "Incorrect API key"));
    let mut run = Run::start_exec("codex-exec-http-401", script, "hello").await;
    assert_eq!(run.until_settled().await, Status::NeedsLogin);
    assert!(run.events.iter().any(|event| matches!(
        event,
        SessionEvent::Status { detail: Some(detail), .. } if detail.starts_with("retrying (1/5)")
    )));
    run.finish().await;
}

#[tokio::test]
async fn an_interrupt_stops_the_process_and_the_next_message_runs() {
    let long = "A long answer that takes its time. ".repeat(10);
    let script = Script::new()
        .then(Reply::text_slow(long, 4, 150))
        .then(Reply::text("Back again."));
    let mut run = Run::start_exec("codex-exec-interrupt", script, "tell a long story").await;
    run.until_status(Status::Running).await;
    while run.mock.response_requests().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    run.interrupt().await;
    assert_eq!(run.until_settled().await, Status::Interrupted);
    run.send("go on").await;
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(run.assistant_texts(), vec!["Back again.".to_owned()]);
    run.finish().await;
}

#[tokio::test]
async fn a_message_longer_than_one_argument_is_cut_with_a_note() {
    let script = Script::new().then(Reply::text("Read it."));
    let long = format!("START {} END", "日本語".repeat(20_000));
    let mut run = Run::start_exec("codex-exec-long", script, &long).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(run.main_log().iter().any(|entry| matches!(
        &entry.kind,
        EntryKind::Note { text, .. } if text.contains("the message was cut")
    )));
    let request = run.mock.response_requests().pop().expect("a request");
    let prompt = request.last_user_text().expect("the prompt");
    assert!(prompt.starts_with("START ") && prompt.contains("cut by codiva"));
    run.finish().await;
}
