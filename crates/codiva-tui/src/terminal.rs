//! The terminal: entering and leaving raw mode, the alternate screen, bracketed paste and
//! keyboard enhancements — and restoring all of it on every exit path (normal exit, error,
//! panic, signal). At start-up mouse reporting left on by a crashed program is switched off.

use std::io::{self, Write};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableMouseCapture, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};
use crossterm::{cursor, execute};

/// Below this many rows codiva draws inline (under the shell prompt) instead of taking over
/// the screen.
pub const ALT_SCREEN_MIN_ROWS: u16 = 12;

/// How codiva took the terminal, so that it gives back exactly that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalModes {
    pub alternate_screen: bool,
    pub keyboard_enhancement: bool,
}

/// Every sequence that undoes what any codiva run (or a crashed one) may have left on:
/// mouse reporting of all kinds, bracketed paste, focus events, keyboard enhancement, the
/// alternate screen; and a visible cursor.
pub const RESET_SEQUENCE: &str = concat!(
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l", // mouse reporting
    "\x1b[?2004l",                                                        // bracketed paste
    "\x1b[?1004l",                                                        // focus events
    "\x1b[<u",     // pop keyboard enhancement (kitty)
    "\x1b[>4;0m",  // modifyOtherKeys off
    "\x1b[?1049l", // alternate screen
    "\x1b[?25h",   // cursor visible
);

/// What [`RESET_SEQUENCE`] switches back, for `codiva --reset-terminal` to confirm.
pub const RESET_SUMMARY: &str = "mouse reporting, bracketed paste, focus events and keyboard \
                                 enhancement off, main screen, cursor shown";

/// Whether the UI can take this terminal: stdin and stdout are terminals and raw mode can be
/// entered (it is left again at once). Asked before anything starts, so that a `codiva`
/// without a terminal starts no daemon and no agent.
pub fn check() -> io::Result<()> {
    use std::io::IsTerminal;
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        return Err(io::Error::other("stdin and stdout are not a terminal"));
    }
    enable_raw_mode()?;
    disable_raw_mode()
}

/// Takes the terminal for the UI. With `mouse`, clicks, the wheel and drags come to codiva
/// (Shift+drag still selects natively in most terminals); without, the terminal keeps them.
pub fn enter(mouse: bool) -> io::Result<TerminalModes> {
    let mut out = io::stdout();
    // A crashed run may have left mouse reporting on: switch it off before anything else.
    execute!(out, DisableMouseCapture)?;
    enable_raw_mode()?;
    let rows = crossterm::terminal::size()
        .map(|(_, rows)| rows)
        .unwrap_or(24);
    let alternate_screen = rows >= ALT_SCREEN_MIN_ROWS;
    if alternate_screen {
        execute!(out, EnterAlternateScreen)?;
    }
    // Focus events (`FocusGained`/`FocusLost`) tell notifications whether the user is looking.
    execute!(
        out,
        EnableBracketedPaste,
        crossterm::event::EnableFocusChange
    )?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    let keyboard_enhancement = supports_keyboard_enhancement().unwrap_or(false);
    if keyboard_enhancement {
        execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
    }
    Ok(TerminalModes {
        alternate_screen,
        keyboard_enhancement,
    })
}

/// Gives the terminal back. Safe to call more than once and from a panic hook.
pub fn leave(modes: TerminalModes) {
    let mut out = io::stdout();
    if modes.keyboard_enhancement {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(
        out,
        DisableBracketedPaste,
        DisableFocusChange,
        DisableMouseCapture
    );
    if modes.alternate_screen {
        let _ = execute!(out, LeaveAlternateScreen);
    }
    let _ = execute!(out, cursor::Show);
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// Hands the terminal to a program the user runs (`$SHELL`, `$EDITOR`) until `child` ends:
/// codiva's modes are undone first (keyboard enhancement, paste, focus and mouse reporting,
/// the alternate screen, raw mode), so the program finds the terminal as a shell leaves it;
/// then they are taken again. The caller stops reading input before (the program reads it)
/// and redraws the whole screen after. Returns the modes now in force.
pub async fn hand_over<F: std::future::Future>(
    modes: TerminalModes,
    mouse: bool,
    child: F,
) -> io::Result<(F::Output, TerminalModes)> {
    leave(modes);
    let output = child.await;
    let modes = enter(mouse)?;
    Ok((output, modes))
}

/// `codiva --reset-terminal`: fixes a terminal a crashed program left in a bad state.
pub fn reset() -> io::Result<()> {
    let mut out = io::stdout();
    out.write_all(RESET_SEQUENCE.as_bytes())?;
    out.flush()?;
    let _ = disable_raw_mode();
    Ok(())
}

/// Installs a panic hook that restores the terminal before the panic message is printed. Only
/// a panic on the calling (UI) thread ends the UI; one in another thread or task leaves the
/// terminal as it is, since the UI keeps running on it.
pub fn restore_on_panic(modes: TerminalModes) {
    let previous = std::panic::take_hook();
    let ui_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui_thread {
            leave(modes);
        }
        previous(info);
    }));
}
