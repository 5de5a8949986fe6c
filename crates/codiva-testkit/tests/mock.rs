//! The mock model server over raw TCP, and against the real Claude Code CLI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use codiva_testkit::{
    AgentSandbox, Match, MockMessage, MockServer, RawClaude, Reply, Rule, Script, TestRepo, Times,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Raw HTTP client helpers

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Whether a chunked body ended with the terminating `0` chunk.
    complete: bool,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// `(event, data)` pairs of an SSE body.
    fn events(&self) -> Vec<(String, Value)> {
        let text = String::from_utf8(self.body.clone()).unwrap();
        assert!(text.is_empty() || text.ends_with("\n\n"), "{text:?}");
        text.split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let mut lines = e.lines();
                let event = lines.next().unwrap().strip_prefix("event: ").unwrap();
                let data = lines.next().unwrap().strip_prefix("data: ").unwrap();
                assert!(lines.next().is_none());
                (event.to_owned(), serde_json::from_str(data).unwrap())
            })
            .collect()
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Parses consecutive responses from `raw` (the whole connection, read to EOF).
fn parse_responses(mut raw: &[u8], head_only: bool) -> Vec<Response> {
    let mut out = Vec::new();
    while !raw.is_empty() {
        let end = find(raw, b"\r\n\r\n").expect("header end");
        let head = std::str::from_utf8(&raw[..end]).unwrap();
        raw = &raw[end + 4..];
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|l| {
                let (k, v) = l.split_once(':').unwrap();
                (k.trim().to_ascii_lowercase(), v.trim().to_owned())
            })
            .collect();
        let mut resp = Response {
            status: status.parse().unwrap(),
            headers,
            body: Vec::new(),
            complete: true,
        };
        if head_only {
        } else if resp.header("transfer-encoding") == Some("chunked") {
            resp.complete = false;
            while let Some(eol) = find(raw, b"\r\n") {
                let size =
                    usize::from_str_radix(std::str::from_utf8(&raw[..eol]).unwrap(), 16).unwrap();
                raw = &raw[eol + 2..];
                if size == 0 {
                    assert!(raw.starts_with(b"\r\n"));
                    raw = &raw[2..];
                    resp.complete = true;
                    break;
                }
                resp.body.extend_from_slice(&raw[..size]);
                assert_eq!(&raw[size..size + 2], b"\r\n");
                raw = &raw[size + 2..];
            }
        } else {
            let len: usize = resp.header("content-length").unwrap().parse().unwrap();
            resp.body = raw[..len].to_vec();
            raw = &raw[len..];
        }
        out.push(resp);
    }
    out
}

