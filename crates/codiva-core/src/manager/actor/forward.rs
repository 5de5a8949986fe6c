//! A session task's events into the actor, in order — and its snapshots in their place among
//! them.
//!
//! A `session/snapshot` must say which of the session's events it holds, so that a client
//! applies exactly the later ones over it. The session task answers a counted snapshot with
//! how many events it had sent (it sends its pending events first, and nothing between the
//! count and the answer); the forwarder passes on exactly that many events, then the snapshot,
//! so the actor takes it after the last event it holds and before the next: its `seq` is the
//! actor's last one then.

use codiva_protocol::error::RefusalCode;
use codiva_protocol::session::{SessionEvent, SessionSnapshot};
use tokio::sync::{mpsc, oneshot};

use super::Internal;
use crate::manager::Reply;
use crate::session::{SessionCommand, SessionHandle};

/// A snapshot asked of the session task, and who waits for it.
struct Asked {
    answer: oneshot::Receiver<(SessionSnapshot, u64)>,
    reply: Reply<SessionSnapshot>,
}

struct Forwarder {
    handle: SessionHandle,
    id: String,
    internal: mpsc::UnboundedSender<Internal>,
    /// Events passed on so far.
    forwarded: u64,
}

impl Forwarder {
    /// `false` once the actor is gone.
    fn pass(&mut self, event: SessionEvent) -> bool {
        self.forwarded += 1;
        self.internal
            .send(Internal::Event(self.id.clone(), event))
            .is_ok()
    }

    /// Passes on the events the snapshot holds that are not passed on yet (`held`: one taken
    /// from the task already), then the snapshot; an event taken beyond them goes after it.
    async fn place(
        &mut self,
        snapshot: SessionSnapshot,
        sent: u64,
        reply: Reply<SessionSnapshot>,
        mut held: Option<SessionEvent>,
    ) -> bool {
        while self.forwarded < sent {
            let event = match held.take() {
                Some(event) => event,
                None => match self.handle.next_event().await {
                    Some(event) => event,
                    None => break,
                },
            };
            if !self.pass(event) {
                return false;
            }
        }
        let placed = self
            .internal
            .send(Internal::Snapshot(snapshot, reply))
            .is_ok();
        match held {
            Some(event) => placed && self.pass(event),
            None => placed,
        }
    }
}

/// Runs until the session task has ended and every event was passed on; then tells the actor.
pub(super) async fn forward(
    handle: SessionHandle,
    id: String,
    epoch: u64,
    internal: mpsc::UnboundedSender<Internal>,
    mut asks: mpsc::UnboundedReceiver<Reply<SessionSnapshot>>,
) {
    let mut forwarder = Forwarder {
        handle,
        id,
        internal,
        forwarded: 0,
    };
    let mut asked: Option<Asked> = None;
    let mut asks_open = true;
    loop {
        tokio::select! {
            biased;
            answer = async {
                match asked.as_mut() {
                    Some(pending) => (&mut pending.answer).await,
                    None => std::future::pending().await,
                }
            }, if asked.is_some() => {
                let Some(Asked { reply, .. }) = asked.take() else { break };
                match answer {
                    Ok((snapshot, sent)) => {
                        if !forwarder.place(snapshot, sent, reply, None).await {
                            break;
                        }
                    }
                    Err(_) => gone(reply, &forwarder.id),
                }
            }
            ask = asks.recv(), if asks_open && asked.is_none() => match ask {
                Some(reply) => {
                    let (tx, answer) = oneshot::channel();
                    if forwarder.handle.send(SessionCommand::SnapshotCounted(tx)) {
                        asked = Some(Asked { answer, reply });
                    } else {
                        gone(reply, &forwarder.id);
                    }
                }
                None => asks_open = false,
            },
            event = forwarder.handle.next_event() => {
                let Some(event) = event else { break };
                // The task answers before it sends anything the snapshot does not hold: an
                // answer that is there now goes in its place, before or after this event.
                if let Some(pending) = asked.as_mut()
                    && let Ok((snapshot, sent)) = pending.answer.try_recv()
                {
                    let Some(Asked { reply, .. }) = asked.take() else { break };
                    if !forwarder.place(snapshot, sent, reply, Some(event)).await {
                        break;
                    }
                    continue;
                }
                if !forwarder.pass(event) {
                    break;
                }
            }
        }
    }
    if let Some(Asked { reply, .. }) = asked.take() {
        gone(reply, &forwarder.id);
    }
    let Forwarder {
        handle,
        id,
        internal,
        ..
    } = forwarder;
    handle.shutdown().await;
    let _ = internal.send(Internal::Ended(id, epoch));
}

/// The session task ended before it answered.
fn gone(reply: Reply<SessionSnapshot>, id: &str) {
    reply.send(Err(super::refused(
        RefusalCode::NoAgentYet,
        &[id],
        format!("session {id} has no agent yet"),
    )));
}
