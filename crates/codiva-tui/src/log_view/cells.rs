//! One log entry → its terminal rows at one width (a [`Block`]): one function per kind, the
//! cards in [`super::cards`]. Every line is one row (an empty line is an empty row, never zero
//! rows); lines may be wider than the width only where the buffer clips them. A block is empty
//! only for a tool call folded away into an "N tools" line.

use std::collections::HashMap;

use codiva_core::agent_event::NoteLevel;
use codiva_core::session_log::{EntryKind, LogEntry, ToolStatus};
use codiva_core::session_state::{SubagentView, TodoItem};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::Stored;
use super::cards;
use super::fold::Fold;
use crate::markdown;
use crate::theme::{self, glyph};
use crate::width::{str_width, truncate, wrap_text};

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

/// The block of entry `index` at `width` cells.
pub(crate) fn block(entries: &[Stored], index: usize, width: u16, look: &Look) -> Block {
    let stored = &entries[index];
    let id = stored.entry.id;
    let width = usize::from(width.max(1));
    let mut block = Block {
        gap: true,
        ..Block::default()
    };
    match stored.fold {
        Fold::Member { head, last } => {
            if look.is_open(CardKey::Fold(head)) {
                block.gap = last;
                entry_rows(
                    &mut block,
                    &stored.entry,
                    CardKey::Entry(id),
                    INDENT,
                    width,
                    look,
                );
            } else {
                block.gap = false;
            }
        }
        Fold::Head { len } => {
            let members = entries[index..(index + len).min(entries.len())]
                .iter()
                .filter_map(|s| match &s.entry.kind {
                    EntryKind::Tool(tool) => Some(tool),
                    _ => None,
                });
            cards::fold_line(&mut block, CardKey::Fold(id), members, width, look);
            if look.is_open(CardKey::Fold(id)) {
                block.gap = false;
                entry_rows(
                    &mut block,
                    &stored.entry,
                    CardKey::Entry(id),
                    INDENT,
                    width,
                    look,
                );
            }
        }
        Fold::None => entry_rows(
            &mut block,
            &stored.entry,
            CardKey::Entry(id),
            0,
            width,
            look,
        ),
    }
    if shows_todos(entries, index, look) {
        block.push_indented(INDENT, cards::todo_checklist(&look.todos, width));
    }
    block
}

/// Whether entry `index`'s block carries the TODO checklist: the anchor's own block, or the
/// "N tools" line of a closed fold the anchor is in.
fn shows_todos(entries: &[Stored], index: usize, look: &Look) -> bool {
    let Some(anchor) = look.todo_anchor.filter(|_| !look.todos.is_empty()) else {
        return false;
    };
    let stored = &entries[index];
    match stored.fold {
        Fold::None => stored.entry.id == anchor,
        Fold::Head { len } => {
            if look.is_open(CardKey::Fold(stored.entry.id)) {
                stored.entry.id == anchor
            } else {
                entries[index..(index + len).min(entries.len())]
                    .iter()
                    .any(|member| member.entry.id == anchor)
            }
        }
        Fold::Member { head, .. } => look.is_open(CardKey::Fold(head)) && stored.entry.id == anchor,
    }
}

/// The rows of one entry, `indent` cells in, as the card `key` where it is one.
pub(crate) fn entry_rows(
    block: &mut Block,
    entry: &LogEntry,
    key: CardKey,
    indent: usize,
    width: usize,
    look: &Look,
) {
    let room = width.saturating_sub(indent).max(1);
    let lines = match &entry.kind {
        EntryKind::User { text } => user(text, room),
        EntryKind::Assistant { text } => {
            let (text, footer) = super::cut_message::split(text, room);
            let rendered = assistant_rendered(text, room);
            let base = block.lines.len();
            if indent == 0 {
                block.links.extend(rendered.links.into_iter().map(|link| {
                    crate::markdown::LinkSpan {
                        row: link.row + base,
                        ..link
                    }
                }));
            }
            block.code.extend(
                rendered
                    .code
                    .into_iter()
                    .map(|code| crate::markdown::CodeRow {
                        row: code.row + base,
                        ..code
                    }),
            );
            let mut lines = rendered.lines;
            lines.extend(footer);
            lines
        }
        EntryKind::Note { level, text, code } => {
            note(*level, &crate::i18n::note_text(text, code.as_ref()), room)
        }
        EntryKind::SubagentPrompt { text } => vec![subagent_prompt(text, room)],
        EntryKind::Thinking { text } => {
            return cards::thinking(block, key, text, indent, width, look);
        }
        EntryKind::Tool(tool) => {
            return if cards::is_agent(tool) && !matches!(key, CardKey::Nested { .. }) {
                cards::subagent(block, key, tool, indent, width, look)
            } else {
                cards::tool(block, key, tool, indent, width, look)
            };
        }
    };
    let lines = if lines.is_empty() {
        vec![Line::default()]
    } else {
        lines
    };
    block.push_indented(indent, lines);
}

