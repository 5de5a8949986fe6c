//! Runs an ACP agent through codiva's Manager (an `AcpProvider` from a preset, an allowlisted
//! environment pointing the agent at the mock model API) on a temp repository, and records
//! every event of the session.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use codiva_core::acp::{AcpAgent, AcpProvider};
use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::session::PermissionResponse;
use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::log::{LogEntry, ToolEntry};
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::{Prompt, SessionEvent, SessionSnapshot, Status};
use codiva_testkit::{
    AgentSandbox, MockServer, Script, TestRepo, acp_agent_binary, claude_code_acp_binary,
    codex_acp_binary, gemini_binary,
};
use tokio::sync::broadcast;

/// Generous: claude-code-acp takes up to 12 s to open a session on a busy machine.
const WAIT: Duration = Duration::from_secs(90);

/// Which agent a run drives (each by its preset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    CodexAcp,
    /// codex-acp with a `config.toml` that names no approval policy or sandbox (a user who
    /// never configured codex).
    CodexAcpUnconfigured,
    ClaudeCodeAcp,
    /// Gemini CLI 0.61.0 (mock Gemini API).
    Gemini,
    /// The project's scripted agent (no model server needed; the mock stays idle).
    Scripted,
    /// The scripted agent listing the sessions of the sandbox home's `acp-sessions.json`
    /// (`session/list`), noting what reaches it in `acp-seen.txt`.
    ScriptedListing,
    /// The scripted agent with a login (kept in the sandbox home's `scripted-login`) that
    /// `session/new` requires.
    ScriptedLogin,
}

impl Which {
    pub fn agent(
        self,
        sandbox: &AgentSandbox,
        mock_url: &str,
    ) -> (AcpAgent, Vec<(String, String)>) {
        match self {
            Which::CodexAcp => (
                AcpAgent::codex_acp(codex_acp_binary()),
                sandbox.codex_acp_env(mock_url).expect("codex-acp env"),
            ),
            Which::CodexAcpUnconfigured => (
                AcpAgent::codex_acp(codex_acp_binary()),
                sandbox
                    .codex_acp_env_unconfigured(mock_url)
                    .expect("codex-acp env"),
            ),
            Which::ClaudeCodeAcp => (
                AcpAgent::claude_code_acp(claude_code_acp_binary()),
                sandbox.claude_env(mock_url),
            ),
            Which::Gemini => (
                AcpAgent::gemini(gemini_binary()),
                sandbox.gemini_env(mock_url).expect("gemini env"),
            ),
            Which::ScriptedListing => {
                let (agent, mut env) = Which::Scripted.agent(sandbox, mock_url);
                let home = sandbox.home.path();
                env.push((
                    "CODIVA_ACP_AGENT_SESSIONS".into(),
                    home.join("acp-sessions.json").display().to_string(),
                ));
                env.push((
                    "CODIVA_ACP_AGENT_SEEN".into(),
                    home.join("acp-seen.txt").display().to_string(),
                ));
                (agent, env)
            }
            Which::ScriptedLogin => {
                let (agent, mut env) = Which::Scripted.agent(sandbox, mock_url);
                let login = sandbox.home.path().join("scripted-login");
                env.push(("CODIVA_ACP_AGENT_AUTH".into(), login.display().to_string()));
                env.push(("CODIVA_ACP_AGENT_REQUIRE_AUTH".into(), "1".into()));
                (agent, env)
            }
            Which::Scripted => (
                AcpAgent::custom(
                    "scripted-acp",
                    "Scripted ACP agent",
                    acp_agent_binary(),
                    Vec::new(),
                ),
                sandbox
                    .claude_env(mock_url)
                    .into_iter()
                    .filter(|(key, _)| matches!(key.as_str(), "PATH" | "HOME" | "TMPDIR" | "LANG"))
                    .collect(),
            ),
        }
    }
}

pub struct Run {
    pub mock: MockServer,
    pub sandbox: AgentSandbox,
    pub repo: TestRepo,
    pub state: tempfile::TempDir,
    pub manager: Manager,
    pub id: String,
    pub events: Vec<SessionEvent>,
    pub name: &'static str,
    which: Which,
    stream: codiva_core::manager::EventReceiver,
    registry: ChildRegistry,
    seen_pgids: Vec<u32>,
}

/// What a later run keeps of an earlier one (load in a new process).
pub struct Kept {
    pub sandbox: AgentSandbox,
    pub repo: TestRepo,
    pub state: tempfile::TempDir,
}

impl Run {
    /// A manager on a new repository; its first session starts with `prompt`.
    pub async fn start(name: &'static str, which: Which, script: Script, prompt: &str) -> Run {
        Run::start_with(name, which, script, prompt, None).await
    }

