//! The proof of the provider seam: the manager runs sessions of the scripted provider (the
//! test kit's fake agent, a real child process; no Claude code involved) end to end through
//! create, streamed text, a permission, a question, an interrupt, a resume after the agent
//! died, and a restore after the manager restarted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::process::EnvPolicy;
use codiva_core::session::PermissionResponse;
use codiva_protocol::UserInput;
use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::{Prompt, Scope, SessionEvent, Status};
use codiva_testkit::{ScriptedProvider, TestRepo};
use tokio::sync::broadcast;

#[path = "scripted_manager/budget.rs"]
mod budget;
#[path = "scripted_manager/groups.rs"]
mod groups;
#[path = "scripted_manager/list_fold.rs"]
mod list_fold;
#[path = "scripted_manager/review.rs"]
mod review;

fn options(repo: &TestRepo, home: PathBuf) -> ManagerOptions {
    let program = PathBuf::from(env!("CARGO_BIN_EXE_codiva-fake-agent"));
    ManagerOptions {
        checks: Default::default(),
        cwd: repo.path().to_path_buf(),
        providers: codiva_core::provider::Providers::one(Arc::new(ScriptedProvider::new(
            program, home,
        ))),
        env: EnvPolicy::Exact(vec![("PATH".into(), "/usr/bin:/bin".into())]),
        state_dir: repo.path().join("../state"),
        registry: None,
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 3,
        wire_log_cap: 1024 * 1024,
        holder: "codiva test".to_owned(),
        github: Default::default(),
        titles: codiva_core::title::TitleMode::Prompt,
        budget: Default::default(),
    }
}

