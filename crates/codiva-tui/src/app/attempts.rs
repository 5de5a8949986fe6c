//! Attempts in the app: opening the `/attempts` form and starting its group (`group/create`),
//! the compare view of a group (`group/compare`, `group/diff`), keeping one attempt after one
//! confirmation that lists the others (`group/keep`), and a session's check run again
//! (`session/runCheck`). The views are `attempts_form.rs` and `compare_view.rs`; the list's
//! group rows are `groups.rs`.

use codiva_client::ClientError;
use codiva_protocol::ClientRequest;
use codiva_protocol::group::{
    AttemptDiffParams, AttemptSpec, GroupCompare, GroupParams, GroupResult, KeepOutcome,
    KeepParams, LastAttemptsResult,
};
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::params::NoParams;
use codiva_protocol::session::Status;
use crossterm::event::KeyEvent;

use super::attempts_form::{AttemptsForm, FormAction};
use super::compare_view::{CompareAction, CompareView};
use super::diff_view::DiffView;
use super::groups::ListRow;
use super::overlay::Overlay;
use super::requests::session_params;
use super::{App, Confirm, Effect, View};
use crate::i18n::{AttemptText, t, tf};

/// What a session's row said before an update: a change in it reads the compare view's
/// figures again.
pub(super) type RowState = (
    Status,
    SessionPhase,
    Option<Box<codiva_protocol::group::CheckRun>>,
);

impl App {
    /// `/attempts [agents]`, Ctrl+G in the list: the form over the body, with `argument` (a
    /// list of agents) or, without one, the repository's last list (asked for), and the
    /// composer's text as the instruction.
    pub(super) fn open_attempts(&mut self, argument: &str) -> Vec<Effect> {
        if self.view != View::List {
            self.set_notice(
                tf(crate::i18n::AppText::CommandOnlyInList, &["attempts"]),
                true,
            );
            return Vec::new();
        }
        let instruction = self.composer.text().to_owned();
        self.composer.clear();
        self.palette.close();
        let mut effects = Vec::new();
        let agents = if argument.is_empty() {
            effects.push(Effect::request(ClientRequest::GroupLastAttempts(
                NoParams {},
            )));
            // Until the remembered list arrives (or before the first group): the agent in use.
            self.info.agent.clone()
        } else {
            argument.to_owned()
        };
        let form = AttemptsForm::new(&agents, &instruction, self.info.agents.clone());
        self.overlay = Some(Overlay::Attempts(Box::new(form)));
        effects
    }

    /// `group/lastAttempts` answered: the form's list, unless the user typed one already.
    pub(super) fn last_attempts_arrived(
        &mut self,
        result: Result<LastAttemptsResult, ClientError>,
    ) {
        if let (Some(Overlay::Attempts(form)), Ok(last)) = (&mut self.overlay, result) {
            form.remembered(&last.text);
        }
    }

