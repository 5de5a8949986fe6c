//! MCP servers a session is given (`session/create`'s `mcp_servers`), and what the agent
//! reports of them: one status per server (`SessionInfo::mcp_servers`, the
//! `session/mcpServers` notification).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the agent reaches one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpServerConfig {
    /// A program the agent starts and speaks to over its stdin and stdout.
    Stdio {
        command: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Variables set for the program.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
    },
    /// A server over Streamable HTTP.
    Http {
        url: String,
        /// Sent with every request (`Authorization: Bearer …`).
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
}

/// Where the agent's connection to one MCP server is, as the agent reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpStatus {
    /// Still connecting.
    Pending,
    Connected,
    /// It could not be started or reached (see `error`); `session/mcpReconnect` tries again.
    Failed,
    /// It wants the user to log in (OAuth) before it can be used.
    NeedsAuth,
    /// Turned off in the agent.
    Disabled,
    /// The agent was given it and reports nothing of it (ACP has no MCP status): whether it
    /// runs is not known (capability `mcp_status` false).
    NotReported,
    /// A status this codiva does not know (a newer agent).
    #[serde(other)]
    Unknown,
}

/// One MCP server of a session and its status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerState {
    /// The name the server was given (the key of `session/create`'s `mcp_servers`).
    pub name: String,
    pub status: McpStatus,
    /// What went wrong, as the agent says it (a failed server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Params of `session/mcpReconnect`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpReconnectParams {
    pub session_id: String,
    /// The server's name.
    pub server: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_and_statuses_read_as_documented() {
        let config: BTreeMap<String, McpServerConfig> = serde_json::from_str(
            r#"{"ops":{"type":"http","url":"http://127.0.0.1:1/mcp",
                       "headers":{"Authorization":"Bearer t"}},
                "tool":{"type":"stdio","command":"srv","args":["-v"]}}"#,
        )
        .unwrap();
        assert_eq!(
            config["tool"],
            McpServerConfig::Stdio {
                command: "srv".into(),
                args: vec!["-v".into()],
                env: BTreeMap::new(),
            }
        );
        assert!(
            matches!(&config["ops"], McpServerConfig::Http { headers, .. }
            if headers["Authorization"] == "Bearer t")
        );
        let states: Vec<McpStatus> = serde_json::from_str(
            r#"["pending","connected","failed","needs_auth","not_reported","rebooting"]"#,
        )
        .unwrap();
        assert_eq!(
            states,
            [
                McpStatus::Pending,
                McpStatus::Connected,
                McpStatus::Failed,
                McpStatus::NeedsAuth,
                McpStatus::NotReported,
                McpStatus::Unknown
            ]
        );
    }
}
