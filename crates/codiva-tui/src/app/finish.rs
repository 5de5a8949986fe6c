//! Finishing work without leaving codiva: the merge confirmation that says what will happen
//! (commits ahead, uncommitted files that would be lost, and `c` to ask the agent to commit
//! them first), removing a finished session only after a y/n, renaming, and handing the
//! terminal to `$SHELL` / `$EDITOR` in a session's worktree. Also the list filter's keys.

use codiva_protocol::ClientRequest;
use codiva_protocol::manager::DiffStat;
use codiva_protocol::manager::SessionPhase;
use crossterm::event::KeyEvent;

use super::filter::{FilterAction, ListFilter};
use codiva_protocol::params::RenameParams;

use super::requests::{discard, session_params};
use super::{App, Confirm, Effect, Foreground, Purpose, View};
use crate::i18n::{AppText, PrText, RepairText, ViewText, t, tf};

/// Files named in a confirmation, at most.
const FILES_SHOWN: usize = 6;

impl App {
    /// `m`: first ask the core what the merge would take (the answer opens the confirmation).
    pub(super) fn ask_merge(&mut self) -> Vec<Effect> {
        self.ask_diff_for(Purpose::MergePreview)
    }

    /// Asks the core for the current session's diff statistics, for `purpose` (none without a
    /// current session).
    fn ask_diff_for(&self, purpose: Purpose) -> Vec<Effect> {
        match self.current_id() {
            Some(id) => vec![Effect::request_for(
                ClientRequest::SessionDiff(session_params(id)),
                purpose,
            )],
            None => Vec::new(),
        }
    }

    /// What a merge of `id` would do, before `y`: the commits that go to the base, and the
    /// uncommitted files that would not (they go with the worktree), with `c` to have the agent
    /// commit them first.
    pub(super) fn merge_preview_arrived(&mut self, id: String, stat: DiffStat) {
        let Some(session) = self.sessions.iter().find(|s| s.id == id).cloned() else {
            return;
        };
        let ahead = stat.commits_ahead;
        let uncommitted = stat.uncommitted.len();
        let can_ask = session.phase == SessionPhase::Active && session.status.is_settled();
        let nothing = tf(ViewText::MergeNothing, &[&session.branch, &session.base]);
        // Nothing to merge and nothing the agent could commit first: said in one line.
        if ahead == 0 && (uncommitted == 0 || !can_ask) {
            self.set_notice(nothing, false);
            return;
        }
        let mut text = if ahead > 0 {
            vec![
                tf(AppText::MergeTitle, &[&session.branch, &session.base]),
                tf(
                    ViewText::MergeAhead,
                    &[&ahead.to_string(), &session.branch, &session.base],
                ),
            ]
        } else {
            vec![nothing]
        };
        if uncommitted > 0 {
            let mut files: Vec<&str> = stat
                .uncommitted
                .iter()
                .take(FILES_SHOWN)
                .map(|entry| entry.path.as_str())
                .collect();
            let more = format!("+{}", uncommitted.saturating_sub(FILES_SHOWN));
            if uncommitted > FILES_SHOWN {
                files.push(&more);
            }
            text.push(tf(
                ViewText::MergeUncommitted,
                &[&uncommitted.to_string(), &files.join(", ")],
            ));
            if can_ask {
                text.push(t(ViewText::MergeCommitFirst).to_owned());
            }
        }
        self.confirm_extra = (uncommitted > 0 && can_ask).then(|| {
            (
                'c',
                // As `/commit` without a message: the manager asks the agent (`session/commit`).
                vec![super::repair::commit(id.clone(), None)],
                // Nothing to merge yet: `y` is not offered (and does nothing).
                t(if ahead > 0 {
                    ViewText::MergeChoices
                } else {
                    ViewText::MergeCommitChoices
                })
                .to_owned(),
            )
        });
        // The question says it all: an earlier notice (a previous answer) would repeat it.
        self.clear_notice_here();
        self.confirm = Some(Confirm {
            text,
            // Empty: `y` is not an answer to this question (the keys are `c` and `n`).
            on_yes: if ahead > 0 {
                vec![Effect::request(ClientRequest::SessionMerge(
                    session_params(id),
                ))]
            } else {
                Vec::new()
            },
            restore: None,
        });
    }

    /// `/pr`, `P` in the list: first ask the core whether the branch has anything to push
    /// (the answer asks the y/n, or says there is nothing to push).
    pub(super) fn ask_pr(&mut self) -> Vec<Effect> {
        self.ask_diff_for(Purpose::PrPreview)
    }

