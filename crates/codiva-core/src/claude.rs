//! The Claude Code adapter, one [`crate::provider::Provider`]: launch flags, the translation
//! of its wire lines into [`crate::agent_event::AgentEvent`]s, what it accepts, its tools and
//! its transcripts. Nothing outside this module names a Claude tool, flag or wire type (but
//! [`UserInput`], the message type front ends still send, until a neutral one replaces it).

pub mod accepts;
pub mod connection;
pub mod full_text;
pub mod input;
pub mod launch;
pub mod outside;
pub mod plan_usage;
pub mod title;
pub mod tool_view;
pub mod tools;
pub mod transcript;
pub mod translate;

use std::path::PathBuf;
use std::sync::Arc;

use codiva_protocol::UserInput;
use codiva_protocol::tool::PermissionMode;

pub use connection::ClaudeProvider;

use crate::process::{ChildRegistry, EnvPolicy};
use crate::session::{SessionConfig, SessionHandle};

/// How to run one Claude Code session on its own (`codiva exec`, tests).
#[derive(Debug, Clone)]
pub struct ClaudeSessionConfig {
    /// The `claude` binary.
    pub program: PathBuf,
    /// Claude Code's home (`~/.claude`), where its transcripts are.
    pub home: PathBuf,
    pub cwd: PathBuf,
    pub env: EnvPolicy,
    pub model: Option<String>,
    pub permission_mode: Option<PermissionMode>,
    /// The agent session to continue (`--resume`).
    pub resume: Option<String>,
    /// Appended to the agent's system prompt.
    pub append_system_prompt: Option<String>,
    /// Where to write the wire log (`None`: no wire log).
    pub wire_log: Option<PathBuf>,
    /// Size at which the wire log is rotated.
    pub wire_log_cap: u64,
    pub registry: Option<Arc<ChildRegistry>>,
    /// Restarts after an unexpected exit before the session gives up.
    pub max_restarts: u32,
    /// MCP servers and tool rules.
    pub extras: crate::provider::AgentExtras,
}

impl ClaudeSessionConfig {
    pub fn new(program: PathBuf, cwd: PathBuf) -> Self {
        ClaudeSessionConfig {
            program,
            home: crate::paths::home_dir().join(".claude"),
            cwd,
            env: EnvPolicy::Inherit {
                remove: Vec::new(),
                set: Vec::new(),
            },
            model: None,
            permission_mode: None,
            resume: None,
            append_system_prompt: None,
            wire_log: None,
            wire_log_cap: crate::wire_log::DEFAULT_CAP,
            registry: None,
            max_restarts: 3,
            extras: Default::default(),
        }
    }

    /// The provider-neutral config of the same session.
    pub fn into_session_config(self) -> SessionConfig {
        SessionConfig {
            provider: Arc::new(ClaudeProvider::new(self.program, self.home)),
            cwd: self.cwd,
            env: self.env,
            model: self.model,
            permission_mode: self.permission_mode,
            resume: self.resume,
            append_system_prompt: self.append_system_prompt,
            wire_log: self.wire_log,
            wire_log_cap: self.wire_log_cap,
            registry: self.registry,
            max_restarts: self.max_restarts,
            approval: codiva_protocol::approval::ApprovalPolicy::Ask,
            extras: self.extras,
            idle_stop: None,
            agent_pid: None,
        }
    }
}

/// Starts a Claude Code session; `first` is sent as soon as the process runs.
pub fn start(config: ClaudeSessionConfig, first: Option<UserInput>) -> SessionHandle {
    crate::session_task::start(config.into_session_config(), first)
}
