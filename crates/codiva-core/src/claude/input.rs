//! A user's message ([`codiva_protocol::UserInput`], the same for every agent) in Claude Code's
//! terms: text and image blocks; a slash command is text that starts with `/`, as the CLI
//! reads it.

use codiva_protocol::UserInput;
use codiva_wire::claude::{InputBlock, UserInput as ClaudeInput};

/// The blocks Claude Code is sent for `input`: the text (or `/command text`), then the images.
pub fn to_claude(input: UserInput) -> ClaudeInput {
    let text = input.wire_text();
    let mut blocks = vec![InputBlock::Text(text)];
    blocks.extend(input.images.into_iter().map(|image| InputBlock::Image {
        media_type: image.media_type,
        data_base64: image.data,
    }));
    ClaudeInput { blocks }
}

#[cfg(test)]
mod tests {
    use codiva_protocol::ImageInput;

    use super::*;

    #[test]
    fn text_command_and_images_become_claude_blocks() {
        let image = ImageInput {
            media_type: "image/png".to_owned(),
            data: "iVBO".to_owned(),
        };
        let input = UserInput {
            text: "fix it".to_owned(),
            images: vec![image],
            command: None,
            context: None,
        };
        assert_eq!(
            to_claude(input).blocks,
            vec![
                InputBlock::Text("fix it".to_owned()),
                InputBlock::Image {
                    media_type: "image/png".to_owned(),
                    data_base64: "iVBO".to_owned(),
                },
            ]
        );
        let command = UserInput {
            text: "src/".to_owned(),
            images: Vec::new(),
            command: Some("review".to_owned()),
            context: None,
        };
        assert_eq!(
            to_claude(command).blocks,
            vec![InputBlock::Text("/review src/".to_owned())]
        );
        // A handover goes before the text, in the same block (the echo carries both).
        let handed = UserInput {
            context: Some("[codiva handover] …".to_owned()),
            ..UserInput::text("go on")
        };
        assert_eq!(
            to_claude(handed).blocks,
            vec![InputBlock::Text("[codiva handover] …\n\ngo on".to_owned())]
        );
    }
}
