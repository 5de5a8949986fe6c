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
    // The listing for a client's first screen: every agent, without the checks.
    let first = agent(&init, "claude");
    assert_eq!(
        (&first["status"], &first["default"]),
        (&json!("ready"), &json!(true))
    );
    assert!(
        first.get("login").is_none() && first.get("version").is_none(),
        "{first}"
    );
    assert_eq!(agent(&init, "codex")["status"], "not_installed");
    let list = server.ok("agents/list", json!({}));
    let claude = agent(&list, "claude");
    assert_eq!(claude["status"], "ready");
    assert_eq!(claude["default"], true);
    assert_eq!(claude["capabilities"]["permissions"], true);
    // Claude Code's own `auth status`, with the sandbox's ANTHROPIC_API_KEY.
    assert_eq!(claude["login"]["state"], "logged_in", "{claude}");
    assert_eq!(claude["login"]["method"], "api_key from ANTHROPIC_API_KEY");
    // Its own `--version`: the pinned CLI.
    assert_eq!(claude["version"], "2.1.332", "{claude}");
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
    // No login of codex's own, no provider configured: codex says "Not logged in".
    assert_eq!(agent(&list, "codex")["login"]["state"], "not_logged_in");
    // Regression: codex's own `login status` looks at its stored login only, but a configured
    // provider that needs none (`requires_openai_auth = false`, as the mock's) is a login.
    world.sandbox.codex_env(&world.mock.url()).unwrap();
    let list = server.ok("agents/list", json!({}));
    let login = &agent(&list, "codex")["login"];
    assert_eq!(login["state"], "logged_in", "{login}");
    assert_eq!(
        login["method"], "model provider mock (no OpenAI login needed)",
        "{login}"
    );
}

/// Processes whose command line has `auth` then `login` and whose HOME is `home`: a login
/// command of this test's server.
fn login_processes(home: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let (Ok(cmdline), Ok(environ)) = (
            std::fs::read(format!("/proc/{pid}/cmdline")),
            std::fs::read(format!("/proc/{pid}/environ")),
        ) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let login = args.windows(2).any(|w| w[0] == b"auth" && w[1] == b"login");
        let ours = environ
            .split(|b| *b == 0)
            .any(|var| var == format!("HOME={home}").as_bytes());
        if login && ours {
            found.push(pid);
        }
    }
    found
}

fn login_refusal(server: &mut Server, method: &str, params: Value) -> String {
    let err = server.call(method, params).unwrap_err();
    assert_eq!(err["code"], -32002, "{err}");
    err["data"]["reason"].as_str().unwrap().to_owned()
}

/// `agents/login` runs the real `claude auth login`: its address reaches the client, the code
/// typed back reaches it (here it cannot reach Anthropic, so the login fails with its own
/// words), a second login of the same agent is refused while one runs, cancel stops it, and no
/// login process is left.
#[test]
fn a_login_runs_the_agents_own_command_and_shows_its_address() {
    let world = World::new(|_| Script::new());
    let home = world.sandbox.claude_env("http://unused")[1].1.clone();
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let started = server.ok("agents/login", json!({"agent": "claude"}));
    let login_id = started["login_id"].as_str().unwrap().to_owned();
    let shown = server.wait("the login's address", |method, params| {
        method == "agents/loginProgress" && params["url"].is_string()
    });
    assert_eq!(shown["login_id"], login_id.as_str());
    assert_eq!(shown["agent"], "claude");
    assert_eq!(shown["phase"], "running");
    assert_eq!(shown["accepts_code"], true);
    assert!(
        shown["url"]
            .as_str()
            .unwrap()
            .starts_with("https://claude.ai/oauth/authorize?"),
        "{shown}"
    );
    assert!(!login_processes(&home).is_empty(), "the login command runs");
    assert_eq!(
        login_refusal(&mut server, "agents/login", json!({"agent": "claude"})),
        "login_running"
    );
    server.ok(
        "agents/loginInput",
        json!({"login_id": login_id, "text": "not-a-real-code#state"}),
    );
    let ended = server.wait("the login's end", |method, params| {
        method == "agents/loginProgress" && params["phase"] != "running"
    });
    // No network here: the code exchange fails, and the agent's login check says so.
    assert_eq!(ended["phase"], "failed", "{ended}");
    assert!(
        ended["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{ended}"
    );
    assert_eq!(
        login_refusal(
            &mut server,
            "agents/loginInput",
            json!({"login_id": login_id, "text": "again"})
        ),
        "no_such_login"
    );

    // Another login, cancelled while it waits for the code.
    let again = server.ok("agents/login", json!({"agent": "claude"}));
    let again_id = again["login_id"].as_str().unwrap().to_owned();
    assert_ne!(again_id, login_id);
    server.wait("the second login's address", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == again_id.as_str()
            && params["url"].is_string()
    });
    server.ok("agents/loginCancel", json!({"login_id": again_id}));
    let cancelled = server.wait("the cancelled login", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == again_id.as_str()
            && params["phase"] != "running"
    });
    assert_eq!(cancelled["phase"], "cancelled");
    assert_eq!(login_processes(&home), Vec::<u32>::new());

    assert_eq!(
        login_refusal(&mut server, "agents/login", json!({"agent": "codex"})),
        "agent_not_installed"
    );
    assert_eq!(
        login_refusal(&mut server, "agents/login", json!({"agent": "nobody"})),
        "unknown_agent"
    );
    assert!(server.close().success());
}

/// The pinned Gemini CLI (`tools/agent-clis`).
fn gemini_binary() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/agent-clis/node_modules/.bin/gemini")
}

