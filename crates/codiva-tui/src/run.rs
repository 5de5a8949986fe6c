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

use codiva_client::{Client, Update};
use codiva_protocol::ClientRequest;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::params::NoParams;
use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::{App, AppInfo, Done, Effect, UiEvent};
use crate::composer::History;
use crate::terminal;

mod backend;
mod effects;
mod input;
pub mod requests;
mod scroll;
#[cfg(test)]
mod scroll_tests;

use backend::SizedBackend;

use effects::{run_effects, run_foreground};

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
/// A batch of streamed text that comes this much before the frame's interval is over is drawn
/// at once: the core hands batches over ~50 ms apart (~100 ms for text faster than anyone
/// reads), so one that comes a hair early would otherwise wait for the next one (a frame a
/// batch late).
const STREAM_SLACK: Duration = Duration::from_millis(10);
/// Bytes of terminal output buffered per frame.
const FRAME_BUFFER: usize = 64 * 1024;
/// While a frame is owed, manager events wait for it (one wake-up per frame, not per
/// streamed line) unless the last frame found at least this many waiting: then they are taken
/// as they come, so a burst never overruns the event channel.
const BATCH_LIMIT: usize = 512;
/// Spinner frames, only while something on screen spins.
pub const ANIMATION_INTERVAL: Duration = Duration::from_millis(100);
/// The spinner waits this long after a frame drawn for anything else before it asks for a frame
/// of its own (longer than the gap between streamed text's frames).
const SPINNER_AFTER_CONTENT: Duration = Duration::from_millis(150);

