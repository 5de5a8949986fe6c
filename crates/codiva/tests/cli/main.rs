//! The `codiva` binary end to end: `codiva exec` and `codiva serve` with the real Claude Code
//! CLI against the project's mock model server. One test binary for the crate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod attempts;
mod config_agents;
mod daemon;
mod daemon_edges;
mod daemon_tools;
mod exec;
mod exec_ends;
mod one_manager;
mod orphans;
mod remote;
mod reset_terminal;
mod serve;
mod startup_warnings;
mod tui;
mod tui_usage;
