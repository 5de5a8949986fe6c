//! The project's scripted ACP agent (`codiva-acp-agent`) through the Manager: what no
//! installable agent produces on demand.

use std::collections::BTreeMap;

use codiva_core::session::PermissionResponse;
use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::log::ToolStatus;
use codiva_protocol::session::{Prompt, Status};
use codiva_protocol::tool::{PermissionOptionKind, ToolKind};
use codiva_testkit::Script;

use super::harness::{Run, Which};

async fn scripted(name: &'static str, prompt: &str) -> Run {
    Run::start(name, Which::Scripted, Script::new(), prompt).await
}

#[tokio::test]
async fn the_xai_question_extension_is_asked_and_answered() {
    let mut run = scripted("scripted-question", "ask me a question").await;
    let Prompt::Question(request) = run.until_prompt().await else {
        panic!("not a question");
    };
    assert_eq!(run.snapshot().await.status, Status::AwaitingAnswer);
    assert_eq!(request.tool_use_id.as_deref(), Some("call_question"));
    let question = &request.questions[0];
    assert_eq!(question.question, "Which colour?");
    assert!(!question.multi_select);
    let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(labels, ["red", "blue"]);
    assert_eq!(question.options[0].description.as_deref(), Some("warm"));
    let answers = BTreeMap::from([("Which colour?".to_owned(), vec!["blue".to_owned()])]);
    run.answer(&request.request_id, QuestionResponse::Answers(answers))
        .await;
    run.settles(Status::Completed).await;
    assert_eq!(
        run.assistant_texts(),
        [r#"question answered: {"answers":{"Which colour?":["blue"]},"outcome":"accepted"}"#]
    );
    run.finish().await;
}

#[tokio::test]
async fn a_declined_question_is_answered_cancelled() {
    let mut run = scripted("scripted-question-declined", "a question please").await;
    let Prompt::Question(request) = run.until_prompt().await else {
        panic!("not a question");
    };
    run.answer(
        &request.request_id,
        QuestionResponse::Decline { message: None },
    )
    .await;
    run.settles(Status::Completed).await;
    assert_eq!(
        run.assistant_texts(),
        [r#"question answered: {"outcome":"cancelled"}"#]
    );
    run.finish().await;
}

#[tokio::test]
async fn an_unknown_request_is_refused_with_method_not_found() {
    let mut run = scripted("scripted-unknown", "send an unknown request").await;
    run.settles(Status::Completed).await;
    assert_eq!(run.assistant_texts(), ["the client answered error -32601"]);
    assert!(
        run.notes()
            .iter()
            .any(|note| note.contains("_vendor.example/unheard_of")),
        "{:?}",
        run.notes()
    );
    run.finish().await;
}

#[tokio::test]
async fn a_permission_is_asked_with_the_agents_options_and_answered_by_id() {
    let mut run = scripted("scripted-permission", "permission to clean").await;
    let request = run.until_permission().await;
    assert_eq!(request.tool, "run_terminal_command");
    assert_eq!(request.view.tool_kind, ToolKind::Execute);
    let options: Vec<(&str, PermissionOptionKind)> = request
        .options
        .iter()
        .map(|o| (o.id.as_str(), o.kind))
        .collect();
    assert_eq!(
        options,
        [
            ("allow-once", PermissionOptionKind::AllowOnce),
            ("reject-once", PermissionOptionKind::Deny),
            ("deny_and_stop", PermissionOptionKind::DenyAndStop),
        ]
    );
    run.respond(&request.request_id, PermissionResponse::Allow)
        .await;
    run.settles(Status::Completed).await;
    assert_eq!(
        run.assistant_texts(),
        [r#"permission answered "allow-once""#]
    );
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "one call, updated in place: {tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert_eq!(tools[0].result.as_deref(), Some("removed"));
    run.finish().await;
}

/// A call whose end the agent never reports (codex-acp forgets a turn once it has answered
/// `session/prompt`, so a command's end its Codex reports after the turn's never comes): when
/// the turn ends it is shown as unreported: neither running nor succeeded or failed.
#[tokio::test]
async fn a_call_whose_end_never_comes_is_unreported_when_its_turn_ends() {
    let mut run = scripted("scripted-call-never-ends", "call-never-ends").await;
    run.settles(Status::Completed).await;
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].status, ToolStatus::Unreported);
    assert_eq!(tools[0].result, None, "no outcome is invented");
    assert!(tools[0].duration_ms.is_some(), "it ended with its turn");
    assert_eq!(run.assistant_texts(), ["The file is made."]);
    run.finish().await;
}

/// A call whose end the agent reports after its answer to `session/prompt`: unreported when the
/// turn ends, then given the outcome the late update says; the turn stays completed.
#[tokio::test]
async fn a_calls_end_reported_after_its_turn_still_gives_its_outcome() {
    let mut run = scripted("scripted-call-ends-late", "call-ends-late").await;
    run.settles(Status::Completed).await;
    let tools = run.tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(
        tools[0].status,
        ToolStatus::Unreported,
        "the turn ended first"
    );
    let tool = run.until_tool_ended(ToolStatus::Succeeded).await;
    assert_eq!(tool.result.as_deref(), Some("made"));
    assert_eq!(run.tools().len(), 1, "updated in place");
    assert_eq!(run.snapshot().await.status, Status::Completed);
    run.finish().await;
}

#[tokio::test]
async fn a_crash_mid_turn_ends_the_turn_and_the_next_message_starts_a_new_process() {
    let mut run = scripted("scripted-crash", "crash now").await;
    run.settles(Status::Interrupted).await;
    assert!(
        run.notes()
            .iter()
            .any(|note| note.contains("ended mid-turn")),
        "{:?}",
        run.notes()
    );
    run.send("hello again").await;
    run.until_status(Status::Running).await;
    run.settles(Status::Completed).await;
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("echo: hello again")
    );
    run.finish().await;
}

