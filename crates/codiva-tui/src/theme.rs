//! Colours and glyphs, in one place. Terminal palette colours only (they follow the user's
//! terminal theme); named styles, so a widget never picks a colour itself.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use crate::i18n::{AppText, t};
use codiva_protocol::session::Status;

pub fn text() -> Style {
    Style::default()
}

pub fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

pub fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

pub fn accent() -> Style {
    Style::default().fg(Color::Cyan)
}

pub fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

/// A row of a list one picks from: its style, selected or not, and the `› ` marker cell that
/// leads it.
pub fn pick_row(is_selected: bool) -> (Style, Span<'static>) {
    let style = if is_selected { selected() } else { text() };
    let marker = if is_selected { "› " } else { "  " };
    (style, Span::styled(marker, style))
}

/// A search match on screen.
pub fn search_match() -> Style {
    Style::default().fg(Color::Black).bg(Color::Yellow)
}

pub fn user_text() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}

pub fn error() -> Style {
    Style::default().fg(Color::Red)
}

pub fn warning() -> Style {
    Style::default().fg(Color::Yellow)
}

pub fn success() -> Style {
    Style::default().fg(Color::Green)
}

pub fn diff_added() -> Style {
    Style::default().fg(Color::Green)
}

pub fn diff_removed() -> Style {
    Style::default().fg(Color::Red)
}

pub fn code() -> Style {
    Style::default().fg(Color::Yellow)
}

pub fn link() -> Style {
    Style::default()
        .fg(Color::Blue)
        .add_modifier(Modifier::UNDERLINED)
}

pub fn heading() -> Style {
    Style::default()
        .fg(Color::Magenta)
        .add_modifier(Modifier::BOLD)
}

pub fn quote() -> Style {
    Style::default()
        .fg(Color::Gray)
        .add_modifier(Modifier::ITALIC)
}

pub fn border() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// The border of the area that has the keys (the composer's rule, a dialog's title rule).
pub fn focused_border() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}

/// The footer's label of where the keys go.
pub fn focus_label() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::REVERSED)
}

/// The card under the log's card cursor (its header row).
pub fn card_selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

/// An opened thinking block's text.
pub fn thinking() -> Style {
    Style::default().add_modifier(Modifier::DIM | Modifier::ITALIC)
}

/// A divider across the log (where the conversation was compacted).
pub fn divider() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// Glyphs.
pub mod glyph {
    pub const TOOL: &str = "⏺";
    pub const OK: &str = "✓";
    pub const FAILED: &str = "✗";
    pub const RUNNING: &str = "…";
    pub const ATTENTION: &str = "●";
    /// A session waiting for an agent slot (`max_running_agents`).
    pub const QUEUED: &str = "⧖";
    /// A group of attempts whose rows are shown, and one folded to its own row.
    pub const GROUP_OPEN: &str = "▾";
    pub const GROUP_FOLDED: &str = "▸";
    pub const PROMPT: &str = "›";
    pub const MORE_ABOVE: &str = "↑";
    pub const MORE_BELOW: &str = "↓";
    pub const CHECKED: &str = "[x]";
    pub const UNCHECKED: &str = "[ ]";
    pub const RADIO_ON: &str = "(•)";
    pub const RADIO_OFF: &str = "( )";
    pub const THINKING: &str = "✻";
    pub const SUBAGENT: &str = "↳";
    /// Before the first row of a tool's result.
    pub const RESULT: &str = "⎿";
    /// Replaces a card's glyph on the row of the card cursor.
    pub const CARD_SELECTED: &str = "▸";
    /// Horizontal rule of a divider.
    pub const RULE: &str = "─";
    /// The rule of the area that has the keys.
    pub const RULE_FOCUSED: &str = "━";
    /// A running call, one frame per animation tick.
    /// A TODO item: done, being worked on, not started.
    pub const TODO_DONE: &str = "☑";
    pub const TODO_ACTIVE: &str = "◐";
    pub const TODO_PENDING: &str = "☐";
    pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
}

/// A status badge: its label and style.
pub fn status_badge(status: Status) -> (&'static str, Style) {
    match status {
        Status::Starting => (t(AppText::BadgeStarting), dim()),
        Status::Running => (t(AppText::BadgeRunning), accent()),
        Status::AwaitingPermission => (
            t(AppText::BadgePermission),
            warning().add_modifier(Modifier::BOLD),
        ),
        Status::AwaitingAnswer => (
            t(AppText::BadgeQuestion),
            warning().add_modifier(Modifier::BOLD),
        ),
        Status::Completed => (t(AppText::BadgeCompleted), success()),
        Status::Interrupted => (t(AppText::BadgeInterrupted), warning()),
        Status::RateLimited => (t(AppText::BadgeRateLimited), warning()),
        Status::NeedsLogin => (t(AppText::BadgeLoginNeeded), error()),
        Status::Failed => (t(AppText::BadgeFailed), error()),
        Status::Queued => (t(AppText::BadgeQueued), dim()),
    }
}

/// A heading of `level` (1–6): level 1 underlined, 2 in the heading colour, 3 and below bold.
pub fn heading_level(level: u8) -> Style {
    match level {
        1 => heading().add_modifier(Modifier::UNDERLINED),
        2 => heading(),
        _ => bold(),
    }
}

/// List bullets and numbers.
pub fn list_marker() -> Style {
    accent()
}

/// Syntax classes inside code blocks (drawn over [`code`]).
pub fn code_keyword() -> Style {
    Style::default().fg(Color::Magenta)
}

pub fn code_string() -> Style {
    Style::default().fg(Color::Green)
}

pub fn code_comment() -> Style {
    Style::default()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC)
}

pub fn code_number() -> Style {
    Style::default().fg(Color::Cyan)
}

pub fn code_type() -> Style {
    Style::default().fg(Color::Blue)
}

pub fn code_function() -> Style {
    Style::default().fg(Color::LightBlue)
}

/// A diff's hunk and file headers, a Markdown heading inside a code block.
pub fn code_heading() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}
