//! End-to-end through the generic ACP provider with the real codex-acp 0.16.0 (mock Responses
//! API) and the real claude-code-acp 0.16.2 (mock Messages API): prompt, permission, plan,
//! cancel, load. Each scenario is one function run with both agents; what differs between
//! them is their preset and what their own protocol says (the model's tool names are the
//! mock's script).

use codiva_core::session::PermissionResponse;
use codiva_protocol::log::{EntryKind, ToolStatus};
use codiva_protocol::session::{SessionEvent, Status, TodoStatus};
use codiva_protocol::tool::{PermissionMode, PermissionOptionKind, ToolContent, ToolKind};
use codiva_testkit::{Match, MockMessage, Reply, Rule, Script, Times};
use serde_json::json;

use super::harness::{Run, Which};

/// A script for `which`: the Claude Code that claude-code-acp bundles (2.1.44) also asks a
/// small model to summarise the files changed around a turn and a command's output; the mock
/// answers those apart.
fn script(which: Which) -> Script {
    match which {
        Which::ClaudeCodeAcp => Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains("Files modified by user:".to_owned()),
                    Reply::text("No changes."),
                )
                .times(Times::Always),
            )
            // ... and to summarise a command's output.
            .rule(
                Rule::new(
                    Match::LastUserContains("Command: touch made.txt".to_owned()),
                    Reply::text("Made a file."),
                )
                .times(Times::Always),
            ),
        _ => Script::new(),
    }
}

/// The model's call of the agent's shell tool that creates `made.txt`.
fn touch_call(which: Which) -> Reply {
    match which {
        Which::CodexAcp | Which::CodexAcpUnconfigured => {
            Reply::message(MockMessage::new().tool_use_with_id(
                "call_mock_touch",
                "exec_command",
                json!({"cmd": "touch made.txt && echo made"}),
            ))
        }
        _ => Reply::tool_use(
            "Bash",
            json!({"command": "touch made.txt && echo made", "description": "Create a file"}),
        ),
    }
}

/// The model's plan with `statuses` for its three steps.
fn plan_call(which: Which, statuses: [&str; 3]) -> Reply {
    let steps = ["Read the code", "Write the fix", "Run the tests"];
    match which {
        Which::CodexAcp => Reply::tool_use(
            "update_plan",
            json!({"plan": steps.iter().zip(statuses).map(|(step, status)| {
                json!({"step": step, "status": status})
            }).collect::<Vec<_>>()}),
        ),
        _ => Reply::tool_use(
            "TodoWrite",
            json!({"todos": steps.iter().zip(statuses).map(|(step, status)| {
                json!({"content": step, "status": status, "activeForm": step})
            }).collect::<Vec<_>>()}),
        ),
    }
}

async fn prompt(which: Which, name: &'static str) {
    let text = "こんにちは！ACP からの返事です。🎌";
    let mock_script = script(which).then(Reply::text_slow(text, 3, 20));
    let mut run = Run::start(name, which, mock_script, "say hello").await;
    run.settles(Status::Completed).await;
    assert_eq!(run.streamed(), text, "every chunk arrived in order");
    assert_eq!(run.assistant_texts(), [text]);
    let snapshot = run.snapshot().await;
    assert!(snapshot.connected);
    assert!(snapshot.agent_session_id.is_some(), "the ACP session id");
    assert!(snapshot.model.is_some(), "the agent's current model");
    assert!(
        run.events.iter().any(|event| matches!(
            event,
            SessionEvent::Connected { agent } if !agent.models.is_empty()
                && agent.version.as_deref().is_some_and(|v| v.starts_with("0.16."))
        )),
        "the catalog from the session, the version from initialize"
    );
    assert!(
        run.events.iter().any(|event| matches!(
            event,
            SessionEvent::Connected { agent } if agent.commands.iter().any(|c| c.name == "review")
        )),
        "the agent's commands from available_commands_update"
    );
    let request = run.mock.requests().pop().expect("a model request");
    assert!(
        request.body.to_string().contains("say hello"),
        "the prompt reached the model"
    );
    run.finish().await;
}

/// The status an allowed command that ran has when its turn has settled. codex-acp writes the
/// command's end before its answer to `session/prompt`, or never: it forgets a turn once its
/// Codex has completed it, and drops a command's end that Codex reports after that
/// (docs/protocol/acp.md "Turns"). So the call succeeded, or its outcome is unreported; it is
/// never still running, and no late update is waited for. claude-code-acp reports it.
fn allowed_call_status(which: Which, tool: &codiva_protocol::log::ToolEntry) -> ToolStatus {
    match (which, tool.status) {
        (Which::CodexAcp | Which::CodexAcpUnconfigured, ToolStatus::Unreported) => {
            assert_eq!(tool.result, None, "no outcome is invented");
            ToolStatus::Unreported
        }
        _ => ToolStatus::Succeeded,
    }
}

