//! The detail view's log: snapshots at 80×24, 120×40 and 40 columns, and the scrolling and
//! caching behaviour.

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use codiva_tui::log_view::{LogView, RowPlace};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn entry(id: u64, kind: EntryKind) -> LogEntry {
    LogEntry {
        id,
        at_ms: id * 100,
        kind,
    }
}

fn user(id: u64, text: &str) -> LogEntry {
    entry(id, EntryKind::User { text: text.into() })
}

fn assistant(id: u64, text: &str) -> LogEntry {
    entry(id, EntryKind::Assistant { text: text.into() })
}

fn note(id: u64, level: NoteLevel, text: &str) -> LogEntry {
    entry(
        id,
        EntryKind::Note {
            level,
            text: text.into(),
            code: None,
        },
    )
}

fn tool(id: u64, name: &str, summary: &str, status: ToolStatus, ms: Option<u64>) -> LogEntry {
    entry(
        id,
        EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: format!("toolu_{id}"),
            name: name.into(),
            summary: summary.into(),
            view: crate::support::claude_view(name, &serde_json::Value::Null),
            input: serde_json::Value::Null,
            status,
            result: None,
            duration_ms: ms,
        })),
    )
}

fn mixed_log() -> Vec<LogEntry> {
    vec![
        user(
            0,
            "Add a --verbose flag to the CLI and document it in the README. Keep the default \
             output unchanged.",
        ),
        entry(
            1,
            EntryKind::Thinking {
                text: "\nThe user wants a verbose flag.\nLet me look at the CLI parser first."
                    .into(),
            },
        ),
        tool(2, "Read", "cli.rs", ToolStatus::Succeeded, Some(120)),
        tool(3, "Grep", "verbose", ToolStatus::Succeeded, Some(1_234)),
        tool(
            4,
            "Bash",
            "cargo test --workspace -- --nocapture and a very long tail that cannot fit on one \
             row of any terminal",
            ToolStatus::Failed,
            Some(12_500),
        ),
        tool(5, "Bash", "rm -rf target", ToolStatus::Denied, None),
        assistant(
            6,
            "I added the flag.\n\n## Changes\n\n- `--verbose` prints each step\n- the README \
             documents it\n\n```rust\nlet verbose = args.verbose;\n```",
        ),
        note(7, NoteLevel::Info, "context compacted"),
        note(8, NoteLevel::Warning, "rate limited; retrying in 30s"),
        note(9, NoteLevel::Error, "API error: overloaded_error (529)"),
        entry(
            10,
            EntryKind::SubagentPrompt {
                text: "Search the codebase for every use of the logger\nand report back.".into(),
            },
        ),
        tool(11, "Agent", "Find logger uses", ToolStatus::Running, None),
        tool(12, "Edit", "README.md", ToolStatus::Running, None),
    ]
}

fn japanese_log() -> Vec<LogEntry> {
    vec![
        user(
            0,
            "このリポジトリの README を日本語に翻訳して、絵文字 🎌✨ も入れてください。\
             長い文章は端末の幅で正しく折り返されることを確認します。",
        ),
        tool(1, "Read", "README.md", ToolStatus::Succeeded, Some(80)),
        tool(
            2,
            "Write",
            "README.ja.md 日本語版",
            ToolStatus::Succeeded,
            Some(2_300),
        ),
        assistant(
            3,
            "翻訳しました 🎉\n\n- 見出しを日本語に\n- 絵文字 👩‍💻 を追加\n\n全角スペース「　」も\
             そのまま残しています。",
        ),
        note(
            4,
            NoteLevel::Warning,
            "警告：　全角スペースを含む行 ⚠️ が 3 件あります",
        ),
    ]
}

fn terminal(width: u16, height: u16) -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(width, height)).unwrap()
}

fn draw(terminal: &mut Terminal<TestBackend>, view: &mut LogView) -> Buffer {
    terminal
        .draw(|frame| view.render(frame.area(), frame.buffer_mut()))
        .unwrap();
    terminal.backend().buffer().clone()
}

/// The text of row `y`.
fn row(buffer: &Buffer, y: u16) -> String {
    (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol())
        .collect::<String>()
        .trim_end()
        .to_owned()
}

