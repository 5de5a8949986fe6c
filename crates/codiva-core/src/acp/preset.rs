//! Which ACP agent to run: a command line (name, program, arguments, environment) and the few
//! facts about the agent that the protocol does not carry — how it takes a system prompt and
//! which of its modes stand for which neutral permission mode. Presets for the agents codiva
//! knows; any other agent is configured the same way ([`AcpAgent::custom`]).

use std::path::PathBuf;

use codiva_protocol::tool::PermissionMode;

use super::credentials::Credentials;

/// How the composed system prompt reaches the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemPromptVia {
    /// `session/new` `_meta.rules` (Grok: appended to its own system prompt).
    MetaRules,
    /// `session/new` `_meta.systemPrompt.append` (claude-code-acp: appended to Claude Code's).
    MetaSystemPromptAppend,
    /// The agent takes none: it opens the first prompt of a new conversation, marked as
    /// standing instructions (a loaded conversation saw it already).
    FirstPrompt,
}

/// How an agent logs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginVia {
    /// ACP's `authenticate` with a method of its `authMethods`.
    Authenticate,
    /// Its program with these arguments, as a login command (Grok: `authenticate` waits for
    /// a browser with no address to show, seed 002).
    Command(Vec<String>),
}

/// A mode the agent is started in by its command line (it has no `session/set_mode` id for it).
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchMode {
    pub mode: PermissionMode,
    pub args: Vec<String>,
}

/// One ACP agent as codiva starts it.
#[derive(Debug, Clone, PartialEq)]
pub struct AcpAgent {
    /// A short stable name (`grok`), kept with each session.
    pub name: &'static str,
    pub display_name: &'static str,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Variables set for the agent on top of the session's environment.
    pub env: Vec<(String, String)>,
    pub system_prompt: SystemPromptVia,
    /// The agent's mode for each neutral permission mode it has (its `session/set_mode` ids);
    /// a mode it reports that is not listed reads as `other`.
    pub modes: Vec<(PermissionMode, String)>,
    /// The mode every process of the agent starts in when it has no `session/set_mode` id for
    /// it, with the arguments that put it there (codex-acp: confirm). A session in another
    /// mode starts there too and is switched once it exists; until the agent reports a mode,
    /// it is in this one.
    pub launch_mode: Option<LaunchMode>,
    /// The agent answers `session/load` before its replay of the conversation is over (ACP
    /// has the replay first; Gemini CLI 0.61.0 sends all but its first message after the
    /// answer): the first message waits for the answer of a request sent after the load's
    /// answer (the current mode set again), which comes after the replay.
    pub replay_after_load_answer: bool,
    /// Where it keeps its login.
    pub credentials: Credentials,
    pub login: LoginVia,
    /// Variables an auth method reads that the agent does not declare (its `authMethods`
    /// entry has no `vars`).
    pub auth_env: Vec<(String, Vec<String>)>,
}

fn modes(pairs: &[(PermissionMode, &str)]) -> Vec<(PermissionMode, String)> {
    pairs
        .iter()
        .map(|(mode, id)| (*mode, (*id).to_owned()))
        .collect()
}

impl AcpAgent {
    /// Any ACP agent: `name` and `display_name` live as long as the program (a configured
    /// agent is created once).
    pub fn custom(name: &str, display_name: &str, program: PathBuf, args: Vec<String>) -> Self {
        AcpAgent {
            name: Box::leak(name.to_owned().into_boxed_str()),
            display_name: Box::leak(display_name.to_owned().into_boxed_str()),
            program,
            args,
            env: Vec::new(),
            system_prompt: SystemPromptVia::FirstPrompt,
            modes: Vec::new(),
            launch_mode: None,
            replay_after_load_answer: false,
            credentials: Credentials::Unknown,
            login: LoginVia::Authenticate,
            auth_env: Vec::new(),
        }
    }

    /// Grok Build: `grok agent --no-leader stdio` (flags go between `agent` and `stdio`;
    /// `--no-leader` keeps each worktree's session out of the shared leader process).
    pub fn grok(program: PathBuf) -> Self {
        AcpAgent {
            name: "grok",
            display_name: "Grok",
            program,
            args: ["agent", "--no-leader", "stdio"]
                .map(str::to_owned)
                .to_vec(),
            env: Vec::new(),
            system_prompt: SystemPromptVia::MetaRules,
            modes: Vec::new(),
            launch_mode: None,
            replay_after_load_answer: false,
            credentials: Credentials::Grok,
            login: LoginVia::Command(vec!["login".to_owned(), "--device-auth".to_owned()]),
            auth_env: Vec::new(),
        }
    }

    /// Gemini CLI: `gemini --acp` (0.61.0 calls `--experimental-acp` deprecated); modes
    /// default, autoEdit, yolo. Its `gemini-api-key` method reads `GEMINI_API_KEY`.
    pub fn gemini(program: PathBuf) -> Self {
        AcpAgent {
            name: "gemini",
            display_name: "Gemini CLI",
            program,
            args: vec!["--acp".to_owned()],
            env: Vec::new(),
            system_prompt: SystemPromptVia::FirstPrompt,
            modes: modes(&[
                (PermissionMode::Default, "default"),
                (PermissionMode::AcceptEdits, "autoEdit"),
                (PermissionMode::BypassPermissions, "yolo"),
                (PermissionMode::Plan, "plan"),
            ]),
            launch_mode: None,
            replay_after_load_answer: true,
            credentials: Credentials::Gemini,
            login: LoginVia::Authenticate,
            auth_env: vec![(
                "gemini-api-key".to_owned(),
                vec!["GEMINI_API_KEY".to_owned()],
            )],
        }
    }

