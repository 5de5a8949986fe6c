//! A real capture of MCP servers in Claude Code, both directions
//! (`fixtures/claude-mcp/claude-mcp-servers.jsonl`: a working stdio server `good`, a stdio
//! server `bad` that fails until its file exists, an HTTP server `web` that wants OAuth; then
//! `mcp_reconnect` of `bad` (done), of an unknown name and of `web` (both refused by the CLI)).
//! Replayed through [`ClaudeConnection`]: it writes exactly what the capture's host wrote (the
//! status request at the start and after each reconnect) and reads every status.

use std::collections::VecDeque;

use codiva_core::agent_event::AgentEvent;
use codiva_core::claude::ClaudeProvider;
use codiva_core::provider::{AgentExtras, Launch, OutLine, Provider};
use codiva_protocol::UserInput;
use codiva_protocol::mcp::McpStatus;
use serde_json::Value;

fn parse(lines: Vec<OutLine>) -> Vec<Value> {
    lines
        .iter()
        .map(|line| serde_json::from_str(line.as_str()).unwrap())
        .collect()
}

#[test]
fn mcp_statuses_and_reconnects_replay_as_captured() {
    let path = crate::fixtures::dir()
        .parent()
        .unwrap()
        .join("claude-mcp/claude-mcp-servers.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let provider = ClaudeProvider::new("claude".into(), "/nonexistent".into());
    let launch = Launch {
        extras: AgentExtras {
            mcp_config: Some("/state/mcp/s.json".into()),
            ..AgentExtras::default()
        },
        ..Launch::default()
    };
    let mut connection = provider.connect(&launch);
    let mut written: VecDeque<Value> = parse(connection.opening()).into();
    let mut statuses = Vec::new();
    let mut failures = Vec::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        if let Some(out) = line.strip_prefix(">> ") {
            let out: Value = serde_json::from_str(out).unwrap();
            if written.is_empty() {
                // What the capture's host did by itself: a message or a reconnect.
                let lines = match out["type"].as_str() {
                    Some("user") => connection.send(&UserInput::text(
                        out["message"]["content"][0]["text"].as_str().unwrap(),
                    )),
                    _ => connection.mcp_reconnect(out["request"]["serverName"].as_str().unwrap()),
                };
                written.extend(parse(lines));
            }
            assert_eq!(written.pop_front().as_ref(), Some(&out), "{line}");
        } else if let Some(from_cli) = line.strip_prefix("<< ") {
            let received = connection.receive(from_cli.as_bytes()).unwrap();
            written.extend(parse(received.replies));
            for event in received.events {
                match event {
                    AgentEvent::McpServers(servers) => statuses.push(
                        servers
                            .into_iter()
                            .map(|s| (s.name, s.status))
                            .collect::<Vec<_>>(),
                    ),
                    AgentEvent::RequestFailed { what, error } => failures.push((what, error)),
                    _ => {}
                }
            }
        }
    }
    assert!(
        written.is_empty(),
        "written but not in the capture: {written:?}"
    );
    let of = |list: [McpStatus; 3]| -> Vec<(String, McpStatus)> {
        ["good", "bad", "web"]
            .into_iter()
            .map(str::to_owned)
            .zip(list)
            .collect()
    };
    use McpStatus::{Connected, Failed, NeedsAuth, Pending};
    assert_eq!(
        statuses,
        [
            // Asked at the start.
            of([Pending, Pending, Pending]),
            // `system/init` of the first turn.
            of([Connected, Failed, NeedsAuth]),
            // After each reconnect: `bad` came up; the others stay as they were.
            of([Connected, Connected, NeedsAuth]),
            of([Connected, Connected, NeedsAuth]),
            of([Connected, Connected, NeedsAuth]),
        ]
    );
    assert_eq!(
        failures,
        [
            (
                "mcp_reconnect".to_owned(),
                "Server not found: nosuch".to_owned()
            ),
            (
                "mcp_reconnect".to_owned(),
                "Server status: needs-auth".to_owned()
            ),
        ]
    );
}