/// The cells of rows `0..rows`, styles included.
fn cells(buffer: &Buffer, rows: u16) -> Vec<ratatui::buffer::Cell> {
    let width = usize::from(buffer.area.width);
    buffer.content[..width * usize::from(rows)].to_vec()
}

/// Lines of a reply, one row each (hard breaks: the reply is Markdown while it streams too).
fn streaming_reply(lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("line {i:03}: the quick brown fox jumps over the lazy dog  \n"))
        .collect()
}

#[test]
fn mixed_log_snapshots() {
    for (width, height) in [(80, 24), (120, 40)] {
        let mut view = LogView::new();
        view.set_entries(mixed_log());
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("mixed_log_{width}x{height}"), term.backend());
        view.to_top();
        draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("mixed_log_top_{width}x{height}"), term.backend());
    }
}

#[test]
fn japanese_and_emoji_snapshots() {
    for (width, height) in [(80, 24), (120, 40), (40, 24)] {
        let mut view = LogView::new();
        view.set_entries(japanese_log());
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("japanese_{width}x{height}"), term.backend());
    }
}

#[test]
fn narrow_terminal_snapshot() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    let mut term = terminal(40, 24);
    draw(&mut term, &mut view);
    insta::assert_snapshot!("mixed_log_40x24", term.backend());
    view.to_top();
    draw(&mut term, &mut view);
    insta::assert_snapshot!("mixed_log_top_40x24", term.backend());
}

#[test]
fn streaming_reply_follows_the_tail_and_scrolls_up() {
    for (width, height) in [(80, 24), (120, 40)] {
        let mut view = LogView::new();
        view.set_entries(vec![user(0, "Print 500 lines.")]);
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        let reply = streaming_reply(500);
        // Arrives in uneven chunks, with a frame after each.
        for chunk in reply.as_bytes().chunks(997) {
            view.push_stream(std::str::from_utf8(chunk).unwrap());
            draw(&mut term, &mut view);
        }
        assert!(view.is_following());
        insta::assert_snapshot!(format!("stream_500_{width}x{height}"), term.backend());
        view.scroll_up(30);
        draw(&mut term, &mut view);
        assert_eq!(view.lines_below(), 31);
        insta::assert_snapshot!(
            format!("stream_500_scrolled_{width}x{height}"),
            term.backend()
        );
    }
}

#[test]
fn scrolled_up_the_view_does_not_move_while_output_grows() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    view.set_streaming(&streaming_reply(40));
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);

    // Scrolled up with the streaming text in view: 100 more lines stream in below.
    view.scroll_up(25);
    let before = draw(&mut term, &mut view);
    let below = view.lines_below();
    assert!(row(&before, 23).starts_with("↓ "), "{}", row(&before, 23));
    view.push_stream(&streaming_reply(100));
    let after = draw(&mut term, &mut view);
    assert_eq!(cells(&after, 23), cells(&before, 23));
    assert_eq!(view.lines_below(), below + 100);
    assert_eq!(row(&after, 23), format!("↓ {} more lines", below + 100));

    // Scrolled to the top: the message completes and 100 entries arrive below.
    view.to_top();
    let before = draw(&mut term, &mut view);
    view.reset_stream();
    view.apply(assistant(13, &streaming_reply(140)), false);
    for id in 14..114 {
        view.apply(note(id, NoteLevel::Info, &format!("note {id}")), false);
    }
    let after = draw(&mut term, &mut view);
    assert_eq!(cells(&after, 23), cells(&before, 23));
    assert!(!view.is_following());
}

/// Regression: a reply past the per-message memory cap froze on screen after its first
/// 256 KiB while the session still ran. The tail follows to the last delta; scrolled to the top
/// of the stream, its first row says how much of the reply is no longer kept.
#[test]
fn a_reply_past_the_memory_cap_keeps_following_and_counts_what_is_hidden() {
    for (width, height) in [(80, 24), (120, 40)] {
        let mut view = LogView::new();
        view.set_entries(vec![user(0, "Write a very long answer.")]);
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        let mut line = 0;
        let mut sent = 0;
        while sent < 1024 * 1024 {
            let delta = format!("line {line:05}: the quick brown fox jumps over the lazy dog  \n");
            sent += delta.len();
            view.push_stream(&delta);
            line += 1;
            if line % 1000 == 0 {
                draw(&mut term, &mut view);
            }
        }
        let screen = draw(&mut term, &mut view);
        let last = format!(
            "line {:05}: the quick brown fox jumps over the lazy dog",
            line - 1
        );
        assert_eq!(row(&screen, height - 1), last);
        insta::assert_snapshot!(
            format!("stream_past_cap_tail_{width}x{height}"),
            term.backend()
        );
        view.to_top();
        draw(&mut term, &mut view);
        insta::assert_snapshot!(
            format!("stream_past_cap_top_{width}x{height}"),
            term.backend()
        );
    }
}