/// ACP agents' login states come from their credential files and variables (no process), and
/// the real Gemini CLI 0.61.0 logs in over ACP: its four ways offered in its words, an API-key
/// way it accepts with `GEMINI_API_KEY` set (it records the choice in its settings), and its
/// Google login up to the address and code prompt it prints (no network here), cancelled;
/// the real codex-acp 0.16.0 takes `CODEX_API_KEY` into Codex's own `auth.json`; the real
/// claude-code-acp 0.16.2 refuses `authenticate`, in its words.
#[test]
fn acp_agents_report_their_login_and_gemini_logs_in_over_the_protocol() {
    let world = World::new(|_| Script::new());
    let home = world.sandbox.claude_env("http://unused")[1].1.clone();
    let mut command = world.command(world.repo.path());
    command
        .env("CODIVA_GEMINI", gemini_binary())
        .env("CODIVA_CODEX_ACP", codiva_testkit::codex_acp_binary())
        .env(
            "CODIVA_CLAUDE_CODE_ACP",
            codiva_testkit::claude_code_acp_binary(),
        )
        .env("GEMINI_API_KEY", "not-a-real-key")
        .env("CODEX_API_KEY", "sk-not-a-real-key");
    let mut server = Server::start(command, world.state.path());
    server.ok("initialize", json!({}));
    let list = server.ok("agents/list", json!({}));
    let gemini = agent(&list, "gemini");
    assert_eq!(gemini["status"], "ready");
    assert_eq!(gemini["login"]["state"], "logged_in", "{gemini}");
    assert_eq!(gemini["login"]["method"], "GEMINI_API_KEY");
    // codex-acp needs Codex's own auth.json; a key in the environment is no login for it.
    assert_eq!(agent(&list, "codex-acp")["login"]["state"], "not_logged_in");
    assert_eq!(
        agent(&list, "claude")["model_aliases"],
        json!(["default", "opus", "sonnet", "haiku"])
    );
    assert!(gemini.get("model_aliases").is_none(), "{gemini}");

    let started = server.ok("agents/login", json!({"agent": "gemini"}));
    let login_id = started["login_id"].as_str().unwrap().to_owned();
    let offered = server.wait("gemini's ways to log in", |method, params| {
        method == "agents/loginProgress" && params["choose_method"] == true
    });
    let names: Vec<&str> = offered["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Log in with Google",
            "Gemini API key",
            "Vertex AI",
            "AI API Gateway"
        ]
    );
    assert_eq!(offered["methods"][1]["env_vars"], json!(["GEMINI_API_KEY"]));
    server.ok(
        "agents/loginInput",
        json!({"login_id": login_id, "text": "gemini-api-key"}),
    );
    let ended = server.wait("the API-key login's end", |method, params| {
        method == "agents/loginProgress" && params["phase"] != "running"
    });
    assert_eq!(ended["phase"], "succeeded", "{ended}");
    let settings = std::fs::read_to_string(format!("{home}/.gemini/settings.json")).unwrap();
    assert!(settings.contains("\"gemini-api-key\""), "{settings}");

    let again = server.ok("agents/login", json!({"agent": "gemini"}));
    let again_id = again["login_id"].as_str().unwrap().to_owned();
    server.wait("the choice again", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == again_id.as_str()
            && params["choose_method"] == true
    });
    server.ok(
        "agents/loginInput",
        json!({"login_id": again_id, "text": "oauth-personal"}),
    );
    let asked = server.wait("Google's address", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == again_id.as_str()
            && params["accepts_code"] == true
            && params["url"].is_string()
    });
    assert!(
        asked["url"]
            .as_str()
            .unwrap()
            .starts_with("https://accounts.google.com/o/oauth2/v2/auth?"),
        "{asked}"
    );
    assert!(
        asked["output"]
            .as_array()
            .unwrap()
            .iter()
            .all(|line| !line.as_str().unwrap().contains('\u{1b}')),
        "{asked}"
    );
    server.ok("agents/loginCancel", json!({"login_id": again_id}));
    let cancelled = server.wait("the cancelled login", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == again_id.as_str()
            && params["phase"] != "running"
    });
    assert_eq!(cancelled["phase"], "cancelled");

    let codex = server.ok("agents/login", json!({"agent": "codex-acp"}));
    let codex_id = codex["login_id"].as_str().unwrap().to_owned();
    let offered = server.wait("codex-acp's ways to log in", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == codex_id.as_str()
            && params["choose_method"] == true
    });
    assert_eq!(offered["methods"][0]["name"], "Login with ChatGPT");
    assert_eq!(offered["methods"][1]["env_vars"], json!(["CODEX_API_KEY"]));
    server.ok(
        "agents/loginInput",
        json!({"login_id": codex_id, "text": "codex-api-key"}),
    );
    let ended = server.wait("codex-acp's login", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == codex_id.as_str()
            && params["phase"] != "running"
    });
    assert_eq!(ended["phase"], "succeeded", "{ended}");
    let list = server.ok("agents/list", json!({}));
    assert_eq!(
        agent(&list, "codex-acp")["login"],
        json!({"state": "logged_in", "method": "API key"})
    );

    let claude = server.ok("agents/login", json!({"agent": "claude-code-acp"}));
    let claude_id = claude["login_id"].as_str().unwrap().to_owned();
    let ended = server.wait("claude-code-acp's login", |method, params| {
        method == "agents/loginProgress"
            && params["login_id"] == claude_id.as_str()
            && params["phase"] != "running"
    });
    assert_eq!(ended["phase"], "failed", "{ended}");
    assert_eq!(
        ended["error"],
        "Internal error: Method not implemented. (Run `claude /login` in the terminal)"
    );
    assert!(server.close().success());
}
