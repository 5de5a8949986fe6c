//! Approval policy, as clients set it: which of an agent's permission requests a session
//! allows without asking anyone (the decision itself is the core's, `codiva_core::approval`).
//!
//! * `ask`: every request is asked.
//! * `allow_edits`: the tools the agent names as file edits are allowed.
//! * `allow_all`: every tool is allowed.
//! * `rules`: a list of tool names, each optionally with a command prefix for shell tools
//!   (`{"tool": "Bash", "command_prefix": "cargo test"}`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ApprovalPolicy {
    /// Every request is asked.
    #[default]
    Ask,
    /// File edits are allowed.
    AllowEdits,
    /// Every tool is allowed (questions are still asked).
    AllowAll,
    /// The tools (and shell command prefixes) listed are allowed.
    Rules { rules: Vec<ApprovalRule> },
}

/// Allows one tool; for a shell tool with `command_prefix`, only commands that start with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalRule {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_prefix: Option<String>,
}

impl ApprovalPolicy {
    /// The policy's name (`ask`, `allow_edits`, `allow_all`, `rules`).
    pub fn name(&self) -> &'static str {
        match self {
            ApprovalPolicy::Ask => "ask",
            ApprovalPolicy::AllowEdits => "allow_edits",
            ApprovalPolicy::AllowAll => "allow_all",
            ApprovalPolicy::Rules { .. } => "rules",
        }
    }
}
