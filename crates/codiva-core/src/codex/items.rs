//! Codex thread items (`commandExecution`, `fileChange`, …) as neutral tool calls, and the
//! permission options of its approval requests with the decisions they stand for.

use codiva_protocol::tool::{
    PermissionOption, PermissionOptionKind, PermissionScope, RuleBehavior, ScopePlace,
    ToolCallView, ToolContent, ToolKind,
};
use serde_json::Value;

use crate::agent_event::AgentBlock;
use crate::json::{items, str_field};

/// The item types that are tool calls (0.171's `ThreadItem` union); every other type
/// (messages, reasoning, review-mode markers, hook prompts, types newer than 0.171) is not
/// shown as a tool.
pub fn is_tool_item(kind: &str) -> bool {
    matches!(
        kind,
        "commandExecution"
            | "fileChange"
            | "mcpToolCall"
            | "dynamicToolCall"
            | "collabAgentToolCall"
            | "webSearch"
            | "imageView"
            | "imageGeneration"
    )
}

/// The tool name codiva shows and keys policies by.
pub fn tool_name(item: &Value) -> String {
    match str_field(item, "type").unwrap_or("") {
        "commandExecution" => "shell".to_owned(),
        "fileChange" => "apply_patch".to_owned(),
        "mcpToolCall" => {
            let server = str_field(item, "server").unwrap_or("mcp");
            let tool = str_field(item, "tool").unwrap_or("tool");
            format!("{server}.{tool}")
        }
        other => other.to_owned(),
    }
}

/// A tool item (from `item/started`, or `item/completed` when it never started) as a block.
pub fn tool_block(item: &Value) -> AgentBlock {
    let id = str_field(item, "id").unwrap_or_default().to_owned();
    let view = tool_view(item);
    let summary = match str_field(item, "type") {
        Some("commandExecution") => str_field(item, "command").unwrap_or_default().to_owned(),
        Some("fileChange") => changed_paths(item).join(", "),
        _ => view.title.clone(),
    };
    AgentBlock::ToolUse {
        id,
        name: tool_name(item),
        input: item.clone(),
        summary,
        view,
        subagent: None,
    }
}

pub fn tool_view(item: &Value) -> ToolCallView {
    match str_field(item, "type").unwrap_or("") {
        "commandExecution" => shell_view(
            str_field(item, "command").unwrap_or_default().to_owned(),
            str_field(item, "aggregatedOutput").map(str::to_owned),
        ),
        "fileChange" => edit_view(file_diffs(item)),
        "imageView" => view(
            ToolKind::Read,
            "View image",
            str_field(item, "path")
                .map(|path| ToolContent::Locations {
                    locations: vec![codiva_protocol::tool::ToolLocation {
                        path: path.to_owned(),
                        ..Default::default()
                    }],
                })
                .into_iter()
                .collect(),
        ),
        "webSearch" => view(
            ToolKind::Fetch,
            "Web search",
            str_field(item, "query")
                .map(|query| ToolContent::Text {
                    text: query.to_owned(),
                })
                .into_iter()
                .collect(),
        ),
        "mcpToolCall" => other_view(&tool_name(item)),
        other => other_view(other),
    }
}

/// A call as Codex's records show it (app-server items, `exec` items, rollouts alike): its
/// kind, its title and what it shows.
fn view(tool_kind: ToolKind, title: &str, content: Vec<ToolContent>) -> ToolCallView {
    ToolCallView {
        tool_kind,
        title: title.to_owned(),
        content,
        notes: Vec::new(),
    }
}

/// A shell command's call, with what it printed once that is known.
pub fn shell_view(command: String, output: Option<String>) -> ToolCallView {
    view(
        ToolKind::Execute,
        "Shell",
        vec![ToolContent::Terminal { command, output }],
    )
}

/// A patch's call, showing `content` (its diffs, or the files it changes).
pub fn edit_view(content: Vec<ToolContent>) -> ToolCallView {
    view(ToolKind::Edit, "Edit files", content)
}

