//! The Gemini API (Generative Language `v1beta`) as the Gemini CLI calls it, rendered from the
//! same [`MockMessage`] as the other APIs: `POST /v1beta/models/<model>:streamGenerateContent
//! ?alt=sse` streams `data:` lines of `GenerateContentResponse` chunks (no `event:` line), each
//! with one part; `:generateContent` answers the whole response at once and `:countTokens` an
//! estimate.
//!
//! A text block becomes text parts of `chunk_chars` characters, thinking a part with
//! `"thought": true`, a tool use a `functionCall` part (`args` = the input; `id` only when the
//! script gives one: the CLI makes its own call id otherwise). The last chunk carries
//! `finishReason` and `usageMetadata`, as the API sends them (Gemini CLI 0.61.0 reads a stream
//! without a finish reason as invalid: `NO_FINISH_REASON` in its code).

use serde_json::{Value, json};

use crate::script::{Block, MockMessage};
use crate::sse::{SseEvent, random_hex, split_chars};

/// What a request under `/v1beta/models/` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `:streamGenerateContent` (SSE with `?alt=sse`).
    Stream,
    /// `:generateContent` (one JSON response).
    Generate,
    /// `:countTokens`.
    CountTokens,
}

/// The model and method of a Gemini API route (`/v1beta/models/gemini-2.5-pro:generateContent`),
/// if it is one.
pub fn route(route: &str) -> Option<(&str, Method)> {
    let rest = route
        .strip_prefix("/v1beta/models/")
        .or_else(|| route.strip_prefix("/v1/models/"))?;
    let (model, method) = rest.rsplit_once(':')?;
    let method = match method {
        "streamGenerateContent" => Method::Stream,
        "generateContent" => Method::Generate,
        "countTokens" => Method::CountTokens,
        _ => return None,
    };
    Some((model, method))
}

/// The text of every `role:"user"` content of a request (`contents`), in order: its text
/// parts and its function responses (a `response.output` string, else the response as JSON),
/// joined with `\n`. `None` when the body has no `contents`.
pub fn user_texts(body: &Value) -> Option<Vec<String>> {
    let contents = body.get("contents")?.as_array()?;
    Some(
        contents
            .iter()
            .filter(|c| c.get("role").and_then(Value::as_str) == Some("user"))
            .map(|c| {
                let parts = c.get("parts").and_then(Value::as_array);
                parts
                    .into_iter()
                    .flatten()
                    .filter_map(part_text)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect(),
    )
}

fn part_text(part: &Value) -> Option<String> {
    if part.get("thought").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        return Some(text.to_owned());
    }
    let response = part.get("functionResponse")?.get("response")?;
    Some(match response.get("output").and_then(Value::as_str) {
        Some(output) => output.to_owned(),
        None => response.to_string(),
    })
}

/// One streamed part with what the chunk around it needs.
struct Chunk {
    part: Value,
    delay_ms: u64,
}

fn chunks(msg: &MockMessage, block_limit: Option<usize>) -> (Vec<Chunk>, usize) {
    let mut out = Vec::new();
    let mut output_chars = 0usize;
    for block in msg.blocks.iter().take(block_limit.unwrap_or(usize::MAX)) {
        match block {
            Block::Text {
                text,
                chunk_chars,
                delay_ms,
            } => {
                output_chars += text.chars().count();
                for (i, piece) in split_chars(text, *chunk_chars).into_iter().enumerate() {
                    out.push(Chunk {
                        part: json!({"text": piece}),
                        delay_ms: if i > 0 { *delay_ms } else { 0 },
                    });
                }
            }
            Block::Thinking { text, .. } => {
                output_chars += text.chars().count();
                out.push(Chunk {
                    part: json!({"text": text, "thought": true}),
                    delay_ms: 0,
                });
            }
            Block::ToolUse { id, name, input } => {
                output_chars += input.to_string().chars().count();
                let mut call = json!({"name": name, "args": input});
                if let Some(id) = id {
                    call["id"] = json!(id);
                }
                out.push(Chunk {
                    part: json!({"functionCall": call}),
                    delay_ms: 0,
                });
            }
            Block::CustomTool { id, name, input } => {
                output_chars += input.chars().count();
                let mut call = json!({"name": name, "args": {"input": input}});
                if let Some(id) = id {
                    call["id"] = json!(id);
                }
                out.push(Chunk {
                    part: json!({"functionCall": call}),
                    delay_ms: 0,
                });
            }
        }
    }
    (out, output_chars)
}

fn finish_reason(msg: &MockMessage) -> &'static str {
    match msg.stop_reason.as_deref() {
        Some("max_tokens") => "MAX_TOKENS",
        _ => "STOP",
    }
}

