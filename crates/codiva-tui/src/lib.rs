//! codiva's terminal UI. A front end: it drives the session manager through its handle
//! (`codiva_protocol::manager::Manager`) and renders what the manager's events say; it never spawns
//! a process or runs git itself.
//!
//! Widths are computed by one function ([`width`]) shared by rendering and hit-testing; colours
//! and glyphs come from one place ([`theme`]).

pub mod app;
pub mod composer;
pub mod crash;
pub mod dialog;
pub mod diff_preview;
pub mod i18n;
pub mod log_view;
pub mod markdown;
pub mod notify;
pub mod permission_dialog;
pub mod pr_cell;
pub mod question_dialog;
pub mod run;
pub mod search;
pub mod terminal;
pub mod theme;
pub mod width;
