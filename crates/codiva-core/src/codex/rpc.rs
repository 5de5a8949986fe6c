//! The framing of `codex app-server`: one JSON-RPC 2.0 message per line, without the
//! `"jsonrpc"` member (docs/protocol/codex.md). Parsing is lenient: unknown members are
//! ignored, and a line is classified by which of `id`, `method`, `result`, `error` it has.

use serde_json::{Map, Value, json};

use crate::provider::OutLine;

/// One line from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The server asks the client (approvals); `id` is echoed in the answer.
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
}

/// JSON-RPC "method not found": the answer to a server request codiva does not handle.
pub const METHOD_NOT_FOUND: i64 = -32601;

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
        }),
        _ => Ok(map.remove("result").unwrap_or(Value::Null)),
    }
}

/// A request of the client (`id` counts per process).
pub fn request(id: u64, method: &str, params: Value) -> Vec<OutLine> {
    line(json!({"id": id, "method": method, "params": params}))
}

pub fn notification(method: &str) -> Vec<OutLine> {
    line(json!({ "method": method }))
}

/// The answer to a server request.
pub fn respond(id: &Value, result: Value) -> Vec<OutLine> {
    line(json!({"id": id, "result": result}))
}

pub fn respond_error(id: &Value, code: i64, message: &str) -> Vec<OutLine> {
    line(json!({"id": id, "error": {"code": code, "message": message}}))
}

/// Serialised JSON escapes every line break inside strings, so this is always one line.
fn line(value: Value) -> Vec<OutLine> {
    OutLine::new(value.to_string()).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified_by_their_members() {
        let request =
            br#"{"method":"item/fileChange/requestApproval","id":0,"params":{"itemId":"c"}}"#;
        assert_eq!(
            parse(request).unwrap(),
            Message::Request {
                id: json!(0),
                method: "item/fileChange/requestApproval".into(),
                params: json!({"itemId": "c"}),
            }
        );
        let error = br#"{"error":{"code":-32600,"message":"no active turn to interrupt"},"id":5}"#;
        assert_eq!(
            parse(error).unwrap(),
            Message::Response {
                id: json!(5),
                result: Err(RpcError {
                    code: -32600,
                    message: "no active turn to interrupt".into()
                }),
            }
        );
        let note = br#"{"method":"turn/started","params":{},"emittedAtMs":1,"extra":true}"#;
        assert!(matches!(parse(note).unwrap(), Message::Notification { .. }));
        assert!(parse(b"[1]").is_err());
        assert!(parse(b"{}").is_err());
        assert!(parse(b"not json").is_err());
    }

    #[test]
    fn written_lines_have_no_jsonrpc_member_and_stay_one_line() {
        let out = request(3, "turn/start", json!({"text": "a\nb"}));
        assert_eq!(out.len(), 1);
        let back: Value = serde_json::from_str(out[0].as_str()).unwrap();
        assert_eq!(back["params"]["text"], "a\nb");
        assert!(back.get("jsonrpc").is_none());
        let refusal = respond_error(&json!(0), METHOD_NOT_FOUND, "no");
        let back: Value = serde_json::from_str(refusal[0].as_str()).unwrap();
        assert_eq!(
            back,
            json!({"id": 0, "error": {"code": -32601, "message": "no"}})
        );
    }
}
