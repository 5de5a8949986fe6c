//! The JSON Schema of the whole API, generated from the types: every request's params and
//! result, every notification's params, the error body. `docs/protocol.schema.json` is this,
//! held to the code by a test.

use serde_json::{Map, Value, json};

use crate::error::ErrorBody;
use crate::manager::SequencedEvent;
use crate::methods::{ClientRequest, ServerNotification};

/// The protocol version `initialize` reports; bumped on incompatible changes.
pub const PROTOCOL_VERSION: &str = "1";

/// The schema document: `requests` and `notifications` by method, `error`, and `$defs`.
pub fn api_schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut requests = Map::new();
    for (method, params, result) in ClientRequest::schemas(&mut generator) {
        requests.insert(
            method.to_owned(),
            json!({"params": params.to_value(), "result": result.to_value()}),
        );
    }
    let mut notifications = Map::new();
    for (method, params) in ServerNotification::schemas(&mut generator) {
        notifications.insert(method.to_owned(), json!({"params": params.to_value()}));
    }
    let error = generator.subschema_for::<ErrorBody>().to_value();
    let event = generator.subschema_for::<SequencedEvent>().to_value();
    let defs = generator.take_definitions(true);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "codiva serve JSON-RPC API",
        "protocol_version": PROTOCOL_VERSION,
        "requests": requests,
        "notifications": notifications,
        "error": error,
        "manager_event": event,
        "$defs": defs,
    })
}

/// [`api_schema`] as the checked-in file holds it: pretty, with a final newline.
pub fn api_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&api_schema()).unwrap_or_default();
    text.push('\n');
    text
}
