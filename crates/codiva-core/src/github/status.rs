//! A pull request's status as `gh pr view/list --json` reports it, reduced to what codiva shows.

use serde::Deserialize;
use serde_json::Value;

use super::GhError;

/// Open, merged, or closed without merging.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrState {
    Open,
    Merged,
    Closed,
}

/// The checks of the pull request's head commit, summed up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Checks {
    /// No check run and no commit status.
    None,
    /// Something still runs (or is queued, or expected) and nothing has failed.
    Pending,
    /// At least one check failed (failure, error, timed out, cancelled, action required).
    Failed,
    /// Every check passed (success, neutral or skipped).
    Passed,
}

/// Whether the pull request merges cleanly into its base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mergeable {
    Mergeable,
    Conflicting,
    /// GitHub has not computed it yet (it does so lazily), or the pull request is merged.
    Unknown,
}

/// A check that failed: what `/fix-ci` tells the agent about it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FailedCheck {
    /// The check run's name, or a commit status's context.
    pub name: String,
    /// Its details URL (a GitHub Actions job, or the status's target).
    pub url: String,
}

impl FailedCheck {
    /// The GitHub Actions run id in the URL (`…/actions/runs/<id>/job/…`), for
    /// [`crate::github::Gh::failed_log`].
    pub fn run_id(&self) -> Option<u64> {
        let (_, rest) = self.url.split_once("/actions/runs/")?;
        rest.split('/').next()?.parse().ok()
    }
}

/// What codiva shows of one pull request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PrStatus {
    pub number: u64,
    pub url: String,
    /// The head branch.
    pub head: String,
    pub state: PrState,
    pub draft: bool,
    pub checks: Checks,
    /// The checks that failed, in rollup order (text from GitHub: sanitise before showing).
    pub failed: Vec<FailedCheck>,
    pub mergeable: Mergeable,
}

impl PrStatus {
    /// Merged or closed: nothing about it changes any more that codiva polls for.
    pub fn is_settled_for_good(&self) -> bool {
        self.state != PrState::Open
    }
}

/// The result of looking a pull request up: found, absent, or unknown for a reason. A failed
/// lookup is never "absent": the caller keeps what it knew ([`crate::github::poll::PrWatch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrLookup {
    Found(PrStatus),
    Absent,
    Unavailable(GhError),
}

/// One element of `gh pr view/list --json number,url,state,isDraft,mergeable,
/// statusCheckRollup,headRefName,isCrossRepository`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PrJson {
    number: u64,
    url: String,
    state: String,
    #[serde(default)]
    is_draft: bool,
    #[serde(default)]
    mergeable: String,
    #[serde(default)]
    status_check_rollup: Vec<Value>,
    #[serde(default)]
    head_ref_name: String,
    #[serde(default)]
    pub(crate) is_cross_repository: bool,
}

/// A pull request state gh gave that this version does not know (its word).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown pull request state {0:?}")]
pub(crate) struct UnknownPrState(pub(crate) String);

impl PrJson {
    pub(crate) fn head(&self) -> &str {
        &self.head_ref_name
    }

    pub(crate) fn into_status(self) -> Result<PrStatus, UnknownPrState> {
        let state = match self.state.as_str() {
            "OPEN" => PrState::Open,
            "MERGED" => PrState::Merged,
            "CLOSED" => PrState::Closed,
            _ => return Err(UnknownPrState(self.state)),
        };
        // A merged pull request reports UNKNOWN, a closed one its last value: the state wins
        // wherever it is shown, but the value is kept as GitHub gave it.
        let mergeable = match self.mergeable.as_str() {
            "MERGEABLE" => Mergeable::Mergeable,
            "CONFLICTING" => Mergeable::Conflicting,
            _ => Mergeable::Unknown,
        };
        Ok(PrStatus {
            number: self.number,
            url: self.url,
            head: self.head_ref_name,
            state,
            draft: self.is_draft,
            checks: checks_of(&self.status_check_rollup),
            failed: failed_of(&self.status_check_rollup),
            mergeable,
        })
    }
}

/// One rollup entry: a `CheckRun` has `status` + `conclusion`, a legacy `StatusContext` has
/// `state`. Reading only one kind would make the other look like "no checks".
fn entry_checks(entry: &Value) -> Checks {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
    if entry.get("__typename").and_then(Value::as_str) == Some("StatusContext") {
        return match text("state") {
            "SUCCESS" => Checks::Passed,
            "FAILURE" | "ERROR" => Checks::Failed,
            _ => Checks::Pending,
        };
    }
    if text("status") != "COMPLETED" {
        return Checks::Pending;
    }
    match text("conclusion") {
        "SUCCESS" | "NEUTRAL" | "SKIPPED" => Checks::Passed,
        "FAILURE" | "TIMED_OUT" | "CANCELLED" | "ACTION_REQUIRED" | "STARTUP_FAILURE" | "ERROR" => {
            Checks::Failed
        }
        // STALE or an empty conclusion on a completed run: not settled yet.
        _ => Checks::Pending,
    }
}