    /// [`Run::start`] with the repository's `.codiva/prompt.md` (codiva's part of the system
    /// prompt) holding `prompt_md`.
    pub async fn start_with(
        name: &'static str,
        which: Which,
        script: Script,
        prompt: &str,
        prompt_md: Option<&str>,
    ) -> Run {
        let options = CreateOptions {
            prompt: prompt.to_owned(),
            ..CreateOptions::default()
        };
        Run::start_full(name, which, script, options, prompt_md, Default::default()).await
    }

    /// [`Run::start_with`] with the session's own create options (MCP servers, …).
    pub async fn start_with_options(
        name: &'static str,
        which: Which,
        script: Script,
        options: CreateOptions,
        prompt_md: Option<&str>,
    ) -> Run {
        Run::start_full(name, which, script, options, prompt_md, Default::default()).await
    }

    /// [`Run::start`] with the manager's budget (`agent_idle_stop`, …) set to `budget`.
    pub async fn start_budget(
        name: &'static str,
        which: Which,
        script: Script,
        prompt: &str,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let options = CreateOptions {
            prompt: prompt.to_owned(),
            ..CreateOptions::default()
        };
        Run::start_full(name, which, script, options, None, budget).await
    }

    async fn start_full(
        name: &'static str,
        which: Which,
        script: Script,
        options: CreateOptions,
        prompt_md: Option<&str>,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let kept = Kept {
            sandbox: AgentSandbox::new().expect("sandbox"),
            repo: TestRepo::new().expect("test repo"),
            state: tempfile::tempdir().expect("state dir"),
        };
        if let Some(text) = prompt_md {
            let dir = kept.repo.path().join(".codiva");
            std::fs::create_dir_all(&dir).expect(".codiva");
            std::fs::write(dir.join("prompt.md"), text).expect("prompt.md");
        }
        let mut run = Run::manager(name, which, script, kept, budget).await;
        let info = run.manager.create(options).await.expect("create a session");
        run.id = info.id;
        run
    }

    /// A new manager (a new agent process) over what an earlier run kept: its session is
    /// restored and loads the agent's conversation on the next message.
    pub async fn resume(
        name: &'static str,
        which: Which,
        script: Script,
        kept: Kept,
        id: &str,
    ) -> Run {
        let mut run = Run::manager(name, which, script, kept, Default::default()).await;
        run.id = id.to_owned();
        run
    }

