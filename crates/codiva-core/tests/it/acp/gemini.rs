//! End-to-end through the generic ACP provider with the real Gemini CLI 0.61.0 (its `gemini`
//! preset) against the mock Gemini API: prompt, permission allowed and rejected, a file
//! write's diff, the todo tool (Gemini emits no `plan`), cancel, load in a new process, a
//! refused key, model and mode. The model's tool names are Gemini CLI's own
//! (`run_shell_command`, `write_file`, `write_todos`).

use codiva_core::session::PermissionResponse;
use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_protocol::tool::{PermissionMode, PermissionOptionKind, ToolContent, ToolKind};
use codiva_testkit::{MockMessage, Reply, Script};
use serde_json::json;

use super::harness::{Run, Which};

const GEMINI: Which = Which::Gemini;

/// The model's call of Gemini CLI's shell tool that creates `made.txt`.
fn touch_call() -> Reply {
    Reply::tool_use(
        "run_shell_command",
        json!({"command": "touch made.txt && echo made", "description": "Create a file"}),
    )
}

/// The model names of the turns' requests (from their paths).
fn turn_models(run: &Run) -> Vec<String> {
    run.mock
        .gemini_requests()
        .iter()
        .filter_map(|r| r.model().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn gemini_prompt() {
    let text = "こんにちは！Gemini からの返事です。🎌";
    let message = MockMessage::new()
        .thinking("**Greeting** the user warmly", "")
        .text_slow(text, 3, 20);
    let mut run = Run::start(
        "acp-gemini-basic",
        GEMINI,
        Script::new().then(Reply::message(message)),
        "say hello",
    )
    .await;
    run.settles(Status::Completed).await;
    let thoughts: Vec<String> = run
        .main_log()
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Thinking { text } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(
        thoughts,
        ["**Greeting**\nthe user warmly"],
        "a thought part, as Gemini CLI formats it (subject, description)"
    );
    assert_eq!(run.streamed(), text, "every chunk arrived in order");
    assert_eq!(run.assistant_texts(), [text]);
    let snapshot = run.snapshot().await;
    assert!(snapshot.agent_session_id.is_some(), "the ACP session id");
    assert_eq!(snapshot.model.as_deref(), Some("gemini-2.5-pro"));
    assert!(
        run.events.iter().any(|event| matches!(
            event,
            SessionEvent::Connected { agent } if agent.models.iter().any(|m| m.id == "gemini-2.5-pro")
                && agent.version.as_deref() == Some("0.61.0")
                && !agent.commands.is_empty()
        )),
        "the catalog from the session, the version from initialize, the commands"
    );
    let requests = run.mock.gemini_requests();
    assert_eq!(requests.len(), 1, "one streamed turn");
    let request = &requests[0];
    assert_eq!(
        request.path,
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    );
    assert_eq!(request.header("x-goog-api-key"), Some("mock-gemini-key"));
    assert_eq!(
        request.header("x-gemini-api-privileged-user-id"),
        None,
        "usage statistics are off: no installation id goes out"
    );
    assert!(
        request
            .last_user_text()
            .is_some_and(|t| t.ends_with("say hello")),
        "the prompt reached the model: {:?}",
        request.last_user_text()
    );
    run.finish().await;
}

#[tokio::test]
async fn gemini_permission_allowed() {
    let script = Script::new()
        .then(touch_call())
        .then(Reply::text("The file is made."));
    let mut run = Run::start("acp-gemini-permission-allow", GEMINI, script, "make a file").await;
    let request = run.until_permission().await;
    assert_eq!(request.tool, "execute");
    assert_eq!(request.view.tool_kind, ToolKind::Execute);
    let kinds: Vec<PermissionOptionKind> = request.options.iter().map(|o| o.kind).collect();
    assert!(
        kinds.contains(&PermissionOptionKind::AllowOnce),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&PermissionOptionKind::AllowAlways),
        "{kinds:?}"
    );
    assert_eq!(run.snapshot().await.status, Status::AwaitingPermission);
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    run.settles(Status::Completed).await;
    assert!(run.worktree().join("made.txt").exists(), "the command ran");
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "one entry per call: {tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("The file is made.")
    );
    let last = run.mock.gemini_requests().pop().expect("the second turn");
    assert!(
        last.last_user_text().is_some_and(|t| t.contains("made")),
        "the command's output went back to the model: {:?}",
        last.last_user_text()
    );
    run.finish().await;
}

/// A reject fails the call; Gemini CLI tells the model and lets it answer, so the prompt ends
/// `end_turn` (completed).
#[tokio::test]
async fn gemini_permission_denied() {
    let script = Script::new()
        .then(touch_call())
        .then(Reply::text("Not made."));
    let mut run = Run::start("acp-gemini-permission-deny", GEMINI, script, "make a file").await;
    let request = run.until_permission().await;
    run.respond(
        &request.request_id,
        PermissionResponse::Deny {
            message: "not now".to_owned(),
        },
    )
    .await;
    run.settles(Status::Completed).await;
    assert!(
        !run.worktree().join("made.txt").exists(),
        "the command did not run"
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Denied);
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("Not made.")
    );
    run.finish().await;
}

