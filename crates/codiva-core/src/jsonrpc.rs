//! JSON-RPC 2.0 as agents speak it on stdio, one message per line (`codex app-server`, which
//! leaves out the `"jsonrpc"` member, and every ACP agent). Parsing is lenient: unknown members
//! are ignored, ids may be strings or integers, and a line is classified by which of `id`,
//! `method`, `result`, `error` it has. Each provider writes its own lines (`line`).

use serde_json::{Map, Value};

use crate::provider::OutLine;

/// One line from the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The agent asks the client (approvals, questions); `id` is echoed in the answer.
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
/// Why a line is not a JSON-RPC message.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error("not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("`method` is not a string")]
    MethodNotAString,
    #[error("neither a request, a response nor a notification")]
    NoKind,
}

pub fn parse(line: &[u8]) -> Result<Message, MessageError> {
    let value: Value = serde_json::from_slice(line)?;
    let Value::Object(mut map) = value else {
        return Err(MessageError::NotAnObject);
    };
    let method = match map.remove("method") {
        Some(Value::String(method)) => Some(method),
        Some(_) => return Err(MessageError::MethodNotAString),
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
        (None, None) => Err(MessageError::NoKind),
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

/// Serialised JSON escapes every line break inside strings, so this is always one line.
pub fn line(value: Value) -> Vec<OutLine> {
    OutLine::new(value.to_string()).into_iter().collect()
}