    async fn manager(
        name: &'static str,
        which: Which,
        script: Script,
        kept: Kept,
        budget: codiva_core::manager::BudgetOptions,
    ) -> Run {
        let mock = MockServer::start(script).expect("mock server");
        let registry =
            ChildRegistry::open(kept.state.path().join("children")).expect("child registry");
        let (agent, env) = which.agent(&kept.sandbox, &mock.url());
        let (manager, _) = Manager::start(ManagerOptions {
            checks: Default::default(),
            cwd: kept.repo.path().to_path_buf(),
            providers: codiva_core::provider::Providers::one(Arc::new(AcpProvider::new(agent))),
            env: EnvPolicy::Exact(env),
            state_dir: kept.state.path().join("state"),
            registry: Some(registry.clone()),
            model: None,
            permission_mode: None,
            fetch_base: false,
            ignored_files: IgnoredMode::None,
            ignored_files_exclude: Vec::new(),
            max_restarts: 0,
            wire_log_cap: 256 * 1024 * 1024,
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
            which,
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

    pub async fn answer(&self, request_id: &str, response: QuestionResponse) {
        self.manager
            .answer_question(&self.id, request_id, response)
            .await
            .expect("answer");
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
                    "[{}] timed out waiting for {what}; events so far:\n{}",
                    self.name,
                    self.dump()
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

    /// Waits until the session settles and checks that it settled in `expected`.
    pub async fn settles(&mut self, expected: Status) {
        let status = self.until_settled().await;
        assert_eq!(
            status,
            expected,
            "[{}] settled {status:?}; events:\n{}\nmodel requests:\n{}",
            self.name,
            self.dump(),
            self.mock
                .requests()
                .iter()
                .map(|r| format!(
                    "{} {} model={:?} last user text={:?}",
                    r.method,
                    r.path,
                    r.model(),
                    r.last_user_text()
                        .map(|t| t.chars().take(200).collect::<String>())
                ))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    pub async fn until_status(&mut self, status: Status) {
        self.until(
            &format!("status {status:?}"),
            |event| matches!(event, SessionEvent::Status { status: s, .. } if *s == status),
        )
        .await;
    }

    /// Waits for the next prompt (permission or question).
    pub async fn until_prompt(&mut self) -> Prompt {
        match self
            .until("a prompt", |event| {
                matches!(event, SessionEvent::PromptOpened { .. })
            })
            .await
        {
            SessionEvent::PromptOpened { prompt } => prompt,
            _ => unreachable!(),
        }
    }

    pub async fn until_permission(&mut self) -> codiva_protocol::agent::PermissionRequest {
        match self.until_prompt().await {
            Prompt::Permission(request) => request,
            other => panic!("[{}] not a permission prompt: {other:?}", self.name),
        }
    }

    pub async fn snapshot(&self) -> SessionSnapshot {
        self.manager.snapshot(&self.id).await.expect("snapshot")
    }

    /// The agent's conversation id (once it has started one).
    pub async fn conversation(&self) -> String {
        self.snapshot()
            .await
            .agent_session_id
            .expect("a session id")
    }

    /// The first message after a load in a new process: it runs to completion, only `reply` is
    /// logged (the replayed conversation is not logged again), the conversation is `session`,
    /// and no note says it could not be loaded.
    pub async fn turn_after_load(&mut self, message: &str, reply: &[&str], session: &str) {
        self.send(message).await;
        self.until_status(Status::Running).await;
        self.settles(Status::Completed).await;
        assert_eq!(
            self.assistant_texts(),
            reply,
            "the replayed conversation is not logged again"
        );
        assert_eq!(
            self.snapshot().await.agent_session_id.as_deref(),
            Some(session),
            "the same conversation continues"
        );
        assert!(
            self.main_log().iter().all(|entry| !matches!(
                &entry.kind,
                codiva_protocol::log::EntryKind::Note { text, .. } if text.contains("cannot load")
            )),
            "the conversation loaded"
        );
    }

    /// The final version of every main-log entry seen, in order.
    pub fn main_log(&self) -> Vec<LogEntry> {
        crate::support::main_log(&self.events)
    }

    /// Waits (bounded) until the session's only tool call has `status`: an update the agent
    /// writes after its answer to `session/prompt` arrives after the turn has settled.
    pub async fn until_tool_ended(
        &mut self,
        status: codiva_protocol::log::ToolStatus,
    ) -> ToolEntry {
        loop {
            let tools = self.tools();
            assert_eq!(tools.len(), 1, "[{}] one call: {tools:?}", self.name);
            if tools[0].status == status {
                return tools[0].clone();
            }
            self.until(&format!("the call's status {status:?}"), |_| true)
                .await;
        }
    }

    pub fn tools(&self) -> Vec<ToolEntry> {
        crate::support::tools(&self.events)
    }

    pub fn assistant_texts(&self) -> Vec<String> {
        crate::support::assistant_texts(&self.events)
    }

    pub fn notes(&self) -> Vec<String> {
        crate::support::notes(&self.events)
    }

    /// Every streamed piece of text, in order.
    pub fn streamed(&self) -> String {
        crate::support::streamed(&self.events)
    }

    pub fn wire_log_path(&self) -> PathBuf {
        crate::support::wire_log_of(&self.state.path().join("state/wire"), &self.id)
    }

    pub fn dump(&self) -> String {
        crate::support::dump(&self.events)
    }

    pub async fn finish(self) {
        self.finish_keeping().await;
    }

    /// Stops the manager and checks what every run must hold: the mock answered every
    /// request and no agent process is left (the agents ignore stdin EOF: the session task
    /// must stop them by signal). With `CODIVA_CAPTURE_FIXTURES=1` the sanitised wire log
    /// (both directions) becomes a fixture.
    pub async fn finish_keeping(mut self) -> Kept {
        self.note_pgids();
        self.manager.shutdown().await;
        let unmatched = self.mock.unmatched();
        assert!(
            unmatched.is_empty(),
            "[{}] the mock had no rule for {} request(s): {:?}",
            self.name,
            unmatched.len(),
            unmatched
                .iter()
                .map(|r| r.route().to_owned())
                .collect::<Vec<_>>()
        );
        assert!(
            !self.seen_pgids.is_empty(),
            "[{}] no agent process ran",
            self.name
        );
        for pgid in &self.seen_pgids {
            // The group was SIGKILLed when its leader was reaped; a big process (node) may
            // take a moment to finish dying.
            let guard = codiva_testkit::ProcessGroupGuard::new(Some(*pgid));
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            let mut alive = guard.live_members();
            while !alive.is_empty() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(50)).await;
                alive = guard.live_members();
            }
            let described: Vec<String> = alive
                .iter()
                .map(|pid| {
                    let stat =
                        std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                    let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                        .unwrap_or_default()
                        .replace('\0', " ");
                    format!("{stat} :: {cmdline}")
                })
                .collect();
            assert!(
                alive.is_empty(),
                "[{}] processes of group {pgid} are still alive: {described:?}",
                self.name
            );
        }
        assert!(
            self.registry.records().unwrap_or_default().is_empty(),
            "[{}] the child registry still lists processes",
            self.name
        );
        if std::env::var_os("CODIVA_CAPTURE_FIXTURES").is_some()
            && !matches!(
                self.which,
                Which::Scripted | Which::ScriptedLogin | Which::ScriptedListing
            )
        {
            crate::fixtures::capture_both(
                &crate::fixtures::acp_dir(),
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
