//! Turn bookkeeping: a turn's end, the echo of a sent message, the completion gate of
//! background agents, and the exit of the agent process.

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, NoteCode, NoteName};
use codiva_protocol::session::{Scope, SessionEvent};

use super::{OpenTurn, ProcessPhase, SessionState, error_line, last_lines};
use crate::agent_event::{TurnEnd, TurnOutcome};

impl SessionState {
    pub(super) fn turn_ended(&mut self, end: TurnEnd) {
        self.reset_stream();
        self.retry = None;
        let turn = self.turn.take();
        let cancelled = turn.is_some_and(|turn| turn.cancelled);
        if turn.is_none()
            && let Some(message) = self.unacked.iter_mut().find(|m| !m.started_turn)
        {
            // A turn that ended before it began (the agent could not start it: a failed
            // resume, a refused request) answers the oldest message waiting.
            message.started_turn = true;
        }
        // The messages that started this turn are settled with it, echoed or not.
        self.unacked.retain(|message| !message.started_turn);
        if let Some(id) = end.agent_session_id
            && self.agent_session_id.as_deref() != Some(&id)
        {
            self.agent_session_id = Some(id.clone());
            self.outbox
                .push(SessionEvent::AgentSession { id: Some(id) });
        }
        if let Some(cost) = end.process_cost_usd
            && !self.subscription
        {
            self.usage.cost_usd = Some(self.cost_base + cost);
        }
        if end.context_window.is_some() {
            self.usage.context_window = end.context_window;
        }
        self.outbox.push(SessionEvent::Usage {
            usage: self.usage.clone(),
        });
        if !end.denials.is_empty() && end.outcome == TurnOutcome::Completed {
            let denied = end.denials.join(", ");
            self.coded_note(
                Scope::Main,
                NoteLevel::Info,
                NoteCode::new(NoteName::Denied, &[&denied]),
                format!("denied: {denied}"),
            );
        }
        match &end.outcome {
            TurnOutcome::Failed { message }
            | TurnOutcome::NeedsLogin { message }
            | TurnOutcome::RateLimited { message } => {
                // The agent's synthetic error message is usually logged already.
                let already = self.log.entries().last().is_some_and(
                    |entry| matches!(&entry.kind, EntryKind::Note { text, .. } if text == message),
                );
                if !already {
                    self.note(Scope::Main, NoteLevel::Error, message.clone());
                }
            }
            TurnOutcome::Interrupted if !cancelled => {}
            _ => {}
        }
        // A turn that completed while background agents still run is not complete yet.
        self.gate_pending = end.outcome == TurnOutcome::Completed && !self.running_tasks.is_empty();
        self.follow_up_since = None;
        self.last_outcome = Some(end.outcome);
        self.exit_note = None;
        // Prompts cannot outlive their turn.
        self.withdraw_all_prompts();
    }

    /// The agent took up a message: it is no longer waiting. Its echo arrives inside the
    /// turn that answers it — one the agent was already running (the message was folded into
    /// it: no new turn, one `result` answers both) or a new one. Echoes of anything else (a
    /// local command's output) match no message and change nothing.
    pub(super) fn user_echo(&mut self, text: &str) {
        let Some(index) = self
            .unacked
            .iter()
            .position(|message| message.echo.trim() == text.trim())
        else {
            return;
        };
        self.unacked.remove(index);
        if self.turn.is_none() {
            self.turn = Some(OpenTurn { cancelled: false });
        }
    }

    /// Claude Code does not print a foreground subagent's text messages, only its tool calls;
    /// its final report arrives with the completion notice. The report ends the subagent's own
    /// log unless one of its messages already said the same (background agents print it).
    pub(super) fn log_subagent_report(&mut self, tool_use_id: String, report: String) {
        let scope = Scope::Subagent(tool_use_id);
        let already = self.log_mut(&scope).entries().any(
            |entry| matches!(&entry.kind, EntryKind::Assistant { text } if text.trim() == report.trim()),
        );
        if !already {
            self.push_entry(scope, EntryKind::Assistant { text: report });
        }
    }

    pub(super) fn release_gate(&mut self) {
        if self.gate_pending && self.running_tasks.is_empty() {
            self.gate_pending = false;
            if !self.turn_open() {
                // The agent hands the results over in a turn it starts by itself.
                self.follow_up_since = Some(self.now_ms);
            }
        }
    }

