//! Runs the real `codex app-server` through codiva's Manager (a `CodexProvider`, an
//! allowlisted environment whose `CODEX_HOME/config.toml` points codex at the mock's Responses
//! API) on a temp repository, and records every event of the session.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use codiva_core::codex::{CodexExecProvider, CodexProvider};
use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::provider::Provider;
use codiva_core::session::PermissionResponse;
use codiva_protocol::log::{LogEntry, ToolEntry};
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::{Prompt, SessionEvent, SessionSnapshot, Status};
use codiva_testkit::{AgentSandbox, MockServer, Script, TestRepo, codex_binary};
use tokio::sync::broadcast;

/// Generous: codex starts in about a second; five retries take about seven.
const WAIT: Duration = Duration::from_secs(120);

pub struct Run {
    pub mock: MockServer,
    pub sandbox: AgentSandbox,
    pub repo: TestRepo,
    pub state: tempfile::TempDir,
    pub manager: Manager,
    pub id: String,
    pub events: Vec<SessionEvent>,
    pub name: &'static str,
    /// Where `CODIVA_CAPTURE_FIXTURES=1` puts this run's capture.
    fixture_dir: PathBuf,
    stream: codiva_core::manager::EventReceiver,
    registry: ChildRegistry,
    seen_pgids: Vec<u32>,
}

/// What a later run keeps of an earlier one (resume in a new process).
pub struct Kept {
    pub sandbox: AgentSandbox,
    pub repo: TestRepo,
    pub state: tempfile::TempDir,
}

impl Run {
    /// A manager on a new repository; its first session starts with `prompt`.
    pub async fn start(name: &'static str, script: Script, prompt: &str) -> Run {
        Run::start_with(
            name,
            script,
            prompt,
            Arc::new(CodexProvider::new(codex_binary())),
        )
        .await
    }

    /// [`Run::start`] with `codex exec --json`, one process per message.
    pub async fn start_exec(name: &'static str, script: Script, prompt: &str) -> Run {
        let provider = Arc::new(CodexExecProvider::new(codex_binary()));
        let mut run = Run::start_with(name, script, prompt, provider).await;
        run.fixture_dir = crate::fixtures::codex_exec_dir();
        run
    }

    /// [`Run::start`] with the manager's budget (`agent_idle_stop`, …) set to `budget`.
    pub async fn start_budget(
        name: &'static str,
        script: Script,
        prompt: &str,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let provider = Arc::new(CodexProvider::new(codex_binary()));
        Run::start_full(name, script, prompt, provider, budget).await
    }

    async fn start_with(
        name: &'static str,
        script: Script,
        prompt: &str,
        provider: Arc<dyn Provider>,
    ) -> Run {
        Run::start_full(name, script, prompt, provider, Default::default()).await
    }

    async fn start_full(
        name: &'static str,
        script: Script,
        prompt: &str,
        provider: Arc<dyn Provider>,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let kept = Kept {
            sandbox: AgentSandbox::new().expect("sandbox"),
            repo: TestRepo::new().expect("test repo"),
            state: tempfile::tempdir().expect("state dir"),
        };
        let options = CreateOptions {
            prompt: prompt.to_owned(),
            ..CreateOptions::default()
        };
        Run::start_created(name, script, kept, options, provider, budget).await
    }

    /// [`Run::start`] with the session created from `options` (MCP servers, …).
    pub async fn start_options(name: &'static str, script: Script, options: CreateOptions) -> Run {
        let kept = Kept {
            sandbox: AgentSandbox::new().expect("sandbox"),
            repo: TestRepo::new().expect("test repo"),
            state: tempfile::tempdir().expect("state dir"),
        };
        let provider = Arc::new(CodexProvider::new(codex_binary()));
        Run::start_created(name, script, kept, options, provider, Default::default()).await
    }

    async fn start_created(
        name: &'static str,
        script: Script,
        kept: Kept,
        options: CreateOptions,
        provider: Arc<dyn Provider>,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let mut run = Run::manager(name, script, kept, provider, budget).await;
        let info = run.manager.create(options).await.expect("create a session");
        run.id = info.id;
        run
    }

    /// A new manager (a new codex process) over what an earlier run kept: its session is
    /// restored and continues the codex thread on `prompt`.
    pub async fn resume(name: &'static str, script: Script, kept: Kept, id: &str) -> Run {
        let provider = Arc::new(CodexProvider::new(codex_binary()));
        let mut run = Run::manager(name, script, kept, provider, Default::default()).await;
        run.id = id.to_owned();
        run
    }

    async fn manager(
        name: &'static str,
        script: Script,
        kept: Kept,
        provider: Arc<dyn Provider>,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let mock = MockServer::start(script).expect("mock server");
        let registry =
            ChildRegistry::open(kept.state.path().join("children")).expect("child registry");
        let env = kept.sandbox.codex_env(&mock.url()).expect("codex env");
        let (manager, _) = Manager::start(ManagerOptions {
            checks: Default::default(),
            cwd: kept.repo.path().to_path_buf(),
            providers: codiva_core::provider::Providers::one(provider),
            env: EnvPolicy::Exact(env),
            state_dir: kept.state.path().join("state"),
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
            budget,
        })
        .await
        .expect("manager");
        let stream = manager.subscribe();
        Run {
            mock,
            sandbox: kept.sandbox,
            repo: kept.repo,
            state: kept.state,
            manager,
            id: String::new(),
            events: Vec::new(),
            name,
            fixture_dir: crate::fixtures::codex_dir(),
            stream,
            registry,
            seen_pgids: Vec::new(),
        }
    }

    pub fn worktree(&self) -> PathBuf {
        self.repo.path().join(".codiva/worktrees").join(&self.id)
    }

