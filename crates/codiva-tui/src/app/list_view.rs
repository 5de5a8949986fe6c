//! The session list: one row per session, columns chosen by the terminal's width.

use codiva_protocol::agent::{AgentAvailability, AgentStatus, LoginState};
use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::session::Status;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::activity::Activity;
use crate::i18n::{AppText, t, tf};
use crate::theme;
use crate::width::{fit, str_width};

/// A row's badge: what a person needs to know at a glance.
pub fn badge(session: &SessionInfo) -> (String, Style) {
    match &session.phase {
        SessionPhase::Preparing => (t(AppText::BadgePreparing).into(), theme::dim()),
        SessionPhase::Conflict { .. } => (t(AppText::BadgeConflict).into(), theme::error()),
        SessionPhase::Merged { .. } => (t(AppText::BadgeMerged).into(), theme::success()),
        SessionPhase::Discarded => (t(AppText::BadgeDiscarded).into(), theme::dim()),
        SessionPhase::Active => {
            if session.status == Status::Running && session.todos.total > 0 {
                return (
                    tf(
                        AppText::BadgeStep,
                        &[
                            &session.todos.done.to_string(),
                            &session.todos.total.to_string(),
                        ],
                    ),
                    theme::accent(),
                );
            }
            let (label, style) = theme::status_badge(session.status);
            (label.to_owned(), style)
        }
    }
}

/// The title column's text: the title, or, while the title is only the cut start of the
/// prompt, as much of the prompt as the column holds (a wide terminal shows more of it).
fn list_title(session: &SessionInfo, width: usize) -> String {
    let cut = session.title.ends_with('…')
        && session.title == codiva_protocol::text::default_title(&session.prompt);
    if cut
        && width > str_width(&session.title)
        && let Some(prompt) = codiva_protocol::text::sanitize_title_to(&session.prompt, width + 1)
    {
        return prompt;
    }
    session.title.clone()
}

/// `42s`, `3m 07s`, `1h 02m`.
pub fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs % 3600 / 60),
    }
}

struct Columns {
    badge: usize,
    model: usize,
    branch: usize,
    time: usize,
    /// The pull request cell (`crate::pr_cell`).
    pr: usize,
    /// The agent's memory and CPU (`resources.rs`): only where the row has room.
    res: usize,
    /// Sessions run more than one agent: the model cell names the agent too (`codex/gpt-5.5`).
    agent: bool,
}

/// The columns of a row `width` cells wide; the PR cell only when some session has (or looks
/// for) a pull request.
fn columns(width: usize, with_pr: bool) -> Columns {
    let mut cols = columns_for(width);
    if !with_pr {
        cols.pr = 0;
    }
    cols
}

/// Whether the list shows the PR cell.
pub fn shows_prs(sessions: &[SessionInfo]) -> bool {
    sessions
        .iter()
        .any(|s| s.prs.watched || !s.prs.prs.is_empty())
}

fn columns_for(width: usize) -> Columns {
    match width {
        0..60 => Columns {
            badge: 12,
            model: 0,
            branch: 0,
            time: 7,
            pr: 0,
            res: 0,
            agent: false,
        },
        60..100 => Columns {
            badge: 12,
            model: 12,
            branch: 0,
            time: 7,
            pr: 9,
            res: 0,
            agent: false,
        },
        100..160 => Columns {
            badge: 13,
            model: 16,
            branch: 28,
            time: 8,
            pr: 11,
            res: 0,
            agent: false,
        },
        _ => Columns {
            badge: 13,
            model: 20,
            branch: 44,
            time: 8,
            pr: 13,
            res: super::resources::COLUMN,
            agent: false,
        },
    }
}

