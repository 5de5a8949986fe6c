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
        holder: "codiva test".to_owned(),
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
