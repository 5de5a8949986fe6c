//! `codiva serve --stdio`: the JSON-RPC front end over the session manager.

pub mod client;

mod address_review;
mod agents;
mod approval;
mod budget;
mod config;
mod diff_review;
mod errors;
mod folded;
mod full_message;
mod history;
mod in_place;
mod lifecycle;
mod parallel;
mod pull_requests;
mod repair;
mod restart;
mod sequence;
mod stream_client;
mod titles;
mod validation;
mod worktree_setup;
