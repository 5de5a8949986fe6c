//! Codex's conversations begun outside codiva: its rollouts
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, one JSON object per
//! line: `{"timestamp","type","payload"}`) listed for the directories they ran in (the first
//! line, `session_meta`, names the thread and its `cwd`), and one read for reading only from
//! the end of its rollout: the user's and the agent's messages (`response_item` messages) and
//! its tool calls (`function_call` / `custom_tool_call` with their `…_output`) as the log's
//! entries. Codex finds a thread by its id wherever it runs, so nothing is carried to a new
//! worktree. The facts: docs/protocol/codex.md ("Rollouts").

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read as _};
use std::path::{Path, PathBuf};

use codiva_protocol::log::{EntryKind, ToolEntry, ToolStatus};
use codiva_protocol::outside::OutsideConversation;
use codiva_protocol::tool::ToolContent;
use serde::Deserialize;
use serde_json::Value;

use super::items::{edit_view, other_view, shell_view};
use crate::claude::transcript::read_lines_from;
use crate::outside::{self as records, OutsideLog};
use crate::session_log::{LOG_BUDGET, Log, MAX_TOOL_RESULT};

/// Most rollout files looked at in one listing (the newest days first).
const MAX_FILES: usize = 5000;
/// A rollout's first line (`session_meta`) may carry the base instructions: read this much of it.
const META_BYTES: u64 = 1024 * 1024;
/// Text of a tool call whose output the rollout does not hold.
const NO_OUTPUT: &str = "no output recorded: codex stopped before the tool finished";

#[derive(Debug, thiserror::Error)]
pub enum RolloutError {
    #[error("no rollout of thread {id} under {}", dir.display())]
    NotFound { id: String, dir: PathBuf },
    #[error("reading the rollout {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    payload: Value,
}

/// Where codex keeps its state for processes started with `env`: `$CODEX_HOME`, else
/// `$HOME/.codex`.
pub fn codex_home(env: &crate::process::EnvPolicy) -> Option<PathBuf> {
    env.var("CODEX_HOME").map(PathBuf::from).or_else(|| {
        env.var("HOME")
            .map(|home| PathBuf::from(home).join(".codex"))
    })
}

/// `$CODEX_HOME/sessions`.
pub fn sessions_dir(codex_home: &Path) -> PathBuf {
    codex_home.join("sessions")
}

/// The rollout files under `sessions`, newest day first (at most [`MAX_FILES`]).
fn rollouts(sessions: &Path) -> Vec<PathBuf> {
    fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
        dirs.sort();
        dirs.reverse();
        dirs
    }
    let mut out = Vec::new();
    for year in sorted_dirs(sessions) {
        for month in sorted_dirs(&year) {
            for day in sorted_dirs(&month) {
                let mut files: Vec<PathBuf> = std::fs::read_dir(&day)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|entry| entry.path())
                    .filter(|path| {
                        path.file_name()
                            .and_then(|name| name.to_str())
                            .is_some_and(|name| {
                                name.starts_with("rollout-") && name.ends_with(".jsonl")
                            })
                    })
                    .collect();
                files.sort();
                files.reverse();
                for file in files {
                    if out.len() >= MAX_FILES {
                        return out;
                    }
                    out.push(file);
                }
            }
        }
    }
    out
}

/// The thread id and directory a rollout's first line names.
fn meta(path: &Path) -> Option<(String, String)> {
    let file = File::open(path).ok()?;
    let mut first = None;
    read_lines_from(BufReader::new(file.take(META_BYTES)), |line| {
        first = line.and_then(|line| serde_json::from_slice::<Line>(line).ok());
        std::ops::ControlFlow::Break(())
    })
    .ok()?;
    let line = first.filter(|line| line.kind == "session_meta")?;
    let id = line.payload.get("id")?.as_str()?.to_owned();
    let cwd = line.payload.get("cwd")?.as_str()?.to_owned();
    Some((id, cwd))
}

