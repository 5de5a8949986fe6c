//! The handlers of `codiva serve` for the requests the protocol's method table
//! (`codiva_protocol::methods`) routes to the server (the session manager answers the rest),
//! and the manager's events as notifications (see `docs/serve-api.md`).

use codiva_core::config_edit;
use codiva_core::manager::Manager;
use codiva_protocol::agent::AgentStatus;
use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::{ManagerEvent, SequencedEvent};
use codiva_protocol::methods::{Route, request};
use codiva_protocol::params::{
    AgentsResult, BaseParams, Capabilities, ConfigResult, Done, InitializeResult, PrStatusParams,
    RepoInfo, ServerInfo, SessionEventParams, SessionRemovedParams, SessionUpdatedParams,
    WarningParams,
};
use codiva_protocol::session::{Prompt, SessionEvent};
use codiva_protocol::{ClientRequest, ParseError, Request, ServerNotification};
use serde_json::Value;

use crate::rpc::RpcError;

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

/// Answers one parsed request (`serve`'s lines and the in-process client alike): the server
/// answers what the method table routes to it, the session manager the rest.
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
        ClientRequest::DaemonShutdown(_) => {
            host.stop.notify_one();
            encode::<request::DaemonShutdown>(Ok(Done {}))
        }
        request => {
            debug_assert_ne!(request.route(), Route::Server, "{}", request.method());
            if matches!(request, ClientRequest::ManagerSnapshot(_)) {
                // What a UI asks right after `initialize`: it has the start-up warnings now.
                host.warnings_shown
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            }
            manager.handle(request).await.map_err(RpcError::from)
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

/// A config edit refused: a reason a client can word.
fn config_result(
    path: &std::path::Path,
    result: Result<ConfigResult, config_edit::ConfigFileError>,
) -> Result<ConfigResult, RpcError> {
    use config_edit::{ConfigEditError, ConfigFileError};
    result.map_err(|err| {
        let message = err.to_string();
        let (code, args) = match err {
            ConfigFileError::Edit(ConfigEditError::NotToml { line }) => (
                RefusalCode::ConfigNotToml,
                vec![path.display().to_string(), line.to_string()],
            ),
            ConfigFileError::Edit(ConfigEditError::UnknownKey(key)) => {
                (RefusalCode::ConfigUnknownKey, vec![key])
            }
            ConfigFileError::Edit(ConfigEditError::Invalid { key, message }) => (
                RefusalCode::ConfigInvalid,
                vec![format!("{key}: {message}")],
            ),
            ConfigFileError::Io { path, message } => {
                (RefusalCode::ConfigUnwritable, vec![path, message])
            }
        };
        RpcError::refused(code, args, message)
    })
}

fn encode<R: Request>(result: Answered<R>) -> Result<Value, RpcError> {
    serde_json::to_value(result?)
        .map_err(|err| RpcError::internal(format!("cannot encode the result: {err}")))
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
        ManagerEvent::Group { change, group } => {
            ServerNotification::GroupUpdated(codiva_protocol::group::GroupUpdatedParams {
                seq,
                change,
                group,
            })
        }
        ManagerEvent::GroupRemoved { id } => {
            ServerNotification::GroupRemoved(codiva_protocol::group::GroupRemovedParams {
                seq,
                group_id: id,
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
