//! The pieces every drawing of the log shares: a [`Block`] of rows with its hit areas, the
//! keys of cards that open and close, the [`Look`] a frame is drawn with, and a few text
//! helpers (indenting, wrapping, durations). Cells, cards, the question card and the view use
//! it; it uses none of them.

use std::collections::HashMap;

use codiva_protocol::log::LogEntry;
use codiva_protocol::session::{SubagentView, TodoItem};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::width::wrap_text;

/// Cells taken by a prefix such as `› ` in front of wrapped text.
pub(crate) const INDENT: usize = 2;

/// A card that opens and closes: a top-level entry, the "N tools" line of the fold that starts
/// at an entry, or an entry of a subagent's log inside the card of its `Agent` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CardKey {
    Entry(u64),
    Fold(u64),
    Nested { parent: u64, id: u64 },
}

impl CardKey {
    /// The top-level entry whose block shows the card.
    pub(crate) fn entry(self) -> u64 {
        match self {
            CardKey::Entry(id) | CardKey::Fold(id) => id,
            CardKey::Nested { parent, .. } => parent,
        }
    }
}

/// How far a card is open (closed cards have no entry in [`Look::open`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Openness {
    /// Input and result, the result cut to [`cards::BODY_ROWS`] rows.
    Open,
    /// Everything.
    Full,
}

/// What a click on a row of a block does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// The card's header: opens or closes it.
    Toggle,
    /// The "… N more lines" row: shows everything.
    ShowMore,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) row: usize,
    pub(crate) key: CardKey,
    pub(crate) action: Action,
}

/// An entry's rows at one width, the clickable rows among them, and whether an empty row
/// follows (not inside an open fold, nor after a folded-away call).
#[derive(Debug, Clone, Default)]
pub(crate) struct Block {
    pub(crate) lines: Vec<Line<'static>>,
    pub(crate) hits: Vec<Hit>,
    pub(crate) gap: bool,
    /// Links in the rows (Markdown links and URLs of completed messages).
    pub(crate) links: Vec<crate::markdown::LinkSpan>,
    /// Rows that show code, by row (painted by the highlighter when drawn).
    pub(crate) code: Vec<crate::markdown::CodeRow>,
}

impl Block {
    /// Rows taken, the gap row included.
    pub(crate) fn height(&self) -> usize {
        self.lines.len() + usize::from(self.gap)
    }

    pub(crate) fn hit(&mut self, key: CardKey, action: Action) {
        self.hits.push(Hit {
            row: self.lines.len(),
            key,
            action,
        });
    }

    /// Appends `lines` shifted right by `indent` cells.
    pub(crate) fn push_indented(&mut self, indent: usize, lines: Vec<Line<'static>>) {
        self.lines
            .extend(lines.into_iter().map(|line| indented(indent, line)));
    }
}

/// A subagent as the view knows it: its latest status and its own log.
#[derive(Debug, Clone, Default)]
pub(crate) struct Subagent {
    pub(crate) view: Option<SubagentView>,
    /// Sorted by id (a subagent's log has its own ids).
    pub(crate) entries: Vec<LogEntry>,
}

/// What rendering consults besides the entry: which cards are open, the selected card, the
/// spinner frame, the subagents.
#[derive(Debug, Default)]
pub(crate) struct Look {
    pub(crate) open: HashMap<CardKey, Openness>,
    pub(crate) selected: Option<CardKey>,
    pub(crate) spinner: usize,
    /// By the tool-use id of their `Agent` call.
    pub(crate) subagents: HashMap<String, Subagent>,
    /// The agent's TODO list, drawn as a checklist under the card of the latest call that
    /// changed it (`todo_anchor`, an entry id).
    pub(crate) todos: Vec<TodoItem>,
    pub(crate) todo_anchor: Option<u64>,
}

impl Look {
    pub(crate) fn openness(&self, key: CardKey) -> Option<Openness> {
        self.open.get(&key).copied()
    }

    pub(crate) fn is_open(&self, key: CardKey) -> bool {
        self.open.contains_key(&key)
    }

    pub(crate) fn is_selected(&self, key: CardKey) -> bool {
        self.selected == Some(key)
    }
}
/// `line` with `indent` spaces in front.
pub(crate) fn indented(indent: usize, line: Line<'static>) -> Line<'static> {
    if indent == 0 {
        return line;
    }
    let mut spans = Vec::with_capacity(line.spans.len() + 1);
    spans.push(Span::raw(" ".repeat(indent)));
    spans.extend(line.spans);
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
}

/// The text of a source slice as it is drawn: tabs become 4 spaces (the width [`crate::width`]
/// gives them), other control characters are dropped.
pub(crate) fn display(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push_str("    "),
            c if super::ansi::is_unsafe(c) => {}
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
pub(crate) fn first_line(text: &str) -> Option<&str> {
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
        assert_eq!(display("a\tb\r\u{202e}"), "a    b");
    }
}
