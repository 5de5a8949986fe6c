//! When to look pull requests up again: pure functions over what each session last knew, when
//! it last asked, and the clock. No I/O here; the caller runs the lookups the plan names.
//!
//! - Staleness by what was last known: checks running → 20 s; mergeability not computed yet
//!   → 60 s; anything else open, or no pull request yet → 180 s; merged or closed → never.
//! - Three or more stale sessions in one tick → one batched `gh pr list` for every session
//!   still watched (it refreshes them all for the same single request, and aligns them so
//!   that they come due together again); one or two → a `gh pr view` each.
//! - After a rate limit, a missing `gh` or a missing login, no lookup for 5 minutes (or until
//!   the reset time GitHub gave, if later).
//! - A failed lookup keeps what was known ([`PrWatch::record`]).

use std::time::{Duration, Instant, SystemTime};

use super::{Checks, GhError, Mergeable, PrLookup, PrState, PrStatus};

/// The intervals. [`PollPolicy::default`] is what codiva uses; see `docs/github.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PollPolicy {
    /// How often the caller evaluates [`plan`].
    pub tick: Duration,
    /// An open pull request whose checks are running.
    pub pending: Duration,
    /// An open pull request whose mergeability GitHub has not computed yet.
    pub mergeability_unknown: Duration,
    /// Any other open pull request, and a branch without one.
    pub settled: Duration,
    /// The pause after an error that [`GhError::backs_off`].
    pub backoff: Duration,
    /// From this many stale sessions on, one batched lookup.
    pub batch_min: usize,
}

impl Default for PollPolicy {
    fn default() -> Self {
        PollPolicy {
            tick: Duration::from_secs(20),
            pending: Duration::from_secs(20),
            mergeability_unknown: Duration::from_secs(60),
            settled: Duration::from_secs(180),
            backoff: Duration::from_secs(300),
            batch_min: 3,
        }
    }
}

impl PollPolicy {
    /// The default policy with every interval scaled so that the tick is `tick` (pending
    /// checks: one tick; mergeability: three; settled: nine; the pause: fifteen). For tests
    /// (`CODIVA_PR_POLL_MS`), which cannot wait minutes.
    pub fn scaled(tick: Duration) -> PollPolicy {
        let tick = tick.max(Duration::from_millis(10));
        PollPolicy {
            tick,
            pending: tick,
            mergeability_unknown: tick * 3,
            settled: tick * 9,
            backoff: tick * 15,
            batch_min: 3,
        }
    }
}

/// The last answer that was not "unavailable".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Known {
    Found(PrStatus),
    Absent,
}

/// What one session knows of its pull request, and when it last asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrWatch {
    /// The last real answer; `None` before the first one.
    pub known: Option<Known>,
    /// When the last lookup (of any outcome) finished.
    pub last_checked: Option<Instant>,
    /// Why the last lookup failed, if it did (shown next to the kept status).
    pub unavailable: Option<GhError>,
}

impl PrWatch {
    /// Takes a lookup's result: found and absent replace what was known; unavailable keeps
    /// it and notes the reason. Either way the session was checked at `now`.
    pub fn record(&mut self, lookup: PrLookup, now: Instant) {
        match lookup {
            PrLookup::Found(status) => {
                self.known = Some(Known::Found(status));
                self.unavailable = None;
            }
            PrLookup::Absent => {
                self.known = Some(Known::Absent);
                self.unavailable = None;
            }
            PrLookup::Unavailable(err) => self.unavailable = Some(err),
        }
        self.last_checked = Some(now);
    }

    /// The status last found, if any.
    pub fn status(&self) -> Option<&PrStatus> {
        match &self.known {
            Some(Known::Found(status)) => Some(status),
            _ => None,
        }
    }

    /// How long what is known stays fresh; `None`: never looked up again.
    pub fn interval(&self, policy: &PollPolicy) -> Option<Duration> {
        match &self.known {
            Some(Known::Found(status)) if status.state != PrState::Open => None,
            Some(Known::Found(status)) if status.checks == Checks::Pending => Some(policy.pending),
            Some(Known::Found(status)) if status.mergeable == Mergeable::Unknown => {
                Some(policy.mergeability_unknown)
            }
            Some(Known::Found(_)) | Some(Known::Absent) | None => Some(policy.settled),
        }
    }

