//! Rebuilds a session's log from Claude Code's own transcript files, so that codiva never stores
//! conversation text itself (see `docs/protocol/claude.md`, "Transcripts").
//!
//! The CLI appends one JSON object per line to
//! `<claude_home>/projects/<mangled cwd>/<session_id>.jsonl`; a subagent's lines go to
//! `<…>/<session_id>/subagents/agent-<agentId>.jsonl`, next to an `agent-<agentId>.meta.json`
//! naming the Agent tool call that started it. The files are read line by line with a bounded
//! line length, and the rebuilt logs keep the session log's caps (the newest entries win).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use codiva_wire::claude::{ContentBlock, INTERRUPT_MARKERS, UserContent};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tool_view::tool_view;
use super::tools::tool_summary;
use crate::agent_event::NoteLevel;
use crate::session_log::{EntryKind, LOG_BUDGET, Log, ToolEntry, ToolStatus};

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
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut buf = Vec::new();
    loop {
        let read = read_line_bounded(&mut reader, &mut buf, MAX_LINE_BYTES).map_err(|source| {
            TranscriptError::Io {
                path: path.to_owned(),
                source,
            }
        })?;
        match read {
            LineRead::Eof => return Ok(()),
            LineRead::TooLong => each(None),
            LineRead::Line => {
                let line = buf.strip_suffix(b"\r").unwrap_or(&buf);
                if !line.iter().all(u8::is_ascii_whitespace) {
                    each(Some(line));
                }
            }
        }
        // Don't keep a huge line's buffer around for the small ones after it.
        if buf.capacity() > 1024 * 1024 {
            buf = Vec::new();
        }
    }
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

// ---------------------------------------------------------------------------------------------
// Line shapes

/// The fields of a transcript line that matter here; the big ones stay unparsed until needed.
#[derive(Deserialize)]
struct RawLine<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    subtype: Option<String>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(rename = "isMeta", default)]
    is_meta: bool,
    #[serde(rename = "isSynthetic", default)]
    is_synthetic: bool,
    #[serde(rename = "isCompactSummary", default)]
    is_compact_summary: bool,
    #[serde(rename = "isApiErrorMessage", default)]
    is_api_error_message: bool,
    #[serde(rename = "agentId", default)]
    agent_id: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    origin: Option<Value>,
    #[serde(rename = "permissionDecision", default)]
    permission_decision: Option<Value>,
    #[serde(rename = "toolDenialKind", default)]
    tool_denial_kind: Option<Value>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(rename = "toolUseResult", default, borrow)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    attachment: Option<&'a RawValue>,
}

/// An `attachment` line's body; only a message the user sent mid-turn matters here.
#[derive(Deserialize)]
struct Attachment {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    prompt: Option<UserContent>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: UserContent,
}

/// Which log a line goes to: the main one, or a subagent's by agent id.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Main,
    Side(String),
}

struct Rebuilt {
    log: Log,
    prompt_seen: bool,
}

impl Rebuilt {
    fn new(budget: usize) -> Self {
        Rebuilt {
            log: Log::with_budget(budget),
            prompt_seen: false,
        }
    }
}

struct Pending {
    target: Target,
    entry_id: u64,
    started_ms: Option<u64>,
    name: String,
    /// Kept for the task tools only.
    input: Option<Value>,
}

/// The state of one file being read.
struct Rebuild {
    /// A subagent's own file: every line belongs to it.
    subagent_file: bool,
    main: Rebuilt,
    sidechains: HashMap<String, Rebuilt>,
    pending: HashMap<String, Pending>,
    pending_order: VecDeque<String>,
    /// agentId → the Agent tool call that started it (from the tool results).
    agent_tools: HashMap<String, String>,
    last_model: Option<String>,
    todos: Option<Vec<TodoItem>>,
    skipped: u64,
}

impl Rebuild {
    fn new(subagent_file: bool, budget: usize) -> Self {
        Rebuild {
            subagent_file,
            main: Rebuilt::new(budget),
            sidechains: HashMap::new(),
            pending: HashMap::new(),
            pending_order: VecDeque::new(),
            agent_tools: HashMap::new(),
            last_model: None,
            todos: None,
            skipped: 0,
        }
    }

