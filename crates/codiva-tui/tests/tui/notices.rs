//! Notices belong to the view they concern and go away when what they describe changes (or
//! after a timeout for transient ones).

use std::time::Duration;

use codiva_core::manager::SessionPhase;
use codiva_core::session_state::Status;
use codiva_tui::app::{App, Effect, UiEvent, View};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::*;

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )))
}

fn open(app: &mut App, index: usize) {
    if !matches!(app.view, View::List) {
        key(app, KeyCode::Esc);
    }
    key(app, KeyCode::Tab);
    key(app, KeyCode::Home);
    for _ in 0..index {
        key(app, KeyCode::Down);
    }
    key(app, KeyCode::Enter);
}

fn shown(app: &App) -> Option<String> {
    app.notice().map(|(text, _)| text.to_owned())
}

#[test]
fn interrupting_shows_in_its_session_only_and_goes_once_interrupted() {
    let mut app = busy_app();
    open(&mut app, 1);
    assert_eq!(app.view, View::Detail("add-tests".into()));
    let effects = ctrl(&mut app, 'c');
    assert_eq!(
        effects,
        [Effect::Interrupt {
            id: "add-tests".into()
        }]
    );
    assert_eq!(shown(&app).as_deref(), Some("interrupting…"));
    let screen = format!("{:?}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("interrupting…"), "{screen}");
    // Not in the list, not in another session.
    key(&mut app, KeyCode::Esc);
    assert_eq!(shown(&app), None);
    open(&mut app, 0);
    assert_eq!(app.view, View::Detail("fix-login".into()));
    assert_eq!(shown(&app), None);
    let screen = format!("{:?}", draw(&mut app, 80, 24).backend());
    assert!(!screen.contains("interrupting…"), "{screen}");
    // Back in its session it still says so, until the session is interrupted.
    open(&mut app, 1);
    assert_eq!(shown(&app).as_deref(), Some("interrupting…"));
    add(
        &mut app,
        session(
            "add-tests",
            "Add tests for the parser",
            Status::Interrupted,
            SessionPhase::Active,
            2,
        ),
    );
    assert_eq!(shown(&app), None, "gone once the session is interrupted");
}

#[test]
fn a_transient_notice_times_out() {
    let mut app = busy_app();
    app.set_now(Duration::from_secs(100));
    ctrl(&mut app, 'c');
    assert!(shown(&app).is_some_and(|t| t.contains("/exit")));
    app.set_now(Duration::from_secs(105));
    assert!(!app.on_tick(), "still there after 5 s");
    app.set_now(Duration::from_secs(111));
    assert!(app.on_tick(), "the screen changes when it goes");
    assert_eq!(shown(&app), None);
}

#[test]
fn the_text_prompt_goes_once_the_text_is_given() {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        codiva_core::session_state::SessionEvent::PromptOpened {
            prompt: permission("r1", "rm -rf /"),
        },
    );
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Char('n'));
    assert!(shown(&app).is_some_and(|t| t.contains("type the text")));
    typed(&mut app, "use trash instead");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    assert!(
        matches!(&effects[..], [Effect::RespondPermission { .. }]),
        "{effects:?}"
    );
    assert_eq!(shown(&app), None);
}
