//! The event loop: terminal input, manager events and answers to calls feed the app; the app's
//! effects become manager calls (run as tasks, so a slow merge never blocks typing). The manager
//! is reached only through a `codiva_client::Client` (in-process or over `codiva serve`): its
//! requests and events are the protocol's types. Redraws are coalesced: every pending event is
//! handled first, then one frame is drawn, at most one frame per [`FRAME_INTERVAL`]
//! ([`STREAM_FRAME_INTERVAL`] while only streamed text changed, [`FAST_STREAM_FRAME_INTERVAL`]
//! while it comes faster than anyone reads); nothing is drawn while nothing changes. While a
//! frame is owed, manager events are not waited for one by one: they are taken in one go before
//! the frame. A frame owed for streamed text alone is drawn when the next batch of text arrives
//! after its interval (the core hands an agent's lines over in batches), not by a timer of its
//! own (a wake-up of its own), with [`STREAM_FALLBACK`] as the latest it is drawn if no batch
//! follows. The loop's one deadline (that, or the spinner's) is a timerfd
//! (`codiva_os::timer`), which wakes the thread once. Frames go out in one write each.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use codiva_client::{Client, Subscription, Update};
use codiva_protocol::ClientRequest;
use codiva_protocol::manager::{ManagerEvent, SequencedEvent};
use codiva_protocol::params::NoParams;
use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::{App, AppInfo, Done, Effect, UiEvent};
use crate::composer::InputHistory;
use crate::terminal;

mod backend;
mod effects;
mod input;
mod pacing;
pub mod requests;
mod scroll;
#[cfg(test)]
mod scroll_tests;

use backend::SizedBackend;

use effects::{run_effects, run_foreground};
use pacing::{Frames, StreamPace, is_stream};

/// At most ~60 frames a second.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(16);
/// At most 20 frames a second while only streamed text changed: the tail still follows
/// smoothly (the core hands an agent's lines over every ~50 ms while they come densely), for
/// two thirds of the drawing at 30 frames a second.
pub const STREAM_FRAME_INTERVAL: Duration = Duration::from_millis(50);
/// At most 10 frames a second while streamed text comes faster than anyone reads along: the
/// last frame brought half a screen of it or more (a model writes a few lines a second; this is
/// a screen a second at 20 frames a second, and each frame's drawing is most of the UI's CPU
/// then, docs/performance.md).
pub const FAST_STREAM_FRAME_INTERVAL: Duration = Duration::from_millis(100);
/// How much later than its interval a frame owed for streamed text alone is drawn at the latest
/// when no more text arrives (it is drawn with the next batch otherwise).
pub const STREAM_FALLBACK: Duration = Duration::from_millis(50);
/// Bytes of terminal output buffered per frame.
const FRAME_BUFFER: usize = 64 * 1024;
/// Spinner frames, only while something on screen spins.
pub const ANIMATION_INTERVAL: Duration = Duration::from_millis(100);

pub struct TuiOptions {
    pub info: AppInfo,
    /// Where the composer's input history of this repository is kept.
    pub input_history_path: PathBuf,
    /// `.codiva/prompt.md` of the repository.
    pub prompt_path: PathBuf,
    /// Take mouse events (config `mouse`, default on).
    pub mouse: bool,
    /// Notifications (config `notifications`; the channel detected from the terminal).
    pub notifier: crate::notify::Notifier,
    /// Session status counts for the crash log (`crate::crash`); the loop keeps them current.
    pub status_counts: crate::crash::StatusCounts,
    /// The UI runs again after [`Quit::Recheck`]: the composer's text then.
    pub rechecked: Option<String>,
    /// The UI runs again after [`Quit::Lost`], attached anew: what the user had then.
    pub resume: Option<Resume>,
}

/// What the user had on screen when the connection to the manager was lost: the UI attached
/// again comes back with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resume {
    /// What the composer held.
    pub draft: String,
    /// The session that was open, if one was.
    pub open: Option<String>,
}

/// How the UI ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quit {
    /// `/exit`, a closed terminal, a signal: the sessions stay with their manager.
    Detach,
    /// `/shutdown`: the daemon and every agent are to stop.
    Shutdown,
    /// The connection to the manager ended (its daemon stopped, an SSH connection dropped):
    /// the caller attaches again and runs the UI with [`TuiOptions::resume`] set to this.
    Lost(Resume),
    /// No agent was installed and the user asked to look again: the caller starts the manager
    /// afresh (it finds the agents installed since) and runs the UI again with
    /// `TuiOptions::rechecked` set to `draft`, what the composer held.
    Recheck { draft: String },
}

