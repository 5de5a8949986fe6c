//! The integration tests of codiva-core, in one binary (one link per crate).

// Test helpers outside `#[test]` functions panic on setup failures by design.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp;
mod claude;
mod codex;
mod default_model;
mod fixtures;
mod git;
mod github;
mod history;
mod in_place;
mod manager;
mod manager_jobs;
mod outside;
mod process;
mod protocol;
mod replay;
mod support;
mod switch;
mod titles;
mod transcript;
mod view;
