//! Plain `codiva exec`'s transport: a `codiva_client::Client` over one session task in the
//! current directory, in this process. exec talks to it as `--attach` talks to the daemon —
//! `session/create`, `session/interrupt`, the prompt answers, `manager/snapshot`,
//! `session/snapshot` and the sequenced events — so both print and answer on one path
//! (`follow.rs`).
//!
//! Not a session manager, on purpose: exec runs in any directory (no repository needed), beside
//! the UI or the daemon of the same repository (no repository lock), and records nothing — its
//! session is none of the repository's sessions and never shows in the UI. Only its wire log
//! stays, under the state directory like the manager's.
//!
//! A one-shot session: once its turn settles the session ends — its agent is stopped (input
//! closed, then its process group signalled after a short grace: ACP agents do not exit when
//! their input closes) — and then the event stream closes.

use std::sync::{Arc, Mutex, PoisonError};

use codiva_client::{Backend, BoxFuture, Client, ClientError};
use codiva_core::session::{
    AnswerError, PermissionResponse, QuestionResponse, SessionCommand, SessionConfig, SessionHandle,
};
use codiva_core::session_task;
use codiva_protocol::ClientRequest;
use codiva_protocol::UserInput;
use codiva_protocol::manager::{
    ManagerEvent, ManagerSnapshot, SequencedEvent, SessionInfo, SessionPhase,
};
use codiva_protocol::params::{CreateParams, Done, SessionResult};
use codiva_protocol::session::{SessionEvent, SessionSnapshot, Status};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

use codiva_server::rpc::RpcError;

/// The session's id (there is one).
pub const ID: &str = "exec";

/// Events held for a reader that is slow (stdout into a slow pipe) before it lags.
const EVENT_BUFFER: usize = 16 * 1024;

/// The backend (the client's side of it).
struct Backing(Arc<OneSession>);

/// The session; exec keeps a handle for [`OneSession::stop`].
pub struct OneSession {
    state: Mutex<State>,
}

struct State {
    /// The session's settings, resolved by exec (agent, extras, resume, wire log); taken by
    /// `session/create`.
    config: Option<SessionConfig>,
    info: Option<SessionInfo>,
    commands: Option<mpsc::UnboundedSender<SessionCommand>>,
    /// Dropped when the session has ended: subscribers see the stream close.
    events: Option<broadcast::Sender<SequencedEvent>>,
    seq: u64,
    /// The session's state as it ended (`session/snapshot` afterwards).
    last: Option<SessionSnapshot>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    /// What the session's agent can do (as the manager's sessions, what it cannot is refused).
    capabilities: codiva_core::provider::Capabilities,
}

