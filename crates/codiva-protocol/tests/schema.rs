//! The checked-in schema (`docs/protocol.schema.json`) is what the types generate. After a
//! change to the protocol: `CODIVA_UPDATE_SCHEMA=1 cargo nextest run -p codiva-protocol`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use codiva_protocol::schema::api_schema_text;
use codiva_protocol::{ClientRequest, ServerNotification};
use serde_json::Value;

#[path = "schema/csharp.rs"]
mod csharp;

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
    // A missing field is named, not the first one present (removing that one changes the error
    // too: then it is missing).
    let missing = ClientRequest::parse("session/rename", serde_json::json!({"session_id": "a"}));
    match missing {
        Err(codiva_protocol::ParseError::InvalidParams { field, message }) => {
            assert_eq!(field.as_deref(), Some("title"), "{message}");
        }
        other => panic!("expected invalid params, got {other:?}"),
    }
    // ... and a field missing inside another names the outer one; a wrong type names its field.
    for (params, expected) in [
        (
            serde_json::json!({"prompt": "p", "images": [{"media_type": "image/png"}]}),
            "images",
        ),
        (serde_json::json!({"prompt": 5}), "prompt"),
        (serde_json::json!({"model": "m"}), "prompt"),
    ] {
        match ClientRequest::parse("session/create", params.clone()) {
            Err(codiva_protocol::ParseError::InvalidParams { field, message }) => {
                assert_eq!(field.as_deref(), Some(expected), "{params}: {message}");
            }
            other => panic!("expected invalid params, got {other:?}"),
        }
    }
    let list = ClientRequest::parse("session/list", Value::Null).unwrap();
    assert_eq!(list.method(), "session/list");
    assert!(matches!(
        ClientRequest::parse("session/nope", Value::Null),
        Err(codiva_protocol::ParseError::UnknownMethod(_))
    ));
}

#[test]
fn the_content_model_round_trips() {
    use codiva_protocol::agent::PermissionRequest;
    use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
    use codiva_protocol::tool::{
        PermissionMode, PermissionOption, PermissionOptionKind, PermissionScope, ScopePlace,
        ToolCallView, ToolContent, ToolKind, ToolLocation,
    };
    let view = ToolCallView {
        tool_kind: ToolKind::Edit,
        title: "Edit".into(),
        content: vec![
            ToolContent::Diff {
                path: "a.rs".into(),
                old: Some("x".into()),
                new: "y".into(),
            },
            ToolContent::Terminal {
                command: "ls".into(),
                output: Some("a.rs".into()),
            },
            ToolContent::Text { text: "t".into() },
            ToolContent::Locations {
                locations: vec![ToolLocation {
                    path: "a.rs".into(),
                    line: Some(3),
                    ..Default::default()
                }],
            },
        ],
        notes: vec![codiva_protocol::tool::ToolNote::EveryOccurrence],
    };
    let entry = LogEntry {
        id: 1,
        at_ms: 2,
        kind: EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: "t".into(),
            name: "Edit".into(),
            summary: "a.rs".into(),
            view: view.clone(),
            input: serde_json::json!({"k": 1}),
            status: ToolStatus::Running,
            result: None,
            duration_ms: None,
        })),
    };
    let text = serde_json::to_string(&entry).unwrap();
    assert_eq!(serde_json::from_str::<LogEntry>(&text).unwrap(), entry);
    let always = PermissionOption {
        id: "allow_always:0".into(),
        kind: PermissionOptionKind::AllowAlways,
        label: "Allow all edits in this session (acceptEdits)".into(),
        scope: Some(PermissionScope::Mode {
            mode: PermissionMode::AcceptEdits,
            name: "acceptEdits".into(),
            place: Some(ScopePlace::Other("elsewhere".into())),
        }),
    };
    let request = PermissionRequest {
        request_id: "r".into(),
        tool: "Edit".into(),
        view,
        input: serde_json::json!({}),
        description: None,
        options: PermissionOption::standard("Edit", vec![always]),
        suggestions: Vec::new(),
        tool_use_id: None,
        agent_id: None,
        blocked_path: None,
        reason: None,
    };
    let text = serde_json::to_string(&request).unwrap();
    assert_eq!(
        serde_json::from_str::<PermissionRequest>(&text).unwrap(),
        request
    );
    // What a newer agent may send reads as the fallbacks, not as an error.
    let kind: ToolKind = serde_json::from_value(serde_json::json!("teleport")).unwrap();
    assert_eq!(kind, ToolKind::Other);
    let mode: PermissionMode = serde_json::from_value(serde_json::json!("yolo")).unwrap();
    assert_eq!(mode, PermissionMode::Other);
    // An older log entry without the model reads as an `other` call with no content.
    let old = serde_json::json!({"id": 1, "at_ms": 0, "kind": "tool", "tool_use_id": "t",
        "name": "Bash", "summary": "ls", "input": null, "status": "succeeded", "result": null,
        "duration_ms": null});
    let EntryKind::Tool(tool) = serde_json::from_value::<LogEntry>(old).unwrap().kind else {
        panic!("not a tool entry");
    };
    assert_eq!(tool.view, ToolCallView::default());
}

