//! One frame's layout and its bars: header, body (list or detail), palette / confirmation, notice,
//! composer, footer, and the session view's status bar and dialogs.

use codiva_protocol::manager::SessionPhase;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::pane::Dialog;
use super::{App, Focus, RunMode, View, list_view};
use crate::i18n::{AppText, AttemptText, ViewText, t, tf, tn};
use crate::theme;
use crate::width::{fit, truncate, wrap_text};

/// Log rows that stay visible under a dialog.
const LOG_RESERVE: u16 = 5;

/// Draws the whole frame, top to bottom: header, body (a view over it, the list or the open
/// session), the bands under the body (palette, notice, confirmation, the session's status
/// bar), the rule, the composer, the footer; `/help` over all of it.
pub fn render(app: &mut App, frame: &mut Frame) {
    let area = frame.area();
    let width = area.width;
    let mode = app.composer_mode();
    app.composer.set_placeholder(mode.placeholder());
    let header = header_lines(app, width);
    let footer = footer_line(app, width);
    let composer_height = if app.confirm.is_some() || app.overlay.is_some() {
        0
    } else {
        app.composer.desired_height(width).clamp(1, 8)
    };
    let mut bands = palette_lines(app, width);
    bands.extend(notice_lines(app, width));
    bands.extend(confirm_lines(app, width));
    if let View::Detail(id) = &app.view {
        let id = id.clone();
        bands.push(status_bar(app, &id, width));
    }
    let header_height = u16::try_from(header.len()).unwrap_or(2);
    let bands_height = u16::try_from(bands.len()).unwrap_or(0);
    // header | body | bands | rule | composer | footer
    let fixed = header_height + bands_height + 1 + composer_height + 1;
    let body_height = area.height.saturating_sub(fixed);
    let buf = frame.buffer_mut();
    let mut y = area.y;
    app.shown_dialog = None;
    app.layout = super::mouse::Layout {
        header: Rect::new(area.x, area.y, width, header_height),
        ..super::mouse::Layout::default()
    };
    for line in &header {
        put(buf, area.x, y, width, line);
        y += 1;
    }
    let body = Rect::new(area.x, y, width, body_height);
    y += body_height;
    let overlay_cursor = render_body(app, body, buf);
    for line in &bands {
        put(buf, area.x, y, width, line);
        y += 1;
    }
    let rule = composer_rule(app, composer_height, width);
    put(buf, area.x, y, width, &rule);
    y += 1;
    if composer_height > 0 {
        let composer_area = Rect::new(area.x, y, width, composer_height);
        app.layout.composer = Some(composer_area);
        let cursor = app.composer.render(composer_area, buf);
        if app.focus == Focus::Composer
            && app.help.is_none()
            && let Some((x, cy)) = cursor
        {
            frame.set_cursor_position((x, cy));
            app.cursor = Some((x, cy));
        }
        y += composer_height;
    }
    if let Some((x, cy)) = overlay_cursor {
        frame.set_cursor_position((x, cy));
        app.cursor = Some((x, cy));
    }
    let buf = frame.buffer_mut();
    put(
        buf,
        area.x,
        y.min(area.bottom().saturating_sub(1)),
        width,
        &footer,
    );
    if app.help.is_some() {
        super::help::render(app, area, frame.buffer_mut());
    }
}

/// The body: the open view over it, else the list or the open session; where the caret goes
/// (a view's editor).
fn render_body(app: &mut App, body: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
    if app.overlay.is_some() {
        return app.render_overlay(body, buf);
    }
    match app.view.clone() {
        View::List => render_list(app, body, buf),
        View::Detail(id) => detail(app, &id, body, buf),
    }
    None
}

/// The session list, with the selected session's question or permission under it,
/// answerable from the list.
fn render_list(app: &mut App, body: Rect, buf: &mut Buffer) {
    let focused = app.focus == Focus::List;
    app.selected = app.selected.min(app.sessions.len().saturating_sub(1));
    let waiting = app
        .selected_session()
        .filter(|s| s.status.awaits_user())
        .map(|s| s.id.clone());
    let dialog_height = match &waiting {
        Some(id) => dialog_height(app, id, body.width, body.height.saturating_sub(LOG_RESERVE)),
        None => 0,
    };
    let list_area = Rect::new(body.x, body.y, body.width, body.height - dialog_height);
    let first = super::filter::render_list(app, focused, list_area, buf);
    app.layout.list = Some(first);
    if let Some(id) = waiting
        && dialog_height > 0
    {
        let area = Rect::new(body.x, list_area.bottom(), body.width, dialog_height);
        app.layout.dialog = Some(area);
        render_dialog(app, &id, area, buf);
    }
}