async fn permission_allowed(which: Which, name: &'static str) {
    let mock_script = script(which)
        .then(touch_call(which))
        .then(Reply::text("The file is made."));
    let mut run = Run::start(name, which, mock_script, "make a file").await;
    let request = run.until_permission().await;
    // The agent's own tool name where it says one (claude-code-acp's `_meta`), else the kind:
    // what approval rules are keyed by.
    let tool = if which == Which::ClaudeCodeAcp {
        "Bash"
    } else {
        "execute"
    };
    assert_eq!(request.tool, tool);
    assert_eq!(request.view.tool_kind, ToolKind::Execute);
    assert!(
        request.view.content.iter().any(|content| matches!(
            content,
            ToolContent::Terminal { command, .. } if command.contains("touch made.txt")
        )),
        "{:?}",
        request.view.content
    );
    let kinds: Vec<PermissionOptionKind> = request.options.iter().map(|o| o.kind).collect();
    assert_eq!(kinds.first(), Some(&PermissionOptionKind::AllowOnce));
    assert!(kinds.contains(&PermissionOptionKind::AllowAlways));
    assert!(kinds.contains(&PermissionOptionKind::Deny));
    assert_eq!(kinds.last(), Some(&PermissionOptionKind::DenyAndStop));
    assert_eq!(run.snapshot().await.status, Status::AwaitingPermission);
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    run.settles(Status::Completed).await;
    assert!(run.worktree().join("made.txt").exists(), "the command ran");
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "one entry per call: {tools:?}");
    assert_eq!(tools[0].status, allowed_call_status(which, &tools[0]));
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("The file is made.")
    );
    run.finish().await;
}

/// A reject ends the prompt in both agents, as their protocol says: codex-acp answers
/// `cancelled` (interrupted), claude-code-acp `end_turn` (completed).
async fn permission_denied(which: Which, name: &'static str, settles: Status) {
    let mock_script = script(which)
        .then(touch_call(which))
        .then(Reply::text("Not made."));
    let mut run = Run::start(name, which, mock_script, "make a file").await;
    let request = run.until_permission().await;
    run.respond(
        &request.request_id,
        PermissionResponse::Deny {
            message: "not now".to_owned(),
        },
    )
    .await;
    run.settles(settles).await;
    assert!(
        !run.worktree().join("made.txt").exists(),
        "the command did not run"
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Denied);
    run.finish().await;
}

async fn plan(which: Which, name: &'static str) {
    let mock_script = script(which)
        .then(plan_call(which, ["in_progress", "pending", "pending"]))
        .then(plan_call(which, ["completed", "in_progress", "pending"]))
        .then(Reply::text("Plan under way."));
    let mut run = Run::start(name, which, mock_script, "make a plan").await;
    run.settles(Status::Completed).await;
    let progress: Vec<(usize, usize)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Todos { progress, .. } => Some((progress.done, progress.total)),
            _ => None,
        })
        .collect();
    assert_eq!(progress, vec![(0, 3), (1, 3)], "Step 1/3, then 2/3");
    let items: Vec<(String, TodoStatus)> = run
        .snapshot()
        .await
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

async fn cancel(which: Which, name: &'static str) {
    let long = "Once upon a time there was a story that went on and on. ".repeat(8);
    let mock_script = script(which)
        .then(Reply::text_slow(long, 4, 150))
        .then(Reply::text("Back again."));
    let mut run = Run::start(name, which, mock_script, "tell a long story").await;
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
    run.finish().await;
}

async fn load(which: Which, first_name: &'static str, name: &'static str) {
    let mock_script = script(which).then(Reply::text("I will remember kiwi."));
    let mut first = Run::start(first_name, which, mock_script, "remember kiwi").await;
    first.settles(Status::Completed).await;
    let session = first.conversation().await;
    let id = first.id.clone();
    let kept = first.finish_keeping().await;

    let mock_script = script(which).then(Reply::text("You said kiwi."));
    let mut second = Run::resume(name, which, mock_script, kept, &id).await;
    second
        .turn_after_load("what fruit did I name?", &["You said kiwi."], &session)
        .await;
    let request = second.mock.requests().pop().expect("a request");
    assert!(
        request.body.to_string().contains("I will remember kiwi."),
        "the old turn travels with the new request"
    );
    second.finish().await;
}

