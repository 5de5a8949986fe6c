//! The session task's side of the approval policy (`approval.rs`): a request the policy
//! allows is answered at once, without a prompt, and the log says what was allowed and why.
//! Provider-neutral: the policy decides from the neutral [`PermissionRequest`] and the kind of
//! tool the provider gave the call (`request.view.tool_kind`); the answer goes out
//! through the provider's [`crate::provider::Connection::answer_permission`].

use codiva_protocol::agent::{NoteLevel, PermissionRequest};
use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::log::NoteCode;
use codiva_protocol::session::Prompt;

use super::Driver;
use crate::agent_event::AgentEvent;
use crate::approval::Decide;
use crate::session::PermissionResponse;
use crate::session_state::Input;

impl Driver {
    /// Why the session's policy allows `request` without asking, or `None`: ask.
    pub(super) fn policy_allows(&self, request: &PermissionRequest) -> Option<String> {
        let kind = request.view.tool_kind;
        self.config
            .approval
            .allows(&request.tool, kind, &request.input)
    }

    /// A request the approval policy allows: allowed now, without a prompt; the log says so.
    pub(super) async fn allow_by_policy(&mut self, request: PermissionRequest, reason: String) {
        // "Allow once" as the request offers it (a policy never widens to "always").
        let allow_once = PermissionResponse::Allow
            .resolve(&request)
            .ok()
            .map(|(option, _)| option.clone());
        if let (Some(live), Some(option)) = (self.live.as_mut(), allow_once) {
            let lines = live.connection.answer_permission(&request, &option, None);
            self.write_all(lines).await;
        }
        self.apply(allowed_note(&request.tool, &reason));
    }

    /// Takes a new approval policy; the permission prompts waiting that it allows are
    /// allowed now.
    pub(super) async fn set_approval_policy(&mut self, policy: ApprovalPolicy) {
        self.config.approval = policy;
        let waiting: Vec<(String, String, String)> = self
            .state
            .snapshot()
            .prompts
            .into_iter()
            .filter_map(|prompt| match prompt {
                Prompt::Permission(request) => {
                    let reason = self.policy_allows(&request)?;
                    Some((request.request_id, request.tool, reason))
                }
                Prompt::Question(_) => None,
            })
            .collect();
        for (request_id, tool, reason) in waiting {
            if self
                .respond_permission(request_id, PermissionResponse::Allow)
                .await
                .is_ok()
            {
                self.apply(allowed_note(&tool, &reason));
            }
        }
    }
}

/// The log's line for a request the policy allowed.
fn allowed_note(tool: &str, reason: &str) -> Input {
    Input::Agent(AgentEvent::Note {
        level: NoteLevel::Info,
        text: format!("{tool} allowed by the approval policy ({reason})"),
        code: Some(NoteCode::new(
            codiva_protocol::log::NoteName::AllowedByPolicy,
            &[tool, reason],
        )),
    })
}
