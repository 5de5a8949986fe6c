//! The benchmark input: the real CLI captures (`codiva-core/tests/fixtures/claude/*.jsonl`),
//! repeated in order, plus the host inputs a session would interleave with them.
//!
//! Every fixture is one CLI process, so a repetition of a fixture is fed as a session would
//! see it: `ProcessStarted` (and a fresh translator that sent `initialize` as `codiva_1`)
//! before its first line, `UserSent` before the turn that echoes the message, the user's
//! answer (`PromptAnswered`) before the CLI echoes it, `InterruptRequested` before the answer
//! to an interrupt request, and `ProcessExited` after its last line.
//!
//! Ids (`msg_mock_…`, `toolu_mock_…`, `req_mock_…`, UUIDs) are made unique per repetition by
//! overwriting their last 8 hex digits with the repetition number (same length, so the input
//! stays byte-for-byte as large as the captures). Without that, state keyed by id (seen message
//! ids, running tools, …) would be overwritten instead of growing, and the memory benchmark
//! could not see an id-keyed leak.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use codiva_protocol::session::PromptResolution;
use serde_json::Value;

/// Where the captures live in this workspace.
pub fn default_fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../codiva-core/tests/fixtures/claude")
}

/// A string containing ids, with the offsets of the 8 hex digits to overwrite per repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub bytes: Vec<u8>,
    pub slots: Vec<usize>,
}

impl Template {
    pub fn new(bytes: Vec<u8>) -> Self {
        let slots = id_slots(&bytes);
        Template { bytes, slots }
    }

    /// Writes this template for repetition `rep` into `out` (appending).
    pub fn write_to(&self, rep: u32, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.bytes);
        patch(&mut out[start..], &self.slots, rep);
    }

    /// The template for repetition `rep` as a string.
    pub fn render(&self, rep: u32) -> String {
        let mut out = Vec::with_capacity(self.bytes.len());
        self.write_to(rep, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Overwrites the 8 hex digits at each slot with `rep` in lowercase hex.
fn patch(bytes: &mut [u8], slots: &[usize], rep: u32) {
    let digits = format!("{rep:08x}");
    for &slot in slots {
        if let Some(window) = bytes.get_mut(slot..slot + 8) {
            window.copy_from_slice(digits.as_bytes());
        }
    }
}

fn is_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

/// Offsets of the last 8 hex digits of every id in `bytes`: `<word>_mock_<hex ≥ 8>` and
/// lowercase UUIDs.
pub fn id_slots(bytes: &[u8]) -> Vec<usize> {
    const MOCK: &[u8] = b"_mock_";
    let mut slots = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(MOCK) {
            let start = i + MOCK.len();
            let run = bytes[start..].iter().take_while(|&&b| is_hex(b)).count();
            if run >= 8 {
                slots.push(start + run - 8);
            }
            i = start + run;
            continue;
        }
        if is_uuid_at(bytes, i) {
            slots.push(i + 36 - 8);
            i += 36;
            continue;
        }
        i += 1;
    }
    slots
}

fn is_uuid_at(bytes: &[u8], i: usize) -> bool {
    let Some(candidate) = bytes.get(i..i + 36) else {
        return false;
    };
    let shape_ok = candidate.iter().enumerate().all(|(k, &b)| match k {
        8 | 13 | 18 | 23 => b == b'-',
        _ => is_hex(b),
    });
    let boundary = |b: Option<&u8>| b.is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'-');
    shape_ok && boundary(i.checked_sub(1).and_then(|p| bytes.get(p))) && boundary(bytes.get(i + 36))
}