#[test]
fn a_permission_answer_names_an_option() {
    let request = codiva_protocol::ClientRequest::parse(
        "session/respondPermission",
        serde_json::json!({"session_id": "s", "request_id": "r", "option": "allow_always:1"}),
    )
    .unwrap();
    let value = serde_json::to_value(&request).unwrap();
    assert_eq!(value["params"]["option"], "allow_always:1");
    assert!(
        value["params"]
            .get("decision")
            .is_some_and(serde_json::Value::is_null)
    );
}

/// The refusal reasons as the wire carried them when they were a list of strings: each still
/// reads as its variant and writes back as the same string.
const REFUSAL_WIRE_NAMES: &[&str] = &[
    "agent_not_installed",
    "already_discarded",
    "already_merged",
    "already_kept",
    "cannot_merge_now",
    "check_running",
    "changed_since_preview",
    "commit_failed",
    "config_invalid",
    "config_not_toml",
    "config_unknown_key",
    "config_unwritable",
    "discarded_restore_first",
    "empty_instruction",
    "gh_missing",
    "gh_not_authenticated",
    "gh_rate_limited",
    "in_place_busy",
    "in_place_not_in_repo",
    "in_place_session",
    "login_failed",
    "login_running",
    "login_unavailable",
    "merge_conflict",
    "merge_refused",
    "merged_start_new",
    "message_not_cut",
    "message_not_in_transcript",
    "message_too_long",
    "no_agent_installed",
    "no_agent_yet",
    "no_check_configured",
    "no_pending_prompt",
    "no_pr",
    "no_review_comments",
    "no_unresolved_reviews",
    "no_such_review_comment",
    "no_such_group",
    "no_such_mcp_server",
    "no_remote",
    "no_such_login",
    "no_worktree",
    "not_discarded",
    "not_running_agent",
    "nothing_failing",
    "nothing_to_commit",
    "nothing_to_merge",
    "nothing_to_push",
    "not_in_group",
    "not_owner",
    "pr_failed",
    "push_failed",
    "review_full",
    "still_preparing",
    "still_working",
    "sync_busy",
    "token_mismatch",
    "too_many_attempts",
    "unknown_agent",
    "unsupported_by_agent",
    "wrong_prompt_kind",
];

/// The note and status-detail names as the wire carried them when they were strings.
const NOTE_WIRE_NAMES: &[&str] = &[
    "compacted",
    "interrupted",
    "continued_after_cut",
    "agent_switched",
    "denied",
    "stalled",
    "resume_failed",
    "request_failed",
    "ended_mid_turn",
    "exited_before_first_turn",
    "exited_before_turn",
    "process_ended",
    "unreadable_line",
    "oversized_line",
    "restart_limit",
    "restarting",
    "stop_after_interrupt",
    "unknown_line",
    "idle_stopped",
    "not_sent",
    "repair_pushed",
    "repair_push_failed",
    "repair_not_pushed",
    "message_cut",
    "unsupported_request",
    "stop_reason",
    "allowed_by_policy",
    "retrying",
    "step",
    "waiting_for_agents",
    "collecting_results",
];

/// Each old name reads as a known variant and writes back unchanged, the enum has no name
/// beyond them, and `as_str`/`from_code` agree with serde.
fn holds_wire_names<T>(names: &[&str], all: &[T], as_str: fn(&T) -> &'static str)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    for name in names {
        let value: T = serde_json::from_value(Value::String((*name).to_owned())).unwrap();
        assert!(all.contains(&value), "{name} reads as {value:?}");
        assert_eq!(as_str(&value), *name);
        assert_eq!(
            serde_json::to_value(&value).unwrap(),
            Value::String((*name).to_owned())
        );
    }
    assert_eq!(
        all.len(),
        names.len(),
        "a name was added: add it to the list here"
    );
}

