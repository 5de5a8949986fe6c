//! Repairing a session's pull request and committing its work from codiva:
//!
//! - `session/fixCi`: the failed checks of the session's own pull request (looked up now),
//!   the failed steps' log tail of their GitHub Actions runs (`gh run view --log-failed`,
//!   within [`FIX_CI_LOG_BUDGET`] bytes), sanitised and sent to the agent as one message with
//!   instructions (fix, commit, do not push).
//! - `session/commit`: with a message, every uncommitted file is staged by name and committed
//!   (`git::commit`); without one, the agent is asked to commit its work.
//! - `auto_recover`: the same fix-ci or sync, started by the pull request lookups.
//! - After a clean `session/sync` of a session that has an open pull request, the branch is
//!   pushed (`push_after_sync`); after a repair turn the agent was asked for (fix-ci, a sync
//!   whose conflict or uncommitted files the agent resolves) completes with new commits, they
//!   are pushed too (`repair_turn_settled`), and the session's log says so.
//!
//! The slow parts run as jobs on the session's lane; the message to the agent is an ordinary
//! `session/send`.

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::error::RefusalCode;
use codiva_protocol::github::PrState as WirePrState;
use codiva_protocol::log::NoteCode;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::methods::request;
use codiva_protocol::params::{CommitResult, FixCiResult, RecoverKind};
use codiva_protocol::params::{Done, SendParams, SessionParams};
use tokio::sync::oneshot;

use super::pulls::{no_open_pr, open_pr_now, view_of};
use super::{Actor, refused};
use crate::git::CommitOutcome;
use crate::github::draft::{clean_line, clean_text};
use crate::github::{Checks, FailedLog, Gh, GhError, PrStatus};
use crate::manager::{ManagerError, Reply};
use crate::review::fenced;
use crate::session::SessionCommand;

/// The most bytes of failed-step log sent to the agent, all runs together.
pub const FIX_CI_LOG_BUDGET: usize = 12 * 1024;
/// The most GitHub Actions runs whose logs are read (each costs 4 REST requests).
const FIX_CI_MAX_RUNS: usize = 3;
/// The longest commit message codiva passes to git.
const COMMIT_MESSAGE_CHARS: usize = 4000;

/// What `session/commit` without a message sends the agent.
pub const COMMIT_INSTRUCTION: &str = "Commit all of your uncommitted changes now (stage the files by name, never `git add -A` on files you did not create), with a message that says what changed. Then tell me you are done.";

/// A repair turn the agent was asked for, whose commits are pushed when it completes.
pub(super) struct RepairTurn {
    /// The branch's head when the agent was asked (`None`: it could not be read; then the
    /// branch is pushed whatever the head, and git says whether anything was new).
    head_before: Option<String>,
}

/// What a repair's reading step does, borrowing what its job holds ([`Actor::repair_job`]).
pub(super) type Reading<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, ManagerError>> + Send + 'a>>;

/// One run's log as the job read it.
struct RunLog {
    run: u64,
    log: Result<FailedLog, GhError>,
}

impl Actor {
    /// The worktree of a session that can be asked to repair or commit now: it has a
    /// worktree and its agent is not working.
    fn idle_worktree(&mut self, id: &str) -> Result<std::path::PathBuf, ManagerError> {
        Ok(self.settled_with_worktree(id)?.worktree.clone())
    }

    /// `session/fixCi`.
    pub(super) fn fix_ci(&mut self, id: &str, reply: Reply<FixCiResult>) {
        let worktree = match self.idle_worktree(id) {
            Ok(worktree) => worktree,
            Err(err) => return reply.send(Err(err)),
        };
        let own = self
            .records
            .get(id)
            .and_then(|record| record.prs.iter().find(|pr| pr.own).cloned());
        let Some(own) = own else {
            reply.send(Err(no_open_pr(id)));
            return;
        };
        self.repair_job(
            id,
            worktree,
            own.number,
            reply,
            failed_logs,
            Actor::send_fix_ci,
        );
    }

