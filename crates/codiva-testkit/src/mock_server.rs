//! A minimal HTTP/1.1 server that emulates the Anthropic Messages API (`POST /v1/messages`),
//! the OpenAI Responses API (`POST /v1/responses`) and the Gemini API
//! (`POST /v1beta/models/<model>:streamGenerateContent`, see [`crate::gemini`]) from one
//! [`Script`].
//!
//! It runs on its own std thread with its own tokio runtime, so it works from plain `#[test]`s
//! and from `#[tokio::test]`s alike. Dropping the [`MockServer`] stops the listener and closes
//! every connection.

use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::gemini;
use crate::responses;
use crate::script::{MockMessage, Reply, Rule, Script, user_texts};
use crate::sse::{SseEvent, error_event, message_events, random_hex};

const MAX_HEADER_BYTES: usize = 256 * 1024;
const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;
/// Pause between the last event of a [`Reply::CutAfter`] and the close.
const CUT_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    /// Path including the query string, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` if empty, a JSON string if it was not JSON.
    pub body: Value,
    /// Index of the script rule that answered, if any.
    pub rule: Option<usize>,
    /// Sequence number of the TCP connection it came on (0, 1, …): shows keep-alive reuse.
    pub connection: usize,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The user text of each `role:"user"` message (see [`crate::script::Match`]).
    pub fn user_texts(&self) -> Vec<String> {
        user_texts(&self.body)
    }

    pub fn last_user_text(&self) -> Option<String> {
        self.user_texts().pop()
    }

    pub fn first_user_text(&self) -> Option<String> {
        self.user_texts().into_iter().next()
    }

    /// The path without its query string.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    /// The model asked for: the body's `model`, or the Gemini API's path
    /// (`/v1beta/models/<model>:…`).
    pub fn model(&self) -> Option<&str> {
        self.body
            .get("model")
            .and_then(Value::as_str)
            .or_else(|| gemini::route(self.route()).map(|(model, _)| model))
    }
}

struct State {
    rules: Vec<Rule>,
    remaining: Vec<Option<usize>>,
    requests: Vec<RecordedRequest>,
    unmatched: Vec<RecordedRequest>,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The running mock. See the crate docs and `docs/mock-server.md`.
pub struct MockServer {
    addr: SocketAddr,
    state: Shared,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts on `127.0.0.1:0` (a free port).
    pub fn start(script: Script) -> anyhow::Result<MockServer> {
        Self::start_on(script, 0)
    }

