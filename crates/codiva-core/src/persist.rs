//! `<repo>/.codiva/state.json`: the session metadata that survives a restart.
//!
//! One writer (the session manager), atomic writes (temp file, fsync, rename), a schema
//! version with migration. A corrupt file is never silently dropped: it is kept as a backup and
//! the caller shows a warning. A file of a newer schema is left exactly as it is and loading
//! fails ([`LoadError::NewerSchema`]): the manager refuses to start rather than overwrite what a
//! newer codiva wrote. Conversation text is never stored here: each session's log is rebuilt
//! from the agent's own transcript, or without one from codiva's capped history
//! (`history_file.rs`, written with [`write_atomic`] like this file).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use codiva_protocol::tool::PermissionMode;
use serde::{Deserialize, Serialize};

/// The schema this build writes.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateFile {
    pub version: u32,
    pub sessions: Vec<PersistedSession>,
    /// The groups of attempts of the sessions listed. Absent in older files: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<codiva_protocol::group::GroupInfo>,
    /// The attempts the last group was started with (`group/lastAttempts`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_attempts: Vec<codiva_protocol::group::AttemptSpec>,
}

/// Where a saved session stood: its status when it was saved (a session saved while it ran
/// comes back interrupted: its process is gone), or discarded. Written by its name; a name of a
/// later version reads as `Unknown`, and comes back interrupted too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SavedStatus {
    Starting,
    Running,
    AwaitingPermission,
    AwaitingAnswer,
    Completed,
    #[default]
    Interrupted,
    RateLimited,
    NeedsLogin,
    Failed,
    Queued,
    Discarded,
    #[serde(other)]
    Unknown,
}

impl From<codiva_protocol::session::Status> for SavedStatus {
    fn from(status: codiva_protocol::session::Status) -> Self {
        use codiva_protocol::session::Status;
        match status {
            Status::Starting => SavedStatus::Starting,
            Status::Running => SavedStatus::Running,
            Status::AwaitingPermission => SavedStatus::AwaitingPermission,
            Status::AwaitingAnswer => SavedStatus::AwaitingAnswer,
            Status::Completed => SavedStatus::Completed,
            Status::Interrupted => SavedStatus::Interrupted,
            Status::RateLimited => SavedStatus::RateLimited,
            Status::NeedsLogin => SavedStatus::NeedsLogin,
            Status::Failed => SavedStatus::Failed,
            Status::Queued => SavedStatus::Queued,
        }
    }
}

/// One session's metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PersistedSession {
    pub id: String,
    pub title: String,
    pub prompt: String,
    pub slug: String,
    pub branch: String,
    pub worktree: PathBuf,
    pub base: String,
    /// The agent (`claude`).
    pub agent: String,
    /// The agent's own session id (what `--resume` takes).
    pub agent_session_id: Option<String>,
    /// The conversations of the agents the session ran before its current one, by agent id.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub agent_sessions: std::collections::BTreeMap<String, String>,
    pub status: SavedStatus,
    pub detail: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
    /// Time spent preparing or running, in milliseconds.
    pub active_ms: u64,
    pub cost_usd: Option<f64>,
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    /// Which permission requests the session allows without asking (`ask` when absent).
    pub approval: codiva_protocol::approval::ApprovalPolicy,
    /// Its pull requests, identity only (their state is always looked up), the branch's own
    /// first. Absent in older files: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prs: Vec<PersistedPr>,
    /// Its branch was pushed (its pull request is looked for). Absent in older files: `false`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pushed: bool,
    /// The automatic pull request was tried once already (`auto_pr`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub auto_pr_tried: bool,
    /// Where `title` came from (an agent's title replaces only the prompt's). Absent in older
    /// files: the prompt.
    #[serde(skip_serializing_if = "is_prompt_title")]
    pub title_origin: crate::title::TitleOrigin,
    /// It runs in `worktree` itself, with no worktree or branch of its own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_place: bool,
    /// Its private MCP config file (in codiva's state directory; the servers' settings, which
    /// may hold secrets, are only there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_config: Option<PathBuf>,
    /// Appended to the agent's system prompt (`session/create`'s own, not codiva's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disallowed_tools: Vec<String>,
    /// Automatic repairs made (`auto_recover`), by kind (`fix_ci`, `sync`). Absent: none.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub recover_attempts: std::collections::BTreeMap<String, u32>,
    /// The pull request review threads sent to the agent (`session/addressReview`: each
    /// once), as thread id and comment count. Absent: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reviews_sent: Vec<String>,
    /// Comments on its diff not yet sent to the agent (`review/add`). Absent: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub review: Vec<codiva_protocol::review::ReviewComment>,
    /// The number of its next comment's id. Absent in older files: 0 (read as 1).
    #[serde(skip_serializing_if = "is_zero")]
    pub review_next: u64,
    /// The group of attempts it is one of. Absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Its latest check (one saved while it ran comes back as an error: codiva stopped it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<codiva_protocol::group::CheckRun>,
    /// The tokens its agent last reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<codiva_protocol::agent::TokenUsage>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

