#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Cursor;

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{ToolEntry, ToolStatus};
use serde_json::{Value, json};

use super::rebuild::{note, strip_system_reminders, tag_text};
use super::*;

#[test]
fn mangle_matches_the_cli() {
    // Reference values from the CLI's own function (run under node).
    assert_eq!(mangle("/tmp/x.y"), "-tmp-x-y");
    assert_eq!(mangle("/work/repo"), "-work-repo");
    assert_eq!(
        mangle("/home/u/my_repo (2)/日本語🎌"),
        "-home-u-my-repo--2-------"
    );
    let long = format!("/work/{}", "a".repeat(250));
    let mangled = mangle(&long);
    assert_eq!(mangled.len(), 207);
    assert!(mangled.ends_with("aaaaaaaaaaaaa-58fult"), "{mangled}");
    assert_eq!(djb2(&long), -316_507_313);
    let cjk = format!("/w/{}", "日本".repeat(120));
    assert!(mangle(&cjk).ends_with("--------------bf5jn5"));
    assert_eq!(djb2("/tmp/x.y"), -890_519_428);
    assert_eq!(base36(0), "0");
    assert_eq!(base36(u32::MAX), "1z141z3");
}

#[test]
fn paths() {
    let home = Path::new("/home/user/.claude");
    let cwd = Path::new("/work/x.y");
    assert_eq!(
        transcript_path(home, cwd, "abc"),
        Path::new("/home/user/.claude/projects/-work-x-y/abc.jsonl")
    );
    assert_eq!(
        subagents_dir(home, cwd, "abc"),
        Path::new("/home/user/.claude/projects/-work-x-y/abc/subagents")
    );
}

fn lines_of(input: &[u8], max: usize) -> Vec<Result<String, LineRead>> {
    let mut reader = std::io::BufReader::with_capacity(4, Cursor::new(input.to_vec()));
    let mut buf = Vec::new();
    let mut out = Vec::new();
    loop {
        match read_line_bounded(&mut reader, &mut buf, max).unwrap() {
            LineRead::Eof => return out,
            LineRead::Line => out.push(Ok(String::from_utf8(buf.clone()).unwrap())),
            other => out.push(Err(other)),
        }
    }
}

#[test]
fn bounded_lines() {
    assert_eq!(
        lines_of(b"ab\n0123456789\ncd\n\nlast", 5),
        vec![
            Ok("ab".to_owned()),
            Err(LineRead::TooLong),
            Ok("cd".to_owned()),
            Ok(String::new()),
            Ok("last".to_owned()),
        ]
    );
    assert_eq!(lines_of(b"", 5), vec![]);
    assert_eq!(lines_of(b"12345\n", 5), vec![Ok("12345".to_owned())]);
    assert_eq!(lines_of(b"123456", 5), vec![Err(LineRead::TooLong)]);
}

#[test]
fn system_reminders_and_tags() {
    assert_eq!(
        strip_system_reminders("<system-reminder>x</system-reminder>\n hi <system-reminder>y"),
        "hi"
    );
    assert_eq!(
        strip_system_reminders("<system-reminder>only</system-reminder>"),
        ""
    );
    assert_eq!(
        tag_text("<a><summary> s </summary></a>", "summary"),
        Some("s")
    );
    assert_eq!(tag_text("<summary></summary>", "summary"), None);
}

fn rebuild(lines: &[Value]) -> Rebuild {
    let mut rebuild = Rebuild::new(false, LOG_BUDGET);
    for line in lines {
        rebuild.line(Some(line.to_string().as_bytes()));
    }
    rebuild.finish();
    rebuild
}

fn user(content: Value) -> Value {
    json!({"type": "user", "isSidechain": false, "message": {"role": "user", "content": content}})
}

fn assistant(content: Value) -> Value {
    json!({"type": "assistant", "isSidechain": false,
           "message": {"role": "assistant", "model": "claude-x", "content": content}})
}

#[test]
fn user_lines() {
    let rebuild = rebuild(&[
        user(json!("hello")),
        json!({"type": "user", "isMeta": true, "message": {"content": "meta"}}),
        user(json!("<command-name>/model</command-name>")),
        user(json!(
            "<local-command-stdout>Set model</local-command-stdout>"
        )),
        user(json!([{"type": "text", "text": "<system-reminder>ctx</system-reminder>"}])),
        user(
            json!([{"type": "text", "text": "<system-reminder>ctx</system-reminder>do it"},
                    {"type": "image", "source": {}}]),
        ),
        user(json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}])),
        json!({"type": "user", "isSynthetic": true, "message": {"content": [{"type": "text", "text": "cut off"}]}}),
        json!({"type": "user", "origin": {"kind": "task-notification"},
               "message": {"content": "<task-notification><summary>Agent done</summary></task-notification>"}}),
        json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}),
    ]);
    assert_eq!(
        export(&rebuild.main.log),
        vec![
            EntryKind::User {
                text: "hello".into()
            },
            EntryKind::User {
                text: "do it\n[image]".into()
            },
            note(NoteLevel::Info, "interrupted"),
            note(NoteLevel::Info, "Agent done"),
            note(NoteLevel::Info, "the conversation was compacted"),
        ]
    );
    assert_eq!(rebuild.skipped, 0);
}

