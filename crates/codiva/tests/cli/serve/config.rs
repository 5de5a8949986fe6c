//! `config/read` and `config/set`: the configuration file through the protocol, so a client
//! (the TUI over `serve`, an editor panel) edits the file of the host that runs the manager.

use codiva_testkit::Script;
use serde_json::{Value, json};

use super::client::World;

fn field<'a>(config: &'a Value, key: &str) -> &'a Value {
    config["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|field| field["key"] == key)
        .unwrap_or_else(|| panic!("no field {key}: {config}"))
}

fn refusal(error: &Value) -> (&str, Vec<&str>) {
    assert_eq!(error["code"], -32002, "{error}");
    let args = error["data"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    (error["data"]["reason"].as_str().unwrap(), args)
}

#[test]
fn config_is_read_and_one_key_set_keeping_the_rest_of_the_file() {
    let world = World::new(|_| Script::new());
    let original = "# my settings\nfetch_base = false\nmodel = \"sonnet\"  # fast\n";
    std::fs::write(&world.config, original).unwrap();
    let mut server = world.serve();
    server.ok("initialize", json!({}));

    let config = server.ok("config/read", json!({}));
    assert_eq!(config["path"], world.config.display().to_string());
    assert_eq!(field(&config, "model")["value"], "\"sonnet\"");
    assert_eq!(field(&config, "permission_mode")["value"], Value::Null);
    assert_eq!(field(&config, "permission_mode")["kind"]["type"], "choice");

    let config = server.ok("config/set", json!({"key": "model", "value": "opus"}));
    assert_eq!(field(&config, "model")["value"], "\"opus\"");
    assert_eq!(
        std::fs::read_to_string(&world.config).unwrap(),
        "# my settings\nfetch_base = false\nmodel = \"opus\"  # fast\n",
        "comments and layout are kept"
    );

    // Refused edits leave the file alone and say why, as data.
    let written = std::fs::read_to_string(&world.config).unwrap();
    let err = server
        .call("config/set", json!({"key": "colour", "value": "red"}))
        .unwrap_err();
    assert_eq!(refusal(&err), ("config_unknown_key", vec!["colour"]));
    let err = server
        .call(
            "config/set",
            json!({"key": "permission_mode", "value": "yolo"}),
        )
        .unwrap_err();
    assert_eq!(refusal(&err).0, "config_invalid");
    assert_eq!(std::fs::read_to_string(&world.config).unwrap(), written);

    std::fs::write(&world.config, "model = \n").unwrap();
    let err = server.call("config/read", json!({})).unwrap_err();
    let path = world.config.display().to_string();
    assert_eq!(refusal(&err), ("config_not_toml", vec![path.as_str(), "1"]));
    let err = server
        .call("config/set", json!({"key": "model", "value": "opus"}))
        .unwrap_err();
    assert_eq!(refusal(&err).0, "config_not_toml");
    assert_eq!(
        std::fs::read_to_string(&world.config).unwrap(),
        "model = \n",
        "a file that is not TOML is never rewritten"
    );
}
