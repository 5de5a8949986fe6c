//! The actor's discard, remove and restore: two steps tied to what the preview showed.
//!
//! The token of a preview is derived from the session's state (see `git::archive`), so a token
//! from an old preview no longer matches once a file appeared or changed or the branch moved:
//! the discard is refused with `changed_since_preview` and a fresh preview (with its own token)
//! in the refusal, and nothing is stopped or removed. The state is checked twice: before the
//! agent is stopped (a stale token leaves the session running) and again after (what the agent
//! wrote in between is caught too). Everything discarded is archived, uncommitted work included.
//! The preview, and the stop with the archiving, are jobs on the session's lane.

use std::path::PathBuf;

use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::{
    DiscardOutcome, DiscardPreview, FreshPreview, ManagerEvent, SessionInfo, SessionPhase,
};
use codiva_protocol::session::Status;

use super::record::Record;
use super::{Actor, refused};
use crate::agent_event::TurnOutcome;
use crate::git::{self, DiscardResult};
use crate::manager::{ManagerError, Reply};

impl Actor {
    pub(super) fn discard(
        &mut self,
        id: &str,
        confirm: Option<String>,
        forget: bool,
        reply: Reply<DiscardOutcome>,
    ) {
        let record = match self.record(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        let already_gone = matches!(
            record.phase,
            SessionPhase::Discarded | SessionPhase::Merged { .. }
        );
        if already_gone {
            if forget {
                // Forgetting keeps the archive ref (the work stays recoverable with git).
                reply.send(Ok(self.forget(id)));
                return;
            }
            let (code, what) = match record.phase {
                SessionPhase::Merged { .. } => (RefusalCode::AlreadyMerged, "merged"),
                _ => (RefusalCode::AlreadyDiscarded, "discarded"),
            };
            reply.send(Err(refused(
                code,
                &[id],
                format!("session {id} is already {what}"),
            )));
            return;
        }
        if matches!(record.phase, SessionPhase::Preparing) {
            reply.send(Err(refused(
                RefusalCode::StillPreparing,
                &[id],
                format!("session {id} is still being prepared"),
            )));
            return;
        }
        let names = Names {
            worktree: record.worktree.clone(),
            branch: record.branch.clone(),
            base: record.base.clone(),
            slug: record.slug.clone(),
        };
        let repo = self.repo.clone();
        let owned_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                let preview = repo
                    .discard_preview(&names.worktree, &names.branch, &names.base, &names.slug)
                    .await;
                (preview, names)
            },
            move |actor, (preview, names)| {
                let result = preview.map_err(ManagerError::from).and_then(|preview| {
                    actor.previewed(&owned_id, preview, names, confirm, forget)
                });
                match result {
                    Ok(Previewed::Answer(outcome)) => reply.send(Ok(outcome)),
                    Ok(Previewed::Confirmed(names, given)) => {
                        actor.discard_confirmed(&owned_id, names, given, forget, reply);
                    }
                    Err(err) => reply.send(Err(err)),
                }
            },
        );
    }

    /// The preview answers a call without a token, refuses a stale token, or lets the discard
    /// go on: the agent is stopped and the work archived in a job.
    fn previewed(
        &mut self,
        id: &str,
        preview: git::DiscardPreview,
        names: Names,
        confirm: Option<String>,
        forget: bool,
    ) -> Result<Previewed, ManagerError> {
        let Some(given) = confirm else {
            self.record(id)?.issue(&preview.token);
            let fresh = fresh_preview(preview);
            return Ok(Previewed::Answer(DiscardOutcome::NeedsConfirmation {
                preview: fresh.preview,
                confirm_token: fresh.confirm_token,
            }));
        };
        if preview.token != given {
            return Err(self.stale(id, &given, preview, forget));
        }
        Ok(Previewed::Confirmed(names, given))
    }

    fn discard_confirmed(
        &mut self,
        id: &str,
        names: Names,
        given: String,
        forget: bool,
        reply: Reply<DiscardOutcome>,
    ) {
        let forwarder = self.take_task(id);
        let owned_id = id.to_owned();
        self.git_job(
            id,
            forwarder,
            move |repo| async move {
                let result = repo
                    .discard(
                        &names.worktree,
                        &names.branch,
                        &names.base,
                        &names.slug,
                        &given,
                    )
                    .await;
                (result, given)
            },
            move |actor, (result, given)| {
                let result = result
                    .map_err(ManagerError::from)
                    .and_then(|result| actor.discarded(&owned_id, result, &given, forget));
                reply.send(result);
            },
        );
    }

    fn discarded(
        &mut self,
        id: &str,
        result: DiscardResult,
        given: &str,
        forget: bool,
    ) -> Result<DiscardOutcome, ManagerError> {
        if let DiscardResult::Changed(preview) = result {
            return Err(self.stale(id, given, preview, forget));
        }
        if forget {
            return Ok(self.forget(id));
        }
        let record = self.record(id)?;
        record.phase = SessionPhase::Discarded;
        record.issued_tokens.clear();
        record.track_activity();
        // The agent's conversation stays resumable after a restore.
        // A session that needed a login or hit the rate limit comes back as such.
        let message = record.detail.clone().unwrap_or_default();
        record.restored_outcome = Some(match record.status {
            Status::Completed => TurnOutcome::Completed,
            Status::NeedsLogin => TurnOutcome::NeedsLogin { message },
            Status::RateLimited => TurnOutcome::RateLimited { message },
            _ => TurnOutcome::Interrupted,
        });
        let info = record.info();
        self.emit_info(id);
        Ok(DiscardOutcome::Discarded {
            session: Box::new(info),
        })
    }

    fn forget(&mut self, id: &str) -> DiscardOutcome {
        if let Some(record) = self.records.remove(id) {
            record.extras.remove_mcp_config();
        }
        self.emit(ManagerEvent::Removed { id: id.to_owned() });
        self.left_groups(id);
        self.mark_dirty();
        DiscardOutcome::Removed { id: id.to_owned() }
    }

    /// The refusal of a token that does not name the current state, with the fresh preview:
    /// `changed_since_preview` for the token of this session's last preview, `token_mismatch`
    /// for any other.
    fn stale(
        &mut self,
        id: &str,
        given: &str,
        preview: git::DiscardPreview,
        forget: bool,
    ) -> ManagerError {
        let issued = self
            .records
            .get(id)
            .is_some_and(|record| record.issued_tokens.iter().any(|token| token == given));
        if let Some(record) = self.records.get_mut(id) {
            record.issue(&preview.token);
        }
        let what = if forget { "removed" } else { "discarded" };
        let (code, message) = if issued {
            (
                RefusalCode::ChangedSincePreview,
                format!(
                    "session {id} changed since the preview; nothing was {what} — confirm the new preview or leave it"
                ),
            )
        } else {
            (
                RefusalCode::TokenMismatch,
                format!(
                    "the confirmation token does not match; nothing was {what} — confirm the new preview or leave it"
                ),
            )
        };
        let mut refusal = match refused(code, &[id], message) {
            ManagerError::Refused(refusal) => refusal,
            other => return other,
        };
        refusal.fresh_preview = Some(Box::new(fresh_preview(preview)));
        ManagerError::Refused(refusal)
    }

    pub(super) fn restore(&mut self, id: &str, reply: Reply<SessionInfo>) {
        let record = match self.record(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        if record.phase != SessionPhase::Discarded {
            reply.send(Err(refused(
                RefusalCode::NotDiscarded,
                &[id],
                format!("session {id} is not discarded"),
            )));
            return;
        }
        let slug = record.slug.clone();
        let options = self.worktree_options();
        let owned_id = id.to_owned();
        self.git_job(
            id,
            None,
            move |repo| async move { repo.restore(&slug, &options).await },
            move |actor, worktree| {
                let result = worktree.map_err(ManagerError::from).and_then(|worktree| {
                    let record = actor.record(&owned_id)?;
                    record.worktree = worktree.path;
                    record.branch = worktree.branch;
                    record.phase = SessionPhase::Active;
                    if record.restored_outcome.is_none() {
                        record.restored_outcome = Some(TurnOutcome::Interrupted);
                    }
                    Ok(record.info())
                });
                if result.is_ok() {
                    actor.emit_info(&owned_id);
                }
                reply.send(result);
            },
        );
    }
}

/// What a discard's preview decided.
enum Previewed {
    Answer(DiscardOutcome),
    /// The token names the current state: go on with these.
    Confirmed(Names, String),
}

/// What a discard works on.
struct Names {
    worktree: PathBuf,
    branch: String,
    base: String,
    slug: String,
}

impl Record {
    /// Remembers a token this session's preview gave out.
    fn issue(&mut self, token: &str) {
        const KEPT: usize = 8;
        self.issued_tokens.retain(|issued| issued != token);
        self.issued_tokens.push(token.to_owned());
        if self.issued_tokens.len() > KEPT {
            self.issued_tokens.remove(0);
        }
    }
}

/// The preview as front ends see it, with its token.
fn fresh_preview(preview: git::DiscardPreview) -> FreshPreview {
    FreshPreview {
        preview: DiscardPreview {
            uncommitted: preview
                .uncommitted
                .into_iter()
                .map(|entry| entry.path)
                .collect(),
            unmerged_commits: preview
                .commits
                .into_iter()
                .map(|commit| commit.subject)
                .collect(),
        },
        confirm_token: preview.token,
    }
}
