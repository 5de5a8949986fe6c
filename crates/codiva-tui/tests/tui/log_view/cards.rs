//! Cards in the log: each kind closed and open at 80×24 and 120×40, folds, "show more",
//! subagents with their nested log, thinking, the compaction divider, the retry row, the card
//! cursor and the animation tick.

use codiva_protocol::session::{SubagentStatus, SubagentView};
use ratatui::style::{Color, Modifier};
use serde_json::json;

use super::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn call(
    id: u64,
    name: &str,
    summary: &str,
    input: serde_json::Value,
    status: ToolStatus,
    result: Option<&str>,
    ms: Option<u64>,
) -> LogEntry {
    entry(
        id,
        EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: format!("toolu_{id}"),
            name: name.into(),
            summary: summary.into(),
            view: crate::support::claude_view(name, &input),
            input,
            status,
            result: result.map(Into::into),
            duration_ms: ms,
        })),
    )
}

fn bash_with_colours(id: u64) -> LogEntry {
    call(
        id,
        "Bash",
        "cargo test --color=always 2>&1 | tail -n 6",
        json!({"command": "cargo test --color=always 2>&1 | tail -n 6", "description": "Run the tests"}),
        ToolStatus::Succeeded,
        Some(concat!(
            "\x1b[1m\x1b[32m   Compiling\x1b[0m codiva v0.1.0 (/repo)\n",
            "\x1b[2K\x1b[1Gbuilding [=>   ] 10%\rbuilding [====] 100%\n",
            "running 12 tests\x1b]0;pwned title\x07\x1b[?1049h\x1b[H\x1b[2J\n",
            "test result: \x1b[32mok\x1b[0m. 12 passed; \x1b[31;1m0 failed\x1b[0m\n",
            "\x1b[38;5;208m256-colour\x1b[0m and \x1b[38;2;10;200;30mtrue colour\x1b[0m\n",
        )),
        Some(8_300),
    )
}

fn read_call(id: u64) -> LogEntry {
    call(
        id,
        "Read",
        "cli.rs",
        json!({"file_path": "/repo/src/cli.rs", "offset": 10, "limit": 4}),
        ToolStatus::Succeeded,
        Some(
            "    10\tfn main() {\n    11\t    let args = Args::parse();\n    12\t    run(args)\n    13\t}\n",
        ),
        Some(40),
    )
}

fn edit_call(id: u64) -> LogEntry {
    call(
        id,
        "Edit",
        "README.md",
        json!({
            "file_path": "/repo/README.md",
            "old_string": "## Usage\n\nRun `app` in the project.\nIt prints a summary.\n",
            "new_string": "## Usage\n\nRun `app --verbose` in the project.\nIt prints a summary.\nWith `--verbose` it prints each step.\n",
        }),
        ToolStatus::Succeeded,
        Some("The file /repo/README.md has been updated."),
        Some(120),
    )
}

fn write_call(id: u64) -> LogEntry {
    call(
        id,
        "Write",
        "verbose.md",
        json!({
            "file_path": "/repo/docs/verbose.md",
            "content": "# Verbose mode\n\nPass `--verbose` to see each step.\n日本語の説明 🎌\n",
        }),
        ToolStatus::Succeeded,
        Some("File created successfully at: /repo/docs/verbose.md"),
        Some(15),
    )
}

fn multi_edit_call(id: u64) -> LogEntry {
    call(
        id,
        "MultiEdit",
        "cli.rs",
        json!({
            "file_path": "/repo/src/cli.rs",
            "edits": [
                {"old_string": "    quiet: bool,\n", "new_string": "    quiet: bool,\n    verbose: bool,\n"},
                {"old_string": "let level = 0;", "new_string": "let level = if args.verbose { 2 } else { 0 };"},
            ],
        }),
        ToolStatus::Succeeded,
        Some("Applied 2 edits to /repo/src/cli.rs"),
        Some(30),
    )
}

/// A card between a request and an answer (so that it does not fold with anything).
fn around(card: LogEntry) -> Vec<LogEntry> {
    vec![
        user(0, "Add a --verbose flag and document it."),
        card,
        assistant(2, "Done: the flag is documented."),
    ]
}

