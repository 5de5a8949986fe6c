//! Key decoding: which editing command a key event means, and the escape sequences terminals send
//! for modified keys when crossterm does not decode them.
//!
//! Shift+Enter reaches the composer in several shapes:
//! - `Enter` + SHIFT (CSI-u / kitty keyboard protocol, when the app enabled keyboard enhancement:
//!   `ESC [13;2u`, which crossterm decodes);
//! - `Enter` + ALT (`ESC CR`, what many terminals send for Option/Alt+Enter);
//! - Ctrl+J (`LF` in raw mode);
//! - xterm's modifyOtherKeys `ESC [27;2;13~`. crossterm 0.29 does not decode this one: its
//!   parser reads `ESC [ 27 ; 2 ; 13 ~` as a "special key" whose first number (27) it does not
//!   know, reports a parse error and drops the bytes, so when the sequence arrives in one read
//!   nothing reaches the app at all. When the read is split after the `ESC` (slow links, ssh),
//!   crossterm reports `Esc` and then the rest as the characters `[`, `2`, `7`, `;`, … — the
//!   shape that once typed `[27;2;13~` into the prompt. [`SequenceDecoder`] recognises that
//!   shape so the characters never stay in the text.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks the editor to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    Insert(char),
    Newline,
    /// Enter: submit, or a newline when the character before the caret is a trailing `\`.
    Enter,
    Left,
    Right,
    Up,
    Down,
    Home,
    End,
    WordLeft,
    WordRight,
    Backspace,
    Delete,
    DeleteWordBack,
    DeleteWordForward,
    KillToLineEnd,
    ClearAll,
    Undo,
    Redo,
    /// Not a composer key: the app decides.
    Unhandled,
}

/// Maps a key to a command. Release events are for nobody (`None`).
pub(crate) fn command_for(key: &KeyEvent) -> Option<Command> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let mods = key.modifiers;
    let ctrl = mods.contains(KeyModifiers::CONTROL);
    let alt = mods.contains(KeyModifiers::ALT);
    let shift = mods.contains(KeyModifiers::SHIFT);
    let plain = !ctrl && !alt;
    let command = match key.code {
        KeyCode::Enter if shift || alt || ctrl => Command::Newline,
        KeyCode::Enter => Command::Enter,
        KeyCode::Left if ctrl || alt => Command::WordLeft,
        KeyCode::Right if ctrl || alt => Command::WordRight,
        KeyCode::Left => Command::Left,
        KeyCode::Right => Command::Right,
        KeyCode::Up if plain => Command::Up,
        KeyCode::Down if plain => Command::Down,
        KeyCode::Home => Command::Home,
        KeyCode::End => Command::End,
        KeyCode::Backspace if ctrl || alt => Command::DeleteWordBack,
        KeyCode::Backspace => Command::Backspace,
        KeyCode::Delete if ctrl || alt => Command::DeleteWordForward,
        KeyCode::Delete => Command::Delete,
        KeyCode::Char(c) if ctrl && !alt => control_char(c, shift),
        KeyCode::Char(c) if alt && !ctrl => alt_char(c),
        // IME commits (including the full-width space U+3000) arrive as plain characters.
        KeyCode::Char(c) if plain && !c.is_control() => Command::Insert(c),
        _ => Command::Unhandled,
    };
    Some(command)
}

fn control_char(c: char, shift: bool) -> Command {
    match c.to_ascii_lowercase() {
        'a' => Command::Home,
        'e' => Command::End,
        'b' => Command::Left,
        'f' => Command::Right,
        'h' => Command::Backspace, // ^H: what some terminals send for Backspace
        'j' => Command::Newline,   // LF in raw mode
        'w' => Command::DeleteWordBack,
        'u' => Command::ClearAll,
        'k' => Command::KillToLineEnd,
        'z' if shift || c.is_ascii_uppercase() => Command::Redo,
        'z' => Command::Undo,
        'y' => Command::Redo,
        // Ctrl+_ is byte 0x1F, which crossterm reports as Ctrl+7; Ctrl+/ sends the same byte.
        // With keyboard enhancement it is Ctrl+'_' or Ctrl+Shift+'-'.
        '_' | '7' | '/' => Command::Undo,
        '-' if shift => Command::Undo,
        _ => Command::Unhandled,
    }
}

fn alt_char(c: char) -> Command {
    match c {
        'b' => Command::WordLeft,
        'f' => Command::WordRight,
        'd' => Command::DeleteWordForward,
        _ => Command::Unhandled,
    }
}

