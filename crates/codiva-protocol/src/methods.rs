//! The method table: each request declared once (method name ↔ params type ↔ result type ↔
//! where it is answered), each notification likewise. The server and the session manager
//! match on [`ClientRequest`] (the route says which of them answers, and the session a request
//! waits its turn on); [`crate::schema`] exports the whole table. Adding a request is one line
//! here, its params and result types, and one handler where its route points.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::manager::{DiffStat, DiffText, DiscardOutcome, ReadPage};
use crate::params::*;

/// A request's types, for handlers that must answer with exactly the declared result.
pub trait Request {
    const METHOD: &'static str;
    /// Who answers it.
    const ROUTE: Route;
    type Params: Serialize + DeserializeOwned + JsonSchema;
    type Result: Serialize + DeserializeOwned + JsonSchema;

    /// The request with these params.
    fn request(params: Self::Params) -> ClientRequest;
}

/// Who answers a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The session manager, in turn with the other requests about the session its params
    /// name ([`ClientRequest::session_id`]).
    Session,
    /// The session manager, about no one session.
    Manager,
    /// The server itself: what it is, the agents, the configuration file, its own stop.
    Server,
}

/// Params that name the session a request is about.
pub trait OnSession {
    /// The session (`None`: none named, as for the default approval policy).
    fn session_id(&self) -> Option<&str>;
}

macro_rules! on_session {
    ($($params:ty),* $(,)?) => {
        $(impl OnSession for $params {
            fn session_id(&self) -> Option<&str> {
                Some(&self.session_id)
            }
        })*
    };
}

on_session!(
    SessionParams,
    ReadParams,
    SendParams,
    ResumeParams,
    PermissionParams,
    QuestionParams,
    ModelParams,
    ModeParams,
    AgentParams,
    FullMessageParams,
    RenameParams,
    ConfirmParams,
    CommitParams,
    crate::mcp::McpReconnectParams,
    crate::group::AttemptDiffParams,
    crate::review::ReviewAddParams,
    crate::review::ReviewEditParams,
    crate::review::ReviewRemoveParams,
);

