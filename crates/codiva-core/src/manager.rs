//! The session manager: every instruction becomes its own session on its own worktree and
//! branch; many run at once; they survive a restart; their work is merged or discarded safely.
//!
//! One task (the actor) owns every session record, the git repository handle and the state
//! file; front ends call it through [`Manager`] (requests with replies) and subscribe to its
//! [`ManagerEvent`]s. `codiva serve` exposes exactly this over JSON-RPC.

mod actor;
mod ephemeral;
mod events;
pub use events::EventReceiver;
mod recover;
mod requests;

use std::path::PathBuf;
use std::sync::Arc;

use codiva_protocol::agent::{AgentAvailability, QuestionResponse};
use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::error::RefusalCode;
use codiva_protocol::github::SessionPr;
use codiva_protocol::manager::{
    DiffStat, DiffText, DiscardOutcome, FreshPreview, ManagerEvent, ManagerSnapshot, ReadPage,
    SequencedEvent, SessionInfo,
};
use codiva_protocol::methods::request;
use codiva_protocol::params::{
    AgentParams, ApprovalParams, CommitParams, CommitResult, ConfirmParams, CreateParams,
    FixCiResult, FullMessageParams, ModeParams, ModelParams, NoParams, ReadParams, RenameParams,
    ResumeParams, SendParams, SessionParams,
};
use codiva_protocol::session::{Scope, SessionSnapshot};
use codiva_protocol::text::default_title;
use codiva_protocol::tool::PermissionMode;
use codiva_protocol::{ClientRequest, ImageInput, Request, UserInput};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

pub use ephemeral::Ephemeral;
pub use recover::{MAX_AUTO_RECOVER, stuck_kind};

use crate::git::{GitError, IgnoredMode};
use crate::process::{ChildRegistry, EnvPolicy};
use crate::provider::{InvalidInput, Providers};
use crate::session::PermissionResponse;

/// Everything the manager needs to run sessions in one repository.
#[derive(Debug, Clone)]
pub struct ManagerOptions {
    /// Where `codiva` was started (any directory inside the repository).
    pub cwd: PathBuf,
    /// The agents sessions can run, and the default for new ones (the binary finds them).
    pub providers: Providers,
    /// The agents' environment (codiva's own variables removed).
    pub env: EnvPolicy,
    /// codiva's state directory (wire logs, child registry).
    pub state_dir: PathBuf,
    pub registry: Option<ChildRegistry>,
    /// The model of new sessions of the default agent that name none (the config's `model`);
    /// other agents' sessions start on their own default.
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    pub fetch_base: bool,
    pub ignored_files: IgnoredMode,
    pub ignored_files_exclude: Vec<String>,
    pub max_restarts: u32,
    /// Size at which a session's wire log is rotated.
    pub wire_log_cap: u64,
    /// What this manager is (`codiva serve`, …), written in the repository's lock for a second
    /// one to name.
    pub holder: String,
    /// Pull requests: how `gh` runs, and what is done without being asked.
    pub github: GithubOptions,
    /// Where new sessions' titles come from (config `titles`).
    pub titles: crate::title::TitleMode,
    /// How many agents run at once, how long an idle one is kept, how often their resource
    /// use is sampled.
    pub budget: BudgetOptions,
    /// The check command the user's configuration names (`check`, `check_timeout`; the
    /// repository's `.codiva/config.toml` overrides it).
    pub checks: crate::check::CheckOptions,
}

/// Agents kept in budget (`docs/architecture.md`, "Agents kept in budget").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetOptions {
    /// An agent process idle this long is stopped (its conversation resumes on the next
    /// message); `None`: never.
    pub idle_stop: Option<std::time::Duration>,
    /// At most this many agents run a turn at once; further turns wait with status `queued`
    /// and start in order (`None`: no limit).
    pub max_running_agents: Option<usize>,
    /// How often the agents' process groups are measured (RSS, CPU) while any runs.
    pub sample_every: std::time::Duration,
}

