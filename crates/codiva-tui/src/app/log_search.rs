//! Search in an open session's log, while the log has the keys: `/` opens the prompt in the
//! footer, Enter jumps to the first match from the top row shown, then `n`/`N` go to the next
//! and previous one (while a search is on; otherwise `n`/`p` move between cards) and every
//! match on screen is highlighted; Esc ends the search. Each session keeps its own search.

use crossterm::event::{KeyCode, KeyEvent};

use super::{App, Effect, Focus, View};
use crate::i18n::{ViewText, t, tf};
use crate::search::{PromptKey, Search};

impl App {
    /// A key for the log's search, if it is one (`None`: the log's own keys handle it).
    pub(super) fn log_search_key(&mut self, id: &str, key: KeyEvent) -> Option<Vec<Effect>> {
        let pane = self.pane(id);
        if let Some(search) = pane.search.as_mut().filter(|s| s.editing) {
            match search.key(key) {
                PromptKey::Edited => {}
                PromptKey::Submit => self.log_find(id, true),
                PromptKey::Cancel => pane.search = None,
            }
            return Some(Vec::new());
        }
        let searching = pane.search.is_some();
        match key.code {
            KeyCode::Char('/') => pane.search = Some(Search::prompt()),
            KeyCode::Char('n') if searching => self.log_find(id, true),
            KeyCode::Char('N') if searching => self.log_find(id, false),
            KeyCode::Esc if searching => pane.search = None,
            _ => return None,
        }
        Some(Vec::new())
    }

    /// Scrolls the log to the next (or previous) match; says so when there is none or the
    /// search went round an end.
    fn log_find(&mut self, id: &str, forward: bool) {
        let pane = self.pane(id);
        let Some((query, current)) = pane.search.as_ref().map(|s| (s.query.clone(), s.current))
        else {
            return;
        };
        let found = pane.log.find_text(&query, forward, current);
        if let (Some(search), Some(found)) = (&mut pane.search, found) {
            search.current = Some(found.row);
        }
        match found {
            None => self.set_notice(tf(ViewText::SearchNone, &[&query]), false),
            Some(found) if found.wrapped => {
                self.set_notice(t(ViewText::SearchWrapped).to_owned(), false);
            }
            // Found: a "no match" of an earlier search is no longer true.
            Some(_) => self.clear_notice_here(),
        }
    }

    /// The footer's hints while the log has the keys and a search is on.
    pub(super) fn log_search_hint(&self) -> Option<String> {
        let View::Detail(id) = &self.view else {
            return None;
        };
        if self.focus != Focus::Log {
            return None;
        }
        let search = self.panes.get(id)?.search.as_ref()?;
        Some(if search.editing {
            tf(ViewText::SearchTyping, &[&search.query])
        } else {
            t(ViewText::LogSearchHint).to_owned()
        })
    }
}
