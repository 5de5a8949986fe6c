//! A session's MCP servers reach an ACP agent in `session/new`: claude-code-acp (with the real
//! Claude Code it bundles, on the mock) starts the stdio server codiva names and the model's
//! call of its tool comes back with the server's answer.

use codiva_core::manager::{CreateOptions, ManagerError};
use codiva_core::session::PermissionResponse;
use codiva_protocol::mcp::{McpServerConfig, McpServerState, McpStatus};
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_testkit::{Match, Reply, Rule, Script, Times, mcp_stdio_binary};
use serde_json::json;

use super::harness::{Run, Which};

#[tokio::test]
async fn claude_code_acp_takes_the_sessions_mcp_servers() {
    let script = Script::new()
        // The bundled Claude Code also asks a small model to summarise changed files.
        .rule(
            Rule::new(
                Match::LastUserContains("Files modified by user:".to_owned()),
                Reply::text("No changes."),
            )
            .times(Times::Always),
        )
        .then_when(
            Match::LastUserContains("PING".into()),
            Reply::tool_use("mcp__tool__ping", json!({"text": "over acp"})),
        )
        .then_when(
            Match::LastUserContains("pong over acp".into()),
            Reply::text("Pinged."),
        );
    let options = CreateOptions {
        prompt: "PING the server".into(),
        mcp_servers: [(
            "tool".to_owned(),
            McpServerConfig::Stdio {
                command: mcp_stdio_binary().display().to_string(),
                args: Vec::new(),
                env: Default::default(),
            },
        )]
        .into(),
        ..CreateOptions::default()
    };
    let mut run = Run::start_with_options(
        "acp-claude-mcp",
        Which::ClaudeCodeAcp,
        script,
        options,
        None,
    )
    .await;
    // The agent may ask before running the MCP tool: allowed once.
    let event = run
        .until("a permission or the end of the turn", |event| {
            matches!(event, SessionEvent::PromptOpened { .. })
                || matches!(event, SessionEvent::Status { status, .. } if status.is_settled())
        })
        .await;
    if let SessionEvent::PromptOpened {
        prompt: Prompt::Permission(request),
    } = event
    {
        assert!(request.tool.contains("ping"), "{request:?}");
        run.respond(&request.request_id, PermissionResponse::Allow)
            .await;
        run.settles(Status::Completed).await;
    }
    let answered = run.mock.requests().iter().any(|request| {
        request
            .last_user_text()
            .is_some_and(|text| text.contains("pong over acp"))
    });
    assert!(
        answered,
        "the MCP server's answer reached the model:\n{}",
        run.dump()
    );
    // It reports nothing of the server (though it ran): codiva says so.
    let (shown, reports) = mcp_view(&run);
    assert_eq!(
        shown,
        [McpServerState {
            name: "tool".into(),
            status: McpStatus::NotReported,
            error: None
        }]
    );
    assert!(
        reports.is_empty(),
        "claude-code-acp said something of MCP: {reports:#?}"
    );
    run.finish().await;
}

/// The session's servers as codiva shows them for an ACP agent, and every line the agent sent
/// that names MCP outside a tool call (an ACP extension or `_meta` status would be one).
fn mcp_view(run: &Run) -> (Vec<McpServerState>, Vec<String>) {
    let shown = run
        .events
        .iter()
        .rev()
        .find_map(|event| match event {
            SessionEvent::McpServers { servers } => Some(servers.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let wire = std::fs::read_to_string(run.wire_log_path()).unwrap();
    let reports = wire
        .lines()
        .filter(|line| line.contains(" << "))
        .filter(|line| line.to_ascii_lowercase().contains("mcp"))
        // Tool calls and their permission requests name their server's tools; the
        // `initialize` answer its MCP transports.
        .filter(|line| {
            !line.contains("\"tool_call")
                && !line.contains("session/request_permission")
                && !line.contains("agentCapabilities")
        })
        .map(|line| line.chars().take(300).collect())
        .collect();
    (shown, reports)
}

/// codex-acp 0.16.0 with a stdio server: it takes the server in `session/new` and reports
/// nothing of it (no notification, no `_meta`), so codiva shows it `not_reported`, and a
/// reconnect is refused (capability `mcp_reconnect` false).
#[tokio::test]
async fn codex_acp_reports_no_mcp_status_and_codiva_says_so() {
    let script = Script::new().then(Reply::text("Noted."));
    let options = CreateOptions {
        prompt: "note the server".into(),
        mcp_servers: [(
            "tool".to_owned(),
            McpServerConfig::Stdio {
                command: mcp_stdio_binary().display().to_string(),
                args: Vec::new(),
                env: [("TOOL_KEY".to_owned(), "acp-secret-42".to_owned())].into(),
            },
        )]
        .into(),
        ..CreateOptions::default()
    };
    let mut run =
        Run::start_with_options("acp-codex-mcp", Which::CodexAcp, script, options, None).await;
    run.settles(Status::Completed).await;
    let (shown, reports) = mcp_view(&run);
    assert_eq!(
        shown,
        [McpServerState {
            name: "tool".into(),
            status: McpStatus::NotReported,
            error: None
        }]
    );
    assert!(
        reports.is_empty(),
        "codex-acp said something of MCP: {reports:#?}"
    );
    let wire = std::fs::read_to_string(run.wire_log_path()).unwrap();
    assert!(
        wire.contains(r#"{"name":"TOOL_KEY","value":"<redacted>"}"#),
        "the server's variable is redacted in the wire log"
    );
    assert!(!wire.contains("acp-secret-42"));
    let refused = run.manager.mcp_reconnect(&run.id, "tool").await;
    assert!(
        matches!(&refused, Err(ManagerError::Refused(r)) if r.code == "unsupported_by_agent"),
        "{refused:?}"
    );
    run.finish().await;
}