/// Lists the rollouts of threads that ran in one of `dirs` (each compared as given and in its
/// canonical form); each read from its head only for its first instruction.
pub fn list(codex_home: &Path, dirs: &[PathBuf]) -> Vec<OutsideConversation> {
    let wanted: Vec<(PathBuf, String)> = dirs
        .iter()
        .flat_map(|dir| {
            let mut forms = vec![(dir.clone(), dir.to_string_lossy().into_owned())];
            if let Ok(real) = dir.canonicalize() {
                forms.push((dir.clone(), real.to_string_lossy().into_owned()));
            }
            forms
        })
        .collect();
    let mut out: Vec<OutsideConversation> = Vec::new();
    for path in rollouts(&sessions_dir(codex_home)) {
        let Some((id, cwd)) = meta(&path) else {
            continue;
        };
        let Some((dir, _)) = wanted.iter().find(|(_, form)| *form == cwd) else {
            continue;
        };
        if !records::valid_id(&id) || out.iter().any(|c| c.id == id) {
            continue;
        }
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        let first = File::open(&path)
            .ok()
            .and_then(|file| first_instruction(file.take(records::HEAD_BYTES + META_BYTES)));
        out.push(OutsideConversation {
            agent: "codex".to_owned(),
            id,
            cwd: dir.to_string_lossy().into_owned(),
            modified_ms: records::modified_ms(&metadata),
            size_bytes: metadata.len(),
            first_instruction: first.and_then(|text| records::instruction_line(&text)),
        });
    }
    out
}

/// The first message the user typed in the rollout `reader` gives (context blocks codex adds
/// as user messages, `<environment_context>` and the like, are not one).
fn first_instruction(reader: impl io::Read) -> Option<String> {
    let mut found = None;
    read_lines_from(BufReader::new(reader), |line| {
        if let Some(line) = line.and_then(|line| serde_json::from_slice::<Line>(line).ok())
            && line.kind == "response_item"
            && let Some(("user", text)) = message(&line.payload)
        {
            found = Some(text);
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    })
    .ok()?;
    found
}

/// A `message` item's role and text (its text parts joined); a user message that is one of
/// codex's own context blocks is none.
fn message(payload: &Value) -> Option<(&str, String)> {
    if payload.get("type")?.as_str()? != "message" {
        return None;
    }
    let role = payload.get("role")?.as_str()?;
    let text: Vec<&str> = payload
        .get("content")?
        .as_array()?
        .iter()
        .filter(|part| {
            matches!(
                part.get("type").and_then(Value::as_str),
                Some("input_text" | "output_text" | "text")
            )
        })
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    let text = text.join("\n");
    if text.trim().is_empty() || (role == "user" && is_context_block(&text)) {
        return None;
    }
    Some((role, text))
}

/// `<environment_context>…</environment_context>`, `<user_instructions>…`, `# AGENTS.md …`:
/// what codex sends as a user message besides the user's own.
fn is_context_block(text: &str) -> bool {
    let text = text.trim();
    if text.starts_with("# AGENTS.md") {
        return true;
    }
    let Some(rest) = text.strip_prefix('<') else {
        return false;
    };
    let tag: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    !tag.is_empty() && text.ends_with(&format!("</{tag}>"))
}

/// The rollout of thread `id` (its file name ends with the id).
pub fn find(codex_home: &Path, id: &str) -> Result<PathBuf, RolloutError> {
    let suffix = format!("-{id}.jsonl");
    rollouts(&sessions_dir(codex_home))
        .into_iter()
        .find(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(&suffix))
        })
        .ok_or_else(|| RolloutError::NotFound {
            id: id.to_owned(),
            dir: sessions_dir(codex_home),
        })
}

/// Thread `id`, rebuilt from the end of its rollout (at most `window` bytes of it are read).
pub fn read(codex_home: &Path, id: &str, window: u64) -> Result<OutsideLog, RolloutError> {
    let path = find(codex_home, id)?;
    let io_error = |source: io::Error| RolloutError::Io {
        path: path.clone(),
        source,
    };
    let file = File::open(&path).map_err(io_error)?;
    let (reader, skipped_bytes) = records::tail(file, window).map_err(io_error)?;
    let mut rebuild = Rebuild::default();
    read_lines_from(reader, |line| {
        if let Some(line) = line.and_then(|line| serde_json::from_slice::<Line>(line).ok()) {
            rebuild.line(&line);
        }
        std::ops::ControlFlow::Continue(())
    })
    .map_err(io_error)?;
    Ok(rebuild.finish(skipped_bytes))
}

/// The log of one rollout being read: tool calls wait for their output by call id.
struct Rebuild {
    log: Log,
    pending: HashMap<String, u64>,
}

