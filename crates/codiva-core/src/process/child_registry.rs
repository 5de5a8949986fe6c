//! A crash-safe record of every live child, so that a later codiva run can kill what a crashed
//! run left behind.
//!
//! Each child is one small JSON file `<dir>/<pid>.json` ([`ChildRecord`]), written atomically
//! (temporary file + rename) when the child is spawned and removed when it has been reaped. A
//! process is identified by its pid *and* its start time (field 22 of `/proc/<pid>/stat`) *and*
//! the boot id, because pids are reused: a pid whose start time differs is never signalled.
//!
//! Only Linux has `/proc`; elsewhere recording and reaping do nothing.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::procfs::{self, ProcStat};
use super::signal::{SIGKILL, signal_group, signal_pid};

/// The on-disk record of one child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildRecord {
    /// The child's pid.
    pub pid: u32,
    /// The child's process group id (codiva starts every child as a group leader).
    pub pgid: u32,
    /// The child's start time in clock ticks after boot (`/proc/<pid>/stat` field 22).
    pub start_time: u64,
    /// `/proc/sys/kernel/random/boot_id` when the child was recorded.
    pub boot_id: String,
    /// The codiva process that spawned the child.
    pub owner_pid: u32,
    /// The owner's start time.
    pub owner_start_time: u64,
    /// The label given at spawn.
    pub label: String,
    /// The program that was run.
    pub program: String,
}

/// What [`ChildRegistry::reap_stale`] did with one stale record (the record is deleted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReapOutcome {
    /// The child was still there (same pid, same start time, same boot): its group and itself
    /// were sent SIGKILL.
    Killed,
    /// The child was already gone (or its pid now belongs to another process).
    AlreadyGone,
    /// The child was there but could not be signalled.
    KillFailed {
        /// The error of `kill(2)`.
        error: String,
    },
}

/// One stale record handled by [`ChildRegistry::reap_stale`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReapedChild {
    /// The record, as read from disk.
    pub record: ChildRecord,
    /// What was done.
    pub outcome: ReapOutcome,
}

/// The directory of child records. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ChildRegistry {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    dir: PathBuf,
    /// `None` where `/proc` is unavailable: then nothing is recorded or reaped.
    me: Option<Identity>,
}

#[derive(Debug)]
struct Identity {
    pid: u32,
    start_time: u64,
    boot_id: String,
}

impl ChildRegistry {
    /// Opens (creating it if needed) the registry directory.
    pub fn open(dir: PathBuf) -> io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        let me = if cfg!(target_os = "linux") {
            let stat = procfs::read_self_stat()?;
            let boot_id = procfs::boot_id()
                .ok_or_else(|| io::Error::other("cannot read /proc/sys/kernel/random/boot_id"))?;
            Some(Identity {
                pid: stat.pid,
                start_time: stat.start_time,
                boot_id,
            })
        } else {
            None
        };
        Ok(Self {
            inner: Arc::new(Inner { dir, me }),
        })
    }

    /// The registry directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The file holding the record of `pid`.
    pub fn record_path(&self, pid: u32) -> PathBuf {
        self.inner.dir.join(format!("{pid}.json"))
    }

    /// Records a freshly spawned child (which must be a process group leader).
    pub fn record(&self, pid: u32, label: &str, program: &Path) -> io::Result<()> {
        let Some(me) = &self.inner.me else {
            return Ok(());
        };
        let stat = procfs::read_stat(pid).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("process {pid} is not in /proc"),
            )
        })?;
        let record = ChildRecord {
            pid,
            pgid: pid,
            start_time: stat.start_time,
            boot_id: me.boot_id.clone(),
            owner_pid: me.pid,
            owner_start_time: me.start_time,
            label: label.to_owned(),
            program: program.display().to_string(),
        };
        self.write_record(&record)
    }

    /// Deletes the record of `pid` (no error if there is none).
    pub fn remove(&self, pid: u32) -> io::Result<()> {
        match std::fs::remove_file(self.record_path(pid)) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        }
    }

    /// All records that can be read, in pid order.
    pub fn records(&self) -> io::Result<Vec<ChildRecord>> {
        let mut records: Vec<ChildRecord> = self
            .record_files()?
            .into_iter()
            .filter_map(|path| read_record(&path).ok())
            .collect();
        records.sort_by_key(|record| record.pid);
        Ok(records)
    }

    /// Kills the children of codiva runs that are no longer alive, and deletes their records.
    ///
    /// A record whose owner is alive (this run, or another codiva running now) is left alone.
    /// Otherwise, if the child is still there with the same start time in the same boot, its
    /// process group and itself are SIGKILLed; the record is deleted either way. Unreadable
    /// records are deleted too.
    pub fn reap_stale(&self) -> Vec<ReapedChild> {
        let Some(me) = &self.inner.me else {
            return Vec::new();
        };
        let files = match self.record_files() {
            Ok(files) => files,
            Err(err) => {
                tracing::warn!(dir = %self.inner.dir.display(), %err, "cannot list child registry");
                return Vec::new();
            }
        };
        let mut reaped = Vec::new();
        for path in files {
            let record = match read_record(&path) {
                Ok(record) => record,
                Err(err) => {
                    tracing::warn!(path = %path.display(), %err, "deleting unreadable child record");
                    let _ = std::fs::remove_file(&path);
                    continue;
                }
            };
            let same_boot = record.boot_id == me.boot_id;
            let owner_alive = same_boot
                && procfs::read_stat(record.owner_pid)
                    .is_some_and(|s| s.start_time == record.owner_start_time && !s.is_exited());
            if owner_alive {
                continue;
            }
            let child = procfs::read_stat(record.pid)
                .filter(|s| same_boot && s.start_time == record.start_time);
            let outcome = match child {
                Some(stat) => kill_stale(&record, &stat),
                None => ReapOutcome::AlreadyGone,
            };
            tracing::info!(
                pid = record.pid,
                label = %record.label,
                owner_pid = record.owner_pid,
                ?outcome,
                "reaped child of a previous codiva run"
            );
            match std::fs::remove_file(&path) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => {
                    tracing::warn!(path = %path.display(), %err, "cannot delete child record");
                }
                _ => {}
            }
            reaped.push(ReapedChild { record, outcome });
        }
        // SIGKILL is asynchronous: give the killed processes a moment to actually end, so
        // that "reaped" means gone when this returns.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        for child in &reaped {
            if child.outcome != ReapOutcome::Killed {
                continue;
            }
            while procfs::read_stat(child.record.pid)
                .is_some_and(|s| s.start_time == child.record.start_time && !s.is_exited())
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        reaped
    }

    fn write_record(&self, record: &ChildRecord) -> io::Result<()> {
        let json = serde_json::to_vec(record).map_err(io::Error::other)?;
        let me = self.inner.me.as_ref().map_or(0, |me| me.pid);
        let tmp = self
            .inner
            .dir
            .join(format!(".{}.json.{me}.tmp", record.pid));
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, self.record_path(record.pid)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// The `<pid>.json` files of the directory.
    fn record_files(&self) -> io::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&self.inner.dir)? {
            let path = entry?.path();
            let is_record = path
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| name.strip_suffix(".json"))
                .is_some_and(|stem| !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()));
            if is_record {
                files.push(path);
            }
        }
        Ok(files)
    }
}

