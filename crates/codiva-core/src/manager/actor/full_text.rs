//! A message the session log cut, read back whole from the agent's transcript (a job: the
//! transcript can be large, and reading it never holds up other sessions).

use super::{Actor, refused};
use crate::manager::{ManagerError, Reply};
use crate::provider::RecordsError;
use codiva_protocol::error::RefusalCode;

impl Actor {
    pub(super) fn full_text(&mut self, id: &str, kept: String, total: usize, reply: Reply<String>) {
        let record = match self.record(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        let cwd = record.worktree.clone();
        let conversation = record.agent_session_id.clone();
        let agent = record.agent.clone();
        let provider = match self.provider_for(&agent) {
            Ok(provider) => provider,
            Err(err) => return reply.send(Err(err)),
        };
        let owned_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                let conversation = conversation?;
                let read = tokio::task::spawn_blocking(move || {
                    provider.whole_message(&cwd, &conversation, &kept, total)
                })
                .await;
                read.unwrap_or_else(|err| Some(Err(RecordsError::new(err))))
            },
            move |_, found| {
                let result = match found {
                    Some(Ok(Some(text))) => Ok(text),
                    Some(Ok(None)) => Err(not_there(&owned_id, "the transcript lacks it")),
                    Some(Err(err)) => Err(not_there(&owned_id, &err.to_string())),
                    None => Err(not_there(&owned_id, "no transcript is known for it")),
                };
                reply.send(result);
            },
        );
    }
}

fn not_there(id: &str, why: &str) -> ManagerError {
    refused(
        RefusalCode::MessageNotInTranscript,
        &[id, why],
        format!("the whole message is not in session {id}'s transcript: {why}"),
    )
}
