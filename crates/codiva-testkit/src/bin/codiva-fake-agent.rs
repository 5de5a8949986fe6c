//! `codiva-fake-agent [--resume ID]`: a stand-in agent that speaks the test kit's own line
//! protocol (no Claude code anywhere), so that a scripted provider can drive codiva's generic
//! session task and manager end to end. Its behaviour is scripted by the words of each message:
//!
//! * `permission` asks to use a tool and reports whether it was allowed;
//! * `question` asks a question and reports the answer;
//! * `slow` works until interrupted;
//! * `stream` streams a long answer, one small delta per millisecond;
//! * a message that starts with `crash` exits mid-turn (status 3);
//! * anything else is echoed, streamed in two parts.
//!
//! Every reply ends with `[resumed ID]` when the process was started with `--resume ID`. The
//! conversation is recorded in `$FAKE_AGENT_HOME/<session>.jsonl` (its "transcript").
//!
//! Lines out: `hello`, `turn`, `echo`, `message`, `delta`, `text`, `ask`, `question`, `end`.
//! Lines in: `user`, `interrupt`, `permission`, `answer`, `set_model`, `set_mode`.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

enum Waiting {
    Nothing,
    Permission(String),
    Question(String),
    Slow,
}

struct Agent {
    session: String,
    resumed: Option<String>,
    out: std::io::Stdout,
    turn: u32,
}

impl Agent {
    fn emit(&mut self, value: Value) {
        let mut out = self.out.lock();
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    }

    fn record(&self, role: &str, text: &str) {
        let Some(home) = std::env::var_os("FAKE_AGENT_HOME") else {
            return;
        };
        let path = std::path::Path::new(&home).join(format!("{}.jsonl", self.session));
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(file, "{}", json!({"role": role, "text": text}));
        }
    }

    fn reply(&mut self, text: &str) {
        let text = match &self.resumed {
            Some(id) => format!("{text} [resumed {id}]"),
            None => text.to_owned(),
        };
        let id = format!("m{}", self.turn);
        self.emit(json!({"type": "message", "id": id}));
        let middle = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(index, _)| index);
        let (head, tail) = text.split_at(middle);
        self.emit(json!({"type": "delta", "text": head}));
        self.emit(json!({"type": "delta", "text": tail}));
        self.emit(json!({"type": "text", "id": id, "text": text}));
        self.record("assistant", &text);
    }

    fn end(&mut self, outcome: &str) {
        let session = self.session.clone();
        self.emit(json!({"type": "end", "outcome": outcome, "session": session}));
    }

    fn user(&mut self, text: &str) -> Waiting {
        self.turn += 1;
        let session = self.session.clone();
        self.emit(json!({"type": "turn", "session": session}));
        self.emit(json!({"type": "echo", "text": text}));
        self.record("user", text);
        if text.starts_with("crash") {
            std::process::exit(3);
        }
        if text.contains("permission") {
            let id = format!("p{}", self.turn);
            self.emit(json!({"type": "ask", "id": id, "tool": "Write",
                "input": {"file_path": "notes.txt"}}));
            return Waiting::Permission(id);
        }
        if text.contains("question") {
            let id = format!("q{}", self.turn);
            self.emit(
                json!({"type": "question", "id": id, "question": "Which colour?",
                "options": ["red", "blue"]}),
            );
            return Waiting::Question(id);
        }
        if text.contains("slow") {
            self.reply("working");
            return Waiting::Slow;
        }
        if text.contains("stream") {
            let id = format!("m{}", self.turn);
            self.emit(json!({"type": "message", "id": id}));
            let mut whole = String::new();
            for index in 0..300 {
                let delta = format!("part {index}, ");
                whole.push_str(&delta);
                self.emit(json!({"type": "delta", "text": delta}));
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            self.emit(json!({"type": "text", "id": id, "text": whole}));
            self.record("assistant", &whole);
            self.end("completed");
            return Waiting::Nothing;
        }
        self.reply(&format!("echo: {text}"));
        self.end("completed");
        Waiting::Nothing
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut resumed = None;
    while let Some(arg) = args.next() {
        if arg == "--resume" {
            resumed = args.next();
        }
    }
    let session = resumed
        .clone()
        .unwrap_or_else(|| format!("fake-{}", std::process::id()));
    let mut agent = Agent {
        session,
        resumed,
        out: std::io::stdout(),
        turn: 0,
    };
    let session = agent.session.clone();
    agent.emit(json!({"type": "hello", "session": session}));
    let mut waiting = Waiting::Nothing;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let field = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or_default();
        waiting = match (field("type"), waiting) {
            ("user", Waiting::Nothing) => agent.user(field("text")),
            ("interrupt", Waiting::Slow | Waiting::Permission(_) | Waiting::Question(_)) => {
                agent.end("interrupted");
                Waiting::Nothing
            }
            ("permission", Waiting::Permission(id)) if field("id") == id => {
                let allowed = message.get("allow").and_then(Value::as_bool) == Some(true);
                agent.reply(if allowed {
                    "wrote notes.txt"
                } else {
                    "not allowed"
                });
                agent.end("completed");
                Waiting::Nothing
            }
            ("answer", Waiting::Question(id)) if field("id") == id => {
                let answer = message
                    .pointer("/answers/Which colour?")
                    .and_then(Value::as_str)
                    .unwrap_or("none")
                    .to_owned();
                agent.reply(&format!("you chose {answer}"));
                agent.end("completed");
                Waiting::Nothing
            }
            (_, waiting) => waiting,
        };
    }
}
