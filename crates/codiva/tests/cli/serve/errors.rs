//! Bad input gets a clear error and loses no session.

use std::process::Stdio;

use serde_json::json;

use codiva_testkit::{Match, Reply, Script};

use super::client::World;

#[test]
fn not_a_repo_and_no_commits_are_one_line_errors() {
    let world = World::new(|_| Script::new());
    let plain = tempfile::tempdir().unwrap();
    let output = world
        .command(plain.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not inside a git repository"), "{stderr}");
    assert!(output.stdout.is_empty(), "stdout carries protocol only");

    let empty = tempfile::tempdir().unwrap();
    world.git(empty.path(), &["init", "-q"]);
    let output = world
        .command(empty.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no commit"), "{stderr}");
}

#[test]
fn malformed_requests_get_json_rpc_errors() {
    let world = World::new(|_| Script::new());
    let mut server = world.serve();
    let unknown = server.call("session/nope", json!({})).unwrap_err();
    assert_eq!(unknown["code"], -32601);
    let missing = server
        .call("session/send", json!({"text": "x"}))
        .unwrap_err();
    assert_eq!(missing["code"], -32602);
    assert!(missing["message"].as_str().unwrap().contains("session_id"));
    // The missing field is named, not the first one that is there.
    let missing = server
        .call("session/rename", json!({"session_id": "ghost"}))
        .unwrap_err();
    assert_eq!(
        (&missing["code"], &missing["data"]["field"]),
        (&json!(-32602), &json!("title")),
        "{missing}"
    );
    let no_session = server
        .call("session/send", json!({"session_id": "ghost", "text": "x"}))
        .unwrap_err();
    assert_eq!(no_session["code"], -32001);

    server.write_raw(b"this is {not json\n");
    let parse = server.response(json!(null)).unwrap_err();
    assert_eq!(parse["code"], -32700);

    // A 100 MB request line is skipped with an error; the server reads on.
    let mut huge = Vec::with_capacity(100 * 1024 * 1024 + 64);
    huge.extend_from_slice(
        br#"{"jsonrpc":"2.0","id":99,"method":"session/create","params":{"prompt":""#,
    );
    huge.resize(100 * 1024 * 1024, b'a');
    huge.extend_from_slice(b"\"}}\n");
    server.write_raw(&huge);
    drop(huge);
    let too_big = server.response(json!(null)).unwrap_err();
    assert_eq!(too_big["code"], -32600);
    assert!(
        too_big["message"]
            .as_str()
            .unwrap()
            .contains("over the limit")
    );
    let list = server.ok("session/list", json!({}));
    assert_eq!(list["sessions"], json!([]));
    assert!(server.close().success());
}

#[test]
fn corrupt_state_and_a_vanished_worktree_are_reported() {
    let world = World::new(|_| {
        Script::new()
            .then_when(Match::FirstUserContains("KEEP".into()), Reply::text("kept"))
            .then_when(Match::FirstUserContains("GONE".into()), Reply::text("gone"))
    });
    let mut server = world.serve();
    server.ok("session/create", json!({"prompt": "KEEP this one"}));
    server.ok("session/create", json!({"prompt": "GONE soon"}));
    server.wait_status("keep-this-one", "completed");
    server.wait_status("gone-soon", "completed");
    assert!(server.close().success());

    // A worktree deleted behind codiva's back: pruned with a warning, the other one stays.
    std::fs::remove_dir_all(world.worktree("gone-soon")).unwrap();
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    let warnings = init["warnings"].to_string();
    assert!(
        warnings.contains("gone-soon") && warnings.contains("gone"),
        "{warnings}"
    );
    let list = server.ok("session/list", json!({}));
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["keep-this-one"]);
    assert!(server.close().success());

    // A corrupt state file: kept as a backup, a visible warning, and no session lost: the
    // session is recovered from its worktree and the agent's transcript.
    let state = world.repo.path().join(".codiva/state.json");
    std::fs::write(&state, b"{\"version\":1,\"sessions\":[{\"id\":").unwrap();
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    let warnings = init["warnings"].to_string();
    assert!(warnings.contains("corrupt"), "{warnings}");
    let backups = std::fs::read_dir(world.repo.path().join(".codiva"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("state.json.corrupt-")
        })
        .count();
    assert_eq!(backups, 1);
    let list = server.ok("session/list", json!({}));
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{list}");
    assert_eq!(sessions[0]["id"], "keep-this-one");
    assert_eq!(sessions[0]["prompt"], "KEEP this one");
    assert!(sessions[0]["agent_session_id"].is_string());
    assert!(server.close().success());
}

/// A wire log that cannot be written is no reason to stop a session, but the client hears of
/// it as a `warning` notification (not only in codiva's own log).
#[test]
fn a_wire_log_failure_reaches_the_client_as_a_warning() {
    let world = World::new(|_| Script::new().always(Reply::text("Fine.")));
    // A file where the wire-log directory should be: the log cannot be opened.
    std::fs::write(world.state.path().join("wire"), b"not a directory").unwrap();
    let mut server = world.serve();
    server.ok("session/create", json!({"prompt": "hello"}));
    let warning = server.wait("a wire-log warning", |m, _| m == "warning");
    let message = warning["message"].as_str().unwrap();
    assert!(
        message.contains("wire log") && message.contains("hello"),
        "{warning}"
    );
    server.wait_status("hello", "completed");
    assert!(server.close().success());
}

/// A script that pipes its requests in and closes stdin at once gets an answer to every one
/// (the requests read before stdin's end are answered before the manager stops).
#[test]
fn requests_piped_before_stdin_ends_are_all_answered() {
    use std::io::Write as _;
    let world = super::client::World::new(|_| codiva_testkit::Script::new());
    let mut child = world
        .command(world.repo.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for id in 1..=3 {
        let method = if id == 1 {
            "initialize"
        } else {
            "manager/snapshot"
        };
        writeln!(
            stdin,
            "{}",
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}})
        )
        .unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let answered: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message.get("id").is_some())
        .collect();
    assert_eq!(answered.len(), 3, "{answered:?}");
    for message in &answered {
        assert!(message.get("result").is_some(), "{message}");
    }
}

