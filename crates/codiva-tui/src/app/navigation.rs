//! Moving between the list and a session: drafts kept per view, the inbox of waiting sessions.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Focus, View};
use crate::i18n::{AppText, t, tf};

impl App {
    pub(super) fn open_detail(&mut self, id: String) -> Vec<Effect> {
        let mut effects = Vec::new();
        let pane = self.pane(&id);
        if !pane.requested {
            pane.requested = true;
            effects.push(Effect::ReadLog { id: id.clone() });
        }
        effects.push(super::repair::uncommitted(&id));
        self.keep_draft();
        self.composer
            .set_text(&self.drafts.remove(&id).unwrap_or_default());
        // Opening a waiting session with nothing typed for it moves the keys to its dialog.
        self.focus = if self.pane(&id).has_dialog() && self.composer.is_empty() {
            Focus::Dialog
        } else {
            Focus::Composer
        };
        self.view = View::Detail(id);
        self.palette.close();
        effects
    }

    /// Ctrl+L: the session list from anywhere in one key. What is open closes as its Esc would
    /// (a confirmation answers no, a login in progress is cancelled, a search ends, text being
    /// typed for a dialog is dropped and the dialog waits at its top level); the session's
    /// draft is kept.
    pub(super) fn straight_to_list(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.help = None;
        self.confirm_extra = None;
        if let Some(text) = self.confirm.take().and_then(|confirm| confirm.restore) {
            self.composer.set_text(&text);
        }
        if let Some(super::overlay::Overlay::Login(view)) = &mut self.overlay {
            let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
            if let super::login_view::LoginAction::Cancel { login_id } = view.key(esc) {
                effects.push(super::requests::cancel_login(login_id));
            }
        }
        self.overlay = None;
        self.compare_behind = None;
        // The dialog on screen waits at its top level for when the user comes back.
        for id in self
            .shown_dialog
            .clone()
            .into_iter()
            .chain(self.current_id())
        {
            if let Some(pane) = self.panes.get_mut(&id)
                && let Some(dialog) = pane.dialog()
            {
                while dialog.step_back() {}
            }
        }
        if let View::Detail(id) = self.view.clone() {
            let pane = self.pane(&id);
            pane.search = None;
            pane.log.clear_selection();
            self.back_to_list();
        } else {
            self.stop_collecting();
            self.focus = Focus::Composer;
            self.palette.close();
        }
        effects
    }

    pub(super) fn back_to_list(&mut self) {
        self.keep_draft();
        self.view = View::List;
        self.focus = Focus::Composer;
        self.composer
            .set_text(&self.drafts.remove("").unwrap_or_default());
        self.palette.close();
    }

    /// Keeps what is typed in the composer for the view being left (the list's instruction,
    /// a session's follow-up); the composer comes back with it when that view opens again.
    pub(super) fn keep_draft(&mut self) {
        // Text being collected for a dialog or the prompt is dropped; the view keeps the
        // draft that was set aside for it.
        self.stop_collecting();
        let key = match &self.view {
            View::List => String::new(),
            View::Detail(id) => id.clone(),
        };
        let text = self.composer.text().to_owned();
        if text.trim().is_empty() {
            self.drafts.remove(&key);
        } else {
            self.drafts.insert(key, text);
        }
    }

    /// Sessions waiting for the user, oldest prompt first.
    /// A session's row says it waits while its prompts are still being taken from its snapshot.
    fn prompts_on_the_way(&self) -> bool {
        self.sessions.iter().any(|session| {
            session.pending_prompts > 0
                && self
                    .panes
                    .get(&session.id)
                    .is_some_and(|pane| pane.awaits_snapshot())
        })
    }

    /// A snapshot arrived: the inbox key pressed before it is answered now, once it has a
    /// prompt to go to (or once no snapshot that could bring one is still on its way).
    pub(super) fn pay_inbox(&mut self) -> Vec<Effect> {
        if !self.inbox_owed || (self.inbox().is_empty() && self.prompts_on_the_way()) {
            return Vec::new();
        }
        self.inbox_owed = false;
        self.next_in_inbox()
    }

    pub fn inbox(&self) -> Vec<String> {
        let mut waiting: Vec<(u64, String)> = self
            .panes
            .iter()
            .filter_map(|(id, pane)| pane.waiting_since.map(|since| (since, id.clone())))
            .collect();
        waiting.sort();
        waiting.into_iter().map(|(_, id)| id).collect()
    }

    /// The inbox key: to the session that has waited longest, its dialog in front. From the
    /// list it stays in the list (the dialog shows under it); from a session it opens that one.
    pub(super) fn next_in_inbox(&mut self) -> Vec<Effect> {
        let inbox = self.inbox();
        let Some(id) = inbox.first().cloned() else {
            if self.prompts_on_the_way() {
                self.inbox_owed = true;
            } else {
                self.set_notice(t(AppText::InboxEmpty), false);
            }
            return Vec::new();
        };
        // Its dialog is the one the next keys answer, even before the next frame shows it.
        self.shown_dialog = Some(id.clone());
        let remaining = inbox.len() - 1;
        if remaining > 0 {
            self.set_notice(tf(AppText::InboxMore, &[&remaining.to_string()]), false);
        } else {
            self.notice = None;
        }
        match self.view {
            View::List => {
                if let Some(index) = self.sessions.iter().position(|s| s.id == id) {
                    self.selected = index;
                    self.selected_group = None;
                    self.reveal(&id);
                }
                self.focus = Focus::Dialog;
                Vec::new()
            }
            View::Detail(_) => {
                let effects = self.open_detail(id);
                self.focus = Focus::Dialog;
                effects
            }
        }
    }
}
