//! The app: one state owned by the event loop. `App::handle` takes UI events (keys, paste,
//! manager events, results of earlier calls) and returns [`Effect`]s — calls for the session
//! manager, which the loop runs and answers with [`UiEvent::Done`]. `App::render` draws a frame.
//! No IO here, so every screen state is a snapshot test away.

mod chrome;
mod keys;
mod list_view;
mod mouse;
mod palette;
mod pane;

use std::collections::HashMap;

use codiva_core::manager::{DiscardPreview, ManagerEvent, SessionInfo};
use codiva_core::session::{PermissionResponse, QuestionResponse};
use codiva_core::session_log::LogEntry;
use codiva_core::session_state::SubagentView;
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
        response: PermissionResponse,
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
    Diff {
        id: String,
    },
    Merge {
        id: String,
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
    /// Edit `.codiva/prompt.md` (the loop opens it in `$EDITOR` or reports where it is).
    EditPrompt,
    /// Save `.codiva/prompt.md` (empty text removes it).
    SavePrompt {
        text: String,
    },
    /// Show the configuration file path and the active values.
    ShowConfig,
    SaveHistory,
    /// Open a link with the desktop's handler.
    OpenUrl {
        url: String,
    },
    Quit,
}

/// Answers to effects.
#[derive(Debug, Clone)]
pub enum Done {
    Read {
        id: String,
        entries: Vec<LogEntry>,
        /// Each subagent's view and its own log.
        subagents: Vec<(SubagentView, Vec<LogEntry>)>,
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
    },
    /// The current `.codiva/prompt.md`, to edit in the composer.
    EditPrompt(String),
    Info(String),
    Error(String),
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
    pub run_mode: RunMode,
    notice: Option<(String, bool)>,
    /// Composer text goes to the dialog of this session (a deny reason, a free-text answer).
    text_for_dialog: Option<String>,
    /// The composer edits `.codiva/prompt.md`; Enter saves it.
    editing_prompt: bool,
    /// Counts manager events (orders waiting prompts for the inbox).
    seq: u64,
    /// Where things were in the last frame (for the mouse).
    layout: mouse::Layout,
    selection: Option<Selection>,
    /// Text a finished selection copied, for the loop to put on the clipboard.
    clipboard: Option<String>,
    /// Spinner frames.
    frame_tick: u64,
    /// The session whose dialog the last frame showed: dialog keys go to that one (what you
    /// see is what you answer).
    shown_dialog: Option<String>,
    quit: bool,
}

impl App {
    pub fn new(info: AppInfo) -> Self {
        let notice = info
            .warnings
            .first()
            .map(|warning| (tf(Key::Warning, &[warning]), true));
        App {
            info,
            sessions: Vec::new(),
            panes: HashMap::new(),
            view: View::List,
            focus: Focus::Composer,
            selected: 0,
            composer: Composer::new().with_placeholder(list_placeholder()),
            palette: palette::Palette::default(),
            confirm: None,
            run_mode: RunMode::Confirm,
            notice,
            text_for_dialog: None,
            editing_prompt: false,
            seq: 0,
            layout: mouse::Layout::default(),
            selection: None,
            clipboard: None,
            frame_tick: 0,
            shown_dialog: None,
            quit: false,
        }
    }

    pub fn should_quit(&self) -> bool {
        self.quit
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

    fn pane(&mut self, id: &str) -> &mut Pane {
        self.panes.entry(id.to_owned()).or_default()
    }

    fn set_notice(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some((text.into(), error));
    }

    /// Handles one event; returns what the loop should do.
    pub fn handle(&mut self, event: UiEvent) -> Vec<Effect> {
        match event {
            UiEvent::Key(key) => self.key(key),
            UiEvent::Paste(text) => {
                if self.focus != Focus::Composer {
                    self.focus = Focus::Composer;
                }
                self.composer.handle_paste(&text);
                Vec::new()
            }
            UiEvent::Mouse(event) => self.mouse(event),
            UiEvent::Resize | UiEvent::Tick => Vec::new(),
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
                Vec::new()
            }
            ManagerEvent::Removed { id } => {
                self.sessions.retain(|s| s.id != id);
                self.panes.remove(&id);
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
            ManagerEvent::Warning { message } => {
                self.set_notice(tf(Key::Warning, &[&message]), true);
                Vec::new()
            }
            ManagerEvent::Event { id, event } => {
                let auto = self.run_mode == RunMode::Auto;
                let opened = matches!(
                    event,
                    codiva_core::session_state::SessionEvent::PromptOpened { .. }
                );
                self.seq += 1;
                let seq = self.seq;
                let effects = self.pane(&id).apply(&id, event, auto, seq);
                // A question for the session on screen takes the keys, unless the user is typing.
                if opened
                    && self.pane(&id).has_dialog()
                    && self.focus == Focus::Composer
                    && self.composer.is_empty()
                    && self.current_id().as_deref() == Some(id.as_str())
                {
                    self.focus = Focus::Dialog;
                }
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
            } => {
                self.pane(&id).load(entries, subagents);
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
                });
                Vec::new()
            }
            Done::Diff { id, text } => {
                self.pane(&id).diff = Some(text);
                Vec::new()
            }
            Done::EditPrompt(text) => {
                self.editing_prompt = true;
                self.focus = Focus::Composer;
                self.composer.set_text(text.trim_end());
                self.set_notice(t(Key::EditingPrompt), false);
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
        }
    }

    fn open_detail(&mut self, id: String) -> Vec<Effect> {
        let mut effects = Vec::new();
        let pane = self.pane(&id);
        if !pane.requested {
            pane.requested = true;
            effects.push(Effect::Read { id: id.clone() });
        }
        self.focus = if self.pane(&id).has_dialog() {
            Focus::Dialog
        } else {
            Focus::Composer
        };
        self.view = View::Detail(id);
        self.composer.clear();
        self.composer.set_placeholder(detail_placeholder());
        self.palette.close();
        effects
    }

    fn back_to_list(&mut self) {
        self.view = View::List;
        self.focus = Focus::Composer;
        self.text_for_dialog = None;
        self.composer.set_placeholder(list_placeholder());
        self.palette.close();
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

    /// Something on screen moves (a spinner): the loop sends [`UiEvent::Animate`] ~10×/s.
    pub fn is_animating(&self) -> bool {
        match &self.view {
            View::Detail(id) => self.panes.get(id).is_some_and(|p| p.log.is_animating()),
            View::List => false,
        }
    }

    /// Text copied by a finished selection (once).
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
    }
}

fn list_placeholder() -> &'static str {
    t(Key::ListPlaceholder)
}

fn detail_placeholder() -> &'static str {
    t(Key::DetailPlaceholder)
}
