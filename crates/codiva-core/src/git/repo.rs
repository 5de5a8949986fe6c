//! The repository handle: preflight, the main checkout, `.codiva/`, taken slugs.

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::runner::Git;
use super::{ARCHIVE_REF_PREFIX, BRANCH_PREFIX, CODIVA_DIR, GitError, WORKTREES_DIR};

/// What [`Repo::open_for_start`] reads besides the preflight.
#[derive(Debug)]
pub struct StartFacts {
    /// The branch checked out in the main checkout; `None` when HEAD is detached.
    pub branch: Option<String>,
    /// `git worktree list`, or why it failed.
    pub worktrees: Result<Vec<PathBuf>, GitError>,
}

/// A git repository, addressed by its main checkout (never a linked worktree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repo {
    root: PathBuf,
}

/// See [`Repo::head_stamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadStamp {
    inode: u64,
    len: u64,
    modified: std::time::SystemTime,
}

impl Repo {
    /// The preflight: `path` must be inside a git work tree whose HEAD has a commit.
    ///
    /// Started inside a linked worktree (`.git` is a file), the handle still addresses the main
    /// checkout. A submodule is its own repository (its root is the submodule's checkout).
    pub async fn open(path: &Path) -> Result<Repo, GitError> {
        let (repo, _) = Repo::locate(path).await?;
        repo.require_commit(has_commit_in(&repo.root).await?)?;
        Ok(repo)
    }

    /// [`Repo::open`] plus what the manager reads before it starts — the checked-out branch and
    /// the registered worktrees — asked side by side with the preflight from `path` rather than
    /// one after the other (each is a `git` process of a few milliseconds). Started inside a
    /// linked worktree, the three are asked again in the main checkout. The worktree list's own
    /// failure is kept for the caller, which can start without it.
    pub async fn open_for_start(path: &Path) -> Result<(Repo, StartFacts), GitError> {
        let (located, has_commit, branch, worktrees) = tokio::join!(
            Repo::locate(path),
            has_commit_in(path),
            current_branch_in(path),
            registered_worktrees_in(path)
        );
        let (repo, in_main_checkout) = located?;
        // The commit and the branch are the main checkout's; the worktree list is the
        // repository's, the same from any of its worktrees.
        let (has_commit, branch) = if in_main_checkout {
            (has_commit, branch)
        } else {
            tokio::join!(has_commit_in(&repo.root), current_branch_in(&repo.root))
        };
        repo.require_commit(has_commit?)?;
        let facts = StartFacts {
            branch: branch?,
            worktrees,
        };
        Ok((repo, facts))
    }

    /// The work tree's main checkout, without the commit check, and whether `path` is in it
    /// (rather than in a linked worktree).
    async fn locate(path: &Path) -> Result<(Repo, bool), GitError> {
        let not_a_repo = || GitError::NotARepo {
            path: path.to_path_buf(),
        };
        if !path.is_dir() {
            return Err(not_a_repo());
        }
        let probe = Git::new(path)
            .args([
                "rev-parse",
                "--path-format=absolute",
                "--is-inside-work-tree",
                "--show-toplevel",
                "--git-dir",
                "--git-common-dir",
            ])
            // Only to recognise "not a git repository" below; nothing else is parsed from stderr.
            .env("LC_ALL", "C")
            .output()
            .await?;
        if !probe.success() {
            let stderr = probe.stderr.to_ascii_lowercase();
            // Outside any repository, or inside `.git/` / a bare repository (no work tree).
            if probe.code == Some(128)
                && (stderr.contains("not a git repository")
                    || stderr.contains("must be run in a work tree"))
            {
                return Err(not_a_repo());
            }
            return Err(probe.into_error());
        }
        let text = String::from_utf8_lossy(&probe.stdout).into_owned();
        let mut lines = text.lines();
        // Inside `.git/` or a bare repository there is no work tree: not a checkout for codiva.
        if lines.next() != Some("true") {
            return Err(not_a_repo());
        }
        let (Some(toplevel), Some(git_dir), Some(common_dir)) =
            (lines.next(), lines.next(), lines.next())
        else {
            return Err(not_a_repo());
        };
        if same_path(Path::new(git_dir), Path::new(common_dir)) {
            return Ok((Repo::at(toplevel), true));
        }
        let root = main_worktree(path)
            .await?
            .unwrap_or_else(|| PathBuf::from(toplevel));
        Ok((Repo { root }, false))
    }