/// A file write asks with the diff of the new file (a path relative to the worktree); allowed
/// once, the file is written.
#[tokio::test]
async fn gemini_write_file_diff() {
    let content = "こんにちは\nhello from gemini\n";
    let script = Script::new()
        .then(Reply::tool_use(
            "write_file",
            json!({"file_path": "hello.txt", "content": content}),
        ))
        .then(Reply::text("Written."));
    let mut run = Run::start("acp-gemini-write-file", GEMINI, script, "write a file").await;
    let request = run.until_permission().await;
    assert_eq!(request.view.tool_kind, ToolKind::Edit);
    assert!(
        request.view.content.iter().any(|c| matches!(
            c,
            ToolContent::Diff { path, new, .. }
                if path.ends_with("hello.txt") && new == content
        )),
        "{:?}",
        request.view.content
    );
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    run.settles(Status::Completed).await;
    assert_eq!(
        std::fs::read_to_string(run.worktree().join("hello.txt")).expect("the file"),
        content
    );
    assert_eq!(run.tools()[0].status, ToolStatus::Succeeded);
    run.finish().await;
}

/// Gemini CLI's todo tool (`write_todos`, offered for Gemini 2 models) is a tool call like any
/// other, asked for like one (kind `other`): Gemini CLI 0.61.0 sends no ACP `plan`, so the
/// session has no Step n/m.
#[tokio::test]
async fn gemini_todos_are_a_tool_call_not_a_plan() {
    let todos = json!({"todos": [
        {"description": "Read the code", "status": "in_progress"},
        {"description": "Write the fix", "status": "pending"},
    ]});
    let script = Script::new()
        .then(Reply::tool_use("write_todos", todos))
        .then(Reply::text("Plan under way."));
    let mut run = Run::start("acp-gemini-todos", GEMINI, script, "make a plan").await;
    let request = run.until_permission().await;
    assert_eq!(request.view.tool_kind, ToolKind::Other);
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    run.settles(Status::Completed).await;
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert!(
        !run.events
            .iter()
            .any(|event| matches!(event, SessionEvent::Todos { .. })),
        "no plan"
    );
    assert!(run.snapshot().await.todo_items.is_empty());
    run.finish().await;
}

#[tokio::test]
async fn gemini_cancel() {
    let long = "Once upon a time there was a story that went on and on. ".repeat(8);
    let script = Script::new()
        .then(Reply::text_slow(long, 4, 150))
        .then(Reply::text("Back again."));
    let mut run = Run::start("acp-gemini-cancel", GEMINI, script, "tell a long story").await;
    run.until("streamed text", |event| {
        matches!(event, SessionEvent::Stream { reset: false, .. })
    })
    .await;
    run.interrupt().await;
    run.settles(Status::Interrupted).await;
    run.send("go on after the cancel").await;
    run.until_status(Status::Running).await;
    run.settles(Status::Completed).await;
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("Back again.")
    );
    let next = run.mock.gemini_requests().pop().expect("the next turn");
    let body = next.body.to_string();
    assert!(
        !body.contains("tell a long story") && !body.contains("Once upon"),
        "Gemini CLI drops the whole cancelled turn, prompt and partial answer: {body}"
    );
    run.finish().await;
}

/// Gemini CLI names a chat file by the minute its recording started and the session id's first
/// eight characters (`chats/session-2026-12-02T00-45-0b94ca9e.jsonl`); `session/load` starts a
/// new recording of the same id before reading the chat, so within the minute the chat began
/// it resets its own file and the load fails ("No previous sessions found for this project.",
/// measured with 0.61.0). A conversation is loaded minutes later in real use: the chat file
/// is dated back one hour here, as it would be then.
fn date_back_chat(home: &std::path::Path, session: &str) {
    let short = &session[..8];
    let tmp = home.join(".gemini/tmp");
    let mut moved = 0;
    for project in std::fs::read_dir(&tmp).expect("~/.gemini/tmp").flatten() {
        let chats = project.path().join("chats");
        for file in std::fs::read_dir(&chats).into_iter().flatten().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if name.starts_with("session-") && name.ends_with(&format!("-{short}.jsonl")) {
                let dated = format!("session-2000-01-01T00-00-{short}.jsonl");
                std::fs::rename(file.path(), chats.join(dated)).expect("date the chat back");
                moved += 1;
            }
        }
    }
    assert_eq!(
        moved,
        1,
        "one chat file of {session} under {}",
        tmp.display()
    );
}

