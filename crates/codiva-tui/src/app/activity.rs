//! What makes the UI visibly alive: a spinner on every session that is working and an elapsed
//! time that ticks while it works. The manager reports a session's active time only when the
//! session changes, so the time shown adds how long ago that report came (by the loop's clock,
//! handed in; nothing here reads the time, so every frame is a snapshot away).

use std::collections::HashMap;
use std::time::Duration;

use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::session::Status;

use crate::theme::glyph;

/// The clock and spinner frame of one frame, with when each session was last reported.
#[derive(Debug, Clone, Copy)]
pub struct Activity<'a> {
    /// The loop's clock (time since it started).
    pub now: Duration,
    /// When each session's info last arrived, by the same clock.
    pub seen_at: &'a HashMap<String, Duration>,
    /// The spinner frame.
    pub frame: u64,
}

impl Activity<'_> {
    /// Active time of `session` now: as reported, plus the time since, while it is active (the
    /// core counts preparing and running, not waiting for the user or idle).
    pub fn elapsed_ms(&self, session: &SessionInfo) -> u64 {
        if !counts_time(session) {
            return session.active_ms;
        }
        let since = self
            .seen_at
            .get(&session.id)
            .map_or(Duration::ZERO, |seen| self.now.saturating_sub(*seen));
        session
            .active_ms
            .saturating_add(u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
    }

    /// The spinner glyph of a working session, `None` for one that waits or is done.
    pub fn spinner(&self, session: &SessionInfo) -> Option<&'static str> {
        is_working(session).then(|| {
            let index = usize::try_from(self.frame % glyph::SPINNER.len() as u64).unwrap_or(0);
            glyph::SPINNER[index]
        })
    }
}

/// Time counts (as in the core's `track_activity`).
fn counts_time(session: &SessionInfo) -> bool {
    match session.phase {
        SessionPhase::Preparing => true,
        SessionPhase::Active => session.status == Status::Running,
        _ => false,
    }
}

/// Something happens without the user: being prepared, starting or running.
pub fn is_working(session: &SessionInfo) -> bool {
    match session.phase {
        SessionPhase::Preparing => true,
        SessionPhase::Active => matches!(session.status, Status::Starting | Status::Running),
        _ => false,
    }
}