/// The palette's commands matching what is typed (six at most), the selected one marked.
fn palette_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    if !app.palette.is_open() {
        return Vec::new();
    }
    app.palette
        .matches()
        .iter()
        .take(6)
        .enumerate()
        .map(|(index, command)| {
            let style = if index == app.palette.selected_index() {
                theme::selected()
            } else {
                theme::text()
            };
            let text = format!(
                "  /{:<8} {}",
                command.name(),
                command.description(&app.view)
            );
            Line::styled(fit(&text, usize::from(width)), style)
        })
        .collect()
}

/// The notice, wrapped to three rows at most; an error's in the error style.
fn notice_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let Some((text, error)) = app.notice() else {
        return Vec::new();
    };
    let style = if error { theme::error() } else { theme::dim() };
    wrap_text(text, usize::from(width.saturating_sub(2)).max(1))
        .into_iter()
        .take(3)
        .map(|row| Line::styled(format!("  {}", &text[row.start..row.end]), style))
        .collect()
}

/// The y/n question, wrapped, and its choices.
fn confirm_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let Some(confirm) = &app.confirm else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for text in &confirm.text {
        for row in wrap_text(text, usize::from(width.saturating_sub(2)).max(1)) {
            lines.push(Line::styled(
                format!("  {}", &text[row.start..row.end]),
                theme::warning(),
            ));
        }
    }
    let choices = app
        .confirm_extra
        .as_ref()
        .map_or(t(AppText::YesNo), |(_, _, choices)| choices.as_str());
    lines.push(Line::styled(format!("  {choices}"), theme::bold()));
    lines
}

/// The rule over the composer: heavy while the composer has the keys.
fn composer_rule(app: &App, composer_height: u16, width: u16) -> Line<'static> {
    if app.focus == Focus::Composer && composer_height > 0 {
        Line::styled(
            theme::glyph::RULE_FOCUSED.repeat(usize::from(width)),
            theme::focused_border(),
        )
    } else {
        Line::styled(
            theme::glyph::RULE.repeat(usize::from(width)),
            theme::border(),
        )
    }
}

fn put(buf: &mut Buffer, x: u16, y: u16, width: u16, line: &Line) {
    if y < buf.area.bottom() {
        crate::width::set_line(buf, x, y, line, width);
    }
}

fn header_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    // Waiting for the user: a question, a permission, or a login only they can give.
    let waiting = app
        .sessions
        .iter()
        .filter(|s| {
            s.status.awaits_user() || s.status == codiva_protocol::session::Status::NeedsLogin
        })
        .count();
    let cost: f64 = app.sessions.iter().filter_map(|s| s.cost_usd).sum();
    let mut first = vec![
        Span::styled(format!("codiva {}", app.info.version), theme::bold()),
        Span::styled(
            format!(
                "  {}",
                tn(
                    app.sessions.len(),
                    AppText::SessionOne,
                    AppText::Sessions,
                    &[]
                )
            ),
            theme::text(),
        ),
    ];
    if waiting > 0 {
        first.push(Span::styled(
            format!("  {}", tf(AppText::Waiting, &[&waiting.to_string()])),
            theme::warning(),
        ));
    }
    if cost > 0.0 {
        first.push(Span::styled(format!("  ${cost:.2}"), theme::dim()));
    }
    if let Some(total) = super::resources::total(&app.sessions) {
        first.push(Span::styled(format!("  {total}"), theme::dim()));
    }
    let used: usize = first
        .iter()
        .map(|span| crate::width::str_width(&span.content))
        .sum();
    first.extend(app.plan.spans(usize::from(width).saturating_sub(used)));
    let model = app
        .info
        .model
        .as_deref()
        .unwrap_or(t(AppText::DefaultModel));
    let agent = if app.info.agent.is_empty() {
        t(AppText::NoAgent)
    } else {
        app.info.agent.as_str()
    };
    let second = format!(
        "{} · {} · {} · {}",
        agent,
        model,
        tf(AppText::Base, &[&app.info.base]),
        match &app.info.remote {
            Some(remote) => format!("{}:{}", crate::dialog::sanitize(&remote.host), app.info.cwd),
            None => app.info.cwd.clone(),
        }
    );
    vec![
        Line::from(first),
        Line::styled(truncate(&second, usize::from(width)), theme::dim()),
    ]
}

