#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use codiva_protocol::tool::PermissionMode;

fn file() -> &'static Path {
    Path::new("/cfg/config.toml")
}

fn keys(warnings: &[ConfigWarning]) -> Vec<Option<&str>> {
    warnings.iter().map(|w| w.key.as_deref()).collect()
}

#[test]
fn defaults() {
    let config = Config::default();
    assert_eq!(config.claude_path, None);
    assert_eq!(config.model, None);
    assert_eq!(config.permission_mode, None);
    assert_eq!(config.ignored_files, IgnoredMode::Symlink);
    assert!(config.ignored_files_exclude.is_empty());
    assert!(config.fetch_base);
    assert_eq!(config.max_restarts, 3);
    assert_eq!(config.wire_log_max_mb, 16);
    assert!(config.notifications);
    assert!(config.mouse);
    assert_eq!(config.agent_idle_stop, Some(Duration::from_secs(600)));
    assert_eq!(config.max_running_agents, None);
    assert_eq!(parse("", file()), (Config::default(), vec![]));
}

#[test]
fn idle_stop_takes_seconds_or_a_duration_and_zero_means_never() {
    let idle = |text: &str| {
        let (config, warnings) = parse(&format!("agent_idle_stop = {text}"), file());
        (config.agent_idle_stop, warnings.len())
    };
    assert_eq!(idle("90"), (Some(Duration::from_secs(90)), 0));
    assert_eq!(idle("\"90\""), (Some(Duration::from_secs(90)), 0));
    assert_eq!(idle("\"2s\""), (Some(Duration::from_secs(2)), 0));
    assert_eq!(idle("\"10m\""), (Some(Duration::from_secs(600)), 0));
    assert_eq!(idle("\"1h\""), (Some(Duration::from_secs(3600)), 0));
    assert_eq!(idle("0"), (None, 0));
    assert_eq!(idle("\"0m\""), (None, 0));
    // A bad value keeps the default (10 minutes) and names the key.
    for bad in ["-5", "\"10 minutes\"", "\"m\"", "1.5", "\"9999h\"", "true"] {
        assert_eq!(idle(bad), (Some(Duration::from_secs(600)), 1), "{bad}");
    }
    let (config, warnings) = parse("max_running_agents = 0", file());
    assert_eq!((config.max_running_agents, warnings.len()), (None, 0));
    let (config, warnings) = parse("max_running_agents = -1", file());
    assert_eq!((config.max_running_agents, warnings.len()), (None, 1));
}

#[test]
fn every_key() {
    let text = r#"
        agent = "codex"
        claude_path = "/opt/claude/bin/claude"
        codex_path = "/opt/codex/bin/codex"
        model = "claude-sonnet-4-5"
        permission_mode = "acceptEdits"
        ignored_files = "copy"
        ignored_files_exclude = ["tmp", "!dist"]
        fetch_base = false
        max_restarts = 0
        wire_log_max_mb = 64
        daemon_idle_exit = 0
        notifications = false
        mouse = false
        language = "ja"
        gh_path = "/opt/gh/bin/gh"
        github_repo = "ghe.example.com:8443/owner/repo"
        auto_pr = true
        auto_ready = true
        titles = "prompt"
        auto_recover = true
        agent_idle_stop = "2s"
        max_running_agents = 2
    "#;
    let (config, warnings) = parse(text, file());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        config,
        Config {
            agent: Some("codex".into()),
            claude_path: Some(PathBuf::from("/opt/claude/bin/claude")),
            codex_path: Some(PathBuf::from("/opt/codex/bin/codex")),
            model: Some("claude-sonnet-4-5".into()),
            permission_mode: Some(PermissionMode::AcceptEdits),
            ignored_files: IgnoredMode::Copy,
            ignored_files_exclude: vec!["tmp".into(), "!dist".into()],
            fetch_base: false,
            max_restarts: 0,
            wire_log_max_mb: 64,
            daemon_idle_exit: 0,
            notifications: false,
            mouse: false,
            language: Some("ja".into()),
            gh_path: Some(PathBuf::from("/opt/gh/bin/gh")),
            github_repo: Some("ghe.example.com:8443/owner/repo".into()),
            auto_pr: true,
            auto_ready: true,
            titles: crate::title::TitleMode::Prompt,
            auto_recover: true,
            agent_idle_stop: Some(Duration::from_secs(2)),
            max_running_agents: Some(2),
        }
    );
    let (bad, warnings) = parse("github_repo = \"owner/repo\"", file());
    assert_eq!(bad.github_repo, None);
    assert_eq!(warnings[0].key.as_deref(), Some("github_repo"));
    let (bad, warnings) = parse("titles = \"model\"", file());
    assert_eq!(bad.titles, crate::title::TitleMode::Agent);
    assert_eq!(warnings[0].key.as_deref(), Some("titles"));
    let (none, _) = parse("ignored_files = \"none\"", file());
    assert_eq!(none.ignored_files, IgnoredMode::None);
}

