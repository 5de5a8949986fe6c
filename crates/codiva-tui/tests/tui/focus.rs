//! Where keys go, and that the UI shows it is alive: a dialog that appears never takes what is
//! typed for the composer; the focused area is visible (its heavy rule, the footer's label);
//! working sessions spin and their time ticks; the list's keys and the history do not trap you.

use std::time::Duration;

use codiva_protocol::lang::Lang;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::session::{SessionEvent, Status};
use codiva_tui::app::{App, Effect, Focus, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::*;

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn type_all(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|c| press(app, KeyCode::Char(c)))
        .collect()
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    format!("{:?}", draw(app, width, height).backend())
}

/// Session `id` of [`busy_app`] asks for a permission (its status and the prompt, as the
/// manager sends them).
fn ask(app: &mut App, id: &str, request_id: &str) {
    if let Some(mut info) = app.sessions().iter().find(|s| s.id == id).cloned() {
        info.status = Status::AwaitingPermission;
        add(app, info);
    }
    event(
        app,
        id,
        SessionEvent::PromptOpened {
            prompt: permission(request_id, "rm -rf build"),
        },
    );
}

/// Regression: `n`, `s`, `y` of a sentence answered a permission that appeared while typing.
#[test]
fn a_dialog_that_appears_while_typing_takes_no_keys() {
    let mut app = busy_app();
    // The selected session (the first) is idle; select the one that is about to ask.
    type_all(&mut app, "Rename the ");
    ask(&mut app, "fix-login", "r1");
    let mut effects = type_all(&mut app, "session and say yes, stop [[scenario]] now");
    assert_eq!(app.focus, Focus::Composer);
    assert_eq!(
        app.composer_mut().text(),
        "Rename the session and say yes, stop [[scenario]] now"
    );
    effects.extend(press(&mut app, KeyCode::Enter));
    assert!(
        effects.iter().all(|e| !matches!(
            e,
            Effect::Request {
                request: ClientRequest::SessionRespondPermission(_),
                ..
            }
        )),
        "{effects:?}"
    );
    assert!(effects.contains(&create(
        "Rename the session and say yes, stop [[scenario]] now"
    )));
    // The request still waits; the inbox moves to it and `y` allows it.
    ctrl(&mut app, 'n');
    assert_eq!(app.focus, Focus::Dialog);
    let effects = press(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(&effects[..], [Effect::Request { request: ClientRequest::SessionRespondPermission(p), .. }]
            if p.session_id == "fix-login" && p.request_id == "r1"),
        "{effects:?}"
    );
}

/// Regression: a prompt of the selected session arriving while the composer was empty took
/// the keys, so the next instruction's first letter answered it.
#[test]
fn a_dialog_that_appears_before_typing_takes_no_keys_either() {
    let mut app = busy_app();
    ask(&mut app, "fix-login", "r1");
    let effects = type_all(&mut app, "now stop it");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.focus, Focus::Composer);
    assert_eq!(app.composer_mut().text(), "now stop it");
    let mut app = detail_app();
    ask(&mut app, "ask-perm", "r2");
    let effects = type_all(&mut app, "say no");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.composer_mut().text(), "say no");
}

#[test]
fn a_dialog_of_the_open_session_waits_for_tab() {
    let mut app = detail_app();
    type_all(&mut app, "also n");
    ask(&mut app, "ask-perm", "r2");
    let effects = type_all(&mut app, "ote the tests");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.focus, Focus::Composer);
    assert_eq!(app.composer_mut().text(), "also note the tests");
}

#[test]
fn letters_do_not_answer_while_the_composer_holds_a_draft() {
    let mut app = busy_app();
    ask(&mut app, "fix-login", "r1");
    type_all(&mut app, "half a sentence");
    ctrl(&mut app, 'n');
    assert_eq!(app.focus, Focus::Dialog);
    let effects = type_all(&mut app, "nsay");
    assert!(effects.is_empty(), "{effects:?}");
    assert!(screen(&mut app, 120, 40).contains("only with an empty composer"));
    assert_eq!(app.composer_mut().text(), "half a sentence");
}

#[test]
fn moving_through_the_list_over_a_waiting_session_keeps_the_keys_in_the_list() {
    let mut app = busy_app();
    ask(&mut app, "ask-perm", "r1");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::List);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.focus, Focus::List, "on the waiting session");
    press(&mut app, KeyCode::Down);
    assert_eq!(app.focus, Focus::List, "and past it");
}