    fn line(&mut self, line: Option<&[u8]>) {
        let parsed = line.and_then(|line| serde_json::from_slice::<RawLine>(line).ok());
        let Some(line) = parsed else {
            self.skipped += 1;
            return;
        };
        let target = match (&line.agent_id, line.is_sidechain && !self.subagent_file) {
            (Some(agent_id), true) => Target::Side(agent_id.clone()),
            // A sidechain line without an agent id has no log to go to; never the main one.
            (None, true) => return,
            (_, false) => Target::Main,
        };
        let ok = match line.kind.as_str() {
            "user" => self.user(&line, target),
            "assistant" => self.assistant(&line, target),
            "system" => {
                if line.subtype.as_deref() == Some("compact_boundary") {
                    self.push(
                        &target,
                        note(NoteLevel::Info, "the conversation was compacted"),
                    );
                }
                true
            }
            "attachment" => self.attachment(&line, target),
            // queue-operation, api-request*, tools-used, last-prompt, atis-latch, cost-state,
            // summary and kinds added later: nothing a person reads.
            _ => true,
        };
        if !ok {
            self.skipped += 1;
        }
    }

    fn rebuilt(&mut self, target: &Target) -> &mut Rebuilt {
        match target {
            Target::Main => &mut self.main,
            Target::Side(agent_id) => self
                .sidechains
                .entry(agent_id.clone())
                .or_insert_with(|| Rebuilt::new(SUBAGENT_LOG_BUDGET)),
        }
    }

    fn push(&mut self, target: &Target, kind: EntryKind) -> u64 {
        self.rebuilt(target).log.push(0, kind).id
    }

    fn is_subagent(&self, target: &Target) -> bool {
        self.subagent_file || matches!(target, Target::Side(_))
    }

    fn assistant(&mut self, line: &RawLine, target: Target) -> bool {
        let Some(message) = line
            .message
            .and_then(|raw| serde_json::from_str::<Message>(raw.get()).ok())
        else {
            return false;
        };
        let blocks = match message.content {
            UserContent::Blocks(blocks) => blocks,
            UserContent::Text(text) => vec![ContentBlock::Text { text }],
        };
        if message.model.as_deref() == Some("<synthetic>") || line.is_api_error_message {
            let text = codiva_wire::claude::blocks_text(&blocks);
            if !text.trim().is_empty() {
                self.push(&target, note(NoteLevel::Error, &text));
            }
            return true;
        }
        if !self.is_subagent(&target) && message.model.is_some() {
            self.last_model = message.model;
        }
        for block in blocks {
            match block {
                ContentBlock::Text { text } if !text.trim().is_empty() => {
                    self.push(&target, EntryKind::Assistant { text });
                }
                ContentBlock::Thinking { thinking, .. } if !thinking.trim().is_empty() => {
                    self.push(&target, EntryKind::Thinking { text: thinking });
                }
                ContentBlock::ToolUse { id, name, input } => {
                    let entry_id = self.push(
                        &target,
                        EntryKind::Tool(ToolEntry {
                            tool_use_id: id.clone(),
                            summary: tool_summary(&name, &input),
                            view: tool_view(&name, &input),
                            name: name.clone(),
                            input: input.clone(),
                            status: ToolStatus::Running,
                            result: None,
                            duration_ms: None,
                        }),
                    );
                    let keep_input =
                        matches!(name.as_str(), "TaskCreate" | "TaskUpdate" | "TodoWrite");
                    self.pending_insert(
                        id,
                        Pending {
                            target: target.clone(),
                            entry_id,
                            started_ms: line.timestamp.as_deref().and_then(timestamp_ms),
                            name,
                            input: keep_input.then_some(input),
                        },
                    );
                }
                _ => {}
            }
        }
        true
    }

    fn pending_insert(&mut self, id: String, pending: Pending) {
        if self.pending.insert(id.clone(), pending).is_none() {
            self.pending_order.push_back(id);
        }
        while self.pending.len() > MAX_PENDING_TOOLS {
            match self.pending_order.pop_front() {
                Some(old) => {
                    self.pending.remove(&old);
                }
                None => break,
            }
        }
    }

