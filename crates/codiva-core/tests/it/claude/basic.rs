//! Text streaming and multi-turn conversations.

use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{MockMessage, Reply, Script};

use super::harness::Run;

#[tokio::test]
async fn japanese_text_streams_and_completes() {
    let text = "こんにちは！日本語のテキストです。絵文字も🎌👩‍💻含みます。";
    let script = Script::new().then(Reply::message(MockMessage::new().text_slow(text, 3, 20)));
    let mut run = Run::start("claude-basic-ja", script, "日本語で挨拶して");
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.streamed_text(),
        "",
        "the stream is reset once the message is complete"
    );
    let deltas: String = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Stream { text, reset: false } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, text, "every streamed piece arrived in order");
    assert_eq!(run.assistant_texts(), vec![text.to_owned()]);
    let statuses = run.statuses();
    assert_eq!(statuses.first(), Some(&Status::Running));
    assert_eq!(statuses.last(), Some(&Status::Completed));
    let snapshot = run.snapshot().await;
    assert!(snapshot.connected, "the initialize handshake was answered");
    assert!(snapshot.agent_session_id.is_some());
    assert!(
        snapshot.usage.cost_usd.is_some(),
        "an API-key session reports a cost"
    );
    assert!(snapshot.usage.tokens.input > 0);
    assert_eq!(snapshot.usage.context_window, Some(1_000_000));
    assert!(
        run.events.iter().any(
            |event| matches!(event, SessionEvent::Connected { agent } if !agent.models.is_empty())
        ),
        "the model catalogue from initialize is kept"
    );
    run.finish().await;
}

#[tokio::test]
async fn two_turns_in_one_process() {
    let script = Script::new()
        .then(Reply::text("First answer."))
        .then(Reply::text("Second answer."));
    let mut run = Run::start("claude-two-turns", script, "first question");
    assert_eq!(run.until_settled().await, Status::Completed);
    let first_id = run.snapshot().await.agent_session_id;
    run.send("second question");
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.assistant_texts(),
        vec!["First answer.".to_owned(), "Second answer.".to_owned()]
    );
    let snapshot = run.snapshot().await;
    assert_eq!(
        snapshot.agent_session_id, first_id,
        "one agent session across turns"
    );
    let requests = run.mock.message_requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].body.to_string().contains("First answer."),
        "the second request carries the first turn"
    );
    run.finish().await;
}
