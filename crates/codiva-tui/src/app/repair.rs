//! Repairing pull requests and committing from the TUI: `/fix-ci` (and `F` in the list) sends
//! the session's failed checks and their log to its agent; `/commit <message>` commits the
//! worktree's files, `/commit` alone asks the agent to; `/recover` first asks the manager which
//! sessions are stuck (a dry run), shows the counts in a y/n, then repairs them one by one and
//! says how many succeeded. The session view shows its uncommitted files (a short list, a
//! count when long), looked up when the view opens, when the agent settles, and after a commit.

use codiva_protocol::ClientRequest;
use codiva_protocol::manager::DiffStat;
use codiva_protocol::params::{
    CommitParams, CommitResult, FixCiResult, RecoverKind, RecoverParams, RecoverResult,
};
use codiva_protocol::session::Status;
use ratatui::text::{Line, Span};

use super::requests::session_params;
use super::{App, Confirm, Effect, Purpose, View};
use crate::i18n::{RepairText, t, tf};
use crate::theme;

/// Files named in the session view's uncommitted line, at most.
const FILES_SHOWN: usize = 4;
/// Sessions named in the recover confirmation, at most.
const SESSIONS_SHOWN: usize = 6;

impl App {
    /// `/fix-ci`, `F` in the list.
    pub(super) fn fix_ci_current(&mut self) -> Vec<Effect> {
        self.current_id()
            .map(|id| {
                vec![Effect::request(ClientRequest::SessionFixCi(
                    session_params(id),
                ))]
            })
            .unwrap_or_default()
    }

    /// `/commit [message]`.
    pub(super) fn commit_current(&mut self, argument: &str) -> Vec<Effect> {
        let message = (!argument.is_empty()).then(|| argument.to_owned());
        self.current_id()
            .map(|id| vec![commit(id, message)])
            .unwrap_or_default()
    }

    /// A session's info arrived: the view of a session whose agent just settled looks its
    /// uncommitted files up again.
    pub(super) fn after_session_update(&mut self, id: &str, was: Option<Status>) -> Vec<Effect> {
        let now = self.sessions.iter().find(|s| s.id == id).map(|s| s.status);
        let settled = now.is_some_and(Status::is_settled) && !was.is_some_and(Status::is_settled);
        if settled && self.view == View::Detail(id.to_owned()) {
            return vec![uncommitted(id)];
        }
        Vec::new()
    }

    /// `session/fixCi` was sent: what went to the agent.
    pub(super) fn fix_ci_sent(&mut self, sent: &FixCiResult) {
        let text = tf(
            RepairText::FixCiSent,
            &[
                &sent.checks.len().to_string(),
                &sent.pr.to_string(),
                &sent.log_bytes.to_string(),
            ],
        );
        self.set_notice(text, false);
    }

    /// A commit was made or asked for: say so, then look the files up again.
    pub(super) fn committed(&mut self, id: &str, done: &CommitResult) -> Vec<Effect> {
        let files = done.files.to_string();
        let text = match &done.commit {
            Some(commit) => {
                let short: String = commit.chars().take(8).collect();
                tf(RepairText::Committed, &[&files, &short])
            }
            None => tf(RepairText::AskedCommit, &[&files]),
        };
        self.set_notice(text, false);
        vec![uncommitted(id)]
    }

    /// The session's uncommitted files arrived (`None`: a session without a worktree has
    /// none; nothing to show).
    pub(super) fn uncommitted_arrived(&mut self, id: &str, stat: Option<DiffStat>) {
        let files = stat
            .map(|stat| stat.uncommitted.into_iter().map(|e| e.path).collect())
            .unwrap_or_default();
        self.pane(id).uncommitted = Some(files);
    }

    /// `/recover` ran: how many succeeded, and which failed and why.
    pub(super) fn recovered(&mut self, result: &RecoverResult) {
        let total = result.items.len().to_string();
        let mut text = tf(
            RepairText::Recovered,
            &[&result.succeeded.to_string(), &total],
        );
        let failed: Vec<String> = result
            .items
            .iter()
            .filter(|item| item.ok == Some(false))
            .map(|item| {
                let message = crate::dialog::sanitize(&item.message);
                format!("{} ({message})", item.session_id)
            })
            .collect();
        if !failed.is_empty() {
            text.push_str(" · ");
            text.push_str(&tf(RepairText::RecoverFailed, &[&failed.join("; ")]));
        }
        self.set_notice(text, result.failed > 0);
    }

    /// The y/n of `/recover`: how many sessions, of which kind, and which.
    pub(super) fn recover_plan_arrived(&mut self, plan: &RecoverResult) {
        if plan.items.is_empty() {
            self.set_notice(t(RepairText::NothingStuck), false);
            return;
        }
        let count = |kind| plan.items.iter().filter(|i| i.kind == kind).count();
        let fix = count(RecoverKind::FixCi).to_string();
        let sync = count(RecoverKind::Sync).to_string();
        let mut names: Vec<String> = plan
            .items
            .iter()
            .take(SESSIONS_SHOWN)
            .map(|item| {
                let kind = match item.kind {
                    RecoverKind::FixCi => "fix-ci",
                    RecoverKind::Sync => "sync",
                };
                format!("{} ({kind})", item.session_id)
            })
            .collect();
        if plan.items.len() > SESSIONS_SHOWN {
            names.push(format!("+{}", plan.items.len() - SESSIONS_SHOWN));
        }
        self.confirm = Some(Confirm {
            text: vec![
                tf(RepairText::RecoverTitle, &[&plan.items.len().to_string()]),
                tf(RepairText::RecoverCounts, &[&fix, &sync]),
                names.join(", "),
            ],
            on_yes: vec![recover(false)],
            restore: None,
        });
    }
}

/// `session/commit`: `message`, codiva commits; `None`, the agent is asked to.
pub(super) fn commit(id: String, message: Option<String>) -> Effect {
    Effect::request(ClientRequest::SessionCommit(CommitParams {
        session_id: id,
        message,
    }))
}

/// `session/recover`: a dry run tells which sessions are stuck (for the y/n), else repairs them.
pub(super) fn recover(dry_run: bool) -> Effect {
    Effect::request(ClientRequest::SessionRecover(RecoverParams { dry_run }))
}

/// The session's uncommitted files (`session/diff`).
pub(super) fn uncommitted(id: &str) -> Effect {
    Effect::request_for(
        ClientRequest::SessionDiff(session_params(id)),
        Purpose::Uncommitted,
    )
}

/// The session view's line of uncommitted files: `± 3 uncommitted: a.rs, b.rs, c.rs · /commit`
/// (the first few and `+n`); `None` when there are none (or they are not known yet).
pub(super) fn uncommitted_line(files: Option<&[String]>) -> Option<Line<'static>> {
    let files = files.filter(|files| !files.is_empty())?;
    let mut shown: Vec<String> = files
        .iter()
        .take(FILES_SHOWN)
        .map(|f| crate::dialog::sanitize(f).into_owned())
        .collect();
    if files.len() > FILES_SHOWN {
        shown.push(format!("+{}", files.len() - FILES_SHOWN));
    }
    Some(Line::from(vec![
        Span::styled(
            format!(
                "± {}",
                tf(
                    RepairText::Uncommitted,
                    &[&files.len().to_string(), &shown.join(", ")]
                )
            ),
            theme::warning(),
        ),
        Span::styled(
            format!(" · {}", t(RepairText::UncommittedHint)),
            theme::dim(),
        ),
    ]))
}
