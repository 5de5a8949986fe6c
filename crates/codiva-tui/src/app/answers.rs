//! What the manager's answers mean for the UI: [`App::answered`] takes each request the app
//! sent ([`Effect::Request`]) with its answer, decodes the result as the method table declares
//! it, and turns it into notices, views and follow-up requests. A failed request says why in the
//! notice line (a git error with its fix when it has a known one) unless its feature says
//! otherwise.

use codiva_client::ClientError;
use codiva_protocol::manager::{DiscardOutcome, DiscardPreview};
use codiva_protocol::methods::request;
use codiva_protocol::params::ConfirmParams;
use codiva_protocol::{ClientRequest, Request};
use serde_json::Value;

use super::requests::discard;
use super::{App, Confirm, Effect, Focus, Purpose, overlay};
use crate::i18n::{AppText, ViewText, t, tf};

/// A request's result as the method table's result type for `R`.
pub(super) fn decode<R: Request>(
    result: Result<Value, ClientError>,
) -> Result<R::Result, ClientError> {
    result.and_then(|value| {
        serde_json::from_value(value).map_err(|err| {
            ClientError::Protocol(format!("{}: unexpected result: {err}", R::METHOD))
        })
    })
}

/// A discard or remove confirmed with a token that the manager refused because the session
/// changed since its preview: the fresh preview it sent instead, to ask again with.
fn stale_preview(err: &ClientError) -> Option<(DiscardPreview, String)> {
    let fresh = err.refusal()?.fresh.as_ref()?;
    Some((fresh.preview.clone(), fresh.confirm_token.clone()))
}

