//! The generic Agent Client Protocol adapter: one [`crate::provider::Provider`] for any agent
//! that speaks ACP (JSON-RPC 2.0 on stdio), configured by a command line and a few facts
//! (`preset`: from a row of [`crate::provider::catalog`] or a config file's `[agents.<id>]`):
//! the framing (`rpc`), the connection and its handshake (`connection`), the translation of the
//! agent's lines into [`crate::agent_event::AgentEvent`]s (`translate`) and its tool calls,
//! plans and permission options in neutral terms (`tools`). Our own lenient serde_json
//! reading, not the `agent-client-protocol` crate (why: docs/protocol/acp.md). Nothing outside
//! this module names an ACP method; the agents are named only by their catalog rows.

pub mod auth;
pub mod connection;
pub mod credentials;
pub mod outside;
pub mod preset;
pub mod rpc;
#[cfg(test)]
mod tests;
pub mod tools;
mod translate;

pub use connection::{AcpConnection, AcpProvider};
pub use preset::{AcpAgent, AcpPreset, LaunchMode, LoginVia, PresetLogin, SystemPromptVia};
