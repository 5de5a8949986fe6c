//! The requests the app sends from more than one place, built as the method table declares
//! them ([`Effect::request`]); [`App::answered`](super::App::answered) says what their answers
//! mean.

use codiva_protocol::ClientRequest;
use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::params::{
    Answer, ConfirmParams, CreateParams, LoginIdParams, NoParams, PermissionParams, QuestionParams,
    SendParams, SessionParams,
};

use super::{App, Effect};
use crate::dialog::PermissionAnswer;

/// The params of the requests about one session.
pub(super) fn session_params(id: impl Into<String>) -> SessionParams {
    SessionParams {
        session_id: id.into(),
    }
}

/// `session/send`: a message (or an agent command) to the session's agent.
pub(super) fn send(id: String, text: String) -> Effect {
    Effect::request(ClientRequest::SessionSend(SendParams {
        session_id: id,
        text,
        images: Vec::new(),
    }))
}

/// `session/discard`, or `session/remove` when the session is to be forgotten: without a token
/// the manager answers what would be lost and a token to confirm with.
pub(super) fn discard(id: String, forget: bool, confirm_token: Option<String>) -> Effect {
    let params = ConfirmParams {
        session_id: id,
        confirm_token,
    };
    Effect::request(if forget {
        ClientRequest::SessionRemove(params)
    } else {
        ClientRequest::SessionDiscard(params)
    })
}

/// `agents/list`: every agent's availability and login, asked again.
pub(super) fn refresh_agents() -> Effect {
    Effect::request(ClientRequest::AgentsList(NoParams {}))
}

/// `agents/loginCancel`: stop a running login.
pub(super) fn cancel_login(login_id: String) -> Effect {
    Effect::request(ClientRequest::AgentsLoginCancel(LoginIdParams { login_id }))
}

/// The permission dialog's answer as `session/respondPermission` params.
pub(super) fn permission_params(
    session_id: String,
    request_id: String,
    response: PermissionAnswer,
) -> PermissionParams {
    PermissionParams {
        session_id,
        request_id,
        decision: None,
        option: Some(response.option),
        suggestion: None,
        message: response.message,
    }
}

/// The question dialog's answer as `session/answerQuestion` params.
pub(super) fn question_params(
    session_id: String,
    request_id: String,
    response: QuestionResponse,
) -> QuestionParams {
    match response {
        QuestionResponse::Answers(answers) => QuestionParams {
            session_id,
            request_id,
            answers: answers
                .into_iter()
                .map(|(question, labels)| (question, Answer::Many(labels)))
                .collect(),
            decline: false,
            message: None,
        },
        QuestionResponse::Decline { message } => QuestionParams {
            session_id,
            request_id,
            answers: Default::default(),
            decline: true,
            message,
        },
    }
}

impl App {
    /// `session/create` with `prompt`, on the model and agent the header names (`/model` and
    /// `/agent` change them for new sessions).
    pub(super) fn create(&self, prompt: String) -> Effect {
        Effect::request(ClientRequest::SessionCreate(CreateParams {
            prompt,
            images: Vec::new(),
            model: self.info.model.clone(),
            permission_mode: None,
            agent: (!self.info.agent.is_empty()).then(|| self.info.agent.clone()),
            approval_policy: None,
            ..CreateParams::default()
        }))
    }
}
