//! The neutral history through the manager: written beside `state.json` as a session runs,
//! kept when it is discarded, removed with it, and used to rebuild a restored session's log
//! when the agent's transcript is missing or holds less.

use std::path::Path;
use std::time::Duration;

use codiva_core::history::History;
use codiva_core::history_file;
use codiva_core::manager::{CreateOptions, Manager};
use codiva_core::persist::{self, PersistedSession, SCHEMA_VERSION, StateFile};
use codiva_core::transcript;
use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_protocol::manager::{DiscardOutcome, SessionPhase};
use codiva_protocol::session::{Scope, SessionEvent, Status};

use crate::git::TestRepo;
use crate::manager::options;

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

/// A session whose agent (`/bin/true`) exits at once: its turn is recorded with the prompt
/// and a settled outcome; the file stays when the session is discarded (it can be restored)
/// and goes when it is removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_file_follows_the_session() {
    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let info = manager
        .create(CreateOptions {
            prompt: "record this turn".into(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    let path = history_file::path(&repo.root, &info.id).unwrap();
    let settled = |history: &History| {
        history
            .turns()
            .next()
            .is_some_and(|turn| turn.outcome.is_some())
    };
    wait_for("the history file", || {
        history_file::load(&path, 0)
            .history
            .is_some_and(|history| settled(&history))
    })
    .await;
    let history = history_file::load(&path, 0).history.unwrap();
    let turn = history.turns().next().unwrap();
    assert_eq!(turn.user[0].text, "record this turn");
    assert_eq!(turn.agent.name, "claude");
    assert_eq!(
        history.first_instruction.as_ref().unwrap().text,
        "record this turn"
    );

    let DiscardOutcome::NeedsConfirmation { confirm_token, .. } =
        manager.discard(&info.id, None).await.unwrap()
    else {
        panic!("no preview");
    };
    let outcome = manager
        .discard(&info.id, Some(confirm_token))
        .await
        .unwrap();
    assert!(matches!(outcome, DiscardOutcome::Discarded { .. }));
    let handle = manager.clone();
    assert!(
        tokio::task::spawn_blocking(move || handle.save_now_blocking(Duration::from_secs(5)))
            .await
            .unwrap()
    );
    assert!(path.is_file(), "a discarded session keeps its history");
    let list = manager.list().await.unwrap();
    assert_eq!(list[0].phase, SessionPhase::Discarded);

    let outcome = manager.remove(&info.id, None).await.unwrap();
    assert!(matches!(outcome, DiscardOutcome::Removed { .. }));
    wait_for("the history file to go", || !path.exists()).await;
    manager.shutdown().await;
}

fn saved(repo: &TestRepo, id: &str) -> PersistedSession {
    let worktree = repo.tmp.path().join(id);
    std::fs::create_dir_all(&worktree).unwrap();
    PersistedSession {
        id: id.to_owned(),
        title: id.to_owned(),
        prompt: id.to_owned(),
        slug: id.to_owned(),
        branch: format!("codiva/{id}"),
        worktree,
        base: "main".to_owned(),
        agent: "claude".to_owned(),
        agent_session_id: Some(format!("conv-{id}")),
        status: codiva_core::persist::SavedStatus::Completed,
        ..PersistedSession::default()
    }
}

fn log_event(kind: EntryKind) -> SessionEvent {
    SessionEvent::Log {
        scope: Scope::Main,
        entry: LogEntry {
            id: 0,
            at_ms: 0,
            kind,
        },
        update: false,
        dropped: 0,
    }
}

/// A history of one completed turn per message, written where the manager looks.
fn write_history(root: &Path, id: &str, messages: &[&str]) {
    let mut history = History::new("claude");
    for message in messages {
        history.apply(
            1,
            &log_event(EntryKind::User {
                text: (*message).to_owned(),
            }),
        );
        history.apply(
            2,
            &log_event(EntryKind::Assistant {
                text: format!("answered {message}"),
            }),
        );
        history.apply(
            3,
            &SessionEvent::Status {
                status: Status::Completed,
                detail: None,
                detail_code: None,
            },
        );
    }
    let path = history_file::path(root, id).unwrap();
    history_file::save(&path, &history_file::encode(id, &history).unwrap()).unwrap();
}

fn write_transcript(claude_home: &Path, session: &PersistedSession, messages: &[&str]) {
    let path = transcript::transcript_path(
        claude_home,
        &session.worktree,
        session.agent_session_id.as_deref().unwrap(),
    );
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lines: Vec<String> = messages
        .iter()
        .map(|message| {
            serde_json::json!({"type": "user", "isSidechain": false,
                               "message": {"role": "user", "content": message}})
            .to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

async fn texts(manager: &Manager, id: &str) -> Vec<String> {
    let page = manager.read(id, Scope::Main, None, 100).await.unwrap();
    page.entries
        .into_iter()
        .map(|entry| match entry.kind {
            EntryKind::User { text } => format!("user {text}"),
            EntryKind::Assistant { text } => format!("assistant {text}"),
            EntryKind::Note { text, .. } => format!("note {text}"),
            other => format!("{other:?}"),
        })
        .collect()
}

/// After a restart: the transcript when it is there (and holds as much); codiva's history,
/// said to be its summary, when the transcript is missing or holds less.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_log_comes_from_the_transcript_or_else_from_the_history() {
    let repo = TestRepo::new();
    let options = options(&repo);
    let sessions = vec![
        saved(&repo, "has-transcript"),
        saved(&repo, "no-transcript"),
        saved(&repo, "poor-transcript"),
    ];
    persist::save(
        &persist::state_path(&repo.root),
        &StateFile {
            version: SCHEMA_VERSION,
            groups: Vec::new(),
            last_attempts: Vec::new(),
            sessions: sessions.clone(),
        },
    )
    .unwrap();
    write_transcript(
        &repo.tmp.path().join("claude-home"),
        &sessions[0],
        &["from the transcript"],
    );
    write_history(&repo.root, "has-transcript", &["from the history"]);
    write_history(&repo.root, "no-transcript", &["first ask", "second ask"]);
    write_transcript(
        &repo.tmp.path().join("claude-home"),
        &sessions[2],
        &["only one"],
    );
    write_history(&repo.root, "poor-transcript", &["only one", "and another"]);

    let (manager, warnings) = Manager::start(options).await.unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");

    assert_eq!(
        texts(&manager, "has-transcript").await,
        ["user from the transcript"]
    );

    let no_transcript = texts(&manager, "no-transcript").await;
    assert!(
        no_transcript[0]
            .starts_with("note the agent's transcript is not available (no transcript at")
            && no_transcript[0].contains("codiva's summary"),
        "{no_transcript:?}"
    );
    assert_eq!(
        no_transcript[1..],
        [
            "user first ask",
            "assistant answered first ask",
            "user second ask",
            "assistant answered second ask",
        ]
    );

    let poor = texts(&manager, "poor-transcript").await;
    assert!(
        poor[0].starts_with("note the agent's transcript holds 1 of the 2 messages codiva saw"),
        "{poor:?}"
    );
    assert_eq!(poor.len(), 5, "{poor:?}");
    manager.shutdown().await;

    // Reading wrote nothing over them, and listed sessions keep their files.
    for id in ["has-transcript", "no-transcript", "poor-transcript"] {
        assert!(
            history_file::path(&repo.root, id).unwrap().is_file(),
            "{id}"
        );
    }
}
