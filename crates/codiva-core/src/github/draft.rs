//! The title and body of a draft pull request, made from a session: its title, its first
//! instruction and its commits. All of it may hold model output (a generated title, an agent's
//! commit messages): escape sequences, control characters and bidi overrides are removed and
//! the length is bounded before it reaches GitHub (and, from there, terminals).

/// The most commits listed in a body.
pub const BODY_COMMITS: usize = 30;
/// The most characters of the first instruction in a body.
pub const BODY_PROMPT_CHARS: usize = 4000;
/// The longest title.
pub const TITLE_CHARS: usize = 120;

/// One line, safe for a terminal: controls and bidi overrides dropped, whitespace runs made
/// one space, at most `max` characters.
pub fn clean_line(text: &str, max: usize) -> String {
    codiva_protocol::text::sanitize_title_to(text, max).unwrap_or_default()
}

/// A title from a session's title or an instruction's first line.
pub fn title(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    clean_line(line, TITLE_CHARS)
}

/// Text that may hold model output, for a body: cleaned as [`crate::review::clean`] does
/// (escape sequences, control characters but newlines and tabs, and bidi overrides removed; at
/// most `max` characters), then trimmed.
pub fn clean_text(text: &str, max: usize) -> String {
    crate::review::clean(text, max).trim().to_owned()
}

/// A body: the first instruction, the commits (`commits` newest first, as `git log` lists
/// them; listed oldest first), and a last line saying where it comes from.
pub fn body(prompt: &str, commits: &[String], footer: &str) -> String {
    let mut body = clean_text(prompt, BODY_PROMPT_CHARS);
    if !commits.is_empty() {
        body.push_str("\n\n### Commits\n");
        for subject in commits.iter().rev() {
            body.push_str(&format!("- {}\n", clean_line(subject, 200)));
        }
    }
    body.push('\n');
    body.push_str(footer);
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_keeps_lines_but_no_escape_sequences() {
        let body = body(
            "Fix \u{1b}[2Jthe\u{202e} parser\nsecond line\u{7}",
            &["newer".into(), "older \u{1b}]0;x\u{7}".into()],
            "Opened by codiva.",
        );
        assert!(!body.contains('\u{1b}'), "{body:?}");
        assert!(!body.contains('\u{7}'));
        assert!(!body.contains('\u{202e}'));
        assert!(body.starts_with("Fix the parser\nsecond line"), "{body:?}");
        let older = body.find("- older").unwrap();
        assert!(older < body.find("- newer").unwrap(), "oldest commit first");
        assert!(body.ends_with("Opened by codiva."));
    }

    #[test]
    fn a_title_is_one_clean_bounded_line() {
        assert_eq!(
            title("\n  Add \u{1b}[31mlogin\u{202e}\nmore"),
            "Add [31mlogin"
        );
        assert_eq!(title(&"長".repeat(300)).chars().count(), TITLE_CHARS);
    }
}
