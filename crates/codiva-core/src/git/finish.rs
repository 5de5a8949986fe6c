//! Finishing a session's work: diff stat, merge into the base, sync the base into the worktree.
//! Discard and remove-after-merge (kept under an archive ref) are in [`super::archive`].

use std::path::Path;
use std::time::Duration;

use codiva_protocol::manager::{DiffStat, FileStat, StatusEntry};

use super::repo::current_branch_in;
use super::runner::{Git, split_nul};
use super::{GitError, Repo, check_name};

/// `git merge` may run hooks; give it longer than an ordinary call.
const MERGE_TIMEOUT: Duration = Duration::from_secs(120);

/// The result of [`Repo::merge`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MergeOutcome {
    /// A `--no-ff` merge commit landed on the base.
    Merged {
        /// The merge commit.
        commit: String,
    },
    /// The branch is already contained in the base; nothing was done.
    UpToDate,
    /// The merge conflicted and was aborted; the main checkout is as before.
    Conflict {
        /// The conflicting files.
        files: Vec<String>,
    },
    /// The merge was not attempted.
    Refused {
        /// A one-line message for the user.
        reason: String,
    },
}

/// The result of [`Repo::sync`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SyncOutcome {
    /// The base was merged into the worktree's branch.
    Merged {
        /// The new HEAD of the worktree.
        commit: String,
    },
    /// The base is already contained in the branch.
    UpToDate,
    /// The merge conflicted; the conflict markers are left in the worktree for the agent.
    Conflict {
        /// The conflicting files.
        files: Vec<String>,
    },
    /// The worktree has uncommitted changes to tracked files; nothing was done.
    Dirty {
        /// The changed files.
        files: Vec<String>,
    },
}

impl Repo {
    /// Committed changes `base...HEAD` (numstat), uncommitted files and commits ahead, in
    /// `worktree`.
    pub async fn diff_stat(&self, worktree: &Path, base: &str) -> Result<DiffStat, GitError> {
        check_name(base)?;
        let numstat = Git::new(worktree)
            .args(["diff", "--numstat", "-z"])
            .arg(format!("{base}...HEAD"))
            .run()
            .await?;
        let files = parse_numstat_z(&numstat.stdout);
        let uncommitted = self.uncommitted(worktree).await?;
        let ahead = Git::new(worktree)
            .args(["rev-list", "--count"])
            .arg(format!("{base}..HEAD"))
            .text()
            .await?;
        Ok(DiffStat {
            insertions: files.iter().filter_map(|f| f.added).sum(),
            deletions: files.iter().filter_map(|f| f.deleted).sum(),
            files,
            uncommitted,
            commits_ahead: ahead.parse().unwrap_or(0),
        })
    }

    /// Merges `branch` into `base` in the main checkout with `git merge --no-ff --no-edit`.
    ///
    /// Refused when the main checkout is not on `base`, has a merge in progress, or has
    /// uncommitted changes to tracked files. Untracked files do not block: git itself refuses
    /// (an error, nothing changed) if the merge would overwrite one. On a conflict the merge is
    /// aborted and the conflicting files are returned.
    pub async fn merge(&self, branch: &str, base: &str) -> Result<MergeOutcome, GitError> {
        check_name(branch)?;
        check_name(base)?;
        let root = self.root();
        match current_branch_in(root).await? {
            Some(current) if current == base => {}
            Some(current) => {
                return Ok(MergeOutcome::Refused {
                    reason: format!(
                        "the main checkout is on {current}, not {base}; switch it to {base} first"
                    ),
                });
            }
            None => {
                return Ok(MergeOutcome::Refused {
                    reason: format!(
                        "the main checkout has a detached HEAD; switch it to {base} first"
                    ),
                });
            }
        }
        if merge_in_progress(root).await? {
            return Ok(MergeOutcome::Refused {
                reason:
                    "a merge is already in progress in the main checkout; finish or abort it first"
                        .to_string(),
            });
        }
        let dirty = tracked_changes(root).await?;
        if !dirty.is_empty() {
            return Ok(MergeOutcome::Refused {
                reason: format!(
                    "the main checkout has uncommitted changes ({}); commit or stash them first",
                    short_list(&dirty)
                ),
            });
        }
        Ok(match merge_into(root, branch, "--no-ff", true).await? {
            Merging::UpToDate => MergeOutcome::UpToDate,
            Merging::Merged { commit } => MergeOutcome::Merged { commit },
            Merging::Conflict { files } => MergeOutcome::Conflict { files },
        })
    }

