//! `<repo>/.codiva/history/<session id>.json`: each session's neutral history on disk.
//!
//! Written like `state.json` (atomically, through [`persist::write_atomic`]) with a schema
//! version of its own. A corrupt file is moved aside with a warning and the session starts a
//! new record; a file of a newer schema is left exactly as it is, with a warning, and this
//! codiva never writes over it (the session's new turns are then not recorded). A file whose
//! session is no longer listed is removed ([`prune`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::history::History;
use crate::persist::{self, PersistError};

/// The schema this build writes.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct FileOut<'a> {
    version: u32,
    session: &'a str,
    history: &'a History,
}

#[derive(Deserialize)]
struct FileIn {
    history: History,
}

/// `<repo>/.codiva/history`.
pub fn dir(repo_root: &Path) -> PathBuf {
    repo_root.join(".codiva").join("history")
}

/// The file of one session; `None` for an id that is not a plain file name.
pub fn path(repo_root: &Path, session_id: &str) -> Option<PathBuf> {
    let plain = !session_id.is_empty()
        && !session_id.starts_with('.')
        && !session_id.contains(['/', '\\', '\0']);
    plain.then(|| dir(repo_root).join(format!("{session_id}.json")))
}

/// What loading one session's file found.
#[derive(Debug, Default)]
pub struct Loaded {
    /// `None`: no file (or one that could not be used).
    pub history: Option<History>,
    /// `false` for a file of a newer schema: it must not be overwritten.
    pub writable: bool,
    pub warning: Option<String>,
}

/// Loads a session's history. Missing → nothing; corrupt → moved aside with a warning; newer
/// schema → left alone, not writable, with a warning. A turn that was still open when the file
/// was written (codiva stopped mid-turn) ends as interrupted.
pub fn load(path: &Path, now_ms: u64) -> Loaded {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Loaded {
                writable: true,
                ..Loaded::default()
            };
        }
        Err(err) => {
            return Loaded {
                history: None,
                writable: false,
                warning: Some(format!(
                    "cannot read {}: {err}; the session's history is not recorded",
                    path.display()
                )),
            };
        }
    };
    let corrupt = |problem: String| Loaded {
        history: None,
        writable: true,
        warning: Some(format!(
            "{} is corrupt ({problem}); {}; the session's history starts anew",
            path.display(),
            persist::move_aside(path)
        )),
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(err) => return corrupt(err.to_string()),
    };
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(1) => {}
        Some(version) if version > u64::from(SCHEMA_VERSION) => {
            return Loaded {
                history: None,
                writable: false,
                warning: Some(format!(
                    "{} has schema version {version}, newer than this codiva understands \
                     ({SCHEMA_VERSION}); it was left untouched and this session's history is \
                     not recorded",
                    path.display()
                )),
            };
        }
        Some(version) => return corrupt(format!("unknown schema version {version}")),
        None => return corrupt("no schema version".to_owned()),
    }
    match serde_json::from_value::<FileIn>(value) {
        Ok(file) => {
            let mut history = file.history;
            history.after_load();
            history.settle_open_turn(now_ms);
            Loaded {
                history: Some(history),
                writable: true,
                warning: None,
            }
        }
        Err(err) => corrupt(err.to_string()),
    }
}

/// The file's bytes (without writing them: the caller writes off its own thread).
pub fn encode(session_id: &str, history: &History) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&FileOut {
        version: SCHEMA_VERSION,
        session: session_id,
        history,
    })
}

/// Writes a session's file atomically.
pub fn save(path: &Path, bytes: &[u8]) -> Result<(), PersistError> {
    persist::write_atomic(path, bytes)
}

/// Removes the files of sessions that are not in `keep` (removed, merged or pruned sessions);
/// returns what could not be removed.
pub fn prune(repo_root: &Path, keep: &BTreeSet<String>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir(repo_root)) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Some(stem) = path
            .extension()
            .filter(|ext| *ext == "json")
            .and_then(|_| path.file_stem())
            .and_then(|stem| stem.to_str())
        else {
            continue;
        };
        if stem.starts_with('.') || keep.contains(stem) {
            continue;
        }
        if let Err(err) = std::fs::remove_file(&path) {
            problems.push(format!("cannot remove {}: {err}", path.display()));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryItem;

    fn sample() -> History {
        let mut history = History::new("claude");
        history
            .items
            .push_back(HistoryItem::Turn(crate::history::TurnRecord {
                started_at: 1,
                ..crate::history::TurnRecord::default()
            }));
        history
    }

    #[test]
    fn round_trip_settles_an_open_turn() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path(), "fix-bug").unwrap();
        save(&path, &encode("fix-bug", &sample()).unwrap()).unwrap();
        let loaded = load(&path, 9);
        assert!(loaded.warning.is_none() && loaded.writable);
        let history = loaded.history.unwrap();
        let turn = history.turns().next().unwrap();
        assert_eq!(turn.outcome, Some(crate::history::Outcome::Interrupted));
        assert_eq!(turn.ended_at, Some(9));
    }

    #[test]
    fn missing_is_empty_and_writable() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = load(&path(dir.path(), "x").unwrap(), 0);
        assert!(loaded.history.is_none() && loaded.writable && loaded.warning.is_none());
    }

    #[test]
    fn corrupt_is_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path(), "x").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"{\"version\":1,\"history\":{\"items\":[").unwrap();
        let loaded = load(&path, 0);
        assert!(loaded.history.is_none() && loaded.writable);
        assert!(loaded.warning.unwrap().contains("corrupt"));
        assert!(!path.exists());
        let moved = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("x.json.corrupt-")
            })
            .count();
        assert_eq!(moved, 1);
    }

    #[test]
    fn newer_schema_is_left_alone_and_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path(), "x").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, br#"{"version":7,"history":{}}"#).unwrap();
        let loaded = load(&path, 0);
        assert!(loaded.history.is_none() && !loaded.writable);
        assert!(loaded.warning.unwrap().contains("newer"));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            br#"{"version":7,"history":{}}"#
        );
    }

    #[test]
    fn odd_ids_have_no_file() {
        let root = Path::new("/r");
        assert!(path(root, "../x").is_none());
        assert!(path(root, ".hidden").is_none());
        assert!(path(root, "").is_none());
        assert_eq!(
            path(root, "a-b").unwrap(),
            Path::new("/r/.codiva/history/a-b.json")
        );
    }

    #[test]
    fn prune_keeps_listed_sessions_only() {
        let dir = tempfile::tempdir().unwrap();
        for id in ["keep", "gone"] {
            let path = path(dir.path(), id).unwrap();
            save(&path, &encode(id, &sample()).unwrap()).unwrap();
        }
        let keep: BTreeSet<String> = ["keep".to_owned()].into();
        assert!(prune(dir.path(), &keep).is_empty());
        assert!(path(dir.path(), "keep").unwrap().is_file());
        assert!(!path(dir.path(), "gone").unwrap().exists());
    }
}