    /// codex-acp (Zed's ACP adapter of Codex): its approval presets `read-only` (changes
    /// nothing), `auto` (the model decides when to ask) and `full-access`. It has no mode for
    /// "ask before every command and edit": that is codex's `approval_policy = "untrusted"` in
    /// a writable workspace sandbox, given as `-c` overrides, which win over the user's
    /// `config.toml` (without them 0.16.0 starts in `read-only` when the config names no
    /// policy: every command fails unseen, measured).
    pub fn codex_acp(program: PathBuf) -> Self {
        AcpAgent {
            name: "codex-acp",
            display_name: "Codex (ACP)",
            program,
            args: Vec::new(),
            env: Vec::new(),
            system_prompt: SystemPromptVia::FirstPrompt,
            modes: modes(&[
                (PermissionMode::Plan, "read-only"),
                (PermissionMode::Auto, "auto"),
                (PermissionMode::BypassPermissions, "full-access"),
            ]),
            launch_mode: Some(LaunchMode {
                mode: PermissionMode::Default,
                args: [
                    "-c",
                    "approval_policy=\"untrusted\"",
                    "-c",
                    "sandbox_mode=\"workspace-write\"",
                ]
                .map(str::to_owned)
                .to_vec(),
            }),
            replay_after_load_answer: false,
            credentials: Credentials::Codex,
            login: LoginVia::Authenticate,
            auth_env: Vec::new(),
        }
    }

    /// claude-code-acp (Zed's ACP adapter of Claude Code): Claude Code's own mode names.
    pub fn claude_code_acp(program: PathBuf) -> Self {
        AcpAgent {
            name: "claude-code-acp",
            display_name: "Claude Code (ACP)",
            program,
            args: Vec::new(),
            env: Vec::new(),
            system_prompt: SystemPromptVia::MetaSystemPromptAppend,
            modes: modes(&[
                (PermissionMode::Default, "default"),
                (PermissionMode::AcceptEdits, "acceptEdits"),
                (PermissionMode::Plan, "plan"),
                (PermissionMode::DontAsk, "dontAsk"),
                (PermissionMode::BypassPermissions, "bypassPermissions"),
            ]),
            launch_mode: None,
            replay_after_load_answer: false,
            credentials: Credentials::Claude,
            login: LoginVia::Authenticate,
            auth_env: Vec::new(),
        }
    }

    /// The preset named `name` (`grok`, `gemini`, `codex-acp`, `claude-code-acp`), run from
    /// `program`.
    pub fn preset(name: &str, program: PathBuf) -> Option<Self> {
        match name {
            "grok" => Some(Self::grok(program)),
            "gemini" => Some(Self::gemini(program)),
            "codex-acp" => Some(Self::codex_acp(program)),
            "claude-code-acp" => Some(Self::claude_code_acp(program)),
            _ => None,
        }
    }

    /// The names of the presets, in the order codiva lists them.
    pub const PRESETS: [&'static str; 4] = ["grok", "gemini", "codex-acp", "claude-code-acp"];

    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The arguments of one process: the program's own, then those of its launch mode.
    pub fn process_args(&self) -> Vec<String> {
        let launch = self.launch_mode.iter().flat_map(|launch| &launch.args);
        self.args.iter().chain(launch).cloned().collect()
    }

    /// The mode a process is in before the agent reports one: its launch mode.
    pub fn start_mode(&self) -> Option<PermissionMode> {
        self.launch_mode.as_ref().map(|launch| launch.mode)
    }

    /// The agent's mode for `mode`.
    pub fn mode_id(&self, mode: PermissionMode) -> Option<&str> {
        self.modes
            .iter()
            .find(|(neutral, _)| *neutral == mode)
            .map(|(_, id)| id.as_str())
    }

    /// The neutral mode of the agent's mode `id` (`other` when it has none).
    pub fn mode_of(&self, id: &str) -> PermissionMode {
        self.modes
            .iter()
            .find(|(_, agent)| agent == id)
            .map_or(PermissionMode::Other, |(neutral, _)| *neutral)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_map_modes_both_ways_and_refuse_what_they_lack() {
        let codex = AcpAgent::preset("codex-acp", PathBuf::from("codex-acp")).unwrap();
        assert_eq!(codex.mode_id(PermissionMode::Plan), Some("read-only"));
        assert_eq!(codex.mode_id(PermissionMode::Default), None);
        assert_eq!(
            codex.mode_of("full-access"),
            PermissionMode::BypassPermissions
        );
        assert_eq!(codex.mode_of("something-new"), PermissionMode::Other);
        let grok = AcpAgent::preset("grok", PathBuf::from("grok")).unwrap();
        assert_eq!(grok.args, ["agent", "--no-leader", "stdio"]);
        assert!(AcpAgent::preset("nope", PathBuf::from("x")).is_none());
        for name in AcpAgent::PRESETS {
            assert_eq!(
                AcpAgent::preset(name, PathBuf::from("x")).unwrap().name,
                name
            );
        }
    }
}
