//! When frames are drawn: what is owed ([`Frames`]: something changed, something besides
//! streamed text changed, a frame for the spinner alone) and when it may be drawn
//! ([`StreamPace`]: streamed text alone is drawn at a slower pace, slower still while it comes
//! faster than anyone reads), and when the loop wakes without an event (see the module docs
//! of `run.rs`).

use std::time::Duration;

use codiva_protocol::manager::ManagerEvent;
use tokio::time::Instant;

use super::{
    ANIMATION_INTERVAL, FAST_STREAM_FRAME_INTERVAL, FRAME_INTERVAL, STREAM_FALLBACK,
    STREAM_FRAME_INTERVAL,
};

/// A batch of streamed text that comes this much before the frame's interval is over is drawn
/// at once: the core hands batches over ~50 ms apart (~100 ms for text faster than anyone
/// reads), so one that comes a hair early would otherwise wait for the next one (a frame a
/// batch late).
const STREAM_SLACK: Duration = Duration::from_millis(10);
/// While a frame is owed, manager events wait for it (one wake-up per frame, not per
/// streamed line) unless the last frame found at least this many waiting: then they are taken
/// as they come, so a burst never overruns the event channel.
const BATCH_LIMIT: usize = 512;
/// The spinner waits this long after a frame drawn for anything else before it asks for a frame
/// of its own (longer than the gap between streamed text's frames).
const SPINNER_AFTER_CONTENT: Duration = Duration::from_millis(150);

/// When frames are owed and drawn (see the module docs).
pub(super) struct Frames {
    /// Something changed since the last frame.
    pub(super) dirty: bool,
    /// Something besides streamed text changed since the last frame.
    pub(super) urgent: bool,
    pub(super) last_frame: Instant,
    /// When the spinner last moved (it moves with the frames that are drawn anyway).
    pub(super) last_animation: Instant,
    /// The frame owed is for the spinner alone.
    pub(super) spinner_only: bool,
    /// When the last frame that was not for the spinner alone was drawn.
    pub(super) last_content_frame: Instant,
    /// Manager updates taken just before the last frame.
    pub(super) backlog: usize,
}

impl Frames {
    pub(super) fn new() -> Self {
        Frames {
            dirty: true,
            urgent: true,
            // As if a frame was drawn an interval ago: the first one is drawn at once.
            last_frame: Instant::now()
                .checked_sub(FRAME_INTERVAL)
                .unwrap_or_else(Instant::now),
            last_animation: Instant::now(),
            spinner_only: false,
            last_content_frame: Instant::now(),
            backlog: 0,
        }
    }

    /// When the owed frame may be drawn.
    pub(super) fn due(&self, pace: &StreamPace) -> Instant {
        frame_due(self.last_frame, self.urgent, pace)
    }

    /// When the loop wakes without an event: the owed frame's time (a frame owed for streamed
    /// text alone waits for the next batch, see the module docs), else the spinner's (see
    /// [`spinner_due`]), else never.
    pub(super) fn deadline(&self, animating: bool, pace: &StreamPace) -> Option<Instant> {
        if self.dirty {
            Some(if self.urgent {
                self.due(pace)
            } else {
                self.due(pace) + STREAM_FALLBACK
            })
        } else if animating {
            Some(spinner_due(self.last_animation, self.last_content_frame))
        } else {
            None
        }
    }

    /// Manager events are waited for one by one unless an urgent frame is owed; a backlog that
    /// reached [`BATCH_LIMIT`] is read on regardless.
    pub(super) fn takes_events(&self) -> bool {
        !self.dirty || !self.urgent || self.backlog >= BATCH_LIMIT
    }

    /// The loop's deadline passed with nothing owed: a frame for the spinner alone.
    pub(super) fn spinner_due(&mut self) {
        if !self.dirty {
            self.dirty = true;
            self.urgent = true;
            self.spinner_only = true;
        }
    }
}

/// When the spinner needs a frame of its own: [`ANIMATION_INTERVAL`] after it last moved, but
/// not while other frames keep coming (streamed text is drawn ~20 times a second, and the
/// spinner moves with those frames): a frame for the spinner between two of them would take
/// the next one's place and double the wake-ups (docs/performance.md, round 6).
fn spinner_due(last_animation: Instant, last_content_frame: Instant) -> Instant {
    (last_animation + ANIMATION_INTERVAL).max(last_content_frame + SPINNER_AFTER_CONTENT)
}

/// When the next frame may be drawn.
fn frame_due(last_frame: Instant, urgent: bool, pace: &StreamPace) -> Instant {
    if urgent {
        last_frame + FRAME_INTERVAL
    } else {
        last_frame + pace.interval() - STREAM_SLACK
    }
}

