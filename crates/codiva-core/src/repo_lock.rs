//! One manager per repository. Two managers on one repository would share `state.json`
//! last-writer-wins and could resume one agent conversation twice, so a manager holds an OS
//! lock (`flock`, through `std::fs::File::try_lock`) on `.codiva/manager.lock` for as long as it
//! runs. The kernel drops the lock with the process however it ends (a crash, SIGKILL), so a
//! stale lock cannot exist. The holder writes who it is into the file, so that the one refused
//! can name it. Kept small and separate: a later daemon will attach to the holder instead.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The lock file's name under `.codiva/`.
pub const LOCK_FILE: &str = "manager.lock";

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct RepoLock {
    _file: File,
    path: PathBuf,
}

/// Who holds a lock, as written in its file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    /// What it is, e.g. `codiva serve`.
    pub what: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{}", held_message(.holder.as_ref()))]
    Held {
        /// `None` when the holder has not written its name yet (or wrote something unreadable).
        holder: Option<Holder>,
    },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn held_message(holder: Option<&Holder>) -> String {
    match holder {
        Some(holder) => format!(
            "another codiva already manages this repository: {} (pid {}); stop it first",
            holder.what, holder.pid
        ),
        None => "another codiva already manages this repository; stop it first".to_owned(),
    }
}

impl RepoLock {
    /// Takes the lock of the repository whose `.codiva` directory is `codiva_dir` for this
    /// process, described as `what`. Never waits for the holder.
    pub fn acquire(codiva_dir: &Path, what: &str) -> Result<RepoLock, LockError> {
        let path = codiva_dir.join(LOCK_FILE);
        let io_error = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    holder: read_holder(&mut file),
                });
            }
            Err(TryLockError::Error(err)) => return Err(io_error(err)),
        }
        let holder = Holder {
            pid: std::process::id(),
            what: what.to_owned(),
        };
        let text = serde_json::to_string(&holder).map_err(|err| io_error(io::Error::other(err)))?;
        file.set_len(0).map_err(io_error)?;
        file.seek(SeekFrom::Start(0)).map_err(io_error)?;
        file.write_all(format!("{text}\n").as_bytes())
            .map_err(io_error)?;
        Ok(RepoLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The holder's description. A holder that has just taken the lock may not have written it
/// yet, so an empty or partial file is read again for a short while.
fn read_holder(file: &mut File) -> Option<Holder> {
    for _ in 0..10 {
        let mut text = String::new();
        if file.seek(SeekFrom::Start(0)).is_ok()
            && file.read_to_string(&mut text).is_ok()
            && let Ok(holder) = serde_json::from_str(text.trim())
        {
            return Some(holder);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_names_the_first_and_a_drop_releases_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = RepoLock::acquire(dir.path(), "codiva serve").unwrap();
        let err = RepoLock::acquire(dir.path(), "codiva (terminal UI)").unwrap_err();
        let LockError::Held { holder } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(
            holder.as_ref().unwrap(),
            &Holder {
                pid: std::process::id(),
                what: "codiva serve".to_owned()
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "another codiva already manages this repository: codiva serve (pid {}); stop it first",
                std::process::id()
            )
        );
        drop(first);
        let second = RepoLock::acquire(dir.path(), "codiva (terminal UI)").unwrap();
        let text = std::fs::read_to_string(second.path()).unwrap();
        assert!(text.contains("terminal UI"), "{text}");
        assert_eq!(
            text.lines().count(),
            1,
            "the old holder is overwritten: {text}"
        );
    }
}