    /// What a repair message about session `id`'s own pull request `number` needs, read as a
    /// job on the session's lane: the pull request now (refused when it is not open), what
    /// `read` finds for it, and the branch's head before the repair; then `send` sends it.
    pub(super) fn repair_job<T: Send + 'static, R: Send + 'static>(
        &mut self,
        id: &str,
        worktree: std::path::PathBuf,
        number: u64,
        reply: Reply<R>,
        read: impl for<'a> FnOnce(&'a Gh, &'a std::path::Path, &'a PrStatus) -> Reading<'a, T>
        + Send
        + 'static,
        send: impl FnOnce(&mut Actor, &str, &PrStatus, T, Option<String>, Reply<R>) + Send + 'static,
    ) {
        let gh = self.options.github.gh.clone();
        let repo = self.repo.clone();
        let owned_id = id.to_owned();
        let job_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                let status = open_pr_now(&gh, &worktree, number, &job_id).await?;
                let found = read(&gh, &worktree, &status).await?;
                let head = repo.head_commit(&worktree).await.ok();
                Ok((status, found, head))
            },
            move |actor, found| match found {
                Ok((status, found, head)) => send(actor, &owned_id, &status, found, head, reply),
                Err(err) => reply.send(Err(err)),
            },
        );
    }

    /// Keeps the fresh status and sends the agent the failures.
    fn send_fix_ci(
        &mut self,
        id: &str,
        status: &PrStatus,
        logs: Vec<RunLog>,
        head: Option<String>,
        reply: Reply<FixCiResult>,
    ) {
        if let Some(record) = self.records.get_mut(id)
            && let Some(pr) = record.prs.iter_mut().find(|pr| pr.number == status.number)
        {
            let mut view = view_of(status);
            view.unresolved_reviews = pr.view.as_ref().and_then(|v| v.unresolved_reviews);
            pr.view = Some(view);
            self.emit_prs(id);
        }
        let text = fix_ci_message(status, &logs);
        let checks: Vec<String> = status
            .failed
            .iter()
            .map(|check| clean_line(&check.name, 200))
            .collect();
        let log_bytes: usize = logs
            .iter()
            .filter_map(|l| l.log.as_ref().ok())
            .map(|l| l.text.len())
            .sum();
        let log_truncated = logs
            .iter()
            .any(|l| l.log.as_ref().is_ok_and(|l| l.truncated));
        let result = FixCiResult {
            pr: status.number,
            message: format!(
                "sent {} of #{} and {log_bytes} bytes of log to the agent",
                crate::manager::count(checks.len(), "failed check", "failed checks"),
                status.number
            ),
            checks,
            log_bytes: u64::try_from(log_bytes).unwrap_or(u64::MAX),
            log_truncated,
        };
        self.send_repair(id, text, head, reply, move || result);
    }

    /// [`Actor::send_then`] for a repair turn: once the agent has the message, the turn's
    /// commits are pushed when it completes ([`Actor::repair_turn_settled`]).
    pub(super) fn send_repair<T: Send + 'static>(
        &mut self,
        id: &str,
        text: String,
        head_before: Option<String>,
        reply: Reply<T>,
        result: impl FnOnce() -> T + Send + 'static,
    ) {
        // Marked before the message goes, so that no status of its turn can come first.
        if let Some(record) = self.records.get_mut(id) {
            record.push_after_turn = Some(RepairTurn { head_before });
        }
        let (sent_tx, sent_rx) = Reply::channel();
        self.dispatch_typed::<request::SessionSend>(message(id, text), sent_tx);
        let owned_id = id.to_owned();
        self.job(None, sent_rx, move |actor, sent| {
            let answer = match sent {
                Ok(Ok(Done {})) => Ok(result()),
                Ok(Err(err)) => Err(err),
                Err(_) => Err(ManagerError::Stopped),
            };
            if answer.is_err()
                && let Some(record) = actor.records.get_mut(&owned_id)
            {
                record.push_after_turn = None;
            }
            reply.send(answer);
        });
    }

    /// A status of session `id`: when it ends a repair turn, a completed one's new commits are
    /// pushed (the pull request's checks are then looked up again) and the log says what
    /// happened; a turn that failed or was interrupted pushes nothing.
    pub(super) fn repair_turn_settled(&mut self, id: &str, completed: bool) {
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        if !record.status.is_settled() {
            return;
        }
        let Some(turn) = record.push_after_turn.take() else {
            return;
        };
        // Pushed as after a sync: only a completed turn, only a branch with its own open
        // pull request.
        if !completed || !has_own_open_pr(record) {
            return;
        }
        let target = PushTarget::of(&self.repo, record);
        self.push_job(
            id,
            target,
            turn.head_before,
            move |actor, owned_id, branch, pushed| {
                let (level, text, code) = match pushed {
                    Ok(None) => (
                        NoteLevel::Info,
                        "the repair turn made no new commit: nothing was pushed".to_owned(),
                        NoteCode::new(codiva_protocol::log::NoteName::RepairNotPushed, &[]),
                    ),
                    Ok(Some(remote)) => (
                        NoteLevel::Info,
                        format!("pushed the repair's commits of {branch} to {remote}"),
                        NoteCode::new(
                            codiva_protocol::log::NoteName::RepairPushed,
                            &[branch, &remote],
                        ),
                    ),
                    Err(err) => {
                        let detail = clean_line(&err.to_string(), 300);
                        (
                            NoteLevel::Warning,
                            format!("pushing the repair's commits of {branch} failed: {detail}"),
                            NoteCode::new(
                                codiva_protocol::log::NoteName::RepairPushFailed,
                                &[branch, &detail],
                            ),
                        )
                    }
                };
                tracing::info!("session {owned_id}: {text}");
                if let Some(commands) = actor
                    .records
                    .get(owned_id)
                    .and_then(|record| record.commands.as_ref())
                {
                    let _ = commands.send(SessionCommand::Note {
                        level,
                        text,
                        code: Some(code),
                    });
                }
            },
        );
    }

    /// `session/commit`: with a message codiva commits; without one the agent is asked to.
    pub(super) fn commit(&mut self, id: &str, message: Option<String>, reply: Reply<CommitResult>) {
        let worktree = match self.idle_worktree(id) {
            Ok(worktree) => worktree,
            Err(err) => return reply.send(Err(err)),
        };
        let message = match message {
            None => None,
            Some(text) => match clean_text(&text, COMMIT_MESSAGE_CHARS) {
                clean if clean.is_empty() => {
                    reply.send(Err(refused(
                        RefusalCode::EmptyInstruction,
                        &[],
                        "the commit message is empty".to_owned(),
                    )));
                    return;
                }
                clean => Some(clean),
            },
        };
        let repo = self.repo.clone();
        let git_lock = self.git_lock.clone();
        let owned_id = id.to_owned();
        let job_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                let nothing = || {
                    refused(
                        RefusalCode::NothingToCommit,
                        &[&job_id],
                        format!("session {job_id} has no uncommitted changes"),
                    )
                };
                let Some(message) = message else {
                    let files = repo.uncommitted_files(&worktree).await?;
                    if files.is_empty() {
                        return Err(nothing());
                    }
                    return Ok((None, files.len()));
                };
                let _guard = git_lock.lock().await;
                match repo.commit_all(&worktree, &message).await {
                    Ok(CommitOutcome::Committed { commit, files }) => Ok((Some(commit), files)),
                    Ok(CommitOutcome::NothingToCommit) => Err(nothing()),
                    Err(err) => {
                        let detail = err.to_string();
                        Err(refused(
                            RefusalCode::CommitFailed,
                            &[&detail],
                            format!("committing failed: {detail}"),
                        ))
                    }
                }
            },
            move |actor, outcome| match outcome {
                Ok((Some(commit), files)) => {
                    let short: String = commit.chars().take(12).collect();
                    reply.send(Ok(CommitResult {
                        message: format!(
                            "committed {} as {short}",
                            crate::manager::count(files, "file", "files")
                        ),
                        commit: Some(commit),
                        files: u64::try_from(files).unwrap_or(u64::MAX),
                        asked_agent: false,
                    }));
                    actor.emit_info(&owned_id);
                }
                Ok((None, files)) => {
                    let result = CommitResult {
                        commit: None,
                        files: u64::try_from(files).unwrap_or(u64::MAX),
                        asked_agent: true,
                        message: format!(
                            "asked the agent to commit {}",
                            crate::manager::count(files, "uncommitted file", "uncommitted files")
                        ),
                    };
                    actor.send_then(&owned_id, COMMIT_INSTRUCTION.to_owned(), reply, move || {
                        result
                    });
                }
                Err(err) => reply.send(Err(err)),
            },
        );
    }

    /// Sends `text` to the session's agent as the user's message, then answers `reply` with
    /// `result` once it was taken (or with why it was not).
    fn send_then<T: Send + 'static>(
        &mut self,
        id: &str,
        text: String,
        reply: Reply<T>,
        result: impl FnOnce() -> T + Send + 'static,
    ) {
        let (sent_tx, sent_rx) = Reply::channel();
        self.dispatch_typed::<request::SessionSend>(message(id, text), sent_tx);
        tokio::spawn(async move {
            let answer = match sent_rx.await {
                Ok(Ok(Done {})) => Ok(result()),
                Ok(Err(err)) => Err(err),
                Err(_) => Err(ManagerError::Stopped),
            };
            reply.send(answer);
        });
    }

    /// After a clean sync: pushes the branch when the session has an open pull request of
    /// its own (the sync's answer says so, or why the push failed); otherwise answers
    /// `message` as it is.
    pub(super) fn push_after_sync(&mut self, id: &str, message: String, reply: Reply<String>) {
        let Some(record) = self.records.get(id) else {
            reply.send(Ok(message));
            return;
        };
        if !has_own_open_pr(record) {
            reply.send(Ok(message));
            return;
        }
        let target = PushTarget::of(&self.repo, record);
        self.push_job(id, target, None, move |_, _, branch, pushed| match pushed {
            Ok(Some(remote)) => reply.send(Ok(format!("{message}; pushed to {remote}"))),
            Ok(None) => reply.send(Ok(message)),
            Err(err) => {
                let detail = err.to_string();
                reply.send(Err(refused(
                    RefusalCode::PushFailed,
                    &[branch, "", &detail],
                    format!("{message}, but pushing {branch} failed: {detail}"),
                )));
            }
        });
    }

    /// Pushes `target` as a job on session `id`'s lane — with `head_before`, only when the
    /// branch's head has moved from it (else `Ok(None)`: nothing new) — and marks the session
    /// pushed; `then` hears the remote pushed to, with the session's id and branch.
    fn push_job(
        &mut self,
        id: &str,
        target: PushTarget,
        head_before: Option<String>,
        then: impl FnOnce(&mut Actor, &str, &str, Result<Option<String>, PushError>) + Send + 'static,
    ) {
        let branch = target.branch.clone();
        let owned_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                if let Some(before) = head_before
                    && target.repo.head_commit(&target.worktree).await.ok() == Some(before)
                {
                    return Ok(None);
                }
                target.push().await.map(Some)
            },
            move |actor, pushed| {
                if let Ok(Some(_)) = &pushed {
                    actor.pushed(&owned_id);
                }
                then(actor, &owned_id, &branch, pushed);
            },
        );
    }
}

