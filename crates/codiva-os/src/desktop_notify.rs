//! Desktop notifications outside the terminal: `notify-send` on Linux, `osascript` on macOS.
//! Used by front ends when the terminal has no notification escape sequence of its own.
//!
//! The programs are started by argument vector (never a shell), in their own process group (a
//! Ctrl-C in the terminal does not reach them), with no stdin and their output discarded, and
//! are killed after [`TIMEOUT`]. The caller sanitises the text (no control characters); this
//! module only makes sure that nothing in it can be read as an option or as AppleScript.

use std::ffi::OsString;
use std::io;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How long a notifier may take before it is killed.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Shows a notification with `title` and `body`. An error when no notifier exists on this
/// platform, it cannot be started, it fails or it times out; callers usually ignore it.
pub async fn notify(title: &str, body: &str) -> io::Result<()> {
    let Some((program, args)) = command_line(title, body) else {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no desktop notifier on this platform",
        ));
    };
    run(program, &args).await
}

/// Opens `url` (only `http`, `https` and `mailto` links) with the desktop's handler:
/// `xdg-open` on Linux and the BSDs, `open` on macOS. The URL comes from model output: it is
/// passed as one argument (never through a shell), after `--` where the opener takes it.
pub async fn open_url(url: &str) -> io::Result<()> {
    if !is_openable(url) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not opening {url:?}: only http, https and mailto links are opened"),
        ));
    }
    let (program, args): (&str, Vec<OsString>) = if cfg!(target_os = "macos") {
        ("open", vec![OsString::from(url)])
    } else {
        ("xdg-open", vec![OsString::from(url)])
    };
    run(program, &args).await
}

/// A link codiva opens on a click: a web or mail address without control characters.
pub fn is_openable(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:"))
        && !url.chars().any(char::is_control)
        && !url.starts_with('-')
}

async fn run(program: &'static str, args: &[OsString]) -> io::Result<()> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .process_group(0)
        .spawn()?;
    match tokio::time::timeout(TIMEOUT, child.wait()).await {
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => Err(io::Error::other(format!("{program} exited with {status}"))),
        Ok(Err(err)) => Err(err),
        Err(_elapsed) => {
            let _ = child.kill().await;
            Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("{program} did not finish within {TIMEOUT:?}"),
            ))
        }
    }
}

/// The program and arguments for this platform (`None`: no notifier).
fn command_line(title: &str, body: &str) -> Option<(&'static str, Vec<OsString>)> {
    if cfg!(target_os = "macos") {
        Some(("osascript", osascript_args(title, body)))
    } else if cfg!(any(
        target_os = "linux",
        target_os = "freebsd",
        target_os = "openbsd",
        target_os = "netbsd"
    )) {
        Some(("notify-send", notify_send_args(title, body)))
    } else {
        None
    }
}

/// `notify-send --app-name=codiva -- <title> <body>`: `--` so that a title starting with `-`
/// is not an option. The title is the summary, which notification servers show as plain text.
pub fn notify_send_args(title: &str, body: &str) -> Vec<OsString> {
    ["--app-name=codiva", "--", title, body]
        .into_iter()
        .map(OsString::from)
        .collect()
}

/// `osascript -e 'display notification "<body>" with title "<title>"'`: both strings are
/// AppleScript string literals ([`applescript_string`]).
pub fn osascript_args(title: &str, body: &str) -> Vec<OsString> {
    let script = format!(
        "display notification {} with title {}",
        applescript_string(body),
        applescript_string(title)
    );
    vec![OsString::from("-e"), OsString::from(script)]
}

/// `text` as an AppleScript string literal: quoted, with `\` and `"` escaped, and line breaks
/// written as `\n`/`\r` (AppleScript reads those escapes) so that the literal stays one line.
pub fn applescript_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ch if ch.is_control() => {}
            ch => out.push(ch),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applescript_literals_cannot_be_left() {
        assert_eq!(applescript_string("plain"), "\"plain\"");
        assert_eq!(
            applescript_string(r#"a "quote" and \ back"#),
            r#""a \"quote\" and \\ back""#
        );
        assert_eq!(
            applescript_string("end\" & (do shell script \"id\") & \""),
            r#""end\" & (do shell script \"id\") & \"""#
        );
        assert_eq!(applescript_string("two\nlines\x1b\x07"), "\"two\\nlines\"");
    }

    #[test]
    fn osascript_gets_one_statement() {
        let args = osascript_args("Fix \"login\"", "completed");
        assert_eq!(
            args,
            vec![
                OsString::from("-e"),
                OsString::from(r#"display notification "completed" with title "Fix \"login\"""#),
            ]
        );
    }

    #[test]
    fn notify_send_ends_options_before_the_text() {
        let args = notify_send_args("--help", "-u critical");
        assert_eq!(
            args,
            ["--app-name=codiva", "--", "--help", "-u critical"]
                .map(OsString::from)
                .to_vec()
        );
    }
}

#[cfg(test)]
mod open_tests {
    use super::is_openable;

    #[test]
    fn only_web_and_mail_links_open() {
        assert!(is_openable("https://example.invalid/a?b=c"));
        assert!(is_openable("mailto:someone@example.invalid"));
        assert!(!is_openable("file:///etc/passwd"));
        assert!(!is_openable("javascript:alert(1)"));
        assert!(!is_openable("https://example.invalid/\x1b]0;x"));
        assert!(!is_openable("--help"));
    }
}