/// Something the host (the session driver or the user) does between two agent lines.
#[derive(Debug, Clone, PartialEq)]
pub enum HostAction {
    /// A new process: fresh translator that sent `initialize` as `codiva_1`, then
    /// `Input::ProcessStarted`.
    ProcessStarted,
    /// `Input::ProcessExited` (requested, exit code 0).
    ProcessExited,
    /// `Input::UserSent`.
    UserSent(String),
    /// `Input::PromptAnswered` for this request id.
    PromptAnswered {
        request_id: Template,
        resolution: PromptResolution,
    },
    /// The driver sent `interrupt` under this id: `sent_request` + `Input::InterruptRequested`.
    Interrupt { request_id: Template },
}

/// One capture: its lines and the host actions around them.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub name: String,
    pub lines: Vec<Template>,
    /// `before[i]`: applied before line `i`.
    pub before: Vec<Vec<HostAction>>,
    /// Applied after the last line.
    pub after: Vec<HostAction>,
    /// A label per line: `type`, with the subtype or event type where it tells lines apart.
    pub kinds: Vec<String>,
    /// Bytes of one repetition, newlines included.
    pub bytes: usize,
}

impl Fixture {
    /// Builds the script of one capture from its text.
    pub fn parse(name: &str, text: &str) -> Result<Fixture> {
        let raw: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        if raw.is_empty() {
            bail!("fixture {name} has no lines");
        }
        let values = raw
            .iter()
            .enumerate()
            .map(|(i, line)| {
                serde_json::from_str::<Value>(line)
                    .with_context(|| format!("fixture {name}, line {}", i + 1))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut before: Vec<Vec<HostAction>> = vec![Vec::new(); raw.len()];
        before[0].push(HostAction::ProcessStarted);

        // Tool names of can_use_tool requests, by request id (questions resolve differently).
        let mut asked: Vec<(String, String)> = Vec::new();
        // Where the current turn began: the first `system/init` since the last `result`.
        let mut turn_start: Option<usize> = None;
        for (i, value) in values.iter().enumerate() {
            let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
            let subtype = value.get("subtype").and_then(Value::as_str);
            match (kind, subtype) {
                ("system", Some("init")) => {
                    turn_start.get_or_insert(i);
                }
                ("result", _) => turn_start = None,
                ("user", _) if value.get("isReplay").and_then(Value::as_bool) == Some(true) => {
                    // The user's message was sent before the CLI announced the turn.
                    let at = turn_start.unwrap_or(i);
                    before[at].push(HostAction::UserSent(user_text(value)));
                }
                ("control_request", _) => {
                    let id = str_at(value, "/request_id");
                    let tool = str_at(value, "/request/tool_name");
                    asked.push((id, tool));
                }
                ("control_response", _) => {
                    let id = str_at(value, "/response/request_id");
                    if let Some(seq) = id.strip_prefix("codiva_") {
                        if seq != "1" {
                            before[i].push(HostAction::Interrupt {
                                request_id: Template::new(id.into_bytes()),
                            });
                        }
                    } else if let Some((_, tool)) = asked.iter().find(|(asked, _)| *asked == id) {
                        let allowed = str_at(value, "/response/response/behavior") == "allow";
                        let question = tool == codiva_core::claude::translate::ASK_USER_QUESTION;
                        let resolution = match (question, allowed) {
                            (false, true) => PromptResolution::Allowed,
                            (false, false) => PromptResolution::Denied,
                            (true, true) => PromptResolution::Answered,
                            (true, false) => PromptResolution::Declined,
                        };
                        before[i].push(HostAction::PromptAnswered {
                            request_id: Template::new(id.into_bytes()),
                            resolution,
                        });
                    }
                }
                _ => {}
            }
        }
        let lines: Vec<Template> = raw
            .iter()
            .map(|line| Template::new(line.as_bytes().to_vec()))
            .collect();
        let bytes = lines.iter().map(|line| line.bytes.len() + 1).sum();
        Ok(Fixture {
            name: name.to_owned(),
            lines,
            kinds: values.iter().map(kind_of).collect(),
            before,
            after: vec![HostAction::ProcessExited],
            bytes,
        })
    }
}

/// `system/init`, `stream_event/content_block_delta`, `control_response/initialize`, …
pub fn kind_of(value: &Value) -> String {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("?");
    let detail = match kind {
        "system" | "result" => str_at(value, "/subtype"),
        "stream_event" => str_at(value, "/event/type"),
        "control_request" => str_at(value, "/request/subtype"),
        "control_response" if str_at(value, "/response/request_id") == "codiva_1" => {
            "initialize".to_owned()
        }
        "user" if value.get("isReplay").and_then(Value::as_bool) == Some(true) => {
            "replay".to_owned()
        }
        "user" if value.get("tool_use_result").is_some() => "tool_result".to_owned(),
        _ => String::new(),
    };
    if detail.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}/{detail}")
    }
}