/// Agents kept in budget with an ACP agent: idle for the configured time, the agent process is
/// stopped (asked for: the session stays completed, nothing restarts), and the next message
/// starts one that loads the same conversation.
async fn idle_stop(which: Which, name: &'static str) {
    let mock_script = script(which)
        .then(Reply::text("I will remember kiwi."))
        .then(Reply::text("You said kiwi."));
    let budget = codiva_core::manager::BudgetOptions {
        idle_stop: Some(std::time::Duration::from_secs(2)),
        ..Default::default()
    };
    let mut run = Run::start_budget(name, which, mock_script, "remember kiwi", budget).await;
    run.settles(Status::Completed).await;
    let session = run.snapshot().await.agent_session_id.expect("a session id");
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
    run.settles(Status::Completed).await;
    assert_eq!(
        run.snapshot().await.agent_session_id.as_deref(),
        Some(session.as_str()),
        "the same conversation continues"
    );
    let request = run.mock.requests().pop().expect("a request");
    assert!(
        request.body.to_string().contains("I will remember kiwi."),
        "the old turn travels with the new request"
    );
    assert!(
        run.notes()
            .iter()
            .any(|note| note.contains("was idle for 2 s")),
        "{:?}",
        run.notes()
    );
    run.finish().await;
}

#[tokio::test]
async fn codex_acp_idle_stop() {
    idle_stop(Which::CodexAcp, "acp-codex-idle-stop").await;
}

#[tokio::test]
async fn claude_code_acp_idle_stop() {
    idle_stop(Which::ClaudeCodeAcp, "acp-claude-idle-stop").await;
}

/// A model and a mode chosen in a running session: the next model request uses the model, the
/// session shows what the agent reports.
async fn model_and_mode(
    which: Which,
    name: &'static str,
    model: &str,
    requested: &str,
    mode: PermissionMode,
) {
    let mock_script = script(which)
        .then(Reply::text("First."))
        .then(Reply::text("Second."));
    let mut run = Run::start(name, which, mock_script, "first message").await;
    run.settles(Status::Completed).await;
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
        .set_permission_mode(&run.id, mode)
        .await
        .expect("set the mode");
    run.until(
        "the mode",
        |event| matches!(event, SessionEvent::PermissionMode { mode: m } if *m == mode),
    )
    .await;
    run.send("second message").await;
    run.until_status(Status::Running).await;
    run.settles(Status::Completed).await;
    let request = run
        .mock
        .requests()
        .into_iter()
        .find(|r| r.body.to_string().contains("second message"))
        .expect("the second turn's request");
    assert!(
        request.body["model"]
            .as_str()
            .is_some_and(|m| m.contains(requested)),
        "{}",
        request.body["model"]
    );
    run.finish().await;
}

#[tokio::test]
async fn codex_acp_model_and_mode() {
    model_and_mode(
        Which::CodexAcp,
        "acp-codex-model-mode",
        "gpt-5.4",
        "gpt-5.4",
        PermissionMode::Auto,
    )
    .await;
}

#[tokio::test]
async fn claude_code_acp_model_and_mode() {
    model_and_mode(
        Which::ClaudeCodeAcp,
        "acp-claude-model-mode",
        "haiku",
        "haiku",
        PermissionMode::AcceptEdits,
    )
    .await;
}