/// Runs the UI until the user quits. The terminal is restored on every path out.
pub async fn run(manager: Client, options: TuiOptions) -> io::Result<Quit> {
    let modes = terminal::enter(options.mouse)?;
    terminal::restore_on_panic(modes);
    let mut modes = modes;
    let result = run_in_terminal(manager, options, &mut modes).await;
    terminal::leave(modes);
    result
}

async fn run_in_terminal(
    manager: Client,
    options: TuiOptions,
    modes: &mut terminal::TerminalModes,
) -> io::Result<Quit> {
    let mut screen = open_screen(modes)?;
    let (mut ui, mut events, mut done_rx) = start(manager, options).await?;
    let mut input = input::Input::new(EventStream::new());
    let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(false);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    // Code highlighted off the UI thread: draw again when a block is done.
    let highlighted = std::sync::Arc::new(tokio::sync::Notify::new());
    let notify = highlighted.clone();
    crate::markdown::set_waker(move || notify.notify_one());
    let mut frames = Frames::new();
    // The manager's event stream ended: the connection is gone.
    let mut lost = false;
    // The loop's one deadline (the owed frame's or the spinner's), on a timer of its own
    // (codiva_os::timer: tokio's wheel would wake the thread a second time for most of them).
    let timer = codiva_os::timer::Timer::new()?;
    let mut armed: Option<Instant> = None;
    let utc_offset = codiva_os::clock::utc_offset_seconds().unwrap_or(0);
    let wall_clock = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    };
    loop {
        ui.set_now();
        if ui.app.set_wall_clock(wall_clock(), utc_offset) {
            frames.dirty = true;
            frames.spinner_only = false;
        }
        if frames.dirty && Instant::now() >= frames.due(&ui.pace) {
            draw(&mut ui, &mut screen, &mut frames, &mut events)?;
        }
        let deadline = frames.deadline(ui.app.is_animating(), &ui.pace);
        if deadline != armed {
            match deadline {
                Some(at) => timer.arm_at(at)?,
                None => timer.disarm()?,
            }
            armed = deadline;
        }
        let event = tokio::select! {
            event = input.next() => match event {
                Some(Ok(Event::FocusGained)) => {
                    ui.alerts.notifier.on_focus(true);
                    None
                }
                Some(Ok(Event::FocusLost)) => {
                    ui.alerts.notifier.on_focus(false);
                    None
                }
                Some(Ok(event)) => {
                    if matches!(event, Event::Resize(..)) {
                        screen.backend().forget_size();
                    }
                    ui_event(event)
                }
                Some(Err(_)) | None => break,
            },
            update = events.recv(), if frames.takes_events() => match update {
                Some(Update::Event { event, seq }) => {
                    ui.took(&event, seq);
                    Some(UiEvent::Manager(Box::new(event)))
                }
                Some(Update::Resync(snapshot)) => {
                    // Events were lost (too slow to keep up): take the sessions again.
                    ui.resync(snapshot);
                    frames.dirty = true;
                    None
                }
                None => {
                    lost = true;
                    break;
                }
            },
            Some(done) = done_rx.recv() => Some(UiEvent::Done(done)),
            _ = tick.tick() => {
                frames.dirty |= ui.tick();
                None
            }
            fired = timer.expired(), if armed.is_some() => {
                fired?;
                armed = None;
                frames.spinner_due();
                None
            }
            _ = highlighted.notified() => {
                frames.dirty = true;
                None
            }
            _ = signals.recv() => break,
        };
        if let Some(event) = event {
            let handover = ui.handle(event, &mut frames);
            // A program that takes the terminal runs here, in the loop: input stops being read
            // (it is the program's) and the screen is redrawn whole after.
            for (what, cwd) in handover {
                drop(input);
                hand_over(&mut ui, &mut screen, modes, what, cwd).await?;
                input = input::Input::new(EventStream::new());
            }
            // Coalesce: everything already waiting is handled before the next frame.
            while let Some(SequencedEvent { event, seq }) = events.try_recv() {
                frames.urgent |= !ui.manager_event(event, seq);
            }
        }
        if ui.app.should_quit() {
            break;
        }
    }
    let _ = ui
        .app
        .composer_mut()
        .input_history()
        .save(&ui.options.input_history_path);
    Ok(quit(&mut ui.app, lost))
}

