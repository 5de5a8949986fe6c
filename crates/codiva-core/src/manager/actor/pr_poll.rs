//! Looking sessions' pull requests up again, by the polling policy (`github::poll`): every
//! tick the plan names the stale sessions; one or two are looked up with a `gh pr view` each,
//! three or more with one `gh pr list` for every watched session. A failed lookup keeps what
//! was known; a rate limit or an authentication error pauses lookups. One lookup job at a
//! time, on no session's lane (a slow `gh` delays nobody's calls). `auto_ready` marks a
//! draft ready when its checks pass; `auto_recover` repairs a pull request that turns red or
//! conflicting (`repair.rs`).

use std::time::{Instant as StdInstant, SystemTime, UNIX_EPOCH};

use codiva_protocol::github::SessionPr;

use super::Actor;
use super::pulls::view_of;
use super::repair::kind_key;
use crate::github::poll::{self, PollPlan, PrWatch};
use crate::github::{Checks, GhError, PrLookup, PrState};
use crate::manager::MAX_AUTO_RECOVER;
use crate::manager::recover::stuck_of;

/// One session's lookups: its branch's, and its other pull requests' by number.
struct Looked {
    id: String,
    branch: PrLookup,
    others: Vec<(u64, PrLookup)>,
    /// How many review threads of its open pull request are unresolved (`None`: it has none
    /// open, or the count failed: the last known is kept).
    reviews: Option<u64>,
}

