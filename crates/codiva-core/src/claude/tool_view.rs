//! Claude Code's tools in the neutral content model: the kind, title and content of a call
//! (a diff for `Write`/`Edit`/`MultiEdit`, the command for `Bash`, the places `Read`, `Glob`
//! and `Grep` look), the options of a permission request built from its
//! `permission_suggestions`, and its permission modes. Front ends draw from what this builds
//! and never read Claude's input keys themselves.

use serde_json::Value;

use codiva_protocol::tool::{
    PermissionMode, PermissionOption, PermissionOptionKind, PermissionScope, RuleBehavior,
    ScopePlace, ToolCallView, ToolContent, ToolKind, ToolLocation, ToolNote,
};

/// The prefix of the option id that picks the agent's `n`-th suggested scope.
const SUGGESTION_PREFIX: &str = "allow_always:";

/// The kind of a call of `name`.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::Edit,
        "Bash" | "BashOutput" | "KillShell" | "KillBash" => ToolKind::Execute,
        "Read" | "LS" => ToolKind::Read,
        "Glob" | "Grep" | "ToolSearch" => ToolKind::Search,
        "WebFetch" | "WebSearch" => ToolKind::Fetch,
        "Agent" | "Task" => ToolKind::Agent,
        "TodoWrite" | "TaskCreate" | "TaskUpdate" | "TaskList" | "TaskGet" => ToolKind::Todo,
        super::tools::ASK_USER_QUESTION => ToolKind::Question,
        _ => ToolKind::Other,
    }
}

/// A call of `name` with `input` as front ends draw it.
pub fn tool_view(name: &str, input: &Value) -> ToolCallView {
    let field = |key: &str| input.get(key).and_then(Value::as_str);
    let path = field("file_path")
        .or_else(|| field("notebook_path"))
        .unwrap_or_default()
        .to_owned();
    let mut content = Vec::new();
    let mut notes = Vec::new();
    match name {
        "Bash" => {
            if let Some(command) = field("command") {
                content.push(ToolContent::Terminal {
                    command: command.to_owned(),
                    output: None,
                });
            }
            if let Some(description) = field("description") {
                notes.push(ToolNote::Text {
                    text: description.to_owned(),
                });
            }
        }
        "Read" => content.push(ToolContent::Locations {
            locations: vec![ToolLocation {
                path,
                line: input.get("offset").and_then(Value::as_u64),
                limit: input.get("limit").and_then(Value::as_u64),
                ..ToolLocation::default()
            }],
        }),
        "Glob" | "Grep" => content.push(ToolContent::Locations {
            locations: vec![ToolLocation {
                path: field("pattern").unwrap_or_default().to_owned(),
                within: field("path").map(str::to_owned),
                glob: field("glob").map(str::to_owned),
                ..ToolLocation::default()
            }],
        }),
        "Edit" if field("old_string").is_some() || field("new_string").is_some() => {
            content.push(edit_diff(&path, input));
            if input.get("replace_all").and_then(Value::as_bool) == Some(true) {
                notes.push(ToolNote::EveryOccurrence);
            }
        }
        "MultiEdit" => {
            if let Some(edits) = input.get("edits").and_then(Value::as_array) {
                content.extend(edits.iter().map(|edit| edit_diff(&path, edit)));
                notes.push(ToolNote::Edits {
                    count: u64::try_from(edits.len()).unwrap_or(u64::MAX),
                });
            }
        }
        "Write" => {
            if let Some(new) = field("content") {
                let body = new.strip_suffix('\n').unwrap_or(new);
                let lines = if body.is_empty() {
                    0
                } else {
                    body.split('\n').count()
                };
                notes.push(ToolNote::Lines {
                    count: u64::try_from(lines).unwrap_or(u64::MAX),
                });
                content.push(ToolContent::Diff {
                    path,
                    old: None,
                    new: new.to_owned(),
                });
            }
        }
        _ => {}
    }
    ToolCallView {
        tool_kind: tool_kind(name),
        title: name.to_owned(),
        content,
        notes,
    }
}

fn edit_diff(path: &str, edit: &Value) -> ToolContent {
    let text = |key: &str| {
        edit.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    ToolContent::Diff {
        path: path.to_owned(),
        old: Some(text("old_string")),
        new: text("new_string"),
    }
}

/// The options of a permission request for `tool`: allow once, each of the agent's
/// `suggestions` (in order), every call of the tool, deny, deny and stop.
pub fn permission_options(tool: &str, suggestions: &[Value]) -> Vec<PermissionOption> {
    let always = suggestions
        .iter()
        .enumerate()
        .map(|(index, suggestion)| PermissionOption {
            id: format!("{SUGGESTION_PREFIX}{index}"),
            kind: PermissionOptionKind::AllowAlways,
            label: describe_suggestion(suggestion),
            scope: Some(suggestion_scope(suggestion)),
        })
        .collect();
    PermissionOption::standard(tool, always)
}

/// The suggestion an allow-always option of [`permission_options`] stands for; `None` for
/// the whole tool.
pub fn chosen_suggestion<'a>(
    option: &PermissionOption,
    suggestions: &'a [Value],
) -> Option<&'a Value> {
    let index: usize = option.id.strip_prefix(SUGGESTION_PREFIX)?.parse().ok()?;
    suggestions.get(index)
}

