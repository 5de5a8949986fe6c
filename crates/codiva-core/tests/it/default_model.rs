//! The manager's model (the config's `model`) is for the agent it was chosen for, the default
//! one: with `model = "opus"` and Claude Code as the default, a Claude Code session runs Opus,
//! a session of another agent (the project's scripted ACP agent, which has no model called
//! "opus" and no `session/set_model`) starts on its own default and completes, and a model
//! the request names is always used.

use std::sync::Arc;
use std::time::Duration;

use codiva_core::acp::{AcpAgent, AcpProvider};
use codiva_core::claude::ClaudeProvider;
use codiva_core::manager::{CreateOptions, EventReceiver, Manager, ManagerOptions};
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::provider::{Provider, Providers};
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{
    AgentSandbox, MockServer, Reply, Script, TestRepo, acp_agent_binary, claude_binary,
};

const WAIT: Duration = Duration::from_secs(120);

/// Waits for session `id` to settle; returns its status.
async fn settled(events: &mut EventReceiver, id: &str) -> Status {
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
            return status;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_model_is_the_default_agents_only() {
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mock = MockServer::start(Script::new().always(Reply::text("done"))).unwrap();
    let seen = sandbox.home.path().join("acp-seen.txt");
    let mut env = sandbox.claude_env(&mock.url());
    env.push((
        "CODIVA_ACP_AGENT_SEEN".to_owned(),
        seen.display().to_string(),
    ));
    let registry = ChildRegistry::open(state.path().join("children")).unwrap();
    let claude: Arc<dyn Provider> = Arc::new(ClaudeProvider::new(
        claude_binary(),
        sandbox.home.path().join(".claude"),
    ));
    let scripted: Arc<dyn Provider> = Arc::new(AcpProvider::new(AcpAgent::custom(
        "scripted-acp",
        "Scripted ACP agent",
        acp_agent_binary(),
        Vec::new(),
    )));
    // The manager tests' options, with the two agents, their environment and a configured model.
    let (manager, _) = Manager::start(ManagerOptions {
        providers: Providers::new(
            vec![(scripted, None), (claude, None)],
            Vec::new(),
            Some("claude"),
        ),
        env: EnvPolicy::Exact(env),
        state_dir: state.path().join("state"),
        registry: Some(registry),
        model: Some("opus".to_owned()),
        wire_log_cap: 16 * 1024 * 1024,
        ..crate::manager::options_in(repo.path(), state.path())
    })
    .await
    .unwrap();
    let mut events = manager.subscribe();
    let create = |prompt: &str, agent: Option<&str>, model: Option<&str>| CreateOptions {
        prompt: prompt.to_owned(),
        agent: agent.map(str::to_owned),
        model: model.map(str::to_owned),
        ..CreateOptions::default()
    };

    // Another agent than the default: its own default model, and it runs.
    let other = manager
        .create(create("scripted task", Some("scripted-acp"), None))
        .await
        .unwrap();
    assert_eq!(
        (other.agent.as_str(), other.model.as_deref()),
        ("scripted-acp", None)
    );
    assert_eq!(settled(&mut events, &other.id).await, Status::Completed);
    let methods = std::fs::read_to_string(&seen).unwrap();
    assert!(methods.contains("session/prompt"), "{methods}");
    assert!(!methods.contains("session/set_model"), "{methods}");

    // The default agent, named or not: the configured model, sent to the model API.
    for agent in [None, Some("claude")] {
        let info = manager
            .create(create("claude task", agent, None))
            .await
            .unwrap();
        assert_eq!(
            (info.agent.as_str(), info.model.as_deref()),
            ("claude", Some("opus"))
        );
        assert_eq!(settled(&mut events, &info.id).await, Status::Completed);
    }
    let models: Vec<String> = mock
        .message_requests()
        .iter()
        .filter_map(|request| request.body["model"].as_str().map(str::to_owned))
        .collect();
    assert!(!models.is_empty());
    assert!(
        models.iter().all(|model| model.contains("opus")),
        "{models:?}"
    );

    // A model the request names wins, for any agent.
    let named = manager
        .create(create(
            "named model",
            Some("scripted-acp"),
            Some("scripted-1"),
        ))
        .await
        .unwrap();
    assert_eq!(named.model.as_deref(), Some("scripted-1"));
    assert_eq!(settled(&mut events, &named.id).await, Status::Completed);
    manager.shutdown().await;
}
