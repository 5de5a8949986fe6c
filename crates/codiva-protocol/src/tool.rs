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

impl PermissionScope {
    /// The scope in words, each part worded by `phrase` in one language: what it allows (for a
    /// mode, followed by the agent's name of it), then where it is remembered. `None` for a scope
    /// this version cannot word (the option's label says it).
    pub fn describe(&self, phrase: impl Fn(ScopePhrase<'_>) -> String) -> Option<String> {
        let place = |place: &Option<ScopePlace>| {
            let phrase = &phrase;
            place.as_ref().map_or(String::new(), |place| {
                phrase(match place {
                    ScopePlace::Session => ScopePhrase::InSession,
                    ScopePlace::Local => ScopePhrase::InLocalSettings,
                    ScopePlace::Project => ScopePhrase::InProjectSettings,
                    ScopePlace::User => ScopePhrase::InUserSettings,
                    ScopePlace::CommandLine => ScopePhrase::InCommandLine,
                    ScopePlace::Other(other) => ScopePhrase::InOther(other),
                })
            })
        };
        Some(match self {
            PermissionScope::Tool { tool } => phrase(ScopePhrase::EveryCall(tool)),
            PermissionScope::Mode {
                mode,
                name,
                place: at,
            } => {
                let what = phrase(match mode {
                    PermissionMode::AcceptEdits => ScopePhrase::AllEdits,
                    PermissionMode::BypassPermissions => ScopePhrase::EveryTool,
                    PermissionMode::Plan => ScopePhrase::PlanMode,
                    PermissionMode::Default => ScopePhrase::AskEveryTool,
                    _ => ScopePhrase::SwitchMode(name),
                });
                format!("{what}{} ({name})", place(at))
            }
            PermissionScope::Rules {
                behavior,
                rules,
                place: at,
            } => {
                let verb = phrase(match behavior {
                    RuleBehavior::Allow => ScopePhrase::AlwaysAllow,
                    RuleBehavior::Deny => ScopePhrase::AlwaysDeny,
                    RuleBehavior::Ask => ScopePhrase::AlwaysAsk,
                });
                format!("{verb} {}{}", rules.join(", "), place(at))
            }
            PermissionScope::Directories {
                directories,
                place: at,
            } => {
                let access = phrase(ScopePhrase::Access(&directories.join(", ")));
                format!("{access}{}", place(at))
            }
            PermissionScope::Unknown => return None,
        })
    }
}

/// One part of a scope's wording ([`PermissionScope::describe`]), for a front end to word in
/// its language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopePhrase<'a> {
    /// Every call of this tool, in this session.
    EveryCall(&'a str),
    AllEdits,
    EveryTool,
    PlanMode,
    AskEveryTool,
    /// Switch to the agent's mode of this name.
    SwitchMode(&'a str),
    /// The verbs before a list of rules.
    AlwaysAllow,
    AlwaysDeny,
    AlwaysAsk,
    /// Access to these directories (joined with `, `).
    Access(&'a str),
    /// Where the scope is remembered: appended as it is, so it carries its own leading space.
    InSession,
    InLocalSettings,
    InProjectSettings,
    InUserSettings,
    InCommandLine,
    /// A place this version has no word for, by the agent's name of it.
    InOther(&'a str),
}

impl ScopePhrase<'_> {
    /// The phrase in English: the words of permission options' labels.
    pub fn english(self) -> String {
        match self {
            ScopePhrase::EveryCall(tool) => {
                format!("Always allow every {tool} call in this session")
            }
            ScopePhrase::AllEdits => "Allow all edits".to_owned(),
            ScopePhrase::EveryTool => "Allow every tool".to_owned(),
            ScopePhrase::PlanMode => "Switch to plan mode".to_owned(),
            ScopePhrase::AskEveryTool => "Ask for every tool".to_owned(),
            ScopePhrase::SwitchMode(name) => format!("Switch to {name} mode"),
            ScopePhrase::AlwaysAllow => "Always allow".to_owned(),
            ScopePhrase::AlwaysDeny => "Always deny".to_owned(),
            ScopePhrase::AlwaysAsk => "Always ask for".to_owned(),
            ScopePhrase::Access(directories) => format!("Allow access to {directories}"),
            ScopePhrase::InSession => " in this session".to_owned(),
            ScopePhrase::InLocalSettings => " (local settings)".to_owned(),
            ScopePhrase::InProjectSettings => " (project settings)".to_owned(),
            ScopePhrase::InUserSettings => " (user settings)".to_owned(),
            ScopePhrase::InCommandLine => " (command line)".to_owned(),
            ScopePhrase::InOther(other) => format!(" ({other})"),
        }
    }
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
        let every_call = PermissionScope::Tool {
            tool: tool.to_owned(),
        };
        options.push(option(
            Self::ALLOW_ALWAYS,
            PermissionOptionKind::AllowAlways,
            ScopePhrase::EveryCall(tool).english(),
            Some(every_call),
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
    use super::{PermissionMode, PermissionScope, RuleBehavior, ScopePlace};

    /// Scopes in English: what they allow, where they are remembered, a mode by its name.
    #[test]
    fn scopes_in_english() {
        let english = |scope: PermissionScope| scope.describe(|phrase| phrase.english());
        assert_eq!(
            english(PermissionScope::Tool {
                tool: "Bash".into()
            })
            .as_deref(),
            Some("Always allow every Bash call in this session")
        );
        assert_eq!(
            english(PermissionScope::Mode {
                mode: PermissionMode::AcceptEdits,
                name: "acceptEdits".into(),
                place: Some(ScopePlace::Session),
            })
            .as_deref(),
            Some("Allow all edits in this session (acceptEdits)")
        );
        assert_eq!(
            english(PermissionScope::Mode {
                mode: PermissionMode::Other,
                name: "yolo".into(),
                place: None,
            })
            .as_deref(),
            Some("Switch to yolo mode (yolo)")
        );
        assert_eq!(
            english(PermissionScope::Rules {
                behavior: RuleBehavior::Ask,
                rules: vec!["Bash(npm test)".into(), "Read".into()],
                place: Some(ScopePlace::Other("policy".into())),
            })
            .as_deref(),
            Some("Always ask for Bash(npm test), Read (policy)")
        );
        assert_eq!(
            english(PermissionScope::Directories {
                directories: vec!["/a".into(), "/b".into()],
                place: Some(ScopePlace::User),
            })
            .as_deref(),
            Some("Allow access to /a, /b (user settings)")
        );
        assert_eq!(english(PermissionScope::Unknown), None);
    }

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
