//! Switching one session's agent, Claude Code → Codex → Claude Code, with the real CLIs on
//! the project's mock (Messages and Responses from one script): the worktree and the log stay,
//! the Codex turn gets the handover once, the last Claude turn resumes the first Claude
//! conversation, and no process of a switched-away agent is left.

use std::sync::Arc;
use std::time::Duration;

use codiva_core::claude::ClaudeProvider;
use codiva_core::codex::CodexProvider;
use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::provider::{Provider, Providers};
use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{
    AgentSandbox, Match, MockServer, ProcessGroupGuard, RecordedRequest, Reply, Rule, Script,
    TestRepo, claude_binary, codex_binary,
};

const WAIT: Duration = Duration::from_secs(120);
const HANDOVER: &str = "[codiva handover]";

fn script() -> Script {
    let rule = |word: &str, reply: &str| {
        Rule::new(
            Match::LastUserContains(word.to_owned()),
            Reply::text(reply.to_owned()),
        )
    };
    Script::new()
        .rule(rule("FIRST", "Claude did the first step."))
        .rule(rule("SECOND", "Codex did the second step."))
        .rule(rule("THIRD", "Codex did the third step."))
        .rule(rule("FOURTH", "Claude did the fourth step."))
        .always(Reply::text("ok"))
}

async fn settled(events: &mut codiva_core::manager::EventReceiver, id: &str) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the turn did not settle in time")
            .expect("the manager stopped");
        if let ManagerEvent::Event {
            id: event_id,
            event: SessionEvent::Status { status, .. },
        } = event
            && event_id == id
            && matches!(status, Status::Completed | Status::Failed)
        {
            assert_eq!(status, Status::Completed);
            return;
        }
    }
}

/// The model requests of one API whose last user text holds `word`.
fn requests_for<'a>(
    requests: &'a [RecordedRequest],
    api: &str,
    word: &str,
) -> Vec<&'a RecordedRequest> {
    requests
        .iter()
        .filter(|r| r.path.contains(api))
        .filter(|r| r.last_user_text().is_some_and(|text| text.contains(word)))
        .collect()
}

/// How many user messages of a request carry the handover.
fn handovers(request: &RecordedRequest) -> usize {
    codiva_testkit::script::user_texts(&request.body)
        .iter()
        .filter(|text| text.contains(HANDOVER))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_then_codex_then_claude_keeps_the_thread() {
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mock = MockServer::start(script()).unwrap();
    let mut env = sandbox.claude_env(&mock.url());
    for (key, value) in sandbox.codex_env(&mock.url()).unwrap() {
        env.retain(|(existing, _)| *existing != key);
        env.push((key, value));
    }
    let registry = ChildRegistry::open(state.path().join("children")).unwrap();
    let claude: Arc<dyn Provider> = Arc::new(ClaudeProvider::new(
        claude_binary(),
        sandbox.home.path().join(".claude"),
    ));
    let codex: Arc<dyn Provider> = Arc::new(CodexProvider::new(codex_binary()));
    let (manager, _) = Manager::start(ManagerOptions {
        checks: Default::default(),
        cwd: repo.path().to_path_buf(),
        providers: Providers::new(vec![(claude, None), (codex, None)], Vec::new(), None),
        env: EnvPolicy::Exact(env),
        state_dir: state.path().join("state"),
        registry: Some(registry.clone()),
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 0,
        wire_log_cap: 16 * 1024 * 1024,
        holder: "codiva test".to_owned(),
        github: Default::default(),
        // No one-shot title requests: they would take the mock's scripted answers.
        titles: codiva_core::title::TitleMode::Prompt,
        budget: Default::default(),
    })
    .await
    .unwrap();
    let mut events = manager.subscribe();
    let mut pgids: Vec<u32> = Vec::new();
    let note_pgids = |pgids: &mut Vec<u32>| {
        for record in registry.records().unwrap_or_default() {
            if !pgids.contains(&record.pgid) {
                pgids.push(record.pgid);
            }
        }
    };

    let info = manager
        .create(CreateOptions {
            prompt: "FIRST task: add a README line".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    assert_eq!(info.agent, "claude");
    let id = info.id.clone();
    settled(&mut events, &id).await;
    note_pgids(&mut pgids);
    let first_claude = manager.list().await.unwrap()[0]
        .agent_session_id
        .clone()
        .expect("Claude's conversation id");

    manager.set_agent(&id, "codex").await.unwrap();
    assert_eq!(manager.list().await.unwrap()[0].agent, "codex");
    manager
        .send(&id, codiva_protocol::UserInput::text("SECOND step"))
        .await
        .unwrap();
    settled(&mut events, &id).await;
    note_pgids(&mut pgids);
    manager
        .send(&id, codiva_protocol::UserInput::text("THIRD step"))
        .await
        .unwrap();
    settled(&mut events, &id).await;
    note_pgids(&mut pgids);

    manager.set_agent(&id, "claude").await.unwrap();
    manager
        .send(&id, codiva_protocol::UserInput::text("FOURTH step"))
        .await
        .unwrap();
    settled(&mut events, &id).await;
    note_pgids(&mut pgids);

    let requests = mock.requests();
    // Codex got the handover with its first message only; it names the branch and the first
    // instruction and what Claude answered.
    let second = requests_for(&requests, "/responses", "SECOND");
    assert!(!second.is_empty(), "codex was asked");
    let text = second[0].last_user_text().unwrap();
    assert!(text.starts_with(HANDOVER), "{text}");
    assert!(text.contains("FIRST task") && text.contains("Claude did the first step."));
    assert!(text.contains(&info.branch), "{text}");
    assert!(text.ends_with("SECOND step"), "{text}");
    for request in requests_for(&requests, "/responses", "THIRD") {
        assert_eq!(handovers(request), 1, "the handover is given once");
        assert!(!request.last_user_text().unwrap().contains(HANDOVER));
    }
    // Back on Claude: its first conversation was resumed (its first message is in the
    // request), with a handover of Codex's turns.
    let fourth = requests_for(&requests, "/messages", "FOURTH");
    assert!(!fourth.is_empty(), "claude was asked again");
    let texts = codiva_testkit::script::user_texts(&fourth[0].body);
    assert!(texts[0].contains("FIRST task"), "{texts:?}");
    let last = texts.last().unwrap();
    assert!(last.contains("Codex did the third step."), "{last}");
    assert_eq!(
        manager.list().await.unwrap()[0].agent_session_id.as_deref(),
        Some(first_claude.as_str()),
        "the last Claude turn resumed the first Claude conversation"
    );

    // The log kept every turn, the user's own words, and says where the agent changed.
    let page = manager
        .read(&id, codiva_protocol::session::Scope::Main, None, 1000)
        .await
        .unwrap();
    let users: Vec<&str> = page
        .entries
        .iter()
        .filter_map(|entry| match &entry.kind {
            EntryKind::User { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        users,
        [
            "FIRST task: add a README line",
            "SECOND step",
            "THIRD step",
            "FOURTH step"
        ]
    );
    let switches = page
        .entries
        .iter()
        .filter(|entry| {
            matches!(&entry.kind, EntryKind::Note { code: Some(code), .. } if code.name == "agent_switched")
        })
        .count();
    assert_eq!(switches, 2);

    manager.shutdown().await;
    assert!(pgids.len() >= 3, "claude, codex and claude ran: {pgids:?}");
    for pgid in pgids {
        let alive = ProcessGroupGuard::new(Some(pgid)).live_members();
        assert!(alive.is_empty(), "group {pgid} is still alive: {alive:?}");
    }
}