fn is_prompt_title(origin: &crate::title::TitleOrigin) -> bool {
    *origin == crate::title::TitleOrigin::Prompt
}

/// A pull request of a session: which one, not its state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PersistedPr {
    pub number: u64,
    pub url: String,
    /// Opened from the session's own branch.
    pub own: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why the state file cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Written by a newer codiva: left alone, and nothing may overwrite it.
    #[error(
        "{} has schema version {version}, newer than this codiva understands ({SCHEMA_VERSION}); \
         it was left untouched: run a newer codiva, or move the file away to start without its \
         sessions",
        path.display()
    )]
    NewerSchema { path: PathBuf, version: u64 },
}

/// What loading found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub state: StateFile,
    /// A human-readable warning (corrupt file kept as a backup, unreadable file).
    pub warning: Option<String>,
}

pub fn state_path(repo_root: &Path) -> PathBuf {
    repo_root.join(".codiva").join("state.json")
}

/// Loads the state file. Missing → empty. Corrupt → the file is renamed to
/// `state.json.corrupt-<unix ms>` and a warning says so; nothing is deleted. A newer schema →
/// [`LoadError::NewerSchema`], the file untouched.
pub fn load(path: &Path) -> Result<Loaded, LoadError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Loaded::default()),
        Err(err) => {
            return Ok(Loaded {
                state: StateFile::default(),
                warning: Some(format!("cannot read {}: {err}", path.display())),
            });
        }
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(err) => return Ok(corrupt(path, &err.to_string())),
    };
    if let Some(version) = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .filter(|version| *version > u64::from(SCHEMA_VERSION))
    {
        return Err(LoadError::NewerSchema {
            path: path.to_path_buf(),
            version,
        });
    }
    Ok(match migrate(value) {
        Ok(state) => Loaded {
            state,
            warning: None,
        },
        Err(problem) => corrupt(path, &problem.to_string()),
    })
}

fn corrupt(path: &Path, problem: &str) -> Loaded {
    let kept = move_aside(path);
    Loaded {
        state: StateFile::default(),
        warning: Some(format!(
            "{} is corrupt ({problem}); {kept}; starting with no saved sessions",
            path.display()
        )),
    }
}

/// Why a state file of this schema or an older one cannot be read (it is moved aside).
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error("no schema version")]
    NoVersion,
    #[error("unknown schema version {0}")]
    UnknownVersion(u64),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Brings any known older schema to the current one (a newer one never gets here).
fn migrate(value: serde_json::Value) -> Result<StateFile, Unreadable> {
    let version = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .ok_or(Unreadable::NoVersion)?;
    match version {
        1 => Ok(serde_json::from_value(value)?),
        unknown => Err(Unreadable::UnknownVersion(unknown)),
    }
}

/// Writes the state atomically: a temp file in the same directory, fsync, rename, fsync of the
/// directory. On any error the previous file is left untouched.
pub fn save(path: &Path, state: &StateFile) -> Result<(), PersistError> {
    let text = serde_json::to_vec_pretty(state).map_err(|err| PersistError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(err),
    })?;
    write_atomic(path, &text)
}

/// Writes `bytes` (and a final newline) to `path` atomically: a temp file in the same
/// directory, fsync, rename, fsync of the directory. On any error the previous file is left
/// untouched and the temp file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PersistError> {
    let write_error = |source| PersistError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(write_error)?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile_in(dir, &name).map_err(write_error)?;
    let result = (|| {
        tmp.1.write_all(bytes)?;
        tmp.1.write_all(b"\n")?;
        tmp.1.sync_all()?;
        std::fs::rename(&tmp.0, path)?;
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp.0);
    }
    result.map_err(write_error)
}

fn tempfile_in(dir: &Path, name: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    for attempt in 0..16u32 {
        let path = dir.join(format!(".{name}.tmp-{}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                let _ = std::fs::remove_file(&path);
            }
            Err(err) => return Err(err),
        }
    }
    Err(std::io::Error::other("no free temp file name"))
}

