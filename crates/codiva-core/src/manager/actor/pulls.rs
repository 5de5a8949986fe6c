//! A session's pull requests: pushing its branch and opening a draft (`session/pr`, and
//! `auto_pr` when it completes), the pull requests its agent opened itself (found in its tool
//! results), and what each record shows of them. Looking them up again is `pr_poll.rs`.
//!
//! Pushing and `gh` run in jobs on the session's lane; the actor only applies what they found.

use codiva_protocol::error::RefusalCode;
use codiva_protocol::github::{
    PrChecks, PrFailedCheck, PrLookupFailure, PrMergeable, PrState as WirePrState, PrUnavailable,
    PrView, SessionPr, SessionPrs,
};
use codiva_protocol::manager::{ManagerEvent, SessionPhase};

/// Tool results kept for pull request URLs while the repository is looked up at start.
const MAX_WAITING_RESULTS: usize = 32;

use super::record::Record;
use super::{Actor, refused};
use crate::github::{Checks, CreatedPr, GhError, Mergeable, NewPr, PrLookup, PrState, PrStatus};
use crate::manager::{ManagerError, Reply};

use crate::github::draft::BODY_COMMITS;

/// What the push-and-open job found.
enum Opened {
    /// Opened now.
    Created(CreatedPr),
    /// The branch had an open pull request already (on GitHub, not yet known to the session).
    Existing(PrStatus),
    /// The session knew its pull request: the branch was pushed again.
    Pushed,
}

impl Actor {
    /// `session/pr` (`reply` given) or `auto_pr` (no reply: a refusal is only logged, and a
    /// session with nothing to push is left alone).
    pub(super) fn pr(&mut self, id: &str, reply: Option<Reply<(SessionPr, bool)>>) {
        let answer = |reply: Option<Reply<(SessionPr, bool)>>, result| {
            if let Some(reply) = reply {
                reply.send(result);
            }
        };
        let record = match self.settled_with_worktree(id) {
            Ok(record) => record,
            Err(err) => return answer(reply, Err(err)),
        };
        // Its own pull request, unless that one is merged or closed (then a new one is opened).
        let known = record
            .prs
            .iter()
            .find(|pr| pr.own)
            .filter(|pr| {
                pr.view
                    .as_ref()
                    .is_none_or(|view| view.state == WirePrState::Open)
            })
            .cloned();
        let (branch, base, worktree) = (
            record.branch.clone(),
            record.base.clone(),
            record.worktree.clone(),
        );
        let title = record.title.clone();
        let prompt = record.prompt.clone();
        let repo = self.repo.clone();
        let gh = self.options.github.gh.clone();
        let owned_id = id.to_owned();
        let job_id = id.to_owned();
        self.job(
            Some(id),
            async move {
                let remote = match repo.base_remote(&base).await {
                    Ok(Some(remote)) => remote,
                    Ok(None) => {
                        return Err(refused(
                            RefusalCode::NoRemote,
                            &[&base],
                            format!("{base} has no remote to push to (no branch.{base}.remote, no origin)"),
                        ));
                    }
                    Err(err) => return Err(err.into()),
                };
                let commits = repo
                    .commit_subjects(
                        &format!("refs/heads/{base}"),
                        &format!("refs/heads/{branch}"),
                        BODY_COMMITS,
                    )
                    .await?;
                if commits.is_empty() && known.is_none() {
                    // The refusal offers `/commit` when work is uncommitted.
                    let uncommitted = repo
                        .uncommitted_files(&worktree)
                        .await
                        .map_or(0, |files| files.len());
                    if uncommitted > 0 {
                        return Err(refused(
                            RefusalCode::NothingToPush,
                            &[&branch, &base, &uncommitted.to_string()],
                            format!(
                                "nothing to push: {branch} has no commits that {base} lacks, and {}",
                                super::finish::commit_first(uncommitted)
                            ),
                        ));
                    }
                    return Err(refused(
                        RefusalCode::NothingToPush,
                        &[&branch, &base],
                        format!("nothing to push: {branch} has no commits that {base} lacks"),
                    ));
                }
                repo.push_branch(&worktree, &remote, &branch)
                    .await
                    .map_err(|err| {
                        let message = err.to_string();
                        refused(
                            RefusalCode::PushFailed,
                            &[&branch, &remote, &message],
                            format!("pushing {branch} to {remote} failed: {message}"),
                        )
                    })?;
                if known.is_some() {
                    return Ok(Opened::Pushed);
                }
                // An open pull request of the branch already (opened by hand, or by an agent
                // whose output was not seen): that one, not a second.
                match gh.lookup_branch(&worktree, &branch).await {
                    PrLookup::Found(status) if status.state == PrState::Open => {
                        return Ok(Opened::Existing(status));
                    }
                    PrLookup::Unavailable(err) if err.backs_off() => return Err(gh_refusal(&err)),
                    _ => {}
                }
                let new = NewPr {
                    title: crate::github::draft::title(&title),
                    body: crate::github::draft::body(
                        &prompt,
                        &commits,
                        &format!("Opened by codiva from session `{job_id}`."),
                    ),
                    base,
                    head: branch,
                };
                gh.create_draft_pr(&worktree, &new)
                    .await
                    .map(Opened::Created)
                    .map_err(|err| gh_refusal(&err))
            },
            move |actor, result| {
                let result = result.and_then(|opened| actor.opened(&owned_id, opened));
                if reply.is_none()
                    && let Err(err) = &result
                    && !matches!(err, ManagerError::Refused(r) if r.code == RefusalCode::NothingToPush)
                {
                    actor.emit(ManagerEvent::Warning {
                        message: format!("session {owned_id}: automatic pull request: {err}"),
                    });
                }
                answer(reply, result);
            },
        );
    }

