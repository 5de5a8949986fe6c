//! The composer: snapshots of its states at two widths, caret positions, and editing through
//! the public API (keys, paste, the input history).

use codiva_tui::composer::{Composer, ComposerAction, InputHistory, MAX_ROWS};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

const PLACEHOLDER: &str = "Describe a task for a new session…";

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn with(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

fn type_text(composer: &mut Composer, text: &str) {
    for c in text.chars() {
        let action = composer.handle_key(key(KeyCode::Char(c)));
        assert_eq!(action, ComposerAction::Changed, "typing {c:?}");
    }
}

fn press(composer: &mut Composer, keys: &[KeyEvent]) {
    for &k in keys {
        composer.handle_key(k);
    }
}

/// Draws the composer at the top of a `width`×10 terminal, sized by `desired_height`; returns
/// the terminal and the caret position.
fn draw(composer: &mut Composer, width: u16) -> (Terminal<TestBackend>, (u16, u16)) {
    let mut terminal = Terminal::new(TestBackend::new(width, 10)).unwrap();
    let mut caret = None;
    terminal
        .draw(|frame| {
            let height = composer.desired_height(width);
            let area = Rect::new(0, 0, width, height);
            caret = composer.render(area, frame.buffer_mut());
            if let Some(position) = caret {
                frame.set_cursor_position(position);
            }
        })
        .unwrap();
    (terminal, caret.unwrap())
}

/// Snapshot at 80 and 40 columns, with the caret position in the snapshot name's suffix data.
fn snapshot_both(name: &str, composer: &mut Composer) -> [(u16, u16); 2] {
    let mut carets = [(0, 0); 2];
    for (i, width) in [80u16, 40].into_iter().enumerate() {
        let (terminal, caret) = draw(composer, width);
        carets[i] = caret;
        insta::assert_snapshot!(
            format!("{name}_{width}"),
            terminal.backend(),
            &format!("caret at {caret:?}")
        );
    }
    carets
}

#[test]
fn empty_shows_placeholder() {
    let mut composer = Composer::new().with_placeholder(PLACEHOLDER);
    assert_eq!(composer.desired_height(80), 1);
    let carets = snapshot_both("empty", &mut composer);
    assert_eq!(carets, [(2, 0), (2, 0)]);
}

#[test]
fn one_line() {
    let mut composer = Composer::new().with_placeholder(PLACEHOLDER);
    type_text(&mut composer, "Fix the flaky test in parser.rs");
    let carets = snapshot_both("one_line", &mut composer);
    assert_eq!(carets, [(33, 0), (33, 0)]);
}

#[test]
fn long_english_line_wraps_at_words() {
    let mut composer = Composer::new();
    let text = "Refactor the session manager so that every turn ends through one path, \
                and add a regression test for the interrupted state that used to be shown as completed.";
    composer.set_text(text);
    assert_eq!(composer.desired_height(80), 3);
    assert_eq!(composer.desired_height(40), 5);
    let carets = snapshot_both("long_english", &mut composer);
    // The caret follows the last character, on the last row.
    assert_eq!(carets[0].1, 2);
    assert_eq!(carets[1].1, 4);
}

#[test]
fn japanese_and_emoji_wrap_by_cells() {
    let mut composer = Composer::new();
    type_text(
        &mut composer,
        "日本語の指示をここに書きます。絵文字🎌も👩‍💻も２セル幅で、全角スペース\u{3000}も２セルです。折り返しを確認してください。",
    );
    let carets = snapshot_both("japanese_emoji", &mut composer);
    assert!(carets.iter().all(|&(x, _)| x >= 2));
}

#[test]
fn twelve_lines_scroll_and_keep_the_caret_visible() {
    let mut composer = Composer::new();
    let text: Vec<String> = (1..=12).map(|n| format!("line {n}")).collect();
    composer.set_text(&text.join("\n"));
    assert_eq!(composer.desired_height(80), MAX_ROWS);
    let carets = snapshot_both("twelve_lines_bottom", &mut composer);
    assert_eq!(carets, [(9, 7), (9, 7)]);

    // Up to line 2: the view scrolls so the caret stays visible.
    for _ in 0..10 {
        composer.handle_key(key(KeyCode::Up));
    }
    let carets = snapshot_both("twelve_lines_top", &mut composer);
    assert_eq!(carets, [(8, 0), (8, 0)]);
    assert!(
        composer.text().starts_with("line 1\n"),
        "still the same text"
    );
}

#[test]
fn pasted_multiline_text() {
    let mut composer = Composer::new();
    type_text(&mut composer, "Apply this patch:");
    composer.handle_paste("\r\nfn main() {\r\n\tprintln!(\"hi\");\r\n}\r\r\nthanks");
    assert_eq!(
        composer.text(),
        "Apply this patch:\nfn main() {\n\tprintln!(\"hi\");\n}\n\nthanks"
    );
    let carets = snapshot_both("pasted", &mut composer);
    assert_eq!(carets, [(8, 5), (8, 5)]);
}

#[test]
fn caret_after_cjk_counts_two_cells() {
    let mut composer = Composer::new();
    type_text(&mut composer, "日本語");
    assert_eq!(draw(&mut composer, 80).1, (8, 0));
    composer.handle_key(key(KeyCode::Left));
    assert_eq!(draw(&mut composer, 80).1, (6, 0));
    type_text(&mut composer, "\u{3000}");
    assert_eq!(composer.text(), "日本\u{3000}語");
    assert_eq!(draw(&mut composer, 80).1, (8, 0));
    composer.handle_key(key(KeyCode::End));
    composer.handle_key(key(KeyCode::Char('🎌')));
    assert_eq!(draw(&mut composer, 80).1, (12, 0));
}

#[test]
fn caret_moves_by_visual_row_keeping_the_cell_column() {
    // Width 13 wraps at 10 cells: "abcdefghij" / "日本語テスト" → "日本語テス" / "ト".
    let mut composer = Composer::new();
    composer.set_text("abcdefghij日本語テスト");
    let (_, caret) = draw(&mut composer, 13);
    assert_eq!(caret, (4, 2));
    press(&mut composer, &[key(KeyCode::Up)]);
    assert_eq!(draw(&mut composer, 13).1, (4, 1), "column 2 lands after 日");
    press(&mut composer, &[key(KeyCode::Right), key(KeyCode::Up)]);
    assert_eq!(draw(&mut composer, 13).1, (6, 0));
    press(&mut composer, &[key(KeyCode::End)]);
    assert_eq!(
        draw(&mut composer, 13).1,
        (12, 0),
        "End stays at the end of the wrapped row"
    );
    press(&mut composer, &[key(KeyCode::Down)]);
    assert_eq!(draw(&mut composer, 13).1, (12, 1));
    press(&mut composer, &[key(KeyCode::Home)]);
    assert_eq!(draw(&mut composer, 13).1, (2, 1));
}

#[test]
fn click_places_the_caret_with_the_render_geometry() {
    let mut composer = Composer::new();
    composer.set_text("hello 日本語\nsecond");
    let area = Rect::new(0, 3, 40, 2);
    let mut buf = ratatui::buffer::Buffer::empty(Rect::new(0, 0, 40, 10));
    composer.render(area, &mut buf);
    composer.cursor_from_click(area, 9, 3); // the right half of 日 (cells 8–9) → before it
    assert_eq!(composer.caret(), "hello ".len());
    assert_eq!(composer.render(area, &mut buf), Some((8, 3)));
    composer.cursor_from_click(area, 30, 4); // past the end of "second"
    assert_eq!(composer.caret(), composer.text().len());
    composer.cursor_from_click(area, 1, 3); // the gutter → row start
    assert_eq!(composer.caret(), 0);
    composer.cursor_from_click(area, 5, 9); // outside: ignored
    assert_eq!(composer.caret(), 0);
}

#[test]
fn enter_submits_and_newline_keys_do_not() {
    let newline_keys = [
        with(KeyCode::Enter, KeyModifiers::SHIFT),
        with(KeyCode::Enter, KeyModifiers::ALT),
        with(KeyCode::Char('j'), KeyModifiers::CONTROL),
    ];
    for newline in newline_keys {
        let mut composer = Composer::new();
        type_text(&mut composer, "a");
        assert_eq!(composer.handle_key(newline), ComposerAction::Changed);
        type_text(&mut composer, "b");
        assert_eq!(composer.text(), "a\nb", "{newline:?}");
        assert_eq!(
            composer.handle_key(key(KeyCode::Enter)),
            ComposerAction::Submit("a\nb".into())
        );
        assert!(composer.is_empty());
        assert_eq!(composer.input_history().entries(), ["a\nb"]);
    }
}

#[test]
fn trailing_backslash_becomes_a_newline() {
    let mut composer = Composer::new();
    type_text(&mut composer, "first\\");
    assert_eq!(
        composer.handle_key(key(KeyCode::Enter)),
        ComposerAction::Changed
    );
    assert_eq!(composer.text(), "first\n");
    type_text(&mut composer, "C:\\dir\\ x");
    assert_eq!(
        composer.handle_key(key(KeyCode::Enter)),
        ComposerAction::Submit("first\nC:\\dir\\ x".into())
    );
}

#[test]
fn nothing_to_send_leaves_enter_to_the_app() {
    let mut composer = Composer::new();
    let enter = key(KeyCode::Enter);
    assert_eq!(composer.handle_key(enter), ComposerAction::Unhandled(enter));
    composer.handle_paste(" \n\u{3000}");
    assert_eq!(composer.handle_key(enter), ComposerAction::Unhandled(enter));
    assert_eq!(composer.text(), " \n\u{3000}");
    assert!(composer.input_history().is_empty());
}

#[test]
fn modify_other_keys_shift_enter_split_after_esc_is_a_newline() {
    // crossterm 0.29 drops `ESC [27;2;13~` when it arrives in one read; when the read is split
    // after ESC it reports Esc and then the rest as characters. Never type them as text.
    let mut composer = Composer::new();
    type_text(&mut composer, "one");
    let esc = key(KeyCode::Esc);
    assert_eq!(composer.handle_key(esc), ComposerAction::Unhandled(esc));
    for c in "[27;2;13~".chars() {
        composer.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(composer.text(), "one\n");
    type_text(&mut composer, "two");
    assert_eq!(composer.text(), "one\ntwo");
    // The sequence is not an undo step of its own: undo removes "two", then the newline.
    composer.handle_key(with(KeyCode::Char('z'), KeyModifiers::CONTROL));
    assert_eq!(composer.text(), "one\n");
    composer.handle_key(with(KeyCode::Char('z'), KeyModifiers::CONTROL));
    assert_eq!(composer.text(), "one");

    // CSI-u split the same way.
    composer.handle_key(esc);
    for c in "[13;2u".chars() {
        composer.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(composer.text(), "one\n");
}

#[test]
fn brackets_after_esc_that_are_not_a_sequence_stay_text() {
    let mut composer = Composer::new();
    composer.handle_key(key(KeyCode::Esc));
    type_text(&mut composer, "[27] items");
    assert_eq!(composer.text(), "[27] items");
}

#[test]
fn full_width_space_is_text() {
    let mut composer = Composer::new();
    type_text(&mut composer, "あ\u{3000}い");
    assert_eq!(composer.text(), "あ\u{3000}い");
}

#[test]
fn unused_keys_are_unhandled() {
    let keys = [
        key(KeyCode::Esc),
        key(KeyCode::Tab),
        with(KeyCode::BackTab, KeyModifiers::SHIFT),
        with(KeyCode::Char('c'), KeyModifiers::CONTROL),
        with(KeyCode::Char('r'), KeyModifiers::CONTROL),
        key(KeyCode::PageUp),
        key(KeyCode::PageDown),
        key(KeyCode::F(1)),
    ];
    let mut composer = Composer::new();
    type_text(&mut composer, "keep");
    for k in keys {
        assert_eq!(composer.handle_key(k), ComposerAction::Unhandled(k));
    }
    assert_eq!(composer.text(), "keep");
}

#[test]
fn editing_keys() {
    let ctrl = |c| with(KeyCode::Char(c), KeyModifiers::CONTROL);
    let alt = |c| with(KeyCode::Char(c), KeyModifiers::ALT);
    // (initial text, keys, expected text)
    let cases: Vec<(&str, Vec<KeyEvent>, &str)> = vec![
        ("foo bar", vec![ctrl('w')], "foo "),
        (
            "foo bar",
            vec![with(KeyCode::Backspace, KeyModifiers::ALT)],
            "foo ",
        ),
        ("foo bar", vec![ctrl('a'), alt('d')], " bar"),
        ("foo bar", vec![alt('b'), ctrl('k')], "foo "),
        (
            "foo bar",
            vec![
                with(KeyCode::Left, KeyModifiers::CONTROL),
                key(KeyCode::Delete),
            ],
            "foo ar",
        ),
        ("a\nb", vec![ctrl('u')], ""),
        ("a\nb", vec![ctrl('u'), ctrl('z')], "a\nb"),
        ("a\nb", vec![ctrl('u'), ctrl('_'), ctrl('y')], ""),
        (
            "a\nb",
            vec![
                ctrl('u'),
                ctrl('z'),
                with(
                    KeyCode::Char('Z'),
                    KeyModifiers::CONTROL | KeyModifiers::SHIFT,
                ),
            ],
            "",
        ),
        ("日本語", vec![key(KeyCode::Backspace)], "日本"),
        (
            "日本語",
            vec![key(KeyCode::Home), key(KeyCode::Delete)],
            "本語",
        ),
    ];
    for (text, keys, want) in cases {
        let mut composer = Composer::new();
        composer.set_text(text);
        press(&mut composer, &keys);
        assert_eq!(composer.text(), want, "{text:?} {keys:?}");
    }
}

#[test]
fn history_walks_back_and_restores_the_draft() {
    let mut composer = Composer::new();
    composer.set_input_history(InputHistory::from_entries(["first", "second\ntwo lines"]));
    type_text(&mut composer, "draft");
    press(&mut composer, &[key(KeyCode::Up)]);
    assert_eq!(composer.text(), "second\ntwo lines");
    // The caret is at the end (bottom row): ↑ first moves inside the entry.
    press(&mut composer, &[key(KeyCode::Up)]);
    assert_eq!(composer.text(), "second\ntwo lines");
    press(&mut composer, &[key(KeyCode::Up)]);
    assert_eq!(composer.text(), "first");
    assert_eq!(composer.handle_key(key(KeyCode::Up)), ComposerAction::None);
    press(&mut composer, &[key(KeyCode::Down)]);
    assert_eq!(composer.text(), "second\ntwo lines");
    press(&mut composer, &[key(KeyCode::Down), key(KeyCode::Down)]);
    assert_eq!(composer.text(), "draft");
    assert_eq!(
        composer.handle_key(key(KeyCode::Down)),
        ComposerAction::None
    );
}

#[test]
fn history_up_only_from_the_top_row() {
    let mut composer = Composer::new();
    composer.set_input_history(InputHistory::from_entries(["old"]));
    composer.set_text("a\nb");
    press(&mut composer, &[key(KeyCode::Up)]);
    assert_eq!(composer.text(), "a\nb", "the first ↑ moves to the top row");
    press(&mut composer, &[key(KeyCode::Up)]);
    assert_eq!(composer.text(), "old");
}

#[test]
fn submissions_are_pushed_collapsing_repeats() {
    let mut composer = Composer::new();
    for text in ["one", "two", "two", "one"] {
        type_text(&mut composer, text);
        composer.handle_key(key(KeyCode::Enter));
    }
    assert_eq!(composer.input_history().entries(), ["one", "two", "one"]);
}

#[test]
fn history_keeps_the_last_200() {
    let history = InputHistory::from_entries((0..250).map(|n| n.to_string()));
    assert_eq!(history.len(), InputHistory::LIMIT);
    assert_eq!(history.entries()[0], "50");
    assert_eq!(history.entries()[199], "249");
}

#[test]
fn history_round_trips_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = InputHistory::path_for(dir.path());
    assert_eq!(
        InputHistory::load(&path).unwrap(),
        InputHistory::new(),
        "missing → empty"
    );
    let history = InputHistory::from_entries(["one", "two\nlines \"quoted\"", "日本語"]);
    history.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 3, "one JSON string per line: {text}");
    assert_eq!(InputHistory::load(&path).unwrap(), history);

    // A JSON array is read too; lines that are not JSON strings are skipped.
    std::fs::write(&path, r#"["a", "b"]"#).unwrap();
    assert_eq!(InputHistory::load(&path).unwrap().entries(), ["a", "b"]);
    std::fs::write(&path, "\"a\"\nnot json\n{\"x\":1}\n\"b\"\n").unwrap();
    assert_eq!(InputHistory::load(&path).unwrap().entries(), ["a", "b"]);
}