/// The first row whose text starts with `prefix` (after `indent` spaces).
fn find_row(buffer: &Buffer, prefix: &str) -> u16 {
    (0..buffer.area.height)
        .find(|&y| row(buffer, y).trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no row starts with {prefix:?}"))
}

/// Snapshots `entries` with the card whose header starts with `header` closed, then open (a
/// click on it), at both sizes.
fn closed_and_open(name: &str, entries: &[LogEntry], header: &str) {
    for (width, height) in SIZES {
        let mut view = LogView::new();
        view.set_entries(entries.to_vec());
        let mut term = terminal(width, height);
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("{name}_closed_{width}x{height}"), term.backend());
        let y = find_row(&buffer, header);
        let area = Rect::new(0, 0, width, height);
        assert!(view.toggle_at(area, 3, y));
        draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("{name}_open_{width}x{height}"), term.backend());
        // A second click closes it again: the same screen as before, but for the cursor.
        let y = find_row(&term.backend().buffer().clone(), "▸");
        assert!(view.toggle_at(area, 3, y));
        let closed = draw(&mut term, &mut view);
        let glyph = header.chars().next().unwrap().to_string();
        let text: Vec<String> = (0..height)
            .map(|y| row(&closed, y).replace('▸', &glyph))
            .collect();
        let before: Vec<String> = (0..height).map(|y| row(&buffer, y)).collect();
        assert_eq!(text, before);
    }
}

#[test]
fn bash_card_keeps_colours_and_drops_other_escapes() {
    closed_and_open("card_bash", &around(bash_with_colours(1)), "⏺ Bash");
    let mut view = LogView::new();
    view.set_entries(around(bash_with_colours(1)));
    let mut term = terminal(80, 24);
    let buffer = draw(&mut term, &mut view);
    let area = Rect::new(0, 0, 80, 24);
    assert!(view.toggle_at(area, 0, find_row(&buffer, "⏺ Bash")));
    let buffer = draw(&mut term, &mut view);
    // Only text reaches the cells: no ESC, BEL or `\r`, no title, the last overwrite.
    for cell in &buffer.content {
        assert!(!cell.symbol().chars().any(char::is_control), "{cell:?}");
    }
    assert!(!(0..24).any(|y| row(&buffer, y).contains("pwned")));
    let y = find_row(&buffer, "building");
    assert_eq!(row(&buffer, y).trim(), "building [====] 100%");
    // Colours: bold green "Compiling", red bold "0 failed", 256 and true colour.
    let y = find_row(&buffer, "⎿");
    let x = u16::try_from(row(&buffer, y).find("Compiling").unwrap()).unwrap() - 2; // "⎿" is 3 bytes.
    let cell = &buffer[(x, y)];
    assert_eq!(cell.symbol(), "C");
    assert_eq!(cell.fg, Color::Green);
    assert!(cell.modifier.contains(Modifier::BOLD));
    let y = find_row(&buffer, "test result");
    let x = u16::try_from(row(&buffer, y).find("0 failed").unwrap()).unwrap();
    assert_eq!(buffer[(x, y)].fg, Color::Red);
    let y = find_row(&buffer, "256-colour");
    let x = u16::try_from(row(&buffer, y).find("256").unwrap()).unwrap();
    assert_eq!(buffer[(x, y)].fg, Color::Indexed(208));
    let x = u16::try_from(row(&buffer, y).find("true").unwrap()).unwrap();
    assert_eq!(buffer[(x, y)].fg, Color::Rgb(10, 200, 30));
    let x = u16::try_from(row(&buffer, y).find(" and").unwrap()).unwrap();
    assert_eq!(buffer[(x, y)].fg, Color::Reset);
}

#[test]
fn read_card() {
    closed_and_open("card_read", &around(read_call(1)), "⏺ Read");
}