/// The composer's rule is heavy while it has the keys; the dialog's title rule while the
/// dialog has them; the footer names the place.
#[test]
fn the_focused_area_is_visible() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = busy_app();
            ask(&mut app, "fix-login", "r1");
            typed(&mut app, "draft");
            snapshot_at_both_sizes!(&mut app, &format!("focus_list_composer{suffix}"));
            press(&mut app, KeyCode::Backspace);
            for _ in 0..4 {
                press(&mut app, KeyCode::Backspace);
            }
            press(&mut app, KeyCode::Tab);
            assert_eq!(app.focus, Focus::Dialog);
            snapshot_at_both_sizes!(&mut app, &format!("focus_list_dialog{suffix}"));
            let mut app = detail_app();
            ask(&mut app, "ask-perm", "r2");
            snapshot_at_both_sizes!(&mut app, &format!("focus_detail_composer{suffix}"));
            press(&mut app, KeyCode::Tab);
            assert_eq!(app.focus, Focus::Dialog);
            snapshot_at_both_sizes!(&mut app, &format!("focus_detail_dialog{suffix}"));
        });
    }
}

#[test]
fn working_sessions_spin_and_their_time_ticks() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = App::new(info());
            app.set_now(Duration::from_secs(10));
            add(
                &mut app,
                session(
                    "run",
                    "Run the tests",
                    Status::Running,
                    SessionPhase::Active,
                    0,
                ),
            );
            add(
                &mut app,
                session(
                    "done",
                    "Fix the typo",
                    Status::Completed,
                    SessionPhase::Active,
                    1,
                ),
            );
            assert!(app.is_animating(), "a running session animates the list");
            snapshot_at_both_sizes!(&mut app, &format!("alive_list_0s{suffix}"));
            // 75 s later, three frames on: the spinner moved, the time grew; the idle one's
            // time stays.
            app.set_now(Duration::from_secs(85));
            for _ in 0..3 {
                app.handle(UiEvent::Animate);
            }
            snapshot_at_both_sizes!(&mut app, &format!("alive_list_75s{suffix}"));
            press(&mut app, KeyCode::Tab);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.view, View::Detail("run".into()));
            snapshot_at_both_sizes!(&mut app, &format!("alive_detail{suffix}"));
            // It completes: nothing moves any more, so no timer runs.
            add(
                &mut app,
                session(
                    "run",
                    "Run the tests",
                    Status::Completed,
                    SessionPhase::Active,
                    0,
                ),
            );
            assert!(!app.is_animating());
        });
    }
}

#[test]
fn home_and_end_in_the_list() {
    let mut app = busy_app();
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::End);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail("merged".into()));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail("fix-login".into()));
}

#[test]
fn ctrl_c_in_the_list_says_how_to_quit() {
    let mut app = busy_app();
    let effects = ctrl(&mut app, 'c');
    assert!(effects.is_empty());
    assert!(!app.should_quit());
    assert!(screen(&mut app, 120, 40).contains("type /exit"));
}

#[test]
fn exit_without_working_sessions_quits_at_once() {
    let mut app = App::new(info());
    add(
        &mut app,
        session(
            "done",
            "Fix the typo",
            Status::Completed,
            SessionPhase::Active,
            1,
        ),
    );
    typed(&mut app, "/exit");
    assert_eq!(press(&mut app, KeyCode::Enter), [Effect::Quit]);
}

#[test]
fn the_history_walks_past_a_command_entry() {
    let mut app = App::new(info());
    for line in ["first task", "/config", "second task"] {
        typed(&mut app, line);
        press(&mut app, KeyCode::Enter);
    }
    press(&mut app, KeyCode::Up);
    assert_eq!(app.composer_mut().text(), "second task");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.composer_mut().text(), "/config");
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.composer_mut().text(),
        "first task",
        "not stuck in the palette"
    );
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.composer_mut().text(), "second task");
}

#[test]
fn a_draft_is_kept_per_view() {
    let mut app = busy_app();
    typed(&mut app, "new instruction");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.view, View::Detail(_)));
    assert_eq!(app.composer_mut().text(), "");
    typed(&mut app, "follow-up");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.composer_mut().text(), "new instruction");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.composer_mut().text(), "follow-up");
}

/// Ctrl+C over a view that covers the body (a picker, the help) cancels it as Esc does — as it
/// cancels the attempts form; codiva never quits on it.
#[test]
fn ctrl_c_closes_a_view_over_the_body_as_esc_does() {
    let mut app = busy_app();
    type_all(&mut app, "/agent");
    press(&mut app, KeyCode::Enter);
    assert!(app.overlay_open());
    assert!(ctrl(&mut app, 'c').is_empty());
    assert!(!app.overlay_open());
    type_all(&mut app, "/help");
    press(&mut app, KeyCode::Enter);
    assert!(screen(&mut app, 120, 40).contains("Keys and commands"));
    assert!(ctrl(&mut app, 'c').is_empty());
    assert!(!screen(&mut app, 120, 40).contains("Keys and commands"));
    assert!(!app.should_quit());
}