/// The failed entries of the rollup.
pub(crate) fn failed_of(rollup: &[Value]) -> Vec<FailedCheck> {
    rollup
        .iter()
        .filter(|entry| entry_checks(entry) == Checks::Failed)
        .map(|entry| {
            let text = |keys: &[&str]| {
                keys.iter()
                    .find_map(|k| entry.get(*k).and_then(Value::as_str))
                    .unwrap_or("")
                    .to_string()
            };
            FailedCheck {
                name: text(&["name", "context"]),
                url: text(&["detailsUrl", "targetUrl"]),
            }
        })
        .collect()
}

/// The rollup summed up: any failure → failed; else anything running → pending; else passed;
/// nothing at all → none.
pub(crate) fn checks_of(rollup: &[Value]) -> Checks {
    let mut sum = Checks::None;
    for entry in rollup {
        sum = match (sum, entry_checks(entry)) {
            (Checks::Failed, _) | (_, Checks::Failed) => Checks::Failed,
            (Checks::Pending, _) | (_, Checks::Pending) => Checks::Pending,
            _ => Checks::Passed,
        };
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(status: &str, conclusion: &str) -> Value {
        json!({"__typename": "CheckRun", "status": status, "conclusion": conclusion})
    }

    #[test]
    fn checks_read_both_rollup_kinds() {
        assert_eq!(checks_of(&[]), Checks::None);
        assert_eq!(checks_of(&[run("COMPLETED", "SUCCESS")]), Checks::Passed);
        assert_eq!(checks_of(&[run("IN_PROGRESS", "")]), Checks::Pending);
        assert_eq!(
            checks_of(&[run("COMPLETED", "SUCCESS"), run("QUEUED", "")]),
            Checks::Pending
        );
        assert_eq!(
            checks_of(&[run("QUEUED", ""), run("COMPLETED", "FAILURE")]),
            Checks::Failed
        );
        assert_eq!(checks_of(&[run("COMPLETED", "SKIPPED")]), Checks::Passed);
        let status = |s: &str| json!({"__typename": "StatusContext", "state": s});
        assert_eq!(checks_of(&[status("SUCCESS")]), Checks::Passed);
        assert_eq!(checks_of(&[status("PENDING")]), Checks::Pending);
        assert_eq!(
            checks_of(&[run("COMPLETED", "SUCCESS"), status("ERROR")]),
            Checks::Failed
        );
    }

    #[test]
    fn a_merged_pull_request_keeps_its_state_over_mergeability() {
        let pr: PrJson = serde_json::from_value(json!({
            "number": 77, "url": "https://github.com/o/r/pull/77", "state": "MERGED",
            "isDraft": false, "mergeable": "UNKNOWN", "statusCheckRollup": [],
            "headRefName": "codiva/x"
        }))
        .unwrap();
        let status = pr.into_status().unwrap();
        assert_eq!(status.state, PrState::Merged);
        assert_eq!(status.mergeable, Mergeable::Unknown);
        assert!(status.is_settled_for_good());
    }

    #[test]
    fn a_state_this_version_does_not_know_is_named() {
        let pr: PrJson = serde_json::from_value(json!({
            "number": 78, "url": "https://github.com/o/r/pull/78", "state": "QUEUED",
            "headRefName": "codiva/x"
        }))
        .unwrap();
        let err = pr.into_status().unwrap_err();
        assert_eq!(err, UnknownPrState("QUEUED".into()));
        assert_eq!(err.to_string(), "unknown pull request state \"QUEUED\"");
    }

    #[test]
    fn failed_checks_keep_their_name_and_run() {
        let rollup = [
            json!({"__typename": "CheckRun", "name": "build", "status": "COMPLETED",
                   "conclusion": "FAILURE",
                   "detailsUrl": "https://github.com/o/r/actions/runs/4242/job/99"}),
            json!({"__typename": "CheckRun", "name": "lint", "status": "COMPLETED",
                   "conclusion": "SUCCESS", "detailsUrl": "https://github.com/o/r/actions/runs/1/job/2"}),
            json!({"__typename": "StatusContext", "context": "ci/legacy", "state": "ERROR",
                   "targetUrl": "https://ci.example/5"}),
        ];
        let failed = failed_of(&rollup);
        assert_eq!(failed.len(), 2);
        assert_eq!(failed[0].name, "build");
        assert_eq!(failed[0].run_id(), Some(4242));
        assert_eq!(failed[1].name, "ci/legacy");
        assert_eq!(failed[1].run_id(), None);
    }
}