/// The terminal the UI draws on: full screen in the alternate screen, else inline over the
/// terminal's rows. One write per frame: stdout alone is line-buffered in 1 KiB pieces (a
/// frame that scrolls the log is several KiB of cells).
fn open_screen(modes: &terminal::TerminalModes) -> io::Result<Screen> {
    let mut backend = SizedBackend::new(CrosstermBackend::new(io::BufWriter::with_capacity(
        FRAME_BUFFER,
        io::stdout(),
    )));
    let viewport = if modes.alternate_screen {
        backend.scroll_frames();
        Viewport::Fullscreen
    } else {
        let rows = crossterm::terminal::size().map_or(10, |(_, rows)| rows);
        Viewport::Inline(rows)
    };
    Terminal::with_options(backend, TerminalOptions { viewport })
}

/// The app with its input history and draft, the manager's sessions and the events after them, and
/// the first requests (each session's state, the log of a session open again, every agent's
/// login).
async fn start(
    manager: Client,
    options: TuiOptions,
) -> io::Result<(Ui, Subscription, mpsc::UnboundedReceiver<Done>)> {
    let mut app = App::new(options.info.clone());
    if let Ok(history) = InputHistory::load(&options.input_history_path) {
        app.composer_mut().set_input_history(history);
    }
    if let Some(draft) = &options.rechecked {
        app.rechecked(draft);
    }
    let alerts = Alerts {
        notifier: options.notifier.clone(),
        watch: crate::notify::StatusWatch::default(),
        counts: options.status_counts.clone(),
    };
    let (snapshot, events) = manager
        .subscribe()
        .await
        .map_err(|err| io::Error::other(err.to_string()))?;
    let (done, done_rx) = mpsc::unbounded_channel::<Done>();
    let mut ui = Ui {
        manager,
        options,
        app,
        alerts,
        done,
        pace: StreamPace::default(),
        started: Instant::now(),
    };
    ui.resync(snapshot);
    if let Some(resume) = ui.options.resume.clone() {
        let effects = ui.app.resume(&resume);
        ui.run(effects);
    }
    // Each agent's login, from its own check (a second or so; the screen does not wait).
    ui.run(vec![Effect::request(ClientRequest::AgentsList(
        NoParams {},
    ))]);
    Ok((ui, events, done_rx))
}

/// The frame owed: what arrived while it was owed is handled first, the spinner moves if due,
/// then the frame is drawn with its hyperlinks, and a copy asked for goes to the clipboard.
fn draw(
    ui: &mut Ui,
    screen: &mut Screen,
    frames: &mut Frames,
    events: &mut Subscription,
) -> io::Result<()> {
    use std::io::Write as _;
    frames.backlog = 0;
    while let Some(SequencedEvent { event, seq }) = events.try_recv() {
        frames.backlog += 1;
        ui.manager_event(event, seq);
    }
    // The spinner moves on whatever frame is due, without a timer of its own.
    if ui.app.is_animating() && Instant::now() >= frames.last_animation + ANIMATION_INTERVAL {
        ui.app.handle(UiEvent::Animate);
        frames.last_animation = Instant::now();
    }
    if !std::mem::take(&mut frames.spinner_only) || frames.backlog > 0 {
        frames.last_content_frame = Instant::now();
    }
    let hyperlinks = draw_frame(screen, &mut ui.app)?;
    ui.pace.framed(screen.get_frame().area());
    if !hyperlinks.is_empty() {
        let mut out = io::stdout();
        out.write_all(hyperlinks.as_bytes())?;
        out.flush()?;
    }
    if let Some(text) = ui.app.take_clipboard() {
        let in_tmux = std::env::var_os("TMUX").is_some();
        let mut out = io::stdout();
        out.write_all(crate::app::osc52(&text, in_tmux).as_bytes())?;
        out.flush()?;
    }
    frames.dirty = false;
    frames.urgent = false;
    frames.last_frame = Instant::now();
    Ok(())
}