fn usage(input_tokens: u64, output_chars: usize) -> Value {
    let output = (output_chars as u64).div_ceil(4).max(1);
    json!({
        "promptTokenCount": input_tokens,
        "candidatesTokenCount": output,
        "totalTokenCount": input_tokens + output,
    })
}

fn response(parts: Vec<Value>, model: &str, response_id: &str) -> Value {
    json!({
        "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
        "modelVersion": model,
        "responseId": response_id,
    })
}

/// The SSE chunks of one streamed response. With `block_limit = Some(n)` only the first `n`
/// blocks are sent and no chunk finishes the response (used before an error chunk).
pub fn stream_events(
    msg: &MockMessage,
    request_model: &str,
    input_tokens: u64,
    block_limit: Option<usize>,
) -> Vec<SseEvent> {
    let model = msg.model.as_deref().unwrap_or(request_model);
    let response_id = format!("mock_{}", random_hex(20));
    let (chunks, output_chars) = chunks(msg, block_limit);
    let mut events: Vec<SseEvent> = chunks
        .into_iter()
        .map(|chunk| SseEvent {
            event: String::new(),
            data: response(vec![chunk.part], model, &response_id),
            delay_ms: chunk.delay_ms,
        })
        .collect();
    if block_limit.is_none() {
        if events.is_empty() {
            events.push(SseEvent {
                event: String::new(),
                data: response(vec![json!({"text": ""})], model, &response_id),
                delay_ms: 0,
            });
        }
        let last = events.last_mut().map(|event| &mut event.data);
        if let Some(data) = last {
            data["candidates"][0]["finishReason"] = json!(finish_reason(msg));
            data["usageMetadata"] = usage(input_tokens, output_chars);
        }
    }
    events
}

/// The whole response of a `:generateContent` request.
pub fn generate_response(msg: &MockMessage, request_model: &str, input_tokens: u64) -> Value {
    let model = msg.model.as_deref().unwrap_or(request_model);
    let (chunks, output_chars) = chunks(msg, None);
    let mut parts: Vec<Value> = Vec::new();
    for chunk in chunks {
        // Consecutive text pieces of one block are one part in a whole response.
        let text = chunk.part.get("text").and_then(Value::as_str);
        let thought = chunk.part.get("thought").is_some();
        match (text, parts.last_mut()) {
            (Some(piece), Some(last))
                if !thought && last.get("thought").is_none() && last.get("text").is_some() =>
            {
                let joined = format!("{}{piece}", last["text"].as_str().unwrap_or_default());
                last["text"] = json!(joined);
            }
            _ => parts.push(chunk.part),
        }
    }
    let mut out = response(parts, model, &format!("mock_{}", random_hex(20)));
    out["candidates"][0]["finishReason"] = json!(finish_reason(msg));
    out["usageMetadata"] = usage(input_tokens, output_chars);
    out
}

/// The status name Google's APIs give an HTTP status (`google.rpc.Code`).
fn status_name(status: u16) -> &'static str {
    match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "INTERNAL",
    }
}

/// An HTTP error body as Google's APIs send it: `{"error":{"code","message","status"}}`. The
/// script's `error_type` is the `status` when it is one of Google's (upper case), else the
/// status follows the HTTP code.
pub fn error_body(status: u16, error_type: &str, message: &str) -> Value {
    let name = if !error_type.is_empty()
        && error_type
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_')
    {
        error_type.to_owned()
    } else {
        status_name(status).to_owned()
    };
    json!({"error": {"code": status, "message": message, "status": name}})
}

