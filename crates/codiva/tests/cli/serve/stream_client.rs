//! The stream client (`codiva_client::stream`) against a real `codiva serve --stdio` child:
//! typed calls, events in `seq` order, and a lost notification turned into a resync.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use codiva_client::{ClientError, Update};
use codiva_protocol::manager::{ManagerEvent, SessionInfo};
use codiva_protocol::methods::request;
use codiva_protocol::params::{CreateParams, NoParams, ReadParams, SendParams};
use codiva_protocol::session::Status;
use codiva_testkit::{Match, Reply, Script};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::client::{WAIT, World};

#[test]
fn calls_events_in_order_and_a_gap_resyncs() {
    let world = World::new(|_| {
        Script::new()
            .then_when(
                Match::FirstUserContains("STREAM".into()),
                Reply::text("First."),
            )
            .then(Reply::text("Second."))
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut command = tokio::process::Command::from(world.command(world.repo.path()));
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        // Between the server and the client: every line but the first `session/log`
        // notification, so the client sees a `seq` skipped.
        let (client_end, mut relay_end) = tokio::io::duplex(1 << 20);
        let dropped = Arc::new(AtomicBool::new(false));
        let dropped_flag = dropped.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains(r#""method":"session/log""#)
                    && !dropped_flag.swap(true, Ordering::SeqCst)
                {
                    continue;
                }
                if relay_end
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
        let (reader, _unused) = tokio::io::split(client_end);
        let (client, close) = codiva_client::stream::connect_closable(reader, stdin);

        let init = client
            .call::<request::Initialize>(NoParams {})
            .await
            .unwrap();
        assert!(init.capabilities.event_seq);
        let (snapshot, mut events) = client.subscribe().await.unwrap();
        assert!(snapshot.sessions.is_empty());

        let created = client
            .call::<request::SessionCreate>(CreateParams {
                prompt: "STREAM one line".to_owned(),
                images: Vec::new(),
                model: None,
                permission_mode: None,
                agent: None,
                approval_policy: None,
                ..CreateParams::default()
            })
            .await
            .unwrap();
        let id = created.session.id.clone();

        // Until the session completes: events one `seq` apart, a resync at the gap.
        let mut last = snapshot.seq;
        let mut resyncs = 0;
        let mut row: Option<SessionInfo> = None;
        let deadline = tokio::time::Instant::now() + WAIT;
        while row
            .as_ref()
            .is_none_or(|row| row.status != Status::Completed)
        {
            let update = tokio::time::timeout_at(deadline, events.recv())
                .await
                .expect("the session completes")
                .expect("the stream stays open");
            match update {
                Update::Event { seq, event } => {
                    assert_eq!(seq, last + 1, "events come in order, none skipped");
                    last = seq;
                    if let ManagerEvent::Session { session } = event {
                        row = Some(session);
                    }
                }
                Update::Resync(snapshot) => {
                    resyncs += 1;
                    assert!(snapshot.seq > last, "the snapshot covers the gap");
                    last = snapshot.seq;
                    row = snapshot.sessions.into_iter().find(|s| s.id == id);
                }
            }
        }
        assert!(
            dropped.load(Ordering::SeqCst),
            "a notification was held back"
        );
        assert_eq!(resyncs, 1, "the gap was resynced once");

        // Typed calls: the list, the log, and an error with its data.
        let list = client
            .call::<request::SessionList>(NoParams {})
            .await
            .unwrap();
        assert_eq!(list.sessions.len(), 1);
        let page = client
            .call::<request::SessionRead>(ReadParams {
                session_id: id.clone(),
                after: None,
                limit: None,
                subagent: None,
            })
            .await
            .unwrap();
        assert!(format!("{:?}", page.entries).contains("First."), "{page:?}");
        let err = client
            .call::<request::SessionSend>(SendParams {
                session_id: "nope".to_owned(),
                text: "hello".to_owned(),
                images: Vec::new(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.no_such_session(), Some("nope"), "{err:?}");

        // Closing the stream stops the server; calls after it fail.
        let _ = close.send(());
        let status = tokio::time::timeout(WAIT, child.wait())
            .await
            .unwrap()
            .unwrap();
        assert!(status.success(), "{status:?}");
        let after = client.call::<request::SessionList>(NoParams {}).await;
        assert_eq!(after.unwrap_err(), ClientError::Disconnected);
    });
    assert!(
        world.recorded_children().is_empty(),
        "every agent was reaped"
    );
}