#[test]
fn scrolled_inside_the_stream_the_view_stays_when_it_completes() {
    // Paragraphs: the same rows plain and as Markdown.
    let reply: String = (1..=50).map(|i| format!("paragraph {i:03}\n\n")).collect();
    let mut view = LogView::new();
    view.set_entries(vec![user(0, "Write 50 paragraphs.")]);
    view.set_streaming(&reply);
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);
    // A paragraph's row at the top (the stream, Markdown, shows no empty row after its last).
    view.scroll_up(11);
    let before = draw(&mut term, &mut view);
    assert!(row(&before, 0).starts_with("paragraph"));
    // The completed message replaces the stream (the reset comes first, as the session sends
    // it), then more output arrives.
    view.reset_stream();
    draw(&mut term, &mut view);
    view.apply(assistant(1, &reply), false);
    view.apply(tool(2, "Bash", "ls", ToolStatus::Running, None), false);
    let after = draw(&mut term, &mut view);
    assert_eq!(row(&after, 0), row(&before, 0));
    assert_eq!(cells(&after, 20), cells(&before, 20));
}

#[test]
fn updating_a_running_tool_changes_only_its_row() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    let mut term = terminal(80, 24);
    let before = draw(&mut term, &mut view);
    view.apply(
        tool(12, "Edit", "README.md", ToolStatus::Succeeded, Some(1_200)),
        true,
    );
    let after = draw(&mut term, &mut view);
    let changed: Vec<u16> = (0..24)
        .filter(|&y| row(&before, y) != row(&after, y))
        .collect();
    assert_eq!(changed, [23]);
    assert_eq!(row(&before, 23), "⏺ Edit README.md ⠋");
    assert_eq!(row(&after, 23), "⏺ Edit README.md ✓ 1.2s");
    // Styles elsewhere are untouched too.
    assert_eq!(cells(&after, 23), cells(&before, 23));
}

#[test]
fn an_update_above_a_scrolled_view_keeps_the_top_row() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    let mut term = terminal(80, 10);
    draw(&mut term, &mut view);
    view.to_top();
    view.scroll_down(6);
    let before = draw(&mut term, &mut view);
    // The first message grows by two rows; the view is anchored below it and does not move.
    view.apply(user(0, "Add a --verbose flag.\nOne.\nTwo.\nThree."), true);
    let after = draw(&mut term, &mut view);
    assert_eq!(cells(&after, 9), cells(&before, 9));
}

#[test]
fn to_bottom_follows_again() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);
    view.page_up();
    assert!(!view.is_following());
    view.apply(note(13, NoteLevel::Info, "newest"), false);
    let scrolled = draw(&mut term, &mut view);
    assert!(!(0..23).any(|y| row(&scrolled, y) == "newest"));
    view.to_bottom();
    assert!(view.is_following());
    let bottom = draw(&mut term, &mut view);
    assert_eq!(row(&bottom, 23), "newest");
    assert_eq!(view.lines_below(), 0);
    view.apply(note(14, NoteLevel::Info, "newer still"), false);
    assert_eq!(row(&draw(&mut term, &mut view), 23), "newer still");
}

#[test]
fn scrolling_down_to_the_end_follows_again() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);
    view.scroll_up(3);
    assert!(!view.is_following());
    view.scroll_down(1);
    assert!(!view.is_following());
    view.scroll_down(2);
    assert!(view.is_following());
    view.to_top();
    view.page_down();
    view.page_down();
    view.page_down();
    assert!(view.is_following());
}

#[test]
fn an_empty_line_keeps_its_height() {
    let mut view = LogView::new();
    view.set_entries(vec![
        user(0, "first\n\nthird"),
        note(1, NoteLevel::Info, "one\n\n\nfour"),
    ]);
    let mut term = terminal(40, 10);
    let buffer = draw(&mut term, &mut view);
    let rows: Vec<String> = (0..10).map(|y| row(&buffer, y)).collect();
    let expected = ["› first", "", "  third", "", "one", "", "", "four", "", ""];
    assert_eq!(rows, expected);
    assert_eq!(view.total_rows(40), 8);
}

