//! A message the log cut at the memory cap: its footer, Enter opening the whole message (read
//! back by the manager) in a scrollable view, a refusal shown inside it, and search in that
//! view and in the log (`/`, Enter, `n`/`N`, highlighted matches, Esc).

use codiva_protocol::lang::Lang;
use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_tui::app::{App, Done, Effect, Focus, UiEvent};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use crate::support::{
    ClientRequest, FullMessageParams, answer_err, answer_ok, busy_app, draw, key, log, refusal,
    request, snapshot_at_both_sizes, typed,
};

const ID: &str = "ask-perm";
const CUT: usize = 300_000;

/// The part of the message the log kept.
fn kept() -> String {
    let mut text = String::from("## Migration plan\n\n");
    for step in 1..=4 {
        text.push_str(&format!(
            "{step}. Move the `needle{step}` settings into `config/` (検索 step {step}).\n"
        ));
    }
    text
}

/// The whole message the transcript gives back.
fn whole() -> String {
    let mut text = kept();
    for step in 5..=60 {
        let word = if step % 20 == 0 { " needle" } else { "" };
        text.push_str(&format!("{step}. Step {step}{word}: 設定を移す。\n"));
    }
    text.push_str("\n```rust\nfn main() {}\n```\n\nDone.");
    text
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// An open session whose last reply was cut, the log with the keys.
fn cut_app() -> App {
    let mut app = busy_app();
    key(&mut app, KeyCode::Tab);
    for _ in 0..2 {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    let entries: Vec<LogEntry> = vec![
        log(
            0,
            EntryKind::User {
                text: "Plan the config migration".into(),
            },
        ),
        log(
            1,
            EntryKind::Assistant {
                text: format!("{}\n… [{CUT} more bytes]", kept()),
            },
        ),
    ];
    app.handle(UiEvent::Done(Done::LogRead {
        id: ID.into(),
        entries,
        subagents: Vec::new(),
        todos: Vec::new(),
    }));
    app.focus = Focus::Log;
    // A frame, so the log knows what it shows.
    draw(&mut app, 80, 24);
    app
}

/// `session/fullMessage` of entry 1 of the main log.
fn full_message() -> Effect {
    request(ClientRequest::SessionFullMessage(FullMessageParams {
        session_id: ID.into(),
        entry: 1,
        subagent: None,
    }))
}

fn opened() -> App {
    let mut app = cut_app();
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(effects, vec![full_message()]);
    app
}

fn loaded() -> App {
    let mut app = opened();
    answer_ok(
        &mut app,
        &full_message(),
        codiva_protocol::params::FullMessageResult { text: whole() },
    );
    app
}

fn both_languages(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            snapshot_at_both_sizes!(&mut app, &format!("{name}{suffix}"));
        });
    }
}

fn screen(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The cells painted as a search match.
fn highlighted(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            let cell = &buffer[(x, y)];
            if cell.bg == Color::Yellow {
                out.push_str(cell.symbol());
            }
        }
    }
    out
}

#[test]
fn a_cut_message_says_how_much_is_hidden() {
    both_languages("cut_footer", cut_app);
    let text = screen(&draw(&mut cut_app(), 80, 24));
    assert!(text.contains("293.0 KiB more not shown"), "{text}");
    assert!(!text.contains("more bytes]"), "{text}");
}

#[test]
fn enter_opens_the_whole_message_and_esc_closes_it() {
    both_languages("full_message_loading", opened);
    both_languages("full_message_view", loaded);
    let mut app = loaded();
    let top = screen(&draw(&mut app, 80, 24));
    assert!(top.contains("Migration plan"), "{top}");
    press(&mut app, KeyCode::End);
    let end = screen(&draw(&mut app, 80, 24));
    assert!(end.contains("Done."), "{end}");
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::PageDown);
    let page = screen(&draw(&mut app, 80, 24));
    assert!(!page.contains("Migration plan"), "{page}");
    press(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
}

#[test]
fn a_refusal_is_shown_inside_the_view() {
    both_languages("full_message_error", || {
        let mut app = opened();
        let error = refusal(
            codiva_protocol::error::RefusalCode::MessageNotInTranscript,
            &[ID, "no text block of 300 KiB"],
        );
        answer_err(&mut app, &full_message(), error);
        app
    });
}

fn searched_view() -> App {
    let mut app = loaded();
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    app
}