#[test]
fn closed_vocabularies_keep_their_wire_names() {
    use codiva_protocol::error::RefusalCode;
    use codiva_protocol::log::NoteName;
    holds_wire_names(REFUSAL_WIRE_NAMES, RefusalCode::ALL, |code| code.as_str());
    holds_wire_names(NOTE_WIRE_NAMES, NoteName::ALL, |name| name.as_str());
    use codiva_protocol::group::{CheckState, CheckTrigger, GroupChange};
    holds_wire_names(
        &["running", "passed", "failed", "timed_out", "error"],
        CheckState::ALL,
        |state| state.as_str(),
    );
    holds_wire_names(
        &["turn_completed", "requested"],
        CheckTrigger::ALL,
        |trigger| trigger.as_str(),
    );
    holds_wire_names(
        &["created", "changed", "kept"],
        GroupChange::ALL,
        |change| change.as_str(),
    );
    use codiva_protocol::session::SubagentStatus;
    holds_wire_names(
        &["starting", "running", "completed", "failed", "stopped"],
        &[
            SubagentStatus::Starting,
            SubagentStatus::Running,
            SubagentStatus::Completed,
            SubagentStatus::Failed,
            SubagentStatus::Stopped,
        ],
        |status| status.as_str(),
    );
    for name in REFUSAL_WIRE_NAMES {
        assert_eq!(RefusalCode::from_code(name).as_str(), *name);
    }
    for name in NOTE_WIRE_NAMES {
        assert_eq!(NoteName::from_code(name).as_str(), *name);
    }
    assert_eq!(RefusalCode::CODES, REFUSAL_WIRE_NAMES);
}

/// A name of a later codiva reads as `Unknown` (the message around it still parses), and
/// `Unknown` is never one of the known names.
#[test]
fn an_unknown_name_reads_as_unknown() {
    use codiva_protocol::error::{ErrorBody, ErrorData, RefusalCode};
    use codiva_protocol::log::{EntryKind, LogEntry, NoteName};
    use codiva_protocol::session::SubagentStatus;
    let body: ErrorBody = serde_json::from_value(serde_json::json!({"code": -32002,
        "message": "m", "data": {"reason": "on_the_moon", "args": ["s"]}}))
    .unwrap();
    let Some(ErrorData::Refusal(refusal)) = body.data else {
        panic!("not a refusal: {body:?}");
    };
    assert_eq!(refusal.reason, RefusalCode::Unknown);
    assert_eq!(refusal.args, ["s"]);
    assert_eq!(RefusalCode::from_code("on_the_moon"), RefusalCode::Unknown);
    assert!(!RefusalCode::ALL.contains(&RefusalCode::Unknown));
    let entry: LogEntry = serde_json::from_value(serde_json::json!({"id": 1, "at_ms": 0,
        "kind": "note", "level": "info", "text": "t",
        "code": {"name": "a_new_note", "args": ["x"]}}))
    .unwrap();
    let EntryKind::Note {
        code: Some(code),
        text,
        ..
    } = entry.kind
    else {
        panic!("not a coded note");
    };
    assert_eq!((code.name, text.as_str()), (NoteName::Unknown, "t"));
    assert_eq!(NoteName::from_code("a_new_note"), NoteName::Unknown);
    assert!(!NoteName::ALL.contains(&NoteName::Unknown));
    let status: SubagentStatus = serde_json::from_value(serde_json::json!("paused")).unwrap();
    assert_eq!(status, SubagentStatus::Unknown);
}

/// The string literals passed first to `call` (`NoteCode::new(`) in the non-test sources under
/// `crates/<crate>/src`, with their files.
fn literal_names(crates: &[&str], call: &str) -> Vec<(PathBuf, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<PathBuf> = crates
        .iter()
        .map(|name| root.join(name).join("src"))
        .collect();
    let mut found = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") || path.to_string_lossy().contains("test")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices(call) {
            let rest = text[at + call.len()..].trim_start();
            if let Some(rest) = rest.strip_prefix('"') {
                found.push((path.clone(), rest[..rest.find('"').unwrap()].to_owned()));
            }
        }
    }
    found
}

/// The core names every note it writes by a `NoteName` variant: `NoteCode::new` also takes a
/// wire name (tests write them), and a name written as a string would go on the wire as
/// `unknown` if it were mistyped.
#[test]
fn the_core_names_its_notes_by_the_enum() {
    let found = literal_names(&["codiva-core"], "NoteCode::new(");
    assert!(
        found.is_empty(),
        "the core names notes by NoteName, not by strings: {found:?}"
    );
}
