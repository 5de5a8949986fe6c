//! A session as front ends see it: a handle that takes [`SessionCommand`]s and yields
//! [`SessionEvent`]s. The task behind it owns the agent process, its stdin and the state; front
//! ends never touch those.

use std::path::PathBuf;
use std::sync::Arc;

use codiva_protocol::UserInput;
use codiva_protocol::agent::{PermissionRequest, QuestionResponse};
use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::session::{Scope, SessionEvent, SessionSnapshot};
use codiva_protocol::tool::{
    PermissionMode, PermissionOption, PermissionOptionKind, PermissionScope,
};
use tokio::sync::{mpsc, oneshot};

use crate::process::{ChildRegistry, EnvPolicy};
use crate::provider::{InvalidInput, Provider};

pub use crate::session_log::LogPage;

/// What a front end can ask of a session.
#[derive(Debug)]
pub enum SessionCommand {
    /// Send a message: starts a turn, or is queued behind the running one (as the CLI does).
    Send(UserInput),
    /// Messages the manager held for an agent slot (`max_running_agents`) and will not send:
    /// the session left the queue (interrupted, stopped). Each goes into the log as a
    /// `not_sent` note with its text, so the user has it back.
    NotSent(Vec<UserInput>),
    /// Stop the running turn (the session stays usable).
    Interrupt,
    /// Answers a pending permission request; `reply` hears whether the answer was taken
    /// (nothing reaches the agent when it was not).
    RespondPermission {
        request_id: String,
        response: PermissionResponse,
        reply: Option<oneshot::Sender<Result<(), AnswerError>>>,
    },
    /// Answers a pending question; `reply` as for [`SessionCommand::RespondPermission`].
    AnswerQuestion {
        request_id: String,
        response: QuestionResponse,
        reply: Option<oneshot::Sender<Result<(), AnswerError>>>,
    },
    /// `None` returns to the agent's default model.
    SetModel(Option<String>),
    SetPermissionMode(PermissionMode),
    /// Connect one MCP server again (the agent's process must run; a new process connects
    /// every server afresh anyway).
    McpReconnect(String),
    /// Which permission requests are allowed without asking (`approval.rs`); pending ones the
    /// new policy allows are allowed now.
    SetApprovalPolicy(ApprovalPolicy),
    /// A copy of the state as it is now.
    Snapshot(oneshot::Sender<SessionSnapshot>),
    /// A copy of the state with how many events the session has sent: it holds every one of
    /// them and none after (its events are sent first), so the manager can say where in its
    /// stream the snapshot stands.
    SnapshotCounted(oneshot::Sender<(SessionSnapshot, u64)>),
    /// A page of a log: entries with ids after `after` (all when `None`), at most `limit`.
    ReadLog {
        scope: Scope,
        after: Option<u64>,
        limit: usize,
        reply: oneshot::Sender<LogPage>,
    },
    /// End the agent's input: it finishes what it is doing (including turns it starts by
    /// itself, e.g. after background agents) and exits; the session stays usable and starts
    /// the agent again (resuming) on the next message.
    CloseInput,
    /// Go on with another agent: the running process is stopped; the log, the worktree and
    /// the session stay; the next process is `provider`'s, continuing its conversation
    /// `resume` when it has one; `handover` goes before the next message (once).
    SwitchAgent {
        provider: Arc<dyn Provider>,
        resume: Option<String>,
        handover: Option<String>,
    },
    /// A note of the manager's in the session's log (a push after a repair turn).
    Note {
        level: codiva_protocol::agent::NoteLevel,
        text: String,
        code: Option<codiva_protocol::log::NoteCode>,
    },
    /// Stop the agent process gracefully and end the task.
    Shutdown,
}

/// Why an answer to a prompt was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// No pending prompt has that id: unknown, already answered, or withdrawn by the agent.
    #[error("no pending prompt {0:?} (unknown, already answered or withdrawn)")]
    NoSuchPrompt(String),
    /// The id is a prompt of the other kind (a permission answer to a question, or back).
    #[error("prompt {request_id:?} is a {actual} prompt, not a {expected} prompt")]
    WrongKind {
        request_id: String,
        expected: &'static str,
        actual: &'static str,
    },
    /// The answer itself is not valid for this prompt (a suggestion it does not offer).
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
}

#[derive(Debug, Clone, PartialEq)]
pub enum PermissionResponse {
    Allow,
    /// Allow, and let the agent remember it: `suggestion` picks one of the scopes the agent
    /// offered (an index it does not offer is refused); `None` allows the tool everywhere for
    /// the rest of the session.
    AllowAlways {
        suggestion: Option<usize>,
    },
    Deny {
        message: String,
    },
    /// Deny and end the turn.
    DenyAndStop {
        message: String,
    },
    /// One of the request's options by its id (`message`: the reason given with a deny).
    Option {
        id: String,
        message: Option<String>,
    },
}

/// The reason sent with a deny that gave none.
pub const DENY_MESSAGE: &str = "The user denied this tool use.";

