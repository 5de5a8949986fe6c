//! The command line codiva starts Claude Code with.

use std::ffi::OsString;

/// The flags every session runs with: bidirectional stream-json, partial messages (streaming
/// text), echoes of our own messages (delivery acks) and permission prompts over stdio.
pub const STREAM_JSON_FLAGS: &[&str] = &[
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--replay-user-messages",
    "--permission-prompt-tool",
    "stdio",
];

/// The oldest and newest Claude Code versions codiva was tested with (outside: a warning).
pub const TESTED_MIN: (u32, u32, u32) = (2, 1, 332);
pub const TESTED_MAX: (u32, u32, u32) = (2, 1, 332);

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchOptions {
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    pub resume: Option<String>,
    pub append_system_prompt: Option<String>,
}

pub fn args(options: &LaunchOptions) -> Vec<OsString> {
    let mut args: Vec<OsString> = STREAM_JSON_FLAGS.iter().map(OsString::from).collect();
    let mut pair = |flag: &str, value: &Option<String>| {
        if let Some(value) = value {
            args.push(flag.into());
            args.push(value.into());
        }
    };
    pair("--model", &options.model);
    pair("--permission-mode", &options.permission_mode);
    pair("--resume", &options.resume);
    pair("--append-system-prompt", &options.append_system_prompt);
    args
}
