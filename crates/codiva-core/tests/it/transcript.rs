//! Rebuilding a session's log from Claude Code's transcript files: real captured transcripts
//! (`tests/fixtures/claude-transcripts/`, see `capture.rs`), damaged and huge files.

mod capture;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use codiva_core::session_log::LOG_BUDGET;
use codiva_core::transcript::{
    RestoredLog, SubagentLog, TodoItem, TranscriptError, read_transcript, transcript_path,
};
use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, ToolEntry, ToolStatus};

/// `(claude_home, session_id)` of a captured scenario.
fn fixture(name: &str) -> (PathBuf, String) {
    let home = capture::fixtures_dir().join(name);
    let dir = codiva_core::transcript::project_dir(&home, Path::new(capture::REPO));
    let session = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .find_map(|entry| {
            entry
                .file_name()
                .to_str()?
                .strip_suffix(".jsonl")
                .map(str::to_owned)
        })
        .expect("a transcript");
    (home, session)
}

fn read_fixture(name: &str) -> RestoredLog {
    let (home, session) = fixture(name);
    let log = read_transcript(&home, Path::new(capture::REPO), &session).unwrap();
    assert_eq!(log.skipped_lines, 0, "{name}");
    assert_eq!(log.dropped_entries, 0, "{name}");
    log
}

fn user(text: &str) -> EntryKind {
    EntryKind::User { text: text.into() }
}

fn said(text: &str) -> EntryKind {
    EntryKind::Assistant { text: text.into() }
}

fn note(level: NoteLevel, text: &str) -> EntryKind {
    EntryKind::Note {
        level,
        text: text.into(),
        code: None,
    }
}

fn tool(entry: &EntryKind) -> &ToolEntry {
    match entry {
        EntryKind::Tool(tool) => tool,
        other => panic!("not a tool entry: {other:?}"),
    }
}

#[test]
fn text_turn_in_japanese() {
    let log = read_fixture("text-ja");
    assert_eq!(
        log.main,
        vec![
            user("日本語で挨拶して"),
            EntryKind::Thinking {
                text: "日本語で答えよう。".into()
            },
            said("こんにちは！日本語のテキストです。絵文字も🎌含みます。"),
        ]
    );
    assert_eq!(log.last_model.as_deref(), Some("claude-opus-5-5"));
    assert!(log.subagents.is_empty());
    assert_eq!(log.todos, None);
}

#[test]
fn allowed_write() {
    let log = read_fixture("write-allow");
    assert_eq!(log.main.len(), 4, "{:#?}", log.main);
    assert_eq!(log.main[0], user("create hello.txt"));
    assert_eq!(log.main[1], said("Writing it."));
    let write = tool(&log.main[2]);
    assert_eq!(write.tool_use_id, "toolu_mock_write1");
    assert_eq!(write.name, "Write");
    assert_eq!(write.summary, "hello.txt");
    assert_eq!(write.input["content"], "héllo 世界\n");
    assert_eq!(write.status, ToolStatus::Succeeded);
    assert!(
        write
            .result
            .as_deref()
            .unwrap()
            .starts_with("File created successfully at: /work/repo/hello.txt"),
        "{write:?}"
    );
    assert!(write.duration_ms.is_some());
    assert_eq!(log.main[3], said("Done: wrote hello.txt"));
}

#[test]
fn denied_write() {
    let log = read_fixture("write-deny");
    let write = tool(&log.main[1]);
    assert_eq!(write.status, ToolStatus::Denied);
    assert_eq!(write.result.as_deref(), Some("Not now, thanks."));
    assert_eq!(log.main[2], said("Understood, not writing it."));
}

#[test]
fn failing_bash() {
    let log = read_fixture("bash-fail");
    assert_eq!(log.main.len(), 3, "{:#?}", log.main);
    assert_eq!(log.main[0], user("run the failing command"));
    let bash = tool(&log.main[1]);
    assert_eq!(bash.summary, "echo partial; exit 3");
    assert_eq!(bash.status, ToolStatus::Failed);
    assert_eq!(bash.result.as_deref(), Some("Exit code 3\npartial"));
    assert_eq!(log.main[2], said("The command failed with exit code 3."));
}

