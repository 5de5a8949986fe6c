//! Review comments in the diff view, end to end: the built binary in a pseudo-terminal over
//! the repository's daemon, the real Claude Code CLI, the mock model server. Two comments on
//! two files (one committed on the branch, one not), written in the diff view's editor, go to
//! the agent as one message naming both anchors; after the daemon is stopped and started again
//! they are not back and nothing is sent twice.

use std::time::Duration;

use codiva_testkit::pty::Pty;
use codiva_testkit::{Match, Reply, Script};

use super::{ESC, Ui, WAIT, start, stop_daemon};

const REVIEWED: &str = "Addressed both review comments.";
/// Shift+↓ as a terminal sends it.
const SHIFT_DOWN: &[u8] = b"\x1b[1;2B";

/// The agent's requests whose last user message is a review.
fn reviews(ui: &Ui) -> Vec<String> {
    ui.mock
        .message_requests()
        .iter()
        .filter_map(|request| request.last_user_text())
        .filter(|text| text.starts_with("Review of your changes"))
        .collect()
}

/// Opens the only session (Enter focuses the list, Enter opens it) and its diff.
fn open_diff(ui: &mut Ui) {
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("‹ write the parser", WAIT);
    ui.pty.type_line("/diff");
    ui.pty.wait_for_text("+pub fn parse(text: &str)", WAIT);
}

#[test]
fn two_comments_on_two_files_in_the_diff_view_go_as_one_review_once() {
    let mut ui = start(|_| {
        Script::new()
            .then_when(
                Match::LastUserContains("Review of your changes".into()),
                Reply::text(REVIEWED),
            )
            .always(Reply::text("Done."))
    });
    ui.pty.type_line("write the parser");
    ui.pty.wait_for_text("Completed", WAIT);
    // The branch's work: a committed file and an uncommitted one.
    let worktree = ui.repo.path().join(".codiva/worktrees/write-the-parser");
    std::fs::write(
        worktree.join("parse.rs"),
        "pub fn parse(text: &str) -> Config {\n    toml::from_str(text).unwrap()\n}\n",
    )
    .unwrap();
    for args in [&["add", "parse.rs"][..], &["commit", "-qm", "parser"]] {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&worktree)
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::fs::write(
        worktree.join("notes.md"),
        "# Notes\n\nThe parser panics on bad input (日本語).\n",
    )
    .unwrap();
    open_diff(&mut ui);

    // The cursor starts on parse.rs line 1: down one, comment.
    ui.pty.send(b"j");
    ui.pty.send(b"c");
    ui.pty.wait_for_text("Comment on parse.rs:2", WAIT);
    ui.pty.type_line("Return the error instead of unwrap.");
    ui.pty.wait_for_text("Review: 1 comment", WAIT);
    // The next file, its three lines as a range.
    ui.pty.send(b"n");
    for _ in 0..6 {
        ui.pty.send(b"j");
    }
    ui.pty.send(SHIFT_DOWN);
    ui.pty.send(SHIFT_DOWN);
    ui.pty.wait_for_text("3 lines selected", WAIT);
    ui.pty.send(b"c");
    ui.pty.wait_for_text("Comment on notes.md:1-3", WAIT);
    ui.pty.type_line("日本語の説明を直して 🙏");
    ui.pty.wait_for_text("Review: 2 comments", WAIT);
    ui.pty.send(b"S");
    ui.pty
        .wait_for_text("Review sent to the agent: 2 comments.", WAIT);
    ui.pty
        .wait_for("the comments gone from the view", WAIT, |screen| {
            !screen.contains("Review:")
        });
    ui.pty.send(ESC);
    ui.pty.wait_for_text(REVIEWED, WAIT);
    ui.pty.wait_for_text("Completed", WAIT);
    let sent = reviews(&ui);
    assert_eq!(sent.len(), 1, "one message: {sent:?}");
    for needed in [
        "2 comments from the user",
        "1. parse.rs:2\n```diff\n+    toml::from_str(text).unwrap()\n```\nReturn the error instead of unwrap.",
        "2. notes.md:1-3\n```diff\n+# Notes\n+\n+The parser panics on bad input (日本語).\n```\n日本語の説明を直して 🙏",
    ] {
        assert!(sent[0].contains(needed), "{needed:?} in {}", sent[0]);
    }

    // The UI quits, the daemon stops; both start again: no comments, nothing sent again.
    for _ in 0..2 {
        ui.pty.send(ESC);
        std::thread::sleep(Duration::from_millis(100));
    }
    ui.pty.type_line("/exit");
    ui.pty
        .wait_exit(Duration::from_secs(30))
        .expect("codiva exits after /exit");
    stop_daemon(ui.codiva(), ui.repo.path());
    ui.pty = Pty::spawn(ui.codiva(), 40, 120).unwrap();
    ui.pty.wait_for_text("codiva 0.1.0", WAIT);
    open_diff(&mut ui);
    assert!(!ui.pty.screen().contains("Review:"), "{}", ui.pty.screen());
    ui.pty.send(b"S");
    ui.pty.wait_for_text("No comments yet", WAIT);
    assert_eq!(reviews(&ui).len(), 1);
    ui.quit();
}
