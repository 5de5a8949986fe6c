//! The paths no captured run takes (the agents cannot be made to produce them on demand):
//! lines built in the measured shapes (docs/protocol/acp.md).

use codiva_protocol::UserInput;
use codiva_protocol::tool::{PermissionMode, PermissionOptionKind};
use serde_json::{Value, json};

use super::{AcpAgent, AcpConnection, AcpProvider};
use crate::agent_event::{AgentEvent, TurnOutcome};
use crate::provider::{Connection, Launch, OutLine, Provider, Received};

fn parse(line: &OutLine) -> Value {
    serde_json::from_str(line.as_str()).unwrap()
}

fn feed(connection: &mut AcpConnection, value: Value) -> Received {
    connection.receive(value.to_string().as_bytes()).unwrap()
}

fn methods(lines: &[OutLine]) -> Vec<Value> {
    lines
        .iter()
        .map(|line| parse(line)["method"].clone())
        .collect()
}

/// A connection to `agent` whose session `s1` exists (`session/new` answered with `session`).
fn ready(agent: AcpAgent, launch: Launch, session: Value) -> (AcpConnection, Received) {
    let mut connection = AcpConnection::new(agent, launch);
    connection.opening();
    let init = json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,
        "agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true}},
        "agentInfo":{"version":"1.0"}}});
    feed(&mut connection, init);
    let mut result = session;
    result["sessionId"] = json!("s1");
    let received = feed(
        &mut connection,
        json!({"jsonrpc":"2.0","id":2,"result":result}),
    );
    (connection, received)
}

fn claude() -> AcpAgent {
    AcpAgent::claude_code_acp("claude-code-acp".into())
}

fn codex() -> AcpAgent {
    AcpAgent::codex_acp("codex-acp".into())
}

fn claude_session() -> Value {
    json!({"models":{"currentModelId":"default","availableModels":[{"modelId":"default"},{"modelId":"haiku"}]},
        "modes":{"currentModeId":"default","availableModes":[{"id":"default"},{"id":"acceptEdits"}]}})
}

fn codex_session() -> Value {
    json!({"configOptions":[{"id":"model","category":"model","currentValue":"gpt-5.5",
        "options":[{"value":"gpt-5.5"},{"value":"gpt-5.4"}]}]})
}

fn end(connection: &mut AcpConnection, id: u64, result: Value) -> Vec<AgentEvent> {
    feed(connection, json!({"jsonrpc":"2.0","id":id,"result":result})).events
}

fn outcome(events: &[AgentEvent]) -> TurnOutcome {
    events
        .iter()
        .find_map(|event| match event {
            AgentEvent::TurnEnded(end) => Some(end.outcome.clone()),
            _ => None,
        })
        .expect("a turn end")
}

#[test]
fn stop_reasons_and_errors_become_statuses() {
    let (mut connection, _) = ready(claude(), Launch::default(), claude_session());
    connection.send(&UserInput::text("a"));
    let events = end(&mut connection, 3, json!({"stopReason":"max_tokens"}));
    assert_eq!(outcome(&events), TurnOutcome::Completed);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Note { text, .. } if text.contains("max_tokens")))
    );
    connection.send(&UserInput::text("b"));
    let error = json!({"jsonrpc":"2.0","id":4,"error":{"code":-32603,
        "message":"Internal error: Invalid API key · Fix external API key"}});
    assert!(matches!(
        outcome(&feed(&mut connection, error).events),
        TurnOutcome::NeedsLogin { .. }
    ));
    connection.send(&UserInput::text("c"));
    let error = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error",
        "data":{"message":"stream disconnected before completion","codex_error_info":"other"}}});
    assert!(matches!(
        outcome(&feed(&mut connection, error).events),
        TurnOutcome::Failed { message } if message.contains("stream disconnected")
    ));
    connection.send(&UserInput::text("d"));
    let events = end(&mut connection, 6, json!({"stopReason":"cancelled"}));
    assert_eq!(outcome(&events), TurnOutcome::Interrupted);
}

