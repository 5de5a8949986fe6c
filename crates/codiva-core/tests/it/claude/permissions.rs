//! Permission prompts: allow, deny, always allow, Bash, parallel tool calls.

use codiva_core::session::PermissionResponse;
use codiva_protocol::log::ToolStatus;
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_protocol::tool::PermissionMode;
use codiva_testkit::{MockMessage, Reply, Script};
use serde_json::json;

use super::harness::{Run, Setup, read};

fn write_script(
    file: &'static str,
    content: &'static str,
) -> impl FnOnce(&std::path::Path) -> Script {
    move |repo| {
        Script::new()
            .then(Reply::message(
                MockMessage::new().text("Writing it.").tool_use(
                    "Write",
                    json!({"file_path": repo.join(file), "content": content}),
                ),
            ))
            .then(Reply::text("Done."))
    }
}

fn permission(prompt: Prompt) -> codiva_protocol::agent::PermissionRequest {
    match prompt {
        Prompt::Permission(request) => request,
        other => panic!("expected a permission prompt, got {other:?}"),
    }
}

#[tokio::test]
async fn write_allowed() {
    let mut run = Run::start_scripted(
        "claude-write-allow",
        write_script("hello.txt", "héllo 世界\n"),
        Setup::default(),
        Some("create hello.txt"),
    );
    let request = permission(run.until_prompt().await);
    assert_eq!(request.tool, "Write");
    assert_eq!(run.snapshot().await.status, Status::AwaitingPermission);
    run.respond(&request.request_id, PermissionResponse::Allow);
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        read(&run.path("hello.txt")).as_deref(),
        Some("héllo 世界\n")
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "Write");
    assert_eq!(tools[0].summary, "hello.txt");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert!(tools[0].duration_ms.is_some());
    assert_eq!(
        run.statuses(),
        vec![
            Status::Running,
            Status::AwaitingPermission,
            Status::Running,
            Status::Completed
        ]
    );
    run.finish().await;
}

#[tokio::test]
async fn write_denied() {
    let mut run = Run::start_scripted(
        "claude-write-deny",
        write_script("hello.txt", "nope"),
        Setup::default(),
        Some("create hello.txt"),
    );
    let request = permission(run.until_prompt().await);
    run.respond(
        &request.request_id,
        PermissionResponse::Deny {
            message: "The user does not want new files right now.".into(),
        },
    );
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(
        read(&run.path("hello.txt")).is_none(),
        "a denied Write writes nothing"
    );
    assert_eq!(run.tools()[0].status, ToolStatus::Denied);
    let last = run
        .mock
        .message_requests()
        .last()
        .cloned()
        .expect("requests");
    assert!(
        last.body.to_string().contains("does not want new files"),
        "the model got the denial message"
    );
    run.finish().await;
}

#[tokio::test]
async fn always_allow_scope_stops_asking() {
    let mut run = Run::start_scripted(
        "claude-write-allow-always",
        |repo| {
            Script::new()
                .then(Reply::tool_use(
                    "Write",
                    json!({"file_path": repo.join("a.txt"), "content": "a"}),
                ))
                .then(Reply::tool_use(
                    "Write",
                    json!({"file_path": repo.join("b.txt"), "content": "b"}),
                ))
                .then(Reply::text("Both written."))
        },
        Setup::default(),
        Some("write two files"),
    );
    let request = permission(run.until_prompt().await);
    let scope = request
        .suggestions
        .iter()
        .position(|s| s["type"] == "setMode" && s["mode"] == "acceptEdits")
        .expect("the CLI offers acceptEdits for Write");
    run.respond(
        &request.request_id,
        PermissionResponse::AllowAlways {
            suggestion: Some(scope),
        },
    );
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(read(&run.path("a.txt")).as_deref(), Some("a"));
    assert_eq!(read(&run.path("b.txt")).as_deref(), Some("b"));
    let prompts = run
        .events
        .iter()
        .filter(|e| matches!(e, SessionEvent::PromptOpened { .. }))
        .count();
    assert_eq!(prompts, 1, "the second Write is not asked");
    assert!(
        run.events
            .iter()
            .any(|e| matches!(e, SessionEvent::PermissionMode { mode } if *mode == PermissionMode::AcceptEdits)),
        "the mode change is reported"
    );
    run.finish().await;
}

#[tokio::test]
async fn bash_runs_after_approval() {
    let script = Script::new()
        .then(Reply::tool_use(
            "Bash",
            json!({"command": "touch bash1.txt && echo created-1", "description": "Create a file"}),
        ))
        .then(Reply::text("Created."));
    let mut run = Run::start("claude-bash", script, "make bash1.txt");
    let request = permission(run.until_prompt().await);
    assert_eq!(request.tool, "Bash");
    assert_eq!(
        request.input["command"],
        "touch bash1.txt && echo created-1"
    );
    run.respond(&request.request_id, PermissionResponse::Allow);
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(run.path("bash1.txt").exists());
    let tool = &run.tools()[0];
    assert_eq!(tool.summary, "touch bash1.txt && echo created-1");
    assert_eq!(tool.status, ToolStatus::Succeeded);
    assert!(tool.result.as_deref().unwrap_or("").contains("created-1"));
    run.finish().await;
}

#[tokio::test]
async fn parallel_tool_calls_are_asked_one_at_a_time() {
    let mut run = Run::start_scripted(
        "claude-parallel-tools",
        |repo| {
            Script::new()
                .then(Reply::message(
                    MockMessage::new()
                        .tool_use(
                            "Write",
                            json!({"file_path": repo.join("p1.txt"), "content": "1"}),
                        )
                        .tool_use(
                            "Write",
                            json!({"file_path": repo.join("p2.txt"), "content": "2"}),
                        ),
                ))
                .then(Reply::text("Two files."))
        },
        Setup::default(),
        Some("write p1 and p2"),
    );
    let first = permission(run.until_prompt().await);
    assert_eq!(
        run.snapshot().await.prompts.len(),
        1,
        "one prompt at a time"
    );
    run.respond(&first.request_id, PermissionResponse::Allow);
    let second = permission(run.until_prompt().await);
    assert_ne!(first.request_id, second.request_id);
    run.respond(&second.request_id, PermissionResponse::Allow);
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(run.path("p1.txt").exists() && run.path("p2.txt").exists());
    let tools = run.tools();
    assert_eq!(tools.len(), 2);
    assert!(tools.iter().all(|t| t.status == ToolStatus::Succeeded));
    run.finish().await;
}
