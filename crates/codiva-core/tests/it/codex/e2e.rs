//! End-to-end: the real codex 0.171.0 (`codex app-server`) through codiva's Manager against
//! the mock Responses API.

use codiva_core::session::PermissionResponse;
use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{SessionEvent, Status, TodoStatus};
use codiva_protocol::tool::{PermissionOptionKind, ToolContent, ToolKind};
use codiva_testkit::{MockMessage, Reply, Script};
use serde_json::json;

use super::harness::Run;

/// A command whose output comes over time (a short one's output arrives only with its end).
const SLOW_COMMAND: &str = "touch made.txt && for i in 1 2 3; do echo made $i; sleep 0.5; done";

fn command_script() -> Script {
    Script::new()
        .then(Reply::message(MockMessage::new().tool_use_with_id(
            "call_mock_cmd",
            "exec_command",
            json!({ "cmd": SLOW_COMMAND }),
        )))
        .then(Reply::text("The command is done."))
}

#[tokio::test]
async fn text_and_reasoning_stream_and_the_turn_completes() {
    let text = "こんにちは！codex からの返事です。🎌";
    let script = Script::new().then(Reply::message(
        MockMessage::new()
            .thinking("**Greeting** The user wants a short hello.", "")
            .text_slow(text, 3, 20),
    ));
    let mut run = Run::start("codex-basic", script, "say hello").await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(run.streamed(), text, "every delta arrived in order");
    assert_eq!(run.assistant_texts(), vec![text.to_owned()]);
    assert!(
        run.main_log().iter().any(|entry| matches!(
            &entry.kind,
            EntryKind::Thinking { text } if text.contains("short hello")
        )),
        "the reasoning summary is logged"
    );
    let snapshot = run.snapshot().await;
    assert!(snapshot.connected);
    let thread = snapshot.agent_session_id.clone().expect("the thread id");
    assert!(
        run.mock.response_requests()[0]
            .header("thread-id")
            .is_some_and(|header| header == thread),
        "the session id is codex's thread id"
    );
    assert_eq!(snapshot.model.as_deref(), Some("gpt-5.5"));
    assert_eq!(
        snapshot.permission_mode,
        Some(codiva_protocol::tool::PermissionMode::Default),
        "codex runs untrusted"
    );
    assert!(snapshot.usage.tokens.input > 0 && snapshot.usage.tokens.output > 0);
    assert!(snapshot.usage.context_window.is_some_and(|w| w > 0));
    assert!(
        run.events.iter().any(|event| matches!(
            event,
            SessionEvent::Connected { agent }
                if agent.models.iter().any(|m| m.id == "gpt-5.5")
                    && agent.version.as_deref() == Some("0.171.0")
        )),
        "model/list gives the catalog; initialize the version"
    );
    run.finish().await;
}

