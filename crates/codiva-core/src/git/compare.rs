//! What compares attempts: one worktree's work against its merge base as figures (files, lines
//! added and deleted, commits, files not committed — the worktree as it is, so an agent that
//! did not commit still shows its lines), one file's diff against the base, and the diff
//! between two worktrees (each as a tree, the two trees diffed), bounded like the diff view's.

use std::path::{Component, Path};

use codiva_protocol::group::WorkFigures;
use codiva_protocol::manager::{DiffText, FileStat};

use super::diff_text::{DIFF_TEXT_CAP, no_index};
use super::finish::{parse_numstat_z, parse_status_z};
use super::runner::Git;
use super::{GitError, Repo, check_name};

/// Untracked files counted, at most (each is one `git diff --no-index`).
const UNTRACKED_COUNTED: usize = 500;

/// A path given by a client: relative, inside the repository (no `..`), not an option.
pub fn check_relative_path(path: &str) -> Result<(), String> {
    if path.is_empty() || path.contains('\0') {
        return Err("expected a file's path in the repository".to_owned());
    }
    if path.starts_with('-') {
        return Err("a path may not start with '-'".to_owned());
    }
    let inside = Path::new(path)
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if inside {
        Ok(())
    } else {
        Err("expected a relative path inside the repository".to_owned())
    }
}

impl Repo {
    /// `worktree`'s work since it left `base`: tracked changes (committed or not) and untracked
    /// files against the merge base, commits on its branch that `base` lacks, and how many
    /// files are not committed. Carried symlinks are left out.
    pub async fn work_figures(&self, worktree: &Path, base: &str) -> Result<WorkFigures, GitError> {
        check_name(base)?;
        let merge_base = merge_base(worktree, base).await?;
        let numstat = Git::new(worktree)
            .args(["diff", "--numstat", "-z", "-M", &merge_base, "--"])
            .run()
            .await?;
        let mut files = parse_numstat_z(&numstat.stdout);
        for path in self
            .untracked(worktree)
            .await?
            .iter()
            .take(UNTRACKED_COUNTED)
        {
            let counted = Git::new(worktree)
                .args([
                    "diff",
                    "--numstat",
                    "-z",
                    "--no-index",
                    "--",
                    "/dev/null",
                    path,
                ])
                .output()
                .await?;
            if counted.code.is_some_and(|code| code > 1) {
                return Err(counted.into_error());
            }
            let stat = parse_numstat_z(&counted.stdout)
                .into_iter()
                .next()
                .unwrap_or(FileStat {
                    path: String::new(),
                    old_path: None,
                    added: Some(0),
                    deleted: Some(0),
                });
            files.push(FileStat {
                path: path.clone(),
                old_path: None,
                ..stat
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let commits = Git::new(worktree)
            .args(["rev-list", "--count"])
            .arg(format!("{base}..HEAD"))
            .text()
            .await?;
        let status = Git::new(worktree)
            .args(["status", "--porcelain=v1", "-z", "--untracked-files=all"])
            .run()
            .await?;
        let root = self.root();
        let uncommitted = parse_status_z(&status.stdout)
            .into_iter()
            .filter(|entry| entry.status != "??" || !carried(root, worktree, &entry.path))
            .count();
        Ok(WorkFigures {
            insertions: files.iter().filter_map(|f| f.added).sum(),
            deletions: files.iter().filter_map(|f| f.deleted).sum(),
            files,
            commits: commits.trim().parse().unwrap_or(0),
            uncommitted: u64::try_from(uncommitted).unwrap_or(u64::MAX),
        })
    }

    /// [`Repo::diff_text`], or only `path`'s diff (tracked or untracked).
    pub async fn diff_text_of(
        &self,
        worktree: &Path,
        base: &str,
        path: Option<&str>,
    ) -> Result<DiffText, GitError> {
        let Some(path) = path else {
            return self.diff_text(worktree, base, DIFF_TEXT_CAP).await;
        };
        check_name(base)?;
        let merge_base = merge_base(worktree, base).await?;
        let literal = format!(":(literal){path}");
        let (tracked, truncated) = Git::new(worktree)
            .args(["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M"])
            .args([merge_base.as_str(), "--", literal.as_str()])
            .output_capped(DIFF_TEXT_CAP)
            .await?;
        if !tracked.success() && !truncated {
            return Err(tracked.into_error());
        }
        if !tracked.stdout.is_empty() || truncated {
            return Ok(DiffText {
                text: String::from_utf8_lossy(&tracked.stdout).into_owned(),
                truncated,
            });
        }
        if !self.untracked(worktree).await?.iter().any(|p| p == path) {
            return Ok(DiffText::default());
        }
        no_index(worktree, "/dev/null", path, DIFF_TEXT_CAP).await
    }

    /// The diff from `from`'s worktree to `to`'s, of `path` or of everything: each worktree as
    /// it is (committed, uncommitted and untracked files, carried symlinks left out) written as a
    /// tree through a copy of its index — the same tree a discard would archive — and the two
    /// trees diffed, so a file both changed is one diff under its own path. At most
    /// [`DIFF_TEXT_CAP`] bytes.
    pub async fn diff_between(
        &self,
        from: (&Path, &str),
        to: (&Path, &str),
        path: Option<&str>,
    ) -> Result<DiffText, GitError> {
        let from_tree = self.work_state(from.0).await?.worktree_tree;
        let to_tree = self.work_state(to.0).await?.worktree_tree;
        let mut diff = Git::new(to.0).args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "-M",
            &from_tree,
            &to_tree,
            "--",
        ]);
        if let Some(path) = path {
            diff = diff.arg(format!(":(literal){path}"));
        }
        let (out, truncated) = diff.output_capped(DIFF_TEXT_CAP).await?;
        if !out.success() && !truncated {
            return Err(out.into_error());
        }
        Ok(DiffText {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            truncated,
        })
    }

    /// Untracked files of `worktree` (each file, not its directory), carried symlinks left out.
    pub(super) async fn untracked(&self, worktree: &Path) -> Result<Vec<String>, GitError> {
        let listed = Git::new(worktree)
            .args(["ls-files", "--others", "--exclude-standard", "-z"])
            .run()
            .await?
            .nul_fields();
        let root = self.root();
        Ok(listed
            .into_iter()
            .filter(|path| !carried(root, worktree, path))
            .collect())
    }
}

/// A symlink codiva carried into the worktree (it points at the main checkout's file).
fn carried(root: &Path, worktree: &Path, path: &str) -> bool {
    std::fs::read_link(worktree.join(path)).is_ok_and(|target| target == root.join(path))
}

async fn merge_base(worktree: &Path, base: &str) -> Result<String, GitError> {
    Ok(Git::new(worktree)
        .args(["merge-base", base, "HEAD"])
        .text()
        .await?
        .trim()
        .to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_must_stay_inside_the_repository() {
        assert!(check_relative_path("src/main.rs").is_ok());
        assert!(check_relative_path("./a.txt").is_ok());
        assert!(check_relative_path("../etc/passwd").is_err());
        assert!(check_relative_path("/etc/passwd").is_err());
        assert!(check_relative_path("a/../../b").is_err());
        assert!(check_relative_path("--output=x").is_err());
        assert!(check_relative_path("").is_err());
    }
}
