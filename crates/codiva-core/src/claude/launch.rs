//! The command line codiva starts Claude Code with. Where its program is found and which
//! versions were tested: its row of [`crate::provider::catalog`].

use std::ffi::OsString;

use crate::provider::Launch;

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

/// Claude Code's command line for `launch`: the model, permission mode (by Claude Code's name;
/// none for `other`), conversation to resume, system prompt addition, MCP config and tool rules
/// it names, after [`STREAM_JSON_FLAGS`].
pub fn args(launch: &Launch) -> Vec<OsString> {
    let mut args: Vec<OsString> = STREAM_JSON_FLAGS.iter().map(OsString::from).collect();
    let mut pair = |flag: &str, value: Option<&str>| {
        if let Some(value) = value {
            args.push(flag.into());
            args.push(value.into());
        }
    };
    pair("--model", launch.model.as_deref());
    pair(
        "--permission-mode",
        launch.permission_mode.and_then(super::tool_view::mode_name),
    );
    pair("--resume", launch.resume.as_deref());
    pair(
        "--append-system-prompt",
        launch.append_system_prompt.as_deref(),
    );
    let extras = &launch.extras;
    if let Some(path) = &extras.mcp_config {
        // A path, never the JSON itself: the servers' secrets stay off the command line.
        args.push("--mcp-config".into());
        args.push(path.into());
        args.push("--strict-mcp-config".into());
    }
    // One value each, after `=`: a rule with a space (`Bash(git *)`) stays one rule, and a
    // rule cannot be read as the next flag.
    for (flag, tools) in [
        ("--allowedTools", &extras.allowed_tools),
        ("--disallowedTools", &extras.disallowed_tools),
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

    use crate::provider::AgentExtras;
    use codiva_protocol::tool::PermissionMode;
    use std::path::PathBuf;

    fn line(launch: &Launch) -> Vec<String> {
        args(launch)
            .into_iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn mcp_servers_go_by_path_and_tool_rules_one_each() {
        let launch = Launch {
            extras: AgentExtras {
                mcp_config: Some(PathBuf::from("/state/mcp/repo-s.json")),
                allowed_tools: vec!["mcp__unity-ops__ping".into(), "Bash(git *)".into()],
                disallowed_tools: vec!["WebFetch".into()],
                ..AgentExtras::default()
            },
            ..Launch::default()
        };
        let line = line(&launch);
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
        let plain = args(&Launch::default());
        assert_eq!(
            plain.len(),
            STREAM_JSON_FLAGS.len(),
            "nothing added unasked"
        );
    }

    /// The model, mode, conversation and prompt addition each as a flag and its value; a mode
    /// Claude Code does not have is left out.
    #[test]
    fn session_settings_go_as_flag_pairs() {
        let launch = Launch {
            model: Some("opus".into()),
            permission_mode: Some(PermissionMode::AcceptEdits),
            resume: Some("abc".into()),
            append_system_prompt: Some("be brief".into()),
            ..Launch::default()
        };
        assert_eq!(
            &line(&launch)[STREAM_JSON_FLAGS.len()..],
            [
                "--model",
                "opus",
                "--permission-mode",
                "acceptEdits",
                "--resume",
                "abc",
                "--append-system-prompt",
                "be brief",
            ]
        );
        let other = Launch {
            permission_mode: Some(PermissionMode::Other),
            ..Launch::default()
        };
        assert_eq!(line(&other).len(), STREAM_JSON_FLAGS.len());
    }
}
