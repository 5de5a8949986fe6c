//! The open question card shows the questions and their answers (not the call's JSON), and a
//! background agent's launch shows as one neutral line, not as the agent's bookkeeping.

use codiva_protocol::lang::Lang;
use codiva_tui::i18n::with_lang;
use serde_json::json;

use super::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn question_call(id: u64, result: Option<&str>, status: ToolStatus) -> LogEntry {
    entry(
        id,
        EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: format!("toolu_{id}"),
            name: "AskUserQuestion".into(),
            summary: "Which language should the greeting use?".into(),
            view: codiva_core::claude::tool_view::tool_view("AskUserQuestion", &json!({})),
            input: json!({"questions": [
                {"header": "Language", "multiSelect": false, "question": "Which language should the greeting use?",
                 "options": [{"label": "Japanese", "description": "日本語で"}, {"label": "English", "description": "In English"}]},
                {"header": "Extras", "multiSelect": true, "question": "Which extras do you want?",
                 "options": [{"label": "Emoji", "description": "🎌"}, {"label": "Signature", "description": "Sign it"}]},
            ]}),
            status,
            result: result.map(Into::into),
            duration_ms: Some(9_000),
        })),
    )
}

/// The agent's echo of the answers, as in the claude-ask-user-question capture.
const ANSWERED: &str = "Your questions have been answered: \"Which language should the greeting use?\"=\"Japanese\", \"Which extras do you want?\"=\"Emoji, Signature\". You can now continue with these answers in mind.";

/// Draws `entries` with the card on row `header` opened by a click.
fn open_card(name: &str, entries: Vec<LogEntry>, header: &str) -> Vec<String> {
    let mut screens = Vec::new();
    for (width, height) in SIZES {
        let mut view = LogView::new();
        view.set_entries(entries.clone());
        let mut term = terminal(width, height);
        let buffer = draw(&mut term, &mut view);
        let y = (0..height)
            .find(|&y| row(&buffer, y).trim_start().starts_with(header))
            .unwrap_or_else(|| panic!("no row starts with {header:?}"));
        assert!(view.toggle_at(Rect::new(0, 0, width, height), 3, y));
        let buffer = draw(&mut term, &mut view);
        insta::assert_snapshot!(format!("{name}_{width}x{height}"), term.backend());
        screens.push(
            (0..height)
                .map(|y| row(&buffer, y))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    screens
}

#[test]
fn an_open_question_card_shows_questions_and_answers() {
    let entries = vec![
        user(0, "Greet me."),
        question_call(1, Some(ANSWERED), ToolStatus::Succeeded),
        assistant(2, "こんにちは! 🎌"),
    ];
    for screen in open_card("question_answered", entries, "⏺ AskUserQuestion") {
        assert!(!screen.contains("{\"questions"), "{screen}");
        assert!(!screen.contains("You can now continue"), "{screen}");
        assert!(screen.contains("→ Emoji, Signature"), "{screen}");
    }
}

#[test]
fn a_declined_question_card_lists_the_choices_in_japanese() {
    with_lang(Lang::Ja, || {
        let entries = vec![
            user(0, "挨拶して"),
            question_call(
                1,
                Some("User declined to answer questions"),
                ToolStatus::Failed,
            ),
        ];
        for screen in open_card("ja_question_declined", entries, "⏺ AskUserQuestion") {
            assert!(screen.contains(": Japanese · English"), "{screen}");
        }
    });
}

#[test]
fn a_background_launch_shows_a_neutral_line() {
    for lang in [Lang::En, Lang::Ja] {
        with_lang(lang, || {
            let call = entry(
                1,
                EntryKind::Tool(Box::new(ToolEntry {
                    tool_use_id: "toolu_bg".into(),
                    name: "Agent".into(),
                    summary: "Inspect the repo".into(),
                    view: codiva_core::claude::tool_view::tool_view(
                        "Agent",
                        &json!({"description": "Inspect the repo", "prompt": "list files",
                                "run_in_background": true, "subagent_type": "general-purpose"}),
                    ),
                    input: json!({"description": "Inspect the repo", "prompt": "list files",
                                  "run_in_background": true, "subagent_type": "general-purpose"}),
                    status: ToolStatus::Succeeded,
                    result: Some(String::new()),
                    duration_ms: Some(40),
                })),
            );
            let entries = vec![user(0, "Inspect the repo in the background."), call];
            for (width, height) in SIZES {
                let mut view = LogView::new();
                view.set_entries(entries.clone());
                let mut term = terminal(width, height);
                draw(&mut term, &mut view);
                let name = format!(
                    "{}background_launch_{width}x{height}",
                    if lang == Lang::Ja { "ja_" } else { "" }
                );
                insta::assert_snapshot!(name, term.backend());
            }
        });
    }
}
