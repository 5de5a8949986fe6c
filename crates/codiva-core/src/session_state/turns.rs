//! Turn bookkeeping: a turn's end, the echo of a sent message, the completion gate of
//! background agents, and the exit of the agent process.

use super::{OpenTurn, ProcessPhase, Scope, SessionEvent, SessionState, last_lines};
use crate::agent_event::{NoteLevel, TurnEnd, TurnOutcome};
use crate::session_log::{EntryKind, NoteCode};

impl SessionState {
    pub(super) fn turn_ended(&mut self, end: TurnEnd) {
        self.reset_stream();
        self.retry = None;
        let cancelled = self.turn.take().is_some_and(|turn| turn.cancelled);
        // The messages that started this turn are settled with it, echoed or not.
        self.unacked.retain(|message| !message.started_turn);
        if let Some(id) = end.agent_session_id
            && self.agent_session_id.as_deref() != Some(&id)
        {
            self.agent_session_id = Some(id.clone());
            self.outbox.push(SessionEvent::AgentSession { id });
        }
        if let Some(cost) = end.process_cost_usd {
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
                NoteCode::new("denied", &[&denied]),
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
        self.turn = None;
        self.unacked.clear();
        let how = match (code, signal) {
            (_, Some(signal)) => format!("killed by signal {signal}"),
            (Some(code), None) => format!("exit code {code}"),
            (None, None) => "unknown exit".to_owned(),
        };
        let tail = last_lines(stderr_tail, 3);
        if mid_turn {
            let detail = if !requested && !tail.is_empty() {
                format!(": {tail}")
            } else {
                String::new()
            };
            let note = format!("the agent process ended mid-turn ({how}){detail}");
            self.coded_note(
                Scope::Main,
                NoteLevel::Warning,
                NoteCode::new("ended_mid_turn", &[&how, &detail]),
                note.clone(),
            );
            self.last_outcome = Some(TurnOutcome::Interrupted);
            self.exit_note = (!requested).then_some(note);
        } else if !requested && self.last_outcome.is_none() {
            let detail = if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            };
            let message = format!("the agent exited before its first turn ({how}){detail}");
            self.coded_note(
                Scope::Main,
                NoteLevel::Error,
                NoteCode::new("exited_before_first_turn", &[&how, &detail]),
                message.clone(),
            );
            self.last_outcome = Some(TurnOutcome::Failed { message });
        } else if !requested && code != Some(0) {
            self.coded_note(
                Scope::Main,
                NoteLevel::Info,
                NoteCode::new("process_ended", &[&how]),
                format!("the agent process ended ({how})"),
            );
        }
    }
}
