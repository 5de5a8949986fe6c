//! The JSON-RPC methods and notifications of `codiva serve` (see `docs/serve-api.md`).

use std::collections::BTreeMap;

use codiva_core::approval::ApprovalPolicy;
use codiva_core::manager::{CreateOptions, Manager, ManagerEvent};
use codiva_core::session::{PermissionResponse, QuestionResponse};
use codiva_core::session_state::{Prompt, Scope, SessionEvent};
use codiva_wire::claude::{InputBlock, UserInput};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::rpc::RpcError;

/// The protocol version `initialize` reports; bumped on incompatible changes.
pub const PROTOCOL_VERSION: &str = "1";

/// Most entries one `session/read` returns.
const MAX_READ: usize = 1000;

fn params<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    let params = if params.is_null() { json!({}) } else { params };
    match T::deserialize(&params) {
        Ok(value) => Ok(value),
        Err(err) => Err(match faulty_field::<T>(&params, &err) {
            Some(field) => RpcError::invalid_field(&field, err.to_string()),
            None => RpcError::invalid_params(err.to_string()),
        }),
    }
}

/// The top-level field a params error is about. serde does not name a field of the wrong type
/// (nor the outer field of a nested error): that is the key without which the error changes
/// (serde stops at the first bad field in key order, and reports missing fields only after
/// reading every key). Otherwise it is a missing field, which serde names.
fn faulty_field<T: DeserializeOwned>(params: &Value, err: &serde_json::Error) -> Option<String> {
    let message = err.to_string();
    let culprit = match params {
        Value::Object(map) => map.keys().find(|key| {
            let mut without = map.clone();
            without.remove(*key);
            match T::deserialize(&Value::Object(without)) {
                Ok(_) => true,
                Err(other) => other.to_string() != message,
            }
        }),
        _ => None,
    };
    culprit.cloned().or_else(|| {
        let rest = message.strip_prefix("missing field `")?;
        rest.split('`').next().map(str::to_owned)
    })
}

fn to_value(value: impl serde::Serialize) -> Result<Value, RpcError> {
    serde_json::to_value(value).map_err(|err| RpcError {
        code: -32603,
        message: format!("cannot encode the result: {err}"),
        data: None,
    })
}

#[derive(Deserialize)]
struct SessionParams {
    session_id: String,
}

#[derive(Deserialize)]
struct CreateParams {
    prompt: String,
    #[serde(default)]
    images: Vec<ImageParam>,
    model: Option<String>,
    permission_mode: Option<String>,
    /// The session's approval policy (none: the server's default for new sessions).
    approval_policy: Option<ApprovalPolicy>,
}

#[derive(Deserialize)]
struct ApprovalParams {
    /// None: the default for sessions created from now on.
    session_id: Option<String>,
    policy: ApprovalPolicy,
}

#[derive(Deserialize)]
struct ImageParam {
    media_type: String,
    data: String,
}

#[derive(Deserialize)]
struct ReadParams {
    session_id: String,
    after: Option<u64>,
    limit: Option<usize>,
    /// Read a subagent's log (the tool-use id of its `Agent` call) instead of the main log.
    subagent: Option<String>,
}

#[derive(Deserialize)]
struct SendParams {
    session_id: String,
    text: String,
    #[serde(default)]
    images: Vec<ImageParam>,
}