impl OnSession for ApprovalParams {
    fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

macro_rules! route {
    (session) => {
        Route::Session
    };
    (manager) => {
        Route::Manager
    };
    (server) => {
        Route::Server
    };
}

macro_rules! session_of {
    (session, $params:expr) => {
        OnSession::session_id($params)
    };
    ($other:ident, $params:expr) => {{
        let _ = $params;
        None
    }};
}

macro_rules! client_requests {
    ($( $(#[$doc:meta])* $variant:ident => $method:literal ($params:ty) -> $result:ty, $route:ident; )*) => {
        /// Every request a client can make, with its params.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "method", content = "params")]
        pub enum ClientRequest {
            $( $(#[$doc])* #[serde(rename = $method)] $variant($params), )*
        }

        /// One marker type per request, tying its name to its params and result.
        pub mod request {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[$doc])*
                pub struct $variant;
                impl super::Request for $variant {
                    const METHOD: &'static str = $method;
                    const ROUTE: super::Route = route!($route);
                    type Params = $params;
                    type Result = $result;

                    fn request(params: $params) -> super::ClientRequest {
                        super::ClientRequest::$variant(params)
                    }
                }
            )*
        }

        impl ClientRequest {
            /// Every request method, in declaration order.
            pub const METHODS: &[&str] = &[$($method),*];

            pub fn method(&self) -> &'static str {
                match self {
                    $( ClientRequest::$variant(_) => $method, )*
                }
            }

            /// Who answers it.
            pub fn route(&self) -> Route {
                match self {
                    $( ClientRequest::$variant(_) => route!($route), )*
                }
            }

            /// The session it waits its turn on (a [`Route::Session`] request's).
            pub fn session_id(&self) -> Option<&str> {
                match self {
                    $( ClientRequest::$variant(params) => session_of!($route, params), )*
                }
            }

            /// The route of every request method, in declaration order.
            pub const ROUTES: &[(&str, Route)] = &[$(($method, route!($route))),*];

            /// A request from its method name and params (`null` reads as `{}`).
            pub fn parse(method: &str, params: Value) -> Result<Self, ParseError> {
                match method {
                    $( $method => Ok(ClientRequest::$variant(parse_params(params)?)), )*
                    other => Err(ParseError::UnknownMethod(other.to_owned())),
                }
            }

            /// `(method, params schema, result schema)` for every request.
            pub(crate) fn schemas(
                generator: &mut schemars::SchemaGenerator,
            ) -> Vec<(&'static str, schemars::Schema, schemars::Schema)> {
                vec![$( (
                    $method,
                    generator.subschema_for::<$params>(),
                    generator.subschema_for::<$result>(),
                ), )*]
            }
        }
    };
}

client_requests! {
    Initialize => "initialize" (NoParams) -> InitializeResult, server;
    /// A new session on its own worktree and branch; answers at once (`preparing`).
    SessionCreate => "session/create" (CreateParams) -> SessionResult, manager;
    SessionList => "session/list" (NoParams) -> SessionListResult, manager;
    /// A page of a session's (or a subagent's) log.
    SessionRead => "session/read" (ReadParams) -> ReadPage, session;
    /// One session's whole state.
    SessionSnapshot => "session/snapshot" (SessionParams) -> crate::session::SessionSnapshot, session;
    SessionSend => "session/send" (SendParams) -> Done, session;
    SessionInterrupt => "session/interrupt" (SessionParams) -> Done, session;
    SessionResume => "session/resume" (ResumeParams) -> Done, session;
    SessionRespondPermission => "session/respondPermission" (PermissionParams) -> Done, session;
    SessionAnswerQuestion => "session/answerQuestion" (QuestionParams) -> Done, session;
    SessionSetModel => "session/setModel" (ModelParams) -> Done, session;
    SessionSetPermissionMode => "session/setPermissionMode" (ModeParams) -> Done, session;
    /// The session goes on with another agent: worktree, branch and log stay; the next
    /// message carries a handover.
    SessionSetAgent => "session/setAgent" (AgentParams) -> Done, session;
    /// A session's approval policy, or (no `session_id`) the default for new sessions.
    SessionSetApprovalPolicy => "session/setApprovalPolicy" (ApprovalParams) -> Done, session;
    SessionDiff => "session/diff" (SessionParams) -> DiffStat, session;
    /// The whole unified diff against the base, bounded.
    SessionDiffText => "session/diffText" (SessionParams) -> DiffText, session;
    /// The whole text of a message the log cut, read back from the agent's transcript.
    SessionFullMessage => "session/fullMessage" (FullMessageParams) -> FullMessageResult, session;
    SessionRename => "session/rename" (RenameParams) -> SessionResult, session;
    SessionMerge => "session/merge" (SessionParams) -> SessionResult, session;
    /// Two steps: a preview and its token, then the token.
    SessionDiscard => "session/discard" (ConfirmParams) -> DiscardOutcome, session;
    SessionRemove => "session/remove" (ConfirmParams) -> DiscardOutcome, session;
    SessionRestore => "session/restore" (SessionParams) -> SessionResult, session;
    SessionSync => "session/sync" (SessionParams) -> SyncResult, session;
    /// Pushes the session's branch to the base's remote and opens a draft pull request (or
    /// pushes again and answers the one it has).
    SessionPr => "session/pr" (SessionParams) -> PrResult, session;
    /// Connects one of the session's MCP servers again (a failed one); the outcome arrives as
    /// `session/mcpServers`.
    SessionMcpReconnect => "session/mcpReconnect" (crate::mcp::McpReconnectParams) -> Done, session;
    /// Sends the session's agent its pull request's failed checks and the failed log tail,
    /// with instructions to fix and commit (refused without a pull request, without a failed
    /// check, or while it works).
    SessionFixCi => "session/fixCi" (SessionParams) -> FixCiResult, session;
    /// Sends the session's agent the unresolved review threads of its pull request (file,
    /// line, the diff hunk, the comments), fenced as untrusted text, with instructions to
    /// address them and commit; the commits are pushed when that turn completes (refused
    /// without an open pull request, without an unresolved thread, or while it works).
    SessionAddressReview => "session/addressReview" (SessionParams) -> AddressReviewResult, session;
    /// The subjects of the commits on the session's branch that its base lacks, newest first:
    /// what a merge or a pull request would take.
    SessionCommits => "session/commits" (SessionParams) -> CommitsResult, session;
    /// Commits the worktree's uncommitted files with the message given, or (no message) asks
    /// the agent to commit its work.
    SessionCommit => "session/commit" (CommitParams) -> CommitResult, session;
    /// A comment on lines of the session's diff, kept with the session until `review/send`.
    ReviewAdd => "review/add" (crate::review::ReviewAddParams) -> crate::review::ReviewResult, session;
    /// A comment's new text.
    ReviewEdit => "review/edit" (crate::review::ReviewEditParams) -> crate::review::ReviewResult, session;
    ReviewRemove => "review/remove" (crate::review::ReviewRemoveParams) -> crate::review::ReviewResult, session;
    /// Sends the session's comments to its agent as one message and forgets them.
    ReviewSend => "review/send" (SessionParams) -> crate::review::ReviewSendResult, session;
    /// For every stuck session (its pull request failed its checks or conflicts), one by
    /// one: fix-ci or sync. `dry_run`: only which ones, for a confirmation.
    SessionRecover => "session/recover" (RecoverParams) -> RecoverResult, manager;
    /// The agents' own conversations for this repository that codiva does not manage (begun
    /// outside it), newest first.
    HistoryList => "history/list" (crate::outside::HistoryListParams) -> crate::outside::HistoryListResult, manager;
    /// One of those conversations' log, read-only, rebuilt from the agent's records.
    HistoryRead => "history/read" (crate::outside::OutsideConversationRef) -> crate::outside::HistoryReadResult, manager;
    /// Takes one of those conversations on as a session that resumes it (in place, or in a
    /// new worktree on a new branch).
    HistoryAdopt => "history/adopt" (crate::outside::HistoryAdoptParams) -> SessionResult, manager;
    /// Runs the repository's check command in the session's worktree now (answers at once,
    /// state `running`; the outcome comes in the session's row, `check`).
    SessionRunCheck => "session/runCheck" (SessionParams) -> crate::group::RunCheckResult, session;
    /// The session's latest check and the end of its output.
    SessionCheckOutput => "session/checkOutput" (SessionParams) -> crate::group::CheckOutput, session;
    /// One instruction to several agents or models at once: a group with one new session per
    /// attempt, each on its own worktree and branch; answers at once (each `preparing`).
    GroupCreate => "group/create" (crate::group::CreateGroupParams) -> crate::group::GroupResult, manager;
    /// The attempts the repository's last group was started with (to prefill a form).
    GroupLastAttempts => "group/lastAttempts" (NoParams) -> crate::group::LastAttemptsResult, manager;
    /// Per attempt: its row and what git and the agent's usage say of it.
    GroupCompare => "group/compare" (crate::group::GroupParams) -> crate::group::GroupCompare, manager;
    /// An attempt's unified diff against its base, or against another attempt, bounded.
    GroupDiff => "group/diff" (crate::group::AttemptDiffParams) -> DiffText, session;
    /// Two steps: a preview of what discarding the other attempts removes and its token, then
    /// the token: the attempt named stays (titled with the instruction), the others are
    /// discarded (archived; `session/restore` brings one back).
    GroupKeep => "group/keep" (crate::group::KeepParams) -> crate::group::KeepOutcome, manager;
    /// Every session's row and the `seq` of the last event they reflect.
    ManagerSnapshot => "manager/snapshot" (NoParams) -> crate::manager::ManagerSnapshot, manager;
    /// Every agent codiva knows: installed or not, the default, what each can do.
    AgentsList => "agents/list" (NoParams) -> AgentsResult, server;
    /// Runs the agent's own login command; its progress comes as `agents/loginProgress`.
    AgentsLogin => "agents/login" (LoginParams) -> LoginStarted, server;
    /// Types a line (the code the browser showed) into a running login command.
    AgentsLoginInput => "agents/loginInput" (LoginInputParams) -> Done, server;
    /// Stops a running login command.
    AgentsLoginCancel => "agents/loginCancel" (LoginIdParams) -> Done, server;
    /// The configuration file's keys and values.
    ConfigRead => "config/read" (NoParams) -> ConfigResult, server;
    /// Sets one key of the configuration file (applies when codiva next starts).
    ConfigSet => "config/set" (ConfigSetParams) -> ConfigResult, server;
    /// Stops the server: every session's agent is stopped, the state written, and the server
    /// exits (a daemon removes its socket). Answers before it stops.
    DaemonShutdown => "daemon/shutdown" (NoParams) -> Done, server;
}

macro_rules! server_notifications {
    ($( $(#[$doc:meta])* $variant:ident => $method:literal ($params:ty); )*) => {
        /// Every notification the server sends, with its params.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "method", content = "params")]
        // As `ManagerEvent`: a session's row, not boxed.
        #[allow(clippy::large_enum_variant)]
        pub enum ServerNotification {
            $( $(#[$doc])* #[serde(rename = $method)] $variant($params), )*
        }

        impl ServerNotification {
            /// Every notification method, in declaration order.
            pub const METHODS: &[&str] = &[$($method),*];

            pub fn method(&self) -> &'static str {
                match self {
                    $( ServerNotification::$variant(_) => $method, )*
                }
            }

            /// `(method, params schema)` for every notification.
            pub(crate) fn schemas(
                generator: &mut schemars::SchemaGenerator,
            ) -> Vec<(&'static str, schemars::Schema)> {
                vec![$( ($method, generator.subschema_for::<$params>()), )*]
            }
        }
    };
}

server_notifications! {
    SessionUpdated => "session/updated" (SessionUpdatedParams);
    SessionRemoved => "session/removed" (SessionRemovedParams);
    SessionStatus => "session/status" (SessionEventParams);
    SessionLog => "session/log" (SessionEventParams);
    SessionStream => "session/stream" (SessionEventParams);
    SessionPermission => "session/permission" (SessionEventParams);
    SessionQuestion => "session/question" (SessionEventParams);
    SessionPromptClosed => "session/promptClosed" (SessionEventParams);
    SessionConnected => "session/connected" (SessionEventParams);
    SessionAgentSession => "session/agentSession" (SessionEventParams);
    SessionModel => "session/model" (SessionEventParams);
    SessionPermissionMode => "session/permissionMode" (SessionEventParams);
    SessionTodos => "session/todos" (SessionEventParams);
    SessionUsage => "session/usage" (SessionEventParams);
    SessionSubagent => "session/subagent" (SessionEventParams);
    SessionAgentExited => "session/agentExited" (SessionEventParams);
    /// The session goes on with another agent.
    SessionAgentSwitched => "session/agentSwitched" (SessionEventParams);
    /// The plan usage of the session's agent login, as the agent reported it.
    SessionPlanUsage => "session/planUsage" (SessionEventParams);
    /// A session's MCP servers or their status changed.
    SessionMcpServers => "session/mcpServers" (SessionEventParams);
    /// A session's pull requests, or what was found about them, changed.
    SessionPrStatus => "session/prStatus" (PrStatusParams);
    /// The resource use (RSS, CPU) of sessions' agents changed; one batch per sampling period.
    SessionResources => "session/resources" (ResourcesParams);
    /// A group of attempts was created or changed, or one attempt was kept.
    GroupUpdated => "group/updated" (crate::group::GroupUpdatedParams);
    /// None of a group's sessions is listed any more.
    GroupRemoved => "group/removed" (crate::group::GroupRemovedParams);
    RepoBase => "repo/base" (BaseParams);
    /// A login command (`agents/login`) printed something or ended.
    AgentsLoginProgress => "agents/loginProgress" (LoginProgressParams);
    Warning => "warning" (WarningParams);
}

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    UnknownMethod(String),
    /// `field`: the top-level field at fault, when one is.
    InvalidParams {
        field: Option<String>,
        message: String,
    },
}

fn parse_params<T: DeserializeOwned>(params: Value) -> Result<T, ParseError> {
    let params = if params.is_null() {
        Value::Object(serde_json::Map::new())
    } else {
        params
    };
    T::deserialize(&params).map_err(|err| ParseError::InvalidParams {
        field: faulty_field::<T>(&params, &err),
        message: err.to_string(),
    })
}

/// The top-level field a params error is about. serde does not name a field of the wrong type
/// (nor the outer field of a nested error): that is the key without which the error changes
/// (serde stops at the first bad field in key order). A missing field serde names, but only
/// after reading every key: then removing a key that is present only makes that key missing,
/// which says nothing about the error; a key whose removal changes it otherwise holds the
/// nested error, else the named field is the missing one.
fn faulty_field<T: DeserializeOwned>(params: &Value, err: &serde_json::Error) -> Option<String> {
    let message = err.to_string();
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    let culprit = match params {
        Value::Object(map) => map.keys().find(|key| {
            let mut without = map.clone();
            without.remove(*key);
            match T::deserialize(&Value::Object(without)) {
                Ok(_) => true,
                Err(other) => {
                    let other = other.to_string();
                    other != message
                        && !(missing.is_some() && other == format!("missing field `{key}`"))
                }
            }
        }),
        _ => None,
    };
    culprit.cloned().or_else(|| missing.map(str::to_owned))
}
