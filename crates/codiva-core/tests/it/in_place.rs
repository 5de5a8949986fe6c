//! Sessions in place with MCP servers, end to end with the real `claude` on the mock model
//! server: one in-place session per directory (a second refused), the MCP config file private
//! and removed with the session, the servers' statuses (a working stdio server, a failing one),
//! a reconnect that brings the failed one up, the session kept across a restart, and what an
//! in-place session refuses. An ephemeral manager (`codiva exec`'s): one in-place session in
//! any directory, run once, nothing recorded.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use codiva_core::claude::ClaudeProvider;
use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Ephemeral, Manager, ManagerError, ManagerOptions};
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::provider::Providers;
use codiva_protocol::manager::{DiscardOutcome, ManagerEvent};
use codiva_protocol::mcp::{McpServerConfig, McpServerState, McpStatus};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{
    AgentSandbox, Match, MockServer, Reply, Rule, Script, TestRepo, claude_binary, mcp_stdio_binary,
};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(120);

fn script() -> Script {
    Script::new()
        .rule(Rule::new(
            Match::LastUserContains("PING".into()),
            Reply::tool_use("mcp__good__ping", json!({"text": "from the model"})),
        ))
        .rule(Rule::new(
            Match::LastUserContains("pong from the model".into()),
            Reply::text("The server answered."),
        ))
        .always(Reply::text("ok"))
}

fn options(repo: &Path, state: &Path, env: Vec<(String, String)>, home: &Path) -> ManagerOptions {
    ManagerOptions {
        checks: Default::default(),
        cwd: repo.to_path_buf(),
        providers: Providers::one(Arc::new(ClaudeProvider::new(
            claude_binary(),
            home.join(".claude"),
        ))),
        env: EnvPolicy::Exact(env),
        state_dir: state.join("state"),
        registry: Some(ChildRegistry::open(state.join("children")).unwrap()),
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 0,
        wire_log_cap: 16 * 1024 * 1024,
        holder: "codiva test".to_owned(),
        github: Default::default(),
        titles: codiva_core::title::TitleMode::Prompt,
        budget: Default::default(),
    }
}

/// The first event of session `id` that `pick` takes.
async fn wait_for<T>(
    events: &mut codiva_core::manager::EventReceiver,
    id: &str,
    what: &str,
    mut pick: impl FnMut(&SessionEvent) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("no {what} in time"))
            .expect("the manager stopped");
        if let ManagerEvent::Event { id: of, event } = event
            && of == id
            && let Some(found) = pick(&event)
        {
            return found;
        }
    }
}

fn status_of(servers: &[McpServerState], name: &str) -> Option<McpStatus> {
    servers.iter().find(|s| s.name == name).map(|s| s.status)
}

