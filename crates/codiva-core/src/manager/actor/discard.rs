//! The actor's discard, remove and restore: two steps tied to what the preview showed.
//!
//! The token of a preview is derived from the session's state (see `git::archive`), so a token
//! from an old preview no longer matches once a file appeared or changed or the branch moved:
//! the discard is refused with `changed_since_preview` and a fresh preview (with its own token)
//! in the refusal, and nothing is stopped or removed. The state is checked twice: before the
//! agent is stopped (a stale token leaves the session running) and again after (what the agent
//! wrote in between is caught too). Everything discarded is archived, uncommitted work included.

use super::{Actor, Record, refused};
use crate::agent_event::TurnOutcome;
use crate::git::{self, DiscardResult};
use crate::manager::info::{DiscardPreview, ManagerEvent, SessionInfo, SessionPhase};
use crate::manager::{DiscardOutcome, FreshPreview, ManagerError};
use crate::session_state::Status;

impl Actor {
    pub(super) async fn discard(
        &mut self,
        id: &str,
        confirm: Option<String>,
        forget: bool,
    ) -> Result<DiscardOutcome, ManagerError> {
        let record = self.record(id)?;
        let already_gone = matches!(
            record.phase,
            SessionPhase::Discarded | SessionPhase::Merged { .. }
        );
        if already_gone {
            if forget {
                // Forgetting keeps the archive ref (the work stays recoverable with git).
                self.records.remove(id);
                self.emit(ManagerEvent::Removed { id: id.to_owned() });
                self.mark_dirty();
                return Ok(DiscardOutcome::Removed { id: id.to_owned() });
            }
            let (code, what) = match record.phase {
                SessionPhase::Merged { .. } => ("already_merged", "merged"),
                _ => ("already_discarded", "discarded"),
            };
            return Err(refused(
                code,
                &[id],
                format!("session {id} is already {what}"),
            ));
        }
        if matches!(record.phase, SessionPhase::Preparing) {
            return Err(refused(
                "still_preparing",
                &[id],
                format!("session {id} is still being prepared"),
            ));
        }
        let (worktree, branch, base, slug) = (
            record.worktree.clone(),
            record.branch.clone(),
            record.base.clone(),
            record.slug.clone(),
        );
        let preview = self
            .repo
            .discard_preview(&worktree, &branch, &base, &slug)
            .await?;
        let Some(given) = confirm else {
            self.record(id)?.issue(&preview.token);
            let fresh = fresh_preview(preview);
            return Ok(DiscardOutcome::NeedsConfirmation {
                preview: fresh.preview,
                confirm_token: fresh.confirm_token,
            });
        };
        if preview.token != given {
            return Err(self.stale(id, &given, preview, forget));
        }
        self.stop_task(id).await;
        let result = {
            let _guard = self.git_lock.lock().await;
            self.repo
                .discard(&worktree, &branch, &base, &slug, &given)
                .await?
        };
        if let DiscardResult::Changed(preview) = result {
            return Err(self.stale(id, &given, preview, forget));
        }
        if forget {
            self.records.remove(id);
            self.emit(ManagerEvent::Removed { id: id.to_owned() });
            self.mark_dirty();
            return Ok(DiscardOutcome::Removed { id: id.to_owned() });
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
                "changed_since_preview",
                format!(
                    "session {id} changed since the preview; nothing was {what} — confirm the new preview or leave it"
                ),
            )
        } else {
            (
                "token_mismatch",
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

    pub(super) async fn restore(&mut self, id: &str) -> Result<SessionInfo, ManagerError> {
        let record = self.record(id)?;
        if record.phase != SessionPhase::Discarded {
            return Err(refused(
                "not_discarded",
                &[id],
                format!("session {id} is not discarded"),
            ));
        }
        let slug = record.slug.clone();
        let worktree = {
            let _guard = self.git_lock.lock().await;
            self.repo.restore(&slug, &self.worktree_options()).await?
        };
        let record = self.record(id)?;
        record.worktree = worktree.path;
        record.branch = worktree.branch;
        record.phase = SessionPhase::Active;
        if record.restored_outcome.is_none() {
            record.restored_outcome = Some(TurnOutcome::Interrupted);
        }
        let info = record.info();
        self.emit_info(id);
        Ok(info)
    }
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
