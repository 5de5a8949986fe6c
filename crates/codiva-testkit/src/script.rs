//! What the mock model server answers: an ordered list of rules, (de)serialisable as JSON.
//!
//! For each `POST /v1/messages` the server picks the first rule, in order, that still has uses
//! left and whose [`Match`] holds for the request body.

use std::path::Path;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An ordered list of [`Rule`]s.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    #[serde(default)]
    pub rules: Vec<Rule>,
}

impl Script {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a rule that answers the next request (any request) once with `reply`.
    pub fn then(self, reply: Reply) -> Self {
        self.rule(Rule::new(Match::Any, reply))
    }

    /// Adds a rule that answers once with `reply` when `when` holds.
    pub fn then_when(self, when: Match, reply: Reply) -> Self {
        self.rule(Rule::new(when, reply))
    }

    /// Adds a rule that answers every request (that no earlier rule took) with `reply`.
    pub fn always(self, reply: Reply) -> Self {
        self.rule(Rule::new(Match::Any, reply).times(Times::Always))
    }

    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    pub fn from_json(text: &str) -> anyhow::Result<Self> {
        serde_json::from_str(text).context("parsing mock script JSON")
    }

    pub fn from_file(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading mock script {}", path.display()))?;
        Self::from_json(&text).with_context(|| format!("in {}", path.display()))
    }

    pub fn to_json_pretty(&self) -> String {
        // Serialising plain data (string keys only) cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// One scripted answer: `reply` when `when` holds, at most `times` times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    #[serde(default)]
    pub when: Match,
    pub reply: Reply,
    #[serde(default)]
    pub times: Times,
    /// Extra HTTP response headers (e.g. `anthropic-ratelimit-unified-*`, see
    /// [`ratelimit_headers`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
}

/// One plan-usage window of a subscription login as the model API reports it in
/// `anthropic-ratelimit-unified-<name>-*` headers (`name`: `5h`, `7d`).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageWindow {
    pub name: &'static str,
    /// 0–1.
    pub utilization: f64,
    /// Unix seconds.
    pub reset: u64,
    /// `allowed`, `allowed_warning` or `rejected`.
    pub status: &'static str,
    /// Set with `allowed_warning`: the threshold passed (0–1).
    pub surpassed_threshold: Option<f64>,
}

/// The `anthropic-ratelimit-unified-*` headers the model API answers a subscription (OAuth)
/// login with: the overall status, reset and representative claim (the first window), and
/// each window's utilization, reset, status and passed threshold (docs/protocol/claude.md, "Plan usage": the
/// names Claude Code 2.1.332 reads).
pub fn ratelimit_headers(windows: &[UsageWindow]) -> std::collections::BTreeMap<String, String> {
    let mut headers = std::collections::BTreeMap::new();
    let prefix = "anthropic-ratelimit-unified";
    let worst = windows
        .iter()
        .find(|w| w.status == "rejected")
        .or_else(|| windows.iter().find(|w| w.status == "allowed_warning"))
        .or(windows.first());
    if let Some(worst) = worst {
        headers.insert(format!("{prefix}-status"), worst.status.to_owned());
        headers.insert(format!("{prefix}-reset"), worst.reset.to_string());
        let claim = match worst.name {
            "5h" => "five_hour",
            "7d" => "seven_day",
            other => other,
        };
        headers.insert(format!("{prefix}-representative-claim"), claim.to_owned());
    }
    for w in windows {
        let name = w.name;
        headers.insert(
            format!("{prefix}-{name}-utilization"),
            w.utilization.to_string(),
        );
        headers.insert(format!("{prefix}-{name}-reset"), w.reset.to_string());
        headers.insert(format!("{prefix}-{name}-status"), w.status.to_owned());
        if let Some(threshold) = w.surpassed_threshold {
            headers.insert(
                format!("{prefix}-{name}-surpassed-threshold"),
                threshold.to_string(),
            );
        }
    }
    headers
}

impl Rule {
    pub fn new(when: Match, reply: Reply) -> Self {
        Self {
            when,
            reply,
            times: Times::Once,
            headers: Default::default(),
        }
    }

    /// Answers with these extra HTTP headers.
    pub fn headers(mut self, headers: std::collections::BTreeMap<String, String>) -> Self {
        self.headers = headers;
        self
    }

    pub fn times(mut self, times: Times) -> Self {
        self.times = times;
        self
    }
}

