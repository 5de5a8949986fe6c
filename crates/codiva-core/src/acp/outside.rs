//! An ACP agent's own conversations for the history of conversations begun outside codiva:
//! listed with `session/list` (when `initialize` advertises `sessionCapabilities.list`), one
//! per directory of the repository as its `cwd`, and read with `session/load`, whose replay
//! (`session/update`s before its answer) is rebuilt into a log. Each is one short exchange with
//! a process of the agent's own: its own process group, the whole exchange under a time limit,
//! its output bounded (each line, and all of it), the group killed and the process reaped
//! however it ends. Blocking (a runtime of its own): the callers run it off the async threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use codiva_protocol::log::{EntryKind, ToolEntry, ToolStatus};
use codiva_protocol::outside::OutsideConversation;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::preset::AcpAgent;
use super::rpc::{self, Message};
use super::tools::Call;
use crate::json::items;
use crate::outside::OutsideLog;
use crate::process::{EnvPolicy, LineReader, ReadLine};
use crate::session_log::{LOG_BUDGET, Log, MAX_TOOL_RESULT};

/// How long one reading (`session/load` and its replay) may take.
pub const READ_LIMIT: Duration = Duration::from_secs(60);
/// The longest line read from the agent; a longer one is skipped.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// The most the agent may write in one listing or reading (then it is stopped).
const MAX_OUTPUT: u64 = 256 * 1024 * 1024;
/// Most pages of `session/list` asked per directory (`nextCursor`); no more pages are asked
/// once a directory has [`crate::outside::MAX_RECORDS`] sessions.
const MAX_PAGES: usize = 20;

/// Why an exchange gave nothing.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the agent ended its output")]
    Closed,
    #[error("the agent wrote more than {MAX_OUTPUT} bytes")]
    TooMuch,
    #[error("the agent does not list its sessions (no sessionCapabilities.list)")]
    NoListing,
    #[error("the agent cannot load a session (no loadSession)")]
    NoLoad,
    #[error("{method} failed: {message}")]
    Refused {
        method: &'static str,
        message: String,
    },
    #[error("reading the agent's output: {0}")]
    Io(#[from] std::io::Error),
}

/// The sessions `agent` lists for each of `dirs` (in `env`), newest first per directory;
/// `Ok(None)` when its `initialize` does not advertise `session/list`.
pub fn list(
    agent: &AcpAgent,
    dirs: &[PathBuf],
    env: &EnvPolicy,
    limit: Duration,
) -> Result<Option<Vec<OutsideConversation>>, ExchangeError> {
    let Some(root) = dirs.first() else {
        return Ok(Some(Vec::new()));
    };
    let result = run(agent, root, env, limit, |mut exchange| async move {
        let init = exchange.initialize().await?;
        if init
            .pointer("/agentCapabilities/sessionCapabilities/list")
            .is_none_or(Value::is_null)
        {
            return Ok(None);
        }
        let mut found = Vec::new();
        for dir in dirs {
            let cwd = dir.display().to_string();
            let mut cursor: Option<String> = None;
            let before = found.len();
            for _ in 0..MAX_PAGES {
                if found.len() - before >= crate::outside::MAX_RECORDS {
                    break;
                }
                let mut params = json!({ "cwd": cwd });
                if let Some(cursor) = &cursor {
                    params["cursor"] = json!(cursor);
                }
                let page = exchange.request("session/list", params, |_| {}).await?;
                found.extend(
                    items(&page, "sessions")
                        .filter_map(|session| conversation(agent.name, dir, session)),
                );
                cursor = page
                    .get("nextCursor")
                    .and_then(Value::as_str)
                    .filter(|next| !next.is_empty())
                    .map(str::to_owned);
                if cursor.is_none() {
                    break;
                }
            }
        }
        Ok(Some(found))
    });
    let mut found = result?;
    if let Some(found) = &mut found {
        found.sort_by_key(|c| std::cmp::Reverse(c.modified_ms));
        found.dedup_by(|a, b| a.id == b.id);
    }
    Ok(found)
}

