//! Rebuilds a session's log from Claude Code's own transcript files, so that codiva never stores
//! conversation text itself (see `docs/protocol/claude.md`, "Transcripts").
//!
//! The CLI appends one JSON object per line to
//! `<claude_home>/projects/<mangled cwd>/<session_id>.jsonl`; a subagent's lines go to
//! `<…>/<session_id>/subagents/agent-<agentId>.jsonl`, next to an `agent-<agentId>.meta.json`
//! naming the Agent tool call that started it. The files are read line by line with a bounded
//! line length, and the rebuilt logs keep the session log's caps (the newest entries win).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use codiva_protocol::log::EntryKind;
use serde::Deserialize;

use crate::session_log::{LOG_BUDGET, Log};

/// Lines longer than this are skipped (and counted) without being held in memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
/// At most this many subagent logs are restored (the most recently written ones).
pub const MAX_SUBAGENTS: usize = 64;
/// Byte budget of one restored subagent log (the same as a live one's).
pub const SUBAGENT_LOG_BUDGET: usize = LOG_BUDGET / 8;
/// Longest mangled directory name; longer ones are cut and get a hash suffix (as the CLI does).
const MAX_MANGLED_LEN: usize = 200;
/// Tool calls still waiting for their result; the oldest are forgotten beyond this.
const MAX_PENDING_TOOLS: usize = 4096;
const MAX_TODOS: usize = 1000;
/// Largest `.meta.json` read.
const MAX_META_BYTES: u64 = 1024 * 1024;

/// Text of a tool call that never got a result (the agent stopped while it ran).
pub const NO_RESULT: &str = "no result recorded: the agent stopped before the tool finished";

#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The CLI never wrote this session's transcript (or it was deleted).
    #[error("no transcript at {}", path.display())]
    NotFound { path: PathBuf },
    #[error("reading the transcript {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// A session's log rebuilt from its transcript.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RestoredLog {
    /// The session's own entries, oldest first (only the newest ones if the log was too big).
    pub main: Vec<EntryKind>,
    /// Subagent logs by the tool-use id of the Agent call that started them.
    pub subagents: BTreeMap<String, SubagentLog>,
    /// The model of the last real (not synthetic) assistant message of the main conversation.
    pub last_model: Option<String>,
    /// The task list as the task tools (`TaskCreate`/`TaskUpdate`, `TodoWrite`) left it; `None`
    /// if the session never used them.
    pub todos: Option<Vec<TodoItem>>,
    /// Lines that were not valid JSON of a known shape, or longer than [`MAX_LINE_BYTES`].
    pub skipped_lines: u64,
    /// Old main entries dropped to keep within the log budget.
    pub dropped_entries: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubagentLog {
    pub agent_id: String,
    pub description: Option<String>,
    pub agent_type: Option<String>,
    /// Starts with the subagent's prompt ([`EntryKind::SubagentPrompt`]).
    pub entries: Vec<EntryKind>,
    pub dropped_entries: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoItem {
    pub id: String,
    pub text: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
}

/// The CLI's directory name for a working directory: every character that is not an ASCII
/// letter or digit becomes `-` (one per UTF-16 unit, so an emoji gives two); names longer than
/// 200 are cut to 200 and get `-<hash>` appended (the CLI's djb2 hash, in base 36).
pub fn mangle(cwd: &str) -> String {
    let mut out = String::with_capacity(cwd.len());
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    if out.len() <= MAX_MANGLED_LEN {
        return out;
    }
    out.truncate(MAX_MANGLED_LEN);
    out.push('-');
    out.push_str(&base36(djb2(cwd).unsigned_abs()));
    out
}

fn djb2(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |hash, unit| {
        hash.wrapping_shl(5)
            .wrapping_sub(hash)
            .wrapping_add(i32::from(unit))
    })
}