    /// A key for the attempts form.
    pub(super) fn attempts_form_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(Overlay::Attempts(form)) = &mut self.overlay else {
            return Vec::new();
        };
        match form.key(key) {
            FormAction::None => Vec::new(),
            FormAction::Close => {
                // What was typed as the instruction goes back to the composer.
                if let Some(Overlay::Attempts(form)) = self.overlay.take()
                    && self.composer.is_empty()
                {
                    self.composer.set_text(form.instruction_text());
                }
                Vec::new()
            }
            FormAction::Start(params) => {
                self.overlay = None;
                vec![Effect::request(ClientRequest::GroupCreate(params))]
            }
        }
    }

    /// `group/create` answered: the group is listed and selected, with its sessions (their
    /// events may come after the answer).
    pub(super) fn group_created(
        &mut self,
        result: Result<GroupResult, ClientError>,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        match result {
            Ok(result) => {
                let specs: Vec<AttemptSpec> = result
                    .group
                    .attempts
                    .iter()
                    .map(|a| a.spec.clone())
                    .collect();
                let id = result.group.id.clone();
                self.groups.upsert(result.group);
                for session in result.sessions {
                    if !self.sessions.iter().any(|s| s.id == session.id) {
                        effects.extend(self.manager_event(
                            codiva_protocol::manager::ManagerEvent::Session { session },
                        ));
                    }
                }
                self.select_row(&ListRow::Group(id));
                let names = AttemptSpec::format_list(&specs);
                let names = codiva_protocol::text::sanitize_title(&names).unwrap_or_default();
                let text = tf(AttemptText::Started, &[&specs.len().to_string(), &names]);
                self.set_notice(text, false);
            }
            Err(err) => self.set_notice(crate::i18n::manager_error(&err), true),
        }
        effects
    }

    /// `c` on a group or one of its attempts, `/compare`: the compare view, filled when the
    /// figures arrive.
    pub(super) fn open_compare(&mut self) -> Vec<Effect> {
        let Some(group_id) = self.selected_group_id() else {
            self.set_notice(t(AttemptText::NotInGroup).to_owned(), false);
            return Vec::new();
        };
        // The attempt the selection is on, selected in the view too.
        let first = match &self.view {
            View::Detail(id) => Some(id.clone()),
            View::List => self.selected_session().map(|s| s.id.clone()),
        };
        let known = self.groups.get(&group_id).cloned();
        self.overlay = Some(Overlay::Compare(Box::new(CompareView::loading(
            group_id.clone(),
            first,
            known,
        ))));
        vec![compare(group_id)]
    }

    /// `group/compare` answered.
    pub(super) fn compare_arrived(
        &mut self,
        group_id: &str,
        result: Result<GroupCompare, ClientError>,
    ) {
        let data = match result {
            Ok(data) => data,
            Err(err) => return self.set_notice(crate::i18n::manager_error(&err), true),
        };
        let view = match &mut self.overlay {
            Some(Overlay::Compare(view)) if view.group_id == group_id => view,
            _ => match &mut self.compare_behind {
                Some(view) if view.group_id == group_id => view,
                _ => return,
            },
        };
        view.set(data);
    }

    /// A session's row changed: the compare view that shows it reads the figures again when
    /// its status, phase or check moved.
    pub(super) fn compare_follow(&self, id: &str, before: Option<RowState>) -> Vec<Effect> {
        let Some(Overlay::Compare(view)) = &self.overlay else {
            return Vec::new();
        };
        let now = self
            .sessions
            .iter()
            .find(|s| s.id == id)
            .map(|s| (s.status, s.phase.clone(), s.check.clone()));
        if !view.shows(id) || now == before {
            return Vec::new();
        }
        vec![compare(view.group_id.clone())]
    }

    /// A key for the compare view.
    pub(super) fn compare_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(Overlay::Compare(view)) = &mut self.overlay else {
            return Vec::new();
        };
        let group_id = view.group_id.clone();
        match view.key(key) {
            CompareAction::None => Vec::new(),
            CompareAction::Close => {
                self.overlay = None;
                Vec::new()
            }
            CompareAction::Refresh => vec![compare(group_id)],
            CompareAction::Notice(text) => {
                self.set_notice(text, false);
                Vec::new()
            }
            CompareAction::Diff { session_id, other } => self.open_attempt_diff(session_id, other),
            CompareAction::Keep { session_id } => vec![keep(group_id, session_id, None)],
            CompareAction::Check { session_id } => vec![run_check(session_id)],
        }
    }

    /// An attempt's diff against its base, or from `other`: the diff view over the compare
    /// view, which comes back when the diff closes.
    fn open_attempt_diff(&mut self, session_id: String, other: Option<String>) -> Vec<Effect> {
        let branch_of = |id: &str| {
            self.sessions
                .iter()
                .find(|s| s.id == id)
                .map(|s| (s.branch.clone(), s.base.clone()))
        };
        let (branch, base) =
            branch_of(&session_id).unwrap_or_else(|| (session_id.clone(), self.info.base.clone()));
        let against = match &other {
            Some(other) => branch_of(other).map_or_else(|| other.clone(), |(branch, _)| branch),
            None => base,
        };
        if let Some(Overlay::Compare(view)) = self.overlay.take() {
            self.compare_behind = Some(view);
        }
        self.overlay = Some(Overlay::Diff(DiffView::loading(
            session_id.clone(),
            &branch,
            &against,
        )));
        vec![Effect::request(ClientRequest::GroupDiff(
            AttemptDiffParams {
                session_id,
                other,
                path: None,
            },
        ))]
    }

    /// Draws the compare view (by this frame's clock).
    pub(super) fn render_compare(
        &mut self,
        area: ratatui::layout::Rect,
        buf: &mut ratatui::buffer::Buffer,
    ) {
        let activity = self.activity();
        if let Some(Overlay::Compare(view)) = &self.overlay {
            view.render(area, buf, activity);
        }
    }

    /// The diff view closed: the compare view it was opened from comes back.
    pub(super) fn back_to_compare(&mut self) {
        self.overlay = self.compare_behind.take().map(Overlay::Compare);
    }

    /// `group/keep` answered: the preview asks once, listing the attempts to be discarded;
    /// done, it says so and the view closes.
    pub(super) fn keep_answered(
        &mut self,
        params: KeepParams,
        outcome: Result<KeepOutcome, ClientError>,
    ) {
        match outcome {
            Ok(KeepOutcome::NeedsConfirmation {
                discard,
                confirm_token,
            }) => {
                let name = self.attempt_named(&params.group_id, &params.session_id);
                let instruction = self
                    .groups
                    .get(&params.group_id)
                    .and_then(|g| codiva_protocol::text::sanitize_title(&g.instruction))
                    .unwrap_or_default();
                let mut text = vec![tf(
                    if discard.is_empty() {
                        AttemptText::KeepNone
                    } else {
                        AttemptText::KeepTitle
                    },
                    &[&name, &instruction],
                )];
                for other in &discard {
                    let branch = self
                        .sessions
                        .iter()
                        .find(|s| s.id == other.session_id)
                        .map_or_else(|| other.session_id.clone(), |s| s.branch.clone());
                    let mut lost = Vec::new();
                    if !other.preview.uncommitted.is_empty() {
                        lost.push(tf(
                            AttemptText::KeepUncommitted,
                            &[&other.preview.uncommitted.len().to_string()],
                        ));
                    }
                    if !other.preview.unmerged_commits.is_empty() {
                        lost.push(tf(
                            AttemptText::KeepArchived,
                            &[&other.preview.unmerged_commits.len().to_string()],
                        ));
                    }
                    if lost.is_empty() {
                        lost.push(t(AttemptText::KeepNothingLost).to_owned());
                    }
                    text.push(tf(
                        AttemptText::KeepOther,
                        &[
                            &self.attempt_named(&params.group_id, &other.session_id),
                            &crate::dialog::sanitize(&branch),
                            &lost.join(" · "),
                        ],
                    ));
                }
                self.clear_notice_here();
                self.confirm = Some(Confirm {
                    text,
                    on_yes: vec![keep(
                        params.group_id,
                        params.session_id,
                        Some(confirm_token),
                    )],
                    restore: None,
                });
            }
            Ok(KeepOutcome::Kept {
                group,
                session,
                discarded,
            }) => {
                let name = self.attempt_named(&group.id, &session.id);
                if matches!(&self.overlay, Some(Overlay::Compare(view)) if view.group_id == group.id)
                {
                    self.overlay = None;
                }
                self.groups.upsert(group);
                self.keep_selection_shown();
                self.set_notice(
                    tf(
                        AttemptText::KeepDone,
                        &[&name, &discarded.len().to_string()],
                    ),
                    false,
                );
            }
            Err(err) => self.set_notice(
                crate::i18n::views::with_git_fix(&crate::i18n::manager_error(&err)),
                true,
            ),
        }
    }

    /// An attempt as the user named it (`claude:opus`), else its session id; sanitised.
    fn attempt_named(&self, group_id: &str, session_id: &str) -> String {
        let name = self
            .groups
            .get(group_id)
            .and_then(|g| g.attempts.iter().find(|a| a.session_id == session_id))
            .map_or_else(|| session_id.to_owned(), |a| a.spec.to_string());
        codiva_protocol::text::sanitize_title(&name).unwrap_or_default()
    }

    /// `/check`, `C` in the list: the repository's check again in the session's worktree.
    pub(super) fn check_current(&mut self) -> Vec<Effect> {
        match self.current_id() {
            Some(id) => vec![run_check(id)],
            None => Vec::new(),
        }
    }

    /// `session/runCheck` answered: it started (its progress shows in the session's row).
    pub(super) fn check_started(
        &mut self,
        result: Result<codiva_protocol::group::RunCheckResult, ClientError>,
    ) {
        match result {
            Ok(started) => {
                let command = crate::dialog::sanitize(&started.check.command).into_owned();
                self.set_notice(tf(AttemptText::CheckStarted, &[&command]), false);
            }
            Err(err) => self.set_notice(crate::i18n::manager_error(&err), true),
        }
    }

    /// A paste while the attempts form is open goes to its field.
    pub(super) fn paste_into_form(&mut self, text: &str) -> bool {
        match &mut self.overlay {
            Some(Overlay::Attempts(form)) => {
                form.paste(text);
                true
            }
            _ => false,
        }
    }
}

/// `group/compare` of `group_id`.
fn compare(group_id: String) -> Effect {
    Effect::request(ClientRequest::GroupCompare(GroupParams { group_id }))
}

/// `group/keep`: the preview without a token, the keep with one.
fn keep(group_id: String, session_id: String, confirm_token: Option<String>) -> Effect {
    Effect::request(ClientRequest::GroupKeep(KeepParams {
        group_id,
        session_id,
        confirm_token,
    }))
}

/// `session/runCheck` of `id`.
fn run_check(id: String) -> Effect {
    Effect::request(ClientRequest::SessionRunCheck(session_params(id)))
}
