//! Parsing `assistant` and `user` lines.

use super::*;

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
