//! The dialogs' fixtures: requests and questions as the agent sends them, keys, and drawing
//! a dialog into a test terminal.

use std::collections::BTreeMap;

use codiva_protocol::agent::{
    PermissionRequest, Question, QuestionOption, QuestionRequest, QuestionResponse,
};
use codiva_tui::permission_dialog::PermissionAnswer;
use codiva_tui::permission_dialog::PermissionDialog;
use codiva_tui::question_dialog::QuestionDialog;
use codiva_tui::{dialog::DialogAction, theme};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Value, json};

use crate::support::as_claude;

pub(super) fn permission(tool: &str, input: Value) -> PermissionRequest {
    as_claude(PermissionRequest {
        request_id: "req-1".into(),
        tool: tool.into(),
        view: Default::default(),
        options: Vec::new(),
        input,
        description: None,
        suggestions: Vec::new(),
        tool_use_id: Some("toolu_1".into()),
        agent_id: None,
        blocked_path: None,
        reason: None,
    })
}

pub(super) fn bash_request() -> PermissionRequest {
    as_claude(PermissionRequest {
        description: Some("Create bash1.txt and print a marker".into()),
        suggestions: vec![
            json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch bash1.txt && echo created-1"}],"behavior":"allow","destination":"localSettings"}),
            json!({"type":"addDirectories","directories":["/home/user/repo"],"destination":"session"}),
            json!({"type":"setMode","mode":"acceptEdits","destination":"session"}),
        ],
        blocked_path: Some("/home/user/repo/bash1.txt".into()),
        reason: Some("This command requires approval".into()),
        ..permission(
            "Bash",
            json!({"command":"touch bash1.txt && echo created-1","description":"Create bash1.txt and print a marker"}),
        )
    })
}

pub(super) fn write_request() -> PermissionRequest {
    let content: String = (1..=24)
        .map(|i| format!("line {i}: the quick brown fox\n"))
        .collect();
    as_claude(PermissionRequest {
        description: Some("notes.txt".into()),
        suggestions: vec![json!({"type":"setMode","mode":"acceptEdits","destination":"session"})],
        ..permission(
            "Write",
            json!({"file_path":"/home/user/repo/notes.txt","content":content}),
        )
    })
}

pub(super) fn edit_request() -> PermissionRequest {
    let old = "fn greet(name: &str) -> String {\n    let greeting = \"Hello\";\n    format!(\"{greeting}, {name}!\")\n}\n";
    let new = "fn greet(name: &str, lang: Lang) -> String {\n    let greeting = match lang {\n        Lang::Ja => \"こんにちは\",\n        Lang::En => \"Hello\",\n    };\n    format!(\"{greeting}, {name}!\")\n}\n";
    as_claude(PermissionRequest {
        suggestions: vec![json!({"type":"setMode","mode":"acceptEdits","destination":"session"})],
        ..permission(
            "Edit",
            json!({"file_path":"src/greet.rs","old_string":old,"new_string":new}),
        )
    })
}

pub(super) fn question(
    text: &str,
    header: &str,
    options: &[(&str, &str)],
    multi: bool,
) -> Question {
    Question {
        question: text.into(),
        header: Some(header.into()),
        options: options
            .iter()
            .map(|(label, description)| QuestionOption {
                label: (*label).into(),
                description: Some((*description).into()),
            })
            .collect(),
        multi_select: multi,
    }
}

pub(super) fn language() -> Question {
    question(
        "Which language should the greeting use?",
        "Language",
        &[("Japanese", "日本語で"), ("English", "In English")],
        false,
    )
}

pub(super) fn extras() -> Question {
    question(
        "Which extras do you want?",
        "Extras",
        &[
            ("Emoji", "Add an emoji at the end"),
            ("Signature", "Sign the greeting with the team name"),
            ("Timestamp", "Print the current time first"),
            ("Colour", "Colour the output when stdout is a terminal"),
        ],
        true,
    )
}

pub(super) fn ask(questions: Vec<Question>) -> QuestionRequest {
    QuestionRequest {
        request_id: "ask-1".into(),
        questions,
        input: json!({}),
        tool_use_id: None,
    }
}

pub(super) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub(super) fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

pub(super) fn press(dialog: &mut QuestionDialog, keys: &[KeyEvent]) -> DialogAction {
    let mut last = DialogAction::None;
    for k in keys {
        last = dialog.handle_key(*k);
    }
    last
}

pub(super) fn answers(pairs: &[(&str, &[&str])]) -> DialogAction {
    let map: BTreeMap<String, Vec<String>> = pairs
        .iter()
        .map(|(q, a)| ((*q).to_owned(), a.iter().map(|s| (*s).to_owned()).collect()))
        .collect();
    DialogAction::Answer(QuestionResponse::Answers(map))
}

/// The dialog's answer: option `id` of the request, with `message`.
pub(super) fn respond(id: &str, message: Option<&str>) -> DialogAction {
    DialogAction::Respond(PermissionAnswer {
        option: id.to_owned(),
        message: message.map(str::to_owned),
    })
}

// ---- snapshots ----

/// Log rows the app keeps visible above a dialog.
pub(super) const LOG_RESERVE: u16 = 5;

/// Draws a dialog at the bottom of a `width`×`height` screen, under `height - rows` empty log
/// rows, the way the app does; returns the terminal and the dialog's area.
pub(super) fn draw(
    width: u16,
    height: u16,
    max: u16,
    desired: impl Fn(u16, u16) -> u16,
    mut render: impl FnMut(Rect, &mut Buffer),
) -> (Terminal<TestBackend>, Rect) {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let rows = desired(width, max);
    assert!(rows <= max, "{rows} rows asked with max {max}");
    let area = Rect::new(0, height - rows, width, rows);
    terminal
        .draw(|frame| {
            frame.buffer_mut().set_string(0, 0, "(log)", theme::dim());
            render(area, frame.buffer_mut());
        })
        .unwrap();
    (terminal, area)
}

pub(super) fn draw_permission(
    dialog: &mut PermissionDialog,
    width: u16,
    height: u16,
) -> Terminal<TestBackend> {
    let max = height - LOG_RESERVE;
    let probe = dialog.clone();
    draw(
        width,
        height,
        max,
        |w, m| probe.desired_height(w, m),
        |area, buf| dialog.render(area, buf),
    )
    .0
}

pub(super) fn draw_question(
    dialog: &mut QuestionDialog,
    width: u16,
    height: u16,
    max: u16,
) -> (Terminal<TestBackend>, Rect) {
    let probe = dialog.clone();
    draw(
        width,
        height,
        max,
        |w, m| probe.desired_height(w, m),
        |area, buf| dialog.render(area, buf),
    )
}

pub(super) const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];
