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

// ---------------------------------------------------------------------------------------------
// system/*

const INIT: &str = r#"{"type":"system","subtype":"init","cwd":"<CWD>","session_id":"ef76f2fe-1111-4222-8333-944445555666","tools":["Task","AskUserQuestion","Bash","CronCreate","CronDelete","CronList","Edit","EnterPlanMode","EnterWorktree","ExitPlanMode","ExitWorktree","ListAgents","Monitor","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskStop","ToolSearch","WebFetch","WebSearch","Workflow","Write"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["deep-research","dataviz","team-onboarding"],"terminal_slash_commands":["doctor","color","focus","reload-plugins"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.332","output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["dataviz"],"plugins":[{"name":"cc-plugin-agents-md","path":"builtin","source":"cc-plugin-agents-md@builtin"}],"capabilities":["interrupt_receipt_v1","interrupt_cancel_queued_v1"],"analytics_disabled":true,"product_feedback_disabled":true,"served_by_anthropic":false,"uuid":"0d6a3c1e-aaaa-4bbb-8ccc-dddddddddddd","sandbox_enabled":false,"memory_paths":{"auto":"<HOME>/.claude/projects/<MANGLED_CWD>/memory/"},"original_cwd":"<CWD>","additional_directories":[],"messaging_socket_path":"<TMP>/cc-socks/4242.sock","fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","per_turn_effort_active":true,"ultrathink_available":false,"ultrathink_typed_raises":false,"view_mode":"default"}"#;

#[test]
fn system_init_from_the_notes() {
    let System::Init(init) = system(INIT) else {
        panic!("not init");
    };
    assert_eq!(init.session_id, "ef76f2fe-1111-4222-8333-944445555666");
    assert_eq!(init.cwd.as_deref(), Some("<CWD>"));
    assert_eq!(init.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(init.permission_mode.as_deref(), Some("default"));
    assert_eq!(init.claude_code_version.as_deref(), Some("2.1.332"));
    assert_eq!(init.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
    // `tools` names `Task` although the model-facing tool is `Agent` (notes 1.3.1).
    assert!(init.tools.iter().any(|tool| tool == "Task"));
    assert_eq!(init.tools.len(), 25);
    assert_eq!(init.agents[2], "general-purpose");
    assert_eq!(init.slash_commands.len(), 3);
}

#[test]
fn system_init_minimal_and_with_type_last() {
    let System::Init(init) =
        system(r#"{"subtype":"init","session_id":"s-1","model":"m","type":"system"}"#)
    else {
        panic!("not init");
    };
    assert_eq!(init.session_id, "s-1");
    assert!(init.tools.is_empty());
    assert_eq!(init.permission_mode, None);
}

#[test]
fn system_status_both_shapes() {
    let System::Status(status) = system(
        r#"{"type":"system","subtype":"status","status":"requesting","session_id":"594e3426-ebb8-4d51-a6bc-6388a348cb6f","uuid":"0600d01b-4dcd-4053-b28b-60cec7d22b89"}"#,
    ) else {
        panic!("not status");
    };
    assert_eq!(status.status.as_deref(), Some("requesting"));
    assert_eq!(status.permission_mode, None);

    let System::Status(status) = system(
        r#"{"status":null,"permissionMode":"acceptEdits","session_id":"s","uuid":"u","subtype":"status","type":"system"}"#,
    ) else {
        panic!("not status");
    };
    assert_eq!(status.status, None);
    assert_eq!(status.permission_mode.as_deref(), Some("acceptEdits"));
}

#[test]
fn system_api_retry_with_int_and_null_status() {
    let System::ApiRetry(retry) = system(
        r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":523,"error_status":529,"error":"overloaded","session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not api_retry");
    };
    assert_eq!(retry.attempt, 1);
    assert_eq!(retry.max_retries, 10);
    assert_eq!(retry.retry_delay_ms, 523);
    assert_eq!(retry.error_status, Some(529));
    assert_eq!(retry.error.as_deref(), Some("overloaded"));

    // A cut connection: no HTTP status.
    let System::ApiRetry(retry) = system(
        r#"{"error":"unknown","error_status":null,"retry_delay_ms":612,"max_retries":10,"attempt":2,"subtype":"api_retry","session_id":"s","type":"system"}"#,
    ) else {
        panic!("not api_retry");
    };
    assert_eq!(retry.attempt, 2);
    assert_eq!(retry.error_status, None);
    assert_eq!(retry.error.as_deref(), Some("unknown"));
}

#[test]
fn system_thinking_tokens() {
    let System::ThinkingTokens(tokens) = system(
        r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":120,"estimated_tokens_delta":40,"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not thinking_tokens");
    };
    assert_eq!(tokens.estimated_tokens, 120);
    assert_eq!(tokens.estimated_tokens_delta, 40);
}

#[test]
fn system_task_lifecycle() {
    let System::TaskStarted(started) = system(
        r#"{"type":"system","subtype":"task_started","task_id":"af8bdff19e7feb234","run_id":"run-1","tool_use_id":"toolu_mock_agent1","description":"Inspect the repo","subagent_type":"general-purpose","is_backgrounded":false,"spawn_depth":1,"task_type":"local_agent","prompt":"List the files and report.","session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_started");
    };
    assert_eq!(started.task_id, "af8bdff19e7feb234");
    assert_eq!(started.tool_use_id.as_deref(), Some("toolu_mock_agent1"));
    assert_eq!(started.description.as_deref(), Some("Inspect the repo"));
    assert_eq!(started.subagent_type.as_deref(), Some("general-purpose"));
    assert!(!started.is_backgrounded);
    assert_eq!(started.task_type.as_deref(), Some("local_agent"));

    let System::TaskStarted(started) = system(
        r#"{"is_backgrounded":true,"task_id":"a7b0c1","tool_use_id":"toolu_bg","subtype":"task_started","type":"system"}"#,
    ) else {
        panic!("not task_started");
    };
    assert!(started.is_backgrounded);

    let System::TaskProgress(progress) = system(
        r#"{"type":"system","subtype":"task_progress","task_id":"af8bdff19e7feb234","tool_use_id":"toolu_mock_agent1","description":"Running List files","usage":{"total_tokens":14210,"tool_uses":1,"duration_ms":812},"last_tool_name":"Bash","session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_progress");
    };
    assert_eq!(progress.description.as_deref(), Some("Running List files"));
    let usage = progress.usage.unwrap();
    assert_eq!(
        (usage.total_tokens, usage.tool_uses, usage.duration_ms),
        (14210, 1, 812)
    );
    assert_eq!(progress.last_tool_name.as_deref(), Some("Bash"));

    let System::TaskUpdated(updated) = system(
        r#"{"type":"system","subtype":"task_updated","task_id":"af8bdff19e7feb234","patch":{"status":"completed","end_time":1796000000000},"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_updated");
    };
    assert_eq!(updated.task_id, "af8bdff19e7feb234");
    assert_eq!(updated.patch.status.as_deref(), Some("completed"));

    // A patch without a status (only other fields changed).
    let System::TaskUpdated(updated) = system(
        r#"{"type":"system","subtype":"task_updated","task_id":"t","patch":{"end_time":1}}"#,
    ) else {
        panic!("not task_updated");
    };
    assert_eq!(updated.patch.status, None);

    let System::TaskNotification(note) = system(
        r#"{"type":"system","subtype":"task_notification","task_id":"af8bdff19e7feb234","tool_use_id":"toolu_mock_agent1","status":"completed","output_file":"<TMPDIR>/claude-0/<MANGLED_CWD>/s/tasks/af8bdff19e7feb234.output","summary":"The repo has 3 files.","summary_is_report":true,"usage":{"total_tokens":20000,"tool_uses":2,"duration_ms":1500},"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not task_notification");
    };
    assert_eq!(note.status.as_deref(), Some("completed"));
    assert_eq!(note.summary.as_deref(), Some("The repo has 3 files."));
    assert!(note.output_file.unwrap().ends_with(".output"));
    assert_eq!(note.usage.unwrap().tool_uses, 2);
}

#[test]
fn system_background_tasks_changed() {
    let System::BackgroundTasksChanged(changed) = system(
        r#"{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"a7b0c1","run_id":"r1","task_type":"local_agent","subagent_type":"general-purpose","description":"Count the files"}],"session_id":"s","uuid":"u"}"#,
    ) else {
        panic!("not background_tasks_changed");
    };
    assert_eq!(changed.tasks.len(), 1);
    assert_eq!(changed.tasks[0].task_id, "a7b0c1");
    assert_eq!(changed.tasks[0].task_type.as_deref(), Some("local_agent"));
    assert_eq!(
        changed.tasks[0].description.as_deref(),
        Some("Count the files")
    );

    let System::BackgroundTasksChanged(changed) =
        system(r#"{"tasks":[],"subtype":"background_tasks_changed","type":"system"}"#)
    else {
        panic!("not background_tasks_changed");
    };
    assert!(changed.tasks.is_empty());
}

#[test]
fn system_compact_boundary() {
    let System::CompactBoundary(compact) = system(
        r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":160000},"session_id":"s"}"#,
    ) else {
        panic!("not compact_boundary");
    };
    let meta = compact.compact_metadata.unwrap();
    assert_eq!(meta.trigger.as_deref(), Some("auto"));
    assert_eq!(meta.pre_tokens, Some(160_000));
}

#[test]
fn unknown_system_subtypes_are_not_errors() {
    for (line, expected) in [
        (
            r#"{"type":"system","subtype":"hook_started","hook_id":"h","extra":{"a":[1,2]}}"#,
            "hook_started",
        ),
        (r#"{"subtype":"brand_new","type":"system"}"#, "brand_new"),
        (r#"{"type":"system"}"#, ""),
        (r#"{"type":"system","subtype":null}"#, ""),
    ] {
        assert_eq!(
            system(line),
            System::Unknown {
                subtype: expected.to_owned()
            },
            "{line}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// stream_event

#[test]
fn stream_event_message_start() {
    let line = r#"{"type":"stream_event","event":{"message":{"content":[],"id":"msg_mock_39e59215aaa75c50b4d8fb0d","model":"claude-opus-5-5","role":"assistant","stop_reason":null,"stop_sequence":null,"type":"message","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":13601,"output_tokens":1,"service_tier":"standard"}},"type":"message_start"},"session_id":"594e3426-ebb8-4d51-a6bc-6388a348cb6f","parent_tool_use_id":null,"uuid":"d37cb3c3-f38f-407f-a083-6689693bdc90","ttft_ms":14,"thinking_display":"updates","api_message_id":"msg_mock_39e59215aaa75c50b4d8fb0d"}"#;
    let Inbound::StreamEvent(event) = parse(line) else {
        panic!("not a stream_event");
    };
    assert_eq!(event.parent_tool_use_id, None);
    let ApiStreamEvent::MessageStart { message } = event.event else {
        panic!("not message_start");
    };
    assert_eq!(message.id, "msg_mock_39e59215aaa75c50b4d8fb0d");
    assert_eq!(message.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(message.usage.unwrap().input_tokens, 13601);
}

#[test]
fn stream_event_deltas() {
    // Text (the notes' Japanese example: multi-byte text passes through unchanged).
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"こんにちは"}},"session_id":"ef76f2fe-1","parent_tool_use_id":null,"uuid":"e6585a23-1","api_message_id":"msg_mock_8443c9e8ee1f4b3d8cbd"}"#
        ),
        ApiStreamEvent::ContentBlockDelta {
            index: 0,
            delta: Delta::TextDelta {
                text: "こんにちは".to_owned()
            }
        }
    );
    // Keys in capture order ("type" last inside the event and the delta).
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"delta":{"text":"Thanks for answe","type":"text_delta"},"index":0,"type":"content_block_delta"},"session_id":"s","parent_tool_use_id":null}"#
        ),
        ApiStreamEvent::ContentBlockDelta {
            index: 0,
            delta: Delta::TextDelta {
                text: "Thanks for answe".to_owned()
            }
        }
    );
    assert_eq!(
        stream(
            r#"{"event":{"index":0,"delta":{"thinking":"Let me think","type":"thinking_delta"},"type":"content_block_delta"},"session_id":"s","type":"stream_event"}"#
        ),
        ApiStreamEvent::ContentBlockDelta {
            index: 0,
            delta: Delta::ThinkingDelta {
                thinking: "Let me think".to_owned()
            }
        }
    );
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"delta":{"partial_json":"{\"file_path\": \"<CWD>/he","type":"input_json_delta"},"index":1,"type":"content_block_delta"},"session_id":"s"}"#
        ),
        ApiStreamEvent::ContentBlockDelta {
            index: 1,
            delta: Delta::InputJsonDelta {
                partial_json: r#"{"file_path": "<CWD>/he"#.to_owned()
            }
        }
    );
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"mock-signature-abc123"}},"session_id":"s"}"#
        ),
        ApiStreamEvent::ContentBlockDelta {
            index: 0,
            delta: Delta::SignatureDelta {}
        }
    );
    // A delta kind this version does not know.
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{}}},"session_id":"s"}"#
        ),
        ApiStreamEvent::ContentBlockDelta {
            index: 2,
            delta: Delta::Unknown
        }
    );
}

