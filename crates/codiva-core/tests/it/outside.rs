//! Conversations begun outside codiva, end to end with the real `claude` on the mock model
//! server and the test's HOME: a conversation the CLI ran in the repository by itself (no
//! codiva in between) is listed by `history/list` (with its first instruction; codiva's own
//! sessions' conversations are not), read by `history/read` with its tool card, and
//! `history/adopt` makes it a session whose next message resumes it — the mock's request for
//! that message carries the earlier turn — in place, or in a new worktree on a new branch.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use codiva_core::claude::ClaudeProvider;
use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerError, ManagerOptions};
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::provider::Providers;
use codiva_protocol::UserInput;
use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::methods::request;
use codiva_protocol::outside::{
    AdoptPlace, HistoryAdoptParams, HistoryListParams, OutsideConversationRef,
};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{
    AgentSandbox, Match, MockServer, RawClaude, Reply, Rule, Script, TestRepo, claude_binary,
};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(120);

fn script() -> Script {
    Script::new()
        .rule(Rule::new(
            Match::LastUserContains("OUTSIDE-FIRST".into()),
            Reply::tool_use(
                "Bash",
                json!({"command": "echo outside-tool", "description": "say it"}),
            ),
        ))
        .rule(Rule::new(
            Match::LastUserContains("outside-tool".into()),
            Reply::text("The outside turn is done."),
        ))
        .rule(Rule::new(
            Match::LastUserContains("CONTINUED-IN-CODIVA".into()),
            Reply::text("Continued where we were."),
        ))
        .always(Reply::text("ok"))
}

fn options(repo: &Path, state: &Path, env: Vec<(String, String)>, home: &Path) -> ManagerOptions {
    ManagerOptions {
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
        checks: Default::default(),
    }
}

/// The real CLI, run by the test in `cwd` with no codiva in between: one turn with a tool
/// call. Its conversation id.
async fn claude_outside(sandbox: &AgentSandbox, mock: &MockServer, cwd: &Path) -> String {
    let mut claude = RawClaude::spawn(sandbox, mock, cwd);
    claude.say("OUTSIDE-FIRST: run the echo for me").await;
    let result = claude.until_result(|_| json!({"behavior": "allow"})).await;
    let id = result["session_id"].as_str().unwrap().to_owned();
    claude.finish().await;
    id
}

/// Waits until session `id` settles with `status` after it was sent a message.
async fn wait_status(events: &mut codiva_core::manager::EventReceiver, id: &str, status: Status) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("session {id} never became {status:?}"))
            .expect("the manager stopped");
        if let ManagerEvent::Event {
            id: of,
            event: SessionEvent::Status { status: now, .. },
        } = &event
            && of == id
            && *now == status
        {
            return;
        }
    }
}

