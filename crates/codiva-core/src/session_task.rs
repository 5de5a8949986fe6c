//! The generic task behind a session, the same for every provider: it owns the agent process
//! (through `process::spawn`), its stdin, the process epochs, restarts (resuming through the
//! provider), the interrupt grace and fence, stop escalation, the wire log, and the
//! [`SessionState`] reducer that the provider's events feed. The provider's [`Connection`]
//! only translates: lines in, events and lines out. Front ends talk to the task over channels.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use codiva_protocol::UserInput;
use codiva_protocol::agent::{NoteLevel, QuestionResponse};
use codiva_protocol::log::NoteCode;
use codiva_protocol::session::{Prompt, PromptResolution, SessionEvent};
use codiva_protocol::tool::{PermissionMode, PermissionOptionKind};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::agent_event::{AgentEvent, TurnOutcome};
use crate::process::{self, EnvPolicy, ExitInfo, ProcessControl, ReadLine, SpawnSpec, StdinWriter};
use crate::provider::{Connection, Launch, OutLine, Provider};
use crate::session::{
    AnswerError, PermissionResponse, SessionCommand, SessionConfig, SessionHandle,
};
use crate::session_state::{Input, SessionState};
use crate::wire_log::{Direction, WireLog};

/// How long an interrupted turn may take to end before the process is stopped.
const INTERRUPT_GRACE: Duration = Duration::from_secs(10);
/// How long a stopping process may take after stdin closed before it is signalled.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
const TICK: Duration = Duration::from_secs(15);
/// Events buffered towards a slow front end before the session waits for it.
const EVENT_BUFFER: usize = 1024;

/// Starts a session; `first` is sent as soon as the process runs.
pub fn start(config: SessionConfig, first: Option<UserInput>) -> SessionHandle {
    start_with_state(config, first, SessionState::new())
}

/// Starts a session task from an existing state (a session restored from disk). Without
/// `first`, no process runs until the first message, which resumes the agent session.
pub fn start_with_state(
    config: SessionConfig,
    first: Option<UserInput>,
    state: SessionState,
) -> SessionHandle {
    let (command_tx, command_rx) = mpsc::unbounded_channel();
    let (event_tx, event_rx) = mpsc::channel(EVENT_BUFFER);
    let mut driver = Driver::new(config, event_tx);
    driver.state = state;
    let task = tokio::spawn(driver.run(command_rx, first));
    SessionHandle::new(command_tx, event_rx, task)
}

mod idle;
mod per_turn;
mod policy;
mod reader;
mod texts;

use texts::{echo_text, sent_texts};

type SharedWireLog = Arc<Mutex<WireLog>>;

enum FromAgent {
    /// Every line one read brought in (see `reader`).
    Lines { epoch: u64, lines: Vec<ReadLine> },
    Exited {
        epoch: u64,
        info: ExitInfo,
        stderr: String,
    },
}

struct Live {
    /// `None` once closed (the process is stopping).
    stdin: Option<StdinWriter>,
    control: ProcessControl,
    connection: Box<dyn Connection>,
}

struct Driver {
    config: SessionConfig,
    events: mpsc::Sender<SessionEvent>,
    /// How many events were sent on `events`.
    sent: u64,
    state: SessionState,
    started: Instant,
    live: Option<Live>,
    epoch: u64,
    stopping: bool,
    restarts: u32,
    model: Option<String>,
    permission_mode: Option<PermissionMode>,
    interrupt_deadline: Option<Instant>,
    /// User messages written to the current process (resent if it could not resume).
    written: Vec<UserInput>,
    /// The current process resumes a conversation whose id was learned from the agent.
    resumed_learned_id: bool,
    /// The current process reported that its resume failed; it exits by itself.
    resume_failed: bool,
    /// Goes before the next message (the handover after a switch of agents).
    handover: Option<String>,
    wire: Option<SharedWireLog>,
    /// A wire-log failure not reported yet.
    wire_warning: Option<String>,
    agent_tx: mpsc::Sender<FromAgent>,
    agent_rx: mpsc::Receiver<FromAgent>,
    /// When the idle agent process is stopped (`idle.rs`); `None` while it is not idle.
    idle_deadline: Option<Instant>,
}