#[test]
fn edit_card_shows_a_diff() {
    closed_and_open("card_edit", &around(edit_call(1)), "⏺ Edit");
    let mut view = LogView::new();
    view.set_entries(around(edit_call(1)));
    let mut term = terminal(80, 24);
    let buffer = draw(&mut term, &mut view);
    view.toggle_at(Rect::new(0, 0, 80, 24), 0, find_row(&buffer, "⏺ Edit"));
    let buffer = draw(&mut term, &mut view);
    let removed = find_row(&buffer, "- Run `app` in");
    assert_eq!(buffer[(2, removed)].fg, Color::Red);
    let added = find_row(&buffer, "+ Run `app --verbose`");
    assert_eq!(buffer[(2, added)].fg, Color::Green);
}

#[test]
fn write_card_shows_added_lines() {
    closed_and_open("card_write", &around(write_call(1)), "⏺ Write");
}

#[test]
fn multi_edit_card_shows_each_edit() {
    closed_and_open(
        "card_multi_edit",
        &around(multi_edit_call(1)),
        "⏺ MultiEdit",
    );
}

#[test]
fn a_failed_call_shows_its_error_closed() {
    let failed = call(
        1,
        "Bash",
        "cargo build",
        json!({"command": "cargo build"}),
        ToolStatus::Failed,
        Some(
            "\x1b[31merror[E0425]\x1b[0m: cannot find value `x` in this scope\n --> src/main.rs:2:5\n",
        ),
        Some(2_100),
    );
    let mut view = LogView::new();
    view.set_entries(around(failed));
    let mut term = terminal(80, 24);
    let buffer = draw(&mut term, &mut view);
    let y = find_row(&buffer, "⏺ Bash");
    assert_eq!(row(&buffer, y), "⏺ Bash cargo build ✗ 2.1s");
    assert_eq!(
        row(&buffer, y + 1),
        "  ⎿ error[E0425]: cannot find value `x` in this scope"
    );
}

fn fold_log() -> Vec<LogEntry> {
    vec![
        user(0, "Find where the flag is parsed and fix the docs."),
        read_call(1),
        call(
            2,
            "Read",
            "main.rs",
            json!({"file_path": "/repo/src/main.rs"}),
            ToolStatus::Succeeded,
            Some("fn main() {}"),
            Some(20),
        ),
        call(
            3,
            "Bash",
            "git status --short",
            json!({"command": "git status --short"}),
            ToolStatus::Succeeded,
            Some(" M README.md"),
            Some(300),
        ),
        edit_call(4),
        assistant(5, "Fixed."),
    ]
}

#[test]
fn consecutive_finished_calls_fold() {
    for (width, height) in SIZES {
        let mut view = LogView::new();
        view.set_entries(fold_log());
        let mut term = terminal(width, height);
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("fold_closed_{width}x{height}"), term.backend());
        let y = find_row(&buffer, "⏺ 4 tools");
        assert_eq!(row(&buffer, y), "⏺ 4 tools: Read ×2, Bash, Edit ✓");
        let area = Rect::new(0, 0, width, height);
        assert!(view.toggle_at(area, 5, y));
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("fold_open_{width}x{height}"), term.backend());
        // A call inside the open fold opens on its own.
        let y = find_row(&buffer, "⏺ Bash");
        assert!(view.toggle_at(area, 4, y));
        let buffer = draw(&mut term, &mut view);
        assert_eq!(row(&buffer, y + 1), "    $ git status --short");
        assert_eq!(row(&buffer, y + 2), "    ⎿  M README.md");
    }
}

#[test]
fn a_fold_forms_when_the_third_call_finishes() {
    let mut log = fold_log();
    log.truncate(3);
    let mut view = LogView::new();
    view.set_entries(log);
    let mut term = terminal(80, 12);
    draw(&mut term, &mut view);
    view.apply(
        call(
            3,
            "Bash",
            "sleep 1",
            json!({"command": "sleep 1"}),
            ToolStatus::Running,
            None,
            None,
        ),
        false,
    );
    let buffer = draw(&mut term, &mut view);
    assert_eq!(row(&buffer, 4), "⏺ Read main.rs ✓ 20ms");
    assert_eq!(row(&buffer, 6), "⏺ Bash sleep 1 ⠋");
    view.apply(
        call(
            3,
            "Bash",
            "sleep 1",
            json!({"command": "sleep 1"}),
            ToolStatus::Succeeded,
            None,
            Some(1_000),
        ),
        true,
    );
    let buffer = draw(&mut term, &mut view);
    let rows: Vec<String> = (0..4).map(|y| row(&buffer, y)).collect();
    assert_eq!(
        rows,
        [
            "› Find where the flag is parsed and fix the docs.",
            "",
            "⏺ 3 tools: Read ×2, Bash ✓",
            ""
        ]
    );
    assert_eq!(view.total_rows(80), 3);
    // The request wraps at 40 columns; the fold is one row at any width.
    assert_eq!(view.total_rows(40), 4);
}

