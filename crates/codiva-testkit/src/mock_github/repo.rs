//! The mock GitHub's data (one repository and its pull requests) and its answers to the GraphQL
//! operations `gh` sends, shaped after GitHub's GraphQL schema for the fields `gh` asks for.
//!
//! The operations and their variables are the ones recorded from the real `gh` in
//! `fixtures/gh/requests-2.23.0.jsonl`; an operation is recognised by its name (`query
//! PullRequestList(…)`), the way `gh` names each one.

use serde_json::{Value, json};

/// A pull request's state as GitHub's `PullRequestState` enum spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MockPrState {
    Open,
    Closed,
    Merged,
}

impl MockPrState {
    fn as_str(self) -> &'static str {
        match self {
            MockPrState::Open => "OPEN",
            MockPrState::Closed => "CLOSED",
            MockPrState::Merged => "MERGED",
        }
    }
}

/// GitHub's `MergeableState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MockMergeable {
    Mergeable,
    Conflicting,
    Unknown,
}

impl MockMergeable {
    fn as_str(self) -> &'static str {
        match self {
            MockMergeable::Mergeable => "MERGEABLE",
            MockMergeable::Conflicting => "CONFLICTING",
            MockMergeable::Unknown => "UNKNOWN",
        }
    }
}

/// One entry of a commit's status check rollup: a check run (GitHub Actions and apps) or a
/// legacy commit status (`StatusContext`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MockCheck {
    /// A `CheckRun`: `status` is `QUEUED`/`IN_PROGRESS`/`COMPLETED`, `conclusion` is set once
    /// completed (`SUCCESS`, `FAILURE`, `CANCELLED`, `SKIPPED`, `NEUTRAL`, `TIMED_OUT`, …).
    Run {
        name: String,
        status: &'static str,
        conclusion: Option<&'static str>,
        /// The workflow run it belongs to (its `detailsUrl` points into it).
        run_id: u64,
    },
    /// A `StatusContext`: `state` is `PENDING`/`SUCCESS`/`FAILURE`/`ERROR`/`EXPECTED`.
    Status {
        context: String,
        state: &'static str,
    },
}

impl MockCheck {
    /// A check run still running.
    pub fn running(name: &str) -> Self {
        MockCheck::Run {
            name: name.into(),
            status: "IN_PROGRESS",
            conclusion: None,
            run_id: 1,
        }
    }

    /// A completed check run with `conclusion`.
    pub fn completed(name: &str, conclusion: &'static str) -> Self {
        MockCheck::Run {
            name: name.into(),
            status: "COMPLETED",
            conclusion: Some(conclusion),
            run_id: 1,
        }
    }

    /// The same check run, part of workflow run `id` (see [`crate::MockGitHub::add_run`]).
    pub fn in_run(mut self, id: u64) -> Self {
        if let MockCheck::Run { run_id, .. } = &mut self {
            *run_id = id;
        }
        self
    }

    /// A legacy commit status.
    pub fn status(context: &str, state: &'static str) -> Self {
        MockCheck::Status {
            context: context.into(),
            state,
        }
    }

    /// `web` is the repository's web URL (`https://HOST/owner/repo`).
    fn to_node(&self, web: &str) -> Value {
        let stamp = "2026-12-01T00:00:00Z";
        match self {
            MockCheck::Run {
                name,
                status,
                conclusion,
                run_id,
            } => json!({
                "__typename": "CheckRun",
                "name": name,
                "checkSuite": {"workflowRun": {"workflow": {"name": "CI"}}},
                "status": status,
                // `conclusion` and `completedAt` are null until the run has completed.
                "conclusion": conclusion,
                "startedAt": stamp,
                "completedAt": conclusion.map(|_| stamp),
                "detailsUrl": format!("{web}/actions/runs/{run_id}/job/{}", run_id * 100 + 1),
            }),
            MockCheck::Status { context, state } => json!({
                "__typename": "StatusContext",
                "context": context,
                "state": state,
                "targetUrl": format!("{web}/statuses/{context}"),
                "createdAt": stamp,
            }),
        }
    }
}

