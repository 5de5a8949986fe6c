//! A session's review from the actor's side: `review/add`, `review/edit` and `review/remove`
//! change the comments kept in the session's record (each change reaches every client with the
//! session's row and is saved), and `review/send` sends them all to the agent as one message
//! (`crate::review::message`) and forgets them, the state file written at once so that a
//! restart cannot bring back — and send again — what was sent.

use codiva_protocol::UserInput;
use codiva_protocol::error::RefusalCode;
use codiva_protocol::review::{
    MAX_COMMENTS, ReviewAddParams, ReviewEditParams, ReviewRemoveParams, ReviewResult,
    ReviewSendResult,
};

use super::{Actor, refused, unix_ms};
use crate::manager::{ManagerError, Reply};
use crate::provider::InvalidInput;
use crate::review::{self, CommentError};

/// The longest `review/send` waits for the state file to be written before it answers.
const SAVE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn invalid(error: CommentError) -> ManagerError {
    let field = match error {
        CommentError::NoPath => "anchor.path",
        CommentError::BadRange => "anchor.start_line",
        CommentError::EmptyBody | CommentError::BodyTooLong(_) | CommentError::Full => "body",
    };
    InvalidInput::new(field, error.to_string()).into()
}

fn no_such_comment(id: &str, comment: &str) -> ManagerError {
    refused(
        RefusalCode::NoSuchReviewComment,
        &[id, comment],
        format!("session {id} has no review comment {comment}"),
    )
}

impl Actor {
    pub(super) fn review_add(&mut self, p: ReviewAddParams) -> Result<ReviewResult, ManagerError> {
        let id = p.session_id.clone();
        let record = self.with_worktree(&id)?;
        if record.review.len() >= MAX_COMMENTS {
            return Err(refused(
                RefusalCode::ReviewFull,
                &[&id, &MAX_COMMENTS.to_string()],
                format!(
                    "session {id} holds {MAX_COMMENTS} review comments already; send them first"
                ),
            ));
        }
        let number = record.review_next.max(1);
        let comment = review::new_comment(format!("c{number}"), p, unix_ms()).map_err(invalid)?;
        record.review_next = number + 1;
        record.review.push(comment);
        let comments = record.review.clone();
        self.emit_info(&id);
        Ok(ReviewResult { comments })
    }

    pub(super) fn review_edit(
        &mut self,
        p: ReviewEditParams,
    ) -> Result<ReviewResult, ManagerError> {
        let body = review::checked_body(&p.body).map_err(invalid)?;
        let record = self.record(&p.session_id)?;
        let Some(comment) = record.review.iter_mut().find(|c| c.id == p.comment_id) else {
            return Err(no_such_comment(&p.session_id, &p.comment_id));
        };
        comment.body = body;
        let comments = record.review.clone();
        self.emit_info(&p.session_id);
        Ok(ReviewResult { comments })
    }

    pub(super) fn review_remove(
        &mut self,
        p: ReviewRemoveParams,
    ) -> Result<ReviewResult, ManagerError> {
        let record = self.record(&p.session_id)?;
        let before = record.review.len();
        record.review.retain(|c| c.id != p.comment_id);
        if record.review.len() == before {
            return Err(no_such_comment(&p.session_id, &p.comment_id));
        }
        let comments = record.review.clone();
        self.emit_info(&p.session_id);
        Ok(ReviewResult { comments })
    }

    /// Sends every comment as one message; on success they are gone from the session and the
    /// answer comes once the state file without them is written (or after a bounded wait).
    pub(super) fn review_send(&mut self, id: &str, reply: Reply<ReviewSendResult>) {
        let record = match self.record(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        if record.review.is_empty() {
            return reply.send(Err(refused(
                RefusalCode::NoReviewComments,
                &[id],
                format!("session {id} has no review comments to send"),
            )));
        }
        let (text, cut_bytes) =
            review::message(&record.review, &record.base, review::MESSAGE_BUDGET);
        if let Err(err) = self.send(id, UserInput::text(text)) {
            return reply.send(Err(err));
        }
        let sent = match self.record(id) {
            Ok(record) => std::mem::take(&mut record.review).len(),
            Err(err) => return reply.send(Err(err)),
        };
        self.emit_info(id);
        let (written, saved) = std::sync::mpsc::channel();
        self.save(Some(written));
        tokio::task::spawn_blocking(move || {
            // A failed write warns and retries by itself; the answer does not wait for that.
            let _ = saved.recv_timeout(SAVE_WAIT);
            reply.send(Ok(ReviewSendResult { sent, cut_bytes }));
        });
    }
}
