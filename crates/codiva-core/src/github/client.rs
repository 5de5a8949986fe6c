//! The pull-request operations over `gh`, and how its failures are told apart.

use std::ffi::OsString;
use std::path::Path;

use super::status::PrJson;
use super::{Gh, GhError, GhOutput, PrLookup, PrStatus};

/// The fields asked of every pull request: one GraphQL request carries the state, the draft
/// flag, the mergeability and the head commit's check rollup.
pub const PR_JSON_FIELDS: &str =
    "number,url,state,isDraft,mergeable,statusCheckRollup,headRefName,isCrossRepository";

/// The smallest `--limit` of a batched lookup.
pub const BATCH_LIMIT_MIN: usize = 30;
/// The largest `--limit` of a batched lookup (one GraphQL page).
pub const BATCH_LIMIT_MAX: usize = 100;

/// `--limit` for a batched lookup of `branches` branches: three pull requests per branch,
/// within 30..=100. The list is newest first and a session's pull request is recent, so it is
/// on the first page unless the repository opened a great many since.
pub fn batch_limit(branches: usize) -> usize {
    branches
        .saturating_mul(3)
        .clamp(BATCH_LIMIT_MIN, BATCH_LIMIT_MAX)
}

/// A draft pull request to open. The title and body are given as they will appear on GitHub:
/// the caller makes them (from the session's title, first instruction and commits) and
/// sanitises them first — they may hold model output (control characters and escape
/// sequences removed, length bounded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPr {
    pub title: String,
    pub body: String,
    /// The branch to merge into.
    pub base: String,
    /// The pushed session branch.
    pub head: String,
}

/// The pull request `gh pr create` opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedPr {
    pub number: u64,
    pub url: String,
}

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

/// gh's messages when there is no pull request (exit 1): by branch, and by number (a GraphQL
/// `NOT_FOUND`).
const ABSENT_MARKERS: &[&str] = &[
    "no pull requests found for branch",
    "Could not resolve to a PullRequest",
];

