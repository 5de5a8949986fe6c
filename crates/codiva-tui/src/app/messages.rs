//! What the app and its loop say to each other: the effects it asks for, the answers and
//! events it takes, and the small state types its callers see.

use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::log::LogEntry;
use codiva_protocol::manager::{DiffStat, DiscardPreview, ManagerEvent};
use codiva_protocol::session::SubagentView;
use crossterm::event::{KeyEvent, MouseEvent};

use super::{RepairDone, RepairEffect};
use crate::dialog::PermissionAnswer;

/// What the app wants done (by the loop, through the session manager).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Create {
        prompt: String,
    },
    Send {
        id: String,
        text: String,
    },
    Interrupt {
        id: String,
    },
    Resume {
        id: String,
    },
    RespondPermission {
        id: String,
        request_id: String,
        response: PermissionAnswer,
    },
    AnswerQuestion {
        id: String,
        request_id: String,
        response: QuestionResponse,
    },
    /// Load a session's log (when its detail view opens the first time).
    Read {
        id: String,
    },
    /// Take a session's state (`session/snapshot`): on attach and after a resync.
    Snapshot {
        id: String,
    },
    SetModel {
        id: String,
        model: Option<String>,
    },
    /// The session goes on with another agent.
    SetAgent {
        id: String,
        agent: String,
    },
    /// A session's approval policy, or (`None`) the default for new sessions.
    SetApprovalPolicy {
        id: Option<String>,
        policy: codiva_protocol::approval::ApprovalPolicy,
    },
    /// The session's whole diff, for the diff view.
    Diff {
        id: String,
    },
    /// The whole text of a message the log cut (entry `entry` of the main log).
    /// A cut message's whole text: of the main log, or of subagent `subagent`'s log.
    FullMessage {
        id: String,
        entry: u64,
        subagent: Option<String>,
    },
    /// What a merge would take (commits ahead, uncommitted files), for its confirmation.
    MergePreview {
        id: String,
    },
    /// What a push would take (the same figures), before `/pr` asks: a branch with nothing
    /// to push is said so at once, without a y/n.
    PrPreview {
        id: String,
    },
    Merge {
        id: String,
    },
    /// Bring a discarded session back.
    Restore {
        id: String,
    },
    Rename {
        id: String,
        title: String,
    },
    /// Write one key of the configuration file (keeping the rest of it).
    SaveConfig {
        key: String,
        value: String,
    },
    /// Hand the terminal to `$SHELL` or `$EDITOR` in `cwd` until it exits.
    Foreground {
        what: Foreground,
        cwd: std::path::PathBuf,
    },
    /// First step of discard/remove: ask what would be lost.
    DiscardPreview {
        id: String,
        forget: bool,
    },
    Discard {
        id: String,
        token: String,
        forget: bool,
    },
    Sync {
        id: String,
    },
    /// Push the session's branch and open a draft pull request.
    Pr {
        id: String,
    },
    /// `/fix-ci`, `/commit`, `/recover` and the uncommitted files (`app/repair.rs`).
    Repair(RepairEffect),
    /// Edit `.codiva/prompt.md` (the loop opens it in `$EDITOR` or reports where it is).
    EditPrompt,
    /// Save `.codiva/prompt.md` (empty text removes it).
    SavePrompt {
        text: String,
    },
    /// Read the configuration file for the config view.
    ShowConfig,
    SaveHistory,
    /// Open a link with the desktop's handler.
    OpenUrl {
        url: String,
    },
    /// Run an agent's own login command (`/login`).
    Login {
        agent: String,
    },
    /// Type the code the browser showed into a running login.
    LoginInput {
        login_id: String,
        text: String,
    },
    LoginCancel {
        login_id: String,
    },
    /// Ask for every agent's availability and login again.
    RefreshAgents,
    Quit,
    /// Stop the daemon and every agent (`/shutdown`); comes with `Quit`.
    Shutdown,
}

/// Answers to effects.
#[derive(Debug, Clone)]
pub enum Done {
    /// A session's state ([`Effect::Snapshot`]); `None` when it could not be had.
    Snapshot {
        id: String,
        snapshot: Option<Box<codiva_protocol::session::SessionSnapshot>>,
    },
    Read {
        id: String,
        entries: Vec<LogEntry>,
        /// Each subagent's view and its own log.
        subagents: Vec<(SubagentView, Vec<LogEntry>)>,
        /// The agent's TODO list when the log was read.
        todos: Vec<codiva_protocol::session::TodoItem>,
    },
    DiscardPreview {
        id: String,
        forget: bool,
        preview: DiscardPreview,
        token: String,
        /// A confirmation came too late: the session changed since its preview, nothing was
        /// done, and this is the fresh preview (asked again, never a dead end).
        changed: bool,
    },
    Diff {
        id: String,
        text: String,
        truncated: bool,
    },
    MergePreview {
        id: String,
        stat: DiffStat,
    },
    PrPreview {
        id: String,
        stat: DiffStat,
    },
    /// A cut message's whole text, or why it cannot be shown.
    FullMessage {
        id: String,
        entry: u64,
        text: Result<String, String>,
    },
    /// The configuration file's text (`saved`: after writing this key).
    /// The configuration file's keys (after a save of `saved`).
    Config {
        result: codiva_protocol::params::ConfigResult,
        saved: Option<String>,
    },
    /// Every agent, with what its login check said.
    Agents(Vec<codiva_protocol::agent::AgentAvailability>),
    /// A login could not start: the login view closes with this notice.
    LoginRefused(String),
    /// The current `.codiva/prompt.md`, to edit in the composer.
    EditPrompt(String),
    Info(String),
    Error(String),
    Repair(RepairDone),
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