/// Runs `$SHELL` or `$EDITOR` with the terminal, then takes it back and redraws it whole; the
/// app hears how the program ended.
async fn hand_over(
    ui: &mut Ui,
    screen: &mut Screen,
    modes: &mut terminal::TerminalModes,
    what: crate::app::Foreground,
    cwd: PathBuf,
) -> io::Result<()> {
    let (done, now) = terminal::hand_over(
        *modes,
        ui.options.mouse,
        run_foreground(what, cwd, ui.app.info.remote.as_ref()),
    )
    .await?;
    *modes = now;
    // The terminal may have been resized meanwhile.
    screen.backend().forget_size();
    screen.clear()?;
    ui.app.handle(UiEvent::Done(done));
    Ok(())
}

/// How the UI ended, once the loop is left (`lost`: the manager's event stream ended).
fn quit(app: &mut App, lost: bool) -> Quit {
    if lost {
        Quit::Lost(Resume {
            draft: app.composer_mut().text().to_owned(),
            open: match &app.view {
                crate::app::View::Detail(id) => Some(id.clone()),
                crate::app::View::List => None,
            },
        })
    } else if app.shutdown_requested() {
        Quit::Shutdown
    } else if app.recheck_requested() {
        Quit::Recheck {
            draft: app.composer_mut().text().to_owned(),
        }
    } else {
        Quit::Detach
    }
}

/// The terminal the loop draws on.
type Screen = Terminal<SizedBackend<CrosstermBackend<io::BufWriter<io::Stdout>>>>;

/// What the loop owns besides its input and its screen: the app, the manager it talks to, and
/// what the app's events and effects go through.
struct Ui {
    manager: Client,
    options: TuiOptions,
    app: App,
    alerts: Alerts,
    /// Where the answers to the app's effects go.
    done: mpsc::UnboundedSender<Done>,
    pace: StreamPace,
    started: Instant,
}

impl Ui {
    /// Runs the app's effects ([`run_effects`]).
    fn run(&self, effects: Vec<Effect>) {
        run_effects(&self.manager, &self.options, &self.app, effects, &self.done);
    }

    fn set_now(&mut self) {
        self.app.set_now(self.started.elapsed());
    }

    /// A manager event numbered `seq` was taken: its streamed text counted, its alerts
    /// raised, its place in the stream told to the app; whether it is streamed text.
    fn took(&mut self, event: &ManagerEvent, seq: u64) -> bool {
        let stream = self.pace.took(event);
        self.alerts.observe(event, &self.app);
        self.app.at_seq(seq);
        stream
    }

    /// A manager event taken and handled, its effects run; whether it is streamed text.
    fn manager_event(&mut self, event: ManagerEvent, seq: u64) -> bool {
        let stream = self.took(&event, seq);
        let effects = self.app.handle(UiEvent::Manager(Box::new(event)));
        self.run(effects);
        stream
    }

    /// Every session's row and group as the manager has them now (at start, and after a
    /// resync).
    fn resync(&mut self, snapshot: codiva_protocol::manager::ManagerSnapshot) {
        self.app.take_groups(snapshot.groups);
        let effects = take_sessions(&mut self.app, &mut self.alerts, snapshot.sessions);
        self.run(effects);
    }

    /// The clock's second: a task that panicked (codiva survived it) is said, with its crash
    /// log; whether the screen changed (a notice that timed out) — idle costs no frame.
    fn tick(&mut self) -> bool {
        let mut changed = false;
        for panic in crate::crash::take_contained() {
            let text = crate::i18n::contained_panic(&panic);
            self.app.handle(UiEvent::Done(Done::Error(text)));
            changed = true;
        }
        self.set_now();
        changed | self.app.on_tick()
    }

    /// One event for the app; its effects run, except the programs that take the terminal,
    /// which are returned for the loop to hand it over.
    fn handle(
        &mut self,
        event: UiEvent,
        frames: &mut Frames,
    ) -> Vec<(crate::app::Foreground, PathBuf)> {
        frames.dirty = true;
        self.set_now();
        frames.urgent |= !matches!(&event, UiEvent::Manager(event) if is_stream(event));
        let mut handover = Vec::new();
        let mut effects = Vec::new();
        for effect in self.app.handle(event) {
            match effect {
                Effect::Foreground { what, cwd } => handover.push((what, cwd)),
                effect => effects.push(effect),
            }
        }
        self.run(effects);
        handover
    }
}