#[derive(Deserialize)]
struct ResumeParams {
    session_id: String,
    text: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Decision {
    Allow,
    AllowAlways,
    Deny,
    DenyAndStop,
}

#[derive(Deserialize)]
struct PermissionParams {
    session_id: String,
    request_id: String,
    decision: Decision,
    /// For `allow_always`: the index of the agent's suggested scope (none: the whole tool).
    suggestion: Option<usize>,
    message: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Answer {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
struct QuestionParams {
    session_id: String,
    request_id: String,
    #[serde(default)]
    answers: BTreeMap<String, Answer>,
    #[serde(default)]
    decline: bool,
    message: Option<String>,
}

#[derive(Deserialize)]
struct ModelParams {
    session_id: String,
    model: Option<String>,
}

#[derive(Deserialize)]
struct ModeParams {
    session_id: String,
    mode: String,
}

#[derive(Deserialize)]
struct ConfirmParams {
    session_id: String,
    confirm_token: Option<String>,
}

fn user_input(text: String, images: Vec<ImageParam>) -> UserInput {
    let mut input = UserInput::text(text);
    input
        .blocks
        .extend(images.into_iter().map(|image| InputBlock::Image {
            media_type: image.media_type,
            data_base64: image.data,
        }));
    input
}

pub async fn dispatch(
    manager: &Manager,
    warnings: &[String],
    method: &str,
    raw: Value,
) -> Result<Value, RpcError> {
    match method {
        "initialize" => Ok(json!({
            "protocol_version": PROTOCOL_VERSION,
            "server": {"name": "codiva", "version": env!("CARGO_PKG_VERSION")},
            "repo": {"root": manager.root(), "base": manager.base()},
            "capabilities": {
                "agents": ["claude"],
                "images": true,
                "merge": true,
                "discard_confirmation": true,
                "subagent_logs": true,
            },
            "warnings": warnings,
        })),
        "session/create" => {
            let p: CreateParams = params(raw)?;
            let session = manager
                .create(CreateOptions {
                    prompt: p.prompt,
                    images: p
                        .images
                        .into_iter()
                        .map(|image| (image.media_type, image.data))
                        .collect(),
                    model: p.model,
                    permission_mode: p.permission_mode,
                    approval: p.approval_policy,
                })
                .await?;
            Ok(json!({"session": to_value(session)?}))
        }
        "session/list" => Ok(json!({"sessions": to_value(manager.list().await?)?})),
        "session/read" => {
            let p: ReadParams = params(raw)?;
            let scope = p.subagent.map_or(Scope::Main, Scope::Subagent);
            let limit = p.limit.unwrap_or(200).clamp(1, MAX_READ);
            let page = manager.read(&p.session_id, scope, p.after, limit).await?;
            to_value(page)
        }
        "session/snapshot" => {
            let p: SessionParams = params(raw)?;
            to_value(manager.snapshot(&p.session_id).await?)
        }
        "session/send" => {
            let p: SendParams = params(raw)?;
            if p.text.trim().is_empty() && p.images.is_empty() {
                return Err(RpcError::invalid_field(
                    "text",
                    "expected a non-empty message (or images)".to_owned(),
                ));
            }
            manager
                .send(&p.session_id, user_input(p.text, p.images))
                .await?;
            Ok(json!({}))
        }
        "session/interrupt" => {
            let p: SessionParams = params(raw)?;
            manager.interrupt(&p.session_id).await?;
            Ok(json!({}))
        }
        "session/resume" => {
            let p: ResumeParams = params(raw)?;
            manager.resume(&p.session_id, p.text).await?;
            Ok(json!({}))
        }
        "session/respondPermission" => {
            let p: PermissionParams = params(raw)?;
            let message = || {
                p.message
                    .clone()
                    .unwrap_or_else(|| "The user denied this tool use.".to_owned())
            };
            let response = match p.decision {
                Decision::Allow => PermissionResponse::Allow,
                Decision::AllowAlways => PermissionResponse::AllowAlways {
                    suggestion: p.suggestion,
                },
                Decision::Deny => PermissionResponse::Deny { message: message() },
                Decision::DenyAndStop => PermissionResponse::DenyAndStop { message: message() },
            };
            manager
                .respond_permission(&p.session_id, &p.request_id, response)
                .await?;
            Ok(json!({}))
        }
        "session/answerQuestion" => {
            let p: QuestionParams = params(raw)?;
            let response = if p.decline {
                QuestionResponse::Decline { message: p.message }
            } else {
                if p.answers.is_empty() {
                    return Err(RpcError::invalid_field(
                        "answers",
                        "expected answers keyed by question text, or \"decline\": true".to_owned(),
                    ));
                }
                QuestionResponse::Answers(
                    p.answers
                        .into_iter()
                        .map(|(question, answer)| {
                            let labels = match answer {
                                Answer::One(text) => vec![text],
                                Answer::Many(labels) => labels,
                            };
                            (question, labels)
                        })
                        .collect(),
                )
            };
            manager
                .answer_question(&p.session_id, &p.request_id, response)
                .await?;
            Ok(json!({}))
        }
        "session/setModel" => {
            let p: ModelParams = params(raw)?;
            manager.set_model(&p.session_id, p.model).await?;
            Ok(json!({}))
        }
        "session/setPermissionMode" => {
            let p: ModeParams = params(raw)?;
            manager.set_permission_mode(&p.session_id, p.mode).await?;
            Ok(json!({}))
        }
        "session/setApprovalPolicy" => {
            let p: ApprovalParams = params(raw)?;
            manager
                .set_approval_policy(p.session_id.as_deref(), p.policy)
                .await?;
            Ok(json!({}))
        }
        "session/diff" => {
            let p: SessionParams = params(raw)?;
            to_value(manager.diff(&p.session_id).await?)
        }
        "session/merge" => {
            let p: SessionParams = params(raw)?;
            Ok(json!({"session": to_value(manager.merge(&p.session_id).await?)?}))
        }
        "session/discard" => {
            let p: ConfirmParams = params(raw)?;
            to_value(manager.discard(&p.session_id, p.confirm_token).await?)
        }
        "session/remove" => {
            let p: ConfirmParams = params(raw)?;
            to_value(manager.remove(&p.session_id, p.confirm_token).await?)
        }
        "session/restore" => {
            let p: SessionParams = params(raw)?;
            Ok(json!({"session": to_value(manager.restore(&p.session_id).await?)?}))
        }
        "session/sync" => {
            let p: SessionParams = params(raw)?;
            Ok(json!({"message": manager.sync(&p.session_id).await?}))
        }
        other => Err(RpcError::method_not_found(other)),
    }
}

/// One manager event → the notifications a client receives.
pub fn notifications(event: ManagerEvent) -> Vec<(&'static str, Value)> {
    match event {
        ManagerEvent::Session { session } => {
            vec![("session/updated", json!({"session": session}))]
        }
        ManagerEvent::Removed { id } => vec![("session/removed", json!({"session_id": id}))],
        ManagerEvent::Warning { message } => vec![("warning", json!({"message": message}))],
        ManagerEvent::Base { branch } => vec![("repo/base", json!({"base": branch}))],
        ManagerEvent::Event { id, event } => {
            let method = match &event {
                SessionEvent::Status { .. } => "session/status",
                SessionEvent::Log { .. } => "session/log",
                SessionEvent::Stream { .. } => "session/stream",
                SessionEvent::PromptOpened {
                    prompt: Prompt::Permission(_),
                } => "session/permission",
                SessionEvent::PromptOpened {
                    prompt: Prompt::Question(_),
                } => "session/question",
                SessionEvent::PromptClosed { .. } => "session/promptClosed",
                SessionEvent::Connected { .. } => "session/connected",
                SessionEvent::AgentSession { .. } => "session/agentSession",
                SessionEvent::Model { .. } => "session/model",
                SessionEvent::PermissionMode { .. } => "session/permissionMode",
                SessionEvent::Todos { .. } => "session/todos",
                SessionEvent::Usage { .. } => "session/usage",
                SessionEvent::Subagent { .. } => "session/subagent",
                SessionEvent::AgentExited { .. } => "session/agentExited",
                SessionEvent::Warning { .. } => "warning",
            };
            let mut params = serde_json::to_value(&event).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut params {
                map.remove("event");
                map.insert("session_id".to_owned(), Value::String(id));
            }
            vec![(method, params)]
        }
    }
}
