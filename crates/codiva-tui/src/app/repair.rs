//! Repairing pull requests and committing from the TUI: `/fix-ci` (and `F` in the list) sends
//! the session's failed checks and their log to its agent; `/commit <message>` commits the
//! worktree's files, `/commit` alone asks the agent to; `/recover` first asks the manager which
//! sessions are stuck (a dry run), shows the counts in a y/n, then repairs them one by one and
//! says how many succeeded. The session view shows its uncommitted files (a short list, a
//! count when long), looked up when the view opens, when the agent settles, and after a commit.

use codiva_protocol::params::{RecoverKind, RecoverResult};
use codiva_protocol::session::Status;
use ratatui::text::{Line, Span};

use super::{App, Confirm, Effect, View};
use crate::repair_text::{R, r, rf};
use crate::theme;

/// Files named in the session view's uncommitted line, at most.
const FILES_SHOWN: usize = 4;
/// Sessions named in the recover confirmation, at most.
const SESSIONS_SHOWN: usize = 6;

/// The repair commands' manager calls.
#[derive(Debug, Clone, PartialEq)]
pub enum RepairEffect {
    FixCi {
        id: String,
    },
    /// `message`: codiva commits; `None`: the agent is asked to.
    Commit {
        id: String,
        message: Option<String>,
    },
    /// Which sessions are stuck (`session/recover` as a dry run), for the y/n.
    RecoverPlan,
    /// Repair them (`session/recover`).
    Recover,
    /// The session's uncommitted files (`session/diff`).
    Uncommitted {
        id: String,
    },
}

/// Their answers.
#[derive(Debug, Clone)]
pub enum RepairDone {
    RecoverPlan(RecoverResult),
    Recovered(RecoverResult),
    Uncommitted {
        id: String,
        files: Vec<String>,
    },
    /// A commit was made or asked for: say so, then look the files up again.
    Committed {
        id: String,
        text: String,
    },
}

impl App {
    /// `/fix-ci`, `F` in the list.
    pub(super) fn fix_ci_current(&mut self) -> Vec<Effect> {
        self.current_id()
            .map(|id| vec![Effect::Repair(RepairEffect::FixCi { id })])
            .unwrap_or_default()
    }

    /// `/commit [message]`.
    pub(super) fn commit_current(&mut self, argument: &str) -> Vec<Effect> {
        let message = (!argument.is_empty()).then(|| argument.to_owned());
        self.current_id()
            .map(|id| vec![Effect::Repair(RepairEffect::Commit { id, message })])
            .unwrap_or_default()
    }

    /// A session's info arrived: the view of a session whose agent just settled looks its
    /// uncommitted files up again.
    pub(super) fn after_session_update(&mut self, id: &str, was: Option<Status>) -> Vec<Effect> {
        let now = self.sessions.iter().find(|s| s.id == id).map(|s| s.status);
        let settled = now.is_some_and(Status::is_settled) && !was.is_some_and(Status::is_settled);
        if settled && self.view == View::Detail(id.to_owned()) {
            return vec![Effect::Repair(RepairEffect::Uncommitted {
                id: id.to_owned(),
            })];
        }
        Vec::new()
    }

    pub(super) fn repair_done(&mut self, done: RepairDone) -> Vec<Effect> {
        match done {
            RepairDone::Uncommitted { id, files } => {
                self.pane(&id).uncommitted = Some(files);
                Vec::new()
            }
            RepairDone::Committed { id, text } => {
                self.set_notice(text, false);
                vec![Effect::Repair(RepairEffect::Uncommitted { id })]
            }
            RepairDone::RecoverPlan(plan) => {
                self.recover_plan_arrived(&plan);
                Vec::new()
            }
            RepairDone::Recovered(result) => {
                let total = result.items.len().to_string();
                let mut text = rf(R::Recovered, &[&result.succeeded.to_string(), &total]);
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
                    text.push_str(&rf(R::RecoverFailed, &[&failed.join("; ")]));
                }
                self.set_notice(text, result.failed > 0);
                Vec::new()
            }
        }
    }

    /// The y/n of `/recover`: how many sessions, of which kind, and which.
    fn recover_plan_arrived(&mut self, plan: &RecoverResult) {
        if plan.items.is_empty() {
            self.set_notice(r(R::NothingStuck), false);
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
                rf(R::RecoverTitle, &[&plan.items.len().to_string()]),
                rf(R::RecoverCounts, &[&fix, &sync]),
                names.join(", "),
            ],
            on_yes: vec![Effect::Repair(RepairEffect::Recover)],
            restore: None,
        });
    }
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
                rf(
                    R::Uncommitted,
                    &[&files.len().to_string(), &shown.join(", ")]
                )
            ),
            theme::warning(),
        ),
        Span::styled(format!(" · {}", r(R::UncommittedHint)), theme::dim()),
    ]))
}