fn request_bytes(method: &str, path: &str, body: &Value, close: bool) -> Vec<u8> {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let conn = if close { "close" } else { "keep-alive" };
    format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Connection: {conn}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn send_raw(server: &MockServer, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(bytes).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    raw
}

fn post(server: &MockServer, body: &Value) -> Response {
    let raw = send_raw(
        server,
        &request_bytes("POST", "/v1/messages?beta=true", body, true),
    );
    let mut responses = parse_responses(&raw, false);
    assert_eq!(responses.len(), 1);
    responses.remove(0)
}

fn user(text: &str) -> Value {
    json!({"model": "claude-test", "stream": true,
           "messages": [{"role": "user", "content": text}]})
}

fn text_of(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter_map(|(_, d)| d["delta"]["text"].as_str())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The mock over raw TCP

#[test]
fn sse_framing_of_a_text_message() {
    let server =
        MockServer::start(Script::new().then(Reply::text_slow("日本語👋ok", 2, 1))).unwrap();
    let resp = post(&server, &user("hi"));
    assert_eq!(resp.status, 200);
    assert!(resp.complete);
    assert!(
        resp.header("content-type")
            .unwrap()
            .starts_with("text/event-stream")
    );
    assert!(resp.header("request-id").unwrap().starts_with("req_mock_"));
    let events = resp.events();
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    for (event, data) in &events {
        assert_eq!(data["type"], event.as_str());
    }
    let message = &events[0].1["message"];
    assert!(message["id"].as_str().unwrap().starts_with("msg_mock_"));
    assert_eq!(message["model"], "claude-test");
    assert_eq!(text_of(&events), "日本語👋ok");
    assert_eq!(events[7].1["delta"]["stop_reason"], "end_turn");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/messages?beta=true");
    assert_eq!(requests[0].body, user("hi"));
    assert_eq!(requests[0].rule, Some(0));
    assert!(server.unmatched().is_empty());
}

#[test]
fn tool_use_and_thinking_blocks() {
    let msg = MockMessage::new()
        .thinking("let me think", "sig123")
        .tool_use_with_id(
            "toolu_x",
            "Write",
            json!({"file_path": "/tmp/a", "content": "é"}),
        );
    let server = MockServer::start(Script::new().then(Reply::message(msg))).unwrap();
    let events = post(&server, &user("hi")).events();
    let deltas: Vec<&Value> = events.iter().map(|(_, d)| &d["delta"]).collect();
    assert!(deltas.iter().any(|d| d["thinking"] == "let me think"));
    assert!(deltas.iter().any(|d| d["signature"] == "sig123"));
    let tool_start = events
        .iter()
        .find(|(_, d)| d["content_block"]["type"] == "tool_use")
        .unwrap();
    assert_eq!(tool_start.1["index"], 1);
    assert_eq!(tool_start.1["content_block"]["id"], "toolu_x");
    let partial: String = deltas
        .iter()
        .filter_map(|d| d["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&partial).unwrap(),
        json!({"file_path": "/tmp/a", "content": "é"})
    );
    let stop = events.iter().find(|(e, _)| e == "message_delta").unwrap();
    assert_eq!(stop.1["delta"]["stop_reason"], "tool_use");
}

#[test]
fn rules_match_in_order_and_run_out() {
    let script = Script::new()
        .then_when(Match::LastUserContains("b".into()), Reply::text("B"))
        .then_when(Match::FirstUserContains("sub".into()), Reply::text("SUB"))
        .rule(Rule::new(Match::Any, Reply::text("X")).times(Times::N(2)));
    let server = MockServer::start(script).unwrap();
    assert_eq!(text_of(&post(&server, &user("a")).events()), "X");
    assert_eq!(text_of(&post(&server, &user("b")).events()), "B");
    assert_eq!(text_of(&post(&server, &user("b")).events()), "X");
    let two = json!({"model": "m", "stream": true, "messages": [
        {"role": "user", "content": "sub prompt"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "b"}]}
    ]});
    assert_eq!(text_of(&post(&server, &two).events()), "SUB");
    let none = post(&server, &user("b"));
    assert_eq!(none.status, 500);
    assert_eq!(
        none.json(),
        json!({"type": "error", "error": {"type": "api_error", "message": "mock: no rule matched"}})
    );
    let unmatched = server.unmatched();
    assert_eq!(unmatched.len(), 1);
    assert_eq!(unmatched[0].last_user_text().as_deref(), Some("b"));
    let rules: Vec<Option<usize>> = server.requests().iter().map(|r| r.rule).collect();
    assert_eq!(rules, [Some(2), Some(0), Some(2), Some(1), None]);
}

#[test]
fn non_streaming_probes_get_a_json_message_and_leave_the_script_alone() {
    let server = MockServer::start(Script::new().then(Reply::text("scripted"))).unwrap();
    let probe = json!({"model": "claude-sonnet-4-5", "max_tokens": 1,
        "messages": [{"role": "user", "content": "quota"}]});
    let answer = post(&server, &probe);
    assert_eq!(answer.status, 200);
    let message = answer.json();
    assert_eq!(message["type"], "message");
    assert_eq!(message["model"], "claude-sonnet-4-5");
    assert_eq!(message["usage"]["input_tokens"], 1);
    assert_eq!(text_of(&post(&server, &user("hi")).events()), "scripted");
    assert!(server.unmatched().is_empty());
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn error_replies() {
    let script = Script::new()
        .then(Reply::rate_limited(3))
        .then(Reply::error(
            401,
            "authentication_error",
            "invalid x-api-key",
        ))
        .always(Reply::overloaded());
    let server = MockServer::start(script).unwrap();
    let r = post(&server, &user("a"));
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("3"));
    assert_eq!(r.json()["error"]["type"], "rate_limit_error");
    let r = post(&server, &user("a"));
    assert_eq!(r.status, 401);
    assert_eq!(
        r.json(),
        json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    );
    for _ in 0..3 {
        let r = post(&server, &user("a"));
        assert_eq!(r.status, 529);
        assert_eq!(r.json()["error"]["type"], "overloaded_error");
        assert!(r.header("retry-after").is_none());
    }
    assert!(server.unmatched().is_empty());
}

/// `POST /v1/responses`: the same script as Responses API events, errors in OpenAI's shape,
/// and `Match` reading a Responses body's `input` (user messages and tool outputs).
#[test]
fn the_responses_api_from_the_same_script() {
    let script = Script::new()
        .then_when(Match::LastUserContains("made".into()), Reply::text("done"))
        .then(Reply::message(
            MockMessage::new()
                .text_slow("héllo", 2, 0)
                .custom_tool("apply_patch", "*** Begin Patch\n*** End Patch\n"),
        ))
        .then(Reply::error(401, "invalid_api_key", "Incorrect API key"))
        .then(Reply::sse_error(MockMessage::new().text("partial"), 1));
    let server = MockServer::start(script).unwrap();
    let post = |input: Value| {
        let body = json!({"model": "gpt-5.5", "stream": true, "input": input});
        let raw = send_raw(
            &server,
            &request_bytes("POST", "/v1/responses", &body, true),
        );
        parse_responses(&raw, false).remove(0)
    };
    let prompt = json!([{"type": "message", "role": "user",
                         "content": [{"type": "input_text", "text": "patch it"}]}]);
    let r = post(prompt.clone());
    assert_eq!(r.status, 200);
    let events = r.events();
    assert_eq!(events[0].0, "response.created");
    let text: String = events
        .iter()
        .filter(|(event, _)| event == "response.output_text.delta")
        .map(|(_, data)| data["delta"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(text, "héllo");
    let (last, completed) = events.last().unwrap();
    assert_eq!(last, "response.completed");
    assert_eq!(
        completed["response"]["output"][1]["type"],
        "custom_tool_call"
    );
    assert_eq!(completed["response"]["output"][1]["name"], "apply_patch");
    let call_output = json!([{"type": "function_call_output", "call_id": "c", "output": "made"}]);
    let r = post(call_output);
    assert_eq!(
        r.events().last().unwrap().0,
        "response.completed",
        "rule 0 matched the output"
    );
    let r = post(prompt.clone());
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["message"], "Incorrect API key");
    let r = post(prompt);
    let (last, failed) = r.events().last().cloned().unwrap();
    assert_eq!(last, "response.failed");
    assert_eq!(failed["response"]["error"]["code"], "server_error");
    assert_eq!(server.response_requests().len(), 4);
    assert!(server.unmatched().is_empty());
}

#[test]
fn the_gemini_api_from_the_same_script() {
    let script = Script::new()
        .then_when(Match::LastUserContains("made".into()), Reply::text("done"))
        .then(Reply::message(
            MockMessage::new()
                .text_slow("héllo", 2, 0)
                .tool_use("run_shell_command", json!({"command": "ls"})),
        ))
        .then(Reply::error(401, "UNAUTHENTICATED", "bad key"));
    let server = MockServer::start(script).unwrap();
    let post = |method: &str, contents: Value| {
        let path = format!("/v1beta/models/gemini-2.5-pro:{method}");
        let body = json!({"contents": contents});
        let raw = send_raw(&server, &request_bytes("POST", &path, &body, true));
        parse_responses(&raw, false).remove(0)
    };
    // `data:` lines only, one chunk per part.
    let chunks = |r: &Response| -> Vec<Value> {
        let text = String::from_utf8(r.body.clone()).unwrap();
        let lines = text.split("\n\n").filter(|e| !e.is_empty());
        lines
            .map(|e| serde_json::from_str(e.strip_prefix("data: ").unwrap()).unwrap())
            .collect()
    };
    let prompt = json!([{"role": "user", "parts": [{"text": "<ctx>"}, {"text": "list it"}]}]);
    let stream = "streamGenerateContent?alt=sse";
    let r = post(stream, prompt.clone());
    let parts: Vec<Value> = chunks(&r)
        .iter()
        .map(|c| c["candidates"][0]["content"]["parts"][0].clone())
        .collect();
    assert_eq!(parts[0]["text"], "hé");
    assert_eq!(parts[3]["functionCall"]["name"], "run_shell_command");
    let last = chunks(&r).pop().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    let result = json!([{"role": "user", "parts": [{"functionResponse":
        {"name": "run_shell_command", "response": {"output": "made"}}}]}]);
    assert_eq!(
        chunks(&post(stream, result))[0]["candidates"][0]["content"]["parts"][0]["text"],
        "done"
    );
    // The CLI's own one-shots and token counts leave the script alone.
    let r = post("generateContent", prompt.clone());
    assert_eq!(
        r.json()["candidates"][0]["content"]["parts"][0]["text"],
        "ok"
    );
    assert_eq!(
        post("countTokens", prompt.clone()).json()["totalTokens"],
        76 / 4
    );
    let r = post(stream, prompt);
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["status"], "UNAUTHENTICATED");
    assert_eq!(server.gemini_requests().len(), 3);
    assert_eq!(server.requests()[2].model(), Some("gemini-2.5-pro"));
    assert!(server.unmatched().is_empty());
}

#[test]
fn cut_after_closes_mid_stream() {
    let msg = MockMessage::new().text_slow("abcdefgh", 2, 0);
    let server = MockServer::start(Script::new().then(Reply::cut_after(msg, 5))).unwrap();
    let r = post(&server, &user("a"));
    assert_eq!(r.status, 200);
    assert!(!r.complete, "the chunked body must not be terminated");
    let events = r.events();
    assert_eq!(events.len(), 5);
    assert_eq!(text_of(&events), "abcd");
}

#[test]
fn sse_error_after_first_block() {
    let msg = MockMessage::new().text("one").text("two");
    let server = MockServer::start(Script::new().then(Reply::sse_error(msg, 1))).unwrap();
    let r = post(&server, &user("a"));
    assert!(r.complete);
    let events = r.events();
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_stop",
            "error"
        ]
    );
    assert_eq!(
        events[5].1,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

#[test]
fn keep_alive_and_chunked_request_bodies() {
    let server = MockServer::start(Script::new().always(Reply::text("ok"))).unwrap();
    let body = user("chunked").to_string();
    let (a, b) = body.split_at(10);
    let mut bytes = format!(
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\
         Connection: keep-alive\r\n\r\n{:x};ext=1\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    )
    .into_bytes();
    bytes.extend(request_bytes("POST", "/v1/messages", &user("second"), true));
    let responses = parse_responses(&send_raw(&server, &bytes), false);
    assert_eq!(responses.len(), 2);
    assert!(responses.iter().all(|r| r.status == 200 && r.complete));
    let requests = server.requests();
    assert_eq!(requests[0].body, user("chunked"));
    assert_eq!(requests[1].body, user("second"));
    assert_eq!(requests[0].connection, requests[1].connection);
    post(&server, &user("third"));
    assert_eq!(server.requests()[2].connection, requests[0].connection + 1);
}

#[test]
fn other_endpoints() {
    let server = MockServer::start(Script::new()).unwrap();
    let head = parse_responses(
        &send_raw(&server, &request_bytes("HEAD", "/", &Value::Null, true)),
        true,
    );
    assert_eq!(head[0].status, 200);
    let raw = send_raw(
        &server,
        &request_bytes(
            "POST",
            "/v1/messages/count_tokens?beta=true",
            &user("x"),
            true,
        ),
    );
    let count = parse_responses(&raw, false);
    assert_eq!(count[0].status, 200);
    assert!(count[0].json()["input_tokens"].as_u64().unwrap() > 0);
    assert!(server.unmatched().is_empty());
    let raw = send_raw(
        &server,
        &request_bytes("GET", "/v1/models", &Value::Null, true),
    );
    let missing = parse_responses(&raw, false);
    assert_eq!(missing[0].status, 404);
    assert_eq!(missing[0].json()["error"]["type"], "not_found_error");
    assert_eq!(server.requests().len(), 3);
    assert_eq!(server.unmatched()[0].path, "/v1/models");
}

#[test]
fn concurrent_slow_streams() {
    let server =
        MockServer::start(Script::new().always(Reply::text_slow("abcdefghij", 1, 50))).unwrap();
    let started = Instant::now();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let server = &server;
                s.spawn(move || post(server, &user(&format!("req {i}"))))
            })
            .collect();
        for h in handles {
            assert_eq!(text_of(&h.join().unwrap().events()), "abcdefghij");
        }
    });
    // Each stream takes ≈450 ms; run one after another they would take ≈1.8 s.
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn drop_closes_connections_and_listener() {
    let server =
        MockServer::start(Script::new().then(Reply::text_slow("abcdef", 1, 2000))).unwrap();
    let addr = server.addr();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(&request_bytes("POST", "/v1/messages", &user("a"), true))
        .unwrap();
    let mut first = [0u8; 12];
    s.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    let started = Instant::now();
    drop(server);
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(TcpStream::connect(addr).is_err());
}