    /// Starts on `127.0.0.1:port`.
    pub fn start_on(script: Script, port: u16) -> anyhow::Result<MockServer> {
        let listener = StdTcpListener::bind(("127.0.0.1", port))
            .with_context(|| format!("binding 127.0.0.1:{port}"))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let remaining = script.rules.iter().map(|r| r.times.budget()).collect();
        let state = Arc::new(Mutex::new(State {
            rules: script.rules,
            remaining,
            requests: Vec::new(),
            unmatched: Vec::new(),
        }));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("building the mock server runtime")?;
        let (tx, rx) = oneshot::channel();
        let thread_state = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mock-server-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            tracing::error!("mock server: {e}");
                            return;
                        }
                    };
                    tokio::select! {
                        _ = rx => {}
                        () = accept_loop(listener, thread_state) => {}
                    }
                });
                // Dropping the runtime cancels every connection task, closing its socket.
                drop(runtime);
            })
            .context("spawning the mock server thread")?;
        Ok(MockServer {
            addr,
            state,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Only the `POST /v1/messages` requests.
    pub fn message_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.route() == "/v1/messages")
            .collect()
    }

    /// Only the streamed Gemini API requests (`:streamGenerateContent`): the conversation's
    /// turns, not the CLI's own one-shot `:generateContent` probes.
    pub fn gemini_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| {
                r.method == "POST"
                    && matches!(gemini::route(r.route()), Some((_, gemini::Method::Stream)))
            })
            .collect()
    }

    /// Only the `POST /v1/responses` requests (Responses API).
    pub fn response_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.route() == "/v1/responses")
            .collect()
    }

    /// Requests no rule answered (and requests to unknown endpoints).
    pub fn unmatched(&self) -> Vec<RecordedRequest> {
        lock(&self.state).unmatched.clone()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_loop(listener: TcpListener, state: Shared) {
    let mut connections = 0;
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let state = state.clone();
                let connection = connections;
                connections += 1;
                tokio::spawn(async move {
                    if let Err(e) = serve_connection(stream, state, connection).await {
                        tracing::debug!("mock server connection: {e:#}");
                    }
                });
            }
            Err(e) => {
                tracing::warn!("mock server accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}

pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Whether to keep the connection open after a response.
#[derive(PartialEq)]
enum After {
    KeepAlive,
    Close,
}

async fn serve_connection(
    stream: TcpStream,
    state: Shared,
    connection: usize,
) -> anyhow::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut stream = BufReader::new(stream);
    while let Some(request) = read_request(&mut stream).await? {
        let client_close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let after = respond(&mut stream, request, &state, connection).await?;
        if after == After::Close || client_close {
            break;
        }
    }
    let _ = stream.get_mut().shutdown().await;
    Ok(())
}

async fn read_line<R: AsyncBufReadExt + Unpin>(
    r: &mut R,
    budget: &mut usize,
) -> anyhow::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = r.read_until(b'\n', &mut buf).await?;
    if n == 0 {
        return Ok(None);
    }
    *budget = budget
        .checked_sub(n)
        .context("request header section too large")?;
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

/// Reads one request; `None` on a clean EOF before a request line.
pub(crate) async fn read_request<R: AsyncBufReadExt + Unpin>(
    r: &mut R,
) -> anyhow::Result<Option<Request>> {
    let mut budget = MAX_HEADER_BYTES;
    let request_line = loop {
        match read_line(r, &mut budget).await? {
            None => return Ok(None),
            Some(line) if line.is_empty() => continue,
            Some(line) => break line,
        }
    };
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts
        .next()
        .context("request line without a path")?
        .to_owned();
    let mut headers = Vec::new();
    loop {
        let line = read_line(r, &mut budget)
            .await?
            .context("EOF inside the request headers")?;
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        loop {
            let size_line = read_line(r, &mut budget)
                .await?
                .context("EOF inside a chunked body")?;
            let size_hex = size_line.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size_hex, 16)
                .with_context(|| format!("bad chunk size {size_line:?}"))?;
            if size == 0 {
                // Trailers, then the empty line.
                while read_line(r, &mut budget)
                    .await?
                    .is_some_and(|l| !l.is_empty())
                {}
                break;
            }
            anyhow::ensure!(
                request.body.len() + size <= MAX_BODY_BYTES,
                "body too large"
            );
            let start = request.body.len();
            request.body.resize(start + size, 0);
            r.read_exact(&mut request.body[start..]).await?;
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf).await?;
        }
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len.parse().context("bad content-length")?;
        anyhow::ensure!(len <= MAX_BODY_BYTES, "body too large");
        request.body.resize(len, 0);
        r.read_exact(&mut request.body).await?;
    }
    Ok(Some(request))
}

pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

async fn write_json<W: AsyncWriteExt + Unpin>(
    w: &mut W,
    status: u16,
    body: &Value,
    extra_headers: &[(&str, String)],
    head_only: bool,
) -> anyhow::Result<()> {
    let body = body.to_string();
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         request-id: req_mock_{}\r\nconnection: keep-alive\r\n",
        reason(status),
        body.len(),
        random_hex(24)
    );
    for (k, v) in extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    w.write_all(head.as_bytes()).await?;
    if !head_only {
        w.write_all(body.as_bytes()).await?;
    }
    w.flush().await?;
    Ok(())
}