/// The longest escape-sequence body the decoder waits for (`[27;15;1114111~` is 16 bytes).
const MAX_SEQUENCE: usize = 16;

/// Recognises a modified-key escape sequence whose `ESC` crossterm reported as a separate
/// `Esc` key, so the rest arrives as characters: xterm modifyOtherKeys `[27;<mod>;<code>~` and
/// CSI-u `[<code>;<mod>u`.
#[derive(Debug, Default, Clone)]
pub(crate) struct SequenceDecoder {
    state: DecoderState,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum DecoderState {
    #[default]
    Idle,
    /// The last key was a bare `Esc`.
    AfterEsc,
    /// Characters of a possible sequence, starting with `[`.
    Collecting(String),
}

/// What the decoder makes of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// Not part of a sequence: handle the key normally.
    Pass,
    /// The first character (`[`) of a possible sequence: handle it normally, but remember the
    /// state before it (the caller snapshots).
    Started,
    /// A further character of the sequence: handle it normally.
    Continued,
    /// The sequence completed: undo the characters it typed and handle this key instead.
    Complete(KeyEvent),
}

impl SequenceDecoder {
    pub(crate) fn feed(&mut self, key: &KeyEvent) -> Decoded {
        if key.kind == KeyEventKind::Release {
            return Decoded::Pass;
        }
        let state = std::mem::take(&mut self.state);
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match (state, key.code) {
            (_, KeyCode::Esc) if key.modifiers.is_empty() => {
                self.state = DecoderState::AfterEsc;
                Decoded::Pass
            }
            (DecoderState::AfterEsc, KeyCode::Char('[')) if plain => {
                self.state = DecoderState::Collecting("[".to_owned());
                Decoded::Started
            }
            // `ESC [` read as one Alt+'[' by a parser that does that.
            (DecoderState::Idle, KeyCode::Char('['))
                if key.modifiers.contains(KeyModifiers::ALT) =>
            {
                self.state = DecoderState::Collecting("[".to_owned());
                Decoded::Started
            }
            (DecoderState::Collecting(mut body), KeyCode::Char(c)) if plain => {
                body.push(c);
                if let Some(decoded) = parse_sequence(&body) {
                    return Decoded::Complete(decoded);
                }
                if is_sequence_prefix(&body) {
                    self.state = DecoderState::Collecting(body);
                    Decoded::Continued
                } else {
                    Decoded::Pass
                }
            }
            _ => Decoded::Pass,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.state = DecoderState::Idle;
    }
}

/// Whether `body` (starting with `[`) can still grow into a sequence [`parse_sequence`] knows.
fn is_sequence_prefix(body: &str) -> bool {
    let Some(params) = body.strip_prefix('[') else {
        return false;
    };
    body.len() < MAX_SEQUENCE
        && params.chars().all(|c| c.is_ascii_digit() || c == ';')
        && params.matches(';').count() <= 2
}

/// Decodes `[27;<mod>;<code>~` (modifyOtherKeys) or `[<code>;<mod>u` (CSI-u) into a key event.
pub(crate) fn parse_sequence(body: &str) -> Option<KeyEvent> {
    let params = body.strip_prefix('[')?;
    let (code, mods) = if let Some(params) = params.strip_suffix('~') {
        let mut parts = params.split(';');
        if parts.next()? != "27" {
            return None;
        }
        let mods: u32 = parts.next()?.parse().ok()?;
        let code: u32 = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        (code, mods)
    } else if let Some(params) = params.strip_suffix('u') {
        let mut parts = params.split(';');
        let code: u32 = parts.next()?.parse().ok()?;
        let mods: u32 = match parts.next() {
            Some(mods) => mods.parse().ok()?,
            None => 1,
        };
        if parts.next().is_some() {
            return None;
        }
        (code, mods)
    } else {
        return None;
    };
    let bits = mods.checked_sub(1)?;
    let mut modifiers = KeyModifiers::NONE;
    if bits & 1 != 0 {
        modifiers |= KeyModifiers::SHIFT;
    }
    if bits & 2 != 0 {
        modifiers |= KeyModifiers::ALT;
    }
    if bits & 4 != 0 {
        modifiers |= KeyModifiers::CONTROL;
    }
    let code = match code {
        13 => KeyCode::Enter,
        9 => KeyCode::Tab,
        27 => KeyCode::Esc,
        8 | 127 => KeyCode::Backspace,
        code => KeyCode::Char(char::from_u32(code).filter(|c| !c.is_control())?),
    };
    Some(KeyEvent::new(code, modifiers))
}