#[tokio::test]
async fn works_inside_a_tokio_runtime() {
    let server = MockServer::start(Script::new().then(Reply::text("hi"))).unwrap();
    let url = server.url();
    let resp = tokio::task::spawn_blocking(move || {
        let r = post(&server, &user("x"));
        drop(server);
        r
    })
    .await
    .unwrap();
    assert!(url.starts_with("http://127.0.0.1:"));
    assert_eq!(text_of(&resp.events()), "hi");
}

// ---------------------------------------------------------------------------------------------
// The real Claude Code CLI

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_says_hi_with_cjk_and_emoji() {
    let text = "こんにちは、世界！🌸👋🏽 done";
    let server = MockServer::start(Script::new().then(Reply::text_slow(text, 3, 5))).unwrap();
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mut claude = RawClaude::spawn(&sandbox, &server, repo.path());
    claude.say("say hi").await;
    claude.close_stdin();
    let result = claude
        .until_result(|_| panic!("no permission expected"))
        .await;
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["terminal_reason"], "completed");
    assert_eq!(result["result"], text);
    let deltas: String = claude
        .seen
        .iter()
        .filter(|l| l["type"] == "stream_event")
        .filter_map(|l| l["event"]["delta"]["text"].as_str())
        .collect();
    assert_eq!(deltas, text);
    let status = claude.finish().await;
    assert!(status.success(), "{status:?}");

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let r = &requests[0];
    assert_eq!(r.path, "/v1/messages?beta=true");
    assert_eq!(r.header("x-api-key"), Some("sk-mock"));
    assert_eq!(r.body["stream"], true);
    assert!(r.last_user_text().unwrap().contains("say hi"));
    assert!(server.unmatched().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_gives_up_after_529s() {
    let server = MockServer::start(Script::new().always(Reply::overloaded())).unwrap();
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap().with_max_retries(1);
    let mut claude = RawClaude::spawn(&sandbox, &server, repo.path());
    claude.say("say hi").await;
    claude.close_stdin();
    let result = claude
        .until_result(|_| panic!("no permission expected"))
        .await;
    assert_eq!(result["is_error"], true);
    assert_eq!(result["terminal_reason"], "api_error");
    let retries: Vec<&Value> = claude
        .seen
        .iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "api_retry")
        .collect();
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0]["error_status"], 529);
    let status = claude.finish().await;
    assert_eq!(status.code(), Some(1));
    assert_eq!(server.requests().len(), 2);
    assert!(server.unmatched().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_retries_after_a_cut_stream() {
    let text = "the complete answer, streamed in small pieces";
    let script = Script::new()
        .then(Reply::cut_after(
            MockMessage::new().text_slow(text, 4, 0),
            5,
        ))
        .then(Reply::text_slow(text, 4, 0));
    let server = MockServer::start(script).unwrap();
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mut claude = RawClaude::spawn(&sandbox, &server, repo.path());
    claude.say("say hi").await;
    claude.close_stdin();
    let result = claude
        .until_result(|_| panic!("no permission expected"))
        .await;
    assert_eq!(result["terminal_reason"], "completed");
    assert_eq!(result["result"], text);
    assert!(
        claude
            .seen
            .iter()
            .any(|l| l["type"] == "system" && l["subtype"] == "api_retry")
    );
    let starts = claude
        .seen
        .iter()
        .filter(|l| l["event"]["type"] == "message_start")
        .count();
    assert_eq!(starts, 2);
    // The partial deltas of the cut attempt were shown before the retry.
    let deltas: String = claude
        .seen
        .iter()
        .filter_map(|l| l["event"]["delta"]["text"].as_str())
        .collect();
    assert_eq!(deltas, format!("the comp{text}"));
    assert!(claude.finish().await.success());
    assert_eq!(server.requests().len(), 2);
    assert!(server.unmatched().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_writes_a_file_after_permission() {
    let repo = TestRepo::new().unwrap();
    let target = repo.path().join("hello.txt");
    let script = Script::new()
        .then_when(
            Match::LastUserContains("write the file".into()),
            Reply::message(MockMessage::new().text("Writing it.").tool_use_with_id(
                "toolu_mock_write1",
                "Write",
                json!({"file_path": target, "content": "héllo 世界\n"}),
            )),
        )
        .then(Reply::text("Done: wrote hello.txt"));
    let server = MockServer::start(script).unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mut claude = RawClaude::spawn(&sandbox, &server, repo.path());
    claude.say("please write the file").await;
    let mut prompts = Vec::new();
    let result = claude
        .until_result(|request| {
            prompts.push(request.clone());
            json!({"behavior": "allow"})
        })
        .await;
    assert_eq!(prompts.len(), 1, "{prompts:#?}");
    assert_eq!(prompts[0]["tool_name"], "Write");
    assert_eq!(prompts[0]["tool_use_id"], "toolu_mock_write1");
    assert_eq!(result["terminal_reason"], "completed");
    assert_eq!(result["result"], "Done: wrote hello.txt");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "héllo 世界\n");
    assert!(claude.finish().await.success());

    let requests = server.message_requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let last_user = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap()
        .clone();
    let tool_result = last_user["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    assert_eq!(tool_result["tool_use_id"], "toolu_mock_write1");
    assert_ne!(tool_result["is_error"], true, "{tool_result}");
    assert!(server.unmatched().is_empty());
    eprintln!(
        "connections used: {:?}",
        requests.iter().map(|r| r.connection).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_continues_after_an_sse_error() {
    let script = Script::new()
        .then(Reply::sse_error(
            MockMessage::new().text("First half.").text("never sent"),
            1,
        ))
        .then_when(
            Match::LastUserContains("cut off".into()),
            Reply::text("Second half."),
        );
    let server = MockServer::start(script).unwrap();
    let repo = TestRepo::new().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mut claude = RawClaude::spawn(&sandbox, &server, repo.path());
    claude.say("say hi").await;
    claude.close_stdin();
    let result = claude
        .until_result(|_| panic!("no permission expected"))
        .await;
    assert_eq!(result["terminal_reason"], "completed", "{result}");
    let assistant_texts: Vec<&str> = claude
        .seen
        .iter()
        .filter(|l| l["type"] == "assistant")
        .filter_map(|l| l["message"]["content"][0]["text"].as_str())
        .collect();
    assert_eq!(assistant_texts, ["First half.", "Second half."]);
    assert!(
        !claude
            .seen
            .iter()
            .any(|l| l["type"] == "system" && l["subtype"] == "api_retry")
    );
    assert!(claude.finish().await.success());
    let requests = server.message_requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "assistant" && m.to_string().contains("First half."))
    );
    assert!(server.unmatched().is_empty());
}