pub struct TuiOptions {
    pub info: AppInfo,
    /// Where the instruction history of this repository is kept.
    pub history_path: PathBuf,
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
    // One write per frame: stdout alone is line-buffered in 1 KiB pieces (a frame that
    // scrolls the log is several KiB of cells).
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
    let mut terminal = Terminal::with_options(backend, TerminalOptions { viewport })?;
    let mut app = App::new(options.info.clone());
    if let Ok(history) = History::load(&options.history_path) {
        app.composer_mut().set_history(history);
    }
    if let Some(draft) = &options.rechecked {
        app.rechecked(draft);
    }
    let mut alerts = Alerts {
        notifier: options.notifier.clone(),
        watch: crate::notify::StatusWatch::default(),
        counts: options.status_counts.clone(),
    };
    let (snapshot, mut events) = manager
        .subscribe()
        .await
        .map_err(|err| io::Error::other(err.to_string()))?;
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Done>();
    let effects = take_sessions(&mut app, &mut alerts, snapshot.sessions);
    run_effects(&manager, &options, &app, effects, &done_tx);
    if let Some(resume) = &options.resume {
        let effects = app.resume(resume);
        run_effects(&manager, &options, &app, effects, &done_tx);
    }
    // Each agent's login, from its own check (a second or so; the screen does not wait).
    let agents = Effect::request(ClientRequest::AgentsList(NoParams {}));
    run_effects(&manager, &options, &app, vec![agents], &done_tx);
    let mut input = input::Input::new(EventStream::new());
    let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(false);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    // Code highlighted off the UI thread: draw again when a block is done.
    let highlighted = std::sync::Arc::new(tokio::sync::Notify::new());
    let notify = highlighted.clone();
    crate::markdown::set_waker(move || notify.notify_one());
    let mut dirty = true;
    // Whether something besides streamed text changed since the last frame.
    let mut urgent = true;
    // As if a frame was drawn an interval ago: the first one is drawn at once.
    let mut last_frame = Instant::now()
        .checked_sub(FRAME_INTERVAL)
        .unwrap_or_else(Instant::now);
    // The manager's event stream ended: the connection is gone.
    let mut lost = false;
    // When the spinner last moved (it moves with the frames that are drawn anyway).
    let mut last_animation = Instant::now();
    // The frame owed is for the spinner alone, and when the last frame that was not was drawn.
    let mut spinner_only = false;
    let mut last_content_frame = Instant::now();
    let mut backlog = 0;
    let mut pace = StreamPace::default();
    // The loop's one deadline (the owed frame's or the spinner's), on a timer of its own
    // (codiva_os::timer: tokio's wheel would wake the thread a second time for most of them).
    let timer = codiva_os::timer::Timer::new()?;
    let mut armed: Option<Instant> = None;
    let started = Instant::now();
    let utc_offset = codiva_os::clock::utc_offset_seconds().unwrap_or(0);
    let wall_clock = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    };
    loop {
        app.set_now(started.elapsed());
        if app.set_wall_clock(wall_clock(), utc_offset) {
            dirty = true;
            spinner_only = false;
        }
        if dirty && Instant::now() >= frame_due(last_frame, urgent, &pace) {
            // What arrived while the frame was owed.
            backlog = 0;
            while let Some(update) = events.try_recv() {
                backlog += 1;
                match update {
                    Update::Event { event, seq } => {
                        pace.took(&event);
                        alerts.observe(&event, &app);
                        app.at_seq(seq);
                        let effects = app.handle(UiEvent::Manager(Box::new(event)));
                        run_effects(&manager, &options, &app, effects, &done_tx);
                    }
                    Update::Resync(snapshot) => {
                        let effects = take_sessions(&mut app, &mut alerts, snapshot.sessions);
                        run_effects(&manager, &options, &app, effects, &done_tx);
                    }
                }
            }
            // The spinner moves on whatever frame is due, without a timer of its own.
            if app.is_animating() && Instant::now() >= last_animation + ANIMATION_INTERVAL {
                app.handle(UiEvent::Animate);
                last_animation = Instant::now();
            }
            if !std::mem::take(&mut spinner_only) || backlog > 0 {
                last_content_frame = Instant::now();
            }
            let hyperlinks = draw_frame(&mut terminal, &mut app)?;
            pace.framed(terminal.get_frame().area());
            if !hyperlinks.is_empty() {
                use std::io::Write as _;
                let mut out = io::stdout();
                out.write_all(hyperlinks.as_bytes())?;
                out.flush()?;
            }
            if let Some(text) = app.take_clipboard() {
                use std::io::Write as _;
                let in_tmux = std::env::var_os("TMUX").is_some();
                let mut out = io::stdout();
                out.write_all(crate::app::osc52(&text, in_tmux).as_bytes())?;
                out.flush()?;
            }
            dirty = false;
            urgent = false;
            last_frame = Instant::now();
        }
        // A frame owed for streamed text alone waits for the next batch (see the module docs).
        let wake = if urgent {
            frame_due(last_frame, urgent, &pace)
        } else {
            frame_due(last_frame, urgent, &pace) + STREAM_FALLBACK
        };
        // Nothing else to draw: the spinner's frame (see `spinner_due`).
        let deadline = if dirty {
            Some(wake)
        } else if app.is_animating() {
            Some(spinner_due(last_animation, last_content_frame))
        } else {
            None
        };
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
                    alerts.notifier.on_focus(true);
                    None
                }
                Some(Ok(Event::FocusLost)) => {
                    alerts.notifier.on_focus(false);
                    None
                }
                Some(Ok(event)) => {
                    if matches!(event, Event::Resize(..)) {
                        terminal.backend().forget_size();
                    }
                    ui_event(event)
                }
                Some(Err(_)) | None => break,
            },
            update = events.recv(), if !dirty || !urgent || backlog >= BATCH_LIMIT => match update {
                Some(Update::Event { event, seq }) => {
                    pace.took(&event);
                    alerts.observe(&event, &app);
                    app.at_seq(seq);
                    Some(UiEvent::Manager(Box::new(event)))
                }
                Some(Update::Resync(snapshot)) => {
                    // Events were lost (too slow to keep up): take the sessions again.
                    let effects = take_sessions(&mut app, &mut alerts, snapshot.sessions);
                    run_effects(&manager, &options, &app, effects, &done_tx);
                    dirty = true;
                    None
                }
                None => {
                    lost = true;
                    break;
                }
            },
            Some(done) = done_rx.recv() => Some(UiEvent::Done(done)),
            _ = tick.tick() => {
                // A task that panicked (codiva survived it): say so, with its crash log.
                for panic in crate::crash::take_contained() {
                    let text = crate::i18n::contained_panic(&panic);
                    app.handle(UiEvent::Done(Done::Error(text)));
                    dirty = true;
                }
                // No frame unless something changed (a notice that timed out): idle costs nothing.
                app.set_now(started.elapsed());
                dirty |= app.on_tick();
                None
            }
            fired = timer.expired(), if armed.is_some() => {
                fired?;
                armed = None;
                if !dirty {
                    // A frame for the spinner alone.
                    dirty = true;
                    urgent = true;
                    spinner_only = true;
                }
                None
            }
            _ = highlighted.notified() => {
                dirty = true;
                None
            }
            _ = signals.recv() => break,
        };
        if let Some(event) = event {
            dirty = true;
            app.set_now(started.elapsed());
            urgent |= !matches!(&event, UiEvent::Manager(event) if is_stream(event));
            let effects = app.handle(event);
            // A program that takes the terminal runs here, in the loop: input stops being read
            // (it is the program's) and the screen is redrawn whole after.
            let (handover, effects): (Vec<Effect>, Vec<Effect>) = effects
                .into_iter()
                .partition(|effect| matches!(effect, Effect::Foreground { .. }));
            run_effects(&manager, &options, &app, effects, &done_tx);
            for effect in handover {
                let Effect::Foreground { what, cwd } = effect else {
                    continue;
                };
                drop(input);
                let (done, now) = terminal::hand_over(
                    *modes,
                    options.mouse,
                    run_foreground(what, cwd, app.info.remote.as_ref()),
                )
                .await?;
                *modes = now;
                input = input::Input::new(EventStream::new());
                // The terminal may have been resized meanwhile.
                terminal.backend().forget_size();
                terminal.clear()?;
                app.handle(UiEvent::Done(done));
            }
            // Coalesce: everything already waiting is handled before the next frame.
            while let Some(Update::Event { event, seq }) = events.try_recv() {
                urgent |= !pace.took(&event);
                alerts.observe(&event, &app);
                app.at_seq(seq);
                let effects = app.handle(UiEvent::Manager(Box::new(event)));
                run_effects(&manager, &options, &app, effects, &done_tx);
            }
        }
        if app.should_quit() {
            break;
        }
    }
    let _ = app.composer_mut().history().save(&options.history_path);
    Ok(if lost {
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
    })
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