/// Moves a file that cannot be read aside as `<name>.corrupt-<unix ms>`; says where it went.
pub fn move_aside(path: &Path) -> String {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut backup = path.as_os_str().to_owned();
    backup.push(format!(".corrupt-{stamp}"));
    let backup = PathBuf::from(backup);
    match std::fs::rename(path, &backup) {
        Ok(()) => format!("kept as {}", backup.display()),
        Err(err) => format!("could not move it aside ({err}); it was left in place"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str) -> PersistedSession {
        PersistedSession {
            id: id.into(),
            title: "t".into(),
            status: SavedStatus::Completed,
            agent: "claude".into(),
            ..PersistedSession::default()
        }
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = state_path(dir.path());
        let state = StateFile {
            version: SCHEMA_VERSION,
            sessions: vec![session("a"), session("b")],
            ..StateFile::default()
        };
        save(&path, &state).unwrap();
        let loaded = load(&path).unwrap();
        assert!(loaded.warning.is_none());
        assert_eq!(loaded.state, state);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn pull_requests_are_kept_and_older_files_without_them_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = state_path(dir.path());
        let mut with_prs = session("a");
        with_prs.prs = vec![
            PersistedPr {
                number: 12,
                url: "https://github.com/o/r/pull/12".into(),
                own: true,
            },
            PersistedPr {
                number: 14,
                url: "https://github.com/o/r/pull/14".into(),
                own: false,
            },
        ];
        with_prs.pushed = true;
        let state = StateFile {
            version: SCHEMA_VERSION,
            sessions: vec![with_prs],
            ..StateFile::default()
        };
        save(&path, &state).unwrap();
        assert_eq!(load(&path).unwrap().state, state);
        // A file written before pull requests existed (no `prs`, no `pushed`).
        std::fs::write(
            &path,
            r#"{"version":1,"sessions":[{"id":"old","title":"t","prompt":"p","slug":"old",
            "branch":"codiva/old","worktree":"/r/.codiva/worktrees/old","base":"main",
            "agent":"claude","agent_session_id":null,"status":"completed","detail":null,
            "created_at":1,"active_ms":2,"cost_usd":null,"model":null,"permission_mode":null}]}"#,
        )
        .unwrap();
        let loaded = load(&path).unwrap();
        assert!(loaded.warning.is_none(), "{:?}", loaded.warning);
        let old = &loaded.state.sessions[0];
        assert!(old.prs.is_empty());
        assert!(!old.pushed && !old.auto_pr_tried);
        // And a session without pull requests writes none of the new keys.
        let text = serde_json::to_string(old).unwrap();
        assert!(!text.contains("prs") && !text.contains("pushed"), "{text}");
    }

    /// Every status is written by the name files have always had; a name this version does
    /// not know reads as `Unknown` (the session comes back interrupted) instead of failing the
    /// whole file.
    #[test]
    fn a_saved_status_keeps_its_name() {
        use codiva_protocol::session::Status;
        for status in [
            Status::Starting,
            Status::Running,
            Status::AwaitingPermission,
            Status::AwaitingAnswer,
            Status::Completed,
            Status::Interrupted,
            Status::RateLimited,
            Status::NeedsLogin,
            Status::Failed,
            Status::Queued,
        ] {
            let saved = serde_json::to_value(SavedStatus::from(status)).unwrap();
            assert_eq!(saved, serde_json::json!(status.as_str()));
            let back: SavedStatus = serde_json::from_value(saved).unwrap();
            assert_eq!(back, SavedStatus::from(status));
        }
        assert_eq!(
            serde_json::to_value(SavedStatus::Discarded).unwrap(),
            serde_json::json!("discarded")
        );
        let later: SavedStatus = serde_json::from_str("\"archived_elsewhere\"").unwrap();
        assert_eq!(later, SavedStatus::Unknown);
    }

    #[test]
    fn missing_file_is_empty_without_warning() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = load(&state_path(dir.path())).unwrap();
        assert!(loaded.warning.is_none());
        assert!(loaded.state.sessions.is_empty());
    }

    #[test]
    fn corrupt_file_is_kept_as_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = state_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"{\"version\":1,\"sessions\":[{").unwrap();
        let loaded = load(&path).unwrap();
        let warning = loaded.warning.unwrap();
        assert!(warning.contains("corrupt"), "{warning}");
        assert!(!path.exists());
        let backups: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("state.json.corrupt-")
            })
            .collect();
        assert_eq!(backups.len(), 1);
        assert_eq!(
            std::fs::read(backups[0].path()).unwrap(),
            b"{\"version\":1,\"sessions\":[{"
        );
    }

    #[test]
    fn newer_schema_is_an_error_and_the_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = state_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, br#"{"version":99,"sessions":[]}"#).unwrap();
        let err = load(&path).unwrap_err();
        assert!(matches!(err, LoadError::NewerSchema { version: 99, .. }));
        assert!(err.to_string().contains("newer"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            br#"{"version":99,"sessions":[]}"#
        );
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = state_path(dir.path());
        let state = StateFile {
            version: SCHEMA_VERSION,
            sessions: vec![session("a")],
            ..StateFile::default()
        };
        save(&path, &state).unwrap();
        // A directory where the file should go makes the rename fail.
        let blocked = dir.path().join("blocked.json");
        std::fs::create_dir_all(blocked.join("x")).unwrap();
        assert!(save(&blocked, &state).is_err());
        assert_eq!(load(&path).unwrap().state, state);
    }
}