#[test]
fn a_failed_session_new_fails_the_waiting_message_and_the_next_one_tries_again() {
    let mut connection = AcpConnection::new(claude(), Launch::default());
    connection.opening();
    connection.send(&UserInput::text("hi"));
    connection.send(&UserInput::text("and this"));
    let init = json!({"jsonrpc":"2.0","id":1,"result":{"agentInfo":{"version":"1"}}});
    assert_eq!(
        methods(&feed(&mut connection, init).replies),
        [json!("session/new")]
    );
    let refused =
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Authentication required"}});
    let ended = feed(&mut connection, refused).events;
    assert_eq!(
        ended.len(),
        2,
        "each waiting message's turn fails: {ended:?}"
    );
    assert!(matches!(outcome(&ended), TurnOutcome::NeedsLogin { .. }));
    assert_eq!(
        methods(&connection.send(&UserInput::text("again"))),
        [json!("session/new")]
    );
}

#[test]
fn messages_wait_for_the_running_prompt() {
    let (mut connection, _) = ready(claude(), Launch::default(), claude_session());
    assert_eq!(
        methods(&connection.send(&UserInput::text("one"))),
        [json!("session/prompt")]
    );
    assert!(
        connection.send(&UserInput::text("two")).is_empty(),
        "queued"
    );
    let done = feed(
        &mut connection,
        json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}),
    );
    let next = parse(&done.replies[0]);
    assert_eq!(next["method"], "session/prompt");
    assert_eq!(next["params"]["prompt"][0]["text"], "two");
}

#[test]
fn models_and_modes_go_the_way_each_agent_offers_them() {
    let (mut connection, received) = ready(claude(), Launch::default(), claude_session());
    assert!(matches!(
        &received.events[..],
        [AgentEvent::Connected(info)] if info.models.len() == 2
            && info.permission_mode == Some(PermissionMode::Default)
    ));
    let line = parse(&connection.set_model(Some("haiku"))[0]);
    assert_eq!(line["method"], "session/set_model");
    assert_eq!(line["params"], json!({"sessionId":"s1","modelId":"haiku"}));
    let changed = end(&mut connection, 3, json!({}));
    assert_eq!(changed, [AgentEvent::ModelChanged(Some("haiku".into()))]);
    let line = parse(&connection.set_permission_mode(PermissionMode::AcceptEdits)[0]);
    assert_eq!(line["method"], "session/set_mode");
    assert_eq!(line["params"]["modeId"], "acceptEdits");
    let changed = end(&mut connection, 4, json!({}));
    assert_eq!(
        changed,
        [AgentEvent::PermissionModeChanged(
            PermissionMode::AcceptEdits
        )]
    );

    let (mut connection, _) = ready(codex(), Launch::default(), codex_session());
    let line = parse(&connection.set_model(Some("gpt-5.4"))[0]);
    assert_eq!(line["method"], "session/set_config_option");
    assert_eq!(
        line["params"],
        json!({"sessionId":"s1","configId":"model","value":"gpt-5.4"})
    );
    assert!(
        connection.set_model(None).is_empty(),
        "no default to go back to"
    );
    let provider = AcpProvider::new(codex());
    assert!(
        provider
            .check_permission_mode("mode", PermissionMode::AcceptEdits)
            .is_err()
    );
    assert!(
        provider
            .check_permission_mode("mode", PermissionMode::Plan)
            .is_ok()
    );
    let grok = AcpProvider::new(AcpAgent::grok("grok".into()));
    assert!(
        grok.check_permission_mode("mode", PermissionMode::Default)
            .is_err()
    );
    assert!(!grok.capabilities().set_mode);
}

#[test]
fn the_launchs_model_and_mode_follow_the_session_and_the_mode_report_is_mapped() {
    let launch = Launch {
        model: Some("haiku".into()),
        permission_mode: Some(PermissionMode::Plan),
        ..Launch::default()
    };
    let (mut connection, received) = ready(claude(), launch, claude_session());
    assert_eq!(
        methods(&received.replies),
        [json!("session/set_model"), json!("session/set_mode")]
    );
    let update = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
        "update":{"sessionUpdate":"current_mode_update","currentModeId":"brandNew"}}});
    assert_eq!(
        feed(&mut connection, update).events,
        [AgentEvent::PermissionModeChanged(PermissionMode::Other)]
    );
}