impl OneSession {
    /// A client whose `session/create` starts a session with `config`.
    pub fn client(config: SessionConfig) -> (Client, Arc<OneSession>) {
        let capabilities = config.provider.capabilities();
        let one = Arc::new(OneSession {
            state: Mutex::new(State {
                config: Some(config),
                info: None,
                commands: None,
                events: Some(broadcast::channel(EVENT_BUFFER).0),
                seq: 0,
                last: None,
                stop: None,
                task: None,
                capabilities,
            }),
        });
        (Client::new(Arc::new(Backing(one.clone()))), one)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops the session (if it runs) and waits until its agent is reaped.
    pub async fn stop(&self) {
        let task = {
            let mut state = self.state();
            if let Some(stop) = state.stop.take() {
                let _ = stop.send(());
            }
            state.task.take()
        };
        if let Some(task) = task {
            let _ = task.await;
        }
    }

    /// Sends `event` with the next `seq`, and keeps the session's row current.
    fn emit(&self, event: ManagerEvent) {
        let mut state = self.state();
        if let (
            Some(info),
            ManagerEvent::Event {
                event: SessionEvent::Status { status, detail, .. },
                ..
            },
        ) = (state.info.as_mut(), &event)
        {
            info.status = *status;
            info.detail.clone_from(detail);
        }
        state.seq += 1;
        let seq = state.seq;
        if let Some(events) = &state.events {
            let _ = events.send(SequencedEvent { seq, event });
        }
    }

    fn create(self: &Arc<Self>, params: CreateParams) -> Result<SessionResult, RpcError> {
        let mut state = self.state();
        let Some(mut config) = state.config.take() else {
            return Err(RpcError::invalid_request(
                "codiva exec runs one session; it was created already".to_owned(),
            ));
        };
        if let Some(agent) = &params.agent
            && agent != config.provider.id()
        {
            return Err(RpcError::invalid_field(
                "agent",
                format!("this session's agent is {}", config.provider.id()),
            ));
        }
        // MCP servers and tool rules are the config's: exec resolved them from its flags (the
        // `--mcp-config` file by path, as Claude Code takes it); the params carry the same.
        config.model = params.model.or(config.model);
        config.permission_mode = params.permission_mode.or(config.permission_mode);
        config.approval = params.approval_policy.unwrap_or_default();
        if params.append_system_prompt.is_some() {
            config.append_system_prompt = params.append_system_prompt;
        }
        let info = SessionInfo {
            id: ID.to_owned(),
            title: params.prompt.lines().next().unwrap_or_default().to_owned(),
            prompt: params.prompt.clone(),
            branch: String::new(),
            worktree: config.cwd.clone(),
            base: String::new(),
            phase: SessionPhase::Active,
            status: Status::Starting,
            detail: None,
            detail_code: None,
            agent: config.provider.id().to_owned(),
            agent_session_id: config.resume.clone(),
            model: config.model.clone(),
            cost_usd: None,
            active_ms: 0,
            created_at: unix_ms(),
            pending_prompts: 0,
            todos: Default::default(),
            prs: Default::default(),
            in_place: true,
            mcp_servers: Vec::new(),
            resources: None,
        };
        let input = UserInput::with_images(params.prompt, params.images);
        let session = session_task::start(config, Some(input));
        let (stop_tx, stop_rx) = oneshot::channel();
        state.commands = Some(session.commands());
        state.stop = Some(stop_tx);
        state.info = Some(info.clone());
        state.task = Some(tokio::spawn(self.clone().pump(session, stop_rx)));
        Ok(SessionResult { session: info })
    }

    /// Passes the session's events on and ends the session once its turn has settled (or on
    /// [`OneSession::stop`]).
    ///
    /// A one-shot session has nothing left to do once its turn settled: the session task stops
    /// its agent at once through its one stop path (input closed, a short grace, then the
    /// process group signalled). Agents that exit when their input closes (Claude Code, Codex)
    /// are gone within the grace; ACP agents do not exit on EOF and are stopped. An agent that
    /// already exited (it failed at start) leaves nothing to wait for.
    async fn pump(self: Arc<Self>, mut session: SessionHandle, mut stop: oneshot::Receiver<()>) {
        let mut last = None;
        // The status the session ended with (a turn stopped by `stop` ends after the snapshot).
        let mut ended = None;
        loop {
            tokio::select! {
                event = session.next_event() => {
                    let Some(event) = event else { break };
                    let settled = matches!(
                        &event,
                        SessionEvent::Status { status, .. } if status.is_settled()
                    );
                    if let SessionEvent::Status { status, detail, detail_code } = &event {
                        ended = Some((*status, detail.clone(), detail_code.clone()));
                    }
                    self.emit(ManagerEvent::Event { id: ID.to_owned(), event });
                    if settled && last.is_none() {
                        last = Some(finish(&session));
                    }
                }
                _ = &mut stop, if last.is_none() => {
                    last = Some(finish(&session));
                }
            }
        }
        // Every event was read: the task has ended, its agent reaped.
        if let Some(last) = last {
            let mut last = last.await.ok();
            if let (Some(snapshot), Some((status, detail, detail_code))) = (last.as_mut(), ended) {
                (snapshot.status, snapshot.detail, snapshot.detail_code) =
                    (status, detail, detail_code);
            }
            self.state().last = last;
        }
        let mut state = self.state();
        state.commands = None;
        state.events = None;
    }

    fn send(&self, command: SessionCommand) -> Result<(), RpcError> {
        let state = self.state();
        match &state.commands {
            Some(commands) if commands.send(command).is_ok() => Ok(()),
            _ => Err(RpcError::refused(
                "not_running_agent",
                vec![ID.to_owned()],
                format!("session {ID} is not running an agent"),
            )),
        }
    }

    /// Sends a prompt's answer and waits to hear whether it was taken.
    async fn answer(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<(), AnswerError>>) -> SessionCommand,
    ) -> Result<Done, RpcError> {
        let (tx, rx) = oneshot::channel();
        self.send(make(tx))?;
        match rx.await {
            Ok(Ok(())) => Ok(Done {}),
            Ok(Err(err)) => Err(match err {
                AnswerError::NoSuchPrompt(ref request_id) => RpcError::refused(
                    "no_pending_prompt",
                    vec![request_id.clone()],
                    err.to_string(),
                ),
                AnswerError::WrongKind {
                    ref request_id,
                    expected,
                    ..
                } => RpcError::refused(
                    "wrong_prompt_kind",
                    vec![request_id.clone(), expected.to_owned()],
                    err.to_string(),
                ),
                AnswerError::Invalid(invalid) => {
                    RpcError::from(codiva_core::manager::ManagerError::Invalid(invalid))
                }
            }),
            Err(_) => Err(RpcError::refused(
                "not_running_agent",
                vec![ID.to_owned()],
                format!("session {ID} is not running an agent"),
            )),
        }
    }