impl Default for BudgetOptions {
    fn default() -> Self {
        BudgetOptions {
            idle_stop: Some(crate::config::DEFAULT_AGENT_IDLE_STOP),
            max_running_agents: None,
            sample_every: std::time::Duration::from_secs(2),
        }
    }
}

/// How the manager works with GitHub (`docs/github.md`).
#[derive(Debug, Clone)]
pub struct GithubOptions {
    /// How `gh` runs (binary, environment, `--repo`).
    pub gh: crate::github::Gh,
    /// `HOST/OWNER/REPO` of the repository pull requests go to, when it is not the base's
    /// remote on github.com (the same value `gh --repo` takes): what an agent's own pull
    /// request URL is recognised by.
    pub repo: Option<String>,
    /// Opens a draft pull request for a session that completes with commits ahead of its base
    /// (once per session).
    pub auto_pr: bool,
    /// Marks a session's draft pull request ready for review once its checks pass.
    pub auto_ready: bool,
    /// Repairs a session whose own pull request turns red (fix-ci) or conflicting (sync),
    /// at most [`MAX_AUTO_RECOVER`] times per session and kind (kept in the state file).
    pub auto_recover: bool,
    /// Sends a session's agent the new unresolved review threads of its own pull request
    /// (as `session/addressReview`), at most [`MAX_AUTO_RECOVER`] times per session (kept in
    /// the state file).
    pub auto_address_review: bool,
    /// When pull requests are looked up.
    pub policy: crate::github::poll::PollPolicy,
}

impl Default for GithubOptions {
    fn default() -> Self {
        GithubOptions {
            gh: crate::github::Gh::new("gh"),
            repo: None,
            auto_pr: false,
            auto_ready: false,
            auto_recover: false,
            auto_address_review: false,
            policy: crate::github::poll::PollPolicy::default(),
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum ManagerError {
    /// Git failed (kept whole: its variant says why, its text how to fix it).
    #[error(transparent)]
    Git(Arc<GitError>),
    /// The session's MCP config file could not be written.
    #[error("cannot write the MCP config file {}: {source}", path.display())]
    McpConfig {
        path: PathBuf,
        source: Arc<std::io::Error>,
    },
    #[error("no session {0:?}")]
    NoSuchSession(String),
    #[error("{}", .0.message)]
    Refused(Refusal),
    /// The request names a value the agent cannot take (nothing was sent to it).
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error("the session manager has stopped")]
    Stopped,
    /// The state file cannot be used (written by a newer codiva); the manager does not start.
    #[error(transparent)]
    StateFile(Arc<crate::persist::LoadError>),
    /// An answer could not be made: a result that cannot be encoded or read back as its
    /// declared type, a record that lost what it had a moment ago.
    #[error("{0}")]
    Internal(String),
    /// A request the server answers itself, not the manager.
    #[error("{0} is not answered by the session manager")]
    NotRouted(&'static str),
}

/// Why a manager could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Manager(#[from] ManagerError),
    /// Another manager runs on this repository ([`crate::repo_lock`]); the message names it.
    #[error(transparent)]
    Locked(crate::repo_lock::LockError),
}

impl From<GitError> for StartError {
    fn from(err: GitError) -> Self {
        StartError::Manager(err.into())
    }
}

impl From<GitError> for ManagerError {
    fn from(err: GitError) -> Self {
        ManagerError::Git(Arc::new(err))
    }
}

/// Why a valid request cannot be done now: a stable `code` with its `args` (for front ends that
/// word it in their language) and the English `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: RefusalCode,
    pub args: Vec<String>,
    pub message: String,
    /// For a discard or remove whose token no longer names the session's state
    /// (`changed_since_preview`, `token_mismatch`): what it would archive now, and the token
    /// that confirms that.
    pub fresh_preview: Option<Box<FreshPreview>>,
}

/// The longest message [`Manager::full_message`] reads back.
pub const MAX_FULL_MESSAGE: usize = 16 * 1024 * 1024;

/// Options for a new session.
#[derive(Debug, Clone, Default)]
pub struct CreateOptions {
    pub prompt: String,
    pub images: Vec<(String, String)>,
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    /// The agent to run (`None`: the default).
    pub agent: Option<String>,
    /// The session's approval policy (`None`: the manager's default for new sessions).
    pub approval: Option<ApprovalPolicy>,
    /// Run in this directory (the repository's root or inside it) with no worktree or branch.
    pub in_place: Option<PathBuf>,
    /// MCP servers for the agent, by name.
    pub mcp_servers: std::collections::BTreeMap<String, codiva_protocol::mcp::McpServerConfig>,
    /// Appended to the agent's system prompt, after codiva's own additions.
    pub append_system_prompt: Option<String>,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
}

/// Where an answer goes: a caller waiting on a channel, or (mapped) a request's encoded
/// result. Dropped unanswered, its caller hears that the manager stopped.
pub(crate) struct Reply<T>(Box<dyn FnOnce(Result<T, ManagerError>) + Send>);

impl<T> Reply<T> {
    pub(crate) fn send(self, result: Result<T, ManagerError>) {
        (self.0)(result);
    }
}

impl<T: Send + 'static> Reply<T> {
    /// A reply and the receiver its answer arrives on.
    pub(crate) fn channel() -> (Self, oneshot::Receiver<Result<T, ManagerError>>) {
        let (tx, rx) = oneshot::channel();
        (
            Reply(Box::new(move |result| {
                let _ = tx.send(result);
            })),
            rx,
        )
    }