/// One pull request of the mock repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockPr {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub base: String,
    pub head: String,
    pub state: MockPrState,
    pub draft: bool,
    pub mergeable: MockMergeable,
    pub checks: Vec<MockCheck>,
}

/// One review thread of a pull request (GitHub's `PullRequestReviewThread`): a line of a file,
/// the diff hunk its first comment was written on, its comments, resolved or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockReviewThread {
    pub path: String,
    /// The line on the current diff (`None`: outdated).
    pub line: Option<u64>,
    pub start_line: Option<u64>,
    pub resolved: bool,
    pub outdated: bool,
    pub diff_hunk: String,
    /// `(author login, body)`, first to last.
    pub comments: Vec<(String, String)>,
}

impl MockReviewThread {
    /// An unresolved thread on `path:line` with one comment of `author`.
    pub fn new(path: &str, line: u64, diff_hunk: &str, author: &str, body: &str) -> Self {
        MockReviewThread {
            path: path.into(),
            line: Some(line),
            start_line: None,
            resolved: false,
            outdated: false,
            diff_hunk: diff_hunk.into(),
            comments: vec![(author.into(), body.into())],
        }
    }

    /// The same thread, resolved.
    pub fn resolved(mut self) -> Self {
        self.resolved = true;
        self
    }

    /// The thread's node as GitHub's GraphQL schema shapes it (every field codiva asks).
    fn to_node(&self, pr_url: &str, pr: u64, index: usize) -> Value {
        let comments: Vec<Value> = self
            .comments
            .iter()
            .enumerate()
            .map(|(i, (author, body))| {
                json!({
                    "author": {"login": author},
                    "body": body,
                    "diffHunk": self.diff_hunk,
                    "url": format!("{pr_url}#discussion_r{}", pr * 1000 + (index * 100 + i) as u64),
                })
            })
            .collect();
        json!({
            "id": format!("PRRT_mock{pr}_{index}"),
            "isResolved": self.resolved,
            "isOutdated": self.outdated,
            "path": self.path,
            "line": self.line,
            "startLine": self.start_line,
            "originalLine": self.line,
            "originalStartLine": self.start_line,
            "comments": {"totalCount": comments.len(), "nodes": comments},
        })
    }
}

/// The repository the mock serves (`owner/repo`) and its pull requests, newest last.
#[derive(Debug)]
pub(crate) struct MockRepo {
    pub(crate) owner: String,
    pub(crate) name: String,
    pub(crate) default_branch: String,
    pub(crate) prs: Vec<MockPr>,
    /// Review threads by pull request number, in the order they were added.
    pub(crate) threads: Vec<(u64, MockReviewThread)>,
    /// `https://localhost:PORT`, for the URLs in answers.
    pub(crate) base_url: String,
}

/// The operation name of a GraphQL document (`query Name(` / `mutation Name(`), if any.
pub fn operation_name(query: &str) -> Option<String> {
    for keyword in ["query", "mutation"] {
        let mut rest = query;
        while let Some(at) = rest.find(keyword) {
            let before_ok = at == 0
                || rest[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_whitespace() || c == '}');
            let after = &rest[at + keyword.len()..];
            if before_ok && after.starts_with(char::is_whitespace) {
                let name: String = after
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    return Some(name);
                }
            }
            rest = after;
        }
    }
    None
}

fn not_found(message: String, path: &str) -> Value {
    json!({"data": null, "errors": [{"type": "NOT_FOUND", "path": [path], "message": message}]})
}

impl MockRepo {
    fn pr_url(&self, number: u64) -> String {
        format!(
            "{}/{}/{}/pull/{number}",
            self.base_url, self.owner, self.name
        )
    }

    fn repo_node(&self) -> Value {
        json!({
            "id": "R_kgDOmock",
            "name": self.name,
            "owner": {"login": self.owner},
            "hasIssuesEnabled": true,
            "description": "",
            "hasWikiEnabled": false,
            "viewerPermission": "ADMIN",
            "defaultBranchRef": {"name": self.default_branch},
        })
    }

