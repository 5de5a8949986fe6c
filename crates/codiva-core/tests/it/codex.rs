//! Codex over `codex app-server`: end-to-end runs of the real CLI against the mock Responses
//! API, and the replay of their captured lines.

mod e2e;
mod exec;
mod harness;
mod mcp;
mod replay;
