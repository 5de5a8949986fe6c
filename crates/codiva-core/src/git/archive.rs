//! Discard without loss: the preview, its confirmation token, and the archive commit that keeps
//! a session's branch tip *and* its uncommitted work (staged, unstaged, untracked; not ignored)
//! under `refs/codiva/archive/<slug>`, which [`Repo::restore`] turns back into the same worktree.
//!
//! A snapshot never touches the worktree's real index or the stash list: a copy of the index in
//! `.codiva/` is written as a tree (`git write-tree`), then everything is added to that copy
//! (`git add -A`, minus the symlinks codiva carried) and written as a second tree. The token is
//! a hash over the branch tip, the worktree's `HEAD`, the base and both trees, so it names
//! exactly the state the preview showed: any change after the preview changes the token, and a
//! discard with an old token is refused with a fresh preview instead of removing anything.
//!
//! The archive commit (only when there is uncommitted work; otherwise the ref is the branch tip
//! itself, as for a merged session): its tree is the working tree, its first parent the branch
//! tip, its second parent a commit whose tree is the index (and whose parent is the worktree's
//! `HEAD`), its subject `codiva archive of codiva/<slug>`. The branch itself never gets these
//! commits: restore puts the branch back at the tip and the rest into the index and files.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use codiva_protocol::manager::StatusEntry;

use super::repo::same_path;
use super::runner::Git;
use super::{CODIVA_DIR, GitError, Repo, archive_ref, check_name, check_slug};

/// `git add -A` of a large worktree, and `git worktree remove` of a copied `node_modules`.
const LONG_TIMEOUT: Duration = Duration::from_secs(120);
/// The subject of an archive commit is this followed by the branch name.
const ARCHIVE_SUBJECT: &str = "codiva archive of ";
const ARCHIVE_BODY: &str = "The uncommitted work of the session's worktree when it was discarded: \
this commit's tree is the working tree (untracked files included, ignored files not), its first \
parent the branch tip, its second parent's tree the index. codiva's restore brings all three \
back; the branch never gets this commit.";
/// Archive commits are codiva's bookkeeping, not the user's commits: a fixed identity, which also
/// works on a machine without `user.name`/`user.email`.
const ARCHIVE_IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "codiva"),
    ("GIT_AUTHOR_EMAIL", "codiva@localhost"),
    ("GIT_COMMITTER_NAME", "codiva"),
    ("GIT_COMMITTER_EMAIL", "codiva@localhost"),
];

/// A commit in a discard preview.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CommitSummary {
    /// The abbreviated id.
    pub id: String,
    /// The subject line.
    pub subject: String,
}

/// What a discard would remove from the worktree and the branch (all of it kept in the archive).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DiscardPreview {
    /// Uncommitted and untracked files in the worktree (`git status`, the carried symlinks left
    /// out): kept in the archive commit.
    pub uncommitted: Vec<StatusEntry>,
    /// Commits on the branch that are not on the base: kept under the archive ref.
    pub commits: Vec<CommitSummary>,
    /// Names exactly this state; [`Repo::discard`] refuses any other.
    pub token: String,
}

impl DiscardPreview {
    /// Nothing would be archived.
    pub fn is_empty(&self) -> bool {
        self.uncommitted.is_empty() && self.commits.is_empty()
    }
}

/// The result of [`Repo::discard`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiscardResult {
    /// The worktree and branch are gone; everything is under the archive ref.
    Discarded,
    /// The session changed since the preview the token came from; nothing was done. This is
    /// what a discard would archive now, with its own token.
    Changed(DiscardPreview),
}

/// The state a token names and an archive keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Snapshot {
    /// The branch tip; `None` when the branch is gone.
    tip: Option<String>,
    /// The base's commit.
    base: Option<String>,
    /// The worktree's state; `None` when its directory is gone.
    work: Option<WorkState>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct WorkState {
    /// The worktree's `HEAD` (the branch tip, unless the agent switched or detached it).
    head: Option<String>,
    index_tree: String,
    pub(super) worktree_tree: String,
}

impl Snapshot {
    /// FNV-1a (128 bit) over the fields: they are object ids already, the hash only has to
    /// change when any of them does.
    fn token(&self, slug: &str) -> String {
        const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
        const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
        let work = self.work.as_ref();
        let fields = [
            Some("codiva-discard-1"),
            Some(slug),
            self.tip.as_deref(),
            self.base.as_deref(),
            work.map(|_| "worktree"),
            work.and_then(|w| w.head.as_deref()),
            work.map(|w| w.index_tree.as_str()),
            work.map(|w| w.worktree_tree.as_str()),
        ];
        let mut hash = OFFSET;
        for field in fields {
            for byte in field.unwrap_or("-").bytes().chain([0]) {
                hash ^= u128::from(byte);
                hash = hash.wrapping_mul(PRIME);
            }
        }
        format!("{hash:032x}")
    }
}