/// Waits for the first event of session `id` that `pick` takes.
async fn until<T>(
    events: &mut codiva_core::manager::EventReceiver,
    id: &str,
    mut pick: impl FnMut(&SessionEvent) -> Option<T>,
) -> T {
    let wait = async {
        loop {
            match events.recv().await {
                Ok(ManagerEvent::Event { id: of, event }) if of == id => {
                    if let Some(found) = pick(&event) {
                        return found;
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the manager stopped"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .expect("timed out waiting for a session event")
}

async fn until_status(events: &mut codiva_core::manager::EventReceiver, id: &str, want: Status) {
    until(events, id, |event| match event {
        SessionEvent::Status { status, .. } if *status == want => Some(()),
        _ => None,
    })
    .await;
}

/// The texts of the main log's user and assistant entries.
async fn log_texts(manager: &Manager, id: &str) -> Vec<String> {
    let page = manager.read(id, Scope::Main, None, 1000).await.unwrap();
    page.entries
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::User { text } => Some(format!("user: {text}")),
            EntryKind::Assistant { text } => Some(format!("agent: {text}")),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manager_runs_a_scripted_provider_end_to_end() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let mut events = manager.subscribe();

    // Create: the first message streams its answer.
    let info = manager
        .create(CreateOptions {
            prompt: "say hello".to_owned(),
            images: Vec::new(),
            model: None,
            permission_mode: None,
            agent: None,
            approval: None,
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    let id = info.id.clone();
    // The session names the provider that runs it (no agent's name is assumed).
    assert_eq!(info.agent, "scripted");
    // What was streamed before the finished message replaced it.
    let (mut streaming, mut streamed) = (String::new(), String::new());
    until(&mut events, &id, |event| match event {
        SessionEvent::Stream { text, reset } => {
            if *reset {
                streaming.clear();
            }
            streaming.push_str(text);
            if streaming.len() > streamed.len() {
                streamed = streaming.clone();
            }
            None
        }
        SessionEvent::Status {
            status: Status::Completed,
            ..
        } => Some(()),
        _ => None,
    })
    .await;
    assert_eq!(streamed, "echo: say hello");
    assert_eq!(
        log_texts(&manager, &id).await,
        ["user: say hello", "agent: echo: say hello"]
    );

    // A permission, allowed.
    manager
        .send(&id, UserInput::text("permission please"))
        .await
        .unwrap();
    let request = until(&mut events, &id, |event| match event {
        SessionEvent::PromptOpened {
            prompt: Prompt::Permission(request),
        } => Some(request.clone()),
        _ => None,
    })
    .await;
    assert_eq!(request.tool, "Write");
    manager
        .respond_permission(&id, &request.request_id, PermissionResponse::Allow)
        .await
        .unwrap();
    until_status(&mut events, &id, Status::Completed).await;

    // A question, answered.
    manager
        .send(&id, UserInput::text("a question"))
        .await
        .unwrap();
    let question = until(&mut events, &id, |event| match event {
        SessionEvent::PromptOpened {
            prompt: Prompt::Question(question),
        } => Some(question.clone()),
        _ => None,
    })
    .await;
    assert_eq!(question.questions[0].options.len(), 2);
    let answers = BTreeMap::from([("Which colour?".to_owned(), vec!["blue".to_owned()])]);
    manager
        .answer_question(
            &id,
            &question.request_id,
            QuestionResponse::Answers(answers),
        )
        .await
        .unwrap();
    until_status(&mut events, &id, Status::Completed).await;

    // An interrupt ends a running turn.
    manager
        .send(&id, UserInput::text("slow work"))
        .await
        .unwrap();
    until(&mut events, &id, |event| match event {
        SessionEvent::Log { entry, .. } => {
            matches!(&entry.kind, EntryKind::Assistant { text } if text == "working").then_some(())
        }
        _ => None,
    })
    .await;
    manager.interrupt(&id).await.unwrap();
    until_status(&mut events, &id, Status::Interrupted).await;

    // The agent dies mid-turn: the session task starts a new process that resumes the
    // conversation with the provider's resume id.
    let conversation = manager.snapshot(&id).await.unwrap();
    let conversation = conversation.agent_session_id.expect("an agent session id");
    manager
        .send(&id, UserInput::text("crash now"))
        .await
        .unwrap();
    until(&mut events, &id, |event| match event {
        SessionEvent::AgentExited {
            requested: false, ..
        } => Some(()),
        _ => None,
    })
    .await;
    until_status(&mut events, &id, Status::Interrupted).await;
    manager
        .resume(&id, Some("after the crash".to_owned()))
        .await
        .unwrap();
    until_status(&mut events, &id, Status::Completed).await;
    let texts = log_texts(&manager, &id).await;
    assert!(texts.contains(&"user: crash now".to_owned()), "{texts:?}");
    assert_eq!(
        texts[texts.len() - 2..],
        [
            "user: after the crash".to_owned(),
            format!("agent: echo: after the crash [resumed {conversation}]"),
        ]
    );
    manager.shutdown().await;

    // A new manager restores the session, its log rebuilt from the agent's own records; the
    // next message resumes the same conversation in a new process.
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let mut events = manager.subscribe();
    let restored = log_texts(&manager, &id).await;
    let listed = manager.list().await.unwrap();
    assert_eq!(listed[0].agent, "scripted", "the agent survives a restart");
    assert_eq!(restored[..2], ["user: say hello", "agent: echo: say hello"]);
    assert!(
        restored.contains(&"agent: you chose blue".to_owned()),
        "{restored:?}"
    );
    manager
        .send(&id, UserInput::text("once more"))
        .await
        .unwrap();
    until_status(&mut events, &id, Status::Completed).await;
    let texts = log_texts(&manager, &id).await;
    assert_eq!(
        texts.last().unwrap(),
        &format!("agent: echo: once more [resumed {conversation}]")
    );
    manager.shutdown().await;
}

/// `session/interrupt` and `session/setModel` are refused, with `unsupported_by_agent`, for an
/// agent whose capabilities say it cannot (they were accepted for any agent); an unknown
/// session is still named as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_agent_cannot_do_is_refused() {
    use codiva_core::manager::ManagerError;
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    let program = PathBuf::from(env!("CARGO_BIN_EXE_codiva-fake-agent"));
    options.providers = codiva_core::provider::Providers::one(Arc::new(
        ScriptedProvider::new(program, home.path().to_path_buf()).without_interrupt(),
    ));
    let (manager, _) = Manager::start(options).await.unwrap();
    let mut events = manager.subscribe();
    let info = manager
        .create(CreateOptions {
            prompt: "say hello".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    until_status(&mut events, &info.id, Status::Completed).await;
    let refusal = |result: Result<(), ManagerError>| match result {
        Err(ManagerError::Refused(refusal)) => (refusal.code.as_str(), refusal.args),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(
        refusal(manager.interrupt(&info.id).await),
        (
            "unsupported_by_agent",
            vec!["scripted".to_owned(), "interrupt".to_owned()]
        )
    );
    assert_eq!(
        refusal(manager.set_model(&info.id, Some("m".to_owned())).await),
        (
            "unsupported_by_agent",
            vec!["scripted".to_owned(), "set_model".to_owned()]
        )
    );
    assert!(matches!(
        manager.interrupt("nope").await,
        Err(ManagerError::NoSuchSession(_))
    ));
    manager.shutdown().await;
}
