//! A session's MCP servers in Codex (app-server 0.171, measured: docs/protocol/codex.md, "MCP
//! servers"): given to the one thread as a config layer (`thread/start`'s and
//! `thread/resume`'s `config.mcp_servers`, over stdin: nothing on the command line, in the
//! environment or in a file of codex; the wire log keeps the line with the header and
//! variable values redacted). Codex reports each server's start-up
//! (`mcpServer/startupStatus/updated`); a reconnect is `config/mcpServer/reload`, which
//! restarts every MCP server of the thread.

use std::collections::BTreeMap;

use codiva_protocol::mcp::{McpServerConfig, McpServerState, McpStatus};
use serde_json::{Map, Value, json};

/// The config layer for the thread (`{"mcp_servers":{name:{…}}}`), or `None` without servers:
/// a stdio server's `command`, `args`, `env`; an HTTP server's `url` and `http_headers`.
///
/// Not by variable (`env_http_headers`, `bearer_token_env_var`): a variable of the
/// app-server's environment reaches codex's shell snapshot (`$CODEX_HOME/shell_snapshots/`,
/// sourced by the model's commands), measured.
pub fn thread_config(servers: &BTreeMap<String, McpServerConfig>) -> Option<Value> {
    if servers.is_empty() {
        return None;
    }
    let mut out = Map::new();
    for (name, server) in servers {
        let entry = match server {
            McpServerConfig::Stdio { command, args, env } => {
                let mut entry = json!({"command": command, "args": args});
                if !env.is_empty() {
                    entry["env"] = json!(env);
                }
                entry
            }
            McpServerConfig::Http { url, headers } => {
                let mut entry = json!({"url": url});
                if !headers.is_empty() {
                    entry["http_headers"] = json!(headers);
                }
                entry
            }
        };
        out.insert(name.clone(), entry);
    }
    Some(json!({ "mcp_servers": out }))
}

/// Every server the session was given, not started yet.
pub fn pending(servers: &BTreeMap<String, McpServerConfig>) -> Vec<McpServerState> {
    servers
        .keys()
        .map(|name| McpServerState {
            name: name.clone(),
            status: McpStatus::Pending,
            error: None,
        })
        .collect()
}

/// One `mcpServer/startupStatus/updated` as a status: `starting` → pending, `ready` →
/// connected, `failed` → failed (needs auth when codex says `reauthenticationRequired`),
/// `cancelled` → failed (its start was given up); another state → unknown.
pub fn startup_status(params: &Value) -> Option<McpServerState> {
    let name = params.get("name")?.as_str()?.to_owned();
    let error = params
        .get("error")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let reason = params.get("failureReason").and_then(Value::as_str);
    let (status, error) = match params.get("status").and_then(Value::as_str) {
        Some("starting") => (McpStatus::Pending, None),
        Some("ready") => (McpStatus::Connected, None),
        Some("failed") if reason == Some("reauthenticationRequired") => {
            (McpStatus::NeedsAuth, error)
        }
        Some("failed") => (McpStatus::Failed, error),
        Some("cancelled") => (
            McpStatus::Failed,
            Some(error.unwrap_or_else(|| "start-up cancelled".to_owned())),
        ),
        _ => (McpStatus::Unknown, error),
    };
    Some(McpServerState {
        name,
        status,
        error,
    })
}

/// `states` with `update` in place of the server of its name (a server codex runs that the
/// session did not name, from the user's own config, is added at the end).
pub fn apply(states: &mut Vec<McpServerState>, update: McpServerState) {
    match states.iter_mut().find(|state| state.name == update.name) {
        Some(state) => *state = update,
        None => states.push(update),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers() -> BTreeMap<String, McpServerConfig> {
        serde_json::from_value(json!({
            "tool": {"type": "stdio", "command": "srv", "args": ["-v"], "env": {"K": "v"}},
            "ops": {"type": "http", "url": "http://127.0.0.1:1/mcp",
                    "headers": {"Authorization": "Bearer t", "X-Two": "2"}},
            "web": {"type": "http", "url": "http://127.0.0.1:2/mcp"}
        }))
        .unwrap()
    }

    #[test]
    fn servers_become_codex_config() {
        assert_eq!(
            thread_config(&servers()).unwrap(),
            json!({"mcp_servers": {
                "ops": {"url": "http://127.0.0.1:1/mcp", "http_headers": {
                    "Authorization": "Bearer t", "X-Two": "2"}},
                "tool": {"command": "srv", "args": ["-v"], "env": {"K": "v"}},
                "web": {"url": "http://127.0.0.1:2/mcp"}
            }})
        );
        assert_eq!(thread_config(&BTreeMap::new()), None);
    }

    #[test]
    fn startup_states_map_to_statuses() {
        let state = |status: &str, reason: Value| {
            startup_status(&json!({"threadId": "t", "name": "s", "status": status,
                "error": if status == "failed" { json!("boom") } else { Value::Null },
                "failureReason": reason}))
            .unwrap()
        };
        assert_eq!(state("starting", Value::Null).status, McpStatus::Pending);
        assert_eq!(state("ready", Value::Null).status, McpStatus::Connected);
        let failed = state("failed", Value::Null);
        assert_eq!(
            (failed.status, failed.error.as_deref()),
            (McpStatus::Failed, Some("boom"))
        );
        assert_eq!(
            state("failed", json!("reauthenticationRequired")).status,
            McpStatus::NeedsAuth
        );
        assert_eq!(state("cancelled", Value::Null).status, McpStatus::Failed);
        assert_eq!(state("rebooting", Value::Null).status, McpStatus::Unknown);
        assert_eq!(startup_status(&json!({"status": "ready"})), None);
        let mut states = pending(&servers());
        apply(&mut states, state("ready", Value::Null));
        assert_eq!(states.last().unwrap().name, "s");
        assert_eq!(states.len(), 4);
    }
}