    /// A reply whose answer becomes this one's through `map`.
    pub(crate) fn map<U>(
        self,
        map: impl FnOnce(U) -> Result<T, ManagerError> + Send + 'static,
    ) -> Reply<U> {
        Reply(Box::new(move |result: Result<U, ManagerError>| {
            self.send(result.and_then(map));
        }))
    }
}

/// What the actor is sent: the protocol's requests, and the manager's own few messages.
// Requests are nearly all of them: not boxed, one allocation fewer per request.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Call {
    /// A request routed to the manager ([`codiva_protocol::methods::Route`]), answered with
    /// its declared result, encoded.
    Request(ClientRequest, Reply<Value>),
    /// Send an event made outside the actor (a login's progress) with the next `seq`.
    Emit(Box<ManagerEvent>),
    /// Write the state file now; answered on a std channel so that a panic hook can wait.
    SaveNow(std::sync::mpsc::Sender<()>),
    Shutdown(oneshot::Sender<()>),
}

/// A handle on the running manager. Cheap to clone.
#[derive(Clone)]
pub struct Manager {
    calls: mpsc::UnboundedSender<Call>,
    /// The actor's event channel; the actor holds the only strong sender, so the stream
    /// closes when the actor has stopped (an ephemeral manager stops by itself).
    events: broadcast::WeakSender<SequencedEvent>,
    root: PathBuf,
    base: std::sync::Arc<std::sync::RwLock<String>>,
    agents: Arc<Vec<AgentAvailability>>,
    /// For the agents' login checks.
    providers: Providers,
    env: EnvPolicy,
    logins: Arc<crate::login::Logins>,
}

