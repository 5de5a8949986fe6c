//! The answers to prompts as the protocol's params say them, and back: the manager's typed
//! helpers send params, the actor reads them (checked once, in one place).

use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::params::{Answer, Decision, PermissionParams, QuestionParams};

use crate::provider::InvalidInput;
use crate::session::{DENY_MESSAGE, PermissionResponse};

/// The answer `session/respondPermission`'s params give.
pub(crate) fn permission_response(
    p: &PermissionParams,
) -> Result<PermissionResponse, InvalidInput> {
    let message = || p.message.clone().unwrap_or_else(|| DENY_MESSAGE.to_owned());
    Ok(match (p.option.clone(), p.decision) {
        (Some(id), None) => PermissionResponse::Option {
            id,
            message: p.message.clone(),
        },
        (None, Some(Decision::Allow)) => PermissionResponse::Allow,
        (None, Some(Decision::AllowAlways)) => PermissionResponse::AllowAlways {
            suggestion: p.suggestion,
        },
        (None, Some(Decision::Deny)) => PermissionResponse::Deny { message: message() },
        (None, Some(Decision::DenyAndStop)) => {
            PermissionResponse::DenyAndStop { message: message() }
        }
        (Some(_), Some(_)) | (None, None) => {
            return Err(InvalidInput::new(
                "option",
                "expected exactly one of `option` (an option's id) and `decision`",
            ));
        }
    })
}

/// `response` as `session/respondPermission`'s params.
pub(crate) fn permission_params(
    session_id: &str,
    request_id: &str,
    response: PermissionResponse,
) -> PermissionParams {
    let (option, decision, suggestion, message) = match response {
        PermissionResponse::Allow => (None, Some(Decision::Allow), None, None),
        PermissionResponse::AllowAlways { suggestion } => {
            (None, Some(Decision::AllowAlways), suggestion, None)
        }
        PermissionResponse::Deny { message } => (None, Some(Decision::Deny), None, Some(message)),
        PermissionResponse::DenyAndStop { message } => {
            (None, Some(Decision::DenyAndStop), None, Some(message))
        }
        PermissionResponse::Option { id, message } => (Some(id), None, None, message),
    };
    PermissionParams {
        session_id: session_id.to_owned(),
        request_id: request_id.to_owned(),
        option,
        decision,
        suggestion,
        message,
    }
}

/// The answer `session/answerQuestion`'s params give.
pub(crate) fn question_response(p: QuestionParams) -> Result<QuestionResponse, InvalidInput> {
    if p.decline {
        return Ok(QuestionResponse::Decline { message: p.message });
    }
    if p.answers.is_empty() {
        return Err(InvalidInput::new(
            "answers",
            "expected answers keyed by question text, or \"decline\": true",
        ));
    }
    Ok(QuestionResponse::Answers(
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
    ))
}

/// `response` as `session/answerQuestion`'s params.
pub(crate) fn question_params(
    session_id: &str,
    request_id: &str,
    response: QuestionResponse,
) -> QuestionParams {
    let (answers, decline, message) = match response {
        QuestionResponse::Answers(answers) => (
            answers
                .into_iter()
                .map(|(question, labels)| (question, Answer::Many(labels)))
                .collect(),
            false,
            None,
        ),
        QuestionResponse::Decline { message } => (Default::default(), true, message),
    };
    QuestionParams {
        session_id: session_id.to_owned(),
        request_id: request_id.to_owned(),
        answers,
        decline,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_permission_answer_survives_its_params() {
        for response in [
            PermissionResponse::Allow,
            PermissionResponse::AllowAlways { suggestion: None },
            PermissionResponse::AllowAlways {
                suggestion: Some(2),
            },
            PermissionResponse::Deny {
                message: "no".into(),
            },
            PermissionResponse::DenyAndStop {
                message: "stop".into(),
            },
            PermissionResponse::Option {
                id: "allow_once".into(),
                message: None,
            },
            PermissionResponse::Option {
                id: "reject".into(),
                message: Some("why".into()),
            },
        ] {
            let params = permission_params("s", "r", response.clone());
            assert_eq!(permission_response(&params).unwrap(), response);
        }
    }

    #[test]
    fn every_question_answer_survives_its_params() {
        let answers = [("Which?".to_owned(), vec!["A".to_owned(), "B".to_owned()])];
        for response in [
            QuestionResponse::Answers(answers.into_iter().collect()),
            QuestionResponse::Decline { message: None },
            QuestionResponse::Decline {
                message: Some("later".into()),
            },
        ] {
            let params = question_params("s", "r", response.clone());
            assert_eq!(question_response(params).unwrap(), response);
        }
    }
}