#[tokio::test]
async fn a_command_allowed_runs_in_the_worktree() {
    let mut run = Run::start("codex-command-accept", command_script(), "touch a file").await;
    let request = run.until_permission().await;
    assert_eq!(request.tool, "shell");
    assert_eq!(request.view.tool_kind, ToolKind::Execute);
    assert!(matches!(
        &request.view.content[..],
        [ToolContent::Terminal { command, .. }] if command.contains("touch made.txt")
    ));
    let kinds: Vec<PermissionOptionKind> = request.options.iter().map(|o| o.kind).collect();
    assert_eq!(kinds.first(), Some(&PermissionOptionKind::AllowOnce));
    assert!(kinds.contains(&PermissionOptionKind::Deny));
    assert!(kinds.contains(&PermissionOptionKind::DenyAndStop));
    assert_eq!(run.snapshot().await.status, Status::AwaitingPermission);
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(run.worktree().join("made.txt").exists(), "the command ran");
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert!(
        matches!(
            &tools[0].view.content[..],
            [ToolContent::Terminal { output: Some(output), .. }] if output.starts_with("made 1\nmade 2\nmade 3")
        ),
        "the whole output replaces what streamed: {:?}",
        tools[0].view.content
    );
    assert!(
        tools[0]
            .result
            .as_deref()
            .is_some_and(|r| r.contains("made"))
    );
    let streamed: Vec<String> = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Log { entry, .. } => match &entry.kind {
                EntryKind::Tool(tool) if tool.status == ToolStatus::Running => {
                    match &tool.view.content[..] {
                        [
                            ToolContent::Terminal {
                                output: Some(output),
                                ..
                            },
                        ] => Some(output.clone()),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(
        streamed.iter().any(|output| output.contains("made 2")),
        "the output streamed into the running call: {streamed:?}"
    );
    assert_eq!(
        run.assistant_texts(),
        vec!["The command is done.".to_owned()]
    );
    run.finish().await;
}

#[tokio::test]
async fn a_command_denied_does_not_run_and_the_turn_goes_on() {
    let mut run = Run::start("codex-command-decline", command_script(), "touch a file").await;
    let request = run.until_permission().await;
    run.respond(
        &request.request_id,
        PermissionResponse::Deny {
            message: "not now".to_owned(),
        },
    )
    .await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(
        !run.worktree().join("made.txt").exists(),
        "the command did not run"
    );
    let tools = run.tools();
    assert_eq!(tools[0].status, ToolStatus::Denied);
    let requests = run.mock.response_requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .last_user_text()
            .is_some_and(|t| t.contains("rejected")),
        "codex told the model: {:?}",
        requests[1].last_user_text()
    );
    run.finish().await;
}

#[tokio::test]
async fn a_file_patch_is_asked_for_with_its_diff_and_applied() {
    let patch = "*** Begin Patch\n*** Update File: README.md\n@@\n # test repo\n+Patched by codex.\n\
                 *** Add File: hello.txt\n+hello from codex\n+日本語の行\n*** End Patch\n";
    let script = Script::new()
        .then(Reply::message(
            MockMessage::new()
                .text("Patching.")
                .custom_tool("apply_patch", patch),
        ))
        .then(Reply::text("Patched."));
    let mut run = Run::start("codex-file-change", script, "patch the readme").await;
    let request = run.until_permission().await;
    assert_eq!(request.tool, "apply_patch");
    assert_eq!(request.view.tool_kind, ToolKind::Edit);
    let worktree = run.worktree().canonicalize().unwrap();
    let readme = worktree.join("README.md").display().to_string();
    let hello = worktree.join("hello.txt").display().to_string();
    assert!(
        request.view.content.contains(&ToolContent::Diff {
            path: readme,
            old: Some("# test repo\n".to_owned()),
            new: "# test repo\nPatched by codex.\n".to_owned(),
        }),
        "{:?}",
        request.view.content
    );
    assert!(request.view.content.contains(&ToolContent::Diff {
        path: hello,
        old: None,
        new: "hello from codex\n日本語の行\n".to_owned(),
    }));
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        std::fs::read_to_string(run.worktree().join("hello.txt")).unwrap(),
        "hello from codex\n日本語の行\n"
    );
    assert_eq!(
        std::fs::read_to_string(run.worktree().join("README.md")).unwrap(),
        "# test repo\nPatched by codex.\n"
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    run.finish().await;
}

#[tokio::test]
async fn a_plan_becomes_the_todo_list_with_its_progress() {
    let plan = |statuses: [&str; 3]| {
        let steps = ["Read the code", "Write the fix", "Run the tests"];
        json!({"plan": steps.iter().zip(statuses).map(|(step, status)| {
            json!({"step": step, "status": status})
        }).collect::<Vec<_>>()})
    };
    let script = Script::new()
        .then(Reply::tool_use(
            "update_plan",
            plan(["in_progress", "pending", "pending"]),
        ))
        .then(Reply::tool_use(
            "update_plan",
            plan(["completed", "in_progress", "pending"]),
        ))
        .then(Reply::text("Plan under way."));
    let mut run = Run::start("codex-plan", script, "make a plan").await;
    assert_eq!(run.until_settled().await, Status::Completed);
    let progress: Vec<(usize, usize)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Todos { progress, .. } => Some((progress.done, progress.total)),
            _ => None,
        })
        .collect();
    assert_eq!(progress, vec![(0, 3), (1, 3)], "Step 1/3, then 2/3");
    let snapshot = run.snapshot().await;
    let items: Vec<(String, TodoStatus)> = snapshot
        .todo_items
        .iter()
        .map(|item| (item.content.clone(), item.status))
        .collect();
    assert_eq!(
        items,
        vec![
            ("Read the code".to_owned(), TodoStatus::Completed),
            ("Write the fix".to_owned(), TodoStatus::InProgress),
            ("Run the tests".to_owned(), TodoStatus::Pending),
        ]
    );
    run.finish().await;
}

