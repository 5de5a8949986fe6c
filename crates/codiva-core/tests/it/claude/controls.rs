//! Run-time controls: model and permission-mode switches, follow-ups queued behind a running
//! turn, deny-and-stop.

use codiva_core::session::{PermissionResponse, SessionCommand};
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_protocol::tool::PermissionMode;
use codiva_testkit::{MockMessage, Reply, Script};
use serde_json::json;

use super::harness::{Run, Setup, read};

#[tokio::test]
async fn set_model_applies_to_the_next_request() {
    let script = Script::new()
        .then(Reply::text("On the default model."))
        .then(Reply::text("On sonnet."));
    let mut run = Run::start("claude-set-model", script, "hello");
    assert_eq!(run.until_settled().await, Status::Completed);
    run.command(SessionCommand::SetModel(Some("claude-sonnet-4-5".into())));
    run.until(
        "the model change",
        |e| matches!(e, SessionEvent::Model { model: Some(m) } if m == "claude-sonnet-4-5"),
    )
    .await;
    run.send("again");
    assert_eq!(run.until_settled().await, Status::Completed);
    let requests = run.mock.message_requests();
    assert_eq!(requests.last().unwrap().body["model"], "claude-sonnet-4-5");
    assert_ne!(requests[0].body["model"], "claude-sonnet-4-5");
    assert_eq!(
        run.snapshot().await.model.as_deref(),
        Some("claude-sonnet-4-5")
    );
    run.finish().await;
}

#[tokio::test]
async fn set_permission_mode_accept_edits_stops_write_prompts() {
    let mut run = Run::start_scripted(
        "claude-set-permission-mode",
        |repo| {
            Script::new()
                .then(Reply::text("Ready."))
                .then(Reply::tool_use(
                    "Write",
                    json!({"file_path": repo.join("auto.txt"), "content": "auto"}),
                ))
                .then(Reply::text("Written without asking."))
        },
        Setup::default(),
        Some("get ready"),
    );
    assert_eq!(run.until_settled().await, Status::Completed);
    run.command(SessionCommand::SetPermissionMode(
        PermissionMode::AcceptEdits,
    ));
    run.until(
        "the mode change",
        |e| matches!(e, SessionEvent::PermissionMode { mode } if *mode == PermissionMode::AcceptEdits),
    )
    .await;
    run.send("write auto.txt");
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(read(&run.path("auto.txt")).as_deref(), Some("auto"));
    assert!(
        !run.events
            .iter()
            .any(|e| matches!(e, SessionEvent::PromptOpened { .. })),
        "acceptEdits lets Write through without a prompt"
    );
    run.finish().await;
}

#[tokio::test]
async fn a_follow_up_sent_during_a_turn_is_queued() {
    let script = Script::new()
        .then(Reply::message(MockMessage::new().text_slow(
            "A slow first answer. ".repeat(10),
            5,
            40,
        )))
        .then(Reply::text("The queued answer."));
    let mut run = Run::start("claude-queued-message", script, "first");
    run.until("streamed text", |e| {
        matches!(e, SessionEvent::Stream { reset: false, .. })
    })
    .await;
    run.send("second, sent while the first runs");
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.statuses(),
        vec![Status::Running, Status::Completed],
        "the session runs until the queued turn ends"
    );
    assert_eq!(run.assistant_texts().len(), 2);
    assert_eq!(run.assistant_texts()[1], "The queued answer.");
    run.finish().await;
}

#[tokio::test]
async fn deny_and_stop_ends_the_turn() {
    let mut run = Run::start_scripted(
        "claude-deny-and-stop",
        |repo| {
            Script::new()
                .then(Reply::tool_use(
                    "Write",
                    json!({"file_path": repo.join("stop.txt"), "content": "x"}),
                ))
                .then(Reply::text("Understood."))
        },
        Setup::default(),
        Some("write stop.txt"),
    );
    let Prompt::Permission(request) = run.until_prompt().await else {
        panic!("expected a permission prompt");
    };
    run.respond(
        &request.request_id,
        PermissionResponse::DenyAndStop {
            message: "Stop, I will do it myself.".into(),
        },
    );
    assert_eq!(run.until_settled().await, Status::Interrupted);
    assert!(read(&run.path("stop.txt")).is_none());
    run.send("ok, carry on without it");
    assert_eq!(run.until_settled().await, Status::Completed);
    run.finish().await;
}
