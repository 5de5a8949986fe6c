//! The manager calls of `/fix-ci`, `/commit`, `/recover` and the session view's uncommitted
//! files (`app/repair.rs`).

use codiva_client::{Client, ClientError};
use codiva_protocol::methods::request;
use codiva_protocol::params::{CommitParams, RecoverParams, SessionParams};

use crate::app::{Done, RepairDone, RepairEffect};
use crate::repair_text::{R, rf};

/// Runs one repair call; its answer (a refusal worded for the user).
pub(super) async fn run(manager: &Client, effect: RepairEffect) -> Done {
    let error = |err: ClientError| {
        Done::Error(crate::i18n_views::with_git_fix(
            &crate::i18n::manager_error(&err),
        ))
    };
    let session = |id: &str| SessionParams {
        session_id: id.to_owned(),
    };
    match effect {
        RepairEffect::FixCi { id } => {
            match manager.call::<request::SessionFixCi>(session(&id)).await {
                Ok(sent) => Done::Info(rf(
                    R::FixCiSent,
                    &[
                        &sent.checks.len().to_string(),
                        &sent.pr.to_string(),
                        &sent.log_bytes.to_string(),
                    ],
                )),
                Err(err) => error(err),
            }
        }
        RepairEffect::Commit { id, message } => {
            let params = CommitParams {
                session_id: id.clone(),
                message,
            };
            match manager.call::<request::SessionCommit>(params).await {
                Ok(done) => {
                    let files = done.files.to_string();
                    let text = match &done.commit {
                        Some(commit) => {
                            let short: String = commit.chars().take(8).collect();
                            rf(R::Committed, &[&files, &short])
                        }
                        None => rf(R::AskedCommit, &[&files]),
                    };
                    Done::Repair(RepairDone::Committed { id, text })
                }
                Err(err) => error(err),
            }
        }
        RepairEffect::RecoverPlan | RepairEffect::Recover => {
            let dry_run = effect == RepairEffect::RecoverPlan;
            match manager
                .call::<request::SessionRecover>(RecoverParams { dry_run })
                .await
            {
                Ok(result) if dry_run => Done::Repair(RepairDone::RecoverPlan(result)),
                Ok(result) => Done::Repair(RepairDone::Recovered(result)),
                Err(err) => error(err),
            }
        }
        RepairEffect::Uncommitted { id } => {
            match manager.call::<request::SessionDiff>(session(&id)).await {
                Ok(stat) => Done::Repair(RepairDone::Uncommitted {
                    id,
                    files: stat.uncommitted.into_iter().map(|e| e.path).collect(),
                }),
                // A session without a worktree has none; nothing to show.
                Err(_) => Done::Repair(RepairDone::Uncommitted {
                    id,
                    files: Vec::new(),
                }),
            }
        }
    }
}
