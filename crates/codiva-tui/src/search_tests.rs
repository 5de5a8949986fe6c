//! Unit tests of [`super`]: matching, finding with wrap-around, highlighting.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::*;

#[test]
fn matching_ignores_case() {
    assert_eq!(matches("Error: an ERROR", "error"), vec![(0, 5), (10, 15)]);
    assert_eq!(matches("ÉCOLE école", "école"), vec![(0, 6), (7, 13)]);
    assert!(matches("abc", "").is_empty());
    assert!(matches("abc", "abcd").is_empty());
}

#[test]
fn matching_cjk() {
    let line = "ログを検索：検索語は二つ";
    let found = matches(line, "検索");
    assert_eq!(found.len(), 2);
    assert_eq!(&line[found[0].0..found[0].1], "検索");
    assert_eq!(&line[found[1].0..found[1].1], "検索");
}

#[test]
fn find_goes_forward_and_backward_and_wraps_around() {
    let rows = ["alpha", "beta", "Gamma", "delta", "gamma ray"];
    let row = |i: usize| rows.get(i).copied();
    let first = find(rows.len(), row, "gamma", 0, true);
    assert_eq!(
        first,
        Some(Found {
            row: 2,
            wrapped: false
        })
    );
    let next = find(rows.len(), row, "gamma", 3, true);
    assert_eq!(
        next,
        Some(Found {
            row: 4,
            wrapped: false
        })
    );
    let clamped = find(rows.len(), row, "GAMMA", 9, true);
    assert_eq!(
        clamped,
        Some(Found {
            row: 4,
            wrapped: false
        }),
        "from past the end: the last"
    );
    let wrapped = find(rows.len(), row, "alpha", 1, true);
    assert_eq!(
        wrapped,
        Some(Found {
            row: 0,
            wrapped: true
        })
    );
    let back = find(rows.len(), row, "gamma", 3, false);
    assert_eq!(
        back,
        Some(Found {
            row: 2,
            wrapped: false
        })
    );
    let back_wrapped = find(rows.len(), row, "ray", 1, false);
    assert_eq!(
        back_wrapped,
        Some(Found {
            row: 4,
            wrapped: true
        })
    );
    assert_eq!(find(rows.len(), row, "omega", 0, true), None);
}

#[test]
fn prompt_keys() {
    let mut search = Search::prompt();
    for c in "検索".chars() {
        assert_eq!(
            search.key(KeyEvent::from(KeyCode::Char(c))),
            PromptKey::Edited
        );
    }
    search.key(KeyEvent::from(KeyCode::Backspace));
    assert_eq!(search.prompt_line(), "/検");
    assert_eq!(
        search.key(KeyEvent::from(KeyCode::Enter)),
        PromptKey::Submit
    );
    assert!(!search.editing);
    let mut empty = Search::prompt();
    assert_eq!(empty.key(KeyEvent::from(KeyCode::Enter)), PromptKey::Cancel);
}

#[test]
fn highlight_marks_wide_characters_by_their_cells() {
    let area = Rect::new(0, 0, 20, 1);
    let mut buf = Buffer::empty(area);
    crate::width::set_line(&mut buf, 0, 0, &Line::from("ab 検索 cd"), 20);
    highlight(&mut buf, area, "検索");
    let marked: Vec<u16> = (0..20)
        .filter(|&x| buf[(x, 0)].style().bg == theme::search_match().bg)
        .collect();
    assert_eq!(marked, vec![3, 4, 5, 6]);
}

#[test]
fn the_next_search_starts_next_to_the_current_match() {
    // Without a match yet: at the top row.
    assert_eq!(start(10, 4, None, true), (4, false));
    assert_eq!(start(10, 40, None, false), (9, false));
    // After or before the current match, going round the ends.
    assert_eq!(start(10, 0, Some(3), true), (4, false));
    assert_eq!(start(10, 0, Some(9), true), (0, true));
    assert_eq!(start(10, 0, Some(3), false), (2, false));
    assert_eq!(start(10, 0, Some(0), false), (9, true));
}

/// A match the wrapping cut in two is found on its first row (a word gap at the break, a word
/// cut mid-way, Japanese text); one that only touches the break is not a match across it.
#[test]
fn a_match_across_a_wrapped_row_is_found() {
    assert!(spans_break(
        "the build failed with an",
        "  error in the parser",
        "an error"
    ));
    assert!(spans_break("the configur", "ation loader", "configuration"));
    assert!(spans_break("ログを検", "索する", "検索"));
    assert!(!spans_break("alpha", "beta", "alpha"));
    assert!(!spans_break("alpha", "beta", "gamma"));
    let rows = [
        "intro",
        "the build failed with an",
        "  error in the parser",
        "end",
    ];
    let row = |i: usize| rows.get(i).copied();
    assert_eq!(
        find(rows.len(), row, "an error", 0, true),
        Some(Found {
            row: 1,
            wrapped: false
        })
    );
}
