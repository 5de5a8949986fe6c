//! Views drawn over the body that take the keys until closed: the pickers (restore list, model
//! picker), the diff view, the config view and the whole-message view. While one is open the composer is hidden and
//! the footer names the view; Esc closes it. Each view is its own file; this one opens them,
//! routes keys and the wheel to them, and turns their choices into effects.

use codiva_protocol::ClientRequest;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::params::{
    AgentParams, ConfigResult, ConfigSetParams, LoginInputParams, LoginParams, ModelParams,
};
use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::attempts_form::AttemptsForm;
use super::compare_view::CompareView;
use super::config_view::{ConfigAction, ConfigView};
use super::diff_view::{DiffAction, DiffView};
use super::login_view::{LoginAction, LoginView};
use super::message_view::{MessageAction, MessageView};
use super::outside_view::{HistoryAction, HistoryView};
use super::picker::{Picker, PickerAction, PickerKind, PickerRow};
use super::requests::{cancel_login, refresh_agents, session_params};
use super::{App, Effect, View};
use crate::i18n::{AgentText, AppText, ViewText, Words, t, tf};

pub enum Overlay {
    Picker(Picker),
    Diff(DiffView),
    Config(ConfigView),
    Message(MessageView),
    Login(Box<LoginView>),
    /// `/history`: the agents' conversations begun outside codiva.
    History(Box<HistoryView>),
    /// `/attempts`: agents and an instruction for a group of attempts.
    Attempts(Box<AttemptsForm>),
    /// A group's attempts side by side.
    Compare(Box<CompareView>),
}

/// Which view over the body is open (a notice made in one shows only while it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayKind {
    Help,
    Picker,
    Diff,
    Config,
    Message,
    Login,
    History,
    Attempts,
    Compare,
}

impl App {
    /// The view over the body on screen, if one is open (the help is one too).
    pub(super) fn overlay_kind(&self) -> Option<OverlayKind> {
        if self.help.is_some() {
            return Some(OverlayKind::Help);
        }
        Some(match self.overlay.as_ref()? {
            Overlay::Picker(_) => OverlayKind::Picker,
            Overlay::Diff(_) => OverlayKind::Diff,
            Overlay::Config(_) => OverlayKind::Config,
            Overlay::Message(_) => OverlayKind::Message,
            Overlay::Login(_) => OverlayKind::Login,
            Overlay::History(_) => OverlayKind::History,
            Overlay::Attempts(_) => OverlayKind::Attempts,
            Overlay::Compare(_) => OverlayKind::Compare,
        })
    }

    /// The view on top of the body, if one is open.
    pub fn overlay_open(&self) -> bool {
        self.overlay.is_some()
    }

    /// The footer's hints while a view is open.
    pub(super) fn overlay_hint(&self) -> Option<String> {
        if self.confirm.is_some() {
            return self.confirm_extra.as_ref().map(|(_, _, c)| c.clone());
        }
        if self.overlay.is_none() && self.filter_editing() {
            return Some(t(ViewText::FilterEditing).to_owned());
        }
        if self.overlay.is_none() {
            return self.log_search_hint();
        }
        Some(match self.overlay.as_ref()? {
            Overlay::Picker(_) => t(ViewText::PickerHint).to_owned(),
            Overlay::Diff(view) => view.hint(),
            Overlay::Config(_) => t(ViewText::ConfigHint).to_owned(),
            Overlay::Message(view) => view.hint(),
            Overlay::Login(view) => view.hint(),
            Overlay::History(view) => view.hint(),
            Overlay::Attempts(form) => form.hint(),
            Overlay::Compare(view) => view.hint(),
        })
    }

