//! Esc steps back one level inside every dialog (the scope menu → the four choices, typing a
//! deny reason → the choices, a question → the one before) and only leaves the dialog from its
//! top level; the footer says where Esc leads; Ctrl+L reaches the session list from any view.

use codiva_protocol::agent::{Question, QuestionOption, QuestionRequest};
use codiva_protocol::lang::Lang;
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_tui::app::{App, Effect, Focus, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use crate::support::*;

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )))
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    format!("{:?}", draw(app, width, height).backend())
}

/// Session `id` asks for a permission to run a command (Claude offers "always allow").
fn ask(app: &mut App, id: &str, request_id: &str) {
    if let Some(mut info) = app.sessions().iter().find(|s| s.id == id).cloned() {
        info.status = Status::AwaitingPermission;
        add(app, info);
    }
    event(
        app,
        id,
        SessionEvent::PromptOpened {
            prompt: permission(request_id, "cargo test --workspace"),
        },
    );
}

/// The open session asks for a permission and its dialog has the keys.
fn detail_dialog() -> App {
    let mut app = detail_app();
    ask(&mut app, "ask-perm", "r1");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Dialog);
    app
}

/// ... with the always-allow scope menu open.
fn scope_menu() -> App {
    let mut app = detail_dialog();
    assert!(press(&mut app, KeyCode::Char('a')).is_empty());
    app
}

/// Regression: Esc in the scope menu left the session instead of going back to the choices.
#[test]
fn esc_in_the_scope_menu_goes_back_to_the_four_choices() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scope_menu();
            snapshot_at_both_sizes!(&mut app, &format!("scope_menu_footer{suffix}"));
            let effects = press(&mut app, KeyCode::Esc);
            assert!(effects.is_empty(), "{effects:?}");
            assert_eq!(app.view, View::Detail("ask-perm".into()));
            assert_eq!(app.focus, Focus::Dialog);
            snapshot_at_both_sizes!(&mut app, &format!("scope_menu_esc_back{suffix}"));
        });
    }
    let mut app = scope_menu();
    press(&mut app, KeyCode::Esc);
    let text = screen(&mut app, 120, 40);
    assert!(text.contains("(y)") && text.contains("(n)"), "{text}");
    assert!(text.contains("Esc: back to the list"), "{text}");
    // From the choices, deny still works: the dialog was not left.
    press(&mut app, KeyCode::Char('n'));
    crate::support::typed(&mut app, "use nextest instead");
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        matches!(&effects[..], [Effect::Request { request: ClientRequest::SessionRespondPermission(p), .. }]
            if p.session_id == "ask-perm" && p.request_id == "r1"
                && p.message.as_deref() == Some("use nextest instead")),
        "{effects:?}"
    );
    // From the top level, Esc leaves the dialog: the session goes back to the list.
    let mut app = detail_dialog();
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::List);
}

/// Regression: in the list, Esc in the scope menu moved the keys to the list's composer, and
/// the deny reason typed next started a stray session.
#[test]
fn a_deny_reason_after_the_scope_menu_in_the_list_answers_the_dialog() {
    let mut app = busy_app();
    ask(&mut app, "fix-login", "r1");
    ctrl(&mut app, 'n');
    assert_eq!(app.focus, Focus::Dialog);
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Dialog);
    let text = screen(&mut app, 120, 40);
    assert!(text.contains("Esc: composer"), "{text}");
    press(&mut app, KeyCode::Char('n'));
    crate::support::typed(&mut app, "not now");
    // Esc while typing the reason: back to the choices, still in the dialog.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Dialog);
    press(&mut app, KeyCode::Char('n'));
    crate::support::typed(&mut app, "not now");
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        effects.iter().all(|effect| !matches!(
            effect,
            Effect::Request {
                request: ClientRequest::SessionCreate(_),
                ..
            }
        )),
        "{effects:?}"
    );
    assert!(
        matches!(&effects[..], [Effect::Request { request: ClientRequest::SessionRespondPermission(p), .. }]
            if p.session_id == "fix-login" && p.message.as_deref() == Some("not now")),
        "{effects:?}"
    );
}

