//! End-to-end tests: the real Claude Code CLI (pinned) against the project's mock model
//! server, driven through the session engine.

mod harness;

mod basic;
mod controls;
mod errors;
mod folded;
mod interrupts;
mod mcp;
mod permissions;
mod questions;
mod resume;
mod subagents;
mod todos;