    fn at(root: &str) -> Repo {
        Repo {
            root: PathBuf::from(root),
        }
    }

    fn require_commit(&self, has_commit: bool) -> Result<(), GitError> {
        if has_commit {
            Ok(())
        } else {
            Err(GitError::NoCommits {
                path: self.root.clone(),
            })
        }
    }

    /// A handle on `root` with no check that it is a repository at all: for a manager that runs
    /// no git (an ephemeral one, `manager/actor/ephemeral.rs`), which uses only the path.
    pub(crate) fn unchecked(root: PathBuf) -> Repo {
        Repo { root }
    }

    /// The main checkout's top-level directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/.codiva/worktrees`.
    pub fn worktrees_dir(&self) -> PathBuf {
        self.root.join(WORKTREES_DIR)
    }

    /// Where session `slug`'s worktree lives.
    pub fn worktree_path(&self, slug: &str) -> PathBuf {
        self.worktrees_dir().join(slug)
    }

    /// The branch checked out in the main checkout; `None` when HEAD is detached.
    pub async fn current_branch(&self) -> Result<Option<String>, GitError> {
        current_branch_in(&self.root).await
    }

    /// The main checkout's `HEAD` file as it is now (which file, and when it was last
    /// replaced): git rewrites it, through a lock file and a rename, whenever the checkout
    /// switches branch, so an unchanged stamp means [`Repo::current_branch`] would say the
    /// same. `None` when the file cannot be found (then ask git).
    pub fn head_stamp(&self) -> Option<HeadStamp> {
        use std::os::unix::fs::MetadataExt as _;
        let dot_git = self.root.join(".git");
        let head = if dot_git.is_dir() {
            dot_git.join("HEAD")
        } else {
            // A submodule's checkout: `.git` is a file naming the directory.
            let text = std::fs::read_to_string(&dot_git).ok()?;
            self.root
                .join(text.strip_prefix("gitdir:")?.trim())
                .join("HEAD")
        };
        let meta = std::fs::metadata(&head).ok()?;
        Some(HeadStamp {
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }

    /// Creates `<root>/.codiva/` and writes `.codiva/.gitignore` (`*`) if it is missing, so that
    /// nothing codiva keeps there shows up in `git status`. An existing file is never rewritten;
    /// the repository's own `.gitignore` and `.git/info/exclude` are never touched.
    pub fn ensure_codiva_dir(&self) -> io::Result<()> {
        let dir = self.root.join(CODIVA_DIR);
        std::fs::create_dir_all(&dir)?;
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(".gitignore"));
        match file {
            Ok(mut file) => file.write_all(b"*\n"),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(err) => Err(err),
        }
    }

    /// Every slug in use: directories under `.codiva/worktrees/`, branches `codiva/*` and archive
    /// refs `refs/codiva/archive/*`.
    pub async fn taken_slugs(&self) -> Result<BTreeSet<String>, GitError> {
        let mut taken = BTreeSet::new();
        match std::fs::read_dir(self.worktrees_dir()) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    taken.insert(entry.file_name().to_string_lossy().into_owned());
                }
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(err.into()),
        }
        let branches = format!("refs/heads/{BRANCH_PREFIX}");
        let refs = Git::new(&self.root)
            .args(["for-each-ref", "--format=%(refname)"])
            .arg(&branches)
            .arg(ARCHIVE_REF_PREFIX)
            .text()
            .await?;
        for name in refs.lines() {
            if let Some(slug) = name
                .strip_prefix(&branches)
                .or_else(|| name.strip_prefix(ARCHIVE_REF_PREFIX))
            {
                taken.insert(slug.to_string());
            }
        }
        Ok(taken)
    }

    /// Whether `worktree` exists on disk and git knows it as a worktree of this repository.
    pub async fn worktree_exists(&self, worktree: &Path) -> bool {
        if !worktree.is_dir() {
            return false;
        }
        match self.registered_worktrees().await {
            Ok(paths) => paths.iter().any(|p| same_path(p, worktree)),
            Err(err) => {
                tracing::warn!("cannot list worktrees: {err}");
                false
            }
        }
    }

    /// The paths of every worktree git knows (`git worktree list --porcelain -z`), main first.
    pub async fn registered_worktrees(&self) -> Result<Vec<PathBuf>, GitError> {
        registered_worktrees_in(&self.root).await
    }
}

