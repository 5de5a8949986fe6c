//! The app: one state owned by the event loop. `App::handle` takes UI events (keys, paste,
//! manager events, results of earlier calls) and returns [`Effect`]s — calls for the session
//! manager, which the loop runs and answers with [`UiEvent::Done`]. `App::render` draws a frame.
//! No IO here, so every screen state is a snapshot test away.

mod activity;
mod answers;
mod attempts;
mod attempts_form;
mod commands;
mod compare_view;
mod composer_mode;
mod config_view;
mod diff_anchor;
mod diff_view;
mod effects;
mod events;
mod filter;
mod finish;
mod frame;
mod groups;
mod help;
mod keys;
mod list_view;
mod log_search;
mod login;
mod login_view;
mod message_view;
mod mouse;
mod navigation;
mod notice;
mod outside_view;
mod overlay;
mod palette;
mod pane;
mod picker;
mod plan_usage;
mod repair;
mod requests;
mod resources;
mod review_panel;

use std::collections::HashMap;
use std::time::Duration;

use codiva_protocol::manager::SessionInfo;
use ratatui::Frame;

use crate::composer::Composer;
use crate::i18n::{AppText, t, tf};
pub use commands::{Command, CommandText};
pub use mouse::{Selection, osc52};
use pane::Pane;

pub use effects::{
    AppInfo, Confirm, Done, Effect, Focus, Foreground, Purpose, RemoteHost, RunMode, UiEvent, View,
};

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
    /// The manager's `seq` of the event handled next ([`App::at_seq`]).
    manager_seq: Option<u64>,
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
    /// Where the last frame put the caret (`None`: hidden).
    cursor: Option<(u16, u16)>,
    /// Prompts this client answered (until their close arrives): any other that closes while
    /// its dialog is shown was resolved by another client of the daemon.
    answered: std::collections::HashSet<String>,
    quit: bool,
    /// The user asked `/shutdown` (with the quit).
    shutdown: bool,
    /// No agent was installed and the user asked to look again (with the quit).
    recheck: bool,
    /// A view over the body that has the keys (pickers, diff, config).
    overlay: Option<overlay::Overlay>,
    /// The session list's filter.
    filter: Option<filter::ListFilter>,
    /// A third answer to the open confirmation: its key, effects and the choices line.
    confirm_extra: Option<(char, Vec<Effect>, String)>,
    /// The list rows the last frame showed (for the mouse).
    list_rows: Vec<groups::ListRow>,
    /// The groups of attempts, and the ones collapsed here.
    groups: groups::Groups,
    /// The compare view, while a diff opened from it is shown (it comes back when the diff
    /// closes).
    compare_behind: Option<Box<compare_view::CompareView>>,
    /// The list's selection is this group's parent row (`selected` then names none of its
    /// sessions for the keys that act on one).
    selected_group: Option<String>,
    /// The login's plan usage, as the agents reported it (the header's gauges).
    plan: plan_usage::PlanView,
    /// The inbox key came while the waiting prompts were still being taken from the sessions'
    /// snapshots (just after attaching): it goes to the first that arrives.
    inbox_owed: bool,
    /// How many of the start-up warnings (`info.warnings`) were shown: each is the notice in
    /// turn, the next once the one before has gone.
    warnings_shown: usize,
}

impl App {
    pub fn new(info: AppInfo) -> Self {
        let mut app = App {
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
            notice: None,
            collecting: None,
            set_aside: None,
            drafts: HashMap::new(),
            seq: 0,
            manager_seq: None,
            layout: mouse::Layout::default(),
            selection: None,
            clipboard: None,
            frame_tick: 0,
            now: Duration::ZERO,
            seen_at: HashMap::new(),
            shown_dialog: None,
            cursor: None,
            answered: std::collections::HashSet::new(),
            quit: false,
            shutdown: false,
            recheck: false,
            overlay: None,
            filter: None,
            confirm_extra: None,
            list_rows: Vec::new(),
            groups: groups::Groups::default(),
            selected_group: None,
            compare_behind: None,
            plan: plan_usage::PlanView::default(),
            inbox_owed: false,
            warnings_shown: 0,
        };
        app.next_startup_warning();
        app
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// The user quit with `/shutdown`: the daemon and its agents are to stop.
    pub fn shutdown_requested(&self) -> bool {
        self.shutdown
    }

    /// The user quit to have the agents looked for again (none was installed): the manager
    /// is to be started afresh and the UI run again with the composer's text.
    pub fn recheck_requested(&self) -> bool {
        self.recheck
    }

    /// The UI runs again after the agents were looked for: says what was found, keeps `draft`
    /// in the composer.
    pub fn rechecked(&mut self, draft: &str) {
        self.composer.set_text(draft);
        let found = self
            .info
            .agents
            .iter()
            .find(|agent| agent.status == codiva_protocol::agent::AgentStatus::Ready);
        match found {
            Some(agent) => {
                let text = tf(AppText::AgentFound, &[&agent.name]);
                self.set_notice(text, false);
            }
            None => self.set_notice(t(AppText::StillNoAgent), true),
        }
    }

    /// Attached again after the connection was lost: the session that was open opens again
    /// (when it is still there) and the composer gets back what it held, with a notice.
    pub fn resume(&mut self, resume: &crate::run::Resume) -> Vec<Effect> {
        let mut effects = Vec::new();
        if let Some(id) = &resume.open
            && self.sessions.iter().any(|s| s.id == *id)
        {
            effects = self.open_detail(id.clone());
        }
        self.composer.set_text(&resume.draft);
        self.set_notice(t(AppText::Reattached).to_owned(), false);
        effects
    }

    /// Saves the composer's input history (after a submit).
    pub fn save_input_history(&self, path: &std::path::Path) -> std::io::Result<()> {
        self.composer.input_history().save(path)
    }

    pub fn composer_mut(&mut self) -> &mut Composer {
        &mut self.composer
    }

    pub fn sessions(&self) -> &[SessionInfo] {
        &self.sessions
    }

    /// The session the list's selection is on (`None` on a group's parent row).
    fn selected_session(&self) -> Option<&SessionInfo> {
        if self.selected_group.is_some() {
            return None;
        }
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

    /// Handles one event; returns what the loop should do.
    pub fn handle(&mut self, event: UiEvent) -> Vec<Effect> {
        let effects = self.handle_event(event);
        self.expire_notice();
        effects
    }

    fn handle_event(&mut self, event: UiEvent) -> Vec<Effect> {
        match event {
            UiEvent::Key(key) => {
                // Another key than the inbox's: the user went on, nothing is owed any more.
                self.inbox_owed = false;
                self.key(key)
            }
            UiEvent::Paste(text) => {
                if self.paste_into_overlay(&text) {
                    return Vec::new();
                }
                if self.paste_into_form(&text) {
                    return Vec::new();
                }
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

    /// Draws the whole screen.
    pub fn render(&mut self, frame: &mut Frame) {
        self.cursor = None;
        // The diff view's comments as the rows say now (its footer hint depends on them).
        self.sync_review();
        frame::render(self, frame);
        if let Some(selection) = self.selection {
            if selection.done {
                self.clipboard = Some(selection.text(frame.buffer_mut()));
                self.selection = None;
            } else {
                selection.highlight(frame.buffer_mut());
            }
        }
    }

    /// Where the last frame put the caret (what it set on its `Frame`), `None` when hidden.
    pub fn cursor(&self) -> Option<(u16, u16)> {
        self.cursor
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
