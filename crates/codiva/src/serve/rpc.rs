//! JSON-RPC 2.0 framing: errors and notifications.

use serde_json::{Value, json};

/// A JSON-RPC error (standard codes, plus codiva's in the -32000 range).
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// For refusals: `{"reason": <code>, "args": [...]}`, so a client can word it itself; for
    /// invalid params: `{"field"}` when one field is at fault.
    pub data: Option<Value>,
}

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
/// No session with that id.
pub const NO_SUCH_SESSION: i64 = -32001;
/// The request is valid but cannot be done now (merge refused, session busy, …).
pub const REFUSED: i64 = -32002;
/// git failed.
pub const GIT_FAILED: i64 = -32003;
/// The manager has stopped.
pub const STOPPED: i64 = -32004;

impl RpcError {
    pub fn parse(message: String) -> Self {
        RpcError {
            code: PARSE_ERROR,
            message,
            data: None,
        }
    }

    pub fn invalid_request(message: String) -> Self {
        RpcError {
            code: INVALID_REQUEST,
            message,
            data: None,
        }
    }

    pub fn method_not_found(method: &str) -> Self {
        RpcError {
            code: METHOD_NOT_FOUND,
            message: format!("unknown method {method:?}"),
            data: None,
        }
    }

    pub fn invalid_params(message: String) -> Self {
        RpcError {
            code: INVALID_PARAMS,
            message,
            data: None,
        }
    }

    /// Invalid params, naming the field (`data: {"field"}`) for clients that point at it.
    pub fn invalid_field(field: &str, message: String) -> Self {
        RpcError {
            code: INVALID_PARAMS,
            message: format!("{field}: {message}"),
            data: Some(json!({"field": field})),
        }
    }
}

impl From<codiva_core::manager::ManagerError> for RpcError {
    fn from(err: codiva_core::manager::ManagerError) -> Self {
        use codiva_core::manager::ManagerError;
        let code = match &err {
            ManagerError::NoSuchSession(_) => NO_SUCH_SESSION,
            ManagerError::Refused(_) => REFUSED,
            ManagerError::Git(_) => GIT_FAILED,
            ManagerError::Stopped | ManagerError::StateFile(_) => STOPPED,
            ManagerError::Invalid(_) => INVALID_PARAMS,
        };
        let data = match &err {
            ManagerError::Refused(refusal) => {
                let mut data = json!({"reason": refusal.code, "args": refusal.args});
                // A stale discard token: what would be archived now, and the token for that.
                if let Some(fresh) = &refusal.fresh_preview {
                    data["preview"] = json!(fresh.preview);
                    data["confirm_token"] = json!(fresh.confirm_token);
                }
                Some(data)
            }
            ManagerError::Invalid(invalid) => Some(json!({"field": invalid.field})),
            _ => None,
        };
        RpcError {
            code,
            message: err.to_string(),
            data,
        }
    }
}

pub fn error_response(id: Value, error: RpcError) -> Value {
    let mut body = json!({"code": error.code, "message": error.message});
    if let Some(data) = error.data {
        body["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": body})
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}