    pub(super) fn overlay_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        self.sync_review();
        let Some(overlay) = &mut self.overlay else {
            return Vec::new();
        };
        match overlay {
            Overlay::Picker(picker) => match picker.key(key) {
                PickerAction::None => Vec::new(),
                PickerAction::Close => {
                    self.overlay = None;
                    Vec::new()
                }
                PickerAction::Choose(value) => {
                    let kind = picker.kind.clone();
                    self.overlay = None;
                    self.picked(kind, value)
                }
            },
            Overlay::Diff(view) => {
                let id = view.id.clone();
                match view.key(key) {
                    DiffAction::None => Vec::new(),
                    DiffAction::Close => {
                        // Opened from the compare view: back to it.
                        self.back_to_compare();
                        Vec::new()
                    }
                    DiffAction::Notice(text) => {
                        self.set_notice(text, false);
                        Vec::new()
                    }
                    action => vec![review_request(id, action)],
                }
            }
            Overlay::Config(view) => match view.key(key) {
                ConfigAction::None => Vec::new(),
                ConfigAction::Close => {
                    self.overlay = None;
                    Vec::new()
                }
                ConfigAction::Save { key, value } => {
                    vec![Effect::request(ClientRequest::ConfigSet(ConfigSetParams {
                        key,
                        value,
                    }))]
                }
            },
            Overlay::Message(view) => {
                match view.key(key) {
                    MessageAction::None => {}
                    MessageAction::Close => self.overlay = None,
                    MessageAction::Notice(text) => self.set_notice(text, false),
                    MessageAction::Found => self.clear_notice_here(),
                }
                Vec::new()
            }
            Overlay::Login(view) => match view.key(key) {
                LoginAction::None => Vec::new(),
                LoginAction::Close => {
                    self.overlay = None;
                    Vec::new()
                }
                LoginAction::Cancel { login_id } => {
                    self.overlay = None;
                    vec![cancel_login(login_id)]
                }
                LoginAction::Send { login_id, text } => {
                    vec![Effect::request(ClientRequest::AgentsLoginInput(
                        LoginInputParams { login_id, text },
                    ))]
                }
                LoginAction::Open { url } => vec![Effect::OpenUrl { url }],
            },
            Overlay::History(view) => match view.key(key) {
                HistoryAction::None => Vec::new(),
                HistoryAction::Close => {
                    self.overlay = None;
                    Vec::new()
                }
                HistoryAction::Read(conversation) => {
                    vec![Effect::request(ClientRequest::HistoryRead(conversation))]
                }
                HistoryAction::Adopt(params) => {
                    self.set_notice(t(crate::i18n::OutsideText::Adopting).to_owned(), false);
                    vec![Effect::request(ClientRequest::HistoryAdopt(params))]
                }
            },
            Overlay::Attempts(_) => self.attempts_form_key(key),
            Overlay::Compare(_) => self.compare_key(key),
        }
    }

    /// The wheel scrolls the diff and the whole message; a click chooses a line or a comment
    /// in the diff view and does nothing in the other views.
    pub(super) fn overlay_mouse(&mut self, event: MouseEvent) -> Vec<Effect> {
        if let (
            MouseEventKind::Down(crossterm::event::MouseButton::Left),
            Some(Overlay::Diff(view)),
        ) = (event.kind, &mut self.overlay)
        {
            let shift = event
                .modifiers
                .contains(crossterm::event::KeyModifiers::SHIFT);
            view.click(event.column, event.row, shift);
            return Vec::new();
        }
        let rows = match event.kind {
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::ScrollDown => 3,
            _ => return Vec::new(),
        };
        match &mut self.overlay {
            Some(Overlay::Diff(view)) => view.scroll_by(rows),
            Some(Overlay::Message(view)) => view.scroll_by(rows),
            Some(Overlay::History(view)) => view.scroll_by(rows),
            Some(Overlay::Compare(view)) => view.move_by(rows.signum()),
            _ => {}
        }
        Vec::new()
    }

    /// Draws the open view over `area`; returns where the caret goes (the config editor).
    pub(super) fn render_overlay(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        self.sync_review();
        match self.overlay.as_mut()? {
            Overlay::Picker(picker) => {
                picker.render(area, buf);
                None
            }
            Overlay::Diff(view) => view.render(area, buf),
            Overlay::Config(view) => view.render(area, buf),
            Overlay::Login(view) => view.render(area, buf),
            Overlay::Message(view) => {
                view.render(area, buf);
                None
            }
            Overlay::History(view) => {
                view.render(area, buf);
                None
            }
            Overlay::Attempts(form) => form.render(area, buf),
            Overlay::Compare(_) => {
                self.render_compare(area, buf);
                None
            }
        }
    }

    fn picked(&mut self, kind: PickerKind, value: String) -> Vec<Effect> {
        match kind {
            PickerKind::Restore => {
                self.set_notice(tf(ViewText::Restoring, &[&self.title_of(&value)]), false);
                vec![Effect::request(ClientRequest::SessionRestore(
                    session_params(value),
                ))]
            }
            PickerKind::Agent { id } => self.agent_picked(id, value),
            PickerKind::Model { id } => {
                let model = (!value.is_empty()).then_some(value);
                match id {
                    Some(id) => vec![Effect::request(ClientRequest::SessionSetModel(
                        ModelParams {
                            session_id: id,
                            model,
                        },
                    ))],
                    None => {
                        let shown = model.clone().unwrap_or_else(|| "default".to_owned());
                        self.info.model = model;
                        self.set_notice(tf(AppText::ModelForNew, &[&shown]), false);
                        Vec::new()
                    }
                }
            }
        }
    }

    /// `/restore`: the discarded sessions, newest first.
    pub(super) fn open_restore(&mut self) {
        let rows = self
            .sessions
            .iter()
            .rev()
            .filter(|s| s.phase == SessionPhase::Discarded)
            .map(|s| PickerRow {
                value: s.id.clone(),
                label: s.title.clone(),
                detail: tf(
                    ViewText::RestoreRow,
                    &[&s.branch, &super::list_view::duration(s.active_ms)],
                ),
                current: false,
            })
            .collect();
        self.overlay = Some(Overlay::Picker(Picker::new(
            PickerKind::Restore,
            t(ViewText::RestoreTitle).to_owned(),
            rows,
            t(ViewText::RestoreEmpty).to_owned(),
        )));
    }

    /// `/model` without an argument: the agent's own models (from its `initialize` answer),
    /// the current one marked. Without a connected agent yet, says how to name one.
    pub(super) fn open_model_picker(&mut self) {
        let session = match &self.view {
            View::Detail(id) => self.sessions.iter().find(|s| s.id == *id).cloned(),
            View::List => None,
        };
        let agent = session
            .as_ref()
            .and_then(|s| self.panes.get(&s.id))
            .and_then(|pane| pane.agent().cloned())
            .or_else(|| self.panes.values().find_map(|p| p.agent().cloned()));
        let current = match &session {
            Some(session) => session.model.clone(),
            None => self.info.model.clone(),
        };
        let Some(agent) = agent.filter(|agent| !agent.models.is_empty()) else {
            // No catalog yet: only the agent's aliases, which cannot go stale.
            let agent_id = session.as_ref().map_or(&self.info.agent, |s| &s.agent);
            let aliases = self
                .info
                .agents
                .iter()
                .find(|agent| agent.id == *agent_id)
                .map(|agent| agent.model_aliases.clone())
                .unwrap_or_default();
            if aliases.is_empty() {
                self.set_notice(tf(AppText::ModelHelp, &[t(AppText::ModelsUnknown)]), false);
                return;
            }
            // The agent reports its model by name (`claude-sonnet-4-5-…`): the alias it is.
            let resolved = current.as_deref().and_then(|current| {
                codiva_protocol::agent::catalog_entry(current, aliases.iter().map(String::as_str))
            });
            let rows = aliases
                .iter()
                .map(|alias| PickerRow {
                    value: if alias == "default" {
                        String::new()
                    } else {
                        alias.clone()
                    },
                    label: alias.clone(),
                    detail: if alias == "default" {
                        t(ViewText::ModelDefault).to_owned()
                    } else {
                        t(AgentText::ModelAlias).to_owned()
                    },
                    current: match (&current, resolved) {
                        (_, Some(resolved)) => resolved == alias,
                        (Some(_), None) => false,
                        (None, None) => alias == "default",
                    },
                })
                .collect();
            self.open_models(session, rows);
            return;
        };
        let mut rows = Vec::new();
        // Claude lists its default as the model `default`; else offer it first.
        if !agent.models.iter().any(|m| m.id == "default") {
            rows.push(PickerRow {
                value: String::new(),
                label: "default".to_owned(),
                detail: t(ViewText::ModelDefault).to_owned(),
                current: current.is_none(),
            });
        }
        // The agent reports its model by name (`claude-sonnet-4-5-…`), the catalog may list
        // aliases (`sonnet`): the entry it is.
        let resolved = current.as_deref().and_then(|current| {
            codiva_protocol::agent::catalog_entry(
                current,
                agent.models.iter().map(|m| m.id.as_str()),
            )
        });
        for model in &agent.models {
            let is_current = match (&current, resolved) {
                (_, Some(resolved)) => model.id == resolved,
                (Some(_), None) => false,
                (None, None) => model.id == "default",
            };
            let detail = [model.display_name.as_deref(), model.description.as_deref()]
                .into_iter()
                .flatten()
                .filter(|text| *text != model.id)
                .collect::<Vec<_>>()
                .join(" · ");
            rows.push(PickerRow {
                value: if model.id == "default" {
                    String::new()
                } else {
                    model.id.clone()
                },
                label: model.id.clone(),
                detail,
                current: is_current,
            });
        }
        self.open_models(session, rows);
    }

    fn open_models(
        &mut self,
        session: Option<codiva_protocol::manager::SessionInfo>,
        rows: Vec<PickerRow>,
    ) {
        self.open_session_picker(
            session,
            |id| PickerKind::Model { id },
            (ViewText::ModelTitleSession, ViewText::ModelTitleNew),
            rows,
        );
    }

    /// Opens a picker of `rows` for `session` (the next new session's without one), titled
    /// with the first key and the session's title, else with the second key.
    fn open_session_picker<K: Words>(
        &mut self,
        session: Option<codiva_protocol::manager::SessionInfo>,
        kind: impl FnOnce(Option<String>) -> PickerKind,
        (for_session, for_new): (K, K),
        rows: Vec<PickerRow>,
    ) {
        let title = match &session {
            Some(session) => tf(for_session, &[&session.title]),
            None => t(for_new).to_owned(),
        };
        self.overlay = Some(Overlay::Picker(Picker::new(
            kind(session.map(|s| s.id)),
            title,
            rows,
            String::new(),
        )));
    }

    /// `/diff`: the view opens at once and fills when the diff arrives.
    pub(super) fn open_diff(&mut self, id: String) -> Vec<Effect> {
        let (branch, base) = self
            .sessions
            .iter()
            .find(|s| s.id == id)
            .map_or((id.clone(), self.info.base.clone()), |s| {
                (s.branch.clone(), s.base.clone())
            });
        self.overlay = Some(Overlay::Diff(DiffView::loading(id.clone(), &branch, &base)));
        vec![Effect::request(ClientRequest::SessionDiffText(
            session_params(id),
        ))]
    }

    /// The diff view shows the review comments its session's row holds now (every client's
    /// changes reach the row).
    pub(super) fn sync_review(&mut self) {
        let Some(Overlay::Diff(view)) = &mut self.overlay else {
            return;
        };
        let comments = self
            .sessions
            .iter()
            .find(|s| s.id == view.id)
            .map_or(&[][..], |s| s.review.as_slice());
        view.set_comments(comments);
    }

    /// Text pasted while the diff view's comment editor is open goes to it.
    pub(super) fn paste_into_overlay(&mut self, text: &str) -> bool {
        match &mut self.overlay {
            Some(Overlay::Diff(view)) if view.editing() => {
                view.paste(text);
                true
            }
            _ => false,
        }
    }

    pub(super) fn diff_arrived(&mut self, id: &str, text: &str, truncated: bool) {
        if let Some(Overlay::Diff(view)) = &mut self.overlay
            && view.id == id
        {
            view.set_text(text, truncated);
        }
    }

    /// The config file's keys (`/config`, or after a save of `saved`): the view opens or
    /// refreshes.
    pub(super) fn config_arrived(&mut self, result: ConfigResult, saved: Option<String>) {
        let ConfigResult { path, fields } = result;
        match &mut self.overlay {
            Some(Overlay::Config(view)) if view.path == path => view.replace(fields),
            _ => self.overlay = Some(Overlay::Config(ConfigView::new(path.clone(), fields))),
        }
        if let Some(key) = saved {
            self.set_notice(tf(ViewText::ConfigSaved, &[&key, &path]), false);
        }
    }

    /// `/agent` without an argument: every agent codiva knows, with whether it can run here
    /// and is logged in; the one in use marked.
    pub(super) fn open_agent_picker(&mut self) -> Vec<Effect> {
        use codiva_protocol::agent::{AgentStatus, LoginState};
        let session = match &self.view {
            View::Detail(id) => self.sessions.iter().find(|s| s.id == *id).cloned(),
            View::List => None,
        };
        let current = session
            .as_ref()
            .map_or(self.info.agent.clone(), |s| s.agent.clone());
        let rows = self
            .info
            .agents
            .iter()
            .map(|agent| {
                let detail = match (agent.status, &agent.login) {
                    (AgentStatus::NotInstalled, _) => match &agent.install {
                        Some(install) => format!(
                            "{} · {}",
                            t(AgentText::NotInstalled),
                            tf(AgentText::InstallWith, &[install])
                        ),
                        None => t(AgentText::NotInstalled).to_owned(),
                    },
                    (AgentStatus::Ready, Some(LoginState::LoggedIn { method })) => {
                        tf(AgentText::LoggedIn, &[method.as_deref().unwrap_or("")])
                            .replace(" ()", "")
                            .replace("（）", "")
                    }
                    (AgentStatus::Ready, Some(LoginState::NotLoggedIn)) => {
                        tf(AgentText::NotLoggedIn, &[&agent.id])
                    }
                    (AgentStatus::Ready, Some(LoginState::Unknown { reason })) => {
                        tf(AgentText::LoginUnknown, &[reason])
                    }
                    (AgentStatus::Ready, None) => t(AgentText::Ready).to_owned(),
                };
                // The version its `--version` gave, first.
                let detail = match &agent.version {
                    Some(version) => format!("{version} · {detail}"),
                    None => detail,
                };
                PickerRow {
                    value: agent.id.clone(),
                    label: format!("{} ({})", agent.name, agent.id),
                    detail,
                    current: agent.id == current,
                }
            })
            .collect();
        self.open_session_picker(
            session,
            |id| PickerKind::Agent { id },
            (AgentText::PickerTitleSession, AgentText::PickerTitleNew),
            rows,
        );
        // The login checks may have changed since the start (a login in a terminal).
        vec![refresh_agents()]
    }

    fn agent_picked(&mut self, id: Option<String>, agent: String) -> Vec<Effect> {
        use codiva_protocol::agent::AgentStatus;
        if let Some(missing) = self
            .info
            .agents
            .iter()
            .find(|a| a.id == agent && a.status == AgentStatus::NotInstalled)
        {
            let text = tf(
                AgentText::InstallHint,
                &[&missing.name, missing.install.as_deref().unwrap_or("")],
            );
            self.set_notice(text, true);
            return Vec::new();
        }
        match id {
            Some(id) => vec![Effect::request(ClientRequest::SessionSetAgent(
                AgentParams {
                    session_id: id,
                    agent,
                },
            ))],
            None => {
                self.set_notice(tf(AppText::AgentForNew, &[&agent]), false);
                self.agent_for_new(agent);
                Vec::new()
            }
        }
    }

    /// `/login [agent]`: the login view for `agent` (default: the one in use here).
    pub(super) fn open_login(&mut self, argument: &str) -> Vec<Effect> {
        let agent = if argument.is_empty() {
            match &self.view {
                View::Detail(id) => self
                    .sessions
                    .iter()
                    .find(|s| &s.id == id)
                    .map_or(self.info.agent.clone(), |s| s.agent.clone()),
                View::List => self.info.agent.clone(),
            }
        } else {
            argument.to_owned()
        };
        let name = self
            .info
            .agents
            .iter()
            .find(|a| a.id == agent)
            .map_or(agent.clone(), |a| a.name.clone());
        let remote = self.info.remote.as_ref().map(|remote| remote.host.clone());
        self.overlay = Some(Overlay::Login(Box::new(LoginView::new(
            agent.clone(),
            name,
            remote,
        ))));
        vec![Effect::request(ClientRequest::AgentsLogin(LoginParams {
            agent,
        }))]
    }

    /// A login's progress: shown in the login view of its agent; a finished one refreshes the
    /// agents' login states.
    pub(super) fn login_progress(
        &mut self,
        login: codiva_protocol::agent::LoginProgress,
    ) -> Vec<Effect> {
        use codiva_protocol::agent::LoginPhase;
        let done = login.phase != LoginPhase::Running;
        let succeeded = login.phase == LoginPhase::Succeeded;
        let mut shown = false;
        if let Some(Overlay::Login(view)) = &mut self.overlay
            && view.agent == login.agent
            && view.login_id().is_none_or(|id| id == login.login_id)
        {
            view.update(login.clone());
            shown = true;
        }
        if succeeded && !shown {
            let name = self
                .info
                .agents
                .iter()
                .find(|a| a.id == login.agent)
                .map_or(login.agent.clone(), |a| a.name.clone());
            self.set_notice(tf(AgentText::LoginSucceeded, &[&name]), false);
        }
        if done {
            vec![refresh_agents()]
        } else {
            Vec::new()
        }
    }
}

/// The request for a review change the diff view asked for.
fn review_request(session_id: String, action: DiffAction) -> Effect {
    use codiva_protocol::review::{ReviewAddParams, ReviewEditParams, ReviewRemoveParams};
    Effect::request(match action {
        DiffAction::Add {
            anchor,
            lines,
            body,
        } => ClientRequest::ReviewAdd(ReviewAddParams {
            session_id,
            anchor,
            lines,
            body,
        }),
        DiffAction::Edit { comment_id, body } => ClientRequest::ReviewEdit(ReviewEditParams {
            session_id,
            comment_id,
            body,
        }),
        DiffAction::Remove { comment_id } => ClientRequest::ReviewRemove(ReviewRemoveParams {
            session_id,
            comment_id,
        }),
        DiffAction::Send | DiffAction::None | DiffAction::Close | DiffAction::Notice(_) => {
            ClientRequest::ReviewSend(session_params(session_id))
        }
    })
}
