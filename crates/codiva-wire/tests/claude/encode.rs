//! `encode`: the exact stdin lines.

use super::*;

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
