//! The Codex adapter, one [`crate::provider::Provider`] over `codex app-server` (JSON-RPC on
//! stdio; marked experimental by Codex, so parsed leniently and pinned to the tested
//! version): its command line (`launch`), the framing (`rpc`), the translation of its
//! notifications and requests into [`crate::agent_event::AgentEvent`]s (`translate`) and its
//! items as neutral tool calls (`items`). Nothing outside this module names a Codex method or
//! item. The facts behind it: docs/protocol/codex.md.

pub mod connection;
pub mod exec;
pub mod items;
pub mod launch;
pub mod mcp;
pub mod outside;
pub mod rpc;
mod translate;

pub use connection::{CodexConnection, CodexProvider, approval_policy, mode_of};
pub use exec::CodexExecProvider;