/// The model API refuses the key on every attempt: the agent retries, then fails the prompt,
/// and the session needs a login.
async fn http_401(which: Which, name: &'static str) {
    let mock_script = script(which).always(Reply::error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    let mut run = Run::start(name, which, mock_script, "hello").await;
    run.settles(Status::NeedsLogin).await;
    assert!(run.assistant_texts().is_empty());
    run.finish().await;
}

#[tokio::test]
async fn codex_acp_http_401_needs_login() {
    http_401(Which::CodexAcp, "acp-codex-http-401").await;
}

#[tokio::test]
async fn claude_code_acp_http_401_needs_login() {
    http_401(Which::ClaudeCodeAcp, "acp-claude-http-401").await;
}

/// codiva's part of the system prompt reaches the model: appended to the agent's own where
/// it takes one (claude-code-acp), else opening the first message (codex-acp).
async fn system_prompt(which: Which, name: &'static str) {
    let rule = "Always answer in haiku (codiva test rule).";
    let mock_script = script(which).then(Reply::text("Noted."));
    let mut run = Run::start_with(name, which, mock_script, "hello there", Some(rule)).await;
    run.settles(Status::Completed).await;
    let request = run
        .mock
        .requests()
        .into_iter()
        .find(|r| r.body.to_string().contains("hello there"))
        .expect("the turn's request");
    let system = request
        .body
        .get("system")
        .or(request.body.get("instructions"));
    let in_system = system.is_some_and(|s| s.to_string().contains(rule));
    let in_message = request
        .last_user_text()
        .is_some_and(|text| text.contains(rule) && text.contains("hello there"));
    match which {
        Which::ClaudeCodeAcp => assert!(in_system && !in_message, "{}", request.body),
        _ => assert!(in_message && !in_system, "{}", request.body),
    }
    assert!(
        matches!(
            run.main_log().first().map(|e| &e.kind),
            Some(EntryKind::User { text, .. }) if text == "hello there"
        ),
        "the log shows the message as sent"
    );
    run.finish().await;
}

#[tokio::test]
async fn codex_acp_system_prompt() {
    system_prompt(Which::CodexAcp, "acp-codex-system-prompt").await;
}

#[tokio::test]
async fn claude_code_acp_system_prompt() {
    system_prompt(Which::ClaudeCodeAcp, "acp-claude-system-prompt").await;
}

#[tokio::test]
async fn codex_acp_prompt() {
    prompt(Which::CodexAcp, "acp-codex-basic").await;
}

#[tokio::test]
async fn claude_code_acp_prompt() {
    prompt(Which::ClaudeCodeAcp, "acp-claude-basic").await;
}

#[tokio::test]
async fn codex_acp_permission_allowed() {
    permission_allowed(Which::CodexAcp, "acp-codex-permission-allow").await;
}

#[tokio::test]
async fn claude_code_acp_permission_allowed() {
    permission_allowed(Which::ClaudeCodeAcp, "acp-claude-permission-allow").await;
}

/// Issue 25 item 8: with a `config.toml` that names no approval policy, codex-acp 0.16.0 opened
/// its sessions in `read-only` (shown as `plan`): the command failed on the read-only file
/// system, no tool call and no permission request reached codiva, and the model reported a
/// file that was never made. In codiva's default mode it asks before the command, runs it once
/// allowed, and codiva shows the mode it was started in.
#[tokio::test]
async fn codex_acp_without_an_approval_policy_asks_in_the_default_mode() {
    let which = Which::CodexAcpUnconfigured;
    let mock_script = script(which)
        .then(touch_call(which))
        .then(Reply::text("The file is made."));
    let mut run = Run::start("acp-codex-unconfigured", which, mock_script, "make a file").await;
    let request = run.until_permission().await;
    assert_eq!(request.view.tool_kind, ToolKind::Execute);
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.status, Status::AwaitingPermission);
    assert_eq!(
        snapshot.permission_mode,
        Some(PermissionMode::Default),
        "the mode it was started in, not plan"
    );
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    run.settles(Status::Completed).await;
    assert!(run.worktree().join("made.txt").exists(), "the command ran");
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, allowed_call_status(which, &tools[0]));
    assert_eq!(
        run.snapshot().await.permission_mode,
        Some(PermissionMode::Default)
    );
    assert!(
        !run.events.iter().any(|event| matches!(
            event,
            SessionEvent::PermissionMode { mode } if *mode == PermissionMode::Plan
        )),
        "never shown as plan"
    );
    run.finish().await;
}

#[tokio::test]
async fn codex_acp_permission_denied() {
    permission_denied(
        Which::CodexAcp,
        "acp-codex-permission-deny",
        Status::Interrupted,
    )
    .await;
}

#[tokio::test]
async fn claude_code_acp_permission_denied() {
    permission_denied(
        Which::ClaudeCodeAcp,
        "acp-claude-permission-deny",
        Status::Completed,
    )
    .await;
}

#[tokio::test]
async fn codex_acp_plan() {
    plan(Which::CodexAcp, "acp-codex-plan").await;
}

#[tokio::test]
async fn claude_code_acp_plan() {
    plan(Which::ClaudeCodeAcp, "acp-claude-plan").await;
}

#[tokio::test]
async fn codex_acp_cancel() {
    cancel(Which::CodexAcp, "acp-codex-cancel").await;
}

#[tokio::test]
async fn claude_code_acp_cancel() {
    cancel(Which::ClaudeCodeAcp, "acp-claude-cancel").await;
}

#[tokio::test]
async fn codex_acp_load() {
    load(Which::CodexAcp, "acp-codex-load-first", "acp-codex-load").await;
}

#[tokio::test]
async fn claude_code_acp_load() {
    load(
        Which::ClaudeCodeAcp,
        "acp-claude-load-first",
        "acp-claude-load",
    )
    .await;
}
