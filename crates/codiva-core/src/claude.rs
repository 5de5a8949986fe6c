//! The Claude Code adapter, one [`crate::provider::Provider`]: launch flags, the translation
//! of its wire lines into [`crate::agent_event::AgentEvent`]s, what it accepts, its tools and
//! its transcripts. Nothing outside this module names a Claude tool, flag or wire type (but
//! [`codiva_protocol::UserInput`], the message type front ends still send, until a neutral one
//! replaces it).

pub mod accepts;
pub mod connection;
pub mod full_text;
pub mod input;
pub mod launch;
pub mod outside;
pub mod plan_usage;
pub mod title;
pub mod tool_view;
pub mod tools;
pub mod transcript;
pub mod translate;

pub use connection::ClaudeProvider;
