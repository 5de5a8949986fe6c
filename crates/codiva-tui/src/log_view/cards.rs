//! Cards: a tool call, a fold of calls, a thinking block and a subagent, each one header row
//! that opens (Enter or a click) to what is behind it.
//!
//! - **Tool call.** `⏺ Name summary <mark> <duration>`: a spinner frame while running, then
//!   ✓/✗/denied. Open: the input (Bash: the command; Read/Glob/Grep: path and pattern;
//!   Edit/MultiEdit/Write: a coloured diff; others: compact JSON) and the result (terminal
//!   colours kept, see [`super::ansi`]), cut to [`BODY_ROWS`] rows with a "show more" row.
//!   Closed, a failed call shows the first line of its error.
//! - **Fold.** `⏺ N tools: Read ×2, Bash, Edit ✓`; open, the calls as cards below it.
//! - **Subagent.** `⏺ <type> <description> <mark>` and a progress line (last tool, tool uses,
//!   tokens, elapsed) while it runs, its summary once done; open, the subagent's own log nested
//!   inside (its prompt, its calls as cards, its text).
//! - **Question.** Open: each question and its answer (see [`super::question_card`]).
//! - **Thinking.** `✻ Thinking… <first line>`; open, the whole text.
//! - **TODO list.** Under the latest call that changed it (or its fold): `N of M done` and a
//!   checklist, ☑ done, ◐ being worked on, ☐ not started.

use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use codiva_protocol::session::{SubagentView, TodoItem, TodoStatus};
use codiva_protocol::tool::{ToolContent, ToolKind, ToolLocation};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::ansi;
use super::block::{
    Action, Block, CardKey, INDENT, Look, Openness, display, first_line, format_duration, indented,
    wrapped,
};
use super::question_card;
use crate::diff_preview::{self, DiffLine};
use crate::i18n::{AppText, t, tf, tn};
use crate::theme::{self, glyph};
use crate::width::{str_width, truncate};

/// Rows of an open card's body before "… N more lines".
pub(crate) const BODY_ROWS: usize = 20;
/// Unchanged lines around each change of a diff.
const DIFF_CONTEXT: usize = 3;

/// A call that runs a subagent.
pub(crate) fn is_agent(tool: &ToolEntry) -> bool {
    tool.view.tool_kind == ToolKind::Agent
}

/// The call's title (the agent's name of the tool in a log without one).
pub(crate) fn title(tool: &ToolEntry) -> &str {
    if tool.view.title.is_empty() {
        &tool.name
    } else {
        &tool.view.title
    }
}

/// A call that changes the agent's TODO list (Claude Code's task tools; the list itself comes
/// from the core's `session/todos`).
pub(crate) fn is_todo(tool: &ToolEntry) -> bool {
    tool.view.tool_kind == ToolKind::Todo
}

/// The TODO list as a checklist: a line with the count done, then one row per item
/// (`☑` done, `◐` being worked on, `☐` not started), each cut to the width.
pub(crate) fn todo_checklist(items: &[TodoItem], width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(INDENT).max(1);
    let done = items
        .iter()
        .filter(|item| item.status == TodoStatus::Completed)
        .count();
    let head = tf(
        AppText::TodoProgress,
        &[&done.to_string(), &items.len().to_string()],
    );
    let mut lines = vec![Line::from(Span::styled(
        truncate(&head, room),
        theme::dim(),
    ))];
    for item in items {
        let (mark, mark_style, text_style) = match item.status {
            TodoStatus::Completed => (glyph::TODO_DONE, theme::success(), theme::dim()),
            TodoStatus::InProgress => (glyph::TODO_ACTIVE, theme::accent(), theme::bold()),
            TodoStatus::Pending => (glyph::TODO_PENDING, theme::dim(), theme::text()),
        };
        let text = display(&item.content);
        lines.push(Line::from(vec![
            Span::styled(format!("{mark} "), mark_style),
            Span::styled(truncate(&text, room.saturating_sub(2).max(1)), text_style),
        ]));
    }
    lines
}