#[test]
fn the_system_prompt_goes_where_each_agent_takes_it() {
    let launch = |prompt: &str| Launch {
        append_system_prompt: Some(prompt.into()),
        cwd: "/w".into(),
        ..Launch::default()
    };
    let init = json!({"jsonrpc":"2.0","id":1,"result":{"agentInfo":{"version":"1"}}});
    let session_new = |agent: AcpAgent| {
        let mut connection = AcpConnection::new(agent, launch("be brief"));
        connection.opening();
        parse(&feed(&mut connection, init.clone()).replies[0])["params"].clone()
    };
    assert_eq!(
        session_new(claude())["_meta"],
        json!({"systemPrompt":{"append":"be brief"}})
    );
    assert_eq!(
        session_new(AcpAgent::grok("grok".into()))["_meta"],
        json!({"rules":"be brief"})
    );
    assert!(session_new(codex()).get("_meta").is_none());
    let (mut connection, _) = ready(codex(), launch("be brief"), codex_session());
    let first = parse(&connection.send(&UserInput::text("go"))[0]);
    let text = first["params"]["prompt"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("be brief") && text.ends_with("\n\ngo"),
        "{text}"
    );
    end(&mut connection, 3, json!({"stopReason":"end_turn"}));
    let second = parse(&connection.send(&UserInput::text("again"))[0]);
    assert_eq!(second["params"]["prompt"][0]["text"], "again", "once");
}

#[test]
fn an_interrupt_cancels_and_withdraws_pending_requests_and_deny_and_stop_cancels() {
    let (mut connection, _) = ready(claude(), Launch::default(), claude_session());
    connection.send(&UserInput::text("go"));
    let ask = json!({"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{
        "sessionId":"s1","toolCall":{"toolCallId":"t1","title":"Write a","kind":"edit"},
        "options":[{"kind":"allow_once","name":"Allow","optionId":"allow"},
                   {"kind":"reject_once","name":"Reject","optionId":"reject"}]}});
    let received = feed(&mut connection, ask.clone());
    let request = received
        .events
        .iter()
        .find_map(|e| match e {
            AgentEvent::PermissionRequest(request) => Some(request.clone()),
            _ => None,
        })
        .expect("a permission request");
    let lines = connection.interrupt();
    assert_eq!(
        parse(&lines[0]),
        json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}})
    );
    assert_eq!(
        parse(&lines[1])["result"],
        json!({"outcome":{"outcome":"cancelled"}})
    );
    let ended = end(&mut connection, 3, json!({"stopReason":"cancelled"}));
    assert!(
        ended.iter().any(|e| matches!(
            e,
            AgentEvent::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "t1"
        )),
        "the call of a cancelled turn is closed"
    );

    connection.send(&UserInput::text("again"));
    let mut ask = ask;
    ask["id"] = json!(1);
    ask["params"]["toolCall"]["toolCallId"] = json!("t2");
    feed(&mut connection, ask);
    let stop = request
        .option_of(PermissionOptionKind::DenyAndStop)
        .unwrap()
        .clone();
    let request = codiva_protocol::agent::PermissionRequest {
        request_id: "1".into(),
        ..request
    };
    let lines = connection.answer_permission(&request, &stop, None);
    assert_eq!(
        parse(&lines[0])["result"],
        json!({"outcome":{"outcome":"selected","optionId":"reject"}})
    );
    assert_eq!(parse(&lines[1])["method"], "session/cancel");
}

#[test]
fn unknown_requests_are_refused_and_unknown_updates_ignored() {
    let (mut connection, _) = ready(claude(), Launch::default(), claude_session());
    let request = json!({"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"path":"/etc/passwd"}});
    let received = feed(&mut connection, request);
    assert_eq!(parse(&received.replies[0])["error"]["code"], -32601);
    let update = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
        "update":{"sessionUpdate":"something_new","x":1}}});
    assert!(feed(&mut connection, update).events.is_empty());
    let other = json!({"jsonrpc":"2.0","method":"_x.ai/session_notification","params":{
        "sessionId":"s1","update":{"sessionUpdate":"last_turn_summary","summary":"x"}}});
    assert!(feed(&mut connection, other).events.is_empty());
    assert!(connection.receive(b"{\"jsonrpc\":").is_err());
}