impl Actor {
    /// Runs what the plan names at this tick (nothing while a lookup runs).
    pub(super) fn poll_prs(&mut self) {
        if self.polling || self.stopping {
            return;
        }
        let now = StdInstant::now();
        let watched: Vec<(String, &PrWatch)> = self
            .records
            .values()
            .filter(|record| record.is_watched())
            .map(|record| (record.id.clone(), &record.watch))
            .collect();
        let plan = poll::plan(
            &self.options.github.policy,
            now,
            self.gh_paused_until,
            &watched,
        );
        let (ids, batch) = match plan {
            PollPlan::Idle | PollPlan::BackedOff { .. } => return,
            PollPlan::Each(ids) => (ids, false),
            PollPlan::Batch(ids) => (ids, true),
        };
        let targets: Vec<(String, String, Vec<u64>)> = ids
            .iter()
            .filter_map(|id| self.records.get(id))
            .map(|record| {
                let others = record
                    .prs
                    .iter()
                    .filter(|pr| !pr.own)
                    .map(|pr| pr.number)
                    .collect();
                (record.id.clone(), record.branch.clone(), others)
            })
            .collect();
        self.polling = true;
        let gh = self.options.github.gh.clone();
        let cwd = self.repo.root().to_path_buf();
        self.job(
            None,
            async move {
                let branches: Vec<String> = targets.iter().map(|(_, b, _)| b.clone()).collect();
                let by_branch: Vec<PrLookup> = if batch {
                    match gh.lookup_branches(&cwd, &branches).await {
                        Ok(found) => found,
                        Err(err) => branches
                            .iter()
                            .map(|_| PrLookup::Unavailable(err.clone()))
                            .collect(),
                    }
                } else {
                    let mut found = Vec::new();
                    for branch in &branches {
                        found.push(gh.lookup_branch(&cwd, branch).await);
                    }
                    found
                };
                let mut looked = Vec::new();
                for ((id, _, others), branch) in targets.into_iter().zip(by_branch) {
                    let mut other_lookups = Vec::new();
                    for number in others {
                        other_lookups.push((number, gh.lookup_number(&cwd, number).await));
                    }
                    looked.push(Looked {
                        id,
                        branch,
                        others: other_lookups,
                        reviews: None,
                    });
                }
                // The open pull requests' unresolved review threads: one more request for
                // all of them (`gh api graphql`).
                let open: Vec<(usize, u64)> = looked
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| match &l.branch {
                        PrLookup::Found(status) if status.state == PrState::Open => {
                            Some((i, status.number))
                        }
                        _ => None,
                    })
                    .collect();
                if !open.is_empty() {
                    let numbers: Vec<u64> = open.iter().map(|(_, n)| *n).collect();
                    match gh.unresolved_counts(&cwd, &numbers).await {
                        Ok(counts) => {
                            for ((i, _), count) in open.into_iter().zip(counts) {
                                looked[i].reviews = count;
                            }
                        }
                        Err(err) => tracing::warn!("counting unresolved review threads: {err}"),
                    }
                }
                looked
            },
            |actor, looked| {
                actor.polling = false;
                actor.looked_up(looked);
            },
        );
    }

    fn looked_up(&mut self, looked: Vec<Looked>) {
        let now = StdInstant::now();
        let wall = SystemTime::now();
        let policy = self.options.github.policy.clone();
        let mut paused = None;
        for err in looked.iter().flat_map(|l| {
            std::iter::once(&l.branch)
                .chain(l.others.iter().map(|(_, lookup)| lookup))
                .filter_map(|lookup| match lookup {
                    PrLookup::Unavailable(err) => Some(err),
                    _ => None,
                })
        }) {
            if let Some(until) = poll::backoff_until(&policy, now, wall, err) {
                paused = Some(paused.map_or(until, |p: StdInstant| p.max(until)));
            }
        }
        if paused.is_some() {
            self.gh_paused_until = paused;
        }
        let paused_ms = self
            .gh_paused_until
            .filter(|until| *until > now)
            .map(|until| unix_ms_of(wall + (until - now)));
        let auto_ready = self.options.github.auto_ready;
        let auto_recover = self.options.github.auto_recover;
        let auto_address = self.options.github.auto_address_review;
        let mut ready = Vec::new();
        let mut repairs = Vec::new();
        let mut addresses = Vec::new();
        for Looked {
            id,
            branch,
            others,
            reviews,
        } in looked
        {
            let Some(record) = self.records.get_mut(&id) else {
                continue;
            };
            let before = record.pr_summary();
            let reviews_before = before
                .own()
                .and_then(|pr| pr.view.as_ref())
                .and_then(|view| view.unresolved_reviews);
            if let PrLookup::Found(status) = &branch {
                let mut view = view_of(status);
                // Counted for an open pull request; a failed count keeps the last known.
                if status.state == PrState::Open {
                    view.unresolved_reviews = reviews.or(reviews_before);
                }
                record.add_pr(SessionPr {
                    number: status.number,
                    url: status.url.clone(),
                    own: true,
                    view: Some(view),
                });
            }
            record.watch.record(branch, now);
            for (number, lookup) in others {
                match lookup {
                    PrLookup::Found(status) => {
                        if let Some(pr) = record.prs.iter_mut().find(|pr| pr.number == number) {
                            let mut view = view_of(&status);
                            // Counted for the session's own pull request only: kept as known.
                            view.unresolved_reviews =
                                pr.view.as_ref().and_then(|v| v.unresolved_reviews);
                            pr.view = Some(view);
                        }
                    }
                    PrLookup::Absent => {}
                    PrLookup::Unavailable(err) => record.watch.unavailable = Some(err),
                }
            }
            record.paused_until_ms = paused_ms;
            // `auto_recover`: a pull request that just turned red or conflicting, of a session
            // that is not working, is repaired — at most twice per session and kind.
            if auto_recover
                && record.status.is_settled()
                && let Some(kind) = stuck_of(&record.phase, &record.pr_summary())
                && stuck_of(&record.phase, &before) != Some(kind)
            {
                let attempts = record
                    .recover_attempts
                    .entry(kind_key(kind).to_owned())
                    .or_default();
                if *attempts < MAX_AUTO_RECOVER {
                    *attempts += 1;
                    repairs.push((id.clone(), kind));
                }
            }
            // `auto_address_review`: more unresolved threads than before, on an open pull
            // request of a session that is not working nor about to (a repair of this lookup,
            // or a repair turn whose push is pending) — at most twice per session.
            if auto_address
                && record.status.is_settled()
                && record.push_after_turn.is_none()
                && !repairs.iter().any(|(repaired, _)| *repaired == id)
                && let Some(count) = reviews
                && count > reviews_before.unwrap_or(0)
            {
                let attempts = record
                    .recover_attempts
                    .entry(super::address_review::AUTO_KEY.to_owned())
                    .or_default();
                if *attempts < MAX_AUTO_RECOVER {
                    *attempts += 1;
                    addresses.push(id.clone());
                }
            }
            if auto_ready
                && let Some(status) = record.watch.status()
                && status.state == PrState::Open
                && status.draft
                && status.checks == Checks::Passed
                && !record.ready_asked.contains(&status.number)
            {
                record.ready_asked.push(status.number);
                ready.push((id.clone(), status.number));
            }
            if record.pr_summary() != before {
                self.emit_prs(&id);
            }
        }
        for (id, number) in ready {
            self.mark_ready(id, number);
        }
        if !repairs.is_empty() || !addresses.is_empty() {
            self.mark_dirty();
        }
        for (id, kind) in repairs {
            self.auto_recover(id, kind);
        }
        for id in addresses {
            self.auto_address_review(id);
        }
    }

    /// `auto_ready`: marks the draft ready, then looks it up again at the next tick.
    fn mark_ready(&mut self, id: String, number: u64) {
        let gh = self.options.github.gh.clone();
        let cwd = self.repo.root().to_path_buf();
        self.job(
            None,
            async move { gh.mark_ready(&cwd, number).await },
            move |actor, result: Result<(), GhError>| match result {
                Ok(()) => {
                    if let Some(record) = actor.records.get_mut(&id) {
                        record.watch.last_checked = None;
                    }
                }
                Err(err) => actor.emit(codiva_protocol::manager::ManagerEvent::Warning {
                    message: format!(
                        "session {id}: marking pull request #{number} ready failed: {err}"
                    ),
                }),
            },
        );
    }
}

fn unix_ms_of(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(0))
        .unwrap_or(0)
}