/// A message the CLI folded into the running turn (sent during a permission prompt) is in the
/// rebuilt log — the CLI keeps it as a `queued_command` attachment, not a `user` line — after
/// the tool it waited for, as the live log has it.
#[test]
fn a_message_folded_into_a_turn_is_kept() {
    let log = read_fixture("folded-message");
    let users: Vec<&EntryKind> = log
        .main
        .iter()
        .filter(|entry| matches!(entry, EntryKind::User { .. }))
        .collect();
    assert_eq!(
        users,
        vec![&user("write notes.txt"), &user(capture::FOLDED)],
        "{:#?}",
        log.main
    );
    let folded = log.main.iter().position(|e| *e == user(capture::FOLDED));
    let write = log
        .main
        .iter()
        .position(|e| matches!(e, EntryKind::Tool(tool) if tool.name == "Write"));
    assert!(write < folded, "{:#?}", log.main);
    assert_eq!(log.main.last(), Some(&said("Written, and it is sunny.")));
}

/// A message queued behind streaming text gets a turn of its own: it is in the log once.
#[test]
fn a_message_queued_behind_a_turn_is_kept_once() {
    let log = read_fixture("queued-message");
    let users: Vec<&EntryKind> = log
        .main
        .iter()
        .filter(|entry| matches!(entry, EntryKind::User { .. }))
        .collect();
    assert_eq!(
        users,
        vec![&user("first"), &user(capture::QUEUED)],
        "{:#?}",
        log.main
    );
    assert_eq!(log.main.last(), Some(&said("The queued answer.")));
}

#[test]
fn interrupted_turn_keeps_the_partial_text() {
    let log = read_fixture("interrupt");
    assert_eq!(log.main.len(), 5, "{:#?}", log.main);
    // The text streamed before the interrupt (its length depends on the capture's timing).
    let EntryKind::Assistant { text: partial } = &log.main[1] else {
        panic!("{:?}", log.main[1])
    };
    let full = "This is a very slow answer. ".repeat(40);
    assert!(
        !partial.is_empty() && partial.len() < full.len() && full.starts_with(partial.as_str())
    );
    assert_eq!(
        [&log.main[0], &log.main[2], &log.main[3], &log.main[4]],
        [
            &user("tell me a long story"),
            &note(NoteLevel::Info, "interrupted"),
            &user("continue"),
            &said("Back after the interrupt."),
        ]
    );
}

#[test]
fn api_error_becomes_an_error_note() {
    let log = read_fixture("api-error");
    assert_eq!(log.main.len(), 2, "{:#?}", log.main);
    assert_eq!(log.main[0], user("say hi"));
    let EntryKind::Note { level, text, .. } = &log.main[1] else {
        panic!("{:?}", log.main[1])
    };
    assert_eq!(*level, NoteLevel::Error);
    assert!(
        text.starts_with("API Error: 500 Internal server error."),
        "{text}"
    );
    assert_eq!(log.last_model, None, "the synthetic model is not a model");
}

#[test]
fn task_tools_leave_their_list() {
    let log = read_fixture("todos");
    assert_eq!(
        log.todos,
        Some(vec![TodoItem {
            id: "1".into(),
            text: "Write tests".into(),
            status: "completed".into(),
        }])
    );
    assert_eq!(tool(&log.main[1]).summary, "Write tests");
    assert_eq!(tool(&log.main[2]).summary, "#1 → completed");
    assert_eq!(log.main[3], said("Tests written."));
}

fn assert_no_subagent_text_in_main(log: &RestoredLog) {
    for entry in &log.main {
        let text = match entry {
            EntryKind::Assistant { text }
            | EntryKind::User { text }
            | EntryKind::SubagentPrompt { text } => text.as_str(),
            _ => continue,
        };
        assert!(
            !text.contains("SUBAGENT-"),
            "subagent text in main: {entry:?}"
        );
    }
}