/// A call of a tool codiva draws nothing of, titled by the tool's name.
pub fn other_view(name: &str) -> ToolCallView {
    view(ToolKind::Other, name, Vec::new())
}

fn changed_paths(item: &Value) -> Vec<String> {
    items(item, "changes")
        .filter_map(|change| str_field(change, "path").map(str::to_owned))
        .collect()
}

/// Each change of a `fileChange` item as a diff. Codex gives an added file's whole text, a
/// deleted file's old text and an updated file's unified hunks; a hunk becomes the old and
/// the new text of the lines it covers.
fn file_diffs(item: &Value) -> Vec<ToolContent> {
    let Some(changes) = item.get("changes").and_then(Value::as_array) else {
        return Vec::new();
    };
    changes
        .iter()
        .map(|change| {
            let path = str_field(change, "path").unwrap_or_default().to_owned();
            let diff = str_field(change, "diff").unwrap_or_default();
            let kind = change
                .get("kind")
                .and_then(|kind| str_field(kind, "type").or_else(|| kind.as_str()));
            match kind {
                Some("add") => ToolContent::Diff {
                    path,
                    old: None,
                    new: diff.to_owned(),
                },
                Some("delete") => ToolContent::Diff {
                    path,
                    old: Some(diff.to_owned()),
                    new: String::new(),
                },
                _ => {
                    let (old, new) = hunk_sides(diff);
                    ToolContent::Diff {
                        path,
                        old: Some(old),
                        new,
                    }
                }
            }
        })
        .collect()
}

