//! The session list: one row per session, columns chosen by the terminal's width; a group of
//! attempts is a parent row with its attempts under it (`groups.rs`).

use codiva_protocol::agent::{AgentAvailability, AgentStatus, LoginState};
use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::session::Status;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use codiva_protocol::group::{CheckRun, CheckState, GroupInfo};

use super::activity::Activity;
use super::groups::{Counts, Groups, ListRow, attempt_label};
use crate::i18n::{AppText, AttemptText, t, tf};
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
    /// The check's `✓` / `✗` / spinner, once some session has a check.
    check: usize,
}

/// The check column: its glyph and a space.
const CHECK_COLUMN: usize = 2;

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
            check: 0,
        },
        60..100 => Columns {
            badge: 12,
            model: 12,
            branch: 0,
            time: 7,
            pr: 9,
            res: 0,
            agent: false,
            check: 0,
        },
        100..160 => Columns {
            badge: 13,
            model: 16,
            branch: 28,
            time: 8,
            pr: 11,
            res: 0,
            agent: false,
            check: 0,
        },
        _ => Columns {
            badge: 13,
            model: 20,
            branch: 44,
            time: 8,
            pr: 13,
            res: super::resources::COLUMN,
            agent: false,
            check: 0,
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

/// What the list draws: the sessions, their groups, and the rows to show (in order).
#[derive(Clone, Copy)]
pub struct Rows<'a> {
    pub sessions: &'a [SessionInfo],
    pub groups: &'a Groups,
    pub rows: &'a [ListRow],
}

/// Draws the list's `rows` into `area`, keeping row `selected` visible. `focused`: the list has
/// the keys. Returns where the rows are and the position in `rows` of the first one drawn (for
/// hit-testing).
pub fn render(
    list: Rows<'_>,
    selected: usize,
    focused: bool,
    activity: Activity<'_>,
    area: Rect,
    buf: &mut Buffer,
) -> (Rect, usize) {
    if area.height == 0 {
        return (area, 0);
    }
    let Rows {
        sessions,
        groups,
        rows: list_rows,
    } = list;
    if list_rows.is_empty() {
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
    // The check column once some session has a check.
    if sessions.iter().any(|s| s.check.is_some()) {
        cols.check = CHECK_COLUMN;
    }
    let count = list_rows.len();
    let visible = usize::from(area.height);
    // Scroll so the selection is visible, with room for the "more" markers.
    let (first, rows) = if count <= visible {
        (0, visible)
    } else {
        let rows = visible.saturating_sub(2).max(1);
        let first = selected
            .saturating_sub(rows / 2)
            .min(count.saturating_sub(rows));
        (first, rows)
    };
    let mut y = area.y;
    let scrolled = count > visible;
    let shown = u16::try_from(rows.min(count - first)).unwrap_or(0);
    let rows_area = Rect::new(area.x, area.y + u16::from(scrolled), area.width, shown);
    if scrolled {
        beyond_line(buf, area.x, y, area.width, first, AppText::MoreAbove);
        y += 1;
    }
    for (position, list_row) in list_rows.iter().enumerate().skip(first).take(rows) {
        let look = Look {
            selected: position == selected,
            focused,
            activity,
            width,
        };
        let line = match list_row {
            ListRow::Session(index) => {
                let Some(session) = sessions.get(*index) else {
                    continue;
                };
                let group = groups.of(session);
                // An attempt under its group's row: `├` or, for the group's last row shown, `└`.
                let branch = group.map(|group| {
                    let next_in_group = match list_rows.get(position + 1) {
                        Some(ListRow::Session(next)) => sessions
                            .get(*next)
                            .is_some_and(|s| s.group.as_deref() == Some(group.id.as_str())),
                        _ => false,
                    };
                    let glyph = if next_in_group { "├ " } else { "└ " };
                    format!("{glyph}{}", attempt_label(Some(group), session))
                });
                row(session, branch.as_deref(), look, &cols)
            }
            ListRow::Group(id) => {
                let Some(group) = groups.get(id) else {
                    continue;
                };
                group_row(group, groups.is_collapsed(id), sessions, look, &cols)
            }
        };
        crate::width::set_line(buf, area.x, y, &line, area.width);
        y += 1;
    }
    if scrolled {
        let below = count.saturating_sub(first + rows);
        beyond_line(buf, area.x, y, area.width, below, AppText::MoreBelow);
    }
    (rows_area, first)
}

/// The dim line over or under a scrolled list that says how many rows lie beyond it (`text`
/// with the count; empty when none do).
fn beyond_line(buf: &mut Buffer, x: u16, y: u16, width: u16, hidden: usize, text: AppText) {
    let text = if hidden > 0 {
        format!("  {}", tf(text, &[&hidden.to_string()]))
    } else {
        String::new()
    };
    crate::width::set_line(buf, x, y, &Line::styled(text, theme::dim()), width);
}

/// How a row is drawn: selected, with the list focused, by this frame's clock, this wide.
#[derive(Clone, Copy)]
struct Look<'a> {
    selected: bool,
    focused: bool,
    activity: Activity<'a>,
    width: usize,
}

impl Look<'_> {
    fn style(&self) -> Style {
        if self.selected && self.focused {
            theme::selected()
        } else if self.selected {
            theme::bold()
        } else {
            Style::default()
        }
    }
}

/// The cells a row gives its fixed columns (all but the title).
fn fixed_width(cols: &Columns) -> usize {
    4 + cols.badge
        + 1
        + cols.check
        + cols.model
        + usize::from(cols.model > 0)
        + cols.branch
        + usize::from(cols.branch > 0)
        + 1
        + cols.time
        + cols.pr
        + usize::from(cols.pr > 0)
        + cols.res
}

