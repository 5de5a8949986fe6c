//! Resuming an agent session in a new process.

use codiva_protocol::session::Status;
use codiva_testkit::{Match, Reply, Script};

use super::harness::{Run, Setup};

#[tokio::test]
async fn resume_in_a_new_process() {
    let script = Script::new().then(Reply::text("Remember the number 42."));
    let mut first = Run::start("claude-resume-first", script, "remember a number");
    assert_eq!(first.until_settled().await, Status::Completed);
    let id = first
        .snapshot()
        .await
        .agent_session_id
        .expect("an agent session id");
    let (sandbox, repo) = first.finish_keeping().await;

    let script = Script::new().then_when(
        Match::AnyUserContains("remember a number".into()),
        Reply::text("It was 42."),
    );
    let resume = id.clone();
    let mut second = Run::start_with(
        "claude-resume",
        script,
        Setup {
            sandbox,
            repo: Some(repo),
            configure: Box::new(move |config| config.resume = Some(resume)),
        },
        Some("what was the number?"),
    );
    assert_eq!(second.until_settled().await, Status::Completed);
    assert_eq!(second.assistant_texts(), vec!["It was 42.".to_owned()]);
    assert_eq!(
        second.snapshot().await.agent_session_id.as_deref(),
        Some(id.as_str()),
        "the same agent session continues"
    );
    let request = second
        .mock
        .message_requests()
        .last()
        .cloned()
        .expect("request");
    assert!(
        request.body.to_string().contains("Remember the number 42."),
        "the old turns travel with the new request"
    );
    second.finish().await;
}
