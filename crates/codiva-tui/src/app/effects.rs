//! What the app and its loop say to each other: the effects it asks for (requests to the
//! session manager and a few local jobs), the answers and events it takes, and the small state
//! types its callers see.

use codiva_client::ClientError;
use codiva_protocol::ClientRequest;
use codiva_protocol::log::LogEntry;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::SubagentView;
use crossterm::event::{KeyEvent, MouseEvent};

/// What the app wants done: requests to the session manager, and what only the loop can do
/// (files, the terminal, the desktop).
// A request's params are larger than the local effects; effects are few and short-lived, and
// an unboxed request keeps matching on it (in the app and its tests) plain.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// One request of the protocol's method table; the loop sends it and hands its answer back
    /// as [`Done::Answered`] with the same request and purpose ([`App::answered`] says what
    /// the answer means).
    ///
    /// [`App::answered`]: super::App::answered
    Request {
        request: ClientRequest,
        purpose: Purpose,
    },
    /// Load a session's whole log (when its detail view opens the first time): every page of
    /// `session/read`, then `session/snapshot` for its subagents and TODO list, then each
    /// subagent's log; answered at once by [`Done::LogRead`]. One job rather than requests the
    /// app drives: the pane loads a log whole, and the snapshot taken here must not read as an
    /// attach's (which rebuilds the pane).
    ReadLog {
        id: String,
    },
    /// Hand the terminal to `$SHELL` or `$EDITOR` in `cwd` until it exits.
    Foreground {
        what: Foreground,
        cwd: std::path::PathBuf,
    },
    /// Edit `.codiva/prompt.md` (the loop opens it in `$EDITOR` or reports where it is).
    EditPrompt,
    /// Save `.codiva/prompt.md` (empty text removes it).
    SavePrompt {
        text: String,
    },
    /// Save the composer's input history (after a submit).
    SaveInputHistory,
    /// Open a link with the desktop's handler.
    OpenUrl {
        url: String,
    },
    Quit,
    /// Stop the daemon and every agent (`/shutdown`); comes with `Quit`.
    Shutdown,
}

impl Effect {
    /// `request`, whose answer means what its method says.
    pub fn request(request: ClientRequest) -> Effect {
        Effect::Request {
            request,
            purpose: Purpose::Plain,
        }
    }

    /// `request`, whose answer is for `purpose`.
    pub fn request_for(request: ClientRequest, purpose: Purpose) -> Effect {
        Effect::Request { request, purpose }
    }

    /// The answer to this effect's request (`None` for any other effect): what the loop hands
    /// back once the manager answered.
    pub fn answer(&self, result: Result<serde_json::Value, ClientError>) -> Option<Done> {
        match self {
            Effect::Request { request, purpose } => Some(Done::Answered {
                request: Box::new(request.clone()),
                purpose: *purpose,
                result,
            }),
            _ => None,
        }
    }
}

/// What an answer is for, where the request alone does not say: `session/diff` serves the
/// merge and pull request previews and the session view's uncommitted files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// What the request's method says.
    Plain,
    /// What a merge would take (commits ahead, uncommitted files), for its confirmation.
    MergePreview,
    /// What a push would take, before `/pr` asks: a branch with nothing to push is said so
    /// at once, without a y/n.
    PrPreview,
    /// The session view's uncommitted files.
    Uncommitted,
}

/// Answers to effects.
#[derive(Debug, Clone)]
pub enum Done {
    /// The manager's answer to an [`Effect::Request`]: its result as the method table's result
    /// type, encoded as JSON, or why it failed.
    Answered {
        request: Box<ClientRequest>,
        purpose: Purpose,
        result: Result<serde_json::Value, ClientError>,
    },
    /// A session's whole log ([`Effect::ReadLog`]).
    LogRead {
        id: String,
        entries: Vec<LogEntry>,
        /// Each subagent's view and its own log.
        subagents: Vec<(SubagentView, Vec<LogEntry>)>,
        /// The agent's TODO list when the log was read.
        todos: Vec<codiva_protocol::session::TodoItem>,
    },
    /// The current `.codiva/prompt.md`, to edit in the composer.
    EditPrompt(String),
    Info(String),
    Error(String),
}

/// A program that gets the terminal in a session's worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Foreground {
    Shell,
    /// `$EDITOR` on this path (relative to the worktree), else on the worktree.
    Editor {
        path: Option<String>,
    },
}

#[derive(Debug, Clone)]
pub enum UiEvent {
    Key(KeyEvent),
    Paste(String),
    Mouse(MouseEvent),
    Resize,
    Manager(Box<ManagerEvent>),
    Done(Done),
    Tick,
    /// The next frame of spinners (sent only while [`App::is_animating`]).
    Animate,
}

/// Static facts shown in the header.
#[derive(Debug, Clone, Default)]
pub struct AppInfo {
    pub version: String,
    pub cwd: String,
    pub base: String,
    pub agent: String,
    pub model: Option<String>,
    pub warnings: Vec<String>,
    /// Every agent codiva knows, installed or not (`agents/list`): shown while the list is
    /// empty, so a machine without any agent says what to install.
    pub agents: Vec<codiva_protocol::agent::AgentAvailability>,
    /// The host the repository and its agents are on (`codiva --remote`); `None` here.
    pub remote: Option<RemoteHost>,
    /// The sessions run in the repository's daemon: quitting leaves them running (no question
    /// asked) and `/shutdown` stops the daemon.
    pub detached: bool,
}

/// A repository on another host, reached over `ssh` (`codiva --remote`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteHost {
    /// The host as the UI names it.
    pub host: String,
    /// `ssh`, its options and the destination: a shell or an editor in a session's worktree
    /// runs there through it.
    pub ssh: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    List,
    Detail(String),
}

/// Where keys go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Composer,
    List,
    Dialog,
    Log,
}

/// Auto allows every tool (questions are still asked); confirm asks for every tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    Confirm,
    Auto,
}

/// A y/n question about to do something that loses or changes work.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub text: Vec<String>,
    pub on_yes: Vec<Effect>,
    /// Text the composer gets back on "no" (it was taken for the question).
    pub restore: Option<String>,
}
