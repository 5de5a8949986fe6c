//! What codiva knows of Claude Code's own tools: how a call is summarised in the log, which
//! calls start a subagent (`Agent`, formerly `Task`), which keep the TODO list (`TaskCreate` /
//! `TaskUpdate`, incremental; `TodoWrite`, replacing), through which it asks questions
//! (`AskUserQuestion`) and which edit files (for the approval policy's `allow_edits`). The
//! translator turns these into provider-neutral events and kinds, so that nothing outside this
//! module names a Claude tool.

use codiva_protocol::text::one_line;
use serde_json::Value;

use crate::agent_event::{SubagentCall, TodoChange, todo_status};

/// The tool through which Claude Code asks the user questions.
pub const ASK_USER_QUESTION: &str = "AskUserQuestion";

/// The tools whose successful calls change the TODO list.
const TODO_TOOLS: &[&str] = &["TaskCreate", "TaskUpdate", "TodoWrite"];

/// Whether a call of `name` may change the TODO list (its result decides how).
pub fn keeps_todos(name: &str) -> bool {
    TODO_TOOLS.contains(&name)
}

/// The subagent a top-level call of `name` starts, if it is the subagent tool.
pub fn subagent_call(name: &str, input: &Value) -> Option<Box<SubagentCall>> {
    if !matches!(name, "Agent" | "Task") {
        return None;
    }
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Box::new(SubagentCall {
        description: text("description"),
        subagent_type: text("subagent_type"),
        background: input
            .get("run_in_background")
            .and_then(Value::as_bool)
            .unwrap_or(true),
    }))
}

/// What a successful call of `name` with `input` did to the TODO list; `structured` is the
/// result's `tool_use_result` (`TaskCreate` reports the new task's id there).
pub fn todo_change(name: &str, input: &Value, structured: Option<&Value>) -> Option<TodoChange> {
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    match name {
        "TaskCreate" => Some(TodoChange::Created {
            id: structured
                .and_then(|value| value.pointer("/task/id"))
                .and_then(json_id),
            content: text(input, "subject").unwrap_or_default(),
        }),
        "TaskUpdate" => {
            let id = input.get("taskId").and_then(json_id)?;
            let status = input.get("status").and_then(Value::as_str);
            if status == Some("deleted") {
                return Some(TodoChange::Deleted { id });
            }
            Some(TodoChange::Updated {
                id,
                status: status.map(todo_status),
                content: text(input, "subject"),
            })
        }
        "TodoWrite" => {
            let todos = input
                .get("todos")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            Some(TodoChange::Replaced {
                items: todos
                    .iter()
                    .map(|todo| {
                        let status = todo.get("status").and_then(Value::as_str).unwrap_or("");
                        (
                            text(todo, "content").unwrap_or_default(),
                            todo_status(status),
                        )
                    })
                    .collect(),
            })
        }
        _ => None,
    }
}

/// What the log keeps of a tool result: `text`, unless the result is Claude Code's own
/// bookkeeping rather than output (`structured` is its `tool_use_result`). A background
/// `Agent` launch answers with a note addressed to the model (its agent id, "never quote it to
/// the user", where its transcript is); that is kept as an empty result, which front ends show
/// as a neutral "started in the background".
pub fn result_text(text: String, structured: Option<&Value>) -> String {
    let launch = structured.is_some_and(|value| {
        value.get("status").and_then(Value::as_str) == Some("async_launched")
            || value.get("isAsync").and_then(Value::as_bool) == Some(true)
    });
    if launch { String::new() } else { text }
}

/// A one-line summary of a tool call for the log.
pub fn tool_summary(name: &str, input: &Value) -> String {
    let field = |key: &str| input.get(key).and_then(Value::as_str);
    let file = |key: &str| {
        field(key).map(|path| {
            path.rsplit('/')
                .next()
                .filter(|name| !name.is_empty())
                .unwrap_or(path)
                .to_owned()
        })
    };
    let summary = match name {
        "Bash" => field("command").map(str::to_owned),
        "Write" | "Edit" | "MultiEdit" | "Read" | "NotebookEdit" => {
            file("file_path").or_else(|| file("notebook_path"))
        }
        "Glob" | "Grep" => field("pattern").map(str::to_owned),
        "Agent" | "Task" => field("description").map(str::to_owned),
        "WebFetch" => field("url").map(str::to_owned),
        "WebSearch" => field("query").map(str::to_owned),
        "TaskCreate" => field("subject").map(str::to_owned),
        "TaskUpdate" => {
            let id = input.get("taskId").map(|id| match id {
                Value::String(id) => id.clone(),
                other => other.to_string(),
            });
            id.map(|id| match field("status") {
                Some(status) => format!("#{id} → {status}"),
                None => format!("#{id}"),
            })
        }
        _ => None,
    }
    .or_else(|| {
        input
            .as_object()
            .and_then(|map| map.values().find_map(Value::as_str))
            .map(str::to_owned)
    })
    .unwrap_or_default();
    one_line(&summary, 200)
}

fn json_id(value: &Value) -> Option<String> {
    match value {
        Value::String(id) => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_for_the_approval_policy() {
        use super::super::tool_view::tool_kind;
        use codiva_protocol::tool::ToolKind;
        for edit in ["Write", "Edit", "MultiEdit", "NotebookEdit"] {
            assert_eq!(tool_kind(edit), ToolKind::Edit, "{edit}");
        }
        assert_eq!(tool_kind(ASK_USER_QUESTION), ToolKind::Question);
        for other in ["Bash", "Read", "WebFetch", "Agent", "TodoWrite"] {
            assert_ne!(tool_kind(other), ToolKind::Edit, "{other}");
            assert_ne!(tool_kind(other), ToolKind::Question, "{other}");
        }
    }
}