#[test]
fn width_changes_rewrap() {
    let mut view = LogView::new();
    view.set_entries(japanese_log());
    let narrow = view.total_rows(40);
    let wide = view.total_rows(120);
    assert!(narrow > wide);
    let mut term = terminal(40, 30);
    draw(&mut term, &mut view);
    assert_eq!(view.total_rows(40), narrow);
    let mut term = terminal(120, 30);
    draw(&mut term, &mut view);
    assert_eq!(view.total_rows(120), wide);
}

#[test]
fn hit_testing_uses_the_drawn_layout() {
    let mut view = LogView::new();
    view.set_entries(mixed_log());
    let area = Rect::new(0, 0, 80, 24);
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);
    let last = view.row_at(area, 2, 23).unwrap();
    assert_eq!(last.place, RowPlace::Entry { id: 12, row: 0 });
    assert_eq!(last.text, "⏺ Edit README.md ⠋");
    assert_eq!(&last.text[last.byte..], "Edit README.md ⠋");
    assert_eq!(
        view.row_at(area, 0, 22).unwrap().place,
        RowPlace::Gap { after: 11 }
    );
    assert_eq!(view.row_at(area, 80, 0), None);
    view.scroll_up(5);
    draw(&mut term, &mut view);
    let status = view.row_at(area, 0, 23).unwrap();
    assert_eq!(status.place, RowPlace::Status);
    assert_eq!(status.text, format!("↓ {} more lines", view.lines_below()));
}

/// 20,000 entries of 10 rows each: a frame renders only what it shows. (Timing is measured by
/// hand in release: `frame_time_for_100_and_200_000_lines`.)
#[test]
fn a_200_000_line_log_renders_a_frame() {
    let mut view = LogView::new();
    view.set_entries(big_log(20_000));
    let mut term = terminal(120, 40);
    let buffer = draw(&mut term, &mut view);
    assert_eq!(view.total_rows(120), 200_000 - 1);
    assert_eq!(row(&buffer, 39), "entry 19999 line 9");
    view.to_top();
    view.page_down();
    let buffer = draw(&mut term, &mut view);
    assert_eq!(row(&buffer, 0), "entry 3 line 9");
    assert_eq!(view.lines_below(), 200_000 - 1 - 38 - 39);
}

fn big_log(entries: u64) -> Vec<LogEntry> {
    (0..entries)
        .map(|id| {
            let text: Vec<String> = (1..=9).map(|l| format!("entry {id} line {l}")).collect();
            note(id, NoteLevel::Info, &text.join("\n"))
        })
        .collect()
}

/// Tool, fold, subagent and thinking cards; the compaction divider and the retry row.
mod cards;
mod code;
mod cut_reply;
mod question_cards;

#[test]
fn a_long_url_wrapped_over_two_rows_opens_whole_from_either_row() {
    let url = "https://example.invalid/a/very/long/path/that/cannot/fit/on/one/row/of/forty/cells/index.html";
    let mut view = LogView::new();
    view.set_entries(vec![LogEntry {
        id: 1,
        at_ms: 0,
        kind: EntryKind::Assistant {
            text: format!("See <{url}> for details."),
        },
    }]);
    let area = Rect::new(0, 0, 40, 12);
    let mut buffer = Buffer::empty(area);
    view.render(area, &mut buffer);
    let links = view.visible_links(area);
    let rows: std::collections::BTreeSet<u16> = links.iter().map(|l| l.y).collect();
    assert!(
        rows.len() >= 2,
        "the URL wraps over several rows: {links:?}"
    );
    for link in &links {
        assert_eq!(link.url, url);
        assert_eq!(view.link_at(area, link.x, link.y).as_deref(), Some(url));
        assert_eq!(
            view.link_at(area, link.x + link.width - 1, link.y)
                .as_deref(),
            Some(url)
        );
    }
    let first = links.first().unwrap();
    if first.x > 0 {
        assert_eq!(
            view.link_at(area, first.x - 1, first.y),
            None,
            "not before the link"
        );
    }
}