/// One of Claude Code's `permission_suggestions` as a neutral scope.
pub fn suggestion_scope(suggestion: &Value) -> PermissionScope {
    let str_field = |key: &str| suggestion.get(key).and_then(Value::as_str);
    let place = str_field("destination").map(scope_place);
    let scope = match str_field("type") {
        Some("setMode") => str_field("mode").map(|name| PermissionScope::Mode {
            mode: mode(name),
            name: name.to_owned(),
            place: place.clone(),
        }),
        Some("addRules") => {
            let rules: Vec<String> = suggestion
                .get("rules")
                .and_then(Value::as_array)
                .map(|rules| rules.iter().filter_map(describe_rule).collect())
                .unwrap_or_default();
            let behavior = match str_field("behavior") {
                Some("allow") | None => Some(RuleBehavior::Allow),
                Some("deny") => Some(RuleBehavior::Deny),
                Some("ask") => Some(RuleBehavior::Ask),
                Some(_) => None,
            };
            behavior
                .filter(|_| !rules.is_empty())
                .map(|behavior| PermissionScope::Rules {
                    behavior,
                    rules,
                    place: place.clone(),
                })
        }
        Some("addDirectories") => {
            let directories: Vec<String> = suggestion
                .get("directories")
                .and_then(Value::as_array)
                .map(|dirs| {
                    dirs.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            (!directories.is_empty()).then(|| PermissionScope::Directories {
                directories,
                place: place.clone(),
            })
        }
        _ => None,
    };
    scope.unwrap_or(PermissionScope::Unknown)
}

/// A suggestion in English words; an unknown shape as its JSON.
pub fn describe_suggestion(suggestion: &Value) -> String {
    suggestion_scope(suggestion)
        .describe(|phrase| phrase.english())
        .unwrap_or_else(|| suggestion.to_string())
}

fn describe_rule(rule: &Value) -> Option<String> {
    let tool = rule.get("toolName").and_then(Value::as_str)?;
    Some(match rule.get("ruleContent").and_then(Value::as_str) {
        Some(content) => format!("{tool}({content})"),
        None => tool.to_owned(),
    })
}

fn scope_place(destination: &str) -> ScopePlace {
    match destination {
        "session" => ScopePlace::Session,
        "localSettings" => ScopePlace::Local,
        "projectSettings" => ScopePlace::Project,
        "userSettings" => ScopePlace::User,
        "cliArg" => ScopePlace::CommandLine,
        other => ScopePlace::Other(other.to_owned()),
    }
}

/// Claude Code's permission mode `name` in neutral terms (Claude Code names its modes with the
/// neutral names).
pub fn mode(name: &str) -> PermissionMode {
    PermissionMode::from_name(name).unwrap_or(PermissionMode::Other)
}

/// Claude Code's name of `mode`: its neutral name; `None` for `other`.
pub fn mode_name(mode: PermissionMode) -> Option<&'static str> {
    (mode != PermissionMode::Other).then(|| mode.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn suggestions_in_words() {
        assert_eq!(
            describe_suggestion(
                &json!({"type":"setMode","mode":"acceptEdits","destination":"session"})
            ),
            "Allow all edits in this session (acceptEdits)"
        );
        assert_eq!(
            describe_suggestion(
                &json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch bash1.txt && echo created-1"}],"behavior":"allow","destination":"localSettings"})
            ),
            "Always allow Bash(touch bash1.txt && echo created-1) (local settings)"
        );
        assert_eq!(
            describe_suggestion(
                &json!({"type":"addDirectories","directories":["/repo"],"destination":"session"})
            ),
            "Allow access to /repo in this session"
        );
        assert_eq!(
            describe_suggestion(&json!({"type":"removeRules","x":1})),
            r#"{"type":"removeRules","x":1}"#
        );
    }

    #[test]
    fn options_map_back_to_their_suggestion() {
        let suggestions = vec![
            json!({"type":"setMode","mode":"acceptEdits"}),
            json!({"x":1}),
        ];
        let options = permission_options("Bash", &suggestions);
        let ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "allow_once",
                "allow_always:0",
                "allow_always:1",
                "allow_always",
                "deny",
                "deny_and_stop"
            ]
        );
        assert_eq!(
            chosen_suggestion(&options[2], &suggestions),
            Some(&suggestions[1])
        );
        assert_eq!(chosen_suggestion(&options[3], &suggestions), None);
    }

    #[test]
    fn modes_map_both_ways() {
        for mode in PermissionMode::ALL {
            assert_eq!(super::mode(mode_name(mode).unwrap_or_default()), mode);
        }
        assert_eq!(mode("somethingNew"), PermissionMode::Other);
    }

    #[test]
    fn edits_carry_their_diff() {
        let view = tool_view(
            "MultiEdit",
            &json!({"file_path":"/a/b.rs","edits":[{"old_string":"x","new_string":"y"}]}),
        );
        assert_eq!(view.tool_kind, ToolKind::Edit);
        assert_eq!(
            view.content,
            vec![ToolContent::Diff {
                path: "/a/b.rs".into(),
                old: Some("x".into()),
                new: "y".into()
            }]
        );
        assert_eq!(view.notes, vec![ToolNote::Edits { count: 1 }]);
    }
}
