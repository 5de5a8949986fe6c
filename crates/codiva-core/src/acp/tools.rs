//! ACP tool calls as neutral tool calls (ACP's kinds and content are the model of codiva's),
//! its plan entries as TODO items, and its permission options as neutral options.

use codiva_protocol::tool::{
    PermissionOption, PermissionOptionKind, ToolCallView, ToolContent, ToolKind, ToolLocation,
};
use serde_json::{Map, Value};

use crate::json::{array_items, str_field};

/// ACP's `ToolKind`s: `delete` and `move` change files, `switch_mode` and unknown ones are
/// other.
pub fn kind(kind: &str) -> ToolKind {
    match kind {
        "read" => ToolKind::Read,
        "edit" | "delete" | "move" => ToolKind::Edit,
        "search" => ToolKind::Search,
        "execute" => ToolKind::Execute,
        "think" => ToolKind::Think,
        "fetch" => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

/// A tool call as the agent has described it so far: the fields of every `tool_call` and
/// `tool_call_update` for one id, merged (a later field replaces an earlier one).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Call {
    pub fields: Map<String, Value>,
    /// The agent's own name of the tool, once an update said it (`_meta`; kept, as later
    /// updates replace `_meta` whole).
    tool_name: Option<String>,
}

/// Where agents put their own tool name: Grok `_meta["x.ai/tool"].name`, claude-code-acp
/// `_meta.claudeCode.toolName`.
const TOOL_NAME_AT: [&str; 2] = ["/_meta/x.ai~1tool/name", "/_meta/claudeCode/toolName"];

impl Call {
    pub fn merge(&mut self, update: &Value) {
        if let Some(name) = TOOL_NAME_AT
            .iter()
            .find_map(|pointer| update.pointer(pointer).and_then(Value::as_str))
        {
            self.tool_name = Some(name.to_owned());
        }
        if let Some(object) = update.as_object() {
            for (key, value) in object {
                if key != "sessionUpdate" && !value.is_null() {
                    self.fields.insert(key.clone(), value.clone());
                }
            }
        }
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The name policies key the call by: the agent's own tool name where it says one, else
    /// the call's ACP kind (`execute`, `edit`, …), else its title.
    pub fn name(&self) -> String {
        self.tool_name
            .clone()
            .or_else(|| self.get("kind").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| self.title())
    }

    pub fn status(&self) -> &str {
        self.get("status").and_then(Value::as_str).unwrap_or("")
    }

    pub fn title(&self) -> String {
        self.get("title")
            .and_then(Value::as_str)
            .unwrap_or("Tool")
            .to_owned()
    }

    /// The raw input, kept for display.
    pub fn input(&self) -> Value {
        self.get("rawInput").cloned().unwrap_or(Value::Null)
    }

    /// The command an `execute` call runs: its input's `command` (a string, or argv joined),
    /// else its title.
    fn command(&self) -> String {
        let input = self.input();
        match input.get("command") {
            Some(Value::String(command)) => command.clone(),
            Some(Value::Array(argv)) => {
                let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                // `["/bin/bash", "-lc", "cmd"]`: the command is the script.
                match words.as_slice() {
                    [_, flag, script] if flag.starts_with('-') && flag.contains('c') => {
                        (*script).to_owned()
                    }
                    _ => words.join(" "),
                }
            }
            _ => self.title().trim_matches('`').to_owned(),
        }
    }

    /// What the call printed or returned, as text (for its result and a command's output).
    pub fn output(&self) -> String {
        if let Some(raw) = self.get("rawOutput") {
            for key in ["formatted_output", "aggregated_output", "stdout", "output"] {
                if let Some(text) = raw.get(key).and_then(Value::as_str) {
                    return text.to_owned();
                }
            }
            if let Some(text) = raw.as_str() {
                return text.to_owned();
            }
            let texts = content_texts(raw);
            if !texts.is_empty() {
                return texts;
            }
        }
        array_items(self.get("content"))
            .filter_map(|item| item.get("content"))
            .map(content_texts)
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn view(&self) -> ToolCallView {
        let tool_kind = kind(self.get("kind").and_then(Value::as_str).unwrap_or(""));
        let mut content = Vec::new();
        if tool_kind == ToolKind::Execute {
            let finished = matches!(self.status(), "completed" | "failed");
            content.push(ToolContent::Terminal {
                command: self.command(),
                output: finished.then(|| self.output()),
            });
        }
        for item in array_items(self.get("content")) {
            match str_field(item, "type") {
                Some("diff") => content.push(ToolContent::Diff {
                    path: str_field(item, "path").unwrap_or_default().to_owned(),
                    old: str_field(item, "oldText").map(str::to_owned),
                    new: str_field(item, "newText").unwrap_or_default().to_owned(),
                }),
                Some("content") => {
                    let text = item.get("content").map(content_texts).unwrap_or_default();
                    if !text.is_empty() && tool_kind != ToolKind::Execute {
                        content.push(ToolContent::Text { text });
                    }
                }
                _ => {}
            }
        }
        let locations: Vec<ToolLocation> = array_items(self.get("locations"))
            .filter_map(|place| {
                Some(ToolLocation {
                    path: str_field(place, "path")?.to_owned(),
                    line: place.get("line").and_then(Value::as_u64),
                    ..ToolLocation::default()
                })
            })
            .collect();
        let has_diff = content
            .iter()
            .any(|c| matches!(c, ToolContent::Diff { .. }));
        if !locations.is_empty() && !has_diff {
            content.push(ToolContent::Locations { locations });
        }
        ToolCallView {
            tool_kind,
            title: self.title(),
            content,
            notes: Vec::new(),
        }
    }
}

/// The text of an ACP content block (or a list of them): text blocks joined; other blocks
/// (images, resources) are named by their type.
pub fn content_texts(content: &Value) -> String {
    match content {
        Value::Array(items) => items
            .iter()
            .map(content_texts)
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(_) => match str_field(content, "type") {
            Some("text") => str_field(content, "text").unwrap_or_default().to_owned(),
            Some(other) => format!("[{other}]"),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// The id of the option codiva adds to every request: the agent's reject, then
/// `session/cancel`.
pub const DENY_AND_STOP: &str = PermissionOption::DENY_AND_STOP;

/// The neutral options of a `session/request_permission`: each of the agent's options by its
/// own id (`allow_once`, `allow_always`, `reject_once` and `reject_always` as allow once,
/// allow always, deny), then "deny and stop the turn" (its reject, then a cancel) when it
/// offers a reject. Options of kinds this version does not know are left out.
pub fn permission_options(options: &Value) -> Vec<PermissionOption> {
    let mut neutral: Vec<PermissionOption> = options
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|option| {
            let kind = match str_field(option, "kind")? {
                "allow_once" => PermissionOptionKind::AllowOnce,
                "allow_always" => PermissionOptionKind::AllowAlways,
                "reject_once" | "reject_always" => PermissionOptionKind::Deny,
                _ => return None,
            };
            let id = str_field(option, "optionId")?.to_owned();
            Some(PermissionOption {
                label: str_field(option, "name").unwrap_or(&id).to_owned(),
                id,
                kind,
                scope: None,
            })
        })
        .collect();
    // Allow once first, deny last, as front ends list them.
    neutral.sort_by_key(|option| match option.kind {
        PermissionOptionKind::AllowOnce => 0,
        PermissionOptionKind::AllowAlways => 1,
        PermissionOptionKind::Deny => 2,
        PermissionOptionKind::DenyAndStop => 3,
    });
    if neutral.iter().any(|o| o.kind == PermissionOptionKind::Deny)
        && !neutral.iter().any(|o| o.id == DENY_AND_STOP)
    {
        neutral.push(PermissionOption {
            id: DENY_AND_STOP.to_owned(),
            kind: PermissionOptionKind::DenyAndStop,
            label: "Deny and stop the turn".to_owned(),
            scope: None,
        });
    }
    neutral
}

/// The agent's option id that answers the neutral `option`: its own id, or for "deny and
/// stop" the agent's first reject.
pub fn agent_option(option: &PermissionOption, offered: &[PermissionOption]) -> Option<String> {
    if option.kind == PermissionOptionKind::DenyAndStop && option.id == DENY_AND_STOP {
        return offered
            .iter()
            .find(|o| o.kind == PermissionOptionKind::Deny)
            .map(|o| o.id.clone());
    }
    Some(option.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_are_the_agents_own_by_kind_plus_deny_and_stop() {
        // claude-code-acp's order: always, allow, reject.
        let options = json!([
            {"kind":"allow_always","name":"Always Allow","optionId":"allow_always"},
            {"kind":"allow_once","name":"Allow","optionId":"allow"},
            {"kind":"reject_once","name":"Reject","optionId":"reject"},
            {"kind":"ask_later","name":"?","optionId":"later"}
        ]);
        let neutral = permission_options(&options);
        let ids: Vec<&str> = neutral.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["allow", "allow_always", "reject", DENY_AND_STOP]);
        assert_eq!(
            agent_option(&neutral[3], &neutral).as_deref(),
            Some("reject")
        );
        assert_eq!(
            agent_option(&neutral[0], &neutral).as_deref(),
            Some("allow")
        );
        assert!(
            permission_options(&json!([{"kind":"allow_once","optionId":"ok"}]))
                .iter()
                .all(|o| o.kind == PermissionOptionKind::AllowOnce)
        );
    }

    #[test]
    fn updates_merge_into_one_call() {
        let mut call = Call::default();
        call.merge(&json!({"toolCallId":"c","title":"Terminal","kind":"execute","rawInput":{}}));
        call.merge(
            &json!({"title":"`touch a`","rawInput":{"command":"touch a"},"status":"pending"}),
        );
        assert!(matches!(
            &call.view().content[..],
            [ToolContent::Terminal { command, output: None }] if command == "touch a"
        ));
        call.merge(&json!({"status":"completed","rawOutput":{"formatted_output":"made\n"}}));
        assert!(matches!(
            &call.view().content[..],
            [ToolContent::Terminal { output: Some(out), .. }] if out == "made\n"
        ));
        let mut argv = Call::default();
        argv.merge(&json!({"kind":"execute","rawInput":{"command":["/bin/bash","-lc","echo hi"]}}));
        assert!(matches!(
            &argv.view().content[..],
            [ToolContent::Terminal { command, .. }] if command == "echo hi"
        ));
    }
}