/// The longest an agent's login check may take.
const LOGIN_CHECK_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Manager {
    /// Opens the repository (a clear error when `cwd` is not in a git repository or it has no
    /// commit yet), takes the repository's lock (refused while another manager holds it),
    /// restores the saved sessions and starts the manager. Returns the warnings a
    /// user should see (corrupt state file, pruned sessions, unreadable config…).
    pub async fn start(options: ManagerOptions) -> Result<(Manager, Vec<String>), StartError> {
        actor::start(options).await
    }

    /// An ephemeral manager for one session in `options.cwd`, which may be any directory (no
    /// repository needed): no repository check, no lock, no state file or history written,
    /// nothing recorded in a repository's sessions. Its one session runs in
    /// place (`session/create` with `in_place` = that directory) and once: when its turn has
    /// settled its agent is stopped, and when the agent is gone the manager stops and its event
    /// stream closes (`codiva exec`). Its wire log is written under the state directory.
    pub async fn start_ephemeral(
        options: ManagerOptions,
        ephemeral: Ephemeral,
    ) -> Result<Manager, StartError> {
        actor::start_ephemeral(options, ephemeral).await
    }

    pub(crate) fn new(
        calls: mpsc::UnboundedSender<Call>,
        events: broadcast::Sender<SequencedEvent>,
        root: PathBuf,
        base: String,
        (providers, env): (Providers, EnvPolicy),
    ) -> Self {
        Manager {
            calls,
            events: events.downgrade(),
            root,
            agents: Arc::new(providers.availability()),
            providers,
            env,
            logins: Arc::default(),
            base: std::sync::Arc::new(std::sync::RwLock::new(base)),
        }
    }

    /// Every agent this manager knows, installed or not (`agents/list`).
    pub fn agents(&self) -> &[AgentAvailability] {
        &self.agents
    }

    /// [`Manager::agents`] with each installed agent's own login check run (in the agents'
    /// environment; at most 10 s each, side by side).
    pub async fn agents_with_login(&self) -> Vec<AgentAvailability> {
        self.providers
            .availability_with_login(&self.env, LOGIN_CHECK_LIMIT)
            .await
    }

    /// Runs agent `agent`'s own login command; its progress comes as [`ManagerEvent::Login`]
    /// events, the last with a final phase (after the agent's login check).
    pub async fn login(&self, agent: &str) -> Result<String, ManagerError> {
        use crate::login::LoginError;
        let Some(provider) = self.providers.get(agent).cloned() else {
            let known = self.providers.ids().join(", ");
            return Err(match self.providers.missing(agent) {
                Some(missing) => login_refused(
                    RefusalCode::AgentNotInstalled,
                    &[agent, missing.name, &missing.install],
                    format!(
                        "{} is not installed; install it with: {}",
                        missing.name, missing.install
                    ),
                ),
                None => login_refused(
                    RefusalCode::UnknownAgent,
                    &[agent, &known],
                    format!("no agent {agent:?} (installed: {known})"),
                ),
            });
        };
        let name = provider.display_name();
        let calls = self.calls.clone();
        let emit = move |progress| {
            let _ = calls.send(Call::Emit(Box::new(ManagerEvent::Login {
                login: progress,
            })));
        };
        self.logins
            .start(provider.clone(), self.env.clone(), emit)
            .await
            .map_err(|err| match err {
                LoginError::NoLogin(_) => {
                    login_refused(RefusalCode::LoginUnavailable, &[name], err.to_string())
                }
                LoginError::AlreadyRunning(_) => {
                    login_refused(RefusalCode::LoginRunning, &[name], err.to_string())
                }
                LoginError::Spawn(reason) => login_refused(
                    RefusalCode::LoginFailed,
                    &[name, &reason],
                    format!("cannot start {name}'s login: {reason}"),
                ),
                LoginError::NoSuchLogin(_) | LoginError::NoInput(_) => {
                    login_refused(RefusalCode::NoSuchLogin, &[""], err.to_string())
                }
            })
    }

    /// Types `text` (the code the browser showed) into a running login.
    pub async fn login_input(&self, login_id: &str, text: &str) -> Result<(), ManagerError> {
        self.logins
            .input(login_id, text)
            .await
            .map_err(|err| login_refused(RefusalCode::NoSuchLogin, &[login_id], err.to_string()))
    }

    /// Stops a running login.
    pub async fn login_cancel(&self, login_id: &str) -> Result<(), ManagerError> {
        self.logins
            .cancel(login_id)
            .await
            .map_err(|err| login_refused(RefusalCode::NoSuchLogin, &[login_id], err.to_string()))
    }

    /// The id of the agent new sessions run when they name none (`None`: none is installed).
    pub fn default_agent(&self) -> Option<&str> {
        self.agents
            .iter()
            .find(|agent| agent.default)
            .map(|agent| agent.id.as_str())
    }

    /// The main checkout's root.
    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    /// The branch new sessions start from and merge into: the one checked out in the main
    /// checkout (followed within seconds).
    pub fn base(&self) -> String {
        self.base.read().map(|b| b.clone()).unwrap_or_default()
    }

    pub(crate) fn base_cell(&self) -> std::sync::Arc<std::sync::RwLock<String>> {
        self.base.clone()
    }

    pub fn subscribe(&self) -> EventReceiver {
        EventReceiver::new(self.subscribe_sequenced())
    }

    /// The events with their `seq` (+1 per event, per manager): a skipped number is a gap,
    /// and [`Manager::snapshot_all`] resyncs. Subscribe before taking the snapshot.
    pub fn subscribe_sequenced(&self) -> broadcast::Receiver<SequencedEvent> {
        match self.events.upgrade() {
            Some(events) => events.subscribe(),
            // The manager has stopped: a stream that is closed at once.
            None => broadcast::channel(1).1,
        }
    }

    /// Every session's row, consistent with the events up to the `seq` it carries.
    pub async fn snapshot_all(&self) -> Result<ManagerSnapshot, ManagerError> {
        self.request::<request::ManagerSnapshot>(NoParams {}).await
    }

    /// Answers one request the protocol routes to the manager (`Route::Session`,
    /// `Route::Manager`) with its declared result, encoded: what `codiva serve` sends back.
    /// A request the server answers itself (`Route::Server`) is refused.
    pub async fn handle(&self, request: ClientRequest) -> Result<Value, ManagerError> {
        match request {
            // Made of other requests, one stuck session after another.
            ClientRequest::SessionRecover(params) => {
                encode(Box::pin(self.recover(params.dry_run)).await?)
            }
            request => {
                let (reply, answer) = Reply::channel();
                self.calls
                    .send(Call::Request(request, reply))
                    .map_err(|_| ManagerError::Stopped)?;
                answer.await.map_err(|_| ManagerError::Stopped)?
            }
        }
    }

    /// Request `R` with `params`, answered with its declared result.
    pub async fn request<R: Request>(&self, params: R::Params) -> Result<R::Result, ManagerError> {
        decode(self.handle(R::request(params)).await?)
    }

    /// Creates a session and returns at once (phase `preparing` while its worktree is made).
    pub async fn create(&self, options: CreateOptions) -> Result<SessionInfo, ManagerError> {
        let params = CreateParams {
            prompt: options.prompt,
            images: options
                .images
                .into_iter()
                .map(|(media_type, data)| ImageInput { media_type, data })
                .collect(),
            model: options.model,
            permission_mode: options.permission_mode,
            agent: options.agent,
            approval_policy: options.approval,
            in_place: options.in_place,
            mcp_servers: options.mcp_servers,
            append_system_prompt: options.append_system_prompt,
            allowed_tools: options.allowed_tools,
            disallowed_tools: options.disallowed_tools,
        };
        Ok(self
            .request::<request::SessionCreate>(params)
            .await?
            .session)
    }

    pub async fn list(&self) -> Result<Vec<SessionInfo>, ManagerError> {
        Ok(self
            .request::<request::SessionList>(NoParams {})
            .await?
            .sessions)
    }

    /// A page of at most `limit` (1…1000) entries of the session's log (`scope`) after entry
    /// `after`.
    pub async fn read(
        &self,
        id: &str,
        scope: Scope,
        after: Option<u64>,
        limit: usize,
    ) -> Result<ReadPage, ManagerError> {
        self.request::<request::SessionRead>(ReadParams {
            session_id: id.to_owned(),
            after,
            limit: Some(limit),
            subagent: subagent_of(scope),
        })
        .await
    }

    pub async fn snapshot(&self, id: &str) -> Result<SessionSnapshot, ManagerError> {
        self.request::<request::SessionSnapshot>(session(id)).await
    }

    pub async fn send(&self, id: &str, input: UserInput) -> Result<(), ManagerError> {
        self.request::<request::SessionSend>(SendParams {
            session_id: id.to_owned(),
            text: input.text,
            images: input.images,
        })
        .await
        .map(drop)
    }

    pub async fn interrupt(&self, id: &str) -> Result<(), ManagerError> {
        self.request::<request::SessionInterrupt>(session(id))
            .await
            .map(drop)
    }

    /// Continues an interrupted session: sends `text`, or a plain "continue" instruction.
    pub async fn resume(&self, id: &str, text: Option<String>) -> Result<(), ManagerError> {
        self.request::<request::SessionResume>(ResumeParams {
            session_id: id.to_owned(),
            text,
        })
        .await
        .map(drop)
    }

    pub async fn respond_permission(
        &self,
        id: &str,
        request_id: &str,
        response: PermissionResponse,
    ) -> Result<(), ManagerError> {
        let params = requests::permission_params(id, request_id, response);
        self.request::<request::SessionRespondPermission>(params)
            .await
            .map(drop)
    }

    pub async fn answer_question(
        &self,
        id: &str,
        request_id: &str,
        response: QuestionResponse,
    ) -> Result<(), ManagerError> {
        let params = requests::question_params(id, request_id, response);
        self.request::<request::SessionAnswerQuestion>(params)
            .await
            .map(drop)
    }

    /// Goes on with agent `agent` in session `id`: the worktree, branch and log stay; each
    /// agent continues its own conversation; the next message carries a handover (once).
    pub async fn set_agent(&self, id: &str, agent: &str) -> Result<(), ManagerError> {
        self.request::<request::SessionSetAgent>(AgentParams {
            session_id: id.to_owned(),
            agent: agent.to_owned(),
        })
        .await
        .map(drop)
    }

    pub async fn set_model(&self, id: &str, model: Option<String>) -> Result<(), ManagerError> {
        self.request::<request::SessionSetModel>(ModelParams {
            session_id: id.to_owned(),
            model,
        })
        .await
        .map(drop)
    }

    pub async fn set_permission_mode(
        &self,
        id: &str,
        mode: PermissionMode,
    ) -> Result<(), ManagerError> {
        self.request::<request::SessionSetPermissionMode>(ModeParams {
            session_id: id.to_owned(),
            mode,
        })
        .await
        .map(drop)
    }

    /// Sets the approval policy of session `id`, or with `None` the default for sessions
    /// created from now on. The manager keeps it (it holds when the client that set it goes
    /// away); the session allows what it allows without asking (`approval.rs`).
    pub async fn set_approval_policy(
        &self,
        id: Option<&str>,
        policy: ApprovalPolicy,
    ) -> Result<(), ManagerError> {
        self.request::<request::SessionSetApprovalPolicy>(ApprovalParams {
            session_id: id.map(str::to_owned),
            policy,
        })
        .await
        .map(drop)
    }

    pub async fn diff(&self, id: &str) -> Result<DiffStat, ManagerError> {
        self.request::<request::SessionDiff>(session(id)).await
    }

    /// The session's whole diff against its base (commits, uncommitted and untracked files),
    /// at most [`crate::git::DIFF_TEXT_CAP`] bytes.
    pub async fn diff_text(&self, id: &str) -> Result<DiffText, ManagerError> {
        self.request::<request::SessionDiffText>(session(id)).await
    }

    /// The whole text of entry `entry` of the session's log (`scope`), a message the log cut
    /// at [`codiva_protocol::text::MAX_MESSAGE_TEXT`], read back from the agent's transcript.
    /// Refused when the entry was not cut, when it is longer than [`MAX_FULL_MESSAGE`], or when
    /// the transcript lacks it.
    pub async fn full_message(
        &self,
        id: &str,
        scope: Scope,
        entry: u64,
    ) -> Result<String, ManagerError> {
        let params = FullMessageParams {
            session_id: id.to_owned(),
            entry,
            subagent: subagent_of(scope),
        };
        Ok(self
            .request::<request::SessionFullMessage>(params)
            .await?
            .text)
    }

    /// Gives the session a new title (sanitised: one line, no control characters, at most
    /// [`MAX_TITLE_CHARS`](codiva_protocol::text::MAX_TITLE_CHARS) characters; an empty one goes
    /// back to the title from its prompt).
    pub async fn rename(&self, id: &str, title: &str) -> Result<SessionInfo, ManagerError> {
        let params = RenameParams {
            session_id: id.to_owned(),
            title: title.to_owned(),
        };
        Ok(self
            .request::<request::SessionRename>(params)
            .await?
            .session)
    }

    pub async fn merge(&self, id: &str) -> Result<SessionInfo, ManagerError> {
        Ok(self
            .request::<request::SessionMerge>(session(id))
            .await?
            .session)
    }

    /// Without `confirm`: what would be lost, and a token. With the token: discards (the
    /// branch tip stays under `refs/codiva/archive/<slug>`; `restore` undoes it).
    pub async fn discard(
        &self,
        id: &str,
        confirm: Option<String>,
    ) -> Result<DiscardOutcome, ManagerError> {
        self.request::<request::SessionDiscard>(ConfirmParams {
            session_id: id.to_owned(),
            confirm_token: confirm,
        })
        .await
    }

    /// Discard and forget (two steps, like [`Manager::discard`]).
    pub async fn remove(
        &self,
        id: &str,
        confirm: Option<String>,
    ) -> Result<DiscardOutcome, ManagerError> {
        self.request::<request::SessionRemove>(ConfirmParams {
            session_id: id.to_owned(),
            confirm_token: confirm,
        })
        .await
    }

    pub async fn restore(&self, id: &str) -> Result<SessionInfo, ManagerError> {
        Ok(self
            .request::<request::SessionRestore>(session(id))
            .await?
            .session)
    }

    /// Merges the base into the session's worktree; returns what happened in one line.
    pub async fn sync(&self, id: &str) -> Result<String, ManagerError> {
        Ok(self
            .request::<request::SessionSync>(session(id))
            .await?
            .message)
    }

    /// Pushes the session's branch to its base's remote and opens a draft pull request (title:
    /// the session's; body: its first instruction and its commits, sanitised). When the
    /// session has its pull request already, pushes again and answers it. `true`: opened now.
    pub async fn pr(&self, id: &str) -> Result<(SessionPr, bool), ManagerError> {
        let result = self.request::<request::SessionPr>(session(id)).await?;
        Ok((result.pr, result.created))
    }

    /// Connects MCP server `server` of session `id` again (its agent's process must run); the
    /// outcome arrives as the session's `McpServers` event. Refused for an agent without MCP
    /// servers and for a name the session's agent never reported.
    pub async fn mcp_reconnect(&self, id: &str, server: &str) -> Result<(), ManagerError> {
        self.request::<request::SessionMcpReconnect>(codiva_protocol::mcp::McpReconnectParams {
            session_id: id.to_owned(),
            server: server.to_owned(),
        })
        .await
        .map(drop)
    }

    /// Sends the session's agent the failed checks of its pull request (looked up now) and
    /// the failed steps' log tail of their GitHub Actions runs (byte-budgeted, sanitised),
    /// with instructions to fix and commit. Refused without an open pull request, without a
    /// failed check, and while the agent works.
    pub async fn fix_ci(&self, id: &str) -> Result<FixCiResult, ManagerError> {
        self.request::<request::SessionFixCi>(session(id)).await
    }

    /// With `message`: stages every uncommitted file of the worktree by name and commits.
    /// Without: asks the agent to commit its work. Refused when there is nothing to commit
    /// and while the agent works.
    pub async fn commit(
        &self,
        id: &str,
        message: Option<String>,
    ) -> Result<CommitResult, ManagerError> {
        self.request::<request::SessionCommit>(CommitParams {
            session_id: id.to_owned(),
            message,
        })
        .await
    }

    /// Writes the state file now and waits for it, blocking this thread at most `timeout`;
    /// `false` when the save did not finish in time (or the manager has stopped). For a panic
    /// hook: it needs no runtime on this thread, and a manager task that cannot run (it is on the
    /// panicking thread) only costs the timeout. Never call it from an async task.
    pub fn save_now_blocking(&self, timeout: std::time::Duration) -> bool {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        if self.calls.send(Call::SaveNow(done_tx)).is_err() {
            return false;
        }
        done_rx.recv_timeout(timeout).is_ok()
    }

    /// Stops every session (their processes are stopped and reaped) and writes the state file.
    pub async fn shutdown(&self) {
        self.logins.cancel_all().await;
        let (tx, rx) = oneshot::channel();
        if self.calls.send(Call::Shutdown(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// The params naming just this session.
fn session(id: &str) -> SessionParams {
    SessionParams {
        session_id: id.to_owned(),
    }
}

/// A log's scope as `subagent` params say it.
fn subagent_of(scope: Scope) -> Option<String> {
    match scope {
        Scope::Main => None,
        Scope::Subagent(id) => Some(id),
    }
}

/// A request's result as its caller receives it.
pub(crate) fn encode<T: serde::Serialize>(result: T) -> Result<Value, ManagerError> {
    serde_json::to_value(result)
        .map_err(|err| ManagerError::Internal(format!("cannot encode the result: {err}")))
}

/// A request's result back in its declared type.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ManagerError> {
    serde_json::from_value(value)
        .map_err(|err| ManagerError::Internal(format!("cannot read the result: {err}")))
}

fn login_refused(code: RefusalCode, args: &[&str], message: String) -> ManagerError {
    ManagerError::Refused(Refusal {
        code,
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        message,
        fresh_preview: None,
    })
}

/// What to install when no agent is: each agent codiva knows that is not installed, with its
/// install command (`name: command`, separated by `; `).
pub fn install_hints(providers: &Providers) -> String {
    let hints: Vec<String> = providers
        .availability()
        .into_iter()
        .filter_map(|agent| {
            agent
                .install
                .map(|install| format!("{}: {install}", agent.name))
        })
        .collect();
    hints.join("; ")
}

/// `n` and the noun in English's number (`1 file`, `2 files`): manager messages are English
/// for serve clients and logs; front ends word refusals and results by code.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use codiva_protocol::text::{MAX_TITLE_CHARS, sanitize_title, sanitize_title_to};

    #[test]
    fn titles_are_one_clean_line() {
        assert_eq!(
            sanitize_title("  Fix\tthe\n\nlogin \u{1b}[31mloop ").as_deref(),
            Some("Fix the login [31mloop")
        );
        assert_eq!(
            sanitize_title("a\u{202e}b\u{2066}c").as_deref(),
            Some("abc")
        );
        assert_eq!(sanitize_title(" \n\t "), None);
        let long = "長".repeat(200);
        assert_eq!(
            sanitize_title(&long).map(|t| t.chars().count()),
            Some(MAX_TITLE_CHARS)
        );
    }

    #[test]
    fn a_default_title_is_clean_too() {
        // The prompt is typed or pasted: controls and bidi overrides must not reach a title.
        assert_eq!(
            default_title("Fix \u{202e}the\u{1b}[2J parser\tnow\nand more"),
            "Fix the [2J parser now…"
        );
        let long = "word ".repeat(40);
        assert!(default_title(&long).ends_with('…'));
        assert_eq!(
            sanitize_title_to(&long, 120).map(|t| t.chars().count()),
            Some(119)
        );
    }
}
