//! The manager's events in `seq` order, with gaps turned into resyncs.

use codiva_protocol::manager::SequencedEvent;
use codiva_protocol::manager::{ManagerEvent, ManagerSnapshot};
use codiva_protocol::methods::request;
use codiva_protocol::params::NoParams;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};

use crate::{Client, ClientError};

/// What a subscriber hears.
// Events are the hot path and come unboxed; a resync is rare.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// The next event, `seq` one more than the last.
    Event { seq: u64, event: ManagerEvent },
    /// Events were lost (the subscriber or the connection fell behind): every session's row as
    /// of `snapshot.seq`. Take it as the new truth (a session's open log should be read again);
    /// the events after it follow.
    Resync(ManagerSnapshot),
}

/// The events after a snapshot. [`Subscription::recv`] waits; [`Subscription::try_recv`] takes
/// only what is already there, in order, and leaves a gap to `recv` (which resyncs).
pub struct Subscription {
    client: Client,
    events: broadcast::Receiver<SequencedEvent>,
    /// The `seq` of the last event handed over (or of the snapshot).
    last: u64,
    /// An event past a gap, held until the resync.
    held: Option<SequencedEvent>,
    /// A gap was seen: the next `recv` resyncs first.
    gap: bool,
}

impl Subscription {
    pub(crate) async fn start(client: Client) -> Result<(ManagerSnapshot, Self), ClientError> {
        // Subscribe first: every event after the snapshot is then in the receiver.
        let events = client.raw_events();
        let snapshot = client.call::<request::ManagerSnapshot>(NoParams {}).await?;
        let subscription = Subscription {
            client,
            events,
            last: snapshot.seq,
            held: None,
            gap: false,
        };
        Ok((snapshot, subscription))
    }

    /// The `seq` of the last event (or snapshot) handed over.
    pub fn last_seq(&self) -> u64 {
        self.last
    }

    /// The next update; `None` once the manager is gone.
    pub async fn recv(&mut self) -> Option<Update> {
        loop {
            if self.gap {
                return self.resync().await;
            }
            if let Some(event) = self.held.take() {
                if let Some(event) = self.accept(event) {
                    return Some(Update::Event {
                        seq: event.seq,
                        event: event.event,
                    });
                }
                continue;
            }
            match self.events.recv().await {
                Ok(event) => {
                    if let Some(event) = self.accept(event) {
                        return Some(Update::Event {
                            seq: event.seq,
                            event: event.event,
                        });
                    }
                }
                Err(RecvError::Lagged(_)) => self.gap = true,
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// The next event if one is already waiting and in order; `None` otherwise (also at a
    /// gap: the next [`Subscription::recv`] resyncs — a resync is never taken here).
    pub fn try_recv(&mut self) -> Option<SequencedEvent> {
        loop {
            if self.gap || self.held.is_some() {
                return None;
            }
            match self.events.try_recv() {
                Ok(event) => {
                    if let Some(event) = self.accept(event) {
                        return Some(event);
                    }
                }
                Err(TryRecvError::Lagged(_)) => {
                    self.gap = true;
                    return None;
                }
                Err(TryRecvError::Empty | TryRecvError::Closed) => return None,
            }
        }
    }

    /// An event in order is handed over; an old one (already in the snapshot) is dropped; one
    /// past a gap is held and the gap noted.
    fn accept(&mut self, event: SequencedEvent) -> Option<SequencedEvent> {
        if event.seq <= self.last {
            return None;
        }
        if event.seq == self.last + 1 {
            self.last = event.seq;
            return Some(event);
        }
        self.held = Some(event);
        self.gap = true;
        None
    }

    async fn resync(&mut self) -> Option<Update> {
        match self
            .client
            .call::<request::ManagerSnapshot>(NoParams {})
            .await
        {
            Ok(snapshot) => {
                self.gap = false;
                self.last = snapshot.seq;
                // A held event the snapshot already covers is dropped by `accept` later.
                Some(Update::Resync(snapshot))
            }
            Err(_) => None,
        }
    }
}
