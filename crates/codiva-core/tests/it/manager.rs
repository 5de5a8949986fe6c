//! The session manager's handle, on a temporary repository (no agent is started).

use std::path::PathBuf;
use std::time::Duration;

use codiva_core::git::IgnoredMode;
use codiva_core::manager::{Manager, ManagerOptions};
use codiva_core::persist;
use codiva_core::process::EnvPolicy;

use crate::git::TestRepo;

fn options(repo: &TestRepo) -> ManagerOptions {
    ManagerOptions {
        cwd: repo.root.clone(),
        claude_program: PathBuf::from("/bin/true"),
        env: EnvPolicy::Exact(vec![("PATH".into(), "/usr/bin:/bin".into())]),
        claude_home: repo.tmp.path().join("claude-home"),
        state_dir: repo.tmp.path().join("state"),
        registry: None,
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 0,
        wire_log_cap: 1024 * 1024,
    }
}

/// What a panic hook does: block a thread that is not the manager's until the state is saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_now_blocking_writes_the_state_file_at_once() {
    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let state = persist::state_path(&repo.root);
    let _ = std::fs::remove_file(&state);
    let handle = manager.clone();
    let saved =
        tokio::task::spawn_blocking(move || handle.save_now_blocking(Duration::from_secs(5)))
            .await
            .unwrap();
    assert!(saved);
    assert!(state.is_file(), "no state file at {}", state.display());

    manager.shutdown().await;
    let handle = manager.clone();
    let saved =
        tokio::task::spawn_blocking(move || handle.save_now_blocking(Duration::from_secs(5)))
            .await
            .unwrap();
    assert!(!saved, "a stopped manager cannot save");
}

/// A discarded session's log stays readable (rebuilt from the agent's transcript; no agent
/// starts), and a rename is sanitised and kept in the state file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discarded_sessions_log_is_readable_and_renames_persist() {
    use codiva_core::manager::SessionPhase;
    use codiva_core::session_state::Scope;
    let repo = TestRepo::new();
    let options = options(&repo);
    let worktree = repo.root.join(".codiva/worktrees/old");
    let session_id = "17bbd0c1-f3c5-4be9-84d0-349f4f247ddf";
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude-transcripts/text-ja/projects/-work-repo/17bbd0c1-f3c5-4be9-84d0-349f4f247ddf.jsonl"
    );
    let transcript =
        codiva_core::transcript::transcript_path(&options.claude_home, &worktree, session_id);
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(fixture, &transcript).unwrap();
    let state = persist::StateFile {
        version: persist::SCHEMA_VERSION,
        sessions: vec![persist::PersistedSession {
            id: "old".into(),
            title: "Old work".into(),
            prompt: "old work".into(),
            slug: "old".into(),
            branch: "codiva/old".into(),
            worktree,
            base: "main".into(),
            agent: "claude".into(),
            agent_session_id: Some(session_id.into()),
            status: "discarded".into(),
            ..persist::PersistedSession::default()
        }],
    };
    persist::save(&persist::state_path(&repo.root), &state).unwrap();
    let (manager, _) = Manager::start(options).await.unwrap();
    let list = manager.list().await.unwrap();
    assert_eq!(list[0].phase, SessionPhase::Discarded);
    let page = manager.read("old", Scope::Main, None, 100).await.unwrap();
    assert!(
        !page.entries.is_empty(),
        "the discarded session's log is empty"
    );

    let renamed = manager
        .rename("old", "  New\n\u{1b}[1mtitle\u{202e} ")
        .await
        .unwrap();
    assert_eq!(renamed.title, "New [1mtitle");
    let handle = manager.clone();
    tokio::task::spawn_blocking(move || handle.save_now_blocking(Duration::from_secs(5)))
        .await
        .unwrap();
    let saved = std::fs::read_to_string(persist::state_path(&repo.root)).unwrap();
    assert!(saved.contains("New [1mtitle"), "{saved}");
    // Empty: back to the title from the instruction.
    assert_eq!(manager.rename("old", " ").await.unwrap().title, "old work");
    manager.shutdown().await;
}
