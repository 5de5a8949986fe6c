//! The app: one state owned by the event loop. `App::handle` takes UI events (keys, paste,
//! manager events, results of earlier calls) and returns [`Effect`]s — calls for the session
//! manager, which the loop runs and answers with [`UiEvent::Done`]. `App::render` draws a frame.
//! No IO here, so every screen state is a snapshot test away.

mod activity;
mod chrome;
mod composer_mode;
mod config_view;
mod diff_view;
mod filter;
mod finish;
mod help;
mod keys;
mod list_view;
mod log_search;
mod login;
mod login_view;
mod message_view;
mod mouse;
mod notice;
mod overlay;
mod palette;
mod pane;
mod picker;
mod repair;
pub use repair::{RepairDone, RepairEffect};
mod plan_usage;
mod resources;

use std::collections::HashMap;
use std::time::Duration;

use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::manager::DiffStat;
use codiva_protocol::manager::{DiscardPreview, ManagerEvent, SessionInfo};

use crate::dialog::PermissionAnswer;
use codiva_protocol::log::LogEntry;
use codiva_protocol::session::SubagentView;
use crossterm::event::{KeyEvent, MouseEvent};
use ratatui::Frame;

use crate::composer::Composer;
use crate::i18n::{Key, t, tf};
pub use mouse::{Selection, osc52};
pub use palette::Command;
use pane::Pane;

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

pub struct App {
    pub info: AppInfo,
    sessions: Vec<SessionInfo>,
    panes: HashMap<String, Pane>,
    pub view: View,
    pub focus: Focus,
    selected: usize,
    composer: Composer,
    palette: palette::Palette,
    confirm: Option<Confirm>,
    /// The `/help` overlay, while open.
    help: Option<help::Help>,
    pub run_mode: RunMode,
    notice: Option<notice::Notice>,
    /// The composer collects a deny reason, a free-text answer or `.codiva/prompt.md`.
    collecting: Option<composer_mode::Collecting>,
    /// What the composer held before it started collecting (given back after).
    set_aside: Option<String>,
    /// What was typed in a view the user left: `""` the list, else a session id.
    drafts: HashMap<String, String>,
    /// Counts manager events (orders waiting prompts for the inbox).
    seq: u64,
    /// Where things were in the last frame (for the mouse).
    layout: mouse::Layout,
    selection: Option<Selection>,
    /// Text a finished selection copied, for the loop to put on the clipboard.
    clipboard: Option<String>,
    /// Spinner frames.
    frame_tick: u64,
    /// The loop's clock ([`App::set_now`]); when each session's info last arrived by it.
    now: Duration,
    seen_at: HashMap<String, Duration>,
    /// The session whose dialog the last frame showed: dialog keys go to that one (what you
    /// see is what you answer).
    shown_dialog: Option<String>,
    /// Prompts this client answered (until their close arrives): any other that closes while
    /// its dialog is shown was resolved by another client of the daemon.
    answered: std::collections::HashSet<String>,
    quit: bool,
    /// The user asked `/shutdown` (with the quit).
    shutdown: bool,
    /// A view over the body that has the keys (pickers, diff, config).
    overlay: Option<overlay::Overlay>,
    /// The session list's filter.
    filter: Option<filter::ListFilter>,
    /// A third answer to the open confirmation: its key, effects and the choices line.
    confirm_extra: Option<(char, Vec<Effect>, String)>,
    /// The session indices of the list rows the last frame showed (for the mouse).
    list_rows: Vec<usize>,
    /// The login's plan usage, as the agents reported it (the header's gauges).
    plan: plan_usage::PlanView,
}

