//! Plan usage and generated titles end to end in the terminal UI. Plan usage: the real Claude
//! Code logged in by `CLAUDE_CODE_OAUTH_TOKEN` (no API key) against the mock answering
//! `anthropic-ratelimit-unified-*` headers: the gauges appear and follow each turn's reading,
//! a usage limit (HTTP 429) shows its reset time and the session takes the next message; with
//! an API key no gauge shows. Titles: the agent's one-shot names Japanese and English sessions.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codiva_testkit::{Match, Reply, Rule, Script, UsageWindow, ratelimit_headers};

use crate::tui::{Mode, start_custom};

const WAIT: Duration = Duration::from_secs(60);

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn windows(five: f64, status: &'static str, seven: f64, reset: u64) -> Vec<UsageWindow> {
    vec![
        UsageWindow {
            name: "5h",
            utilization: five,
            reset,
            status,
            surpassed_threshold: (status == "allowed_warning").then_some(0.9),
        },
        UsageWindow {
            name: "7d",
            utilization: seven,
            reset: reset + 4 * 86400,
            status: "allowed",
            surpassed_threshold: None,
        },
    ]
}

fn script(reset: u64) -> impl FnOnce(&Path) -> Script {
    move |_: &Path| {
        let rule = |word: &str, reply: Reply, headers: Vec<UsageWindow>| {
            Rule::new(Match::LastUserContains(word.to_owned()), reply)
                .headers(ratelimit_headers(&headers))
        };
        Script::new()
            .rule(rule(
                "ONE",
                Reply::text("first turn done"),
                windows(0.42, "allowed", 0.1, reset),
            ))
            .rule(rule(
                "TWO",
                Reply::text("second turn done"),
                windows(0.91, "allowed_warning", 0.4, reset),
            ))
            .rule(rule(
                "THREE",
                Reply::error(429, "rate_limit_error", "usage limit reached"),
                windows(1.0, "rejected", 0.5, reset),
            ))
            .rule(rule(
                "FOUR",
                Reply::text("fourth turn done"),
                windows(0.05, "allowed", 0.5, reset),
            ))
    }
}

fn header(screen: &str) -> String {
    screen.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn a_subscription_logins_usage_shows_in_the_header() {
    let reset = now() + 2 * 3600 + 30 * 60;
    let mut ui = start_custom(
        script(reset),
        Mode::Daemon,
        &[
            ("ANTHROPIC_API_KEY", None),
            ("CLAUDE_CODE_OAUTH_TOKEN", Some("sk-ant-oat01-codiva-test")),
        ],
        None,
    );
    ui.pty.type_line("ONE: look at the parser");
    ui.pty.wait_for("the first reading", WAIT, |s| {
        header(s).contains("5h") && header(s).contains("42%")
    });
    ui.pty.wait_for_text("Completed", WAIT);
    // Into the session, then the next turns.
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("first turn done", WAIT);
    ui.pty.type_line("TWO: and the lexer");
    ui.pty.wait_for_text("second turn done", WAIT);
    let screen = ui
        .pty
        .wait_for("the second reading", WAIT, |s| header(s).contains("91%"));
    assert!(header(&screen).contains("7d"), "{screen}");

    // The usage limit: refused, with its reset time; the session stays usable.
    ui.pty.type_line("THREE: and the printer");
    let screen = ui.pty.wait_for("the refusal", WAIT, |s| {
        header(s).contains("rate limited · resets")
    });
    assert!(header(&screen).contains("100%"), "{screen}");
    ui.pty.type_line("FOUR: carry on");
    ui.pty.wait_for_text("fourth turn done", WAIT);
    let screen = ui.pty.wait_for("the reading after the limit", WAIT, |s| {
        header(s).contains(" 5%") && !header(s).contains("rate limited")
    });
    assert!(header(&screen).contains("50%"), "{screen}");
    // Every request carried the login's token, none an API key.
    for request in ui.mock.message_requests() {
        assert!(request.header("x-api-key").is_none(), "{request:?}");
        assert!(
            request
                .header("authorization")
                .is_some_and(|value| value.starts_with("Bearer ")),
            "{request:?}"
        );
    }
    ui.quit();
}

#[test]
fn an_api_key_login_shows_no_gauge() {
    let reset = now() + 3600;
    let mut ui = start_custom(script(reset), Mode::Daemon, &[], None);
    ui.pty.type_line("ONE: look at the parser");
    let screen = ui.pty.wait_for_text("Completed", WAIT);
    // The same headers reached the CLI, which reports no usage for an API key.
    assert!(
        ui.mock.message_requests()[0].header("x-api-key").is_some(),
        "the sandbox logs in with an API key"
    );
    let top = header(&screen);
    // (The header's `CPU n%` is the agents' resource use, not a gauge.)
    assert!(
        !top.contains("5h") && !top.contains("7d") && !top.contains("resets"),
        "{screen}"
    );
    ui.quit();
}

/// Logged in with a credential file (`claude /login`): the agent's account answer names the
/// plan, and the header shows it with the gauges.
#[test]
fn the_plan_name_comes_from_the_agents_account() {
    let reset = now() + 3600;
    let mut ui = start_custom(
        script(reset),
        Mode::Daemon,
        &[("ANTHROPIC_API_KEY", None)],
        None,
    );
    let expires_ms = (now() + 86400) * 1000;
    let credentials = serde_json::json!({"claudeAiOauth": {
        "accessToken": "sk-ant-oat01-codiva-test", "refreshToken": "sk-ant-ort01-codiva-test",
        "expiresAt": expires_ms, "scopes": ["user:inference", "user:profile"],
        "subscriptionType": "max"}});
    let dir = ui.sandbox.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".credentials.json"), credentials.to_string()).unwrap();
    ui.pty.type_line("ONE: look at the parser");
    let screen = ui.pty.wait_for("the plan and the gauges", WAIT, |s| {
        header(s).contains("Claude Max") && header(s).contains("42%")
    });
    assert!(header(&screen).contains("5h"), "{screen}");
    ui.quit();
}

/// A session's title made by its agent (`titles = "agent"`) replaces the prompt's line in the
/// list, for a Japanese and an English instruction.
#[test]
fn generated_titles_show_in_the_list() {
    let title_rule = |word: &str, title: &str| {
        Rule::new(
            Match::All(vec![
                Match::ModelContains("haiku".into()),
                Match::FirstUserContains(word.into()),
            ]),
            Reply::text(title),
        )
    };
    let script = move |_: &Path| {
        Script::new()
            .rule(title_rule("ログイン", "ログイン後のループを修正"))
            .rule(title_rule("login", "Fix the login loop"))
            .always(Reply::text("Done."))
    };
    let mut ui = start_custom(
        script,
        Mode::Daemon,
        &[],
        Some("fetch_base = false\ntitles = \"agent\"\n"),
    );
    ui.pty
        .type_line("ログインの後でトップに戻され続けるのを直して");
    ui.pty.wait_for_text("ログイン後のループを修正", WAIT);
    ui.pty
        .type_line("after login we keep landing on the start page");
    let screen = ui.pty.wait_for_text("Fix the login loop", WAIT);
    assert!(screen.contains("ログイン後のループを修正"), "{screen}");
    // Both settled before quitting (`/exit` asks first while sessions work).
    ui.pty.wait_for("both sessions completed", WAIT, |s| {
        s.matches("Completed").count() >= 2
    });
    ui.quit();
}