    /// Whether it is due for a lookup at `now` (never looked up: due at once).
    pub fn is_stale(&self, policy: &PollPolicy, now: Instant) -> bool {
        let Some(interval) = self.interval(policy) else {
            return false;
        };
        match self.last_checked {
            None => true,
            Some(at) => now.saturating_duration_since(at) >= interval,
        }
    }
}

/// What to do this tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PollPlan<K> {
    /// Nothing is due.
    Idle,
    /// Paused after an error until this time.
    BackedOff { until: Instant },
    /// One lookup per session (fewer than [`PollPolicy::batch_min`] are due).
    Each(Vec<K>),
    /// One batched lookup for these sessions (every one still watched).
    Batch(Vec<K>),
}

/// The plan at `now` for `sessions` (key and watch), with polling paused until
/// `backoff_until` if set.
pub fn plan<K: Clone>(
    policy: &PollPolicy,
    now: Instant,
    backoff_until: Option<Instant>,
    sessions: &[(K, &PrWatch)],
) -> PollPlan<K> {
    if let Some(until) = backoff_until
        && until > now
    {
        return PollPlan::BackedOff { until };
    }
    let stale: Vec<K> = sessions
        .iter()
        .filter(|(_, watch)| watch.is_stale(policy, now))
        .map(|(key, _)| key.clone())
        .collect();
    if stale.is_empty() {
        PollPlan::Idle
    } else if stale.len() >= policy.batch_min {
        PollPlan::Batch(
            sessions
                .iter()
                .filter(|(_, watch)| watch.interval(policy).is_some())
                .map(|(key, _)| key.clone())
                .collect(),
        )
    } else {
        PollPlan::Each(stale)
    }
}

