//! Finishing work: diff (its stat and its text), merge and sync, each a job on the session's
//! lane, and renaming (at once). A merge is two
//! jobs: the git merge (under the git lock), then, once merged, stopping the agent and
//! removing the worktree; the actor only applies what they found.

use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::{SessionInfo, SessionPhase};

use super::{Actor, refused, still_working, title_of};
use crate::git::{self, GitError, MergeOutcome, SyncOutcome};
use crate::manager::{ManagerError, Reply};

impl Actor {
    /// The worktree and base of a session that has a worktree (active, or stopped by a
    /// conflict); refused otherwise.
    pub(super) fn worktree_and_base(
        &mut self,
        id: &str,
    ) -> Result<(std::path::PathBuf, String), ManagerError> {
        let record = self.with_worktree(id)?;
        Ok((record.worktree.clone(), record.base.clone()))
    }

    pub(super) fn diff(&mut self, id: &str, reply: Reply<codiva_protocol::manager::DiffStat>) {
        self.read_worktree(id, reply, |repo, worktree, base| async move {
            repo.diff_stat(&worktree, &base).await
        });
    }

    /// The session's whole diff against its base (bounded: `git::DIFF_TEXT_CAP`).
    pub(super) fn diff_text(&mut self, id: &str, reply: Reply<codiva_protocol::manager::DiffText>) {
        self.read_worktree(id, reply, |repo, worktree, base| async move {
            repo.diff_text(&worktree, &base, git::DIFF_TEXT_CAP).await
        });
    }

