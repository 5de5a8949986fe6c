//! `codiva-acp-agent`: a scripted Agent Client Protocol agent (JSON-RPC 2.0 on stdio) for what
//! no installable agent produces on demand. Like the real ACP agents measured, it **ignores
//! stdin EOF** (it keeps running until it is killed). Its behaviour is scripted by the words
//! of each prompt:
//!
//! * `question` asks xAI's `_x.ai/ask_user_question` and reports the answer;
//! * `unknown` sends a request no client knows and reports the error code it got;
//! * `permission` asks `session/request_permission` and reports the option chosen;
//! * `crash` streams a word, then exits mid-turn (status 3);
//! * `huge` sends one `session/update` line of 100 MB, then a normal answer;
//! * `slow` streams until `session/cancel` arrives, then ends `cancelled`;
//! * `call-never-ends` starts a command (`tool_call` `in_progress`) and ends the turn without
//!   ever reporting the call's end (as codex-acp does when its Codex reports a command's end
//!   after the turn's);
//! * `call-ends-late` starts a command, ends the turn, then reports the call `completed` after
//!   its answer to `session/prompt`;
//! * anything else is echoed in two chunks.
//!
//! Sessions are numbered per process (`scripted-<pid>-<n>`); `session/load` of any id works
//! and replays one message pair.
//!
//! Listing, when `CODIVA_ACP_AGENT_SESSIONS` names a JSON file (an array of ACP `SessionInfo`s):
//! `initialize` advertises `sessionCapabilities.list`, and `session/list` answers the sessions
//! whose `cwd` is the one asked (all without one), one per page (`nextCursor` is the next
//! index). `CODIVA_ACP_AGENT_LIST=fail` answers it with an error, `hang` never answers it.
//! When `CODIVA_ACP_AGENT_SEEN` names a file, every request's method and `sessionId` is
//! appended to it (`session/load abc`), so a test sees what reached the agent, and its pid
//! when it starts (`start 1234`).
//!
//! Login, when `CODIVA_ACP_AGENT_AUTH` names a file (its "credentials"): `initialize` offers two
//! methods — `scripted-login`, which prints an address and `Enter the authorization code:` on
//! stdout outside the protocol (as Gemini CLI does) and reads the code from stdin (`good-code`
//! writes the file and succeeds, anything else fails the `authenticate`), and `scripted-key`
//! (`type: env_var`, `SCRIPTED_API_KEY`), which succeeds when that variable is set. With
//! `CODIVA_ACP_AGENT_REQUIRE_AUTH=1`, `session/new` answers `-32000` until the file exists or
//! the variable is set. `scripted-login` writes its pid next to the file (`.pid`).

use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

struct Agent {
    session: String,
    next_request: u64,
    inbox: mpsc::Receiver<Value>,
}

