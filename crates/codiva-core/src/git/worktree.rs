//! Creating a session's worktree (and restoring a discarded one).

use std::path::{Path, PathBuf};

use super::ignored::{IgnoredMode, carry_ignored};
use super::runner::{FETCH_TIMEOUT, Git};
use super::{GitError, Repo, archive_ref, branch_name, check_name, check_slug};

/// How a worktree is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorktreeOptions {
    /// Fetch `origin/<base>` first and branch from it (when the remote exists).
    pub fetch: bool,
    /// How ignored files are carried.
    pub ignored: IgnoredMode,
    /// Exclude patterns evaluated after [`super::DEFAULT_IGNORED_EXCLUDES`].
    pub exclude: Vec<String>,
}

impl Default for WorktreeOptions {
    fn default() -> Self {
        WorktreeOptions {
            fetch: true,
            ignored: IgnoredMode::Symlink,
            exclude: Vec::new(),
        }
    }
}

/// A worktree codiva made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worktree {
    /// `<root>/.codiva/worktrees/<slug>`.
    pub path: PathBuf,
    /// `codiva/<slug>`.
    pub branch: String,
    /// The slug.
    pub slug: String,
    /// What the branch was started from (`origin/main`, `main`, `HEAD`, or the archive ref).
    pub start_point: String,
    /// The ignored entries carried from the main checkout (relative paths).
    pub carried: Vec<PathBuf>,
    /// Non-fatal problems (a failed fetch, an entry that could not be carried).
    pub warnings: Vec<String>,
}

impl Repo {
    /// Creates `.codiva/worktrees/<slug>` on a new branch `codiva/<slug>`.
    ///
    /// The start point is `origin/<base>` after `git fetch origin <base>` when `options.fetch` is
    /// set and the remote `origin` exists; on any failure (or without the remote) it is the local
    /// branch `<base>`, or `HEAD` when there is no such branch. The branch does not track the
    /// remote (`--no-track`). Then the ignored files are carried per `options.ignored`.
    pub async fn create_worktree(
        &self,
        slug: &str,
        base: &str,
        options: &WorktreeOptions,
    ) -> Result<Worktree, GitError> {
        check_slug(slug)?;
        check_name(base)?;
        self.ensure_codiva_dir()?;
        let mut warnings = Vec::new();
        let start_point = self.start_point(base, options.fetch, &mut warnings).await;
        self.add_worktree(slug, &start_point, options, warnings)
            .await
    }