/// The spinner frame for `tick` (the app's animation clock).
pub(crate) fn spinner(frame: usize) -> &'static str {
    glyph::SPINNER[frame % glyph::SPINNER.len()]
}

/// Whether entry `entry` (top level) draws a spinner: it changes with every frame of it.
pub(crate) fn animated(entry: &LogEntry, look: &Look) -> bool {
    let EntryKind::Tool(tool) = &entry.kind else {
        return false;
    };
    if !is_agent(tool) {
        return tool.status == ToolStatus::Running;
    }
    let subagent = look.subagents.get(&tool.tool_use_id);
    let running = agent_state(tool, subagent.and_then(|s| s.view.as_ref())) == State::Running;
    running
        || (look.is_open(CardKey::Entry(entry.id))
            && subagent.is_some_and(|s| {
                s.entries.iter().any(
                    |e| matches!(&e.kind, EntryKind::Tool(t) if t.status == ToolStatus::Running),
                )
            }))
}

/// How a call or a subagent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Running,
    Succeeded,
    Failed,
    Denied,
    Stopped,
    Unreported,
}

impl From<ToolStatus> for State {
    fn from(status: ToolStatus) -> Self {
        match status {
            ToolStatus::Running => State::Running,
            ToolStatus::Succeeded => State::Succeeded,
            ToolStatus::Failed => State::Failed,
            ToolStatus::Denied => State::Denied,
            ToolStatus::Unreported => State::Unreported,
        }
    }
}

pub(super) fn mark(state: State, look: &Look) -> (&'static str, Style) {
    match state {
        State::Running => (spinner(look.spinner), theme::accent()),
        State::Succeeded => (glyph::OK, theme::success()),
        State::Failed => (glyph::FAILED, theme::error()),
        State::Denied => (t(AppText::CardDenied), theme::warning()),
        State::Stopped => (t(AppText::CardStopped), theme::warning()),
        State::Unreported => (t(AppText::CardUnreported), theme::warning()),
    }
}

/// A subagent's state: its own status when known, else its call's.
pub(super) fn agent_state(tool: &ToolEntry, view: Option<&SubagentView>) -> State {
    use codiva_protocol::session::SubagentStatus;
    match view.map(|v| v.status) {
        Some(SubagentStatus::Completed) => State::Succeeded,
        Some(SubagentStatus::Failed) => State::Failed,
        Some(SubagentStatus::Stopped) => State::Stopped,
        Some(SubagentStatus::Starting | SubagentStatus::Running) => State::Running,
        // Settled in a way this version has no word for: the call says how it ended.
        Some(SubagentStatus::Unknown) | None => tool.status.into(),
    }
}

/// A card's header row: glyph, name, summary cut to fit, mark, duration. The selected card's
/// row shows [`glyph::CARD_SELECTED`] and is drawn reversed.
#[allow(clippy::too_many_arguments)]
pub(super) fn header(
    block: &mut Block,
    key: CardKey,
    look: &Look,
    indent: usize,
    width: usize,
    name: (&str, Style),
    summary: &str,
    mark: (&str, Style),
    duration: Option<String>,
) {
    let width = width.saturating_sub(indent);
    let selected = look.is_selected(key);
    let lead = if selected {
        glyph::CARD_SELECTED
    } else {
        glyph::TOOL
    };
    // What always shows after the name: " <mark>" and " <duration>".
    let tail = 1 + str_width(mark.0) + duration.as_ref().map_or(0, |d| 1 + str_width(d));
    let head = str_width(lead) + 1;
    let name_room = width.saturating_sub(head + tail);
    let name_text = truncate(&display(name.0), name_room);
    let summary_room = name_room.saturating_sub(str_width(&name_text) + 1);
    let summary = display(summary);
    let mut spans = vec![
        Span::styled(format!("{lead} "), theme::text()),
        Span::styled(name_text, name.1),
    ];
    if summary_room > 0 && !summary.is_empty() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            truncate(&summary, summary_room),
            theme::text(),
        ));
    }
    spans.push(Span::raw(" "));
    spans.push(Span::styled(mark.0.to_owned(), mark.1));
    if let Some(duration) = duration {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(duration, theme::dim()));
    }
    push_header(block, key, look, indent, spans);
}