    async fn snapshot(&self) -> Result<SessionSnapshot, RpcError> {
        if let Some(last) = self.state().last.clone() {
            return Ok(last);
        }
        let (tx, rx) = oneshot::channel();
        self.send(SessionCommand::Snapshot(tx))?;
        rx.await.map_err(|_| {
            RpcError::refused(
                "not_running_agent",
                vec![ID.to_owned()],
                format!("session {ID} ended"),
            )
        })
    }

    fn checked(&self, session_id: &str) -> Result<(), RpcError> {
        if session_id == ID && self.state().info.is_some() {
            Ok(())
        } else {
            Err(RpcError::from(
                codiva_core::manager::ManagerError::NoSuchSession(session_id.to_owned()),
            ))
        }
    }

    async fn handle(self: Arc<Self>, request: ClientRequest) -> Result<Value, RpcError> {
        fn encode(value: impl serde::Serialize) -> Result<Value, RpcError> {
            serde_json::to_value(value)
                .map_err(|err| RpcError::internal(format!("cannot encode the result: {err}")))
        }
        match request {
            ClientRequest::SessionCreate(params) => encode(self.create(params)?),
            ClientRequest::ManagerSnapshot(_) => {
                let state = self.state();
                encode(ManagerSnapshot {
                    seq: state.seq,
                    sessions: state.info.clone().into_iter().collect(),
                })
            }
            ClientRequest::SessionSnapshot(p) => {
                self.checked(&p.session_id)?;
                encode(self.snapshot().await?)
            }
            ClientRequest::SessionInterrupt(p) => {
                self.checked(&p.session_id)?;
                if !self.state().capabilities.interrupt {
                    let agent = self.state().info.as_ref().map(|info| info.agent.clone());
                    return Err(RpcError::refused(
                        "unsupported_by_agent",
                        vec![agent.unwrap_or_default(), "interrupt".to_owned()],
                        "the agent cannot interrupt a turn".to_owned(),
                    ));
                }
                self.send(SessionCommand::Interrupt)?;
                encode(Done {})
            }
            ClientRequest::SessionRespondPermission(p) => {
                self.checked(&p.session_id)?;
                let response: PermissionResponse = codiva_server::methods::permission_response(&p)?;
                let request_id = p.request_id;
                encode(
                    self.answer(|reply| SessionCommand::RespondPermission {
                        request_id,
                        response,
                        reply: Some(reply),
                    })
                    .await?,
                )
            }
            ClientRequest::SessionAnswerQuestion(p) => {
                self.checked(&p.session_id)?;
                let request_id = p.request_id.clone();
                let response: QuestionResponse = codiva_server::methods::question_response(p)?;
                encode(
                    self.answer(|reply| SessionCommand::AnswerQuestion {
                        request_id,
                        response,
                        reply: Some(reply),
                    })
                    .await?,
                )
            }
            // Nothing else is asked of exec's own session (merge, diff, … need a manager).
            other => Err(RpcError::method_not_found(other.method())),
        }
    }
}

impl Backend for Backing {
    fn request(&self, request: ClientRequest) -> BoxFuture<Result<Value, ClientError>> {
        let this = self.0.clone();
        Box::pin(async move {
            this.handle(request)
                .await
                .map_err(|err| ClientError::Server(Box::new(err.into_body())))
        })
    }

    fn events(&self) -> broadcast::Receiver<SequencedEvent> {
        match &self.0.state().events {
            Some(events) => events.subscribe(),
            // The session has ended: a stream that is closed at once.
            None => broadcast::channel(1).1,
        }
    }
}