    /// Every field `gh` asks of a pull request in the recorded operations (a superset: `gh`
    /// reads the ones it asked for).
    fn pr_node(&self, pr: &MockPr) -> Value {
        let contexts: Vec<Value> = pr
            .checks
            .iter()
            .map(|c| c.to_node(&format!("{}/{}/{}", self.base_url, self.owner, self.name)))
            .collect();
        // A commit without any check or status has a null rollup.
        let rollup = if contexts.is_empty() {
            Value::Null
        } else {
            json!({"contexts": {"nodes": contexts,
                                "pageInfo": {"hasNextPage": false, "endCursor": ""}}})
        };
        json!({
            "id": format!("PR_mock{}", pr.number),
            "number": pr.number,
            "title": pr.title,
            "body": pr.body,
            "url": self.pr_url(pr.number),
            "state": pr.state.as_str(),
            "isDraft": pr.draft,
            "mergeable": pr.mergeable.as_str(),
            "baseRefName": pr.base,
            "headRefName": pr.head,
            "isCrossRepository": false,
            "headRepositoryOwner": {"id": "U_mock", "login": self.owner},
            "createdAt": "2026-12-01T00:00:00Z",
            "statusCheckRollup": {"nodes": [{"commit": {"oid": "0".repeat(40),
                                                        "statusCheckRollup": rollup}}]},
        })
    }