fn str_at(value: &Value, pointer: &str) -> String {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The text of a user line: a string content or its text blocks joined.
fn user_text(value: &Value) -> String {
    match value.pointer("/message/content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// All captures, in file-name order.
#[derive(Debug, Clone)]
pub struct Fixtures {
    pub files: Vec<Fixture>,
}

impl Fixtures {
    pub fn load(dir: &Path) -> Result<Fixtures> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("reading fixture dir {}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        paths.sort();
        if paths.is_empty() {
            bail!("no *.jsonl captures in {}", dir.display());
        }
        let files = paths
            .iter()
            .map(|path| {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading {}", path.display()))?;
                let name = path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Fixture::parse(&name, &text)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Fixtures { files })
    }

    /// Bytes of one repetition of all captures.
    pub fn bytes_per_rep(&self) -> usize {
        self.files.iter().map(|file| file.bytes).sum()
    }

    pub fn lines_per_rep(&self) -> usize {
        self.files.iter().map(|file| file.lines.len()).sum()
    }

    /// Whole repetitions needed to reach at least `target` bytes (at least one).
    pub fn reps_for(&self, target: usize) -> u32 {
        let per = self.bytes_per_rep().max(1);
        u32::try_from(target.div_ceil(per).max(1)).unwrap_or(u32::MAX)
    }
}

/// Where the feed is: which repetition, capture and line comes next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    pub rep: u32,
    pub file: usize,
    pub line: usize,
}

impl Position {
    /// Moves to the next line.
    pub fn advance(&mut self, fixtures: &Fixtures) {
        self.line += 1;
        if self.line >= fixtures.files[self.file].lines.len() {
            self.line = 0;
            self.file += 1;
            if self.file >= fixtures.files.len() {
                self.file = 0;
                self.rep += 1;
            }
        }
    }
}

/// The whole input in memory: lines separated by `\n`, with each line's start offset.
#[derive(Debug)]
pub struct Corpus {
    pub bytes: Vec<u8>,
    /// `(start, end)` of every line (end excludes the newline).
    pub lines: Vec<(usize, usize)>,
    pub reps: u32,
}

impl Corpus {
    /// Whole repetitions of all captures, at least `target` bytes.
    pub fn build(fixtures: &Fixtures, target: usize) -> Corpus {
        let reps = fixtures.reps_for(target);
        let total = fixtures.bytes_per_rep() * reps as usize;
        let mut bytes = Vec::with_capacity(total);
        let mut lines = Vec::with_capacity(fixtures.lines_per_rep() * reps as usize);
        for rep in 0..reps {
            for file in &fixtures.files {
                for line in &file.lines {
                    let start = bytes.len();
                    line.write_to(rep, &mut bytes);
                    lines.push((start, bytes.len()));
                    bytes.push(b'\n');
                }
            }
        }
        Corpus { bytes, lines, reps }
    }

    pub fn line(&self, index: usize) -> &[u8] {
        let (start, end) = self.lines[index];
        &self.bytes[start..end]
    }
}

/// Generates the same input line by line into one reusable buffer (for the memory
/// benchmark: the replay never exists in memory as a whole).
#[derive(Debug)]
pub struct LineStream<'f> {
    fixtures: &'f Fixtures,
    reps: u32,
    pos: Position,
    buf: Vec<u8>,
}

impl<'f> LineStream<'f> {
    pub fn new(fixtures: &'f Fixtures, target: usize) -> Self {
        LineStream {
            fixtures,
            reps: fixtures.reps_for(target),
            pos: Position::default(),
            buf: Vec::new(),
        }
    }

    /// The next line (without newline), or `None` after the last repetition.
    pub fn next_line(&mut self) -> Option<&[u8]> {
        if self.pos.rep >= self.reps {
            return None;
        }
        let template = &self.fixtures.files[self.pos.file].lines[self.pos.line];
        self.buf.clear();
        template.write_to(self.pos.rep, &mut self.buf);
        self.pos.advance(self.fixtures);
        Some(&self.buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_slots_find_mock_ids_and_uuids() {
        let line = br#"{"id":"toolu_mock_0123456789abcdef","uuid":"4d3030bf-a816-4ecf-9aa4-cc785963c0cf","x":"msg_mock_12"}"#;
        let template = Template::new(line.to_vec());
        assert_eq!(template.slots.len(), 2, "short mock ids are left alone");
        let out = template.render(0x2a);
        assert!(out.contains(r#""toolu_mock_012345670000002a""#), "{out}");
        assert!(
            out.contains(r#""4d3030bf-a816-4ecf-9aa4-cc780000002a""#),
            "{out}"
        );
        assert!(out.contains(r#""msg_mock_12""#));
        assert_eq!(out.len(), line.len());
    }

    #[test]
    fn script_opens_turn_at_init_and_answers_prompts() {
        let text = [
            r#"{"type":"control_response","response":{"subtype":"success","request_id":"codiva_1","response":{}}}"#,
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            r#"{"type":"user","isReplay":true,"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
            r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{}}}"#,
            r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"deny"}}}"#,
            r#"{"type":"control_response","response":{"subtype":"success","request_id":"codiva_2"}}"#,
            r#"{"type":"result","subtype":"success","is_error":false}"#,
        ]
        .join("\n");
        let fixture = Fixture::parse("t", &text).unwrap();
        assert_eq!(fixture.before[0], vec![HostAction::ProcessStarted]);
        assert_eq!(fixture.before[1], vec![HostAction::UserSent("hi".into())]);
        assert!(fixture.before[2].is_empty());
        assert!(matches!(
            &fixture.before[4][..],
            [HostAction::PromptAnswered {
                resolution: PromptResolution::Denied,
                ..
            }]
        ));
        assert!(matches!(
            &fixture.before[5][..],
            [HostAction::Interrupt { .. }]
        ));
        assert_eq!(fixture.after, vec![HostAction::ProcessExited]);
        assert_eq!(fixture.bytes, text.len() + 1);
    }

    #[test]
    fn corpus_is_whole_repetitions_and_matches_the_stream() {
        let fixtures = Fixtures::load(&default_fixture_dir()).unwrap();
        let per = fixtures.bytes_per_rep();
        let corpus = Corpus::build(&fixtures, per + 1);
        assert_eq!(corpus.reps, 2);
        assert_eq!(corpus.bytes.len(), 2 * per);
        assert_eq!(corpus.lines.len(), 2 * fixtures.lines_per_rep());
        let mut stream = LineStream::new(&fixtures, per + 1);
        let mut index = 0;
        while let Some(line) = stream.next_line() {
            assert_eq!(line, corpus.line(index), "line {index}");
            index += 1;
        }
        assert_eq!(index, corpus.lines.len());
        // Repetitions differ only in their ids.
        let first = corpus.line(fixtures.files[0].lines.len() - 1);
        let second = corpus.line(fixtures.lines_per_rep() + fixtures.files[0].lines.len() - 1);
        assert_eq!(first.len(), second.len());
    }
}
