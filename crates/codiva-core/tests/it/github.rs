//! The GitHub layer with the real `gh` (`$CODIVA_TEST_GH`, else `gh` on `PATH`) against the
//! testkit's mock GitHub over loopback HTTPS, and a bare repository as the git remote.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use codiva_core::git::Repo;
use codiva_core::github::poll::{self, PollPlan, PollPolicy, PrWatch};
use codiva_core::github::{
    Checks, Gh, GhEnv, GhError, Mergeable, NewPr, PrLookup, PrState, PrStatus,
};
use codiva_testkit::{
    Fault, MockCheck, MockGitHub, MockJob, MockPrState, MockRun, MockStep, TestRepo, gh_binary,
};
use serde_json::Value;

use crate::git::git;

mod review_threads;

/// A checkout whose `origin` is a bare repository, and a mock GitHub for `owner/repo`.
struct World {
    mock: MockGitHub,
    repo: TestRepo,
    bare: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let mock = MockGitHub::start("owner", "repo", "main").unwrap();
        let repo = TestRepo::new().unwrap();
        let bare = tempfile::Builder::new()
            .prefix("codiva-bare-")
            .tempdir()
            .unwrap();
        git(bare.path(), &["init", "-q", "--bare", "-b", "main"]);
        let bare_path = bare.path().to_string_lossy().into_owned();
        git(repo.path(), &["remote", "add", "origin", &bare_path]);
        git(repo.path(), &["push", "-q", "origin", "main"]);
        World { mock, repo, bare }
    }

    /// `gh` with only the mock's environment, naming the mock's repository.
    fn gh(&self) -> Gh {
        Gh::new(gh_binary())
            .with_env(GhEnv::Only(self.mock.gh_env()))
            .with_repo(self.mock.repo_arg())
    }

    fn path(&self) -> &Path {
        self.repo.path()
    }

    /// A branch with one commit, back on `main` afterwards.
    fn branch(&self, name: &str) -> String {
        git(self.path(), &["checkout", "-q", "-b", name]);
        std::fs::write(
            self.path().join(format!("{}.txt", name.replace('/', "-"))),
            name,
        )
        .unwrap();
        git(self.path(), &["add", "-A"]);
        git(
            self.path(),
            &["commit", "-q", "-m", &format!("work on {name}")],
        );
        let tip = git(self.path(), &["rev-parse", "HEAD"]);
        git(self.path(), &["checkout", "-q", "main"]);
        tip
    }
}

fn found(lookup: PrLookup) -> PrStatus {
    match lookup {
        PrLookup::Found(status) => status,
        other => panic!("expected a pull request, got {other:?}"),
    }
}

fn unavailable(lookup: PrLookup) -> GhError {
    match lookup {
        PrLookup::Unavailable(err) => err,
        other => panic!("expected unavailable, got {other:?}"),
    }
}

