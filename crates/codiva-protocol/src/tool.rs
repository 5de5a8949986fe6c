//! The neutral content model of a tool call and of a permission request: what kind of thing a
//! call does, its title, typed content a front end can draw (a diff, a command and its output,
//! text, places in files), the answers a permission request offers and the permission modes.
//! Each provider fills these from its own tools (Claude Code: `codiva-core`'s `claude/tools.rs`)
//! and maps the chosen option and mode back to its wire; front ends draw from these alone, with
//! the agent's raw input kept for display. Modelled on the Agent Client Protocol's tool calls.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a tool call does, for icons, grouping and policies (`edit` is what "approve edits"
/// means). Unknown kinds read as `other`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads files or data.
    Read,
    /// Changes files.
    Edit,
    /// Runs a command.
    Execute,
    /// Searches files or data.
    Search,
    /// Reads from the network.
    Fetch,
    /// Thinks out loud.
    Think,
    /// Runs a subagent.
    Agent,
    /// Keeps the TODO list.
    Todo,
    /// Asks the user.
    Question,
    #[default]
    #[serde(other)]
    Other,
}

/// Something a tool call shows: what it changes, runs, says or touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    /// A change to one file: `old` is absent for a file written whole.
    Diff {
        path: String,
        old: Option<String>,
        new: String,
    },
    /// A command and, once it ran, its output.
    Terminal {
        command: String,
        output: Option<String>,
    },
    Text {
        text: String,
    },
    /// Places the call reads or searches.
    Locations {
        locations: Vec<ToolLocation>,
    },
    /// A kind of content this version does not know.
    #[serde(other)]
    Unknown,
}

/// A file (or a pattern) and, where known, the lines of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolLocation {
    /// A path, or for a search the pattern looked for.
    pub path: String,
    /// The first line, 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// How many lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Where a search looks (a directory) and which files (a glob).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
}

/// A tool call as a front end draws it: kind, title and content. The provider builds it from
/// the tool's name and input. Absent fields (an older log) read as an `other` call with no
/// content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ToolCallView {
    pub tool_kind: ToolKind,
    /// The tool's name as shown (`Bash`, `Edit`, an MCP tool's name).
    pub title: String,
    pub content: Vec<ToolContent>,
    /// Facts about the call worth a word next to its content, as data: front ends word them in
    /// their language.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ToolNote>,
}

/// A fact about a tool call (see [`ToolCallView::notes`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolNote {
    /// The agent's own words for the call (a command's description).
    Text { text: String },
    /// A file written whole: how many lines it has.
    Lines { count: u64 },
    /// Several edits of one file in one call.
    Edits { count: u64 },
    /// An edit that replaces every occurrence, not just one.
    EveryOccurrence,
    #[serde(other)]
    Unknown,
}

/// One answer a permission request offers; the answer names its `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionOption {
    pub id: String,
    pub kind: PermissionOptionKind,
    /// The answer in English words (for allow-always: the scope it allows).
    pub label: String,
    /// For allow-always: what is allowed from now on, for front ends that word it themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<PermissionScope>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PermissionOptionKind {
    AllowOnce,
    AllowAlways,
    Deny,
    /// Deny and end the turn.
    DenyAndStop,
}

/// What an allow-always option lets through from now on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PermissionScope {
    /// Every call of this tool.
    Tool { tool: String },
    /// Switch to a permission mode (`name`: the agent's own name of it).
    Mode {
        mode: PermissionMode,
        name: String,
        place: Option<ScopePlace>,
    },
    /// Rules such as `Bash(npm test)`, allowing, denying or asking.
    Rules {
        behavior: RuleBehavior,
        rules: Vec<String>,
        place: Option<ScopePlace>,
    },
    /// Access to directories.
    Directories {
        directories: Vec<String>,
        place: Option<ScopePlace>,
    },
    /// A scope this version cannot word: its label says it.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleBehavior {
    Allow,
    Deny,
    Ask,
}