/// The chunk that ends a stream with an error mid-response.
pub fn error_event(message: &str) -> SseEvent {
    SseEvent {
        event: String::new(),
        data: error_body(503, "UNAVAILABLE", message),
        delay_ms: 0,
    }
}

/// `:countTokens`'s answer for a body of `bytes` bytes.
pub fn count_tokens(bytes: usize) -> Value {
    json!({"totalTokens": (bytes / 4).max(1)})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_the_model_and_the_method() {
        assert_eq!(
            route("/v1beta/models/gemini-2.5-pro:streamGenerateContent"),
            Some(("gemini-2.5-pro", Method::Stream))
        );
        assert_eq!(
            route("/v1beta/models/gemini-3.5-flash-lite:generateContent"),
            Some(("gemini-3.5-flash-lite", Method::Generate))
        );
        assert_eq!(
            route("/v1beta/models/x:countTokens"),
            Some(("x", Method::CountTokens))
        );
        assert_eq!(route("/v1beta/models/x:embedContent"), None);
        assert_eq!(route("/v1/messages"), None);
    }

    #[test]
    fn a_stream_has_one_part_per_chunk_and_finishes_on_the_last() {
        let msg = MockMessage::new()
            .thinking("**Plan** it", "")
            .text_slow("héllo 世界", 3, 4)
            .tool_use("run_shell_command", json!({"command": "ls"}));
        let events = stream_events(&msg, "gemini-2.5-pro", 10, None);
        assert!(events.iter().all(|e| e.event.is_empty()));
        let parts: Vec<&Value> = events
            .iter()
            .map(|e| &e.data["candidates"][0]["content"]["parts"][0])
            .collect();
        assert_eq!(parts[0]["thought"], true);
        let text: String = parts[1..4]
            .iter()
            .map(|p| p["text"].as_str().unwrap())
            .collect();
        assert_eq!(text, "héllo 世界");
        assert_eq!(events[2].delay_ms, 4);
        assert_eq!(parts[4]["functionCall"]["name"], "run_shell_command");
        assert!(parts[4]["functionCall"].get("id").is_none());
        let last = &events.last().unwrap().data;
        assert_eq!(last["candidates"][0]["finishReason"], "STOP");
        assert_eq!(last["usageMetadata"]["promptTokenCount"], 10);
        assert!(
            events[..events.len() - 1]
                .iter()
                .all(|e| e.data["candidates"][0].get("finishReason").is_none())
        );
        let cut = stream_events(&msg, "m", 1, Some(1));
        assert_eq!(cut.len(), 1);
        assert!(cut[0].data["candidates"][0].get("finishReason").is_none());
        let empty = stream_events(&MockMessage::new(), "m", 1, None);
        assert_eq!(empty[0].data["candidates"][0]["finishReason"], "STOP");
    }

    #[test]
    fn a_whole_response_joins_the_text_of_a_block() {
        let msg = MockMessage::new()
            .text_slow("one two three", 3, 0)
            .tool_use_with_id("c1", "write_file", json!({"file_path": "a"}));
        let out = generate_response(&msg, "gemini-2.5-pro", 5);
        let parts = out["candidates"][0]["content"]["parts"].as_array().unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0]["text"], "one two three");
        assert_eq!(parts[1]["functionCall"]["id"], "c1");
    }

    #[test]
    fn user_texts_cover_text_parts_and_function_responses() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "<session_context>"}, {"text": "say hello"}]},
            {"role": "model", "parts": [{"text": "hi"}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
                "response": {"output": "made"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "x",
                "response": {"error": "denied"}}}]},
        ]});
        assert_eq!(
            user_texts(&body).unwrap(),
            [
                "<session_context>\nsay hello",
                "made",
                r#"{"error":"denied"}"#
            ]
        );
        assert!(user_texts(&json!({"messages": []})).is_none());
    }

    #[test]
    fn errors_have_google_status_names() {
        assert_eq!(
            error_body(401, "authentication_error", "bad key")["error"]["status"],
            "UNAUTHENTICATED"
        );
        assert_eq!(
            error_body(400, "INVALID_ARGUMENT", "API key not valid.")["error"]["status"],
            "INVALID_ARGUMENT"
        );
    }
}
