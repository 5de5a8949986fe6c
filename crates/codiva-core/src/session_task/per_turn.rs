//! The session task's side of agents that run each message in a process of its own
//! ([`crate::provider::Provider::process_per_turn`]): the message goes in the command line, the
//! process's input is closed at once, and its exit after the turn is the normal end (no
//! restart). With no input to fold a message into, a message sent while a turn runs stops that
//! turn first; an interrupt stops the process.

use codiva_protocol::UserInput;

use super::{Driver, sent_texts};
use crate::process::ExitInfo;
use crate::session_state::Input;

impl Driver {
    pub(super) async fn send_per_turn(&mut self, input: UserInput) {
        if self.live.is_some() {
            self.apply(Input::InterruptRequested);
            self.stop_process().await;
        }
        let resume = self
            .state
            .agent_session_id()
            .map(str::to_owned)
            .or_else(|| self.config.resume.clone());
        if !self.spawn_process(resume, Some(input.clone())).await {
            return;
        }
        if let Some(live) = self.live.as_mut()
            && let Some(mut stdin) = live.stdin.take()
        {
            stdin.close().await;
        }
        let (text, echo) = sent_texts(&input);
        self.apply(Input::UserSent { text, echo });
    }

    pub(super) async fn interrupt_per_turn(&mut self) {
        self.apply(Input::InterruptRequested);
        self.stop_process().await;
    }

    /// The process ended: after its turn that is the normal end; mid-turn (not asked for) it
    /// is reported as such. Nothing restarts: the next message starts the next process.
    pub(super) fn exited_per_turn(&mut self, info: ExitInfo, stderr: String) {
        let requested = self.stopping || !self.state.turn_open();
        self.live = None;
        self.interrupt_deadline = None;
        self.report_exit(info, stderr, requested);
    }
}