    /// Brings a discarded session back from `refs/codiva/archive/<slug>`: branch
    /// `codiva/<slug>` at the archived tip, its worktree at `.codiva/worktrees/<slug>` with the
    /// archived uncommitted work put back into the index and the files (see [`super::archive`]),
    /// ignored files carried per `options` (`options.fetch` is not used). The archive ref is
    /// deleted once all of that is done; if putting the work back fails, the new worktree and
    /// branch are removed again and the archive stays.
    pub async fn restore(
        &self,
        slug: &str,
        options: &WorktreeOptions,
    ) -> Result<Worktree, GitError> {
        check_slug(slug)?;
        let archive = archive_ref(slug);
        let commit = Git::new(self.root())
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("{archive}^{{commit}}"))
            .output()
            .await?;
        if !commit.success() {
            return Err(GitError::NoArchive {
                slug: slug.to_string(),
            });
        }
        let commit = commit.text();
        let branch = branch_name(slug);
        if self.branch_exists(&branch).await? {
            return Err(GitError::AlreadyExists {
                slug: slug.to_string(),
                what: format!("branch {branch}"),
            });
        }
        let path = self.worktree_path(slug);
        if path.symlink_metadata().is_ok() {
            return Err(GitError::AlreadyExists {
                slug: slug.to_string(),
                what: format!("directory {}", path.display()),
            });
        }
        let archived = self.archived(&commit, &branch).await?;
        self.ensure_codiva_dir()?;
        // A registration left behind by a worktree deleted behind our back would block `add`.
        Git::new(self.root())
            .args(["worktree", "prune"])
            .run()
            .await?;
        self.git_worktree_add(&path, &branch, &archived.tip).await?;
        if let Some((index_tree, worktree_tree)) = &archived.work
            && let Err(err) = self
                .apply_archived_work(&path, index_tree, worktree_tree)
                .await
        {
            self.undo_restore(&path, &branch).await;
            return Err(err);
        }
        let mut worktree = self
            .carry_into(slug, path, branch, archive.clone(), options, Vec::new())
            .await;
        worktree.start_point = archive;
        Git::new(self.root())
            .args(["update-ref", "-d", &worktree.start_point, &commit])
            .run()
            .await?;
        Ok(worktree)
    }

    /// Best effort: removes a half-restored worktree and its branch (the archive is untouched).
    async fn undo_restore(&self, path: &Path, branch: &str) {
        let removed = Git::new(self.root())
            .args(["worktree", "remove", "--force"])
            .arg(path)
            .run()
            .await;
        let deleted = Git::new(self.root())
            .args(["branch", "-D", branch])
            .run()
            .await;
        for err in [removed.err(), deleted.err()].into_iter().flatten() {
            tracing::warn!("cannot undo a failed restore: {err}");
        }
    }

    async fn add_worktree(
        &self,
        slug: &str,
        start_point: &str,
        options: &WorktreeOptions,
        warnings: Vec<String>,
    ) -> Result<Worktree, GitError> {
        let path = self.worktree_path(slug);
        let branch = branch_name(slug);
        self.git_worktree_add(&path, &branch, start_point).await?;
        Ok(self
            .carry_into(
                slug,
                path,
                branch,
                start_point.to_string(),
                options,
                warnings,
            )
            .await)
    }

    async fn git_worktree_add(
        &self,
        path: &Path,
        branch: &str,
        start_point: &str,
    ) -> Result<(), GitError> {
        Git::new(self.root())
            .args(["worktree", "add", "--no-track"])
            .arg(path)
            .args(["-b", branch, start_point])
            .run()
            .await?;
        Ok(())
    }

    /// Carries the ignored files into a new worktree and describes it.
    async fn carry_into(
        &self,
        slug: &str,
        path: PathBuf,
        branch: String,
        start_point: String,
        options: &WorktreeOptions,
        mut warnings: Vec<String>,
    ) -> Worktree {
        let (carried, carry_warnings) =
            carry_ignored(self.root(), &path, options.ignored, &options.exclude).await;
        warnings.extend(carry_warnings);
        Worktree {
            path,
            branch,
            slug: slug.to_string(),
            start_point,
            carried,
            warnings,
        }
    }

    /// `origin/<base>` after a successful fetch, else `<base>`, else `HEAD`.
    async fn start_point(&self, base: &str, fetch: bool, warnings: &mut Vec<String>) -> String {
        if fetch && self.has_origin().await {
            match self.fetch_base(base).await {
                Ok(Some(remote)) => return remote,
                Ok(None) => warnings.push(format!(
                    "origin has no branch {base}; starting from the local {base}"
                )),
                Err(err) => warnings.push(format!(
                    "fetch of origin/{base} failed, starting from the local {base}: {err}"
                )),
            }
        }
        match self.branch_exists(base).await {
            Ok(true) => base.to_string(),
            _ => "HEAD".to_string(),
        }
    }

    async fn has_origin(&self) -> bool {
        match Git::new(self.root()).arg("remote").text().await {
            Ok(remotes) => remotes.lines().any(|r| r == "origin"),
            Err(_) => false,
        }
    }

    /// Fetches `<base>` from origin; `Some("origin/<base>")` when the tracking ref then exists.
    async fn fetch_base(&self, base: &str) -> Result<Option<String>, GitError> {
        Git::new(self.root())
            .args([
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                "origin",
                base,
            ])
            .timeout(FETCH_TIMEOUT)
            .run()
            .await?;
        let remote_ref = format!("refs/remotes/origin/{base}");
        let exists = Git::new(self.root())
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("{remote_ref}^{{commit}}"))
            .check()
            .await?;
        Ok(exists.then(|| format!("origin/{base}")))
    }

    pub(crate) async fn branch_exists(&self, branch: &str) -> Result<bool, GitError> {
        Git::new(self.root())
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("refs/heads/{branch}^{{commit}}"))
            .check()
            .await
    }
}
