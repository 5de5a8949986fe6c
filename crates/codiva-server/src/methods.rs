//! The handlers of `codiva serve`: one per request of the protocol's method table
//! (`codiva_protocol::methods`), and the manager's events as notifications (see
//! `docs/serve-api.md`).

use codiva_core::config_edit;
use codiva_core::manager::{CreateOptions, Manager, ManagerEvent, SequencedEvent};
use codiva_core::session::{DENY_MESSAGE, PermissionResponse, QuestionResponse};
use codiva_core::session_state::{Prompt, Scope, SessionEvent};
use codiva_protocol::agent::AgentStatus;
use codiva_protocol::methods::request;
use codiva_protocol::params::{
    AgentsResult, Answer, BaseParams, Capabilities, ConfigResult, ConfirmParams, CreateParams,
    Decision, Done, FullMessageParams, FullMessageResult, InitializeResult, ModeParams,
    ModelParams, PermissionParams, PrResult, PrStatusParams, QuestionParams, ReadParams, RepoInfo,
    ResumeParams, SendParams, ServerInfo, SessionEventParams, SessionListResult, SessionParams,
    SessionRemovedParams, SessionResult, SessionUpdatedParams, SyncResult, WarningParams,
};
use codiva_protocol::{ClientRequest, ParseError, Request, ServerNotification, UserInput};
use serde_json::Value;

use crate::rpc::RpcError;

/// Most entries one `session/read` returns.
const MAX_READ: usize = 1000;

/// The result a handler gives, typed by the method table.
type Answered<R> = Result<<R as Request>::Result, RpcError>;

/// What `initialize` says the server is (the binary's version, or a test's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    /// The server's own version (`server.version`).
    pub version: String,
    /// The protocol version it speaks (`protocol_version`).
    pub protocol_version: String,
}

/// What the server knows beyond the manager.
#[derive(Debug, Clone)]
pub struct Host {
    /// What `initialize` names.
    pub versions: Versions,
    /// Start-up warnings, for `initialize` — until a client has shown them.
    pub warnings: Vec<String>,
    /// A client took the start-up warnings to show them: the first `manager/snapshot` (what a
    /// UI asks for after `initialize`) marks them shown, and later `initialize` answers leave
    /// them out, so a daemon's warnings reach the user once, not with every new connection.
    /// Commands that only look (`codiva status`, `stop`, `attach`'s version check) ask no
    /// snapshot and leave them for the next UI.
    pub warnings_shown: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The configuration file `config/read` and `config/set` work on.
    pub config_path: std::path::PathBuf,
    /// Notified by `daemon/shutdown`: the server stops every session and exits.
    pub stop: std::sync::Arc<tokio::sync::Notify>,
}

impl Host {
    /// A host with no start-up warnings and no configuration file.
    pub fn new(versions: Versions) -> Self {
        Host {
            versions,
            warnings: Vec::new(),
            warnings_shown: std::sync::Arc::default(),
            config_path: std::path::PathBuf::new(),
            stop: std::sync::Arc::default(),
        }
    }
}

/// Runs one request: the protocol's table parses it, one handler per method answers.
pub async fn dispatch(
    manager: &Manager,
    host: &Host,
    method: &str,
    params: Value,
) -> Result<Value, RpcError> {
    let request = ClientRequest::parse(method, params).map_err(|err| match err {
        ParseError::UnknownMethod(method) => RpcError::method_not_found(&method),
        ParseError::InvalidParams {
            field: Some(field),
            message,
        } => RpcError::invalid_field(&field, message),
        ParseError::InvalidParams {
            field: None,
            message,
        } => RpcError::invalid_params(message),
    })?;
    handle(manager, host, request).await
}

