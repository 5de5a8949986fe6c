//! Attach equals watching, for the list: `manager/snapshot` at any point is the protocol's
//! fold (`ManagerSnapshot::apply`) of the manager's sequenced events over an earlier snapshot.

use codiva_core::manager::{CreateOptions, Manager};
use codiva_core::session::PermissionResponse;
use codiva_protocol::UserInput;
use codiva_protocol::manager::{ManagerSnapshot, SequencedEvent};
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_protocol::view::Applied;
use codiva_testkit::TestRepo;
use tokio::sync::broadcast;

use super::options;

/// A client that took a snapshot at the start and watched every event since.
struct Watcher {
    events: broadcast::Receiver<SequencedEvent>,
    list: ManagerSnapshot,
}

impl Watcher {
    /// Takes every event up to `seq`; `true` once one of session `id` satisfies `until`.
    async fn take(&mut self, seq: Option<u64>, id: &str, until: impl Fn(&SessionEvent) -> bool) {
        let wait = async {
            loop {
                if seq.is_some_and(|seq| self.list.seq >= seq) {
                    return;
                }
                let event = self.events.recv().await.expect("the manager's events");
                assert_eq!(self.list.apply(&event), Applied::Applied, "{event:?}");
                if seq.is_none()
                    && let codiva_protocol::manager::ManagerEvent::Event { id: of, event } =
                        &event.event
                    && of == id
                    && until(event)
                {
                    return;
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(30), wait)
            .await
            .expect("timed out watching the manager");
    }

    /// The manager's own snapshot now equals what the events made of the list.
    async fn holds(&mut self, manager: &Manager, at: &str) {
        let snapshot = manager.snapshot_all().await.unwrap();
        self.take(Some(snapshot.seq), "", |_| false).await;
        assert_eq!(self.list.seq, snapshot.seq, "{at}");
        assert_eq!(without_time(&self.list), without_time(&snapshot), "{at}");
    }
}

/// A row's `active_ms` is as of the event that carried it; a snapshot's is as of its answer.
fn without_time(list: &ManagerSnapshot) -> ManagerSnapshot {
    let mut list = list.clone();
    for row in &mut list.sessions {
        row.active_ms = 0;
    }
    list
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_is_the_fold_of_the_managers_events() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let events = manager.subscribe_sequenced();
    let list = manager.snapshot_all().await.unwrap();
    let mut watcher = Watcher { events, list };

    let first = manager
        .create(CreateOptions {
            prompt: "say hello".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap()
        .id;
    watcher.holds(&manager, "just created").await;
    let completed = |event: &SessionEvent| {
        matches!(
            event,
            SessionEvent::Status {
                status: Status::Completed,
                ..
            }
        )
    };
    watcher.take(None, &first, completed).await;
    watcher.holds(&manager, "the first turn completed").await;

    manager
        .send(&first, UserInput::text("permission please"))
        .await
        .unwrap();
    let second = manager
        .create(CreateOptions {
            prompt: "say hello again".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap()
        .id;
    let mut request_id = None;
    let opened = |event: &SessionEvent| matches!(event, SessionEvent::PromptOpened { .. });
    watcher.take(None, &first, opened).await;
    watcher
        .holds(&manager, "a permission waits, another session runs")
        .await;
    let snapshot = manager.snapshot(&first).await.unwrap();
    if let Some(Prompt::Permission(request)) = snapshot.prompts.first() {
        request_id = Some(request.request_id.clone());
    }
    manager
        .respond_permission(
            &first,
            &request_id.expect("the waiting permission"),
            PermissionResponse::Allow,
        )
        .await
        .unwrap();
    watcher.take(None, &first, completed).await;
    watcher.holds(&manager, "the permission was answered").await;

    manager.rename(&second, "renamed").await.unwrap();
    watcher.holds(&manager, "renamed").await;
    manager.shutdown().await;
}

/// `session/snapshot` says where it stands in the manager's stream (`seq`): taken again and
/// again while a session streams and completes, every one of them is what a client that watched
/// from the start had at that `seq`, and with the session's events after it, what it has at the
/// end — streamed text included, which a snapshot without its place shows twice or not at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_session_snapshot_plus_the_events_after_its_seq_is_what_watching_gives() {
    use codiva_protocol::session::SessionSnapshot;
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let mut events = manager.subscribe_sequenced();
    let id = manager
        .create(CreateOptions {
            prompt: "say hello".to_owned(),
            ..CreateOptions::default()
        })
        .await
        .unwrap()
        .id;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let taker = {
        let manager = manager.clone();
        let id = id.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut taken = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(snapshot) = manager.snapshot(&id).await {
                    taken.push(snapshot);
                }
                tokio::task::yield_now().await;
            }
            taken
        })
    };
    let mut seen: Vec<(u64, SessionEvent)> = Vec::new();
    let mut turns = 0;
    let watch = async {
        loop {
            let event = events.recv().await.expect("the manager's events");
            if let codiva_protocol::manager::ManagerEvent::Event { id: of, event: e } = event.event
                && of == id
            {
                let done = matches!(
                    e,
                    SessionEvent::Status {
                        status: Status::Completed,
                        ..
                    }
                );
                seen.push((event.seq, e));
                if done {
                    turns += 1;
                    if turns == 1 {
                        manager
                            .send(&id, UserInput::text("stream a long answer"))
                            .await
                            .unwrap();
                    } else {
                        return;
                    }
                }
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), watch)
        .await
        .expect("two turns");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let taken = taker.await.unwrap();
    let last = manager.snapshot(&id).await.unwrap();
    let watched = SessionSnapshot::folded(seen.iter().map(|(_, e)| e));
    let mut placed = 0;
    for snapshot in taken.iter().chain([&last]) {
        let seq = snapshot
            .seq
            .expect("a snapshot of the manager says its seq");
        let mut late = snapshot.clone();
        late.seq = None;
        // What one that watched had at that point…
        let then = SessionSnapshot::folded(seen.iter().filter(|(s, _)| *s <= seq).map(|(_, e)| e));
        assert_eq!(late, then, "the snapshot at seq {seq}");
        // …and once the rest came.
        for (_, event) in seen.iter().filter(|(s, _)| *s > seq) {
            late.apply(event);
        }
        assert_eq!(late, watched, "the snapshot at seq {seq}, then the rest");
        placed += 1;
    }
    assert!(
        placed > 10,
        "snapshots were taken while the session ran: {placed}"
    );
    manager.shutdown().await;
}
