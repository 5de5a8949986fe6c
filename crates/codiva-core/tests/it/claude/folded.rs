//! A message the user sends while the agent is mid-turn — during a permission prompt, during a
//! question, while a tool runs. Claude Code folds it into the running turn: after the pending
//! tool's result it echoes the message and the same turn goes on, ending with one `result` for
//! both (measured, docs/protocol/claude.md "Messages sent mid-turn"). Turn accounting must
//! follow the echo and the results, not codiva's count of sends: the session ends `completed`.

use std::collections::BTreeMap;

use codiva_core::session::PermissionResponse;
use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::log::EntryKind;
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_testkit::{Match, Reply, Script};
use serde_json::json;

use super::harness::{Run, Setup, read};

const FOLDED: &str = "FOLDED also mention the weather";

/// Every user message in the main log, in order.
fn user_texts(run: &Run) -> Vec<String> {
    run.main_log()
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::User { text } => Some(text),
            _ => None,
        })
        .collect()
}

/// What must hold once the folded turn is over: one `completed` for both messages, both in
/// the log, the model saw the folded message, and the session stays usable (a next message
/// is a turn of its own that completes).
async fn check_folded(mut run: Run, first: &str) {
    check_folded_then(&mut run, first).await;
    run.finish().await;
}

async fn check_folded_then(run: &mut Run, first: &str) {
    assert_eq!(
        run.until_settled().await,
        Status::Completed,
        "{}",
        run.dump()
    );
    assert_eq!(
        run.statuses().last(),
        Some(&Status::Completed),
        "{}",
        run.dump()
    );
    assert_eq!(user_texts(run), vec![first.to_owned(), FOLDED.to_owned()]);
    let saw_folded = run
        .mock
        .message_requests()
        .iter()
        .any(|request| request.last_user_text().is_some_and(|t| t.contains(FOLDED)));
    assert!(saw_folded, "the model never saw the folded message");

    // The next message is counted right: it runs, then completes.
    run.send("and one more thing");
    run.until("the next turn", |e| {
        matches!(
            e,
            SessionEvent::Status {
                status: Status::Running,
                ..
            }
        )
    })
    .await;
    assert_eq!(run.until_settled().await, Status::Completed);
    assert!(
        run.assistant_texts()
            .iter()
            .any(|t| t == "One more answer."),
        "{}",
        run.dump()
    );
}

#[tokio::test]
async fn a_message_sent_during_a_permission_prompt_is_folded_into_the_turn() {
    let first = "write notes.txt";
    let mut run = Run::start_scripted(
        "claude-folded-during-permission",
        |repo| {
            Script::new()
                .then_when(
                    Match::LastUserContains(first.into()),
                    Reply::tool_use(
                        "Write",
                        json!({"file_path": repo.join("notes.txt"), "content": "notes\n"}),
                    ),
                )
                .then_when(
                    Match::LastUserContains(FOLDED.into()),
                    Reply::text("Written, and it is sunny."),
                )
                .then_when(
                    Match::LastUserContains("one more thing".into()),
                    Reply::text("One more answer."),
                )
        },
        Setup::default(),
        Some(first),
    );
    let Prompt::Permission(request) = run.until_prompt().await else {
        panic!("expected a permission prompt");
    };
    run.send(FOLDED);
    assert_eq!(
        run.snapshot().await.status,
        Status::AwaitingPermission,
        "a message never answers or hides the prompt"
    );
    run.respond(&request.request_id, PermissionResponse::Allow);
    check_folded_then(&mut run, first).await;
    assert_eq!(read(&run.path("notes.txt")).as_deref(), Some("notes\n"));
    run.finish().await;
}

#[tokio::test]
async fn a_message_sent_during_a_question_is_folded_into_the_turn() {
    let first = "greet me, ask first";
    let question = "Which language?";
    let script = Script::new()
        .then_when(
            Match::LastUserContains(first.into()),
            Reply::tool_use(
                "AskUserQuestion",
                json!({"questions": [{"question": question, "header": "Language",
                    "multiSelect": false, "options": [
                        {"label": "Japanese", "description": "日本語で"},
                        {"label": "English", "description": "In English"}]}]}),
            ),
        )
        .then_when(
            Match::LastUserContains(FOLDED.into()),
            Reply::text("こんにちは, and it is sunny."),
        )
        .then_when(
            Match::LastUserContains("one more thing".into()),
            Reply::text("One more answer."),
        );
    let mut run = Run::start("claude-folded-during-question", script, first);
    let Prompt::Question(request) = run.until_prompt().await else {
        panic!("expected a question");
    };
    run.send(FOLDED);
    assert_eq!(run.snapshot().await.status, Status::AwaitingAnswer);
    let answers = BTreeMap::from([(question.to_owned(), vec!["Japanese".to_owned()])]);
    run.answer(&request.request_id, QuestionResponse::Answers(answers));
    check_folded(run, first).await;
}

#[tokio::test]
async fn a_message_sent_while_a_bash_command_runs_is_folded_into_the_turn() {
    let first = "wait a moment in the shell";
    let script = Script::new()
        .then_when(
            Match::LastUserContains(first.into()),
            Reply::tool_use(
                "Bash",
                json!({"command": "sleep 2; echo slept", "description": "Wait two seconds"}),
            ),
        )
        .then_when(
            Match::LastUserContains(FOLDED.into()),
            Reply::text("Slept, and it is sunny."),
        )
        .then_when(
            Match::LastUserContains("one more thing".into()),
            Reply::text("One more answer."),
        );
    // `sleep` and `echo` are read-only: Claude Code runs them without asking.
    let mut run = Run::start("claude-folded-during-bash", script, first);
    run.until("the Bash call to start", |e| {
        matches!(e, SessionEvent::Log { entry, .. }
            if matches!(&entry.kind, EntryKind::Tool(tool) if tool.name == "Bash"))
    })
    .await;
    run.send(FOLDED);
    check_folded(run, first).await;
}

#[tokio::test]
async fn a_message_sent_just_after_a_result_is_a_turn_of_its_own() {
    let first = "say hello";
    let script = Script::new()
        .then_when(Match::LastUserContains(first.into()), Reply::text("Hello."))
        .then_when(
            Match::LastUserContains(FOLDED.into()),
            Reply::text("It is sunny."),
        )
        .then_when(
            Match::LastUserContains("one more thing".into()),
            Reply::text("One more answer."),
        );
    let mut run = Run::start("claude-message-after-result", script, first);
    run.until("the first result", |e| {
        matches!(
            e,
            SessionEvent::Status {
                status: Status::Completed,
                ..
            }
        )
    })
    .await;
    run.send(FOLDED);
    check_folded(run, first).await;
}