/// Answers one parsed request (`serve`'s lines and the in-process client alike).
pub async fn handle(
    manager: &Manager,
    host: &Host,
    request: ClientRequest,
) -> Result<Value, RpcError> {
    match request {
        ClientRequest::Initialize(_) => {
            let shown = host
                .warnings_shown
                .load(std::sync::atomic::Ordering::SeqCst);
            let warnings = if shown { &[][..] } else { &host.warnings[..] };
            encode::<request::Initialize>(Ok(initialize(manager, &host.versions, warnings)))
        }
        ClientRequest::SessionCreate(p) => {
            encode::<request::SessionCreate>(create(manager, p).await)
        }
        ClientRequest::SessionList(_) => encode::<request::SessionList>(
            manager
                .list()
                .await
                .map(|sessions| SessionListResult { sessions })
                .map_err(RpcError::from),
        ),
        ClientRequest::SessionRead(p) => encode::<request::SessionRead>(read(manager, p).await),
        ClientRequest::SessionSnapshot(p) => encode::<request::SessionSnapshot>(
            manager
                .snapshot(&p.session_id)
                .await
                .map_err(RpcError::from),
        ),
        ClientRequest::SessionSend(p) => encode::<request::SessionSend>(send(manager, p).await),
        ClientRequest::SessionInterrupt(p) => {
            encode::<request::SessionInterrupt>(done(manager.interrupt(&p.session_id).await))
        }
        ClientRequest::SessionResume(p) => {
            encode::<request::SessionResume>(resume(manager, p).await)
        }
        ClientRequest::SessionRespondPermission(p) => {
            encode::<request::SessionRespondPermission>(respond_permission(manager, p).await)
        }
        ClientRequest::SessionAnswerQuestion(p) => {
            encode::<request::SessionAnswerQuestion>(answer_question(manager, p).await)
        }
        ClientRequest::SessionSetModel(p) => {
            encode::<request::SessionSetModel>(set_model(manager, p).await)
        }
        ClientRequest::SessionSetPermissionMode(p) => {
            encode::<request::SessionSetPermissionMode>(set_permission_mode(manager, p).await)
        }
        ClientRequest::SessionSetAgent(p) => encode::<request::SessionSetAgent>(done(
            manager.set_agent(&p.session_id, &p.agent).await,
        )),
        ClientRequest::SessionSetApprovalPolicy(p) => {
            encode::<request::SessionSetApprovalPolicy>(done(
                manager
                    .set_approval_policy(p.session_id.as_deref(), p.policy)
                    .await,
            ))
        }
        ClientRequest::SessionDiff(p) => encode::<request::SessionDiff>(
            manager.diff(&p.session_id).await.map_err(RpcError::from),
        ),
        ClientRequest::SessionDiffText(p) => encode::<request::SessionDiffText>(
            manager
                .diff_text(&p.session_id)
                .await
                .map_err(RpcError::from),
        ),
        ClientRequest::SessionFullMessage(p) => {
            encode::<request::SessionFullMessage>(full_message(manager, p).await)
        }
        ClientRequest::SessionRename(p) => {
            encode::<request::SessionRename>(session(manager.rename(&p.session_id, &p.title).await))
        }
        ClientRequest::SessionMerge(p) => {
            encode::<request::SessionMerge>(session(manager.merge(&p.session_id).await))
        }
        ClientRequest::SessionDiscard(p) => {
            encode::<request::SessionDiscard>(discard(manager, p, false).await)
        }
        ClientRequest::SessionRemove(p) => {
            encode::<request::SessionRemove>(discard(manager, p, true).await)
        }
        ClientRequest::SessionMcpReconnect(p) => encode::<request::SessionMcpReconnect>(done(
            manager.mcp_reconnect(&p.session_id, &p.server).await,
        )),
        ClientRequest::SessionRestore(p) => {
            encode::<request::SessionRestore>(session(manager.restore(&p.session_id).await))
        }
        ClientRequest::SessionSync(p) => encode::<request::SessionSync>(sync(manager, p).await),
        ClientRequest::SessionPr(p) => encode::<request::SessionPr>(
            manager
                .pr(&p.session_id)
                .await
                .map(|(pr, created)| PrResult { pr, created })
                .map_err(RpcError::from),
        ),
        ClientRequest::SessionFixCi(p) => encode::<request::SessionFixCi>(
            manager.fix_ci(&p.session_id).await.map_err(RpcError::from),
        ),
        ClientRequest::SessionCommit(p) => encode::<request::SessionCommit>(
            manager
                .commit(&p.session_id, p.message)
                .await
                .map_err(RpcError::from),
        ),
        ClientRequest::SessionRecover(p) => encode::<request::SessionRecover>(
            manager.recover(p.dry_run).await.map_err(RpcError::from),
        ),
        ClientRequest::ManagerSnapshot(_) => {
            host.warnings_shown
                .store(true, std::sync::atomic::Ordering::SeqCst);
            encode::<request::ManagerSnapshot>(manager.snapshot_all().await.map_err(RpcError::from))
        }
        ClientRequest::AgentsList(_) => encode::<request::AgentsList>(Ok(AgentsResult {
            agents: manager.agents_with_login().await,
        })),
        ClientRequest::AgentsLogin(p) => encode::<request::AgentsLogin>(
            manager
                .login(&p.agent)
                .await
                .map(|login_id| codiva_protocol::params::LoginStarted { login_id })
                .map_err(RpcError::from),
        ),
        ClientRequest::AgentsLoginInput(p) => encode::<request::AgentsLoginInput>(
            manager
                .login_input(&p.login_id, &p.text)
                .await
                .map(|()| Done {})
                .map_err(RpcError::from),
        ),
        ClientRequest::AgentsLoginCancel(p) => encode::<request::AgentsLoginCancel>(
            manager
                .login_cancel(&p.login_id)
                .await
                .map(|()| Done {})
                .map_err(RpcError::from),
        ),
        ClientRequest::ConfigRead(_) => {
            let path = host.config_path.clone();
            encode::<request::ConfigRead>(
                blocking(move || config_result(&path, config_edit::read_file(&path)))
                    .await
                    .and_then(|result| result),
            )
        }
        ClientRequest::DaemonShutdown(_) => {
            host.stop.notify_one();
            encode::<request::DaemonShutdown>(Ok(Done {}))
        }
        ClientRequest::ConfigSet(p) => {
            let path = host.config_path.clone();
            encode::<request::ConfigSet>(
                blocking(move || {
                    config_result(&path, config_edit::set_in_file(&path, &p.key, &p.value))
                })
                .await
                .and_then(|result| result),
            )
        }
    }
}

