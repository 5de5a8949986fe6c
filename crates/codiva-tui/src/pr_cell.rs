//! A session's pull requests at a glance: the list's PR cell and the session view's PR line,
//! with the glyphs codiva's users know — `⋯` checking, blank no pull request, `⋯ #12` number
//! known and state loading, `? #12` state unknown (the lookup failed), `✓` green, `●` checks
//! running, `✗` checks failed or conflicting, `⑂` merged, `⊘` closed, a dim number for a draft,
//! `+n` more pull requests, `✎2` unresolved review threads on the session's own open pull
//! request (their words: [`crate::i18n::PrText`]).

use codiva_protocol::github::{
    PrChecks, PrLookupFailure, PrMergeable, PrState, SessionPr, SessionPrs,
};
use ratatui::style::Style;
use ratatui::text::Span;

use crate::i18n::{PrText, t, tf};
use crate::theme;

/// The glyphs.
pub mod glyph {
    pub const CHECKING: &str = "⋯";
    pub const UNKNOWN: &str = "?";
    pub const GREEN: &str = "✓";
    pub const RUNNING: &str = "●";
    pub const FAILED: &str = "✗";
    pub const MERGED: &str = "⑂";
    pub const CLOSED: &str = "⊘";
    /// Unresolved review threads, before their count.
    pub const REVIEWS: &str = "✎";
}

/// How many review threads of `pr` are unresolved, when it is open and has any.
pub fn unresolved_reviews(pr: &SessionPr) -> Option<u64> {
    let view = pr.view.as_ref()?;
    if view.state != PrState::Open {
        return None;
    }
    view.unresolved_reviews.filter(|count| *count > 0)
}

/// One pull request's glyph and its style.
pub fn glyph_of(pr: &SessionPr, lookup_failed: bool) -> (&'static str, Style) {
    let Some(view) = &pr.view else {
        return if lookup_failed {
            (glyph::UNKNOWN, theme::warning())
        } else {
            (glyph::CHECKING, theme::dim())
        };
    };
    match view.state {
        PrState::Merged => (glyph::MERGED, theme::accent()),
        PrState::Closed => (glyph::CLOSED, theme::dim()),
        PrState::Open
            if view.checks == PrChecks::Failed || view.mergeable == PrMergeable::Conflicting =>
        {
            (glyph::FAILED, theme::error())
        }
        PrState::Open if view.checks == PrChecks::Pending => (glyph::RUNNING, theme::warning()),
        PrState::Open => (glyph::GREEN, theme::success()),
    }
}

/// The number's style: dim for a draft.
fn number_style(pr: &SessionPr) -> Style {
    if pr.view.as_ref().is_some_and(|view| view.draft) {
        theme::dim()
    } else {
        theme::text()
    }
}

/// The list's PR cell: `✓ #12`, `● #12 +2`, `✓ #12 ✎2` (two unresolved review threads), `⋯`
/// while checking; empty without a pull request.
pub fn cell(prs: &SessionPrs) -> Vec<Span<'static>> {
    let failed = prs.unavailable.is_some();
    let Some(first) = prs.prs.first() else {
        return if prs.watched && !prs.checked {
            let (glyph, style) = if failed {
                (glyph::UNKNOWN, theme::warning())
            } else {
                (glyph::CHECKING, theme::dim())
            };
            vec![Span::styled(glyph, style)]
        } else {
            Vec::new()
        };
    };
    let (glyph, style) = glyph_of(first, failed);
    let mut spans = vec![
        Span::styled(glyph, style),
        Span::styled(format!(" #{}", first.number), number_style(first)),
    ];
    if let Some(count) = unresolved_reviews(first) {
        spans.push(Span::styled(
            format!(" {}{count}", glyph::REVIEWS),
            theme::warning(),
        ));
    }
    if prs.prs.len() > 1 {
        spans.push(Span::styled(
            format!(" +{}", prs.prs.len() - 1),
            theme::dim(),
        ));
    }
    spans
}