/// The requests recorded from gh 2.23.0 (`fixtures/gh/requests-2.23.0.jsonl`).
fn fixtures() -> Vec<Value> {
    let path = codiva_testkit::workspace_root()
        .join("crates/codiva-testkit/fixtures/gh/requests-2.23.0.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every request of this run is one of the recorded ones (GraphQL: same document, same
/// variable names; REST: same method and path): the mock answers what the real `gh` sends.
fn assert_requests_match_fixtures(mock: &MockGitHub) {
    let fixtures = fixtures();
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    };
    for request in mock.requests() {
        let known = fixtures.iter().any(|f| {
            if request.operation.is_some() {
                f["body"]["query"] == request.body["query"]
                    && keys(&f["body"]["variables"]) == keys(request.variables())
            } else {
                f["method"] == request.method.as_str() && f["path"] == request.path.as_str()
            }
        });
        assert!(
            known,
            "gh sent a request that is not in the fixtures: {} {} {:?} {}",
            request.method, request.path, request.operation, request.body
        );
    }
    assert!(mock.unmatched().is_empty(), "{:?}", mock.unmatched());
}

#[tokio::test]
async fn push_and_open_a_draft_pull_request() {
    let w = World::new();
    let tip = w.branch("codiva/add-login");
    let repo = Repo::open(w.path()).await.unwrap();
    let remote = repo.base_remote("main").await.unwrap();
    assert_eq!(remote.as_deref(), Some("origin"));
    repo.push_branch(w.path(), "origin", "codiva/add-login")
        .await
        .unwrap();
    assert_eq!(
        git(w.bare.path(), &["rev-parse", "refs/heads/codiva/add-login"]),
        tip
    );

    let new = NewPr {
        title: "-Add login ログイン".into(),
        body: "First instruction: add a login page.\n\n- work on codiva/add-login".into(),
        base: "main".into(),
        head: "codiva/add-login".into(),
    };
    let created = w.gh().create_draft_pr(w.path(), &new).await.unwrap();
    assert_eq!(created.number, 1);
    assert_eq!(created.url, w.mock.pr_url(1));
    let prs = w.mock.prs();
    assert_eq!(prs.len(), 1);
    assert_eq!(prs[0].title, new.title);
    assert_eq!(prs[0].body, new.body);
    assert_eq!(prs[0].base, "main");
    assert_eq!(prs[0].head, "codiva/add-login");
    assert!(prs[0].draft);
    assert_eq!(prs[0].state, MockPrState::Open);

    let ops: Vec<_> = w
        .mock
        .requests()
        .into_iter()
        .filter_map(|r| r.operation)
        .collect();
    assert_eq!(
        ops,
        [
            "RepositoryInfo",
            "PullRequestForBranch",
            "PullRequestCreate"
        ]
    );
    assert_requests_match_fixtures(&w.mock);
}

#[tokio::test]
async fn checks_go_pending_then_failed_then_green_over_three_lookups() {
    let w = World::new();
    let number = w.mock.add_pr("codiva/fix", "main", "Fix");
    let gh = w.gh();
    w.mock.set_checks(
        number,
        vec![
            MockCheck::running("build"),
            MockCheck::completed("lint", "SUCCESS"),
        ],
    );
    let first = found(gh.lookup_branch(w.path(), "codiva/fix").await);
    assert_eq!(first.checks, Checks::Pending);
    assert_eq!(first.number, number);
    assert_eq!(first.url, w.mock.pr_url(number));
    assert_eq!(first.state, PrState::Open);
    assert_eq!(first.mergeable, Mergeable::Mergeable);

    w.mock.set_checks(
        number,
        vec![
            MockCheck::completed("build", "FAILURE"),
            MockCheck::completed("lint", "SUCCESS"),
        ],
    );
    assert_eq!(
        found(gh.lookup_branch(w.path(), "codiva/fix").await).checks,
        Checks::Failed
    );

    w.mock.set_checks(
        number,
        vec![
            MockCheck::completed("build", "SUCCESS"),
            MockCheck::status("ci/legacy", "SUCCESS"),
        ],
    );
    let green = found(gh.lookup_branch(w.path(), "codiva/fix").await);
    assert_eq!(green.checks, Checks::Passed);
    assert_eq!(w.mock.request_count(), 3, "one request per lookup");

    // By number, and the states that stop polling.
    w.mock.update_pr(number, |pr| {
        pr.state = MockPrState::Merged;
        pr.mergeable = codiva_testkit::MockMergeable::Unknown;
    });
    let merged = found(gh.lookup_number(w.path(), number).await);
    assert_eq!(merged.state, PrState::Merged);
    let mut watch = PrWatch::default();
    watch.record(PrLookup::Found(merged), Instant::now());
    assert_eq!(watch.interval(&PollPolicy::default()), None);
    assert_requests_match_fixtures(&w.mock);
}

#[tokio::test]
async fn no_pull_request_is_absent_not_unavailable() {
    let w = World::new();
    let gh = w.gh();
    assert_eq!(
        gh.lookup_branch(w.path(), "codiva/none").await,
        PrLookup::Absent
    );
    assert_eq!(gh.lookup_number(w.path(), 41).await, PrLookup::Absent);
    assert_requests_match_fixtures(&w.mock);
}

#[tokio::test]
async fn a_batched_lookup_of_three_branches_is_one_request() {
    let w = World::new();
    let a = w.mock.add_pr("codiva/a", "main", "A");
    w.mock.add_pr("someone/else", "main", "Other");
    let c_old = w.mock.add_pr("codiva/c", "main", "C, closed");
    w.mock.update_pr(c_old, |pr| pr.state = MockPrState::Closed);
    let c = w.mock.add_pr("codiva/c", "main", "C again");
    w.mock.update_pr(a, |pr| {
        pr.draft = true;
        pr.mergeable = codiva_testkit::MockMergeable::Conflicting;
    });
    w.mock
        .set_checks(c, vec![MockCheck::completed("build", "SUCCESS")]);

    let branches: Vec<String> = ["codiva/a", "codiva/b", "codiva/c"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let before = w.mock.request_count();
    let results = w.gh().lookup_branches(w.path(), &branches).await.unwrap();
    assert_eq!(
        w.mock.request_count() - before,
        1,
        "one request for the batch"
    );
    let request = w.mock.requests().pop().unwrap();
    assert_eq!(request.operation.as_deref(), Some("PullRequestList"));
    assert_eq!(request.variables()["limit"], 30);

    let first = found(results[0].clone());
    assert_eq!((first.number, first.draft), (a, true));
    assert_eq!(first.mergeable, Mergeable::Conflicting);
    assert_eq!(results[1], PrLookup::Absent);
    let third = found(results[2].clone());
    assert_eq!(third.number, c, "the newest pull request of the branch");
    assert_eq!(third.checks, Checks::Passed);
    assert_requests_match_fixtures(&w.mock);
}

#[tokio::test]
async fn server_errors_and_timeouts_are_unavailable_and_keep_the_last_status() {
    let w = World::new();
    let number = w.mock.add_pr("codiva/x", "main", "X");
    w.mock
        .set_checks(number, vec![MockCheck::completed("build", "SUCCESS")]);
    let policy = PollPolicy::default();
    let t0 = Instant::now();
    let mut watch = PrWatch::default();
    watch.record(w.gh().lookup_branch(w.path(), "codiva/x").await, t0);
    let green = watch.status().cloned().unwrap();
    assert_eq!(green.checks, Checks::Passed);

    w.mock.fail_next(Fault::ServerError);
    let err = unavailable(w.gh().lookup_branch(w.path(), "codiva/x").await);
    assert!(err.to_string().contains("HTTP 500"), "{err}");
    assert!(matches!(err, GhError::Network { .. }), "{err:?}");
    let t1 = t0 + policy.settled;
    watch.record(PrLookup::Unavailable(err.clone()), t1);
    assert_eq!(watch.status(), Some(&green), "the last known status stays");
    assert_eq!(
        poll::backoff_until(&policy, t1, SystemTime::now(), &err),
        None
    );

    w.mock.fail_next(Fault::Hang);
    let gh = w.gh().with_timeout(Duration::from_secs(3));
    let err = unavailable(gh.lookup_branch(w.path(), "codiva/x").await);
    assert!(matches!(err, GhError::Timeout { .. }), "{err:?}");
    let t2 = t1 + policy.settled;
    watch.record(PrLookup::Unavailable(err), t2);
    assert_eq!(watch.status(), Some(&green));
    assert!(!watch.is_stale(&policy, t2));
    assert!(watch.is_stale(&policy, t2 + policy.settled));

    // The mock answers again once the faults are used up.
    assert_eq!(
        found(w.gh().lookup_branch(w.path(), "codiva/x").await),
        green
    );
}

#[tokio::test]
async fn a_rate_limit_is_typed_and_backs_polling_off() {
    let w = World::new();
    w.mock.add_pr("codiva/x", "main", "X");
    let policy = PollPolicy::default();
    let reset = SystemTime::now() + Duration::from_secs(3600);
    let reset_epoch = reset
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    w.mock.fail_next(Fault::RateLimited { reset_epoch });
    let err = unavailable(w.gh().lookup_branch(w.path(), "codiva/x").await);
    assert!(err.to_string().contains("rate limit"), "{err}");
    assert!(matches!(err, GhError::RateLimited { .. }), "{err:?}");

    let now = Instant::now();
    let until = poll::backoff_until(&policy, now, SystemTime::now(), &err).unwrap();
    let mut watch = PrWatch::default();
    watch.record(PrLookup::Unavailable(err), now);
    let sessions = [("x", &watch)];
    let later = now + policy.settled;
    assert!(watch.is_stale(&policy, later));
    assert_eq!(
        poll::plan(&policy, later, Some(until), &sessions),
        PollPlan::BackedOff { until }
    );

    // The GraphQL budget answer (HTTP 200 with a RATE_LIMITED error) is the same error.
    w.mock.fail_next(Fault::GraphqlRateLimited);
    let err = w
        .gh()
        .lookup_branches(w.path(), &["codiva/x".into(), "b".into(), "c".into()])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("rate limit"), "{err}");
    assert!(matches!(err, GhError::RateLimited { .. }), "{err:?}");
}

#[tokio::test]
async fn without_a_token_gh_is_not_authenticated() {
    let w = World::new();
    let env: Vec<(String, String)> = w
        .mock
        .gh_env()
        .into_iter()
        .filter(|(k, _)| k != "GH_ENTERPRISE_TOKEN")
        .collect();
    let gh = Gh::new(gh_binary())
        .with_env(GhEnv::Only(env))
        .with_repo(w.mock.repo_arg());
    let err = unavailable(gh.lookup_branch(w.path(), "codiva/x").await);
    assert!(err.to_string().contains("gh auth login"), "{err}");
    assert!(matches!(err, GhError::NotAuthenticated { .. }), "{err:?}");
    assert!(err.backs_off());
}

#[tokio::test]
async fn a_draft_is_marked_ready() {
    let w = World::new();
    let number = w.mock.add_pr("codiva/x", "main", "X");
    w.mock.update_pr(number, |pr| pr.draft = true);
    w.gh().mark_ready(w.path(), number).await.unwrap();
    assert!(!w.mock.prs()[0].draft);
    let status = found(w.gh().lookup_number(w.path(), number).await);
    assert!(!status.draft);
    let ops: Vec<_> = w
        .mock
        .requests()
        .into_iter()
        .filter_map(|r| r.operation)
        .collect();
    assert_eq!(
        ops,
        [
            "PullRequestByNumber",
            "PullRequestReadyForReview",
            "PullRequestByNumber"
        ]
    );
    assert_requests_match_fixtures(&w.mock);
}

#[tokio::test]
async fn the_failed_log_of_a_red_check_is_read_within_a_budget() {
    let w = World::new();
    let number = w.mock.add_pr("codiva/x", "main", "X");
    w.mock.set_checks(
        number,
        vec![
            MockCheck::completed("build", "FAILURE").in_run(42),
            MockCheck::completed("lint", "SUCCESS").in_run(42),
        ],
    );
    let step = |name: &str, conclusion: &str, log: &str| MockStep {
        name: name.into(),
        conclusion: conclusion.into(),
        log: log.into(),
    };
    w.mock.add_run(MockRun {
        id: 42,
        head_branch: "codiva/x".into(),
        conclusion: "failure".into(),
        jobs: vec![MockJob {
            id: 4201,
            name: "build".into(),
            conclusion: "failure".into(),
            steps: vec![
                step(
                    "Set up job",
                    "success",
                    "2026-12-01T00:00:00.0Z runner ready\n",
                ),
                step(
                    "Run tests",
                    "failure",
                    "2026-12-01T00:00:01.0Z test login ... FAILED\n\
                     2026-12-01T00:00:02.0Z error: 1 test failed\n",
                ),
            ],
        }],
    });
    let status = found(w.gh().lookup_branch(w.path(), "codiva/x").await);
    assert_eq!(status.checks, Checks::Failed);
    assert_eq!(status.failed.len(), 1);
    assert_eq!(status.failed[0].name, "build");
    let run = status.failed[0].run_id().unwrap();
    assert_eq!(run, 42);

    let log = w.gh().failed_log(w.path(), run, 4096).await.unwrap();
    assert!(!log.truncated);
    assert!(log.text.contains("test login ... FAILED"), "{}", log.text);
    assert!(log.text.contains("error: 1 test failed"), "{}", log.text);
    assert!(
        !log.text.contains("runner ready"),
        "only the failed step: {}",
        log.text
    );
    assert_requests_match_fixtures(&w.mock);

    let short = w.gh().failed_log(w.path(), run, 50).await.unwrap();
    assert!(short.truncated);
    assert!(short.text.len() <= 50);
    assert!(
        short.text.ends_with("error: 1 test failed\n"),
        "{:?}",
        short.text
    );
}

#[tokio::test]
async fn a_full_list_does_not_make_an_older_pull_request_absent() {
    let w = World::new();
    let old = w.mock.add_pr("codiva/a", "main", "A, opened long ago");
    for i in 0..30 {
        w.mock.add_pr(&format!("other/{i}"), "main", "newer");
    }
    let branches: Vec<String> = ["codiva/a", "codiva/b", "codiva/c"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let results = w.gh().lookup_branches(w.path(), &branches).await.unwrap();
    assert_eq!(found(results[0].clone()).number, old);
    assert_eq!(results[1], PrLookup::Absent);
    assert_eq!(results[2], PrLookup::Absent);
    let ops: Vec<_> = w
        .mock
        .requests()
        .into_iter()
        .filter_map(|r| r.operation)
        .collect();
    assert_eq!(
        ops,
        [
            "PullRequestList",
            "PullRequestForBranch",
            "PullRequestForBranch",
            "PullRequestForBranch"
        ],
        "the list was cut at its limit: each missing branch is looked up on its own"
    );
    assert_requests_match_fixtures(&w.mock);
}
