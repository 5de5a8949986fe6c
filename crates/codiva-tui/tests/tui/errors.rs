//! Errors that say what to do: a session that needs a login names the credential in use and
//! the fix, and the header counts it among the sessions waiting for the user.

use codiva_protocol::agent::{Account, AgentInfo};
use codiva_protocol::lang::Lang;
use codiva_protocol::session::SessionEvent;
use codiva_tui::app::{App, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::KeyCode;

use crate::support::*;

/// [`busy_app`] with its needs-login session open; the agent's handshake reported `account`.
fn login_app(account: Account) -> App {
    let mut app = busy_app();
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail("login".into()));
    event(
        &mut app,
        "login",
        SessionEvent::Connected {
            agent: AgentInfo {
                account: Some(account),
                ..AgentInfo::default()
            },
        },
    );
    app
}

fn screen(app: &mut App) -> String {
    format!("{:?}", draw(app, 120, 40).backend())
}

#[test]
fn needs_login_names_the_credential_and_the_fix() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = login_app(Account {
                api_key_source: Some("ANTHROPIC_API_KEY".into()),
                ..Account::default()
            });
            snapshot_at_both_sizes!(&mut app, &format!("needs_login_api_key{suffix}"));
        });
    }
}

#[test]
fn needs_login_with_a_token_or_nothing() {
    let mut app = login_app(Account {
        api_key_source: Some("none".into()),
        token_source: Some("CLAUDE_CODE_OAUTH_TOKEN".into()),
        ..Account::default()
    });
    let text = screen(&mut app);
    assert!(
        text.contains("login token from CLAUDE_CODE_OAUTH_TOKEN"),
        "{text}"
    );
    // Regression: the hint sent the user to fix a variable the agent never sees again (it takes
    // the daemon's environment): it names /login and the daemon's restart.
    assert!(text.contains("/login"), "{text}");
    assert!(text.contains("/shutdown"), "{text}");
    let mut app = login_app(Account::default());
    let text = screen(&mut app);
    assert!(text.contains("no credential"), "{text}");
    assert!(text.contains("/login"), "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY"));
    assert!(text.contains("/shutdown"), "{text}");
}

#[test]
fn the_header_counts_a_needed_login_as_waiting() {
    // busy_app: a permission, a question and a needed login.
    let mut app = busy_app();
    assert!(screen(&mut app).contains("● 3 waiting"));
}