#[test]
fn a_long_result_shows_more_on_demand() {
    let output: String = (1..=60).map(|i| format!("output line {i:02}\n")).collect();
    let long = call(
        1,
        "Bash",
        "seq",
        json!({"command": "./print-60-lines.sh"}),
        ToolStatus::Succeeded,
        Some(&output),
        Some(900),
    );
    for (width, height) in SIZES {
        let mut view = LogView::new();
        view.set_entries(around(long.clone()));
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        // Keyboard: the cursor goes to the card, Enter opens it.
        assert!(view.select_next_card());
        assert!(view.toggle_selected());
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("show_more_open_{width}x{height}"), term.backend());
        let y = find_row(&buffer, "… 41 more lines");
        assert_eq!(row(&buffer, y), "  … 41 more lines (Enter: show more)");
        // Enter again: everything, the header kept in view.
        assert!(view.toggle_selected());
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("show_more_full_{width}x{height}"), term.backend());
        assert!((0..3).any(|y| row(&buffer, y) == "▸ Bash seq ✓ 900ms"));
        // And once more: closed.
        assert!(view.toggle_selected());
        let buffer = draw(&mut term, &mut view);
        assert_eq!(row(&buffer, 2), "▸ Bash seq ✓ 900ms");
        assert_eq!(view.total_rows(width), 5);
        // A click on "… N more lines" shows everything at once.
        assert!(view.toggle_selected());
        let buffer = draw(&mut term, &mut view);
        let y = find_row(&buffer, "… 41 more lines");
        assert!(view.toggle_at(Rect::new(0, 0, width, height), 10, y));
        draw(&mut term, &mut view);
        assert_eq!(view.total_rows(width), 5 + 1 + 60);
    }
}

fn agent_call(id: u64, status: ToolStatus, result: Option<&str>, ms: Option<u64>) -> LogEntry {
    call(
        id,
        "Agent",
        "Find logger uses",
        json!({
            "description": "Find logger uses",
            "prompt": "Search the codebase for every use of the logger and report back.",
            "subagent_type": "Explore",
        }),
        status,
        result,
        ms,
    )
}

fn subagent_view(status: SubagentStatus, summary: Option<&str>) -> SubagentView {
    SubagentView {
        tool_use_id: "toolu_1".into(),
        task_id: Some("task_1".into()),
        description: Some("Find logger uses".into()),
        subagent_type: Some("Explore".into()),
        background: false,
        status,
        last_tool: Some("Grep".into()),
        tokens: 8_150,
        tool_uses: 3,
        elapsed_ms: 42_000,
        summary: summary.map(Into::into),
    }
}

/// The subagent's own log, as the session sends it (`Scope::Subagent("toolu_1")`).
fn subagent_log(view: &mut LogView) {
    let nested = [
        entry(
            0,
            EntryKind::SubagentPrompt {
                text: "Search the codebase for every use of the logger and report back.".into(),
            },
        ),
        call(
            1,
            "Grep",
            "logger",
            json!({"pattern": "logger", "path": "/repo/src"}),
            ToolStatus::Succeeded,
            Some("src/main.rs\nsrc/cli.rs"),
            Some(210),
        ),
        call(
            2,
            "Read",
            "main.rs",
            json!({"file_path": "/repo/src/main.rs"}),
            ToolStatus::Succeeded,
            Some("fn main() { logger::init(); }"),
            Some(35),
        ),
        assistant(
            3,
            "The logger is set up in **main.rs** and used in `cli.rs`.",
        ),
        call(
            4,
            "Read",
            "cli.rs",
            json!({"file_path": "/repo/src/cli.rs"}),
            ToolStatus::Succeeded,
            Some("logger::info!(\"start\");"),
            Some(28),
        ),
        assistant(5, "Found 2 uses of the logger, in `main.rs` and `cli.rs`."),
    ];
    for e in nested {
        view.apply_subagent_entry("toolu_1", e, false);
    }
}