#[test]
fn foreground_subagent_goes_to_its_own_log() {
    let log = read_fixture("subagent");
    assert_eq!(log.main.len(), 3, "{:#?}", log.main);
    assert_eq!(log.main[0], user("PARENT-PROMPT inspect the repo"));
    let agent = tool(&log.main[1]);
    assert_eq!(agent.name, "Agent");
    assert_eq!(agent.summary, "Inspect the repo");
    assert_eq!(agent.status, ToolStatus::Succeeded);
    assert!(agent.result.as_deref().unwrap().contains("SUBAGENT-REPORT"));
    assert_eq!(log.main[2], said("Parent done: README.md only."));
    assert_no_subagent_text_in_main(&log);

    assert_eq!(log.subagents.len(), 1);
    let SubagentLog {
        agent_id,
        description,
        agent_type,
        entries,
        dropped_entries,
    } = &log.subagents["toolu_mock_agent1"];
    assert!(!agent_id.is_empty());
    assert_eq!(description.as_deref(), Some("Inspect the repo"));
    assert_eq!(agent_type.as_deref(), Some("general-purpose"));
    assert_eq!(*dropped_entries, 0);
    assert_eq!(entries.len(), 4, "{entries:#?}");
    assert_eq!(
        entries[0],
        EntryKind::SubagentPrompt {
            text: capture::SUB_PROMPT.into()
        }
    );
    assert_eq!(entries[1], said("Listing."));
    let ls = tool(&entries[2]);
    assert_eq!(
        (ls.summary.as_str(), ls.status),
        ("ls", ToolStatus::Succeeded)
    );
    assert_eq!(ls.result.as_deref(), Some("README.md"));
    assert_eq!(
        entries[3],
        said("SUBAGENT-REPORT the repo has README.md only.")
    );
}

#[test]
fn background_subagent_and_its_notification() {
    let log = read_fixture("subagent-background");
    assert_eq!(log.main.len(), 5, "{:#?}", log.main);
    assert_eq!(
        log.main[0],
        user("PARENT-PROMPT inspect the repo in the background")
    );
    assert_eq!(tool(&log.main[1]).status, ToolStatus::Succeeded);
    assert_eq!(log.main[2], said("Parent done while the agent works."));
    assert_eq!(
        log.main[3],
        note(
            NoteLevel::Info,
            "Agent \"Inspect in the background\" finished"
        )
    );
    assert_eq!(log.main[4], said("All done."));
    assert_no_subagent_text_in_main(&log);
    let sub = &log.subagents["toolu_mock_agent_bg"];
    assert_eq!(
        sub.entries,
        vec![
            EntryKind::SubagentPrompt {
                text: capture::SUB_PROMPT.into()
            },
            said("SUBAGENT-REPORT background done."),
        ]
    );
}

#[test]
fn missing_transcript_is_not_found() {
    let home = tempfile::tempdir().unwrap();
    let error = read_transcript(home.path(), Path::new("/work/repo"), "nope").unwrap_err();
    match error {
        TranscriptError::NotFound { path } => {
            assert_eq!(
                path,
                transcript_path(home.path(), Path::new("/work/repo"), "nope")
            );
        }
        other => panic!("{other:?}"),
    }
}

/// A copy of a fixture in a temp `claude_home`, with `edit` applied to its lines.
fn edited_copy(
    name: &str,
    edit: impl FnOnce(Vec<String>) -> String,
) -> (tempfile::TempDir, String) {
    let (home, session) = fixture(name);
    let text = std::fs::read_to_string(transcript_path(&home, Path::new(capture::REPO), &session))
        .unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let temp = tempfile::tempdir().unwrap();
    let path = transcript_path(temp.path(), Path::new(capture::REPO), &session);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, edit(lines)).unwrap();
    (temp, session)
}