impl Default for Rebuild {
    fn default() -> Self {
        Rebuild {
            log: Log::with_budget(LOG_BUDGET),
            pending: HashMap::new(),
        }
    }
}

impl Rebuild {
    fn line(&mut self, line: &Line) {
        if line.kind != "response_item" {
            return;
        }
        let payload = &line.payload;
        let field = |key: &str| payload.get(key).and_then(Value::as_str).unwrap_or_default();
        match field("type") {
            "message" => match message(payload) {
                Some(("user", text)) => {
                    self.log.push(0, EntryKind::User { text });
                }
                Some(("assistant", text)) => {
                    self.log.push(0, EntryKind::Assistant { text });
                }
                _ => {}
            },
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                let call_id = field("call_id").to_owned();
                let entry = self.log.push(0, EntryKind::Tool(Box::new(tool(payload))));
                if !call_id.is_empty()
                    && let Some(old) = self.pending.insert(call_id, entry.id)
                {
                    self.no_output(old);
                }
            }
            "function_call_output" | "custom_tool_call_output" => {
                let Some(id) = self.pending.remove(field("call_id")) else {
                    return;
                };
                let output = output_text(payload.get("output"));
                self.log.update(id, |kind| {
                    if let EntryKind::Tool(tool) = kind {
                        tool.status = ToolStatus::Succeeded;
                        for content in &mut tool.view.content {
                            if let ToolContent::Terminal { output: shown, .. } = content {
                                *shown = Some(codiva_protocol::text::truncate(
                                    output.clone(),
                                    MAX_TOOL_RESULT,
                                ));
                            }
                        }
                        tool.result =
                            Some(codiva_protocol::text::truncate(output, MAX_TOOL_RESULT));
                    }
                });
            }
            _ => {}
        }
    }

    fn no_output(&mut self, id: u64) {
        self.log.update(id, |kind| {
            if let EntryKind::Tool(tool) = kind {
                tool.status = ToolStatus::Failed;
                tool.result = Some(NO_OUTPUT.to_owned());
            }
        });
    }

    fn finish(mut self, skipped_bytes: u64) -> OutsideLog {
        let pending: Vec<u64> = self.pending.drain().map(|(_, id)| id).collect();
        for id in pending {
            self.no_output(id);
        }
        OutsideLog {
            entries: self.log.entries().map(|entry| entry.kind.clone()).collect(),
            skipped_bytes,
            dropped_entries: self.log.dropped(),
        }
    }
}

/// A rollout's tool call as the log's tool entry (still running until its output is read).
fn tool(payload: &Value) -> ToolEntry {
    let name = payload
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("tool")
        .to_owned();
    // `arguments` is a JSON string; a custom tool's `input` is its raw text (a patch).
    let input = match payload.get("arguments").and_then(Value::as_str) {
        Some(arguments) => {
            serde_json::from_str(arguments).unwrap_or(Value::String(arguments.into()))
        }
        None => payload.get("input").cloned().unwrap_or(Value::Null),
    };
    let command = input
        .get("cmd")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            input.get("command").and_then(Value::as_array).map(|parts| {
                parts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        });
    let (view, summary) = match (command, name.as_str()) {
        (Some(command), _) => (shell_view(command.clone(), None), command),
        (None, "apply_patch") => (
            edit_view(Vec::new()),
            patched_paths(input.as_str().unwrap_or_default()),
        ),
        (None, other) => (other_view(other), other.to_owned()),
    };
    ToolEntry {
        tool_use_id: payload
            .get("call_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        name,
        summary: codiva_protocol::text::one_line(&summary, 200),
        view,
        input,
        status: ToolStatus::Running,
        result: None,
        duration_ms: None,
    }
}

/// The files a patch names (`*** Update File: <path>` and the like), comma-separated.
fn patched_paths(patch: &str) -> String {
    let paths: Vec<&str> = patch
        .lines()
        .filter_map(|line| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
        })
        .collect();
    if paths.is_empty() {
        "apply_patch".to_owned()
    } else {
        paths.join(", ")
    }
}

/// A tool output as text: a string, or `{"output": …}`, or its JSON.
fn output_text(output: Option<&Value>) -> String {
    match output {
        Some(Value::String(text)) => text.clone(),
        Some(value) => value
            .get("output")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| value.to_string()),
        None => String::new(),
    }
}

#[cfg(test)]
#[path = "outside_tests.rs"]
mod tests;