    /// Merges the local `base` into the worktree's branch. A worktree with uncommitted changes to
    /// tracked files is left alone ([`SyncOutcome::Dirty`]); on a conflict the markers are left in
    /// place for the agent to resolve.
    pub async fn sync(&self, worktree: &Path, base: &str) -> Result<SyncOutcome, GitError> {
        check_name(base)?;
        let dirty = tracked_changes(worktree).await?;
        if !dirty.is_empty() {
            return Ok(SyncOutcome::Dirty {
                files: dirty.into_iter().map(|e| e.path).collect(),
            });
        }
        // `--ff`: a fast-forward when possible, a merge commit otherwise, whatever merge.ff says.
        Ok(match merge_into(worktree, base, "--ff", false).await? {
            Merging::UpToDate => SyncOutcome::UpToDate,
            Merging::Merged { commit } => SyncOutcome::Merged { commit },
            Merging::Conflict { files } => SyncOutcome::Conflict { files },
        })
    }

    /// `git status` of a worktree, untracked files included, minus the symlinks codiva carried
    /// (an untracked link whose target is the same path in the main checkout).
    pub(super) async fn uncommitted(&self, worktree: &Path) -> Result<Vec<StatusEntry>, GitError> {
        let output = Git::new(worktree)
            .args(["status", "--porcelain=v1", "-z", "--untracked-files=normal"])
            .run()
            .await?;
        let root = self.root();
        Ok(parse_status_z(&output.stdout)
            .into_iter()
            .filter(|entry| {
                entry.status != "??"
                    || std::fs::read_link(worktree.join(&entry.path))
                        .map_or(true, |target| target != root.join(&entry.path))
            })
            .collect())
    }
}

/// How [`merge_into`] went.
enum Merging {
    UpToDate,
    Merged { commit: String },
    Conflict { files: Vec<String> },
}

/// Merges `what` into the branch checked out at `dir` (`mode`: `--ff` or `--no-ff`), unless
/// HEAD contains it already. A conflict names its files; with `abort` the merge is aborted,
/// else its markers stay in the files.
async fn merge_into(dir: &Path, what: &str, mode: &str, abort: bool) -> Result<Merging, GitError> {
    if is_ancestor(dir, what, "HEAD").await? {
        return Ok(Merging::UpToDate);
    }
    let merge = Git::new(dir)
        .args(["merge", mode, "--no-edit", what])
        .timeout(MERGE_TIMEOUT)
        .output()
        .await?;
    if merge.success() {
        let commit = Git::new(dir).args(["rev-parse", "HEAD"]).text().await?;
        return Ok(Merging::Merged { commit });
    }
    let files = unmerged_files(dir).await?;
    if abort && merge_in_progress(dir).await? {
        Git::new(dir).args(["merge", "--abort"]).run().await?;
    }
    if files.is_empty() {
        Err(merge.into_error())
    } else {
        Ok(Merging::Conflict { files })
    }
}

/// Changes to tracked files (staged or not, unmerged included).
async fn tracked_changes(dir: &Path) -> Result<Vec<StatusEntry>, GitError> {
    let output = Git::new(dir)
        .args(["status", "--porcelain=v1", "-z", "--untracked-files=no"])
        .run()
        .await?;
    Ok(parse_status_z(&output.stdout))
}

async fn merge_in_progress(dir: &Path) -> Result<bool, GitError> {
    Git::new(dir)
        .args(["rev-parse", "--verify", "--quiet", "MERGE_HEAD"])
        .check()
        .await
}

async fn is_ancestor(dir: &Path, ancestor: &str, descendant: &str) -> Result<bool, GitError> {
    Git::new(dir)
        .args(["merge-base", "--is-ancestor", ancestor, descendant])
        .check()
        .await
}

