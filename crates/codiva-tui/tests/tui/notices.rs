//! Notices belong to the view they concern and go away when what they describe changes (or
//! after a timeout for transient ones).

use std::time::Duration;

use codiva_protocol::manager::SessionPhase;
use codiva_protocol::session::Status;
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
        [request(ClientRequest::SessionInterrupt(sid("add-tests")))]
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
        codiva_protocol::session::SessionEvent::PromptOpened {
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
        matches!(
            &effects[..],
            [Effect::Request {
                request: ClientRequest::SessionRespondPermission(_),
                ..
            }]
        ),
        "{effects:?}"
    );
    assert_eq!(shown(&app), None);
}

/// A dialog on screen whose prompt another client of the daemon answered goes away with a
/// short notice; one this client answered goes without it, and so does a withdrawn one.
#[test]
fn a_prompt_answered_by_another_client_says_so() {
    use codiva_protocol::lang::Lang;
    use codiva_protocol::session::{PromptResolution, SessionEvent};
    use codiva_tui::i18n::with_lang;
    let closed = |request_id: &str, resolution| SessionEvent::PromptClosed {
        request_id: request_id.into(),
        resolution,
    };
    for (lang, suffix, text) in [
        (Lang::En, "", "resolved by another client"),
        (Lang::Ja, "_ja", "別のクライアントが応答しました"),
    ] {
        with_lang(lang, || {
            let mut app = detail_app();
            event(
                &mut app,
                "ask-perm",
                SessionEvent::PromptOpened {
                    prompt: permission("r9", "cargo publish"),
                },
            );
            draw(&mut app, 80, 24);
            event(
                &mut app,
                "ask-perm",
                closed("r9", PromptResolution::Allowed),
            );
            assert_eq!(shown(&app).as_deref(), Some(text));
            snapshot_at_both_sizes!(&mut app, &format!("resolved_by_another_client{suffix}"));
        });
    }

    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: permission("r10", "cargo publish"),
        },
    );
    draw(&mut app, 80, 24);
    key(&mut app, KeyCode::Tab);
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert!(
        matches!(
            &effects[..],
            [Effect::Request {
                request: ClientRequest::SessionRespondPermission(_),
                ..
            }]
        ),
        "{effects:?}"
    );
    event(
        &mut app,
        "ask-perm",
        closed("r10", PromptResolution::Allowed),
    );
    assert_eq!(shown(&app), None, "answered here");
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: permission("r11", "cargo publish"),
        },
    );
    draw(&mut app, 80, 24);
    event(
        &mut app,
        "ask-perm",
        closed("r11", PromptResolution::Withdrawn),
    );
    assert_eq!(shown(&app), None, "withdrawn by the agent");

    // Switching to auto here lets the manager allow what waits: this client's doing too.
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: permission("r12", "cargo publish"),
        },
    );
    draw(&mut app, 80, 24);
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
    )));
    assert!(
        effects.iter().any(|effect| matches!(
            effect,
            Effect::Request {
                request: ClientRequest::SessionSetApprovalPolicy(_),
                ..
            }
        )),
        "{effects:?}"
    );
    event(
        &mut app,
        "ask-perm",
        closed("r12", PromptResolution::Allowed),
    );
    assert_ne!(
        shown(&app).as_deref(),
        Some("resolved by another client"),
        "allowed by this client's run mode"
    );
}

/// Over the daemon, `/exit` quits at once (nothing stops), and `/shutdown` asks first while
/// sessions work, then quits asking for the daemon to stop.
#[test]
fn exit_detaches_and_shutdown_asks_first_over_the_daemon() {
    use codiva_protocol::lang::Lang;
    use codiva_tui::i18n::with_lang;
    let detached = || {
        let mut info = info();
        info.detached = true;
        let mut app = App::new(info);
        for session in busy_app().sessions() {
            add(&mut app, session.clone());
        }
        app
    };
    let enter = |app: &mut App| {
        app.handle(UiEvent::Key(KeyEvent::new(
            KeyCode::Enter,
            KeyModifiers::NONE,
        )))
    };
    let mut app = detached();
    typed(&mut app, "/exit");
    assert_eq!(enter(&mut app), [Effect::Quit]);
    assert!(app.should_quit());
    assert!(!app.shutdown_requested());
    // Regression: in a session `/exit` went back to the list, though the README (and the
    // word) say it quits. It quits from a session too.
    let mut app = detached();
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Tab,
        KeyModifiers::NONE,
    )));
    enter(&mut app);
    assert!(matches!(app.view, codiva_tui::app::View::Detail(_)));
    typed(&mut app, "/exit");
    assert_eq!(enter(&mut app), [Effect::Quit]);
    assert!(app.should_quit());

    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = detached();
            typed(&mut app, "/shutdown");
            assert!(enter(&mut app).is_empty(), "sessions work: it asks first");
            assert!(!app.should_quit());
            snapshot_at_both_sizes!(&mut app, &format!("shutdown_confirm{suffix}"));
            let effects = app.handle(UiEvent::Key(KeyEvent::new(
                KeyCode::Char('y'),
                KeyModifiers::NONE,
            )));
            assert_eq!(effects, [Effect::Shutdown, Effect::Quit]);
            assert!(app.should_quit() && app.shutdown_requested());
        });
    }
}

/// Regression: only the first start-up warning was ever shown (a wrong `<id>_path` hid an
/// agent's version warning, and both hid a third). Each is the notice in turn, numbered, the
/// next once the one before has gone — also when another notice took its place meanwhile.
#[test]
fn every_start_up_warning_is_shown_in_turn() {
    let warnings = [
        "codex: version 0.1.0 is older",
        "gemini_path: not found",
        "third",
    ];
    let mut app = App::new(codiva_tui::app::AppInfo {
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
        ..info()
    });
    assert_eq!(
        shown(&app).as_deref(),
        Some("warning 1/3: codex: version 0.1.0 is older")
    );
    app.set_now(Duration::from_secs(31));
    assert!(app.on_tick(), "the screen changes");
    assert_eq!(
        shown(&app).as_deref(),
        Some("warning 2/3: gemini_path: not found")
    );
    // Another notice replaces it; once that one has gone, the last warning comes.
    typed(&mut app, "/nosuchcommand");
    key(&mut app, KeyCode::Enter);
    let other = shown(&app).expect("an unknown command says so");
    assert!(!other.contains("2/3"), "{other}");
    app.set_now(Duration::from_secs(100));
    app.on_tick();
    assert_eq!(shown(&app).as_deref(), Some("warning 3/3: third"));
    app.set_now(Duration::from_secs(200));
    app.on_tick();
    assert_eq!(shown(&app), None);

    let one = App::new(codiva_tui::app::AppInfo {
        warnings: vec!["only".into()],
        ..info()
    });
    assert_eq!(shown(&one).as_deref(), Some("warning: only"));
    let ja = codiva_tui::i18n::with_lang(codiva_protocol::lang::Lang::Ja, || {
        let app = App::new(codiva_tui::app::AppInfo {
            warnings: vec!["a".into(), "b".into()],
            ..info()
        });
        shown(&app)
    });
    assert_eq!(ja.as_deref(), Some("警告 1/2: a"));
}