/// The agents codiva knows, under the empty list's hint: each installed one (the default
/// marked) and each missing one; with none installed, a line that says to install one first
/// and each one's install command.
pub fn render_agents(agents: &[AgentAvailability], area: Rect, buf: &mut Buffer) {
    if agents.is_empty() || area.height == 0 {
        return;
    }
    let mut lines = Vec::new();
    let none_ready = !agents
        .iter()
        .any(|agent| agent.status == AgentStatus::Ready);
    if none_ready {
        // Wrapped: it is the screen's one instruction, whole at any width.
        let text = t(AppText::NoAgentInstalled);
        let room = usize::from(area.width.saturating_sub(2)).max(1);
        for row in crate::width::wrap_text(text, room) {
            lines.push(Line::styled(
                format!("  {}", text[row.start..row.end].trim_end()),
                theme::error(),
            ));
        }
    }
    lines.push(Line::styled(
        format!("  {}", t(AppText::AgentsTitle)),
        theme::dim(),
    ));
    let name_width = agents
        .iter()
        .map(|agent| crate::width::str_width(&agent.name))
        .max()
        .unwrap_or(0);
    for agent in agents {
        let name = crate::width::fit(&agent.name, name_width);
        let (state, style) = match (agent.status, &agent.login) {
            (AgentStatus::Ready, Some(LoginState::NotLoggedIn)) => {
                (t(AppText::AgentNotLoggedIn), theme::warning())
            }
            (AgentStatus::Ready, _) if agent.default => {
                (t(AppText::AgentReadyDefault), theme::text())
            }
            (AgentStatus::Ready, _) => (t(AppText::AgentReady), theme::text()),
            (AgentStatus::NotInstalled, _) => (t(AppText::AgentNotInstalled), theme::dim()),
        };
        lines.push(Line::styled(format!("    {name}  {state}"), style));
        // The install command on a line of its own (it is copied whole), while none is ready
        // to run: with one ready, the others are only named.
        if let Some(install) = agent.install.as_ref().filter(|_| none_ready) {
            lines.push(Line::styled(format!("      $ {install}"), theme::code()));
        }
    }
    for (row, line) in lines.iter().enumerate() {
        let Ok(row) = u16::try_from(row) else { break };
        if row >= area.height {
            break;
        }
        crate::width::set_line(buf, area.x, area.y + row, line, area.width);
    }
}

/// Draws the list into `area`, keeping `selected` visible. `focused`: the list has the keys.
/// Returns where the session rows are and the index of the session on the first of them (for
/// hit-testing).
pub fn render(
    sessions: &[SessionInfo],
    selected: usize,
    focused: bool,
    activity: Activity<'_>,
    area: Rect,
    buf: &mut Buffer,
) -> (Rect, usize) {
    if area.height == 0 {
        return (area, 0);
    }
    if sessions.is_empty() {
        let hint = Line::styled(format!("  {}", t(AppText::EmptyHint)), theme::dim());
        crate::width::set_line(buf, area.x, area.y, &hint, area.width);
        return (Rect::new(area.x, area.y, area.width, 0), 0);
    }
    let width = usize::from(area.width);
    let mut cols = columns(width, shows_prs(sessions));
    cols.agent = sessions.iter().any(|s| s.agent != sessions[0].agent);
    // The resources column only while some agent process runs (and was measured).
    if !sessions.iter().any(|s| s.resources.is_some()) {
        cols.res = 0;
    }
    let visible = usize::from(area.height);
    // Scroll so the selection is visible, with room for the "more" markers.
    let (first, rows) = if sessions.len() <= visible {
        (0, visible)
    } else {
        let rows = visible.saturating_sub(2).max(1);
        let first = selected
            .saturating_sub(rows / 2)
            .min(sessions.len().saturating_sub(rows));
        (first, rows)
    };
    let mut y = area.y;
    let scrolled = sessions.len() > visible;
    let shown = u16::try_from(rows.min(sessions.len() - first)).unwrap_or(0);
    let rows_area = Rect::new(area.x, area.y + u16::from(scrolled), area.width, shown);
    if scrolled {
        let text = if first > 0 {
            format!("  {}", tf(AppText::MoreAbove, &[&first.to_string()]))
        } else {
            String::new()
        };
        crate::width::set_line(
            buf,
            area.x,
            y,
            &Line::styled(text, theme::dim()),
            area.width,
        );
        y += 1;
    }
    for (index, session) in sessions.iter().enumerate().skip(first).take(rows) {
        let line = row(session, index == selected, focused, activity, width, &cols);
        crate::width::set_line(buf, area.x, y, &line, area.width);
        y += 1;
    }
    if scrolled {
        let below = sessions.len().saturating_sub(first + rows);
        let text = if below > 0 {
            format!("  {}", tf(AppText::MoreBelow, &[&below.to_string()]))
        } else {
            String::new()
        };
        crate::width::set_line(
            buf,
            area.x,
            y,
            &Line::styled(text, theme::dim()),
            area.width,
        );
    }
    (rows_area, first)
}