/// Asks the session for its state as it is now, then to stop its agent and end; its remaining
/// events still come (the agent's exit), then the stream closes.
fn finish(session: &SessionHandle) -> oneshot::Receiver<SessionSnapshot> {
    let (tx, rx) = oneshot::channel();
    session.send(SessionCommand::Snapshot(tx));
    session.send(SessionCommand::Shutdown);
    rx
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use codiva_client::Update;
    use codiva_protocol::error::{INVALID_REQUEST, METHOD_NOT_FOUND, NO_SUCH_SESSION};
    use codiva_protocol::methods::request;
    use codiva_protocol::params::{NoParams, SessionParams};

    use super::*;

    /// A session whose agent cannot start (no such program): no agent process, no model.
    fn config(dir: &std::path::Path) -> SessionConfig {
        let provider = Arc::new(codiva_core::claude::ClaudeProvider::new(
            PathBuf::from("/nonexistent/claude"),
            dir.join("home"),
        ));
        let mut config = SessionConfig::new(provider, dir.to_path_buf());
        config.max_restarts = 0;
        config
    }

    fn code(err: ClientError) -> i64 {
        match err {
            ClientError::Server(body) => body.code,
            other => panic!("not an answer of the backend: {other:?}"),
        }
    }

    fn create() -> CreateParams {
        serde_json::from_value(serde_json::json!({"prompt": "hello"})).unwrap()
    }

    #[tokio::test]
    async fn it_knows_no_session_before_create_and_no_method_beyond_exec() {
        let dir = tempfile::tempdir().unwrap();
        let (client, _session) = OneSession::client(config(dir.path()));
        let snapshot = client
            .call::<request::ManagerSnapshot>(NoParams {})
            .await
            .unwrap();
        assert_eq!((snapshot.seq, snapshot.sessions.len()), (0, 0));
        let params = || SessionParams {
            session_id: ID.to_owned(),
        };
        let err = client.call::<request::SessionInterrupt>(params()).await;
        assert_eq!(code(err.unwrap_err()), NO_SUCH_SESSION);
        let err = client.call::<request::SessionMerge>(params()).await;
        assert_eq!(code(err.unwrap_err()), METHOD_NOT_FOUND);
    }

    /// What the agent cannot do is refused as the manager refuses it (`unsupported_by_agent`).
    #[tokio::test]
    async fn an_interrupt_the_agent_cannot_do_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let provider = codiva_testkit::ScriptedProvider::new(
            PathBuf::from("/nonexistent/fake-agent"),
            dir.path().join("home"),
        )
        .without_interrupt();
        let mut config = SessionConfig::new(Arc::new(provider), dir.path().to_path_buf());
        config.max_restarts = 0;
        let (client, session) = OneSession::client(config);
        client
            .call::<request::SessionCreate>(create())
            .await
            .unwrap();
        let err = client
            .call::<request::SessionInterrupt>(SessionParams {
                session_id: ID.to_owned(),
            })
            .await
            .unwrap_err();
        let refusal = err.refusal().expect("a refusal");
        assert_eq!(
            (refusal.reason.as_str(), refusal.args.as_slice()),
            (
                "unsupported_by_agent",
                &["scripted".to_owned(), "interrupt".to_owned()][..]
            )
        );
        session.stop().await;
    }

    /// A session whose agent cannot start settles (failed); `stop` ends it, the stream closes
    /// after its last status, which `session/snapshot` still gives afterwards; a second create
    /// is refused.
    #[tokio::test]
    async fn a_stopped_session_closes_the_stream_and_keeps_its_last_state() {
        let dir = tempfile::tempdir().unwrap();
        let (client, session) = OneSession::client(config(dir.path()));
        let (_, mut events) = client.subscribe().await.unwrap();
        let created = client
            .call::<request::SessionCreate>(create())
            .await
            .unwrap();
        assert_eq!(
            (created.session.id.as_str(), created.session.in_place),
            (ID, true)
        );
        let status = |update: &Update| match update {
            Update::Event {
                event:
                    ManagerEvent::Event {
                        event: SessionEvent::Status { status, .. },
                        ..
                    },
                ..
            } => Some(*status),
            _ => None,
        };
        // At once: the agent's failure to start is not held until the session's next tick.
        let settled = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                let update = events
                    .recv()
                    .await
                    .expect("the stream closed before it settled");
                if let Some(status) = status(&update).filter(|s| s.is_settled()) {
                    return status;
                }
            }
        })
        .await
        .expect("the session never settled");
        assert_eq!(settled, Status::Failed);
        session.stop().await;
        let mut last = settled;
        while let Some(update) = events.recv().await {
            last = status(&update).unwrap_or(last);
        }
        let snapshot = client
            .call::<request::SessionSnapshot>(SessionParams {
                session_id: ID.to_owned(),
            })
            .await
            .unwrap();
        assert_eq!(snapshot.status, last);
        let err = client.call::<request::SessionCreate>(create()).await;
        assert_eq!(code(err.unwrap_err()), INVALID_REQUEST);
        session.stop().await;
    }
}