/// Session `id` of `agent` that ran in `cwd`, loaded (`session/load`) and its replay rebuilt
/// into a log within the session log's budget.
pub fn read(
    agent: &AcpAgent,
    cwd: &Path,
    id: &str,
    env: &EnvPolicy,
    limit: Duration,
) -> Result<OutsideLog, ExchangeError> {
    run(agent, cwd, env, limit, |mut exchange| async move {
        let init = exchange.initialize().await?;
        if init
            .pointer("/agentCapabilities/loadSession")
            .and_then(Value::as_bool)
            != Some(true)
        {
            return Err(ExchangeError::NoLoad);
        }
        let mut replay = Replay::default();
        let params = json!({"sessionId": id, "cwd": cwd.display().to_string(), "mcpServers": []});
        exchange
            .request("session/load", params, |update| replay.update(update))
            .await?;
        Ok(replay.finish())
    })
}

/// One listed session as a history row; `None` when it has no usable id. Its title (the
/// agent's, model- or user-written) is sanitised to one line; the agent gives no size (0).
fn conversation(agent: &str, dir: &Path, session: &Value) -> Option<OutsideConversation> {
    let id = session.get("sessionId").and_then(Value::as_str)?;
    if !crate::outside::valid_id(id) {
        return None;
    }
    let cwd = session
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|cwd| {
            Path::new(cwd) == dir || Path::new(cwd).canonicalize().ok() == dir.canonicalize().ok()
        })
        .map_or_else(|| dir.display().to_string(), str::to_owned);
    Some(OutsideConversation {
        agent: agent.to_owned(),
        id: id.to_owned(),
        cwd,
        modified_ms: session
            .get("updatedAt")
            .and_then(Value::as_str)
            .and_then(crate::rfc3339::millis)
            .unwrap_or(0),
        size_bytes: 0,
        first_instruction: session
            .get("title")
            .and_then(Value::as_str)
            .and_then(crate::outside::instruction_line),
    })
}

/// A replayed conversation as a log: message chunks joined into entries, tool calls merged by
/// id, within the session log's budget.
#[derive(Default)]
struct Replay {
    log: Option<Log>,
    /// The entry the next chunk of the same kind extends: its kind and id.
    open: Option<(&'static str, u64)>,
    calls: HashMap<String, (u64, Call)>,
}

impl Replay {
    fn log(&mut self) -> &mut Log {
        self.log.get_or_insert_with(|| Log::with_budget(LOG_BUDGET))
    }

    fn update(&mut self, params: &Value) {
        let Some(update) = params.get("update") else {
            return;
        };
        let kind = update
            .get("sessionUpdate")
            .and_then(Value::as_str)
            .unwrap_or("");
        match kind {
            "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk" => {
                let text = update
                    .pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if text.is_empty() {
                    return;
                }
                let tag = match kind {
                    "user_message_chunk" => "user",
                    "agent_message_chunk" => "assistant",
                    _ => "thinking",
                };
                if let Some((open, id)) = self.open
                    && open == tag
                    && self
                        .log()
                        .update(id, |entry| match entry {
                            EntryKind::User { text: old }
                            | EntryKind::Assistant { text: old }
                            | EntryKind::Thinking { text: old } => old.push_str(text),
                            _ => {}
                        })
                        .is_some()
                {
                    return;
                }
                let text = text.to_owned();
                let entry = match tag {
                    "user" => EntryKind::User { text },
                    "assistant" => EntryKind::Assistant { text },
                    _ => EntryKind::Thinking { text },
                };
                let id = self.log().push(0, entry).id;
                self.open = Some((tag, id));
            }
            "tool_call" | "tool_call_update" => {
                self.open = None;
                let Some(call_id) = update.get("toolCallId").and_then(Value::as_str) else {
                    return;
                };
                let existing = self.calls.remove(call_id);
                let (id, mut call) = match existing {
                    Some(found) => found,
                    None => {
                        let mut call = Call::default();
                        call.merge(update);
                        let id = self.log().push(0, tool_entry(call_id, &call)).id;
                        (id, call)
                    }
                };
                call.merge(update);
                let entry = tool_entry(call_id, &call);
                self.log().update(id, |old| *old = entry);
                self.calls.insert(call_id.to_owned(), (id, call));
            }
            _ => self.open = None,
        }
    }

