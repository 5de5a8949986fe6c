//! What an ephemeral manager ([`super::Manager::start_ephemeral`]) is told beyond its
//! `ManagerOptions`: what the protocol's `session/create` does not carry for its one session.

use std::path::PathBuf;

/// The one session of an ephemeral manager.
#[derive(Debug, Clone, Default)]
pub struct Ephemeral {
    /// The session's id (its wire log is named after it: `<state dir>/wire/<dir>-<id>.log`).
    pub id: String,
    /// The agent's conversation to continue (`codiva exec --resume`).
    pub resume: Option<String>,
    /// An MCP config file the agent takes by path, as it is (`codiva exec --mcp-config`),
    /// instead of a private copy of the servers `session/create` names.
    pub mcp_config: Option<PathBuf>,
}
