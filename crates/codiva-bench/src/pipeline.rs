//! What a session does with each stdout line, minus the IO: `parse_line` → `translate` →
//! `apply` → `drain_events`, with the host's own inputs interleaved (see [`crate::corpus`]).

use std::hint::black_box;
use std::time::{Duration, Instant};

use codiva_core::agent_event::AgentEvent;
use codiva_core::claude::translate::Translator;
use codiva_core::session_state::{Input, SessionState};
use codiva_protocol::agent::NoteLevel;
use codiva_wire::claude::{HostRequest, parse_line};

use crate::corpus::{Fixtures, HostAction, Position};

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    /// Line bytes plus one newline each.
    pub bytes: u64,
    pub agent_events: u64,
    pub session_events: u64,
    pub parse_errors: u64,
}

/// Time spent per stage (only filled by [`Pipeline::feed_timed`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stages {
    pub parse: Duration,
    pub translate: Duration,
    pub apply: Duration,
    pub drain: Duration,
    pub host: Duration,
}

/// One session's reducer chain.
#[derive(Debug)]
pub struct Pipeline<'f> {
    fixtures: &'f Fixtures,
    translator: Translator,
    state: SessionState,
    now_ms: u64,
    pos: Position,
    pub counts: Counts,
    pub stages: Stages,
}

impl<'f> Pipeline<'f> {
    pub fn new(fixtures: &'f Fixtures) -> Self {
        Pipeline {
            fixtures,
            translator: Translator::new(),
            state: SessionState::new(),
            now_ms: 0,
            pos: Position::default(),
            counts: Counts::default(),
            stages: Stages::default(),
        }
    }

    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Feeds the next line of the corpus (lines must come in corpus order).
    #[inline]
    pub fn feed(&mut self, line: &[u8]) {
        self.feed_inner::<false>(line);
    }

    /// [`feed`](Self::feed) with a timer around each stage (for the breakdown; the timers
    /// cost some 100 ns per line).
    pub fn feed_timed(&mut self, line: &[u8]) {
        self.feed_inner::<true>(line);
    }

    /// Parses only (no state): the parser's share of the work.
    #[inline]
    pub fn parse_only(&mut self, line: &[u8]) {
        let parsed = parse_line(black_box(line));
        if parsed.is_err() {
            self.counts.parse_errors += 1;
        }
        drop(black_box(parsed));
        self.counts.lines += 1;
        self.counts.bytes += line.len() as u64 + 1;
    }

    /// A line the reader skipped as too long (not expected with the captures).
    pub fn oversized(&mut self, bytes: u64) {
        self.apply(Input::Agent(AgentEvent::Note {
            level: NoteLevel::Warning,
            text: format!("skipped an oversized line ({bytes} bytes)"),
            code: None,
        }));
        self.counts.lines += 1;
        self.counts.bytes += bytes + 1;
        self.pos.advance(self.fixtures);
    }

    fn feed_inner<const TIMED: bool>(&mut self, line: &[u8]) {
        let fixtures = self.fixtures;
        let pos = self.pos;
        let fixture = &fixtures.files[pos.file];
        let t0 = TIMED.then(Instant::now);
        for action in &fixture.before[pos.line] {
            self.host(action, pos.rep);
        }
        self.now_ms += 1;
        let t1 = TIMED.then(Instant::now);
        let parsed = parse_line(line);
        let t2 = TIMED.then(Instant::now);
        let (events, t3) = match parsed {
            Ok(inbound) => {
                let events = self.translator.translate(inbound);
                (events, TIMED.then(Instant::now))
            }
            Err(err) => {
                self.counts.parse_errors += 1;
                let note = AgentEvent::Note {
                    level: NoteLevel::Warning,
                    text: format!("skipped an unreadable line from the agent ({err})"),
                    code: None,
                };
                (vec![note], TIMED.then(Instant::now))
            }
        };
        self.counts.agent_events += events.len() as u64;
        for event in events {
            self.state.apply(self.now_ms, Input::Agent(event));
        }
        let t4 = TIMED.then(Instant::now);
        let drained = self.state.drain_events();
        self.counts.session_events += drained.len() as u64;
        drop(black_box(drained));
        let t5 = TIMED.then(Instant::now);
        if pos.line + 1 == fixture.lines.len() {
            for action in &fixture.after {
                self.host(action, pos.rep);
            }
        }
        if let (Some(t0), Some(t1), Some(t2), Some(t3), Some(t4), Some(t5)) =
            (t0, t1, t2, t3, t4, t5)
        {
            let t6 = Instant::now();
            self.stages.host += (t1 - t0) + (t6 - t5);
            self.stages.parse += t2 - t1;
            self.stages.translate += t3 - t2;
            self.stages.apply += t4 - t3;
            self.stages.drain += t5 - t4;
        }
        self.counts.lines += 1;
        self.counts.bytes += line.len() as u64 + 1;
        self.pos.advance(fixtures);
    }