impl Driver {
    fn new(config: SessionConfig, events: mpsc::Sender<SessionEvent>) -> Self {
        let mut wire_warning = None;
        let wire = config.wire_log.clone().and_then(|path| {
            match WireLog::open(path.clone(), config.wire_log_cap) {
                Ok(log) => Some(Arc::new(Mutex::new(log))),
                Err(err) => {
                    tracing::warn!(path = %path.display(), %err, "cannot open the wire log");
                    wire_warning = Some(format!(
                        "the wire log {} cannot be opened ({err}); the session runs without one",
                        path.display()
                    ));
                    None
                }
            }
        });
        let (agent_tx, agent_rx) = mpsc::channel(256);
        Driver {
            model: config.model.clone(),
            permission_mode: config.permission_mode,
            config,
            events,
            sent: 0,
            state: SessionState::new(),
            started: Instant::now(),
            live: None,
            epoch: 0,
            stopping: false,
            restarts: 0,
            interrupt_deadline: None,
            written: Vec::new(),
            resumed_learned_id: false,
            resume_failed: false,
            handover: None,
            wire,
            wire_warning,
            agent_tx,
            agent_rx,
            idle_deadline: None,
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn apply(&mut self, input: Input) {
        let now = self.now_ms();
        self.state.apply(now, input);
    }

    async fn flush(&mut self) {
        let failed = self
            .wire
            .as_ref()
            .and_then(|wire| wire.lock().ok().and_then(|mut wire| wire.take_failure()));
        if let Some(message) = self.wire_warning.take().or(failed) {
            let _ = self.events.send(SessionEvent::Warning { message }).await;
            self.sent += 1;
        }
        for event in self.state.drain_events() {
            // A front end that went away must not stop the session from cleaning up.
            let _ = self.events.send(event).await;
            self.sent += 1;
        }
    }

    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<SessionCommand>,
        first: Option<UserInput>,
    ) {
        if let Some(first) = first {
            self.send_user(first).await;
        }
        // What the first message did goes out now (an agent that could not start is `failed`
        // at once, not at the next tick).
        self.flush().await;
        let mut tick = tokio::time::interval(TICK);
        tick.tick().await;
        self.update_idle(false);
        loop {
            let idle_deadline = self.idle_deadline;
            let mut active = true;
            tokio::select! {
                command = commands.recv() => match command {
                    None | Some(SessionCommand::Shutdown) => break,
                    Some(command) => {
                        // Reading the session is not using its agent.
                        active = idle::uses_agent(&command);
                        self.command(command).await;
                    }
                },
                Some(message) = self.agent_rx.recv() => self.on_agent_message(message).await,
                _ = tick.tick() => {
                    active = false;
                    self.apply(Input::Tick);
                    self.check_interrupt_deadline().await;
                }
                _ = idle::sleep_until(idle_deadline), if idle_deadline.is_some() => {
                    self.idle_stop().await;
                }
            }
            self.flush().await;
            self.update_idle(active);
        }
        self.shutdown().await;
        self.flush().await;
        self.unpublish_pid();
    }

    // -- commands -----------------------------------------------------------------------------

    async fn command(&mut self, command: SessionCommand) {
        match command {
            SessionCommand::Send(input) => self.send_user(input).await,
            SessionCommand::NotSent(inputs) => {
                for input in &inputs {
                    self.apply(Input::Agent(idle::not_sent_note(input)));
                }
            }
            SessionCommand::Interrupt => self.interrupt().await,
            SessionCommand::RespondPermission {
                request_id,
                response,
                reply,
            } => {
                let result = self.respond_permission(request_id, response).await;
                answer(reply, result);
            }
            SessionCommand::AnswerQuestion {
                request_id,
                response,
                reply,
            } => {
                let result = self.answer_question(request_id, response).await;
                answer(reply, result);
            }
            SessionCommand::SetModel(model) => {
                self.model = model.clone();
                if let Some(live) = self.live.as_mut() {
                    let lines = live.connection.set_model(model.as_deref());
                    self.write_all(lines).await;
                }
            }
            SessionCommand::SetPermissionMode(mode) => {
                self.permission_mode = Some(mode);
                if let Some(live) = self.live.as_mut() {
                    let lines = live.connection.set_permission_mode(mode);
                    self.write_all(lines).await;
                }
            }
            SessionCommand::SetApprovalPolicy(policy) => self.set_approval_policy(policy).await,
            SessionCommand::McpReconnect(server) => {
                if let Some(live) = self.live.as_mut() {
                    let lines = live.connection.mcp_reconnect(&server);
                    self.write_all(lines).await;
                }
            }
            SessionCommand::Snapshot(reply) => {
                let _ = reply.send(self.state.snapshot());
            }
            SessionCommand::SnapshotCounted(reply) => {
                self.flush().await;
                let _ = reply.send((self.state.snapshot(), self.sent));
            }
            SessionCommand::ReadLog {
                scope,
                after,
                limit,
                reply,
            } => {
                let _ = reply.send(self.state.read_log(&scope, after, limit));
            }
            SessionCommand::Note { level, text, code } => {
                self.apply(Input::Agent(AgentEvent::Note { level, text, code }));
            }
            SessionCommand::CloseInput => {
                if let Some(live) = self.live.as_mut()
                    && let Some(mut stdin) = live.stdin.take()
                {
                    self.stopping = true;
                    stdin.close().await;
                }
            }
            SessionCommand::SwitchAgent {
                provider,
                resume,
                handover,
            } => self.switch_agent(provider, resume, handover).await,
            SessionCommand::Shutdown => {}
        }
    }

    /// Stops the current agent and goes on with `provider` (see [`SessionCommand::SwitchAgent`]):
    /// lines of the stopped process are fenced by the epoch like any restart's.
    async fn switch_agent(
        &mut self,
        provider: Arc<dyn Provider>,
        resume: Option<String>,
        handover: Option<String>,
    ) {
        self.stop_process().await;
        let from = self.config.provider.display_name().to_owned();
        let to = provider.display_name().to_owned();
        // A model is one agent's; a mode the new agent lacks is dropped.
        self.model = None;
        self.config.model = None;
        if let Some(mode) = self.permission_mode
            && provider.check_permission_mode("mode", mode).is_err()
        {
            self.permission_mode = None;
        }
        self.config.permission_mode = self.permission_mode;
        self.config.resume = resume.clone();
        self.config.provider = provider;
        self.written.clear();
        self.restarts = 0;
        self.resume_failed = false;
        self.handover = handover;
        self.apply(Input::AgentSwitched {
            from,
            to,
            resume,
            permission_mode: self.permission_mode,
        });
    }

    /// `input` with the pending handover (after a switch of agents) before it, once.
    fn with_handover(&mut self, mut input: UserInput) -> UserInput {
        if let Some(handover) = self.handover.take() {
            input.context = Some(handover);
        }
        input
    }

    async fn send_user(&mut self, input: UserInput) {
        let input = self.with_handover(input);
        if self.config.provider.process_per_turn() {
            return self.send_per_turn(input).await;
        }
        if self.live.as_ref().is_some_and(|live| live.stdin.is_none()) {
            // The agent's input was closed; it is on its way out. Let it finish, then resume.
            self.stop_process().await;
        }
        if self.live.is_none() && !self.spawn_resuming().await {
            return;
        }
        let (text, echo) = sent_texts(&input);
        self.write_input(&input).await;
        self.written.push(input);
        self.apply(Input::UserSent { text, echo });
    }

    /// Starts a process that continues the session's conversation, if it has one.
    async fn spawn_resuming(&mut self) -> bool {
        let learned = self.state.agent_session_id().map(str::to_owned);
        let resume = learned.clone().or_else(|| self.config.resume.clone());
        let spawned = self.spawn_process(resume, None).await;
        self.resumed_learned_id = learned.is_some();
        spawned
    }

    async fn interrupt(&mut self) {
        if self.live.is_none() || !self.state.turn_open() {
            return;
        }
        if self.config.provider.process_per_turn() {
            return self.interrupt_per_turn().await;
        }
        self.write_interrupt().await;
        self.apply(Input::InterruptRequested);
        // Only a turn that runs can be held to the grace: a message the agent has not taken
        // up yet is not stopped by an interrupt (the CLI runs it afterwards).
        if self.state.turn_running() {
            self.interrupt_deadline = Some(Instant::now() + INTERRUPT_GRACE);
        }
    }

    /// The pending prompt `request_id` if it is of the `expected` kind; nothing is written.
    fn pending_prompt(
        &self,
        request_id: &str,
        expected: &'static str,
    ) -> Result<Prompt, AnswerError> {
        let prompt = self
            .state
            .prompt(request_id)
            .cloned()
            .ok_or_else(|| AnswerError::NoSuchPrompt(request_id.to_owned()))?;
        let actual = match &prompt {
            Prompt::Permission(_) => "permission",
            Prompt::Question(_) => "question",
        };
        if actual != expected {
            return Err(AnswerError::WrongKind {
                request_id: request_id.to_owned(),
                expected,
                actual,
            });
        }
        Ok(prompt)
    }

    async fn respond_permission(
        &mut self,
        request_id: String,
        response: PermissionResponse,
    ) -> Result<(), AnswerError> {
        let Prompt::Permission(request) = self.pending_prompt(&request_id, "permission")? else {
            return Err(AnswerError::NoSuchPrompt(request_id));
        };
        let (option, message) = response.resolve(&request)?;
        let (resolution, stop) = match option.kind {
            PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways => {
                (PromptResolution::Allowed, false)
            }
            PermissionOptionKind::Deny => (PromptResolution::Denied, false),
            PermissionOptionKind::DenyAndStop => (PromptResolution::Denied, true),
        };
        if let Some(live) = self.live.as_mut() {
            let lines = live
                .connection
                .answer_permission(&request, option, message.as_deref());
            self.write_all(lines).await;
        }
        self.apply(Input::PromptAnswered {
            request_id,
            resolution,
        });
        if stop {
            self.apply(Input::InterruptRequested);
            self.interrupt_deadline = Some(Instant::now() + INTERRUPT_GRACE);
        }
        Ok(())
    }

    async fn answer_question(
        &mut self,
        request_id: String,
        response: QuestionResponse,
    ) -> Result<(), AnswerError> {
        let Prompt::Question(request) = self.pending_prompt(&request_id, "question")? else {
            return Err(AnswerError::NoSuchPrompt(request_id));
        };
        let resolution = match response {
            QuestionResponse::Answers(_) => PromptResolution::Answered,
            QuestionResponse::Decline { .. } => PromptResolution::Declined,
        };
        if let Some(live) = self.live.as_mut() {
            let lines = live.connection.answer_question(&request, &response);
            self.write_all(lines).await;
        }
        self.apply(Input::PromptAnswered {
            request_id,
            resolution,
        });
        Ok(())
    }

    // -- the process --------------------------------------------------------------------------

    async fn spawn_process(&mut self, resume: Option<String>, input: Option<UserInput>) -> bool {
        self.epoch += 1;
        self.stopping = false;
        self.written.clear();
        self.resume_failed = false;
        self.resumed_learned_id = false;
        let launch = Launch {
            model: self.model.clone(),
            permission_mode: self.permission_mode,
            resume,
            append_system_prompt: self.config.append_system_prompt.clone(),
            input,
            cwd: self.config.cwd.clone(),
            extras: self.config.extras.clone(),
        };
        let provider = self.config.provider.clone();
        let command = provider.command(&launch);
        let connection = provider.connect(&launch);
        let mut env = self.config.env.clone();
        match &mut env {
            EnvPolicy::Inherit { set, .. } | EnvPolicy::Exact(set) => {
                set.extend(command.env);
            }
        }
        let spec = SpawnSpec {
            program: command.program,
            args: command.args,
            cwd: self.config.cwd.clone(),
            env,
            label: provider.id().to_owned(),
        };
        let spawned = process::spawn(spec, self.config.registry.as_deref()).await;
        let agent = match spawned {
            Ok(agent) => agent,
            Err(err) => {
                self.apply(Input::SpawnFailed {
                    message: format!("cannot start {}: {err}", provider.display_name()),
                });
                return false;
            }
        };
        tokio::spawn(reader::read_agent(
            agent.stdout,
            agent.control.clone(),
            self.epoch,
            self.agent_tx.clone(),
            self.wire.clone(),
        ));
        self.live = Some(Live {
            stdin: Some(agent.stdin),
            control: agent.control,
            connection,
        });
        self.apply(Input::ProcessStarted);
        if let Some(live) = self.live.as_mut() {
            let lines = live.connection.opening();
            self.write_all(lines).await;
        }
        true
    }

    async fn write_input(&mut self, input: &UserInput) {
        if let Some(live) = self.live.as_mut() {
            let lines = live.connection.send(input);
            self.write_all(lines).await;
        }
    }

    async fn write_interrupt(&mut self) {
        if let Some(live) = self.live.as_mut() {
            let lines = live.connection.interrupt();
            self.write_all(lines).await;
        }
    }

    /// The only path to the agent's stdin: one line at a time, each logged.
    async fn write_all(&mut self, lines: Vec<OutLine>) {
        for line in lines {
            if let Some(wire) = &self.wire
                && let Ok(mut wire) = wire.lock()
            {
                let kept = self.config.extras.redact(line.as_str());
                wire.write(Direction::ToAgent, kept.as_bytes());
                wire.flush();
            }
            let Some(stdin) = self.live.as_mut().and_then(|live| live.stdin.as_mut()) else {
                return;
            };
            if let Err(err) = stdin.write_line(line.as_str()).await {
                // The process is going away; its exit is reported by the reader.
                tracing::debug!(%err, "write to the agent failed");
            }
        }
    }

    async fn on_agent_message(&mut self, message: FromAgent) {
        match message {
            FromAgent::Lines { epoch, lines } if epoch == self.epoch => {
                for line in lines {
                    if epoch != self.epoch {
                        // Fenced off like any line of an earlier process.
                        break;
                    }
                    match line {
                        ReadLine::Line(line) => self.agent_line(&line).await,
                        ReadLine::Oversized { bytes } => self.oversized(bytes),
                    }
                    self.state.settle_status();
                }
            }
            FromAgent::Exited {
                epoch,
                info,
                stderr,
            } if epoch == self.epoch => self.exited(info, stderr).await,
            // Anything from an earlier process is fenced off.
            _ => {}
        }
    }

    fn oversized(&mut self, bytes: u64) {
        self.apply(Input::Agent(AgentEvent::Note {
            level: NoteLevel::Warning,
            text: format!("skipped a line of {bytes} bytes from the agent (over the limit)"),
            code: Some(NoteCode::new(
                codiva_protocol::log::NoteName::OversizedLine,
                &[&bytes.to_string()],
            )),
        }));
    }

    /// Tells the state machine the process ended, how, and whether codiva asked it to.
    fn report_exit(&mut self, info: ExitInfo, stderr: String, requested: bool) {
        let (code, signal) = match info {
            ExitInfo::Code(code) => (Some(code), None),
            ExitInfo::Signal(signal) => (None, Some(signal)),
            ExitInfo::Unknown => (None, None),
        };
        self.apply(Input::ProcessExited {
            code,
            signal,
            stderr_tail: stderr,
            requested,
        });
    }

    async fn agent_line(&mut self, line: &[u8]) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let received = match live.connection.receive(line) {
            Ok(received) => received,
            Err(error) => {
                tracing::warn!(%error, "unreadable line from the agent");
                self.apply(Input::Agent(AgentEvent::Note {
                    level: NoteLevel::Warning,
                    text: format!("skipped an unreadable line from the agent ({error})"),
                    code: Some(NoteCode::new(
                        codiva_protocol::log::NoteName::UnreadableLine,
                        &[&error.to_string()],
                    )),
                }));
                return;
            }
        };
        self.write_all(received.replies).await;
        if received.close_input
            && let Some(live) = self.live.as_mut()
            && let Some(mut stdin) = live.stdin.take()
        {
            self.stopping = true;
            stdin.close().await;
        }
        let events = received.events;
        for event in events {
            match event {
                AgentEvent::PermissionRequest(request) if self.state.current_turn_cancelled() => {
                    self.deny_late(request.request_id).await;
                }
                AgentEvent::QuestionRequest(request) if self.state.current_turn_cancelled() => {
                    self.deny_late(request.request_id).await;
                }
                AgentEvent::PermissionRequest(request) => match self.policy_allows(&request) {
                    Some(reason) => self.allow_by_policy(request, reason).await,
                    None => self.apply(Input::Agent(AgentEvent::PermissionRequest(request))),
                },
                AgentEvent::TurnEnded(end) => {
                    if end.outcome == TurnOutcome::Completed {
                        self.restarts = 0;
                    }
                    self.apply(Input::Agent(AgentEvent::TurnEnded(end)));
                    // The interrupted turn ended: the grace is over, also when a message
                    // still waits for a turn of its own (it runs unhurried).
                    self.interrupt_deadline = None;
                }
                AgentEvent::ResumeFailed { message } => self.resume_failed(message),
                event => self.apply(Input::Agent(event)),
            }
        }
    }