/// File work off the runtime's threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, RpcError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| RpcError::internal(format!("the config task failed: {err}")))
}

/// A config edit refused: a reason a client can word (see `REFUSAL_CODES`).
fn config_result(
    path: &std::path::Path,
    result: Result<ConfigResult, config_edit::ConfigFileError>,
) -> Result<ConfigResult, RpcError> {
    use config_edit::{ConfigEditError, ConfigFileError};
    result.map_err(|err| {
        let message = err.to_string();
        let (code, args) = match err {
            ConfigFileError::Edit(ConfigEditError::NotToml { line }) => (
                "config_not_toml",
                vec![path.display().to_string(), line.to_string()],
            ),
            ConfigFileError::Edit(ConfigEditError::UnknownKey(key)) => {
                ("config_unknown_key", vec![key])
            }
            ConfigFileError::Edit(ConfigEditError::Invalid { key, message }) => {
                ("config_invalid", vec![format!("{key}: {message}")])
            }
            ConfigFileError::Io { path, message } => ("config_unwritable", vec![path, message]),
        };
        RpcError::refused(code, args, message)
    })
}

fn encode<R: Request>(result: Answered<R>) -> Result<Value, RpcError> {
    serde_json::to_value(result?)
        .map_err(|err| RpcError::internal(format!("cannot encode the result: {err}")))
}

fn done(result: Result<(), codiva_core::manager::ManagerError>) -> Result<Done, RpcError> {
    result.map(|()| Done {}).map_err(RpcError::from)
}

fn session(
    result: Result<codiva_core::manager::SessionInfo, codiva_core::manager::ManagerError>,
) -> Result<SessionResult, RpcError> {
    result
        .map(|session| SessionResult { session })
        .map_err(RpcError::from)
}

fn initialize(manager: &Manager, versions: &Versions, warnings: &[String]) -> InitializeResult {
    InitializeResult {
        protocol_version: versions.protocol_version.clone(),
        server: ServerInfo {
            name: "codiva".to_owned(),
            version: versions.version.clone(),
        },
        repo: RepoInfo {
            root: manager.root().to_path_buf(),
            base: manager.base(),
        },
        capabilities: Capabilities {
            agents: manager
                .agents()
                .iter()
                .filter(|agent| agent.status == AgentStatus::Ready)
                .map(|agent| agent.id.clone())
                .collect(),
            images: true,
            merge: true,
            discard_confirmation: true,
            subagent_logs: true,
            event_seq: true,
        },
        warnings: warnings.to_vec(),
        agents: manager.agents().to_vec(),
    }
}