    /// Keeps what the job opened or found; the session is watched from now on.
    fn opened(&mut self, id: &str, opened: Opened) -> Result<(SessionPr, bool), ManagerError> {
        let record = self.record(id)?;
        record.pushed = true;
        let (pr, created) = match opened {
            Opened::Created(created) => (
                SessionPr {
                    number: created.number,
                    url: created.url,
                    own: true,
                    view: None,
                },
                true,
            ),
            Opened::Existing(status) => (
                SessionPr {
                    number: status.number,
                    url: status.url.clone(),
                    own: true,
                    view: Some(view_of(&status)),
                },
                false,
            ),
            Opened::Pushed => {
                let own = record.prs.iter().find(|pr| pr.own).cloned();
                // Pushed again: new commits, new checks.
                record.watch.last_checked = None;
                let pr =
                    own.ok_or_else(|| ManagerError::Internal("the pull request is gone".into()))?;
                self.emit_prs(id);
                return Ok((pr, false));
            }
        };
        record.add_pr(pr.clone());
        // Looked up at the next tick.
        record.watch.last_checked = None;
        self.emit_prs(id);
        Ok((pr, created))
    }

    /// Emits the session's pull requests (`session/prStatus`) and saves the state soon.
    pub(super) fn emit_prs(&mut self, id: &str) {
        if let Some(record) = self.records.get(id) {
            self.emit(ManagerEvent::PrStatus {
                id: id.to_owned(),
                prs: record.pr_summary(),
            });
        }
        self.mark_dirty();
    }

    /// Pull requests of this repository named in a tool's result (the agent ran `gh pr
    /// create`, or printed one): added to the session's.
    pub(super) fn detect_prs(&mut self, id: &str, text: &str) {
        let Some(repo) = self.github_repo.clone() else {
            // Not looked up yet: kept (a few) until it is.
            if let Some(waiting) = self.github_waiting.as_mut()
                && waiting.len() < MAX_WAITING_RESULTS
            {
                waiting.push((id.to_owned(), text.to_owned()));
            }
            return;
        };
        let found = pr_urls(text, &repo);
        if found.is_empty() {
            return;
        }
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        let mut added = false;
        for (number, url) in found {
            if record.prs.iter().any(|pr| pr.number == number) {
                continue;
            }
            // Whose head it is shows at its first lookup; until then it is not the branch's own.
            record.prs.push(SessionPr {
                number,
                url,
                own: false,
                view: None,
            });
            record.watch.last_checked = None;
            added = true;
        }
        if added {
            self.emit_prs(id);
        }
    }

    /// `auto_pr`: a session that completed gets one draft pull request, once.
    pub(super) fn maybe_auto_pr(&mut self, id: &str) {
        if !self.options.github.auto_pr {
            return;
        }
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        if record.auto_pr_tried
            || record.in_place
            || record.prs.iter().any(|pr| pr.own)
            || record.status != codiva_protocol::session::Status::Completed
            || record.phase != SessionPhase::Active
        {
            return;
        }
        record.auto_pr_tried = true;
        self.mark_dirty();
        self.pr(id, None);
    }
}

impl Record {
    /// What front ends see of the session's pull requests.
    pub(super) fn pr_summary(&self) -> SessionPrs {
        SessionPrs {
            prs: self.prs.clone(),
            watched: self.is_watched(),
            checked: self.watch.known.is_some(),
            unavailable: self.watch.unavailable.as_ref().map(unavailable_of),
            paused_until_ms: self.paused_until_ms,
        }
    }

