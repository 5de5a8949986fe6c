//! The manager's event stream: every event gets the next sequence number here, the one place
//! events leave the actor, so that a snapshot taken by the actor between two events can say
//! exactly which events it reflects.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::broadcast;

use super::info::{ManagerEvent, SequencedEvent};

/// Events kept for a subscriber that reads slowly; beyond that it lags (and sees a gap).
const CAPACITY: usize = 8192;

pub(crate) struct EventBus {
    plain: broadcast::Sender<ManagerEvent>,
    sequenced: broadcast::Sender<SequencedEvent>,
    /// The `seq` of the last event sent (0 before the first).
    last: AtomicU64,
}

impl EventBus {
    pub(crate) fn new() -> Self {
        EventBus {
            plain: broadcast::channel(CAPACITY).0,
            sequenced: broadcast::channel(CAPACITY).0,
            last: AtomicU64::new(0),
        }
    }

    pub(crate) fn senders(
        &self,
    ) -> (
        broadcast::Sender<ManagerEvent>,
        broadcast::Sender<SequencedEvent>,
    ) {
        (self.plain.clone(), self.sequenced.clone())
    }

    /// Stamps the event with the next `seq` and sends it to every subscriber (none is fine).
    pub(crate) fn send(&self, event: ManagerEvent) {
        let seq = self.last.fetch_add(1, Ordering::Relaxed) + 1;
        if self.sequenced.receiver_count() > 0 {
            let _ = self.sequenced.send(SequencedEvent {
                seq,
                event: event.clone(),
            });
        }
        let _ = self.plain.send(event);
    }

    /// The `seq` of the last event sent: what a snapshot taken now reflects.
    pub(crate) fn last_seq(&self) -> u64 {
        self.last.load(Ordering::Relaxed)
    }
}
