//! Rendering a [`MockMessage`] as the OpenAI Responses API SSE event sequence (what
//! `POST /v1/responses` streams), for the Codex CLI. The same script drives both APIs: text
//! blocks become `message` output items, thinking becomes a `reasoning` item with a summary,
//! a tool use becomes a `function_call` (its input serialised as `arguments`) and a custom
//! tool call (freeform input, Codex's `apply_patch`) a `custom_tool_call`.
//!
//! Measured with codex 0.171.0: every event needs a `sequence_number`, and
//! `response.completed` needs `usage.input_tokens_details` / `output_tokens_details`, or the
//! CLI fails with "Failed to deserialize ResponseStreamEvent".

use serde_json::{Value, json};

use crate::script::{Block, MockMessage};
use crate::sse::{SseEvent, random_hex, split_chars};

/// The events of one response: `response.created`, each output item (added, deltas, done),
/// `response.completed` with usage. With `block_limit = Some(n)` only the first `n` items are
/// rendered and `response.completed` is left out (used before `response.failed`).
pub fn response_events(
    msg: &MockMessage,
    request_model: &str,
    input_tokens: u64,
    block_limit: Option<usize>,
) -> Vec<SseEvent> {
    let model = msg.model.as_deref().unwrap_or(request_model);
    let response_id = format!("resp_mock_{}", random_hex(24));
    let mut out = Events::default();
    let shell = |status: &str, output: Vec<Value>| {
        json!({
            "id": response_id,
            "object": "response",
            "created_at": 0,
            "status": status,
            "model": model,
            "output": output,
        })
    };
    out.push(
        "response.created",
        json!({"response": shell("in_progress", Vec::new())}),
    );
    let mut items = Vec::new();
    let mut output_chars = 0usize;
    let limit = block_limit.unwrap_or(usize::MAX);
    for (index, block) in msg.blocks.iter().take(limit).enumerate() {
        let item = match block {
            Block::Text {
                text,
                chunk_chars,
                delay_ms,
            } => {
                output_chars += text.chars().count();
                out.text_item(index, text, *chunk_chars, *delay_ms)
            }
            Block::Thinking { text, .. } => {
                output_chars += text.chars().count();
                out.reasoning_item(index, text)
            }
            Block::ToolUse { id, name, input } => {
                let arguments = input.to_string();
                output_chars += arguments.chars().count();
                out.function_call_item(index, id.as_deref(), name, &arguments)
            }
            Block::CustomTool { id, name, input } => {
                output_chars += input.chars().count();
                out.custom_tool_item(index, id.as_deref(), name, input)
            }
        };
        items.push(item);
    }
    if block_limit.is_none() {
        let output_tokens = (output_chars as u64).div_ceil(4).max(1);
        let mut response = shell("completed", items);
        response["usage"] = json!({
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        });
        out.push("response.completed", json!({"response": response}));
    }
    out.events
}

/// `response.failed` as the API sends it when the model fails mid-response.
pub fn failed_event(sequence_number: usize, code: &str, message: &str) -> SseEvent {
    let mut out = Events {
        events: Vec::new(),
        sequence: sequence_number,
    };
    out.push(
        "response.failed",
        json!({"response": {
            "id": format!("resp_mock_{}", random_hex(24)),
            "object": "response",
            "status": "failed",
            "error": {"code": code, "message": message},
            "output": [],
        }}),
    );
    out.events.remove(0)
}

/// An HTTP error body as the Responses API sends it.
pub fn error_body(error_type: &str, message: &str) -> Value {
    json!({"error": {"message": message, "type": error_type, "param": null, "code": error_type}})
}

#[derive(Default)]
struct Events {
    events: Vec<SseEvent>,
    sequence: usize,
}

impl Events {
    fn push(&mut self, kind: &str, mut data: Value) -> &mut SseEvent {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.events.push(SseEvent {
            event: kind.to_owned(),
            data,
            delay_ms: 0,
        });
        let last = self.events.len() - 1;
        &mut self.events[last]
    }

