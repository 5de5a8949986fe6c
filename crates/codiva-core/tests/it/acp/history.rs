//! ACP agents' own conversations in the history of conversations begun outside codiva
//! (`history/list`, `history/read`, `history/adopt`): the scripted agent's `session/list`
//! through the Manager, listed beside the others, read from its `session/load` replay, adopted
//! and resumed; failures and time limits per agent; and the real codex-acp's listing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use codiva_core::acp::{AcpAgent, AcpProvider};
use codiva_core::provider::{Connection, InvalidInput, Launch, Provider, Providers};
use codiva_protocol::log::EntryKind;
use codiva_protocol::methods::request;
use codiva_protocol::outside::{
    AdoptPlace, HistoryAdoptParams, HistoryListParams, OutsideConversation, OutsideConversationRef,
};
use codiva_protocol::session::Status;
use codiva_testkit::{Reply, Script, acp_agent_binary};
use serde_json::json;

use super::harness::{Run, Which};

/// The pids the scripted agent noted (`start <pid>` in its `CODIVA_ACP_AGENT_SEEN` file).
fn started(seen: &str) -> Vec<u32> {
    seen.lines()
        .filter_map(|line| line.strip_prefix("start "))
        .filter_map(|pid| pid.trim().parse().ok())
        .collect()
}

