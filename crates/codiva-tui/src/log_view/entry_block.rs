//! One log entry → its terminal rows at one width (a [`Block`]): one function per kind, the
//! cards in [`super::cards`]. Every line is one row (an empty line is an empty row, never zero
//! rows); lines may be wider than the width only where the buffer clips them. A block is empty
//! only for a tool call folded away into an "N tools" line.

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use codiva_protocol::session::SubagentView;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::Stored;
use super::block::{Block, CardKey, INDENT, Look, display, first_line, format_duration, wrapped};
use super::cards::{
    self, State, agent_state, first_text_line, format_tokens, header, mark, result_line, title,
};
use super::fold::Fold;
use crate::i18n::{AppText, t, tf, tn};
use crate::markdown;
use crate::theme::{self, glyph};
use crate::width::{str_width, truncate, wrap_text};

/// The block of entry `index` at `width` cells.
pub(crate) fn block(entries: &[Stored], index: usize, width: u16, look: &Look) -> Block {
    let stored = &entries[index];
    let id = stored.entry.id;
    let width = usize::from(width.max(1));
    let mut block = Block {
        gap: true,
        ..Block::default()
    };
    // The entry's own rows and their indent, where they show: a fold's member only while its
    // fold is open, under the fold's line.
    let indent = match stored.fold {
        Fold::Member { head, last } => {
            let open = look.is_open(CardKey::Fold(head));
            block.gap = open && last;
            open.then_some(INDENT)
        }
        Fold::Head { len } => {
            let members = entries[index..(index + len).min(entries.len())]
                .iter()
                .filter_map(|s| match &s.entry.kind {
                    EntryKind::Tool(tool) => Some(&**tool),
                    _ => None,
                });
            cards::fold_line(&mut block, CardKey::Fold(id), members, width, look);
            let open = look.is_open(CardKey::Fold(id));
            if open {
                block.gap = false;
            }
            open.then_some(INDENT)
        }
        Fold::None => Some(0),
    };
    if let Some(indent) = indent {
        entry_rows(
            &mut block,
            &stored.entry,
            CardKey::Entry(id),
            indent,
            width,
            look,
        );
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
            let split = super::cut_message::split(text, room);
            let rendered = assistant_rendered(split.text, room);
            let base = block.lines.len() + split.header.len();
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
            let mut lines = split.header;
            lines.extend(rendered.lines);
            lines.extend(split.footer);
            lines
        }
        EntryKind::Note { level, text, code } => {
            let words = crate::i18n::note_text(text, code.as_ref());
            if crate::i18n::is_compaction(text, code.as_ref()) {
                vec![divider(&words, room)]
            } else {
                note(*level, &words, room)
            }
        }
        EntryKind::SubagentPrompt { text } => vec![subagent_prompt(text, room)],
        EntryKind::Thinking { text } => {
            return cards::thinking(block, key, text, indent, width, look);
        }
        EntryKind::Tool(tool) => {
            return if cards::is_agent(tool) && !matches!(key, CardKey::Nested { .. }) {
                subagent(block, key, tool, indent, width, look)
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
    measure(entries, index, width, look).unwrap_or_else(|block| block.height())
}

/// The rows of entry `index` at `width`: `Ok` when they are known without drawing it, or the
/// block it took to know them (`Err`, worth keeping: drawing it again costs as much).
pub(crate) fn measure(
    entries: &[Stored],
    index: usize,
    width: u16,
    look: &Look,
) -> Result<usize, Block> {
    let stored = &entries[index];
    let cells = usize::from(width.max(1));
    let rows = match (&stored.fold, &stored.entry.kind) {
        (Fold::Member { head, .. }, _) if !look.is_open(CardKey::Fold(*head)) => return Ok(0),
        (Fold::None, EntryKind::User { text }) => {
            wrap_text(text, cells.saturating_sub(INDENT).max(1)).len()
        }
        (Fold::None, EntryKind::Note { text, code, .. })
            if !crate::i18n::is_compaction(text, code.as_ref()) =>
        {
            // The rows of the words shown (a coded note in the UI's language).
            wrap_text(&crate::i18n::note_text(text, code.as_ref()), cells).len()
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
        _ => return Err(block(entries, index, width, look)),
    };
    Ok(rows.max(1) + 1)
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

fn note(level: NoteLevel, text: &str, width: usize) -> Vec<Line<'static>> {
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

/// Entries of a subagent's log shown in its open card (the latest ones).
const MAX_NESTED: usize = 120;

/// The card of an `Agent`/`Task` call.
pub(crate) fn subagent(
    block: &mut Block,
    key: CardKey,
    tool: &ToolEntry,
    indent: usize,
    width: usize,
    look: &Look,
) {
    let subagent = look.subagents.get(&tool.tool_use_id);
    let view = subagent.and_then(|s| s.view.as_ref());
    let kind = view
        .and_then(|v| v.subagent_type.as_deref())
        .unwrap_or(title(tool));
    let description = view
        .and_then(|v| v.description.as_deref())
        .unwrap_or(&tool.summary);
    let state = agent_state(tool, view);
    let duration = match state {
        State::Running => None,
        _ => tool
            .duration_ms
            .or_else(|| view.map(|v| v.elapsed_ms).filter(|&ms| ms > 0))
            .map(format_duration),
    };
    header(
        block,
        key,
        look,
        indent,
        width,
        (kind, theme::bold().patch(theme::accent())),
        description,
        mark(state, look),
        duration,
    );
    let body_indent = indent + INDENT;
    let room = width.saturating_sub(body_indent).max(1);
    let summary = view
        .and_then(|v| v.summary.as_deref())
        .or(tool
            .result
            .as_deref()
            .filter(|_| !view.is_some_and(|v| v.background)))
        .filter(|s| !s.trim().is_empty());
    let open = look.is_open(key);
    if open {
        let entries = subagent.map_or(&[][..], |s| s.entries.as_slice());
        if entries.is_empty() {
            if let Some(summary) = summary.filter(|_| state != State::Running) {
                block.push_indented(body_indent, assistant(summary, room));
            }
        } else {
            nested(block, key.entry(), entries, body_indent, width, look);
        }
    }
    // A background launch whose result was the agent's bookkeeping (kept empty by the core).
    let launched = view.is_none()
        && tool.status == ToolStatus::Succeeded
        && tool.result.as_deref() == Some("")
        && tool.input.get("run_in_background").and_then(Value::as_bool) == Some(true);
    let line = if state == State::Running {
        Some(progress(view, room))
    } else if launched {
        Some(result_line(
            vec![Span::styled(
                truncate(t(AppText::CardLaunchedInBackground), room.saturating_sub(2)),
                theme::dim(),
            )],
            true,
        ))
    } else if open {
        None
    } else {
        summary.and_then(first_text_line).map(|summary| {
            result_line(
                vec![Span::styled(
                    truncate(&summary, room.saturating_sub(2)),
                    theme::dim(),
                )],
                true,
            )
        })
    };
    if let Some(line) = line {
        block.push_indented(body_indent, vec![line]);
    }
}

/// `⎿ Grep · 12 tool uses · 8.1k tokens · 42s` while a subagent runs.
fn progress(view: Option<&SubagentView>, room: usize) -> Line<'static> {
    let mut parts: Vec<String> = Vec::new();
    match view {
        Some(view) if view.tool_uses > 0 || view.tokens > 0 || view.last_tool.is_some() => {
            if let Some(tool) = &view.last_tool {
                parts.push(display(tool));
            }
            parts.push(tn(
                usize::try_from(view.tool_uses).unwrap_or(usize::MAX),
                AppText::CardToolUse,
                AppText::CardToolUses,
                &[],
            ));
            parts.push(tf(AppText::Tokens, &[&format_tokens(view.tokens)]));
            if view.elapsed_ms > 0 {
                parts.push(format_duration(view.elapsed_ms));
            }
        }
        _ => parts.push(t(AppText::CardStarting).to_owned()),
    }
    if view.is_some_and(|v| v.background) {
        parts.push(t(AppText::CardBackground).to_owned());
    }
    let text = truncate(&parts.join(" · "), room.saturating_sub(2));
    result_line(vec![Span::styled(text, theme::dim())], true)
}

/// A subagent's own log inside its open card: the latest [`MAX_NESTED`] entries, calls and
/// thinking as cards of their own.
fn nested(
    block: &mut Block,
    parent: u64,
    entries: &[LogEntry],
    indent: usize,
    width: usize,
    look: &Look,
) {
    let skip = entries.len().saturating_sub(MAX_NESTED);
    if skip > 0 {
        let earlier = tn(skip, AppText::CardEarlierOne, AppText::CardEarlier, &[]);
        block.push_indented(indent, vec![Line::styled(earlier, theme::dim())]);
    }
    for entry in &entries[skip..] {
        let key = CardKey::Nested {
            parent,
            id: entry.id,
        };
        entry_rows(block, entry, key, indent, width, look);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