impl Actor {
    /// Session `id`'s branch was pushed: its pull request is looked for, and looked up again
    /// now (new commits: new checks, new mergeability).
    fn pushed(&mut self, id: &str) {
        if let Some(record) = self.records.get_mut(id) {
            record.pushed = true;
            record.watch.last_checked = None;
        }
    }
}

/// The session has an open pull request of its own (or one whose state is not known yet).
fn has_own_open_pr(record: &super::record::Record) -> bool {
    record.prs.iter().any(|pr| {
        pr.own
            && pr
                .view
                .as_ref()
                .is_none_or(|view| view.state == WirePrState::Open)
    })
}

/// Why the session's branch could not be pushed to the remote of its base.
#[derive(Debug, thiserror::Error)]
enum PushError {
    /// The base branch has no remote.
    #[error("{base} has no remote to push to")]
    NoRemote { base: String },
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
}

/// A session's branch to push to the remote of its base, as a job takes it.
struct PushTarget {
    repo: crate::git::Repo,
    worktree: std::path::PathBuf,
    base: String,
    branch: String,
}

impl PushTarget {
    fn of(repo: &crate::git::Repo, record: &super::record::Record) -> PushTarget {
        PushTarget {
            repo: repo.clone(),
            worktree: record.worktree.clone(),
            base: record.base.clone(),
            branch: record.branch.clone(),
        }
    }

