//! JSON-RPC 2.0 framing: errors and notifications. The codes and the error `data` are the
//! protocol's (`codiva_protocol::error`).

use codiva_protocol::ServerNotification;
use codiva_protocol::error::{
    ErrorBody, ErrorData, GIT_FAILED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
    InvalidFieldData, METHOD_NOT_FOUND, NO_SUCH_SESSION, NoSuchSessionData, PARSE_ERROR, REFUSED,
    RefusalCode, RefusalData, STOPPED,
};
use serde_json::{Value, json};

/// A JSON-RPC error (standard codes, plus codiva's in the -32000 range).
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// For refusals: the reason and its args, so a client can word it itself; for invalid
    /// params: the field when one is at fault.
    pub data: Option<Box<ErrorData>>,
}

impl RpcError {
    fn plain(code: i64, message: String) -> Self {
        RpcError {
            code,
            message,
            data: None,
        }
    }

    pub fn parse(message: String) -> Self {
        Self::plain(PARSE_ERROR, message)
    }

    pub fn invalid_request(message: String) -> Self {
        Self::plain(INVALID_REQUEST, message)
    }

    pub fn method_not_found(method: &str) -> Self {
        Self::plain(METHOD_NOT_FOUND, format!("unknown method {method:?}"))
    }

    pub fn invalid_params(message: String) -> Self {
        Self::plain(INVALID_PARAMS, message)
    }

    pub fn internal(message: String) -> Self {
        Self::plain(INTERNAL_ERROR, message)
    }

    /// A valid request refused, with the reason's values (`args`) and its English message.
    /// `reason`: a [`RefusalCode`], or its wire name while a caller still holds it as a string
    /// (the binary's `serve/listen.rs`: `not_owner`).
    pub fn refused(reason: RefusalCode, args: Vec<String>, message: String) -> Self {
        RpcError {
            code: REFUSED,
            message,
            data: Some(Box::new(ErrorData::Refusal(RefusalData {
                reason,
                args,
                fresh: None,
            }))),
        }
    }

    /// Invalid params, naming the field (`data: {"field"}`) for clients that point at it.
    pub fn invalid_field(field: &str, message: String) -> Self {
        RpcError {
            code: INVALID_PARAMS,
            message: format!("{field}: {message}"),
            data: Some(Box::new(ErrorData::InvalidField(InvalidFieldData {
                field: field.to_owned(),
            }))),
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
            ManagerError::Internal(_) | ManagerError::McpConfig { .. } => INTERNAL_ERROR,
            ManagerError::NotRouted(_) => METHOD_NOT_FOUND,
        };
        let data = match &err {
            ManagerError::Refused(refusal) => Some(Box::new(ErrorData::Refusal(RefusalData {
                reason: refusal.code,
                args: refusal.args.clone(),
                // A stale discard token: what would be archived now, and the token for that.
                fresh: refusal.fresh_preview.as_deref().cloned(),
            }))),
            ManagerError::NoSuchSession(id) => {
                Some(Box::new(ErrorData::NoSuchSession(NoSuchSessionData {
                    session_id: id.clone(),
                })))
            }
            ManagerError::Invalid(invalid) => {
                Some(Box::new(ErrorData::InvalidField(InvalidFieldData {
                    field: invalid.field.clone(),
                })))
            }
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
    json!({"jsonrpc": "2.0", "id": id, "error": error.into_body()})
}

impl RpcError {
    /// The `error` member of a response.
    pub fn into_body(self) -> ErrorBody {
        ErrorBody {
            code: self.code,
            message: self.message,
            data: self.data.map(|data| *data),
        }
    }
}

/// A notification as one JSON-RPC message (`method` and `params` from the protocol's table).
pub fn notification(notification: &ServerNotification) -> Value {
    let mut message = serde_json::to_value(notification).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut message {
        map.insert("jsonrpc".to_owned(), json!("2.0"));
    }
    message
}

#[cfg(test)]
mod tests {
    use codiva_protocol::params::WarningParams;

    use super::*;

    /// Notifications begin the way the client's fast path looks for (`method` before `params`).
    #[test]
    fn a_notification_begins_as_clients_expect() {
        let line = serde_json::to_vec(&notification(&ServerNotification::Warning(WarningParams {
            seq: Some(1),
            message: "m".into(),
        })))
        .unwrap();
        assert!(
            line.starts_with(codiva_client::stream::NOTIFICATION_START),
            "{}",
            String::from_utf8_lossy(&line)
        );
    }

    /// A refusal crosses the boundary as its enum and goes on the wire as the same string the
    /// core names it with (both ways in: the core's refusal and the server's own).
    #[test]
    fn a_refusal_keeps_its_wire_name() {
        use codiva_core::manager::{ManagerError, Refusal};
        let from_core = RpcError::from(ManagerError::Refused(Refusal {
            code: RefusalCode::MergeConflict,
            args: vec!["codiva/two".into(), "main".into()],
            message: "conflicts".into(),
            fresh_preview: None,
        }));
        let own = RpcError::refused(
            RefusalCode::ConfigNotToml,
            vec!["c.toml".into()],
            "m".into(),
        );
        for (error, reason) in [
            (from_core, RefusalCode::MergeConflict),
            (own, RefusalCode::ConfigNotToml),
        ] {
            let body = serde_json::to_value(error.into_body()).unwrap();
            assert_eq!(body["code"], REFUSED);
            assert_eq!(body["data"]["reason"], reason.as_str());
            let back: ErrorBody = serde_json::from_value(body).unwrap();
            let Some(ErrorData::Refusal(refusal)) = back.data else {
                panic!("not a refusal");
            };
            assert_eq!(refusal.reason, reason);
        }
    }
}
