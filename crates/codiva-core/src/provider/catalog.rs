//! Every agent codiva knows, declared once: one row each with its id, its name for people, the
//! program to look for, how to install it, the versions codiva was tested with, how its login
//! is detected and — for an agent over the Agent Client Protocol — the facts the protocol does
//! not carry (how it takes a system prompt, its modes, how it replays a loaded conversation).
//! Everything else is derived from the row: the variable that names its program
//! (`CODIVA_<ID>`), its config key (`<id>_path`), its provider, its place in `agents/list`.
//! Adding a built-in agent that speaks ACP is one row here; users add their own in the config
//! file (`[agents.<id>]`, [`crate::config::AgentEntry`]). Finding them on this machine:
//! [`super::discovery`].

use std::path::PathBuf;
use std::sync::Arc;

use codiva_protocol::tool::PermissionMode;

use super::Provider;
use crate::acp::credentials::Credentials;
use crate::acp::{AcpAgent, AcpPreset, AcpProvider, PresetLogin, SystemPromptVia};
use crate::process::Version;

/// One agent codiva knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentSpec {
    /// A short stable name (`claude`), kept with each session; lower case, digits and `-`.
    pub id: &'static str,
    /// Its name for people (`Claude Code`).
    pub display_name: &'static str,
    /// The program looked for in `PATH` and the usual install directories.
    pub binary: &'static str,
    /// How to install it (a command line).
    pub install: &'static str,
    /// How to ask its version, and the range codiva was tested with (outside: a warning);
    /// `None`: its program has no version flag (it would start instead).
    pub version: Option<VersionCheck>,
    pub login: LoginDetection,
    /// Which provider runs it.
    pub kind: AgentKind,
}

/// The flag that makes a program print its version, and the versions codiva was tested with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionCheck {
    pub flag: &'static str,
    pub oldest: Version,
    pub newest: Version,
}

/// How codiva learns whether an agent is logged in (`agents/list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginDetection {
    /// The agent's own login check, which its provider runs (`claude auth status`).
    OwnCheck,
    /// Its credential files and variables, read without starting it.
    Files(Credentials),
    /// Not known: `agents/list` says `unknown`.
    Unknown,
}

/// The provider that runs an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// Claude Code over stream-json (`claude/`).
    Claude,
    /// Codex over `codex app-server` (`codex/`).
    Codex,
    /// Any Agent Client Protocol agent (`acp/`), with what the protocol does not say.
    Acp(AcpPreset),
}

const fn tested(oldest: (u32, u32, u32), newest: (u32, u32, u32)) -> Option<VersionCheck> {
    Some(VersionCheck {
        flag: "--version",
        oldest: Version::new(oldest.0, oldest.1, oldest.2),
        newest: Version::new(newest.0, newest.1, newest.2),
    })
}

/// Claude Code, over stream-json: its providers name themselves from this row.
pub const CLAUDE: AgentSpec = AgentSpec {
    id: "claude",
    display_name: "Claude Code",
    binary: "claude",
    install: "npm install -g @anthropic-ai/claude-code",
    version: tested((2, 1, 332), (2, 1, 332)),
    login: LoginDetection::OwnCheck,
    kind: AgentKind::Claude,
};

/// Codex, over its app server (or `codex exec`): its providers name themselves from this row.
pub const CODEX: AgentSpec = AgentSpec {
    id: "codex",
    display_name: "Codex",
    binary: "codex",
    install: "npm install -g @openai/codex",
    version: tested((0, 171, 0), (0, 171, 0)),
    login: LoginDetection::OwnCheck,
    kind: AgentKind::Codex,
};

