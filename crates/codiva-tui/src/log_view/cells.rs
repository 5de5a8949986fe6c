//! One log entry → its terminal rows at one width: one function per kind. Every function returns
//! at least one line, and every line is one row (an empty line is an empty row, never zero
//! rows); lines may be wider than the width only where the buffer clips them.

use codiva_core::agent_event::NoteLevel;
use codiva_core::session_log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::markdown;
use crate::theme::{self, glyph};
use crate::width::{str_width, truncate, wrap_text};

/// Cells taken by a prefix such as `› ` in front of wrapped text.
const INDENT: usize = 2;

/// The rows of `entry` at `width` cells.
pub(crate) fn render(entry: &LogEntry, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let lines = match &entry.kind {
        EntryKind::User { text } => user(text, width),
        EntryKind::Assistant { text } => assistant(text, width),
        EntryKind::Thinking { text } => thinking(text, width),
        EntryKind::Tool(tool) => vec![tool_line(tool, width)],
        EntryKind::SubagentPrompt { text } => vec![subagent_prompt(text, width)],
        EntryKind::Note { level, text } => note(*level, text, width),
    };
    if lines.is_empty() {
        vec![Line::default()]
    } else {
        lines
    }
}

/// How many rows [`render`] gives, without building the lines where that is cheap.
pub(crate) fn height(entry: &LogEntry, width: u16) -> usize {
    let cells = usize::from(width.max(1));
    let rows = match &entry.kind {
        EntryKind::User { text } => wrap_text(text, cells.saturating_sub(INDENT).max(1)).len(),
        EntryKind::Note { text, .. } => wrap_text(text, cells).len(),
        EntryKind::Tool(_) | EntryKind::SubagentPrompt { .. } => 1,
        EntryKind::Thinking { text } => 1 + usize::from(first_line(text).is_some()),
        EntryKind::Assistant { text } => assistant(text, cells).len(),
    };
    rows.max(1)
}

/// The text of a source slice as it is drawn: tabs become 4 spaces (the width [`crate::width`]
/// gives them), other control characters are dropped.
pub(crate) fn display(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push_str("    "),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` wrapped at `width`, each row in `style`.
pub(crate) fn wrapped(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    wrap_text(text, width)
        .into_iter()
        .map(|row| Line::from(Span::styled(display(&text[row.start..row.end]), style)))
        .collect()
}

/// `› ` and the text, wrapped with a hanging indent.
fn user(text: &str, width: usize) -> Vec<Line<'static>> {
    let style = theme::user_text();
    let prompt = format!("{:<INDENT$}", glyph::PROMPT);
    wrap_text(text, width.saturating_sub(INDENT).max(1))
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let prefix = if i == 0 {
                prompt.clone()
            } else {
                " ".repeat(INDENT)
            };
            Line::from(vec![
                Span::styled(prefix, style),
                Span::styled(display(&text[row.start..row.end]), style),
            ])
        })
        .collect()
}

/// A completed message: Markdown, without blank rows at its ends (the gap between entries is
/// the view's).
fn assistant(text: &str, width: usize) -> Vec<Line<'static>> {
    let cells = u16::try_from(width).unwrap_or(u16::MAX);
    let mut lines = markdown::render(text, cells);
    let blank = |line: &Line<'_>| line.spans.iter().all(|s| s.content.trim().is_empty());
    while lines.last().is_some_and(blank) {
        lines.pop();
    }
    let leading = lines.iter().take_while(|line| blank(line)).count();
    lines.drain(..leading);
    lines
}

/// Collapsed: `✻ Thinking…` and the first line of the text.
fn thinking(text: &str, width: usize) -> Vec<Line<'static>> {
    let style = theme::dim();
    let mut lines = vec![Line::from(Span::styled(
        truncate(&format!("{} Thinking…", glyph::THINKING), width),
        style,
    ))];
    if let Some(first) = first_line(text) {
        let room = width.saturating_sub(INDENT);
        lines.push(Line::from(vec![
            Span::styled(" ".repeat(INDENT.min(width)), style),
            Span::styled(truncate(&display(first), room), style),
        ]));
    }
    lines
}

/// `↳ ` and the first line of a subagent's prompt.
fn subagent_prompt(text: &str, width: usize) -> Line<'static> {
    let style = theme::dim();
    let first = first_line(text).unwrap_or("");
    Line::from(vec![
        Span::styled(format!("{} ", glyph::SUBAGENT), style),
        Span::styled(
            truncate(&display(first), width.saturating_sub(INDENT)),
            style,
        ),
    ])
}

fn note(level: NoteLevel, text: &str, width: usize) -> Vec<Line<'static>> {
    let style = match level {
        NoteLevel::Info => theme::dim(),
        NoteLevel::Warning => theme::warning(),
        NoteLevel::Error => theme::error(),
    };
    wrapped(text, width, style)
}

/// One row: glyph, name, summary cut to fit, status mark, duration.
pub(crate) fn tool_line(tool: &ToolEntry, width: usize) -> Line<'static> {
    let (mark, mark_style) = match tool.status {
        ToolStatus::Running => (glyph::RUNNING, theme::dim()),
        ToolStatus::Succeeded => (glyph::OK, theme::success()),
        ToolStatus::Failed => (glyph::FAILED, theme::error()),
        ToolStatus::Denied => ("denied", theme::warning()),
    };
    let duration = tool.duration_ms.map(format_duration);
    // What always shows after the name: " <mark>" and " <duration>".
    let tail = 1 + str_width(mark) + duration.as_ref().map_or(0, |d| 1 + str_width(d));
    let head = str_width(glyph::TOOL) + 1;
    let name_room = width.saturating_sub(head + tail);
    let name = truncate(&display(&tool.name), name_room);
    let summary_room = name_room.saturating_sub(str_width(&name) + 1);
    let summary = display(&tool.summary);
    let mut spans = vec![
        Span::styled(format!("{} ", glyph::TOOL), theme::text()),
        Span::styled(name, theme::bold()),
    ];
    if summary_room > 0 && !summary.is_empty() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            truncate(&summary, summary_room),
            theme::text(),
        ));
    }
    spans.push(Span::raw(" "));
    spans.push(Span::styled(mark, mark_style));
    if let Some(duration) = duration {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(duration, theme::dim()));
    }
    Line::from(spans)
}

/// `850ms`, `1.2s`, `42s`, `3m 05s`.
pub(crate) fn format_duration(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms}ms"),
        1_000..10_000 => format!("{}.{}s", ms / 1_000, (ms % 1_000) / 100),
        10_000..60_000 => format!("{}s", ms / 1_000),
        _ => format!("{}m {:02}s", ms / 60_000, (ms % 60_000) / 1_000),
    }
}

/// The first line with something on it.
fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|line| !line.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(format_duration(850), "850ms");
        assert_eq!(format_duration(1_234), "1.2s");
        assert_eq!(format_duration(42_000), "42s");
        assert_eq!(format_duration(185_000), "3m 05s");
    }

    #[test]
    fn display_expands_tabs_and_drops_controls() {
        assert_eq!(display("a\tb\r"), "a    b");
    }
}