/// A group's parent row: folded or open, the instruction, how many attempts run, wait or are
/// done (where the badge, check, model and branch columns would be), the group's elapsed time.
fn group_row(
    group: &GroupInfo,
    collapsed: bool,
    sessions: &[SessionInfo],
    look: Look<'_>,
    cols: &Columns,
) -> Line<'static> {
    let members: Vec<&SessionInfo> = super::groups::members(group, sessions)
        .into_iter()
        .filter_map(|index| sessions.get(index))
        .collect();
    let counts = Counts::of(members.iter().copied());
    let row_style = look.style();
    let marker = if look.selected { "›" } else { " " };
    let (dot, dot_style) = if counts.waiting > 0 {
        (theme::glyph::ATTENTION, theme::warning())
    } else {
        match members.iter().find_map(|s| look.activity.spinner(s)) {
            Some(frame) => (frame, theme::accent()),
            None => (" ", theme::dim()),
        }
    };
    let title_width = look.width.saturating_sub(fixed_width(cols)).max(8);
    let fold = if collapsed {
        theme::glyph::GROUP_FOLDED
    } else {
        theme::glyph::GROUP_OPEN
    };
    let instruction = codiva_protocol::text::sanitize_title_to(&group.instruction, title_width + 1)
        .unwrap_or_default();
    let title = format!(
        "{fold} {}",
        tf(
            AttemptText::GroupTitle,
            &[&members.len().to_string(), &instruction]
        )
    );
    // The summary takes the badge, check, model and branch columns.
    let summary_width = cols.badge
        + cols.check
        + cols.model
        + usize::from(cols.model > 0)
        + cols.branch
        + usize::from(cols.branch > 0);
    let counts_args = [
        &counts.running.to_string(),
        &counts.waiting.to_string(),
        &counts.done.to_string(),
    ];
    let full = tf(AttemptText::GroupCounts, &counts_args.map(String::as_str));
    let summary = if str_width(&full) <= summary_width {
        full
    } else {
        tf(
            AttemptText::GroupCountsShort,
            &counts_args.map(String::as_str),
        )
    };
    let summary_style = if counts.waiting > 0 {
        theme::warning()
    } else if counts.running > 0 {
        theme::accent()
    } else {
        theme::dim()
    };
    let mut spans = vec![
        Span::styled(format!("{marker} "), row_style),
        Span::styled(dot.to_owned(), dot_style),
        Span::styled(" ", row_style),
        Span::styled(fit(&title, title_width), row_style.patch(theme::bold())),
        Span::raw(" "),
        Span::styled(fit(&summary, summary_width), summary_style),
    ];
    if cols.res > 0 {
        spans.push(Span::raw(" ".repeat(cols.res)));
    }
    let time = duration(super::groups::elapsed_ms(
        look.activity,
        members.iter().copied(),
    ));
    spans.push(Span::styled(
        format!(" {time:>width$}", width = cols.time),
        theme::dim(),
    ));
    Line::from(spans)
}

/// A session's check in one cell: `✓` passed, `✗` failed (or timed out, or could not run), a
/// spinner while it runs; blank without one.
pub fn check_cell(check: Option<&CheckRun>, activity: Activity<'_>) -> (&'static str, Style) {
    let Some(check) = check else {
        return (" ", theme::dim());
    };
    match check.state {
        CheckState::Passed => (theme::glyph::OK, theme::success()),
        CheckState::Failed | CheckState::TimedOut | CheckState::Error => {
            (theme::glyph::FAILED, theme::error())
        }
        CheckState::Running => {
            let index =
                usize::try_from(activity.frame % theme::glyph::SPINNER.len() as u64).unwrap_or(0);
            (theme::glyph::SPINNER[index], theme::accent())
        }
        CheckState::Unknown => ("?", theme::dim()),
    }
}

/// A session's row; `attempt`: it is an attempt under its group's row, drawn with this label
/// (`├ codex`) in place of its title.
fn row(
    session: &SessionInfo,
    attempt: Option<&str>,
    look: Look<'_>,
    cols: &Columns,
) -> Line<'static> {
    let Look {
        selected,
        activity,
        width,
        ..
    } = look;
    let (badge_text, badge_style) = badge(session);
    let attention = session.status.awaits_user()
        || matches!(session.phase, SessionPhase::Conflict { .. })
        || matches!(session.status, Status::NeedsLogin | Status::Failed);
    let title_width = width.saturating_sub(fixed_width(cols)).max(8);
    let marker = if selected { "›" } else { " " };
    // The dot column: who waits for you, else who is working (a spinner).
    let spinner = activity.spinner(session);
    let (dot, dot_style) = match spinner {
        _ if attention => (theme::glyph::ATTENTION, theme::warning()),
        _ if session.status == Status::Queued => (theme::glyph::QUEUED, theme::dim()),
        Some(frame) => (frame, theme::accent()),
        None => (" ", theme::dim()),
    };
    let row_style = look.style();
    let title = match attempt {
        Some(label) => format!("  {label}"),
        None => list_title(session, title_width),
    };
    let mut spans = vec![
        Span::styled(format!("{marker} "), row_style),
        Span::styled(dot.to_owned(), dot_style),
        Span::styled(" ", row_style),
        Span::styled(fit(&title, title_width), row_style),
        Span::raw(" "),
        Span::styled(fit(&badge_text, cols.badge), badge_style),
    ];
    if cols.check > 0 {
        let (glyph, style) = check_cell(session.check.as_deref(), activity);
        spans.push(Span::styled(fit(glyph, cols.check), style));
    }
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
