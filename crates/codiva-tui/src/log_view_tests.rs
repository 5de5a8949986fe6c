//! The log view's own invariants: the height index against drawing every entry afresh, the
//! bounded line cache.

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, ToolEntry, ToolStatus};
use codiva_protocol::session::SubagentView;

use super::*;

/// The height index says what drawing every entry afresh gives.
fn assert_index_matches_blocks(view: &LogView) {
    for index in 0..view.entries.len() {
        let fresh = if view.folded_away(index) {
            0
        } else {
            entry_block::block(&view.entries, index, view.index_width, &view.look).height()
        };
        assert_eq!(view.index.height(index), fresh, "entry {index}");
        let cheap = entry_block::height(&view.entries, index, view.index_width, &view.look);
        assert_eq!(cheap, fresh, "entry {index}");
    }
}

fn call(id: u64, name: &str, status: ToolStatus, result: &str) -> LogEntry {
    LogEntry {
        id,
        at_ms: 0,
        kind: EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: format!("t{id}"),
            name: name.into(),
            summary: format!("call {id}"),
            view: codiva_core::claude::tool_view::tool_view(
                name,
                &serde_json::json!({"command": format!("echo {id}")}),
            ),
            input: serde_json::json!({"command": format!("echo {id}")}),
            status,
            result: Some(result.into()),
            duration_ms: Some(id),
        })),
    }
}

/// Calls arriving, finishing, folding; cards opening, closing, getting the cursor; a
/// subagent's log growing inside its open card: after each step the index agrees with the
/// blocks.
#[test]
fn heights_follow_every_change() {
    let mut view = LogView::new();
    let area = Rect::new(0, 0, 60, 20);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf);
    let long: String = (0..40).map(|i| format!("line {i}\n")).collect();
    let mut id = 0;
    for round in 0..6u64 {
        for k in 0..4 {
            let status = if k == 3 {
                ToolStatus::Running
            } else {
                ToolStatus::Succeeded
            };
            view.apply(call(id, "Bash", status, &long), false);
            id += 1;
            assert_index_matches_blocks(&view);
        }
        // The running call finishes: the four fold.
        view.apply(call(id - 1, "Bash", ToolStatus::Failed, "boom"), true);
        assert_index_matches_blocks(&view);
        view.render(area, &mut buf);
        let fold_area_rows = view.select_previous_card();
        assert!(fold_area_rows);
        for _ in 0..3 {
            view.toggle_selected();
            view.render(area, &mut buf);
            assert_index_matches_blocks(&view);
        }
        view.select_next_card();
        view.toggle_selected();
        assert_index_matches_blocks(&view);
        // A subagent.
        let agent = id;
        view.apply(call(agent, "Agent", ToolStatus::Running, ""), false);
        id += 1;
        view.set_subagent(SubagentView {
            tool_use_id: format!("t{agent}"),
            task_id: None,
            description: Some(format!("round {round}")),
            subagent_type: Some("Explore".into()),
            background: false,
            status: codiva_protocol::session::SubagentStatus::Running,
            last_tool: None,
            tokens: 0,
            tool_uses: 0,
            elapsed_ms: 0,
            summary: None,
        });
        view.render(area, &mut buf);
        view.select_next_card();
        view.toggle_selected();
        for n in 0..5 {
            view.apply_subagent_entry(
                &format!("t{agent}"),
                call(n, "Read", ToolStatus::Succeeded, "text"),
                false,
            );
            assert_index_matches_blocks(&view);
        }
        view.set_tick(round);
        view.apply(
            LogEntry {
                id,
                at_ms: 0,
                kind: EntryKind::Assistant {
                    text: "Done.".into(),
                },
            },
            false,
        );
        id += 1;
        view.render(area, &mut buf);
        assert_index_matches_blocks(&view);
    }
    // Another width: measured again, still in agreement.
    let wide = Rect::new(0, 0, 100, 20);
    let mut buf = Buffer::empty(wide);
    view.render(wide, &mut buf);
    assert_index_matches_blocks(&view);
}

/// Scrolling through a long log keeps the line cache within its budget (the cache does not
/// grow with every frame).
#[test]
fn the_line_cache_stays_bounded() {
    let entries = (0..20_000)
        .map(|id| LogEntry {
            id,
            at_ms: 0,
            kind: EntryKind::Note {
                level: NoteLevel::Info,
                text: "a\nb\nc".into(),
                code: None,
            },
        })
        .collect();
    let mut view = LogView::new();
    view.set_entries(entries);
    let area = Rect::new(0, 0, 80, 40);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf);
    view.to_top();
    while !view.is_following() {
        view.page_down();
        view.render(area, &mut buf);
        assert!(view.cache.rows() <= cache::MAX_CACHED_ROWS + 80);
        assert!(view.cache.len() <= cache::MAX_CACHED_ENTRIES + 40);
    }
}

/// A message measured to index it is the block the next frame draws: kept, not drawn twice.
/// Only while the cache has room, newest first.
#[test]
fn a_message_measured_on_load_is_not_drawn_again() {
    let message = |id: u64, lines: usize| LogEntry {
        id,
        at_ms: 0,
        kind: EntryKind::Assistant {
            text: (0..lines)
                .map(|l| format!("line {l} of message {id}\n\n"))
                .collect(),
        },
    };
    let mut view = LogView::new();
    view.set_entries(vec![message(1, 40), message(2, 40)]);
    view.set_width(120);
    for entry in &view.entries {
        let cached = view.cache.peek(entry.entry.id, entry.revision, 120);
        assert!(cached.is_some(), "entry {} kept", entry.entry.id);
    }
    assert_index_matches_blocks(&view);
    let rows = view.cache.rows();
    let area = Rect::new(0, 0, 120, 30);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf);
    assert_eq!(view.cache.rows(), rows, "the frame drew from the cache");
    // A log larger than the cache's budget keeps its newest messages only.
    let big: Vec<LogEntry> = (0..40).map(|id| message(id, 400)).collect();
    let mut view = LogView::new();
    view.set_entries(big);
    view.set_width(120);
    assert!(
        view.cache.rows() <= cache::MAX_CACHED_ROWS,
        "{}",
        view.cache.rows()
    );
    let last = view.entries.last().unwrap();
    assert!(view.cache.peek(last.entry.id, last.revision, 120).is_some());
    let first = view.entries.first().unwrap();
    assert!(
        view.cache
            .peek(first.entry.id, first.revision, 120)
            .is_none()
    );
    assert_index_matches_blocks(&view);
}