/// What an archive ref holds: the branch tip, and the uncommitted work if there was any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Archived {
    pub(crate) tip: String,
    /// `(index tree, working tree)`.
    pub(crate) work: Option<(String, String)>,
}

impl Repo {
    /// What [`Repo::discard`] would remove (all of it kept in the archive): uncommitted (and
    /// untracked) files in the worktree, the commits on `branch` that are not on `base`, and the
    /// token that confirms exactly this state.
    pub async fn discard_preview(
        &self,
        worktree: &Path,
        branch: &str,
        base: &str,
        slug: &str,
    ) -> Result<DiscardPreview, GitError> {
        Ok(self.preview(worktree, branch, base, slug).await?.0)
    }

    /// Removes a session's worktree and branch after archiving both under
    /// `refs/codiva/archive/<slug>` (see [`Repo::restore`]) — if `token` still names the
    /// current state. Otherwise nothing is done and the fresh preview comes back
    /// ([`DiscardResult::Changed`]). A worktree directory that is already gone is pruned from
    /// git's records; a branch that is already gone is skipped.
    pub async fn discard(
        &self,
        worktree: &Path,
        branch: &str,
        base: &str,
        slug: &str,
        token: &str,
    ) -> Result<DiscardResult, GitError> {
        self.check_session_worktree(worktree)?;
        let (preview, snapshot) = self.preview(worktree, branch, base, slug).await?;
        if preview.token != token {
            return Ok(DiscardResult::Changed(preview));
        }
        self.archive_and_remove(worktree, branch, slug, &snapshot)
            .await?;
        Ok(DiscardResult::Discarded)
    }

    /// After a merge: archives and removes like [`Repo::discard`], without a token (uncommitted
    /// work left in the worktree is archived too).
    pub async fn remove_after_merge(
        &self,
        worktree: &Path,
        branch: &str,
        base: &str,
        slug: &str,
    ) -> Result<(), GitError> {
        check_name(branch)?;
        check_name(base)?;
        check_slug(slug)?;
        self.check_session_worktree(worktree)?;
        let snapshot = self.snapshot(worktree, branch, base).await?;
        self.archive_and_remove(worktree, branch, slug, &snapshot)
            .await
    }

