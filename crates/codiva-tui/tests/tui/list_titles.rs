//! The list's title column at 200 columns: a title that is only the cut start of a long prompt
//! gives way to as much of the prompt as the column holds; a title the user chose stays.

use codiva_protocol::manager::SessionPhase;
use codiva_protocol::session::Status;
use codiva_protocol::text::default_title;
use codiva_tui::app::App;

use crate::support::{add, draw, info, session, snapshot_at_both_sizes};

const PROMPT: &str = "Rewrite the configuration loader so that every key is validated against the \
schema before use, report all errors at once, and keep the old behaviour behind a flag";

fn app() -> App {
    let mut app = App::new(info());
    let mut long = session(
        "rewrite-loader",
        &default_title(PROMPT),
        Status::Running,
        SessionPhase::Active,
        1,
    );
    long.prompt = PROMPT.into();
    add(&mut app, long);
    let mut renamed = session(
        "loader-v2",
        "Loader v2",
        Status::Completed,
        SessionPhase::Active,
        2,
    );
    renamed.prompt = PROMPT.into();
    add(&mut app, renamed);
    // The prompt may hold anything: controls and bidi overrides never reach the screen.
    let mut hostile = session("odd", "", Status::Completed, SessionPhase::Active, 3);
    hostile.prompt = "Fix \u{202e}the\u{1b}[2J parser\tand the lexer so that both handle every escape sequence correctly".into();
    hostile.title = default_title(&hostile.prompt);
    assert!(!hostile.title.contains('\u{1b}'));
    add(&mut app, hostile);
    app
}

#[test]
fn long_titles_use_the_width_at_200_columns() {
    let mut app = app();
    let terminal = draw(&mut app, 200, 12);
    let screen = format!("{:?}", terminal.backend());
    assert!(
        screen.contains("schema before use, report all …"),
        "{screen}"
    );
    assert!(screen.contains("Loader v2"), "{screen}");
    assert!(
        !screen.contains('\u{202e}') && !screen.contains('\u{1b}'),
        "{screen}"
    );
    insta::assert_snapshot!("long_titles_200x12", terminal.backend());
    snapshot_at_both_sizes!(&mut app, "long_titles");
}

/// A title an agent made is model output: an escape sequence in it (a screen clear, a window
/// title, colours, a bidi override) is neutralised before it is a title, so the list shows
/// plain text, in English and in Japanese.
#[test]
fn an_escape_sequence_in_a_generated_title_is_plain_text() {
    let raw = "\u{1b}[2J\u{1b}]0;owned\u{7}Fix the \u{1b}[31mcolours\u{1b}[0m\u{202e}";
    let title = codiva_core::title::clean(raw).unwrap();
    assert_eq!(title, "[2J ]0;owned Fix the [31mcolours [0m");
    let raw_ja = "「\u{1b}[1mステータスバーの色を修正\u{9b}2J」";
    let title_ja = codiva_core::title::clean(raw_ja).unwrap();
    let mut app = App::new(info());
    for (index, (id, title)) in [("colours", &title), ("iro", &title_ja)]
        .into_iter()
        .enumerate()
    {
        let mut generated = session(
            id,
            title,
            Status::Running,
            SessionPhase::Active,
            index as u64 + 1,
        );
        generated.prompt = "the colours of the status bar are wrong".into();
        add(&mut app, generated);
    }
    let screen = format!("{:?}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("Fix the [31mcolours [0m"), "{screen}");
    assert!(
        screen.contains("[1mステータスバーの色を修正 2J"),
        "{screen}"
    );
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{9b}') && !screen.contains('\u{202e}'),
        "{screen}"
    );
    snapshot_at_both_sizes!(&mut app, "generated_title_with_escapes");
}