#[test]
fn grok_classes_a_failure_before_the_prompts_error() {
    let (mut connection, _) = ready(
        AcpAgent::grok("grok".into()),
        Launch::default(),
        json!({"models":{"currentModelId":"grok-4.5","availableModels":[{"modelId":"grok-4.5"}]}}),
    );
    connection.send(&UserInput::text("hi"));
    // The shape grok 1.0.0 sends (docs/protocol/acp.md).
    let failed = json!({"jsonrpc":"2.0","method":"_x.ai/session_notification","params":{
        "sessionId":"s1","update":{"sessionUpdate":"retry_state","type":"failed","error_type":"auth",
        "message":"Unauthorized (401) from https://api.x.ai/v1/responses: unauthenticated: Incorrect API key provided."}}});
    feed(&mut connection, failed);
    let error = json!({"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}});
    assert!(matches!(
        outcome(&feed(&mut connection, error).events),
        TurnOutcome::NeedsLogin { .. }
    ));
    connection.send(&UserInput::text("again"));
    let error = json!({"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error",
        "data":{"error_type":"rate_limit","message":"slow down"}}});
    assert!(matches!(
        outcome(&feed(&mut connection, error).events),
        TurnOutcome::RateLimited { .. }
    ));
}

/// A session's MCP servers go in `session/new` and `session/load` (`env` and `headers` as
/// name/value lists, the shape of ACP's `McpServer`); an HTTP one only to an agent whose
/// `mcpCapabilities.http` is true, else it is left out with a warning.
#[test]
fn mcp_servers_go_in_the_session_handshake() {
    use codiva_protocol::mcp::McpServerConfig;
    let launch = |resume: Option<&str>| Launch {
        cwd: "/w".into(),
        resume: resume.map(str::to_owned),
        extras: crate::provider::AgentExtras {
            mcp_servers: [
                (
                    "ops".to_owned(),
                    McpServerConfig::Http {
                        url: "http://127.0.0.1:5/mcp".into(),
                        headers: [("Authorization".to_owned(), "Bearer t".to_owned())].into(),
                    },
                ),
                (
                    "tool".to_owned(),
                    McpServerConfig::Stdio {
                        command: "srv".into(),
                        args: vec!["-v".into()],
                        env: [("K".to_owned(), "V".to_owned())].into(),
                    },
                ),
            ]
            .into(),
            ..Default::default()
        },
        ..Launch::default()
    };
    let stdio =
        json!({"name":"tool","command":"srv","args":["-v"],"env":[{"name":"K","value":"V"}]});
    let http = json!({"type":"http","name":"ops","url":"http://127.0.0.1:5/mcp",
        "headers":[{"name":"Authorization","value":"Bearer t"}]});
    let handshake = |resume: Option<&str>, http: bool| {
        let mut connection = AcpConnection::new(claude(), launch(resume));
        connection.opening();
        let init = json!({"jsonrpc":"2.0","id":1,"result":{"agentInfo":{"version":"1"},
            "agentCapabilities":{"loadSession":true,"mcpCapabilities":{"http":http}}}});
        let received = feed(&mut connection, init);
        let request = parse(&received.replies[0]);
        let warned = received.events.iter().any(
            |event| matches!(event, AgentEvent::Note { text, .. } if text.contains("ops left out")),
        );
        (request, warned)
    };
    let (new, warned) = handshake(None, true);
    assert_eq!(new["method"], "session/new");
    assert_eq!(new["params"]["mcpServers"], json!([http, stdio]));
    assert!(!warned);
    let (new, warned) = handshake(None, false);
    assert_eq!(new["params"]["mcpServers"], json!([stdio]));
    assert!(warned, "an HTTP server the agent cannot take is reported");
    let (load, _) = handshake(Some("s0"), true);
    assert_eq!(load["method"], "session/load");
    assert_eq!(load["params"]["mcpServers"], json!([http, stdio]));
}

#[test]
fn an_http_status_as_the_error_code_classes_the_failure() {
    let (mut connection, _) = ready(
        AcpAgent::gemini("gemini".into()),
        Launch::default(),
        json!({"models":{"currentModelId":"gemini-2.5-pro",
            "availableModels":[{"modelId":"gemini-2.5-pro"}]}}),
    );
    connection.send(&UserInput::text("hi"));
    // Gemini CLI 0.61.0 when the API answers 401 (captured in acp-gemini-http-401): the HTTP
    // status as the code, the API's error body as the message.
    let error = json!({"jsonrpc":"2.0","id":3,"error":{"code":401,
        "message":"{\"error\":{\"code\":401,\"message\":\"Request had invalid authentication credentials.\",\"status\":\"UNAUTHENTICATED\"}}"}});
    match outcome(&feed(&mut connection, error).events) {
        TurnOutcome::NeedsLogin { message } => {
            assert_eq!(message, "Request had invalid authentication credentials.")
        }
        other => panic!("{other:?}"),
    }
    connection.send(&UserInput::text("again"));
    let error = json!({"jsonrpc":"2.0","id":4,"error":{"code":429,
        "message":"Rate limit exceeded. Try again later."}});
    assert!(matches!(
        outcome(&feed(&mut connection, error).events),
        TurnOutcome::RateLimited { .. }
    ));
}

/// Gemini CLI 0.61.0 answers `session/load` after the first replayed message and sends the
/// rest after the answer (captured in acp-gemini-load): the first message waits for the answer
/// of the current mode set again, and what arrives before it is not logged.
#[test]
fn a_replay_that_trails_the_load_answer_is_not_logged() {
    let mut connection = AcpConnection::new(
        AcpAgent::gemini("gemini".into()),
        Launch {
            resume: Some("s1".into()),
            cwd: "/w".into(),
            ..Launch::default()
        },
    );
    connection.opening();
    assert!(connection.send(&UserInput::text("hi")).is_empty(), "queued");
    let init = json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,
        "agentCapabilities":{"loadSession":true},"agentInfo":{"version":"0.61.0"}}});
    assert_eq!(
        methods(&feed(&mut connection, init).replies),
        ["session/load"]
    );
    let chunk = |kind: &str, text: &str| {
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
            "update":{"sessionUpdate":kind,"content":{"type":"text","text":text}}}})
    };
    assert!(
        feed(
            &mut connection,
            chunk("user_message_chunk", "<session_context>")
        )
        .events
        .is_empty()
    );
    let loaded = feed(
        &mut connection,
        json!({"jsonrpc":"2.0","id":2,"result":{"modes":{"currentModeId":"default",
            "availableModes":[{"id":"default"}]}}}),
    );
    assert_eq!(methods(&loaded.replies), ["session/set_mode"]);
    assert_eq!(
        parse(&loaded.replies[0])["params"],
        json!({"sessionId":"s1","modeId":"default"})
    );
    for (kind, text) in [
        ("user_message_chunk", "remember kiwi"),
        ("agent_message_chunk", "I will remember kiwi."),
    ] {
        assert!(feed(&mut connection, chunk(kind, text)).events.is_empty());
    }
    let ready = feed(&mut connection, json!({"jsonrpc":"2.0","id":3,"result":{}}));
    assert_eq!(methods(&ready.replies), ["session/prompt"]);
    let live = feed(
        &mut connection,
        chunk("agent_message_chunk", "You said kiwi."),
    );
    assert!(matches!(
        &live.events[..],
        [AgentEvent::TurnStarted { .. }, AgentEvent::TextDelta { text }] if text == "You said kiwi."
    ));
}