impl App {
    /// The manager answered `request` (sent for `purpose`): what that means for the UI.
    pub fn answered(
        &mut self,
        request: ClientRequest,
        purpose: Purpose,
        result: Result<Value, ClientError>,
    ) -> Vec<Effect> {
        if let Some(answer) = super::commands::answer_to(request.method()) {
            return answer(self, request.session_id().unwrap_or_default(), result);
        }
        use ClientRequest as C;
        match request {
            // Requests whose success shows by the events that follow.
            C::SessionCreate(_)
            | C::SessionSend(_)
            | C::SessionInterrupt(_)
            | C::SessionResume(_)
            | C::SessionRespondPermission(_)
            | C::SessionAnswerQuestion(_)
            | C::SessionSetApprovalPolicy(_)
            | C::AgentsLoginInput(_)
            | C::AgentsLoginCancel(_) => {
                if let Err(err) = result {
                    self.failed(&err);
                }
            }
            C::SessionSetAgent(params) => match result {
                Ok(_) => self.said(tf(
                    AppText::InfoAgentSet,
                    &[&params.session_id, &params.agent],
                )),
                Err(err) => self.failed(&err),
            },
            C::SessionSetModel(params) => match result {
                Ok(_) => {
                    let model = params.model.as_deref().unwrap_or(t(AppText::DefaultModel));
                    self.said(tf(AppText::InfoModelSet, &[&params.session_id, model]));
                }
                Err(err) => self.failed(&err),
            },
            C::SessionSnapshot(params) => {
                let snapshot = decode::<request::SessionSnapshot>(result).ok();
                return self.snapshot_arrived(&params.session_id, snapshot);
            }
            C::SessionDiffText(params) => match decode::<request::SessionDiffText>(result) {
                Ok(diff) => self.diff_arrived(&params.session_id, &diff.text, diff.truncated),
                Err(err) => self.failed(&err),
            },
            C::SessionFullMessage(params) => {
                let text = decode::<request::SessionFullMessage>(result)
                    .map(|result| result.text)
                    .map_err(|err| crate::i18n::manager_error(&err));
                self.message_arrived(&params.session_id, params.entry, text);
            }
            C::SessionDiff(params) => {
                let stat = decode::<request::SessionDiff>(result);
                let id = params.session_id;
                match (purpose, stat) {
                    (Purpose::Uncommitted, stat) => self.uncommitted_arrived(&id, stat.ok()),
                    (Purpose::PrPreview, Ok(stat)) => self.pr_preview_arrived(id, stat),
                    (Purpose::MergePreview, Ok(stat)) => self.merge_preview_arrived(id, stat),
                    // A session's figures asked for nothing in particular: nothing to show.
                    (Purpose::Plain, Ok(_)) => {}
                    (_, Err(err)) => self.failed(&err),
                }
            }
            C::SessionRestore(_) => match decode::<request::SessionRestore>(result) {
                Ok(result) => self.said(tf(ViewText::InfoRestored, &[&result.session.title])),
                Err(err) => self.failed(&err),
            },
            C::SessionRename(_) => match decode::<request::SessionRename>(result) {
                Ok(result) => self.said(tf(ViewText::InfoRenamed, &[&result.session.title])),
                Err(err) => self.failed(&err),
            },
            C::SessionMerge(_) => match decode::<request::SessionMerge>(result) {
                Ok(result) => self.said(tf(
                    AppText::InfoMerged,
                    &[&result.session.branch, &result.session.base],
                )),
                Err(err) => self.failed(&err),
            },
            C::SessionDiscard(params) => {
                self.discard_answered(params, false, decode::<request::SessionDiscard>(result));
            }
            C::SessionRemove(params) => {
                self.discard_answered(params, true, decode::<request::SessionRemove>(result));
            }
            C::SessionPr(_) => match decode::<request::SessionPr>(result) {
                Ok(result) => self.said(crate::pr_cell::opened(&result)),
                Err(err) => self.failed(&err),
            },
            C::SessionFixCi(_) => match decode::<request::SessionFixCi>(result) {
                Ok(sent) => self.fix_ci_sent(&sent),
                Err(err) => self.failed(&err),
            },
            C::SessionCommit(params) => match decode::<request::SessionCommit>(result) {
                Ok(done) => return self.committed(&params.session_id, &done),
                Err(err) => self.failed(&err),
            },
            // A review's comments show by the session's row that follows; a refusal (the
            // comment is gone, too many) says why.
            C::ReviewAdd(_) | C::ReviewEdit(_) | C::ReviewRemove(_) => {
                if let Err(err) = result {
                    self.failed(&err);
                }
            }
            C::ReviewSend(_) => match decode::<request::ReviewSend>(result) {
                Ok(sent) => self.said(super::review_panel::sent_text(&sent)),
                Err(err) => self.failed(&err),
            },
            C::SessionRecover(params) => match decode::<request::SessionRecover>(result) {
                Ok(plan) if params.dry_run => self.recover_plan_arrived(&plan),
                Ok(result) => self.recovered(&result),
                Err(err) => self.failed(&err),
            },
            C::ConfigRead(_) => match decode::<request::ConfigRead>(result) {
                Ok(result) => self.config_arrived(result, None),
                Err(err) => self.set_notice(crate::i18n::manager_error(&err), true),
            },
            C::ConfigSet(params) => match decode::<request::ConfigSet>(result) {
                Ok(result) => self.config_arrived(result, Some(params.key)),
                Err(err) => self.set_notice(crate::i18n::manager_error(&err), true),
            },
            // A login that could not start: the login view closes with the reason.
            C::AgentsLogin(_) => {
                if let Err(err) = result {
                    if matches!(self.overlay, Some(overlay::Overlay::Login(_))) {
                        self.overlay = None;
                    }
                    self.set_notice(crate::i18n::manager_error(&err), true);
                }
            }
            // Every agent, with what its login check said; a failed check changes nothing.
            C::AgentsList(_) => {
                if let Ok(list) = decode::<request::AgentsList>(result) {
                    self.info.agents = list.agents;
                }
            }
            // `/history` (`outside_view.rs`): a failure is said in the view.
            C::HistoryList(_) => {
                let list = decode::<request::HistoryList>(result)
                    .map_err(|err| crate::i18n::manager_error(&err));
                self.history_listed(list);
            }
            C::HistoryRead(params) => {
                let read = decode::<request::HistoryRead>(result)
                    .map_err(|err| crate::i18n::manager_error(&err));
                self.history_read_arrived(&params.id, read);
            }
            C::HistoryAdopt(_) => {
                let adopted = decode::<request::HistoryAdopt>(result)
                    .map(|result| result.session)
                    .map_err(|err| crate::i18n::manager_error(&err));
                return self.history_adopted(adopted);
            }
            C::GroupCreate(_) => {
                return self.group_created(decode::<request::GroupCreate>(result));
            }
            C::GroupLastAttempts(_) => {
                self.last_attempts_arrived(decode::<request::GroupLastAttempts>(result));
            }
            C::GroupCompare(params) => {
                self.compare_arrived(&params.group_id, decode::<request::GroupCompare>(result));
            }
            C::GroupDiff(params) => match decode::<request::GroupDiff>(result) {
                Ok(diff) => self.diff_arrived(&params.session_id, &diff.text, diff.truncated),
                Err(err) => self.failed(&err),
            },
            C::GroupKeep(params) => {
                self.keep_answered(params, decode::<request::GroupKeep>(result))
            }
            C::SessionRunCheck(_) => self.check_started(decode::<request::SessionRunCheck>(result)),
            // Requests the app does not send (`tests/tui/answers.rs` lists them, and fails for a
            // method of the protocol it has not sorted into sent or not sent).
            _ => {}
        }
        Vec::new()
    }

