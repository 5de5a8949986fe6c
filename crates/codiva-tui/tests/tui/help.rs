//! `/help`: a full-screen overlay listing every key, including card and dialog keys, that
//! scrolls, fits 50 columns and closes with Esc.

use codiva_protocol::lang::Lang;
use codiva_tui::app::{App, Effect, UiEvent};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::*;

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn open_help() -> App {
    let mut app = busy_app();
    typed(&mut app, "/help");
    press(&mut app, KeyCode::Enter);
    app
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    format!("{:?}", draw(app, width, height).backend())
}

#[test]
fn help_at_50_and_120_columns() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = open_help();
            insta::assert_snapshot!(
                format!("help_50x30{suffix}"),
                draw(&mut app, 50, 30).backend()
            );
            insta::assert_snapshot!(
                format!("help_120x40{suffix}"),
                draw(&mut app, 120, 40).backend()
            );
            press(&mut app, KeyCode::End);
            insta::assert_snapshot!(
                format!("help_50x30_end{suffix}"),
                draw(&mut app, 50, 30).backend()
            );
        });
    }
}

#[test]
fn help_scrolls_to_every_key_and_esc_closes_it() {
    let mut app = open_help();
    let first = screen(&mut app, 50, 20);
    assert!(first.contains("Keys and commands"));
    assert!(first.contains("more"), "{first}");
    // Page by page to the end: the card, dialog and help keys are all there.
    let mut seen = first;
    for _ in 0..20 {
        press(&mut app, KeyCode::PageDown);
        seen.push_str(&screen(&mut app, 50, 20));
    }
    for needle in [
        "n, p",
        "y, a, n, s",
        "Space",
        "Esc, q",
        "Ctrl+N",
        "Shift+Tab",
        "Ctrl+O",
        "/, n, N",
    ] {
        assert!(seen.contains(needle), "{needle} missing");
    }
    // Every command of the palette, with what it does.
    for command in [
        "/model",
        "/agent",
        "/login",
        "/prompt",
        "/config",
        "/diff",
        "/sync",
        "/pr",
        "/fix-ci",
        "/commit",
        "/recover",
        "/remove",
        "/restore",
        "/rename",
        "/shell",
        "/edit",
        "/clear",
        "/help",
        "/shutdown",
        "/exit",
    ] {
        assert!(seen.contains(&format!("  {command} ")), "{command} missing");
    }
    // Keys do nothing else while it is open.
    assert_eq!(press(&mut app, KeyCode::Char('m')), Vec::new());
    press(&mut app, KeyCode::Esc);
    assert!(!screen(&mut app, 50, 20).contains("Keys and commands"));
}