    fn user(&mut self, line: &RawLine, target: Target) -> bool {
        let Some(message) = line
            .message
            .and_then(|raw| serde_json::from_str::<Message>(raw.get()).ok())
        else {
            return false;
        };
        if line.is_meta || line.is_synthetic {
            return true;
        }
        if line.is_compact_summary {
            self.push(
                &target,
                note(NoteLevel::Info, "the conversation was compacted"),
            );
            return true;
        }
        let blocks = match message.content {
            UserContent::Text(text) => vec![ContentBlock::Text { text }],
            UserContent::Blocks(blocks) => blocks,
        };
        let mut text = String::new();
        let mut results = false;
        for block in blocks {
            match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } => {
                    results = true;
                    self.tool_result(line, &tool_use_id, content.to_text(), is_error);
                }
                ContentBlock::Text { text: part } => {
                    let part = strip_system_reminders(&part);
                    if !part.is_empty() {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(part.trim());
                    }
                }
                ContentBlock::Image {} => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str("[image]");
                }
                _ => {}
            }
        }
        if text.is_empty() {
            return true;
        }
        if INTERRUPT_MARKERS.contains(&text.as_str()) {
            self.push(&target, note(NoteLevel::Info, "interrupted"));
            return true;
        }
        if results {
            // Text next to tool results is the harness's, not the user's.
            return true;
        }
        let origin = line
            .origin
            .as_ref()
            .and_then(|origin| origin.get("kind"))
            .and_then(Value::as_str);
        if origin == Some("task-notification") || text.starts_with("<task-notification>") {
            let summary = tag_text(&text, "summary").unwrap_or("a background agent finished");
            self.push(&target, note(NoteLevel::Info, summary));
            return true;
        }
        if is_command_echo(&text) {
            return true;
        }
        let rebuilt = self.rebuilt(&target);
        let first = !rebuilt.prompt_seen;
        rebuilt.prompt_seen = true;
        let kind = if self.is_subagent(&target) && first {
            EntryKind::SubagentPrompt { text }
        } else {
            EntryKind::User { text }
        };
        self.push(&target, kind);
        true
    }

    /// A message the user sent while a turn ran, which the CLI folded into that turn, is kept
    /// as a `queued_command` attachment (no `user` line of its own): it is the user's message.
    fn attachment(&mut self, line: &RawLine, target: Target) -> bool {
        let Some(attachment) = line
            .attachment
            .and_then(|raw| serde_json::from_str::<Attachment>(raw.get()).ok())
        else {
            return false;
        };
        if attachment.kind != "queued_command" || target != Target::Main {
            return true;
        }
        let text = match attachment.prompt {
            Some(UserContent::Text(text)) => text.trim().to_owned(),
            Some(UserContent::Blocks(blocks)) => blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text { text } => Some(text.trim()),
                    ContentBlock::Image {} => Some("[image]"),
                    _ => None,
                })
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("\n"),
            None => String::new(),
        };
        if !text.is_empty() && !is_command_echo(&text) {
            self.push(&target, EntryKind::User { text });
        }
        true
    }

    fn tool_result(&mut self, line: &RawLine, tool_use_id: &str, text: String, is_error: bool) {
        let structured = || {
            line.tool_use_result
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        };
        let structured = structured();
        let agent_id = structured
            .as_ref()
            .and_then(|value| value.get("agentId"))
            .and_then(Value::as_str);
        if let (Some(agent_id), false) = (agent_id, self.subagent_file) {
            self.agent_tools
                .insert(agent_id.to_owned(), tool_use_id.to_owned());
        }
        let Some(pending) = self.pending.remove(tool_use_id) else {
            return;
        };
        let rejected = line
            .permission_decision
            .as_ref()
            .and_then(|decision| decision.get("decision"))
            .and_then(Value::as_str)
            == Some("reject");
        let status = if rejected || line.tool_denial_kind.is_some() {
            ToolStatus::Denied
        } else if is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Succeeded
        };
        let duration = pending
            .started_ms
            .zip(line.timestamp.as_deref().and_then(timestamp_ms))
            .map(|(start, end)| end.saturating_sub(start));
        self.rebuilt(&pending.target)
            .log
            .update(pending.entry_id, |kind| {
                if let EntryKind::Tool(entry) = kind {
                    entry.status = status;
                    entry.result = Some(super::tools::result_text(text, structured.as_ref()));
                    entry.duration_ms = duration;
                }
            });
        let main = pending.target == Target::Main && !self.subagent_file;
        if let (ToolStatus::Succeeded, true, Some(input)) = (status, main, &pending.input) {
            self.track_todos(&pending.name, input, structured.as_ref());
        }
    }

    fn track_todos(&mut self, name: &str, input: &Value, structured: Option<&Value>) {
        let todos = self.todos.get_or_insert_with(Vec::new);
        let field = |value: &Value, key: &str| value.get(key).and_then(json_id);
        match name {
            "TaskCreate" => {
                let id = structured
                    .and_then(|value| value.pointer("/task/id"))
                    .and_then(json_id)
                    .unwrap_or_else(|| (todos.len() + 1).to_string());
                if todos.len() < MAX_TODOS {
                    todos.push(TodoItem {
                        id,
                        text: field(input, "subject").unwrap_or_default(),
                        status: "pending".to_owned(),
                    });
                }
            }
            "TaskUpdate" => {
                let Some(id) = field(input, "taskId") else {
                    return;
                };
                match field(input, "status").as_deref() {
                    Some("deleted") => todos.retain(|todo| todo.id != id),
                    status => {
                        if let Some(todo) = todos.iter_mut().find(|todo| todo.id == id) {
                            if let Some(status) = status {
                                todo.status = status.to_owned();
                            }
                            if let Some(subject) = field(input, "subject") {
                                todo.text = subject;
                            }
                        }
                    }
                }
            }
            "TodoWrite" => {
                *todos = input
                    .get("todos")
                    .and_then(Value::as_array)
                    .map(|items| {
                        items
                            .iter()
                            .take(MAX_TODOS)
                            .enumerate()
                            .map(|(index, item)| TodoItem {
                                id: (index + 1).to_string(),
                                text: field(item, "content").unwrap_or_default(),
                                status: field(item, "status")
                                    .unwrap_or_else(|| "pending".to_owned()),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
            }
            _ => {}
        }
    }

    /// Tool calls that never got a result end as failed (nothing runs after a restore).
    fn finish(&mut self) {
        for (_, pending) in self.pending.drain() {
            let log = match &pending.target {
                Target::Main => &mut self.main.log,
                Target::Side(agent_id) => match self.sidechains.get_mut(agent_id) {
                    Some(rebuilt) => &mut rebuilt.log,
                    None => continue,
                },
            };
            log.update(pending.entry_id, |kind| {
                if let EntryKind::Tool(ToolEntry {
                    status: status @ ToolStatus::Running,
                    result,
                    ..
                }) = kind
                {
                    *status = ToolStatus::Failed;
                    *result = Some(NO_RESULT.to_owned());
                }
            });
        }
        self.pending_order.clear();
    }
}

fn note(level: NoteLevel, text: &str) -> EntryKind {
    EntryKind::Note {
        level,
        text: text.to_owned(),
        code: None,
    }
}

fn json_id(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// `text` without its `<system-reminder>…</system-reminder>` sections, trimmed.
fn strip_system_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        match rest[start..].find(CLOSE) {
            Some(end) => rest = &rest[start + end + CLOSE.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out.trim().to_owned()
}

/// Lines the CLI writes for slash commands and local shell commands (`/model`, `!ls`).
fn is_command_echo(text: &str) -> bool {
    const TAGS: [&str; 7] = [
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<bash-input>",
    ];
    TAGS.iter().any(|tag| text.starts_with(tag))
}

/// The text inside the first `<tag>…</tag>` of `text`.
fn tag_text<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim()).filter(|inner| !inner.is_empty())
}

/// Milliseconds since the epoch of an RFC 3339 UTC timestamp as the CLI writes them
/// (`2026-11-30T05:35:06.125Z`).
fn timestamp_ms(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes.get(10) != Some(&b'T') {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let millis = match text.get(19..20) {
        Some(".") => {
            let digits: String = text[20..]
                .chars()
                .take_while(char::is_ascii_digit)
                .chain("000".chars())
                .take(3)
                .collect();
            digits.parse::<i64>().ok()?
        }
        _ => 0,
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let ms = ((days * 24 + hour) * 60 + minute) * 60 * 1000 + second * 1000 + millis;
    u64::try_from(ms).ok()
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