async fn unmerged_files(dir: &Path) -> Result<Vec<String>, GitError> {
    let output = Git::new(dir)
        .args(["diff", "--name-only", "--diff-filter=U", "-z"])
        .run()
        .await?;
    let mut files = output.nul_fields();
    files.dedup();
    Ok(files)
}

fn short_list(entries: &[StatusEntry]) -> String {
    const SHOWN: usize = 3;
    let mut list = entries
        .iter()
        .take(SHOWN)
        .map(|e| e.path.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if entries.len() > SHOWN {
        list.push_str(&format!(" and {} more", entries.len() - SHOWN));
    }
    list
}

/// Parses `git diff --numstat -z`: `added\tdeleted\tpath\0`, or for a rename
/// `added\tdeleted\t\0old\0new\0`; `-\t-\t` for binary files.
pub(crate) fn parse_numstat_z(bytes: &[u8]) -> Vec<FileStat> {
    let mut fields = bytes.split(|b| *b == 0);
    let mut files = Vec::new();
    while let Some(field) = fields.next() {
        if field.is_empty() {
            continue;
        }
        let field = String::from_utf8_lossy(field);
        let mut parts = field.splitn(3, '\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (path, old_path) = if path.is_empty() {
            let old = fields
                .next()
                .map(|f| String::from_utf8_lossy(f).into_owned());
            let new = fields
                .next()
                .map(|f| String::from_utf8_lossy(f).into_owned());
            match (old, new) {
                (Some(old), Some(new)) => (new, Some(old)),
                _ => continue,
            }
        } else {
            (path.to_string(), None)
        };
        files.push(FileStat {
            path,
            old_path,
            added: added.parse().ok(),
            deleted: deleted.parse().ok(),
        });
    }
    files
}

/// Parses `git status --porcelain=v1 -z`: `XY path\0`, followed by `orig\0` for a rename or copy.
pub(crate) fn parse_status_z(bytes: &[u8]) -> Vec<StatusEntry> {
    let fields = split_nul(bytes);
    let mut fields = fields.into_iter();
    let mut entries = Vec::new();
    while let Some(field) = fields.next() {
        let (Some(status), Some(path)) = (field.get(..2), field.get(3..)) else {
            continue;
        };
        let renamed = status.contains('R') || status.contains('C');
        let orig_path = if renamed { fields.next() } else { None };
        entries.push(StatusEntry {
            status: status.to_string(),
            path: path.to_string(),
            orig_path,
        });
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_with_rename_and_binary() {
        let out = b"3\t1\tsrc/a.rs\0-\t-\timg.png\x000\t0\t\0old name.txt\0new name.txt\0";
        let files = parse_numstat_z(out);
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].path, "src/a.rs");
        assert_eq!((files[0].added, files[0].deleted), (Some(3), Some(1)));
        assert_eq!((files[1].added, files[1].deleted), (None, None));
        assert_eq!(files[2].path, "new name.txt");
        assert_eq!(files[2].old_path.as_deref(), Some("old name.txt"));
    }

    #[test]
    fn status_with_rename_and_untracked() {
        let out = b" M a.txt\0R  new.txt\0old.txt\0?? dir/\0?? we ird\0";
        let entries = parse_status_z(out);
        let paths: Vec<_> = entries
            .iter()
            .map(|e| (e.status.as_str(), e.path.as_str()))
            .collect();
        assert_eq!(
            paths,
            vec![
                (" M", "a.txt"),
                ("R ", "new.txt"),
                ("??", "dir/"),
                ("??", "we ird")
            ]
        );
        assert_eq!(entries[1].orig_path.as_deref(), Some("old.txt"));
    }

    #[test]
    fn short_list_truncates() {
        let entries: Vec<_> = (0..5)
            .map(|i| StatusEntry {
                status: " M".into(),
                path: format!("f{i}"),
                orig_path: None,
            })
            .collect();
        assert_eq!(short_list(&entries), "f0, f1, f2 and 2 more");
    }
}