/// How often a rule may answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Times {
    #[default]
    Once,
    N(usize),
    Always,
}

impl Times {
    /// Remaining uses; `None` = unlimited.
    pub(crate) fn budget(self) -> Option<usize> {
        match self {
            Times::Once => Some(1),
            Times::N(n) => Some(n),
            Times::Always => None,
        }
    }
}

/// A condition on the request body. "User text" of a message = all its text blocks and
/// tool_result contents (string or block forms), joined with `\n`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Match {
    #[default]
    Any,
    /// The last `role:"user"` message contains the string.
    LastUserContains(String),
    /// The first `role:"user"` message contains the string (a subagent's first user
    /// message is the Agent tool's prompt).
    FirstUserContains(String),
    /// Some `role:"user"` message contains the string.
    AnyUserContains(String),
    /// The request's `model` contains the string (a one-shot to a cheaper model than the
    /// session's, e.g. `haiku` for a title, is told apart from the session's turns).
    ModelContains(String),
    /// Every one of these holds.
    All(Vec<Match>),
}

impl Match {
    pub fn matches(&self, body: &Value) -> bool {
        let texts = user_texts(body);
        match self {
            Match::Any => true,
            Match::LastUserContains(s) => texts.last().is_some_and(|t| t.contains(s.as_str())),
            Match::FirstUserContains(s) => texts.first().is_some_and(|t| t.contains(s.as_str())),
            Match::AnyUserContains(s) => texts.iter().any(|t| t.contains(s.as_str())),
            Match::ModelContains(s) => body
                .get("model")
                .and_then(Value::as_str)
                .is_some_and(|model| model.contains(s.as_str())),
            Match::All(all) => all.iter().all(|m| m.matches(body)),
        }
    }
}

/// The text of every `role:"user"` message of a Messages API request body, in order. For a
/// Responses API body (`input` items): every user message and every tool call's output. For a
/// Gemini API body (`contents`): see [`crate::gemini::user_texts`].
pub fn user_texts(body: &Value) -> Vec<String> {
    if let Some(texts) = crate::gemini::user_texts(body) {
        return texts;
    }
    if let Some(items) = body.get("input").and_then(Value::as_array) {
        return items.iter().filter_map(response_user_text).collect();
    }
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return Vec::new();
    };
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map(|m| {
            let mut parts = Vec::new();
            collect_text(m.get("content").unwrap_or(&Value::Null), &mut parts);
            parts.join("\n")
        })
        .collect()
}

/// The user-side text of one Responses API input item, if it is one.
fn response_user_text(item: &Value) -> Option<String> {
    let kind = item.get("type").and_then(Value::as_str);
    match kind {
        Some("function_call_output" | "custom_tool_call_output") => {
            let mut parts = Vec::new();
            collect_text(item.get("output").unwrap_or(&Value::Null), &mut parts);
            Some(parts.join("\n"))
        }
        Some("message") | None if item.get("role").and_then(Value::as_str) == Some("user") => {
            let mut parts = Vec::new();
            collect_text(item.get("content").unwrap_or(&Value::Null), &mut parts);
            Some(parts.join("\n"))
        }
        _ => None,
    }
}

