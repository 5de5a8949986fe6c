//! The whole text of an assistant message the log cut at the memory cap, drawn over the body:
//! Enter in the log on a cut message asks the manager (`session/fullMessage`, read back from
//! the agent's transcript; nothing of it is kept in the log), and the answer fills this view,
//! rendered as Markdown at the view's width (sanitised by the renderer), scrolled by row,
//! page or end, with search (`/`, `n`/`N`, matches highlighted). A refusal is shown inside it.

use codiva_protocol::ClientRequest;
use codiva_protocol::params::FullMessageParams;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::overlay::Overlay;
use super::{App, Effect};
use crate::i18n::{ViewText, t, tf};
use crate::log_view::cut_message::byte_size;
use crate::markdown;
use crate::search::{self, PromptKey, Search};
use crate::theme;
use crate::width::{truncate, wrap_text};

enum Content {
    Loading,
    Text(String),
    Error(String),
}

/// The text's rows at one width.
struct Rendered {
    width: u16,
    lines: Vec<Line<'static>>,
    texts: Vec<String>,
}

pub struct MessageView {
    pub id: String,
    pub entry: u64,
    /// The message's size in bytes, for the title.
    size: usize,
    content: Content,
    rendered: Option<Rendered>,
    scroll: usize,
    /// Rows of text the last frame showed (a page).
    page: usize,
    pub search: Option<Search>,
}

pub enum MessageAction {
    None,
    Close,
    /// Something to tell (no match, the search went round an end).
    Notice(String),
    /// A search found a match where it was looked for: an earlier "no match" is stale.
    Found,
}

impl MessageView {
    pub fn loading(id: String, entry: u64, size: usize) -> Self {
        MessageView {
            id,
            entry,
            size,
            content: Content::Loading,
            rendered: None,
            scroll: 0,
            page: 10,
            search: None,
        }
    }

    pub fn set_text(&mut self, text: Result<String, String>) {
        self.content = match text {
            Ok(text) => {
                self.size = text.len();
                Content::Text(text)
            }
            Err(error) => Content::Error(error),
        };
        self.rendered = None;
        self.scroll = 0;
    }

    fn rows(&self) -> usize {
        self.rendered.as_ref().map_or(0, |r| r.lines.len())
    }

    fn max_scroll(&self) -> usize {
        self.rows().saturating_sub(self.page.max(1))
    }

    pub fn scroll_by(&mut self, rows: isize) {
        self.scroll = self
            .scroll
            .saturating_add_signed(rows)
            .min(self.max_scroll());
    }

    pub fn key(&mut self, key: KeyEvent) -> MessageAction {
        if let Some(search) = self.search.as_mut().filter(|s| s.editing) {
            return match search.key(key) {
                PromptKey::Edited => MessageAction::None,
                PromptKey::Submit => self.find(true),
                PromptKey::Cancel => {
                    self.search = None;
                    MessageAction::None
                }
            };
        }
        let page = self.page.max(1) as isize;
        match key.code {
            KeyCode::Esc if self.search.is_some() => self.search = None,
            KeyCode::Esc | KeyCode::Char('q') => return MessageAction::Close,
            KeyCode::Char('/') => self.search = Some(Search::prompt()),
            KeyCode::Char('n') if self.search.is_some() => return self.find(true),
            KeyCode::Char('N') if self.search.is_some() => return self.find(false),
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(page),
            KeyCode::Home | KeyCode::Char('g') => self.scroll = 0,
            KeyCode::End | KeyCode::Char('G') => self.scroll = self.max_scroll(),
            _ => {}
        }
        MessageAction::None
    }

