//! The review in the diff view: the cursor and a range, the comment editor, the comments'
//! list (from the session's row, as every client sees it), edits, removals, the one send, and
//! a click on a line. Snapshots at 80×24 and 200×60, in English and Japanese.

use codiva_protocol::ClientRequest;
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{DiffText, ManagerEvent};
use codiva_protocol::review::{
    DiffSide, ReviewAddParams, ReviewAnchor, ReviewComment, ReviewEditParams, ReviewRemoveParams,
};
use codiva_tui::app::{App, Effect, UiEvent};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use crate::support::*;

const DIFF: &str = "\
diff --git a/src/config.rs b/src/config.rs
index 1111111..2222222 100644
--- a/src/config.rs
+++ b/src/config.rs
@@ -1,5 +1,6 @@
 use std::path::Path;
-fn load() -> Config {
-    parse(read())
+/// Loads the config (日本語のコメント).
+fn load(path: &Path) -> Config {
+    parse(read(path))
 }
 
diff --git a/src/parse.rs b/src/parse.rs
new file mode 100644
--- /dev/null
+++ b/src/parse.rs
@@ -0,0 +1,3 @@
+pub fn parse(text: &str) -> Config {
+    toml::from_str(text).unwrap_or_default()
+}
";

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn shift(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::SHIFT)))
}

fn diff_open() -> App {
    let mut app = detail_app();
    typed(&mut app, "/diff");
    press(&mut app, KeyCode::Enter);
    answer_ok(
        &mut app,
        &request(ClientRequest::SessionDiffText(sid("ask-perm"))),
        DiffText {
            text: DIFF.into(),
            truncated: false,
        },
    );
    app
}

fn comment(id: &str, path: &str, lines: (u32, u32), quoted: &[&str], body: &str) -> ReviewComment {
    ReviewComment {
        id: id.into(),
        anchor: ReviewAnchor {
            path: path.into(),
            side: DiffSide::New,
            start_line: lines.0,
            end_line: lines.1,
        },
        lines: quoted.iter().map(|l| (*l).to_owned()).collect(),
        more_lines: 0,
        body: body.into(),
        created_at: 0,
    }
}

/// The session's row now holds `comments` (as after a `review/add` by any client).
fn row_with(app: &mut App, comments: Vec<ReviewComment>) {
    let mut row = app
        .sessions()
        .iter()
        .find(|s| s.id == "ask-perm")
        .cloned()
        .unwrap();
    row.review = comments;
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session: row,
    })));
}

fn two_comments() -> Vec<ReviewComment> {
    vec![
        comment(
            "c1",
            "src/config.rs",
            (2, 3),
            &[
                "+/// Loads the config (日本語のコメント).",
                "+fn load(path: &Path) -> Config {",
            ],
            "Say which file it reads.\nAnd what happens when it is missing.",
        ),
        comment(
            "c2",
            "src/parse.rs",
            (2, 2),
            &["+    toml::from_str(text).unwrap_or_default()"],
            "エラーを握りつぶさないでください 🙏",
        ),
    ]
}

fn with_comments() -> App {
    let mut app = diff_open();
    row_with(&mut app, two_comments());
    app
}

fn snapshot_both_languages(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            insta::assert_snapshot!(
                format!("{name}{suffix}_80x24"),
                draw(&mut app, 80, 24).backend()
            );
            insta::assert_snapshot!(
                format!("{name}{suffix}_200x60"),
                draw(&mut app, 200, 60).backend()
            );
        });
    }
}

#[test]
fn the_diff_view_marks_and_lists_the_sessions_comments() {
    snapshot_both_languages("review_list", with_comments);
    snapshot_both_languages("review_list_focused", || {
        let mut app = with_comments();
        press(&mut app, KeyCode::Char('l'));
        press(&mut app, KeyCode::Down);
        app
    });
}

#[test]
fn a_range_is_selected_and_commented_on_in_the_editor() {
    let range = || {
        let mut app = diff_open();
        // The cursor starts on the first line of the first file (` use std::path::Path;`).
        press(&mut app, KeyCode::Down);
        shift(&mut app, KeyCode::Down);
        shift(&mut app, KeyCode::Down);
        app
    };
    snapshot_both_languages("review_range", range);
    snapshot_both_languages("review_editor", || {
        let mut app = range();
        press(&mut app, KeyCode::Char('c'));
        typed(&mut app, "Keep the old name: 旧い名前のままに");
        app
    });
    with_lang(Lang::En, || {
        let mut app = range();
        assert!(press(&mut app, KeyCode::Char('c')).is_empty());
        typed(&mut app, "Keep the old name");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            vec![request(ClientRequest::ReviewAdd(ReviewAddParams {
                session_id: "ask-perm".into(),
                // Removed lines 2-3 and added line 2: the branch's line 2.
                anchor: ReviewAnchor {
                    path: "src/config.rs".into(),
                    side: DiffSide::New,
                    start_line: 2,
                    end_line: 2,
                },
                lines: vec![
                    "-fn load() -> Config {".into(),
                    "-    parse(read())".into(),
                    "+/// Loads the config (日本語のコメント).".into(),
                ],
                body: "Keep the old name".into(),
            }))]
        );
        // Esc in the editor cancels it; the view stays.
        press(&mut app, KeyCode::Char('c'));
        typed(&mut app, "never mind");
        assert!(press(&mut app, KeyCode::Esc).is_empty());
        assert!(app.overlay_open());
    });
}