fn base36(mut value: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// `<claude_home>/projects/<mangled cwd>`. `claude_home` is `~/.claude` (or
/// `$CLAUDE_CONFIG_DIR`); `cwd` must be the absolute path the CLI ran in, as the OS reports it
/// (symlinks resolved).
pub fn project_dir(claude_home: &Path, cwd: &Path) -> PathBuf {
    claude_home
        .join("projects")
        .join(mangle(&cwd.to_string_lossy()))
}

/// `<project_dir>/<session_id>.jsonl`.
pub fn transcript_path(claude_home: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(claude_home, cwd).join(format!("{session_id}.jsonl"))
}

/// `<project_dir>/<session_id>/subagents`: `agent-<agentId>.jsonl` and `.meta.json` files.
pub fn subagents_dir(claude_home: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(claude_home, cwd)
        .join(session_id)
        .join("subagents")
}

/// Rebuilds the log of session `session_id` that ran in `cwd`. If nothing is found under `cwd`
/// as given, its canonical form is tried too.
pub fn read_transcript(
    claude_home: &Path,
    cwd: &Path,
    session_id: &str,
) -> Result<RestoredLog, TranscriptError> {
    match read_in(claude_home, cwd, session_id) {
        Err(TranscriptError::NotFound { path }) => match cwd.canonicalize() {
            Ok(real) if real != cwd => {
                read_in(claude_home, &real, session_id).map_err(|error| match error {
                    TranscriptError::NotFound { .. } => TranscriptError::NotFound { path },
                    other => other,
                })
            }
            _ => Err(TranscriptError::NotFound { path }),
        },
        other => other,
    }
}

fn read_in(
    claude_home: &Path,
    cwd: &Path,
    session_id: &str,
) -> Result<RestoredLog, TranscriptError> {
    let path = transcript_path(claude_home, cwd, session_id);
    let mut main = Rebuild::new(false, LOG_BUDGET);
    read_lines(&path, |line| main.line(line))?;
    main.finish();

    let mut subagents = BTreeMap::new();
    let mut from_files = std::collections::HashSet::new();
    for (agent_id, file) in subagent_files(&subagents_dir(claude_home, cwd, session_id)) {
        let meta = read_meta(&file.with_extension("meta.json"));
        let Some(tool_use_id) = meta
            .tool_use_id
            .clone()
            .or_else(|| main.agent_tools.get(&agent_id).cloned())
        else {
            continue;
        };
        let mut rebuild = Rebuild::new(true, SUBAGENT_LOG_BUDGET);
        // A subagent file that cannot be read leaves that subagent out, not the session.
        if read_lines(&file, |line| rebuild.line(line)).is_err() {
            continue;
        }
        rebuild.finish();
        main.skipped += rebuild.skipped;
        from_files.insert(agent_id.clone());
        subagents.insert(
            tool_use_id,
            SubagentLog {
                agent_id,
                description: meta.description,
                agent_type: meta.agent_type,
                dropped_entries: rebuild.main.log.dropped(),
                entries: export(&rebuild.main.log),
            },
        );
    }
    // Sidechain lines inside the main file (older CLIs) count only where no file exists.
    for (agent_id, target) in &main.sidechains {
        if from_files.contains(agent_id) {
            continue;
        }
        let Some(tool_use_id) = main.agent_tools.get(agent_id) else {
            continue;
        };
        subagents
            .entry(tool_use_id.clone())
            .or_insert_with(|| SubagentLog {
                agent_id: agent_id.clone(),
                description: None,
                agent_type: None,
                dropped_entries: target.log.dropped(),
                entries: export(&target.log),
            });
    }

    Ok(RestoredLog {
        main: export(&main.main.log),
        subagents,
        last_model: main.last_model,
        todos: main.todos,
        skipped_lines: main.skipped,
        dropped_entries: main.main.log.dropped(),
    })
}

fn export(log: &Log) -> Vec<EntryKind> {
    log.entries().map(|entry| entry.kind.clone()).collect()
}

/// `(agentId, path)` of the newest [`MAX_SUBAGENTS`] `agent-<agentId>.jsonl` files in `dir`.
pub(super) fn subagent_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, String, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let agent_id = name
                .to_str()?
                .strip_prefix("agent-")?
                .strip_suffix(".jsonl")?
                .to_owned();
            let modified = entry
                .metadata()
                .and_then(|meta| meta.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            Some((modified, agent_id, entry.path()))
        })
        .collect();
    files.sort();
    let skip = files.len().saturating_sub(MAX_SUBAGENTS);
    files
        .into_iter()
        .skip(skip)
        .map(|(_, agent_id, path)| (agent_id, path))
        .collect()
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct AgentMeta {
    tool_use_id: Option<String>,
    description: Option<String>,
    agent_type: Option<String>,
}

