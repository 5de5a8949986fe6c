//! Parsing `result`, `control_request`, `control_cancel_request` and `control_response` lines,
//! and lines of unknown or broken shape.

use super::*;

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