fn api_error(error_type: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": error_type, "message": message}})
}

async fn respond(
    stream: &mut BufReader<TcpStream>,
    request: Request,
    state: &Shared,
    connection: usize,
) -> anyhow::Result<After> {
    let body: Value = if request.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&request.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&request.body).into()))
    };
    let mut recorded = RecordedRequest {
        method: request.method.clone(),
        path: request.path.clone(),
        headers: request.headers.clone(),
        body,
        rule: None,
        connection,
    };
    let route = recorded.route().to_owned();
    let w = stream.get_mut();

    if request.method == "HEAD" {
        lock(state).requests.push(recorded);
        write_json(w, 200, &json!({}), &[], true).await?;
        return Ok(After::KeepAlive);
    }
    if request.method == "POST" && route == "/v1/messages/count_tokens" {
        let estimate = (request.body.len() / 4).max(1);
        lock(state).requests.push(recorded);
        write_json(w, 200, &json!({"input_tokens": estimate}), &[], false).await?;
        return Ok(After::KeepAlive);
    }
    let gemini_route = gemini::route(&route).map(|(model, method)| (model.to_owned(), method));
    if request.method == "POST"
        && let Some((_, gemini::Method::CountTokens)) = gemini_route
    {
        let estimate = gemini::count_tokens(request.body.len());
        lock(state).requests.push(recorded);
        write_json(w, 200, &estimate, &[], false).await?;
        return Ok(After::KeepAlive);
    }
    let api = match (route.as_str(), &gemini_route) {
        ("/v1/messages", _) => Api::Messages,
        ("/v1/responses", _) => Api::Responses,
        (_, Some(_)) => Api::Gemini,
        _ => Api::None,
    };
    let is_messages = request.method == "POST" && api != Api::None;
    if !is_messages || !recorded.body.is_object() {
        let (status, error) = if is_messages {
            (
                400,
                api_error("invalid_request_error", "mock: body is not a JSON object"),
            )
        } else {
            (404, api_error("not_found_error", "mock: unknown endpoint"))
        };
        {
            let mut st = lock(state);
            st.requests.push(recorded.clone());
            st.unmatched.push(recorded);
        }
        write_json(w, status, &error, &[], false).await?;
        return Ok(After::KeepAlive);
    }

    // Non-streaming requests are the CLI's own probes (set_model validates a model with one),
    // not conversation turns: answer them with a minimal message and leave the script alone.
    // The Gemini API says whether it streams by its path.
    if let Some((model, gemini::Method::Generate)) = &gemini_route {
        lock(state).requests.push(recorded);
        let message = gemini::generate_response(&MockMessage::new().text("ok"), model, 1);
        write_json(w, 200, &message, &[], false).await?;
        return Ok(After::KeepAlive);
    }
    if gemini_route.is_none() && recorded.body.get("stream").and_then(Value::as_bool) != Some(true)
    {
        let model = recorded
            .body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("claude-mock")
            .to_owned();
        lock(state).requests.push(recorded);
        let message = json!({
            "id": format!("msg_mock_{}", crate::sse::random_hex(24)),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        });
        write_json(w, 200, &message, &[], false).await?;
        return Ok(After::KeepAlive);
    }

    // Pick the rule.
    let reply = {
        let mut st = lock(state);
        let picked = (0..st.rules.len())
            .find(|&i| st.remaining[i] != Some(0) && st.rules[i].when.matches(&recorded.body));
        recorded.rule = picked;
        st.requests.push(recorded.clone());
        match picked {
            Some(i) => {
                if let Some(left) = st.remaining[i].as_mut() {
                    *left -= 1;
                }
                Some((st.rules[i].reply.clone(), st.rules[i].headers.clone()))
            }
            None => {
                st.unmatched.push(recorded.clone());
                None
            }
        }
    };
    let Some((reply, headers)) = reply else {
        write_json(
            w,
            500,
            &api_error("api_error", "mock: no rule matched"),
            &[],
            false,
        )
        .await?;
        return Ok(After::KeepAlive);
    };

    let model = recorded.model().unwrap_or("claude-mock").to_owned();
    let input_tokens = (request.body.len() as u64 / 4).max(1);
    match reply {
        Reply::Error {
            status,
            error_type,
            message,
            retry_after,
        } => {
            let extra: Vec<(&str, String)> = retry_after
                .map(|s| ("retry-after", s.to_string()))
                .into_iter()
                .chain(headers.iter().map(|(k, v)| (k.as_str(), v.clone())))
                .collect();
            let body = match api {
                Api::Responses => responses::error_body(&error_type, &message),
                Api::Gemini => gemini::error_body(status, &error_type, &message),
                _ => api_error(&error_type, &message),
            };
            write_json(w, status, &body, &extra, false).await?;
            Ok(After::KeepAlive)
        }
        Reply::Message(msg) => {
            let events = api.events(&msg, &model, input_tokens, None);
            write_sse(w, &events, true, &headers).await?;
            Ok(After::KeepAlive)
        }
        Reply::CutAfter { message, events } => {
            let all = api.events(&message, &model, input_tokens, None);
            let n = events.min(all.len());
            write_sse(w, &all[..n], false, &headers).await?;
            // Let the client consume what was sent first: if the events and the close arrive
            // together, Claude Code drops the partial events instead of showing them.
            tokio::time::sleep(CUT_PAUSE).await;
            // Close without the terminating chunk: the body is incomplete.
            Ok(After::Close)
        }
        Reply::SseError {
            message,
            after_blocks,
        } => {
            let mut events = api.events(&message, &model, input_tokens, Some(after_blocks));
            events.push(match api {
                Api::Responses => {
                    responses::failed_event(events.len(), "server_error", "mock: the model crashed")
                }
                Api::Gemini => gemini::error_event("mock: the model crashed"),
                _ => error_event("overloaded_error", "Overloaded"),
            });
            write_sse(w, &events, true, &headers).await?;
            Ok(After::Close)
        }
    }
}