async fn has_commit_in(dir: &Path) -> Result<bool, GitError> {
    Git::new(dir)
        .args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .check()
        .await
}

async fn registered_worktrees_in(dir: &Path) -> Result<Vec<PathBuf>, GitError> {
    Ok(parse_worktree_list(&worktree_list_in(dir).await?))
}

/// The main worktree of the repository containing `path`, from `git worktree list`.
async fn main_worktree(path: &Path) -> Result<Option<PathBuf>, GitError> {
    // A bare main repository has no checkout to work in; the caller keeps its own toplevel.
    Ok(parse_worktree_records(&worktree_list_in(path).await?)
        .into_iter()
        .next()
        .filter(|(_, bare)| !bare)
        .map(|(path, _)| path))
}

/// What `git worktree list --porcelain -z` prints in `dir`.
async fn worktree_list_in(dir: &Path) -> Result<Vec<u8>, GitError> {
    let output = Git::new(dir)
        .args(["worktree", "list", "--porcelain", "-z"])
        .run()
        .await?;
    Ok(output.stdout)
}

/// The paths of `git worktree list --porcelain -z`.
fn parse_worktree_list(stdout: &[u8]) -> Vec<PathBuf> {
    parse_worktree_records(stdout)
        .into_iter()
        .map(|(path, _)| path)
        .collect()
}

/// `(path, bare)` per record of `git worktree list --porcelain -z`: attributes are
/// NUL-terminated, a record ends with an empty field.
fn parse_worktree_records(stdout: &[u8]) -> Vec<(PathBuf, bool)> {
    let mut records: Vec<(PathBuf, bool)> = Vec::new();
    for field in stdout.split(|b| *b == 0) {
        if let Some(path) = field.strip_prefix(b"worktree ") {
            records.push((
                PathBuf::from(String::from_utf8_lossy(path).into_owned()),
                false,
            ));
        } else if field == b"bare"
            && let Some(last) = records.last_mut()
        {
            last.1 = true;
        }
    }
    records
}

pub(crate) async fn current_branch_in(dir: &Path) -> Result<Option<String>, GitError> {
    let output = Git::new(dir)
        .args(["symbolic-ref", "--quiet", "--short", "HEAD"])
        .output()
        .await?;
    match output.code {
        Some(0) => Ok(Some(output.text())),
        Some(1) => Ok(None),
        _ => Err(output.into_error()),
    }
}

/// Whether two paths name the same directory (canonicalised when they exist).
pub(crate) fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stamp stays while nothing switches and changes when the checkout switches branch
    /// (and back), so the manager asks git only then.
    #[tokio::test]
    async fn the_head_stamp_changes_when_the_branch_does() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.com")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.com")
                .output()
                .unwrap();
            assert!(status.status.success(), "git {args:?}: {status:?}");
        };
        git(&["init", "-q", "-b", "main"]);
        git(&["commit", "-q", "--allow-empty", "-m", "first"]);
        let repo = Repo::open(dir.path()).await.unwrap();
        let first = repo.head_stamp().expect("the HEAD file");
        git(&["commit", "-q", "--allow-empty", "-m", "second"]);
        assert_eq!(repo.head_stamp(), Some(first), "a commit on the branch");
        git(&["switch", "-q", "-c", "develop"]);
        let switched = repo.head_stamp().unwrap();
        assert_ne!(switched, first);
        assert_eq!(
            repo.current_branch().await.unwrap().as_deref(),
            Some("develop")
        );
        git(&["switch", "-q", "main"]);
        assert_ne!(repo.head_stamp().unwrap(), switched);
    }

    #[test]
    fn worktree_list_parsing() {
        let out = b"worktree /a/main\0HEAD 0123\0branch refs/heads/main\0\0worktree /a/main/.codiva/worktrees/x\0HEAD 4567\0detached\0\0";
        assert_eq!(
            parse_worktree_list(out),
            vec![
                PathBuf::from("/a/main"),
                PathBuf::from("/a/main/.codiva/worktrees/x")
            ]
        );
        let bare = b"worktree /a/repo.git\0bare\0\0worktree /a/wt\0HEAD 0123\0detached\0\0";
        assert_eq!(
            parse_worktree_records(bare),
            vec![
                (PathBuf::from("/a/repo.git"), true),
                (PathBuf::from("/a/wt"), false)
            ]
        );
    }
}