async fn create(manager: &Manager, p: CreateParams) -> Answered<request::SessionCreate> {
    let session = manager
        .create(CreateOptions {
            prompt: p.prompt,
            images: p
                .images
                .into_iter()
                .map(|image| (image.media_type, image.data))
                .collect(),
            model: p.model,
            permission_mode: p.permission_mode,
            agent: p.agent,
            approval: p.approval_policy,
            in_place: p.in_place,
            mcp_servers: p.mcp_servers,
            append_system_prompt: p.append_system_prompt,
            allowed_tools: p.allowed_tools,
            disallowed_tools: p.disallowed_tools,
        })
        .await?;
    Ok(SessionResult { session })
}

async fn read(manager: &Manager, p: ReadParams) -> Answered<request::SessionRead> {
    let scope = p.subagent.map_or(Scope::Main, Scope::Subagent);
    let limit = p.limit.unwrap_or(200).clamp(1, MAX_READ);
    Ok(manager.read(&p.session_id, scope, p.after, limit).await?)
}

async fn full_message(
    manager: &Manager,
    p: FullMessageParams,
) -> Answered<request::SessionFullMessage> {
    let scope = p.subagent.map_or(Scope::Main, Scope::Subagent);
    let text = manager.full_message(&p.session_id, scope, p.entry).await?;
    Ok(FullMessageResult { text })
}

async fn send(manager: &Manager, p: SendParams) -> Answered<request::SessionSend> {
    if p.text.trim().is_empty() && p.images.is_empty() {
        return Err(RpcError::invalid_field(
            "text",
            "expected a non-empty message (or images)".to_owned(),
        ));
    }
    let input = UserInput::with_images(p.text, p.images);
    done(manager.send(&p.session_id, input).await)
}

async fn resume(manager: &Manager, p: ResumeParams) -> Answered<request::SessionResume> {
    done(manager.resume(&p.session_id, p.text).await)
}

async fn respond_permission(
    manager: &Manager,
    p: PermissionParams,
) -> Answered<request::SessionRespondPermission> {
    let response = permission_response(&p)?;
    done(
        manager
            .respond_permission(&p.session_id, &p.request_id, response)
            .await,
    )
}

/// The answer `session/respondPermission`'s params give.
fn permission_response(p: &PermissionParams) -> Result<PermissionResponse, RpcError> {
    let message = || p.message.clone().unwrap_or_else(|| DENY_MESSAGE.to_owned());
    Ok(match (p.option.clone(), p.decision) {
        (Some(id), None) => PermissionResponse::Option {
            id,
            message: p.message.clone(),
        },
        (None, Some(Decision::Allow)) => PermissionResponse::Allow,
        (None, Some(Decision::AllowAlways)) => PermissionResponse::AllowAlways {
            suggestion: p.suggestion,
        },
        (None, Some(Decision::Deny)) => PermissionResponse::Deny { message: message() },
        (None, Some(Decision::DenyAndStop)) => {
            PermissionResponse::DenyAndStop { message: message() }
        }
        (Some(_), Some(_)) | (None, None) => {
            return Err(RpcError::invalid_field(
                "option",
                "expected exactly one of `option` (an option's id) and `decision`".to_owned(),
            ));
        }
    })
}

async fn answer_question(
    manager: &Manager,
    p: QuestionParams,
) -> Answered<request::SessionAnswerQuestion> {
    let (session_id, request_id) = (p.session_id.clone(), p.request_id.clone());
    let response = question_response(p)?;
    done(
        manager
            .answer_question(&session_id, &request_id, response)
            .await,
    )
}

/// The answer `session/answerQuestion`'s params give.
fn question_response(p: QuestionParams) -> Result<QuestionResponse, RpcError> {
    if p.decline {
        return Ok(QuestionResponse::Decline { message: p.message });
    }
    if p.answers.is_empty() {
        return Err(RpcError::invalid_field(
            "answers",
            "expected answers keyed by question text, or \"decline\": true".to_owned(),
        ));
    }
    Ok(QuestionResponse::Answers(
        p.answers
            .into_iter()
            .map(|(question, answer)| {
                let labels = match answer {
                    Answer::One(text) => vec![text],
                    Answer::Many(labels) => labels,
                };
                (question, labels)
            })
            .collect(),
    ))
}