fn push_header(
    block: &mut Block,
    key: CardKey,
    look: &Look,
    indent: usize,
    mut spans: Vec<Span<'static>>,
) {
    if look.is_selected(key) {
        for span in &mut spans {
            span.style = span.style.patch(theme::card_selected());
        }
    }
    block.hit(key, Action::Toggle);
    block.lines.push(indented(indent, Line::from(spans)));
}

/// A tool call's card.
pub(crate) fn tool(
    block: &mut Block,
    key: CardKey,
    tool: &ToolEntry,
    indent: usize,
    width: usize,
    look: &Look,
) {
    header(
        block,
        key,
        look,
        indent,
        width,
        (title(tool), theme::bold()),
        &tool.summary,
        mark(tool.status.into(), look),
        tool.duration_ms.map(format_duration),
    );
    let body_indent = indent + INDENT;
    let room = width.saturating_sub(body_indent).max(1);
    match look.openness(key) {
        None => {
            if tool.status == ToolStatus::Failed
                && let Some(error) = tool.result.as_deref().and_then(first_text_line)
            {
                let line = result_line(
                    vec![Span::styled(
                        truncate(&error, room.saturating_sub(2)),
                        theme::error(),
                    )],
                    true,
                );
                block.push_indented(body_indent, vec![line]);
            }
        }
        Some(openness) => {
            let mut rows = input_rows(tool, room);
            rows.extend(result_rows(tool, room));
            push_body(block, key, body_indent, rows, openness);
        }
    }
}

/// `rows` under a card, cut to [`BODY_ROWS`] (with a "show more" row) unless fully open.
fn push_body(
    block: &mut Block,
    key: CardKey,
    indent: usize,
    mut rows: Vec<Line<'static>>,
    openness: Openness,
) {
    // Cutting a single row to say "1 more line" would save nothing.
    if openness == Openness::Open && rows.len() > BODY_ROWS + 1 {
        let hidden = rows.len() - BODY_ROWS;
        rows.truncate(BODY_ROWS);
        block.push_indented(indent, rows);
        block.hit(key, Action::ShowMore);
        let more = tn(hidden, AppText::CardShowMoreOne, AppText::CardShowMore, &[]);
        block.push_indented(indent, vec![Line::styled(more, theme::accent())]);
    } else {
        block.push_indented(indent, rows);
    }
}

/// The content of an open call, as rows of `room` cells: a command, places, diffs (under
/// their file), text; a call without content shows its raw input as compact JSON.
fn input_rows(tool: &ToolEntry, room: usize) -> Vec<Line<'static>> {
    if question_card::is_question(tool)
        && let Some(rows) = question_card::rows(tool, room)
    {
        return rows;
    }
    let mut rows = Vec::new();
    let mut diffs: Vec<Vec<DiffLine>> = Vec::new();
    let mut diff_path: Option<&str> = None;
    let flush = |rows: &mut Vec<Line<'static>>, diffs: &mut Vec<Vec<DiffLine>>| {
        if !diffs.is_empty() {
            rows.extend(diff_rows(diffs, room));
            diffs.clear();
        }
    };
    for content in &tool.view.content {
        match content {
            ToolContent::Diff { path, old, new } => {
                if diff_path != Some(path.as_str()) {
                    flush(&mut rows, &mut diffs);
                    if !path.is_empty() {
                        rows.extend(wrapped(path, room, theme::dim()));
                    }
                    diff_path = Some(path);
                }
                diffs.push(match old {
                    Some(old) => diff_preview::diff_lines(old, new),
                    None => diff_preview::all_added(new),
                });
                continue;
            }
            ToolContent::Terminal { command, .. } => {
                flush(&mut rows, &mut diffs);
                rows.extend(command_rows(command, room));
            }
            ToolContent::Locations { locations } => {
                flush(&mut rows, &mut diffs);
                for location in locations {
                    rows.extend(wrapped(&location_text(location), room, theme::dim()));
                }
            }
            ToolContent::Text { text } => {
                flush(&mut rows, &mut diffs);
                rows.extend(wrapped(text, room, theme::dim()));
            }
            ToolContent::Unknown => {}
        }
        diff_path = None;
    }
    flush(&mut rows, &mut diffs);
    if tool.view.content.is_empty() {
        let input = &tool.input;
        let empty = match input {
            Value::Null => true,
            Value::Object(map) => map.is_empty(),
            _ => false,
        };
        if !empty {
            let json = serde_json::to_string(input).unwrap_or_default();
            rows.extend(wrapped(&json, room, theme::dim()));
        }
    }
    rows
}