    fn added(&mut self, index: usize, item: Value) {
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
        );
    }

    fn done(&mut self, index: usize, item: &Value) {
        self.push(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
    }

    fn text_item(&mut self, index: usize, text: &str, chunk_chars: usize, delay_ms: u64) -> Value {
        let id = format!("msg_mock_{}", random_hex(24));
        self.added(
            index,
            json!({"id": id, "type": "message", "status": "in_progress", "role": "assistant",
                   "content": []}),
        );
        let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
        self.push(
            "response.content_part.added",
            json!({"item_id": id, "output_index": index, "content_index": 0, "part": part("")}),
        );
        for (i, piece) in split_chars(text, chunk_chars).into_iter().enumerate() {
            let event = self.push(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": piece}),
            );
            if i > 0 {
                event.delay_ms = delay_ms;
            }
        }
        self.push(
            "response.output_text.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
        );
        self.push(
            "response.content_part.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "part": part(text)}),
        );
        let item = json!({"id": id, "type": "message", "status": "completed",
                          "role": "assistant", "content": [part(text)]});
        self.done(index, &item);
        item
    }

    fn reasoning_item(&mut self, index: usize, text: &str) -> Value {
        let id = format!("rs_mock_{}", random_hex(24));
        self.added(index, json!({"id": id, "type": "reasoning", "summary": []}));
        let part = |text: &str| json!({"type": "summary_text", "text": text});
        let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
        let with = |mut value: Value, key: &str, extra: Value| {
            value[key] = extra;
            value
        };
        self.push(
            "response.reasoning_summary_part.added",
            with(at.clone(), "part", part("")),
        );
        for piece in split_chars(text, 32) {
            self.push(
                "response.reasoning_summary_text.delta",
                with(at.clone(), "delta", json!(piece)),
            );
        }
        self.push(
            "response.reasoning_summary_text.done",
            with(at.clone(), "text", json!(text)),
        );
        self.push(
            "response.reasoning_summary_part.done",
            with(at, "part", part(text)),
        );
        let item = json!({"id": id, "type": "reasoning", "summary": [part(text)]});
        self.done(index, &item);
        item
    }

    fn function_call_item(
        &mut self,
        index: usize,
        call_id: Option<&str>,
        name: &str,
        arguments: &str,
    ) -> Value {
        let id = format!("fc_mock_{}", random_hex(24));
        let call_id =
            call_id.map_or_else(|| format!("call_mock_{}", random_hex(24)), str::to_owned);
        self.added(
            index,
            json!({"id": id, "type": "function_call", "status": "in_progress",
                   "call_id": call_id, "name": name, "arguments": ""}),
        );
        self.push(
            "response.function_call_arguments.delta",
            json!({"item_id": id, "output_index": index, "delta": arguments}),
        );
        self.push(
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": index, "arguments": arguments}),
        );
        let item = json!({"id": id, "type": "function_call", "status": "completed",
                          "call_id": call_id, "name": name, "arguments": arguments});
        self.done(index, &item);
        item
    }

    fn custom_tool_item(
        &mut self,
        index: usize,
        call_id: Option<&str>,
        name: &str,
        input: &str,
    ) -> Value {
        let id = format!("ctc_mock_{}", random_hex(24));
        let call_id =
            call_id.map_or_else(|| format!("call_mock_{}", random_hex(24)), str::to_owned);
        self.added(
            index,
            json!({"id": id, "type": "custom_tool_call", "status": "in_progress",
                   "call_id": call_id, "name": name, "input": ""}),
        );
        self.push(
            "response.custom_tool_call_input.delta",
            json!({"item_id": id, "output_index": index, "delta": input}),
        );
        self.push(
            "response.custom_tool_call_input.done",
            json!({"item_id": id, "output_index": index, "input": input}),
        );
        let item = json!({"id": id, "type": "custom_tool_call", "status": "completed",
                          "call_id": call_id, "name": name, "input": input});
        self.done(index, &item);
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_is_numbered_and_the_items_are_complete() {
        let msg = MockMessage::new()
            .thinking("plan it", "")
            .text_slow("héllo 世界", 3, 4)
            .tool_use_with_id("call_1", "exec_command", json!({"cmd": "ls"}))
            .custom_tool("apply_patch", "*** Begin Patch\n*** End Patch");
        let events = response_events(&msg, "gpt-5.5", 10, None);
        for (n, event) in events.iter().enumerate() {
            assert_eq!(event.data["sequence_number"], n);
            assert_eq!(event.data["type"], event.event.as_str());
        }
        let text: String = events
            .iter()
            .filter(|e| e.event == "response.output_text.delta")
            .map(|e| e.data["delta"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(text, "héllo 世界");
        let last = events.last().unwrap();
        assert_eq!(last.event, "response.completed");
        let output = last.data["response"]["output"].as_array().unwrap();
        let kinds: Vec<&str> = output.iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            ["reasoning", "message", "function_call", "custom_tool_call"]
        );
        assert_eq!(output[2]["call_id"], "call_1");
        assert_eq!(output[2]["arguments"], r#"{"cmd":"ls"}"#);
        assert_eq!(output[3]["input"], "*** Begin Patch\n*** End Patch");
        assert!(last.data["response"]["usage"]["input_tokens_details"].is_object());
        let limited = response_events(&msg, "gpt-5.5", 10, Some(1));
        assert_eq!(limited.last().unwrap().event, "response.output_item.done");
        assert_eq!(
            failed_event(7, "server_error", "x").data["sequence_number"],
            7
        );
    }
}
