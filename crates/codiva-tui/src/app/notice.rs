//! The one-line notices under the body, each tied to where it belongs and to when it stops
//! being true. A notice raised in a session shows only in that session's view (one raised in
//! the list, only in the list; one raised in a view over the body — `/config`, `/login`, a
//! whole message, a picker — only while that view is open, and it goes when the view closes;
//! a warning about codiva itself, everywhere). It goes when what it
//! describes changes — `interrupting…` once the session's status moves, `resuming…` likewise,
//! "type the text…" once the text is given or abandoned — or after a timeout for the others.

use std::time::Duration;

use codiva_protocol::session::Status;

use super::View;
use super::overlay::OverlayKind;
use crate::i18n::{AppText, tf};

/// How long an informational notice stays; errors stay longer.
pub const INFO_TIMEOUT: Duration = Duration::from_secs(10);
pub const ERROR_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a notice shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Everywhere,
    /// A view, and the view over its body that was open (`None`: the body itself).
    View(View, Option<OverlayKind>),
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
    pub fn shows_in(&self, view: &View, overlay: Option<OverlayKind>) -> bool {
        match &self.place {
            Place::Everywhere => true,
            Place::View(place, over) => place == view && *over == overlay,
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

impl super::App {
    pub(super) fn set_notice(&mut self, text: impl Into<String>, error: bool) {
        let timeout = if error { ERROR_TIMEOUT } else { INFO_TIMEOUT };
        self.notice_until(text, error, Until::Deadline(self.now + timeout));
    }

    /// A notice for the view on screen, gone when `until` says.
    pub(super) fn notice_until(&mut self, text: impl Into<String>, error: bool, until: Until) {
        self.notice = Some(Notice {
            text: text.into(),
            error,
            place: Place::View(self.view.clone(), self.overlay_kind()),
            until,
        });
    }

    /// `text` until session `id`'s status moves from what it is now (an interrupt, a resume
    /// asked for); nothing for a session that is not listed.
    pub(super) fn notice_until_status_moves(&mut self, text: impl Into<String>, id: &str) {
        let Some(from) = self.sessions.iter().find(|s| s.id == id).map(|s| s.status) else {
            return;
        };
        let until = Until::StatusLeaves {
            id: id.to_owned(),
            from,
        };
        self.notice_until(text, false, until);
    }

    /// A notice about codiva itself (a warning, an internal error): in every view.
    pub(super) fn notice_everywhere(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: true,
            place: Place::Everywhere,
            until: Until::Deadline(self.now + ERROR_TIMEOUT),
        });
    }

    /// The notice of the view on screen, if it still holds: `(text, error)`.
    pub fn notice(&self) -> Option<(&str, bool)> {
        self.notice
            .as_ref()
            .filter(|n| n.shows_in(&self.view, self.overlay_kind()))
            .map(|n| (n.text.as_str(), n.error))
    }

    /// Drops the notice of the view on screen (what it said is no longer true there).
    pub(super) fn clear_notice_here(&mut self) {
        if self.notice().is_some() {
            self.notice = None;
        }
    }

    /// Drops the notice once what it describes changed. Returns whether it went.
    pub(super) fn expire_notice(&mut self) -> bool {
        let holds = self.notice.as_ref().is_none_or(|n| {
            n.holds(
                self.now,
                |id| self.sessions.iter().find(|s| s.id == id).map(|s| s.status),
                matches!(
                    self.collecting,
                    Some(super::composer_mode::Collecting::Dialog { .. })
                ),
            )
        });
        // One made in a view over the body goes when that view closes (or another opens).
        let overlay = self.overlay_kind();
        let left = self.notice.as_ref().is_some_and(
            |n| matches!(&n.place, Place::View(_, Some(kind)) if Some(*kind) != overlay),
        );
        if !holds || left {
            self.notice = None;
        }
        let next = self.notice.is_none() && self.next_startup_warning();
        !holds || left || next
    }

    /// The next start-up warning as the notice, everywhere (`warning 2/3: …` when there are
    /// several); `false` when all were shown.
    pub(super) fn next_startup_warning(&mut self) -> bool {
        let total = self.info.warnings.len();
        let Some(warning) = self.info.warnings.get(self.warnings_shown) else {
            return false;
        };
        self.warnings_shown += 1;
        let text = if total == 1 {
            tf(AppText::Warning, &[warning])
        } else {
            let (index, total) = (self.warnings_shown.to_string(), total.to_string());
            tf(AppText::WarningOf, &[warning, &index, &total])
        };
        self.notice_everywhere(text);
        true
    }
}
