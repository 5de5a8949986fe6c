//! `codiva exec --pr`: after a completed session, push the current branch and open a draft
//! pull request. exec runs in the current directory (no worktree of its own), so the branch is
//! the one checked out; the base is the remote's default branch, and "commits to propose" are
//! those of `HEAD` that the base's upstream (`<remote>/<base>`) lacks.

use std::path::Path;

use codiva_core::git::Repo;
use codiva_core::github::{Gh, NewPr, PrLookup, PrState, draft};

/// What `--pr` did.
pub enum Opened {
    Created {
        number: u64,
        url: String,
    },
    /// The branch had an open pull request: it was pushed to, not opened again.
    Existing {
        number: u64,
        url: String,
    },
    /// `HEAD` has nothing the base's upstream lacks: no pull request, and not a failure.
    NothingAhead {
        upstream: String,
    },
}

/// Pushes the current branch and opens its draft (title: the prompt's first line; body: the
/// prompt and the commits, sanitised). An error says why, in one line.
pub async fn open(cwd: &Path, gh: &Gh, prompt: &str) -> Result<Opened, String> {
    let repo = Repo::open(cwd).await.map_err(|err| err.to_string())?;
    let branch = repo
        .current_branch()
        .await
        .map_err(|err| err.to_string())?
        .ok_or("HEAD is detached: there is no branch to push")?;
    let remote = repo
        .base_remote(&branch)
        .await
        .map_err(|err| err.to_string())?
        .ok_or_else(|| {
            format!("no remote to push {branch} to (no branch.{branch}.remote, no origin)")
        })?;
    let base = repo
        .remote_default_branch(&remote)
        .await
        .map_err(|err| err.to_string())?
        .ok_or_else(|| {
            format!(
                "cannot tell {remote}'s default branch (run `git remote set-head {remote} --auto`)"
            )
        })?;
    if branch == base {
        return Err(format!(
            "{branch} is the base branch itself: run on a branch of its own to open a pull request"
        ));
    }
    let commits = repo
        .commit_subjects(
            &format!("refs/remotes/{remote}/{base}"),
            "HEAD",
            draft::BODY_COMMITS,
        )
        .await
        .map_err(|err| err.to_string())?;
    if commits.is_empty() {
        return Ok(Opened::NothingAhead {
            upstream: format!("{remote}/{base}"),
        });
    }
    repo.push_branch(cwd, &remote, &branch)
        .await
        .map_err(|err| format!("pushing {branch} to {remote} failed: {err}"))?;
    match gh.lookup_branch(cwd, &branch).await {
        PrLookup::Found(status) if status.state == PrState::Open => {
            return Ok(Opened::Existing {
                number: status.number,
                url: status.url,
            });
        }
        PrLookup::Unavailable(err) if err.backs_off() => return Err(err.to_string()),
        _ => {}
    }
    let new = NewPr {
        title: draft::title(prompt),
        body: draft::body(prompt, &commits, "Opened by `codiva exec --pr`."),
        base,
        head: branch,
    };
    let created = gh
        .create_draft_pr(cwd, &new)
        .await
        .map_err(|err| err.to_string())?;
    Ok(Opened::Created {
        number: created.number,
        url: created.url,
    })
}
