//! ACP's framing: JSON-RPC 2.0, one message per line both ways (docs/protocol/acp.md). Parsing
//! is lenient: unknown members are ignored, ids may be strings or integers (codex-acp numbers
//! its requests with UUID strings, claude-code-acp with integers from 0), and a line is
//! classified by which of `id`, `method`, `result`, `error` it has.

use serde_json::{Map, Value, json};

use crate::provider::OutLine;

/// One line from the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The agent asks the client; `id` is echoed in the answer.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// The answer to one of the client's requests.
    Response {
        id: Value,
        result: Result<Value, RpcError>,
    },
    Notification {
        method: String,
        params: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

/// JSON-RPC "method not found": the answer to a request codiva does not handle.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// ACP's "authentication required".
pub const AUTH_REQUIRED: i64 = -32000;

pub fn parse(line: &[u8]) -> Result<Message, String> {
    let value: Value = serde_json::from_slice(line).map_err(|err| format!("not JSON: {err}"))?;
    let Value::Object(mut map) = value else {
        return Err("not a JSON object".to_owned());
    };
    let method = match map.remove("method") {
        Some(Value::String(method)) => Some(method),
        Some(_) => return Err("`method` is not a string".to_owned()),
        None => None,
    };
    let params = map.remove("params").unwrap_or(Value::Null);
    let id = map.remove("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => Ok(Message::Request { id, method, params }),
        (Some(method), None) => Ok(Message::Notification { method, params }),
        (None, Some(id)) => Ok(Message::Response {
            id,
            result: response_result(&mut map),
        }),
        (None, None) => Err("neither a request, a response nor a notification".to_owned()),
    }
}

fn response_result(map: &mut Map<String, Value>) -> Result<Value, RpcError> {
    match map.remove("error") {
        Some(error) if !error.is_null() => Err(RpcError {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_owned(),
            data: error.get("data").cloned().unwrap_or(Value::Null),
        }),
        _ => Ok(map.remove("result").unwrap_or(Value::Null)),
    }
}

/// An id as text (the key of a pending request).
pub fn id_text(id: &Value) -> String {
    match id {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
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

/// Serialised JSON escapes every line break inside strings, so this is always one line.
fn line(value: Value) -> Vec<OutLine> {
    OutLine::new(value.to_string()).into_iter().collect()
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