#[test]
fn a_running_subagent_shows_its_progress() {
    for (width, height) in SIZES {
        let mut view = LogView::new();
        view.set_entries(vec![
            user(0, "Where is the logger used?"),
            agent_call(1, ToolStatus::Running, None, None),
        ]);
        view.set_subagent(subagent_view(SubagentStatus::Running, None));
        subagent_log(&mut view);
        view.set_tick(3);
        let mut term = terminal(width, height);
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("subagent_running_{width}x{height}"), term.backend());
        assert_eq!(row(&buffer, 2), "⏺ Explore Find logger uses ⠸");
        assert_eq!(
            row(&buffer, 3),
            "  ⎿ Grep · 3 tool uses · 8.1k tokens · 42s"
        );
        // Nothing of the subagent's own log is at the top level.
        assert!(!(0..height).any(|y| row(&buffer, y).contains("main.rs")));
        assert!(view.is_animating());
        // The next frame of the spinner changes that row alone.
        view.set_tick(4);
        let next = draw(&mut term, &mut view);
        let changed: Vec<u16> = (0..height)
            .filter(|&y| row(&buffer, y) != row(&next, y))
            .collect();
        assert_eq!(changed, [2]);
        assert_eq!(row(&next, 2), "⏺ Explore Find logger uses ⠼");
    }
}

#[test]
fn a_finished_subagent_opens_to_its_own_log() {
    let report = "Found 2 uses of the logger, in `main.rs` and `cli.rs`.";
    for (width, height) in SIZES {
        let mut view = LogView::new();
        view.set_entries(vec![
            user(0, "Where is the logger used?"),
            agent_call(1, ToolStatus::Running, None, None),
        ]);
        subagent_log(&mut view);
        view.set_subagent(subagent_view(SubagentStatus::Running, None));
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        // It settles: the call completes with the report.
        view.set_subagent(subagent_view(SubagentStatus::Completed, Some(report)));
        view.apply(
            agent_call(1, ToolStatus::Succeeded, Some(report), Some(65_000)),
            true,
        );
        view.apply(assistant(2, "The logger is used in two places."), false);
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("subagent_done_{width}x{height}"), term.backend());
        assert!(!view.is_animating());
        let area = Rect::new(0, 0, width, height);
        assert!(view.toggle_at(area, 0, find_row(&buffer, "⏺ Explore")));
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("subagent_open_{width}x{height}"), term.backend());
        // A nested call opens inside the card.
        let y = find_row(&buffer, "⏺ Grep");
        assert!(view.toggle_at(area, 4, y));
        let buffer = draw(&mut term, &mut view);
        assert_eq!(row(&buffer, y + 1), "    logger in /repo/src");
        assert_eq!(row(&buffer, y + 2), "    ⎿ src/main.rs");
        // An entry that arrives later shows in the open card.
        view.apply_subagent_entry("toolu_1", note(6, NoteLevel::Info, "subagent note"), false);
        let buffer = draw(&mut term, &mut view);
        assert!((0..height).any(|y| row(&buffer, y) == "  subagent note"));
    }
}

#[test]
fn thinking_opens_like_a_card() {
    let thinking = entry(
        1,
        EntryKind::Thinking {
            text: "\nThe user wants a verbose flag.\nLet me look at the CLI parser first, then \
                   the README, and keep the default output unchanged as asked."
                .into(),
        },
    );
    closed_and_open("thinking", &around(thinking), "✻ Thinking…");
}

