//! The session list's filter (`f` in the list): the rows whose title, branch or status (the
//! status word, or the badge as shown in the UI's language) contain what was typed, ignoring
//! case. The selection and the mouse follow the rows shown.

use codiva_protocol::manager::{SessionInfo, SessionPhase};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::groups::ListRow;
use super::{App, list_view};
use crate::i18n::{ViewText, tf};
use crate::theme;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    pub query: String,
    /// Keys go to the query (else back to the list, the filter kept).
    pub editing: bool,
}

pub enum FilterAction {
    None,
    /// Leave the query, keep the filter.
    Done,
    /// Drop the filter.
    Clear,
}

/// Whether `session` matches `query` (empty matches everything).
pub fn matches(session: &SessionInfo, query: &str) -> bool {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return true;
    }
    let phase = match &session.phase {
        SessionPhase::Preparing => "preparing",
        SessionPhase::Active => "",
        SessionPhase::Conflict { .. } => "conflict",
        SessionPhase::Merged { .. } => "merged",
        SessionPhase::Discarded => "discarded",
    };
    [
        session.title.as_str(),
        session.branch.as_str(),
        session.status.as_str(),
        phase,
        list_view::badge(session).0.as_str(),
    ]
    .iter()
    .any(|field| field.to_lowercase().contains(&query))
}

/// Draws the list (under its filter line when there is a filter): returns the rows' area and
/// the first row's position in [`App::visible_rows`], which the app keeps for the mouse.
pub(super) fn render_list(
    app: &mut App,
    focused: bool,
    area: Rect,
    buf: &mut Buffer,
) -> (Rect, usize) {
    let rows = app.visible_rows();
    let selected = app.selected_row();
    let position = rows.iter().position(|row| *row == selected).unwrap_or(0);
    let mut area = area;
    if app.filter.is_none() {
        if app.sessions.is_empty() && app.no_agent() {
            // Nothing can run: what to install takes the place of "type an instruction".
            list_view::render_agents(&app.info.agents, area, buf);
            app.list_rows = rows;
            return (Rect::new(area.x, area.y, area.width, 0), 0);
        }
    } else if let Some(filter) = &app.filter
        && area.height > 0
    {
        let caret = if filter.editing { "▏" } else { "" };
        let shown = rows
            .iter()
            .filter(|row| matches!(row, ListRow::Session(_)))
            .count();
        let text = tf(
            ViewText::FilterLine,
            &[
                &format!("{}{caret}", filter.query),
                &shown.to_string(),
                &app.sessions.len().to_string(),
            ],
        );
        let style = if filter.editing {
            theme::warning()
        } else {
            theme::dim()
        };
        crate::width::set_line(
            buf,
            area.x,
            area.y,
            &Line::styled(format!("  {text}"), style),
            area.width,
        );
        area = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        if rows.is_empty() && area.height > 0 {
            crate::width::set_line(
                buf,
                area.x,
                area.y,
                &Line::styled(
                    format!("  {}", tf(ViewText::FilterNoMatch, &[&filter.query])),
                    theme::dim(),
                ),
                area.width,
            );
            app.list_rows = rows;
            return (Rect::new(area.x, area.y, area.width, 0), 0);
        }
    }
    let list = list_view::Rows {
        sessions: &app.sessions,
        groups: &app.groups,
        rows: &rows,
    };
    let drawn = list_view::render(list, position, focused, app.activity(), area, buf);
    if app.filter.is_none() && app.sessions.is_empty() && area.height > 2 {
        let below = Rect::new(area.x, area.y + 2, area.width, area.height - 2);
        list_view::render_agents(&app.info.agents, below, buf);
    }
    app.list_rows = rows;
    drawn
}

impl ListFilter {
    pub fn key(&mut self, key: KeyEvent) -> FilterAction {
        match key.code {
            KeyCode::Esc => return FilterAction::Clear,
            KeyCode::Enter | KeyCode::Down | KeyCode::Up | KeyCode::Tab => {
                self.editing = false;
                return FilterAction::Done;
            }
            KeyCode::Backspace => {
                self.query.pop();
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.query.clear();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.query.push(c);
            }
            _ => {}
        }
        FilterAction::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codiva_protocol::session::{Status, TodoProgress};

    fn session(title: &str, branch: &str, status: Status, phase: SessionPhase) -> SessionInfo {
        SessionInfo {
            id: branch.into(),
            title: title.into(),
            prompt: title.into(),
            branch: format!("codiva/{branch}"),
            worktree: std::path::PathBuf::new(),
            base: "main".into(),
            phase,
            status,
            detail: None,
            detail_code: None,
            agent: "claude".into(),
            agent_session_id: None,
            model: None,
            cost_usd: None,
            active_ms: 0,
            created_at: 0,
            pending_prompts: 0,
            todos: TodoProgress::default(),
            prs: Default::default(),
            in_place: false,
            mcp_servers: Vec::new(),
            resources: None,
            review: Vec::new(),
            group: None,
            check: None,
        }
    }

    #[test]
    fn by_title_branch_or_status_ignoring_case() {
        let login = session(
            "Fix the Login loop",
            "fix-login",
            Status::Completed,
            SessionPhase::Active,
        );
        let docs = session(
            "日本語のドキュメント",
            "docs",
            Status::Failed,
            SessionPhase::Discarded,
        );
        assert!(matches(&login, "login"));
        assert!(matches(&login, "LOGIN"));
        assert!(matches(&login, "codiva/fix"));
        assert!(matches(&login, "completed"));
        assert!(!matches(&login, "failed"));
        assert!(matches(&docs, "ドキュメント"));
        assert!(matches(&docs, "discarded"));
        assert!(matches(&docs, " "));
        assert!(!matches(&docs, "login"));
    }

    #[test]
    fn typing_editing_and_leaving() {
        let mut filter = ListFilter {
            query: String::new(),
            editing: true,
        };
        for c in "lox".chars() {
            filter.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        filter.key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!(filter.query, "lo");
        assert!(matches!(
            filter.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
            FilterAction::Done
        ));
        assert!(!filter.editing);
        assert!(matches!(
            filter.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
            FilterAction::Clear
        ));
    }
}
