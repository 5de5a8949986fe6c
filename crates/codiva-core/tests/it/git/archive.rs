//! Lossless discard: the token names what the preview showed (a stale one removes nothing), and
//! restore gives back the worktree exactly as it was — commits, index, files — minus ignored
//! files, without archive commits on the branch.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use codiva_core::git::{DiscardResult, Repo, Worktree};

use super::finish::{commit_all_explicit, options, session};
use super::{TestRepo, commit_all, git, git_try, write};

/// Every entry under `dir` except `.git` and the links codiva carried from `root`: path bytes,
/// kind, executable bit, content or link target.
fn tree_listing(dir: &Path, root: &Path) -> Vec<(Vec<u8>, String)> {
    fn walk(base: &Path, dir: &Path, root: &Path, out: &mut Vec<(Vec<u8>, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(base).unwrap().to_path_buf();
            if rel == Path::new(".git") {
                continue;
            }
            let meta = path.symlink_metadata().unwrap();
            let key = rel.as_os_str().as_bytes().to_vec();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                if target == root.join(&rel) {
                    continue;
                }
                out.push((key, format!("link {}", target.display())));
            } else if meta.is_dir() {
                out.push((key, "dir".into()));
                walk(base, &path, root, out);
            } else {
                let exec = meta.permissions().mode() & 0o111 != 0;
                let content = std::fs::read(&path).unwrap();
                out.push((key, format!("file exec={exec} {content:?}")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, root, &mut out);
    out.sort();
    out
}

/// What git says about a worktree: HEAD, branch, raw status, staged and unstaged diffs.
fn git_state(dir: &Path) -> Vec<String> {
    [
        vec!["rev-parse", "HEAD"],
        vec!["symbolic-ref", "HEAD"],
        vec!["status", "--porcelain=v1", "-z", "--untracked-files=all"],
        vec!["diff", "--cached", "--binary"],
        vec!["diff", "--binary"],
    ]
    .iter()
    .map(|args| git(dir, args))
    .collect()
}

fn write_bytes_name(dir: &Path, name: &[u8], content: &[u8]) -> PathBuf {
    let path = dir.join(OsStr::from_bytes(name));
    std::fs::write(&path, content).unwrap();
    path
}

fn set_exec(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

async fn token(repo: &Repo, wt: &Worktree) -> String {
    repo.discard_preview(&wt.path, &wt.branch, "main", &wt.slug)
        .await
        .unwrap()
        .token
}

#[tokio::test]
async fn discard_then_restore_gives_back_the_worktree_exactly() {
    let t = TestRepo::new();
    write(&t.root, ".gitignore", "node_modules/\n*.log\n");
    for name in [
        "staged.txt",
        "both.txt",
        "unstaged.txt",
        "gone.txt",
        "removed.txt",
    ] {
        write(&t.root, name, &format!("{name} original\n"));
    }
    write(&t.root, "tool.sh", "#!/bin/sh\necho tool\n");
    set_exec(&t.root.join("tool.sh"));
    commit_all(&t.root, "files");
    write(&t.root, "node_modules/dep.js", "shared\n");
    let repo = t.open().await;
    let wt = session(&repo, "everything").await;
    let p = &wt.path;

    // Committed but not merged.
    write(p, "feature.txt", "committed\n");
    commit_all_explicit(p, &["feature.txt"], "unmerged work");
    // Staged; staged and then changed again; unstaged only.
    write(p, "staged.txt", "staged change\n");
    write(p, "both.txt", "staged version\n");
    git(p, &["add", "staged.txt", "both.txt"]);
    write(p, "both.txt", "worktree version\n");
    write(p, "unstaged.txt", "unstaged change\n");
    // A tracked file deleted in the worktree only, another removed from the index too.
    std::fs::remove_file(p.join("gone.txt")).unwrap();
    git(p, &["rm", "-q", "removed.txt"]);
    // A new file staged, and the executable bit dropped from a tracked one.
    write(p, "added.txt", "new and staged\n");
    git(p, &["add", "added.txt"]);
    std::fs::set_permissions(p.join("tool.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    // Untracked: in new directories, empty, executable, non-UTF-8 and CJK names.
    write(p, "new/dir/deep.txt", "deep\n");
    write(p, "empty", "");
    write(p, "run.sh", "#!/bin/sh\n");
    set_exec(&p.join("run.sh"));
    write_bytes_name(p, b"bytes-\xff\xfe.bin", b"\x00\x01\xff binary");
    write(p, "日本語/ファイル.txt", "こんにちは\n");
    std::os::unix::fs::symlink("feature.txt", p.join("my-link")).unwrap();
    // Ignored: not archived.
    write(p, "build.log", "ignored\n");

    let mut files_before = tree_listing(p, &t.root);
    let ignored = files_before.len();
    files_before.retain(|(path, _)| path.as_slice() != b"build.log");
    assert_eq!(
        files_before.len(),
        ignored - 1,
        "the ignored file is not expected back"
    );
    let git_before = git_state(p);
    let tip = git(p, &["rev-parse", "HEAD"]);
    let index_file = git(
        p,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    );
    let index_bytes = std::fs::read(&index_file).unwrap();

    let preview = repo
        .discard_preview(p, &wt.branch, "main", &wt.slug)
        .await
        .unwrap();
    let shown: Vec<_> = preview
        .uncommitted
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    for path in [
        "new/",
        "empty",
        "run.sh",
        "both.txt",
        "gone.txt",
        "removed.txt",
    ] {
        assert!(shown.contains(&path), "{path} not in {shown:?}");
    }
    assert!(!shown.contains(&"build.log") && !shown.contains(&"node_modules"));
    // The preview neither touched the real index nor the stash list.
    assert_eq!(std::fs::read(&index_file).unwrap(), index_bytes);
    assert_eq!(git(&t.root, &["stash", "list"]), "");
    assert_eq!(git_state(p), git_before);

    let result = repo
        .discard(p, &wt.branch, "main", &wt.slug, &preview.token)
        .await
        .unwrap();
    assert_eq!(result, DiscardResult::Discarded);
    assert!(!p.exists());
    assert_eq!(
        git(&t.root, &["rev-parse", "refs/codiva/archive/everything^1"]),
        tip
    );
    assert_eq!(git(&t.root, &["stash", "list"]), "");

    let restored = repo.restore("everything", &options()).await.unwrap();
    assert_eq!(restored.path, *p);
    assert_eq!(tree_listing(p, &t.root), files_before);
    assert_eq!(git_state(p), git_before);
    // The branch is at its old tip: the archive commits are not on it.
    assert_eq!(git(&t.root, &["rev-parse", "codiva/everything"]), tip);
    assert_eq!(
        git(&t.root, &["rev-list", "--count", "main..codiva/everything"]),
        "1"
    );
    // Ignored files are not archived; the carried link is carried again.
    assert!(!p.join("build.log").exists());
    assert_eq!(
        std::fs::read_link(p.join("node_modules")).unwrap(),
        t.root.join("node_modules")
    );
    assert!(
        !git_try(
            &t.root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "refs/codiva/archive/everything"
            ]
        )
        .0
    );
    // No temporary index is left in .codiva/.
    let leftovers: Vec<_> = std::fs::read_dir(t.root.join(".codiva"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("index"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn a_stale_token_removes_nothing_and_comes_back_with_a_fresh_preview() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = session(&repo, "stale").await;
    let p = &wt.path;
    write(p, "notes.txt", "first\n");
    let first = token(&repo, &wt).await;
    assert_eq!(
        first,
        token(&repo, &wt).await,
        "the same state, the same token"
    );

    // A file appeared after the preview.
    write(p, "late.txt", "written after the preview\n");
    let DiscardResult::Changed(fresh) = repo
        .discard(p, &wt.branch, "main", &wt.slug, &first)
        .await
        .unwrap()
    else {
        panic!("a stale token discarded");
    };
    assert!(p.join("late.txt").is_file() && p.join("notes.txt").is_file());
    assert_ne!(fresh.token, first);
    let shown: Vec<_> = fresh.uncommitted.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(shown, vec!["late.txt", "notes.txt"]);
    assert_eq!(fresh.token, token(&repo, &wt).await);

    // A listed file changed (same name, other content).
    let second = fresh.token;
    write(p, "notes.txt", "second\n");
    assert!(matches!(
        repo.discard(p, &wt.branch, "main", &wt.slug, &second)
            .await
            .unwrap(),
        DiscardResult::Changed(_)
    ));

    // The branch moved (a commit: the same files, now committed).
    let third = token(&repo, &wt).await;
    commit_all_explicit(p, &["notes.txt", "late.txt"], "commit them");
    let DiscardResult::Changed(fresh) = repo
        .discard(p, &wt.branch, "main", &wt.slug, &third)
        .await
        .unwrap()
    else {
        panic!("a stale token discarded");
    };
    assert!(fresh.uncommitted.is_empty());
    assert_eq!(fresh.commits.len(), 1);
    assert!(p.join("notes.txt").is_file());
    assert!(
        !git_try(
            &t.root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "refs/codiva/archive/stale"
            ]
        )
        .0,
        "nothing was archived"
    );

    // The base moved: the preview's unmerged commits may differ, so the token changes too.
    let fourth = fresh.token;
    write(&t.root, "base.txt", "base\n");
    commit_all(&t.root, "base moves");
    assert!(matches!(
        repo.discard(p, &wt.branch, "main", &wt.slug, &fourth)
            .await
            .unwrap(),
        DiscardResult::Changed(_)
    ));

    // The fresh token works.
    let current = token(&repo, &wt).await;
    assert_eq!(
        repo.discard(p, &wt.branch, "main", &wt.slug, &current)
            .await
            .unwrap(),
        DiscardResult::Discarded
    );
    assert!(!p.exists());
}

#[tokio::test]
async fn uncommitted_work_left_after_a_merge_is_archived_too() {
    let t = TestRepo::new();
    let repo = t.open().await;
    let wt = session(&repo, "merged").await;
    write(&wt.path, "done.txt", "merged\n");
    commit_all_explicit(&wt.path, &["done.txt"], "done");
    write(&wt.path, "leftover.txt", "not committed\n");
    assert!(matches!(
        repo.merge("codiva/merged", "main").await.unwrap(),
        codiva_core::git::MergeOutcome::Merged { .. }
    ));
    repo.remove_after_merge(&wt.path, &wt.branch, "main", &wt.slug)
        .await
        .unwrap();
    assert!(!wt.path.exists());
    let archived = git(
        &t.root,
        &["show", "refs/codiva/archive/merged:leftover.txt"],
    );
    assert_eq!(archived, "not committed");
}