    fn resume_failed(&mut self, message: String) {
        if self.resumed_learned_id {
            // Our own conversation is gone (the agent died before writing it): start afresh
            // once this process has exited, and send again what it never read.
            self.resume_failed = true;
            self.config.resume = None;
            self.apply(Input::Agent(AgentEvent::ResumeFailed { message }));
            self.apply(Input::ForgetAgentSession);
        } else {
            // The id the user asked for does not exist: say so, do not guess.
            self.config.resume = None;
            self.apply(Input::Agent(AgentEvent::TurnEnded(
                crate::agent_event::TurnEnd::failed(message),
            )));
        }
    }

    /// A prompt of a turn the user already stopped: refuse it without asking anyone.
    async fn deny_late(&mut self, request_id: String) {
        if let Some(live) = self.live.as_mut() {
            let lines = live
                .connection
                .refuse(&request_id, "The user interrupted this turn.");
            self.write_all(lines).await;
        }
    }

    async fn exited(&mut self, info: ExitInfo, stderr: String) {
        if self.config.provider.process_per_turn() {
            return self.exited_per_turn(info, stderr);
        }
        let requested = self.stopping;
        self.live = None;
        self.interrupt_deadline = None;
        if self.resume_failed {
            self.resume_failed = false;
            let unread = std::mem::take(&mut self.written);
            if !unread.is_empty() && self.spawn_process(None, None).await {
                for input in unread {
                    let echo = echo_text(&input);
                    self.write_input(&input).await;
                    self.written.push(input);
                    self.apply(Input::UserResent { echo });
                }
                return;
            }
            self.stopping = true;
        }
        let requested = requested || self.stopping;
        self.report_exit(info, stderr, requested);
        if requested {
            return;
        }
        if self.state.agent_session_id().is_none() {
            return;
        }
        if self.restarts >= self.config.max_restarts {
            self.apply(Input::Agent(AgentEvent::Note {
                level: NoteLevel::Warning,
                text: format!(
                    "the agent exited {} times in a row; it starts again on the next message",
                    self.restarts + 1
                ),
                code: Some(NoteCode::new(
                    codiva_protocol::log::NoteName::RestartLimit,
                    &[&(self.restarts + 1).to_string()],
                )),
            }));
            return;
        }
        self.restarts += 1;
        self.apply(Input::Agent(AgentEvent::Note {
            level: NoteLevel::Info,
            text: format!(
                "restarting the agent ({}/{})",
                self.restarts, self.config.max_restarts
            ),
            code: Some(NoteCode::new(
                codiva_protocol::log::NoteName::Restarting,
                &[
                    &self.restarts.to_string(),
                    &self.config.max_restarts.to_string(),
                ],
            )),
        }));
        self.flush().await;
        self.spawn_resuming().await;
    }