fn question(text: &str, header: &str) -> Question {
    Question {
        question: text.into(),
        header: Some(header.into()),
        multi_select: false,
        options: ["yes", "no"]
            .iter()
            .map(|label| QuestionOption {
                label: (*label).into(),
                description: None,
            })
            .collect(),
    }
}

/// The open session asks two questions; the dialog has the keys, on the second question.
fn second_question() -> App {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: Prompt::Question(QuestionRequest {
                request_id: "q1".into(),
                questions: vec![
                    question("Split the module?", "Split"),
                    question("Keep the old names?", "Names"),
                ],
                input: json!({}),
                tool_use_id: None,
            }),
        },
    );
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Enter);
    app
}

#[test]
fn esc_in_a_question_goes_to_the_one_before() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = second_question();
            snapshot_at_both_sizes!(&mut app, &format!("question_second_footer{suffix}"));
        });
    }
    let mut app = second_question();
    assert!(screen(&mut app, 120, 40).contains("Keep the old names?"));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Detail("ask-perm".into()));
    assert_eq!(app.focus, Focus::Dialog);
    let text = screen(&mut app, 120, 40);
    assert!(text.contains("Split the module?"), "{text}");
    assert!(text.contains("Esc: back to the list"), "{text}");
    // The first answer was kept: picking the second again reaches the Submit step.
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Enter);
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        matches!(&effects[..], [Effect::Request { request: ClientRequest::SessionAnswerQuestion(p), .. }]
            if p.answers.contains_key("Split the module?")),
        "{effects:?}"
    );
    // On the first question Esc leaves the dialog (the session goes back to the list).
    let mut app = second_question();
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::List);
}

/// Ctrl+L: the list in one key, from the scope menu, a log search, typing a deny reason, the
/// help and a confirmation.
#[test]
fn ctrl_l_reaches_the_list_from_anywhere() {
    let mut app = scope_menu();
    assert!(ctrl(&mut app, 'l').is_empty());
    assert_eq!((app.view.clone(), app.focus), (View::List, Focus::Composer));
    // The dialog still waits, at its top level.
    ctrl(&mut app, 'n');
    assert_eq!(app.focus, Focus::Dialog);
    assert!(screen(&mut app, 120, 40).contains("(y)"));

    let mut app = detail_app();
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('/'));
    crate::support::typed(&mut app, "modules");
    press(&mut app, KeyCode::Enter);
    ctrl(&mut app, 'l');
    assert_eq!(app.view, View::List);

    let mut app = detail_dialog();
    press(&mut app, KeyCode::Char('n'));
    crate::support::typed(&mut app, "a reason");
    ctrl(&mut app, 'l');
    assert_eq!((app.view.clone(), app.focus), (View::List, Focus::Composer));
    assert_eq!(app.composer_mut().text(), "");

    let mut app = detail_app();
    crate::support::typed(&mut app, "/help");
    press(&mut app, KeyCode::Enter);
    assert!(screen(&mut app, 80, 24).contains("Everywhere"));
    ctrl(&mut app, 'l');
    assert_eq!(app.view, View::List);
    assert!(!screen(&mut app, 80, 24).contains("Everywhere"));

    // A confirmation answers no (nothing is removed).
    let mut app = detail_app();
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('x'));
    assert!(ctrl(&mut app, 'l').is_empty());
    assert_eq!(app.view, View::List);
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
}

#[test]
fn the_help_lists_ctrl_l() {
    for lang in [Lang::En, Lang::Ja] {
        with_lang(lang, || {
            let mut app = busy_app();
            crate::support::typed(&mut app, "/help");
            press(&mut app, KeyCode::Enter);
            assert!(screen(&mut app, 120, 60).contains("Ctrl+L"));
        });
    }
}