    /// Pull requests newest first (`orderBy: CREATED_AT DESC`), filtered by the variables
    /// `gh` passes (`states`/`state`, `headRefName`/`headBranch`, `baseBranch`).
    fn matching(&self, states: &Value, head: Option<&str>, base: Option<&str>) -> Vec<&MockPr> {
        let allowed: Option<Vec<&str>> = states
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect());
        self.prs
            .iter()
            .rev()
            .filter(|pr| {
                allowed
                    .as_ref()
                    .is_none_or(|s| s.contains(&pr.state.as_str()))
            })
            .filter(|pr| head.is_none_or(|h| pr.head == h))
            .filter(|pr| base.is_none_or(|b| pr.base == b))
            .collect()
    }

    /// The answer to one GraphQL operation; `None` for an operation the mock does not know.
    pub(crate) fn answer(&mut self, operation: &str, vars: &Value) -> Option<Value> {
        let str_var = |name: &str| vars.get(name).and_then(Value::as_str);
        match operation {
            "RepositoryInfo" => {
                let mut node = self.repo_node();
                node["parent"] = Value::Null;
                node["mergeCommitAllowed"] = json!(true);
                node["rebaseMergeAllowed"] = json!(true);
                node["squashMergeAllowed"] = json!(true);
                Some(json!({"data": {"repository": node}}))
            }
            "PullRequestForBranch" => {
                let nodes: Vec<Value> = self
                    .matching(&vars["states"], str_var("headRefName"), None)
                    .into_iter()
                    .take(30)
                    .map(|pr| self.pr_node(pr))
                    .collect();
                Some(json!({"data": {"repository": {
                    "pullRequests": {"nodes": nodes},
                    "defaultBranchRef": {"name": self.default_branch},
                }}}))
            }
            "PullRequestByNumber" => {
                let number = vars.get("pr_number").and_then(Value::as_u64).unwrap_or(0);
                Some(match self.prs.iter().find(|pr| pr.number == number) {
                    Some(pr) => json!({"data": {"repository": {"pullRequest": self.pr_node(pr)}}}),
                    None => not_found(
                        format!("Could not resolve to a PullRequest with the number of {number}."),
                        "repository",
                    ),
                })
            }
            "PullRequestList" => {
                // The query's default for `$state` is OPEN.
                let states = match vars.get("state") {
                    Some(v) if !v.is_null() => v.clone(),
                    _ => json!(["OPEN"]),
                };
                let all = self.matching(&states, str_var("headBranch"), str_var("baseBranch"));
                let limit = vars.get("limit").and_then(Value::as_u64).unwrap_or(30);
                let limit = usize::try_from(limit).unwrap_or(usize::MAX);
                let total = all.len();
                let nodes: Vec<Value> = all
                    .into_iter()
                    .take(limit)
                    .map(|pr| self.pr_node(pr))
                    .collect();
                Some(json!({"data": {"repository": {"pullRequests": {
                    "totalCount": total,
                    "nodes": nodes,
                    "pageInfo": {"hasNextPage": total > limit, "endCursor": ""},
                }}}}))
            }
            "PullRequestCreate" => {
                let input = &vars["input"];
                let text = |k: &str| {
                    input
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                };
                let number = self.prs.iter().map(|pr| pr.number).max().unwrap_or(0) + 1;
                let pr = MockPr {
                    number,
                    title: text("title"),
                    body: text("body"),
                    base: text("baseRefName"),
                    head: text("headRefName"),
                    state: MockPrState::Open,
                    draft: input.get("draft").and_then(Value::as_bool) == Some(true),
                    mergeable: MockMergeable::Unknown,
                    checks: Vec::new(),
                };
                self.prs.push(pr);
                Some(json!({"data": {"createPullRequest": {"pullRequest": {
                    "id": format!("PR_mock{number}"),
                    "url": self.pr_url(number),
                }}}}))
            }
            "PullRequestReadyForReview" => {
                let id = vars["input"]["pullRequestId"].as_str().unwrap_or("");
                let pr = self
                    .prs
                    .iter_mut()
                    .find(|pr| format!("PR_mock{}", pr.number) == id);
                Some(match pr {
                    Some(pr) => {
                        pr.draft = false;
                        json!({"data": {"markPullRequestReadyForReview":
                            {"pullRequest": {"id": id}}}})
                    }
                    None => not_found(
                        format!("Could not resolve to a node with the global id of '{id}'"),
                        "markPullRequestReadyForReview",
                    ),
                })
            }
            // Not recorded from gh (it has no review-thread command): codiva's own documents,
            // sent with `gh api graphql` (`codiva_core::github::review_threads`).
            "ReviewThreads" => {
                let number = vars.get("number").and_then(Value::as_u64).unwrap_or(0);
                Some(match self.threads_node(number) {
                    Some(threads) => {
                        json!({"data": {"repository": {"pullRequest": {"reviewThreads": threads}}}})
                    }
                    None => not_found(
                        format!("Could not resolve to a PullRequest with the number of {number}."),
                        "repository",
                    ),
                })
            }
            "ReviewThreadCounts" => {
                // One aliased field `p<i>` for each variable `n<i>`; a number GitHub does not
                // know is `null` there, with a `NOT_FOUND` error beside the data.
                let mut repository = serde_json::Map::new();
                let mut errors = Vec::new();
                for i in 0.. {
                    let Some(number) = vars.get(format!("n{i}")).and_then(Value::as_u64) else {
                        break;
                    };
                    let node = match self.threads_node(number) {
                        Some(threads) => json!({"reviewThreads": threads}),
                        None => {
                            errors.push(json!({"type": "NOT_FOUND",
                                "path": ["repository", format!("p{i}")],
                                "message": format!("Could not resolve to a PullRequest with the number of {number}.")}));
                            Value::Null
                        }
                    };
                    repository.insert(format!("p{i}"), node);
                }
                let mut answer = json!({"data": {"repository": repository}});
                if !errors.is_empty() {
                    answer["errors"] = Value::Array(errors);
                }
                Some(answer)
            }
            _ => None,
        }
    }

    /// The `reviewThreads` connection of pull request `number`, if there is one.
    fn threads_node(&self, number: u64) -> Option<Value> {
        self.prs.iter().find(|pr| pr.number == number)?;
        let url = self.pr_url(number);
        let nodes: Vec<Value> = self
            .threads
            .iter()
            .filter(|(n, _)| *n == number)
            .enumerate()
            .map(|(i, (_, thread))| thread.to_node(&url, number, i))
            .collect();
        Some(json!({"totalCount": nodes.len(), "nodes": nodes}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_names_are_read_from_the_document() {
        assert_eq!(
            operation_name("fragment pr on PullRequest{number}\n\t\tquery PullRequestList(\n")
                .as_deref(),
            Some("PullRequestList")
        );
        assert_eq!(
            operation_name("mutation PullRequestReadyForReview($input:X!){}").as_deref(),
            Some("PullRequestReadyForReview")
        );
        assert_eq!(operation_name("{ viewer { login } }"), None);
    }
}
