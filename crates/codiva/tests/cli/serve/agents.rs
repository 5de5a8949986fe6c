//! `agents/list` and `session/create` with an agent: the agents codiva knows, installed or not,
//! and a session of an agent that is not installed refused with how to install it.

use codiva_testkit::{Script, codex_binary};
use serde_json::{Value, json};

use super::client::{Server, World};

fn agent<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["id"] == id)
        .unwrap_or_else(|| panic!("no agent {id}: {list}"))
}

fn refusal(server: &mut Server, params: Value) -> (String, Vec<String>) {
    let err = server.call("session/create", params).unwrap_err();
    assert_eq!(err["code"], -32002, "{err}");
    let args = err["data"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap().to_owned())
        .collect();
    (err["data"]["reason"].as_str().unwrap().to_owned(), args)
}

fn codex_missing_has_no_login(list: &Value) -> bool {
    agent(list, "codex").get("login").is_none()
}

#[test]
fn agents_are_listed_and_a_missing_one_is_refused_with_its_install_command() {
    let world = World::new(|_| Script::new());
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    assert_eq!(init["capabilities"]["agents"], json!(["claude"]));
    let list = server.ok("agents/list", json!({}));
    let claude = agent(&list, "claude");
    assert_eq!(claude["status"], "ready");
    assert_eq!(claude["default"], true);
    assert_eq!(claude["capabilities"]["permissions"], true);
    // Claude Code's own `auth status`, with the sandbox's ANTHROPIC_API_KEY.
    assert_eq!(claude["login"]["state"], "logged_in", "{claude}");
    assert_eq!(claude["login"]["method"], "api_key from ANTHROPIC_API_KEY");
    assert!(codex_missing_has_no_login(&list));
    let codex = agent(&list, "codex");
    assert_eq!(codex["status"], "not_installed");
    assert_eq!(codex["install"], "npm install -g @openai/codex");

    let (reason, args) = refusal(&mut server, json!({"prompt": "hello", "agent": "codex"}));
    assert_eq!(reason, "agent_not_installed");
    assert_eq!(args, ["codex", "Codex", "npm install -g @openai/codex"]);
    let (reason, args) = refusal(&mut server, json!({"prompt": "hello", "agent": "grok9"}));
    assert_eq!(reason, "unknown_agent");
    assert_eq!(args, ["grok9", "claude"]);
    let list = server.ok("session/list", json!({}));
    assert_eq!(list["sessions"], json!([]), "nothing was created");
}

/// With Codex installed too, both are ready; the config names the default.
#[test]
fn the_config_names_the_default_agent() {
    let world = World::new(|_| Script::new());
    std::fs::write(&world.config, "fetch_base = false\nagent = \"codex\"\n").unwrap();
    let mut command = world.command(world.repo.path());
    command.env("CODIVA_CODEX", codex_binary());
    let mut server = Server::start(command, world.state.path());
    let init = server.ok("initialize", json!({}));
    assert_eq!(init["capabilities"]["agents"], json!(["claude", "codex"]));
    let list = server.ok("agents/list", json!({}));
    assert_eq!(agent(&list, "codex")["default"], true);
    assert_eq!(agent(&list, "claude")["default"], false);
    assert_eq!(agent(&list, "codex")["status"], "ready");
    // codex's own `login status` looks at its stored login only: the mock's provider needs
    // none, and it says so.
    assert_eq!(agent(&list, "codex")["login"]["state"], "not_logged_in");
}