    /// Answers `reply` with what `read` finds in the worktree of session `id` (one that has
    /// a worktree) against its base, as a job on the session's lane.
    fn read_worktree<T: Send + 'static, F>(
        &mut self,
        id: &str,
        reply: Reply<T>,
        read: impl FnOnce(git::Repo, std::path::PathBuf, String) -> F,
    ) where
        F: std::future::Future<Output = Result<T, GitError>> + Send + 'static,
    {
        let (worktree, base) = match self.worktree_and_base(id) {
            Ok(found) => found,
            Err(err) => return reply.send(Err(err)),
        };
        self.job(
            Some(id),
            read(self.repo.clone(), worktree, base),
            move |_, result| reply.send(result.map_err(ManagerError::from)),
        );
    }

    /// A new title (sanitised; an empty one goes back to the prompt's first line).
    pub(super) fn rename(&mut self, id: &str, title: &str) -> Result<SessionInfo, ManagerError> {
        let record = self.record(id)?;
        (record.title, record.title_origin) = match codiva_protocol::text::sanitize_title(title) {
            Some(title) => (title, crate::title::TitleOrigin::User),
            None => (title_of(&record.prompt), crate::title::TitleOrigin::Prompt),
        };
        let info = record.info();
        self.emit_info(id);
        Ok(info)
    }

    pub(super) fn merge(&mut self, id: &str, reply: Reply<SessionInfo>) {
        let record = match self.record(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        if !record.has_worktree() {
            reply.send(Err(refused(
                RefusalCode::CannotMergeNow,
                &[id],
                format!("session {id} cannot be merged now"),
            )));
            return;
        }
        if !record.status.is_settled() {
            reply.send(Err(still_working(id)));
            return;
        }
        let (branch, base) = (record.branch.clone(), record.base.clone());
        let worktree = record.worktree.clone();
        let owned_id = id.to_owned();
        self.git_job(
            id,
            None,
            move |repo| async move {
                let outcome = repo.merge(&branch, &base).await;
                // Nothing to merge: the refusal offers `/commit` when work is uncommitted.
                let uncommitted = match &outcome {
                    Ok(MergeOutcome::UpToDate) => repo
                        .uncommitted_files(&worktree)
                        .await
                        .map_or(0, |files| files.len()),
                    _ => 0,
                };
                (outcome, uncommitted)
            },
            move |actor, (outcome, uncommitted)| {
                actor.merged(&owned_id, outcome, uncommitted, reply);
            },
        );
    }

    fn merged(
        &mut self,
        id: &str,
        outcome: Result<MergeOutcome, GitError>,
        uncommitted: usize,
        reply: Reply<SessionInfo>,
    ) {
        let result = match self.record(id) {
            Ok(record) => outcome
                .map(|outcome| (outcome, record.clone_names()))
                .map_err(ManagerError::from),
            Err(err) => Err(err),
        };
        let (outcome, (branch, base, worktree, slug)) = match result {
            Ok(found) => found,
            Err(err) => return reply.send(Err(err)),
        };
        let refusal = match outcome {
            MergeOutcome::Merged { commit } => {
                // The agent stops and the worktree goes, in a job: an agent slow to stop
                // delays only this session.
                let forwarder = self.take_task(id);
                let owned_id = id.to_owned();
                self.git_job(
                    id,
                    forwarder,
                    move |repo| async move {
                        repo.remove_after_merge(&worktree, &branch, &base, &slug)
                            .await
                    },
                    move |actor, cleanup| {
                        let result = actor.record(&owned_id).map(|record| {
                            record.phase = SessionPhase::Merged { commit };
                            record.track_activity();
                            // Its agent is stopped and a merged session is not saved: its MCP
                            // config file goes now.
                            record.extras.remove_mcp_config();
                            if let Err(err) = cleanup {
                                record.detail =
                                    Some(format!("merged; the worktree was not removed: {err}"));
                                record.detail_code = None;
                            }
                            record.info()
                        });
                        if result.is_ok() {
                            actor.emit_info(&owned_id);
                        }
                        reply.send(result);
                    },
                );
                return;
            }
            MergeOutcome::Conflict { files } => {
                if let Ok(record) = self.record(id) {
                    record.phase = SessionPhase::Conflict {
                        files: files.clone(),
                    };
                }
                self.emit_info(id);
                let files = files.join(", ");
                refused(
                    RefusalCode::MergeConflict,
                    &[&branch, &base, &files],
                    format!(
                        "merging {branch} into {base} conflicts in {files}; the merge was aborted and {base} is unchanged"
                    ),
                )
            }
            MergeOutcome::UpToDate if uncommitted > 0 => refused(
                RefusalCode::NothingToMerge,
                &[&branch, &base, &uncommitted.to_string()],
                format!(
                    "nothing to merge: {branch} has no commits that {base} lacks, and {}",
                    commit_first(uncommitted)
                ),
            ),
            MergeOutcome::UpToDate => refused(
                RefusalCode::NothingToMerge,
                &[&branch, &base],
                format!(
                    "nothing to merge: {branch} has no commits that {base} lacks (uncommitted changes stay in the session's worktree)"
                ),
            ),
            MergeOutcome::Refused { reason } => {
                refused(RefusalCode::MergeRefused, &[&reason], reason.clone())
            }
        };
        reply.send(Err(refusal));
    }

    pub(super) fn sync(&mut self, id: &str, reply: Reply<String>) {
        let record = match self.with_worktree(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        let (worktree, base) = (record.worktree.clone(), record.base.clone());
        let busy = !record.status.is_settled();
        let repo = self.repo.clone();
        let owned_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                let outcome = repo.sync(&worktree, &base).await;
                let head = repo.head_commit(&worktree).await.ok();
                (outcome, base, head)
            },
            move |actor, (outcome, base, head)| {
                actor.synced(&owned_id, &base, busy, outcome, head, reply);
            },
        );
    }

    fn synced(
        &mut self,
        id: &str,
        base: &str,
        busy: bool,
        outcome: Result<SyncOutcome, GitError>,
        head: Option<String>,
        reply: Reply<String>,
    ) {
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(err) => return reply.send(Err(err.into())),
        };
        let message = match outcome {
            SyncOutcome::UpToDate => {
                // Pushed all the same: the agent may have committed a merge it resolved.
                self.push_after_sync(id, format!("already up to date with {base}"), reply);
                return;
            }
            SyncOutcome::Merged { .. } => {
                if let Ok(record) = self.record(id)
                    && matches!(record.phase, SessionPhase::Conflict { .. })
                {
                    record.phase = SessionPhase::Active;
                }
                self.emit_info(id);
                self.push_after_sync(id, format!("merged {base} into the session"), reply);
                return;
            }
            SyncOutcome::Conflict { files } => format!(
                "I merged {base} into this branch and it conflicts in: {}. The conflict markers are in the files. Resolve the conflicts, then commit the merge.",
                files.join(", ")
            ),
            SyncOutcome::Dirty { files } => format!(
                "I want to merge {base} into this branch, but these files have uncommitted changes: {}. Commit your work (stage the files by name), then tell me you are done.",
                files.join(", ")
            ),
        };
        if busy {
            reply.send(Err(refused(
                RefusalCode::SyncBusy,
                &[id],
                format!(
                    "session {id} is working; sync needs the agent's help, try again when it is idle"
                ),
            )));
            return;
        }
        // The agent's merge commit (or its commit of the files in the way) is pushed when
        // its turn completes.
        let answer = format!("asked the agent: {message}");
        self.send_repair(id, message, head, reply, move || answer);
    }
}

/// A refusal's advice when `uncommitted` files hold the work that is not in a commit yet.
pub(super) fn commit_first(uncommitted: usize) -> String {
    format!(
        "{} uncommitted: commit {} first (/commit, session/commit)",
        crate::manager::count(uncommitted, "file is", "files are"),
        if uncommitted == 1 { "it" } else { "them" }
    )
}

impl super::record::Record {
    /// Branch, base, worktree and slug, for a job.
    fn clone_names(&self) -> (String, String, std::path::PathBuf, String) {
        (
            self.branch.clone(),
            self.base.clone(),
            self.worktree.clone(),
            self.slug.clone(),
        )
    }
}