/// The quick read of content deltas gives what the tagged enums give, for every stream_event
/// of every capture; a delta missing its text is still an error, not an empty delta.
#[test]
fn content_deltas_read_quickly_as_the_tagged_enums_read_them() {
    let mut deltas = 0;
    for (file, line) in fixture_lines() {
        let value: Value = serde_json::from_str(&line).unwrap();
        if value["type"] != "stream_event" {
            continue;
        }
        deltas += usize::from(value["event"]["type"] == "content_block_delta");
        let tagged: codiva_wire::claude::StreamEvent = serde_json::from_str(&line).unwrap();
        assert_eq!(parse(&line), Inbound::StreamEvent(tagged), "{file}: {line}");
    }
    assert!(deltas > 10, "the captures have deltas: {deltas}");
    for line in [
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0}}"#,
    ] {
        assert!(parse_line(line.as_bytes()).is_err(), "{line}");
    }
}

#[test]
fn stream_event_block_start_stop_and_message_end() {
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"content_block":{"id":"toolu_mock_790bc58a41d2b5c9205d8e12","input":{},"name":"AskUserQuestion","type":"tool_use"},"index":0,"type":"content_block_start"},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"msg_mock_39e59215aaa75c50b4d8fb0d"}"#
        ),
        ApiStreamEvent::ContentBlockStart {
            index: 0,
            content_block: ContentBlock::ToolUse {
                id: "toolu_mock_790bc58a41d2b5c9205d8e12".to_owned(),
                name: "AskUserQuestion".to_owned(),
                input: json!({}),
            }
        }
    );
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"content_block":{"text":"","type":"text"},"index":0,"type":"content_block_start"},"session_id":"s"}"#
        ),
        ApiStreamEvent::ContentBlockStart {
            index: 0,
            content_block: ContentBlock::Text {
                text: String::new()
            }
        }
    );
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}},"session_id":"s"}"#
        ),
        ApiStreamEvent::ContentBlockStart {
            index: 0,
            content_block: ContentBlock::Thinking {
                thinking: String::new(),
                signature: Some(String::new())
            }
        }
    );
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"index":0,"type":"content_block_stop"},"session_id":"s"}"#
        ),
        ApiStreamEvent::ContentBlockStop { index: 0 }
    );
    // message_delta with the real stop reason …
    let ApiStreamEvent::MessageDelta { delta, usage } = stream(
        r#"{"type":"stream_event","event":{"delta":{"stop_reason":"tool_use","stop_sequence":null},"type":"message_delta","usage":{"output_tokens":118}},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"m"}"#,
    ) else {
        panic!("not message_delta");
    };
    assert_eq!(delta.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(usage.unwrap().output_tokens, 118);
    // … and the one the CLI synthesises after an interrupt (claude-interrupt).
    let ApiStreamEvent::MessageDelta { delta, usage } = stream(
        r#"{"type":"stream_event","event":{"type":"message_delta","context_management":null,"delta":{"container":null,"stop_details":null,"stop_reason":null,"stop_sequence":null},"usage":{"output_tokens_details":{"thinking_tokens":0},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":13601,"iterations":[],"output_tokens":1,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard"}},"session_id":"s","parent_tool_use_id":null}"#,
    ) else {
        panic!("not message_delta");
    };
    assert_eq!(delta.stop_reason, None);
    assert_eq!(usage.unwrap().input_tokens, 13601);
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"type":"message_stop"},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"m"}"#
        ),
        ApiStreamEvent::MessageStop {}
    );
    // Raw SSE events this version does not read (`ping`, `error`).
    assert_eq!(
        stream(r#"{"type":"stream_event","event":{"type":"ping"}}"#),
        ApiStreamEvent::Unknown
    );
    assert_eq!(
        stream(
            r#"{"type":"stream_event","event":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}"#
        ),
        ApiStreamEvent::Unknown
    );
}

