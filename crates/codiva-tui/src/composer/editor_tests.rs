use super::editor::{Editor, word_end_after, word_start_before};

fn editor(text: &str, caret: usize) -> Editor {
    let mut editor = Editor::default();
    editor.reset(text);
    editor.set_caret(caret, false);
    editor
}

fn typed(text: &str) -> Editor {
    let mut editor = Editor::default();
    for c in text.chars() {
        editor.type_char(c);
    }
    editor
}

#[test]
fn grapheme_edits() {
    // (text, caret, edit, expected text, expected caret)
    type Edit = fn(&mut Editor);
    let cases: &[(&str, usize, Edit, &str, usize)] = &[
        ("abc", 3, Editor::backspace, "ab", 2),
        ("abc", 0, Editor::backspace, "abc", 0),
        ("日本", 6, Editor::backspace, "日", 3),
        ("a👩‍💻", 12, Editor::backspace, "a", 1),
        ("e\u{301}x", 3, Editor::backspace, "x", 0),
        ("abc", 0, Editor::delete_forward, "bc", 0),
        ("日本", 0, Editor::delete_forward, "本", 0),
        ("abc", 3, Editor::delete_forward, "abc", 3),
        ("foo bar", 7, Editor::delete_word_back, "foo ", 4),
        ("foo bar  ", 9, Editor::delete_word_back, "foo ", 4),
        ("a.b/c", 5, Editor::delete_word_back, "a.b/", 4),
        ("foo bar", 0, Editor::delete_word_forward, " bar", 0),
        ("foo bar", 3, Editor::delete_word_forward, "foo", 3),
        ("ab\ncd", 1, Editor::kill_to_line_end, "a\ncd", 1),
        ("ab\ncd", 2, Editor::kill_to_line_end, "abcd", 2),
        ("ab\ncd", 4, Editor::kill_to_line_end, "ab\nc", 4),
        ("ab\ncd", 4, Editor::clear_all, "", 0),
    ];
    for &(text, caret, edit, want_text, want_caret) in cases {
        let mut e = editor(text, caret);
        edit(&mut e);
        assert_eq!(
            (e.text(), e.caret()),
            (want_text, want_caret),
            "{text:?} @ {caret}"
        );
    }
}

#[test]
fn motions() {
    type Motion = fn(&mut Editor);
    let cases: &[(&str, usize, Motion, usize)] = &[
        ("日本", 0, Editor::move_right, 3),
        ("日本", 6, Editor::move_left, 3),
        ("a👩‍💻b", 1, Editor::move_right, 12),
        ("a👩‍💻b", 12, Editor::move_left, 1),
        ("", 0, Editor::move_left, 0),
        ("foo bar baz", 11, Editor::word_left, 8),
        ("foo bar baz", 8, Editor::word_left, 4),
        ("foo bar baz", 0, Editor::word_right, 3),
        ("foo bar baz", 3, Editor::word_right, 7),
        ("fn(x)", 0, Editor::word_right, 2),
        ("日本語 テスト", 0, Editor::word_right, 9),
    ];
    for &(text, caret, motion, want) in cases {
        let mut e = editor(text, caret);
        motion(&mut e);
        assert_eq!(e.caret(), want, "{text:?} @ {caret}");
    }
    assert_eq!(word_start_before("a  ", 3), 0);
    assert_eq!(word_end_after("  a", 0), 3);
}

#[test]
fn caret_snaps_to_graphemes() {
    let e = editor("日本", 4);
    assert_eq!(e.caret(), 3);
    let e = editor("ab", 99);
    assert_eq!(e.caret(), 2);
}

#[test]
fn typing_undoes_word_by_word() {
    let mut e = typed("hello big world");
    assert!(e.undo());
    assert_eq!(e.text(), "hello big");
    assert!(e.undo());
    assert_eq!(e.text(), "hello");
    assert!(e.undo());
    assert_eq!(e.text(), "");
    assert!(!e.undo());
    assert!(e.redo());
    assert_eq!(e.text(), "hello");
    assert!(e.redo());
    assert!(e.redo());
    assert_eq!(e.text(), "hello big world");
    assert_eq!(e.caret(), e.text().len());
    assert!(!e.redo());
}

#[test]
fn motion_and_kind_changes_split_undo_steps() {
    let mut e = typed("abc");
    e.backspace();
    e.backspace();
    e.move_left();
    e.type_char('X');
    assert_eq!(e.text(), "Xa");
    assert!(e.undo());
    assert_eq!(e.text(), "a");
    assert!(e.undo());
    assert_eq!(e.text(), "abc", "both backspaces are one step");
    assert!(e.undo());
    assert_eq!(e.text(), "");
}

#[test]
fn a_new_edit_drops_redo() {
    let mut e = typed("one");
    e.insert("\n");
    assert!(e.undo());
    e.type_char('!');
    assert!(!e.redo());
    assert_eq!(e.text(), "one!");
}

#[test]
fn clear_all_is_undoable() {
    let mut e = typed("draft text");
    e.clear_all();
    assert_eq!(e.text(), "");
    assert!(e.undo());
    assert_eq!(e.text(), "draft text");
}
