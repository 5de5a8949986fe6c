//! Interrupts while the model streams, while a tool runs and while a permission is pending;
//! each followed by a turn that completes normally.

use codiva_core::session::PermissionResponse;
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_testkit::{MockMessage, Reply, Script};
use serde_json::json;

use super::harness::{Run, Setup, read};

fn slow_text() -> Reply {
    Reply::message(MockMessage::new().text_slow("This is a very slow answer. ".repeat(40), 4, 50))
}

#[tokio::test]
async fn interrupt_while_streaming() {
    let script = Script::new()
        .then(slow_text())
        .then(Reply::text("Recovered."));
    let mut run = Run::start("claude-interrupt", script, "tell me a long story");
    run.until("the first streamed text", |e| {
        matches!(e, SessionEvent::Stream { reset: false, .. })
    })
    .await;
    run.interrupt();
    assert_eq!(run.until_settled().await, Status::Interrupted);
    run.send("short answer please");
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("Recovered.")
    );
    assert!(
        !run.statuses().contains(&Status::Failed),
        "an interrupt is never a failure"
    );
    run.finish().await;
}

#[tokio::test]
async fn interrupt_while_a_tool_runs() {
    let script = Script::new()
        .then(Reply::tool_use(
            "Bash",
            json!({"command": "timeout 60 tail -f /dev/null; echo finished", "description": "Wait"}),
        ))
        .then(Reply::text("Recovered after the tool."));
    let mut run = Run::start("claude-interrupt-bash", script, "run the long command");
    let Prompt::Permission(request) = run.until_prompt().await else {
        panic!("expected a permission prompt");
    };
    run.respond(&request.request_id, PermissionResponse::Allow);
    run.until_status(Status::Running).await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    run.interrupt();
    assert_eq!(run.until_settled().await, Status::Interrupted);
    run.send("continue");
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("Recovered after the tool.")
    );
    run.finish().await;
}

#[tokio::test]
async fn interrupt_while_a_permission_is_pending() {
    let mut run = Run::start_scripted(
        "claude-interrupt-during-permission",
        |repo| {
            Script::new()
                .then(Reply::tool_use(
                    "Write",
                    json!({"file_path": repo.join("never.txt"), "content": "x"}),
                ))
                .then(Reply::text("Fine, no file."))
        },
        Setup::default(),
        Some("write never.txt"),
    );
    let prompt = run.until_prompt().await;
    run.interrupt();
    run.until("the prompt to be withdrawn", |e| {
        matches!(e, SessionEvent::PromptClosed { request_id, .. } if request_id == prompt.request_id())
    })
    .await;
    assert_eq!(run.until_settled().await, Status::Interrupted);
    assert!(read(&run.path("never.txt")).is_none());
    assert!(run.snapshot().await.prompts.is_empty());
    run.send("ok, just answer");
    assert_eq!(run.until_settled().await, Status::Completed);
    run.finish().await;
}
