//! The event loop: terminal input, manager events and answers to calls feed the app; the app's
//! effects become manager calls (run as tasks, so a slow merge never blocks typing). The manager
//! is reached only through a `codiva_client::Client` (in-process or over `codiva serve`): its
//! requests and events are the protocol's types. Redraws
//! are coalesced: every pending event is handled first, then one frame is drawn, at most one
//! frame per [`FRAME_INTERVAL`] ([`STREAM_FRAME_INTERVAL`] while only streamed text changed);
//! nothing is drawn while nothing changes. While a frame is owed, manager events are not
//! waited for one by one: they are taken in one go before the frame (a streaming reply wakes
//! the loop per frame, not per line). Frames go out in one write each.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use codiva_client::{Client, ClientError, Update};
use codiva_protocol::manager::{DiscardOutcome, ManagerEvent};
use codiva_protocol::methods::request;
use codiva_protocol::params::{
    Answer, ConfigSetParams, ConfirmParams, CreateParams, FullMessageParams, ModelParams, NoParams,
    PermissionParams, QuestionParams, ReadParams, RenameParams, ResumeParams, SendParams,
    SessionParams,
};
use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::{App, AppInfo, Done, Effect, UiEvent};
use crate::composer::History;
use crate::i18n::{Key, t, tf};
use crate::terminal;

/// At most ~60 frames a second.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(16);
/// At most ~30 frames a second while only streamed text changed (the tail follows as smoothly
/// to the eye, for half the drawing).
pub const STREAM_FRAME_INTERVAL: Duration = Duration::from_millis(33);
/// Bytes of terminal output buffered per frame.
const FRAME_BUFFER: usize = 64 * 1024;
/// While a frame is owed, manager events wait for it (one wake-up per frame, not per
/// streamed line) unless the last frame found at least this many waiting: then they are taken
/// as they come, so a burst never overruns the event channel.
const BATCH_LIMIT: usize = 512;
/// Spinner frames, only while something on screen spins.
pub const ANIMATION_INTERVAL: Duration = Duration::from_millis(100);

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
}

/// Runs the UI until the user quits. The terminal is restored on every path out.
pub async fn run(manager: Client, options: TuiOptions) -> io::Result<()> {
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
) -> io::Result<()> {
    // One write per frame: stdout alone is line-buffered in 1 KiB pieces (a frame that
    // scrolls the log is several KiB of cells).
    let backend = CrosstermBackend::new(io::BufWriter::with_capacity(FRAME_BUFFER, io::stdout()));
    let viewport = if modes.alternate_screen {
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
    let mut alerts = Alerts {
        notifier: options.notifier.clone(),
        watch: crate::notify::StatusWatch::default(),
        counts: options.status_counts.clone(),
    };
    let (snapshot, mut events) = manager
        .subscribe()
        .await
        .map_err(|err| io::Error::other(err.to_string()))?;
    take_sessions(&mut app, &mut alerts, snapshot.sessions);
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Done>();
    let mut input = EventStream::new();
    let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(false);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut animation = tokio::time::interval(ANIMATION_INTERVAL);
    animation.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // Code highlighted off the UI thread: draw again when a block is done.
    let highlighted = std::sync::Arc::new(tokio::sync::Notify::new());
    let notify = highlighted.clone();
    crate::markdown::set_waker(move || notify.notify_one());
    let mut dirty = true;
    // Whether something besides streamed text changed since the last frame.
    let mut urgent = true;
    let mut last_frame = Instant::now();
    let mut backlog = 0;
    let started = Instant::now();
    loop {
        app.set_now(started.elapsed());
        if dirty && Instant::now() >= frame_due(last_frame, urgent) {
            // What arrived while the frame was owed.
            backlog = 0;
            while let Some(update) = events.try_recv() {
                backlog += 1;
                match update {
                    Update::Event { event, .. } => {
                        alerts.observe(&event, &app);
                        let effects = app.handle(UiEvent::Manager(Box::new(event)));
                        run_effects(&manager, &options, &app, effects, &done_tx);
                    }
                    Update::Resync(snapshot) => {
                        take_sessions(&mut app, &mut alerts, snapshot.sessions);
                    }
                }
            }
            let completed = terminal.draw(|frame| app.render(frame))?;
            let hyperlinks = hyperlinks(&app, completed.buffer);
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
        let due = frame_due(last_frame, urgent);
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
                Some(Ok(event)) => ui_event(event),
                Some(Err(_)) | None => break,
            },
            update = events.recv(), if !dirty || backlog >= BATCH_LIMIT => match update {
                Some(Update::Event { event, .. }) => {
                    alerts.observe(&event, &app);
                    Some(UiEvent::Manager(Box::new(event)))
                }
                Some(Update::Resync(snapshot)) => {
                    // Events were lost (too slow to keep up): take the sessions again.
                    take_sessions(&mut app, &mut alerts, snapshot.sessions);
                    dirty = true;
                    None
                }
                None => break,
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
            _ = animation.tick(), if app.is_animating() => Some(UiEvent::Animate),
            _ = highlighted.notified() => {
                dirty = true;
                None
            }
            _ = tokio::time::sleep_until(due), if dirty => None,
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
                let (done, now) =
                    terminal::hand_over(*modes, options.mouse, run_foreground(what, cwd)).await?;
                *modes = now;
                input = EventStream::new();
                terminal.clear()?;
                app.handle(UiEvent::Done(done));
            }
            // Coalesce: everything already waiting is handled before the next frame.
            while let Some(Update::Event { event, .. }) = events.try_recv() {
                urgent |= !is_stream(&event);
                alerts.observe(&event, &app);
                let effects = app.handle(UiEvent::Manager(Box::new(event)));
                run_effects(&manager, &options, &app, effects, &done_tx);
            }
        }
        if app.should_quit() {
            break;
        }
    }
    let _ = app.composer_mut().history().save(&options.history_path);
    Ok(())
}

