//! Attach equals watching: the daemon's `session/snapshot` is the protocol's fold
//! (`codiva_protocol::view`) of the events it emitted.
//!
//! Every replay of a captured session (Claude, Codex, ACP) goes through a [`Watch`]: after each
//! batch of events the state machine's own snapshot must equal the fold of every event so far,
//! and once the replay ends, every snapshot taken on the way, sent as JSON and followed by the
//! events after it, must fold to the final view. A property test does the same over generated
//! input sequences. The conformance corpus for other clients (`docs/conformance/`) is written
//! from the same replays: `CODIVA_WRITE_CONFORMANCE=1` rewrites it, and without it the files
//! must equal what the replays give.

use std::path::{Path, PathBuf};

use codiva_core::session_state::SessionState;
use codiva_protocol::session::{SessionEvent, SessionSnapshot};
use serde_json::{Value, json};

/// A client that watched the session from its start.
pub struct Watch {
    name: String,
    view: SessionSnapshot,
    events: Vec<SessionEvent>,
    /// The state machine's snapshot after `.0` events.
    snapshots: Vec<(usize, SessionSnapshot)>,
}

impl Watch {
    pub fn new(name: &str) -> Self {
        Watch {
            name: name.to_owned(),
            view: SessionSnapshot::initial(),
            events: Vec::new(),
            snapshots: vec![(0, SessionSnapshot::initial())],
        }
    }

    /// Drains `state`'s events (as the session task does), folds them, and holds the state's
    /// own snapshot to the fold.
    pub fn drain(&mut self, state: &mut SessionState) -> Vec<SessionEvent> {
        let events = state.drain_events();
        for event in &events {
            self.view.apply(event);
        }
        self.events.extend(events.iter().cloned());
        let snapshot = state.snapshot();
        assert_same(
            &snapshot,
            &self.view,
            &format!("[{}] after {} events", self.name, self.events.len()),
        );
        if self
            .snapshots
            .last()
            .is_none_or(|(k, _)| *k != self.events.len())
        {
            self.snapshots.push((self.events.len(), snapshot));
        }
        events
    }

    /// Every snapshot on the way, as a client receives it (JSON), plus the events after it,
    /// folds to the view of one that watched all along; and the corpus file, where the session
    /// has one, says the same.
    pub fn finish(self) {
        for (k, snapshot) in &self.snapshots {
            let text = serde_json::to_string(snapshot).expect("snapshot as JSON");
            let mut late: SessionSnapshot =
                serde_json::from_str(&text).expect("snapshot from JSON");
            for event in &self.events[*k..] {
                let text = serde_json::to_string(event).expect("event as JSON");
                late.apply(&serde_json::from_str(&text).expect("event from JSON"));
            }
            assert_same(
                &late,
                &self.view,
                &format!("[{}] attached after {k} events", self.name),
            );
        }
        if CORPUS.contains(&self.name.as_str()) {
            corpus_file(&self.name, &self.events);
        }
    }
}

/// The captures whose event streams make the conformance corpus: a permission allowed and
/// denied, a question, subagents, the TODO list, a model and mode change, an interrupt, a
/// login failure and a resume, from Claude Code, Codex and ACP agents.
pub const CORPUS: &[&str] = &[
    "claude-write-allow",
    "claude-write-deny",
    "claude-ask-user-question",
    "claude-task-agent",
    "claude-todo-write",
    "claude-set-model",
    "claude-interrupt-during-permission",
    "claude-api-401",
    "claude-resume",
    "codex-command-accept",
    "codex-plan",
    "codex-interrupt",
    "acp-codex-permission-allow",
    "acp-claude-model-mode",
    "acp-gemini-todos",
];

/// The corpus directory, `docs/conformance/session/`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/conformance/session")
}

/// `{source, initial, steps: [{event, view}]}`: each event as a client receives it (the params
/// of its notification carry the same fields) and what the view after it changed — its
/// top-level fields that differ from the view before, a field that went away as `null`.
fn corpus_file(name: &str, events: &[SessionEvent]) {
    let mut view = SessionSnapshot::initial();
    let mut before = object(&view);
    let steps: Vec<Value> = events
        .iter()
        .map(|event| {
            view.apply(event);
            let after = object(&view);
            let mut changed = serde_json::Map::new();
            for (key, value) in &after {
                if before.get(key) != Some(value) {
                    changed.insert(key.clone(), value.clone());
                }
            }
            for key in before.keys() {
                if !after.contains_key(key) {
                    changed.insert(key.clone(), Value::Null);
                }
            }
            before = after;
            json!({ "event": event, "view": changed })
        })
        .collect();
    let document = json!({
        "source": name,
        "initial": SessionSnapshot::initial(),
        "steps": steps,
    });
    let text = serde_json::to_string_pretty(&document).expect("corpus as JSON") + "\n";
    let path = corpus_dir().join(format!("{name}.json"));
    if std::env::var_os("CODIVA_WRITE_CONFORMANCE").is_some() {
        std::fs::create_dir_all(corpus_dir()).expect("corpus dir");
        std::fs::write(&path, text).expect("write corpus file");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == text,
        "{} is not what the replay of {name} gives: run the core's tests with \
         CODIVA_WRITE_CONFORMANCE=1 and commit the files",
        path.display()
    );
}

fn object(view: &SessionSnapshot) -> serde_json::Map<String, Value> {
    match serde_json::to_value(view).expect("view as JSON") {
        Value::Object(map) => map,
        _ => unreachable!("a snapshot is an object"),
    }
}

/// Equal, or a panic that names the fields that differ.
pub fn assert_same(actual: &SessionSnapshot, folded: &SessionSnapshot, at: &str) {
    if actual == folded {
        return;
    }
    let (Value::Object(a), Value::Object(b)) = (
        serde_json::to_value(actual).expect("snapshot"),
        serde_json::to_value(folded).expect("view"),
    ) else {
        panic!("{at}: snapshots are objects");
    };
    let mut differences = Vec::new();
    for (key, value) in &a {
        let other = b.get(key).unwrap_or(&Value::Null);
        if value != other {
            differences.push(format!("{key}:\n  snapshot {value}\n  fold     {other}"));
        }
    }
    for (key, value) in &b {
        if !a.contains_key(key) {
            differences.push(format!("{key}:\n  snapshot (absent)\n  fold     {value}"));
        }
    }
    let mut text = differences.join("\n");
    if text.len() > 4000 {
        text.truncate(codiva_protocol::text::floor_boundary(&text, 4000));
    }
    panic!("{at}: the snapshot is not the fold of the events\n{text}");
}
