//! `session/create` for an editor's panel over `serve`: in place with an MCP stdio server and
//! an allowed tool; the server's status as `session/mcpServers` and in the row;
//! `session/mcpReconnect`; what an in-place session refuses; its discard forgets it and its
//! MCP config file.

use serde_json::{Value, json};

use codiva_testkit::{Reply, Script, mcp_stdio_binary};

use super::client::World;

fn refused(error: &Value, reason: &str) {
    assert_eq!(error["code"], -32002, "{error}");
    assert_eq!(error["data"]["reason"], reason, "{error}");
}

fn status_of<'a>(servers: &'a Value, name: &str) -> &'a Value {
    servers
        .as_array()
        .and_then(|servers| servers.iter().find(|s| s["name"] == name))
        .map_or(&Value::Null, |server| &server["status"])
}

#[test]
fn an_in_place_session_with_an_mcp_server_over_serve() {
    let world = World::new(|_| Script::new().always(Reply::text("Ready.")));
    let game = world.repo.path().join("Game");
    std::fs::create_dir(&game).unwrap();
    let mut server = world.serve();
    let params = json!({
        "prompt": "Look at the scene",
        "in_place": game,
        "mcp_servers": {"good": {"type": "stdio", "command": mcp_stdio_binary()}},
        "allowed_tools": ["mcp__good__ping"],
        "append_system_prompt": "You work inside the Unity Editor."
    });
    let created = server.ok("session/create", params.clone());
    let session = &created["session"];
    let id = session["id"].as_str().unwrap().to_owned();
    assert_eq!(session["in_place"], true, "{session}");
    assert_eq!(session["branch"], "", "{session}");
    assert_eq!(session["phase"], "active", "{session}");
    refused(
        &server.call("session/create", params).unwrap_err(),
        "in_place_busy",
    );

    let servers = server.wait("the MCP server connected", |method, params| {
        method == "session/mcpServers"
            && params["session_id"] == id
            && status_of(&params["servers"], "good") == "connected"
    });
    assert_eq!(servers["event"], "mcp_servers", "{servers}");
    server.wait_status(&id, "completed");
    let list = server.ok("session/list", json!({}));
    assert_eq!(
        status_of(&list["sessions"][0]["mcp_servers"], "good"),
        "connected",
        "{list}"
    );

    refused(
        &server
            .call(
                "session/mcpReconnect",
                json!({"session_id": id, "server": "nosuch"}),
            )
            .unwrap_err(),
        "no_such_mcp_server",
    );
    server.ok(
        "session/mcpReconnect",
        json!({"session_id": id, "server": "good"}),
    );
    // Reconnected: the statuses are reported again.
    server.wait("the statuses after the reconnect", |method, params| {
        method == "session/mcpServers"
            && params["session_id"] == id
            && status_of(&params["servers"], "good") == "connected"
    });

    for method in ["session/merge", "session/pr", "session/sync"] {
        refused(
            &server.call(method, json!({"session_id": id})).unwrap_err(),
            "in_place_session",
        );
    }
    let mcp_dir = world.state.path().join("mcp");
    assert_eq!(std::fs::read_dir(&mcp_dir).unwrap().count(), 1);
    let outcome = server.ok(
        "session/discard",
        json!({"session_id": id, "confirm_token": null}),
    );
    assert_eq!(outcome["outcome"], "removed", "{outcome}");
    assert_eq!(std::fs::read_dir(&mcp_dir).unwrap().count(), 0);
    assert!(game.is_dir(), "the directory stays");
    server.close();
}
