//! What Claude Code accepts as input, checked where input enters codiva rather than sent to
//! the agent to fail there: its permission modes and the images its model API takes. A bad
//! mode makes the CLI exit with a usage error at every start (a session that can never run);
//! a bad image makes every later request of the conversation fail. Front ends (serve, exec,
//! the manager) ask here, so the agent's own sets live in one place.

use base64::Engine;

/// Image types the model API takes (`source.media_type` of a base64 image block).
pub use crate::provider::IMAGE_TYPES;

pub use crate::provider::InvalidInput;
use codiva_protocol::tool::PermissionMode;

/// The permission modes the agent accepts, by its own names: Claude Code 2.1.332 has every
/// neutral mode under its neutral name (its `set_permission_mode` error lists them: "must be
/// one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan"; its `initialize`
/// answer reports only the current mode, not the set).
pub const fn permission_modes() -> &'static [&'static str] {
    &PermissionMode::NAMES
}

/// `Ok` when the agent has the neutral mode `mode`; else an error for `field` that lists the
/// modes.
pub fn check_permission_mode(field: &str, mode: PermissionMode) -> Result<(), InvalidInput> {
    if super::tool_view::mode_name(mode).is_some() {
        return Ok(());
    }
    Err(InvalidInput::new(
        field,
        format!(
            "expected one of {}, got a mode Claude Code does not have",
            permission_modes().join(", ")
        ),
    ))
}

/// `Ok` when `data` is standard base64 of an image of `media_type` (one of [`IMAGE_TYPES`],
/// and the bytes start as that type does). `field` names the image (`images[0]`).
pub fn check_image(field: &str, media_type: &str, data: &str) -> Result<(), InvalidInput> {
    if !IMAGE_TYPES.contains(&media_type) {
        return Err(InvalidInput::new(
            format!("{field}.media_type"),
            format!(
                "expected one of {}, got {media_type:?}",
                IMAGE_TYPES.join(", ")
            ),
        ));
    }
    let data_field = format!("{field}.data");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|err| InvalidInput::new(&data_field, format!("expected base64: {err}")))?;
    if bytes.is_empty() {
        return Err(InvalidInput::new(data_field, "the image is empty"));
    }
    let actual = sniff(&bytes);
    if actual != Some(media_type) {
        let found = actual.map_or("no supported image type".to_owned(), |t| t.to_owned());
        return Err(InvalidInput::new(
            data_field,
            format!("expected {media_type} data, found {found}"),
        ));
    }
    Ok(())
}

/// The image type `bytes` start with (its magic number).
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn permission_modes_are_the_agents_own() {
        // Claude Code has every neutral mode, under the same names: the set its
        // `set_permission_mode` error lists.
        for mode in PermissionMode::ALL {
            assert_eq!(check_permission_mode("mode", mode), Ok(()));
            assert_eq!(super::super::tool_view::mode_name(mode), Some(mode.name()));
        }
        let mut listed = permission_modes().to_vec();
        listed.sort_unstable();
        assert_eq!(
            listed.join(", "),
            "acceptEdits, auto, bypassPermissions, default, dontAsk, plan"
        );
        let err = check_permission_mode("permission_mode", PermissionMode::Other).unwrap_err();
        assert_eq!(err.field, "permission_mode");
        assert!(err.message.contains("acceptEdits"), "{err}");
        assert!(err.message.contains("does not have"), "{err}");
    }

    #[test]
    fn images_of_each_supported_type_pass() {
        let png = b64(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let jpeg = b64(b"\xff\xd8\xff\xe0\0\x10JFIF");
        let gif = b64(b"GIF89a\x01\0\x01\0");
        let webp = b64(b"RIFF\x24\0\0\0WEBPVP8 ");
        for (media_type, data) in [
            ("image/png", &png),
            ("image/jpeg", &jpeg),
            ("image/gif", &gif),
            ("image/webp", &webp),
        ] {
            assert_eq!(check_image("images[0]", media_type, data), Ok(()));
        }
    }

    #[test]
    fn bad_images_name_the_field() {
        let png = b64(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let err = check_image("images[1]", "image/bmp", &png).unwrap_err();
        assert_eq!(err.field, "images[1].media_type");
        assert!(err.message.contains("image/png"), "{err}");
        let err = check_image("images[0]", "image/png", "not base64!").unwrap_err();
        assert_eq!(err.field, "images[0].data");
        assert!(err.message.starts_with("expected base64"), "{err}");
        let err = check_image("images[0]", "image/png", "").unwrap_err();
        assert_eq!(err.field, "images[0].data");
        let err = check_image("images[0]", "image/jpeg", &png).unwrap_err();
        assert_eq!(err.message, "expected image/jpeg data, found image/png");
        let err = check_image("images[0]", "image/png", &b64(b"hello")).unwrap_err();
        assert!(err.message.contains("no supported image type"), "{err}");
    }
}