impl PermissionResponse {
    /// The option of `request` this answer picks, and the message that goes with it. The older
    /// forms pick by kind (`AllowAlways { suggestion: Some(i) }`: the `i`-th of the agent's own
    /// allow-always scopes; `None`: the whole tool). Nothing is widened: an id or a scope the
    /// request does not offer is refused, never read as a broader one.
    pub fn resolve<'a>(
        &self,
        request: &'a PermissionRequest,
    ) -> Result<(&'a PermissionOption, Option<String>), InvalidInput> {
        let of_kind = |kind: PermissionOptionKind, name: &str| {
            request.option_of(kind).ok_or_else(|| {
                InvalidInput::new("decision", format!("the request offers no {name} option"))
            })
        };
        match self {
            PermissionResponse::Allow => {
                Ok((of_kind(PermissionOptionKind::AllowOnce, "allow")?, None))
            }
            PermissionResponse::AllowAlways { suggestion } => {
                let (whole, scopes): (Vec<&PermissionOption>, Vec<&PermissionOption>) = request
                    .always_options()
                    .partition(|option| matches!(option.scope, Some(PermissionScope::Tool { .. })));
                match suggestion {
                    // Never widen a choice: an unknown scope is not "the whole tool".
                    Some(index) => scopes.get(*index).map(|option| (*option, None)).ok_or_else(|| {
                        InvalidInput::new(
                            "suggestion",
                            format!(
                                "expected the index of one of the request's {} suggestions, got {index}",
                                scopes.len()
                            ),
                        )
                    }),
                    None => whole.first().map(|option| (*option, None)).ok_or_else(|| {
                        InvalidInput::new(
                            "decision",
                            "the request offers no allow-always option for the whole tool",
                        )
                    }),
                }
            }
            PermissionResponse::Deny { message } => Ok((
                of_kind(PermissionOptionKind::Deny, "deny")?,
                Some(message.clone()),
            )),
            PermissionResponse::DenyAndStop { message } => Ok((
                of_kind(PermissionOptionKind::DenyAndStop, "deny_and_stop")?,
                Some(message.clone()),
            )),
            PermissionResponse::Option { id, message } => request
                .option(id)
                .map(|option| (option, message.clone()))
                .ok_or_else(|| {
                    let offered: Vec<&str> = request
                        .options
                        .iter()
                        .map(|option| option.id.as_str())
                        .collect();
                    InvalidInput::new(
                        "option",
                        format!(
                            "expected one of the request's options ({}), got {id:?}",
                            offered.join(", ")
                        ),
                    )
                }),
        }
    }
}

/// How to run one session, whatever its agent.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The kind of agent, and how to start and speak to it.
    pub provider: Arc<dyn Provider>,
    pub cwd: PathBuf,
    pub env: EnvPolicy,
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    /// The agent conversation to continue.
    pub resume: Option<String>,
    /// Appended to the agent's system prompt.
    pub append_system_prompt: Option<String>,
    /// Where to write the wire log (`None`: no wire log).
    pub wire_log: Option<PathBuf>,
    /// Size at which the wire log is rotated.
    pub wire_log_cap: u64,
    pub registry: Option<Arc<ChildRegistry>>,
    /// Restarts after an unexpected exit before the session gives up.
    pub max_restarts: u32,
    /// Which permission requests the session allows without asking.
    pub approval: ApprovalPolicy,
    /// MCP servers and tool rules for the agent.
    pub extras: crate::provider::AgentExtras,
    /// An agent process idle this long (its turn over, nothing waiting) is stopped; the next
    /// message resumes its conversation (`None`: never).
    pub idle_stop: Option<std::time::Duration>,
    /// Where the task publishes the pid (= process group) of its live agent process, 0 when
    /// none runs (the manager samples the group's resources from it).
    pub agent_pid: Option<Arc<std::sync::atomic::AtomicU32>>,
}

impl SessionConfig {
    pub fn new(provider: Arc<dyn Provider>, cwd: PathBuf) -> Self {
        SessionConfig {
            provider,
            cwd,
            env: EnvPolicy::Inherit {
                remove: Vec::new(),
                set: Vec::new(),
            },
            model: None,
            permission_mode: None,
            resume: None,
            append_system_prompt: None,
            wire_log: None,
            wire_log_cap: crate::wire_log::DEFAULT_CAP,
            registry: None,
            max_restarts: 3,
            approval: ApprovalPolicy::Ask,
            extras: Default::default(),
            idle_stop: None,
            agent_pid: None,
        }
    }
}

/// A running session: send commands, receive events. Dropping the handle shuts the session
/// down (the agent process is stopped and reaped).
pub struct SessionHandle {
    commands: mpsc::UnboundedSender<SessionCommand>,
    events: mpsc::Receiver<SessionEvent>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl SessionHandle {
    pub(crate) fn new(
        commands: mpsc::UnboundedSender<SessionCommand>,
        events: mpsc::Receiver<SessionEvent>,
        task: tokio::task::JoinHandle<()>,
    ) -> Self {
        SessionHandle {
            commands,
            events,
            task: Some(task),
        }
    }

    /// Sends a command; `false` once the session has ended.
    pub fn send(&self, command: SessionCommand) -> bool {
        self.commands.send(command).is_ok()
    }

    /// A sender that can be handed to other tasks.
    pub fn commands(&self) -> mpsc::UnboundedSender<SessionCommand> {
        self.commands.clone()
    }

    /// The next event; `None` once the session task has ended and every event was read.
    pub async fn next_event(&mut self) -> Option<SessionEvent> {
        self.events.recv().await
    }

    pub async fn snapshot(&self) -> Option<SessionSnapshot> {
        let (tx, rx) = oneshot::channel();
        if !self.send(SessionCommand::Snapshot(tx)) {
            return None;
        }
        rx.await.ok()
    }

    /// Stops the session and waits until its process is reaped.
    pub async fn shutdown(mut self) {
        let _ = self.commands.send(SessionCommand::Shutdown);
        // Keep draining so the task never blocks on a full event channel.
        while self.events.recv().await.is_some() {}
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for SessionHandle {
    fn drop(&mut self) {
        let _ = self.commands.send(SessionCommand::Shutdown);
    }
}
