//! The header's plan usage: gauges for the 5-hour and 7-day windows with their reset times,
//! the plan's name, the warning colour past the agent's threshold, a usage-limit refusal with
//! its reset time, and nothing at all while the agents reported nothing (an API-key login).
//! At 80×24 and 200×60, in English and Japanese.

use codiva_protocol::agent::{Account, AgentInfo};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::plan_usage::{PlanUsage, UsageLimit, UsageState, UsageWindow};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_tui::app::App;
use codiva_tui::i18n::with_lang;
use ratatui::style::Color;

use crate::support::{add, draw, event, info, session};

/// 2026-12-01 14:00:00 UTC.
const NOW: u64 = 1_796_133_600;

fn window(kind: &str, utilization: f64, resets_in: u64, state: UsageState) -> UsageWindow {
    UsageWindow {
        kind: kind.into(),
        utilization,
        resets_at: Some(NOW + resets_in),
        state,
    }
}

fn app() -> App {
    let mut app = App::new(info());
    add(
        &mut app,
        session(
            "fix-login",
            "Fix the login redirect loop",
            Status::Running,
            SessionPhase::Active,
            1,
        ),
    );
    app.set_wall_clock(NOW, 0);
    app
}

fn connect(app: &mut App, subscription: Option<&str>) {
    event(
        app,
        "fix-login",
        SessionEvent::Connected {
            agent: AgentInfo {
                account: Some(Account {
                    token_source: Some("CLAUDE_CODE_OAUTH_TOKEN".into()),
                    subscription: subscription.map(Into::into),
                    ..Account::default()
                }),
                ..AgentInfo::default()
            },
        },
    );
}

fn reading(app: &mut App, windows: Vec<UsageWindow>, limited: Option<UsageLimit>) {
    event(
        app,
        "fix-login",
        SessionEvent::PlanUsage {
            usage: PlanUsage { windows, limited },
        },
    );
}

fn header(app: &mut App, width: u16, height: u16) -> String {
    let terminal = draw(app, width, height);
    let buffer = terminal.backend().buffer();
    (0..width)
        .map(|x| buffer[(x, 0)].symbol().to_owned())
        .collect::<String>()
}

/// The colour of the first cell of `text` on the header line.
fn colour_of(app: &mut App, width: u16, text: &str) -> Option<Color> {
    let line = header(app, width, 24);
    let column = line.find(text)?;
    let x = u16::try_from(line[..column].chars().count()).ok()?;
    let terminal = draw(app, width, 24);
    terminal.backend().buffer()[(x, 0)].style().fg
}

fn screens(lang: Lang, suffix: &str) {
    with_lang(lang, || {
        let mut app = app();
        connect(&mut app, Some("Claude Max"));
        // Connected, no reading yet: no gauge, no plan.
        assert!(!header(&mut app, 200, 60).contains("Claude Max"));
        reading(
            &mut app,
            vec![
                window("five_hour", 0.42, 2 * 3600 + 45 * 60, UsageState::Allowed),
                window("seven_day", 0.1, 4 * 86400 + 3 * 3600, UsageState::Allowed),
            ],
            None,
        );
        insta::assert_snapshot!(
            format!("gauges{suffix}_80x24"),
            draw(&mut app, 80, 24).backend()
        );
        insta::assert_snapshot!(
            format!("gauges{suffix}_200x60"),
            draw(&mut app, 200, 60).backend()
        );

        // Past the threshold (a reading without the 7-day window keeps its last value).
        reading(
            &mut app,
            vec![window("five_hour", 0.91, 3600, UsageState::Warning)],
            None,
        );
        insta::assert_snapshot!(
            format!("gauges_warning{suffix}_200x60"),
            draw(&mut app, 200, 60).backend()
        );

        // The usage limit: refused until 16:43.
        reading(
            &mut app,
            vec![window(
                "five_hour",
                1.0,
                2 * 3600 + 43 * 60,
                UsageState::Rejected,
            )],
            Some(UsageLimit {
                kind: Some("five_hour".into()),
                resets_at: Some(NOW + 2 * 3600 + 43 * 60),
            }),
        );
        insta::assert_snapshot!(
            format!("rate_limited{suffix}_80x24"),
            draw(&mut app, 80, 24).backend()
        );
        insta::assert_snapshot!(
            format!("rate_limited{suffix}_200x60"),
            draw(&mut app, 200, 60).backend()
        );
    });
}

#[test]
fn gauges_and_the_usage_limit_in_english() {
    screens(Lang::En, "");
}

#[test]
fn gauges_and_the_usage_limit_in_japanese() {
    screens(Lang::Ja, "_ja");
}

#[test]
fn gauges_say_what_the_agent_reported() {
    let mut app = app();
    connect(&mut app, Some("Claude Max"));
    reading(
        &mut app,
        vec![
            window("five_hour", 0.42, 2 * 3600 + 45 * 60, UsageState::Allowed),
            window("seven_day", 0.1, 4 * 86400 + 3 * 3600, UsageState::Allowed),
        ],
        None,
    );
    let wide = header(&mut app, 200, 60);
    assert!(wide.contains("Claude Max"), "{wide}");
    assert!(
        wide.contains("5h ████░░░░░░ 42% · resets in 2h 45m"),
        "{wide}"
    );
    assert!(
        wide.contains("7d █░░░░░░░░░ 10% · resets in 4d 3h"),
        "{wide}"
    );
    // Narrower: the same readings in less room, never past the edge.
    let narrow = header(&mut app, 80, 24);
    assert!(narrow.contains("42%"), "{narrow}");
    assert!(narrow.trim_end().chars().count() <= 80);
    assert_eq!(
        colour_of(&mut app, 200, "5h"),
        Some(Color::Reset),
        "plain below the threshold"
    );

    // Past the threshold: the warning colour; a refusal: the error colour and its time.
    reading(
        &mut app,
        vec![window("five_hour", 0.91, 3600, UsageState::Warning)],
        None,
    );
    assert_eq!(colour_of(&mut app, 200, "5h"), Some(Color::Yellow));
    assert!(
        header(&mut app, 200, 60).contains("10%"),
        "the 7-day value stays"
    );
    reading(
        &mut app,
        vec![window("five_hour", 1.0, 9780, UsageState::Rejected)],
        Some(UsageLimit {
            kind: Some("five_hour".into()),
            resets_at: Some(NOW + 9780),
        }),
    );
    assert_eq!(colour_of(&mut app, 200, "rate limited"), Some(Color::Red));
    let limited = header(&mut app, 200, 60);
    assert!(limited.contains("rate limited · resets 16:43"), "{limited}");
    // In a local time zone nine hours east: 01:43 the next day.
    app.set_wall_clock(NOW, 9 * 3600);
    assert!(header(&mut app, 200, 60).contains("resets 01:43 +1d"));
    // Once the reset time has passed, the refusal is no longer shown.
    app.set_wall_clock(NOW + 9781, 0);
    assert!(!header(&mut app, 200, 60).contains("rate limited"));
}

#[test]
fn nothing_shows_without_a_reading() {
    // An API-key login: the agent reports no usage and no plan.
    let mut app = app();
    connect(&mut app, None);
    let line = header(&mut app, 200, 60);
    assert!(!line.contains('%') && !line.contains("resets"), "{line}");
}