#[test]
fn an_invalid_value_keeps_that_default_and_the_rest_loads() {
    let text = r#"
        ignored_files = "hardlink"
        model = "claude-opus-5-5"
        fetch_base = "yes"
        max_restarts = -1
        wire_log_max_mb = 1.5
        permission_mode = "yolo"
        ignored_files_exclude = ["ok", 3]
        claude_path = ""
        notifications = "off"
        mouse = 1
    "#;
    let (config, warnings) = parse(text, file());
    assert_eq!(config.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(
        Config {
            model: None,
            ..config
        },
        Config::default()
    );
    let mut found = keys(&warnings);
    found.sort();
    assert_eq!(
        found,
        vec![
            Some("claude_path"),
            Some("fetch_base"),
            Some("ignored_files"),
            Some("ignored_files_exclude"),
            Some("max_restarts"),
            Some("mouse"),
            Some("notifications"),
            Some("permission_mode"),
            Some("wire_log_max_mb"),
        ]
    );
    let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        shown.contains(
            &"/cfg/config.toml: ignored_files: expected one of symlink, copy, none, found \"hardlink\""
                .to_owned()
        ),
        "{shown:#?}"
    );
    assert!(
        shown.contains(
            &"/cfg/config.toml: fetch_base: expected true or false, found \"yes\"".to_owned()
        ),
        "{shown:#?}"
    );
    assert!(
        shown.contains(
            &"/cfg/config.toml: max_restarts: expected an integer from 0 to 100, found -1"
                .to_owned()
        ),
        "{shown:#?}"
    );
    assert!(
        shown.iter().any(|w| w.starts_with(
            "/cfg/config.toml: permission_mode: expected one of default, acceptEdits"
        )),
        "{shown:#?}"
    );
}

#[test]
fn unknown_keys_are_reported() {
    let (config, warnings) = parse("modle = \"x\"\n[worktree]\nfetch = true\n", file());
    assert_eq!(config, Config::default());
    let mut found = keys(&warnings);
    found.sort();
    assert_eq!(found, vec![Some("modle"), Some("worktree")]);
    assert!(
        warnings
            .iter()
            .all(|w| w.message.starts_with("unknown key"))
    );
}

#[test]
fn invalid_toml_names_the_file_and_line() {
    let (config, warnings) = parse(
        "model = \"a\"\nfetch_base = true\nmax_restarts = = 3\n",
        file(),
    );
    assert_eq!(config, Config::default());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].key, None);
    assert_eq!(warnings[0].line, Some(3));
    let shown = warnings[0].to_string();
    assert!(
        shown.starts_with("/cfg/config.toml:3: invalid TOML ("),
        "{shown}"
    );
}

#[test]
fn load_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    assert_eq!(load(&missing), (Config::default(), vec![]));

    let path = dir.path().join("config.toml");
    std::fs::write(&path, "max_restarts = 5\n").unwrap();
    let (config, warnings) = load(&path);
    assert!(warnings.is_empty());
    assert_eq!(config.max_restarts, 5);

    std::fs::write(&path, [0xff, 0xfe, b'\n']).unwrap();
    let (config, warnings) = load(&path);
    assert_eq!(config, Config::default());
    assert_eq!(warnings.len(), 1);

    // A directory where the file should be: defaults and a warning, not a failure.
    let (config, warnings) = load(dir.path());
    assert_eq!(config, Config::default());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("cannot be read"));
}

#[test]
fn path_resolution() {
    let home = Path::new("/home/u");
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    };
    assert_eq!(
        config_path_from(env(&[]), home),
        Path::new("/home/u/.config/codiva/config.toml")
    );
    assert_eq!(
        config_path_from(env(&[("XDG_CONFIG_HOME", "/xdg")]), home),
        Path::new("/xdg/codiva/config.toml")
    );
    assert_eq!(
        config_path_from(env(&[("XDG_CONFIG_HOME", "relative")]), home),
        Path::new("/home/u/.config/codiva/config.toml"),
        "XDG: a relative path is ignored"
    );
    assert_eq!(
        config_path_from(
            env(&[
                ("XDG_CONFIG_HOME", "/xdg"),
                ("CODIVA_CONFIG", "/etc/c.toml")
            ]),
            home
        ),
        Path::new("/etc/c.toml")
    );
}

#[test]
fn tilde_in_claude_path() {
    let (config, _) = parse("claude_path = \"~/bin/claude\"", file());
    assert_eq!(
        config.claude_path,
        Some(crate::paths::home_dir().join("bin/claude"))
    );
}

#[test]
fn language_key() {
    let (config, warnings) = parse("language = \"ja\"\n", file());
    assert!(warnings.is_empty());
    assert_eq!(config.language.as_deref(), Some("ja"));
    let (config, warnings) = parse("language = \"auto\"\n", file());
    assert!(warnings.is_empty());
    assert_eq!(config.language, None);
    let (config, warnings) = parse("language = \"fr\"\n", file());
    assert_eq!(config.language, None);
    assert!(warnings[0].to_string().contains("language"));
}