/// Rows of entry `index`'s block, without building the lines where that is cheap.
pub(crate) fn height(entries: &[Stored], index: usize, width: u16, look: &Look) -> usize {
    let stored = &entries[index];
    let cells = usize::from(width.max(1));
    let rows = match (&stored.fold, &stored.entry.kind) {
        (Fold::Member { head, .. }, _) if !look.is_open(CardKey::Fold(*head)) => return 0,
        (Fold::None, EntryKind::User { text }) => {
            wrap_text(text, cells.saturating_sub(INDENT).max(1)).len()
        }
        (Fold::None, EntryKind::Note { text, .. }) if !is_divider(text) => {
            wrap_text(text, cells).len()
        }
        (Fold::None, EntryKind::SubagentPrompt { .. }) => 1,
        (Fold::None, EntryKind::Thinking { .. })
            if !look.is_open(CardKey::Entry(stored.entry.id)) =>
        {
            1
        }
        (Fold::None, EntryKind::Tool(tool))
            if !cards::is_agent(tool)
                && tool.status != ToolStatus::Failed
                && look.todo_anchor != Some(stored.entry.id)
                && !look.is_open(CardKey::Entry(stored.entry.id)) =>
        {
            1
        }
        _ => return block(entries, index, width, look).height(),
    };
    rows.max(1) + 1
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
pub(crate) fn assistant(text: &str, width: usize) -> Vec<Line<'static>> {
    assistant_rendered(text, width).lines
}

/// [`assistant`], with where its links and code rows are (rows counted from its first line).
pub(crate) fn assistant_rendered(text: &str, width: usize) -> markdown::Rendered {
    let cells = u16::try_from(width).unwrap_or(u16::MAX);
    let mut rendered = markdown::render_full(text, cells);
    let lines = &mut rendered.lines;
    let blank = |line: &Line<'_>| line.spans.iter().all(|s| s.content.trim().is_empty());
    while lines.last().is_some_and(blank) {
        lines.pop();
    }
    let leading = lines.iter().take_while(|line| blank(line)).count();
    lines.drain(..leading);
    let rows = lines.len();
    rendered
        .links
        .retain(|link| link.row >= leading && link.row - leading < rows);
    for link in &mut rendered.links {
        link.row -= leading;
    }
    rendered
        .code
        .retain(|code| code.row >= leading && code.row - leading < rows);
    for code in &mut rendered.code {
        code.row -= leading;
    }
    rendered
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

/// The note the session writes when the conversation was compacted.
fn is_divider(text: &str) -> bool {
    text.starts_with("conversation compacted")
}

fn note(level: NoteLevel, text: &str, width: usize) -> Vec<Line<'static>> {
    if is_divider(text) {
        return vec![divider(text, width)];
    }
    let style = match level {
        NoteLevel::Info => theme::dim(),
        NoteLevel::Warning => theme::warning(),
        NoteLevel::Error => theme::error(),
    };
    wrapped(text, width, style)
}

/// `── conversation compacted (auto) ──────…` across the width.
fn divider(text: &str, width: usize) -> Line<'static> {
    let rule = glyph::RULE;
    let label = truncate(
        &display(first_line(text).unwrap_or(text)),
        width.saturating_sub(6),
    );
    let used = 2 * str_width(rule) + 2 + str_width(&label);
    let rest = width.saturating_sub(used) / str_width(rule).max(1);
    let text = format!("{rule}{rule} {label} {}", rule.repeat(rest.max(2)));
    Line::from(Span::styled(truncate(&text, width), theme::divider()))
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

    #[test]
    fn divider_fills_the_width() {
        let line = divider("conversation compacted (auto)", 40);
        assert_eq!(line.to_string(), "── conversation compacted (auto) ───────");
        assert!(
            divider("conversation compacted", 5)
                .to_string()
                .chars()
                .count()
                <= 5
        );
    }
}
