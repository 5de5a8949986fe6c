//! JSON-RPC errors as clients see them: the codes, and the `data` that lets a client word a
//! refusal or point at the faulty field itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::manager::FreshPreview;

/// Not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a JSON-RPC request (no `method`, `jsonrpc` not `"2.0"`, a line over the limit).
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid params; `data.field` names the field when one is at fault.
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// No session with that id.
pub const NO_SUCH_SESSION: i64 = -32001;
/// The request is valid but cannot be done now; `data` is a [`RefusalData`].
pub const REFUSED: i64 = -32002;
/// git failed.
pub const GIT_FAILED: i64 = -32003;
/// The manager has stopped.
pub const STOPPED: i64 = -32004;

/// The `error` member of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<ErrorData>,
}

/// What an error carries beyond its message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ErrorData {
    Refusal(RefusalData),
    InvalidField(InvalidFieldData),
    NoSuchSession(NoSuchSessionData),
}

/// Why a valid request was refused: a stable `reason` (one of
/// [`crate::manager::REFUSAL_CODES`]) and its values; a stale discard token also brings the
/// fresh preview and its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RefusalData {
    pub reason: String,
    pub args: Vec<String>,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub fresh: Option<FreshPreview>,
}

/// The params field at fault (`permission_mode`, `images[0].data`, `suggestion`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvalidFieldData {
    pub field: String,
}

/// The session id no session has (with -32001).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NoSuchSessionData {
    pub session_id: String,
}