/// The old and new side of unified hunks (context lines on both sides; hunks apart).
fn hunk_sides(diff: &str) -> (String, String) {
    let (mut old, mut new) = (String::new(), String::new());
    for line in diff.split_inclusive('\n') {
        if line.starts_with("@@") {
            if !old.is_empty() || !new.is_empty() {
                old.push_str("…\n");
                new.push_str("…\n");
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('-') {
            old.push_str(rest);
        } else if let Some(rest) = line.strip_prefix('+') {
            new.push_str(rest);
        } else {
            let rest = line.strip_prefix(' ').unwrap_or(line);
            old.push_str(rest);
            new.push_str(rest);
        }
    }
    (old, new)
}

/// What a finished tool item reports: its output and whether it failed or was declined.
pub fn tool_result(item: &Value) -> (String, bool) {
    let status = str_field(item, "status").unwrap_or("completed");
    let failed = status != "completed";
    let text = match str_field(item, "type") {
        Some("commandExecution") => {
            let output = str_field(item, "aggregatedOutput").unwrap_or_default();
            match item.get("exitCode").and_then(Value::as_i64) {
                Some(code) if code != 0 => format!("{output}(exit code {code})"),
                _ if status == "declined" => "declined".to_owned(),
                _ => output.to_owned(),
            }
        }
        Some("fileChange") => match status {
            "completed" => format!("changed {}", changed_paths(item).join(", ")),
            other => other.to_owned(),
        },
        _ => item
            .get("result")
            .or_else(|| item.get("error"))
            .filter(|value| !value.is_null())
            .map(|value| match value.as_str() {
                Some(text) => text.to_owned(),
                None => value.to_string(),
            })
            .unwrap_or_else(|| status.to_owned()),
    };
    (text, failed)
}

/// The id of the option that answers `acceptWithExecpolicyAmendment`.
pub const EXECPOLICY_OPTION: &str = "allow_prefix";

/// The options of an approval request: allow once (`accept`), allow for the session
/// (`acceptForSession`), deny (`decline`: the turn goes on), deny and stop (`cancel`: the
/// turn ends), plus "allow commands with this prefix" when the request lists an exec-policy
/// amendment (`decisions` is its `availableDecisions`). Codex 0.171 takes `acceptForSession`
/// and `decline` although a command request does not list them (measured:
/// docs/protocol/codex.md).
pub fn permission_options(
    decisions: Option<&Vec<Value>>,
    rule: Option<&str>,
) -> Vec<PermissionOption> {
    let offers =
        |name: &str| decisions.is_some_and(|list| list.iter().any(|d| d.get(name).is_some()));
    let option = |id: &str, kind, label: &str, scope| PermissionOption {
        id: id.to_owned(),
        kind,
        label: label.to_owned(),
        scope,
    };
    let mut options = vec![option(
        PermissionOption::ALLOW_ONCE,
        PermissionOptionKind::AllowOnce,
        "Allow once",
        None,
    )];
    options.push(option(
        PermissionOption::ALLOW_ALWAYS,
        PermissionOptionKind::AllowAlways,
        "Allow this for the rest of the session",
        rule.map(|rule| PermissionScope::Rules {
            behavior: RuleBehavior::Allow,
            rules: vec![rule.to_owned()],
            place: Some(ScopePlace::Session),
        }),
    ));
    if offers("acceptWithExecpolicyAmendment") {
        let prefix = decisions
            .into_iter()
            .flatten()
            .find_map(|d| d.get("acceptWithExecpolicyAmendment"))
            .and_then(|a| a.get("execpolicy_amendment"))
            .and_then(Value::as_array)
            .map(|words| {
                words
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        options.push(option(
            EXECPOLICY_OPTION,
            PermissionOptionKind::AllowAlways,
            &format!("Always allow commands that start with `{prefix}`"),
            Some(PermissionScope::Rules {
                behavior: RuleBehavior::Allow,
                rules: vec![format!("{prefix} *")],
                place: Some(ScopePlace::User),
            }),
        ));
    }
    options.push(option(
        PermissionOption::DENY,
        PermissionOptionKind::Deny,
        "Deny",
        None,
    ));
    options.push(option(
        PermissionOption::DENY_AND_STOP,
        PermissionOptionKind::DenyAndStop,
        "Deny and stop the turn",
        None,
    ));
    options
}

/// Codex's decision for the chosen option of a request with these `decisions`.
pub fn decision(option: &PermissionOption, decisions: Option<&Vec<Value>>) -> Value {
    match option.kind {
        PermissionOptionKind::AllowOnce => Value::from("accept"),
        PermissionOptionKind::AllowAlways if option.id == EXECPOLICY_OPTION => decisions
            .into_iter()
            .flatten()
            .find(|d| d.get("acceptWithExecpolicyAmendment").is_some())
            .cloned()
            .unwrap_or_else(|| Value::from("accept")),
        PermissionOptionKind::AllowAlways => Value::from("acceptForSession"),
        PermissionOptionKind::Deny => Value::from("decline"),
        PermissionOptionKind::DenyAndStop => Value::from("cancel"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hunks_become_old_and_new_text() {
        let (old, new) = hunk_sides("@@ -2 +2,2 @@\n keep\n-gone\n+added\n@@ -9 +10 @@\n x\n");
        assert_eq!(old, "keep\ngone\n…\nx\n");
        assert_eq!(new, "keep\nadded\n…\nx\n");
    }

    #[test]
    fn options_follow_the_available_decisions() {
        let listed = vec![
            json!("accept"),
            json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "a"]}}),
            json!("cancel"),
        ];
        let options = permission_options(Some(&listed), Some("touch a"));
        let ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "allow_once",
                "allow_always",
                EXECPOLICY_OPTION,
                "deny",
                "deny_and_stop"
            ]
        );
        assert_eq!(
            decision(&options[1], Some(&listed)),
            json!("acceptForSession")
        );
        assert_eq!(decision(&options[2], Some(&listed)), listed[1]);
        assert_eq!(decision(&options[3], Some(&listed)), json!("decline"));
        assert_eq!(decision(&options[4], Some(&listed)), json!("cancel"));
        let all = permission_options(None, None);
        let ids: Vec<&str> = all.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["allow_once", "allow_always", "deny", "deny_and_stop"]);
        assert_eq!(decision(&all[1], None), json!("acceptForSession"));
    }
}