/// Every built-in agent, in the order of preference for new sessions (the config's `agent`
/// picks another).
pub const BUILTIN: &[AgentSpec] = &[
    CLAUDE,
    CODEX,
    // Grok Build: `grok agent --no-leader stdio` (flags go between `agent` and `stdio`;
    // `--no-leader` keeps each worktree's session out of the shared leader process). Its
    // `authenticate` waits for a browser with no address to show (docs/protocol/acp-login.md): its own login
    // command instead.
    AgentSpec {
        id: "grok",
        display_name: "Grok",
        binary: "grok",
        install: "curl -fsSL https://x.ai/cli/install.sh | bash",
        version: None,
        login: LoginDetection::Files(Credentials::Grok),
        kind: AgentKind::Acp(AcpPreset {
            args: &["agent", "--no-leader", "stdio"],
            system_prompt: SystemPromptVia::MetaRules,
            modes: &[],
            launch_mode: None,
            replay_after_load_answer: false,
            login: PresetLogin::Command(&["login", "--device-auth"]),
            auth_env: &[],
        }),
    },
    // Gemini CLI: `gemini --acp` (0.61.0 calls `--experimental-acp` deprecated). It answers
    // `session/load` before its replay is over. Its `gemini-api-key` method reads
    // `GEMINI_API_KEY` without declaring it.
    AgentSpec {
        id: "gemini",
        display_name: "Gemini CLI",
        binary: "gemini",
        install: "npm install -g @google/gemini-cli",
        version: tested((0, 61, 0), (0, 61, 0)),
        login: LoginDetection::Files(Credentials::Gemini),
        kind: AgentKind::Acp(AcpPreset {
            args: &["--acp"],
            system_prompt: SystemPromptVia::FirstPrompt,
            modes: &[
                (PermissionMode::Default, "default"),
                (PermissionMode::AcceptEdits, "autoEdit"),
                (PermissionMode::BypassPermissions, "yolo"),
                (PermissionMode::Plan, "plan"),
            ],
            launch_mode: None,
            replay_after_load_answer: true,
            login: PresetLogin::Authenticate,
            auth_env: &[("gemini-api-key", &["GEMINI_API_KEY"])],
        }),
    },
    // codex-acp (Zed's ACP adapter of Codex, tested with 0.16.0; it has no version flag): its
    // approval presets `read-only` (changes nothing), `auto` (the model decides when to ask)
    // and `full-access`. It has no mode for "ask before every command and edit": that is
    // codex's `approval_policy = "untrusted"` in a writable workspace sandbox, given as `-c`
    // overrides, which win over the user's `config.toml` (without them 0.16.0 starts in
    // `read-only` when the config names no policy: every command fails unseen, measured).
    AgentSpec {
        id: "codex-acp",
        display_name: "Codex (ACP)",
        binary: "codex-acp",
        install: "npm install -g @zed-industries/codex-acp",
        version: None,
        login: LoginDetection::Files(Credentials::Codex),
        kind: AgentKind::Acp(AcpPreset {
            args: &[],
            system_prompt: SystemPromptVia::FirstPrompt,
            modes: &[
                (PermissionMode::Plan, "read-only"),
                (PermissionMode::Auto, "auto"),
                (PermissionMode::BypassPermissions, "full-access"),
            ],
            launch_mode: Some((
                PermissionMode::Default,
                &[
                    "-c",
                    "approval_policy=\"untrusted\"",
                    "-c",
                    "sandbox_mode=\"workspace-write\"",
                ],
            )),
            replay_after_load_answer: false,
            login: PresetLogin::Authenticate,
            auth_env: &[],
        }),
    },
    // claude-code-acp (Zed's ACP adapter of Claude Code, tested with 0.16.2; no version
    // flag): Claude Code's own mode names; the system prompt is appended to Claude Code's.
    AgentSpec {
        id: "claude-code-acp",
        display_name: "Claude Code (ACP)",
        binary: "claude-code-acp",
        install: "npm install -g @zed-industries/claude-code-acp",
        version: None,
        login: LoginDetection::Files(Credentials::Claude),
        kind: AgentKind::Acp(AcpPreset {
            args: &[],
            system_prompt: SystemPromptVia::MetaSystemPromptAppend,
            modes: &[
                (PermissionMode::Default, "default"),
                (PermissionMode::AcceptEdits, "acceptEdits"),
                (PermissionMode::Plan, "plan"),
                (PermissionMode::DontAsk, "dontAsk"),
                (PermissionMode::BypassPermissions, "bypassPermissions"),
            ],
            launch_mode: None,
            replay_after_load_answer: false,
            login: PresetLogin::Authenticate,
            auth_env: &[],
        }),
    },
];

/// The built-in agent `id`.
pub fn builtin(id: &str) -> Option<&'static AgentSpec> {
    BUILTIN.iter().find(|spec| spec.id == id)
}

impl AgentSpec {
    /// The variable that names its program: `CODIVA_<ID>` (`codex-acp` → `CODIVA_CODEX_ACP`).
    pub fn env_var(&self) -> String {
        format!("CODIVA_{}", self.id.to_ascii_uppercase().replace('-', "_"))
    }

    /// Its key in the config file: `<id>_path`.
    pub fn path_key(&self) -> String {
        path_key(self.id)
    }

    /// The provider that runs it from `program`.
    pub fn provider(&'static self, program: PathBuf) -> Arc<dyn Provider> {
        match &self.kind {
            AgentKind::Claude => Arc::new(crate::claude::ClaudeProvider::new(
                program,
                crate::paths::home_dir().join(".claude"),
            )),
            AgentKind::Codex => Arc::new(crate::codex::CodexProvider::new(program)),
            AgentKind::Acp(_) => {
                let agent = AcpAgent::from_spec(self, program.clone()).unwrap_or_else(|| {
                    AcpAgent::custom(self.id, self.display_name, program, vec![])
                });
                Arc::new(AcpProvider::new(agent))
            }
        }
    }
}

/// The config key of agent `id`'s program.
pub fn path_key(id: &str) -> String {
    format!("{id}_path")
}

/// The built-in agent whose config key is `key` (`gemini_path` → `gemini`).
pub fn by_path_key(key: &str) -> Option<&'static AgentSpec> {
    BUILTIN
        .iter()
        .find(|spec| key.strip_suffix("_path") == Some(spec.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row's provider is the agent the row describes.
    #[test]
    fn every_row_builds_its_own_provider() {
        for spec in BUILTIN {
            let provider = spec.provider(PathBuf::from(spec.binary));
            assert_eq!(provider.id(), spec.id);
            assert_eq!(provider.display_name(), spec.display_name);
            assert_eq!(
                provider.version_flag(),
                spec.version.map(|check| check.flag),
                "{}",
                spec.id
            );
            assert!(
                spec.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                spec.id
            );
        }
        // Codex's fallback runs the same agent.
        let exec = crate::codex::CodexExecProvider::new(PathBuf::from(CODEX.binary));
        assert_eq!(
            (exec.id(), exec.display_name()),
            (CODEX.id, CODEX.display_name)
        );
        let ids: std::collections::BTreeSet<_> = BUILTIN.iter().map(|spec| spec.id).collect();
        assert_eq!(ids.len(), BUILTIN.len(), "ids are unique");
    }

    #[test]
    fn names_of_a_program_follow_the_id() {
        let codex_acp = builtin("codex-acp").unwrap();
        assert_eq!(codex_acp.env_var(), "CODIVA_CODEX_ACP");
        assert_eq!(codex_acp.path_key(), "codex-acp_path");
        assert_eq!(by_path_key("gemini_path").map(|s| s.id), Some("gemini"));
        assert_eq!(by_path_key("gemini"), None);
        assert_eq!(by_path_key("nope_path"), None);
    }
}
