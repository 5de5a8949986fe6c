//! A pull request's review threads with the real `gh` (`gh api graphql`) against the mock
//! GitHub: the unresolved ones in full, the counts of several pull requests in one request,
//! and what `gh` sends for them (the repository by `--hostname` and variables, no `--repo`).

use codiva_core::github::review_threads::address_review_message;
use codiva_core::github::{Gh, GhEnv, GhError};
use codiva_testkit::{Fault, MockGitHub, MockReviewThread, gh_binary};
use serde_json::json;

fn gh(mock: &MockGitHub) -> Gh {
    Gh::new(gh_binary())
        .with_env(GhEnv::Only(mock.gh_env()))
        .with_repo(mock.repo_arg())
}

const HUNK: &str = "@@ -10,3 +10,4 @@ fn login() {\n     let user = find(name);\n+    let token = user.token.unwrap();";

/// A pull request with two unresolved threads and one resolved.
fn reviewed(mock: &MockGitHub) -> u64 {
    let number = mock.add_pr("codiva/login", "main", "Login");
    mock.add_review_thread(
        number,
        MockReviewThread::new(
            "src/login.rs",
            12,
            HUNK,
            "alice",
            "unwrap panics on a missing token",
        ),
    );
    let mut second = MockReviewThread::new(
        "src/session.rs",
        40,
        "@@ -38,2 +38,3 @@\n+    // TODO",
        "bob",
        "remove this TODO",
    );
    second
        .comments
        .push(("alice".into(), "agreed \u{1b}[31mplease\u{1b}[0m".into()));
    mock.add_review_thread(number, second);
    mock.add_review_thread(
        number,
        MockReviewThread::new("README.md", 3, "@@ -1 +1 @@\n+x", "carol", "typo").resolved(),
    );
    number
}

#[tokio::test]
async fn unresolved_threads_are_read_with_author_file_line_body_and_hunk() {
    let mock = MockGitHub::start("owner", "repo", "main").unwrap();
    let number = reviewed(&mock);
    let dir = tempfile::tempdir().unwrap();
    let threads = gh(&mock).review_threads(dir.path(), number).await.unwrap();
    assert_eq!(threads.resolved, 1);
    assert!(!threads.more);
    assert_eq!(threads.unresolved.len(), 2);
    let first = &threads.unresolved[0];
    assert_eq!(first.anchor(), "src/login.rs:12");
    assert_eq!(first.diff_hunk, HUNK);
    assert_eq!(first.comments[0].author, "alice");
    assert_eq!(first.comments[0].body, "unwrap panics on a missing token");
    let second = &threads.unresolved[1];
    assert_eq!(second.anchor(), "src/session.rs:40");
    assert_eq!(second.comments.len(), 2);

    // What gh sent: one GraphQL request, the repository as variables, the number an integer.
    let requests = mock.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].operation.as_deref(), Some("ReviewThreads"));
    assert_eq!(
        requests[0].variables(),
        &json!({"owner": "owner", "name": "repo", "number": number})
    );
    assert!(mock.unmatched().is_empty(), "{:?}", mock.unmatched());

    let message = address_review_message(number, &mock.pr_url(number), &threads.unresolved, 16384);
    assert_eq!(message.threads, 2);
    assert!(
        message.text.contains("1. src/login.rs:12\n"),
        "{}",
        message.text
    );
    assert!(
        message
            .text
            .contains("@bob: remove this TODO\n@alice: agreed "),
        "{}",
        message.text
    );
    assert!(
        !message.text.contains("README.md"),
        "a resolved thread is not sent"
    );
    // gh itself shows control characters of API text in caret notation (`^[`); none reaches
    // the message either way.
    assert!(!message.text.contains('\u{1b}'));
    assert!(!message.text.chars().any(|c| c.is_control() && c != '\n'));
}

#[tokio::test]
async fn several_pull_requests_are_counted_in_one_request() {
    let mock = MockGitHub::start("owner", "repo", "main").unwrap();
    let reviewed = reviewed(&mock);
    let quiet = mock.add_pr("codiva/quiet", "main", "Quiet");
    let dir = tempfile::tempdir().unwrap();
    let counts = gh(&mock)
        .unresolved_counts(dir.path(), &[reviewed, quiet, 999])
        .await
        .unwrap();
    assert_eq!(counts, [Some(2), Some(0), None]);
    assert_eq!(mock.request_count(), 1);
    assert_eq!(
        mock.requests()[0].operation.as_deref(),
        Some("ReviewThreadCounts")
    );

    // A reviewer resolves both: none left.
    mock.resolve_thread(reviewed, 0);
    mock.resolve_thread(reviewed, 1);
    let counts = gh(&mock)
        .unresolved_counts(dir.path(), &[reviewed])
        .await
        .unwrap();
    assert_eq!(counts, [Some(0)]);
    assert!(mock.unmatched().is_empty(), "{:?}", mock.unmatched());
}

#[tokio::test]
async fn a_failed_request_is_a_typed_error() {
    let mock = MockGitHub::start("owner", "repo", "main").unwrap();
    let number = reviewed(&mock);
    let dir = tempfile::tempdir().unwrap();
    mock.fail_next(Fault::ServerError);
    let err = gh(&mock)
        .review_threads(dir.path(), number)
        .await
        .unwrap_err();
    assert!(matches!(err, GhError::Network { .. }), "{err:?}");
    mock.fail_next(Fault::GraphqlRateLimited);
    let err = gh(&mock)
        .review_threads(dir.path(), number)
        .await
        .unwrap_err();
    assert!(matches!(err, GhError::RateLimited { .. }), "{err:?}");
    let err = gh(&mock).review_threads(dir.path(), 404).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("Could not resolve to a PullRequest"),
        "{err}"
    );
    // The query's text is not in the message, only its name.
    assert!(!err.to_string().contains("reviewThreads(first"), "{err}");
}