    /// The snapshot first, then `git status` and `git log`: a change in between shows in the
    /// preview but not in the token, so the discard that follows is refused, never the reverse.
    async fn preview(
        &self,
        worktree: &Path,
        branch: &str,
        base: &str,
        slug: &str,
    ) -> Result<(DiscardPreview, Snapshot), GitError> {
        check_name(branch)?;
        check_name(base)?;
        check_slug(slug)?;
        let snapshot = self.snapshot(worktree, branch, base).await?;
        let uncommitted = if snapshot.work.is_some() {
            self.uncommitted(worktree).await?
        } else {
            Vec::new()
        };
        let commits = if snapshot.tip.is_some() {
            let log = Git::new(self.root())
                .args(["log", "-z", "--format=%h%x1f%s"])
                .arg(format!("{base}..refs/heads/{branch}"))
                .arg("--")
                .run()
                .await?;
            log.nul_fields()
                .iter()
                .map(|record| {
                    let (id, subject) = record.split_once('\u{1f}').unwrap_or((record, ""));
                    CommitSummary {
                        id: id.trim().to_string(),
                        subject: subject.to_string(),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let preview = DiscardPreview {
            uncommitted,
            commits,
            token: snapshot.token(slug),
        };
        Ok((preview, snapshot))
    }

    fn check_session_worktree(&self, worktree: &Path) -> Result<(), GitError> {
        let inside = worktree
            .parent()
            .is_some_and(|parent| same_path(parent, &self.worktrees_dir()));
        if inside {
            Ok(())
        } else {
            Err(GitError::InvalidName {
                name: worktree.display().to_string(),
                reason: "not a worktree under .codiva/worktrees",
            })
        }
    }

    async fn snapshot(
        &self,
        worktree: &Path,
        branch: &str,
        base: &str,
    ) -> Result<Snapshot, GitError> {
        let root = self.root();
        let tip = resolve(root, &format!("refs/heads/{branch}^{{commit}}")).await?;
        let base = resolve(root, &format!("{base}^{{commit}}")).await?;
        let work = if worktree.is_dir() {
            Some(self.work_state(worktree).await?)
        } else {
            None
        };
        Ok(Snapshot { tip, base, work })
    }

    /// The index and the working tree as two trees, through a copy of the index.
    pub(super) async fn work_state(&self, worktree: &Path) -> Result<WorkState, GitError> {
        let head = resolve(worktree, "HEAD^{commit}").await?;
        let real_index = Git::new(worktree)
            .args(["rev-parse", "--path-format=absolute", "--git-path", "index"])
            .text()
            .await?;
        let temp = TempIndex::new(&self.root().join(CODIVA_DIR))?;
        match std::fs::copy(&real_index, &temp.path) {
            Ok(_) => {}
            // No index yet: git reads a missing index as an empty one.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(err.into()),
        }
        let on_copy = |git: Git| git.env("GIT_INDEX_FILE", &temp.path);
        let unmerged = on_copy(Git::new(worktree))
            .args(["ls-files", "--unmerged", "-z"])
            .run()
            .await?;
        if !unmerged.stdout.is_empty() {
            // Conflict stages cannot be written as a tree: the index is kept as HEAD's tree (the
            // files, conflict markers and all, are in the working tree).
            let reset = on_copy(Git::new(worktree)).arg("read-tree");
            let reset = match &head {
                Some(head) => reset.arg(head),
                None => reset.arg("--empty"),
            };
            reset.run().await?;
        }
        let index_tree = on_copy(Git::new(worktree)).arg("write-tree").text().await?;
        let mut add = on_copy(Git::new(worktree))
            .args(["add", "-A", "--", "."])
            .timeout(LONG_TIMEOUT);
        for link in self.carried_links(worktree).await? {
            let mut spec = OsString::from(":(exclude,literal)");
            spec.push(&link);
            add = add.arg(spec);
        }
        add.run().await?;
        let worktree_tree = on_copy(Git::new(worktree)).arg("write-tree").text().await?;
        Ok(WorkState {
            head,
            index_tree,
            worktree_tree,
        })
    }

    /// Untracked symlinks to the same path in the main checkout: what codiva carried, not work.
    async fn carried_links(&self, worktree: &Path) -> Result<Vec<OsString>, GitError> {
        let output = Git::new(worktree)
            .args(["ls-files", "--others", "--exclude-standard", "-z"])
            .run()
            .await?;
        let root = self.root();
        Ok(output
            .stdout
            .split(|b| *b == 0)
            .filter(|field| !field.is_empty())
            .map(OsStr::from_bytes)
            .filter(|rel| {
                std::fs::read_link(worktree.join(rel)).is_ok_and(|target| target == root.join(rel))
            })
            .map(OsStr::to_os_string)
            .collect())
    }

    /// Writes the archive ref, then removes the worktree and the branch.
    async fn archive_and_remove(
        &self,
        worktree: &Path,
        branch: &str,
        slug: &str,
        snapshot: &Snapshot,
    ) -> Result<(), GitError> {
        let root = self.root();
        if let Some(archive) = self.archive_commit(snapshot, branch).await? {
            Git::new(root)
                .args(["update-ref", "-m", "codiva: discard"])
                .arg(archive_ref(slug))
                .arg(&archive)
                .run()
                .await?;
        }
        if worktree.symlink_metadata().is_ok() {
            Git::new(root)
                .args(["worktree", "remove", "--force"])
                .arg(worktree)
                .timeout(LONG_TIMEOUT)
                .run()
                .await?;
        }
        Git::new(root).args(["worktree", "prune"]).run().await?;
        if self.branch_exists(branch).await? {
            Git::new(root).args(["branch", "-D", branch]).run().await?;
        }
        Ok(())
    }

    /// The commit the archive ref gets: the branch tip when there is no uncommitted work (or no
    /// worktree), else an archive commit; `None` when there is nothing at all.
    async fn archive_commit(
        &self,
        snapshot: &Snapshot,
        branch: &str,
    ) -> Result<Option<String>, GitError> {
        let root = self.root();
        let Some(work) = &snapshot.work else {
            return Ok(snapshot.tip.clone());
        };
        let Some(tip) = snapshot.tip.clone().or_else(|| work.head.clone()) else {
            return Err(GitError::Io(std::io::Error::other(format!(
                "{branch} and its worktree have no commit to archive the uncommitted work on; \
                 nothing was removed"
            ))));
        };
        let head = work.head.clone().unwrap_or_else(|| tip.clone());
        let tip_tree = Git::new(root)
            .args(["rev-parse", &format!("{tip}^{{tree}}")])
            .text()
            .await?;
        if head == tip && work.index_tree == tip_tree && work.worktree_tree == tip_tree {
            return Ok(Some(tip));
        }
        let index = commit_tree(
            root,
            &work.index_tree,
            &[&head],
            &format!("index of {branch}"),
        )
        .await?;
        let archive = commit_tree(
            root,
            &work.worktree_tree,
            &[&tip, &index],
            &format!("{ARCHIVE_SUBJECT}{branch}\n\n{ARCHIVE_BODY}"),
        )
        .await?;
        Ok(Some(archive))
    }

    /// Reads an archive ref's commit: an archive commit of `branch`, or a plain branch tip.
    pub(crate) async fn archived(&self, commit: &str, branch: &str) -> Result<Archived, GitError> {
        let root = self.root();
        let record = Git::new(root)
            .args(["log", "-1", "--format=%P%x1f%s", commit, "--"])
            .text()
            .await?;
        let (parents, subject) = record.split_once('\u{1f}').unwrap_or((&record, ""));
        let parents: Vec<&str> = parents.split_whitespace().collect();
        match parents.as_slice() {
            [tip, index] if subject == format!("{ARCHIVE_SUBJECT}{branch}") => {
                let index_tree = Git::new(root)
                    .args(["rev-parse", &format!("{index}^{{tree}}")])
                    .text()
                    .await?;
                let worktree_tree = Git::new(root)
                    .args(["rev-parse", &format!("{commit}^{{tree}}")])
                    .text()
                    .await?;
                Ok(Archived {
                    tip: (*tip).to_string(),
                    work: Some((index_tree, worktree_tree)),
                })
            }
            _ => Ok(Archived {
                tip: commit.to_string(),
                work: None,
            }),
        }
    }

    /// Puts archived uncommitted work into a freshly checked-out worktree: the working tree
    /// first (`read-tree --reset -u`: files added, changed and deleted, modes kept), then the
    /// index alone.
    pub(crate) async fn apply_archived_work(
        &self,
        worktree: &Path,
        index_tree: &str,
        worktree_tree: &str,
    ) -> Result<(), GitError> {
        Git::new(worktree)
            .args(["read-tree", "--reset", "-u", worktree_tree])
            .timeout(LONG_TIMEOUT)
            .run()
            .await?;
        Git::new(worktree)
            .args(["read-tree", index_tree])
            .run()
            .await?;
        // Stat information for the entries that match their files (1 = some do not: expected).
        Git::new(worktree)
            .args(["update-index", "-q", "--refresh"])
            .timeout(LONG_TIMEOUT)
            .output()
            .await?;
        Ok(())
    }
}

/// `rev-parse --verify --quiet`: the object id, or `None` when there is no such object.
async fn resolve(dir: &Path, rev: &str) -> Result<Option<String>, GitError> {
    let output = Git::new(dir)
        .args(["rev-parse", "--verify", "--quiet", rev])
        .output()
        .await?;
    Ok(output.success().then(|| output.text()))
}

async fn commit_tree(
    root: &Path,
    tree: &str,
    parents: &[&str],
    message: &str,
) -> Result<String, GitError> {
    let mut git = Git::new(root).args(["commit-tree", "--no-gpg-sign", tree]);
    for parent in parents {
        git = git.args(["-p", parent]);
    }
    for (key, value) in ARCHIVE_IDENTITY {
        git = git.env(key, value);
    }
    git.args(["-m", message]).text().await
}

/// A temporary index file under `.codiva/`, removed on drop (the file is created by git).
struct TempIndex {
    path: PathBuf,
}

impl TempIndex {
    fn new(dir: &Path) -> std::io::Result<TempIndex> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!(
            "snapshot-index-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&path);
        Ok(TempIndex { path })
    }
}

impl Drop for TempIndex {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let mut lock = self.path.as_os_str().to_owned();
        lock.push(".lock");
        let _ = std::fs::remove_file(PathBuf::from(lock));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot() -> Snapshot {
        Snapshot {
            tip: Some("a".repeat(40)),
            base: Some("b".repeat(40)),
            work: Some(WorkState {
                head: Some("a".repeat(40)),
                index_tree: "c".repeat(40),
                worktree_tree: "d".repeat(40),
            }),
        }
    }

    #[test]
    fn the_token_changes_with_every_field() {
        let base = snapshot();
        let token = base.token("s");
        assert_eq!(token.len(), 32);
        assert_eq!(token, snapshot().token("s"), "deterministic");
        assert_ne!(token, base.token("t"));
        let mut changed = Vec::new();
        let mut s = snapshot();
        s.tip = Some("e".repeat(40));
        changed.push(s);
        let mut s = snapshot();
        s.base = None;
        changed.push(s);
        let mut s = snapshot();
        s.work = None;
        changed.push(s);
        for edit in [0, 1, 2] {
            let mut s = snapshot();
            if let Some(work) = s.work.as_mut() {
                match edit {
                    0 => work.head = None,
                    1 => work.index_tree = "f".repeat(40),
                    _ => work.worktree_tree = "f".repeat(40),
                }
            }
            changed.push(s);
        }
        for s in changed {
            assert_ne!(s.token("s"), token, "{s:?}");
        }
    }
}
