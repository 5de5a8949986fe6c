//! AskUserQuestion: answered (single and multi select) and declined.

use std::collections::BTreeMap;

use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::session::{Prompt, Status};
use codiva_testkit::{Reply, Script};
use serde_json::json;

use super::harness::Run;

const LANGUAGE: &str = "Which language should the greeting use?";
const EXTRAS: &str = "Which extras do you want?";

fn script() -> Script {
    Script::new()
        .then(Reply::tool_use(
            "AskUserQuestion",
            json!({"questions": [
                {"question": LANGUAGE, "header": "Language", "multiSelect": false, "options": [
                    {"label": "Japanese", "description": "日本語で"},
                    {"label": "English", "description": "In English"}]},
                {"question": EXTRAS, "header": "Extras", "multiSelect": true, "options": [
                    {"label": "Emoji", "description": "🎌"},
                    {"label": "Signature", "description": "Sign it"},
                    {"label": "Date", "description": "Add the date"},
                    {"label": "Nothing", "description": "Plain"}]}
            ]}),
        ))
        .then(Reply::text("Thanks for answering."))
}

async fn question(run: &mut Run) -> codiva_protocol::agent::QuestionRequest {
    match run.until_prompt().await {
        Prompt::Question(question) => question,
        other => panic!("expected a question, got {other:?}"),
    }
}

#[tokio::test]
async fn questions_answered() {
    let mut run = Run::start("claude-ask-user-question", script(), "greet me, ask first");
    let request = question(&mut run).await;
    assert_eq!(run.snapshot().await.status, Status::AwaitingAnswer);
    assert_eq!(request.questions.len(), 2);
    assert_eq!(request.questions[0].question, LANGUAGE);
    assert!(!request.questions[0].multi_select);
    assert!(request.questions[1].multi_select);
    assert_eq!(request.questions[1].options.len(), 4);
    let answers = BTreeMap::from([
        (LANGUAGE.to_owned(), vec!["Japanese".to_owned()]),
        (
            EXTRAS.to_owned(),
            vec!["Emoji".to_owned(), "Signature".to_owned()],
        ),
    ]);
    run.answer(&request.request_id, QuestionResponse::Answers(answers));
    assert_eq!(run.until_settled().await, Status::Completed);
    let last = run
        .mock
        .message_requests()
        .last()
        .cloned()
        .expect("requests");
    let body = last.body.to_string();
    assert!(
        body.contains(r#"\"Which language should the greeting use?\"=\"Japanese\""#),
        "the model got the answers keyed by question text: {body}"
    );
    assert!(body.contains(r#"\"Which extras do you want?\"=\"Emoji, Signature\""#));
    assert!(run.statuses().contains(&Status::AwaitingAnswer));
    run.finish().await;
}

#[tokio::test]
async fn questions_declined() {
    let mut run = Run::start(
        "claude-ask-user-question-decline",
        script(),
        "greet me, ask first",
    );
    let request = question(&mut run).await;
    run.answer(
        &request.request_id,
        QuestionResponse::Decline {
            message: Some("The user would rather chat about this first.".into()),
        },
    );
    assert_eq!(run.until_settled().await, Status::Completed);
    let last = run
        .mock
        .message_requests()
        .last()
        .cloned()
        .expect("requests");
    assert!(
        last.body
            .to_string()
            .contains("rather chat about this first")
    );
    run.finish().await;
}