#[test]
fn tools_pair_with_their_results() {
    let rebuild = rebuild(&[
        json!({"type": "assistant", "timestamp": "2026-01-01T00:00:00.000Z",
               "message": {"model": "claude-x", "content": [
                   {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
                   {"type": "tool_use", "id": "t2", "name": "Write", "input": {"file_path": "/a/b.txt"}},
                   {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": "/a/c"}}]}}),
        json!({"type": "user", "timestamp": "2026-01-01T00:00:01.250Z", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a\nb"}]}]}}),
        json!({"type": "user", "permissionDecision": {"decision": "reject"}, "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "no", "is_error": true}]}}),
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "unknown", "content": "x"}]}}),
    ]);
    let entries = export(&rebuild.main.log);
    let tools: Vec<&ToolEntry> = entries
        .iter()
        .filter_map(|entry| match entry {
            EntryKind::Tool(tool) => Some(&**tool),
            _ => None,
        })
        .collect();
    assert_eq!(tools.len(), 3);
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert_eq!(tools[0].result.as_deref(), Some("a\nb"));
    assert_eq!(tools[0].duration_ms, Some(1250));
    assert_eq!(tools[0].summary, "ls");
    assert_eq!(tools[1].status, ToolStatus::Denied);
    assert_eq!(tools[1].summary, "b.txt");
    // No result before the end of the transcript: nothing runs after a restore.
    assert_eq!(tools[2].status, ToolStatus::Failed);
    assert_eq!(tools[2].result.as_deref(), Some(NO_RESULT));
    assert_eq!(rebuild.last_model.as_deref(), Some("claude-x"));
}

#[test]
fn tool_results_are_capped() {
    let big = "x".repeat(crate::session_log::MAX_TOOL_RESULT * 2);
    let rebuild = rebuild(&[
        assistant(json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}])),
        user(json!([{"type": "tool_result", "tool_use_id": "t1", "content": big}])),
    ]);
    let entries = export(&rebuild.main.log);
    let EntryKind::Tool(tool) = &entries[0] else {
        panic!("{entries:?}")
    };
    let result = tool.result.as_deref().unwrap();
    assert!(result.len() < crate::session_log::MAX_TOOL_RESULT + 100);
    assert!(
        result.ends_with(" more bytes]"),
        "{}",
        &result[result.len() - 40..]
    );
}

#[test]
fn sidechain_lines_never_reach_the_main_log() {
    let rebuild = rebuild(&[
        assistant(json!([{"type": "tool_use", "id": "agent1", "name": "Agent",
                          "input": {"description": "look", "prompt": "p"}}])),
        json!({"type": "user", "isSidechain": true, "agentId": "a1", "message": {"content": "p"}}),
        json!({"type": "assistant", "isSidechain": true, "agentId": "a1",
               "message": {"model": "sub-model", "content": [{"type": "text", "text": "sub says"}]}}),
        json!({"type": "assistant", "isSidechain": true,
               "message": {"content": [{"type": "text", "text": "no agent id"}]}}),
        json!({"type": "user", "toolUseResult": {"agentId": "a1"}, "message": {"content": [
            {"type": "tool_result", "tool_use_id": "agent1", "content": "report"}]}}),
    ]);
    let main = export(&rebuild.main.log);
    assert_eq!(main.len(), 1, "{main:?}");
    assert_eq!(
        rebuild.agent_tools.get("a1").map(String::as_str),
        Some("agent1")
    );
    assert_eq!(
        export(&rebuild.sidechains["a1"].log),
        vec![
            EntryKind::SubagentPrompt { text: "p".into() },
            EntryKind::Assistant {
                text: "sub says".into()
            },
        ]
    );
    assert_eq!(
        rebuild.last_model.as_deref(),
        Some("claude-x"),
        "subagent models don't count"
    );
}

#[test]
fn synthetic_errors_and_garbage() {
    let mut rebuild = Rebuild::new(false, LOG_BUDGET);
    rebuild.line(Some(b"{not json"));
    rebuild.line(None);
    rebuild.line(Some(br#"{"type":"assistant","message":"not an object"}"#));
    rebuild.line(Some(br#"{"type":"brand-new-kind","x":1}"#));
    rebuild.line(Some(
        json!({"type": "assistant", "isApiErrorMessage": true, "message": {"model": "<synthetic>",
               "content": [{"type": "text", "text": "API Error: 500"}]}})
        .to_string()
        .as_bytes(),
    ));
    assert_eq!(rebuild.skipped, 3);
    assert_eq!(
        export(&rebuild.main.log),
        vec![note(NoteLevel::Error, "API Error: 500")]
    );
    assert_eq!(rebuild.last_model, None);
}

#[test]
fn todo_write_replaces_the_list() {
    let rebuild = rebuild(&[
        assistant(
            json!([{"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": [
            {"content": "one", "status": "completed", "activeForm": "Doing one"},
            {"content": "two", "status": "in_progress", "activeForm": "Doing two"}]}}]),
        ),
        user(json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])),
    ]);
    assert_eq!(
        rebuild.todos,
        Some(vec![
            TodoItem {
                id: "1".into(),
                text: "one".into(),
                status: "completed".into()
            },
            TodoItem {
                id: "2".into(),
                text: "two".into(),
                status: "in_progress".into()
            },
        ])
    );
}

/// A message over the cap says how much was cut: the log rebuilt on restore gives the same
/// marker (the real size) as the live log of that message, not the size of the live marker.
/// What a restore hands the manager: the TODO list in neutral terms, for the restored
/// session's snapshot (a session brought back shows its checklist).
#[test]
fn the_provider_restores_the_todo_list_in_neutral_terms() {
    use crate::provider::Provider;
    use codiva_protocol::session::{TodoItem as Todo, TodoStatus};
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/work/todo");
    let path = transcript_path(home.path(), cwd, "s1");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lines = [
        assistant(
            json!([{"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": [
            {"content": "one", "status": "completed", "activeForm": "Doing one"},
            {"content": "two", "status": "in_progress", "activeForm": "Doing two"}]}}]),
        ),
        user(json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let provider = crate::claude::ClaudeProvider::new("claude".into(), home.path().to_path_buf());
    let log = provider.conversation(cwd, "s1").unwrap().unwrap();
    let todo = |id: &str, content: &str, status| Todo {
        id: id.into(),
        content: content.into(),
        status,
    };
    assert_eq!(
        log.todos,
        Some(vec![
            todo("1", "one", TodoStatus::Completed),
            todo("2", "two", TodoStatus::InProgress),
        ])
    );
    let state =
        crate::session_state::SessionState::restored(crate::session_state::RestoredSession {
            todos: log.todos.unwrap(),
            ..Default::default()
        });
    let snapshot = state.snapshot();
    assert_eq!(snapshot.todo_items.len(), 2);
    assert_eq!((snapshot.todos.done, snapshot.todos.total), (1, 2));
}

#[test]
fn the_truncation_marker_of_a_restored_message_matches_the_live_one() {
    use crate::agent_event::{AgentBlock, AgentEvent};
    use crate::session_state::{Input, RestoredSession, SessionState};
    use codiva_protocol::session::Scope;

    let text = "é".repeat(codiva_protocol::text::MAX_MESSAGE_TEXT); // twice the cap in bytes
    let mut live = SessionState::new();
    live.apply(
        0,
        Input::Agent(AgentEvent::Block {
            message_id: "m1".into(),
            parent: None,
            block: AgentBlock::Text(text.clone()),
            usage: None,
            model: None,
        }),
    );
    let live_text = match &live.read_log(&Scope::Main, None, 10).entries[0].kind {
        EntryKind::Assistant { text } => text.clone(),
        other => panic!("{other:?}"),
    };
    // The end is kept (issue 24), after a marker of what went before.
    assert!(
        live_text.starts_with(&format!("[{} more bytes] …\n", text.len() / 2)),
        "{}",
        &live_text[..40]
    );
    assert!(text.ends_with(&live_text[live_text.find('\n').unwrap() + 1..]));

    let rebuilt = rebuild(&[assistant(json!([{"type": "text", "text": text}]))]);
    let restored = SessionState::restored(RestoredSession {
        main: export(&rebuilt.main.log),
        ..RestoredSession::default()
    });
    let restored_text = match &restored.read_log(&Scope::Main, None, 10).entries[0].kind {
        EntryKind::Assistant { text } => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(&restored_text[..40], &live_text[..40]);
    assert_eq!(restored_text, live_text);
}