/// Context meter, tokens, cost (hidden without one or on a subscription), model, permission
/// mode.
fn status_bar(app: &mut App, id: &str, width: u16) -> Line<'static> {
    let row = app.sessions.iter().find(|s| s.id == id);
    let model = row.and_then(|s| s.model.clone());
    let mcp = row.and_then(|s| mcp_summary(&s.mcp_servers));
    let pane = app.pane(id);
    let mut spans: Vec<Span<'static>> = Vec::new();
    if let Some(usage) = pane.usage() {
        if let Some(window) = usage.context_window.filter(|w| *w > 0) {
            let used = usage.context_used.min(window);
            let cells = 10usize;
            let filled = usize::try_from(used.saturating_mul(10) / window)
                .unwrap_or(cells)
                .min(cells);
            let percent = used * 100 / window;
            let style = match percent {
                0..60 => theme::success(),
                60..85 => theme::warning(),
                _ => theme::error(),
            };
            spans.push(Span::styled(" ctx ", theme::dim()));
            spans.push(Span::styled("█".repeat(filled), style));
            spans.push(Span::styled("░".repeat(cells - filled), theme::dim()));
            spans.push(Span::styled(
                format!(" {percent}% {}/{}", tokens(used), tokens(window)),
                theme::dim(),
            ));
        }
        let total = usage.tokens.input
            + usage.tokens.output
            + usage.tokens.cache_read
            + usage.tokens.cache_creation;
        spans.push(Span::styled(
            format!(
                "{}{}",
                separator(&spans),
                tf(AppText::Tokens, &[&tokens(total)])
            ),
            theme::dim(),
        ));
        let subscription = pane
            .agent()
            .and_then(|agent| agent.account.as_ref())
            .is_some_and(codiva_protocol::agent::Account::is_subscription);
        if let Some(cost) = usage.cost_usd.filter(|_| !subscription) {
            spans.push(Span::styled(
                format!("{}${cost:.2}", separator(&spans)),
                theme::dim(),
            ));
        }
    }
    if let Some((text, style)) = mcp {
        spans.push(Span::styled(format!("{}{text}", separator(&spans)), style));
    }
    spans.push(Span::styled(
        format!(
            "{}{}",
            separator(&spans),
            model.as_deref().unwrap_or(t(AppText::DefaultModel))
        ),
        theme::dim(),
    ));
    if let Some(mode) = pane.permission_mode() {
        spans.push(Span::styled(format!(" · {mode}"), theme::dim()));
    }
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    if crate::width::str_width(&text) > usize::from(width) {
        return Line::styled(truncate(&text, usize::from(width)), theme::dim());
    }
    Line::from(spans)
}

/// The session's MCP servers in a few words (`MCP 1/2 unity-ops failed`), coloured by the
/// worst status; `None` without servers.
fn mcp_summary(
    servers: &[codiva_protocol::mcp::McpServerState],
) -> Option<(String, ratatui::style::Style)> {
    use codiva_protocol::mcp::McpStatus;
    if servers.is_empty() {
        return None;
    }
    let names = |status: McpStatus| {
        servers
            .iter()
            .filter(|server| server.status == status)
            .map(|server| server.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // An agent that reports no MCP status (ACP): its servers are counted apart, not as
    // unconnected.
    let not_reported = servers
        .iter()
        .filter(|server| server.status == McpStatus::NotReported)
        .count();
    let reported = servers.len() - not_reported;
    let connected = servers
        .iter()
        .filter(|server| server.status == McpStatus::Connected)
        .count();
    let mut text = String::new();
    if reported > 0 {
        text = tf(
            AppText::McpSummary,
            &[&connected.to_string(), &reported.to_string()],
        );
    }
    let failed = names(McpStatus::Failed);
    let needs_auth = names(McpStatus::NeedsAuth);
    for (key, names) in [
        (AppText::McpFailed, &failed),
        (AppText::McpNeedsAuth, &needs_auth),
    ] {
        if !names.is_empty() {
            text.push(' ');
            text.push_str(&tf(key, &[names]));
        }
    }
    if not_reported > 0 {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&tf(AppText::McpNotReported, &[&not_reported.to_string()]));
    }
    let style = if !failed.is_empty() || !needs_auth.is_empty() {
        theme::error()
    } else if connected < reported {
        theme::warning()
    } else {
        theme::dim()
    };
    Some((crate::dialog::sanitize(&text).replace('\n', " "), style))
}

/// What goes before the next part of the status bar: a space at its start, else ` · `.
fn separator(spans: &[Span]) -> &'static str {
    if spans.is_empty() { " " } else { " · " }
}

/// `950`, `12.3k`, `1.2M`.
fn tokens(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", count as f64 / 1_000.0),
        _ => format!("{:.1}M", count as f64 / 1_000_000.0),
    }
}

