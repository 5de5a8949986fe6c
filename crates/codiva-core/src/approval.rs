//! Approval policy: which of an agent's permission requests are allowed without asking anyone.
//!
//! Each session has one (the manager keeps it, with a default for new sessions; any client
//! sets it, and it holds when that client goes away). The session task applies it: a request
//! the policy allows is answered at once, logged as allowed by the policy, and never reaches a
//! client; everything else is asked as before. The policy only ever allows: it never denies,
//! and questions are never answered by it.
//!
//! The policy names no agent's tools: what a tool does ([`ToolKind`]: an edit, a question) is
//! the provider's to say (the neutral kind it gives each call), and rules are data.
//!
//! * `ask`: every request is asked.
//! * `allow_edits`: file edits (the tools the provider calls [`ToolKind::Edit`]) are allowed.
//! * `allow_all`: every tool is allowed.
//! * `rules`: a list of tool names, each optionally with a command prefix for shell tools
//!   (`{"tool": "Bash", "command_prefix": "cargo test"}` allows `cargo test` and
//!   `cargo test -p x`, not `cargo testing` nor a command that chains another one with `;`,
//!   `&&`, `|`, a redirection, a substitution or a newline).

use codiva_protocol::approval::{ApprovalPolicy, ApprovalRule};
use codiva_protocol::tool::ToolKind;
use serde_json::Value;

/// What makes one shell command line run more than the command it starts with.
const SHELL_CHAINING: &[&str] = &[";", "&", "|", "`", "$(", ">", "<", "\n", "\r"];

/// The decision of a policy.
pub trait Decide {
    /// Why the policy allows a request of `tool` (of `kind`, as its provider says) with
    /// `input` without asking (for the log), or `None`: ask.
    fn allows(&self, tool: &str, kind: ToolKind, input: &Value) -> Option<String>;
}

impl Decide for ApprovalPolicy {
    fn allows(&self, tool: &str, kind: ToolKind, input: &Value) -> Option<String> {
        if kind == ToolKind::Question {
            return None;
        }
        match self {
            ApprovalPolicy::Ask => None,
            ApprovalPolicy::AllowEdits => {
                (kind == ToolKind::Edit).then(|| "allow edits".to_owned())
            }
            ApprovalPolicy::AllowAll => Some("allow all".to_owned()),
            ApprovalPolicy::Rules { rules } => rules
                .iter()
                .find(|rule| matches(rule, tool, input))
                .map(|rule| match &rule.command_prefix {
                    Some(prefix) => format!("rule {} {prefix:?}", rule.tool),
                    None => format!("rule {}", rule.tool),
                }),
        }
    }
}

fn matches(rule: &ApprovalRule, tool: &str, input: &Value) -> bool {
    if rule.tool != tool {
        return false;
    }
    let Some(prefix) = rule.command_prefix.as_deref() else {
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

    // The kinds a provider would give these tools (Claude Code's names as sample data).
    const EDIT: ToolKind = ToolKind::Edit;
    const OTHER: ToolKind = ToolKind::Other;
    const QUESTION: ToolKind = ToolKind::Question;

    #[test]
    fn decisions() {
        let write = ("Write", EDIT, json!({"file_path": "/a", "content": "x"}));
        let bash = |command: &str| ("Bash", OTHER, json!({ "command": command }));
        let question = ("AskUserQuestion", QUESTION, json!({"questions": []}));
        let rules = ApprovalPolicy::Rules {
            rules: vec![rule("Bash", Some("cargo test")), rule("WebFetch", None)],
        };
        let table: Vec<(&ApprovalPolicy, (&str, ToolKind, Value), bool)> = vec![
            (&ApprovalPolicy::Ask, write.clone(), false),
            (&ApprovalPolicy::Ask, bash("ls"), false),
            (&ApprovalPolicy::AllowEdits, write.clone(), true),
            (&ApprovalPolicy::AllowEdits, ("Edit", EDIT, json!({})), true),
            (
                &ApprovalPolicy::AllowEdits,
                ("NotebookEdit", EDIT, json!({})),
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
            (&rules, ("Bash", OTHER, json!({})), false),
            (
                &rules,
                ("WebFetch", OTHER, json!({"url": "https://x"})),
                true,
            ),
            (&rules, write.clone(), false),
            (&rules, question, false),
        ];
        for (policy, (tool, kind, input), allowed) in table {
            assert_eq!(
                policy.allows(tool, kind, &input).is_some(),
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
            rules.allows("Bash", OTHER, &json!({"command": "make all"})),
            Some("rule Bash \"make\"".to_owned())
        );
        assert_eq!(
            ApprovalPolicy::AllowEdits.allows("Write", EDIT, &json!({})),
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
