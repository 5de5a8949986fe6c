//! Session titles from the session's own agent: the real Claude Code one-shot (`haiku`, no
//! tools) against the project's mock, which answers the title request apart from the turns
//! (by model). Its stdout is captured as `fixtures/claude/claude-title.json`
//! (`CODIVA_CAPTURE_FIXTURES=1`).

use std::sync::Arc;
use std::time::Duration;

use codiva_core::claude::ClaudeProvider;
use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::process::EnvPolicy;
use codiva_core::provider::{Provider, Providers, TitleError};
use codiva_core::title::{self, TitleMode};
use codiva_protocol::manager::ManagerEvent;
use codiva_testkit::{
    AgentSandbox, Match, MockServer, RecordedRequest, Reply, Rule, Script, TestRepo, Times,
    claude_binary,
};

const WAIT: Duration = Duration::from_secs(120);

fn title_rule(word: &str, title: &str) -> Rule {
    Rule::new(
        Match::All(vec![
            Match::ModelContains("haiku".to_owned()),
            Match::FirstUserContains(word.to_owned()),
        ]),
        Reply::text(title.to_owned()),
    )
}

fn title_requests(mock: &MockServer) -> Vec<RecordedRequest> {
    mock.message_requests()
        .into_iter()
        .filter(|r| {
            r.body["model"]
                .as_str()
                .is_some_and(|m| m.contains("haiku"))
        })
        .collect()
}

/// Waits for session `id`'s title to become `expected`.
async fn title_becomes(events: &mut codiva_core::manager::EventReceiver, id: &str, expected: &str) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("no title {expected:?} for {id} in time"))
            .expect("the manager stopped");
        if let ManagerEvent::Session { session } = event
            && session.id == id
            && session.title == expected
        {
            return;
        }
    }
}

struct World {
    repo: TestRepo,
    sandbox: AgentSandbox,
    state: tempfile::TempDir,
    mock: MockServer,
}

impl World {
    fn new(script: Script) -> World {
        World {
            repo: TestRepo::new().unwrap(),
            sandbox: AgentSandbox::new().unwrap(),
            state: tempfile::tempdir().unwrap(),
            mock: MockServer::start(script).unwrap(),
        }
    }

    fn provider(&self) -> Arc<dyn Provider> {
        Arc::new(ClaudeProvider::new(
            claude_binary(),
            self.sandbox.home.path().join(".claude"),
        ))
    }