fn collect_text(content: &Value, out: &mut Vec<String>) {
    match content {
        Value::String(s) => out.push(s.clone()),
        Value::Array(blocks) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text" | "input_text" | "output_text") => {
                        if let Some(t) = block.get("text").and_then(Value::as_str) {
                            out.push(t.to_owned());
                        }
                    }
                    Some("tool_result") => {
                        collect_text(block.get("content").unwrap_or(&Value::Null), out)
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// What the server sends back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// A complete SSE stream.
    Message(MockMessage),
    /// An HTTP error with an Anthropic error JSON body.
    Error {
        status: u16,
        error_type: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<u32>,
    },
    /// Send the first `events` SSE events (counting `message_start` and `ping`), then close
    /// the connection without finishing the body.
    CutAfter { message: MockMessage, events: usize },
    /// Send the first `after_blocks` content blocks completely, then `event: error`
    /// (overloaded_error) and end the stream.
    SseError {
        message: MockMessage,
        after_blocks: usize,
    },
}

impl Reply {
    pub fn message(message: MockMessage) -> Self {
        Reply::Message(message)
    }

    pub fn text(text: impl Into<String>) -> Self {
        Reply::Message(MockMessage::new().text(text))
    }

    /// Text streamed in `chunk_chars`-char deltas with `delay_ms` between them.
    pub fn text_slow(text: impl Into<String>, chunk_chars: usize, delay_ms: u64) -> Self {
        Reply::Message(MockMessage::new().text_slow(text, chunk_chars, delay_ms))
    }

    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Reply::Message(MockMessage::new().tool_use(name, input))
    }

    pub fn error(status: u16, error_type: impl Into<String>, message: impl Into<String>) -> Self {
        Reply::Error {
            status,
            error_type: error_type.into(),
            message: message.into(),
            retry_after: None,
        }
    }

    /// HTTP 529 overloaded_error.
    pub fn overloaded() -> Self {
        Self::error(529, "overloaded_error", "Overloaded")
    }

    /// HTTP 429 rate_limit_error with a `retry-after` header.
    pub fn rate_limited(retry_after: u32) -> Self {
        Reply::Error {
            status: 429,
            error_type: "rate_limit_error".into(),
            message: "Rate limited".into(),
            retry_after: Some(retry_after),
        }
    }

    pub fn cut_after(message: MockMessage, events: usize) -> Self {
        Reply::CutAfter { message, events }
    }

    pub fn sse_error(message: MockMessage, after_blocks: usize) -> Self {
        Reply::SseError {
            message,
            after_blocks,
        }
    }
}

/// An assistant message to stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MockMessage {
    #[serde(default)]
    pub blocks: Vec<Block>,
    /// Defaults to `tool_use` if there is a ToolUse block, else `end_turn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Defaults to the request's `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl MockMessage {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn text(self, text: impl Into<String>) -> Self {
        self.text_slow(text, DEFAULT_CHUNK_CHARS, 0)
    }

    pub fn text_slow(mut self, text: impl Into<String>, chunk_chars: usize, delay_ms: u64) -> Self {
        self.blocks.push(Block::Text {
            text: text.into(),
            chunk_chars,
            delay_ms,
        });
        self
    }

    pub fn thinking(mut self, text: impl Into<String>, signature: impl Into<String>) -> Self {
        self.blocks.push(Block::Thinking {
            text: text.into(),
            signature: signature.into(),
        });
        self
    }

    /// A tool call with a generated id (`toolu_mock_<hex>`).
    pub fn tool_use(mut self, name: impl Into<String>, input: Value) -> Self {
        self.blocks.push(Block::ToolUse {
            id: None,
            name: name.into(),
            input,
        });
        self
    }

    pub fn tool_use_with_id(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> Self {
        self.blocks.push(Block::ToolUse {
            id: Some(id.into()),
            name: name.into(),
            input,
        });
        self
    }

    /// A call of a freeform tool with a generated id (see [`Block::CustomTool`]).
    pub fn custom_tool(mut self, name: impl Into<String>, input: impl Into<String>) -> Self {
        self.blocks.push(Block::CustomTool {
            id: None,
            name: name.into(),
            input: input.into(),
        });
        self
    }

    pub fn stop_reason(mut self, stop_reason: impl Into<String>) -> Self {
        self.stop_reason = Some(stop_reason.into());
        self
    }

    pub(crate) fn effective_stop_reason(&self) -> String {
        match &self.stop_reason {
            Some(s) => s.clone(),
            None if self
                .blocks
                .iter()
                .any(|b| matches!(b, Block::ToolUse { .. } | Block::CustomTool { .. })) =>
            {
                "tool_use".into()
            }
            None => "end_turn".into(),
        }
    }
}

pub const DEFAULT_CHUNK_CHARS: usize = 16;

fn default_chunk_chars() -> usize {
    DEFAULT_CHUNK_CHARS
}

