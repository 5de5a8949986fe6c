//! Claude Code's bidirectional `stream-json` protocol (`claude -p --input-format stream-json
//! --output-format stream-json …`), as measured on Claude Code 2.1.332 (see
//! `docs/protocol/claude.md`).
//!
//! * [`parse_line`] turns one stdout line into an [`Inbound`] value.
//! * [`encode`] is the only way to produce a stdin line: it takes an [`Outbound`] value and
//!   returns an [`EncodedLine`] that is guaranteed to be exactly one line of valid JSON.

mod content;
mod inbound;
mod outbound;

pub use content::*;
pub use inbound::*;
pub use outbound::*;