#[test]
fn stream_event_of_a_subagent_keeps_its_parent() {
    let Inbound::StreamEvent(event) = parse(
        r#"{"type":"stream_event","event":{"type":"message_stop"},"parent_tool_use_id":"toolu_agent"}"#,
    ) else {
        panic!("not a stream_event");
    };
    assert_eq!(event.parent_tool_use_id.as_deref(), Some("toolu_agent"));
}

// ---------------------------------------------------------------------------------------------
// assistant

#[test]
fn assistant_text_from_the_notes() {
    let line = assistant(
        r#"{"type":"assistant","message":{"id":"msg_mock_8443c9e8ee1f4b3d8cbd","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"こんにちは！日本語のテキストです。絵文字も🎌含みます。"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":13623,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"},"context_management":null},"parent_tool_use_id":null,"session_id":"ef76f2fe-1","uuid":"u","timestamp":"2026-11-30T05:19:58.790Z","request_id":"req_mock_1"}"#,
    );
    assert!(!line.is_synthetic());
    assert_eq!(line.message.id, "msg_mock_8443c9e8ee1f4b3d8cbd");
    assert_eq!(line.message.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(line.parent_tool_use_id, None);
    assert_eq!(line.session_id.as_deref(), Some("ef76f2fe-1"));
    assert_eq!(
        line.message.content,
        vec![ContentBlock::Text {
            text: "こんにちは！日本語のテキストです。絵文字も🎌含みます。".to_owned()
        }]
    );
    let usage = line.message.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (13623, 1));
}

#[test]
fn assistant_tool_use_from_a_fixture() {
    let line = assistant(
        r#"{"type":"assistant","message":{"content":[{"id":"toolu_mock_790bc58a41d2b5c9205d8e12","input":{"questions":[{"header":"Language","multiSelect":false,"options":[{"description":"日本語で","label":"Japanese"},{"description":"In English","label":"English"}],"question":"Which language should the greeting use?"}]},"name":"AskUserQuestion","type":"tool_use"}],"id":"msg_mock_39e59215aaa75c50b4d8fb0d","model":"claude-opus-5-5","role":"assistant","stop_reason":null,"stop_sequence":null,"type":"message","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":13601,"output_tokens":1,"service_tier":"standard"},"context_management":null},"parent_tool_use_id":null,"session_id":"594e3426-ebb8-4d51-a6bc-6388a348cb6f","uuid":"998e5bf7-5d30-4b58-bc24-e0323a7341c7","timestamp":"2026-11-30T05:20:00.797Z","request_id":"req_mock_7cff9f254f3a489bf20b0360"}"#,
    );
    let [ContentBlock::ToolUse { id, name, input }] = line.message.content.as_slice() else {
        panic!("not one tool_use block: {:?}", line.message.content);
    };
    assert_eq!(id, "toolu_mock_790bc58a41d2b5c9205d8e12");
    assert_eq!(name, "AskUserQuestion");
    assert_eq!(input["questions"][0]["options"][0]["label"], "Japanese");
}

#[test]
fn assistant_thinking() {
    let line = assistant(
        r#"{"message":{"id":"msg_mock_t1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"thinking","thinking":"The user wants a greeting.","signature":"mock-signature-abc123"}],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","thinking_duration_ms":840,"thinking_display":"updates","type":"assistant"}"#,
    );
    assert_eq!(
        line.message.content,
        vec![ContentBlock::Thinking {
            thinking: "The user wants a greeting.".to_owned(),
            signature: Some("mock-signature-abc123".to_owned())
        }]
    );
    // Redacted thinking and unknown block kinds do not break the line.
    let line = assistant(
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"redacted_thinking","data":"EuYBCkQ"},{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}]}}"#,
    );
    assert_eq!(
        line.message.content,
        vec![ContentBlock::RedactedThinking {}, ContentBlock::Unknown]
    );
}

#[test]
fn assistant_synthetic_api_errors() {
    let line = assistant(
        r#"{"type":"assistant","message":{"id":"dad2cb24-0000-4000-8000-000000000001","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","stop_sequence":"","type":"message","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"content":[{"type":"text","text":"Invalid API key · Fix external API key"}],"context_management":null},"parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"t","error":"authentication_failed","request_id":"req_mock_9","is_api_error_message":true,"api_error_status":401,"api_error_type":"authentication_error"}"#,
    );
    assert!(line.is_synthetic());
    assert!(line.is_api_error_message);
    assert_eq!(line.error.as_deref(), Some("authentication_failed"));
    assert_eq!(line.api_error_status, Some(401));
    assert_eq!(line.api_error_type.as_deref(), Some("authentication_error"));

    let line = assistant(
        r#"{"api_error_type":"overloaded_error","api_error_status":529,"is_api_error_message":true,"error":"server_error","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"API Error: Repeated 529 Overloaded errors. Check your inference gateway (127.0.0.1:<PORT>)."}]},"parent_tool_use_id":null,"type":"assistant"}"#,
    );
    assert!(line.is_synthetic());
    assert_eq!(line.api_error_status, Some(529));

    // `<synthetic>` alone (no error fields) is still the CLI's own message.
    let line = assistant(
        r#"{"type":"assistant","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#,
    );
    assert!(line.is_synthetic());
}

#[test]
fn assistant_of_a_subagent() {
    let line = assistant(
        r#"{"type":"assistant","message":{"id":"msg_mock_sub","model":"claude-opus-5-5","content":[{"type":"text","text":"Three files."}]},"parent_tool_use_id":"toolu_mock_agent1","session_id":"s","agent_id":"af8bdff19e7feb234","subagent_type":"general-purpose","task_description":"Inspect the repo"}"#,
    );
    assert_eq!(
        line.parent_tool_use_id.as_deref(),
        Some("toolu_mock_agent1")
    );
    assert_eq!(line.agent_id.as_deref(), Some("af8bdff19e7feb234"));
}