/// Draws one frame of `app`; returns its OSC 8 hyperlinks (see [`hyperlinks`]). In full
/// screen the backend presents it ([`SizedBackend::present`]: each row compared once with what
/// the terminal shows, a scroll where rows moved up); otherwise ratatui's `draw` diffs it.
fn draw_frame<W: io::Write>(
    terminal: &mut Terminal<SizedBackend<CrosstermBackend<W>>>,
    app: &mut App,
) -> io::Result<String> {
    use ratatui::backend::Backend as _;
    if !terminal.backend().presents() {
        let completed = terminal.draw(|frame| app.render(frame))?;
        return Ok(hyperlinks(app, completed.buffer));
    }
    terminal.autoresize()?;
    app.render(&mut terminal.get_frame());
    let mut frame = std::mem::take(terminal.current_buffer_mut());
    let links = hyperlinks(app, &frame);
    let presented = terminal.backend_mut().present(&mut frame);
    // The buffer comes back blank (or as it was, after an error): the next frame is drawn in it.
    *terminal.current_buffer_mut() = frame;
    presented?;
    match app.cursor() {
        Some(position) => {
            terminal.show_cursor()?;
            terminal.set_cursor_position(position)?;
        }
        None => terminal.hide_cursor()?,
    }
    terminal.backend_mut().flush()?;
    Ok(links)
}

/// Every session's row, as from the manager (at start, and after a resync); the effects ask
/// for each session's state (`session/snapshot`, see [`App::attached`]).
fn take_sessions(
    app: &mut App,
    alerts: &mut Alerts,
    sessions: Vec<codiva_protocol::manager::SessionInfo>,
) -> Vec<Effect> {
    for event in app.rows_taken_afresh(sessions) {
        alerts.observe(&event, app);
        app.handle(UiEvent::Manager(Box::new(event)));
    }
    app.attached()
}

/// OSC 8 hyperlinks over the links on screen: the same text, rewritten inside a hyperlink, with
/// the cursor saved and restored around it (so the caret stays where the frame put it).
fn hyperlinks(app: &App, buffer: &ratatui::buffer::Buffer) -> String {
    let links = app.visible_links();
    if links.is_empty() {
        return String::new();
    }
    let mut out = String::from("\x1b7");
    for link in links {
        if link.url.chars().any(char::is_control) {
            continue;
        }
        let mut text = String::new();
        let mut x = link.x;
        while x < link.x + link.width {
            let Some(cell) = buffer.cell((x, link.y)) else {
                break;
            };
            let symbol = cell.symbol();
            text.push_str(symbol);
            let width = u16::try_from(crate::width::str_width(symbol).max(1)).unwrap_or(1);
            x = x.saturating_add(width);
        }
        if text.trim().is_empty() {
            continue;
        }
        out.push_str(&format!(
            // Underlined and blue, as `theme::link` draws it; reset after.
            "\x1b[{};{}H\x1b[34;4m\x1b]8;;{}\x1b\\{}\x1b]8;;\x1b\\\x1b[0m",
            link.y + 1,
            link.x + 1,
            link.url,
            text
        ));
    }
    out.push_str("\x1b8");
    out
}

/// Notifications when a session starts waiting, completes, fails or is interrupted (only while
/// the terminal is not focused, when it tells), and the status counts a crash report shows.
struct Alerts {
    notifier: crate::notify::Notifier,
    watch: crate::notify::StatusWatch,
    counts: crate::crash::StatusCounts,
}

impl Alerts {
    fn observe(&mut self, event: &ManagerEvent, app: &App) {
        match event {
            ManagerEvent::Session { session } => {
                if let Some(reason) = self.watch.observe(&session.id, session.status) {
                    // In auto mode codiva answers permissions itself: nothing to tell.
                    let answered_by_codiva = app.run_mode == crate::app::RunMode::Auto
                        && session.status == codiva_protocol::session::Status::AwaitingPermission;
                    if !answered_by_codiva {
                        crate::notify::deliver(self.notifier.notification(&session.title, reason));
                    }
                }
                self.counts.set(self.watch.counts());
            }
            ManagerEvent::Removed { id } => {
                self.watch.forget(id);
                self.counts.set(self.watch.counts());
            }
            _ => {}
        }
    }
}

fn ui_event(event: Event) -> Option<UiEvent> {
    match event {
        Event::Key(key) => Some(UiEvent::Key(key)),
        Event::Paste(text) => Some(UiEvent::Paste(text)),
        Event::Mouse(mouse) => Some(UiEvent::Mouse(mouse)),
        Event::Resize(..) => Some(UiEvent::Resize),
        Event::FocusGained | Event::FocusLost => None,
    }
}
