//! What codiva's front ends ask of the operating system, apart from the session manager: run
//! a child in the terminal's foreground (`$SHELL`, `$EDITOR`), desktop notifications and
//! opening a URL, and the signals that end a front end. The TUI, `exec` and `serve` use it;
//! the core uses only its [`timer`] (the rests of an agent's stdout).

pub mod clock;
pub mod desktop_notify;
pub mod detach;
pub mod foreground;
pub mod shutdown_signals;
pub mod socket;
pub mod timer;
