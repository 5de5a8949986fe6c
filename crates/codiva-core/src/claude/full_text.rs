//! One assistant message's whole text, read back from Claude Code's transcript: the session log
//! keeps at most `MAX_MESSAGE_TEXT` bytes of a message (a reply its end, after a
//! "[N more bytes] …" marker; a thinking block, and a reply in a log written before, its start,
//! then a "… [N more bytes]" marker), and a person who wants the rest asks for it here, on
//! demand.
//!
//! The message is found by what the log kept of it: a text block (or thinking block) of an
//! assistant line that starts or ends with the kept part and is exactly as long as the kept
//! part plus the bytes cut. The main transcript is searched first, then the subagents' files; the last
//! match wins (two identical messages have the same text anyway).

use std::path::Path;

use codiva_wire::claude::{ContentBlock, UserContent};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::transcript::{
    TranscriptError, read_lines, subagent_files, subagents_dir, transcript_path,
};

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", default)]
    kind: &'a str,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: UserContent,
}

/// The text of the message whose first or last bytes are `kept` (the log keeps a reply's end,
/// older logs its start) and whose length is `total` bytes, in
/// the transcript of conversation `session_id` run in `cwd` (`Ok(None)`: not there).
pub fn find_full_text(
    claude_home: &Path,
    cwd: &Path,
    session_id: &str,
    kept: &str,
    total: usize,
) -> Result<Option<String>, TranscriptError> {
    let main = transcript_path(claude_home, cwd, session_id);
    let mut found = search(&main, kept, total)?;
    if found.is_none() {
        for (_, file) in subagent_files(&subagents_dir(claude_home, cwd, session_id)) {
            // An unreadable subagent file is as good as one without the message.
            if let Ok(Some(text)) = search(&file, kept, total) {
                found = Some(text);
            }
        }
    }
    Ok(found)
}

fn search(path: &Path, kept: &str, total: usize) -> Result<Option<String>, TranscriptError> {
    let mut found = None;
    read_lines(path, |line| {
        // Cheap filters first: the line must be long enough to hold the message.
        let Some(line) = line.filter(|line| line.len() >= total) else {
            return;
        };
        let Ok(parsed) = serde_json::from_slice::<Line>(line) else {
            return;
        };
        if parsed.kind != "assistant" {
            return;
        }
        let Some(message) = parsed
            .message
            .and_then(|raw| serde_json::from_str::<Message>(raw.get()).ok())
        else {
            return;
        };
        let blocks = match message.content {
            UserContent::Blocks(blocks) => blocks,
            UserContent::Text(text) => vec![ContentBlock::Text { text }],
        };
        for block in blocks {
            let text = match block {
                ContentBlock::Text { text } => text,
                ContentBlock::Thinking { thinking, .. } => thinking,
                _ => continue,
            };
            if text.len() == total && (text.ends_with(kept) || text.starts_with(kept)) {
                found = Some(text);
            }
        }
    })?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, lines: &[serde_json::Value]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, text).unwrap();
    }

    fn assistant(text: &str) -> serde_json::Value {
        serde_json::json!({"type": "assistant", "message": {"model": "m", "content": [
            {"type": "text", "text": text}]}})
    }

    #[test]
    fn finds_the_message_by_its_kept_part_and_length() {
        let home = tempfile::tempdir().unwrap();
        let cwd = Path::new("/work/project");
        let long = "é".repeat(1000);
        write(
            &transcript_path(home.path(), cwd, "s1"),
            &[
                serde_json::json!({"type": "user", "message": {"content": "hi"}}),
                assistant("short"),
                assistant(&long),
                assistant(&format!("{long}!")),
            ],
        );
        let found = find_full_text(home.path(), cwd, "s1", &long[..200], long.len()).unwrap();
        assert_eq!(found.as_deref(), Some(long.as_str()));
        let other = find_full_text(home.path(), cwd, "s1", "nope", long.len()).unwrap();
        assert_eq!(other, None);
    }

    /// Regression: the log keeps a long reply's end; the lookup finds the
    /// message by that end too (and by the start a log written before kept).
    #[test]
    fn finds_the_message_by_the_end_the_log_kept() {
        let home = tempfile::tempdir().unwrap();
        let cwd = Path::new("/work/project");
        let long = format!(
            "{}\n{}",
            "日本語のテキスト".repeat(40),
            "the end é".repeat(30)
        );
        write(
            &transcript_path(home.path(), cwd, "s1"),
            &[
                assistant("short"),
                assistant(&long),
                assistant(&format!("!{long}")),
            ],
        );
        let kept = codiva_protocol::text::truncate_front(long.clone(), 300);
        let cut = codiva_protocol::text::cut(&kept).unwrap();
        assert_eq!(cut.end, codiva_protocol::text::Kept::Tail);
        let found = find_full_text(home.path(), cwd, "s1", cut.kept, cut.kept.len() + cut.cut);
        assert_eq!(found.unwrap().as_deref(), Some(long.as_str()));
        let old = codiva_protocol::text::truncate(long.clone(), 300);
        let (head, cut) = codiva_protocol::text::cut_text(&old).unwrap();
        let found = find_full_text(home.path(), cwd, "s1", head, head.len() + cut);
        assert_eq!(found.unwrap().as_deref(), Some(long.as_str()));
    }

    #[test]
    fn looks_in_subagent_files_and_reports_a_missing_transcript() {
        let home = tempfile::tempdir().unwrap();
        let cwd = Path::new("/work/project");
        write(
            &transcript_path(home.path(), cwd, "s1"),
            &[assistant("main")],
        );
        let sub = subagents_dir(home.path(), cwd, "s1").join("agent-a1.jsonl");
        write(&sub, &[assistant("subagent's long reply")]);
        let found = find_full_text(home.path(), cwd, "s1", "subagent's", 21).unwrap();
        assert_eq!(found.as_deref(), Some("subagent's long reply"));
        assert!(matches!(
            find_full_text(home.path(), cwd, "s2", "x", 5),
            Err(TranscriptError::NotFound { .. })
        ));
    }
}
