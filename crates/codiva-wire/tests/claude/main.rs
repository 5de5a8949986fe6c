//! Claude Code stream-json wire types: parsing every stdout line kind (PROTOCOL_NOTES §1.3–1.13,
//! real lines from the notes and from the captured fixtures), the exact stdin lines `encode`
//! writes, and properties of both (one line for any text; no panic on any input).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use codiva_wire::claude::{
    ApiStreamEvent, CliRequest, ContentBlock, Delta, HostRequest, Inbound, InputBlock, Outbound,
    PermissionDecision, System, ToolResultContent, UserContent, UserInput, encode, parse_line,
};
use proptest::prelude::*;
use serde_json::{Value, json};

mod control;
mod encode;
mod messages;
mod never_panics;
mod one_line;
mod stream;
mod system;

// ---------------------------------------------------------------------------------------------
// helpers

fn parse(line: &str) -> Inbound {
    parse_line(line.as_bytes()).unwrap_or_else(|err| panic!("{err}\nline: {line}"))
}

fn system(line: &str) -> System {
    match parse(line) {
        Inbound::System(system) => system,
        other => panic!("not a system line: {other:?}"),
    }
}

fn stream(line: &str) -> ApiStreamEvent {
    match parse(line) {
        Inbound::StreamEvent(event) => event.event,
        other => panic!("not a stream_event: {other:?}"),
    }
}

fn assistant(line: &str) -> codiva_wire::claude::AssistantLine {
    match parse(line) {
        Inbound::Assistant(line) => line,
        other => panic!("not an assistant line: {other:?}"),
    }
}

fn user(line: &str) -> codiva_wire::claude::UserLine {
    match parse(line) {
        Inbound::User(line) => line,
        other => panic!("not a user line: {other:?}"),
    }
}

fn result(line: &str) -> codiva_wire::claude::ResultLine {
    match parse(line) {
        Inbound::Result(line) => line,
        other => panic!("not a result line: {other:?}"),
    }
}

fn request(line: &str) -> codiva_wire::claude::ControlRequest {
    match parse(line) {
        Inbound::ControlRequest(request) => request,
        other => panic!("not a control_request: {other:?}"),
    }
}

fn can_use_tool(line: &str) -> (String, codiva_wire::claude::CanUseTool) {
    let request = request(line);
    match request.request {
        CliRequest::CanUseTool(ask) => (request.request_id, ask),
        other => panic!("not can_use_tool: {other:?}"),
    }
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../codiva-core/tests/fixtures/claude")
}

/// Every line of every captured fixture, with its file name.
fn fixture_lines() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("fixture dir")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no fixtures in {}",
        fixture_dir().display()
    );
    let mut lines = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).expect("read fixture");
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            lines.push((name.clone(), line.to_owned()));
        }
    }
    lines
}