impl App {
    pub fn new(info: AppInfo) -> Self {
        let notice = info.warnings.first().map(|warning| notice::Notice {
            text: tf(Key::Warning, &[warning]),
            error: true,
            place: notice::Place::Everywhere,
            until: notice::Until::Deadline(notice::ERROR_TIMEOUT),
        });
        App {
            info,
            sessions: Vec::new(),
            panes: HashMap::new(),
            view: View::List,
            focus: Focus::Composer,
            selected: 0,
            composer: Composer::new(),
            palette: palette::Palette::default(),
            confirm: None,
            help: None,
            run_mode: RunMode::Confirm,
            notice,
            collecting: None,
            set_aside: None,
            drafts: HashMap::new(),
            seq: 0,
            layout: mouse::Layout::default(),
            selection: None,
            clipboard: None,
            frame_tick: 0,
            now: Duration::ZERO,
            seen_at: HashMap::new(),
            shown_dialog: None,
            answered: std::collections::HashSet::new(),
            quit: false,
            shutdown: false,
            overlay: None,
            filter: None,
            confirm_extra: None,
            list_rows: Vec::new(),
            plan: plan_usage::PlanView::default(),
        }
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// The user quit with `/shutdown`: the daemon and its agents are to stop.
    pub fn shutdown_requested(&self) -> bool {
        self.shutdown
    }

    /// Saves the instruction history (after a submit).
    pub fn composer_history_save(&self, path: &std::path::Path) -> std::io::Result<()> {
        self.composer.history().save(path)
    }

    pub fn composer_mut(&mut self) -> &mut Composer {
        &mut self.composer
    }

    pub fn sessions(&self) -> &[SessionInfo] {
        &self.sessions
    }

    fn selected_session(&self) -> Option<&SessionInfo> {
        self.sessions.get(self.selected)
    }

    fn current_id(&self) -> Option<String> {
        match &self.view {
            View::Detail(id) => Some(id.clone()),
            View::List => self.selected_session().map(|s| s.id.clone()),
        }
    }

    /// A session's title, for messages (its id if it is unknown).
    fn title_of(&self, id: &str) -> String {
        self.sessions
            .iter()
            .find(|s| s.id == id)
            .map_or_else(|| id.to_owned(), |s| s.title.clone())
    }

    /// Sessions that stop when codiva quits: being prepared, running or waiting for the user.
    fn working_count(&self) -> usize {
        self.sessions
            .iter()
            .filter(|s| match s.phase {
                codiva_protocol::manager::SessionPhase::Preparing => true,
                codiva_protocol::manager::SessionPhase::Active => !s.status.is_settled(),
                _ => false,
            })
            .count()
    }

    fn pane(&mut self, id: &str) -> &mut Pane {
        self.panes.entry(id.to_owned()).or_default()
    }

    /// A notice for the view on screen, gone after a timeout.
    /// A prompt whose dialog is on screen closed, answered (not withdrawn) by someone else than
    /// this client: another client of the daemon.
    fn resolved_elsewhere(
        &mut self,
        id: &str,
        event: &codiva_protocol::session::SessionEvent,
    ) -> bool {
        use codiva_protocol::session::{PromptResolution, SessionEvent};
        let SessionEvent::PromptClosed {
            request_id,
            resolution,
        } = event
        else {
            return false;
        };
        if self.answered.remove(request_id) || *resolution == PromptResolution::Withdrawn {
            return false;
        }
        self.shown_dialog.as_deref() == Some(id)
            && self
                .panes
                .get(id)
                .and_then(|pane| pane.prompts.front())
                .is_some_and(|prompt| prompt.request_id() == request_id)
    }

    fn set_notice(&mut self, text: impl Into<String>, error: bool) {
        let timeout = if error {
            notice::ERROR_TIMEOUT
        } else {
            notice::INFO_TIMEOUT
        };
        self.notice_until(text, error, notice::Until::Deadline(self.now + timeout));
    }

    /// A notice for the view on screen, gone when `until` says.
    fn notice_until(&mut self, text: impl Into<String>, error: bool, until: notice::Until) {
        self.notice = Some(notice::Notice {
            text: text.into(),
            error,
            place: notice::Place::View(self.view.clone()),
            until,
        });
    }

    /// A notice about codiva itself (a warning, an internal error): in every view.
    fn notice_everywhere(&mut self, text: impl Into<String>) {
        self.notice = Some(notice::Notice {
            text: text.into(),
            error: true,
            place: notice::Place::Everywhere,
            until: notice::Until::Deadline(self.now + notice::ERROR_TIMEOUT),
        });
    }

    /// The notice of the view on screen, if it still holds: `(text, error)`.
    pub fn notice(&self) -> Option<(&str, bool)> {
        self.notice
            .as_ref()
            .filter(|n| n.shows_in(&self.view))
            .map(|n| (n.text.as_str(), n.error))
    }

    /// Drops the notice once what it describes changed. Returns whether it went.
    fn expire_notice(&mut self) -> bool {
        let holds = self.notice.as_ref().is_none_or(|n| {
            n.holds(
                self.now,
                |id| self.sessions.iter().find(|s| s.id == id).map(|s| s.status),
                matches!(
                    self.collecting,
                    Some(composer_mode::Collecting::Dialog { .. })
                ),
            )
        });
        if !holds {
            self.notice = None;
        }
        !holds
    }

    /// Handles one event; returns what the loop should do.
    pub fn handle(&mut self, event: UiEvent) -> Vec<Effect> {
        let effects = self.handle_event(event);
        self.expire_notice();
        effects
    }

    fn handle_event(&mut self, event: UiEvent) -> Vec<Effect> {
        match event {
            UiEvent::Key(key) => self.key(key),
            UiEvent::Paste(text) => {
                if let Some(overlay::Overlay::Login(view)) = &mut self.overlay {
                    view.paste(&text);
                    return Vec::new();
                }
                if self.focus != Focus::Composer {
                    self.focus = Focus::Composer;
                }
                self.composer.handle_paste(&text);
                Vec::new()
            }
            UiEvent::Mouse(event) => self.mouse(event),
            UiEvent::Resize => Vec::new(),
            UiEvent::Tick => {
                self.on_tick();
                Vec::new()
            }
            UiEvent::Animate => {
                self.frame_tick += 1;
                let tick = self.frame_tick;
                if let View::Detail(id) = self.view.clone() {
                    self.pane(&id).log.set_tick(tick);
                }
                Vec::new()
            }
            UiEvent::Manager(event) => self.manager_event(*event),
            UiEvent::Done(done) => self.done(done),
        }
    }

    fn manager_event(&mut self, event: ManagerEvent) -> Vec<Effect> {
        match event {
            ManagerEvent::Session { session } => {
                self.seen_at.insert(session.id.clone(), self.now);
                let id = session.id.clone();
                let was = self.sessions.iter().find(|s| s.id == id).map(|s| s.status);
                match self.sessions.iter_mut().find(|s| s.id == session.id) {
                    Some(existing) => *existing = session,
                    None => {
                        // The selection stays on the same session when the order changes.
                        let selected = self.selected_session().map(|s| s.id.clone());
                        self.sessions.push(session);
                        self.sessions
                            .sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
                        if let Some(id) = selected
                            && let Some(index) = self.sessions.iter().position(|s| s.id == id)
                        {
                            self.selected = index;
                        }
                    }
                }
                self.after_session_update(&id, was)
            }
            ManagerEvent::Removed { id } => {
                self.sessions.retain(|s| s.id != id);
                self.seen_at.remove(&id);
                self.panes.remove(&id);
                self.drafts.remove(&id);
                if self.view == View::Detail(id) {
                    self.back_to_list();
                }
                self.selected = self.selected.min(self.sessions.len().saturating_sub(1));
                Vec::new()
            }
            ManagerEvent::Base { branch } => {
                self.info.base = branch;
                Vec::new()
            }
            ManagerEvent::PrStatus { id, prs } => {
                if let Some(session) = self.sessions.iter_mut().find(|s| s.id == id) {
                    session.prs = prs;
                }
                Vec::new()
            }
            ManagerEvent::Resources { sessions } => {
                for sample in sessions {
                    if let Some(session) = self.sessions.iter_mut().find(|s| s.id == sample.id) {
                        session.resources = sample.resources;
                    }
                }
                Vec::new()
            }
            ManagerEvent::Warning { message } => {
                self.notice_everywhere(tf(Key::Warning, &[&message]));
                Vec::new()
            }
            ManagerEvent::Login { login } => self.login_progress(login),
            ManagerEvent::Event { id, event } => {
                self.seq += 1;
                let seq = self.seq;
                self.plan.observe(&event);
                if self.resolved_elsewhere(&id, &event) {
                    self.set_notice(t(Key::ResolvedElsewhere), false);
                }
                // A dialog that appears never takes the keys: the user moves to it (Tab, Ctrl+N,
                // a click, opening its session), so what was typed for the composer stays there.
                let effects = self.pane(&id).apply(event, seq);
                // The dialog that had the keys is gone: they go back to the composer.
                if self.focus == Focus::Dialog
                    && self.current_id().as_deref() == Some(id.as_str())
                    && !self.pane(&id).has_dialog()
                {
                    self.focus = Focus::Composer;
                }
                effects
            }
        }
    }

    fn done(&mut self, done: Done) -> Vec<Effect> {
        match done {
            Done::Read {
                id,
                entries,
                subagents,
                todos,
            } => {
                self.pane(&id).load(entries, subagents, todos);
                Vec::new()
            }
            Done::DiscardPreview {
                id,
                forget,
                preview,
                token,
                changed,
            } => {
                let title = if forget {
                    Key::RemoveTitle
                } else {
                    Key::DiscardTitle
                };
                let mut text = Vec::new();
                if changed {
                    text.push(tf(Key::RefChangedSincePreview, &[&id]));
                }
                text.push(tf(title, &[&id]));
                if preview.uncommitted.is_empty() && preview.unmerged_commits.is_empty() {
                    text.push(t(Key::NothingLost).to_owned());
                } else {
                    if !preview.uncommitted.is_empty() {
                        text.push(tf(Key::UncommittedLost, &[&preview.uncommitted.join(", ")]));
                    }
                    if !preview.unmerged_commits.is_empty() {
                        text.push(tf(
                            Key::CommitsArchived,
                            &[&preview.unmerged_commits.join("; ")],
                        ));
                    }
                }
                self.confirm = Some(Confirm {
                    text,
                    on_yes: vec![Effect::Discard { id, token, forget }],
                    restore: None,
                });
                Vec::new()
            }
            Done::Diff {
                id,
                text,
                truncated,
            } => {
                self.diff_arrived(&id, &text, truncated);
                Vec::new()
            }
            Done::MergePreview { id, stat } => {
                self.merge_preview_arrived(id, stat);
                Vec::new()
            }
            Done::FullMessage { id, entry, text } => {
                self.message_arrived(&id, entry, text);
                Vec::new()
            }
            Done::Config { result, saved } => {
                self.config_arrived(result, saved);
                Vec::new()
            }
            Done::EditPrompt(text) => {
                self.start_collecting(composer_mode::Collecting::Prompt, text.trim_end());
                Vec::new()
            }
            Done::Agents(agents) => {
                self.info.agents = agents;
                Vec::new()
            }
            Done::LoginRefused(text) => {
                if matches!(self.overlay, Some(overlay::Overlay::Login(_))) {
                    self.overlay = None;
                }
                self.set_notice(text, true);
                Vec::new()
            }
            Done::Info(text) => {
                self.set_notice(text, false);
                Vec::new()
            }
            Done::Error(text) => {
                self.set_notice(text, true);
                Vec::new()
            }
            Done::Repair(done) => self.repair_done(done),
        }
    }

    fn open_detail(&mut self, id: String) -> Vec<Effect> {
        let mut effects = Vec::new();
        let pane = self.pane(&id);
        if !pane.requested {
            pane.requested = true;
            effects.push(Effect::Read { id: id.clone() });
        }
        effects.push(Effect::Repair(RepairEffect::Uncommitted { id: id.clone() }));
        self.keep_draft();
        self.composer
            .set_text(&self.drafts.remove(&id).unwrap_or_default());
        // Opening a waiting session with nothing typed for it moves the keys to its dialog.
        self.focus = if self.pane(&id).has_dialog() && self.composer.is_empty() {
            Focus::Dialog
        } else {
            Focus::Composer
        };
        self.view = View::Detail(id);
        self.palette.close();
        effects
    }

    fn back_to_list(&mut self) {
        self.keep_draft();
        self.view = View::List;
        self.focus = Focus::Composer;
        self.composer
            .set_text(&self.drafts.remove("").unwrap_or_default());
        self.palette.close();
    }

    /// Keeps what is typed in the composer for the view being left (the list's instruction,
    /// a session's follow-up); the composer comes back with it when that view opens again.
    fn keep_draft(&mut self) {
        // Text being collected for a dialog or the prompt is dropped; the view keeps the
        // draft that was set aside for it.
        self.stop_collecting();
        let key = match &self.view {
            View::List => String::new(),
            View::Detail(id) => id.clone(),
        };
        let text = self.composer.text().to_owned();
        if text.trim().is_empty() {
            self.drafts.remove(&key);
        } else {
            self.drafts.insert(key, text);
        }
    }

    /// Sessions waiting for the user, oldest prompt first.
    pub fn inbox(&self) -> Vec<String> {
        let mut waiting: Vec<(u64, String)> = self
            .panes
            .iter()
            .filter_map(|(id, pane)| pane.waiting_since.map(|since| (since, id.clone())))
            .collect();
        waiting.sort();
        waiting.into_iter().map(|(_, id)| id).collect()
    }

    /// The inbox key: to the session that has waited longest, its dialog in front. From the
    /// list it stays in the list (the dialog shows under it); from a session it opens that one.
    fn next_in_inbox(&mut self) -> Vec<Effect> {
        let inbox = self.inbox();
        let Some(id) = inbox.first().cloned() else {
            self.set_notice(t(Key::InboxEmpty), false);
            return Vec::new();
        };
        // Its dialog is the one the next keys answer, even before the next frame shows it.
        self.shown_dialog = Some(id.clone());
        let remaining = inbox.len() - 1;
        if remaining > 0 {
            self.set_notice(tf(Key::InboxMore, &[&remaining.to_string()]), false);
        } else {
            self.notice = None;
        }
        match self.view {
            View::List => {
                if let Some(index) = self.sessions.iter().position(|s| s.id == id) {
                    self.selected = index;
                }
                self.focus = Focus::Dialog;
                Vec::new()
            }
            View::Detail(_) => {
                let effects = self.open_detail(id);
                self.focus = Focus::Dialog;
                effects
            }
        }
    }

    /// Draws the whole screen.
    pub fn render(&mut self, frame: &mut Frame) {
        chrome::render(self, frame);
        if let Some(selection) = self.selection {
            if selection.done {
                self.clipboard = Some(selection.text(frame.buffer_mut()));
                self.selection = None;
            } else {
                selection.highlight(frame.buffer_mut());
            }
        }
    }

    /// The links on screen, for OSC 8 hyperlinks (the session's log only).
    pub fn visible_links(&self) -> Vec<crate::log_view::VisibleLink> {
        match (&self.view, self.layout.log) {
            (View::Detail(id), Some(area)) => self
                .panes
                .get(id)
                .map(|pane| pane.log.visible_links(area))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Something on screen moves (a spinner, a running time): the loop sends
    /// [`UiEvent::Animate`] ~10×/s, and has no timer running when nothing does.
    pub fn is_animating(&self) -> bool {
        match &self.view {
            View::Detail(id) => {
                self.panes.get(id).is_some_and(|p| p.log.is_animating())
                    || self
                        .sessions
                        .iter()
                        .any(|s| s.id == *id && activity::is_working(s))
            }
            View::List => self.sessions.iter().any(activity::is_working),
        }
    }

    /// Once a second: notices whose time is up go. Returns whether the screen changed.
    pub fn on_tick(&mut self) -> bool {
        self.expire_notice()
    }

    /// The loop's clock (time since it started), before each event and frame: running times
    /// tick by it.
    pub fn set_now(&mut self, now: Duration) {
        self.now = now;
    }

    /// The wall clock (Unix seconds) and the local offset from UTC, for the header's reset
    /// times; `true` when the header must be drawn again.
    pub fn set_wall_clock(&mut self, unix_s: u64, utc_offset_s: i64) -> bool {
        self.plan.set_clock(unix_s, utc_offset_s)
    }

    fn activity(&self) -> activity::Activity<'_> {
        activity::Activity {
            now: self.now,
            seen_at: &self.seen_at,
            frame: self.frame_tick,
        }
    }

    /// Text copied by a finished selection (once).
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
    }
}
