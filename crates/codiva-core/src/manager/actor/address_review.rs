//! `session/addressReview` (`/address-review`) and `auto_address_review`: the unresolved review
//! threads of the session's own pull request (`gh api graphql`, `github::review_threads`) go to
//! its agent as one message — sanitised, fenced as untrusted text, within
//! [`ADDRESS_REVIEW_BUDGET`] bytes — and the commits of that turn are pushed when it completes,
//! as after `/fix-ci` ([`Actor::send_repair`]).
//!
//! Each thread goes once: the keys of the threads sent (a thread's id and its number of
//! comments, so a thread with a new comment goes again) are kept with the session and saved;
//! threads already sent are left out of a later message.

use codiva_protocol::error::RefusalCode;
use codiva_protocol::github::PrState as WirePrState;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::params::AddressReviewResult;

use super::pulls::{gh_refusal, no_open_pr, view_of};
use super::{Actor, refused};
use crate::github::PrStatus;
use crate::github::review_threads::{
    ADDRESS_REVIEW_BUDGET, ReviewThread, ReviewThreads, address_review_message,
};
use crate::manager::{ManagerError, Reply};

/// The most thread keys a session remembers as sent (the oldest are forgotten first).
const MAX_SENT_KEYS: usize = 500;

/// The `recover_attempts` key of `auto_address_review`.
pub(super) const AUTO_KEY: &str = "address_review";

impl Actor {
    /// `session/addressReview`.
    pub(super) fn address_review(&mut self, id: &str, reply: Reply<AddressReviewResult>) {
        let record = match self.settled_with_worktree(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        let worktree = record.worktree.clone();
        let Some(own) = record.prs.iter().find(|pr| pr.own).cloned() else {
            return reply.send(Err(no_open_pr(id)));
        };
        if own
            .view
            .as_ref()
            .is_some_and(|view| view.state != WirePrState::Open)
        {
            return reply.send(Err(no_open_pr(id)));
        }
        self.repair_job(
            id,
            worktree,
            own.number,
            reply,
            |gh, worktree, status| {
                Box::pin(async move {
                    gh.review_threads(worktree, status.number)
                        .await
                        .map_err(|err| gh_refusal(&err))
                })
            },
            Actor::send_review,
        );
    }

    /// Keeps the fresh status and count, and sends the agent the threads not sent before.
    fn send_review(
        &mut self,
        id: &str,
        status: &PrStatus,
        threads: ReviewThreads,
        head: Option<String>,
        reply: Reply<AddressReviewResult>,
    ) {
        let Some(record) = self.records.get_mut(id) else {
            return reply.send(Err(ManagerError::NoSuchSession(id.to_owned())));
        };
        let count = threads.unresolved.len() as u64;
        if let Some(pr) = record.prs.iter_mut().find(|pr| pr.number == status.number) {
            let mut view = view_of(status);
            view.unresolved_reviews = Some(count);
            pr.view = Some(view);
        }
        let fresh: Vec<ReviewThread> = threads
            .unresolved
            .into_iter()
            .filter(|thread| !record.reviews_sent.contains(&thread.key))
            .collect();
        self.emit_prs(id);
        let number = status.number.to_string();
        if fresh.is_empty() {
            let message = if count == 0 {
                format!("pull request #{number} has no unresolved review thread")
            } else {
                format!(
                    "the {} of pull request #{number} {} sent to the agent already",
                    crate::manager::count(
                        count as usize,
                        "unresolved review thread",
                        "unresolved review threads"
                    ),
                    if count == 1 { "was" } else { "were" }
                )
            };
            return reply.send(Err(refused(
                RefusalCode::NoUnresolvedReviews,
                &[&number, &count.to_string()],
                message,
            )));
        }
        let message =
            address_review_message(status.number, &status.url, &fresh, ADDRESS_REVIEW_BUDGET);
        let sent_keys: Vec<String> = fresh
            .iter()
            .take(message.threads)
            .map(|thread| thread.key.clone())
            .collect();
        // Marked before the message goes (a second request meanwhile sends none of them);
        // forgotten again if the agent did not take it.
        if let Some(record) = self.records.get_mut(id) {
            record.reviews_sent.extend(sent_keys.iter().cloned());
            let over = record.reviews_sent.len().saturating_sub(MAX_SENT_KEYS);
            record.reviews_sent.drain(..over);
        }
        self.mark_dirty();
        let result = AddressReviewResult {
            pr: status.number,
            threads: message.threads as u64,
            left_out: message.left_out as u64,
            review_bytes: message.review_bytes as u64,
            truncated: message.truncated,
            message: format!(
                "sent {} of #{} ({} bytes of review text) to the agent{}",
                crate::manager::count(message.threads, "review thread", "review threads"),
                status.number,
                message.review_bytes,
                if message.left_out > 0 {
                    format!("; {} did not fit", message.left_out)
                } else {
                    String::new()
                }
            ),
        };
        let (sent_tx, sent_rx) = Reply::channel();
        self.send_repair(id, message.text, head, sent_tx, move || result);
        let owned_id = id.to_owned();
        self.job(None, sent_rx, move |actor, sent| {
            let answer = sent.unwrap_or(Err(ManagerError::Stopped));
            if answer.is_err()
                && let Some(record) = actor.records.get_mut(&owned_id)
            {
                record.reviews_sent.retain(|key| !sent_keys.contains(key));
                actor.mark_dirty();
            }
            reply.send(answer);
        });
    }

    /// `auto_address_review`: as if asked. Only a message sent counts as one of the session's
    /// automatic attempts: when nothing went (every thread was sent already, or it failed) the
    /// attempt is given back; a failure is a warning.
    pub(super) fn auto_address_review(&mut self, id: String) {
        let (tx, rx) = Reply::channel();
        tracing::info!("session {id}: automatic address-review");
        self.address_review(&id, tx);
        self.job(None, rx, move |actor, result| {
            let Ok(Err(err)) = result else {
                return;
            };
            if let Some(record) = actor.records.get_mut(&id)
                && let Some(attempts) = record.recover_attempts.get_mut(AUTO_KEY)
            {
                *attempts = attempts.saturating_sub(1);
                actor.mark_dirty();
            }
            let sent_already = matches!(&err, ManagerError::Refused(refusal)
                if refusal.code == RefusalCode::NoUnresolvedReviews);
            if !sent_already {
                actor.emit(ManagerEvent::Warning {
                    message: format!("session {id}: automatic address-review: {err}"),
                });
            }
        });
    }
}