    /// Scrolls to the match after (or before) the current one, or the first from the top row.
    fn find(&mut self, forward: bool) -> MessageAction {
        let Some((query, current)) = self.search.as_ref().map(|s| (s.query.clone(), s.current))
        else {
            return MessageAction::None;
        };
        let Some(rendered) = &self.rendered else {
            return MessageAction::None;
        };
        let rows = rendered.texts.len();
        if rows == 0 {
            return MessageAction::Notice(tf(ViewText::SearchNone, &[&query]));
        }
        let (from, went_round) = search::start(rows, self.scroll, current, forward);
        let texts = &rendered.texts;
        match search::find(
            rows,
            |i| texts.get(i).map(String::as_str),
            &query,
            from,
            forward,
        ) {
            None => MessageAction::Notice(tf(ViewText::SearchNone, &[&query])),
            Some(found) => {
                self.scroll = found.row.min(self.max_scroll());
                if let Some(search) = &mut self.search {
                    search.current = Some(found.row);
                }
                if found.wrapped || went_round {
                    MessageAction::Notice(t(ViewText::SearchWrapped).to_owned())
                } else {
                    MessageAction::Found
                }
            }
        }
    }

    /// The footer's hints.
    pub fn hint(&self) -> String {
        match &self.search {
            Some(search) if search.editing => tf(ViewText::SearchTyping, &[&search.query]),
            Some(_) => t(ViewText::SearchHint).to_owned(),
            None => t(ViewText::MessageHint).to_owned(),
        }
    }

    pub fn render(&mut self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let title = format!(" {}", tf(ViewText::MessageTitle, &[&byte_size(self.size)]));
        let title = Line::styled(truncate(&title, width), theme::bold());
        crate::width::set_line(buf, area.x, area.y, &title, area.width);
        let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        let text = match &self.content {
            Content::Loading => {
                let line = Line::styled(format!("  {}", t(ViewText::MessageLoading)), theme::dim());
                crate::width::set_line(buf, body.x, body.y, &line, body.width);
                return;
            }
            Content::Error(error) => {
                let text = format!("{}\n{error}", t(ViewText::MessageCannotRead));
                let rows = wrap_text(&text, width.saturating_sub(2).max(1));
                for (y, row) in rows.iter().take(usize::from(body.height)).enumerate() {
                    let line = Line::styled(format!("  {}", &text[row.start..row.end]), {
                        if y == 0 {
                            theme::bold()
                        } else {
                            theme::error()
                        }
                    });
                    crate::width::set_line(buf, body.x, body.y + y16(y), &line, body.width);
                }
                return;
            }
            Content::Text(text) => text,
        };
        if self.rendered.as_ref().is_none_or(|r| r.width != area.width) {
            let mut lines = markdown::render_full(text, area.width).lines;
            let blank = |line: &Line<'_>| line.spans.iter().all(|s| s.content.trim().is_empty());
            while lines.last().is_some_and(blank) {
                lines.pop();
            }
            let texts = lines
                .iter()
                .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
                .collect();
            self.rendered = Some(Rendered {
                width: area.width,
                lines,
                texts,
            });
        }
        self.page = usize::from(body.height);
        self.scroll = self.scroll.min(self.max_scroll());
        if let Some(rendered) = &self.rendered {
            let shown = rendered.lines.iter().skip(self.scroll).take(self.page);
            for (y, line) in shown.enumerate() {
                crate::width::set_line(buf, body.x, body.y + y16(y), line, body.width);
            }
        }
        if let Some(search) = self.search.as_ref().filter(|s| !s.editing) {
            search::highlight(buf, body, &search.query);
        }
    }
}

fn y16(row: usize) -> u16 {
    u16::try_from(row).unwrap_or(u16::MAX)
}

impl App {
    /// Enter on a cut message in the log: the view opens at once and fills when the manager
    /// answers.
    pub(super) fn open_message(
        &mut self,
        id: String,
        cut: crate::log_view::CutMessage,
    ) -> Vec<Effect> {
        let crate::log_view::CutMessage {
            subagent,
            entry,
            size,
        } = cut;
        self.overlay = Some(Overlay::Message(MessageView::loading(
            id.clone(),
            entry,
            size,
        )));
        vec![Effect::request(ClientRequest::SessionFullMessage(
            FullMessageParams {
                session_id: id,
                entry,
                subagent,
            },
        ))]
    }

    pub(super) fn message_arrived(&mut self, id: &str, entry: u64, text: Result<String, String>) {
        if let Some(Overlay::Message(view)) = &mut self.overlay
            && view.id == id
            && view.entry == entry
        {
            view.set_text(text);
        }
    }
}