fn row(
    session: &SessionInfo,
    selected: bool,
    focused: bool,
    activity: Activity<'_>,
    width: usize,
    cols: &Columns,
) -> Line<'static> {
    let (badge_text, badge_style) = badge(session);
    let attention = session.status.awaits_user()
        || matches!(session.phase, SessionPhase::Conflict { .. })
        || matches!(session.status, Status::NeedsLogin | Status::Failed);
    let fixed = 4
        + cols.badge
        + 1
        + cols.model
        + usize::from(cols.model > 0)
        + cols.branch
        + usize::from(cols.branch > 0)
        + 1
        + cols.time
        + cols.pr
        + usize::from(cols.pr > 0)
        + cols.res;
    let title_width = width.saturating_sub(fixed).max(8);
    let marker = if selected { "›" } else { " " };
    // The dot column: who waits for you, else who is working (a spinner).
    let spinner = activity.spinner(session);
    let (dot, dot_style) = match spinner {
        _ if attention => (theme::glyph::ATTENTION, theme::warning()),
        _ if session.status == Status::Queued => (theme::glyph::QUEUED, theme::dim()),
        Some(frame) => (frame, theme::accent()),
        None => (" ", theme::dim()),
    };
    let row_style = if selected && focused {
        theme::selected()
    } else if selected {
        theme::bold()
    } else {
        Style::default()
    };
    let mut spans = vec![
        Span::styled(format!("{marker} "), row_style),
        Span::styled(dot.to_owned(), dot_style),
        Span::styled(" ", row_style),
        Span::styled(
            fit(&list_title(session, title_width), title_width),
            row_style,
        ),
        Span::raw(" "),
        Span::styled(fit(&badge_text, cols.badge), badge_style),
    ];
    if cols.model > 0 {
        let model = session.model.as_deref().unwrap_or("default");
        let cell = if cols.agent {
            format!("{}/{model}", session.agent)
        } else {
            model.to_owned()
        };
        spans.push(Span::styled(
            format!(" {}", fit(&cell, cols.model)),
            theme::dim(),
        ));
    }
    if cols.branch > 0 {
        spans.push(Span::styled(
            format!(" {}", fit(&branch_label(session), cols.branch)),
            theme::dim(),
        ));
    }
    if cols.res > 0 {
        spans.push(Span::styled(
            super::resources::cell(session.resources.as_ref()),
            theme::dim(),
        ));
    }
    let time = duration(activity.elapsed_ms(session));
    spans.push(Span::styled(
        format!(" {time:>width$}", width = cols.time),
        theme::dim(),
    ));
    if cols.pr > 0 {
        spans.push(Span::raw(" "));
        spans.extend(pr_cell(session, cols.pr));
    }
    Line::from(spans)
}

/// Where the PR cell starts in a row `width` cells wide (for a click), if the row has one.
pub fn pr_cell_start(width: usize, sessions: &[SessionInfo]) -> Option<usize> {
    let cols = columns(width, shows_prs(sessions));
    (cols.pr > 0).then(|| width.saturating_sub(cols.pr))
}

/// The PR cell fitted to `room` cells: `+n` goes first, then the number, never the glyph.
fn pr_cell(session: &SessionInfo, room: usize) -> Vec<Span<'static>> {
    let mut spans = crate::pr_cell::cell(&session.prs);
    let used = |spans: &[Span]| spans.iter().map(|s| str_width(&s.content)).sum::<usize>();
    while spans.len() > 1 && used(&spans) > room {
        spans.pop();
    }
    let pad = room.saturating_sub(used(&spans));
    spans.push(Span::raw(" ".repeat(pad)));
    spans
}

/// The session's branch, or for a session in place the directory it runs in (its last part).
pub(super) fn branch_label(session: &SessionInfo) -> String {
    if !session.in_place {
        return session.branch.clone();
    }
    let dir = session.worktree.file_name().map_or_else(
        || session.worktree.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    tf(AppText::InPlaceAt, &[&crate::dialog::sanitize(&dir)])
}
