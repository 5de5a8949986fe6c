use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::keys::{Command, Decoded, SequenceDecoder, command_for, parse_sequence};

fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

#[test]
fn key_commands() {
    use KeyCode::*;
    const NONE: KeyModifiers = KeyModifiers::NONE;
    const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const ALT: KeyModifiers = KeyModifiers::ALT;
    let cases = [
        (Enter, NONE, Command::Enter),
        (Enter, SHIFT, Command::Newline),
        (Enter, ALT, Command::Newline),
        (Enter, CTRL, Command::Newline),
        (Char('j'), CTRL, Command::Newline),
        (Char('a'), NONE, Command::Insert('a')),
        (Char('A'), SHIFT, Command::Insert('A')),
        (Char('\u{3000}'), NONE, Command::Insert('\u{3000}')),
        (Char('あ'), NONE, Command::Insert('あ')),
        (Left, NONE, Command::Left),
        (Left, CTRL, Command::WordLeft),
        (Right, ALT, Command::WordRight),
        (Char('b'), ALT, Command::WordLeft),
        (Char('f'), ALT, Command::WordRight),
        (Char('d'), ALT, Command::DeleteWordForward),
        (Char('w'), CTRL, Command::DeleteWordBack),
        (Backspace, ALT, Command::DeleteWordBack),
        (Backspace, NONE, Command::Backspace),
        (Char('h'), CTRL, Command::Backspace),
        (Delete, NONE, Command::Delete),
        (Home, NONE, Command::Home),
        (End, NONE, Command::End),
        (Char('a'), CTRL, Command::Home),
        (Char('e'), CTRL, Command::End),
        (Char('u'), CTRL, Command::ClearAll),
        (Char('k'), CTRL, Command::KillToLineEnd),
        (Char('z'), CTRL, Command::Undo),
        (Char('_'), CTRL, Command::Undo),
        (Char('7'), CTRL, Command::Undo),
        (Char('y'), CTRL, Command::Redo),
        (Char('z'), CTRL | SHIFT, Command::Redo),
        (Char('Z'), CTRL | SHIFT, Command::Redo),
        (Up, NONE, Command::Up),
        (Down, NONE, Command::Down),
        (Esc, NONE, Command::Unhandled),
        (Tab, NONE, Command::Unhandled),
        (BackTab, SHIFT, Command::Unhandled),
        (Char('c'), CTRL, Command::Unhandled),
        (Char('r'), CTRL, Command::Unhandled),
        (PageUp, NONE, Command::Unhandled),
        (PageDown, NONE, Command::Unhandled),
        (F(5), NONE, Command::Unhandled),
        (Char('x'), ALT, Command::Unhandled),
    ];
    for (code, mods, want) in cases {
        assert_eq!(
            command_for(&key(code, mods)),
            Some(want),
            "{code:?} {mods:?}"
        );
    }
}

#[test]
fn releases_are_ignored() {
    let release = KeyEvent::new_with_kind(
        KeyCode::Char('a'),
        KeyModifiers::NONE,
        KeyEventKind::Release,
    );
    assert_eq!(command_for(&release), None);
}

#[test]
fn sequences_decode() {
    let cases = [
        ("[27;2;13~", Some(key(KeyCode::Enter, KeyModifiers::SHIFT))),
        ("[27;3;13~", Some(key(KeyCode::Enter, KeyModifiers::ALT))),
        (
            "[27;5;13~",
            Some(key(KeyCode::Enter, KeyModifiers::CONTROL)),
        ),
        ("[13;2u", Some(key(KeyCode::Enter, KeyModifiers::SHIFT))),
        (
            "[27;5;106~",
            Some(key(KeyCode::Char('j'), KeyModifiers::CONTROL)),
        ),
        ("[27;2;9~", Some(key(KeyCode::Tab, KeyModifiers::SHIFT))),
        ("[5~", None),
        ("[27;2~", None),
        ("[27;0;13~", None),
        ("27;2;13~", None),
    ];
    for (body, want) in cases {
        assert_eq!(parse_sequence(body), want, "{body}");
    }
}

#[test]
fn decoder_follows_esc_then_characters() {
    let mut decoder = SequenceDecoder::default();
    assert_eq!(
        decoder.feed(&key(KeyCode::Esc, KeyModifiers::NONE)),
        Decoded::Pass
    );
    assert_eq!(
        decoder.feed(&key(KeyCode::Char('['), KeyModifiers::NONE)),
        Decoded::Started
    );
    for c in "27;2;13".chars() {
        assert_eq!(
            decoder.feed(&key(KeyCode::Char(c), KeyModifiers::NONE)),
            Decoded::Continued
        );
    }
    assert_eq!(
        decoder.feed(&key(KeyCode::Char('~'), KeyModifiers::NONE)),
        Decoded::Complete(key(KeyCode::Enter, KeyModifiers::SHIFT))
    );
    // Back to idle: a '[' without a preceding Esc is just a character.
    assert_eq!(
        decoder.feed(&key(KeyCode::Char('['), KeyModifiers::NONE)),
        Decoded::Pass
    );
}

#[test]
fn decoder_gives_up_on_other_text() {
    let mut decoder = SequenceDecoder::default();
    decoder.feed(&key(KeyCode::Esc, KeyModifiers::NONE));
    assert_eq!(
        decoder.feed(&key(KeyCode::Char('['), KeyModifiers::NONE)),
        Decoded::Started
    );
    assert_eq!(
        decoder.feed(&key(KeyCode::Char('x'), KeyModifiers::NONE)),
        Decoded::Pass
    );
    assert_eq!(
        decoder.feed(&key(KeyCode::Char('2'), KeyModifiers::NONE)),
        Decoded::Pass
    );
}