fn emit(value: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

fn respond(id: &Value, result: Value) {
    emit(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
}

impl Agent {
    fn update(&self, update: Value) {
        emit(&json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": self.session, "update": update}}));
    }

    fn say(&self, text: &str) {
        let middle = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(index, _)| index);
        let (head, tail) = text.split_at(middle);
        for part in ["", head, tail] {
            self.update(json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": part}}));
        }
    }

    /// Sends a request to the client and waits for its answer (other lines are handled as
    /// they come: a cancel is remembered).
    fn ask(&mut self, method: &str, params: Value) -> Option<Value> {
        self.next_request += 1;
        let id = json!(format!("req-{}", self.next_request));
        emit(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.inbox.recv().ok()?;
            if message.get("id") == Some(&id) && message.get("method").is_none() {
                return Some(message);
            }
        }
    }

    fn prompt(&mut self, id: &Value, text: &str) {
        let stop = |reason: &str| respond(id, json!({"stopReason": reason}));
        if text.contains("question") {
            let params = json!({"sessionId": self.session, "toolCallId": "call_question",
                "mode": "default", "questions": [{"question": "Which colour?",
                "multiSelect": false, "options": [{"label": "red", "description": "warm"},
                {"label": "blue"}]}]});
            let answer = self.ask("_x.ai/ask_user_question", params);
            let result = answer
                .and_then(|a| a.get("result").cloned())
                .unwrap_or(Value::Null);
            self.say(&format!("question answered: {result}"));
            return stop("end_turn");
        }
        if text.contains("unknown") {
            let answer = self.ask("_vendor.example/unheard_of", json!({"x": 1}));
            let code = answer
                .and_then(|a| a.pointer("/error/code").cloned())
                .unwrap_or(Value::Null);
            self.say(&format!("the client answered error {code}"));
            return stop("end_turn");
        }
        if text.contains("permission") {
            self.update(
                json!({"sessionUpdate": "tool_call", "toolCallId": "call_rm",
                "title": "rm -rf build", "kind": "execute", "status": "pending",
                "rawInput": {"command": "rm -rf build"}}),
            );
            let params = json!({"sessionId": self.session, "toolCall": {"toolCallId": "call_rm",
                "rawInput": {"command": "rm -rf build"},
                "_meta": {"x.ai/tool": {"name": "run_terminal_command", "kind": "execute"}}},
                "options": [{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]});
            let answer = self.ask("session/request_permission", params);
            let chosen = answer
                .and_then(|a| a.pointer("/result/outcome/optionId").cloned())
                .unwrap_or(Value::Null);
            let allowed = chosen == json!("allow-once");
            self.update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_rm",
                "status": if allowed { "completed" } else { "failed" },
                "rawOutput": if allowed { "removed" } else { "refused" }}),
            );
            self.say(&format!("permission answered {chosen}"));
            return stop("end_turn");
        }
        let never = text.contains("call-never-ends");
        if never || text.contains("call-ends-late") {
            self.update(
                json!({"sessionUpdate": "tool_call", "toolCallId": "call_make",
                "title": "touch made.txt", "kind": "execute", "status": "in_progress",
                "rawInput": {"command": "touch made.txt"}}),
            );
            self.say("The file is made.");
            stop("end_turn");
            if !never {
                self.update(
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_make",
                    "status": "completed", "rawOutput": "made"}),
                );
            }
            return;
        }
        if text.contains("crash") {
            self.update(json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "about to"}}));
            std::process::exit(3);
        }
        if text.contains("huge") {
            let big = "x".repeat(100 * 1024 * 1024);
            self.update(json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": big}}));
            self.say("after the huge line");
            return stop("end_turn");
        }
        if text.contains("slow") {
            loop {
                self.update(json!({"sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "working "}}));
                match self.inbox.recv_timeout(Duration::from_millis(50)) {
                    Ok(message) if message["method"] == "session/cancel" => {
                        return stop("cancelled");
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    _ => {}
                }
            }
        }
        self.say(&format!("echo: {text}"));
        stop("end_turn");
    }
}

/// Where the login is kept, when the agent has one.
fn credentials() -> Option<std::path::PathBuf> {
    std::env::var_os("CODIVA_ACP_AGENT_AUTH")
        .filter(|path| !path.is_empty())
        .map(Into::into)
}

fn logged_in() -> bool {
    credentials().is_some_and(|path| path.is_file())
        || std::env::var_os("SCRIPTED_API_KEY").is_some_and(|key| !key.is_empty())
}

fn auth_methods() -> Value {
    if credentials().is_none() {
        return json!([]);
    }
    json!([{"id": "scripted-login", "name": "Log in to Scripted",
        "description": "Opens a page that shows a code"},
        {"type": "env_var", "id": "scripted-key", "name": "Use SCRIPTED_API_KEY",
        "description": "Requires setting the `SCRIPTED_API_KEY` environment variable.",
        "vars": [{"name": "SCRIPTED_API_KEY"}]}])
}

impl Agent {
    fn authenticate(&mut self, id: &Value, method: &str) {
        let fail = |message: &str| {
            emit(&json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32603, "message": "Internal error", "data": message}}));
        };
        match method {
            "scripted-key" if logged_in() => respond(id, json!({})),
            "scripted-key" => fail("SCRIPTED_API_KEY is not set"),
            "scripted-login" => {
                if let Some(path) = credentials() {
                    // So a test can see the login's process is gone when it ends.
                    let _ =
                        std::fs::write(path.with_extension("pid"), std::process::id().to_string());
                }
                let mut out = std::io::stdout().lock();
                let _ = write!(
                    out,
                    "\u{1b}[?1049hPlease visit the following URL to authorize the application:\n\nhttps://login.example/authorize?client=scripted&state=1\n\n\u{1b}[1GEnter the authorization code: "
                );
                let _ = out.flush();
                drop(out);
                // The next line on stdin is the code (not a protocol message).
                let code = loop {
                    match self.inbox.recv() {
                        Ok(Value::String(line)) => break line,
                        Ok(_) => {}
                        Err(_) => return,
                    }
                };
                if code.trim() == "good-code" {
                    if let Some(path) = credentials() {
                        let _ = std::fs::write(path, "logged in\n");
                    }
                    respond(id, json!({}));
                } else {
                    eprintln!("Failed to authenticate with authorization code: invalid_grant");
                    fail("invalid authorization code");
                }
            }
            other => fail(&format!("no auth method {other}")),
        }
    }
}

