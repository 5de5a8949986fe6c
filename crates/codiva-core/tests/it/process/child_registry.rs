//! The child registry: records follow the child's life; stale children of dead owners are killed,
//! never a pid whose start time differs.

use std::time::Duration;

use codiva_core::process::procfs::live_group_members;
use codiva_core::process::{
    AgentProcess, ChildRecord, ChildRegistry, ExitInfo, ReapOutcome, spawn,
};

use super::{group_gone_within, sh, text};

async fn start_ready(registry: Option<&ChildRegistry>) -> AgentProcess {
    let mut process = spawn(sh("sleep 1000 & echo ready; sleep 1000"), registry)
        .await
        .unwrap();
    let item = process.stdout.next_line().await.unwrap().unwrap();
    assert_eq!(text(item), "ready");
    process
}

fn rewrite(registry: &ChildRegistry, pid: u32, change: impl FnOnce(&mut ChildRecord)) {
    let path = registry.record_path(pid);
    let mut record: ChildRecord = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    change(&mut record);
    std::fs::write(&path, serde_json::to_vec(&record).unwrap()).unwrap();
}

#[tokio::test]
async fn spawn_records_and_reaping_removes() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ChildRegistry::open(dir.path().join("children")).unwrap();
    let process = start_ready(Some(&registry)).await;
    let records = registry.records().unwrap();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!((record.pid, record.pgid), (process.pid, process.pid));
    assert_eq!(record.owner_pid, std::process::id());
    assert_eq!(record.label, "test sh");
    assert_eq!(record.program, "sh");
    // Our own child: the owner (this process) is alive.
    assert!(registry.reap_stale().is_empty());

    process
        .control
        .shutdown(Some(process.stdin), Duration::from_millis(50))
        .await;
    assert!(registry.records().unwrap().is_empty());
}

#[tokio::test]
async fn reap_kills_a_stale_child_of_a_dead_owner() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
    // Spawned without the registry so that only reap_stale can remove the record.
    let process = start_ready(None).await;
    let pid = process.pid;
    registry.record(pid, "stale agent", "sh".as_ref()).unwrap();
    // The owner "crashed": same pid, different start time (pid reused by us).
    rewrite(&registry, pid, |record| record.owner_start_time += 1);

    let reaped = registry.reap_stale();
    assert_eq!(reaped.len(), 1);
    assert_eq!(reaped[0].record.pid, pid);
    assert_eq!(reaped[0].outcome, ReapOutcome::Killed);
    assert_eq!(process.control.wait().await, ExitInfo::Signal(9));
    assert!(
        group_gone_within(pid, Duration::from_secs(3)).await,
        "{:?}",
        live_group_members(pid)
    );
    assert!(registry.records().unwrap().is_empty());
}

#[tokio::test]
async fn reap_treats_a_vanished_owner_pid_as_dead() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
    let process = start_ready(None).await;
    let pid = process.pid;
    registry.record(pid, "stale agent", "sh".as_ref()).unwrap();
    // Above any pid_max: no such process.
    rewrite(&registry, pid, |record| record.owner_pid = 0x3fff_fff0);

    let reaped = registry.reap_stale();
    assert_eq!(reaped.len(), 1);
    assert_eq!(reaped[0].outcome, ReapOutcome::Killed);
    assert_eq!(process.control.wait().await, ExitInfo::Signal(9));
}

#[tokio::test]
async fn reap_spares_a_pid_whose_start_time_differs() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
    let process = start_ready(None).await;
    let pid = process.pid;
    registry.record(pid, "reused pid", "sh".as_ref()).unwrap();
    rewrite(&registry, pid, |record| {
        record.owner_pid = 0x3fff_fff0;
        // The recorded child started at another time: this pid now belongs to someone else.
        record.start_time += 1;
    });

    let reaped = registry.reap_stale();
    assert_eq!(reaped.len(), 1);
    assert_eq!(reaped[0].outcome, ReapOutcome::AlreadyGone);
    assert!(registry.records().unwrap().is_empty());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(process.control.try_exit(), None);
    assert!(live_group_members(pid).len() >= 2);
    process.control.kill_group_now();
    assert_eq!(process.control.wait().await, ExitInfo::Signal(9));
}

#[tokio::test]
async fn reap_spares_a_child_from_another_boot() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
    let process = start_ready(None).await;
    let pid = process.pid;
    registry.record(pid, "old boot", "sh".as_ref()).unwrap();
    rewrite(&registry, pid, |record| {
        record.boot_id = "another-boot".into()
    });

    let reaped = registry.reap_stale();
    assert_eq!(reaped.len(), 1);
    assert_eq!(reaped[0].outcome, ReapOutcome::AlreadyGone);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(process.control.try_exit(), None);
}

#[tokio::test]
async fn reap_leaves_records_of_a_live_owner() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
    let process = start_ready(None).await;
    registry
        .record(process.pid, "live owner", "sh".as_ref())
        .unwrap();
    // A second registry on the same directory (another codiva instance in this process).
    let other = ChildRegistry::open(dir.path().to_path_buf()).unwrap();
    assert!(other.reap_stale().is_empty());
    assert_eq!(registry.records().unwrap().len(), 1);
    assert_eq!(process.control.try_exit(), None);
}
