#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufWriter, Read, Seek, SeekFrom, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use codiva_protocol::log::{EntryKind, ToolStatus};
use serde_json::{Value, json};

use super::*;

fn user(text: &str) -> Value {
    json!({"type": "user", "cwd": "/r", "message": {"role": "user", "content": text}})
}

fn write_lines(path: &Path, lines: &[Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(path, text).unwrap();
}

fn tool_call(id: &str, command: &str) -> [Value; 2] {
    [
        json!({"type": "assistant", "message": {"model": "claude-x", "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}}),
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": id, "content": "done"}]}}),
    ]
}

/// Counts the bytes read through it (seeks are free).
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn transcripts_of_a_directory_are_listed_with_their_first_instruction() {
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/work/repo");
    let project = transcript::project_dir(home.path(), cwd);
    let mut lines = vec![
        json!({"type": "summary", "summary": "x"}),
        json!({"type": "user", "isMeta": true, "message": {"content": "meta"}}),
        user("<command-name>/clear</command-name>"),
        user("fix the \u{1b}[31mbuild\nand then the tests"),
    ];
    lines.extend(tool_call("t1", "cargo build"));
    write_lines(&project.join("aaaa-1.jsonl"), &lines);
    write_lines(&project.join("bbbb-2.jsonl"), &[json!({"type": "summary"})]);
    std::fs::write(project.join("notes.txt"), "not a transcript").unwrap();
    std::fs::create_dir_all(project.join("aaaa-1/subagents")).unwrap();

    let mut listed = list(home.path(), cwd);
    listed.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[0].agent, "claude");
    assert_eq!(listed[0].id, "aaaa-1");
    assert_eq!(listed[0].cwd, "/work/repo");
    // One line, without the escape sequence's control character.
    assert_eq!(
        listed[0].first_instruction.as_deref(),
        Some("fix the [31mbuild and then the tests")
    );
    assert_eq!(
        listed[0].size_bytes,
        std::fs::metadata(project.join("aaaa-1.jsonl"))
            .unwrap()
            .len()
    );
    assert!(listed[0].modified_ms > 0);
    assert_eq!(listed[1].first_instruction, None);
    assert!(list(home.path(), Path::new("/work/other")).is_empty());
}

#[test]
fn a_conversation_is_read_with_its_tool_cards() {
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/work/repo");
    let mut lines = vec![user("list the files")];
    lines.extend(tool_call("t1", "ls -la"));
    lines.push(
        json!({"type": "assistant", "message": {"model": "claude-x", "content": [
        {"type": "text", "text": "There are two files."}]}}),
    );
    write_lines(&transcript::transcript_path(home.path(), cwd, "c1"), &lines);

    let log = read(home.path(), cwd, "c1", crate::outside::READ_WINDOW).unwrap();
    assert_eq!(log.skipped_bytes, 0);
    assert!(matches!(&log.entries[0], EntryKind::User { text } if text == "list the files"));
    let EntryKind::Tool(tool) = &log.entries[1] else {
        panic!("{:?}", log.entries)
    };
    assert_eq!(tool.summary, "ls -la");
    assert_eq!(tool.status, ToolStatus::Succeeded);
    assert!(
        matches!(&log.entries[2], EntryKind::Assistant { text, .. } if text == "There are two files.")
    );
    assert!(matches!(
        read(home.path(), cwd, "gone", 1024),
        Err(TranscriptError::NotFound { .. })
    ));
}

/// A 200 MB transcript: its listing reads at most its head, and opening it reads at most the
/// window at its end (counted through the reader), yet shows its first instruction and its
/// last tool card.
#[test]
fn a_200_mb_transcript_is_listed_and_read_without_reading_it_whole() {
    const SIZE: u64 = 200 * 1024 * 1024;
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/work/repo");
    let path = transcript::transcript_path(home.path(), cwd, "big");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    {
        let mut out = BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(out, "{}", user("the first instruction")).unwrap();
        let filler = json!({"type": "assistant", "message": {"model": "claude-x", "content": [
            {"type": "text", "text": "y".repeat(64 * 1024)}]}})
        .to_string();
        let mut written = 0u64;
        while written < SIZE {
            writeln!(out, "{filler}").unwrap();
            written += filler.len() as u64 + 1;
        }
        for line in tool_call("last", "echo the end") {
            writeln!(out, "{line}").unwrap();
        }
    }
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > SIZE);

    // Listed: the head only.
    let listed = list(home.path(), cwd);
    assert_eq!(
        listed[0].first_instruction.as_deref(),
        Some("the first instruction")
    );
    assert_eq!(listed[0].size_bytes, size);
    let read_bytes = Arc::new(AtomicU64::new(0));
    let head = Counting {
        inner: std::fs::File::open(&path).unwrap(),
        read: read_bytes.clone(),
    };
    let first = transcript::first_user_text(std::io::BufReader::new(
        head.take(crate::outside::HEAD_BYTES),
    ))
    .unwrap();
    assert_eq!(first.as_deref(), Some("the first instruction"));
    assert!(read_bytes.load(Ordering::Relaxed) <= crate::outside::HEAD_BYTES);

    // Opened: the window at its end only.
    let read_bytes = Arc::new(AtomicU64::new(0));
    let record = Counting {
        inner: std::fs::File::open(&path).unwrap(),
        read: read_bytes.clone(),
    };
    let window = crate::outside::READ_WINDOW;
    let (reader, skipped) = crate::outside::tail(record, window).unwrap();
    let (entries, _, _) = transcript::rebuild_main(reader).unwrap();
    let bytes_read = read_bytes.load(Ordering::Relaxed);
    assert!(
        bytes_read <= window + 1,
        "read {bytes_read} of {size} bytes"
    );
    assert!(skipped >= size - window - 1);
    assert!(
        entries
            .iter()
            .any(|entry| matches!(entry, EntryKind::Tool(tool) if tool.summary == "echo the end")),
        "the last tool card is shown"
    );
    // The same through `read`, which the manager calls.
    let log = read(home.path(), cwd, "big", window).unwrap();
    assert_eq!(log.skipped_bytes, skipped);
    assert!(matches!(log.entries.last(), Some(EntryKind::Tool(_))));
}

#[test]
fn a_conversation_is_carried_to_another_directory() {
    let home = tempfile::tempdir().unwrap();
    let (from, to) = (
        Path::new("/work/repo"),
        Path::new("/work/repo/.codiva/worktrees/x"),
    );
    write_lines(
        &transcript::transcript_path(home.path(), from, "c1"),
        &[user("carry me")],
    );
    let sub = transcript::subagents_dir(home.path(), from, "c1");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("agent-a.jsonl"), "{}\n").unwrap();

    carry(home.path(), "c1", from, to).unwrap();
    let carried =
        std::fs::read_to_string(transcript::transcript_path(home.path(), to, "c1")).unwrap();
    assert!(carried.contains("carry me"));
    assert!(
        transcript::subagents_dir(home.path(), to, "c1")
            .join("agent-a.jsonl")
            .is_file()
    );
    assert!(matches!(
        carry(home.path(), "nope", from, to),
        Err(TranscriptError::NotFound { .. })
    ));
}

#[test]
fn a_listing_reads_only_the_newest_records_of_a_directory() {
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/work/repo");
    let project = transcript::project_dir(home.path(), cwd);
    std::fs::create_dir_all(&project).unwrap();
    let line = format!("{}\n", user("one more"));
    for n in 0..=crate::outside::MAX_RECORDS {
        std::fs::write(project.join(format!("c{n:05}.jsonl")), &line).unwrap();
    }
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(project.join("c00007.jsonl"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    // A file name that is no conversation id is not listed.
    std::fs::write(project.join("bad name.jsonl"), &line).unwrap();
    let listed = list(home.path(), cwd);
    assert_eq!(listed.len(), crate::outside::MAX_RECORDS);
    assert!(
        listed
            .iter()
            .all(|c| c.id != "c00007" && c.id != "bad name")
    );
}
