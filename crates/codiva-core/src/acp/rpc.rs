//! ACP's framing: JSON-RPC 2.0, one message per line both ways (docs/protocol/acp.md). Parsing
//! is lenient: unknown members are ignored, ids may be strings or integers (codex-acp numbers
//! its requests with UUID strings, claude-code-acp with integers from 0), and a line is
//! classified by which of `id`, `method`, `result`, `error` it has.

use serde_json::{Value, json};

use crate::provider::OutLine;

use crate::jsonrpc::line;
pub use crate::jsonrpc::{METHOD_NOT_FOUND, Message, RpcError, parse};

/// ACP's "authentication required".
pub const AUTH_REQUIRED: i64 = -32000;

/// An id as text (the key of a pending request).
pub fn id_text(id: &Value) -> String {
    match id {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The params of codiva's `initialize`: protocol version 1, and no files or terminals served
/// (the agent uses its own).
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": false, "writeTextFile": false},
            "terminal": false,
        },
        "clientInfo": {"name": "codiva", "title": "codiva", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// A request of the client (`id` counts per process).
pub fn request(id: u64, method: &str, params: Value) -> Vec<OutLine> {
    line(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

pub fn notification(method: &str, params: Value) -> Vec<OutLine> {
    line(json!({"jsonrpc": "2.0", "method": method, "params": params}))
}

/// The answer to an agent's request.
pub fn respond(id: &Value, result: Value) -> Vec<OutLine> {
    line(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

pub fn respond_error(id: &Value, code: i64, message: &str) -> Vec<OutLine> {
    line(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_and_integer_ids_are_both_requests() {
        let uuid =
            br#"{"jsonrpc":"2.0","method":"session/request_permission","params":{},"id":"2f6f-a"}"#;
        assert!(
            matches!(parse(uuid).unwrap(), Message::Request { id, .. } if id == json!("2f6f-a"))
        );
        let int = br#"{"jsonrpc":"2.0","id":0,"method":"fs/write_text_file","params":{}}"#;
        assert!(matches!(parse(int).unwrap(), Message::Request { id, .. } if id == json!(0)));
        let error = br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"message":"x"}},"id":3}"#;
        match parse(error).unwrap() {
            Message::Response {
                result: Err(err), ..
            } => {
                assert_eq!(err.code, -32603);
                assert_eq!(err.data["message"], "x");
            }
            other => panic!("{other:?}"),
        }
        assert!(parse(b"{}").is_err());
        assert!(parse(b"[]").is_err());
        assert!(parse(b"nope").is_err());
        let out = respond_error(&json!("a"), METHOD_NOT_FOUND, "no");
        let back: Value = serde_json::from_str(out[0].as_str()).unwrap();
        assert_eq!(back["jsonrpc"], "2.0");
        assert_eq!(back["error"]["code"], -32601);
    }
}