/// Where an allowed scope is remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScopePlace {
    /// This session only.
    Session,
    /// The user's local settings of this project.
    Local,
    /// The project's shared settings.
    Project,
    /// The user's settings for every project.
    User,
    /// The agent's command line.
    CommandLine,
    /// A place this version has no word for (the agent's name of it).
    Other(String),
}

/// The permission modes, named neutrally; each provider maps them to its own (Claude Code's
/// are the same words) and refuses the ones it does not have. A mode the agent reports that has
/// no neutral name, or a name this version does not know, is `other`; no agent is ever asked
/// for `other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Ask for every call the agent's rules do not allow.
    Default,
    /// Allow edits without asking.
    AcceptEdits,
    /// Plan only: change nothing.
    Plan,
    /// The agent decides what is safe to run.
    Auto,
    /// Never ask: what is not allowed is denied.
    DontAsk,
    /// Allow everything.
    BypassPermissions,
    /// A name this version does not know (read leniently, from a newer peer).
    #[serde(other)]
    Other,
}

impl PermissionMode {
    /// Every mode with a neutral name, in the order a menu lists them.
    pub const ALL: [PermissionMode; 6] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::Auto,
        PermissionMode::DontAsk,
        PermissionMode::BypassPermissions,
    ];

    /// The names of [`PermissionMode::ALL`], in order.
    pub const NAMES: [&'static str; 6] = {
        let mut names = [""; 6];
        let mut index = 0;
        while index < names.len() {
            names[index] = PermissionMode::ALL[index].name();
            index += 1;
        }
        names
    };

    /// The mode's name on the wire and in the config file (`acceptEdits`).
    pub const fn name(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::Auto => "auto",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Other => "other",
        }
    }

    /// The mode named `name` (one of [`PermissionMode::ALL`]'s names).
    pub fn from_name(name: &str) -> Option<PermissionMode> {
        PermissionMode::ALL
            .into_iter()
            .find(|mode| mode.name() == name)
    }
}

impl std::fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PermissionOption {
    pub const ALLOW_ONCE: &'static str = "allow_once";
    /// The allow-always option for every call of the tool.
    pub const ALLOW_ALWAYS: &'static str = "allow_always";
    pub const DENY: &'static str = "deny";
    pub const DENY_AND_STOP: &'static str = "deny_and_stop";

    /// The options most agents offer: allow once, `always` (the agent's own allow-always
    /// scopes, in order), allow every call of `tool`, deny, deny and stop.
    pub fn standard(tool: &str, always: Vec<PermissionOption>) -> Vec<PermissionOption> {
        let option = |id: &str, kind, label: String, scope| PermissionOption {
            id: id.to_owned(),
            kind,
            label,
            scope,
        };
        let mut options = vec![option(
            Self::ALLOW_ONCE,
            PermissionOptionKind::AllowOnce,
            "Allow once".to_owned(),
            None,
        )];
        options.extend(always);
        options.push(option(
            Self::ALLOW_ALWAYS,
            PermissionOptionKind::AllowAlways,
            format!("Always allow every {tool} call in this session"),
            Some(PermissionScope::Tool {
                tool: tool.to_owned(),
            }),
        ));
        options.push(option(
            Self::DENY,
            PermissionOptionKind::Deny,
            "Deny".to_owned(),
            None,
        ));
        options.push(option(
            Self::DENY_AND_STOP,
            PermissionOptionKind::DenyAndStop,
            "Deny and stop the turn".to_owned(),
            None,
        ));
        options
    }
}

#[cfg(test)]
mod tests {
    use super::PermissionMode;

    /// Each mode's name is its wire name, and names lead back to their modes.
    #[test]
    fn mode_names_are_the_wire_names() {
        for (mode, name) in PermissionMode::ALL.into_iter().zip(PermissionMode::NAMES) {
            assert_eq!(serde_json::to_value(mode).unwrap(), name);
            assert_eq!(PermissionMode::from_name(name), Some(mode));
        }
        assert_eq!(PermissionMode::from_name("other"), None);
    }
}
