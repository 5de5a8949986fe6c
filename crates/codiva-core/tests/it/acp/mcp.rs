//! A session's MCP servers reach an ACP agent in `session/new`: claude-code-acp (with the real
//! Claude Code it bundles, on the mock) starts the stdio server codiva names and the model's
//! call of its tool comes back with the server's answer.

use codiva_core::manager::CreateOptions;
use codiva_core::session::PermissionResponse;
use codiva_core::session_state::{Prompt, SessionEvent, Status};
use codiva_protocol::mcp::McpServerConfig;
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
    run.finish().await;
}