#[test]
fn compaction_divider_and_one_retry_row() {
    let mut view = LogView::new();
    view.set_entries(vec![
        user(0, "Keep going."),
        assistant(1, "Working on it."),
        note(
            2,
            NoteLevel::Info,
            "conversation compacted (auto), 152000 tokens before",
        ),
        user(3, "Now add tests."),
    ]);
    view.set_retry(Some("retrying (2/10) …".into()));
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);
    view.set_retry(Some("retrying (3/10) …".into()));
    let buffer = draw(&mut term, &mut view);
    insta::assert_snapshot!("divider_and_retry_80x24", term.backend());
    let rows: Vec<String> = (0..24).map(|y| row(&buffer, y)).collect();
    assert_eq!(rows.iter().filter(|r| r.starts_with("retrying")).count(), 1);
    assert_eq!(rows[8], "retrying (3/10) …");
    assert_eq!(
        view.row_at(Rect::new(0, 0, 80, 24), 0, 8).unwrap().place,
        RowPlace::Retry
    );
    view.set_retry(None);
    let buffer = draw(&mut term, &mut view);
    assert_eq!(row(&buffer, 7), "");
    assert_eq!(view.total_rows(80), 7);
}

/// Regression: the divider had no note code, so the Japanese UI showed it in English (and
/// found it by its English words). Now it is the `compacted` code, worded in the UI's language.
#[test]
fn a_coded_compaction_divider_speaks_the_ui_language() {
    use codiva_protocol::lang::Lang;
    use codiva_tui::i18n::with_lang;
    let divider = entry(
        2,
        EntryKind::Note {
            level: NoteLevel::Info,
            text: "conversation compacted (auto), 152000 tokens before".into(),
            code: Some(codiva_protocol::log::NoteCode::new(
                "compacted",
                &["auto", "152000"],
            )),
        },
    );
    for (lang, suffix, words) in [
        (
            Lang::En,
            "",
            "conversation compacted (auto), 152000 tokens before",
        ),
        (
            Lang::Ja,
            "_ja",
            "会話を圧縮しました（自動）、圧縮前 152000 トークン",
        ),
    ] {
        with_lang(lang, || {
            let mut view = LogView::new();
            view.set_entries(vec![
                user(0, "Keep going."),
                assistant(1, "Working on it."),
                divider.clone(),
                user(3, "Now add tests."),
            ]);
            let mut term = terminal(80, 24);
            let buffer = draw(&mut term, &mut view);
            insta::assert_snapshot!(format!("coded_divider{suffix}_80x24"), term.backend());
            let rows: Vec<String> = (0..24).map(|y| row(&buffer, y)).collect();
            let divider_row = rows
                .iter()
                .find(|r| r.starts_with("──"))
                .unwrap_or_else(|| panic!("no divider: {rows:#?}"));
            assert!(
                divider_row
                    .replace(' ', "")
                    .contains(&words.replace(' ', "")),
                "{divider_row}"
            );
        });
    }
}

#[test]
fn the_card_cursor_moves_and_shows() {
    let mut log = fold_log();
    log.push(entry(
        6,
        EntryKind::Thinking {
            text: "Check the tests too.".into(),
        },
    ));
    log.push(bash_with_colours(7));
    let mut view = LogView::new();
    view.set_entries(log);
    let mut term = terminal(80, 24);
    let area = Rect::new(0, 0, 80, 24);
    draw(&mut term, &mut view);
    assert!(!view.has_selected_card());
    assert!(!view.toggle_selected());
    // From the top of the view: the fold, the thinking block, the Bash call, then no more.
    assert!(view.select_next_card());
    let buffer = draw(&mut term, &mut view);
    let y = find_row(&buffer, "▸ 4 tools");
    assert!(buffer[(2, y)].modifier.contains(Modifier::REVERSED));
    assert!(view.select_next_card());
    assert!(view.select_next_card());
    assert!(!view.select_next_card());
    let buffer = draw(&mut term, &mut view);
    assert_eq!(
        row(&buffer, find_row(&buffer, "▸")),
        "▸ Bash cargo test --color=always 2>&1 | tail -n 6 ✓ 8.3s"
    );
    assert!(view.select_previous_card());
    let buffer = draw(&mut term, &mut view);
    assert_eq!(
        row(&buffer, find_row(&buffer, "▸")),
        "▸ Thinking… Check the tests too."
    );
    // Back to the fold; open it; the next card is the first call inside it.
    assert!(view.select_previous_card());
    assert!(view.toggle_selected());
    assert!(view.select_next_card());
    let buffer = draw(&mut term, &mut view);
    assert_eq!(
        row(&buffer, find_row(&buffer, "▸")),
        "  ▸ Read cli.rs ✓ 40ms"
    );
    // Closing the fold by a click moves the cursor off the hidden call to the fold.
    let y = find_row(&buffer, "⏺ 4 tools");
    assert!(view.toggle_at(area, 0, y));
    let buffer = draw(&mut term, &mut view);
    assert_eq!(
        row(&buffer, find_row(&buffer, "▸")),
        "▸ 4 tools: Read ×2, Bash, Edit ✓"
    );
    view.clear_selection();
    let buffer = draw(&mut term, &mut view);
    assert!(!(0..24).any(|y| row(&buffer, y).contains('▸')));
    // A click off any header does nothing.
    assert!(!view.toggle_at(area, 0, find_row(&buffer, "Fixed.")));
}