/// The request of the mock's log that asked for `marker`: every user text it carried.
fn request_with(mock: &MockServer, marker: &str) -> Vec<String> {
    mock.message_requests()
        .into_iter()
        .rev()
        .find(|request| {
            request
                .last_user_text()
                .is_some_and(|text| text.contains(marker))
        })
        .unwrap_or_else(|| panic!("no request asked for {marker}"))
        .user_texts()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_begun_outside_is_listed_read_and_continued_in_place() {
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mock = MockServer::start(script()).unwrap();
    let root = repo.path().canonicalize().unwrap();
    let outside = claude_outside(&sandbox, &mock, &root).await;

    let env = sandbox.claude_env(&mock.url());
    let (manager, _) = Manager::start(options(&root, state.path(), env, sandbox.home.path()))
        .await
        .unwrap();
    let mut events = manager.subscribe();
    // A session of codiva's own: its conversation is not one begun outside.
    let own = manager
        .create(CreateOptions {
            prompt: "codiva's own session".into(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    wait_status(&mut events, &own.id, Status::Completed).await;

    let listed = manager
        .request::<request::HistoryList>(HistoryListParams::default())
        .await
        .unwrap();
    assert_eq!(listed.conversations.len(), 1, "{listed:?}");
    let found = &listed.conversations[0];
    assert_eq!(found.id, outside);
    assert_eq!(found.agent, "claude");
    assert_eq!(found.cwd, root.to_string_lossy());
    assert_eq!(
        found.first_instruction.as_deref(),
        Some("OUTSIDE-FIRST: run the echo for me")
    );
    assert!(found.size_bytes > 0 && found.modified_ms > 0);
    let searched = manager
        .request::<request::HistoryList>(HistoryListParams {
            query: Some("outside-first".into()),
        })
        .await
        .unwrap();
    assert_eq!(searched.conversations.len(), 1);
    let none = manager
        .request::<request::HistoryList>(HistoryListParams {
            query: Some("nothing like it".into()),
        })
        .await
        .unwrap();
    assert!(none.conversations.is_empty());

    // Read-only: the log rebuilt from the transcript, with its tool card.
    let conversation = OutsideConversationRef {
        agent: "claude".into(),
        id: outside.clone(),
        cwd: found.cwd.clone(),
    };
    let read = manager
        .request::<request::HistoryRead>(conversation.clone())
        .await
        .unwrap();
    assert_eq!(read.skipped_bytes, 0);
    let kinds: Vec<&EntryKind> = read.entries.iter().map(|entry| &entry.kind).collect();
    assert!(
        matches!(kinds.first(), Some(EntryKind::User { text }) if text.contains("OUTSIDE-FIRST")),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().any(|kind| matches!(kind, EntryKind::Tool(tool)
            if tool.name == "Bash" && tool.result.as_deref().is_some_and(|r| r.contains("outside-tool")))),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(
        |kind| matches!(kind, EntryKind::Assistant { text } if text == "The outside turn is done.")
    ));
    // Reading changed nothing: no session, no process.
    assert_eq!(manager.list().await.unwrap().len(), 1);

    // Bad names are refused before anything is read.
    let bad = manager
        .request::<request::HistoryRead>(OutsideConversationRef {
            id: "../../etc/passwd".into(),
            ..conversation.clone()
        })
        .await;
    assert!(matches!(bad, Err(ManagerError::Invalid(_))), "{bad:?}");
    let elsewhere = manager
        .request::<request::HistoryRead>(OutsideConversationRef {
            cwd: "/tmp".into(),
            ..conversation.clone()
        })
        .await;
    assert!(
        matches!(elsewhere, Err(ManagerError::Invalid(_))),
        "{elsewhere:?}"
    );

    // Continue in codiva, in place.
    let adopted = manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: "claude".into(),
            id: outside.clone(),
            cwd: found.cwd.clone(),
            place: AdoptPlace::InPlace,
        })
        .await
        .unwrap()
        .session;
    assert!(adopted.in_place);
    assert_eq!(adopted.worktree, root);
    // The agent had the last word: its last turn completed.
    assert_eq!(adopted.status, Status::Completed);
    assert_eq!(adopted.title, "OUTSIDE-FIRST: run the echo for me");
    // Now codiva's: no longer listed, and not adopted twice.
    let listed = manager
        .request::<request::HistoryList>(HistoryListParams::default())
        .await
        .unwrap();
    assert!(listed.conversations.is_empty(), "{listed:?}");
    let again = manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: "claude".into(),
            id: outside.clone(),
            cwd: found.cwd.clone(),
            place: AdoptPlace::InPlace,
        })
        .await;
    assert!(matches!(again, Err(ManagerError::Invalid(_))), "{again:?}");

    // Its log is the conversation's, and its next message resumes it.
    let page = manager
        .read(
            &adopted.id,
            codiva_protocol::session::Scope::Main,
            None,
            100,
        )
        .await
        .unwrap();
    assert!(
        page.entries
            .iter()
            .any(|entry| matches!(&entry.kind, EntryKind::Tool(tool) if tool.name == "Bash")),
        "{page:?}"
    );
    manager
        .send(
            &adopted.id,
            UserInput::text("CONTINUED-IN-CODIVA: go on".to_owned()),
        )
        .await
        .unwrap();
    wait_status(&mut events, &adopted.id, Status::Running).await;
    wait_status(&mut events, &adopted.id, Status::Completed).await;
    let carried = request_with(&mock, "CONTINUED-IN-CODIVA");
    assert!(
        carried.iter().any(|text| text.contains("OUTSIDE-FIRST")),
        "the resumed request carries the earlier turn: {carried:?}"
    );
    let snapshot = manager.snapshot(&adopted.id).await.unwrap();
    assert_eq!(snapshot.agent_session_id.as_deref(), Some(outside.as_str()));
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_begun_outside_continues_in_a_new_worktree() {
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mock = MockServer::start(script()).unwrap();
    let root = repo.path().canonicalize().unwrap();
    let outside = claude_outside(&sandbox, &mock, &root).await;

    let env = sandbox.claude_env(&mock.url());
    let (manager, _) = Manager::start(options(&root, state.path(), env, sandbox.home.path()))
        .await
        .unwrap();
    let mut events = manager.subscribe();
    let adopted = manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: "claude".into(),
            id: outside.clone(),
            cwd: root.to_string_lossy().into_owned(),
            place: AdoptPlace::Worktree,
        })
        .await
        .unwrap()
        .session;
    assert!(!adopted.in_place);
    assert!(adopted.branch.starts_with("codiva/"), "{adopted:?}");
    assert!(adopted.worktree.starts_with(root.join(".codiva/worktrees")));
    assert!(adopted.worktree.join("README.md").is_file());
    // The session's log is the conversation's, read from the worktree's copy of the record.
    let page = manager
        .read(
            &adopted.id,
            codiva_protocol::session::Scope::Main,
            None,
            100,
        )
        .await
        .unwrap();
    assert!(
        page.entries
            .iter()
            .any(|entry| matches!(&entry.kind, EntryKind::Tool(tool) if tool.name == "Bash")),
        "{page:?}"
    );
    manager
        .send(
            &adopted.id,
            UserInput::text("CONTINUED-IN-CODIVA: in the worktree".to_owned()),
        )
        .await
        .unwrap();
    wait_status(&mut events, &adopted.id, Status::Running).await;
    wait_status(&mut events, &adopted.id, Status::Completed).await;
    let carried = request_with(&mock, "CONTINUED-IN-CODIVA");
    assert!(
        carried.iter().any(|text| text.contains("OUTSIDE-FIRST")),
        "the resumed request carries the earlier turn: {carried:?}"
    );
    // The outside conversation stays where it was (the worktree's is a copy).
    let home = sandbox.home.path().join(".claude");
    assert!(codiva_core::claude::transcript::transcript_path(&home, &root, &outside).is_file());
    manager.shutdown().await;
}