/// When the spinner needs a frame of its own: [`ANIMATION_INTERVAL`] after it last moved, but
/// not while other frames keep coming (streamed text is drawn ~20 times a second, and the
/// spinner moves with those frames): a frame for the spinner between two of them would take
/// the next one's place and double the wake-ups (docs/performance.md, round 6).
fn spinner_due(last_animation: Instant, last_content_frame: Instant) -> Instant {
    (last_animation + ANIMATION_INTERVAL).max(last_content_frame + SPINNER_AFTER_CONTENT)
}

/// When the next frame may be drawn.
fn frame_due(last_frame: Instant, urgent: bool, pace: &StreamPace) -> Instant {
    if urgent {
        last_frame + FRAME_INTERVAL
    } else {
        last_frame + pace.interval() - STREAM_SLACK
    }
}

/// How often frames for streamed text alone are drawn: [`STREAM_FRAME_INTERVAL`], or
/// [`FAST_STREAM_FRAME_INTERVAL`] after a frame that brought half a screen of text or more.
#[derive(Debug, Default)]
struct StreamPace {
    /// Bytes of streamed text taken since the last frame.
    since_frame: usize,
    fast: bool,
}

impl StreamPace {
    /// Counts a streamed event's text; whether `event` is streamed text.
    fn took(&mut self, event: &ManagerEvent) -> bool {
        match event {
            ManagerEvent::Event {
                event: codiva_protocol::session::SessionEvent::Stream { text, .. },
                ..
            } => {
                self.since_frame += text.len();
                true
            }
            _ => false,
        }
    }