/// `path from line N · M lines` or `pattern in dir · glob`.
fn location_text(location: &ToolLocation) -> String {
    let mut text = location.path.clone();
    if let Some(line) = location.line {
        text.push_str(&tf(AppText::CardFromLine, &[&line.to_string()]));
    }
    if let Some(limit) = location.limit {
        text.push_str(&tn(
            usize::try_from(limit).unwrap_or(usize::MAX),
            AppText::CardLimitLine,
            AppText::CardLimitLines,
            &[],
        ));
    }
    if let Some(within) = &location.within {
        text.push_str(&tf(AppText::CardSearchIn, &[within]));
    }
    if let Some(glob) = &location.glob {
        text.push_str(&format!(" · {glob}"));
    }
    text
}

/// `$ command`, continuation rows indented under the command.
fn command_rows(command: &str, room: usize) -> Vec<Line<'static>> {
    let text_room = room.saturating_sub(2).max(1);
    wrapped(command, text_room, theme::text())
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let prompt = if i == 0 { "$ " } else { "  " };
            indented_with(Span::styled(prompt, theme::dim()), line)
        })
        .collect()
}

fn diff_rows(diffs: &[Vec<DiffLine>], room: usize) -> Vec<Line<'static>> {
    diff_preview::render_diffs(diffs, DIFF_CONTEXT, 0, room, usize::MAX).rows
}

/// The result of an open call: terminal colours kept, `⎿ ` before the first row. An edit that
/// worked says nothing its diff did not.
fn result_rows(tool: &ToolEntry, room: usize) -> Vec<Line<'static>> {
    let Some(result) = tool.result.as_deref().filter(|r| !r.trim().is_empty()) else {
        return Vec::new();
    };
    if tool.view.tool_kind == ToolKind::Edit && tool.status == ToolStatus::Succeeded {
        return Vec::new();
    }
    if question_card::is_question(tool) && question_card::answers_everything(tool) {
        return Vec::new();
    }
    let base = if tool.status == ToolStatus::Failed {
        theme::error()
    } else {
        theme::text()
    };
    let mut lines = ansi::parse(result, base);
    while lines.last().is_some_and(|l| l.text.trim().is_empty()) {
        lines.pop();
    }
    let text_room = room.saturating_sub(2).max(1);
    let mut rows = Vec::new();
    for line in &lines {
        for spans in line.rows(text_room) {
            rows.push(result_line(spans, rows.is_empty()));
        }
    }
    rows
}

/// A result row: `⎿ ` before the first, two spaces before the others.
pub(super) fn result_line(spans: Vec<Span<'static>>, first: bool) -> Line<'static> {
    let lead = if first {
        format!("{} ", glyph::RESULT)
    } else {
        "  ".to_owned()
    };
    indented_with(Span::styled(lead, theme::dim()), Line::from(spans))
}

fn indented_with(lead: Span<'static>, line: Line<'static>) -> Line<'static> {
    let mut spans = Vec::with_capacity(line.spans.len() + 1);
    spans.push(lead);
    spans.extend(line.spans);
    Line::from(spans)
}

/// The first line of `text` with something on it, escapes and controls removed.
pub(super) fn first_text_line(text: &str) -> Option<String> {
    ansi::parse(text, Style::default())
        .into_iter()
        .map(|line| line.text.trim().to_owned())
        .find(|line| !line.is_empty())
}