/// When the next frame may be drawn.
fn frame_due(last_frame: Instant, urgent: bool) -> Instant {
    last_frame
        + if urgent {
            FRAME_INTERVAL
        } else {
            STREAM_FRAME_INTERVAL
        }
}

/// Streamed text only (drawn at [`STREAM_FRAME_INTERVAL`]).
fn is_stream(event: &ManagerEvent) -> bool {
    matches!(
        event,
        ManagerEvent::Event {
            event: codiva_protocol::session::SessionEvent::Stream { .. },
            ..
        }
    )
}

/// Every session's row, as from the manager (at start, and after a resync).
fn take_sessions(
    app: &mut App,
    alerts: &mut Alerts,
    sessions: Vec<codiva_protocol::manager::SessionInfo>,
) {
    for session in sessions {
        let event = ManagerEvent::Session { session };
        alerts.observe(&event, app);
        app.handle(UiEvent::Manager(Box::new(event)));
    }
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

fn run_effects(
    manager: &Client,
    options: &TuiOptions,
    app: &App,
    effects: Vec<Effect>,
    done: &mpsc::UnboundedSender<Done>,
) {
    for effect in effects {
        match effect {
            Effect::SaveHistory => {
                let _ = app.composer_history_save(&options.history_path);
            }
            Effect::Foreground { .. } => {}
            Effect::EditPrompt => {
                let text = std::fs::read_to_string(&options.prompt_path).unwrap_or_default();
                let _ = done.send(Done::EditPrompt(text));
            }
            Effect::SavePrompt { text } => {
                let result = save_prompt(&options.prompt_path, &text);
                let _ = done.send(match result {
                    Ok(()) => Done::Info(tf(
                        Key::InfoPromptSaved,
                        &[&options.prompt_path.display().to_string()],
                    )),
                    Err(err) => Done::Error(tf(
                        Key::ErrPromptSave,
                        &[&options.prompt_path.display().to_string(), &err.to_string()],
                    )),
                });
            }
            Effect::OpenUrl { url } => {
                let done = done.clone();
                tokio::spawn(async move {
                    if let Err(err) = codiva_os::desktop_notify::open_url(&url).await {
                        let _ =
                            done.send(Done::Error(tf(Key::ErrOpenUrl, &[&url, &err.to_string()])));
                    }
                });
            }
            Effect::Quit => {}
            effect => {
                let manager = manager.clone();
                let done = done.clone();
                let model = app.info.model.clone();
                tokio::spawn(async move {
                    if let Some(answer) = call(&manager, effect, model).await {
                        let _ = done.send(answer);
                    }
                });
            }
        }
    }
}

/// Runs `$SHELL` or `$EDITOR` in `cwd` with the terminal (`codiva_os::foreground` spawns and
/// reaps it); says how it ended.
async fn run_foreground(what: crate::app::Foreground, cwd: PathBuf) -> Done {
    use crate::i18n_views::{V, vtf};
    let env = |name: &str| std::env::var(name).ok();
    let argv = match &what {
        crate::app::Foreground::Shell => {
            codiva_os::foreground::shell_command(env("SHELL").as_deref())
        }
        crate::app::Foreground::Editor { path } => {
            let mut argv = codiva_os::foreground::editor_command(
                env("VISUAL").as_deref(),
                env("EDITOR").as_deref(),
            );
            argv.push(path.clone().unwrap_or_else(|| ".".to_owned()));
            argv
        }
    };
    let name = argv.first().cloned().unwrap_or_default();
    match codiva_os::foreground::run(&argv, &cwd, &[]).await {
        Ok(status) => {
            let code = status
                .code()
                .map_or_else(|| "signal".to_owned(), |code| code.to_string());
            Done::Info(vtf(V::ShellBack, &[&name, &code]))
        }
        Err(err) => Done::Error(vtf(V::ShellFailed, &[&name, &err.to_string()])),
    }
}

fn save_prompt(path: &std::path::Path, text: &str) -> io::Result<()> {
    if text.trim().is_empty() {
        return match std::fs::remove_file(path) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        };
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("md.tmp");
    std::fs::write(&tmp, format!("{}\n", text.trim_end()))?;
    std::fs::rename(tmp, path)
}

/// A discard or remove refused because the session changed since its preview: the fresh
/// preview the refusal carries, to confirm again. `None` for any other error.
pub fn stale_discard(id: &str, forget: bool, err: &ClientError) -> Option<Done> {
    let fresh = err.refusal()?.fresh.as_ref()?;
    Some(Done::DiscardPreview {
        id: id.to_owned(),
        forget,
        preview: fresh.preview.clone(),
        token: fresh.confirm_token.clone(),
        changed: true,
    })
}

/// Runs one manager call; returns what the app should hear about it.
async fn call(manager: &Client, effect: Effect, default_model: Option<String>) -> Option<Done> {
    // A git error comes with its fix when it has a known one (committer identity, a lock…).
    let error = |err: ClientError| {
        Some(Done::Error(crate::i18n_views::with_git_fix(
            &crate::i18n::manager_error(&err),
        )))
    };
    let session = |id: &str| SessionParams {
        session_id: id.to_owned(),
    };
    match effect {
        Effect::Create { prompt } => manager
            .call::<request::SessionCreate>(CreateParams {
                prompt,
                images: Vec::new(),
                model: default_model,
                permission_mode: None,
                approval_policy: None,
            })
            .await
            .err()
            .and_then(error),
        Effect::Send { id, text } => manager
            .call::<request::SessionSend>(SendParams {
                session_id: id,
                text,
                images: Vec::new(),
            })
            .await
            .err()
            .and_then(error),
        Effect::Interrupt { id } => manager
            .call::<request::SessionInterrupt>(session(&id))
            .await
            .err()
            .and_then(error),
        Effect::Resume { id } => manager
            .call::<request::SessionResume>(ResumeParams {
                session_id: id,
                text: None,
            })
            .await
            .err()
            .and_then(error),
        Effect::RespondPermission {
            id,
            request_id,
            response,
        } => manager
            .call::<request::SessionRespondPermission>(permission_params(id, request_id, response))
            .await
            .err()
            .and_then(error),
        Effect::AnswerQuestion {
            id,
            request_id,
            response,
        } => manager
            .call::<request::SessionAnswerQuestion>(question_params(id, request_id, response))
            .await
            .err()
            .and_then(error),
        Effect::SetApprovalPolicy { id, policy } => manager
            .call::<request::SessionSetApprovalPolicy>(codiva_protocol::params::ApprovalParams {
                session_id: id.clone(),
                policy: policy.clone(),
            })
            .await
            .err()
            .and_then(error),
        Effect::SetModel { id, model } => match manager
            .call::<request::SessionSetModel>(ModelParams {
                session_id: id.clone(),
                model: model.clone(),
            })
            .await
        {
            Ok(_) => Some(Done::Info(tf(
                Key::InfoModelSet,
                &[&id, model.as_deref().unwrap_or(t(Key::DefaultModel))],
            ))),
            Err(err) => error(err),
        },
        Effect::Read { id } => {
            let read = |after, subagent| {
                manager.call::<request::SessionRead>(ReadParams {
                    session_id: id.clone(),
                    after,
                    limit: Some(1000),
                    subagent,
                })
            };
            let mut entries = Vec::new();
            let mut after = None;
            loop {
                match read(after, None).await {
                    Ok(page) => {
                        entries.extend(page.entries);
                        match page.next_after {
                            Some(next) => after = Some(next),
                            None => break,
                        }
                    }
                    Err(err) => return error(err),
                }
            }
            // Each subagent's own log, for its card.
            let mut subagents = Vec::new();
            let mut todos = Vec::new();
            if let Ok(snapshot) = manager.call::<request::SessionSnapshot>(session(&id)).await {
                todos = snapshot.todo_items;
                for view in snapshot.subagents {
                    let entries = match read(None, Some(view.tool_use_id.clone())).await {
                        Ok(page) => page.entries,
                        Err(_) => Vec::new(),
                    };
                    subagents.push((view, entries));
                }
            }
            Some(Done::Read {
                id,
                entries,
                subagents,
                todos,
            })
        }
        Effect::Diff { id } => match manager.call::<request::SessionDiffText>(session(&id)).await {
            Ok(diff) => Some(Done::Diff {
                id,
                text: diff.text,
                truncated: diff.truncated,
            }),
            Err(err) => error(err),
        },
        Effect::FullMessage { id, entry } => {
            let params = FullMessageParams {
                session_id: id.clone(),
                entry,
                subagent: None,
            };
            let text = manager
                .call::<request::SessionFullMessage>(params)
                .await
                .map(|result| result.text)
                .map_err(|err| crate::i18n::manager_error(&err));
            Some(Done::FullMessage { id, entry, text })
        }
        Effect::MergePreview { id } => {
            match manager.call::<request::SessionDiff>(session(&id)).await {
                Ok(stat) => Some(Done::MergePreview { id, stat }),
                Err(err) => error(err),
            }
        }
        Effect::Restore { id } => match manager.call::<request::SessionRestore>(session(&id)).await
        {
            Ok(result) => Some(Done::Info(crate::i18n_views::vtf(
                crate::i18n_views::V::InfoRestored,
                &[&result.session.title],
            ))),
            Err(err) => error(err),
        },
        Effect::Rename { id, title } => match manager
            .call::<request::SessionRename>(RenameParams {
                session_id: id,
                title,
            })
            .await
        {
            Ok(result) => Some(Done::Info(crate::i18n_views::vtf(
                crate::i18n_views::V::InfoRenamed,
                &[&result.session.title],
            ))),
            Err(err) => error(err),
        },
        Effect::Merge { id } => match manager.call::<request::SessionMerge>(session(&id)).await {
            Ok(result) => Some(Done::Info(tf(
                Key::InfoMerged,
                &[&result.session.branch, &result.session.base],
            ))),
            Err(err) => error(err),
        },
        Effect::DiscardPreview { id, forget } => match discard(manager, &id, forget, None).await {
            Ok(DiscardOutcome::NeedsConfirmation {
                preview,
                confirm_token,
            }) => Some(Done::DiscardPreview {
                id,
                forget,
                preview,
                token: confirm_token,
                changed: false,
            }),
            Ok(DiscardOutcome::Removed { id }) => Some(Done::Info(tf(Key::InfoRemoved, &[&id]))),
            Ok(DiscardOutcome::Discarded { session }) => {
                Some(Done::Info(tf(Key::InfoDiscarded, &[&session.id])))
            }
            Err(err) => error(err),
        },
        Effect::Discard { id, token, forget } => {
            match discard(manager, &id, forget, Some(token)).await {
                Ok(DiscardOutcome::Discarded { session }) => {
                    Some(Done::Info(tf(Key::InfoDiscardedRestorable, &[&session.id])))
                }
                Ok(DiscardOutcome::Removed { id }) => {
                    Some(Done::Info(tf(Key::InfoRemoved, &[&id])))
                }
                Ok(DiscardOutcome::NeedsConfirmation { .. }) => None,
                Err(err) => stale_discard(&id, forget, &err).or_else(|| error(err)),
            }
        }
        Effect::Sync { id } => match manager.call::<request::SessionSync>(session(&id)).await {
            Ok(result) => Some(Done::Info(result.message)),
            Err(err) => error(err),
        },
        Effect::Pr { id } => match manager.call::<request::SessionPr>(session(&id)).await {
            Ok(result) => Some(Done::Info(crate::pr_cell::opened(&result))),
            Err(err) => error(err),
        },
        Effect::ShowConfig => Some(
            match manager.call::<request::ConfigRead>(NoParams {}).await {
                Ok(result) => Done::Config {
                    result,
                    saved: None,
                },
                Err(err) => Done::Error(crate::i18n::manager_error(&err)),
            },
        ),
        Effect::SaveConfig { key, value } => {
            let params = ConfigSetParams {
                key: key.clone(),
                value,
            };
            Some(match manager.call::<request::ConfigSet>(params).await {
                Ok(result) => Done::Config {
                    result,
                    saved: Some(key),
                },
                Err(err) => Done::Error(crate::i18n::manager_error(&err)),
            })
        }
        Effect::SaveHistory
        | Effect::OpenUrl { .. }
        | Effect::Foreground { .. }
        | Effect::EditPrompt
        | Effect::SavePrompt { .. }
        | Effect::Quit => None,
    }
}

/// `session/discard`, or `session/remove` when the session is to be forgotten.
async fn discard(
    manager: &Client,
    id: &str,
    forget: bool,
    confirm_token: Option<String>,
) -> Result<DiscardOutcome, ClientError> {
    let params = ConfirmParams {
        session_id: id.to_owned(),
        confirm_token,
    };
    if forget {
        manager.call::<request::SessionRemove>(params).await
    } else {
        manager.call::<request::SessionDiscard>(params).await
    }
}

/// The dialog's answer as `session/respondPermission` params.
fn permission_params(
    session_id: String,
    request_id: String,
    response: crate::dialog::PermissionAnswer,
) -> PermissionParams {
    PermissionParams {
        session_id,
        request_id,
        decision: None,
        option: Some(response.option),
        suggestion: None,
        message: response.message,
    }
}

/// The dialog's answer as `session/answerQuestion` params.
fn question_params(
    session_id: String,
    request_id: String,
    response: codiva_protocol::agent::QuestionResponse,
) -> QuestionParams {
    use codiva_protocol::agent::QuestionResponse;
    match response {
        QuestionResponse::Answers(answers) => QuestionParams {
            session_id,
            request_id,
            answers: answers
                .into_iter()
                .map(|(question, labels)| (question, Answer::Many(labels)))
                .collect(),
            decline: false,
            message: None,
        },
        QuestionResponse::Decline { message } => QuestionParams {
            session_id,
            request_id,
            answers: Default::default(),
            decline: true,
            message,
        },
    }
}