    async fn check_interrupt_deadline(&mut self) {
        let Some(deadline) = self.interrupt_deadline else {
            return;
        };
        if Instant::now() < deadline || !self.state.turn_open() {
            return;
        }
        self.interrupt_deadline = None;
        self.apply(Input::Agent(AgentEvent::Note {
            level: NoteLevel::Warning,
            text: "the agent did not stop after the interrupt; stopping its process".to_owned(),
            code: Some(NoteCode::new(
                codiva_protocol::log::NoteName::StopAfterInterrupt,
                &[],
            )),
        }));
        self.stop_process().await;
    }

    /// Stops the live process (graceful, then escalating) and applies everything it wrote
    /// before it ended, then its exit.
    async fn stop_process(&mut self) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        self.stopping = true;
        let stdin = live.stdin.take();
        let control = live.control.clone();
        control.shutdown(stdin, SHUTDOWN_GRACE).await;
        let epoch = self.epoch;
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_secs(5), self.agent_rx.recv()).await
        {
            let last = matches!(message, FromAgent::Exited { epoch: e, .. } if e == epoch);
            self.on_agent_message(message).await;
            if last {
                break;
            }
        }
        self.live = None;
        self.stopping = false;
    }

    async fn shutdown(&mut self) {
        if self.live.is_none() {
            return;
        }
        if self.state.turn_open() {
            self.write_interrupt().await;
            self.apply(Input::InterruptRequested);
        }
        self.stop_process().await;
    }
}

/// Answers a caller that waits for the answer (`None`: the caller does not).
fn answer(
    reply: Option<oneshot::Sender<Result<(), AnswerError>>>,
    result: Result<(), AnswerError>,
) {
    if let Some(reply) = reply {
        let _ = reply.send(result);
    }
}
