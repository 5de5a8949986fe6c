#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Cursor, Read as _};
use std::sync::Arc;

use super::*;
use crate::claude::ClaudeProvider;
use crate::claude::transcript;
use crate::process::EnvPolicy;

#[test]
fn ids_that_name_no_record_are_refused() {
    assert!(valid_id("0f8e2c3a-1b2c-4d5e-8f90-123456789abc"));
    assert!(valid_id("rollout_2026.x"));
    for bad in ["", "../x", "a/b", ".hidden", "a b", &"a".repeat(129)] {
        assert!(!valid_id(bad), "{bad:?}");
    }
}

#[test]
fn the_tail_starts_at_a_line_in_the_window() {
    let text = b"first line\nsecond\nthird line\n".to_vec();
    let read = |window: u64| {
        let (mut reader, skipped) = tail(Cursor::new(text.clone()), window).unwrap();
        let mut out = String::new();
        reader.read_to_string(&mut out).unwrap();
        (out, skipped)
    };
    assert_eq!(read(100), (String::from_utf8(text.clone()).unwrap(), 0));
    // "third line\n" is 11 bytes: a window of exactly that keeps it whole.
    assert_eq!(read(11), ("third line\n".to_owned(), 18));
    // A window that starts inside "second" drops that line's part.
    assert_eq!(read(14), ("third line\n".to_owned(), 18));
    assert_eq!(read(18), ("second\nthird line\n".to_owned(), 11));
}

#[test]
fn a_copy_is_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("a"), dir.path().join("b.jsonl"));
    std::fs::write(&from, "x\n").unwrap();
    copy_file(&from, &to).unwrap();
    assert_eq!(std::fs::read_to_string(&to).unwrap(), "x\n");
    assert!(copy_file(&dir.path().join("missing"), &dir.path().join("c")).is_err());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 2, "no temporary file is left: {left:?}");
}

#[test]
fn the_list_leaves_out_managed_conversations_and_is_newest_first() {
    let home = tempfile::tempdir().unwrap();
    let root = Path::new("/work/repo");
    let worktree = Path::new("/work/repo/.codiva/worktrees/w");
    let write = |cwd: &Path, id: &str, text: &str, age_s: u64| {
        let path = transcript::transcript_path(home.path(), cwd, id);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let line = serde_json::json!({"type": "user", "message": {"content": text}});
        std::fs::write(&path, format!("{line}\n")).unwrap();
        let time = std::time::SystemTime::now() - std::time::Duration::from_secs(age_s);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    };
    write(root, "old", "the old one", 300);
    write(root, "managed", "codiva runs this", 10);
    write(worktree, "new", "in a worktree", 20);
    let providers = Providers::one(Arc::new(ClaudeProvider::new(
        "claude".into(),
        home.path().to_path_buf(),
    )));
    let dirs = [root.to_path_buf(), worktree.to_path_buf()];
    let managed = BTreeSet::from(["managed".to_owned()]);
    let listed = list(
        &providers,
        &dirs,
        &EnvPolicy::Exact(Vec::new()),
        &managed,
        None,
    );
    let ids: Vec<&str> = listed.conversations.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["new", "old"]);
    assert_eq!(listed.conversations[0].cwd, worktree.to_string_lossy());
    assert!(!listed.more);
    let found = list(
        &providers,
        &dirs,
        &EnvPolicy::Exact(Vec::new()),
        &managed,
        Some("OLD"),
    );
    assert_eq!(found.conversations.len(), 1);
    assert_eq!(found.conversations[0].id, "old");
}
