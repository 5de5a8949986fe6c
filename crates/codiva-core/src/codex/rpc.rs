//! The framing of `codex app-server`: one JSON-RPC 2.0 message per line, without the
//! `"jsonrpc"` member (docs/protocol/codex.md). Parsing is lenient: unknown members are
//! ignored, and a line is classified by which of `id`, `method`, `result`, `error` it has.

use serde_json::{Value, json};

use crate::provider::OutLine;

use crate::jsonrpc::line;
pub use crate::jsonrpc::{METHOD_NOT_FOUND, Message, RpcError, parse};

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
                    message: "no active turn to interrupt".into(),
                    data: Value::Null,
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