#[tokio::test]
async fn an_interrupted_turn_ends_and_the_next_one_completes() {
    let long = "Once upon a time there was a story that went on and on. ".repeat(8);
    let script = Script::new()
        .then(Reply::text_slow(long, 4, 150))
        .then(Reply::text("Back again."));
    let mut run = Run::start("codex-interrupt", script, "tell a long story").await;
    run.until("streamed text", |event| {
        matches!(event, SessionEvent::Stream { reset: false, .. })
    })
    .await;
    run.interrupt().await;
    assert_eq!(run.until_settled().await, Status::Interrupted);
    run.send("go on after the interrupt").await;
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(run.assistant_texts(), vec!["Back again.".to_owned()]);
    run.finish().await;
}

#[tokio::test]
async fn a_thread_resumes_in_a_new_process() {
    let script = Script::new().then(Reply::text("I will remember kiwi."));
    let mut first = Run::start("codex-resume-first", script, "remember kiwi").await;
    assert_eq!(first.until_settled().await, Status::Completed);
    let thread = first
        .snapshot()
        .await
        .agent_session_id
        .expect("a thread id");
    let id = first.id.clone();
    let kept = first.finish_keeping().await;

    let script = Script::new().then(Reply::text("You said kiwi."));
    let mut second = super::harness::Run::resume("codex-resume", script, kept, &id).await;
    second.send("what fruit did I name?").await;
    second.until_status(Status::Running).await;
    assert_eq!(second.until_settled().await, Status::Completed);
    assert_eq!(
        second.assistant_texts().last().map(String::as_str),
        Some("You said kiwi.")
    );
    assert_eq!(
        second.snapshot().await.agent_session_id.as_deref(),
        Some(thread.as_str()),
        "the same codex thread continues"
    );
    let request = second.mock.response_requests().pop().expect("a request");
    assert!(
        request.body.to_string().contains("I will remember kiwi."),
        "the old turn travels with the new request"
    );
    second.finish().await;
}

/// Agents kept in budget with Codex: idle for the configured time, the app-server is stopped
/// (asked for: the session stays completed), and the next message resumes the same thread in a
/// new process.
#[tokio::test]
async fn an_idle_app_server_is_stopped_and_the_thread_resumes() {
    let script = Script::new()
        .then(Reply::text("I will remember kiwi."))
        .then(Reply::text("You said kiwi."));
    let budget = codiva_core::manager::BudgetOptions {
        idle_stop: Some(std::time::Duration::from_secs(2)),
        ..Default::default()
    };
    let mut run = Run::start_budget("codex-idle-stop", script, "remember kiwi", budget).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    let thread = run.snapshot().await.agent_session_id.expect("a thread id");
    let exited = run
        .until("the idle agent to stop", |event| {
            matches!(event, SessionEvent::AgentExited { .. })
        })
        .await;
    assert!(
        matches!(
            exited,
            SessionEvent::AgentExited {
                requested: true,
                ..
            }
        ),
        "{exited:?}"
    );
    assert_eq!(run.snapshot().await.status, Status::Completed);
    run.send("what fruit did I name?").await;
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.snapshot().await.agent_session_id.as_deref(),
        Some(thread.as_str()),
        "the same codex thread continues"
    );
    let request = run.mock.response_requests().pop().expect("a request");
    assert!(
        request.body.to_string().contains("I will remember kiwi."),
        "the old turn travels with the new request"
    );
    run.finish().await;
}