    pub(super) fn process_exited(
        &mut self,
        code: Option<i32>,
        signal: Option<i32>,
        stderr_tail: &str,
        requested: bool,
    ) {
        self.process = ProcessPhase::Exited;
        self.connected = false;
        self.outbox.push(SessionEvent::AgentExited {
            code,
            signal,
            requested,
        });
        self.reset_stream();
        self.retry = None;
        self.withdraw_all_prompts();
        self.running_tasks.clear();
        self.background_tasks.clear();
        self.gate_pending = false;
        self.follow_up_since = None;
        let mid_turn = self.turn_open();
        // A message waits and the agent never took it up: it could not run at all (a bad
        // flag, a CLI too old, a fatal config). Nobody interrupted anything: the turn failed.
        let before_turn = mid_turn && self.turn.is_none() && !requested;
        self.turn = None;
        self.unacked.clear();
        let how = match (code, signal) {
            (_, Some(signal)) => format!("killed by signal {signal}"),
            (Some(code), None) => format!("exit code {code}"),
            (None, None) => "unknown exit".to_owned(),
        };
        let tail = last_lines(stderr_tail, 3);
        if before_turn || (!requested && !mid_turn && self.last_outcome.is_none()) {
            let error = error_line(stderr_tail);
            let detail = if error.is_empty() {
                String::new()
            } else {
                format!(": {error}")
            };
            // After turns of its own the agent failed to take up the next message.
            let (code, message) = if self.last_outcome.is_none() {
                (
                    NoteName::ExitedBeforeFirstTurn,
                    format!("the agent exited before its first turn ({how}){detail}"),
                )
            } else {
                (
                    NoteName::ExitedBeforeTurn,
                    format!("the agent exited before it took up the message ({how}){detail}"),
                )
            };
            self.coded_note(
                Scope::Main,
                NoteLevel::Error,
                NoteCode::new(code, &[&how, &detail]),
                message.clone(),
            );
            self.last_outcome = Some(TurnOutcome::Failed { message });
            self.exit_note = None;
        } else if mid_turn {
            let detail = if !requested && !tail.is_empty() {
                format!(": {tail}")
            } else {
                String::new()
            };
            let note = format!("the agent process ended mid-turn ({how}){detail}");
            self.coded_note(
                Scope::Main,
                NoteLevel::Warning,
                NoteCode::new(NoteName::EndedMidTurn, &[&how, &detail]),
                note.clone(),
            );
            self.last_outcome = Some(TurnOutcome::Interrupted);
            self.exit_note = (!requested).then_some(note);
        } else if !requested && code != Some(0) {
            self.coded_note(
                Scope::Main,
                NoteLevel::Info,
                NoteCode::new(NoteName::ProcessEnded, &[&how]),
                format!("the agent process ended ({how})"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::agent_event::{AgentEvent, TurnEnd};
    use crate::session_state::{Input, SessionState};
    use codiva_protocol::agent::TokenUsage;
    use codiva_protocol::session::Status;

    fn failed(message: &str) -> Input {
        Input::Agent(AgentEvent::TurnEnded(TurnEnd::failed(message.to_owned())))
    }

    #[test]
    fn a_turn_that_ends_before_it_began_answers_the_oldest_message() {
        let mut state = SessionState::new();
        state.apply(1, Input::ProcessStarted);
        state.apply(1, Input::Agent(AgentEvent::Connected(Default::default())));
        for text in ["first", "second"] {
            let input = Input::UserSent {
                text: text.to_owned(),
                echo: text.to_owned(),
            };
            state.apply(2, input);
        }
        state.apply(3, failed("no such conversation"));
        assert!(state.turn_open(), "the second message still waits");
        state.apply(4, failed("still none"));
        assert!(!state.turn_open());
        state.drain_events();
        assert_eq!(state.snapshot().status, Status::Failed);
    }

    #[test]
    fn usage_reported_apart_counts_once_per_response() {
        let mut state = SessionState::new();
        let usage = |id: &str| {
            Input::Agent(AgentEvent::Usage {
                response_id: id.to_owned(),
                usage: TokenUsage {
                    input: 10,
                    output: 2,
                    cache_read: 5,
                    cache_creation: 0,
                },
                context_window: Some(1000),
            })
        };
        state.apply(1, usage("turn:1"));
        state.apply(2, usage("turn:1"));
        state.apply(3, usage("turn:2"));
        let view = state.usage();
        assert_eq!(view.tokens.input, 20);
        assert_eq!(view.tokens.output, 4);
        assert_eq!(view.context_window, Some(1000));
        assert_eq!(view.context_used, 17);
    }
}