#[test]
fn comments_are_edited_removed_and_sent_once() {
    with_lang(Lang::En, || {
        let mut app = with_comments();
        // Nothing is sent without comments.
        let mut empty = diff_open();
        assert!(press(&mut empty, KeyCode::Char('S')).is_empty());
        let screen = format!("{}", draw(&mut empty, 120, 40).backend());
        assert!(screen.contains("No comments yet"), "{screen}");

        press(&mut app, KeyCode::Char('l'));
        press(&mut app, KeyCode::Down);
        assert!(press(&mut app, KeyCode::Char('e')).is_empty());
        typed(&mut app, " まる");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            vec![request(ClientRequest::ReviewEdit(ReviewEditParams {
                session_id: "ask-perm".into(),
                comment_id: "c2".into(),
                body: "エラーを握りつぶさないでください 🙏 まる".into(),
            }))]
        );
        assert_eq!(
            press(&mut app, KeyCode::Char('d')),
            vec![request(ClientRequest::ReviewRemove(ReviewRemoveParams {
                session_id: "ask-perm".into(),
                comment_id: "c2".into(),
            }))]
        );
        // Another client removed it: the list follows the row.
        row_with(&mut app, two_comments()[..1].to_vec());
        let screen = format!("{}", draw(&mut app, 120, 40).backend());
        assert!(screen.contains("Review: 1 comment ·"), "{screen}");
        assert!(!screen.contains("src/parse.rs:2"), "{screen}");
        assert_eq!(
            press(&mut app, KeyCode::Char('S')),
            vec![request(ClientRequest::ReviewSend(sid("ask-perm")))]
        );
        // Sent: the row has none, the list goes, and the keys are the diff's again (the footer
        // says so in the same frame).
        let screen = format!("{}", draw(&mut app, 120, 40).backend());
        assert!(
            screen.contains("Enter/e edit · d remove"),
            "the list has the keys: {screen}"
        );
        row_with(&mut app, Vec::new());
        let screen = format!("{}", draw(&mut app, 120, 40).backend());
        assert!(!screen.contains("Review:"), "{screen}");
        assert!(screen.contains("c comment · S send review"), "{screen}");
    });
}

#[test]
fn a_click_on_a_line_selects_it() {
    with_lang(Lang::En, || {
        let mut app = diff_open();
        let screen = format!("{}", draw(&mut app, 120, 40).backend());
        let row = screen
            .lines()
            .position(|line| line.contains("toml::from_str"))
            .unwrap();
        app.handle(UiEvent::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 60,
            row: u16::try_from(row).unwrap(),
            modifiers: KeyModifiers::NONE,
        }));
        press(&mut app, KeyCode::Char('c'));
        typed(&mut app, "x");
        let effects = press(&mut app, KeyCode::Enter);
        let [Effect::Request { request, .. }] = effects.as_slice() else {
            panic!("{effects:?}");
        };
        let ClientRequest::ReviewAdd(params) = request else {
            panic!("{request:?}");
        };
        assert_eq!(params.anchor.path, "src/parse.rs");
        assert_eq!((params.anchor.start_line, params.anchor.end_line), (2, 2));
    });
}

#[test]
fn long_and_multibyte_comments_never_panic() {
    let body = format!(
        "{}\n{}",
        "長いコメント🎌é\u{301}".repeat(900),
        "\u{1b}[31m\u{202e}x".repeat(50)
    );
    let long_line = format!("+{}", "字🙏".repeat(500));
    let comments: Vec<ReviewComment> = (0..50)
        .map(|i| {
            comment(
                &format!("c{i}"),
                if i % 2 == 0 {
                    "src/config.rs"
                } else {
                    "src/日本語/とても長いパス名のファイル.rs"
                },
                (1, 3),
                &[long_line.as_str()],
                &body,
            )
        })
        .collect();
    for lang in [Lang::En, Lang::Ja] {
        with_lang(lang, || {
            let mut app = diff_open();
            row_with(&mut app, comments.clone());
            for (w, h) in [(80, 24), (200, 60), (20, 8), (3, 3), (1, 1), (41, 12)] {
                draw(&mut app, w, h);
            }
            press(&mut app, KeyCode::Char('l'));
            press(&mut app, KeyCode::End);
            press(&mut app, KeyCode::Char('e'));
            for (w, h) in [(80, 24), (200, 60), (20, 8), (3, 3), (1, 1), (41, 12)] {
                draw(&mut app, w, h);
            }
        });
    }
}
