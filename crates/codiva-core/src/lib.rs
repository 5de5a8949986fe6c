//! codiva's core: agent processes, the provider-neutral event model, and the session state
//! machine. Front ends (the TUI, `codiva exec`, `codiva serve`) drive it through
//! [`session::SessionCommand`]s and receive [`codiva_protocol::session::SessionEvent`]s; they
//! never spawn processes themselves.

pub mod acp;
pub mod agent_event;
pub mod approval;
pub mod check;
pub mod claude;
pub mod codex;
pub mod config;
pub mod config_edit;
pub mod git;
pub mod github;
pub mod history;
pub mod history_file;
pub mod json;
pub mod jsonrpc;
pub mod login;
pub mod manager;
pub mod outside;
pub mod paths;
pub mod persist;
pub mod process;
pub mod provider;
pub mod repo_lock;
pub mod review;
pub mod rfc3339;
pub mod session;
pub mod session_log;
pub mod session_state;
pub mod session_task;
pub mod slug;
pub mod title;
/// Claude Code's transcript format lives with the Claude adapter; the old path stays.
pub use claude::transcript;
pub mod wire_log;