#[test]
fn search_in_the_whole_message_goes_from_match_to_match() {
    both_languages("full_message_search_typing", || {
        let mut app = loaded();
        press(&mut app, KeyCode::Char('/'));
        typed(&mut app, "needle");
        app
    });
    both_languages("full_message_search_found", searched_view);
    let mut app = searched_view();
    let terminal = draw(&mut app, 80, 24);
    // The first match is the top row; every match on screen is painted.
    assert!(highlighted(&terminal).starts_with("needleneedle"));
    press(&mut app, KeyCode::Char('n'));
    press(&mut app, KeyCode::Char('n'));
    press(&mut app, KeyCode::Char('n'));
    press(&mut app, KeyCode::Char('n'));
    let text = screen(&draw(&mut app, 80, 24));
    assert!(text.contains("20. Step 20 needle"), "{text}");
    press(&mut app, KeyCode::Char('N'));
    let text = screen(&draw(&mut app, 80, 24));
    assert!(text.contains("needle4"), "{text}");
    // Esc ends the search first, then closes the view.
    press(&mut app, KeyCode::Esc);
    assert_eq!(highlighted(&draw(&mut app, 80, 24)), "");
    press(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
}

#[test]
fn search_in_cjk_is_found_and_a_miss_is_told() {
    let mut app = loaded();
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "設定を移す");
    press(&mut app, KeyCode::Enter);
    let terminal = draw(&mut app, 80, 24);
    assert!(highlighted(&terminal).starts_with("設定を移す"));
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "absent");
    press(&mut app, KeyCode::Enter);
    let text = screen(&draw(&mut app, 120, 40));
    assert!(text.contains("no match for “absent”"), "{text}");
}

/// Regression: `no match for …` stayed under a later search that found its text.
#[test]
fn a_found_search_drops_the_earlier_no_match() {
    // In the whole message (drawn once: the search looks in what is drawn).
    let mut app = loaded();
    draw(&mut app, 120, 40);
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "absent");
    press(&mut app, KeyCode::Enter);
    assert!(screen(&draw(&mut app, 120, 40)).contains("no match for “absent”"));
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    let text = screen(&draw(&mut app, 120, 40));
    assert!(!text.contains("no match"), "{text}");
    // In the log.
    let mut app = cut_app();
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "absent");
    press(&mut app, KeyCode::Enter);
    let text = screen(&draw(&mut app, 120, 40));
    assert!(text.contains("no match for “absent”"), "{text}");
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "needle");
    press(&mut app, KeyCode::Enter);
    let text = screen(&draw(&mut app, 120, 40));
    assert!(!text.contains("no match"), "{text}");
}

/// Regression: from a search in the whole-message view the list was four Esc away. Ctrl+L
/// is one key from there (and from anywhere).
#[test]
fn ctrl_l_goes_from_a_message_search_to_the_list() {
    let mut app = searched_view();
    assert!(app.overlay_open());
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('l'),
        KeyModifiers::CONTROL,
    )));
    assert!(!app.overlay_open());
    assert_eq!(app.view, codiva_tui::app::View::List);
    assert_eq!(app.focus, Focus::Composer);
    // The session's log search is gone too when it is opened again.
    key(&mut app, KeyCode::Tab);
    let text = screen(&draw(&mut app, 80, 24));
    assert!(!text.contains("needle"), "{text}");
}

fn searched_log() -> App {
    let mut app = cut_app();
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "NEEDLE");
    press(&mut app, KeyCode::Enter);
    app
}

#[test]
fn search_in_the_log_highlights_and_n_moves_cards_again_after_esc() {
    both_languages("log_search_typing", || {
        let mut app = cut_app();
        press(&mut app, KeyCode::Char('/'));
        typed(&mut app, "needle");
        app
    });
    both_languages("log_search_found", searched_log);
    let mut app = searched_log();
    let terminal = draw(&mut app, 80, 24);
    assert_eq!(highlighted(&terminal), "needleneedleneedleneedle");
    // `n` goes round to the first match again and says so.
    for _ in 0..4 {
        press(&mut app, KeyCode::Char('n'));
    }
    let text = screen(&draw(&mut app, 120, 40));
    assert!(
        text.contains("the search went on from the other end"),
        "{text}"
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(highlighted(&draw(&mut app, 80, 24)), "");
    // Without a search, `n` is the cards' key again and `/` no longer reaches the composer.
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert_eq!(app.focus, Focus::Log);
}

/// A phrase the log's wrapping cut across two rows is found (every pair of neighbouring words
/// of a long message, so some pairs straddle a break at 80 columns).
#[test]
fn search_in_the_log_finds_a_phrase_across_a_wrapped_row() {
    let words: Vec<String> = (0..40).map(|i| format!("word{i:02}")).collect();
    let mut app = busy_app();
    key(&mut app, KeyCode::Tab);
    for _ in 0..2 {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    app.handle(UiEvent::Done(Done::LogRead {
        id: ID.into(),
        entries: vec![log(
            0,
            EntryKind::Assistant {
                text: words.join(" "),
            },
        )],
        subagents: Vec::new(),
        todos: Vec::new(),
    }));
    app.focus = Focus::Log;
    draw(&mut app, 80, 24);
    for pair in words.windows(2) {
        let phrase = pair.join(" ");
        press(&mut app, KeyCode::Char('/'));
        typed(&mut app, &phrase);
        press(&mut app, KeyCode::Enter);
        let text = screen(&draw(&mut app, 80, 24));
        assert!(!text.contains("no match"), "{phrase}:\n{text}");
        press(&mut app, KeyCode::Esc);
    }
}
