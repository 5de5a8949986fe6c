//! Content blocks and usage figures shared by several line kinds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One block of a message's `content` array (assistant, user and subagent lines).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
        #[serde(default)]
        signature: Option<String>,
    },
    RedactedThinking {},
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default, deserialize_with = "null_as_default")]
        content: ToolResultContent,
        #[serde(default, deserialize_with = "null_as_default")]
        is_error: bool,
    },
    Image {},
    #[serde(other)]
    Unknown,
}

/// Deserialises `null` as the type's default (the CLI may write `null` where a list or string
/// is usual; one such field must not cost the whole line).
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A `content` that is a plain string or a list of blocks (a user message's, a tool
/// result's); absent, an empty string.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum TextOrBlocks<B> {
    Text(String),
    Blocks(Vec<B>),
}

impl<B> Default for TextOrBlocks<B> {
    fn default() -> Self {
        TextOrBlocks::Text(String::new())
    }
}

/// The `content` of a `tool_result` block: its blocks are kept as JSON.
pub type ToolResultContent = TextOrBlocks<Value>;

impl ToolResultContent {
    /// The text a person would read: the string itself, or the text blocks joined by newlines
    /// (other block kinds, such as images or tool references, are named in brackets).
    pub fn to_text(&self) -> String {
        match self {
            ToolResultContent::Text(text) => text.clone(),
            ToolResultContent::Blocks(blocks) => {
                let mut out = String::new();
                for block in blocks {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            out.push_str(block.get("text").and_then(Value::as_str).unwrap_or(""))
                        }
                        Some("tool_reference") => {
                            out.push_str("[tool ");
                            out.push_str(
                                block
                                    .get("tool_name")
                                    .and_then(Value::as_str)
                                    .unwrap_or("?"),
                            );
                            out.push(']');
                        }
                        Some(other) => {
                            out.push('[');
                            out.push_str(other);
                            out.push(']');
                        }
                        None => out.push_str("[?]"),
                    }
                }
                out
            }
        }
    }
}

/// Token counts of one API message (`message.usage`, `result.usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Tokens the prompt occupied in the context window (input plus cached input).
    pub fn context_tokens(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// One entry of `result.modelUsage`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u64>,
    #[serde(rename = "costUSD")]
    pub cost_usd: Option<f64>,
}