#[tokio::test]
async fn a_100_mb_line_is_skipped_and_the_turn_goes_on() {
    let mut run = scripted("scripted-huge", "huge line").await;
    run.settles(Status::Completed).await;
    assert_eq!(run.assistant_texts(), ["after the huge line"]);
    assert!(
        run.notes()
            .iter()
            .any(|note| note.contains("over the limit")),
        "{:?}",
        run.notes()
    );
    run.finish().await;
}

/// Every scripted run ends with the agent ignoring its closed input; `finish` checks that no
/// process of its group is left. This one also cancels a turn first.
#[tokio::test]
async fn a_cancel_ends_the_turn_and_an_agent_that_ignores_eof_is_stopped() {
    let mut run = scripted("scripted-cancel", "slow work").await;
    run.until_status(Status::Running).await;
    run.until("streamed text", |event| {
        matches!(event, codiva_protocol::session::SessionEvent::Stream { .. })
    })
    .await;
    run.interrupt().await;
    run.settles(Status::Interrupted).await;
    run.send("after the cancel").await;
    run.until_status(Status::Running).await;
    run.settles(Status::Completed).await;
    assert_eq!(
        run.assistant_texts().last().map(String::as_str),
        Some("echo: after the cancel")
    );
    run.finish().await;
}

#[tokio::test]
async fn a_session_loads_in_a_new_process_without_logging_the_replay() {
    let mut first = scripted("scripted-load-first", "remember this").await;
    first.settles(Status::Completed).await;
    let session = first.conversation().await;
    let id = first.id.clone();
    let kept = first.finish_keeping().await;
    let mut second = Run::resume("scripted-load", Which::Scripted, Script::new(), kept, &id).await;
    second
        .turn_after_load("what did I say?", &["echo: what did I say?"], &session)
        .await;
    second.finish().await;
}