fn footer_line(app: &App, width: u16) -> Line<'static> {
    if let Some(hint) = app.overlay_hint() {
        return footer_with(app, width, &hint);
    }
    if app.focus == Focus::Dialog
        && let Some(back) = app.dialog_back_hint()
    {
        let key = match app.view {
            View::List => AppText::HintListDialogBack,
            View::Detail(_) => AppText::HintDetailDialogBack,
        };
        return footer_with(app, width, &tf(key, &[t(back)]));
    }
    // On a group's row the keys fold it and compare its attempts.
    if app.focus == Focus::List && app.on_group_row() && app.confirm.is_none() {
        return footer_with(app, width, t(AttemptText::HintGroupRow));
    }
    let hints = t(match (&app.view, app.focus) {
        (_, _) if app.confirm.is_some() => AppText::YesNo,
        (_, Focus::Composer) => return footer_with(app, width, app.composer_mode().hints()),
        (View::List, Focus::List) => AppText::HintListFocus,
        (View::List, Focus::Dialog) => AppText::HintListDialog,
        (View::List, _) => AppText::HintList,
        (View::Detail(_), Focus::Dialog) => AppText::HintDetailDialog,
        (View::Detail(_), Focus::Log) => AppText::HintDetailLog,
        (View::Detail(_), _) => AppText::HintDetail,
    });
    footer_with(app, width, hints)
}

/// The footer: where the keys are, the hints that fit (most important first, whole hints
/// only), and the run mode (shortened when room is tight).
fn footer_with(app: &App, width: u16, hints: &str) -> Line<'static> {
    let mode = t(match app.run_mode {
        RunMode::Confirm => AppText::ModeConfirm,
        RunMode::Auto => AppText::ModeAuto,
    });
    let full_mode = tf(AppText::ModeLabel, &[mode]);
    // Where the keys go, first and highlighted: typing never lands somewhere unseen.
    let label = format!(
        " {} ",
        if app.confirm.is_none() && app.overlay.is_some() {
            t(ViewText::FocusView)
        } else {
            t(match app.focus {
                _ if app.confirm.is_some() => AppText::FocusConfirm,
                Focus::Composer => AppText::FocusComposer,
                Focus::Dialog => AppText::FocusDialog,
                Focus::List => AppText::FocusList,
                Focus::Log => AppText::FocusLog,
            })
        }
    );
    let short_mode = tf(AppText::ModeLabelShort, &[mode]);
    let width = usize::from(width);
    let room_with = |mode: &str| {
        width.saturating_sub(crate::width::str_width(mode) + crate::width::str_width(&label) + 1)
    };
    let all_fit = crate::width::str_width(hints) < room_with(&full_mode);
    let mode_text = if all_fit { full_mode } else { short_mode };
    let room = room_with(&mode_text);
    Line::from(vec![
        Span::styled(label, theme::focus_label()),
        Span::styled(fit(&fitting_hints(hints, room), room), theme::dim()),
        Span::styled(
            mode_text,
            if app.run_mode == RunMode::Auto {
                theme::warning()
            } else {
                theme::dim()
            },
        ),
    ])
}