    /// Pushes the branch from the worktree to the remote of the base (never forced); the
    /// remote's name, or why it could not be pushed.
    async fn push(&self) -> Result<String, PushError> {
        let remote =
            self.repo
                .base_remote(&self.base)
                .await?
                .ok_or_else(|| PushError::NoRemote {
                    base: self.base.clone(),
                })?;
        self.repo
            .push_branch(&self.worktree, &remote, &self.branch)
            .await?;
        Ok(remote)
    }
}

impl Actor {
    /// `auto_recover`: fix-ci or sync, as if asked; a failure is a warning.
    pub(super) fn auto_recover(&mut self, id: String, kind: RecoverKind) {
        let (tx, rx) = oneshot::channel::<Result<String, ManagerError>>();
        match kind {
            RecoverKind::FixCi => {
                let (fix_tx, fix_rx) = Reply::channel();
                self.dispatch_typed::<request::SessionFixCi>(session(&id), fix_tx);
                tokio::spawn(async move {
                    let result = fix_rx.await.unwrap_or(Err(ManagerError::Stopped));
                    let _ = tx.send(result.map(|sent| sent.message));
                });
            }
            RecoverKind::Sync => {
                let (sync_tx, sync_rx) = Reply::channel();
                self.dispatch_typed::<request::SessionSync>(session(&id), sync_tx);
                tokio::spawn(async move {
                    let result = sync_rx.await.unwrap_or(Err(ManagerError::Stopped));
                    let _ = tx.send(result.map(|synced| synced.message));
                });
            }
        }
        tracing::info!("session {id}: automatic {}", kind_key(kind));
        self.job(None, rx, move |actor, result| {
            if let Ok(Err(err)) = result {
                actor.emit(ManagerEvent::Warning {
                    message: format!("session {id}: automatic {}: {err}", kind_key(kind)),
                });
            }
        });
    }
}