    /// Its pull requests are looked up: it has one, or its branch was pushed, and it still has
    /// its worktree (merged locally or discarded: no more).
    pub(super) fn is_watched(&self) -> bool {
        self.has_worktree() && (self.pushed || !self.prs.is_empty())
    }

    /// Adds or updates pull request `pr`; the branch's own goes first.
    pub(super) fn add_pr(&mut self, pr: SessionPr) {
        if let Some(at) = self.prs.iter().position(|p| p.number == pr.number) {
            self.prs.remove(at);
        }
        if pr.own {
            for other in &mut self.prs {
                other.own = false;
            }
            self.prs.insert(0, pr);
        } else {
            self.prs.push(pr);
        }
    }
}

/// A pull request's status as the protocol shows it.
pub(super) fn view_of(status: &PrStatus) -> PrView {
    PrView {
        state: match status.state {
            PrState::Open => WirePrState::Open,
            PrState::Merged => WirePrState::Merged,
            PrState::Closed => WirePrState::Closed,
        },
        draft: status.draft,
        checks: match status.checks {
            Checks::None => PrChecks::None,
            Checks::Pending => PrChecks::Pending,
            Checks::Failed => PrChecks::Failed,
            Checks::Passed => PrChecks::Passed,
        },
        mergeable: match status.mergeable {
            Mergeable::Mergeable => PrMergeable::Mergeable,
            Mergeable::Conflicting => PrMergeable::Conflicting,
            Mergeable::Unknown => PrMergeable::Unknown,
        },
        failed: status
            .failed
            .iter()
            .map(|check| PrFailedCheck {
                name: clean_line(&check.name, 200),
                url: clean_line(&check.url, 500),
            })
            .collect(),
        unresolved_reviews: None,
    }
}

fn unavailable_of(err: &GhError) -> PrUnavailable {
    let reason = match err {
        GhError::RateLimited { .. } => PrLookupFailure::RateLimited,
        GhError::NotAuthenticated { .. } => PrLookupFailure::NotAuthenticated,
        GhError::NotInstalled => PrLookupFailure::NotInstalled,
        GhError::Network { .. } => PrLookupFailure::Network,
        GhError::Timeout { .. } => PrLookupFailure::Timeout,
        _ => PrLookupFailure::Other,
    };
    PrUnavailable {
        reason,
        message: clean_line(&err.to_string(), 300),
    }
}

/// A failure of `gh` as the refusal a client words.
pub(super) fn gh_refusal(err: &GhError) -> ManagerError {
    let message = err.to_string();
    match err {
        GhError::NotInstalled => refused(RefusalCode::GhMissing, &[], message),
        GhError::NotAuthenticated { detail } => {
            refused(RefusalCode::GhNotAuthenticated, &[detail.as_str()], message)
        }
        GhError::RateLimited { .. } => refused(RefusalCode::GhRateLimited, &[], message),
        _ => refused(RefusalCode::PrFailed, &[message.as_str()], message.clone()),
    }
}

/// The session's own pull request `number` as GitHub has it now (`session/fixCi`,
/// `session/addressReview`): refused as [`no_open_pr`] unless it is there and open.
pub(super) async fn open_pr_now(
    gh: &crate::github::Gh,
    worktree: &std::path::Path,
    number: u64,
    id: &str,
) -> Result<PrStatus, ManagerError> {
    match gh.lookup_number(worktree, number).await {
        PrLookup::Found(status) if status.state == PrState::Open => Ok(status),
        PrLookup::Found(_) | PrLookup::Absent => Err(no_open_pr(id)),
        PrLookup::Unavailable(err) => Err(gh_refusal(&err)),
    }
}

/// Session `id` has no open pull request of its own.
pub(super) fn no_open_pr(id: &str) -> ManagerError {
    refused(
        RefusalCode::NoPr,
        &[id],
        format!("session {id} has no open pull request (open one with session/pr)"),
    )
}

/// One line of text from GitHub or gh, safe for a terminal: controls and bidi overrides
/// dropped, at most `max` characters.
fn clean_line(text: &str, max: usize) -> String {
    crate::github::draft::clean_line(text, max)
}

