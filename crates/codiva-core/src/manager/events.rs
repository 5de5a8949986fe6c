//! The manager's event stream: every event gets the next sequence number here, the one place
//! events leave the actor, so that a snapshot taken by the actor between two events can say
//! exactly which events it reflects.

use std::sync::atomic::{AtomicU64, Ordering};

use codiva_protocol::manager::{ManagerEvent, SequencedEvent};
use tokio::sync::broadcast;

/// Events kept for a subscriber that reads slowly; beyond that it lags (and sees a gap).
const CAPACITY: usize = 8192;

/// One channel for every subscriber, with or without the `seq`: a channel allocates all its
/// slots up front (8,192 events of ~540 bytes, ~2.5 ms of page faults on this VM at start), and
/// a second one would also copy every event for it.
pub(crate) struct EventBus {
    sequenced: broadcast::Sender<SequencedEvent>,
    /// The `seq` of the last event sent (0 before the first).
    last: AtomicU64,
}

impl EventBus {
    pub(crate) fn new() -> Self {
        EventBus {
            sequenced: broadcast::channel(CAPACITY).0,
            last: AtomicU64::new(0),
        }
    }

    pub(crate) fn sender(&self) -> broadcast::Sender<SequencedEvent> {
        self.sequenced.clone()
    }

    /// Stamps the event with the next `seq` and sends it to every subscriber (none is fine).
    pub(crate) fn send(&self, event: ManagerEvent) {
        let seq = self.last.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = self.sequenced.send(SequencedEvent { seq, event });
    }

    /// The `seq` of the last event sent: what a snapshot taken now reflects.
    pub(crate) fn last_seq(&self) -> u64 {
        self.last.load(Ordering::Relaxed)
    }
}

/// The manager's events without their `seq` ([`super::Manager::subscribe`]): the same channel's
/// receiver, with `recv` and `try_recv` as `tokio::sync::broadcast::Receiver` has them.
pub struct EventReceiver {
    inner: broadcast::Receiver<SequencedEvent>,
}

impl EventReceiver {
    pub(crate) fn new(inner: broadcast::Receiver<SequencedEvent>) -> Self {
        EventReceiver { inner }
    }

    pub async fn recv(&mut self) -> Result<ManagerEvent, broadcast::error::RecvError> {
        self.inner.recv().await.map(|sequenced| sequenced.event)
    }

    pub fn try_recv(&mut self) -> Result<ManagerEvent, broadcast::error::TryRecvError> {
        self.inner.try_recv().map(|sequenced| sequenced.event)
    }
}