fn read_record(path: &Path) -> io::Result<ChildRecord> {
    let bytes = std::fs::read(path)?;
    serde_json::from_slice(&bytes).map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))
}

/// SIGKILLs a stale child identified by `stat` (same pid, start time and boot as `record`).
fn kill_stale(record: &ChildRecord, stat: &ProcStat) -> ReapOutcome {
    // While the leader exists (even as a zombie) its pid, hence its group id, cannot be reused,
    // so signalling the group reaches only its members.
    let group = if stat.pgid == record.pgid && record.pgid == record.pid {
        signal_group(record.pgid, SIGKILL).map(|_| ())
    } else {
        Ok(())
    };
    let leader = signal_pid(record.pid, SIGKILL).map(|_| ());
    match group.and(leader) {
        Ok(()) => ReapOutcome::Killed,
        Err(err) => ReapOutcome::KillFailed {
            error: err.to_string(),
        },
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn record_then_remove() {
        let dir = tempfile::tempdir().unwrap();
        let registry = ChildRegistry::open(dir.path().join("children")).unwrap();
        let me = std::process::id();
        registry
            .record(me, "self", Path::new("/bin/codiva"))
            .unwrap();
        let records = registry.records().unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].pid, me);
        assert_eq!(records[0].owner_pid, me);
        assert_eq!(records[0].label, "self");
        // Our own record: the owner is alive, so it is left alone.
        assert!(registry.reap_stale().is_empty());
        registry.remove(me).unwrap();
        registry.remove(me).unwrap();
        assert!(registry.records().unwrap().is_empty());
    }

    #[test]
    fn unreadable_and_dead_records_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let registry = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
        std::fs::write(registry.record_path(7), b"{not json").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"kept").unwrap();
        let dead = ChildRecord {
            pid: u32::MAX - 1,
            pgid: u32::MAX - 1,
            start_time: 1,
            boot_id: "other-boot".into(),
            owner_pid: u32::MAX - 2,
            owner_start_time: 1,
            label: "gone".into(),
            program: "agent".into(),
        };
        registry.write_record(&dead).unwrap();
        let reaped = registry.reap_stale();
        assert_eq!(reaped.len(), 1);
        assert_eq!(reaped[0].outcome, ReapOutcome::AlreadyGone);
        assert!(registry.records().unwrap().is_empty());
        assert!(!registry.record_path(7).exists());
        assert!(dir.path().join("notes.txt").exists());
    }
}
