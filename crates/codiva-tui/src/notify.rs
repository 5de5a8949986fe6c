//! Notifications when a session needs the user or has finished: a terminal escape sequence
//! chosen from the terminal (OSC 99 for kitty, OSC 9 for iTerm2, OSC 777 for the rxvt-style
//! terminals), wrapped for tmux when inside it; else a desktop notification (`notify-send` /
//! `osascript`, run by the core, never by this crate); only while the terminal is not focused
//! when it reports focus.
//!
//! Everything here is pure except [`deliver`]. Titles come from model output, so every text is
//! sanitised ([`sanitize_title`]): no C0/C1 control, no DEL, no `;`, one line, length-capped —
//! nothing in it can end the sequence early or start another one.
//!
//! The sequences:
//! - OSC 777 (urxvt's `notify` extension; foot, WezTerm, ghostty, Fedora's VTE, Windows
//!   Terminal): `ESC ] 777 ; notify ; <title> ; <body> BEL`.
//! - OSC 9 (iTerm2; the text only): `ESC ] 9 ; <title>: <body> BEL`.
//! - OSC 99 (kitty's desktop notification protocol): a title chunk that is not yet done, then
//!   the body chunk that shows it, each `ESC ] 99 ; <metadata> ; <payload> ESC \`, metadata
//!   `i=<id>:d=0` and `i=<id>:d=1:p=body` (keys `[a-zA-Z]`, values `[a-zA-Z0-9-_+.]`: only
//!   codiva writes the metadata; the payload is plain UTF-8 without controls).
//! - Inside tmux: `ESC P tmux; <sequence, every ESC doubled> ESC \` (needs tmux's
//!   `allow-passthrough on`; without it tmux drops the sequence, harmlessly).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use codiva_protocol::session::Status;

/// Default cap of a notification title, in characters.
pub const DEFAULT_MAX_CHARS: usize = 100;
/// Cap of a notification body, in characters.
pub const BODY_MAX_CHARS: usize = 200;

const ESC: char = '\x1b';
const BEL: &str = "\x07";
/// String terminator, 7-bit form.
const ST: &str = "\x1b\\";

/// How notifications reach the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// `ESC ] 777 ; notify ; title ; body BEL`.
    Osc777,
    /// `ESC ] 9 ; text BEL`.
    Osc9,
    /// kitty's `ESC ] 99 ; metadata ; payload ESC \`.
    Osc99,
    /// `notify-send` (Linux/BSD) or `osascript` (macOS), run by `codiva_os::desktop_notify`.
    Desktop,
    /// No way to notify.
    None,
}

/// The channel for the terminal codiva runs in, from its environment (`env` returns a
/// variable's value). Inside tmux `TERM` and `TERM_PROGRAM` are tmux's, so the variables the
/// outer terminal sets for its shells (`KITTY_WINDOW_ID`, `ITERM_SESSION_ID`, `WEZTERM_PANE`,
/// `GHOSTTY_RESOURCES_DIR`, `WT_SESSION`, `VTE_VERSION`) are looked at too. An unknown terminal
/// gets desktop notifications on a local desktop (macOS, or a `DISPLAY`/`WAYLAND_DISPLAY`
/// without SSH), else none.
pub fn detect(env: &impl Fn(&str) -> Option<String>) -> Channel {
    detect_on(env, cfg!(target_os = "macos"))
}

/// [`detect`] with the platform given (`macos`), for tests.
pub fn detect_on(env: &impl Fn(&str) -> Option<String>, macos: bool) -> Channel {
    let var = |name: &str| env(name).filter(|value| !value.trim().is_empty());
    let term = var("TERM").unwrap_or_default().to_ascii_lowercase();
    // TERM names the innermost terminal (unless it is tmux's or screen's).
    if term == "xterm-kitty" {
        return Channel::Osc99;
    }
    if term == "xterm-ghostty"
        || term == "wezterm"
        || term == "foot"
        || term.starts_with("foot-")
        || term.starts_with("rxvt-unicode")
    {
        return Channel::Osc777;
    }
    let program = var("TERM_PROGRAM").unwrap_or_default().to_ascii_lowercase();
    match program.as_str() {
        "iterm.app" => return Channel::Osc9,
        "wezterm" | "ghostty" => return Channel::Osc777,
        "kitty" => return Channel::Osc99,
        // A multiplexer (or nothing): the outer terminal's own variables below say more.
        "" | "tmux" | "screen" => {}
        // Terminal.app, VS Code, …: no notification sequence (and any variable below was
        // inherited from a terminal this one was started from).
        _ => return desktop_or_none(&var, macos),
    }
    if var("KITTY_WINDOW_ID").is_some() {
        return Channel::Osc99;
    }
    if var("ITERM_SESSION_ID").is_some() || var("LC_TERMINAL").as_deref() == Some("iTerm2") {
        return Channel::Osc9;
    }
    if var("WEZTERM_PANE").is_some()
        || var("GHOSTTY_RESOURCES_DIR").is_some()
        || var("WT_SESSION").is_some()
        || var("VTE_VERSION").is_some()
    {
        return Channel::Osc777;
    }
    desktop_or_none(&var, macos)
}