    /// A notice that a request did what it was asked.
    pub(super) fn said(&mut self, text: String) {
        self.set_notice(text, false);
    }

    /// A notice that a request failed; a git error comes with its fix when it has a known one
    /// (committer identity, a lock…).
    pub(super) fn failed(&mut self, err: &ClientError) {
        let text = crate::i18n::views::with_git_fix(&crate::i18n::manager_error(err));
        self.set_notice(text, true);
    }

    /// A session's state arrived (`None`: it could not be had): the pane is rebuilt from it.
    fn snapshot_arrived(
        &mut self,
        id: &str,
        snapshot: Option<codiva_protocol::session::SessionSnapshot>,
    ) -> Vec<Effect> {
        if !self.sessions.iter().any(|s| s.id == id) {
            return Vec::new();
        }
        let seq = self.seq;
        match snapshot {
            Some(snapshot) => self.pane(id).restore(snapshot, seq),
            None => self.pane(id).snapshot_failed(),
        }
        if self.focus == Focus::Dialog
            && self.current_id().as_deref() == Some(id)
            && !self.pane(id).has_dialog()
        {
            self.focus = Focus::Composer;
        }
        self.pay_inbox()
    }

    /// `session/discard` or `session/remove` answered: a preview asks y/n (confirming sends
    /// the token), a done one says so; a confirmation that came too late asks again with the
    /// fresh preview.
    fn discard_answered(
        &mut self,
        params: ConfirmParams,
        forget: bool,
        outcome: Result<DiscardOutcome, ClientError>,
    ) {
        let confirming = params.confirm_token.is_some();
        match outcome {
            Ok(DiscardOutcome::NeedsConfirmation {
                preview,
                confirm_token,
            }) => {
                if !confirming {
                    self.discard_preview(params.session_id, forget, &preview, confirm_token, false);
                }
            }
            Ok(DiscardOutcome::Removed { id }) => self.said(tf(AppText::InfoRemoved, &[&id])),
            Ok(DiscardOutcome::Discarded { session }) => {
                let key = if confirming {
                    AppText::InfoDiscardedRestorable
                } else {
                    AppText::InfoDiscarded
                };
                self.said(tf(key, &[&session.id]));
            }
            Err(err) => match stale_preview(&err).filter(|_| confirming) {
                Some((preview, token)) => {
                    self.discard_preview(params.session_id, forget, &preview, token, true);
                }
                None => self.failed(&err),
            },
        }
    }

    /// The y/n of a discard or remove: what would be lost (`changed`: a confirmation came too
    /// late, the session changed since its preview, nothing was done, and this is the fresh
    /// preview — asked again, never a dead end).
    fn discard_preview(
        &mut self,
        id: String,
        forget: bool,
        preview: &DiscardPreview,
        token: String,
        changed: bool,
    ) {
        let title = if forget {
            AppText::RemoveTitle
        } else {
            AppText::DiscardTitle
        };
        let mut text = Vec::new();
        if changed {
            text.push(tf(AppText::RefChangedSincePreview, &[&id]));
        }
        text.push(tf(title, &[&id]));
        if preview.uncommitted.is_empty() && preview.unmerged_commits.is_empty() {
            text.push(t(AppText::NothingLost).to_owned());
        } else {
            if !preview.uncommitted.is_empty() {
                text.push(tf(
                    AppText::UncommittedLost,
                    &[&preview.uncommitted.join(", ")],
                ));
            }
            if !preview.unmerged_commits.is_empty() {
                text.push(tf(
                    AppText::CommitsArchived,
                    &[&preview.unmerged_commits.join("; ")],
                ));
            }
        }
        self.confirm = Some(Confirm {
            text,
            on_yes: vec![discard(id, forget, Some(token))],
            restore: None,
        });
    }
}