/// Which model API a request is for.
#[derive(Clone, Copy, PartialEq)]
enum Api {
    /// Anthropic Messages API.
    Messages,
    /// OpenAI Responses API.
    Responses,
    /// Gemini API (`models/<model>:streamGenerateContent`).
    Gemini,
    None,
}

impl Api {
    fn events(
        self,
        msg: &MockMessage,
        model: &str,
        input_tokens: u64,
        block_limit: Option<usize>,
    ) -> Vec<SseEvent> {
        match self {
            Api::Responses => responses::response_events(msg, model, input_tokens, block_limit),
            Api::Gemini => gemini::stream_events(msg, model, input_tokens, block_limit),
            _ => message_events(msg, model, input_tokens, block_limit),
        }
    }
}

/// Sends an SSE response with chunked transfer encoding, one chunk per event (as the real
/// API does). `finish = false` leaves the body unterminated (for cuts).
async fn write_sse<W: AsyncWriteExt + Unpin>(
    w: &mut W,
    events: &[SseEvent],
    finish: bool,
    extra_headers: &std::collections::BTreeMap<String, String>,
) -> anyhow::Result<()> {
    let mut head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\
         cache-control: no-cache\r\nrequest-id: req_mock_{}\r\n\
         transfer-encoding: chunked\r\nconnection: keep-alive\r\n",
        random_hex(24)
    );
    for (k, v) in extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    w.write_all(head.as_bytes()).await?;
    w.flush().await?;
    for event in events {
        if event.delay_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(event.delay_ms)).await;
        }
        let wire = event.to_wire();
        w.write_all(format!("{:x}\r\n{wire}\r\n", wire.len()).as_bytes())
            .await?;
        w.flush().await?;
    }
    if finish {
        w.write_all(b"0\r\n\r\n").await?;
        w.flush().await?;
    }
    Ok(())
}
