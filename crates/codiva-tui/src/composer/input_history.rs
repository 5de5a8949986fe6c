//! The composer's input history (the instructions submitted in it, ↑ recalls them), one per
//! repository: the last [`InputHistory::LIMIT`] submitted texts, consecutive duplicates
//! collapsed. Stored as JSON lines (one JSON string per line, oldest
//! first); a JSON array is read too. Written atomically (temp file, fsync, rename).

use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputHistory {
    entries: Vec<String>,
}

impl InputHistory {
    /// How many entries are kept.
    pub const LIMIT: usize = 200;

    pub fn new() -> Self {
        Self::default()
    }

    /// Where a repository keeps its history: `<repo>/.codiva/history.jsonl`.
    pub fn path_for(repo_root: &Path) -> PathBuf {
        repo_root.join(".codiva").join("history.jsonl")
    }

    /// Builds a history from entries, oldest first (same rules as [`InputHistory::push`]).
    pub fn from_entries<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut history = Self::new();
        for entry in entries {
            history.push(entry);
        }
        history
    }

    /// Loads a history file. A missing file is an empty history; lines that are not JSON
    /// strings are skipped. Errors name the file.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Self::new()),
            Err(err) => return Err(with_path("read", path, err)),
        };
        if text.trim_start().starts_with('[')
            && let Ok(entries) = serde_json::from_str::<Vec<String>>(&text)
        {
            return Ok(Self::from_entries(entries));
        }
        Ok(Self::from_entries(text.lines().filter_map(|line| {
            serde_json::from_str::<String>(line.trim()).ok()
        })))
    }

    /// Writes the history atomically: a temp file next to `path`, fsync, rename. On error the
    /// previous file is untouched. Errors name the file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let write_error = |err| with_path("write", path, err);
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(dir).map_err(write_error)?;
        let mut body = String::new();
        for entry in &self.entries {
            let line = serde_json::to_string(entry)
                .map_err(|err| write_error(std::io::Error::other(err)))?;
            body.push_str(&line);
            body.push('\n');
        }
        let file_name = path
            .file_name()
            .map_or_else(|| "history".into(), |name| name.to_string_lossy());
        let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
        let result = (|| {
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(body.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map_err(write_error)
    }

    /// Adds a submitted text. Whitespace-only text and a repeat of the newest entry are
    /// ignored; the oldest entries go past [`InputHistory::LIMIT`]. Returns whether it was added.
    pub fn push(&mut self, text: impl Into<String>) -> bool {
        let text = text.into();
        if text.trim().is_empty() || self.entries.last() == Some(&text) {
            return false;
        }
        self.entries.push(text);
        if self.entries.len() > Self::LIMIT {
            let excess = self.entries.len() - Self::LIMIT;
            self.entries.drain(..excess);
        }
        true
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// An I/O error that says which file and what was being done.
fn with_path(doing: &str, path: &Path, err: std::io::Error) -> std::io::Error {
    std::io::Error::new(
        err.kind(),
        format!("cannot {doing} {}: {err}", path.display()),
    )
}
