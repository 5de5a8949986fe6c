//! Agents kept in budget: an agent process idle for [`SessionConfig::idle_stop`] — its turn
//! over, no prompt waiting, no message it has not taken up, no background agent running — is
//! stopped like any stop codiva asks for (its input closed, then signals), so its exit is
//! `requested`: no restart, no failure, and the status stays the agent's last one (completed,
//! interrupted, …). The next message starts a process that resumes the same conversation
//! (`spawn_resuming`), as after any stop. The live process's pid is published here too, for the
//! manager's resource sampling.
//!
//! [`SessionConfig::idle_stop`]: crate::session::SessionConfig::idle_stop

use std::sync::atomic::Ordering;

use codiva_protocol::UserInput;
use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::NoteCode;
use tokio::time::Instant;

use super::Driver;
use crate::agent_event::AgentEvent;
use crate::session::SessionCommand;
use crate::session_state::Input;

impl Driver {
    /// After each event: the idle clock starts when the process becomes idle and restarts on
    /// any activity (`active`: a line of the agent or a command for it; not the clock's own
    /// tick, nor a read of the session's state).
    pub(super) fn update_idle(&mut self, active: bool) {
        self.publish_pid();
        let after = self.config.idle_stop.filter(|after| !after.is_zero());
        let Some(after) = after else {
            self.idle_deadline = None;
            return;
        };
        if !self.is_idle() {
            self.idle_deadline = None;
        } else if active || self.idle_deadline.is_none() {
            self.idle_deadline = Some(Instant::now() + after);
        }
    }

    /// The process runs and has nothing to do until the user writes.
    fn is_idle(&self) -> bool {
        let running = self.live.as_ref().is_some_and(|live| live.stdin.is_some());
        running
            && !self.stopping
            && !self.config.provider.process_per_turn()
            && self.state.status().is_settled()
            && !self.state.turn_open()
            && self.state.pending_prompts() == 0
            && self.state.running_subagents() == 0
    }

    /// The idle time is up: the process is stopped (asked for: not a crash, no restart).
    pub(super) async fn idle_stop(&mut self) {
        self.idle_deadline = None;
        if !self.is_idle() {
            return;
        }
        let seconds = self
            .config
            .idle_stop
            .map_or(0, |after| after.as_secs())
            .to_string();
        self.apply(Input::Agent(AgentEvent::Note {
            level: NoteLevel::Info,
            text: format!(
                "the agent was idle for {seconds} s: its process was stopped; the next message resumes the conversation"
            ),
            code: Some(NoteCode::new(codiva_protocol::log::NoteName::IdleStopped, &[&seconds])),
        }));
        self.stop_process().await;
    }

    fn publish_pid(&self) {
        if let Some(cell) = &self.config.agent_pid {
            let pid = self.live.as_ref().map_or(0, |live| live.control.pid());
            cell.store(pid, Ordering::Relaxed);
        }
    }

    /// The task ends: no process is left to sample.
    pub(super) fn unpublish_pid(&self) {
        if let Some(cell) = &self.config.agent_pid {
            cell.store(0, Ordering::Relaxed);
        }
    }
}

/// The note that gives the user back a message the manager held for an agent slot and did not
/// send (`SessionCommand::NotSent`): its text in full, an agent command as `/name args`.
pub(super) fn not_sent_note(input: &UserInput) -> AgentEvent {
    let mut text = match &input.command {
        Some(command) if input.text.is_empty() => format!("/{command}"),
        Some(command) => format!("/{command} {}", input.text),
        None => input.text.clone(),
    };
    if !input.images.is_empty() {
        text.push_str(&format!(" [{} images]", input.images.len()));
    }
    AgentEvent::Note {
        level: NoteLevel::Warning,
        text: format!("not sent (the session left the queue before an agent slot freed): {text}"),
        code: Some(NoteCode::new(
            codiva_protocol::log::NoteName::NotSent,
            &[&text],
        )),
    }
}

/// Whether `command` counts as activity for the idle clock (reading the state does not).
pub(super) fn uses_agent(command: &SessionCommand) -> bool {
    !matches!(
        command,
        SessionCommand::Snapshot(_)
            | SessionCommand::SnapshotCounted(_)
            | SessionCommand::ReadLog { .. }
            | SessionCommand::NotSent(_)
            | SessionCommand::Note { .. }
    )
}

pub(super) async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
