//! Runs one session of the real `claude` against a scripted mock model server, in a sandbox
//! (temp HOME/TMPDIR, an allowlisted environment, a temp git repo), and records every event.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use codiva_core::claude::ClaudeProvider;
use codiva_core::process::{ChildRegistry, EnvPolicy};
use codiva_core::session::{PermissionResponse, SessionCommand, SessionConfig, SessionHandle};
use codiva_protocol::UserInput;
use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::log::{LogEntry, ToolEntry};
use codiva_protocol::session::{Prompt, SessionEvent, SessionSnapshot, Status};
use codiva_testkit::{AgentSandbox, MockServer, Script, TestRepo, claude_binary};

/// Generous: the CLI starts in about a second, retries take a few.
const WAIT: Duration = Duration::from_secs(90);

pub struct Run {
    pub mock: MockServer,
    pub sandbox: AgentSandbox,
    pub repo: TestRepo,
    pub session: Option<SessionHandle>,
    pub events: Vec<SessionEvent>,
    pub registry: Arc<ChildRegistry>,
    pub state_dir: tempfile::TempDir,
    pub name: &'static str,
    seen_pgids: Vec<u32>,
}

pub struct Setup {
    pub sandbox: AgentSandbox,
    pub configure: Box<dyn FnOnce(&mut SessionConfig)>,
    /// Run in this repository instead of a new one (resume tests).
    pub repo: Option<TestRepo>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            sandbox: AgentSandbox::new().expect("sandbox"),
            configure: Box::new(|_| {}),
            repo: None,
        }
    }
}

impl Run {
    /// Starts a session whose first message is `first`.
    pub fn start(name: &'static str, script: Script, first: &str) -> Run {
        Run::start_with(name, script, Setup::default(), Some(first))
    }

    pub fn start_with(
        name: &'static str,
        script: Script,
        setup: Setup,
        first: Option<&str>,
    ) -> Run {
        Run::start_scripted(name, |_| script, setup, first)
    }

    /// Like [`Run::start_with`], for scripts that need the repository's path (tool inputs
    /// with absolute file paths).
    pub fn start_scripted(
        name: &'static str,
        make_script: impl FnOnce(&Path) -> Script,
        setup: Setup,
        first: Option<&str>,
    ) -> Run {
        let repo = match setup.repo {
            Some(repo) => repo,
            None => TestRepo::new().expect("test repo"),
        };
        let mock = MockServer::start(make_script(repo.path())).expect("mock server");
        let state_dir = tempfile::tempdir().expect("state dir");
        let registry =
            Arc::new(ChildRegistry::open(state_dir.path().join("children")).expect("registry"));
        let sandbox = setup.sandbox;
        let provider = ClaudeProvider::new(claude_binary(), sandbox.home.path().join(".claude"));
        let mut config = SessionConfig::new(Arc::new(provider), repo.path().to_path_buf());
        config.env = EnvPolicy::Exact(sandbox.claude_env(&mock.url()));
        config.wire_log = Some(state_dir.path().join("wire.log"));
        config.registry = Some(registry.clone());
        (setup.configure)(&mut config);
        let session = codiva_core::session_task::start(config, first.map(UserInput::text));
        Run {
            mock,
            sandbox,
            repo,
            session: Some(session),
            events: Vec::new(),
            registry,
            state_dir,
            name,
            seen_pgids: Vec::new(),
        }
    }

    fn session(&self) -> &SessionHandle {
        self.session.as_ref().expect("session")
    }

    pub fn command(&self, command: SessionCommand) {
        assert!(self.session().send(command), "the session ended early");
    }

    pub fn send(&self, text: &str) {
        self.command(SessionCommand::Send(UserInput::text(text)));
    }

    pub fn interrupt(&self) {
        self.command(SessionCommand::Interrupt);
    }

    pub fn respond(&self, request_id: &str, response: PermissionResponse) {
        self.command(SessionCommand::RespondPermission {
            request_id: request_id.to_owned(),
            response,
            reply: None,
        });
    }

