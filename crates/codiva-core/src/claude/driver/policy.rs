//! The session task's side of the approval policy (`approval.rs`): a request the policy
//! allows is answered at once, without a prompt, and the log says what was allowed and why.

use codiva_wire::claude::Outbound;

use super::{Driver, allow};
use crate::agent_event::{AgentEvent, NoteLevel, PermissionRequest};
use crate::approval::ApprovalPolicy;
use crate::session::PermissionResponse;
use crate::session_log::NoteCode;
use crate::session_state::{Input, Prompt};

impl Driver {
    /// A request the approval policy allows: allowed now, without a prompt; the log says so.
    pub(super) async fn allow_by_policy(&mut self, request: PermissionRequest, reason: String) {
        self.write(&Outbound::Permission {
            request_id: request.request_id,
            decision: allow(request.input, Vec::new()),
        })
        .await;
        self.apply(Input::Agent(AgentEvent::Note {
            level: NoteLevel::Info,
            text: format!("{} allowed by the approval policy ({reason})", request.tool),
            code: Some(NoteCode::new(
                "allowed_by_policy",
                &[&request.tool, &reason],
            )),
        }));
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
                    let reason = self.config.approval.allows(&request.tool, &request.input)?;
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
                self.apply(Input::Agent(AgentEvent::Note {
                    level: NoteLevel::Info,
                    text: format!("{tool} allowed by the approval policy ({reason})"),
                    code: Some(NoteCode::new("allowed_by_policy", &[&tool, &reason])),
                }));
            }
        }
    }
}