fn refusal_code(err: ManagerError) -> &'static str {
    match err {
        ManagerError::Refused(refusal) => refusal.code.as_str(),
        other => panic!("not a refusal: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_place_session_with_mcp_servers() {
    let repo = TestRepo::new().unwrap();
    let project = repo.path().join("UnityProject");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("Scene.unity"), "the user's own file\n").unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mock = MockServer::start(script()).unwrap();
    let env = sandbox.claude_env(&mock.url());
    let manager_options = options(repo.path(), state.path(), env, sandbox.home.path());
    let (manager, _) = Manager::start(manager_options.clone()).await.unwrap();
    let mut events = manager.subscribe();

    let flag = state.path().join("bad-may-start");
    let server = mcp_stdio_binary().display().to_string();
    let mcp_servers = [
        (
            "good".to_owned(),
            McpServerConfig::Stdio {
                command: server.clone(),
                args: Vec::new(),
                env: Default::default(),
            },
        ),
        (
            "bad".to_owned(),
            McpServerConfig::Stdio {
                command: server,
                args: vec!["--require".into(), flag.display().to_string()],
                env: Default::default(),
            },
        ),
    ]
    .into_iter()
    .collect();
    let info = manager
        .create(CreateOptions {
            prompt: "PING the server".into(),
            in_place: Some(project.clone()),
            mcp_servers,
            append_system_prompt: Some("UNITY-PANEL-PROMPT".into()),
            allowed_tools: vec!["mcp__good__ping".into()],
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    assert!(info.in_place);
    assert_eq!(info.worktree, project);
    assert_eq!(info.branch, "");

    // The MCP config file: in the state directory, the user's alone, the agent's format.
    let mcp_dir = state.path().join("state").join("mcp");
    let files: Vec<PathBuf> = std::fs::read_dir(&mcp_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let config_file = files[0].clone();
    let mode = std::fs::metadata(&config_file)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config_file).unwrap()).unwrap();
    assert_eq!(written["mcpServers"]["good"]["type"], "stdio");

    // One session at a time in a directory; only directories of the repository.
    let second = manager
        .create(CreateOptions {
            prompt: "another".into(),
            in_place: Some(project.clone()),
            ..CreateOptions::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refusal_code(second), "in_place_busy");
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = manager
        .create(CreateOptions {
            prompt: "elsewhere".into(),
            in_place: Some(outside.path().to_path_buf()),
            ..CreateOptions::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refusal_code(elsewhere), "in_place_not_in_repo");

    // The servers' statuses: the working one connected, the other failed.
    let servers = wait_for(&mut events, &info.id, "MCP statuses", |event| match event {
        SessionEvent::McpServers { servers }
            if status_of(servers, "good") == Some(McpStatus::Connected) =>
        {
            Some(servers.clone())
        }
        _ => None,
    })
    .await;
    assert_eq!(status_of(&servers, "bad"), Some(McpStatus::Failed));
    // The allowed MCP tool ran without asking; the turn completes.
    let mut asked = false;
    wait_for(&mut events, &info.id, "the end of the turn", |event| {
        asked |= matches!(event, SessionEvent::PromptOpened { .. });
        match event {
            SessionEvent::Status { status, .. } if status.is_settled() => Some(*status),
            _ => None,
        }
    })
    .await;
    assert!(!asked, "an allowed tool needs no answer");
    let requests = mock.requests();
    let answered = requests
        .iter()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|text| text.contains("pong from the model"))
        })
        .expect("the MCP tool's result reached the model");
    assert!(
        answered.body["system"]
            .to_string()
            .contains("UNITY-PANEL-PROMPT"),
        "the appended system prompt is sent"
    );
    let listed = manager.list().await.unwrap();
    let row = listed.iter().find(|s| s.id == info.id).unwrap();
    assert_eq!(row.status, Status::Completed);
    assert_eq!(
        status_of(&row.mcp_servers, "good"),
        Some(McpStatus::Connected)
    );

    // No branch of its own: merge, pull request, sync and diff are refused.
    assert_eq!(
        refusal_code(manager.merge(&info.id).await.unwrap_err()),
        "in_place_session"
    );
    assert_eq!(
        refusal_code(manager.sync(&info.id).await.unwrap_err()),
        "in_place_session"
    );
    assert_eq!(
        refusal_code(manager.diff(&info.id).await.unwrap_err()),
        "in_place_session"
    );

    // A reconnect brings the failed server up once it can start.
    assert_eq!(
        refusal_code(manager.mcp_reconnect(&info.id, "nosuch").await.unwrap_err()),
        "no_such_mcp_server"
    );
    std::fs::write(&flag, "").unwrap();
    manager.mcp_reconnect(&info.id, "bad").await.unwrap();
    wait_for(
        &mut events,
        &info.id,
        "the reconnected server",
        |event| match event {
            SessionEvent::McpServers { servers }
                if status_of(servers, "bad") == Some(McpStatus::Connected) =>
            {
                Some(())
            }
            _ => None,
        },
    )
    .await;

    // Kept across a restart.
    manager.shutdown().await;
    drop(events);
    let (manager, _) = Manager::start(manager_options).await.unwrap();
    let listed = manager.list().await.unwrap();
    let row = listed.iter().find(|s| s.id == info.id).unwrap();
    assert!(row.in_place);
    assert_eq!(row.worktree, project);
    assert!(config_file.is_file());
    let again = manager
        .create(CreateOptions {
            prompt: "another".into(),
            in_place: Some(project.clone()),
            ..CreateOptions::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refusal_code(again), "in_place_busy");

    // Discarding forgets the session and its MCP config file; the user's files stay.
    let outcome = manager.discard(&info.id, None).await.unwrap();
    assert!(
        matches!(&outcome, DiscardOutcome::Removed { id } if *id == info.id),
        "{outcome:?}"
    );
    assert!(!config_file.exists(), "the MCP config file is removed");
    assert_eq!(
        std::fs::read_to_string(project.join("Scene.unity")).unwrap(),
        "the user's own file\n"
    );
    assert!(manager.list().await.unwrap().is_empty());
    manager.shutdown().await;
}

/// An ephemeral manager runs one session in place in any directory — one that is no
/// repository, and a repository with no commit yet — once: its turn completes, its agent is
/// stopped, the manager stops and its event stream closes. It writes nothing but the wire log
/// (no `.codiva/`: no lock, state file or history; no wire log either with a cap of 0, as
/// `wire_log_max_mb = 0` says), and refuses a second session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ephemeral_manager_runs_one_session_anywhere_once() {
    let plain = tempfile::tempdir().unwrap();
    let unborn = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(unborn.path())
        .status()
        .unwrap();
    assert!(status.success());
    for (dir, wire_log_cap) in [(plain.path(), 16 * 1024 * 1024), (unborn.path(), 0)] {
        let sandbox = AgentSandbox::new().unwrap();
        let state = tempfile::tempdir().unwrap();
        let mock = MockServer::start(Script::new().always(Reply::text("Done here."))).unwrap();
        let env = sandbox.claude_env(&mock.url());
        let manager = Manager::start_ephemeral(
            ManagerOptions {
                checks: Default::default(),
                wire_log_cap,
                ..options(dir, state.path(), env, sandbox.home.path())
            },
            Ephemeral {
                id: "exec-one".into(),
                ..Ephemeral::default()
            },
        )
        .await
        .unwrap();
        let mut events = manager.subscribe();
        let elsewhere = manager
            .create(CreateOptions {
                prompt: "say hi".into(),
                ..CreateOptions::default()
            })
            .await
            .unwrap_err();
        assert!(
            matches!(&elsewhere, ManagerError::Invalid(invalid) if invalid.field == "in_place"),
            "{elsewhere:?}"
        );
        let info = manager
            .create(CreateOptions {
                prompt: "say hi".into(),
                in_place: Some(dir.to_path_buf()),
                ..CreateOptions::default()
            })
            .await
            .unwrap();
        assert_eq!(
            (info.id.as_str(), info.in_place),
            ("exec-one", true),
            "{info:?}"
        );
        assert_eq!(info.worktree, std::fs::canonicalize(dir).unwrap());
        let second = manager
            .create(CreateOptions {
                prompt: "again".into(),
                in_place: Some(dir.to_path_buf()),
                ..CreateOptions::default()
            })
            .await
            .unwrap_err();
        assert_eq!(refusal_code(second), "in_place_busy");

        // The turn completes; then the agent is stopped and the stream closes by itself.
        let mut statuses = Vec::new();
        let closed = tokio::time::timeout(WAIT, async {
            loop {
                match events.recv().await {
                    Ok(ManagerEvent::Event {
                        event: SessionEvent::Status { status, .. },
                        ..
                    }) => statuses.push(status),
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "the stream never closed: {statuses:?}");
        assert!(statuses.contains(&Status::Completed), "{statuses:?}");
        assert!(matches!(
            manager.list().await.unwrap_err(),
            ManagerError::Stopped
        ));
        assert!(
            matches!(
                manager.subscribe_sequenced().try_recv(),
                Err(tokio::sync::broadcast::error::TryRecvError::Closed)
            ),
            "a stopped manager's stream is closed"
        );
        // Nothing recorded in the directory; the wire log is in the state directory.
        assert!(
            !dir.join(".codiva").exists(),
            "the ephemeral manager wrote codiva's repository state"
        );
        let wire: Vec<String> = std::fs::read_dir(state.path().join("state").join("wire"))
            .map(|dir| {
                dir.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if wire_log_cap == 0 {
            assert!(wire.is_empty(), "{wire:?}");
        } else {
            assert!(
                wire.len() == 1 && wire[0].ends_with("-exec-one.log"),
                "{wire:?}"
            );
        }
        assert!(!mock.requests().is_empty(), "the agent ran");
    }
}
