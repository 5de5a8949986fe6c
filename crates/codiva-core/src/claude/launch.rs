//! The command line codiva starts Claude Code with. Where its program is found and which
//! versions were tested: its row of [`crate::provider::catalog`].

use std::ffi::OsString;
use std::path::PathBuf;

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

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchOptions {
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    pub resume: Option<String>,
    pub append_system_prompt: Option<String>,
    /// The session's MCP config file: only its servers are used (`--strict-mcp-config`).
    pub mcp_config: Option<PathBuf>,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
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
    if let Some(path) = &options.mcp_config {
        // A path, never the JSON itself: the servers' secrets stay off the command line.
        args.push("--mcp-config".into());
        args.push(path.into());
        args.push("--strict-mcp-config".into());
    }
    // One value each, after `=`: a rule with a space (`Bash(git *)`) stays one rule, and a
    // rule cannot be read as the next flag.
    for (flag, tools) in [
        ("--allowedTools", &options.allowed_tools),
        ("--disallowedTools", &options.disallowed_tools),
    ] {
        for tool in tools {
            args.push(format!("{flag}={tool}").into());
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_servers_go_by_path_and_tool_rules_one_each() {
        let options = LaunchOptions {
            mcp_config: Some(PathBuf::from("/state/mcp/repo-s.json")),
            allowed_tools: vec!["mcp__unity-ops__ping".into(), "Bash(git *)".into()],
            disallowed_tools: vec!["WebFetch".into()],
            ..LaunchOptions::default()
        };
        let line: Vec<String> = args(&options)
            .into_iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        let extra = &line[STREAM_JSON_FLAGS.len()..];
        assert_eq!(
            extra,
            [
                "--mcp-config",
                "/state/mcp/repo-s.json",
                "--strict-mcp-config",
                "--allowedTools=mcp__unity-ops__ping",
                "--allowedTools=Bash(git *)",
                "--disallowedTools=WebFetch",
            ]
        );
        let plain = args(&LaunchOptions::default());
        assert_eq!(
            plain.len(),
            STREAM_JSON_FLAGS.len(),
            "nothing added unasked"
        );
    }
}