#[test]
fn garbage_and_truncated_lines_are_skipped() {
    let clean = read_fixture("write-allow");
    let (home, session) = edited_copy("write-allow", |mut lines| {
        let tool_use = lines
            .iter()
            .position(|line| line.contains(r#""name":"Write""#) && line.contains("assistant"))
            .unwrap();
        let cut = lines[tool_use][..lines[tool_use].len() / 2].to_owned();
        lines.insert(tool_use, cut);
        lines.insert(2, "garbage ☃ not json".to_owned());
        lines.insert(3, String::new());
        let last = lines.last().unwrap().clone();
        // A crash while the CLI wrote its last line.
        format!("{}\n{}", lines.join("\n"), &last[..last.len() / 3])
    });
    let log = read_transcript(home.path(), Path::new(capture::REPO), &session).unwrap();
    assert_eq!(log.skipped_lines, 3);
    assert_eq!(log.main, clean.main);
}

/// Set in the child process of [`huge_transcript_reads_in_bounded_memory`]:
/// `<claude_home>\n<session_id>`.
const HUGE_ENV: &str = "CODIVA_TEST_HUGE_TRANSCRIPT";

fn short(text: &str) -> String {
    text.chars().take(100).collect()
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Runs only as the child of [`huge_transcript_reads_in_bounded_memory`], so that its peak
/// memory is its own.
#[test]
fn huge_transcript_child() {
    let Ok(spec) = std::env::var(HUGE_ENV) else {
        return;
    };
    let (home, session) = spec.split_once('\n').unwrap();
    let before = peak_rss_kb();
    let started = Instant::now();
    let log = read_transcript(Path::new(home), Path::new(capture::REPO), session).unwrap();
    let elapsed = started.elapsed();
    let texts: usize = log
        .main
        .iter()
        .map(|entry| match entry {
            EntryKind::User { text } | EntryKind::Assistant { text } => text.len(),
            EntryKind::Tool(tool) => tool.result.as_ref().map_or(0, String::len),
            _ => 0,
        })
        .sum();
    let last_user = log.main.iter().rev().find_map(|entry| match entry {
        EntryKind::User { text } => Some(text.clone()),
        _ => None,
    });
    let summary = serde_json::json!({
        "peak_growth_kb": peak_rss_kb() - before,
        "elapsed_ms": elapsed.as_millis() as u64,
        "entries": log.main.len(),
        "dropped": log.dropped_entries,
        "skipped": log.skipped_lines,
        "text_bytes": texts,
        "first": short(&format!("{:?}", log.main.first())),
        "last_user": last_user,
        "last": short(&format!("{:?}", log.main.last())),
    });
    println!("HUGE-RESULT {summary}");
}

#[test]
fn huge_transcript_reads_in_bounded_memory() {
    // 100 MB: the lines of a real transcript repeated, each turn numbered, with a 64 KB answer
    // added to each so that the log's budget overflows.
    let (home, session) = fixture("write-allow");
    let source =
        std::fs::read_to_string(transcript_path(&home, Path::new(capture::REPO), &session))
            .unwrap();
    let done = source
        .lines()
        .find(|line| line.contains("Done: wrote hello.txt"))
        .unwrap();
    let temp = tempfile::tempdir().unwrap();
    let path = transcript_path(temp.path(), Path::new(capture::REPO), &session);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let filler = "x".repeat(64 * 1024);
    let mut written = 0usize;
    let mut turns = 0usize;
    while written < 100 * 1024 * 1024 {
        for line in source.lines() {
            let line = line.replace("create hello.txt", &format!("create hello.txt #{turns}"));
            written += line.len() + 1;
            writeln!(out, "{line}").unwrap();
        }
        let big = done.replace("Done: wrote hello.txt", &format!("big #{turns} {filler}"));
        written += big.len() + 1;
        writeln!(out, "{big}").unwrap();
        turns += 1;
    }
    out.flush().unwrap();
    drop(out);

    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "transcript::huge_transcript_child",
            "--exact",
            "--nocapture",
        ])
        .env(HUGE_ENV, format!("{}\n{session}", temp.path().display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    let summary: serde_json::Value = stdout
        .lines()
        .find_map(|line| line.strip_prefix("HUGE-RESULT "))
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_else(|| panic!("no result from the child: {stdout}"));
    eprintln!("100 MB transcript ({turns} turns): {summary}");
    assert_eq!(summary["skipped"], 0);
    assert!(summary["dropped"].as_u64().unwrap() > 0, "{summary}");
    assert!(summary["text_bytes"].as_u64().unwrap() <= LOG_BUDGET as u64);
    assert_eq!(
        summary["last_user"],
        format!("create hello.txt #{}", turns - 1),
        "the newest entries are kept"
    );
    assert!(
        summary["last"]
            .as_str()
            .unwrap()
            .contains(&format!("big #{}", turns - 1)),
        "{summary}"
    );
    // Loading the file would take at least 100 MB; the log's budget is 8 MB.
    let growth_mb = summary["peak_growth_kb"].as_u64().unwrap() / 1024;
    assert!(
        growth_mb < 48,
        "peak memory grew by {growth_mb} MB: {summary}"
    );
}
