//! Wire types for the agent CLIs codiva drives.
//!
//! This crate only describes bytes on the wire: serde types, one parser entry point and one
//! serializer per agent protocol. It does no IO and knows nothing about sessions; the core
//! crate maps these types onto its provider-neutral event model.
//!
//! Every type is forward compatible: unknown `type`s, `subtype`s and fields are tolerated
//! (they parse into an `Unknown` variant or are ignored), so a newer CLI never breaks a reader.

pub mod claude;
