//! `codiva-mcp-stdio [--require PATH]`: a tiny MCP server over stdio (newline-delimited
//! JSON-RPC 2.0) with one tool, `ping`, that answers `pong <text>`. For the tests of the MCP
//! servers codiva gives a session.
//!
//! With `--require PATH` it exits at once (status 2) while `PATH` does not exist: a server that
//! fails to start until a test creates the file, and then works (a reconnect).

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The protocol version answered when the client asks for none.
const PROTOCOL_VERSION: &str = "2025-06-18";

fn main() {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--require" => {
                let Some(path) = args.next() else {
                    eprintln!("usage: codiva-mcp-stdio [--require PATH]");
                    std::process::exit(64);
                };
                if std::fs::metadata(&path).is_err() {
                    eprintln!("codiva-mcp-stdio: {path} does not exist");
                    std::process::exit(2);
                }
            }
            other => {
                eprintln!("codiva-mcp-stdio: unknown argument {other:?}");
                std::process::exit(64);
            }
        }
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            let _ = writeln!(
                out,
                "{}",
                json!({"jsonrpc": "2.0", "id": null,
                       "error": {"code": -32700, "message": "parse error"}})
            );
            let _ = out.flush();
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = request.get("id").cloned() else {
            continue;
        };
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let answer = match method {
            "initialize" => Ok(json!({
                "protocolVersion": params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(PROTOCOL_VERSION),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "codiva-mcp-stdio", "version": "1.0.0"},
            })),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": [{
                "name": "ping",
                "description": "Answers pong with the text it is given.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                },
            }]})),
            "tools/call" => {
                let text = params
                    .pointer("/arguments/text")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Ok(json!({"content": [{"type": "text", "text": format!("pong {text}")}]}))
            }
            _ => Err(json!({"code": -32601, "message": format!("no method {method:?}")})),
        };
        let reply = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
}
