//! What front ends see of the manager's sessions: the protocol's types, under the names the
//! core has always given them.

pub use codiva_protocol::manager::{
    DiscardPreview, ManagerEvent, ManagerSnapshot, ReadPage, ResourceUsage, SequencedEvent,
    SessionInfo, SessionPhase, SessionResources,
};