/// How often frames for streamed text alone are drawn: [`STREAM_FRAME_INTERVAL`], or
/// [`FAST_STREAM_FRAME_INTERVAL`] after a frame that brought half a screen of text or more.
#[derive(Debug, Default)]
pub(super) struct StreamPace {
    /// Bytes of streamed text taken since the last frame.
    since_frame: usize,
    fast: bool,
}

impl StreamPace {
    /// Counts a streamed event's text; whether `event` is streamed text.
    pub(super) fn took(&mut self, event: &ManagerEvent) -> bool {
        match event {
            ManagerEvent::Event {
                event: codiva_protocol::session::SessionEvent::Stream { text, .. },
                ..
            } => {
                self.since_frame += text.len();
                true
            }
            _ => false,
        }
    }

    /// A frame of `area` was drawn.
    pub(super) fn framed(&mut self, area: ratatui::layout::Rect) {
        let half_screen = usize::from(area.width) * usize::from(area.height) / 2;
        self.fast = self.since_frame >= half_screen.max(1);
        self.since_frame = 0;
    }

    fn interval(&self) -> Duration {
        if self.fast {
            FAST_STREAM_FRAME_INTERVAL
        } else {
            STREAM_FRAME_INTERVAL
        }
    }
}

/// Streamed text only (drawn at [`StreamPace::interval`]).
pub(super) fn is_stream(event: &ManagerEvent) -> bool {
    matches!(
        event,
        ManagerEvent::Event {
            event: codiva_protocol::session::SessionEvent::Stream { .. },
            ..
        }
    )
}

#[cfg(test)]
mod spinner_tests {
    use super::*;

    #[test]
    fn the_spinner_asks_for_no_frame_of_its_own_while_streamed_text_is_drawn() {
        let start = Instant::now();
        // Streamed text drawn every 52 ms (the core's batches); the spinner moves with those
        // frames whenever its interval is over.
        let mut last_animation = start;
        for n in 1..40u32 {
            let frame = start + Duration::from_millis(52) * n;
            let previous = start + Duration::from_millis(52) * (n - 1);
            assert!(
                spinner_due(last_animation, previous) > frame,
                "frame {n}: the spinner's own frame would come first"
            );
            if frame >= last_animation + ANIMATION_INTERVAL {
                last_animation = frame;
            }
        }
        // Text stops: the spinner goes on alone, every interval once the text's frames are over.
        let last_text = start + Duration::from_millis(52) * 39;
        let due = spinner_due(last_animation, last_text);
        assert_eq!(due, last_text + SPINNER_AFTER_CONTENT);
        assert_eq!(spinner_due(due, last_text), due + ANIMATION_INTERVAL);
    }
}

#[cfg(test)]
mod pace_tests {
    use super::*;
    use codiva_protocol::session::SessionEvent;
    use ratatui::layout::Rect;

    fn streamed(bytes: usize) -> ManagerEvent {
        ManagerEvent::Event {
            id: "s1".into(),
            event: SessionEvent::Stream {
                text: "x".repeat(bytes),
                reset: false,
            },
        }
    }

    #[test]
    fn text_faster_than_anyone_reads_is_drawn_at_half_the_rate() {
        let screen = Rect::new(0, 0, 120, 40);
        let mut pace = StreamPace::default();
        assert_eq!(pace.interval(), STREAM_FRAME_INTERVAL);
        // A model's pace: a line or two per frame.
        for _ in 0..20 {
            assert!(pace.took(&streamed(150)));
            pace.framed(screen);
            assert_eq!(pace.interval(), STREAM_FRAME_INTERVAL);
        }
        // Half a screen (2,400 cells) in one frame's worth of batches.
        for _ in 0..3 {
            pace.took(&streamed(800));
        }
        pace.framed(screen);
        assert_eq!(pace.interval(), FAST_STREAM_FRAME_INTERVAL);
        // It slows down again: the next frame is at the usual rate.
        pace.took(&streamed(300));
        pace.framed(screen);
        assert_eq!(pace.interval(), STREAM_FRAME_INTERVAL);
        // On a small terminal half a screen is less text.
        pace.took(&streamed(1_000));
        pace.framed(Rect::new(0, 0, 80, 24));
        assert_eq!(pace.interval(), FAST_STREAM_FRAME_INTERVAL);
        // Other events are not streamed text.
        assert!(!pace.took(&ManagerEvent::Warning {
            message: "w".into()
        }));
    }
}