fn detail(app: &mut App, id: &str, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let session = app.sessions.iter().find(|s| s.id == id).cloned();
    let title = match &session {
        Some(session) => {
            let (badge, style) = list_view::badge(session);
            let activity = app.activity();
            let mut spans = vec![Span::styled(format!("‹ {} ", session.title), theme::bold())];
            if let Some(frame) = activity.spinner(session) {
                spans.push(Span::styled(format!("{frame} "), theme::accent()));
            }
            spans.push(Span::styled(badge, style));
            // Its check, as the list's cell says it, in words.
            if let Some(check) = session.check.as_deref() {
                let (words, style) = super::compare_view::check_words(Some(check));
                spans.push(Span::styled(
                    format!(" · {}", tf(AttemptText::CheckShort, &[&words])),
                    style,
                ));
            }
            spans.push(Span::styled(
                format!(" · {}", list_view::duration(activity.elapsed_ms(session))),
                theme::dim(),
            ));
            if let Some(resources) = &session.resources {
                spans.push(Span::styled(
                    format!(" · {}", super::resources::session(resources)),
                    theme::dim(),
                ));
            }
            if let Some(detail) =
                crate::i18n::status_detail(session.detail.as_deref(), session.detail_code.as_ref())
            {
                let detail = crate::dialog::sanitize(&detail);
                spans.push(Span::styled(format!(" · {detail}"), theme::dim()));
            }
            if let SessionPhase::Conflict { files } = &session.phase {
                spans.push(Span::styled(
                    tf(AppText::Conflicts, &[&files.join(", ")]),
                    theme::error(),
                ));
            }
            spans.push(Span::styled(
                format!(" · {}", list_view::branch_label(session)),
                theme::dim(),
            ));
            Line::from(spans)
        }
        None => Line::styled(format!("‹ {id}"), theme::bold()),
    };
    crate::width::set_line(buf, area.x, area.y, &title, area.width);
    let mut rest = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    // Its pull requests, when it has (or looks for) one.
    if let Some(spans) = session.as_ref().and_then(|s| crate::pr_cell::line(&s.prs))
        && rest.height > LOG_RESERVE
    {
        crate::width::set_line(buf, rest.x, rest.y, &Line::from(spans), rest.width);
        rest.y += 1;
        rest.height -= 1;
    }
    // Its uncommitted files, a short list (`/commit` takes them).
    if let Some(line) = super::repair::uncommitted_line(app.pane(id).uncommitted.as_deref())
        && rest.height > LOG_RESERVE
    {
        crate::width::set_line(buf, rest.x, rest.y, &line, rest.width);
        rest.y += 1;
        rest.height -= 1;
    }
    // A session that needs a login says which credential failed and how to fix it.
    if session
        .as_ref()
        .is_some_and(|s| s.status == codiva_protocol::session::Status::NeedsLogin)
    {
        let account = app.pane(id).agent().and_then(|a| a.account.clone());
        let text = super::login::help(account.as_ref());
        let room = usize::from(rest.width.saturating_sub(2)).max(1);
        // Whole at 80 columns (the longest hint wraps to 4 rows there).
        for row in wrap_text(&text, room).into_iter().take(5) {
            if rest.height <= LOG_RESERVE {
                break;
            }
            let line = Line::styled(format!("  {}", &text[row.start..row.end]), theme::error());
            crate::width::set_line(buf, rest.x, rest.y, &line, rest.width);
            rest.y += 1;
            rest.height -= 1;
        }
    }
    let dialog_height = dialog_height(app, id, rest.width, rest.height.saturating_sub(LOG_RESERVE));
    let log_area = Rect::new(rest.x, rest.y, rest.width, rest.height - dialog_height);
    app.layout.log = Some(log_area);
    app.pane(id).log.render(log_area, buf);
    if let Some(search) = app.pane(id).search.as_ref().filter(|s| !s.editing) {
        crate::search::highlight(buf, log_area, &search.query);
    }
    if dialog_height > 0 {
        let dialog_area = Rect::new(rest.x, rest.y + log_area.height, rest.width, dialog_height);
        app.layout.dialog = Some(dialog_area);
        render_dialog(app, id, dialog_area, buf);
    }
}

/// Rows the dialog of session `id` wants, at most `max`.
fn dialog_height(app: &mut App, id: &str, width: u16, max: u16) -> u16 {
    match app.pane(id).dialog() {
        Some(Dialog::Permission(dialog)) => dialog.desired_height(width, max),
        Some(Dialog::Question(dialog)) => dialog.desired_height(width, max),
        None => 0,
    }
    .min(max)
}

/// Draws the dialog; its title rule is heavy while it has the keys, else its first row says
/// how to get to it.
fn render_dialog(app: &mut App, id: &str, area: Rect, buf: &mut Buffer) {
    app.shown_dialog = Some(id.to_owned());
    let focused = app.focus == Focus::Dialog;
    match app.pane(id).dialog() {
        Some(Dialog::Permission(dialog)) => dialog.render(area, buf),
        Some(Dialog::Question(dialog)) => dialog.render(area, buf),
        None => return,
    }
    if focused {
        for x in area.left()..area.right() {
            if let Some(cell) = buf.cell_mut((x, area.y))
                && cell.symbol() == theme::glyph::RULE
            {
                cell.set_symbol(theme::glyph::RULE_FOCUSED);
                cell.set_style(theme::focused_border());
            }
        }
    } else {
        let hint = t(AppText::TabToAnswer);
        let cells = u16::try_from(crate::width::str_width(hint)).unwrap_or(16);
        let x = area.right().saturating_sub(cells + 1);
        crate::width::set_line(buf, x, area.y, &Line::styled(hint, theme::warning()), cells);
    }
}

/// ` a · b · c` cut to the hints that fit in `room` cells, whole ones from the first.
fn fitting_hints(hints: &str, room: usize) -> String {
    let mut out = String::new();
    for hint in hints.split(" · ") {
        let next = if out.is_empty() {
            format!(" {hint}")
        } else {
            format!("{out} · {hint}")
        };
        if crate::width::str_width(&next) >= room {
            break;
        }
        out = next;
    }
    out
}