async fn set_model(manager: &Manager, p: ModelParams) -> Answered<request::SessionSetModel> {
    done(manager.set_model(&p.session_id, p.model).await)
}

async fn set_permission_mode(
    manager: &Manager,
    p: ModeParams,
) -> Answered<request::SessionSetPermissionMode> {
    done(manager.set_permission_mode(&p.session_id, p.mode).await)
}

async fn discard(
    manager: &Manager,
    p: ConfirmParams,
    forget: bool,
) -> Answered<request::SessionDiscard> {
    let outcome = if forget {
        manager.remove(&p.session_id, p.confirm_token).await
    } else {
        manager.discard(&p.session_id, p.confirm_token).await
    };
    Ok(outcome?)
}

async fn sync(manager: &Manager, p: SessionParams) -> Answered<request::SessionSync> {
    let message = manager.sync(&p.session_id).await?;
    Ok(SyncResult { message })
}

/// One manager event → the notification a client receives.
pub fn notification(sequenced: SequencedEvent) -> ServerNotification {
    let seq = sequenced.seq;
    match sequenced.event {
        ManagerEvent::Session { session } => {
            ServerNotification::SessionUpdated(SessionUpdatedParams { seq, session })
        }
        ManagerEvent::Removed { id } => ServerNotification::SessionRemoved(SessionRemovedParams {
            seq,
            session_id: id,
        }),
        ManagerEvent::Warning { message } => ServerNotification::Warning(WarningParams {
            seq: Some(seq),
            message,
        }),
        ManagerEvent::Base { branch } => {
            ServerNotification::RepoBase(BaseParams { seq, base: branch })
        }
        ManagerEvent::Login { login } => {
            ServerNotification::AgentsLoginProgress(codiva_protocol::params::LoginProgressParams {
                seq,
                login,
            })
        }
        ManagerEvent::PrStatus { id, prs } => ServerNotification::SessionPrStatus(PrStatusParams {
            seq,
            session_id: id,
            prs,
        }),
        ManagerEvent::Resources { sessions } => {
            ServerNotification::SessionResources(codiva_protocol::params::ResourcesParams {
                seq,
                sessions,
            })
        }
        ManagerEvent::Event { id, event } => {
            let kind: fn(SessionEventParams) -> ServerNotification = match &event {
                SessionEvent::Status { .. } => ServerNotification::SessionStatus,
                SessionEvent::Log { .. } => ServerNotification::SessionLog,
                SessionEvent::Stream { .. } => ServerNotification::SessionStream,
                SessionEvent::PromptOpened {
                    prompt: Prompt::Permission(_),
                } => ServerNotification::SessionPermission,
                SessionEvent::PromptOpened {
                    prompt: Prompt::Question(_),
                } => ServerNotification::SessionQuestion,
                SessionEvent::PromptClosed { .. } => ServerNotification::SessionPromptClosed,
                SessionEvent::Connected { .. } => ServerNotification::SessionConnected,
                SessionEvent::AgentSession { .. } => ServerNotification::SessionAgentSession,
                SessionEvent::Model { .. } => ServerNotification::SessionModel,
                SessionEvent::PermissionMode { .. } => ServerNotification::SessionPermissionMode,
                SessionEvent::Todos { .. } => ServerNotification::SessionTodos,
                SessionEvent::Usage { .. } => ServerNotification::SessionUsage,
                SessionEvent::Subagent { .. } => ServerNotification::SessionSubagent,
                SessionEvent::AgentExited { .. } => ServerNotification::SessionAgentExited,
                SessionEvent::AgentSwitched { .. } => ServerNotification::SessionAgentSwitched,
                SessionEvent::PlanUsage { .. } => ServerNotification::SessionPlanUsage,
                SessionEvent::McpServers { .. } => ServerNotification::SessionMcpServers,
                // The manager turns a session's warnings into its own.
                SessionEvent::Warning { message } => {
                    return ServerNotification::Warning(WarningParams {
                        seq: Some(seq),
                        message: format!("session {id}: {message}"),
                    });
                }
            };
            kind(SessionEventParams {
                seq,
                session_id: id,
                event,
            })
        }
    }
}