/// An agent that exits before it took up the first message (here the real Codex, whose
/// config.toml has a setting it refuses to start with, after a harmless warning) is `failed` at
/// once, its own error line in the detail — not `interrupted` as if someone had stopped it.
#[test]
fn an_agent_that_exits_at_start_is_failed_with_its_error_line() {
    let world = World::new(|_| Script::new().always(Reply::text("never")));
    let mut env = world.sandbox.codex_env(&world.mock.url()).unwrap();
    let config = world.sandbox.codex_home().join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("approval_policy = \"untrusted\"\n{text}")).unwrap();
    env.push((
        "CODIVA_CODEX".to_owned(),
        codiva_testkit::codex_binary()
            .to_string_lossy()
            .into_owned(),
    ));
    let mut command = world.command(world.repo.path());
    command.envs(env);
    let mut server = super::client::Server::start(command, world.state.path());
    let created = server.ok(
        "session/create",
        json!({"prompt": "say hello", "agent": "codex"}),
    );
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    let started = std::time::Instant::now();
    let failed = server.wait(&format!("{id} to settle"), |method, params| {
        method == "session/status"
            && params["session_id"] == id
            && matches!(params["status"].as_str(), Some("failed" | "interrupted"))
    });
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "settled after {:?}",
        started.elapsed()
    );
    assert_eq!(failed["status"], "failed", "{failed}");
    let detail = failed["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("no longer supported") && !detail.contains("WARNING"),
        "{detail}"
    );
    assert!(world.mock.requests().is_empty(), "no model request");
    assert!(server.close().success());
}