    pub async fn send(&self, text: &str) {
        self.manager
            .send(&self.id, codiva_protocol::UserInput::text(text))
            .await
            .expect("send");
    }

    pub async fn interrupt(&self) {
        self.manager.interrupt(&self.id).await.expect("interrupt");
    }

    pub async fn respond(&self, request_id: &str, response: PermissionResponse) {
        self.manager
            .respond_permission(&self.id, request_id, response)
            .await
            .expect("respond");
    }

    fn note_pgids(&mut self) {
        for record in self.registry.records().unwrap_or_default() {
            if !self.seen_pgids.contains(&record.pgid) {
                self.seen_pgids.push(record.pgid);
            }
        }
    }

    /// Waits for an event of the session matching `pred` (the ones before are recorded too).
    pub async fn until(
        &mut self,
        what: &str,
        mut pred: impl FnMut(&SessionEvent) -> bool,
    ) -> SessionEvent {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            self.note_pgids();
            match tokio::time::timeout_at(deadline, self.stream.recv()).await {
                Ok(Ok(ManagerEvent::Event { id, event })) if id == self.id => {
                    self.events.push(event.clone());
                    if pred(&event) {
                        return event;
                    }
                }
                Ok(Ok(_)) => {}
                Ok(Err(broadcast::error::RecvError::Lagged(n))) => {
                    panic!("[{}] the test lagged {n} events behind", self.name)
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    panic!(
                        "[{}] the manager stopped while waiting for {what}",
                        self.name
                    )
                }
                Err(_) => panic!(
                    "[{}] timed out waiting for {what}; events so far:\n{}\nwire log:\n{}",
                    self.name,
                    self.dump(),
                    self.wire_log_tail()
                ),
            }
        }
    }

    /// Waits until the session settles and returns the status it settled in.
    pub async fn until_settled(&mut self) -> Status {
        match self
            .until(
                "a settled status",
                |event| matches!(event, SessionEvent::Status { status, .. } if status.is_settled()),
            )
            .await
        {
            SessionEvent::Status { status, .. } => status,
            _ => unreachable!(),
        }
    }

    pub async fn until_status(&mut self, status: Status) {
        self.until(
            &format!("status {status:?}"),
            |event| matches!(event, SessionEvent::Status { status: s, .. } if *s == status),
        )
        .await;
    }

    /// Waits for the next permission prompt.
    pub async fn until_permission(&mut self) -> codiva_protocol::agent::PermissionRequest {
        match self
            .until("a permission prompt", |event| {
                matches!(event, SessionEvent::PromptOpened { .. })
            })
            .await
        {
            SessionEvent::PromptOpened {
                prompt: Prompt::Permission(request),
            } => request,
            other => panic!("[{}] not a permission prompt: {other:?}", self.name),
        }
    }

    pub async fn snapshot(&self) -> SessionSnapshot {
        self.manager.snapshot(&self.id).await.expect("snapshot")
    }

    /// The final version of every main-log entry seen, in order.
    pub fn main_log(&self) -> Vec<LogEntry> {
        crate::support::main_log(&self.events)
    }

    pub fn tools(&self) -> Vec<ToolEntry> {
        crate::support::tools(&self.events)
    }

    pub fn assistant_texts(&self) -> Vec<String> {
        crate::support::assistant_texts(&self.events)
    }

    /// Every streamed piece of text, in order.
    pub fn streamed(&self) -> String {
        crate::support::streamed(&self.events)
    }

    pub fn wire_log_path(&self) -> PathBuf {
        crate::support::wire_log_of(&self.state.path().join("state/wire"), &self.id)
    }

    fn wire_log_tail(&self) -> String {
        let dir = self.state.path().join("state/wire");
        let Some(path) = std::fs::read_dir(dir).ok().and_then(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .next()
        }) else {
            return String::new();
        };
        crate::support::tail(&path)
    }

    pub fn dump(&self) -> String {
        crate::support::dump(&self.events)
    }

    /// Stops the manager and checks what every run must hold: the mock answered every
    /// request and no codex process is left. With `CODIVA_CAPTURE_FIXTURES=1` the sanitised
    /// wire log (both directions) becomes a fixture.
    pub async fn finish(self) {
        self.finish_keeping().await;
    }

    pub async fn finish_keeping(mut self) -> Kept {
        self.note_pgids();
        self.manager.shutdown().await;
        let unmatched = self.mock.unmatched();
        assert!(
            unmatched.is_empty(),
            "[{}] the mock had no rule for {} request(s); last user text: {:?}",
            self.name,
            unmatched.len(),
            unmatched.last().and_then(|r| r.last_user_text())
        );
        assert!(
            !self.seen_pgids.is_empty(),
            "[{}] no codex process ran",
            self.name
        );
        for pgid in &self.seen_pgids {
            let alive = codiva_testkit::ProcessGroupGuard::new(Some(*pgid)).live_members();
            assert!(
                alive.is_empty(),
                "[{}] processes of group {pgid} are still alive: {alive:?}",
                self.name
            );
        }
        assert!(
            self.registry.records().unwrap_or_default().is_empty(),
            "[{}] the child registry still lists processes",
            self.name
        );
        if std::env::var_os("CODIVA_CAPTURE_FIXTURES").is_some() {
            crate::fixtures::capture_both(
                &self.fixture_dir,
                self.name,
                &self.wire_log_path(),
                &[
                    (&self.worktree(), "<CWD>"),
                    (self.repo.path(), "<REPO>"),
                    (self.sandbox.home.path(), "<HOME>"),
                    (self.sandbox.tmp.path(), "<TMPDIR>"),
                ],
                &self.mock.url(),
            );
        }
        Kept {
            sandbox: self.sandbox,
            repo: self.repo,
            state: self.state,
        }
    }
}
