//! The checked-in schema (`docs/protocol.schema.json`) is what the types generate. After a
//! change to the protocol: `CODIVA_UPDATE_SCHEMA=1 cargo nextest run -p codiva-protocol`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use codiva_protocol::schema::api_schema_text;
use codiva_protocol::{ClientRequest, ServerNotification};
use serde_json::Value;

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.schema.json")
}

#[test]
fn checked_in_schema_matches_the_types() {
    let generated = api_schema_text();
    let path = schema_path();
    if std::env::var_os("CODIVA_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/protocol.schema.json is out of date with the protocol's types; regenerate it with \
         CODIVA_UPDATE_SCHEMA=1 cargo nextest run -p codiva-protocol"
    );
}

#[test]
fn the_schema_lists_every_method_with_resolvable_types() {
    let schema: Value = serde_json::from_str(&api_schema_text()).unwrap();
    let defs = schema["$defs"].as_object().unwrap();
    let mut refs = Vec::new();
    for method in ClientRequest::METHODS {
        let entry = &schema["requests"][method];
        assert!(entry["params"].is_object(), "{method}: no params");
        assert!(entry["result"].is_object(), "{method}: no result");
        collect_refs(entry, &mut refs);
    }
    for method in ServerNotification::METHODS {
        let entry = &schema["notifications"][method];
        assert!(entry["params"].is_object(), "{method}: no params");
        collect_refs(entry, &mut refs);
    }
    for def in defs.values() {
        collect_refs(def, &mut refs);
    }
    for reference in refs {
        let name = reference.strip_prefix("#/$defs/").unwrap();
        assert!(defs.contains_key(name), "dangling {reference}");
    }
    assert_eq!(
        schema["requests"].as_object().unwrap().len(),
        ClientRequest::METHODS.len()
    );
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                out.push(reference.clone());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
fn requests_parse_by_name_and_name_the_faulty_field() {
    let request = ClientRequest::parse(
        "session/read",
        serde_json::json!({"session_id": "a", "limit": -1}),
    );
    match request {
        Err(codiva_protocol::ParseError::InvalidParams { field, .. }) => {
            assert_eq!(field.as_deref(), Some("limit"));
        }
        other => panic!("expected invalid params, got {other:?}"),
    }
    let list = ClientRequest::parse("session/list", Value::Null).unwrap();
    assert_eq!(list.method(), "session/list");
    assert!(matches!(
        ClientRequest::parse("session/nope", Value::Null),
        Err(codiva_protocol::ParseError::UnknownMethod(_))
    ));
}
