//! The texts of a message sent: what the log shows of it and what the agent's echo carries.

use codiva_protocol::UserInput;

/// What the log shows of a message sent (its text, `[image]` per image) and the text of its
/// echo.
pub(super) fn sent_texts(input: &UserInput) -> (String, String) {
    let echo = echo_text(input);
    // The log shows what the user wrote, not the handover before it.
    let shown = match &input.context {
        Some(_) => echo_text(&UserInput {
            context: None,
            ..input.clone()
        }),
        None => echo.clone(),
    };
    let text = std::iter::once(shown.as_str())
        .chain(input.images.iter().map(|_| "[image]"))
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    (text, echo)
}

/// The text the agent's echo of `input` carries: what it received (an agent command as
/// `/name args`; images are not echoed as text).
pub(super) fn echo_text(input: &UserInput) -> String {
    input.wire_text()
}