/// The session view's PR line, if the session has (or looks for) a pull request: one pull
/// request with its state in words, several as a one-line summary (`3 pull requests: ✓ #12 ·
/// ● #13 · ⑂ #14`); a failed lookup says so, and what is shown is the last known.
pub fn line(prs: &SessionPrs) -> Option<Vec<Span<'static>>> {
    let failed = prs.unavailable.is_some();
    let mut spans: Vec<Span<'static>> = vec![Span::styled("  ", theme::dim())];
    // The URL goes last: on a narrow terminal the state stays in view.
    let mut url = None;
    match prs.prs.as_slice() {
        [] if prs.watched && !prs.checked => {
            spans.push(Span::styled(
                format!("{} {}", glyph::CHECKING, t(PrText::Checking)),
                theme::dim(),
            ));
        }
        [] => return None,
        [pr] => {
            let (glyph, style) = glyph_of(pr, failed);
            spans.push(Span::styled(format!("{glyph} "), style));
            spans.push(Span::styled(format!("#{}", pr.number), number_style(pr)));
            spans.push(Span::styled(
                format!(" · {}", state_words(pr, failed)),
                theme::dim(),
            ));
            if let Some(count) = unresolved_reviews(pr) {
                spans.push(Span::styled(
                    format!(" · {}", reviews_words(count)),
                    theme::warning(),
                ));
            }
            url = Some(crate::dialog::sanitize(&pr.url).into_owned());
        }
        many => {
            spans.push(Span::styled(
                tf(PrText::Several, &[&many.len().to_string()]),
                theme::dim(),
            ));
            for (index, pr) in many.iter().enumerate() {
                let (glyph, style) = glyph_of(pr, failed);
                let sep = if index == 0 { " " } else { " · " };
                spans.push(Span::styled(sep, theme::dim()));
                spans.push(Span::styled(format!("{glyph} "), style));
                spans.push(Span::styled(format!("#{}", pr.number), number_style(pr)));
            }
            if let Some(count) = many.first().and_then(unresolved_reviews) {
                spans.push(Span::styled(
                    format!(" · {}", reviews_words(count)),
                    theme::warning(),
                ));
            }
        }
    }
    if let Some(unavailable) = &prs.unavailable {
        let reason = match unavailable.reason {
            PrLookupFailure::RateLimited => t(PrText::RateLimited),
            PrLookupFailure::NotAuthenticated => t(PrText::NotAuthenticated),
            PrLookupFailure::NotInstalled => t(PrText::NotInstalled),
            PrLookupFailure::Network | PrLookupFailure::Timeout => t(PrText::Network),
            PrLookupFailure::Other | PrLookupFailure::Unknown => t(PrText::Failed),
        };
        spans.push(Span::styled(
            format!(" · {}", tf(PrText::LookupFailed, &[reason])),
            theme::warning(),
        ));
    }
    if let Some(url) = url {
        spans.push(Span::styled(format!(" · {url}"), theme::link()));
    }
    Some(spans)
}

/// `2 unresolved review threads · /address-review`.
fn reviews_words(count: u64) -> String {
    tf(PrText::Reviews, &[&count.to_string()])
}

/// One pull request's state in words: `draft · checks running`, `merged`, …
fn state_words(pr: &SessionPr, failed: bool) -> String {
    let Some(view) = &pr.view else {
        return t(if failed {
            PrText::Unknown
        } else {
            PrText::Loading
        })
        .to_owned();
    };
    let mut words: Vec<&str> = Vec::new();
    match view.state {
        PrState::Merged => return t(PrText::Merged).to_owned(),
        PrState::Closed => return t(PrText::Closed).to_owned(),
        PrState::Open => words.push(t(if view.draft {
            PrText::Draft
        } else {
            PrText::Open
        })),
    }
    match view.checks {
        PrChecks::Pending => words.push(t(PrText::ChecksRunning)),
        PrChecks::Failed => words.push(t(PrText::ChecksFailed)),
        PrChecks::Passed => words.push(t(PrText::ChecksPassed)),
        PrChecks::None => {}
    }
    if view.mergeable == PrMergeable::Conflicting {
        words.push(t(PrText::Conflicting));
    }
    words.join(" · ")
}

/// What `session/pr` did, in one line.
pub fn opened(result: &codiva_protocol::params::PrResult) -> String {
    let key = if result.created {
        PrText::Opened
    } else {
        PrText::Pushed
    };
    let url = crate::dialog::sanitize(&result.pr.url);
    tf(key, &[&result.pr.number.to_string(), &url])
}

/// The pull request `p` and a click open: the session's first (its branch's own).
pub fn primary_url(prs: &SessionPrs) -> Option<&str> {
    prs.prs.first().map(|pr| pr.url.as_str())
}