#[tokio::test]
async fn http_401_means_needs_login() {
    let script = Script::new().always(Reply::error(
        401,
        "invalid_api_key",
        "Incorrect API key provided: sk-mock.",
    ));
    let mut run = Run::start("codex-http-401", script, "hello").await;
    assert_eq!(run.until_settled().await, Status::NeedsLogin);
    assert!(
        run.events.iter().any(|event| matches!(
            event,
            SessionEvent::Status { detail: Some(detail), .. } if detail.starts_with("retrying (1/5)")
        )),
        "codex retries a 401 before it gives up"
    );
    run.finish().await;
}

#[tokio::test]
async fn a_stream_cut_on_every_attempt_retries_then_fails_with_the_reason() {
    let script = Script::new().always(Reply::cut_after(
        MockMessage::new().text_slow("partial answer that gets cut off", 4, 0),
        5,
    ));
    let mut run = Run::start("codex-stream-cut", script, "hello").await;
    assert_eq!(run.until_settled().await, Status::Failed);
    let retries: Vec<String> = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Status {
                detail: Some(detail),
                ..
            } if detail.starts_with("retrying") => Some(detail.clone()),
            _ => None,
        })
        .collect();
    assert!(
        retries.iter().any(|d| d.starts_with("retrying (5/5)")),
        "{retries:?}"
    );
    assert!(
        run.main_log().iter().any(|entry| matches!(
            &entry.kind,
            EntryKind::Note { text, .. } if text.contains("stream disconnected before completion")
        )),
        "the reason is logged"
    );
    assert!(run.assistant_texts().is_empty(), "no cut text is kept");
    run.finish().await;
}

#[tokio::test]
async fn allowed_for_the_session_the_same_command_runs_again_without_asking() {
    let call = || {
        Reply::message(MockMessage::new().tool_use(
            "exec_command",
            json!({"cmd": "touch made.txt && echo made"}),
        ))
    };
    let script = Script::new()
        .then(call())
        .then(Reply::text("First done."))
        .then(call())
        .then(Reply::text("Second done."));
    let mut run = Run::start("codex-command-session", script, "touch a file").await;
    let request = run.until_permission().await;
    let always = request
        .option_of(PermissionOptionKind::AllowAlways)
        .expect("an allow-for-the-session option")
        .id
        .clone();
    run.respond(
        &request.request_id,
        PermissionResponse::Option {
            id: always,
            message: None,
        },
    )
    .await;
    assert_eq!(run.until_settled().await, Status::Completed);
    run.send("touch it again").await;
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    let prompts = run
        .events
        .iter()
        .filter(|event| matches!(event, SessionEvent::PromptOpened { .. }))
        .count();
    assert_eq!(
        prompts, 1,
        "the second run of the command was not asked for"
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 2);
    assert!(tools.iter().all(|t| t.status == ToolStatus::Succeeded));
    run.finish().await;
}

#[tokio::test]
async fn deny_and_stop_ends_the_turn() {
    let mut run = Run::start("codex-command-cancel", command_script(), "touch a file").await;
    let request = run.until_permission().await;
    run.respond(
        &request.request_id,
        PermissionResponse::DenyAndStop {
            message: "stop".to_owned(),
        },
    )
    .await;
    assert_eq!(run.until_settled().await, Status::Interrupted);
    assert!(!run.worktree().join("made.txt").exists());
    assert_eq!(
        run.mock.response_requests().len(),
        1,
        "the model was not asked again"
    );
    run.finish().await;
}

#[tokio::test]
async fn a_message_sent_mid_turn_steers_the_running_turn() {
    let long = "I am telling a long story that goes on. ".repeat(8);
    let script = Script::new()
        .then(Reply::text_slow(long, 4, 150))
        .then(Reply::text("Bye, as you asked."));
    let mut run = Run::start("codex-steer", script, "tell a long story").await;
    run.until("streamed text", |event| {
        matches!(event, SessionEvent::Stream { reset: false, .. })
    })
    .await;
    run.send("stop and say bye").await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert_eq!(
        run.assistant_texts(),
        vec!["Bye, as you asked.".to_owned()],
        "the abandoned answer is not logged"
    );
    let requests = run.mock.response_requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .last_user_text()
            .is_some_and(|text| text.contains("stop and say bye"))
    );
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.status, Status::Completed, "one turn answered both");
    run.finish().await;
}

