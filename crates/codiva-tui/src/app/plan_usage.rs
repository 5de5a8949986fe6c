//! The header's plan usage: the login's usage windows as gauges (`5h ████░░ 42% · resets in
//! 2h 45m`), the plan's name, and a usage-limit refusal (`rate limited · resets 16:43`), all
//! from what the agents reported (`SessionEvent::PlanUsage`, the account in `Connected`).
//! Nothing shows while nothing is known (an API-key login reports no usage). The gauges take
//! what the header line leaves: narrower bars, then no reset times, then fewer windows.

use std::collections::BTreeMap;

use codiva_protocol::plan_usage::{UsageLimit, UsageState, UsageWindow};
use codiva_protocol::session::SessionEvent;
use ratatui::style::Style;
use ratatui::text::Span;

use crate::i18n::{ViewText, tf};
use crate::theme;
use crate::width::str_width;

/// What the agents last reported of the login's usage.
#[derive(Debug, Clone, Default)]
pub struct PlanView {
    /// The plan's name as the agent's account answer gives it (`Claude Max`).
    plan: Option<String>,
    /// The last known value of each window, by the agent's name for it.
    windows: BTreeMap<String, UsageWindow>,
    limited: Option<UsageLimit>,
    /// The wall clock (Unix seconds) and the local offset from UTC, set by the loop.
    now_s: u64,
    utc_offset_s: i64,
}

impl PlanView {
    /// Takes what a session event says of the login.
    pub fn observe(&mut self, event: &SessionEvent) {
        match event {
            SessionEvent::PlanUsage { usage } => {
                for window in &usage.windows {
                    self.windows.insert(window.kind.clone(), window.clone());
                }
                self.limited = usage.limited.clone();
            }
            SessionEvent::Connected { agent } => {
                if let Some(plan) = agent
                    .account
                    .as_ref()
                    .and_then(|account| account.subscription.as_deref())
                    .and_then(codiva_protocol::text::sanitize_title)
                {
                    self.plan = Some(plan);
                }
            }
            _ => {}
        }
    }

    /// The wall clock; `true` when what the header shows of it changed (a minute passed while
    /// a reset time shows, or a refusal's reset time came).
    pub fn set_clock(&mut self, now_s: u64, utc_offset_s: i64) -> bool {
        let shown = !self.windows.is_empty() || self.limited.is_some();
        let changed = shown && now_s / 60 != self.now_s / 60;
        self.now_s = now_s;
        self.utc_offset_s = utc_offset_s;
        changed
    }

    /// The spans for at most `width` columns (nothing when nothing is known or nothing fits),
    /// each starting with its own gap.
    pub fn spans(&self, width: usize) -> Vec<Span<'static>> {
        let mut head: Vec<(String, Style)> = Vec::new();
        if let Some(limit) = self.limited.as_ref().filter(|l| self.still_limited(l)) {
            let at = limit
                .resets_at
                .map(|at| self.clock(at))
                .unwrap_or_else(|| "?".to_owned());
            head.push((
                format!("  {}", tf(ViewText::UsageRateLimited, &[&at])),
                theme::error(),
            ));
        }
        let windows: Vec<&UsageWindow> = self.ordered();
        // Richest first: wide bars with reset times, …, then fewer windows (the plan's name
        // only with a gauge).
        for count in (0..=windows.len()).rev() {
            for level in [Level::Wide, Level::Bar, Level::NoReset, Level::Percent] {
                let mut parts = head.clone();
                if let Some(plan) = self.plan.as_ref().filter(|_| count > 0) {
                    parts.push((format!("  {plan}"), theme::dim()));
                }
                for window in &windows[..count] {
                    parts.push(self.gauge(window, level));
                }
                let used: usize = parts.iter().map(|(text, _)| str_width(text)).sum();
                if used <= width && !parts.is_empty() {
                    return parts
                        .into_iter()
                        .map(|(text, style)| Span::styled(text, style))
                        .collect();
                }
                if count == 0 {
                    break;
                }
            }
        }
        Vec::new()
    }

    fn still_limited(&self, limit: &UsageLimit) -> bool {
        limit.resets_at.is_none_or(|at| at > self.now_s)
    }

    /// The 5-hour window first, then the 7-day one, then any other.
    fn ordered(&self) -> Vec<&UsageWindow> {
        let rank = |kind: &str| match kind {
            "five_hour" => 0,
            "seven_day" => 1,
            _ => 2,
        };
        let mut windows: Vec<&UsageWindow> = self.windows.values().collect();
        windows.sort_by_key(|w| rank(&w.kind));
        windows
    }

    fn gauge(&self, window: &UsageWindow, level: Level) -> (String, Style) {
        let label = match window.kind.as_str() {
            "five_hour" => "5h".to_owned(),
            "seven_day" => "7d".to_owned(),
            other => other.replace('_', " "),
        };
        let percent = (window.utilization * 100.0).round().clamp(0.0, 100.0) as u64;
        let cells = match level {
            Level::Wide => 10,
            Level::Bar | Level::NoReset => 6,
            Level::Percent => 0,
        };
        let mut text = format!("  {label} ");
        if cells > 0 {
            let filled =
                ((window.utilization.clamp(0.0, 1.0) * cells as f64).round() as usize).min(cells);
            text.push_str(&"█".repeat(filled));
            text.push_str(&"░".repeat(cells - filled));
            text.push(' ');
        }
        text.push_str(&format!("{percent}%"));
        if matches!(level, Level::Wide | Level::Bar)
            && let Some(at) = window.resets_at.filter(|at| *at > self.now_s)
        {
            text.push_str(" · ");
            text.push_str(&tf(
                ViewText::UsageResetsIn,
                &[&self.remaining(at - self.now_s)],
            ));
        }
        let style = match window.state {
            UsageState::Allowed => theme::dim(),
            UsageState::Warning => theme::warning(),
            UsageState::Rejected => theme::error(),
        };
        (text, style)
    }

    /// `2h 45m`, `3d 4h`, `12m`.
    fn remaining(&self, seconds: u64) -> String {
        let minutes = seconds.div_ceil(60);
        let (days, hours, mins) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
        if days > 0 {
            tf(
                ViewText::DurationDaysHours,
                &[&days.to_string(), &hours.to_string()],
            )
        } else if hours > 0 {
            tf(
                ViewText::DurationHoursMinutes,
                &[&hours.to_string(), &mins.to_string()],
            )
        } else {
            tf(ViewText::DurationMinutes, &[&mins.to_string()])
        }
    }

    /// `16:43` in local time (with the day when it is not today: `16:43 +1d`).
    fn clock(&self, at: u64) -> String {
        let local = |s: u64| (s as i64 + self.utc_offset_s).max(0) as u64;
        let (at, now) = (local(at), local(self.now_s));
        let time = format!("{:02}:{:02}", at / 3600 % 24, at / 60 % 60);
        match (at / 86400).saturating_sub(now / 86400) {
            0 => time,
            days => format!("{time} +{days}d"),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Level {
    Wide,
    Bar,
    NoReset,
    Percent,
}