/// Until when polling pauses after `err` at `now` (`wall_now` is the same moment on the wall
/// clock, to read a reset time); `None` for errors that do not pause it (the network, a
/// timeout: each session simply comes due again after its interval).
pub fn backoff_until(
    policy: &PollPolicy,
    now: Instant,
    wall_now: SystemTime,
    err: &GhError,
) -> Option<Instant> {
    if !err.backs_off() {
        return None;
    }
    let mut until = now + policy.backoff;
    if let GhError::RateLimited {
        reset: Some(reset), ..
    } = err
        && let Ok(wait) = reset.duration_since(wall_now)
    {
        until = until.max(now + wait);
    }
    Some(until)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(checks: Checks, mergeable: Mergeable, state: PrState) -> PrStatus {
        PrStatus {
            number: 12,
            url: "https://github.com/o/r/pull/12".into(),
            head: "codiva/x".into(),
            state,
            draft: true,
            checks,
            failed: Vec::new(),
            mergeable,
        }
    }

    fn watch(known: Option<Known>, checked: Option<Instant>) -> PrWatch {
        PrWatch {
            known,
            last_checked: checked,
            unavailable: None,
        }
    }

    fn found(checks: Checks, mergeable: Mergeable, state: PrState) -> Option<Known> {
        Some(Known::Found(status(checks, mergeable, state)))
    }

    #[test]
    fn staleness_follows_what_was_last_known() {
        let p = PollPolicy::default();
        let t0 = Instant::now();
        let s = |n: u64| t0 + Duration::from_secs(n);
        assert!(
            watch(None, None).is_stale(&p, t0),
            "never looked up: due now"
        );
        let pending = watch(
            found(Checks::Pending, Mergeable::Mergeable, PrState::Open),
            Some(t0),
        );
        assert!(!pending.is_stale(&p, s(19)));
        assert!(pending.is_stale(&p, s(20)));
        let computing = watch(
            found(Checks::Passed, Mergeable::Unknown, PrState::Open),
            Some(t0),
        );
        assert!(!computing.is_stale(&p, s(59)));
        assert!(computing.is_stale(&p, s(60)));
        let green = watch(
            found(Checks::Passed, Mergeable::Mergeable, PrState::Open),
            Some(t0),
        );
        assert!(!green.is_stale(&p, s(179)));
        assert!(green.is_stale(&p, s(180)));
        let absent = watch(Some(Known::Absent), Some(t0));
        assert!(absent.is_stale(&p, s(180)));
        for state in [PrState::Merged, PrState::Closed] {
            let done = watch(found(Checks::Pending, Mergeable::Unknown, state), Some(t0));
            assert!(
                !done.is_stale(&p, s(1_000_000)),
                "{state:?} is never polled"
            );
            assert_eq!(done.interval(&p), None);
        }
    }

    #[test]
    fn three_stale_sessions_are_one_batch_of_every_watched_one() {
        let p = PollPolicy::default();
        let t0 = Instant::now();
        let later = t0 + Duration::from_secs(25);
        let pending = watch(
            found(Checks::Pending, Mergeable::Mergeable, PrState::Open),
            Some(t0),
        );
        let green = watch(
            found(Checks::Passed, Mergeable::Mergeable, PrState::Open),
            Some(t0),
        );
        let merged = watch(
            found(Checks::Passed, Mergeable::Unknown, PrState::Merged),
            Some(t0),
        );
        let two = [("a", &pending), ("b", &pending), ("g", &green)];
        assert_eq!(plan(&p, later, None, &two), PollPlan::Each(vec!["a", "b"]));
        let three = [
            ("a", &pending),
            ("b", &pending),
            ("c", &pending),
            ("g", &green),
            ("m", &merged),
        ];
        assert_eq!(
            plan(&p, later, None, &three),
            PollPlan::Batch(vec!["a", "b", "c", "g"]),
            "the green one rides along, the merged one never"
        );
        assert_eq!(plan(&p, t0, None, &three), PollPlan::Idle);
    }

    #[test]
    fn rate_limits_and_auth_errors_pause_polling_network_errors_do_not() {
        let p = PollPolicy::default();
        let now = Instant::now();
        let wall = SystemTime::now();
        let limited = GhError::RateLimited {
            reset: None,
            detail: "API rate limit exceeded".into(),
        };
        let until = backoff_until(&p, now, wall, &limited).unwrap();
        assert_eq!(until, now + p.backoff);
        let w = watch(None, None);
        assert_eq!(
            plan(
                &p,
                now + Duration::from_secs(299),
                Some(until),
                &[("a", &w)]
            ),
            PollPlan::BackedOff { until }
        );
        assert_eq!(
            plan(
                &p,
                now + Duration::from_secs(300),
                Some(until),
                &[("a", &w)]
            ),
            PollPlan::Each(vec!["a"])
        );
        let later_reset = GhError::RateLimited {
            reset: Some(wall + Duration::from_secs(900)),
            detail: String::new(),
        };
        assert_eq!(
            backoff_until(&p, now, wall, &later_reset),
            Some(now + Duration::from_secs(900))
        );
        let auth = GhError::NotAuthenticated {
            detail: "gh auth login".into(),
        };
        assert!(backoff_until(&p, now, wall, &auth).is_some());
        assert!(backoff_until(&p, now, wall, &GhError::NotInstalled).is_some());
        let network = GhError::Network {
            detail: "HTTP 500".into(),
        };
        assert_eq!(backoff_until(&p, now, wall, &network), None);
    }

    #[test]
    fn an_unavailable_answer_keeps_the_last_known_status() {
        let p = PollPolicy::default();
        let t0 = Instant::now();
        let mut w = PrWatch::default();
        let green = status(Checks::Passed, Mergeable::Mergeable, PrState::Open);
        w.record(PrLookup::Found(green.clone()), t0);
        let err = GhError::Network {
            detail: "HTTP 500".into(),
        };
        let t1 = t0 + Duration::from_secs(180);
        w.record(PrLookup::Unavailable(err.clone()), t1);
        assert_eq!(w.status(), Some(&green));
        assert_eq!(w.unavailable, Some(err));
        assert_eq!(w.last_checked, Some(t1));
        assert!(!w.is_stale(&p, t1), "the failed lookup counts as a check");
        w.record(PrLookup::Absent, t1 + Duration::from_secs(180));
        assert_eq!(w.known, Some(Known::Absent));
        assert_eq!(w.unavailable, None);
    }
}