/// A thread id that does not exist: the turn fails with codex's reason, the process ends (its
/// input is closed), and the next message starts a new thread.
#[tokio::test]
async fn resuming_a_thread_that_does_not_exist_fails_and_the_next_message_starts_afresh() {
    use codiva_core::process::{ChildRegistry, EnvPolicy};
    use codiva_core::session::{SessionCommand, SessionConfig};
    use codiva_protocol::UserInput;
    use std::sync::Arc;

    let sandbox = codiva_testkit::AgentSandbox::new().unwrap();
    let repo = codiva_testkit::TestRepo::new().unwrap();
    let mock = codiva_testkit::MockServer::start(Script::new().then(Reply::text("A new thread.")))
        .unwrap();
    let state = tempfile::tempdir().unwrap();
    let registry = Arc::new(ChildRegistry::open(state.path().join("children")).unwrap());
    let mut config = SessionConfig::new(
        Arc::new(codiva_core::codex::CodexProvider::new(
            codiva_testkit::codex_binary(),
        )),
        repo.path().to_path_buf(),
    );
    config.env = EnvPolicy::Exact(sandbox.codex_env(&mock.url()).unwrap());
    config.resume = Some("01a232d8-0000-7000-8000-000000000000".to_owned());
    config.registry = Some(registry.clone());
    let mut session = codiva_core::session_task::start(config, Some(UserInput::text("hello")));
    let mut events = Vec::new();
    let mut settle = async |session: &mut codiva_core::session::SessionHandle| loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(60), session.next_event())
            .await
            .expect("an event in time")
            .expect("the session runs");
        events.push(event.clone());
        if let SessionEvent::Status { status, .. } = event
            && status.is_settled()
        {
            return status;
        }
    };
    assert_eq!(settle(&mut session).await, Status::Failed);
    let snapshot = session.snapshot().await.unwrap();
    assert!(
        snapshot.log.iter().any(|entry| matches!(
            &entry.kind,
            EntryKind::Note { text, .. } if text.contains("no rollout found for thread id")
        )),
        "codex's reason is logged"
    );
    assert!(
        mock.response_requests().is_empty(),
        "no model request was made"
    );
    assert!(session.send(SessionCommand::Send(UserInput::text("again"))));
    assert_eq!(settle(&mut session).await, Status::Completed);
    let snapshot = session.snapshot().await.unwrap();
    assert!(
        snapshot
            .agent_session_id
            .is_some_and(|id| id != "01a232d8-0000-7000-8000-000000000000")
    );
    session.shutdown().await;
    assert!(
        registry.records().unwrap().is_empty(),
        "no codex process is left"
    );
}

#[tokio::test]
async fn an_image_goes_to_the_model_with_the_text() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let script = Script::new()
        .then(Reply::text("Ready."))
        .then(Reply::text("A single pixel."));
    let mut run = Run::start("codex-image", script, "ready?").await;
    assert_eq!(run.until_settled().await, Status::Completed);
    let input = codiva_protocol::UserInput::with_images(
        "what is in this image?",
        vec![codiva_protocol::input::ImageInput {
            media_type: "image/png".to_owned(),
            data: png.to_owned(),
        }],
    );
    run.manager.send(&run.id, input).await.expect("send");
    run.until_status(Status::Running).await;
    assert_eq!(run.until_settled().await, Status::Completed);
    let request = run.mock.response_requests().pop().expect("a request");
    let body = request.body.to_string();
    assert!(
        body.contains(&format!("data:image/png;base64,{png}")),
        "the image reached the model"
    );
    assert!(body.contains("what is in this image?"));
    run.finish().await;
}