/// codex-acp has no `session/set_mode` id for confirm: every process starts there (codex's `-c`
/// overrides), a session reports it until the agent names a preset, and a live switch back to
/// it keeps the agent's preset and says so.
#[test]
fn codex_acp_starts_in_confirm_by_its_command_line_and_cannot_switch_back_to_it() {
    let provider = AcpProvider::new(codex());
    for mode in [
        None,
        Some(PermissionMode::Default),
        Some(PermissionMode::Auto),
    ] {
        let launch = Launch {
            permission_mode: mode,
            ..Launch::default()
        };
        assert_eq!(
            provider.command(&launch).args,
            [
                "-c",
                "approval_policy=\"untrusted\"",
                "-c",
                "sandbox_mode=\"workspace-write\""
            ]
            .map(std::ffi::OsString::from),
            "{mode:?}"
        );
    }
    assert!(
        provider
            .check_permission_mode("mode", PermissionMode::Default)
            .is_ok()
    );
    let launch = Launch {
        permission_mode: Some(PermissionMode::Default),
        ..Launch::default()
    };
    let (mut connection, received) = ready(codex(), launch, codex_session());
    assert!(matches!(
        &received.events[..],
        [AgentEvent::Connected(info)] if info.permission_mode == Some(PermissionMode::Default)
    ));
    assert!(
        !methods(&received.replies).contains(&json!("session/set_mode")),
        "already there"
    );
    assert!(
        connection
            .set_permission_mode(PermissionMode::Default)
            .is_empty()
    );
    let line = parse(&connection.set_permission_mode(PermissionMode::Auto)[0]);
    assert_eq!(line["params"]["modeId"], "auto");
    assert_eq!(
        end(&mut connection, 3, json!({})),
        [AgentEvent::PermissionModeChanged(PermissionMode::Auto)]
    );
    let line = parse(&connection.set_permission_mode(PermissionMode::Default)[0]);
    assert_eq!(line["method"], "session/set_mode");
    assert_eq!(line["params"]["modeId"], "auto", "the preset it is in");
    let events = end(&mut connection, 4, json!({}));
    assert!(
        matches!(&events[..], [AgentEvent::Note { text, .. }, AgentEvent::PermissionModeChanged(PermissionMode::Auto)]
            if text.contains("cannot go back to default")),
        "{events:?}"
    );

    // Without the overrides 0.16.0 opens in the preset its config matches (measured:
    // `read-only` when the config names no approval policy): the agent's word wins.
    let read_only = json!({"modes":{"currentModeId":"read-only","availableModes":[
        {"id":"read-only"},{"id":"auto"},{"id":"full-access"}]}});
    let (_, received) = ready(codex(), Launch::default(), read_only);
    assert!(matches!(
        &received.events[..],
        [AgentEvent::Connected(info)] if info.permission_mode == Some(PermissionMode::Plan)
    ));
}