#[test]
fn selecting_scrolls_the_card_into_view() {
    let mut log = vec![user(0, "Go.")];
    for id in 1..40 {
        log.push(call(
            id * 2 - 1,
            "Bash",
            &format!("step {id}"),
            json!({"command": format!("step {id}")}),
            ToolStatus::Succeeded,
            Some("ok"),
            Some(10),
        ));
        log.push(assistant(id * 2, &format!("Step {id} done.")));
    }
    let mut view = LogView::new();
    view.set_entries(log);
    let mut term = terminal(80, 24);
    draw(&mut term, &mut view);
    // From the bottom of the view upwards, past its top.
    for _ in 0..15 {
        assert!(view.select_previous_card());
    }
    let buffer = draw(&mut term, &mut view);
    assert!(!view.is_following());
    assert_eq!(row(&buffer, 0), "▸ Bash step 25 ✓ 10ms");
    // Opening a card at the bottom keeps its header on screen.
    view.to_bottom();
    for _ in 0..14 {
        assert!(view.select_next_card());
    }
    assert!(!view.select_next_card());
    assert!(view.toggle_selected());
    let buffer = draw(&mut term, &mut view);
    let y = find_row(&buffer, "▸ Bash step 39");
    assert_eq!(row(&buffer, y + 1), "  $ step 39");
    assert_eq!(row(&buffer, y + 2), "  ⎿ ok");
}

/// 300 messages with cards: opening and closing a card re-measures that entry alone and a
/// frame draws only what it shows. (Timing measured by hand in release: run with
/// `--release -- --nocapture a_card_in_a_300_message_log`.)
#[test]
fn a_card_in_a_300_message_log_toggles() {
    let mut log = Vec::new();
    for i in 0..100u64 {
        log.push(user(
            i * 3,
            &format!("Request {i}: make the tests pass and explain why."),
        ));
        log.push(bash_with_colours(i * 3 + 1));
        log.push(assistant(
            i * 3 + 2,
            &format!(
                "Step {i} done.\n\n- the **flag** is parsed in `cli.rs`\n- tests pass\n\n```rust\nlet x = {i};\n```"
            ),
        ));
    }
    let mut view = LogView::new();
    view.set_entries(log);
    let area = Rect::new(0, 0, 120, 40);
    let mut buffer = Buffer::empty(area);
    let started = std::time::Instant::now();
    view.render(area, &mut buffer);
    let first = started.elapsed();
    // Scrolled up (anchored), so that the card stays on its row while it opens and closes.
    view.page_up();
    view.render(area, &mut buffer);
    let total = view.total_rows(120);
    let y = (0..40)
        .find(|&y| {
            (0..120)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .starts_with("⏺ Bash")
        })
        .unwrap();
    let frames = 200u32;
    let started = std::time::Instant::now();
    for _ in 0..frames {
        assert!(view.toggle_at(area, 0, y));
        buffer.reset();
        view.render(area, &mut buffer);
    }
    let per_frame = started.elapsed() / frames;
    eprintln!("300 messages at 120×40: first frame {first:?}, toggle + frame {per_frame:?}");
    // An even number of toggles: closed again, the same height as before.
    assert_eq!(view.total_rows(120), total);
    assert!(view.toggle_at(area, 0, y));
    view.render(area, &mut buffer);
    assert!(view.total_rows(120) > total);
}