#[tokio::test]
async fn gemini_load() {
    let script = Script::new().then(Reply::text("I will remember kiwi."));
    let mut first = Run::start("acp-gemini-load-first", GEMINI, script, "remember kiwi").await;
    first.settles(Status::Completed).await;
    let session = first.conversation().await;
    let id = first.id.clone();
    let kept = first.finish_keeping().await;
    date_back_chat(kept.sandbox.home.path(), &session);

    let script = Script::new().then(Reply::text("You said kiwi."));
    let mut second = Run::resume("acp-gemini-load", GEMINI, script, kept, &id).await;
    second
        .turn_after_load("what fruit did I name?", &["You said kiwi."], &session)
        .await;
    let request = second.mock.gemini_requests().pop().expect("a request");
    assert!(
        request.body.to_string().contains("I will remember kiwi."),
        "the old turn travels with the new request"
    );
    second.finish().await;
}

/// The API refuses the key: the prompt fails and the session needs a login.
#[tokio::test]
async fn gemini_http_401_needs_login() {
    let script = Script::new().always(Reply::error(
        401,
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials.",
    ));
    let mut run = Run::start("acp-gemini-http-401", GEMINI, script, "hello").await;
    run.settles(Status::NeedsLogin).await;
    assert!(run.assistant_texts().is_empty());
    assert_eq!(run.mock.gemini_requests().len(), 1, "a 401 is not retried");
    assert!(
        run.notes()
            .iter()
            .any(|note| note == "Request had invalid authentication credentials."),
        "the API's message, not its JSON body: {:?}",
        run.notes()
    );
    run.finish().await;
}

/// A model and a mode chosen in a running session: the next turn asks the chosen model, the
/// session shows what the agent reports. Gemini CLI refuses its auto-approving modes in a
/// folder the user has not trusted (the worktree is not): the refusal shows with its reason,
/// and the read-only `plan` mode is taken.
#[tokio::test]
async fn gemini_model_and_mode() {
    let script = Script::new()
        .then(Reply::text("First."))
        .then(Reply::text("Second."));
    let mut run = Run::start("acp-gemini-model-mode", GEMINI, script, "first message").await;
    run.settles(Status::Completed).await;
    let model = "gemini-3.8-flash";
    run.manager
        .set_model(&run.id, Some(model.to_owned()))
        .await
        .expect("set the model");
    run.until(
        "the model",
        |event| matches!(event, SessionEvent::Model { model: Some(m) } if m == model),
    )
    .await;
    run.manager
        .set_permission_mode(&run.id, PermissionMode::AcceptEdits)
        .await
        .expect("set the mode");
    run.until("the refusal", |event| {
        matches!(event, SessionEvent::Log { entry, .. } if matches!(&entry.kind,
            EntryKind::Note { text, .. } if text.contains("untrusted folder")))
    })
    .await;
    run.manager
        .set_permission_mode(&run.id, PermissionMode::Plan)
        .await
        .expect("set the mode");
    run.until("the mode", |event| {
        matches!(
            event,
            SessionEvent::PermissionMode {
                mode: PermissionMode::Plan
            }
        )
    })
    .await;
    run.send("second message").await;
    run.until_status(Status::Running).await;
    run.settles(Status::Completed).await;
    assert_eq!(turn_models(&run), ["gemini-2.5-pro", model]);
    run.finish().await;
}

/// codiva's part of the system prompt opens the first message (Gemini CLI takes none over
/// ACP), once: the log shows the message as sent.
#[tokio::test]
async fn gemini_system_prompt() {
    let rule = "Always answer in haiku (codiva test rule).";
    let script = Script::new()
        .then(Reply::text("Noted."))
        .then(Reply::text("Still noted."));
    let mut run = Run::start_with(
        "acp-gemini-system-prompt",
        GEMINI,
        script,
        "hello there",
        Some(rule),
    )
    .await;
    run.settles(Status::Completed).await;
    run.send("and again").await;
    run.until_status(Status::Running).await;
    run.settles(Status::Completed).await;
    let requests = run.mock.gemini_requests();
    let first = requests[0].last_user_text().expect("the first prompt");
    assert!(
        first.contains(rule) && first.ends_with("hello there"),
        "{first}"
    );
    assert!(
        !requests[0].body["systemInstruction"]
            .to_string()
            .contains(rule),
        "not in Gemini CLI's own system instruction"
    );
    let second = requests[1].last_user_text().expect("the second prompt");
    assert_eq!(
        second, "and again",
        "the instructions open the first prompt only"
    );
    assert!(
        matches!(
            run.main_log().first().map(|e| &e.kind),
            Some(EntryKind::User { text, .. }) if text == "hello there"
        ),
        "the log shows the message as sent"
    );
    run.finish().await;
}