/// How a kind of repair is named in the state file and in messages.
pub(super) fn kind_key(kind: RecoverKind) -> &'static str {
    match kind {
        RecoverKind::FixCi => "fix_ci",
        RecoverKind::Sync => "sync",
    }
}

/// The failed-step logs of the failed checks' GitHub Actions runs (at most
/// [`FIX_CI_MAX_RUNS`], [`FIX_CI_LOG_BUDGET`] bytes in all); refused when no check failed.
fn failed_logs<'a>(
    gh: &'a Gh,
    worktree: &'a std::path::Path,
    status: &'a PrStatus,
) -> Reading<'a, Vec<RunLog>> {
    Box::pin(async move {
        if status.checks != Checks::Failed {
            let number = status.number.to_string();
            let checks = checks_word(status.checks);
            return Err(refused(
                RefusalCode::NothingFailing,
                &[&number, checks],
                format!("pull request #{number} has no failed check (checks: {checks})"),
            ));
        }
        let mut runs: Vec<u64> = Vec::new();
        for run in status.failed.iter().filter_map(|c| c.run_id()) {
            if !runs.contains(&run) && runs.len() < FIX_CI_MAX_RUNS {
                runs.push(run);
            }
        }
        let budget = FIX_CI_LOG_BUDGET / runs.len().max(1);
        let mut logs = Vec::new();
        for run in runs {
            let log = gh.failed_log(worktree, run, budget).await;
            logs.push(RunLog { run, log });
        }
        Ok(logs)
    })
}

