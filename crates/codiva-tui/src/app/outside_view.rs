//! `/history`: the agents' own conversations for this repository that codiva does not manage
//! (begun in a plain terminal: Claude Code's transcripts, Codex's rollouts), drawn over the
//! body. The list (`history/list`: date, agent, size, first instruction; newest first) is
//! searched as the user types after `/`; Enter opens one read-only (`history/read`: its log
//! rebuilt from the agent's records, tool cards and all, drawn by the log view); `c` continues
//! it in codiva in place and `w` in a new worktree on a new branch (`history/adopt`); in the
//! read-only view `n`/`p` select a card and Enter opens or closes it, as in a session. Every
//! text here comes from outside codiva: the first instructions are sanitised again before they
//! are drawn, and the log view sanitises what it draws.

use codiva_protocol::outside::{
    AdoptPlace, HistoryAdoptParams, HistoryListResult, HistoryReadResult, OutsideConversation,
    OutsideConversationRef,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::dialog::sanitize;
use crate::i18n::{OutsideText, t, tf};
use crate::log_view::LogView;
use crate::log_view::cut_message::byte_size;
use crate::theme;
use crate::width::{fit, set_line, truncate};

/// From this width on the list also shows each conversation's directory.
const WIDE: u16 = 120;

pub struct HistoryView {
    /// `None` while the list is being read.
    list: Option<Result<HistoryListResult, String>>,
    query: String,
    /// The search prompt takes the keys.
    editing: bool,
    /// Index into the rows that match the query.
    selected: usize,
    reading: Option<Reading>,
    /// Rows the last frame showed (a page).
    page: usize,
}

struct Reading {
    conversation: OutsideConversation,
    /// `None` while it is being read; the bytes not read at its start.
    content: Option<Result<u64, String>>,
    log: LogView,
}

pub enum HistoryAction {
    None,
    Close,
    Read(OutsideConversationRef),
    Adopt(HistoryAdoptParams),
}

impl Default for HistoryView {
    fn default() -> Self {
        Self::loading()
    }
}

impl HistoryView {
    /// Waiting for `history/list`.
    pub fn loading() -> Self {
        HistoryView {
            list: None,
            query: String::new(),
            editing: false,
            selected: 0,
            reading: None,
            page: 10,
        }
    }

    pub fn set_list(&mut self, list: Result<HistoryListResult, String>) {
        self.list = Some(list);
        self.selected = 0;
    }

    /// The answer to `history/read` for conversation `id` (dropped when another is open).
    pub fn set_read(&mut self, id: &str, read: Result<HistoryReadResult, String>) {
        let Some(reading) = self.reading.as_mut().filter(|r| r.conversation.id == id) else {
            return;
        };
        reading.content = Some(match read {
            Ok(read) => {
                reading.log.set_entries(read.entries);
                Ok(read.skipped_bytes)
            }
            Err(error) => Err(error),
        });
    }

    /// The footer's hints.
    pub fn hint(&self) -> String {
        t(if self.editing {
            OutsideText::SearchHint
        } else if self.reading.is_some() {
            OutsideText::ReadHint
        } else {
            OutsideText::ListHint
        })
        .to_owned()
    }

    /// The conversations that match the search, newest first.
    fn rows(&self) -> Vec<&OutsideConversation> {
        let Some(Ok(list)) = &self.list else {
            return Vec::new();
        };
        list.conversations
            .iter()
            .filter(|conversation| conversation.matches(&self.query))
            .collect()
    }

    fn selected_conversation(&self) -> Option<&OutsideConversation> {
        match &self.reading {
            Some(reading) => Some(&reading.conversation),
            None => self.rows().get(self.selected).copied(),
        }
    }

    fn adopt(&self, place: AdoptPlace) -> HistoryAction {
        match self.selected_conversation() {
            Some(conversation) => HistoryAction::Adopt(HistoryAdoptParams {
                agent: conversation.agent.clone(),
                id: conversation.id.clone(),
                cwd: conversation.cwd.clone(),
                place,
            }),
            None => HistoryAction::None,
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> HistoryAction {
        if self.editing {
            match key.code {
                KeyCode::Enter => self.editing = false,
                KeyCode::Esc => {
                    self.editing = false;
                    self.query.clear();
                }
                KeyCode::Backspace => {
                    self.query.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    self.query.push(c);
                    self.selected = 0;
                }
                _ => {}
            }
            return HistoryAction::None;
        }
        if let Some(reading) = &mut self.reading {
            match key.code {
                KeyCode::Up | KeyCode::Char('k') => reading.log.scroll_up(1),
                KeyCode::Down | KeyCode::Char('j') => reading.log.scroll_down(1),
                KeyCode::PageUp => reading.log.page_up(),
                KeyCode::PageDown | KeyCode::Char(' ') => reading.log.page_down(),
                KeyCode::Home => reading.log.to_top(),
                KeyCode::End => reading.log.to_bottom(),
                // The cards: a fold of tool calls or a call opens and closes as in a session.
                KeyCode::Char('n') => {
                    reading.log.select_next_card();
                }
                KeyCode::Char('p') => {
                    reading.log.select_previous_card();
                }
                KeyCode::Enter => {
                    reading.log.toggle_selected();
                }
                KeyCode::Char('c') => return self.adopt(AdoptPlace::InPlace),
                KeyCode::Char('w') => return self.adopt(AdoptPlace::Worktree),
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Left => self.reading = None,
                _ => {}
            }
            return HistoryAction::None;
        }
        let last = self.rows().len().saturating_sub(1);
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(self.page.max(1)),
            KeyCode::PageDown => self.selected = (self.selected + self.page.max(1)).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Char('/') => self.editing = true,
            KeyCode::Enter => {
                if let Some(conversation) = self.rows().get(self.selected).copied().cloned() {
                    let read = OutsideConversationRef {
                        agent: conversation.agent.clone(),
                        id: conversation.id.clone(),
                        cwd: conversation.cwd.clone(),
                    };
                    self.reading = Some(Reading {
                        conversation,
                        content: None,
                        log: LogView::new(),
                    });
                    return HistoryAction::Read(read);
                }
            }
            KeyCode::Char('c') => return self.adopt(AdoptPlace::InPlace),
            KeyCode::Char('w') => return self.adopt(AdoptPlace::Worktree),
            KeyCode::Esc if !self.query.is_empty() => {
                self.query.clear();
                self.selected = 0;
            }
            KeyCode::Esc | KeyCode::Char('q') => return HistoryAction::Close,
            _ => {}
        }
        HistoryAction::None
    }

    /// The wheel scrolls the open conversation, or moves in the list.
    pub fn scroll_by(&mut self, rows: isize) {
        let steps = rows.unsigned_abs();
        match &mut self.reading {
            Some(reading) if rows < 0 => reading.log.scroll_up(steps),
            Some(reading) => reading.log.scroll_down(steps),
            None if rows < 0 => self.selected = self.selected.saturating_sub(steps),
            None => {
                let last = self.rows().len().saturating_sub(1);
                self.selected = (self.selected + steps).min(last);
            }
        }
    }

    pub fn render(&mut self, mut area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        // The last row says how to continue a conversation (the footer has the moves).
        let has_choice = self.reading.is_some() || !self.rows().is_empty();
        if has_choice && area.height > 3 {
            area.height -= 1;
            set_line(
                buf,
                area.x,
                area.y + area.height,
                &Line::styled(
                    truncate(
                        &format!(" {}", t(OutsideText::Actions)),
                        usize::from(area.width),
                    ),
                    theme::accent(),
                ),
                area.width,
            );
        }
        if self.reading.is_some() {
            self.render_reading(area, buf);
        } else {
            self.render_list(area, buf);
        }
    }

    fn render_list(&mut self, area: Rect, buf: &mut Buffer) {
        let width = usize::from(area.width);
        let rows = self.rows();
        let total = match &self.list {
            Some(Ok(list)) => list.conversations.len(),
            _ => 0,
        };
        let title = match &self.list {
            Some(Ok(list)) if list.more => tf(OutsideText::TitleMore, &[&total.to_string()]),
            _ => tf(OutsideText::Title, &[&total.to_string()]),
        };
        set_line(
            buf,
            area.x,
            area.y,
            &Line::styled(truncate(&format!(" {title}"), width), theme::bold()),
            area.width,
        );
        let mut y = area.y + 1;
        let bottom = area.y + area.height;
        if self.editing || !self.query.is_empty() {
            if y >= bottom {
                return;
            }
            let caret = if self.editing { "▏" } else { "" };
            let line = Line::from(vec![
                Span::styled(" /", theme::accent()),
                Span::styled(format!("{}{caret}", sanitize(&self.query)), theme::text()),
                Span::styled(
                    format!(
                        "  {}",
                        tf(OutsideText::Matching, &[&rows.len().to_string()])
                    ),
                    theme::dim(),
                ),
            ]);
            set_line(buf, area.x, y, &line, area.width);
            y += 1;
        }
        // Agents whose own listing failed: the others' conversations are listed all the same.
        if let Some(Ok(list)) = &self.list
            && !list.unavailable.is_empty()
            && y < bottom
        {
            let failed: Vec<String> = list
                .unavailable
                .iter()
                .map(|failure| {
                    format!("{}: {}", sanitize(&failure.agent), sanitize(&failure.error))
                })
                .collect();
            let text = tf(OutsideText::Unavailable, &[&failed.join("; ")]);
            set_line(
                buf,
                area.x,
                y,
                &Line::styled(truncate(&format!("  {text}"), width), theme::error()),
                area.width,
            );
            y += 1;
        }
        let message = match &self.list {
            None => Some((t(OutsideText::Loading).to_owned(), theme::dim())),
            Some(Err(error)) => Some((
                tf(OutsideText::CannotList, &[&sanitize(error)]),
                theme::error(),
            )),
            Some(Ok(_)) if total == 0 => Some((t(OutsideText::Empty).to_owned(), theme::dim())),
            Some(Ok(_)) if rows.is_empty() => Some((
                tf(OutsideText::NoMatch, &[&sanitize(&self.query)]),
                theme::dim(),
            )),
            Some(Ok(_)) => None,
        };
        if let Some((text, style)) = message {
            if y < bottom {
                set_line(
                    buf,
                    area.x,
                    y,
                    &Line::styled(truncate(&format!("  {text}"), width), style),
                    area.width,
                );
            }
            return;
        }
        let wide = area.width >= WIDE;
        let visible = usize::from(bottom.saturating_sub(y));
        let rows: Vec<OutsideConversation> = rows.into_iter().cloned().collect();
        self.page = visible.max(1);
        let selected = self.selected.min(rows.len().saturating_sub(1));
        let first = selected.saturating_sub(visible.saturating_sub(1));
        let shown = super::picker::visible_rows(&rows, selected, first, y, visible);
        for (row_y, is_selected, conversation) in shown {
            let (style, marker) = theme::pick_row(is_selected);
            let mut spans = vec![
                marker,
                Span::styled(
                    format!("{}  ", date(conversation.modified_ms)),
                    theme::dim(),
                ),
                Span::styled(fit(&sanitize(&conversation.agent), 6), theme::accent()),
                Span::styled(
                    // An ACP agent's listing says no size.
                    if conversation.size_bytes == 0 {
                        format!("  {:>9}  ", "—")
                    } else {
                        format!("  {:>9}  ", byte_size(size(conversation.size_bytes)))
                    },
                    theme::dim(),
                ),
            ];
            let mut used = 2 + 18 + 6 + 13;
            if wide {
                let dir = std::path::Path::new(&conversation.cwd)
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_else(|| conversation.cwd.clone());
                spans.push(Span::styled(
                    format!("{}  ", fit(&sanitize(&dir), 20)),
                    theme::dim(),
                ));
                used += 22;
            }
            let instruction = conversation
                .first_instruction
                .as_deref()
                .map(|text| sanitize(text).into_owned())
                .unwrap_or_else(|| t(OutsideText::NoInstruction).to_owned());
            spans.push(Span::styled(
                truncate(&instruction, width.saturating_sub(used)),
                style,
            ));
            set_line(buf, area.x, row_y, &Line::from(spans), area.width);
        }
    }

    fn render_reading(&mut self, area: Rect, buf: &mut Buffer) {
        let Some(reading) = &mut self.reading else {
            return;
        };
        let width = usize::from(area.width);
        let conversation = &reading.conversation;
        let instruction = conversation
            .first_instruction
            .as_deref()
            .map(|text| sanitize(text).into_owned())
            .unwrap_or_else(|| t(OutsideText::NoInstruction).to_owned());
        let facts = tf(
            OutsideText::ReadFacts,
            &[
                &sanitize(&conversation.agent),
                &date(conversation.modified_ms),
                &byte_size(size(conversation.size_bytes)),
            ],
        );
        let title = Line::from(vec![
            Span::styled(format!(" {} ", t(OutsideText::ReadOnly)), theme::accent()),
            Span::styled(
                truncate(&instruction, width.saturating_sub(facts.len() + 16)),
                theme::bold(),
            ),
            Span::styled(format!("  {facts}"), theme::dim()),
        ]);
        set_line(buf, area.x, area.y, &title, area.width);
        let mut body = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1),
            ..area
        };
        match &reading.content {
            None => {
                if body.height > 0 {
                    set_line(
                        buf,
                        body.x,
                        body.y,
                        &Line::styled(format!("  {}", t(OutsideText::Reading)), theme::dim()),
                        body.width,
                    );
                }
            }
            Some(Err(error)) => {
                if body.height > 0 {
                    let text = tf(OutsideText::CannotRead, &[&sanitize(error)]);
                    set_line(
                        buf,
                        body.x,
                        body.y,
                        &Line::styled(truncate(&format!("  {text}"), width), theme::error()),
                        body.width,
                    );
                }
            }
            Some(Ok(skipped)) => {
                if *skipped > 0 && body.height > 1 {
                    let text = tf(OutsideText::Skipped, &[&byte_size(size(*skipped))]);
                    set_line(
                        buf,
                        body.x,
                        body.y,
                        &Line::styled(truncate(&format!("  {text}"), width), theme::dim()),
                        body.width,
                    );
                    body.y += 1;
                    body.height -= 1;
                }
                reading.log.render(body, buf);
            }
        }
    }
}