// ---------------------------------------------------------------------------------------------
// user

#[test]
fn user_replay_echo_string_and_blocks() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":"create hello.txt"},"session_id":"s","parent_tool_use_id":null,"uuid":"u","timestamp":"t","isReplay":true}"#,
    );
    assert!(line.is_replay);
    assert!(!line.is_interrupt_marker());
    assert_eq!(line.text(), "create hello.txt");

    // What codiva sends (content blocks) comes back as blocks, in the CLI's key order.
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"text":"greet me, ask first","type":"text"}]},"session_id":"594e3426-ebb8-4d51-a6bc-6388a348cb6f","parent_tool_use_id":null,"uuid":"f1042d34-352e-416f-a915-15a796b577c3","timestamp":"2026-11-30T05:20:00.734Z","isReplay":true}"#,
    );
    assert!(line.is_replay);
    assert_eq!(line.text(), "greet me, ask first");
    assert_eq!(line.tool_results().count(), 0);

    // An echoed image block (codiva may send images).
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},"isReplay":true}"#,
    );
    assert_eq!(line.text(), "look");
    let UserContent::Blocks(blocks) = &line.message.content else {
        panic!("not blocks");
    };
    assert_eq!(blocks[1], ContentBlock::Image {});
}

#[test]
fn user_tool_result_string_form() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_mock_1","type":"tool_result","content":"File created successfully at: <CWD>/hello.txt (11 bytes)"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"t","tool_use_result":{"type":"create","filePath":"<CWD>/hello.txt","content":"héllo 世界\n","structuredPatch":[],"originalFile":null,"userModified":false},"tool_result_meta":[{"id":"toolu_mock_1","permission_decision":{"decision":"accept","source":"user_temporary"}}]}"#,
    );
    let results: Vec<&ContentBlock> = line.tool_results().collect();
    assert_eq!(
        results,
        vec![&ContentBlock::ToolResult {
            tool_use_id: "toolu_mock_1".to_owned(),
            content: ToolResultContent::Text(
                "File created successfully at: <CWD>/hello.txt (11 bytes)".to_owned()
            ),
            is_error: false,
        }]
    );
    assert_eq!(line.tool_use_result.unwrap()["type"], "create");
}

#[test]
fn user_tool_result_block_form() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_search","content":[{"type":"tool_reference","tool_name":"TaskCreate"},{"type":"tool_reference","tool_name":"TaskUpdate"},{"type":"text","text":"loaded"},{"type":"image","source":{}}]}]},"parent_tool_use_id":null}"#,
    );
    let Some(ContentBlock::ToolResult {
        content, is_error, ..
    }) = line.tool_results().next()
    else {
        panic!("no tool_result");
    };
    assert!(!is_error);
    assert!(matches!(content, ToolResultContent::Blocks(blocks) if blocks.len() == 4));
    assert_eq!(
        content.to_text(),
        "[tool TaskCreate]\n[tool TaskUpdate]\nloaded\n[image]"
    );
}

#[test]
fn user_tool_result_errors() {
    // Host denied (claude-ask-user-question-decline).
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"The user would rather chat about this first.","is_error":true,"tool_use_id":"toolu_mock_790bc58a41d2b5c9205d8e12"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"t","tool_use_result":"Error: The user would rather chat about this first.","tool_result_meta":[{"id":"toolu_mock_790bc58a41d2b5c9205d8e12","non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"user_reject"}}]}"#,
    );
    let Some(ContentBlock::ToolResult { is_error, .. }) = line.tool_results().next() else {
        panic!("no tool_result");
    };
    assert!(is_error);
    assert_eq!(
        line.tool_use_result,
        Some(json!("Error: The user would rather chat about this first."))
    );
    // Bash with a non-zero exit.
    let line = user(
        r#"{"message":{"content":[{"content":"Exit code 3\ntotal 0","is_error":true,"tool_use_id":"toolu_b","type":"tool_result"}],"role":"user"},"tool_use_result":"Error: Exit code 3\ntotal 0","type":"user"}"#,
    );
    let Some(ContentBlock::ToolResult {
        content, is_error, ..
    }) = line.tool_results().next()
    else {
        panic!("no tool_result");
    };
    assert!(is_error);
    assert!(content.to_text().starts_with("Exit code 3\n"));
}

#[test]
fn user_interrupt_markers() {
    for marker in [
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
    ] {
        let line = format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"{marker}"}}]}},"parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"t"}}"#
        );
        assert!(user(&line).is_interrupt_marker(), "{marker}");
    }
    // The same text sent by the user and echoed back is not a marker.
    let echo = user(
        r#"{"type":"user","message":{"role":"user","content":"[Request interrupted by user]"},"isReplay":true}"#,
    );
    assert!(!echo.is_interrupt_marker());
    // Nor is a text that merely contains it.
    let other = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user] and more"}]}}"#,
    );
    assert!(!other.is_interrupt_marker());
}

#[test]
fn user_synthetic_continuation() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Your response above was cut off mid-stream. Resume directly from where it stops — no apology, no recap. If none of it survived, answer the request from the start."}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"t","isSynthetic":true}"#,
    );
    assert!(line.is_synthetic);
    assert!(!line.is_replay);
    assert!(!line.is_interrupt_marker());
}

#[test]
fn user_set_model_local_command_echo() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model to `claude-sonnet-4-5`</local-command-stdout>"},"parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"t","isReplay":true}"#,
    );
    assert!(line.is_replay);
    assert!(line.text().starts_with("<local-command-stdout>"));
}

#[test]
fn user_subagent_prompt() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"List the files and report."}]},"parent_tool_use_id":"toolu_mock_agent1","session_id":"s","uuid":"u","timestamp":"t","agent_id":"af8bdff19e7feb234","subagent_type":"general-purpose","task_description":"Inspect the repo"}"#,
    );
    assert_eq!(
        line.parent_tool_use_id.as_deref(),
        Some("toolu_mock_agent1")
    );
    assert_eq!(line.agent_id.as_deref(), Some("af8bdff19e7feb234"));
    assert_eq!(line.text(), "List the files and report.");
    assert!(!line.is_replay);
}

#[test]
fn user_stdin_eof_while_prompt_pending() {
    let line = user(
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_w","content":"Tool permission request failed: AbortError: Tool permission stream closed before response received","is_error":true}]}}"#,
    );
    assert_eq!(line.tool_results().count(), 1);
}

// ---------------------------------------------------------------------------------------------
// result

