//! The generic ACP provider: end-to-end runs through the Manager with the real codex-acp
//! 0.16.0 (against the mock Responses API) and the real claude-code-acp 0.16.2 (against the
//! mock Messages API), the real Gemini CLI 0.61.0 (against the mock Gemini API), the
//! project's scripted ACP agent for what neither produces on demand,
//! and the replay of the captured lines.

mod e2e;
mod gemini;
mod harness;
mod history;
mod login;
mod mcp;
mod replay;
mod scripted;
