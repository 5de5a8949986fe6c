//! Round trips of the config editor: what the user wrote stays, only the edited value changes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

const FILE: &str = "\
# codiva configuration
# (kept by hand)

model = \"claude-sonnet-4-5\"   # the fast one
fetch_base = false

# dependencies stay shared
ignored_files = 'copy'
unknown_key = 1

[extra]
kept = true
";

#[test]
fn changing_a_value_keeps_comments_layout_and_other_keys() {
    let out = set(FILE, "model", "claude-opus-4-1").unwrap();
    assert_eq!(
        out,
        FILE.replace("\"claude-sonnet-4-5\"", "\"claude-opus-4-1\"")
    );
}

#[test]
fn adding_a_key_keeps_the_rest_byte_for_byte() {
    let out = set(FILE, "max_restarts", "5").unwrap();
    // After the last top-level key, before the table: the rest byte for byte.
    assert_eq!(
        out,
        FILE.replace("unknown_key = 1\n", "unknown_key = 1\nmax_restarts = 5\n")
    );
    let (config, _) = crate::config::parse(&out, Path::new("c.toml"));
    assert_eq!(config.max_restarts, 5);
}

#[test]
fn an_empty_value_removes_the_key_only() {
    let out = set(FILE, "fetch_base", "").unwrap();
    assert_eq!(out, FILE.replace("fetch_base = false\n", ""));
}

#[test]
fn values_are_checked_before_anything_is_written() {
    assert!(matches!(
        set(FILE, "permission_mode", "yolo"),
        Err(ConfigEditError::Invalid {
            key: "permission_mode",
            ..
        })
    ));
    assert!(matches!(
        set(FILE, "max_restarts", "1000"),
        Err(ConfigEditError::Invalid { .. })
    ));
    assert!(matches!(
        set(FILE, "mouse", "yes"),
        Err(ConfigEditError::Invalid { .. })
    ));
    assert!(matches!(
        set(FILE, "nope", "1"),
        Err(ConfigEditError::UnknownKey(_))
    ));
    assert_eq!(
        set("model = \n", "model", "x"),
        Err(ConfigEditError::NotToml { line: 1 })
    );
}

#[test]
fn strings_bare_or_quoted_and_lists_either_way() {
    let out = set("", "model", "\"m 1\"").unwrap();
    assert_eq!(out, "model = \"m 1\"\n");
    let out = set("", "ignored_files_exclude", "tmp, !dist").unwrap();
    let (config, warnings) = crate::config::parse(&out, Path::new("c.toml"));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(config.ignored_files_exclude, vec!["tmp", "!dist"]);
    let out = set("", "ignored_files_exclude", "[\"a\"]").unwrap();
    assert_eq!(out, "ignored_files_exclude = [\"a\"]\n");
    assert!(set("", "ignored_files_exclude", "[1]").is_err());
}

#[test]
fn the_budget_keys_are_checked_by_the_loader() {
    // A duration goes in as text and is read back as one.
    let out = set("", "agent_idle_stop", "2s").unwrap();
    assert_eq!(out, "agent_idle_stop = \"2s\"\n");
    let (config, _) = crate::config::parse(&out, Path::new("config.toml"));
    assert_eq!(
        config.agent_idle_stop,
        Some(std::time::Duration::from_secs(2))
    );
    assert!(set("", "agent_idle_stop", "ten minutes").is_err());
    let out = set("", "max_running_agents", "2").unwrap();
    assert_eq!(out, "max_running_agents = 2\n");
    assert!(set("", "max_running_agents", "-1").is_err());
}

#[test]
fn values_lists_every_key_with_what_the_file_says() {
    let fields = values(FILE).unwrap();
    assert_eq!(fields.len(), settable().len());
    assert!(
        fields.iter().any(|f| f.field.key == "gemini_path"),
        "every built-in agent's program is listed"
    );
    let model = fields.iter().find(|f| f.field.key == "model").unwrap();
    assert_eq!(model.value.as_deref(), Some("\"claude-sonnet-4-5\""));
    let mouse = fields.iter().find(|f| f.field.key == "mouse").unwrap();
    assert_eq!(mouse.value, None);
}

/// Every built-in agent's program can be set.
#[test]
fn every_agent_path_can_be_set() {
    let out = set("", "gemini_path", "/opt/gemini").unwrap();
    assert_eq!(out, "gemini_path = \"/opt/gemini\"\n");
    let out = set("", "codex-acp_path", "~/bin/codex-acp").unwrap();
    let (config, warnings) = crate::config::parse(&out, Path::new("c.toml"));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        config.agent_paths.get("codex-acp"),
        Some(&crate::paths::home_dir().join("bin/codex-acp"))
    );
    assert!(matches!(
        set("", "nope_path", "/x"),
        Err(ConfigEditError::UnknownKey(_))
    ));
}