/// One content block of a [`MockMessage`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Streamed as `text_delta`s of `chunk_chars` chars (0 = one delta), `delay_ms` apart.
    Text {
        text: String,
        #[serde(default = "default_chunk_chars")]
        chunk_chars: usize,
        #[serde(default)]
        delay_ms: u64,
    },
    /// `thinking_delta`s, then one `signature_delta`.
    Thinking {
        text: String,
        #[serde(default)]
        signature: String,
    },
    /// `input_json_delta`s of the serialised `input` (Responses API: a `function_call` with
    /// the serialised `input` as its `arguments`).
    ToolUse {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// A call of a freeform (custom) tool, whose input is plain text: a Responses API
    /// `custom_tool_call` (Codex's `apply_patch`). The Messages API has no such calls; there it
    /// is a tool use with `{"input": <text>}`.
    CustomTool {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        name: String,
        input: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn user_text_covers_strings_blocks_and_tool_results() {
        let body = json!({"messages": [
            {"role": "user", "content": "first prompt"},
            {"role": "system", "content": "env"},
            {"role": "assistant", "content": [{"type": "text", "text": "assistant says"}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": "tool out"},
                {"type": "tool_result", "tool_use_id": "u",
                 "content": [{"type": "text", "text": "block out"}]},
                {"type": "text", "text": "more"}
            ]}
        ]});
        assert_eq!(
            user_texts(&body),
            vec![
                "first prompt".to_owned(),
                "tool out\nblock out\nmore".to_owned()
            ]
        );
        assert!(Match::FirstUserContains("first".into()).matches(&body));
        assert!(!Match::LastUserContains("first".into()).matches(&body));
        assert!(Match::LastUserContains("block out".into()).matches(&body));
        assert!(Match::AnyUserContains("tool out".into()).matches(&body));
        assert!(!Match::AnyUserContains("assistant says".into()).matches(&body));
        assert!(!Match::AnyUserContains("env".into()).matches(&body));
    }

    #[test]
    fn a_model_and_a_text_are_matched_together() {
        let body = json!({"model": "claude-haiku-5-5",
            "messages": [{"role": "user", "content": "name this"}]});
        let haiku = Match::ModelContains("haiku".into());
        assert!(haiku.matches(&body));
        assert!(!Match::ModelContains("opus".into()).matches(&body));
        assert!(
            Match::All(vec![haiku.clone(), Match::FirstUserContains("name".into())]).matches(&body)
        );
        assert!(!Match::All(vec![haiku, Match::FirstUserContains("other".into())]).matches(&body));
        assert!(!Match::ModelContains("haiku".into()).matches(&json!({"messages": []})));
    }

    #[test]
    fn script_round_trips_through_json() {
        let script = Script::new()
            .then(Reply::text_slow("こんにちは 👋", 2, 5))
            .then_when(
                Match::LastUserContains("x".into()),
                Reply::message(
                    MockMessage::new()
                        .thinking("hmm", "sig")
                        .tool_use("Write", json!({"file_path": "/a", "content": "b"})),
                ),
            )
            .rule(Rule::new(Match::Any, Reply::overloaded()).times(Times::N(2)))
            .rule(Rule::new(Match::Any, Reply::rate_limited(1)).times(Times::Always))
            .then(Reply::cut_after(MockMessage::new().text("abc"), 3))
            .then(Reply::sse_error(MockMessage::new().text("abc"), 1));
        let text = script.to_json_pretty();
        assert_eq!(Script::from_json(&text).unwrap(), script);
    }

    #[test]
    fn minimal_json_uses_defaults() {
        let script = Script::from_json(
            r#"{"rules":[{"reply":{"type":"message","blocks":[{"type":"text","text":"hi"}]}},
                         {"when":{"last_user_contains":"go"},"times":"always",
                          "reply":{"type":"error","status":529,"error_type":"overloaded_error","message":"Overloaded"}}]}"#,
        )
        .unwrap();
        assert_eq!(script.rules[0].when, Match::Any);
        assert_eq!(script.rules[0].times, Times::Once);
        assert_eq!(script.rules[0].reply, Reply::text("hi"));
        assert_eq!(script.rules[1].times, Times::Always);
        assert_eq!(script.rules[1].reply, Reply::overloaded());
    }

    #[test]
    fn the_documented_example_parses() {
        let doc = include_str!("../../../docs/mock-server.md");
        let start = doc.find("```json\n").unwrap() + "```json\n".len();
        let end = start + doc[start..].find("```").unwrap();
        let script = Script::from_json(&doc[start..end]).unwrap();
        assert_eq!(script.rules.len(), 3);
        assert_eq!(script.rules[2].times, Times::Always);
    }

    #[test]
    fn default_stop_reason() {
        assert_eq!(
            MockMessage::new().text("a").effective_stop_reason(),
            "end_turn"
        );
        assert_eq!(
            MockMessage::new()
                .tool_use("Bash", json!({}))
                .effective_stop_reason(),
            "tool_use"
        );
    }
}
