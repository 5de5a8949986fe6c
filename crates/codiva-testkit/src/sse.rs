//! Rendering a [`MockMessage`] as the Anthropic Messages API SSE event sequence.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::script::{Block, MockMessage};

/// One server-sent event: `event: <event>\ndata: <data>\n\n` (only `data:` when `event` is
/// empty, as the Gemini API sends them), sent after `delay_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub event: String,
    pub data: Value,
    pub delay_ms: u64,
}

impl SseEvent {
    fn new(event: &str, data: Value) -> Self {
        Self {
            event: event.to_owned(),
            data,
            delay_ms: 0,
        }
    }

    pub fn to_wire(&self) -> String {
        if self.event.is_empty() {
            return format!("data: {}\n\n", self.data);
        }
        format!("event: {}\ndata: {}\n\n", self.event, self.data)
    }
}

/// `n` random lowercase hex digits (not cryptographic; unique enough for ids).
pub fn random_hex(n: usize) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut out = String::with_capacity(n + 16);
    while out.len() < n {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out.truncate(n);
    out
}

/// Splits `s` into pieces of at most `n` chars (never inside a char). `n == 0` → one piece.
pub fn split_chars(s: &str, n: usize) -> Vec<&str> {
    if n == 0 || s.is_empty() {
        return vec![s];
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    for (count, (idx, _)) in s.char_indices().enumerate() {
        if count > 0 && count % n == 0 {
            pieces.push(&s[start..idx]);
            start = idx;
        }
    }
    pieces.push(&s[start..]);
    pieces
}

/// A rough token estimate (chars / 4, at least 1).
fn tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4).max(1)
}

/// The full event sequence of `msg`: `message_start`, per block `content_block_start` /
/// deltas / `content_block_stop` (with one `ping` after the first `content_block_start`),
/// `message_delta`, `message_stop`.
///
/// With `block_limit = Some(n)` only the first `n` blocks are rendered and the closing
/// `message_delta` / `message_stop` are left out (used before an SSE `error` event).
pub fn message_events(
    msg: &MockMessage,
    request_model: &str,
    input_tokens: u64,
    block_limit: Option<usize>,
) -> Vec<SseEvent> {
    let model = msg.model.as_deref().unwrap_or(request_model);
    let mut events = vec![SseEvent::new(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_mock_{}", random_hex(24)),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": input_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": 1,
                "service_tier": "standard"
            }
        }}),
    )];
    let ping = SseEvent::new("ping", json!({"type": "ping"}));
    let mut output_chars = 0;
    let limit = block_limit.unwrap_or(usize::MAX);
    for (index, block) in msg.blocks.iter().take(limit).enumerate() {
        // The Messages API has no freeform tools: such a call is a tool use of its text.
        let as_tool_use;
        let block = match block {
            Block::CustomTool { id, name, input } => {
                as_tool_use = Block::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: json!({ "input": input }),
                };
                &as_tool_use
            }
            block => block,
        };
        let delta = |delta: Value| {
            SseEvent::new(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            )
        };
        let start = |block: Value| {
            SseEvent::new(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": block}),
            )
        };
        match block {
            Block::Text {
                text,
                chunk_chars,
                delay_ms,
            } => {
                output_chars += text.chars().count();
                events.push(start(json!({"type": "text", "text": ""})));
                if index == 0 {
                    events.push(ping.clone());
                }
                for (i, piece) in split_chars(text, *chunk_chars).into_iter().enumerate() {
                    let mut ev = delta(json!({"type": "text_delta", "text": piece}));
                    if i > 0 {
                        ev.delay_ms = *delay_ms;
                    }
                    events.push(ev);
                }
            }
            Block::Thinking { text, signature } => {
                output_chars += text.chars().count();
                events.push(start(
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                ));
                if index == 0 {
                    events.push(ping.clone());
                }
                for piece in split_chars(text, 32) {
                    events.push(delta(json!({"type": "thinking_delta", "thinking": piece})));
                }
                events.push(delta(
                    json!({"type": "signature_delta", "signature": signature}),
                ));
            }
            Block::ToolUse { id, name, input } => {
                let id = id
                    .clone()
                    .unwrap_or_else(|| format!("toolu_mock_{}", random_hex(24)));
                let input_json = input.to_string();
                output_chars += input_json.chars().count();
                events.push(start(
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                ));
                if index == 0 {
                    events.push(ping.clone());
                }
                events.push(delta(
                    json!({"type": "input_json_delta", "partial_json": ""}),
                ));
                let piece_len = input_json.chars().count().div_ceil(3).max(1);
                for piece in split_chars(&input_json, piece_len) {
                    events.push(delta(
                        json!({"type": "input_json_delta", "partial_json": piece}),
                    ));
                }
            }
            Block::CustomTool { .. } => {} // rewritten as a tool use above
        }
        events.push(SseEvent::new(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    if msg.blocks.is_empty() {
        events.push(ping);
    }
    if block_limit.is_none() {
        events.push(SseEvent::new(
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": msg.effective_stop_reason(), "stop_sequence": null},
                   "usage": {"output_tokens": tokens(output_chars)}}),
        ));
        events.push(SseEvent::new(
            "message_stop",
            json!({"type": "message_stop"}),
        ));
    }
    events
}

/// `event: error` as the API sends it mid-stream.
pub fn error_event(error_type: &str, message: &str) -> SseEvent {
    SseEvent::new(
        "error",
        json!({"type": "error", "error": {"type": error_type, "message": message}}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn split_is_char_safe() {
        assert_eq!(split_chars("日本語👋ok", 2), vec!["日本", "語👋", "ok"]);
        assert_eq!(split_chars("abc", 0), vec!["abc"]);
        assert_eq!(split_chars("", 3), vec![""]);
        assert_eq!(split_chars("abcd", 2), vec!["ab", "cd"]);
    }

    #[test]
    fn random_hex_is_hex_and_varies() {
        let a = random_hex(24);
        assert_eq!(a.len(), 24);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, random_hex(24));
    }

    #[test]
    fn event_sequence_of_text_and_tool() {
        let msg = MockMessage::new()
            .text_slow("hello", 2, 7)
            .tool_use_with_id(
                "toolu_1",
                "Write",
                json!({"file_path": "/x", "content": "y"}),
            );
        let events = message_events(&msg, "claude-x", 5, None);
        let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "message_start",
                "content_block_start",
                "ping",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(events[0].data["message"]["model"], "claude-x");
        assert_eq!(events[4].delay_ms, 7);
        let json: String = events
            .iter()
            .filter_map(|e| e.data["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&json).unwrap(),
            json!({"file_path": "/x", "content": "y"})
        );
        assert_eq!(events[13].data["delta"]["stop_reason"], "tool_use");
        let limited = message_events(&msg, "m", 5, Some(1));
        assert_eq!(limited.last().unwrap().event, "content_block_stop");
        assert_eq!(limited.len(), 7);
    }
}
