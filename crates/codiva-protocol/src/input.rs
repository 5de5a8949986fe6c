//! What a user sends to an agent, in neutral terms: text, images, or one of the agent's own
//! slash commands. Each agent adapter in the core turns it into its own wire format.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An image attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImageInput {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// Standard base64 of the image.
    pub data: String,
}

/// One message from the user.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UserInput {
    pub text: String,
    #[serde(default)]
    pub images: Vec<ImageInput>,
    /// One of the agent's commands (as `session/connected` lists them), run with `text` as
    /// its arguments, instead of a plain message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// What codiva adds before `text` for the agent only (the handover after a switch of
    /// agents): the agent reads it, the log shows `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl UserInput {
    /// The one text an agent is sent for this message: the context and the text (see
    /// [`UserInput::agent_text`]), an agent command as `/name args`.
    pub fn wire_text(&self) -> String {
        let text = self.agent_text();
        match &self.command {
            Some(command) if text.is_empty() => format!("/{command}"),
            Some(command) => format!("/{command} {text}"),
            None => text.into_owned(),
        }
    }

    /// The text the agent receives: the context, a blank line, then the text.
    pub fn agent_text(&self) -> std::borrow::Cow<'_, str> {
        match &self.context {
            Some(context) if !context.is_empty() => {
                std::borrow::Cow::Owned(format!("{context}\n\n{}", self.text))
            }
            _ => std::borrow::Cow::Borrowed(&self.text),
        }
    }

    /// A message of text only.
    pub fn text(text: impl Into<String>) -> Self {
        UserInput {
            text: text.into(),
            images: Vec::new(),
            command: None,
            context: None,
        }
    }

    /// The text with an image or more.
    pub fn with_images(text: impl Into<String>, images: Vec<ImageInput>) -> Self {
        UserInput {
            text: text.into(),
            images,
            command: None,
            context: None,
        }
    }
}
