//! The Claude Code adapter: launch flags, the translation of its wire lines into
//! [`crate::agent_event::AgentEvent`]s, and the session task that drives one CLI process.

pub mod accepts;
pub mod driver;
pub mod input;
pub mod launch;
pub mod translate;

pub use driver::start;