    async fn manager(&self) -> Manager {
        let (manager, _) = Manager::start(ManagerOptions {
            checks: Default::default(),
            cwd: self.repo.path().to_path_buf(),
            providers: Providers::one(self.provider()),
            env: EnvPolicy::Exact(self.sandbox.claude_env(&self.mock.url())),
            state_dir: self.state.path().join("state"),
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
            titles: TitleMode::Agent,
            budget: Default::default(),
        })
        .await
        .unwrap();
        manager
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_title_names_japanese_and_english_sessions() {
    let world = World::new(
        Script::new()
            .rule(title_rule(
                "ログイン",
                "ログイン後のリダイレクトループを修正",
            ))
            .rule(title_rule("login", "Fix the login redirect loop"))
            .always(Reply::text("ok")),
    );
    let manager = world.manager().await;
    let mut events = manager.subscribe();

    let ja = manager
        .create(CreateOptions {
            prompt:
                "ログインした後にトップページへ戻され続けるので直してください\n詳細はissueを参照"
                    .to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    // Until the agent answers, the prompt's first line.
    assert!(ja.title.starts_with("ログインした後に"), "{}", ja.title);
    title_becomes(&mut events, &ja.id, "ログイン後のリダイレクトループを修正").await;

    let en = manager
        .create(CreateOptions {
            prompt: "after login the app keeps redirecting to the start page, fix it".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    title_becomes(&mut events, &en.id, "Fix the login redirect loop").await;

    let listed = manager.list().await.unwrap();
    let title_of = |id: &str| {
        listed
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.title.clone())
            .unwrap()
    };
    assert_eq!(title_of(&ja.id), "ログイン後のリダイレクトループを修正");
    assert_eq!(title_of(&en.id), "Fix the login redirect loop");

    // One request each, to the cheapest model, with no tools, carrying the instruction.
    let requests = title_requests(&world.mock);
    assert_eq!(requests.len(), 2, "{requests:#?}");
    for request in &requests {
        let tools = request.body["tools"].as_array().map_or(0, Vec::len);
        assert_eq!(tools, 0, "{}", request.body);
    }
    assert!(requests.iter().any(|r| {
        r.first_user_text()
            .is_some_and(|t| t.contains("トップページへ戻され続ける"))
    }));

    // A title given by hand is kept over restarts, and the agent's is in state.json.
    manager.rename(&en.id, "My own title").await.unwrap();
    manager.shutdown().await;
    let saved =
        std::fs::read_to_string(codiva_core::persist::state_path(world.repo.path())).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    let origins: Vec<&str> = saved["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["title_origin"].as_str())
        .collect();
    assert_eq!(origins.len(), 2, "{saved}");
    assert!(
        origins.contains(&"user") && origins.contains(&"agent"),
        "{saved}"
    );
    let manager = world.manager().await;
    let listed = manager.list().await.unwrap();
    assert!(listed.iter().any(|s| s.title == "My own title"));
    assert!(
        listed
            .iter()
            .any(|s| s.title == "ログイン後のリダイレクトループを修正")
    );
    manager.shutdown().await;
    // No title is asked again for restored sessions.
    assert_eq!(title_requests(&world.mock).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escape_sequence_in_a_generated_title_is_neutralised() {
    let world = World::new(
        Script::new()
            .rule(title_rule(
                "colours",
                "\u{1b}[2J\u{1b}]0;owned\u{7}Fix the \u{1b}[31mcolours\u{1b}[0m\u{202e}",
            ))
            .always(Reply::text("ok")),
    );
    let manager = world.manager().await;
    let mut events = manager.subscribe();
    let info = manager
        .create(CreateOptions {
            prompt: "the colours of the status bar are wrong".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    title_becomes(
        &mut events,
        &info.id,
        "[2J ]0;owned Fix the [31mcolours [0m",
    )
    .await;
    manager.shutdown().await;
}

/// The one-shot itself, as the provider describes it: its stdout is one `result` object
/// whose `result` is the model's text (captured as a fixture, read by the replay test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_title_one_shot_prints_one_result() {
    let world = World::new(
        Script::new().rule(title_rule("README", "README に使い方を追記").times(Times::N(2))),
    );
    let provider = world.provider();
    let command = provider.title_request("README に使い方を書いて").unwrap();
    let env = EnvPolicy::Exact(world.sandbox.claude_env(&world.mock.url()));
    let run = codiva_core::process::run_captured(&command.program, &command.args, &env, WAIT)
        .await
        .unwrap();
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        provider.read_title(&run.stdout, run.success).unwrap(),
        "README に使い方を追記"
    );
    if std::env::var_os("CODIVA_CAPTURE_FIXTURES").is_some() {
        // As printed (key order kept), the run's ids zeroed.
        let value: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        let mut text = run.stdout.trim().to_owned();
        for key in ["session_id", "uuid"] {
            let id = value[key].as_str().unwrap();
            text = text.replace(id, "00000000-0000-0000-0000-000000000000");
        }
        let path = crate::fixtures::dir().join("claude-title.json");
        std::fs::write(path, format!("{text}\n")).unwrap();
    }
    // The same through the title module: cleaned and short.
    let made = title::generate(&*provider, "README に使い方を書いて", &env, WAIT, None).await;
    assert_eq!(made.unwrap(), "README に使い方を追記");
}

/// The captured stdout of the real one-shot reads as its title.
#[test]
fn the_captured_one_shot_reads_as_a_title() {
    let text = std::fs::read_to_string(crate::fixtures::dir().join("claude-title.json")).unwrap();
    let provider = ClaudeProvider::new("claude".into(), "/nonexistent".into());
    assert_eq!(
        provider.read_title(&text, true).unwrap(),
        "README に使い方を追記"
    );
}

/// A one-shot that fails gives no title (the caller keeps the prompt's): an API error after
/// the CLI's retries, and a program that prints nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_one_shot_gives_no_title() {
    let world = World::new(
        Script::new().rule(
            Rule::new(
                Match::ModelContains("haiku".to_owned()),
                Reply::error(500, "api_error", "mock: down"),
            )
            .times(Times::Always),
        ),
    );
    let env = EnvPolicy::Exact(world.sandbox.claude_env(&world.mock.url()));
    let err = title::generate(&*world.provider(), "fix the parser", &env, WAIT, None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            title::NoTitle::Answer {
                reason: TitleError::Refused {
                    status: Some(500),
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("HTTP 500"), "{err}");

    let silent = ClaudeProvider::new("/bin/true".into(), "/nonexistent".into());
    let err = title::generate(&silent, "fix the parser", &env, WAIT, None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            title::NoTitle::Answer {
                reason: TitleError::NoResult { .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("no result"), "{err}");
}

/// The one-shot is kept as an agent is: recorded in the child registry while it runs (a codiva
/// that dies leaves a record the next one reaps), and a stop (the run dropped, as at shutdown)
/// ends its whole group — here a "claude" that starts a child and sleeps — and the record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_title_one_shot_is_in_the_child_registry_and_stopped_with_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("claude");
    let pids = dir.path().join("pids");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep 300 &\necho $$ $! > {}.tmp\nmv {0}.tmp {0}\nwait\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let registry = codiva_core::process::ChildRegistry::open(dir.path().join("children")).unwrap();
    let provider = ClaudeProvider::new(script.clone(), "/nonexistent".into());
    let env = EnvPolicy::Inherit {
        remove: Vec::new(),
        set: Vec::new(),
    };
    let run = {
        let registry = registry.clone();
        tokio::spawn(async move {
            title::generate(&provider, "fix the parser", &env, WAIT, Some(&registry)).await
        })
    };
    let deadline = std::time::Instant::now() + WAIT;
    let (leader, child) = loop {
        if let Ok(text) = std::fs::read_to_string(&pids) {
            let mut it = text.split_whitespace().map(|p| p.parse::<u32>().unwrap());
            break (it.next().unwrap(), it.next().unwrap());
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the one-shot did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let records = registry.records().unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].pid, leader);
    assert_eq!(records[0].label, "title one-shot");

    run.abort();
    let _ = run.await;
    let alive = |pid: u32| {
        std::path::Path::new(&format!("/proc/{pid}")).exists() && {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            !stat.contains(") Z ")
        }
    };
    while alive(leader) || alive(child) {
        assert!(
            std::time::Instant::now() < deadline,
            "the one-shot's group outlived the stop"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(registry.records().unwrap().is_empty(), "the record is gone");
}
