//! The session manager's handle, on a temporary repository (no agent is started).

use std::path::PathBuf;
use std::time::Duration;

use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerError, ManagerOptions, Refusal};
use codiva_core::persist;
use codiva_core::process::EnvPolicy;
use codiva_protocol::manager::{DiscardOutcome, SessionPhase};
use codiva_protocol::tool::PermissionMode;

use crate::git::TestRepo;

pub(crate) fn options(repo: &TestRepo) -> ManagerOptions {
    options_in(&repo.root, repo.tmp.path())
}

/// The manager tests' options for the repository at `cwd`, with `scratch` for the agent's home
/// and the state.
pub(crate) fn options_in(cwd: &std::path::Path, scratch: &std::path::Path) -> ManagerOptions {
    ManagerOptions {
        checks: Default::default(),
        cwd: cwd.to_path_buf(),
        providers: codiva_core::provider::Providers::one(std::sync::Arc::new(
            codiva_core::claude::ClaudeProvider::new(
                PathBuf::from("/bin/true"),
                scratch.join("claude-home"),
            ),
        )),
        env: EnvPolicy::Exact(vec![("PATH".into(), "/usr/bin:/bin".into())]),
        state_dir: scratch.join("state"),
        registry: None,
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 0,
        wire_log_cap: 1024 * 1024,
        holder: "codiva test".to_owned(),
        github: Default::default(),
        // No one-shot title requests: they would take the mock's scripted answers.
        titles: codiva_core::title::TitleMode::Prompt,
        budget: Default::default(),
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

/// A state file written by a newer codiva is neither moved aside nor overwritten: the manager
/// refuses to start and says which file and which schema.
#[tokio::test]
async fn a_state_file_of_a_newer_schema_stops_the_start() {
    let repo = TestRepo::new();
    let state = persist::state_path(&repo.root);
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    let newer = br#"{"version":99,"sessions":[{"id":"from-the-future"}]}"#;
    std::fs::write(&state, newer).unwrap();

    let Err(err) = Manager::start(options(&repo)).await else {
        panic!("the manager started over a newer state file");
    };
    let message = err.to_string();
    assert!(
        message.contains(&state.display().to_string()) && message.contains("99"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(&state).unwrap(),
        newer,
        "the file is left alone"
    );
    let others: Vec<_> = std::fs::read_dir(state.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("state.json."))
        .collect();
    assert!(others.is_empty(), "nothing moved aside: {others:?}");
}

/// The session's phase, once it has left `preparing`.
async fn wait_prepared(manager: &Manager, id: &str) -> SessionPhase {
    for _ in 0..600 {
        let list = manager.list().await.unwrap();
        let phase = list.iter().find(|s| s.id == id).unwrap().phase.clone();
        if phase != SessionPhase::Preparing {
            return phase;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("session {id} is still preparing");
}

fn refusal(err: ManagerError) -> Refusal {
    match err {
        ManagerError::Refused(refusal) => refusal,
        other => panic!("not a refusal: {other:?}"),
    }
}

/// A token from an old preview discards (or removes) nothing: the refusal carries the fresh
/// preview, whose token works; restore brings the uncommitted file back.
#[tokio::test]
async fn a_stale_discard_token_is_refused_with_a_fresh_preview() {
    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let info = manager
        .create(CreateOptions {
            prompt: "keep notes".into(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    assert_eq!(
        wait_prepared(&manager, &info.id).await,
        SessionPhase::Active
    );
    let worktree = info.worktree.clone();
    std::fs::write(worktree.join("notes.txt"), "shown\n").unwrap();

    let DiscardOutcome::NeedsConfirmation {
        preview,
        confirm_token: old,
    } = manager.discard(&info.id, None).await.unwrap()
    else {
        panic!("no preview");
    };
    assert_eq!(preview.uncommitted, vec!["notes.txt"]);
    std::fs::write(worktree.join("late.txt"), "not shown\n").unwrap();

    for forget in [false, true] {
        let err = if forget {
            manager.remove(&info.id, Some(old.clone())).await
        } else {
            manager.discard(&info.id, Some(old.clone())).await
        }
        .unwrap_err();
        let refused = refusal(err);
        assert_eq!(refused.code, "changed_since_preview", "{refused:?}");
        assert_eq!(refused.args, vec![info.id.clone()]);
        let fresh = refused.fresh_preview.unwrap();
        assert_eq!(fresh.preview.uncommitted, vec!["late.txt", "notes.txt"]);
        assert_ne!(fresh.confirm_token, old);
        assert!(worktree.join("late.txt").is_file() && worktree.join("notes.txt").is_file());
    }
    // A token never issued: also refused, also with the fresh preview.
    let refused = refusal(
        manager
            .discard(&info.id, Some("nope".into()))
            .await
            .unwrap_err(),
    );
    assert_eq!(refused.code, "token_mismatch");
    let fresh = refused.fresh_preview.unwrap();

    let outcome = manager
        .discard(&info.id, Some(fresh.confirm_token))
        .await
        .unwrap();
    assert!(matches!(outcome, DiscardOutcome::Discarded { .. }));
    assert!(!worktree.exists());
    manager.restore(&info.id).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(worktree.join("late.txt")).unwrap(),
        "not shown\n"
    );

    // remove = discard + forget; the archive ref stays, so the work is never lost.
    let DiscardOutcome::NeedsConfirmation { confirm_token, .. } =
        manager.remove(&info.id, None).await.unwrap()
    else {
        panic!("no preview");
    };
    let outcome = manager.remove(&info.id, Some(confirm_token)).await.unwrap();
    assert!(matches!(outcome, DiscardOutcome::Removed { .. }));
    assert!(manager.list().await.unwrap().is_empty());
    let archive = format!("refs/codiva/archive/{}:late.txt", info.id);
    assert_eq!(
        crate::git::git(&repo.root, &["show", &archive]),
        "not shown"
    );
    manager.shutdown().await;
}

/// A session that needed a login or hit the rate limit when codiva stopped comes back as such,
/// with its detail — not as `interrupted` — in the list and in its state once opened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_and_rate_limit_survive_a_restart() {
    use codiva_core::persist::{PersistedSession, SCHEMA_VERSION, StateFile};
    use codiva_protocol::session::Status;

    let repo = TestRepo::new();
    let saved = |id: &str, status: &str, detail: &str| {
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
            // As the state file writes it.
            status: serde_json::from_value(serde_json::json!(status)).unwrap(),
            detail: Some(detail.to_owned()),
            ..PersistedSession::default()
        }
    };
    let state = StateFile {
        version: SCHEMA_VERSION,
        groups: Vec::new(),
        last_attempts: Vec::new(),
        sessions: vec![
            saved(
                "login",
                "needs_login",
                "Invalid API key · Please run /login",
            ),
            saved("limited", "rate_limited", "API Error: 429 rate_limit_error"),
        ],
    };
    persist::save(&persist::state_path(&repo.root), &state).unwrap();

    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let list = manager.list().await.unwrap();
    let status = |id: &str| {
        let info = list.iter().find(|s| s.id == id).unwrap();
        (info.status, info.detail.clone())
    };
    assert_eq!(
        status("login"),
        (
            Status::NeedsLogin,
            Some("Invalid API key · Please run /login".to_owned())
        )
    );
    assert_eq!(
        status("limited"),
        (
            Status::RateLimited,
            Some("API Error: 429 rate_limit_error".to_owned())
        )
    );
    let snapshot = manager.snapshot("limited").await.unwrap();
    assert_eq!(snapshot.status, Status::RateLimited);
    assert_eq!(
        snapshot.detail.as_deref(),
        Some("API Error: 429 rate_limit_error")
    );
    let snapshot = manager.snapshot("login").await.unwrap();
    assert_eq!(snapshot.status, Status::NeedsLogin);
    manager.shutdown().await;

    // And it is saved as such again.
    let saved = persist::load(&persist::state_path(&repo.root))
        .unwrap()
        .state;
    let statuses: Vec<serde_json::Value> = saved
        .sessions
        .iter()
        .map(|s| serde_json::to_value(s.status).unwrap())
        .collect();
    assert_eq!(statuses, ["rate_limited", "needs_login"]);
}

/// Values the agent cannot take are refused by the manager itself, naming the field, before a
/// session (or anything of it) exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bogus_modes_and_images_are_refused_naming_the_field() {
    use codiva_core::manager::{CreateOptions, ManagerError};

    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    fn field<T: std::fmt::Debug>(result: Result<T, ManagerError>) -> String {
        match result {
            Err(ManagerError::Invalid(invalid)) => invalid.field,
            other => panic!("{other:?}"),
        }
    }
    let create = |mode: Option<PermissionMode>, images: Vec<(&str, &str)>| CreateOptions {
        prompt: "hello".to_owned(),
        images: images
            .into_iter()
            .map(|(t, d)| (t.to_owned(), d.to_owned()))
            .collect(),
        model: None,
        permission_mode: mode,
        agent: None,
        approval: None,
        ..CreateOptions::default()
    };
    assert_eq!(
        // `other` stands for a mode the agent reported without a neutral name: never asked for.
        field(
            manager
                .create(create(Some(PermissionMode::Other), vec![]))
                .await
        ),
        "permission_mode"
    );
    assert_eq!(
        field(
            manager
                .create(create(None, vec![("image/png", "!!")]))
                .await
        ),
        "images[0].data"
    );
    assert_eq!(
        field(
            manager
                .create(create(None, vec![("text/plain", "aGk=")]))
                .await
        ),
        "images[0].media_type"
    );
    assert!(manager.list().await.unwrap().is_empty());
    assert_eq!(
        field(
            manager
                .set_permission_mode("anything", PermissionMode::Other)
                .await
        ),
        "mode"
    );
    manager.shutdown().await;
}

/// A discarded session's log stays readable (rebuilt from the agent's transcript; no agent
/// starts), and a rename is sanitised and kept in the state file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discarded_sessions_log_is_readable_and_renames_persist() {
    use codiva_protocol::manager::SessionPhase;
    use codiva_protocol::session::Scope;
    let repo = TestRepo::new();
    let options = options(&repo);
    let worktree = repo.root.join(".codiva/worktrees/old");
    let session_id = "17bbd0c1-f3c5-4be9-84d0-349f4f247ddf";
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude-transcripts/text-ja/projects/-work-repo/17bbd0c1-f3c5-4be9-84d0-349f4f247ddf.jsonl"
    );
    let transcript = codiva_core::transcript::transcript_path(
        &repo.tmp.path().join("claude-home"),
        &worktree,
        session_id,
    );
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(fixture, &transcript).unwrap();
    let state = persist::StateFile {
        version: persist::SCHEMA_VERSION,
        groups: Vec::new(),
        last_attempts: Vec::new(),
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
            status: codiva_core::persist::SavedStatus::Discarded,
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

/// The statuses of session `id` until it settles (its agent here is `/bin/true`: it exits).
async fn wait_settled(manager: &Manager, id: &str) {
    for _ in 0..600 {
        let list = manager.list().await.unwrap();
        let row = list.iter().find(|s| s.id == id).unwrap();
        if row.phase != SessionPhase::Preparing && row.status.is_settled() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("session {id} never settled");
}

/// A worktree session's MCP config file: written private at create, gone once the session is
/// merged (a merged session is not saved) or removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_mcp_config_file_goes_with_a_merge_or_a_remove() {
    use std::os::unix::fs::PermissionsExt as _;
    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let servers = || {
        [(
            "ops".to_owned(),
            codiva_protocol::mcp::McpServerConfig::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: [("Authorization".to_owned(), "Bearer secret".to_owned())].into(),
            },
        )]
        .into()
    };
    let mcp_dir = repo.tmp.path().join("state").join("mcp");
    let files = || -> Vec<PathBuf> {
        std::fs::read_dir(&mcp_dir)
            .map(|dir| dir.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default()
    };
    let merged = manager
        .create(CreateOptions {
            prompt: "merge me".into(),
            mcp_servers: servers(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    let removed = manager
        .create(CreateOptions {
            prompt: "remove me".into(),
            mcp_servers: servers(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    assert_eq!(files().len(), 2);
    for file in files() {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }
    let dir_mode = std::fs::metadata(&mcp_dir).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    wait_settled(&manager, &removed.id).await;
    let handle = manager.clone();
    let saved =
        tokio::task::spawn_blocking(move || handle.save_now_blocking(Duration::from_secs(5)))
            .await
            .unwrap();
    assert!(saved);
    let state = std::fs::read_to_string(persist::state_path(&repo.root)).unwrap();
    assert!(state.contains("\"mcp_config\""), "{state}");
    assert!(!state.contains("Bearer secret"), "no secret in state.json");

    wait_settled(&manager, &merged.id).await;
    let worktree = merged.worktree.clone();
    std::fs::write(worktree.join("done.txt"), "done\n").unwrap();
    crate::git::commit_all(&worktree, "done");
    let info = manager.merge(&merged.id).await.unwrap();
    assert!(
        matches!(info.phase, SessionPhase::Merged { .. }),
        "{info:?}"
    );
    let left = files();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0]
            .to_string_lossy()
            .ends_with(&format!("-{}.json", removed.id))
    );

    wait_settled(&manager, &removed.id).await;
    let DiscardOutcome::NeedsConfirmation { confirm_token, .. } =
        manager.remove(&removed.id, None).await.unwrap()
    else {
        panic!("a remove asks first");
    };
    manager
        .remove(&removed.id, Some(confirm_token))
        .await
        .unwrap();
    assert!(files().is_empty(), "{:?}", files());
    manager.shutdown().await;
}

/// Tool rules for an agent that takes none are refused, naming the agent and the option;
/// nothing is created. MCP servers are taken by Codex too (in `thread/start`'s config). An
/// in-place directory must be an absolute path.
#[tokio::test]
async fn options_an_agent_cannot_take_are_refused() {
    let repo = TestRepo::new();
    let mut options = options(&repo);
    options.providers = codiva_core::provider::Providers::one(std::sync::Arc::new(
        codiva_core::codex::CodexProvider::new(PathBuf::from("/bin/true")),
    ));
    let (manager, _) = Manager::start(options).await.unwrap();
    let servers = [(
        "ops".to_owned(),
        codiva_protocol::mcp::McpServerConfig::Stdio {
            command: "srv".into(),
            args: Vec::new(),
            env: Default::default(),
        },
    )]
    .into();
    let taken = manager
        .create(CreateOptions {
            prompt: "with servers".into(),
            mcp_servers: servers,
            ..CreateOptions::default()
        })
        .await
        .expect("Codex takes MCP servers");
    assert_eq!(taken.agent, "codex");
    let refused = refusal(
        manager
            .create(CreateOptions {
                prompt: "with rules".into(),
                disallowed_tools: vec!["Bash".into()],
                ..CreateOptions::default()
            })
            .await
            .unwrap_err(),
    );
    assert_eq!(refused.args, ["codex", "disallowed_tools"]);
    let relative = manager
        .create(CreateOptions {
            prompt: "relative".into(),
            in_place: Some(PathBuf::from("UnityProject")),
            ..CreateOptions::default()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&relative, ManagerError::Invalid(invalid) if invalid.field == "in_place"),
        "{relative:?}"
    );
    // Only the session that was taken exists; the refused ones left nothing.
    let ids: Vec<String> = manager
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|session| session.id)
        .collect();
    assert_eq!(ids, [taken.id]);
    manager.shutdown().await;
}

/// Every request the method table routes to the session manager has its handler: each is
/// answered (here: as a request about a session that does not exist, or done), none as a
/// request the manager does not answer — and those routed to the server are left to it.
#[tokio::test]
async fn every_request_routed_to_the_manager_has_a_handler() {
    use codiva_protocol::ClientRequest;
    use codiva_protocol::methods::Route;

    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    // One value per field name, enough for every request's params to parse.
    let params = serde_json::json!({
        "session_id": "no-such-session",
        "request_id": "r1",
        "prompt": "Say hi",
        "text": "hi",
        "agent": "claude",
        "mode": "plan",
        "policy": {"mode": "ask"},
        "decision": "allow",
        "title": "A title",
        "entry": 1,
        "server": "files",
        "decline": true,
        "dry_run": true,
        "login_id": "l1",
        "key": "model",
        "value": "opus",
        "id": "no-such-conversation",
        "cwd": "/no/such/dir",
        "anchor": {"path": "README.md", "side": "new", "start_line": 1, "end_line": 1},
        "body": "a comment",
        "comment_id": "c1",
        "group_id": "g-no-such-group",
        "attempts": [{"agent": "claude"}],
    });
    let mut answered = 0;
    for (method, route) in ClientRequest::ROUTES {
        let request = ClientRequest::parse(method, params.clone())
            .unwrap_or_else(|err| panic!("{method}: the test's params do not parse: {err:?}"));
        assert_eq!(request.route(), *route);
        let answer = manager.handle(request).await;
        if *route == Route::Server {
            assert!(
                matches!(answer, Err(ManagerError::NotRouted(m)) if m == *method),
                "{method} is the server's, yet the manager answered {answer:?}"
            );
            continue;
        }
        assert!(
            !matches!(
                answer,
                Err(ManagerError::NotRouted(_)) | Err(ManagerError::Stopped)
            ),
            "{method}: no handler ({answer:?})"
        );
        answered += 1;
    }
    assert!(answered >= 28, "{answered} requests answered");
    manager.shutdown().await;
}

/// `session/commits`: the subjects of the branch's commits its base lacks, newest first, each
/// one clean line (an agent wrote them), and whether there are more than the 100 listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_commits_are_its_branchs_own_newest_first() {
    use codiva_protocol::methods::request;
    use codiva_protocol::params::SessionParams;

    let repo = TestRepo::new();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let session = manager
        .create(CreateOptions {
            prompt: "two commits".into(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    wait_settled(&manager, &session.id).await;
    let commits = |id: &str| {
        manager.request::<request::SessionCommits>(SessionParams {
            session_id: id.to_owned(),
        })
    };
    let none = commits(&session.id).await.unwrap();
    assert!(none.subjects.is_empty() && !none.more, "{none:?}");

    let worktree = manager
        .list()
        .await
        .unwrap()
        .into_iter()
        .find(|s| s.id == session.id)
        .unwrap()
        .worktree;
    for subject in ["First step", "Second \u{1b}[31mstep\u{202e}"] {
        crate::git::git(&worktree, &["commit", "--allow-empty", "-q", "-m", subject]);
    }
    let listed = commits(&session.id).await.unwrap();
    assert_eq!(listed.subjects, ["Second [31mstep", "First step"]);
    assert!(!listed.more);

    for n in 0..100 {
        crate::git::git(
            &worktree,
            &["commit", "--allow-empty", "-q", "-m", &format!("c{n}")],
        );
    }
    let many = commits(&session.id).await.unwrap();
    assert_eq!(many.subjects.len(), 100);
    assert_eq!(many.subjects[0], "c99");
    assert!(many.more);

    let Err(ManagerError::NoSuchSession(_)) = commits("nope").await else {
        panic!("an unknown session's commits");
    };
    manager.shutdown().await;
}

/// A check is refused for a session without a worktree (discarded) with the manager's usual
/// refusal: code `no_worktree`, and the words the other requests without a worktree use.
#[tokio::test]
async fn a_check_of_a_session_without_a_worktree_is_refused_as_such() {
    use codiva_protocol::methods::request;
    use codiva_protocol::params::SessionParams;
    let repo = TestRepo::new();
    let state = persist::StateFile {
        version: persist::SCHEMA_VERSION,
        groups: Vec::new(),
        last_attempts: Vec::new(),
        sessions: vec![persist::PersistedSession {
            id: "old".into(),
            title: "Old work".into(),
            prompt: "old work".into(),
            slug: "old".into(),
            branch: "codiva/old".into(),
            worktree: repo.root.join(".codiva/worktrees/old"),
            base: "main".into(),
            agent: "claude".into(),
            status: codiva_core::persist::SavedStatus::Discarded,
            ..persist::PersistedSession::default()
        }],
    };
    persist::save(&persist::state_path(&repo.root), &state).unwrap();
    let (manager, _) = Manager::start(options(&repo)).await.unwrap();
    let err = manager
        .request::<request::SessionRunCheck>(SessionParams {
            session_id: "old".into(),
        })
        .await
        .unwrap_err();
    let refused = refusal(err);
    assert_eq!(refused.code, "no_worktree");
    assert_eq!(refused.args, ["old"]);
    assert_eq!(refused.message, "session old has no worktree");
    manager.shutdown().await;
}