/// `HOST/OWNER/REPO` of a remote URL on github.com-like hosts (`https://host/o/r(.git)`,
/// `git@host:o/r(.git)`, `ssh://git@host/o/r`), lower-cased.
pub(super) fn repo_of_remote(url: &str) -> Option<String> {
    let rest = if let Some((_, rest)) = url.split_once("://") {
        let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
        rest.to_owned()
    } else {
        let (user_host, path) = url.split_once(':')?;
        let host = user_host.rsplit_once('@').map_or(user_host, |(_, h)| h);
        format!("{host}/{path}")
    };
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    let parts: Vec<&str> = rest.split('/').collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    // A port in an ssh URL is not part of the web host.
    let host = parts[0].split(':').next().unwrap_or(parts[0]);
    Some(format!("{host}/{}/{}", parts[1], parts[2]).to_ascii_lowercase())
}

/// Whether a tool call opens a pull request: a shell command running `gh pr create`, or a
/// tool named for it (an MCP server's `create_pull_request`). Only their results are read for
/// pull request URLs: a `gh pr view` of someone else's pull request is not the session's.
pub(super) fn creates_pr(tool: &codiva_protocol::log::ToolEntry) -> bool {
    if tool
        .name
        .to_ascii_lowercase()
        .contains("create_pull_request")
    {
        return true;
    }
    let command = ["command", "cmd"]
        .iter()
        .find_map(|key| match &tool.input[*key] {
            serde_json::Value::String(text) => Some(text.clone()),
            serde_json::Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(serde_json::Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let words: Vec<&str> = command.split_whitespace().collect();
    words
        .windows(3)
        .any(|w| w[0].ends_with("gh") && w[1] == "pr" && w[2] == "create")
}

/// Pull request URLs of `repo` (`HOST/OWNER/REPO`) in `text`, in order, each once.
pub(super) fn pr_urls(text: &str, repo: &str) -> Vec<(u64, String)> {
    let mut found: Vec<(u64, String)> = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || "\"'<>()[]`,".contains(c)) {
        let Some(rest) = token
            .strip_prefix("https://")
            .or_else(|| token.strip_prefix("http://"))
        else {
            continue;
        };
        let Some((head, tail)) = rest.split_once("/pull/") else {
            continue;
        };
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        let after = &tail[digits.len()..];
        if digits.is_empty() || !(after.is_empty() || after.starts_with(['/', '#', '?', '.'])) {
            continue;
        }
        if !head.eq_ignore_ascii_case(repo) {
            continue;
        }
        let Ok(number) = digits.parse() else {
            continue;
        };
        if !found.iter().any(|(n, _)| *n == number) {
            found.push((number, format!("https://{head}/pull/{number}")));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_name_their_repository() {
        assert_eq!(
            repo_of_remote("https://github.com/Owner/Repo.git").as_deref(),
            Some("github.com/owner/repo")
        );
        assert_eq!(
            repo_of_remote("git@github.com:o/r.git").as_deref(),
            Some("github.com/o/r")
        );
        assert_eq!(
            repo_of_remote("ssh://git@github.com:22/o/r").as_deref(),
            Some("github.com/o/r")
        );
        assert_eq!(repo_of_remote("/tmp/bare"), None);
    }

    fn tool(name: &str, input: serde_json::Value) -> codiva_protocol::log::ToolEntry {
        serde_json::from_value(serde_json::json!({
            "tool_use_id": "t", "name": name, "summary": "", "kind": "execute", "title": "",
            "content": [], "input": input, "status": "succeeded", "result": null,
            "duration_ms": null
        }))
        .unwrap()
    }

    #[test]
    fn only_a_call_that_opens_a_pull_request_is_read_for_one() {
        let bash = |command: &str| tool("Bash", serde_json::json!({ "command": command }));
        assert!(creates_pr(&bash("gh pr create --draft --fill")));
        assert!(creates_pr(&bash(
            "git push -u origin x && /usr/bin/gh pr create -t x"
        )));
        assert!(!creates_pr(&bash("gh pr view 12")));
        assert!(!creates_pr(&bash("echo gh pr list")));
        assert!(creates_pr(&tool(
            "shell",
            serde_json::json!({"command": ["gh", "pr", "create", "--fill"]})
        )));
        assert!(creates_pr(&tool(
            "mcp__github__create_pull_request",
            serde_json::json!({})
        )));
    }

    #[test]
    fn pull_request_urls_of_this_repository_only() {
        let text = "Created https://github.com/o/r/pull/12\nsee https://github.com/x/y/pull/3 \
                    and (https://github.com/O/R/pull/12) https://github.com/o/r/pull/15/files \
                    https://github.com/o/r/pull/7x";
        assert_eq!(
            pr_urls(text, "github.com/o/r"),
            vec![
                (12, "https://github.com/o/r/pull/12".to_owned()),
                (15, "https://github.com/o/r/pull/15".to_owned()),
            ]
        );
    }
}
