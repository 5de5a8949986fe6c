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
    assert!(config.agent_paths.is_empty() && config.agents.is_empty());
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
        auto_address_review = true
        agent_idle_stop = "2s"
        max_running_agents = 2
        check = "cargo test -q"
        check_timeout = 120
    "#;
    let (config, warnings) = parse(text, file());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        config,
        Config {
            agent: Some("codex".into()),
            agent_paths: [
                ("claude", "/opt/claude/bin/claude"),
                ("codex", "/opt/codex/bin/codex"),
            ]
            .into_iter()
            .map(|(id, path)| (id.to_owned(), PathBuf::from(path)))
            .collect(),
            agents: Vec::new(),
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
            auto_address_review: true,
            agent_idle_stop: Some(Duration::from_secs(2)),
            max_running_agents: Some(2),
            check: Some("cargo test -q".into()),
            check_timeout: 120,
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
        config.agent_paths.get("claude"),
        Some(&crate::paths::home_dir().join("bin/claude"))
    );
}

/// Every built-in agent's program is `<id>_path` (`gemini_path` was ignored without a word).
#[test]
fn every_built_in_agent_has_a_path_key() {
    for spec in crate::provider::catalog::BUILTIN {
        let key = spec.path_key();
        let (config, warnings) = parse(&format!("{key:?} = \"/opt/{}\"", spec.id), file());
        assert!(warnings.is_empty(), "{key}: {warnings:?}");
        assert_eq!(
            config.agent_paths.get(spec.id),
            Some(&PathBuf::from(format!("/opt/{}", spec.id))),
            "{key}"
        );
    }
    let (config, warnings) = parse("gemini_path = \"\"\nnope_path = \"/x\"\n", file());
    assert!(config.agent_paths.is_empty());
    assert_eq!(keys(&warnings), [Some("gemini_path"), Some("nope_path")]);
}

/// `[agents.<id>]` adds an ACP agent with its command line and its facts.
#[test]
fn an_agent_entry_is_read_whole() {
    let text = r#"
        [agents.scripted]
        command = "/opt/acp/agent"
        args = ["--stdio", "-v"]
        env = { TOKEN_FILE = "/run/t", MODE = "x" }
        display_name = "My agent"
        system_prompt = "meta_system_prompt_append"
        modes = { default = "ask", bypassPermissions = "yolo" }

        [agents.plain]
        command = "plain-acp"
    "#;
    let (config, warnings) = parse(text, file());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        config.agents,
        [
            AgentEntry {
                id: "plain".into(),
                display_name: None,
                command: PathBuf::from("plain-acp"),
                args: vec![],
                env: vec![],
                system_prompt: SystemPromptVia::FirstPrompt,
                modes: vec![],
            },
            AgentEntry {
                id: "scripted".into(),
                display_name: Some("My agent".into()),
                command: PathBuf::from("/opt/acp/agent"),
                args: vec!["--stdio".into(), "-v".into()],
                env: vec![
                    ("MODE".into(), "x".into()),
                    ("TOKEN_FILE".into(), "/run/t".into())
                ],
                system_prompt: SystemPromptVia::MetaSystemPromptAppend,
                modes: vec![
                    (PermissionMode::BypassPermissions, "yolo".into()),
                    (PermissionMode::Default, "ask".into())
                ],
            },
        ]
    );
}

/// An entry without a command, with a built-in agent's id, a bad id or a bad value is left
/// out with one warning naming it; an unknown key in an entry is reported and ignored.
#[test]
fn invalid_agent_entries_are_left_out_and_said() {
    let text = r#"
        [agents.nocommand]
        args = []
        [agents.codex]
        command = "/opt/codex"
        [agents.badprompt]
        command = "x"
        system_prompt = "system"
        [agents.badmode]
        command = "x"
        modes = { careful = "c" }
        [agents."has space"]
        command = "x"
        [agents.extra]
        command = "x"
        colour = "blue"
    "#;
    let (config, warnings) = parse(text, file());
    let ids: Vec<&str> = config
        .agents
        .iter()
        .map(|agent| agent.id.as_str())
        .collect();
    assert_eq!(ids, ["extra"]);
    let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    let expected = [
        "/cfg/config.toml: agents.badmode.modes: \"careful\" is not a permission mode (expected one of default, acceptEdits, plan, auto, dontAsk, bypassPermissions); agent badmode is left out",
        "/cfg/config.toml: agents.badprompt.system_prompt: expected one of first_prompt, meta_rules, meta_system_prompt_append, found \"system\"; agent badprompt is left out",
        "/cfg/config.toml: agents.codex: codex is a built-in agent; name yours otherwise (its program is set with codex_path); agent codex is left out",
        "/cfg/config.toml: agents.extra.colour: unknown key (ignored)",
        "/cfg/config.toml: agents.has space: an agent's id is letters, digits, - and _; agent has space is left out",
        "/cfg/config.toml: agents.nocommand: no command (the program that runs the agent); agent nocommand is left out",
    ];
    assert_eq!(shown, expected);
    let (_, warnings) = parse("agents = 3", file());
    assert_eq!(keys(&warnings), [Some("agents")]);
}

/// The warnings speak the UI's language: `CODIVA_LANG`, else the file's `language`, else the
/// locale — as the terminal UI chooses its own.
#[test]
fn warnings_are_in_the_uis_language() {
    let text = "language = \"ja\"\nmodle = \"x\"\n[agents.a]\nargs = []\n";
    let (_, warnings) = parse(text, file());
    let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "/cfg/config.toml: agents.a: command（agent を動かすプログラム）がありません。agent a は使いません",
            "/cfg/config.toml: modle: 不明なキーです（無視します）",
        ]
    );
    let env = |codiva_lang: Option<&str>, locale: Option<&str>| LangEnv {
        codiva_lang: codiva_lang.map(str::to_owned),
        locale: locale.map(str::to_owned),
    };
    let unknown = |text: &str, env: &LangEnv| parse_in(text, file(), env).1[0].message.clone();
    assert_eq!(
        unknown("modle = 1", &env(None, Some("ja_JP.UTF-8"))),
        "不明なキーです（無視します）"
    );
    assert_eq!(
        unknown("modle = 1", &env(Some("en"), Some("ja_JP.UTF-8"))),
        "unknown key (ignored)"
    );
    assert_eq!(
        unknown(
            "language = \"en\"\nmodle = 1",
            &env(None, Some("ja_JP.UTF-8"))
        ),
        "unknown key (ignored)"
    );
    assert_eq!(
        unknown("max_restarts = -1", &env(Some("ja"), None)),
        "-1 があります（0 から 100 の整数が必要です）"
    );
    // A file that cannot be read is said in the language of the environment.
    let dir = tempfile::tempdir().unwrap();
    let (_, warnings) = load_in(dir.path(), &env(Some("ja"), None));
    assert!(
        warnings[0].message.starts_with("読めません"),
        "{warnings:?}"
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