fn read_meta(path: &Path) -> AgentMeta {
    let mut text = String::new();
    let read =
        File::open(path).and_then(|file| file.take(MAX_META_BYTES).read_to_string(&mut text));
    match read {
        Ok(_) => serde_json::from_str(&text).unwrap_or_default(),
        Err(_) => AgentMeta::default(),
    }
}

/// Calls `each` with every line of `path` (without its line break); lines longer than
/// [`MAX_LINE_BYTES`] are passed as `None`.
pub(super) fn read_lines(
    path: &Path,
    mut each: impl FnMut(Option<&[u8]>),
) -> Result<(), TranscriptError> {
    let file = File::open(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => TranscriptError::NotFound {
            path: path.to_owned(),
        },
        _ => TranscriptError::Io {
            path: path.to_owned(),
            source,
        },
    })?;
    let reader = BufReader::with_capacity(256 * 1024, file);
    read_lines_from(reader, |line| {
        each(line);
        std::ops::ControlFlow::Continue(())
    })
    .map_err(|source| TranscriptError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Calls `each` with every line `reader` gives (as [`read_lines`] does) until it breaks.
pub(crate) fn read_lines_from(
    mut reader: impl BufRead,
    mut each: impl FnMut(Option<&[u8]>) -> std::ops::ControlFlow<()>,
) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        let flow = match read_line_bounded(&mut reader, &mut buf, MAX_LINE_BYTES)? {
            LineRead::Eof => return Ok(()),
            LineRead::TooLong => each(None),
            LineRead::Line => {
                let line = buf.strip_suffix(b"\r").unwrap_or(&buf);
                if line.iter().all(u8::is_ascii_whitespace) {
                    std::ops::ControlFlow::Continue(())
                } else {
                    each(Some(line))
                }
            }
        };
        if flow.is_break() {
            return Ok(());
        }
        // Don't keep a huge line's buffer around for the small ones after it.
        if buf.capacity() > 1024 * 1024 {
            buf = Vec::new();
        }
    }
}

/// The main conversation of the transcript lines `reader` gives, rebuilt with the session
/// log's caps (subagents' files are not read): its entries, the entries dropped for the
/// budget and the lines skipped.
pub(crate) fn rebuild_main(reader: impl BufRead) -> io::Result<(Vec<EntryKind>, u64, u64)> {
    let mut main = Rebuild::new(false, LOG_BUDGET);
    read_lines_from(reader, |line| {
        main.line(line);
        std::ops::ControlFlow::Continue(())
    })?;
    main.finish();
    Ok((
        export(&main.main.log),
        main.main.log.dropped(),
        main.skipped,
    ))
}

/// The text of the first message the user typed in the transcript lines `reader` gives (the
/// caller bounds how much it reads); reading stops there.
pub(crate) fn first_user_text(reader: impl BufRead) -> io::Result<Option<String>> {
    let mut main = Rebuild::new(false, LOG_BUDGET / 8);
    let mut found = None;
    read_lines_from(reader, |line| {
        main.line(line);
        found = main.main.log.entries().find_map(|entry| match &entry.kind {
            EntryKind::User { text } => Some(text.clone()),
            _ => None,
        });
        if found.is_some() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    })?;
    Ok(found)
}

#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// `buf` holds the line, without its `\n`.
    Line,
    /// The line was longer than the limit; it was consumed, not kept.
    TooLong,
    Eof,
}

/// Reads one line into `buf` (cleared first), holding at most `max` bytes of it.
fn read_line_bounded(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => LineRead::Eof,
                (true, true) => LineRead::TooLong,
                (true, false) => LineRead::Line,
            });
        }
        any = true;
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], Some(end + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
                buf.shrink_to_fit();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(available.len());
        reader.consume(used);
        if done.is_some() {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

mod rebuild;

use rebuild::Rebuild;

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
