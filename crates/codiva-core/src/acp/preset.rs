//! Which ACP agent to run: a command line (name, program, arguments, environment) and the few
//! facts about the agent that the protocol does not carry — how it takes a system prompt and
//! which of its modes stand for which neutral permission mode. The built-in agents' facts are
//! rows of the catalog ([`crate::provider::catalog::BUILTIN`], an [`AcpPreset`] each); an
//! agent from the config file is [`AcpAgent::custom`] with its entry's facts.

use std::path::PathBuf;

use codiva_protocol::tool::PermissionMode;

use super::credentials::Credentials;
use crate::provider::catalog::{self, AgentKind, AgentSpec, LoginDetection};

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

impl SystemPromptVia {
    /// The config file's words for each route (`system_prompt = "first_prompt"`).
    pub const NAMES: [&'static str; 3] =
        ["first_prompt", "meta_rules", "meta_system_prompt_append"];

    /// The route a config word names.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "first_prompt" => Some(SystemPromptVia::FirstPrompt),
            "meta_rules" => Some(SystemPromptVia::MetaRules),
            "meta_system_prompt_append" => Some(SystemPromptVia::MetaSystemPromptAppend),
            _ => None,
        }
    }
}

/// How an agent logs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginVia {
    /// ACP's `authenticate` with a method of its `authMethods`.
    Authenticate,
    /// Its program with these arguments, as a login command (Grok: `authenticate` waits for
    /// a browser with no address to show: docs/protocol/acp-login.md).
    Command(Vec<String>),
}

/// [`LoginVia`] as a catalog row writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetLogin {
    Authenticate,
    Command(&'static [&'static str]),
}

/// What the catalog says of a built-in ACP agent beyond its id, name and binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpPreset {
    pub args: &'static [&'static str],
    pub system_prompt: SystemPromptVia,
    /// Its mode id for each neutral mode it has.
    pub modes: &'static [(PermissionMode, &'static str)],
    /// The mode it starts in by its command line, and those arguments ([`LaunchMode`]).
    pub launch_mode: Option<(PermissionMode, &'static [&'static str])>,
    /// See [`AcpAgent::replay_after_load_answer`].
    pub replay_after_load_answer: bool,
    pub login: PresetLogin,
    /// See [`AcpAgent::auth_env`].
    pub auth_env: &'static [(&'static str, &'static [&'static str])],
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
    /// The flag that makes its program print its version (`None`: it has none codiva knows;
    /// an ACP agent without one starts instead).
    pub version_flag: Option<&'static str>,
    pub login: LoginVia,
    /// Variables an auth method reads that the agent does not declare (its `authMethods`
    /// entry has no `vars`).
    pub auth_env: Vec<(String, Vec<String>)>,
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

