//! Claude Code's `rate_limit_event` (only with a subscription login: docs/protocol/claude.md, "Plan usage") as
//! a provider-neutral [`PlanUsage`] reading.

use codiva_protocol::plan_usage::{PlanUsage, UsageLimit, UsageState, UsageWindow};
use codiva_wire::claude::RateLimitInfo;

/// One reading. Each of `unifiedWindows` is a window; without them, the representative window
/// alone when its utilization is given (else none: the last known values stand). A window is
/// in warning when its own status says so, or when it is the representative window and the
/// reading's status does (the CLI warns early on the representative window).
pub fn reading(info: &RateLimitInfo) -> PlanUsage {
    let state = |status: Option<&str>| match status {
        Some("rejected") => UsageState::Rejected,
        Some("allowed_warning") => UsageState::Warning,
        _ => UsageState::Allowed,
    };
    let overall = state(info.status.as_deref());
    let representative = info.rate_limit_type.as_deref();
    let mut windows: Vec<UsageWindow> = info
        .unified_windows
        .iter()
        .filter_map(|(kind, window)| {
            let own = state(window.status.as_deref());
            let state = if Some(kind.as_str()) == representative && overall > own {
                overall
            } else {
                own
            };
            Some(UsageWindow {
                kind: kind.clone(),
                utilization: window.utilization?.clamp(0.0, 1.0),
                resets_at: window.resets_at,
                state,
            })
        })
        .collect();
    if windows.is_empty()
        && let (Some(kind), Some(utilization)) = (representative, info.utilization)
    {
        windows.push(UsageWindow {
            kind: kind.to_owned(),
            utilization: utilization.clamp(0.0, 1.0),
            resets_at: info.resets_at,
            state: overall,
        });
    }
    PlanUsage {
        windows,
        limited: (overall == UsageState::Rejected).then(|| UsageLimit {
            kind: representative.map(str::to_owned),
            resets_at: info.resets_at,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codiva_wire::claude::{Inbound, parse_line};

    fn info(line: &str) -> RateLimitInfo {
        match parse_line(line.as_bytes()).unwrap() {
            Inbound::RateLimit(event) => event.rate_limit_info,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_warning_and_a_refusal_read_as_the_agent_says() {
        // The shape Claude Code 2.1.332 sends with a subscription login.
        let warning = reading(&info(
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1796143389,"rateLimitType":"five_hour","utilization":0.91,"surpassedThreshold":0.9,"isUsingOverage":false,"unifiedWindows":{"five_hour":{"utilization":0.91,"resetsAt":1796143389,"status":"allowed_warning","surpassedThreshold":0.9},"seven_day":{"utilization":0.4,"resetsAt":1796434389,"status":"allowed"}},"overageEnabled":false},"uuid":"u","session_id":"s"}"#,
        ));
        assert_eq!(warning.windows.len(), 2);
        assert_eq!(warning.windows[0].kind, "five_hour");
        assert_eq!(warning.windows[0].state, UsageState::Warning);
        assert_eq!(warning.windows[1].state, UsageState::Allowed);
        assert_eq!(warning.windows[1].resets_at, Some(1796434389));
        assert_eq!(warning.limited, None);

        let refused = reading(&info(
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796171880,"rateLimitType":"five_hour","isUsingOverage":false}}"#,
        ));
        assert!(
            refused.windows.is_empty(),
            "no windows: the last known stand"
        );
        assert_eq!(
            refused.limited,
            Some(UsageLimit {
                kind: Some("five_hour".into()),
                resets_at: Some(1796171880)
            })
        );
    }
}
