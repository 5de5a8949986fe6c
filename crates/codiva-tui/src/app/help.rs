//! `/help`: every key, by the place it works in (everywhere, composer, list, session, log,
//! dialogs, confirmation) and every `/` command, as a full-screen overlay that scrolls and that Esc closes. The text
//! is the catalogue's (`AppText::Help`: `# heading` lines and `keys<TAB>what they do` rows); the key
//! column is as wide as the terminal allows and descriptions wrap, so it reads at 50 columns.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::palette::Command;
use super::{App, View};
use crate::i18n::{AppText, t, tf};
use crate::theme;
use crate::width::{fit, str_width, wrap_text};

/// The open overlay: how far it is scrolled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Help {
    scroll: usize,
    /// Rows the last frame showed (a page).
    page: usize,
}

impl App {
    pub(super) fn open_help(&mut self) {
        self.help = Some(Help::default());
    }

    /// Keys while the overlay is open: scrolling, and Esc (or `q`) closes it.
    pub(super) fn help_key(&mut self, key: KeyEvent) {
        let Some(help) = self.help.as_mut() else {
            return;
        };
        let page = help.page.max(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => self.help = None,
            KeyCode::Up | KeyCode::Char('k') => help.scroll = help.scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => help.scroll += 1,
            KeyCode::PageUp => help.scroll = help.scroll.saturating_sub(page),
            KeyCode::PageDown | KeyCode::Char(' ') => help.scroll += page,
            KeyCode::Home | KeyCode::Char('g') => help.scroll = 0,
            KeyCode::End | KeyCode::Char('G') => help.scroll = usize::MAX,
            _ => {}
        }
    }
}

/// One line of the help before layout: a heading, or keys and what they do.
enum Entry {
    Heading(String),
    Row(String, String),
}

/// The catalogue's entries (`AppText::Help`), then every `/` command with its description (the
/// palette's own table, so a new command is listed without editing the text).
fn entries() -> Vec<Entry> {
    let mut entries = Vec::new();
    for line in t(AppText::Help).lines() {
        if let Some(heading) = line.strip_prefix("# ") {
            entries.push(Entry::Heading(heading.to_owned()));
        } else if let Some((keys, does)) = line.split_once('\t') {
            entries.push(Entry::Row(keys.to_owned(), does.to_owned()));
        }
    }
    entries.push(Entry::Heading(t(AppText::HelpCommands).to_owned()));
    for command in Command::all() {
        let (view, where_) = if command.available_in(&View::List) {
            (View::List, "")
        } else {
            (View::Detail(String::new()), t(AppText::HelpInSession))
        };
        let mut does = command.description(&view).to_owned();
        if !where_.is_empty() {
            does.push_str(where_);
        }
        entries.push(Entry::Row(format!("/{}", command.name()), does));
    }
    entries
}

/// The help's rows at `width` cells.
fn rows(width: usize) -> Vec<Line<'static>> {
    let entries = entries();
    let widest = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Row(keys, _) => Some(str_width(keys)),
            Entry::Heading(_) => None,
        })
        .max();
    // The key column: the widest keys, but never more than 2/5 of the width.
    let key_width = widest.unwrap_or(0).min(width * 2 / 5).max(1);
    let room = width.saturating_sub(key_width + 4).max(1);
    let mut lines = Vec::new();
    for entry in &entries {
        let (keys, does) = match entry {
            Entry::Heading(heading) => {
                if !lines.is_empty() {
                    lines.push(Line::default());
                }
                lines.push(Line::styled(format!(" {heading}"), theme::bold()));
                continue;
            }
            Entry::Row(keys, does) => (keys.as_str(), does.as_str()),
        };
        let key_rows = wrap_text(keys, key_width);
        let does_rows = wrap_text(does, room);
        for index in 0..key_rows.len().max(does_rows.len()) {
            let keys = key_rows
                .get(index)
                .map_or("", |row| keys[row.start..row.end].trim_end());
            let does = does_rows
                .get(index)
                .map_or("", |row| &does[row.start..row.end]);
            lines.push(Line::from(vec![
                Span::styled(format!("  {}", fit(keys, key_width)), theme::accent()),
                Span::styled(format!("  {does}"), theme::text()),
            ]));
        }
    }
    lines
}

/// Draws the overlay over `area` (the whole screen): a title row, the rows from the scroll
/// position, a hint row.
pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let Some(help) = app.help.as_mut() else {
        return;
    };
    let width = usize::from(area.width);
    let lines = rows(width);
    let visible = usize::from(area.height.saturating_sub(2));
    help.scroll = help.scroll.min(lines.len().saturating_sub(visible));
    let scroll = help.scroll;
    help.page = visible;
    for y in area.top()..area.bottom() {
        crate::width::set_line(buf, area.x, y, &Line::raw(" ".repeat(width)), area.width);
    }
    let title = format!(" {}", t(AppText::HelpTitle));
    crate::width::set_line(
        buf,
        area.x,
        area.y,
        &Line::styled(fit(&title, width), theme::focus_label()),
        area.width,
    );
    for (offset, line) in lines.iter().skip(scroll).take(visible).enumerate() {
        let y = area.y + 1 + u16::try_from(offset).unwrap_or(0);
        crate::width::set_line(buf, area.x, y, line, area.width);
    }
    let below = lines.len().saturating_sub(scroll + visible);
    let hint = if below > 0 {
        tf(AppText::HelpMore, &[&below.to_string()])
    } else {
        t(AppText::HelpEnd).to_owned()
    };
    crate::width::set_line(
        buf,
        area.x,
        area.bottom().saturating_sub(1),
        &Line::styled(fit(&format!(" {hint}"), width), theme::dim()),
        area.width,
    );
}
