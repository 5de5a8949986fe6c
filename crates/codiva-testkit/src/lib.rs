//! Test kit: a mock of the Anthropic Messages API ([`MockServer`], driven by a [`Script`])
//! and helpers to run the real agent CLIs in a controlled environment ([`AgentSandbox`],
//! [`TestRepo`], [`claude_binary`]). See `docs/mock-server.md`.

pub mod agent_env;
pub mod mock_server;
pub mod pty;
pub mod script;
pub mod sse;

pub use agent_env::{
    AgentSandbox, CLAUDE_STREAM_JSON_ARGS, ProcessGroupGuard, TestRepo, claude_binary,
    kill_process_group, workspace_root,
};
pub use mock_server::{MockServer, RecordedRequest};
pub use script::{Block, Match, MockMessage, Reply, Rule, Script, Times};
