//! What finding the agents at start-up tells the user — an agent's version outside the tested
//! range, a configured program that is not there, the config's `agent` not installed — comes
//! in the UI's language, through the real binary: `codiva serve`'s `initialize` warnings (the
//! TUI shows the same list: both start through `bootstrap::start`), `agents/list`'s install
//! line of a config agent, and `codiva exec`'s stderr.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use codiva_testkit::{Script, acp_agent_binary};
use serde_json::{Value, json};

use crate::serve::client::{Server, World};

/// A Gemini CLI that says it is 0.50.0 (older than codiva was tested with).
fn old_gemini(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("old-gemini");
    std::fs::write(&path, "#!/bin/sh\necho 0.50.0\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The config: an old agent, a configured program that is not there, a config agent whose
/// command is not there, one that runs, and a default agent that is not installed.
fn config(world: &World, language: Option<&str>) -> String {
    let language = language.map_or(String::new(), |lang| format!("language = \"{lang}\"\n"));
    format!(
        r#"fetch_base = false
titles = "prompt"
{language}agent = "nope"
gemini_path = "{gemini}"
grok_path = "/nonexistent/grok"

[agents.gone]
command = "/nonexistent/agent"

[agents.echo]
command = "{echo}"
"#,
        gemini = old_gemini(world.state.path()).display(),
        echo = acp_agent_binary().display(),
    )
}

const OLD_JA: &str = "Gemini CLI のバージョン 0.50.0 は codiva で試した最も古いバージョン（0.61.0）より古いです。動かない機能があるかもしれません。更新を検討してください";
const OLD_EN: &str = "Gemini CLI version 0.50.0 is older than the oldest version codiva was tested with (0.61.0); some features may not work — consider updating";
const NOPE_JA: &str = "config の agent = \"nope\": その agent はインストールされていません。新しいセッションはインストールされている最初の agent で動きます";
const NOPE_EN: &str = "config agent = \"nope\": that agent is not installed; new sessions run the first installed one";

#[test]
fn serve_says_what_it_found_in_the_uis_language() {
    let world = World::new(|_| Script::new());
    std::fs::write(&world.config, config(&world, None)).unwrap();
    let mut command = world.command(world.repo.path());
    command.env("CODIVA_LANG", "ja");
    let mut server = Server::start(command, world.state.path());
    let init = server.ok("initialize", json!({}));
    let warnings: Vec<&str> = init["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for expected in [
        OLD_JA,
        NOPE_JA,
        "Grok: 設定されたプログラム /nonexistent/grok はありません",
        "gone: /nonexistent/agent が見つかりません。探した場所: /nonexistent/agent",
    ] {
        let count = warnings.iter().filter(|w| **w == expected).count();
        assert_eq!(count, 1, "{expected:?} once in {warnings:#?}");
    }
    let list = server.ok("agents/list", json!({}));
    let gone = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["id"] == "gone")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(
        gone["install"], "codiva の config の [agents.gone] の command（/nonexistent/agent）",
        "{gone}"
    );
    assert!(server.close().success());
}

/// `exec`: the same lines on stderr (a configured program that is not there too, though the
/// agent run is another), in English with `CODIVA_LANG=en`, in Japanese when the config's
/// `language` says so.
#[test]
fn exec_says_what_it_found_in_the_uis_language() {
    let world = World::new(|_| Script::new());
    for (language, lang_var, expected) in [
        (
            None,
            Some("en"),
            [
                OLD_EN,
                NOPE_EN,
                "Grok: the configured program /nonexistent/grok does not exist",
            ],
        ),
        (
            Some("ja"),
            None,
            [
                OLD_JA,
                NOPE_JA,
                "Grok: 設定されたプログラム /nonexistent/grok はありません",
            ],
        ),
    ] {
        std::fs::write(&world.config, config(&world, language)).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
        command
            .args(["exec", "--json", "--agent", "echo", "say hello"])
            .current_dir(world.repo.path())
            .env_clear()
            .envs(world.sandbox.claude_env(&world.mock.url()))
            .env("CODIVA_STATE_DIR", world.state.path())
            .env("CODIVA_CONFIG", &world.config)
            .stdin(Stdio::null());
        if let Some(lang) = lang_var {
            command.env("CODIVA_LANG", lang);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        for line in expected {
            assert_eq!(
                stderr
                    .matches(&format!("codiva: warning: {line}\n"))
                    .count(),
                1,
                "{line:?} once in {stderr}"
            );
        }
    }
}

/// The TUI (over the repository's daemon, which it starts in its own language): the first
/// start-up warning is its notice, in Japanese for a Japanese UI.
#[test]
fn the_tui_says_what_it_found_in_the_uis_language() {
    let config = "fetch_base = false\ntitles = \"prompt\"\ngrok_path = \"/nonexistent/grok\"\n";
    let ui = crate::tui::start_custom(
        |_| Script::new(),
        crate::tui::Mode::Daemon,
        &[("CODIVA_LANG", Some("ja"))],
        Some(config),
    );
    let screen = ui.pty.wait_for_text(
        "警告: Grok: 設定されたプログラム /nonexistent/grok はありません",
        std::time::Duration::from_secs(60),
    );
    assert!(!screen.contains("does not exist"), "{screen}");
}