fn desktop_or_none(var: &impl Fn(&str) -> Option<String>, macos: bool) -> Channel {
    // Over SSH a desktop notifier would show on the remote machine, if anywhere.
    if var("SSH_CONNECTION").is_some() || var("SSH_TTY").is_some() {
        return Channel::None;
    }
    if macos || var("DISPLAY").is_some() || var("WAYLAND_DISPLAY").is_some() {
        Channel::Desktop
    } else {
        Channel::None
    }
}

/// Text from model output made safe for a notification: C0 and C1 controls and DEL removed
/// (line breaks and tabs become spaces), `;` (the OSC field separator) becomes `,`, whitespace
/// collapsed to single spaces and trimmed, at most `max_chars` characters (the last one `…`
/// when cut).
pub fn sanitize_title(text: &str, max_chars: usize) -> String {
    let mut clean = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut pending_space = false;
    for ch in text.chars() {
        let ch = match ch {
            ';' => ',',
            ch if ch.is_whitespace() => ' ',
            // C0, DEL and C1 (`\u{9b}` CSI, `\u{9c}` ST, `\u{9d}` OSC, …).
            ch if ch.is_control() => continue,
            ch => ch,
        };
        if ch == ' ' {
            pending_space = !clean.is_empty();
            continue;
        }
        if pending_space {
            clean.push(' ');
            pending_space = false;
        }
        clean.push(ch);
    }
    if clean.chars().count() <= max_chars {
        return clean;
    }
    if max_chars == 0 {
        return String::new();
    }
    let mut cut: String = clean.chars().take(max_chars - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// The escape sequence that shows `title` and `body` on `channel` (`None` for
/// [`Channel::Desktop`] and [`Channel::None`]). Both texts are sanitised here.
pub fn sequence(channel: Channel, title: &str, body: &str, in_tmux: bool) -> Option<String> {
    sequence_with_id(channel, "codiva", title, body, in_tmux)
}

/// [`sequence`] with kitty's notification id (`[a-zA-Z0-9-_+.]`; other characters are
/// dropped): notifications with different ids do not replace each other.
fn sequence_with_id(
    channel: Channel,
    id: &str,
    title: &str,
    body: &str,
    in_tmux: bool,
) -> Option<String> {
    let mut title = sanitize_title(title, DEFAULT_MAX_CHARS);
    if title.is_empty() {
        title = "codiva".to_owned();
    }
    let body = sanitize_title(body, BODY_MAX_CHARS);
    let raw = match channel {
        Channel::Osc777 => format!("{ESC}]777;notify;{title};{body}{BEL}"),
        Channel::Osc9 if body.is_empty() => format!("{ESC}]9;{title}{BEL}"),
        Channel::Osc9 => format!("{ESC}]9;{title}: {body}{BEL}"),
        Channel::Osc99 => {
            let id: String = id
                .chars()
                .filter(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '+' | '.'))
                .collect();
            let id = if id.is_empty() { "0".to_owned() } else { id };
            format!("{ESC}]99;i={id}:d=0;{title}{ST}{ESC}]99;i={id}:d=1:p=body;{body}{ST}")
        }
        Channel::Desktop | Channel::None => return None,
    };
    Some(if in_tmux { tmux_passthrough(&raw) } else { raw })
}

/// `sequence` for tmux to hand to the outer terminal: `ESC P tmux; … ESC \` with every ESC
/// inside doubled.
pub fn tmux_passthrough(sequence: &str) -> String {
    let doubled = sequence.replace(ESC, "\x1b\x1b");
    format!("{ESC}Ptmux;{doubled}{ST}")
}

/// What to do for one notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notification {
    /// Write these bytes to the terminal (stdout), between frames.
    Write(String),
    /// Have `codiva_os::desktop_notify::notify` show it (sanitised texts).
    Desktop { title: String, body: String },
    /// Nothing (disabled, focused, or no channel).
    None,
}

/// Decides whether and how to notify: the channel, the `notifications` setting and the
/// terminal's focus.
#[derive(Debug, Clone)]
pub struct Notifier {
    channel: Channel,
    enabled: bool,
    /// `None` until the terminal reports focus (then it is known to report it).
    focused: Option<bool>,
    in_tmux: bool,
    /// kitty notification ids: `codiva-<pid>-<n>`.
    id_prefix: String,
    sent: u64,
}