#[test]
fn result_success_from_the_notes() {
    let line = result(
        r#"{"duration_api_ms":170,"stop_reason":"end_turn","session_id":"ef76f2fe-1","total_cost_usd":0.055552,"usage":{"input_tokens":13623,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":53,"output_tokens_details":{"thinking_tokens":0},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null},"modelUsage":{"claude-opus-5-5":{"inputTokens":13623,"outputTokens":53,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.055552,"contextWindow":1000000,"maxOutputTokens":128000}},"permission_denials":[],"terminal_reason":"completed","fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","subagent_stats":{"spawned":0},"safety_stops":0,"is_error":false,"num_turns":1,"subtype":"success","api_error_status":null,"result":"こんにちは！日本語のテキストです。","ttft_ms":1126,"type":"result","duration_ms":1172,"uuid":"u","begun_message_ids":["msg_mock_1"],"ttft_stream_ms":1090,"time_to_request_ms":1013,"first_content_frame_ms":1120,"queued_turn_count":0,"result_index":0,"model_usage_since_last_result":{}}"#,
    );
    assert_eq!(line.subtype, "success");
    assert!(!line.is_error);
    assert_eq!(line.terminal_reason.as_deref(), Some("completed"));
    assert_eq!(
        line.result.as_deref(),
        Some("こんにちは！日本語のテキストです。")
    );
    assert_eq!(line.session_id.as_deref(), Some("ef76f2fe-1"));
    assert_eq!(line.total_cost_usd, Some(0.055552));
    assert_eq!(line.usage.unwrap().output_tokens, 53);
    let model = &line.model_usage["claude-opus-5-5"];
    assert_eq!(model.context_window, Some(1_000_000));
    assert_eq!(model.max_output_tokens, Some(128_000));
    assert_eq!(model.cost_usd, Some(0.055552));
    assert_eq!(line.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(line.num_turns, Some(1));
    assert_eq!(line.duration_ms, Some(1172));
    assert_eq!(line.api_error_status, None);
}

#[test]
fn result_with_permission_denials() {
    let line = result(
        r#"{"type":"result","subtype":"success","is_error":false,"terminal_reason":"completed","result":"OK, no file.","permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_w","tool_input":{"file_path":"<CWD>/hello.txt","content":"x"}}]}"#,
    );
    assert_eq!(line.permission_denials.len(), 1);
    assert_eq!(line.permission_denials[0].tool_name, "Write");
    assert_eq!(
        line.permission_denials[0].tool_input["file_path"],
        "<CWD>/hello.txt"
    );
}

#[test]
fn result_interrupted() {
    let line = result(
        r#"{"duration_api_ms":0,"stop_reason":null,"session_id":"f5bacb10-3b17-4021-be87-93b02804d4a4","total_cost_usd":0.054424,"usage":{"input_tokens":0,"output_tokens":0},"modelUsage":{"claude-opus-5-5":{"inputTokens":13601,"outputTokens":1,"contextWindow":1000000}},"permission_denials":[],"terminal_reason":"aborted_streaming","is_error":true,"num_turns":2,"subtype":"error_during_execution","errors":["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"],"type":"result","duration_ms":82,"uuid":"u","queued_turn_count":0,"result_index":0}"#,
    );
    assert_eq!(line.subtype, "error_during_execution");
    assert!(line.is_error);
    assert_eq!(line.terminal_reason.as_deref(), Some("aborted_streaming"));
    assert_eq!(line.result, None);
    assert_eq!(line.errors.len(), 1);
    assert_eq!(line.stop_reason, None);

    let line = result(
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_tools","stop_reason":"tool_use","permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_w","tool_input":{}}],"session_id":"s"}"#,
    );
    assert_eq!(line.terminal_reason.as_deref(), Some("aborted_tools"));
    assert_eq!(line.stop_reason.as_deref(), Some("tool_use"));
}

#[test]
fn result_api_error() {
    let line = result(
        r#"{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":401,"api_error_type":"authentication_error","result":"Invalid API key · Fix external API key","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[],"num_turns":1}"#,
    );
    assert_eq!(line.subtype, "success");
    assert!(line.is_error);
    assert_eq!(line.terminal_reason.as_deref(), Some("api_error"));
    assert_eq!(line.api_error_status, Some(401));
    assert_eq!(
        line.result.as_deref(),
        Some("Invalid API key · Fix external API key")
    );
}

#[test]
fn result_resume_bad_id() {
    let line = result(
        r#"{"type":"result","subtype":"error_during_execution","duration_ms":0,"duration_api_ms":0,"is_error":true,"num_turns":0,"session_id":"00000000-0000-4000-8000-000000000000","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[],"uuid":"u","errors":["No conversation found with session ID: 00000000-0000-4000-8000-000000000000"]}"#,
    );
    assert!(line.is_error);
    assert_eq!(line.terminal_reason, None);
    assert_eq!(
        line.errors,
        vec!["No conversation found with session ID: 00000000-0000-4000-8000-000000000000"]
    );
}

// ---------------------------------------------------------------------------------------------
// control_request / control_cancel_request / control_response

#[test]
fn can_use_tool_write_with_set_mode_suggestion() {
    let (id, ask) = can_use_tool(
        r#"{"type":"control_request","request_id":"fc701820-1de4-417d-84e8-dad1325f495b","request":{"subtype":"can_use_tool","tool_name":"Write","display_name":"Write","input":{"file_path":"<CWD>/hello.txt","content":"héllo 世界\n"},"description":"hello.txt","permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}],"tool_use_id":"toolu_mock_w1"}}"#,
    );
    assert_eq!(id, "fc701820-1de4-417d-84e8-dad1325f495b");
    assert_eq!(ask.tool_name, "Write");
    assert_eq!(ask.display_name.as_deref(), Some("Write"));
    assert_eq!(ask.description.as_deref(), Some("hello.txt"));
    assert_eq!(ask.input["content"], "héllo 世界\n");
    assert_eq!(
        ask.permission_suggestions,
        vec![json!({"type":"setMode","mode":"acceptEdits","destination":"session"})]
    );
    assert_eq!(ask.tool_use_id.as_deref(), Some("toolu_mock_w1"));
    assert_eq!(ask.agent_id, None);
    assert!(!ask.requires_user_interaction);
}

#[test]
fn can_use_tool_bash_with_three_suggestions_and_blocked_path() {
    let (_, ask) = can_use_tool(
        r#"{"request":{"tool_name":"Bash","display_name":"Bash","input":{"command":"touch bash1.txt && echo created-1","description":"Create a file"},"description":"Create a file","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch bash1.txt && echo created-1"}],"behavior":"allow","destination":"localSettings"},{"type":"addDirectories","directories":["<CWD>"],"destination":"session"},{"type":"setMode","mode":"acceptEdits","destination":"session"}],"blocked_path":"<CWD>/bash1.txt","decision_reason_type":"subcommandResults","decision_reason":"This command requires approval","tool_use_id":"toolu_b1","subtype":"can_use_tool"},"request_id":"b192ab9c","type":"control_request"}"#,
    );
    assert_eq!(ask.permission_suggestions.len(), 3);
    assert_eq!(ask.permission_suggestions[0]["type"], "addRules");
    assert_eq!(ask.permission_suggestions[1]["type"], "addDirectories");
    assert_eq!(ask.permission_suggestions[2]["type"], "setMode");
    assert_eq!(ask.blocked_path.as_deref(), Some("<CWD>/bash1.txt"));
    assert_eq!(
        ask.decision_reason.as_deref(),
        Some("This command requires approval")
    );
    assert_eq!(
        ask.decision_reason_type.as_deref(),
        Some("subcommandResults")
    );

    let (_, ask) = can_use_tool(
        r#"{"type":"control_request","request_id":"r3","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls -la && exit 3"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"exit 3"}],"behavior":"allow","destination":"localSettings"}],"tool_use_id":"toolu_b3"}}"#,
    );
    assert_eq!(
        ask.permission_suggestions[0]["rules"][0]["ruleContent"],
        "exit 3"
    );
}

#[test]
fn can_use_tool_ask_user_question() {
    let (id, ask) = can_use_tool(
        r#"{"type":"control_request","request_id":"619291c4-0000-4000-8000-000000000000","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","display_name":"AskUserQuestion","input":{"questions":[{"question":"Which language should the greeting use?","header":"Language","options":[{"label":"Japanese","description":"日本語で"},{"label":"English","description":"In English"}],"multiSelect":false},{"question":"Which extras do you want?","header":"Extras","options":[{"label":"Emoji","description":"🎌"},{"label":"Signature","description":"Sign it"}],"multiSelect":true}]},"tool_use_id":"toolu_q","requires_user_interaction":true}}"#,
    );
    assert_eq!(id, "619291c4-0000-4000-8000-000000000000");
    assert_eq!(ask.tool_name, "AskUserQuestion");
    assert!(ask.requires_user_interaction);
    assert!(ask.permission_suggestions.is_empty());
    assert_eq!(ask.input["questions"][1]["multiSelect"], true);
}

#[test]
fn can_use_tool_of_a_subagent_and_exit_plan_mode() {
    let (_, ask) = can_use_tool(
        r#"{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch sub.txt"},"tool_use_id":"toolu_sub","agent_id":"af8bdff19e7feb234"}}"#,
    );
    assert_eq!(ask.agent_id.as_deref(), Some("af8bdff19e7feb234"));
    let (_, ask) = can_use_tool(
        r#"{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"ExitPlanMode","input":{},"decision_reason_type":"mode","requires_user_interaction":true}}"#,
    );
    assert_eq!(ask.input, json!({}));
    assert_eq!(ask.decision_reason_type.as_deref(), Some("mode"));
}

#[test]
fn hook_callback_and_unknown_control_requests() {
    let request_line = request(
        r#"{"type":"control_request","request_id":"hook-1","request":{"subtype":"hook_callback","callback_id":"pre_write","input":{"session_id":"s","transcript_path":"<HOME>/t.jsonl","cwd":"<CWD>","prompt_id":"p","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"<CWD>/a.txt"},"tool_use_id":"toolu_w"},"tool_use_id":"toolu_w"}}"#,
    );
    assert_eq!(request_line.request_id, "hook-1");
    let CliRequest::HookCallback { callback_id, input } = request_line.request else {
        panic!("not hook_callback");
    };
    assert_eq!(callback_id, "pre_write");
    assert_eq!(input["hook_event_name"], "PreToolUse");

    let request_line = request(
        r#"{"request":{"subtype":"mcp_message","server_name":"x","message":{}},"request_id":"r9","type":"control_request"}"#,
    );
    assert_eq!(
        request_line.request,
        CliRequest::Unknown {
            subtype: "mcp_message".to_owned()
        }
    );
    let request_line = request(r#"{"type":"control_request","request_id":"r10","request":{}}"#);
    assert_eq!(
        request_line.request,
        CliRequest::Unknown {
            subtype: String::new()
        }
    );
}

#[test]
fn control_cancel_request() {
    assert_eq!(
        parse(
            r#"{"type":"control_cancel_request","request_id":"4d3030bf-a816-4ecf-9aa4-cc785963c0cf"}"#
        ),
        Inbound::ControlCancelRequest(codiva_wire::claude::ControlCancelRequest {
            request_id: "4d3030bf-a816-4ecf-9aa4-cc785963c0cf".to_owned()
        })
    );
}

#[test]
fn control_responses() {
    let Inbound::ControlResponse(response) = parse(
        r#"{"type":"control_response","response":{"subtype":"success","request_id":"codiva_2","response":{"still_queued":[]}}}"#,
    ) else {
        panic!("not a control_response");
    };
    assert!(response.response.is_success());
    assert_eq!(response.response.request_id, "codiva_2");
    assert_eq!(
        response.response.response,
        Some(json!({"still_queued": []}))
    );

    let Inbound::ControlResponse(response) = parse(
        r#"{"type":"control_response","response":{"subtype":"error","request_id":"codiva_3","error":"Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan","error_code":"invalid_mode"}}"#,
    ) else {
        panic!("not a control_response");
    };
    assert!(!response.response.is_success());
    assert_eq!(
        response.response.error_code.as_deref(),
        Some("invalid_mode")
    );
    assert!(response.response.error.unwrap().starts_with("Cannot set"));

    // set_max_thinking_tokens: success without a `response` key.
    let Inbound::ControlResponse(response) = parse(
        r#"{"type":"control_response","response":{"subtype":"success","request_id":"codiva_4"}}"#,
    ) else {
        panic!("not a control_response");
    };
    assert!(response.response.is_success());
    assert_eq!(response.response.response, None);

    // The echo of the host's own answer (--replay-user-messages): keys sorted, type last.
    let Inbound::ControlResponse(response) = parse(
        r#"{"response":{"request_id":"1b7461da-6ded-4cb2-977f-d175e442ebd4","response":{"behavior":"deny","interrupt":false,"message":"The user does not want new files right now."},"subtype":"success"},"type":"control_response"}"#,
    ) else {
        panic!("not a control_response");
    };
    assert_eq!(
        response.response.response.unwrap()["behavior"],
        json!("deny")
    );
}

#[test]
fn unknown_types_and_extra_fields_are_not_errors() {
    // Known now, and a partial one still reads (every field of it is optional).
    let Inbound::RateLimit(event) =
        parse(r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","new":1}}"#)
    else {
        panic!("rate_limit_event is a known line")
    };
    assert_eq!(event.rate_limit_info.status.as_deref(), Some("allowed"));
    assert!(event.rate_limit_info.unified_windows.is_empty());
    for (line, kind) in [
        (
            r#"{"summary":"Ran 2 tools","type":"tool_use_summary"}"#,
            "tool_use_summary",
        ),
        (
            r#"{"type":"auth_status","isAuthenticating":false}"#,
            "auth_status",
        ),
        (r#"{"type":""}"#, ""),
    ] {
        assert_eq!(
            parse(line),
            Inbound::Unknown {
                kind: kind.to_owned()
            }
        );
    }
    // Extra fields at every level are ignored.
    let line = user(
        r#"{"type":"user","brand_new":{"x":1},"message":{"role":"user","new_field":[1],"content":[{"type":"tool_result","tool_use_id":"t","content":"ok","cache_control":{"type":"ephemeral"}}]}}"#,
    );
    assert_eq!(line.tool_results().count(), 1);
}

#[test]
fn non_protocol_lines_are_errors_not_panics() {
    for line in [
        "",
        "   ",
        "this is {not json",
        "[]",
        "null",
        "42",
        "{}",
        r#"{"type":5}"#,
        r#"{"type":null}"#,
        r#"{"type":"user"}"#,
        r#"{"type":"assistant","message":"nope"}"#,
        r#"{"type":"stream_event"}"#,
        r#"{"type":"control_request","request":{"subtype":"can_use_tool"}}"#,
        r#"{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":7}}"#,
        r#"{"type":"user","message":{"content":[{"type":"text"}]}}"#,
        "{\"type\":\"system\",\"subtype\":\"init\"",
        "\u{feff}{\"type\":\"system\"}",
    ] {
        let parsed = parse_line(line.as_bytes());
        assert!(parsed.is_err(), "{line:?} parsed as {parsed:?}");
        assert!(!parsed.unwrap_err().message.is_empty());
    }
    // Invalid UTF-8 is an error too.
    assert!(parse_line(b"{\"type\":\"user\xff\"}").is_err());
}

#[test]
fn every_fixture_line_parses_into_a_known_kind() {
    let lines = fixture_lines();
    for (file, line) in &lines {
        match parse_line(line.as_bytes()) {
            Ok(Inbound::Unknown { kind }) => panic!("{file}: unknown type {kind}: {line}"),
            Ok(Inbound::System(System::Unknown { subtype })) => {
                panic!("{file}: unknown system subtype {subtype}: {line}")
            }
            Ok(_) => {}
            Err(err) => panic!("{file}: {err}\n{line}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// encode: exact lines

fn encoded(message: &Outbound) -> String {
    let line = encode(message).into_string();
    assert!(!line.contains('\n'), "{line}");
    serde_json::from_str::<Value>(&line).expect("encode wrote invalid JSON");
    line
}

// serde_json's `Map` is ordered by key (no `preserve_order`), so the lines have sorted keys;
// the CLI does not care about key order (its echoes in the fixtures show the same order).

#[test]
fn encode_user_text() {
    assert_eq!(
        encoded(&Outbound::User(UserInput::text("create hello.txt"))),
        r#"{"message":{"content":[{"text":"create hello.txt","type":"text"}],"role":"user"},"parent_tool_use_id":null,"session_id":"","type":"user"}"#
    );
}

#[test]
fn encode_user_text_and_image() {
    let input = UserInput {
        blocks: vec![
            InputBlock::Text("what is this?".to_owned()),
            InputBlock::Image {
                media_type: "image/png".to_owned(),
                data_base64: "iVBORw0KGgo=".to_owned(),
            },
        ],
    };
    assert_eq!(
        encoded(&Outbound::User(input)),
        r#"{"message":{"content":[{"text":"what is this?","type":"text"},{"source":{"data":"iVBORw0KGgo=","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"},"parent_tool_use_id":null,"session_id":"","type":"user"}"#
    );
}

#[test]
fn encode_host_requests() {
    let request = |request_id: &str, request: HostRequest| {
        encoded(&Outbound::Request {
            request_id: request_id.to_owned(),
            request,
        })
    };
    assert_eq!(
        request("codiva_1", HostRequest::Initialize),
        r#"{"request":{"subtype":"initialize"},"request_id":"codiva_1","type":"control_request"}"#
    );
    assert_eq!(
        request("codiva_2", HostRequest::Interrupt),
        r#"{"request":{"subtype":"interrupt"},"request_id":"codiva_2","type":"control_request"}"#
    );
    assert_eq!(
        request(
            "codiva_3",
            HostRequest::SetModel(Some("claude-sonnet-4-5".to_owned()))
        ),
        r#"{"request":{"model":"claude-sonnet-4-5","subtype":"set_model"},"request_id":"codiva_3","type":"control_request"}"#
    );
    assert_eq!(
        request("codiva_4", HostRequest::SetModel(None)),
        r#"{"request":{"subtype":"set_model"},"request_id":"codiva_4","type":"control_request"}"#
    );
    assert_eq!(
        request(
            "codiva_5",
            HostRequest::SetPermissionMode("acceptEdits".to_owned())
        ),
        r#"{"request":{"mode":"acceptEdits","subtype":"set_permission_mode"},"request_id":"codiva_5","type":"control_request"}"#
    );
}

fn permission(decision: PermissionDecision) -> String {
    encoded(&Outbound::Permission {
        request_id: "fc701820".to_owned(),
        decision,
    })
}

#[test]
fn encode_permission_allow() {
    assert_eq!(
        permission(PermissionDecision::Allow {
            updated_input: Some(json!({"file_path":"<CWD>/hello.txt","content":"héllo 世界\n"})),
            updated_permissions: Vec::new(),
        }),
        r#"{"response":{"request_id":"fc701820","response":{"behavior":"allow","updatedInput":{"content":"héllo 世界\n","file_path":"<CWD>/hello.txt"}},"subtype":"success"},"type":"control_response"}"#
    );
    assert_eq!(
        permission(PermissionDecision::Allow {
            updated_input: None,
            updated_permissions: Vec::new(),
        }),
        r#"{"response":{"request_id":"fc701820","response":{"behavior":"allow"},"subtype":"success"},"type":"control_response"}"#
    );
    assert_eq!(
        permission(PermissionDecision::Allow {
            updated_input: Some(json!({"content":"a","file_path":"<CWD>/a.txt"})),
            updated_permissions: vec![
                json!({"type":"setMode","mode":"acceptEdits","destination":"session"})
            ],
        }),
        r#"{"response":{"request_id":"fc701820","response":{"behavior":"allow","updatedInput":{"content":"a","file_path":"<CWD>/a.txt"},"updatedPermissions":[{"destination":"session","mode":"acceptEdits","type":"setMode"}]},"subtype":"success"},"type":"control_response"}"#
    );
}

#[test]
fn encode_permission_deny() {
    assert_eq!(
        permission(PermissionDecision::Deny {
            message: "The user does not want new files right now.".to_owned(),
            interrupt: false,
        }),
        r#"{"response":{"request_id":"fc701820","response":{"behavior":"deny","interrupt":false,"message":"The user does not want new files right now."},"subtype":"success"},"type":"control_response"}"#
    );
    assert_eq!(
        permission(PermissionDecision::Deny {
            message: "Stop.".to_owned(),
            interrupt: true,
        }),
        r#"{"response":{"request_id":"fc701820","response":{"behavior":"deny","interrupt":true,"message":"Stop."},"subtype":"success"},"type":"control_response"}"#
    );
}

#[test]
fn encode_hook_answer_and_unsupported() {
    assert_eq!(
        encoded(&Outbound::HookAnswer {
            request_id: "hook-1".to_owned(),
            output: json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}),
        }),
        r#"{"response":{"request_id":"hook-1","response":{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}},"subtype":"success"},"type":"control_response"}"#
    );
    assert_eq!(
        encoded(&Outbound::Unsupported {
            request_id: "r9".to_owned(),
            subtype: "mcp_message".to_owned(),
        }),
        r#"{"response":{"error":"codiva does not support control request subtype: mcp_message","error_code":"unsupported_request","request_id":"r9","subtype":"error"},"type":"control_response"}"#
    );
}

#[test]
fn encode_escapes_line_breaks_and_separators() {
    assert_eq!(
        encoded(&Outbound::User(UserInput::text(
            "a\nb\r\u{2028}c\u{2029}\u{0}"
        ))),
        r#"{"message":{"content":[{"text":"a\nb\r\u2028c\u2029\u0000","type":"text"}],"role":"user"},"parent_tool_use_id":null,"session_id":"","type":"user"}"#
    );
}

// ---------------------------------------------------------------------------------------------
// encode: one line for any text

/// The line is a single line for every reader: no CR/LF bytes, no raw U+2028/U+2029 (some
/// splitters treat them as line ends), no raw control characters, and valid JSON.
fn assert_one_line(line: &str) -> Value {
    assert!(!line.bytes().any(|b| b == b'\n' || b == b'\r'), "{line:?}");
    assert!(!line.contains(['\u{2028}', '\u{2029}']), "{line:?}");
    assert!(!line.chars().any(|c| c < ' '), "{line:?}");
    serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line:?}"))
}

fn user_round_trip(text: &str) {
    let line = encode(&Outbound::User(UserInput::text(text)));
    let value = assert_one_line(line.as_str());
    assert_eq!(value["message"]["content"][0]["text"].as_str(), Some(text));
    assert_eq!(value["type"], "user");
}

fn permission_round_trip(text: &str) {
    let deny = encode(&Outbound::Permission {
        request_id: text.to_owned(),
        decision: PermissionDecision::Deny {
            message: text.to_owned(),
            interrupt: false,
        },
    });
    let value = assert_one_line(deny.as_str());
    assert_eq!(value["response"]["request_id"].as_str(), Some(text));
    assert_eq!(
        value["response"]["response"]["message"].as_str(),
        Some(text)
    );

    let allow = encode(&Outbound::Permission {
        request_id: "r".to_owned(),
        decision: PermissionDecision::Allow {
            updated_input: Some(json!({"command": text})),
            updated_permissions: vec![
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":text}]}),
            ],
        },
    });
    let value = assert_one_line(allow.as_str());
    assert_eq!(
        value["response"]["response"]["updatedInput"]["command"].as_str(),
        Some(text)
    );
}

/// An AskUserQuestion answer: the questions are keys, the labels values.
fn question_round_trip(question: &str, answer: &str) {
    let mut answers = serde_json::Map::new();
    answers.insert(question.to_owned(), Value::String(answer.to_owned()));
    let line = encode(&Outbound::Permission {
        request_id: "q".to_owned(),
        decision: PermissionDecision::Allow {
            updated_input: Some(json!({
                "questions": [{"question": question, "header": answer, "options": [], "multiSelect": false}],
                "answers": Value::Object(answers),
            })),
            updated_permissions: Vec::new(),
        },
    });
    let value = assert_one_line(line.as_str());
    let input = &value["response"]["response"]["updatedInput"];
    assert_eq!(input["answers"][question].as_str(), Some(answer));
    assert_eq!(input["questions"][0]["question"].as_str(), Some(question));
}

/// Text made of the characters that break naive line protocols.
fn nasty_text() -> impl Strategy<Value = String> {
    let nasty_char = prop_oneof![
        Just('\n'),
        Just('\r'),
        Just('\u{2028}'),
        Just('\u{2029}'),
        Just('"'),
        Just('\\'),
        Just('\u{85}'),
        Just('\u{feff}'),
        proptest::char::range('\u{0}', '\u{1f}'),
        proptest::char::range('\u{7f}', '\u{9f}'),
        proptest::char::range('\u{3040}', '\u{30ff}'),
        proptest::char::range('\u{4e00}', '\u{9fff}'),
        proptest::char::range('\u{1f300}', '\u{1faff}'),
        Just('\u{200d}'),
        Just('\u{fe0f}'),
        any::<char>(),
    ];
    proptest::collection::vec(nasty_char, 0..96).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn user_text_is_one_line_for_any_string(text in any::<String>()) {
        user_round_trip(&text);
    }

    #[test]
    fn user_text_is_one_line_for_nasty_strings(text in nasty_text()) {
        user_round_trip(&text);
    }

    #[test]
    fn permission_answers_are_one_line(text in prop_oneof![any::<String>(), nasty_text()]) {
        permission_round_trip(&text);
    }

    #[test]
    fn question_answers_are_one_line(
        question in prop_oneof![any::<String>(), nasty_text()],
        answer in nasty_text(),
    ) {
        question_round_trip(&question, &answer);
    }
}

#[test]
fn user_text_of_one_megabyte_is_one_line() {
    let unit = "日本語🎌\n\r\u{2028}\u{2029}\u{0}\u{1f}\u{7f}\u{9f}\"\\ text ";
    let mut text = String::with_capacity(1 << 20);
    while text.len() < 1 << 20 {
        text.push_str(unit);
    }
    user_round_trip(&text);
    permission_round_trip(&text);
}

/// A Rust `String` cannot hold a lone surrogate, so no such text can ever reach `encode`. The
/// one way one could be smuggled in is as a JSON escape from an outside client (`codiva serve`,
/// JSON-RPC); serde_json refuses it while decoding that request, before it is a `String`.
#[test]
fn lone_surrogates_are_rejected_before_they_could_reach_encode() {
    for escaped in [r#""\ud800""#, r#""\udc00""#, r#""a\ud83d b""#] {
        assert!(
            serde_json::from_str::<String>(escaped).is_err(),
            "{escaped}"
        );
        assert!(serde_json::from_str::<Value>(escaped).is_err(), "{escaped}");
        let request = format!(r#"{{"jsonrpc":"2.0","id":1,"params":{{"text":{escaped}}}}}"#);
        assert!(
            serde_json::from_str::<Value>(&request).is_err(),
            "{request}"
        );
    }
    // A well-formed pair is fine and round-trips.
    let text: String = serde_json::from_str(r#""\ud83c\udf8c""#).unwrap();
    assert_eq!(text, "🎌");
    user_round_trip(&text);
    // The same holds for the lines we read: a lone surrogate is an error, not a panic.
    assert!(
        parse_line(
            br#"{"type":"user","message":{"role":"user","content":"\ud800"},"isReplay":true}"#
        )
        .is_err()
    );
}

// ---------------------------------------------------------------------------------------------
// parse_line never panics

/// Fragments of real lines, so that random input reaches past the first pass.
fn json_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(&b"{"[..]),
        Just(&b"}"[..]),
        Just(&b"["[..]),
        Just(&b"]"[..]),
        Just(&b","[..]),
        Just(&b":"[..]),
        Just(&b"\""[..]),
        Just(&b"null"[..]),
        Just(&b"true"[..]),
        Just(&b"-1e999"[..]),
        Just(&b"18446744073709551616"[..]),
        Just(&b"\\u0000"[..]),
        Just(&b"\\ud800"[..]),
        Just(&b"\"type\":\"system\""[..]),
        Just(&b"\"type\":\"user\""[..]),
        Just(&b"\"type\":\"assistant\""[..]),
        Just(&b"\"type\":\"result\""[..]),
        Just(&b"\"type\":\"stream_event\""[..]),
        Just(&b"\"type\":\"control_request\""[..]),
        Just(&b"\"type\":\"control_response\""[..]),
        Just(&b"\"subtype\":\"init\""[..]),
        Just(&b"\"subtype\":\"can_use_tool\""[..]),
        Just(&b"\"subtype\":\"task_started\""[..]),
        Just(&b"\"message\":"[..]),
        Just(&b"\"content\":"[..]),
        Just(&b"\"request\":"[..]),
        Just(&b"\"event\":"[..]),
        Just(&b"\xff\xfe"[..]),
    ];
    proptest::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn parse_line_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_line(&bytes);
    }

    #[test]
    fn parse_line_never_panics_on_json_ish_bytes(bytes in json_ish_bytes()) {
        let _ = parse_line(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// A random fixture line, cut at a random byte and with one random byte changed.
    #[test]
    fn parse_line_never_panics_on_mangled_fixture_lines(
        pick in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let lines = fixture_lines_cached();
        let line = lines[pick.index(lines.len())].as_bytes();
        let cut = cut.index(line.len() + 1);
        let mut mangled = line[..cut].to_vec();
        let _ = parse_line(&mangled);
        if !mangled.is_empty() {
            let at = flip.index(mangled.len());
            mangled[at] = byte;
            let _ = parse_line(&mangled);
        }
    }
}

fn fixture_lines_cached() -> &'static [String] {
    static LINES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LINES.get_or_init(|| fixture_lines().into_iter().map(|(_, line)| line).collect())
}

/// Every fixture line truncated at every byte of its first 256 and then at every N-th byte
/// (N chosen so that a line is cut at most ~400 times): each prefix parses or is an error.
#[test]
fn parse_line_never_panics_on_truncated_fixture_lines() {
    let mut cuts = 0usize;
    for line in fixture_lines_cached() {
        let bytes = line.as_bytes();
        let stride = (bytes.len() / 400).max(1);
        let points = (0..bytes.len().min(256)).chain((256..bytes.len()).step_by(stride));
        for cut in points {
            let prefix = &bytes[..cut];
            // Only the whole line is a complete object; a strict prefix never is.
            assert!(
                parse_line(prefix).is_err(),
                "a prefix of {cut} bytes parsed: {line}"
            );
            cuts += 1;
        }
        assert!(parse_line(bytes).is_ok(), "{line}");
    }
    assert!(cuts > 1000);
}

#[test]
fn null_where_a_list_or_string_is_usual_does_not_cost_the_line() {
    let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{},"permission_suggestions":null}}"#;
    match codiva_wire::claude::parse_line(line).unwrap() {
        codiva_wire::claude::Inbound::ControlRequest(request) => match request.request {
            codiva_wire::claude::CliRequest::CanUseTool(ask) => {
                assert!(ask.permission_suggestions.is_empty())
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    let line = br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":null,"is_error":null}]}}"#;
    assert!(codiva_wire::claude::parse_line(line).is_ok());
}