/// The real codex, run by the test in `cwd` with no codiva in between (`codex exec`, its own
/// process group): one turn with a command. Its thread id.
async fn codex_outside(sandbox: &AgentSandbox, mock: &MockServer, cwd: &Path) -> String {
    let env = sandbox.codex_env(&mock.url()).unwrap();
    let child = tokio::process::Command::new(codiva_testkit::codex_binary())
        .args([
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "OUTSIDE-CODEX: run the echo for me",
        ])
        .env_clear()
        .envs(env)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let _group = codiva_testkit::ProcessGroupGuard::new(child.id());
    let output = tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .expect("codex exec ended in time")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "codex exec failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find_map(|event| {
            (event["type"] == "thread.started")
                .then(|| event["thread_id"].as_str().map(str::to_owned))
        })
        .flatten()
        .expect("codex named its thread")
}

fn codex_script() -> Script {
    Script::new()
        .then(Reply::message(
            codiva_testkit::MockMessage::new().tool_use_with_id(
                "call_outside",
                "exec_command",
                json!({ "cmd": "echo outside-codex-tool" }),
            ),
        ))
        .then(Reply::text("The codex turn is done."))
        .always(Reply::text("Continued in codiva."))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_thread_begun_outside_is_listed_read_and_continued() {
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mock = MockServer::start(codex_script()).unwrap();
    let root = repo.path().canonicalize().unwrap();
    let thread = codex_outside(&sandbox, &mock, &root).await;

    let env = sandbox.codex_env(&mock.url()).unwrap();
    let mut manager_options = options(&root, state.path(), env, sandbox.home.path());
    manager_options.providers = Providers::one(Arc::new(codiva_core::codex::CodexProvider::new(
        codiva_testkit::codex_binary(),
    )));
    let (manager, _) = Manager::start(manager_options).await.unwrap();
    let mut events = manager.subscribe();

    let listed = manager
        .request::<request::HistoryList>(HistoryListParams::default())
        .await
        .unwrap();
    assert_eq!(listed.conversations.len(), 1, "{listed:?}");
    let found = &listed.conversations[0];
    assert_eq!(
        (found.agent.as_str(), found.id.as_str()),
        ("codex", thread.as_str())
    );
    assert_eq!(found.cwd, root.to_string_lossy());
    assert_eq!(
        found.first_instruction.as_deref(),
        Some("OUTSIDE-CODEX: run the echo for me")
    );

    let read = manager
        .request::<request::HistoryRead>(OutsideConversationRef {
            agent: "codex".into(),
            id: thread.clone(),
            cwd: found.cwd.clone(),
        })
        .await
        .unwrap();
    let kinds: Vec<&EntryKind> = read.entries.iter().map(|entry| &entry.kind).collect();
    assert!(
        kinds.iter().any(|kind| matches!(kind, EntryKind::Tool(tool)
            if tool.summary == "echo outside-codex-tool"
                && tool.result.as_deref().is_some_and(|r| r.contains("outside-codex-tool")))),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(
        |kind| matches!(kind, EntryKind::Assistant { text } if text == "The codex turn is done.")
    ));

    let adopted = manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: "codex".into(),
            id: thread.clone(),
            cwd: found.cwd.clone(),
            place: AdoptPlace::InPlace,
        })
        .await
        .unwrap()
        .session;
    // Its log is the thread's, rebuilt from the rollout (codiva has no history of it).
    let page = manager
        .read(
            &adopted.id,
            codiva_protocol::session::Scope::Main,
            None,
            100,
        )
        .await
        .unwrap();
    assert!(
        page.entries.iter().any(|entry| matches!(&entry.kind,
            EntryKind::Tool(tool) if tool.summary == "echo outside-codex-tool")),
        "{page:?}"
    );
    manager
        .send(
            &adopted.id,
            UserInput::text("CONTINUED-IN-CODIVA: go on".to_owned()),
        )
        .await
        .unwrap();
    wait_status(&mut events, &adopted.id, Status::Running).await;
    wait_status(&mut events, &adopted.id, Status::Completed).await;
    let request = mock.response_requests().pop().expect("a request");
    let body = request.body.to_string();
    assert!(body.contains("CONTINUED-IN-CODIVA"), "{body}");
    assert!(
        body.contains("OUTSIDE-CODEX") && body.contains("The codex turn is done."),
        "the resumed request carries the earlier turn"
    );
    let snapshot = manager.snapshot(&adopted.id).await.unwrap();
    assert_eq!(snapshot.agent_session_id.as_deref(), Some(thread.as_str()));
    manager.shutdown().await;
}