/// `⏺ N tools: Read ×2, Bash, Edit ✓`.
pub(crate) fn fold_line<'a>(
    block: &mut Block,
    key: CardKey,
    calls: impl Iterator<Item = &'a ToolEntry>,
    width: usize,
    look: &Look,
) {
    let mut names: Vec<(&str, usize)> = Vec::new();
    let (mut count, mut failed, mut denied, mut unreported) = (0, 0, 0, 0);
    for call in calls {
        count += 1;
        let name = title(call);
        match names.iter_mut().find(|(known, _)| *known == name) {
            Some((_, n)) => *n += 1,
            None => names.push((name, 1)),
        }
        match call.status {
            ToolStatus::Failed => failed += 1,
            ToolStatus::Denied => denied += 1,
            ToolStatus::Unreported => unreported += 1,
            ToolStatus::Running | ToolStatus::Succeeded => {}
        }
    }
    let list: Vec<String> = names
        .iter()
        .map(|&(name, n)| {
            if n > 1 {
                format!("{name} ×{n}")
            } else {
                name.to_owned()
            }
        })
        .collect();
    // ✓ when every call worked; else what went wrong, which a fold must not hide.
    let mut problems = Vec::new();
    if failed > 0 {
        let text = tf(AppText::CardFailedN, &[&failed.to_string()]);
        problems.push(format!("{} {text}", glyph::FAILED));
    }
    if denied > 0 {
        problems.push(tf(AppText::CardDeniedN, &[&denied.to_string()]));
    }
    if unreported > 0 {
        problems.push(tf(AppText::CardUnreportedN, &[&unreported.to_string()]));
    }
    let (mark, style) = if problems.is_empty() {
        (glyph::OK.to_owned(), theme::success())
    } else if failed > 0 {
        (problems.join(", "), theme::error())
    } else {
        (problems.join(", "), theme::warning())
    };
    header(
        block,
        key,
        look,
        0,
        width,
        (
            &tf(AppText::CardTools, &[&count.to_string()]),
            theme::bold(),
        ),
        &list.join(", "),
        (&mark, style),
        None,
    );
}

/// `✻ Thinking… <first line>`; open, the whole text (dim).
pub(crate) fn thinking(
    block: &mut Block,
    key: CardKey,
    text: &str,
    indent: usize,
    width: usize,
    look: &Look,
) {
    let room = width.saturating_sub(indent);
    let style = theme::dim();
    let lead = if look.is_selected(key) {
        glyph::CARD_SELECTED
    } else {
        glyph::THINKING
    };
    let title = format!("{lead} {}", t(AppText::CardThinking));
    let mut spans = vec![Span::styled(truncate(&title, room), style)];
    let summary = first_line(text);
    if let Some(summary) = summary {
        let rest = room.saturating_sub(str_width(&title) + 1);
        if rest > 0 {
            spans.push(Span::styled(
                format!(" {}", truncate(&display(summary), rest)),
                style,
            ));
        }
    }
    if summary.is_none() {
        // Nothing to open: the CLI sent no thinking text.
        block.lines.push(indented(indent, Line::from(spans)));
        return;
    }
    push_header(block, key, look, indent, spans);
    if let Some(openness) = look.openness(key) {
        let body_indent = indent + INDENT;
        let rows = wrapped(
            text.trim(),
            width.saturating_sub(body_indent).max(1),
            theme::thinking(),
        );
        push_body(block, key, body_indent, rows, openness);
    }
}

/// `950`, `8.1k`, `1.2M`.
pub(crate) fn format_tokens(tokens: u64) -> String {
    match tokens {
        0..1_000 => tokens.to_string(),
        1_000..1_000_000 => format!("{}.{}k", tokens / 1_000, (tokens % 1_000) / 100),
        _ => format!("{}.{}M", tokens / 1_000_000, (tokens % 1_000_000) / 100_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert_eq!(format_tokens(950), "950");
        assert_eq!(format_tokens(8_150), "8.1k");
        assert_eq!(format_tokens(1_234_567), "1.2M");
    }

    #[test]
    fn the_spinner_is_a_function_of_the_frame() {
        assert_eq!(spinner(0), spinner(glyph::SPINNER.len()));
        assert_ne!(spinner(0), spinner(1));
    }
}