    fn host(&mut self, action: &HostAction, rep: u32) {
        match action {
            HostAction::ProcessStarted => {
                self.translator = Translator::new();
                self.translator
                    .sent_request("codiva_1", &HostRequest::Initialize);
                self.apply(Input::ProcessStarted);
            }
            HostAction::ProcessExited => self.apply(Input::ProcessExited {
                code: Some(0),
                signal: None,
                stderr_tail: String::new(),
                requested: true,
            }),
            HostAction::UserSent(text) => self.apply(Input::UserSent {
                text: text.clone(),
                echo: text.clone(),
            }),
            HostAction::PromptAnswered {
                request_id,
                resolution,
            } => self.apply(Input::PromptAnswered {
                request_id: request_id.render(rep),
                resolution: *resolution,
            }),
            HostAction::Interrupt { request_id } => {
                self.translator
                    .sent_request(&request_id.render(rep), &HostRequest::Interrupt);
                self.apply(Input::InterruptRequested);
            }
        }
    }

    fn apply(&mut self, input: Input) {
        self.state.apply(self.now_ms, input);
        let drained = self.state.drain_events();
        self.counts.session_events += drained.len() as u64;
        drop(black_box(drained));
    }
}

/// Feeds two repetitions of every capture and checks that each leaves the session settled:
/// no turn open, no prompt pending, no parse error. Guards the host-input script.
pub fn check_sessions(fixtures: &Fixtures) -> anyhow::Result<()> {
    let mut pipeline = Pipeline::new(fixtures);
    let mut buf = Vec::new();
    for rep in 0..2 {
        for file in &fixtures.files {
            for line in &file.lines {
                buf.clear();
                line.write_to(rep, &mut buf);
                pipeline.feed(&buf);
            }
            let state = pipeline.state();
            if state.turn_open() || state.pending_prompts() > 0 || !state.status().is_settled() {
                anyhow::bail!(
                    "{}: the replay leaves the session unsettled ({:?}, turn open: {}, prompts: {})",
                    file.name,
                    state.status(),
                    state.turn_open(),
                    state.pending_prompts()
                );
            }
        }
    }
    if pipeline.counts.parse_errors > 0 {
        anyhow::bail!(
            "{} capture lines do not parse",
            pipeline.counts.parse_errors
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use codiva_protocol::session::Status;

    use super::*;
    use crate::corpus::{Corpus, default_fixture_dir};

    /// Every capture, fed as a session would, parses cleanly and leaves no turn open; a
    /// second repetition behaves the same (ids made unique do not confuse the reducer).
    #[test]
    fn captures_replay_as_whole_sessions() {
        let fixtures = Fixtures::load(&default_fixture_dir()).unwrap();
        let corpus = Corpus::build(&fixtures, fixtures.bytes_per_rep() * 2);
        let mut pipeline = Pipeline::new(&fixtures);
        let mut index = 0;
        for _rep in 0..corpus.reps {
            for file in &fixtures.files {
                for _ in 0..file.lines.len() {
                    pipeline.feed(corpus.line(index));
                    index += 1;
                }
                let state = pipeline.state();
                assert!(!state.turn_open(), "{}: turn left open", file.name);
                assert_eq!(state.pending_prompts(), 0, "{}", file.name);
                assert!(
                    state.status().is_settled(),
                    "{}: {:?}",
                    file.name,
                    state.status()
                );
            }
        }
        assert_eq!(pipeline.counts.parse_errors, 0);
        assert_eq!(pipeline.counts.lines, corpus.lines.len() as u64);
        assert_eq!(pipeline.counts.bytes, corpus.bytes.len() as u64);
        assert_ne!(pipeline.state().status(), Status::Failed);
        check_sessions(&fixtures).unwrap();
    }
}
