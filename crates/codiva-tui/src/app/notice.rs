//! The one-line notices under the body, each tied to where it belongs and to when it stops
//! being true. A notice raised in a session shows only in that session's view (one raised in
//! the list, only in the list; a warning about codiva itself, everywhere). It goes when what it
//! describes changes — `interrupting…` once the session's status moves, `resuming…` likewise,
//! "type the text…" once the text is given or abandoned — or after a timeout for the others.

use std::time::Duration;

use codiva_protocol::session::Status;

use super::View;

/// How long an informational notice stays; errors stay longer.
pub const INFO_TIMEOUT: Duration = Duration::from_secs(10);
pub const ERROR_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a notice shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Everywhere,
    View(View),
}

/// When a notice goes (besides a newer one replacing it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Until {
    /// The loop's clock passes this.
    Deadline(Duration),
    /// Session `id` leaves status `from`.
    StatusLeaves { id: String, from: Status },
    /// The composer stops collecting text for a dialog.
    TextGiven,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
    pub place: Place,
    pub until: Until,
}

impl Notice {
    pub fn shows_in(&self, view: &View) -> bool {
        match &self.place {
            Place::Everywhere => true,
            Place::View(place) => place == view,
        }
    }

    /// Still true, given the clock, a session's status and whether text is being collected.
    pub fn holds(
        &self,
        now: Duration,
        status_of: impl Fn(&str) -> Option<Status>,
        collecting_text: bool,
    ) -> bool {
        match &self.until {
            Until::Deadline(deadline) => now < *deadline,
            Until::StatusLeaves { id, from } => status_of(id) == Some(*from),
            Until::TextGiven => collecting_text,
        }
    }
}