fn size(bytes: u64) -> usize {
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// `YYYY-MM-DD HH:MM` (UTC) of milliseconds since the Unix epoch.
pub fn date(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm), for the proleptic Gregorian calendar.
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

impl super::App {
    /// `/history`: opens the view and asks for the list.
    pub(super) fn open_history(&mut self) -> Vec<super::Effect> {
        self.overlay = Some(super::overlay::Overlay::History(Box::default()));
        vec![super::Effect::request(
            codiva_protocol::ClientRequest::HistoryList(Default::default()),
        )]
    }

    fn history_view(&mut self) -> Option<&mut HistoryView> {
        match &mut self.overlay {
            Some(super::overlay::Overlay::History(view)) => Some(view),
            _ => None,
        }
    }

    /// `history/list` answered (dropped when the view was closed meanwhile).
    pub(super) fn history_listed(&mut self, list: Result<HistoryListResult, String>) {
        if let Some(view) = self.history_view() {
            view.set_list(list);
        }
    }

    /// `history/read` answered for conversation `id`.
    pub(super) fn history_read_arrived(
        &mut self,
        id: &str,
        read: Result<HistoryReadResult, String>,
    ) {
        if let Some(view) = self.history_view() {
            view.set_read(id, read);
        }
    }

    /// `history/adopt` answered: the session that continues the conversation opens.
    pub(super) fn history_adopted(
        &mut self,
        adopted: Result<codiva_protocol::manager::SessionInfo, String>,
    ) -> Vec<super::Effect> {
        match adopted {
            Ok(session) => {
                if self.history_view().is_some() {
                    self.overlay = None;
                }
                let title = crate::notify::sanitize_title(&session.title, 80);
                let effects = self.open_detail(session.id.clone());
                self.set_notice(tf(OutsideText::Adopted, &[&title]), false);
                effects
            }
            Err(error) => {
                self.set_notice(tf(OutsideText::CannotAdopt, &[&error]), true);
                Vec::new()
            }
        }
    }
}