    pub fn answer(&self, request_id: &str, response: QuestionResponse) {
        self.command(SessionCommand::AnswerQuestion {
            request_id: request_id.to_owned(),
            response,
            reply: None,
        });
    }

    fn note_pgids(&mut self) {
        if let Ok(records) = self.registry.records() {
            for record in records {
                if !self.seen_pgids.contains(&record.pgid) {
                    self.seen_pgids.push(record.pgid);
                }
            }
        }
    }

    /// Waits for an event matching `pred` (events before it are recorded too).
    pub async fn until(
        &mut self,
        what: &str,
        mut pred: impl FnMut(&SessionEvent) -> bool,
    ) -> SessionEvent {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            self.note_pgids();
            let next = tokio::time::timeout_at(
                deadline,
                self.session.as_mut().expect("session").next_event(),
            )
            .await;
            match next {
                Ok(Some(event)) => {
                    self.events.push(event.clone());
                    if pred(&event) {
                        return event;
                    }
                }
                Ok(None) => panic!("[{}] session ended while waiting for {what}", self.name),
                Err(_) => panic!(
                    "[{}] timed out waiting for {what}; events so far:\n{}\nmock requests: {}\nwire log:\n{}",
                    self.name,
                    self.dump(),
                    self.mock.requests().len(),
                    self.wire_log_tail()
                ),
            }
        }
    }

    /// Waits until the session reports `status`.
    pub async fn until_status(&mut self, status: Status) {
        self.until(
            &format!("status {status:?}"),
            |event| matches!(event, SessionEvent::Status { status: s, .. } if *s == status),
        )
        .await;
    }

    /// Waits until the session settles (nothing happens until the user acts) and returns the
    /// status it settled in.
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

    pub async fn snapshot(&self) -> SessionSnapshot {
        self.session().snapshot().await.expect("snapshot")
    }

    /// Statuses in the order they were reported.
    pub fn statuses(&self) -> Vec<Status> {
        self.events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Status { status, .. } => Some(*status),
                _ => None,
            })
            .collect()
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

    pub fn streamed_text(&self) -> String {
        let mut text = String::new();
        for event in &self.events {
            if let SessionEvent::Stream { text: delta, reset } = event {
                if *reset {
                    text.clear();
                } else {
                    text.push_str(delta);
                }
            }
        }
        text
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.repo.path().join(name)
    }

    pub fn wire_log_path(&self) -> PathBuf {
        self.state_dir.path().join("wire.log")
    }

    fn wire_log_tail(&self) -> String {
        crate::support::tail(&self.wire_log_path())
    }

    pub fn dump(&self) -> String {
        crate::support::dump(&self.events)
    }

    /// Stops the session and checks what every test must hold: the mock answered every
    /// request, the wire log exists, and no process the session started is alive. With
    /// `CODIVA_CAPTURE_FIXTURES=1` the sanitised agent output becomes a fixture.
    pub async fn finish(self) {
        self.finish_keeping().await;
    }

    /// [`Run::finish`], handing back the sandbox and repository for a later run.
    pub async fn finish_keeping(mut self) -> (AgentSandbox, TestRepo) {
        self.check_finished().await;
        (self.sandbox, self.repo)
    }

    async fn check_finished(&mut self) {
        self.note_pgids();
        if let Some(session) = self.session.take() {
            session.shutdown().await;
        }
        let unmatched = self.mock.unmatched();
        assert!(
            unmatched.is_empty(),
            "[{}] the mock had no rule for {} request(s); last user text: {:?}",
            self.name,
            unmatched.len(),
            unmatched.last().and_then(|r| r.last_user_text())
        );
        assert!(self.wire_log_path().exists(), "no wire log was written");
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
            crate::fixtures::capture(
                self.name,
                &self.wire_log_path(),
                &[
                    (self.repo.path(), "<CWD>"),
                    (self.sandbox.home.path(), "<HOME>"),
                    (self.sandbox.tmp.path(), "<TMPDIR>"),
                ],
                &self.mock.url(),
            );
        }
    }
}

/// The text of a file in the run's repository, if it exists.
pub fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}
