use codiva_protocol::review::{DiffSide, ReviewAddParams, ReviewAnchor, ReviewComment};

use super::*;

fn anchor(path: &str, start: u32, end: u32) -> ReviewAnchor {
    ReviewAnchor {
        path: path.into(),
        side: DiffSide::New,
        start_line: start,
        end_line: end,
    }
}

fn add(path: &str, start: u32, end: u32, lines: &[&str], body: &str) -> ReviewAddParams {
    ReviewAddParams {
        session_id: "s".into(),
        anchor: anchor(path, start, end),
        lines: lines.iter().map(|l| (*l).to_owned()).collect(),
        body: body.into(),
    }
}

fn comment(id: &str, params: ReviewAddParams) -> ReviewComment {
    new_comment(id.into(), params, 0).unwrap()
}

#[test]
fn a_comment_is_checked_and_its_lines_cleaned_and_capped() {
    assert_eq!(
        new_comment("c1".into(), add("a.rs", 1, 1, &[], "  \n "), 0),
        Err(CommentError::EmptyBody)
    );
    assert_eq!(
        new_comment("c1".into(), add("", 1, 1, &[], "x"), 0),
        Err(CommentError::NoPath)
    );
    assert_eq!(
        new_comment("c1".into(), add("a.rs", 3, 2, &[], "x"), 0),
        Err(CommentError::BadRange)
    );
    assert_eq!(
        new_comment("c1".into(), add("a.rs", 0, 2, &[], "x"), 0),
        Err(CommentError::BadRange)
    );
    let long = "あ".repeat(MAX_BODY_BYTES / 3 + 1);
    assert!(matches!(
        new_comment("c1".into(), add("a.rs", 1, 1, &[], &long), 0),
        Err(CommentError::BodyTooLong(_))
    ));
    let many: Vec<String> = (0..60).map(|i| format!("+line {i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let wide = format!("+{}", "字".repeat(400));
    let mut lines = vec![wide.as_str(), "+\u{1b}[31mred\u{1b}[0m\u{202e}"];
    lines.extend(&many);
    let made = comment("c1", add("a.rs", 1, 62, &lines, " fix \u{7}this "));
    assert_eq!(made.body, "fix this");
    assert_eq!(made.lines.len(), MAX_QUOTED_LINES);
    assert_eq!(made.more_lines, 62 - MAX_QUOTED_LINES as u32);
    assert!(made.lines[0].len() <= MAX_QUOTED_LINE_BYTES);
    assert!(made.lines[0].starts_with("+字"));
    assert_eq!(made.lines[1], "+red");
}

#[test]
fn the_message_carries_every_comment_with_its_anchor_lines_and_text() {
    let comments = [
        comment(
            "c1",
            add(
                "src/a.rs",
                40,
                42,
                &["+let x = 1;", " y();", "-z();"],
                "Name x better.",
            ),
        ),
        comment(
            "c2",
            ReviewAddParams {
                anchor: ReviewAnchor {
                    side: DiffSide::Old,
                    ..anchor("b/notes.md", 3, 3)
                },
                ..add("", 0, 0, &["-gone ```"], "Why was this removed?")
            },
        ),
    ];
    let (text, cut) = message(&comments, "main", MESSAGE_BUDGET);
    assert_eq!(cut, 0);
    assert!(text.contains("2 comments"), "{text}");
    assert!(
        text.contains(
            "1. src/a.rs:40-42\n```diff\n+let x = 1;\n y();\n-z();\n```\nName x better.\n"
        ),
        "{text}"
    );
    assert!(text.contains("2. b/notes.md:3 (removed lines"), "{text}");
    // The quoted line holds three backticks: the fence is longer.
    assert!(
        text.contains("````diff\n-gone ```\n````\nWhy was this removed?"),
        "{text}"
    );
}

#[test]
fn the_message_keeps_its_budget_and_cuts_only_between_characters() {
    let lines: Vec<String> = (0..40)
        .map(|i| format!("+{}", "行".repeat(i + 20)))
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let body = "直して🎌".repeat(600);
    let comments: Vec<ReviewComment> = (1..=5)
        .map(|i| {
            comment(
                &format!("c{i}"),
                add("src/日本.rs", i, i + 39, &lines, &body),
            )
        })
        .collect();
    for budget in [600, 2_000, 9_000, 30_000, MESSAGE_BUDGET] {
        let (text, cut) = message(&comments, "main", budget);
        assert!(text.len() <= budget, "{budget}: {}", text.len());
        assert!(cut > 0, "{budget}");
        // Every comment keeps its anchor while there is room for it.
        if budget >= 2_000 {
            for i in 1..=5 {
                assert!(
                    text.contains(&format!("{i}. src/日本.rs:{i}-")),
                    "{budget}: {text}"
                );
            }
        }
    }
    let (whole, cut) = message(&comments[..1], "main", MESSAGE_BUDGET);
    assert_eq!(cut, 0);
    assert!(whole.contains(&body));
}

#[test]
fn a_fence_is_longer_than_any_backtick_run_inside() {
    assert_eq!(fenced("text", "a"), "```text\na\n```\n");
    assert_eq!(fenced("text", "a ```` b"), "`````text\na ```` b\n`````\n");
}

#[test]
fn a_budget_shares_what_is_left() {
    let mut budget = Budget::new(100, 4);
    assert_eq!(budget.share(), 25);
    budget.take(5, 5);
    assert_eq!(budget.share(), 31);
    budget.take(31, 50);
    assert_eq!(budget.cut, 19);
}