    fn finish(mut self) -> OutsideLog {
        let log = self.log.take().unwrap_or_default();
        OutsideLog {
            dropped_entries: log.dropped(),
            entries: log.entries().map(|entry| entry.kind.clone()).collect(),
            skipped_bytes: 0,
        }
    }
}

fn tool_entry(call_id: &str, call: &Call) -> EntryKind {
    let status = match call.status() {
        "completed" => ToolStatus::Succeeded,
        "failed" => ToolStatus::Failed,
        // A replayed call that never finished is over now.
        _ => ToolStatus::Failed,
    };
    let output = call.output();
    let result =
        (!output.is_empty()).then(|| codiva_protocol::text::truncate(output, MAX_TOOL_RESULT));
    EntryKind::Tool(Box::new(ToolEntry {
        tool_use_id: call_id.to_owned(),
        name: call.name(),
        summary: codiva_protocol::text::sanitize_title_to(&call.title(), 200).unwrap_or_default(),
        view: call.view(),
        input: call.input(),
        status,
        result,
        duration_ms: None,
    }))
}

/// One process of the agent, talked to in turns.
struct Exchange {
    stdin: tokio::process::ChildStdin,
    stdout: LineReader<tokio::process::ChildStdout>,
    next_id: u64,
    read: u64,
}

impl Exchange {
    async fn initialize(&mut self) -> Result<Value, ExchangeError> {
        self.request("initialize", rpc::initialize_params(), |_| {})
            .await
    }

    /// Sends request `method` and reads until its answer: `session/update`s on the way go to
    /// `updates`, the agent's own requests are refused, anything else is skipped.
    async fn request(
        &mut self,
        method: &'static str,
        params: Value,
        mut updates: impl FnMut(&Value),
    ) -> Result<Value, ExchangeError> {
        self.next_id += 1;
        let id = self.next_id;
        for line in rpc::request(id, method, params) {
            self.write(line.as_str()).await?;
        }
        loop {
            let line = match self.stdout.next_line().await? {
                None => return Err(ExchangeError::Closed),
                Some(ReadLine::Oversized { bytes }) => {
                    self.count(bytes)?;
                    continue;
                }
                Some(ReadLine::Line(line)) => line,
            };
            self.count(line.len() as u64)?;
            let Ok(message) = rpc::parse(&line) else {
                continue;
            };
            match message {
                Message::Response {
                    id: answered,
                    result,
                } if answered.as_u64() == Some(id) => {
                    return result.map_err(|err| ExchangeError::Refused {
                        method,
                        message: codiva_protocol::text::sanitize_title_to(&err.message, 300)
                            .unwrap_or_default(),
                    });
                }
                Message::Notification { method, params } if method == "session/update" => {
                    updates(&params);
                }
                Message::Request { id, method, .. } => {
                    let refusal = rpc::respond_error(
                        &id,
                        rpc::METHOD_NOT_FOUND,
                        &format!("codiva does not serve {method} while it lists or reads"),
                    );
                    for line in refusal {
                        self.write(line.as_str()).await?;
                    }
                }
                _ => {}
            }
        }
    }

    fn count(&mut self, bytes: u64) -> Result<(), ExchangeError> {
        self.read += bytes + 1;
        if self.read > MAX_OUTPUT {
            return Err(ExchangeError::TooMuch);
        }
        Ok(())
    }