impl AcpAgent {
    /// Any ACP agent: `name` and `display_name` live as long as the program (a configured
    /// agent is created once). It takes the system prompt in its first prompt, has no modes
    /// codiva knows and no known place for its login, until the caller says otherwise.
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
            version_flag: None,
            login: LoginVia::Authenticate,
            auth_env: Vec::new(),
        }
    }

    /// The built-in agent `spec` (an ACP row of the catalog), run from `program`; `None` for
    /// an agent that does not speak ACP.
    pub fn from_spec(spec: &'static AgentSpec, program: PathBuf) -> Option<Self> {
        let AgentKind::Acp(preset) = &spec.kind else {
            return None;
        };
        Some(AcpAgent {
            name: spec.id,
            display_name: spec.display_name,
            program,
            args: owned(preset.args),
            env: Vec::new(),
            system_prompt: preset.system_prompt,
            modes: preset
                .modes
                .iter()
                .map(|(mode, id)| (*mode, (*id).to_owned()))
                .collect(),
            launch_mode: preset.launch_mode.map(|(mode, args)| LaunchMode {
                mode,
                args: owned(args),
            }),
            replay_after_load_answer: preset.replay_after_load_answer,
            credentials: match spec.login {
                LoginDetection::Files(credentials) => credentials,
                LoginDetection::OwnCheck | LoginDetection::Unknown => Credentials::Unknown,
            },
            version_flag: spec.version.as_ref().map(|check| check.flag),
            login: match preset.login {
                PresetLogin::Authenticate => LoginVia::Authenticate,
                PresetLogin::Command(args) => LoginVia::Command(owned(args)),
            },
            auth_env: preset
                .auth_env
                .iter()
                .map(|(method, vars)| ((*method).to_owned(), owned(vars)))
                .collect(),
        })
    }

    /// The built-in ACP agent `name` (`grok`, `gemini`, `codex-acp`, `claude-code-acp`, …: the
    /// catalog's ACP rows), run from `program`.
    pub fn preset(name: &str, program: PathBuf) -> Option<Self> {
        Self::from_spec(catalog::builtin(name)?, program)
    }

    /// Grok Build (the catalog's `grok`).
    pub fn grok(program: PathBuf) -> Self {
        Self::known("grok", program)
    }

    /// Gemini CLI (the catalog's `gemini`).
    pub fn gemini(program: PathBuf) -> Self {
        Self::known("gemini", program)
    }

    /// codex-acp (the catalog's `codex-acp`).
    pub fn codex_acp(program: PathBuf) -> Self {
        Self::known("codex-acp", program)
    }

    /// claude-code-acp (the catalog's `claude-code-acp`).
    pub fn claude_code_acp(program: PathBuf) -> Self {
        Self::known("claude-code-acp", program)
    }

    /// A preset that the catalog has (else an agent with no facts at all: a test fails).
    fn known(name: &'static str, program: PathBuf) -> Self {
        Self::preset(name, program.clone())
            .unwrap_or_else(|| Self::custom(name, name, program, Vec::new()))
    }

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
        assert_eq!(codex.start_mode(), Some(PermissionMode::Default));
        let grok = AcpAgent::preset("grok", PathBuf::from("grok")).unwrap();
        assert_eq!(grok.args, ["agent", "--no-leader", "stdio"]);
        assert_eq!(
            grok.login,
            LoginVia::Command(vec!["login".into(), "--device-auth".into()])
        );
        assert!(AcpAgent::preset("nope", PathBuf::from("x")).is_none());
        assert!(
            AcpAgent::preset("claude", PathBuf::from("x")).is_none(),
            "not ACP"
        );
        let gemini = AcpAgent::gemini(PathBuf::from("gemini"));
        assert_eq!(gemini.version_flag, Some("--version"));
        assert!(gemini.replay_after_load_answer);
        assert_eq!(gemini.credentials, Credentials::Gemini);
    }

    /// A row whose login codiva cannot read gives an agent whose login is `unknown`.
    #[test]
    fn a_row_without_login_detection_reads_as_unknown() {
        static ROW: AgentSpec = AgentSpec {
            id: "new-agent",
            display_name: "New agent",
            binary: "new-agent",
            install: "npm install -g new-agent",
            version: None,
            login: LoginDetection::Unknown,
            kind: AgentKind::Acp(AcpPreset {
                args: &["--acp"],
                system_prompt: SystemPromptVia::MetaRules,
                modes: &[(PermissionMode::Plan, "plan")],
                launch_mode: None,
                replay_after_load_answer: false,
                login: PresetLogin::Authenticate,
                auth_env: &[],
            }),
        };
        let agent = AcpAgent::from_spec(&ROW, PathBuf::from("/bin/new-agent")).unwrap();
        assert_eq!(
            (agent.name, agent.display_name, agent.credentials),
            ("new-agent", "New agent", Credentials::Unknown)
        );
        assert_eq!(agent.args, ["--acp"]);
        assert_eq!(agent.mode_id(PermissionMode::Plan), Some("plan"));
        assert_eq!(agent.version_flag, None);
    }

    #[test]
    fn system_prompt_routes_have_config_names() {
        for name in SystemPromptVia::NAMES {
            assert!(SystemPromptVia::from_name(name).is_some(), "{name}");
        }
        assert_eq!(SystemPromptVia::from_name("system"), None);
    }
}
