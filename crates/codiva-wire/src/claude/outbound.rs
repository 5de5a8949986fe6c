//! Lines the host writes on the CLI's stdin.
//!
//! A malformed stdin line kills the CLI (exit 1, no result), so there is exactly one way to make
//! a line: [`encode`]. It serialises an [`Outbound`] value with serde_json (which escapes every
//! control character, so a newline inside user text can never split the line) and additionally
//! escapes U+2028/U+2029, which some line splitters treat as line ends.

use serde_json::{Map, Value, json};

/// Everything codiva may say to Claude Code.
#[derive(Debug, Clone, PartialEq)]
pub enum Outbound {
    /// A user message (starts a turn, or is queued behind the running one).
    User(UserInput),
    /// A request from the host; the CLI answers with a `control_response` of the same id.
    Request {
        request_id: String,
        request: HostRequest,
    },
    /// The answer to a `can_use_tool` request.
    Permission {
        request_id: String,
        decision: PermissionDecision,
    },
    /// The answer to a `hook_callback` request (codiva registers no hooks; kept for
    /// completeness of the control protocol).
    HookAnswer { request_id: String, output: Value },
    /// The answer to any CLI request codiva does not support.
    Unsupported { request_id: String, subtype: String },
}

/// A user message: text and images.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserInput {
    pub blocks: Vec<InputBlock>,
}

impl UserInput {
    pub fn text(text: impl Into<String>) -> Self {
        UserInput {
            blocks: vec![InputBlock::Text(text.into())],
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum InputBlock {
    Text(String),
    /// A base64-encoded image (`media_type` such as `image/png`).
    Image {
        media_type: String,
        data_base64: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum HostRequest {
    Initialize,
    Interrupt,
    /// `None` returns to the CLI's default model.
    SetModel(Option<String>),
    SetPermissionMode(String),
    /// Every MCP server with its status (`{"mcpServers":[…]}`).
    McpStatus,
    /// Connect the MCP server of this name again (`{"serverName":…}`; answered with no
    /// `response`, or an error such as `Server not found: x`).
    McpReconnect(String),
}

impl HostRequest {
    pub fn subtype(&self) -> &'static str {
        match self {
            HostRequest::Initialize => "initialize",
            HostRequest::Interrupt => "interrupt",
            HostRequest::SetModel(_) => "set_model",
            HostRequest::SetPermissionMode(_) => "set_permission_mode",
            HostRequest::McpStatus => "mcp_status",
            HostRequest::McpReconnect(_) => "mcp_reconnect",
        }
    }
}

/// The host's decision on a `can_use_tool` request.
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    Allow {
        /// The (possibly edited) tool input; AskUserQuestion answers travel here.
        updated_input: Option<Value>,
        /// `permission_suggestions` entries, echoed unchanged ("always allow").
        updated_permissions: Vec<Value>,
    },
    Deny {
        message: String,
        /// Also end the turn (`aborted_tools`).
        interrupt: bool,
    },
}

/// One encoded stdin line, without its newline. Only [`encode`] makes these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedLine(String);

impl EncodedLine {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Serialises a message to exactly one line of JSON.
pub fn encode(message: &Outbound) -> EncodedLine {
    let value = to_value(message);
    // Serialising a `Value` cannot fail (all keys are strings).
    let text = serde_json::to_string(&value).unwrap_or_default();
    EncodedLine(escape_line_separators(text))
}

fn to_value(message: &Outbound) -> Value {
    match message {
        Outbound::User(input) => {
            let content = input
                .blocks
                .iter()
                .map(|block| match block {
                    InputBlock::Text(text) => json!({"type": "text", "text": text}),
                    InputBlock::Image {
                        media_type,
                        data_base64,
                    } => json!({
                        "type": "image",
                        "source": {"type": "base64", "media_type": media_type, "data": data_base64},
                    }),
                })
                .collect::<Vec<_>>();
            json!({
                "type": "user",
                "message": {"role": "user", "content": Value::Array(content)},
                "parent_tool_use_id": null,
                "session_id": "",
            })
        }
        Outbound::Request {
            request_id,
            request,
        } => {
            let mut body = Map::new();
            body.insert("subtype".into(), request.subtype().into());
            match request {
                HostRequest::Initialize | HostRequest::Interrupt | HostRequest::McpStatus => {}
                HostRequest::McpReconnect(server) => {
                    body.insert("serverName".into(), server.as_str().into());
                }
                HostRequest::SetModel(Some(model)) => {
                    body.insert("model".into(), model.as_str().into());
                }
                HostRequest::SetModel(None) => {}
                HostRequest::SetPermissionMode(mode) => {
                    body.insert("mode".into(), mode.as_str().into());
                }
            }
            json!({"type": "control_request", "request_id": request_id, "request": body})
        }
        Outbound::Permission {
            request_id,
            decision,
        } => {
            let answer = match decision {
                PermissionDecision::Allow {
                    updated_input,
                    updated_permissions,
                } => {
                    let mut answer = Map::new();
                    answer.insert("behavior".into(), "allow".into());
                    if let Some(input) = updated_input {
                        answer.insert("updatedInput".into(), input.clone());
                    }
                    if !updated_permissions.is_empty() {
                        answer.insert(
                            "updatedPermissions".into(),
                            Value::Array(updated_permissions.clone()),
                        );
                    }
                    Value::Object(answer)
                }
                PermissionDecision::Deny { message, interrupt } => {
                    json!({"behavior": "deny", "message": message, "interrupt": interrupt})
                }
            };
            success_response(request_id, answer)
        }
        Outbound::HookAnswer { request_id, output } => success_response(request_id, output.clone()),
        Outbound::Unsupported {
            request_id,
            subtype,
        } => json!({
            "type": "control_response",
            "response": {
                "subtype": "error",
                "request_id": request_id,
                "error": format!("codiva does not support control request subtype: {subtype}"),
                "error_code": "unsupported_request",
            },
        }),
    }
}

fn success_response(request_id: &str, response: Value) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    })
}

/// U+2028 and U+2029 are valid raw inside JSON strings, but some line readers split on them.
/// They can only occur inside strings, so replacing them by their escapes keeps the JSON equal.
fn escape_line_separators(text: String) -> String {
    if !text.contains(['\u{2028}', '\u{2029}']) {
        return text;
    }
    text.replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}
