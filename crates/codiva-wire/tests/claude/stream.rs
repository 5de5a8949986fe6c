//! Parsing `stream_event` lines.

use super::*;

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
    // Deltas are read before anything else looks at the line's type: a line of another type
    // that carries an `event` with a delta (or only mentions one) is still read as its type.
    let look_alike = r#"{"type":"system","subtype":"status","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}},"session_id":"s"}"#;
    assert!(
        !matches!(parse(look_alike), Inbound::StreamEvent(_)),
        "{look_alike}"
    );
    let mention = r#"{"type":"assistant","message":{"id":"m","role":"assistant","model":"x","content":[{"type":"text","text":"the \"content_block_delta\" event"}]},"session_id":"s"}"#;
    assert!(matches!(parse(mention), Inbound::Assistant(_)), "{mention}");
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