/// Enter opens a cut message also inside an open subagent card: the subagent's own log names
/// it (the whole text is read from that subagent's transcript); closed, the card offers none.
#[test]
fn a_cut_message_in_an_open_subagent_card_is_found() {
    let mut view = LogView::new();
    view.set_entries(vec![
        user(0, "Where is the logger used?"),
        agent_call(1, ToolStatus::Succeeded, Some("done"), Some(65_000)),
    ]);
    subagent_log(&mut view);
    view.apply_subagent_entry(
        "toolu_1",
        assistant(6, "The whole report starts here\n… [300000 more bytes]"),
        false,
    );
    view.set_subagent(subagent_view(SubagentStatus::Completed, Some("done")));
    let mut term = terminal(120, 40);
    let buffer = draw(&mut term, &mut view);
    assert_eq!(view.cut_message_in_view(), None, "the card is closed");
    let area = Rect::new(0, 0, 120, 40);
    assert!(view.toggle_at(area, 0, find_row(&buffer, "⏺ Explore")));
    draw(&mut term, &mut view);
    assert_eq!(
        view.cut_message_in_view(),
        Some(codiva_tui::log_view::CutMessage {
            subagent: Some("toolu_1".into()),
            entry: 6,
            size: "The whole report starts here".len() + 300_000,
        })
    );
}

/// A call whose turn ended without the agent saying how it ended (codex-acp forgets a turn once
/// it has answered it): its card says the outcome is unknown — no spinner, no ✓ or ✗ — and a
/// fold it is in says so too, in the UI's language.
#[test]
fn a_call_whose_outcome_was_never_reported_says_so() {
    use codiva_protocol::lang::Lang;
    use codiva_tui::i18n::with_lang;
    let unreported = call(
        2,
        "Bash",
        "touch made.txt",
        json!({"command": "touch made.txt"}),
        ToolStatus::Unreported,
        None,
        Some(1_200),
    );
    let mut folded = fold_log();
    folded[3] = call(
        3,
        "Bash",
        "git status --short",
        json!({"command": "git status --short"}),
        ToolStatus::Unreported,
        None,
        Some(300),
    );
    for (lang, suffix, card, fold) in [
        (
            Lang::En,
            "",
            "⏺ Bash touch made.txt outcome unknown 1.2s",
            "⏺ 4 tools: Read ×2, Bash, Edit 1 outcome unknown",
        ),
        (
            Lang::Ja,
            "_ja",
            "⏺ Bash touch made.txt 結果不明 1.2s",
            "⏺ 4 個のツール: Read ×2, Bash, Edit 1 件結果不明",
        ),
    ] {
        with_lang(lang, || {
            for (width, height) in [(80, 24), (200, 60)] {
                let mut view = LogView::new();
                view.set_entries(vec![
                    user(0, "Make a file."),
                    assistant(1, "Making it."),
                    unreported.clone(),
                    assistant(3, "The file is made."),
                ]);
                let mut term = terminal(width, height);
                let buffer = draw(&mut term, &mut view);
                insta::assert_snapshot!(
                    format!("unreported{suffix}_{width}x{height}"),
                    term.backend()
                );
                let y = find_row(&buffer, "⏺ Bash");
                // A wide character's second cell reads as a space.
                assert_eq!(row(&buffer, y).replace(' ', ""), card.replace(' ', ""));
                let mut view = LogView::new();
                view.set_entries(folded.clone());
                let mut term = terminal(width, height);
                let buffer = draw(&mut term, &mut view);
                insta::assert_snapshot!(
                    format!("unreported_fold{suffix}_{width}x{height}"),
                    term.backend()
                );
                let y = find_row(&buffer, "⏺ 4");
                assert_eq!(row(&buffer, y).replace(' ', ""), fold.replace(' ', ""));
            }
        });
    }
}