fn checks_word(checks: Checks) -> &'static str {
    match checks {
        Checks::None => "none",
        Checks::Pending => "pending",
        Checks::Failed => "failed",
        Checks::Passed => "passed",
    }
}

/// The message to the agent: the failed checks, each run's failed log tail (sanitised, in a
/// fence longer than any backtick run inside it), and what to do.
fn fix_ci_message(status: &PrStatus, logs: &[RunLog]) -> String {
    let mut text = format!(
        "The CI checks of pull request #{} ({}) failed:\n",
        status.number,
        clean_line(&status.url, 500)
    );
    for check in &status.failed {
        let name = clean_line(&check.name, 200);
        let url = clean_line(&check.url, 500);
        if url.is_empty() {
            text.push_str(&format!("- {name}\n"));
        } else {
            text.push_str(&format!("- {name}: {url}\n"));
        }
    }
    for RunLog { run, log } in logs {
        match log {
            Ok(log) => {
                let body = clean_text(&log.text, FIX_CI_LOG_BUDGET);
                let cut = if log.truncated {
                    ", its last lines"
                } else {
                    ""
                };
                text.push_str(&format!(
                    "\nThe failed steps' log of run {run} (`gh run view {run} --log-failed`{cut}):\n{}",
                    fenced("text", &body)
                ));
            }
            Err(err) => text.push_str(&format!(
                "\nThe log of run {run} could not be read: {}\n",
                clean_line(&err.to_string(), 300)
            )),
        }
    }
    text.push_str(
        "\nFind the cause and fix it; run the failing check locally if you can. Commit the fix \
         with a message that says what changed. Do not push: the branch is pushed for you.",
    );
    text
}

/// The params of a plain message to the session's agent.
fn message(id: &str, text: String) -> SendParams {
    SendParams {
        session_id: id.to_owned(),
        text,
        images: Vec::new(),
    }
}

fn session(id: &str) -> SessionParams {
    SessionParams {
        session_id: id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::{FailedCheck, Mergeable, PrState};

    #[test]
    fn the_message_names_the_checks_and_fences_the_sanitised_log() {
        let status = PrStatus {
            number: 7,
            url: "https://github.com/o/r/pull/7".into(),
            head: "codiva/x".into(),
            state: PrState::Open,
            draft: true,
            checks: Checks::Failed,
            failed: vec![FailedCheck {
                name: "build\u{7}".into(),
                url: "https://github.com/o/r/actions/runs/42/job/1".into(),
            }],
            mergeable: Mergeable::Mergeable,
        };
        let logs = [
            RunLog {
                run: 42,
                log: Ok(FailedLog {
                    text: "build\tRun\t```boom``` \u{1b}]0;title\u{7}failed\n".into(),
                    truncated: true,
                }),
            },
            RunLog {
                run: 43,
                log: Err(GhError::Network {
                    detail: "HTTP 500".into(),
                }),
            },
        ];
        let text = fix_ci_message(&status, &logs);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("- build: https://github.com/o/r/actions/runs/42/job/1"));
        assert!(text.contains("````text\nbuild\tRun\t```boom```"), "{text}");
        assert!(text.contains("its last lines"));
        assert!(
            text.contains("run 43 could not be read: GitHub could not be reached: HTTP 500"),
            "{text}"
        );
        assert!(text.ends_with("the branch is pushed for you."));
    }
}