/// Appends a request's method and session id to `CODIVA_ACP_AGENT_SEEN`'s file.
fn seen(message: &Value) {
    let (Some(path), Some(method)) = (
        std::env::var_os("CODIVA_ACP_AGENT_SEEN"),
        message.get("method").and_then(Value::as_str),
    ) else {
        return;
    };
    let session = message
        .pointer("/params/sessionId")
        .and_then(Value::as_str)
        .unwrap_or("-");
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(file, "{method} {session}");
    }
}

/// The sessions `CODIVA_ACP_AGENT_SESSIONS` holds (`None`: the agent lists none).
fn listed() -> Option<Vec<Value>> {
    let path = std::env::var_os("CODIVA_ACP_AGENT_SESSIONS")?;
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str::<Vec<Value>>(&text).ok()
}

/// `sessionCapabilities`: `list` when there are sessions to list.
fn listing() -> Value {
    if listed().is_some() {
        json!({"list": {}})
    } else {
        json!({})
    }
}

fn list_sessions(id: &Value, params: &Value) {
    match std::env::var("CODIVA_ACP_AGENT_LIST").as_deref() {
        Ok("fail") => {
            return emit(&json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32603, "message": "Internal error", "data": "the session store is locked"}}));
        }
        Ok("hang") => return,
        _ => {}
    }
    let cwd = params.get("cwd").and_then(Value::as_str);
    let sessions: Vec<Value> = listed()
        .unwrap_or_default()
        .into_iter()
        .filter(|session| cwd.is_none_or(|cwd| session["cwd"] == json!(cwd)))
        .collect();
    let at: usize = params
        .get("cursor")
        .and_then(Value::as_str)
        .and_then(|cursor| cursor.parse().ok())
        .unwrap_or(0);
    let page: Vec<Value> = sessions.get(at).cloned().into_iter().collect();
    let mut result = json!({"sessions": page});
    if at + 1 < sessions.len() {
        result["nextCursor"] = json!((at + 1).to_string());
    }
    respond(id, result);
}

fn main() {
    seen(&json!({"method": "start", "params": {"sessionId": std::process::id().to_string()}}));
    let (tx, inbox) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            // A line that is no message is text typed at the agent's prompt.
            let value = serde_json::from_str::<Value>(&line).unwrap_or(Value::String(line));
            if tx.send(value).is_err() {
                break;
            }
        }
        // stdin EOF: the agent goes on, as codex-acp and claude-code-acp do.
    });
    let mut agent = Agent {
        session: String::new(),
        next_request: 0,
        inbox,
    };
    let mut sessions = 0;
    loop {
        let Ok(message) = agent.inbox.recv() else {
            // Input closed: keep running until killed.
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        };
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        seen(&message);
        match message["method"].as_str().unwrap_or_default() {
            "initialize" => respond(
                &id,
                json!({"protocolVersion": 1,
                "agentCapabilities": {"loadSession": true,
                    "promptCapabilities": {"image": false, "embeddedContext": false},
                    "sessionCapabilities": listing()},
                "agentInfo": {"name": "codiva-acp-agent", "title": "Scripted", "version": "1.0.0"},
                "authMethods": auth_methods()}),
            ),
            "authenticate" => {
                let method = params["methodId"].as_str().unwrap_or_default().to_owned();
                agent.authenticate(&id, &method);
            }
            "session/new"
                if std::env::var_os("CODIVA_ACP_AGENT_REQUIRE_AUTH").is_some() && !logged_in() =>
            {
                emit(&json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32000, "message": "Authentication required"}}));
            }
            "session/new" => {
                sessions += 1;
                agent.session = format!("scripted-{}-{sessions}", std::process::id());
                respond(
                    &id,
                    json!({"sessionId": agent.session,
                    "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]},
                    "models": {"currentModelId": "scripted-1",
                        "availableModels": [{"modelId": "scripted-1", "name": "Scripted"}]}}),
                );
            }
            "session/load" => {
                agent.session = params["sessionId"].as_str().unwrap_or_default().to_owned();
                agent.update(json!({"sessionUpdate": "user_message_chunk",
                    "content": {"type": "text", "text": "an earlier prompt"}}));
                agent.say("an earlier answer");
                respond(
                    &id,
                    json!({"models": {"currentModelId": "scripted-1",
                    "availableModels": [{"modelId": "scripted-1", "name": "Scripted"}]}}),
                );
            }
            "session/prompt" => {
                let text = params
                    .pointer("/prompt/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                agent.prompt(&id, &text);
            }
            "session/list" => list_sessions(&id, &params),
            "session/cancel" => {}
            method if !id.is_null() => emit(&json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("Method not found: {method}")}})),
            _ => {}
        }
    }
}
