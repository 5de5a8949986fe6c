//! Agents the user adds in the config file (`[agents.<id>]`), through the real binary: one
//! that runs the test kit's scripted ACP agent and one that runs the real codex-acp under
//! another name against the mock model server. They are listed, created, switched to and run
//! like the built-in ones; the config's problems come once, in the UI's language.

use std::process::{Command, Stdio};

use codiva_testkit::{Reply, Script, acp_agent_binary, codex_acp_binary};
use serde_json::{Value, json};

use crate::serve::client::{Server, World};

/// The config: two agents of the user's, and a few mistakes.
fn config() -> String {
    format!(
        r#"fetch_base = false
titles = "prompt"
modle = "x"
gemini_path = "/nonexistent/gemini"

[agents.echo]
command = "{echo}"
display_name = "Echo agent"

[agents.my-codex]
command = "{codex_acp}"
display_name = "My Codex"
modes = {{ plan = "read-only", auto = "auto" }}

[agents.codex]
command = "/opt/codex"

[agents.nameless]
args = []
"#,
        echo = acp_agent_binary().display(),
        codex_acp = codex_acp_binary().display(),
    )
}

fn agent<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["id"] == id)
        .unwrap_or_else(|| panic!("no agent {id}: {list}"))
}

fn texts(log: &Value) -> Vec<String> {
    log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["text"].as_str().map(str::to_owned))
        .collect()
}

/// `serve`: the config's agents are listed with the same checks as the built-in ones, a
/// session runs on one and goes on with the other (`session/setAgent`); the mistakes are
/// `initialize` warnings, in Japanese for a Japanese UI.
#[test]
fn config_agents_are_listed_run_and_switched_to_over_serve() {
    let world = World::new(|_| Script::new().always(Reply::text("Hello from my codex.")));
    std::fs::write(&world.config, config()).unwrap();
    let mut command = world.command(world.repo.path());
    command
        .envs(world.sandbox.codex_acp_env(&world.mock.url()).unwrap())
        .env("CODIVA_LANG", "ja");
    let mut server = Server::start(command, world.state.path());
    let init = server.ok("initialize", json!({}));
    let warnings: Vec<&str> = init["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let config_path = world.config.display().to_string();
    for expected in [
        format!("{config_path}: modle: 不明なキーです（無視します）"),
        format!(
            "{config_path}: agents.codex: codex は組み込みの agent です。別の名前にしてください（そのプログラムは codex_path で指定します）。agent codex は使いません"
        ),
        format!(
            "{config_path}: agents.nameless: command（agent を動かすプログラム）がありません。agent nameless は使いません"
        ),
    ] {
        let count = warnings.iter().filter(|w| **w == expected).count();
        assert_eq!(count, 1, "{expected:?} once in {warnings:#?}");
    }
    // `gemini_path` is honoured: the configured program is not there, and that is said.
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("Gemini CLI") && w.contains("/nonexistent/gemini")),
        "{warnings:#?}"
    );

    let list = server.ok("agents/list", json!({}));
    let echo = agent(&list, "echo");
    assert_eq!(
        (&echo["name"], &echo["status"]),
        (&json!("Echo agent"), &json!("ready")),
        "{echo}"
    );
    assert_eq!(
        echo["program"].as_str(),
        acp_agent_binary().to_str(),
        "{echo}"
    );
    // Where it keeps its login is not known: said so, not left out.
    assert_eq!(echo["login"]["state"], "unknown", "{echo}");
    let mine = agent(&list, "my-codex");
    assert_eq!(
        (&mine["name"], &mine["status"]),
        (&json!("My Codex"), &json!("ready")),
        "{mine}"
    );
    assert_eq!(mine["capabilities"]["set_mode"], true, "{mine}");
    assert!(
        list["agents"]
            .as_array()
            .unwrap()
            .iter()
            .all(|agent| agent["id"] != "nameless"),
        "an invalid entry is left out: {list}"
    );

    let created = server.ok(
        "session/create",
        json!({"prompt": "hello from the user", "agent": "echo"}),
    );
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["session"]["agent"], "echo");
    server.wait_status(&id, "completed");
    let log = server.ok("session/read", json!({"session_id": id}));
    assert!(
        texts(&log)
            .iter()
            .any(|text| text.contains("hello from the user") && !text.starts_with("hello")),
        "the scripted agent echoed it: {log}"
    );

    server.ok(
        "session/setAgent",
        json!({"session_id": id, "agent": "my-codex"}),
    );
    server.ok(
        "session/send",
        json!({"session_id": id, "text": "and now you"}),
    );
    server.wait(&format!("{id} to run on my-codex"), |method, params| {
        method == "session/status" && params["session_id"] == id && params["status"] == "running"
    });
    server.wait_status(&id, "completed");
    let log = server.ok("session/read", json!({"session_id": id}));
    assert!(
        texts(&log)
            .iter()
            .any(|text| text == "Hello from my codex."),
        "codex-acp answered from the mock: {log}"
    );
    // codex-acp sent the message, with codiva's system prompt before it (the entry's default
    // route: the first prompt of a new conversation).
    let bodies: Vec<String> = world
        .mock
        .response_requests()
        .iter()
        .map(|request| request.body.to_string())
        .collect();
    assert!(
        bodies
            .iter()
            .any(|body| body.contains("and now you") && body.contains("[Standing instructions")),
        "{} requests, none with the message and the system prompt",
        bodies.len()
    );
    assert!(server.close().success());
}

/// `exec --agent <id>` runs an agent of the config file.
#[test]
fn exec_runs_a_config_agent() {
    let world = World::new(|_| Script::new());
    std::fs::write(&world.config, config()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
        .args(["exec", "--json", "--agent", "echo", "say hello"])
        .current_dir(world.repo.path())
        .env_clear()
        .envs(world.sandbox.claude_env(&world.mock.url()))
        .env("CODIVA_STATE_DIR", world.state.path())
        .env("CODIVA_CONFIG", &world.config)
        .env("CODIVA_LANG", "en")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let exit = events.last().unwrap();
    assert_eq!(exit["status"], "completed", "{stdout}");
    assert!(stdout.contains("say hello"), "{stdout}");
    // The config's mistakes, once each, in English here.
    let unknown = "modle: unknown key (ignored)";
    assert_eq!(stderr.matches(unknown).count(), 1, "{stderr}");
    assert_eq!(
        stderr
            .matches("agents.nameless: no command (the program that runs the agent); agent nameless is left out")
            .count(),
        1,
        "{stderr}"
    );
}