    /// What a push of `id` would take: nothing (said at once, with what to do), else the y/n
    /// before pushing the branch and opening a draft pull request.
    pub(super) fn pr_preview_arrived(&mut self, id: String, stat: DiffStat) {
        let Some(session) = self.sessions.iter().find(|s| s.id == id).cloned() else {
            return;
        };
        if stat.commits_ahead == 0 {
            let uncommitted = stat.uncommitted.len();
            let text = if uncommitted > 0 {
                tf(
                    RepairText::RefNothingToPushCommit,
                    &[&session.branch, &session.base, &uncommitted.to_string()],
                )
            } else {
                tf(AppText::RefNothingToPush, &[&session.branch, &session.base])
            };
            self.set_notice(text, true);
            return;
        }
        self.clear_notice_here();
        self.confirm = Some(Confirm {
            text: vec![tf(PrText::ConfirmPr, &[&session.branch, &session.base])],
            on_yes: vec![Effect::request(ClientRequest::SessionPr(session_params(
                session.id,
            )))],
            restore: None,
        });
    }

    /// `p` in the list (and a click on the PR cell): the session's pull request in the browser.
    pub(super) fn open_pr(&mut self) -> Vec<Effect> {
        let url = self
            .current_id()
            .and_then(|id| self.sessions.iter().find(|s| s.id == id))
            .and_then(|s| crate::pr_cell::primary_url(&s.prs))
            .map(str::to_owned);
        match url {
            Some(url) => vec![Effect::OpenUrl { url }],
            None => {
                self.set_notice(t(PrText::NoPr).to_owned(), false);
                Vec::new()
            }
        }
    }

    /// `x`: a session whose work is already gone (merged, discarded) is removed from the list
    /// only after a y/n; others go through the discard preview (what would be lost) first.
    pub(super) fn ask_remove(&mut self) -> Vec<Effect> {
        let Some(session) = self
            .current_id()
            .and_then(|id| self.sessions.iter().find(|s| s.id == id).cloned())
        else {
            return Vec::new();
        };
        if matches!(
            session.phase,
            SessionPhase::Merged { .. } | SessionPhase::Discarded
        ) {
            self.confirm = Some(Confirm {
                text: vec![tf(ViewText::RemoveFinished, &[&session.title])],
                on_yes: vec![discard(session.id, true, None)],
                restore: None,
            });
            return Vec::new();
        }
        vec![discard(session.id, true, None)]
    }

    /// `/rename title` renames; `/rename` alone puts the title in the composer to edit.
    pub(super) fn rename(&mut self, argument: &str) -> Vec<Effect> {
        let Some(id) = self.current_id() else {
            return Vec::new();
        };
        if argument.is_empty() {
            let title = self.title_of(&id);
            self.composer.set_text(&format!("/rename {title}"));
            self.set_notice(t(ViewText::RenameHint), false);
            return Vec::new();
        }
        vec![Effect::request(ClientRequest::SessionRename(
            RenameParams {
                session_id: id,
                title: argument.to_owned(),
            },
        ))]
    }

    /// `/shell`, `/edit [path]`: the program runs in the session's worktree with the terminal.
    pub(super) fn run_in_worktree(&mut self, what: Foreground) -> Vec<Effect> {
        let Some(session) = self
            .current_id()
            .and_then(|id| self.sessions.iter().find(|s| s.id == id).cloned())
        else {
            return Vec::new();
        };
        if !matches!(
            session.phase,
            SessionPhase::Active | SessionPhase::Conflict { .. }
        ) {
            self.set_notice(tf(AppText::RefNoWorktree, &[&session.id]), true);
            return Vec::new();
        }
        vec![Effect::Foreground {
            what,
            cwd: session.worktree,
        }]
    }

    /// Moves the selection by `delta` rows among those shown (`isize::MIN` / `MAX`: the ends).
    pub(super) fn move_selection(&mut self, delta: isize) {
        let rows = self.visible_rows();
        let Some(last) = rows.len().checked_sub(1) else {
            return;
        };
        let at = rows.iter().position(|row| *row == self.selected_row());
        let next = match (at, delta) {
            (_, isize::MIN) => 0,
            (_, isize::MAX) => last,
            (Some(at), delta) => at.saturating_add_signed(delta).min(last),
            (None, _) => 0,
        };
        self.select_row(&rows[next]);
    }

    /// `f` in the list: type to filter.
    pub(super) fn start_filter(&mut self) {
        let query = self.filter.take().map(|f| f.query).unwrap_or_default();
        self.filter = Some(ListFilter {
            query,
            editing: true,
        });
    }

    pub(super) fn filter_editing(&self) -> bool {
        self.view == View::List && self.filter.as_ref().is_some_and(|f| f.editing)
    }

    pub(super) fn filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(filter) = &mut self.filter else {
            return Vec::new();
        };
        match filter.key(key) {
            FilterAction::Clear => self.filter = None,
            FilterAction::Done => {}
            FilterAction::None => {}
        }
        // The selection stays on a row that is shown.
        let rows = self.visible_rows();
        if !rows.contains(&self.selected_row())
            && let Some(first) = rows.first()
        {
            self.select_row(first);
        }
        Vec::new()
    }
}