    async fn write(&mut self, line: &str) -> Result<(), ExchangeError> {
        self.stdin.write_all(line.as_bytes()).await?;
        self.stdin.write_all(b"\n").await?;
        self.stdin.flush().await?;
        Ok(())
    }
}

/// Starts `agent` in `cwd` and runs `talk` with it under `limit`; the process group is killed
/// and the process reaped on every path.
fn run<T, F, Fut>(
    agent: &AcpAgent,
    cwd: &Path,
    env: &EnvPolicy,
    limit: Duration,
    talk: F,
) -> Result<T, ExchangeError>
where
    F: FnOnce(Exchange) -> Fut,
    Fut: std::future::Future<Output = Result<T, ExchangeError>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(&agent.program);
        command
            .args(agent.process_args())
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        crate::process::spawn::apply_env(&mut command, env);
        command.envs(agent.env.iter().map(|(key, value)| (key, value)));
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|source| ExchangeError::Spawn {
            program: agent.program.display().to_string(),
            source,
        })?;
        let pid = child.id();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            if let Some(pid) = pid {
                crate::process::signal::kill_group(pid);
            }
            let _ = child.wait().await;
            return Err(ExchangeError::Closed);
        };
        let exchange = Exchange {
            stdin,
            stdout: LineReader::with_max_line(stdout, MAX_LINE),
            next_id: 0,
            read: 0,
        };
        let outcome = tokio::time::timeout(limit, talk(exchange)).await;
        // The agents measured do not exit on stdin EOF: the group is stopped, always (its id
        // is still ours: the leader is not reaped yet).
        if let Some(pid) = pid {
            crate::process::signal::kill_group(pid);
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        let _ = child.start_kill();
        let _ = child.wait().await;
        outcome.unwrap_or(Err(ExchangeError::Timeout(limit)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_session_is_one_sanitised_row_and_a_bad_id_is_none() {
        let dir = Path::new("/repo");
        let row = conversation(
            "codex-acp",
            dir,
            &json!({"sessionId": "abc-1", "cwd": "/repo", "title": "fix\u{1b}[31m it\nnow",
                "updatedAt": "1970-01-01T00:00:02Z"}),
        )
        .unwrap();
        assert_eq!(row.agent, "codex-acp");
        assert_eq!(row.modified_ms, 2000);
        assert_eq!(row.size_bytes, 0);
        let title = row.first_instruction.unwrap();
        assert!(
            !title.contains('\u{1b}') && !title.contains('\n'),
            "{title}"
        );
        assert!(conversation("a", dir, &json!({"sessionId": "../etc"})).is_none());
        assert!(conversation("a", dir, &json!({"title": "x"})).is_none());
    }

    #[test]
    fn a_replay_joins_chunks_and_merges_tool_calls() {
        let mut replay = Replay::default();
        let chunk = |kind: &str, text: &str| json!({"update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}}});
        replay.update(&chunk("user_message_chunk", "do "));
        replay.update(&chunk("user_message_chunk", "it"));
        replay.update(&chunk("agent_message_chunk", "done"));
        replay.update(
            &json!({"update": {"sessionUpdate": "tool_call", "toolCallId": "c1",
            "title": "ls", "kind": "execute", "status": "in_progress",
            "rawInput": {"command": "ls"}}}),
        );
        replay.update(&json!({"update": {"sessionUpdate": "tool_call_update",
            "toolCallId": "c1", "status": "completed", "rawOutput": "a.txt"}}));
        replay.update(&chunk("agent_message_chunk", "bye"));
        let log = replay.finish();
        assert_eq!(log.entries.len(), 4, "{:?}", log.entries);
        assert_eq!(
            log.entries[0],
            EntryKind::User {
                text: "do it".into()
            }
        );
        let EntryKind::Tool(tool) = &log.entries[2] else {
            panic!("{:?}", log.entries[2]);
        };
        assert_eq!(tool.status, ToolStatus::Succeeded);
        assert_eq!(tool.result.as_deref(), Some("a.txt"));
    }
}