/// What a failed call means. gh reports everything on stderr with exit 1 (4 for "not logged
/// in"); the wording is the only thing that tells a rate limit from a network failure.
pub(crate) fn classify(output: &GhOutput) -> GhError {
    let stderr = output.stderr.as_str();
    let lower = stderr.to_ascii_lowercase();
    let detail = last_line(stderr);
    if output.code == Some(4)
        || lower.contains("gh auth login")
        || lower.contains("http 401")
        || lower.contains("bad credentials")
    {
        return GhError::NotAuthenticated { detail };
    }
    if lower.contains("rate limit") {
        return GhError::RateLimited {
            reset: None,
            detail,
        };
    }
    const NETWORK: &[&str] = &[
        "http 500",
        "http 502",
        "http 503",
        "http 504",
        "dial tcp",
        "connection refused",
        "connection reset",
        "no such host",
        "i/o timeout",
        "tls handshake",
        "x509:",
        "eof",
        "network is unreachable",
        "timeout awaiting response headers",
    ];
    if NETWORK.iter().any(|m| lower.contains(m)) {
        return GhError::Network { detail };
    }
    GhError::Other {
        args: output.args.clone(),
        code: output.code,
        stderr_tail: stderr.to_string(),
    }
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn is_absent(output: &GhOutput) -> bool {
    output.code == Some(1) && ABSENT_MARKERS.iter().any(|m| output.stderr.contains(m))
}

fn bad_output(output: &GhOutput, detail: impl Into<String>) -> GhError {
    GhError::BadOutput {
        args: output.args.clone(),
        detail: detail.into(),
    }
}

fn parse_status(output: &GhOutput) -> Result<PrStatus, GhError> {
    let pr: PrJson =
        serde_json::from_slice(&output.stdout).map_err(|e| bad_output(output, e.to_string()))?;
    pr.into_status()
        .map_err(|e| bad_output(output, e.to_string()))
}

/// The number at the end of a pull request URL (`…/pull/12`).
fn number_of_url(url: &str) -> Option<u64> {
    let (_, tail) = url.rsplit_once("/pull/")?;
    tail.trim_end_matches('/').parse().ok()
}

impl Gh {
    /// Opens a draft pull request of `pr.head` into `pr.base` (the branch must be pushed
    /// first: [`crate::git::Repo::push_branch`]). `cwd` is the session's worktree.
    ///
    /// Three GraphQL requests with gh 2.23 (the repository, an existing pull request for the
    /// head, the creation).
    pub async fn create_draft_pr(&self, cwd: &Path, pr: &NewPr) -> Result<CreatedPr, GhError> {
        // `--flag=value`: a title that starts with '-' stays a value.
        let output = self
            .output(
                cwd,
                &[
                    "pr".into(),
                    "create".into(),
                    "--draft".into(),
                    format!("--title={}", pr.title).into(),
                    format!("--body={}", pr.body).into(),
                    format!("--base={}", pr.base).into(),
                    format!("--head={}", pr.head).into(),
                ],
            )
            .await?;
        if !output.success() {
            return Err(classify(&output));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let url = last_line(&stdout);
        match number_of_url(&url) {
            Some(number) => Ok(CreatedPr { number, url }),
            None => Err(bad_output(
                &output,
                format!("no pull request URL in {url:?}"),
            )),
        }
    }

    /// The pull request of `branch`, the one `gh pr view <branch>` picks among those with that
    /// head (any state). One GraphQL request. A branch name gh would read as something else
    /// (all digits, `#12`, a URL) is not a session branch (`codiva/<slug>`).
    pub async fn lookup_branch(&self, cwd: &Path, branch: &str) -> PrLookup {
        if branch.is_empty() || branch.starts_with('-') {
            return PrLookup::Unavailable(GhError::Io(format!("invalid branch name {branch:?}")));
        }
        self.view(cwd, branch).await
    }

    /// Pull request `number`. One GraphQL request.
    pub async fn lookup_number(&self, cwd: &Path, number: u64) -> PrLookup {
        self.view(cwd, &number.to_string()).await
    }

    async fn view(&self, cwd: &Path, selector: &str) -> PrLookup {
        let output = match self
            .output(
                cwd,
                &args(&["pr", "view", selector, "--json", PR_JSON_FIELDS]),
            )
            .await
        {
            Ok(output) => output,
            Err(err) => return PrLookup::Unavailable(err),
        };
        if output.success() {
            match parse_status(&output) {
                Ok(status) => PrLookup::Found(status),
                Err(err) => PrLookup::Unavailable(err),
            }
        } else if is_absent(&output) {
            PrLookup::Absent
        } else {
            PrLookup::Unavailable(classify(&output))
        }
    }

    /// The pull requests of several branches with one `gh pr list --state all` (one GraphQL
    /// request), in the order of `branches`. A branch without a pull request in the list is
    /// absent when the list was complete; when the list was cut at its limit it is looked up
    /// on its own (so that an old pull request is not taken for none). A failure of the list
    /// is the error of every branch, returned as `Err`.
    pub async fn lookup_branches(
        &self,
        cwd: &Path,
        branches: &[String],
    ) -> Result<Vec<PrLookup>, GhError> {
        let limit = batch_limit(branches.len());
        let output = self
            .output(
                cwd,
                &args(&[
                    "pr",
                    "list",
                    "--state",
                    "all",
                    "--limit",
                    &limit.to_string(),
                    "--json",
                    PR_JSON_FIELDS,
                ]),
            )
            .await?;
        if !output.success() {
            return Err(classify(&output));
        }
        let list: Vec<PrJson> = serde_json::from_slice(&output.stdout)
            .map_err(|e| bad_output(&output, e.to_string()))?;
        let complete = list.len() < limit;
        let mut found: Vec<Option<PrJson>> = branches.iter().map(|_| None).collect();
        // Newest first: the first pull request of a branch is its current one. Pull requests
        // from forks may share a branch name and are never a session's.
        for pr in list.into_iter().filter(|pr| !pr.is_cross_repository) {
            if let Some(i) = branches.iter().position(|b| b == pr.head())
                && found[i].is_none()
            {
                found[i] = Some(pr);
            }
        }
        let mut results = Vec::with_capacity(branches.len());
        for (branch, pr) in branches.iter().zip(found) {
            results.push(match pr {
                Some(pr) => match pr.into_status() {
                    Ok(status) => PrLookup::Found(status),
                    Err(e) => PrLookup::Unavailable(bad_output(&output, e.to_string())),
                },
                None if complete => PrLookup::Absent,
                None => self.lookup_branch(cwd, branch).await,
            });
        }
        Ok(results)
    }

    /// Marks draft pull request `number` ready for review (two GraphQL requests with gh 2.23).
    pub async fn mark_ready(&self, cwd: &Path, number: u64) -> Result<(), GhError> {
        let output = self
            .output(cwd, &args(&["pr", "ready", &number.to_string()]))
            .await?;
        if output.success() {
            Ok(())
        } else {
            Err(classify(&output))
        }
    }
}

/// The end of a run's failed-step log, as `gh run view <id> --log-failed` prints it (one
/// `<job>\t<step>\t<line>` per line). CI output: untrusted text, sanitise before showing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedLog {
    /// The last bytes of the log, at most the budget, starting at a line boundary when one
    /// is within the budget.
    pub text: String,
    /// Whether earlier lines were left out.
    pub truncated: bool,
}

/// The last `budget` bytes of `text`, from a line start when one falls inside them.
fn tail_within(text: &str, budget: usize) -> FailedLog {
    if text.len() <= budget {
        return FailedLog {
            text: text.to_string(),
            truncated: false,
        };
    }
    let rest = codiva_protocol::text::tail(text, budget);
    let from = match rest.find('\n') {
        Some(nl) if nl + 1 < rest.len() => nl + 1,
        _ => 0,
    };
    FailedLog {
        text: rest[from..].to_string(),
        truncated: true,
    }
}

impl Gh {
    /// The failed steps' log of GitHub Actions run `run_id`, its last `budget` bytes
    /// (4 REST requests with gh 2.23: the run, its workflow, its jobs, the log archive).
    pub async fn failed_log(
        &self,
        cwd: &Path,
        run_id: u64,
        budget: usize,
    ) -> Result<FailedLog, GhError> {
        let output = self
            .output(
                cwd,
                &args(&["run", "view", &run_id.to_string(), "--log-failed"]),
            )
            .await?;
        if !output.success() {
            return Err(classify(&output));
        }
        Ok(tail_within(
            &String::from_utf8_lossy(&output.stdout),
            budget,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(code: i32, stderr: &str) -> GhOutput {
        GhOutput {
            code: Some(code),
            stdout: Vec::new(),
            stderr: stderr.into(),
            args: "pr view x".into(),
        }
    }

    // The messages below are gh's own, measured: the seed's table (gh 2.96, real GitHub) and
    // the mock runs of the integration tests (gh 2.23).
    #[test]
    fn failures_are_told_apart_by_gh_wording() {
        assert!(is_absent(&failed(
            1,
            "no pull requests found for branch \"codiva/x\""
        )));
        assert!(matches!(
            classify(&failed(
                1,
                "GraphQL: API rate limit already exceeded for user ID 1."
            )),
            GhError::RateLimited { reset: None, .. }
        ));
        assert!(matches!(
            classify(&failed(
                4,
                "To get started with GitHub CLI, please run:  gh auth login"
            )),
            GhError::NotAuthenticated { .. }
        ));
        assert!(matches!(
            classify(&failed(1, "some new failure")),
            GhError::Other { .. }
        ));
    }

    #[test]
    fn a_log_tail_starts_at_a_line_within_the_budget() {
        let log = "build\tRun\tfirst line\nbuild\tRun\tsecond\nbuild\tRun\tlast 失敗\n";
        assert_eq!(tail_within(log, 1000).text, log);
        let tail = tail_within(log, 30);
        assert!(tail.truncated);
        assert_eq!(tail.text, "build\tRun\tlast 失敗\n");
        assert!(tail.text.len() <= 30);
    }

    #[test]
    fn batch_limit_is_three_per_branch_within_bounds() {
        assert_eq!(batch_limit(3), 30);
        assert_eq!(batch_limit(20), 60);
        assert_eq!(batch_limit(50), 100);
    }

    #[test]
    fn the_number_is_read_from_the_url() {
        assert_eq!(number_of_url("https://github.com/o/r/pull/78"), Some(78));
        assert_eq!(number_of_url("https://github.com/o/r"), None);
    }
}