impl Notifier {
    pub fn new(channel: Channel, enabled: bool, in_tmux: bool) -> Self {
        Notifier {
            channel,
            enabled,
            focused: None,
            in_tmux,
            id_prefix: format!("codiva-{}", std::process::id()),
            sent: 0,
        }
    }

    /// The channel detected from this process's environment ([`detect`]); `TMUX` set means
    /// inside tmux.
    pub fn from_env(enabled: bool) -> Self {
        let env = |name: &str| std::env::var(name).ok();
        let in_tmux = env("TMUX").is_some_and(|value| !value.is_empty());
        Notifier::new(detect(&env), enabled, in_tmux)
    }

    /// Off, whatever the terminal (for tests and `notifications = false`).
    pub fn disabled() -> Self {
        Notifier::new(Channel::None, false, false)
    }

    pub fn channel(&self) -> Channel {
        self.channel
    }

    /// A focus event from the terminal (`FocusGained` → `true`, `FocusLost` → `false`).
    pub fn on_focus(&mut self, focused: bool) {
        self.focused = Some(focused);
    }

    /// Enabled, a channel exists, and the terminal is not known to be focused.
    pub fn should_notify(&self) -> bool {
        self.enabled && self.channel != Channel::None && self.focused != Some(true)
    }

    /// The notification for `title` (e.g. the session's title) and `body` (e.g. its reason
    /// from [`transition`]), or [`Notification::None`] when [`Notifier::should_notify`] says
    /// no. Both texts are sanitised.
    pub fn notification(&mut self, title: &str, body: &str) -> Notification {
        if !self.should_notify() {
            return Notification::None;
        }
        match self.channel {
            Channel::Desktop => {
                let title = match sanitize_title(title, DEFAULT_MAX_CHARS) {
                    title if title.is_empty() => "codiva".to_owned(),
                    title => title,
                };
                Notification::Desktop {
                    title,
                    body: sanitize_title(body, BODY_MAX_CHARS),
                }
            }
            channel => {
                self.sent += 1;
                let id = format!("{}-{}", self.id_prefix, self.sent);
                sequence_with_id(channel, &id, title, body, self.in_tmux)
                    .map_or(Notification::None, Notification::Write)
            }
        }
    }
}

/// Carries a notification out: writes the sequence to stdout, or starts the desktop notifier
/// as a task (so call it inside the tokio runtime). Errors are ignored: a notification is
/// best effort.
pub fn deliver(notification: Notification) {
    match notification {
        Notification::Write(bytes) => {
            let mut out = std::io::stdout();
            let _ = out.write_all(bytes.as_bytes());
            let _ = out.flush();
        }
        Notification::Desktop { title, body } => {
            tokio::spawn(async move {
                if let Err(err) = codiva_os::desktop_notify::notify(&title, &body).await {
                    tracing::debug!(%err, "desktop notification failed");
                }
            });
        }
        Notification::None => {}
    }
}

/// Why a session's status change is worth a notification (`None`: it is not). A session seen
/// for the first time (`previous` is `None`: restored at start-up, or listed again) never
/// notifies; neither does a status that did not change.
pub fn transition(previous: Option<Status>, now: Status) -> Option<&'static str> {
    let previous = previous?;
    if previous == now {
        return None;
    }
    match now {
        Status::AwaitingAnswer => Some("needs your answer"),
        Status::AwaitingPermission => Some("needs a permission"),
        Status::Completed => Some("completed"),
        Status::Failed => Some("failed"),
        Status::NeedsLogin | Status::RateLimited => Some("needs attention"),
        Status::Interrupted => Some("was interrupted"),
        Status::Starting | Status::Running | Status::Queued => None,
    }
}

/// The last status of every session, for [`transition`] and the crash log's counts.
#[derive(Debug, Clone, Default)]
pub struct StatusWatch {
    last: HashMap<String, Status>,
}

impl StatusWatch {
    /// Records `status` for session `id`; returns the reason to notify, if any.
    pub fn observe(&mut self, id: &str, status: Status) -> Option<&'static str> {
        let previous = self.last.insert(id.to_owned(), status);
        transition(previous, status)
    }

    /// A removed session.
    pub fn forget(&mut self, id: &str) {
        self.last.remove(id);
    }

    /// How many sessions are in each status (by [`Status::as_str`]).
    pub fn counts(&self) -> BTreeMap<String, usize> {
        count_statuses(self.last.values().copied())
    }
}

/// How many of `statuses` are in each status (by [`Status::as_str`]).
pub fn count_statuses(statuses: impl IntoIterator<Item = Status>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for status in statuses {
        *counts.entry(status.as_str().to_owned()).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
#[path = "notify_tests.rs"]
mod tests;
