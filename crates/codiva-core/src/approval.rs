//! Approval policy: which of an agent's permission requests are allowed without asking anyone.
//!
//! Each session has one (the manager keeps it, with a default for new sessions; any client
//! sets it, and it holds when that client goes away). The session task applies it: a request
//! the policy allows is answered at once, logged as allowed by the policy, and never reaches a
//! client; everything else is asked as before. The policy only ever allows: it never denies,
//! and questions (AskUserQuestion) are never answered by it.
//!
//! * `ask`: every request is asked.
//! * `allow_edits`: file edits (Write, Edit, MultiEdit, NotebookEdit) are allowed.
//! * `allow_all`: every tool is allowed.
//! * `rules`: a list of tool names, each optionally with a command prefix for shell tools
//!   (`{"tool": "Bash", "command_prefix": "cargo test"}` allows `cargo test` and
//!   `cargo test -p x`, not `cargo testing` nor a command that chains another one with `;`,
//!   `&&`, `|`, a redirection, a substitution or a newline).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The tools `allow_edits` allows.
pub const EDIT_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];
/// The tool that asks the user questions: never answered by a policy.
const QUESTION_TOOL: &str = "AskUserQuestion";
/// What makes one shell command line run more than the command it starts with.
const SHELL_CHAINING: &[&str] = &[";", "&", "|", "`", "$(", ">", "<", "\n", "\r"];

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ApprovalPolicy {
    #[default]
    Ask,
    AllowEdits,
    AllowAll,
    Rules {
        rules: Vec<ApprovalRule>,
    },
}

/// Allows one tool; for a shell tool with `command_prefix`, only commands that start with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRule {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_prefix: Option<String>,
}

impl ApprovalPolicy {
    /// Why the policy allows this request without asking (for the log), or `None`: ask.
    pub fn allows(&self, tool: &str, input: &Value) -> Option<String> {
        if tool == QUESTION_TOOL {
            return None;
        }
        match self {
            ApprovalPolicy::Ask => None,
            ApprovalPolicy::AllowEdits => {
                EDIT_TOOLS.contains(&tool).then(|| "allow edits".to_owned())
            }
            ApprovalPolicy::AllowAll => Some("allow all".to_owned()),
            ApprovalPolicy::Rules { rules } => rules
                .iter()
                .find(|rule| rule.matches(tool, input))
                .map(|rule| match &rule.command_prefix {
                    Some(prefix) => format!("rule {} {prefix:?}", rule.tool),
                    None => format!("rule {}", rule.tool),
                }),
        }
    }

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

impl ApprovalRule {
    fn matches(&self, tool: &str, input: &Value) -> bool {
        if self.tool != tool {
            return false;
        }
        let Some(prefix) = self.command_prefix.as_deref() else {
            return true;
        };
        let Some(command) = input.get("command").and_then(Value::as_str) else {
            return false;
        };
        let command = command.trim();
        let prefix = prefix.trim();
        if prefix.is_empty() || SHELL_CHAINING.iter().any(|op| command.contains(op)) {
            return false;
        }
        command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rule(tool: &str, prefix: Option<&str>) -> ApprovalRule {
        ApprovalRule {
            tool: tool.to_owned(),
            command_prefix: prefix.map(str::to_owned),
        }
    }

    #[test]
    fn decisions() {
        let write = ("Write", json!({"file_path": "/a", "content": "x"}));
        let bash = |command: &str| ("Bash", json!({ "command": command }));
        let question = ("AskUserQuestion", json!({"questions": []}));
        let rules = ApprovalPolicy::Rules {
            rules: vec![rule("Bash", Some("cargo test")), rule("WebFetch", None)],
        };
        let table: Vec<(&ApprovalPolicy, (&str, Value), bool)> = vec![
            (&ApprovalPolicy::Ask, write.clone(), false),
            (&ApprovalPolicy::Ask, bash("ls"), false),
            (&ApprovalPolicy::AllowEdits, write.clone(), true),
            (&ApprovalPolicy::AllowEdits, ("Edit", json!({})), true),
            (
                &ApprovalPolicy::AllowEdits,
                ("NotebookEdit", json!({})),
                true,
            ),
            (&ApprovalPolicy::AllowEdits, bash("ls"), false),
            (&ApprovalPolicy::AllowAll, bash("rm -rf /tmp/x"), true),
            (&ApprovalPolicy::AllowAll, question.clone(), false),
            (&rules, bash("cargo test"), true),
            (&rules, bash("  cargo test -p codiva  "), true),
            (&rules, bash("cargo testing"), false),
            (&rules, bash("cargo test; rm -rf ~"), false),
            (&rules, bash("cargo test && curl x"), false),
            (&rules, bash("cargo test | sh"), false),
            (&rules, bash("cargo test > out"), false),
            (&rules, bash("cargo test $(evil)"), false),
            (&rules, bash("cargo test\nrm x"), false),
            (&rules, bash("cargo build"), false),
            (&rules, ("Bash", json!({})), false),
            (&rules, ("WebFetch", json!({"url": "https://x"})), true),
            (&rules, write.clone(), false),
            (&rules, question, false),
        ];
        for (policy, (tool, input), allowed) in table {
            assert_eq!(
                policy.allows(tool, &input).is_some(),
                allowed,
                "{} {tool} {input}",
                policy.name()
            );
        }
    }

    #[test]
    fn the_reason_names_the_policy_or_rule() {
        let rules = ApprovalPolicy::Rules {
            rules: vec![rule("Bash", Some("make"))],
        };
        assert_eq!(
            rules.allows("Bash", &json!({"command": "make all"})),
            Some("rule Bash \"make\"".to_owned())
        );
        assert_eq!(
            ApprovalPolicy::AllowEdits.allows("Write", &json!({})),
            Some("allow edits".to_owned())
        );
    }

    #[test]
    fn wire_form() {
        let policy: ApprovalPolicy = serde_json::from_value(json!({
            "mode": "rules",
            "rules": [{"tool": "Bash", "command_prefix": "npm test"}, {"tool": "Edit"}]
        }))
        .unwrap();
        assert_eq!(
            policy,
            ApprovalPolicy::Rules {
                rules: vec![rule("Bash", Some("npm test")), rule("Edit", None)]
            }
        );
        assert_eq!(
            serde_json::to_value(ApprovalPolicy::AllowEdits).unwrap(),
            json!({"mode": "allow_edits"})
        );
        assert!(serde_json::from_value::<ApprovalPolicy>(json!({"mode": "deny_all"})).is_err());
    }
}