/// Waits (at most 10 s) until none of `pids` is alive, and says which are.
async fn all_gone(pids: &[u32]) -> Vec<u32> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let alive: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
            .collect();
        if alive.is_empty() || tokio::time::Instant::now() > deadline {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acp_agents_sessions_are_listed_read_adopted_and_resumed_with_session_load() {
    let mut run = Run::start(
        "scripted-history",
        Which::ScriptedListing,
        Script::new(),
        "hello there",
    )
    .await;
    run.settles(Status::Completed).await;
    let managed = run
        .snapshot()
        .await
        .agent_session_id
        .expect("the agent's id of codiva's session");
    let root = run.repo.path().canonicalize().unwrap();
    let worktree = run.worktree().canonicalize().unwrap();
    let home = run.sandbox.home.path().to_path_buf();
    let sessions = json!([
        {"sessionId": managed, "cwd": worktree, "title": "codiva's own",
            "updatedAt": "2026-12-07T08:00:00Z"},
        {"sessionId": "outside-old", "cwd": root, "title": "Older work",
            "updatedAt": "2026-12-01T08:00:00Z"},
        {"sessionId": "outside-new", "cwd": root,
            "title": "Fix \u{1b}[31mthe\u{202e} parser\nplease",
            "updatedAt": "2026-12-06T17:00:00+09:00"},
        {"sessionId": "elsewhere", "cwd": "/somewhere/else", "title": "not this repository"},
        {"sessionId": "../escape", "cwd": root, "title": "no id a file may have"},
    ]);
    std::fs::write(home.join("acp-sessions.json"), sessions.to_string()).unwrap();

    let listed = run
        .manager
        .request::<request::HistoryList>(HistoryListParams::default())
        .await
        .unwrap();
    assert!(listed.unavailable.is_empty(), "{listed:?}");
    let ids: Vec<&str> = listed.conversations.iter().map(|c| c.id.as_str()).collect();
    // Newest first; codiva's own, another directory's and a bad id are not listed.
    assert_eq!(ids, ["outside-new", "outside-old"], "{listed:?}");
    let new = &listed.conversations[0];
    assert_eq!(new.agent, "scripted-acp");
    assert_eq!(new.cwd, root.display().to_string());
    assert_eq!(new.size_bytes, 0, "the agent gives no size");
    // 2026-12-06T08:00:00Z.
    assert_eq!(new.modified_ms, 1_796_544_000_000);
    let title = new.first_instruction.clone().unwrap();
    assert!(
        title.starts_with("Fix") && title.contains("parser"),
        "{title}"
    );
    assert!(
        !title.contains(['\u{1b}', '\u{202e}', '\n']),
        "sanitised: {title:?}"
    );
    let searched = run
        .manager
        .request::<request::HistoryList>(HistoryListParams {
            query: Some("OLDER".into()),
        })
        .await
        .unwrap();
    let ids: Vec<&str> = searched
        .conversations
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(ids, ["outside-old"]);

    // Read: the agent's replay of the conversation (`session/load`).
    let conversation = OutsideConversationRef {
        agent: new.agent.clone(),
        id: new.id.clone(),
        cwd: new.cwd.clone(),
    };
    let read = run
        .manager
        .request::<request::HistoryRead>(conversation.clone())
        .await
        .unwrap();
    let kinds: Vec<&EntryKind> = read.entries.iter().map(|entry| &entry.kind).collect();
    assert_eq!(
        kinds,
        [
            &EntryKind::User {
                text: "an earlier prompt".into()
            },
            &EntryKind::Assistant {
                text: "an earlier answer".into()
            }
        ]
    );

    // Continue in codiva, in place.
    let adopted = run
        .manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: conversation.agent.clone(),
            id: conversation.id.clone(),
            cwd: conversation.cwd.clone(),
            place: AdoptPlace::InPlace,
        })
        .await
        .unwrap()
        .session;
    assert!(adopted.in_place);
    assert_eq!(adopted.agent, "scripted-acp");
    // Its record ends with the agent's answer: its last turn completed.
    assert_eq!(adopted.status, Status::Completed);
    let listed = run
        .manager
        .request::<request::HistoryList>(HistoryListParams::default())
        .await
        .unwrap();
    let ids: Vec<&str> = listed.conversations.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["outside-old"], "now codiva's");

    // Its next message resumes the agent's conversation: `session/load` with its id.
    run.id = adopted.id.clone();
    run.send("go on").await;
    run.settles(Status::Completed).await;
    assert!(
        run.assistant_texts()
            .iter()
            .any(|text| text == "echo: go on"),
        "{}",
        run.dump()
    );
    assert_eq!(
        run.snapshot().await.agent_session_id.as_deref(),
        Some("outside-new")
    );
    let wire = std::fs::read_to_string(run.wire_log_path()).unwrap();
    assert!(
        wire.lines()
            .any(|line| line.contains(r#""method":"session/load""#)
                && line.contains(r#""sessionId":"outside-new""#)),
        "{wire}"
    );

    // The other one, in a new worktree on a new branch: loaded there by its id.
    let old = run
        .manager
        .request::<request::HistoryAdopt>(HistoryAdoptParams {
            agent: "scripted-acp".into(),
            id: "outside-old".into(),
            cwd: root.display().to_string(),
            place: AdoptPlace::Worktree,
        })
        .await
        .unwrap()
        .session;
    assert!(!old.in_place);
    assert!(!old.branch.is_empty());
    assert_ne!(old.worktree, root);
    run.id = old.id.clone();
    run.send("and this one").await;
    run.settles(Status::Completed).await;
    let wire = std::fs::read_to_string(run.wire_log_path()).unwrap();
    let old_dir = old.worktree.display().to_string();
    assert!(
        wire.lines()
            .any(|line| line.contains(r#""method":"session/load""#)
                && line.contains(r#""sessionId":"outside-old""#)
                && line.contains(&format!(r#""cwd":"{old_dir}""#))),
        "{wire}"
    );

    let seen = std::fs::read_to_string(home.join("acp-seen.txt")).unwrap();
    assert!(
        seen.lines().any(|line| line == "session/load outside-new"),
        "{seen}"
    );
    assert!(
        seen.lines().any(|line| line == "session/load outside-old"),
        "{seen}"
    );
    assert!(seen.lines().any(|line| line.starts_with("session/list")));
    let pids = started(&seen);
    run.finish().await;
    // Every process the listing, reading and sessions started is gone.
    assert_eq!(all_gone(&pids).await, Vec::<u32>::new(), "{seen}");
}

/// An agent with records of its own (as Claude Code's and Codex's are) that holds one of the
/// conversations an ACP wrapper of it lists too.
#[derive(Debug)]
struct Native {
    inner: AcpProvider,
    records: Vec<OutsideConversation>,
}

impl Provider for Native {
    fn id(&self) -> &'static str {
        "native"
    }
    fn display_name(&self) -> &'static str {
        "Native"
    }
    fn capabilities(&self) -> codiva_protocol::agent::AgentCapabilities {
        self.inner.capabilities()
    }
    fn command(&self, launch: &Launch) -> codiva_core::provider::CommandLine {
        self.inner.command(launch)
    }
    fn connect(&self, launch: &Launch) -> Box<dyn Connection> {
        self.inner.connect(launch)
    }
    fn check_permission_mode(
        &self,
        field: &str,
        mode: codiva_protocol::tool::PermissionMode,
    ) -> Result<(), InvalidInput> {
        self.inner.check_permission_mode(field, mode)
    }
    fn outside_conversations(
        &self,
        _dirs: &[PathBuf],
        _env: &codiva_core::process::EnvPolicy,
    ) -> Option<Vec<OutsideConversation>> {
        Some(self.records.clone())
    }
}

fn scripted(name: &'static str, env: &[(&str, String)]) -> AcpAgent {
    let mut agent = AcpAgent::custom(name, name, acp_agent_binary(), Vec::new());
    agent.env = env
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect();
    agent
}

fn row(agent: &str, id: &str, dir: &Path, modified_ms: u64) -> OutsideConversation {
    OutsideConversation {
        agent: agent.into(),
        id: id.into(),
        cwd: dir.display().to_string(),
        modified_ms,
        size_bytes: 10,
        first_instruction: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_acp_agent_is_named_and_a_wrappers_copy_of_a_native_record_is_listed_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let sessions = dir.path().join("sessions.json");
    let seen = dir.path().join("seen.txt");
    std::fs::write(
        &sessions,
        json!([
            {"sessionId": "shared-1", "cwd": root, "title": "in both"},
            {"sessionId": "acp-only", "cwd": root, "title": "only the wrapper's",
                "updatedAt": "2026-12-07T00:00:00Z"},
        ])
        .to_string(),
    )
    .unwrap();
    let listing = vec![
        ("CODIVA_ACP_AGENT_SESSIONS", sessions.display().to_string()),
        ("CODIVA_ACP_AGENT_SEEN", seen.display().to_string()),
    ];
    let mut failing_env = listing.clone();
    failing_env.push(("CODIVA_ACP_AGENT_LIST", "fail".to_owned()));
    let native = Native {
        inner: AcpProvider::new(scripted("native-inner", &[])),
        records: vec![row("native", "shared-1", &root, 5)],
    };
    let providers = Providers::new(
        vec![
            (Arc::new(native) as Arc<dyn Provider>, None),
            (
                Arc::new(AcpProvider::new(scripted("wrapper-acp", &listing))),
                None,
            ),
            (
                Arc::new(AcpProvider::new(scripted("failing-acp", &failing_env))),
                None,
            ),
            // Lists nothing: its handshake offers no `session/list` (not a failure).
            (
                Arc::new(AcpProvider::new(scripted(
                    "plain-acp",
                    &[("CODIVA_ACP_AGENT_SEEN", seen.display().to_string())],
                ))),
                None,
            ),
        ],
        Vec::new(),
        None,
    );
    let env = codiva_core::process::EnvPolicy::Exact(vec![(
        "PATH".to_owned(),
        std::env::var("PATH").unwrap_or_default(),
    )]);
    let dirs = vec![root.clone()];
    let result = tokio::task::spawn_blocking(move || {
        codiva_core::outside::list(&providers, &dirs, &env, &BTreeSet::new(), None)
    })
    .await
    .unwrap();
    let rows: Vec<(&str, &str)> = result
        .conversations
        .iter()
        .map(|c| (c.agent.as_str(), c.id.as_str()))
        .collect();
    assert_eq!(
        rows,
        [("wrapper-acp", "acp-only"), ("native", "shared-1")],
        "{result:?}"
    );
    assert_eq!(result.unavailable.len(), 1, "{result:?}");
    assert_eq!(result.unavailable[0].agent, "failing-acp");
    assert!(
        result.unavailable[0]
            .error
            .contains("the session store is locked")
            || result.unavailable[0].error.contains("Internal error"),
        "{result:?}"
    );
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(all_gone(&started(&seen)).await, Vec::<u32>::new(), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acp_agent_that_never_answers_its_listing_is_stopped_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions.json");
    let seen = dir.path().join("seen.txt");
    std::fs::write(&sessions, "[]").unwrap();
    let agent = scripted(
        "hanging-acp",
        &[
            ("CODIVA_ACP_AGENT_SESSIONS", sessions.display().to_string()),
            ("CODIVA_ACP_AGENT_SEEN", seen.display().to_string()),
            ("CODIVA_ACP_AGENT_LIST", "hang".to_owned()),
        ],
    );
    let env = codiva_core::process::EnvPolicy::Exact(Vec::new());
    let dirs = vec![dir.path().to_path_buf()];
    let result = tokio::task::spawn_blocking(move || {
        codiva_core::acp::outside::list(&agent, &dirs, &env, Duration::from_secs(2))
    })
    .await
    .unwrap();
    assert!(
        matches!(
            result,
            Err(codiva_core::acp::outside::ExchangeError::Timeout(_))
        ),
        "{result:?}"
    );
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert!(seen.contains("session/list"), "{seen}");
    let pids = started(&seen);
    assert_eq!(pids.len(), 1, "{seen}");
    assert_eq!(all_gone(&pids).await, Vec::<u32>::new());
}

/// The real codex-acp 0.16.0 advertises `sessionCapabilities.list` and lists the conversation
/// a session of it had, by the id its `session/new` gave, for the worktree it ran in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_acp_lists_its_own_conversation_with_session_list() {
    let script = Script::new().then(Reply::text("Listed later."));
    let mut run = Run::start(
        "codex-acp-history",
        Which::CodexAcp,
        script,
        "HISTORY-PROBE remember me",
    )
    .await;
    run.settles(Status::Completed).await;
    let id = run
        .snapshot()
        .await
        .agent_session_id
        .expect("codex-acp's session id");
    let (agent, env) = Which::CodexAcp.agent(&run.sandbox, &run.mock.url());
    let worktree = run.worktree().canonicalize().unwrap();
    let dirs = vec![worktree.clone(), run.repo.path().canonicalize().unwrap()];
    let listed = tokio::task::spawn_blocking(move || {
        codiva_core::acp::outside::list(
            &agent,
            &dirs,
            &codiva_core::process::EnvPolicy::Exact(env),
            Duration::from_secs(60),
        )
    })
    .await
    .unwrap()
    .expect("listed")
    .expect("codex-acp offers session/list");
    let found = listed
        .iter()
        .find(|conversation| conversation.id == id)
        .unwrap_or_else(|| panic!("{id} not in {listed:?}"));
    assert_eq!(found.agent, "codex-acp");
    assert_eq!(found.cwd, worktree.display().to_string());
    assert_eq!(
        found.first_instruction.as_deref(),
        Some("HISTORY-PROBE remember me")
    );

    // codex-acp wraps Codex: its session id is the Codex thread's, whose rollout Codex's own
    // records list too. Beside the native Codex agent it is listed once, as Codex's.
    let (agent, env) = Which::CodexAcp.agent(&run.sandbox, &run.mock.url());
    let providers = Providers::new(
        vec![
            (
                Arc::new(codiva_core::codex::CodexProvider::new(
                    codiva_testkit::codex_binary(),
                )) as Arc<dyn Provider>,
                None,
            ),
            (Arc::new(AcpProvider::new(agent)), None),
        ],
        Vec::new(),
        None,
    );
    let dirs = vec![worktree.clone(), run.repo.path().canonicalize().unwrap()];
    let both = tokio::task::spawn_blocking(move || {
        codiva_core::outside::list(
            &providers,
            &dirs,
            &codiva_core::process::EnvPolicy::Exact(env),
            &BTreeSet::new(),
            None,
        )
    })
    .await
    .unwrap();
    let rows: Vec<(&str, &str)> = both
        .conversations
        .iter()
        .map(|c| (c.agent.as_str(), c.id.as_str()))
        .collect();
    assert_eq!(rows, [("codex", id.as_str())], "{both:?}");
    assert!(both.unavailable.is_empty(), "{both:?}");
    run.finish().await;
}
