#![allow(clippy::unwrap_used, clippy::expect_used)]

use codiva_protocol::log::{EntryKind, ToolStatus};
use serde_json::{Value, json};

use super::*;

/// The lines of a rollout as codex 0.171 wrote one for `codex exec` with one command (the
/// fields codiva does not read shortened).
fn rollout(id: &str, cwd: &str, prompt: &str) -> Vec<Value> {
    let item = |payload: Value| json!({"timestamp": "2026-12-07T07:42:56.837Z", "type": "response_item", "payload": payload});
    vec![
        json!({"timestamp": "2026-12-07T07:42:56.837Z", "type": "session_meta", "payload": {
            "session_id": id, "id": id, "cwd": cwd, "originator": "codex_exec",
            "instructions": "x".repeat(40_000)}}),
        json!({"type": "event_msg", "payload": {"type": "task_started"}}),
        item(json!({"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "<skills_instructions>…</skills_instructions>"}]})),
        item(json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"}]})),
        json!({"type": "turn_context", "payload": {"cwd": cwd}}),
        item(json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": prompt}]})),
        item(json!({"type": "function_call", "name": "exec_command",
            "arguments": "{\"cmd\":\"echo outside-codex-tool\"}", "call_id": "call_1"})),
        item(json!({"type": "function_call_output", "call_id": "call_1",
            "output": "Process exited with code 0\nOutput:\noutside-codex-tool\n"})),
        item(
            json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "call_2",
            "input": "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch"}),
        ),
        item(json!({"type": "reasoning", "summary": [], "encrypted_content": "…"})),
        item(json!({"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "The codex turn is done."}]})),
    ]
}

fn write(home: &Path, day: &str, name: &str, lines: &[Value]) -> PathBuf {
    let dir = sessions_dir(home).join(day);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn rollouts_of_the_directories_are_listed_with_their_first_instruction() {
    let home = tempfile::tempdir().unwrap();
    let id = "01a24f74-af32-70f0-abcb-589e52d106aa";
    write(
        home.path(),
        "2026/12/07",
        &format!("rollout-2026-12-07T07-42-56-{id}.jsonl"),
        &rollout(id, "/work/repo", "OUTSIDE-CODEX: run the echo"),
    );
    let other = "01a24f74-0000-70f0-abcb-589e52d106aa";
    write(
        home.path(),
        "2026/12/06",
        &format!("rollout-2026-12-06T01-00-00-{other}.jsonl"),
        &rollout(other, "/elsewhere", "not this one"),
    );
    write(home.path(), "2026/12/06", "notes.txt", &[json!({})]);
    let listed = list(home.path(), &[PathBuf::from("/work/repo")]);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].agent, "codex");
    assert_eq!(listed[0].id, id);
    assert_eq!(listed[0].cwd, "/work/repo");
    assert_eq!(
        listed[0].first_instruction.as_deref(),
        Some("OUTSIDE-CODEX: run the echo")
    );
    assert!(listed[0].size_bytes > 40_000);
}

#[test]
fn a_rollout_is_read_with_its_tool_cards() {
    let home = tempfile::tempdir().unwrap();
    let id = "01a24f74-af32-70f0-abcb-589e52d106aa";
    let mut lines = rollout(id, "/work/repo", "run it");
    // A call whose output never came (codex stopped).
    lines.push(
        json!({"type": "response_item", "payload": {"type": "function_call",
        "name": "exec_command", "arguments": "{\"cmd\":\"sleep 100\"}", "call_id": "call_3"}}),
    );
    write(
        home.path(),
        "2026/12/07",
        &format!("rollout-2026-12-07T07-42-56-{id}.jsonl"),
        &lines,
    );
    let log = read(home.path(), id, crate::outside::READ_WINDOW).unwrap();
    assert_eq!(log.skipped_bytes, 0);
    let kinds = &log.entries;
    assert!(
        matches!(&kinds[0], EntryKind::User { text } if text == "run it"),
        "{kinds:?}"
    );
    let EntryKind::Tool(shell) = &kinds[1] else {
        panic!("{kinds:?}")
    };
    assert_eq!(shell.summary, "echo outside-codex-tool");
    assert_eq!(shell.status, ToolStatus::Succeeded);
    assert!(
        shell
            .result
            .as_deref()
            .unwrap()
            .contains("outside-codex-tool")
    );
    let EntryKind::Tool(patch) = &kinds[2] else {
        panic!("{kinds:?}")
    };
    assert_eq!(patch.summary, "src/lib.rs");
    assert!(
        matches!(&kinds[3], EntryKind::Assistant { text } if text == "The codex turn is done.")
    );
    let EntryKind::Tool(stopped) = &kinds[4] else {
        panic!("{kinds:?}")
    };
    assert_eq!(stopped.status, ToolStatus::Failed);
    assert!(matches!(
        read(home.path(), "01a24f74-ffff-70f0-abcb-589e52d106aa", 1024),
        Err(RolloutError::NotFound { .. })
    ));
}

#[test]
fn codex_context_blocks_are_not_instructions() {
    assert!(is_context_block(
        "<environment_context>\n<cwd>/r</cwd>\n</environment_context>"
    ));
    assert!(is_context_block("# AGENTS.md instructions for /r\n…"));
    assert!(!is_context_block("<b>bold</b> is what I want"));
    assert!(!is_context_block("fix <this>"));
}