    /// A frame of `area` was drawn.
    fn framed(&mut self, area: ratatui::layout::Rect) {
        let half_screen = usize::from(area.width) * usize::from(area.height) / 2;
        self.fast = self.since_frame >= half_screen.max(1);
        self.since_frame = 0;
    }

    fn interval(&self) -> Duration {
        if self.fast {
            FAST_STREAM_FRAME_INTERVAL
        } else {
            STREAM_FRAME_INTERVAL
        }
    }
}

/// Streamed text only (drawn at [`StreamPace::interval`]).
fn is_stream(event: &ManagerEvent) -> bool {
    matches!(
        event,
        ManagerEvent::Event {
            event: codiva_protocol::session::SessionEvent::Stream { .. },
            ..
        }
    )
}

/// Every session's row, as from the manager (at start, and after a resync); the effects ask
/// for each session's state (`session/snapshot`, see [`App::attached`]).
fn take_sessions(
    app: &mut App,
    alerts: &mut Alerts,
    sessions: Vec<codiva_protocol::manager::SessionInfo>,
) -> Vec<Effect> {
    for session in sessions {
        let event = ManagerEvent::Session { session };
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

#[cfg(test)]
mod spinner_tests {
    use super::*;

    #[test]
    fn the_spinner_asks_for_no_frame_of_its_own_while_streamed_text_is_drawn() {
        let start = Instant::now();
        // Streamed text drawn every 52 ms (the core's batches); the spinner moves with those
        // frames whenever its interval is over.
        let mut last_animation = start;
        for n in 1..40u32 {
            let frame = start + Duration::from_millis(52) * n;
            let previous = start + Duration::from_millis(52) * (n - 1);
            assert!(
                spinner_due(last_animation, previous) > frame,
                "frame {n}: the spinner's own frame would come first"
            );
            if frame >= last_animation + ANIMATION_INTERVAL {
                last_animation = frame;
            }
        }
        // Text stops: the spinner goes on alone, every interval once the text's frames are over.
        let last_text = start + Duration::from_millis(52) * 39;
        let due = spinner_due(last_animation, last_text);
        assert_eq!(due, last_text + SPINNER_AFTER_CONTENT);
        assert_eq!(spinner_due(due, last_text), due + ANIMATION_INTERVAL);
    }
}

#[cfg(test)]
mod pace_tests {
    use super::*;
    use codiva_protocol::session::SessionEvent;
    use ratatui::layout::Rect;

    fn streamed(bytes: usize) -> ManagerEvent {
        ManagerEvent::Event {
            id: "s1".into(),
            event: SessionEvent::Stream {
                text: "x".repeat(bytes),
                reset: false,
            },
        }
    }

    #[test]
    fn text_faster_than_anyone_reads_is_drawn_at_half_the_rate() {
        let screen = Rect::new(0, 0, 120, 40);
        let mut pace = StreamPace::default();
        assert_eq!(pace.interval(), STREAM_FRAME_INTERVAL);
        // A model's pace: a line or two per frame.
        for _ in 0..20 {
            assert!(pace.took(&streamed(150)));
            pace.framed(screen);
            assert_eq!(pace.interval(), STREAM_FRAME_INTERVAL);
        }
        // Half a screen (2,400 cells) in one frame's worth of batches.
        for _ in 0..3 {
            pace.took(&streamed(800));
        }
        pace.framed(screen);
        assert_eq!(pace.interval(), FAST_STREAM_FRAME_INTERVAL);
        // It slows down again: the next frame is at the usual rate.
        pace.took(&streamed(300));
        pace.framed(screen);
        assert_eq!(pace.interval(), STREAM_FRAME_INTERVAL);
        // On a small terminal half a screen is less text.
        pace.took(&streamed(1_000));
        pace.framed(Rect::new(0, 0, 80, 24));
        assert_eq!(pace.interval(), FAST_STREAM_FRAME_INTERVAL);
        // Other events are not streamed text.
        assert!(!pace.took(&ManagerEvent::Warning {
            message: "w".into()
        }));
    }
}