/// A conversation whose record ends with the user's message unanswered (the CLI was stopped
/// before its reply) is adopted as interrupted, not as a completed turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_stopped_in_its_turn_is_adopted_interrupted() {
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    let home = sandbox.home.path().join(".claude");
    let path = codiva_core::claude::transcript::transcript_path(&home, &root, "stopped-1");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "first question"}}),
        json!({"type": "assistant", "message": {"model": "m", "content": [{"type": "text", "text": "an answer"}]}}),
        json!({"type": "user", "message": {"role": "user", "content": "the question left unanswered"}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let (manager, _) = Manager::start(options(
        &root,
        state.path(),
        Vec::new(),
        sandbox.home.path(),
    ))
    .await
    .unwrap();
    let adopted = manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: "claude".into(),
            id: "stopped-1".into(),
            cwd: root.to_string_lossy().into_owned(),
            place: AdoptPlace::InPlace,
        })
        .await
        .unwrap()
        .session;
    assert_eq!(adopted.status, Status::Interrupted);
    assert_eq!(adopted.title, "first question");
    manager.shutdown().await;
}

/// A 200 MB transcript through the manager: listed (its first instruction read from its head)
/// and opened read-only from its end — the answer says how much of its start was not read, and
/// still holds its last tool card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_mb_transcript_is_listed_and_opened_from_its_ends() {
    use std::io::Write as _;
    const SIZE: u64 = 200 * 1024 * 1024;
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    let home = sandbox.home.path().join(".claude");
    let path = codiva_core::claude::transcript::transcript_path(&home, &root, "big-1");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let first = json!({"type": "user", "message": {"role": "user", "content": "the huge one"}});
        writeln!(out, "{first}").unwrap();
        let filler = json!({"type": "assistant", "message": {"model": "m", "content": [
            {"type": "text", "text": "z".repeat(256 * 1024)}]}})
        .to_string();
        let mut written = 0u64;
        while written < SIZE {
            writeln!(out, "{filler}").unwrap();
            written += filler.len() as u64 + 1;
        }
        let call = json!({"type": "assistant", "message": {"model": "m", "content": [
            {"type": "tool_use", "id": "last", "name": "Bash", "input": {"command": "echo end"}}]}});
        let result = json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "last", "content": "end"}]}});
        writeln!(out, "{call}\n{result}").unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    let (manager, _) = Manager::start(options(
        &root,
        state.path(),
        Vec::new(),
        sandbox.home.path(),
    ))
    .await
    .unwrap();
    let listed = manager
        .request::<request::HistoryList>(HistoryListParams::default())
        .await
        .unwrap();
    assert_eq!(listed.conversations.len(), 1);
    assert_eq!(listed.conversations[0].size_bytes, size);
    assert_eq!(
        listed.conversations[0].first_instruction.as_deref(),
        Some("the huge one")
    );
    let read = manager
        .request::<request::HistoryRead>(OutsideConversationRef {
            agent: "claude".into(),
            id: "big-1".into(),
            cwd: root.to_string_lossy().into_owned(),
        })
        .await
        .unwrap();
    assert!(
        read.skipped_bytes >= size - codiva_core::outside::READ_WINDOW - 1,
        "only the end is read: {} of {size} bytes skipped",
        read.skipped_bytes
    );
    assert!(matches!(read.entries.last().map(|e| &e.kind),
        Some(EntryKind::Tool(tool)) if tool.result.as_deref() == Some("end")));
    manager.shutdown().await;
}