/// codex-acp forgets a turn once it has answered `session/prompt`: a command's end that its
/// Codex reports after that is never sent (docs/protocol/acp.md "Turns"). A call still open
/// when the turn ends is unreported (before the turn's end, so the settled log says so); an
/// update that does come later still gives it its outcome, and it is not unreported again.
#[test]
fn a_call_open_when_its_turn_ends_is_unreported_and_a_late_update_still_ends_it() {
    let (mut connection, _) = ready(codex(), Launch::default(), codex_session());
    connection.send(&UserInput::text("make a file"));
    let update = |id: &str, status: &str| {
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
            "update":{"sessionUpdate":"tool_call","toolCallId":id,"title":"touch made.txt",
            "kind":"execute","status":status,"rawInput":{"command":"touch made.txt"}}}})
    };
    feed(&mut connection, update("open", "in_progress"));
    feed(&mut connection, update("done", "completed"));
    let events = end(&mut connection, 3, json!({"stopReason":"end_turn"}));
    let unreported: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolUnreported { tool_use_id } => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(unreported, ["open"], "{events:?}");
    let at = |pred: fn(&AgentEvent) -> bool| events.iter().position(pred).unwrap();
    assert!(
        at(|e| matches!(e, AgentEvent::ToolUnreported { .. }))
            < at(|e| matches!(e, AgentEvent::TurnEnded(_)))
    );
    let late = feed(
        &mut connection,
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
            "update":{"sessionUpdate":"tool_call_update","toolCallId":"open",
            "status":"completed","rawOutput":"made"}}}),
    );
    assert!(
        late.events.iter().any(|event| matches!(
            event,
            AgentEvent::ToolResult { tool_use_id, text, is_error: false, .. }
                if tool_use_id == "open" && text == "made"
        )),
        "{:?}",
        late.events
    );
    connection.send(&UserInput::text("again"));
    let events = end(&mut connection, 4, json!({"stopReason":"end_turn"}));
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, AgentEvent::ToolUnreported { .. })),
        "{events:?}"
    );
}
