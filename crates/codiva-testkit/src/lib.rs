//! Test kit: a mock of the Anthropic Messages, OpenAI Responses and Gemini APIs
//! ([`MockServer`], driven by a [`Script`])
//! and helpers to run the real agent CLIs in a controlled environment ([`AgentSandbox`],
//! [`TestRepo`], [`claude_binary`], and [`RawClaude`] to drive the CLI line by line without
//! codiva). See `docs/mock-server.md`. [`MockGitHub`] is a mock GitHub API the real `gh` talks
//! to over loopback HTTPS (see `docs/github.md`).

pub mod agent_env;
pub mod gemini;
pub mod mock_github;
pub mod mock_server;
pub mod pty;
pub mod raw_claude;
pub mod responses;
pub mod script;
pub mod scripted_provider;
pub mod sse;
pub mod sshd;

pub use agent_env::{
    AgentSandbox, CLAUDE_STREAM_JSON_ARGS, ProcessGroupGuard, TestRepo, acp_agent_binary,
    claude_binary, claude_code_acp_binary, codex_acp_binary, codex_binary, codex_bwrap_dir,
    gemini_binary, gh_binary, kill_process_group, mcp_stdio_binary, workspace_root,
};
pub use mock_github::{
    Fault, GhRequest, MockCheck, MockGitHub, MockJob, MockMergeable, MockPr, MockPrState,
    MockReviewThread, MockRun, MockStep,
};
pub use mock_server::{MockServer, RecordedRequest};
pub use raw_claude::RawClaude;
pub use script::{
    Block, Match, MockMessage, Reply, Rule, Script, Times, UsageWindow, ratelimit_headers,
};
pub use scripted_provider::ScriptedProvider;
pub use sshd::Sshd;
