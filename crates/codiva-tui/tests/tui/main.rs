#![allow(clippy::unwrap_used, clippy::expect_used)]

mod app;
mod composer;
mod composer_modes;
mod dialogs;
mod errors;
mod focus;
mod help;
mod list_titles;
mod log_view;
mod markdown;
mod notices;
mod notify;
mod status_details;
mod support;
mod todos;
mod views;
