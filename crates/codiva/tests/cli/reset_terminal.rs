//! `codiva --reset-terminal` writes the sequences that undo what a crashed program left on and
//! says on stderr, in one line, what it reset.

use std::process::Command;

use codiva_tui::terminal::{RESET_SEQUENCE, RESET_SUMMARY};

#[test]
fn reset_terminal_confirms_what_it_did() {
    let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
        .arg("--reset-terminal")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), RESET_SEQUENCE);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr, format!("codiva: terminal reset: {RESET_SUMMARY}\n"));
    assert_eq!(stderr.lines().count(), 1);
}
