#![allow(clippy::unwrap_used, clippy::expect_used)]

mod app;
mod composer;
mod dialogs;
mod focus;
mod log_view;
mod markdown;
mod notices;
mod notify;
mod support;
mod views;
