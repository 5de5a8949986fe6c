//! Events from the manager and answers to earlier effects, applied to the app.

use codiva_protocol::ClientRequest;
use codiva_protocol::manager::ManagerEvent;

use super::requests::session_params;
use super::{App, Done, Effect, Focus, View, composer_mode};
use crate::i18n::{AppText, t, tf};

impl App {
    /// A prompt whose dialog is on screen closed, answered (not withdrawn) by someone else than
    /// this client: another client of the daemon.
    pub(super) fn resolved_elsewhere(
        &mut self,
        id: &str,
        event: &codiva_protocol::session::SessionEvent,
    ) -> bool {
        use codiva_protocol::session::{PromptResolution, SessionEvent};
        let SessionEvent::PromptClosed {
            request_id,
            resolution,
        } = event
        else {
            return false;
        };
        if self.answered.remove(request_id) || *resolution == PromptResolution::Withdrawn {
            return false;
        }
        self.shown_dialog.as_deref() == Some(id)
            && self
                .panes
                .get(id)
                .and_then(|pane| pane.prompts().first())
                .is_some_and(|prompt| prompt.request_id() == request_id)
    }

    /// The next manager event handled is the one of `seq` in the manager's stream (what a
    /// session's snapshot is placed by; events handled without it are placed by kind).
    pub fn at_seq(&mut self, seq: u64) {
        self.manager_seq = Some(seq);
    }

    /// The events that bring the list to `rows`, the manager's rows now (at start, or after a
    /// gap in its events): a removal for each session the list has and the manager no longer
    /// does (removed while events were lost), then each row. The caller handles them in order,
    /// then [`App::attached`].
    pub fn rows_taken_afresh(
        &self,
        rows: Vec<codiva_protocol::manager::SessionInfo>,
    ) -> Vec<ManagerEvent> {
        let gone = self
            .sessions
            .iter()
            .filter(|known| !rows.iter().any(|row| row.id == known.id))
            .map(|known| ManagerEvent::Removed {
                id: known.id.clone(),
            });
        let mut events: Vec<ManagerEvent> = gone.collect();
        events.extend(
            rows.into_iter()
                .map(|session| ManagerEvent::Session { session }),
        );
        events
    }

    /// The session rows were taken afresh (the UI attached, or resynced after a gap): each
    /// session's state is asked for, and what the panes show is rebuilt from it
    /// (the answer to `session/snapshot`), as if the UI had watched from the start; a log read before is read
    /// again (now for the open session, else when it next opens).
    pub fn attached(&mut self) -> Vec<Effect> {
        let ids: Vec<String> = self.sessions.iter().map(|s| s.id.clone()).collect();
        let open = match &self.view {
            View::Detail(id) => Some(id.clone()),
            View::List => None,
        };
        let mut effects = Vec::new();
        for id in ids {
            let pane = self.pane(&id);
            pane.await_snapshot();
            effects.push(Effect::request(ClientRequest::SessionSnapshot(
                session_params(id.clone()),
            )));
            if pane.read_again(open.as_deref() == Some(id.as_str())) {
                effects.push(Effect::ReadLog { id });
            }
        }
        effects
    }

    pub(super) fn manager_event(&mut self, event: ManagerEvent) -> Vec<Effect> {
        let at = self.manager_seq.take();
        match event {
            ManagerEvent::Session { session } => {
                self.seen_at.insert(session.id.clone(), self.now);
                let id = session.id.clone();
                let was = self.sessions.iter().find(|s| s.id == id).map(|s| s.status);
                let before = self
                    .sessions
                    .iter()
                    .find(|s| s.id == id)
                    .map(|s| (s.status, s.phase.clone(), s.check.clone()));
                match self.sessions.iter_mut().find(|s| s.id == session.id) {
                    Some(existing) => *existing = session,
                    None => {
                        // The selection stays on the same session when the order changes.
                        let selected = self.sessions.get(self.selected).map(|s| s.id.clone());
                        self.sessions.push(session);
                        self.sessions
                            .sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
                        if let Some(id) = selected
                            && let Some(index) = self.sessions.iter().position(|s| s.id == id)
                        {
                            self.selected = index;
                        }
                    }
                }
                let mut effects = self.after_session_update(&id, was);
                effects.extend(self.compare_follow(&id, before));
                effects
            }
            ManagerEvent::Removed { id } => {
                self.sessions.retain(|s| s.id != id);
                self.seen_at.remove(&id);
                self.panes.remove(&id);
                self.drafts.remove(&id);
                if self.view == View::Detail(id) {
                    self.back_to_list();
                }
                self.selected = self.selected.min(self.sessions.len().saturating_sub(1));
                Vec::new()
            }
            ManagerEvent::Base { branch } => {
                self.info.base = branch;
                Vec::new()
            }
            ManagerEvent::PrStatus { id, prs } => {
                if let Some(session) = self.sessions.iter_mut().find(|s| s.id == id) {
                    session.prs = prs;
                }
                Vec::new()
            }
            ManagerEvent::Resources { sessions } => {
                for sample in sessions {
                    if let Some(session) = self.sessions.iter_mut().find(|s| s.id == sample.id) {
                        session.resources = sample.resources;
                    }
                }
                Vec::new()
            }
            ManagerEvent::Warning { message } => {
                self.notice_everywhere(tf(AppText::Warning, &[&message]));
                Vec::new()
            }
            ManagerEvent::Login { login } => self.login_progress(login),
            ManagerEvent::Group { group, .. } => {
                self.groups.upsert(group);
                self.keep_selection_shown();
                Vec::new()
            }
            ManagerEvent::GroupRemoved { id } => {
                self.groups.remove(&id);
                if self.selected_group.as_deref() == Some(id.as_str()) {
                    self.selected_group = None;
                }
                Vec::new()
            }
            ManagerEvent::Event { id, event } => {
                self.seq += 1;
                let seq = self.seq;
                self.plan.observe(&event);
                if self.resolved_elsewhere(&id, &event) {
                    self.set_notice(t(AppText::ResolvedElsewhere), false);
                }
                // A dialog that appears never takes the keys: the user moves to it (Tab, Ctrl+N,
                // a click, opening its session), so what was typed for the composer stays there.
                let effects = self.pane(&id).apply(event, seq, at);
                // The dialog that had the keys is gone: they go back to the composer.
                if self.focus == Focus::Dialog
                    && self.current_id().as_deref() == Some(id.as_str())
                    && !self.pane(&id).has_dialog()
                {
                    self.focus = Focus::Composer;
                }
                effects
            }
        }
    }

    pub(super) fn done(&mut self, done: Done) -> Vec<Effect> {
        match done {
            Done::Answered {
                request,
                purpose,
                result,
            } => self.answered(*request, purpose, result),
            Done::LogRead {
                id,
                entries,
                subagents,
                todos,
            } => {
                self.pane(&id).load(entries, subagents, todos);
                Vec::new()
            }
            Done::EditPrompt(text) => {
                self.start_collecting(composer_mode::Collecting::Prompt, text.trim_end());
                Vec::new()
            }
            Done::Info(text) => {
                self.set_notice(text, false);
                Vec::new()
            }
            Done::Error(text) => {
                self.set_notice(text, true);
                Vec::new()
            }
        }
    }
}
