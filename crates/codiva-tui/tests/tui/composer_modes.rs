//! The composer says what Enter will do: a new instruction, a follow-up to the named session, a
//! deny reason, a free-text answer, `.codiva/prompt.md`, and a merged session's follow-up that
//! offers a new session instead of being lost. Each mode has its placeholder and footer, in
//! English and Japanese; Esc leaves each mode one way.

use codiva_protocol::agent::{Question, QuestionOption, QuestionRequest};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_tui::app::{App, Done, Effect, Focus, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use crate::support::*;

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn screen(app: &mut App) -> String {
    format!("{:?}", draw(app, 120, 40).backend())
}

/// The open session asks for a permission; the dialog has the keys.
fn asking_permission() -> App {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: permission("r1", "rm -rf build"),
        },
    );
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Dialog);
    app
}

/// The open session asks a question; the dialog has the keys.
fn asking_question() -> App {
    let mut app = detail_app();
    let option = |label: &str| QuestionOption {
        label: label.into(),
        description: None,
    };
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: Prompt::Question(QuestionRequest {
                request_id: "q1".into(),
                questions: vec![Question {
                    question: "Which layout?".into(),
                    header: Some("Layout".into()),
                    options: vec![option("Flat"), option("Nested")],
                    multi_select: false,
                }],
                input: json!({}),
                tool_use_id: None,
            }),
        },
    );
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Dialog);
    app
}

/// `ask-perm` was merged while its view is open.
fn merged_detail() -> App {
    let mut app = detail_app();
    let mut info = app
        .sessions()
        .iter()
        .find(|s| s.id == "ask-perm")
        .cloned()
        .unwrap();
    info.status = Status::Completed;
    info.phase = SessionPhase::Merged {
        commit: "abc".into(),
    };
    add(&mut app, info);
    app
}

#[test]
fn every_mode_has_its_placeholder_and_footer() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = busy_app();
            snapshot_at_both_sizes!(&mut app, &format!("mode_instruction{suffix}"));

            let mut app = detail_app();
            snapshot_at_both_sizes!(&mut app, &format!("mode_follow_up{suffix}"));

            let mut app = asking_permission();
            press(&mut app, KeyCode::Char('n'));
            assert_eq!(app.focus, Focus::Composer);
            snapshot_at_both_sizes!(&mut app, &format!("mode_deny_reason{suffix}"));

            let mut app = asking_question();
            press(&mut app, KeyCode::Down);
            press(&mut app, KeyCode::Down);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.focus, Focus::Composer);
            snapshot_at_both_sizes!(&mut app, &format!("mode_answer{suffix}"));

            let mut app = busy_app();
            app.handle(UiEvent::Done(Done::EditPrompt(String::new())));
            snapshot_at_both_sizes!(&mut app, &format!("mode_prompt{suffix}"));

            let mut app = merged_detail();
            snapshot_at_both_sizes!(&mut app, &format!("mode_merged{suffix}"));
            typed(&mut app, "Also update the changelog");
            press(&mut app, KeyCode::Enter);
            snapshot_at_both_sizes!(&mut app, &format!("mode_merged_offer{suffix}"));
        });
    }
}

#[test]
fn a_follow_up_to_a_merged_session_offers_a_new_session() {
    let mut app = merged_detail();
    typed(&mut app, "Also update the changelog");
    assert_eq!(press(&mut app, KeyCode::Enter), Vec::new(), "nothing sent");
    assert!(screen(&mut app).contains("Start a new session with this instruction"));
    let effects = press(&mut app, KeyCode::Char('y'));
    assert!(effects.contains(&create("Also update the changelog")));
    assert_eq!(app.view, View::List, "the list shows the new session");
}

#[test]
fn declining_the_new_session_gives_the_text_back() {
    let mut app = merged_detail();
    typed(&mut app, "Also update the changelog");
    press(&mut app, KeyCode::Enter);
    assert_eq!(press(&mut app, KeyCode::Char('n')), Vec::new());
    assert!(screen(&mut app).contains("› Also update the changelog"));
    assert_eq!(app.view, View::Detail("ask-perm".into()));
}

#[test]
fn esc_in_a_deny_reason_goes_back_to_the_dialog_and_gives_the_draft_back() {
    let mut app = asking_permission();
    // A draft typed before: it is set aside while the reason is typed.
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "draft");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Dialog);
    // With a draft, letters do not answer: choose "No, and tell…" with ↓↓ Enter.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Composer);
    assert!(screen(&mut app).contains("Why deny?"));
    typed(&mut app, "use cargo clean");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Dialog);
    assert!(screen(&mut app).contains("› draft"));
}

#[test]
fn a_deny_reason_is_sent_and_the_draft_comes_back() {
    let mut app = asking_permission();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "use cargo clean");
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        matches!(&effects[..], [Effect::Request { request: ClientRequest::SessionRespondPermission(p), .. }] if p.request_id == "r1"),
        "{effects:?}"
    );
    assert!(!screen(&mut app).contains("use cargo clean"));
}

#[test]
fn esc_while_editing_the_prompt_keeps_it_and_the_draft() {
    let mut app = busy_app();
    typed(&mut app, "my instruction");
    app.handle(UiEvent::Done(Done::EditPrompt("Be brief.\n".into())));
    assert!(screen(&mut app).contains("› Be brief."));
    assert_eq!(press(&mut app, KeyCode::Esc), Vec::new());
    let text = screen(&mut app);
    assert!(text.contains("› my instruction"), "{text}");
    assert!(text.contains("prompt.md unchanged"));
}
