//! The permission and question dialogs: every key path and the response it produces, mouse
//! hit-testing, the height cap, and snapshots at 80×24 and 120×40.

mod fixtures;

use codiva_protocol::agent::{PermissionRequest, QuestionResponse};
use codiva_tui::permission_dialog::{DEFAULT_DENY_MESSAGE, PermissionDialog, STOP_MESSAGE};
use codiva_tui::question_dialog::{CHAT_MESSAGE, QuestionDialog};
use codiva_tui::{dialog::DialogAction, dialog::TextPurpose, theme};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::json;

use crate::support::as_claude;

use fixtures::*;

#[test]
fn snapshot_bash_permission() {
    for (w, h) in SIZES {
        let mut dialog = PermissionDialog::new(&PermissionRequest {
            agent_id: Some("agent-7".into()),
            ..bash_request()
        });
        insta::assert_snapshot!(
            format!("permission_bash_{w}x{h}"),
            draw_permission(&mut dialog, w, h).backend()
        );
    }
}

#[test]
fn snapshot_write_permission() {
    for (w, h) in SIZES {
        let mut dialog = PermissionDialog::new(&write_request());
        insta::assert_snapshot!(
            format!("permission_write_{w}x{h}"),
            draw_permission(&mut dialog, w, h).backend()
        );
    }
}

#[test]
fn snapshot_edit_permission_with_diff() {
    for (w, h) in SIZES {
        let mut dialog = PermissionDialog::new(&edit_request());
        insta::assert_snapshot!(
            format!("permission_edit_{w}x{h}"),
            draw_permission(&mut dialog, w, h).backend()
        );
    }
}

#[test]
fn snapshot_multi_edit_permission() {
    let request = permission(
        "MultiEdit",
        json!({"file_path":"README.md","edits":[
            {"old_string":"# codiva\n","new_string":"# codiva 🎌\n"},
            {"old_string":"Run it:\n\n    codiva\n","new_string":"Run it in a git repository:\n\n    codiva\n\nIt restores the previous run's sessions.\n"}
        ]}),
    );
    let mut dialog = PermissionDialog::new(&request);
    insta::assert_snapshot!(
        "permission_multi_edit_80x24",
        draw_permission(&mut dialog, 80, 24).backend()
    );
}

#[test]
fn snapshot_other_tool_as_json() {
    let request = as_claude(PermissionRequest {
        description: Some("Fetch the release notes".into()),
        ..permission(
            "WebFetch",
            json!({"url":"https://example.invalid/releases","prompt":"List the breaking changes"}),
        )
    });
    let mut dialog = PermissionDialog::new(&request);
    insta::assert_snapshot!(
        "permission_json_80x24",
        draw_permission(&mut dialog, 80, 24).backend()
    );
}

#[test]
fn snapshot_scope_menu() {
    for (w, h) in SIZES {
        let mut dialog = PermissionDialog::new(&bash_request());
        assert_eq!(dialog.handle_key(ch('a')), DialogAction::None);
        dialog.handle_key(key(KeyCode::Down));
        insta::assert_snapshot!(
            format!("permission_scope_menu_{w}x{h}"),
            draw_permission(&mut dialog, w, h).backend()
        );
    }
}

#[test]
fn snapshot_multi_select_two_toggled() {
    for (w, h) in SIZES {
        let mut dialog = QuestionDialog::new(&ask(vec![extras()]));
        press(&mut dialog, &[ch(' '), ch('j'), ch('j'), ch('\u{3000}')]);
        let (terminal, _) = draw_question(&mut dialog, w, h, h - LOG_RESERVE);
        insta::assert_snapshot!(format!("question_multi_select_{w}x{h}"), terminal.backend());
    }
}

#[test]
fn snapshot_two_questions_on_submit() {
    for (w, h) in SIZES {
        let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
        press(
            &mut dialog,
            &[
                key(KeyCode::Enter),
                ch(' '),
                ch('j'),
                ch(' '),
                key(KeyCode::Enter),
            ],
        );
        assert_eq!(dialog.current_question(), None);
        let (terminal, _) = draw_question(&mut dialog, w, h, h - LOG_RESERVE);
        insta::assert_snapshot!(format!("question_submit_step_{w}x{h}"), terminal.backend());
    }
}

#[test]
fn snapshot_japanese_labels() {
    let questions = vec![
        question(
            "挨拶はどの言語で表示しますか？長い質問文は端末の幅で折り返されます。",
            "言語",
            &[
                ("日本語", "「こんにちは」と表示します"),
                ("英語", "Hello と表示します"),
                (
                    "絵文字だけ 🎌",
                    "説明がとても長い場合は次の行に折り返して、ラベルの下にそろえて表示します。幅が足りなければさらに折り返します。",
                ),
            ],
            false,
        ),
        question(
            "追加の設定",
            "追加",
            &[("署名", "チーム名"), ("時刻", "現在時刻")],
            true,
        ),
    ];
    for (w, h) in SIZES {
        let mut dialog = QuestionDialog::new(&ask(questions.clone()));
        press(
            &mut dialog,
            &[key(KeyCode::End), ch('k'), key(KeyCode::Enter)],
        );
        assert_eq!(
            dialog.provide_text("関西弁でお願いします".into()),
            DialogAction::None
        );
        press(&mut dialog, &[key(KeyCode::Left), ch('k'), ch('k')]);
        let (terminal, _) = draw_question(&mut dialog, w, h, h - LOG_RESERVE);
        insta::assert_snapshot!(format!("question_japanese_{w}x{h}"), terminal.backend());
    }
}

#[test]
fn snapshot_cramped_height_scrolls() {
    for (w, h) in SIZES {
        let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
        press(
            &mut dialog,
            &[key(KeyCode::Right), ch('j'), ch('j'), ch('j'), ch('j')],
        );
        let (terminal, area) = draw_question(&mut dialog, w, h, 8);
        assert_eq!(area.height, 8);
        insta::assert_snapshot!(format!("question_cramped_{w}x{h}"), terminal.backend());
    }
}

#[test]
fn snapshot_cramped_permission() {
    let mut dialog = PermissionDialog::new(&edit_request());
    let probe = dialog.clone();
    let (terminal, area) = draw(
        80,
        24,
        8,
        |w, m| probe.desired_height(w, m),
        |area, buf| dialog.render(area, buf),
    );
    assert_eq!(area.height, 8);
    insta::assert_snapshot!("permission_cramped_80x24", terminal.backend());
}

// ---- permission keys ----

#[test]
fn y_allows() {
    let mut dialog = PermissionDialog::new(&bash_request());
    assert_eq!(dialog.request_id(), "req-1");
    assert_eq!(dialog.handle_key(ch('y')), respond("allow_once", None));
}

#[test]
fn enter_confirms_the_selected_choice() {
    let mut dialog = PermissionDialog::new(&bash_request());
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("allow_once", None)
    );
    dialog.handle_key(key(KeyCode::Down));
    dialog.handle_key(ch('j'));
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        DialogAction::WantText {
            purpose: TextPurpose::DenyReason
        }
    );
    dialog.handle_key(key(KeyCode::Down));
    dialog.handle_key(key(KeyCode::Down)); // stays on the last
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("deny_and_stop", Some(STOP_MESSAGE))
    );
    dialog.handle_key(ch('k'));
    dialog.handle_key(key(KeyCode::Up));
    dialog.handle_key(key(KeyCode::Enter));
    assert!(dialog.scope_menu_open());
}

#[test]
fn n_asks_for_a_reason_then_denies() {
    let mut dialog = PermissionDialog::new(&bash_request());
    assert_eq!(
        dialog.handle_key(ch('n')),
        DialogAction::WantText {
            purpose: TextPurpose::DenyReason
        }
    );
    assert_eq!(
        dialog.provide_text("Use a temp dir instead.\n".into()),
        respond("deny", Some("Use a temp dir instead."))
    );
    assert_eq!(
        dialog.provide_text(String::new()),
        respond("deny", Some(DEFAULT_DENY_MESSAGE))
    );
}

#[test]
fn s_denies_and_stops() {
    let mut dialog = PermissionDialog::new(&bash_request());
    assert_eq!(
        dialog.handle_key(ch('s')),
        respond("deny_and_stop", Some(STOP_MESSAGE))
    );
}

#[test]
fn a_opens_the_scope_menu() {
    let mut dialog = PermissionDialog::new(&bash_request());
    assert_eq!(dialog.handle_key(ch('a')), DialogAction::None);
    assert!(dialog.scope_menu_open());
    assert_eq!(
        dialog.scope_labels(),
        [
            "Always allow Bash(touch bash1.txt && echo created-1) (local settings)",
            "Allow access to /home/user/repo in this session",
            "Allow all edits in this session (acceptEdits)",
            "Always allow every Bash call in this session",
        ]
    );
    // Letters mean nothing inside the menu.
    assert_eq!(dialog.handle_key(ch('y')), DialogAction::None);
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("allow_always:0", None)
    );
    dialog.handle_key(ch('j'));
    dialog.handle_key(key(KeyCode::Down));
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("allow_always:2", None)
    );
    dialog.handle_key(key(KeyCode::End));
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("allow_always", None)
    );
}

#[test]
fn esc_backs_out_of_the_scope_menu() {
    let mut dialog = PermissionDialog::new(&bash_request());
    dialog.handle_key(ch('a'));
    assert_eq!(dialog.handle_key(key(KeyCode::Esc)), DialogAction::None);
    assert!(!dialog.scope_menu_open());
    assert_eq!(dialog.handle_key(ch('y')), respond("allow_once", None));
}

#[test]
fn without_suggestions_the_menu_offers_the_tool_wide_rule() {
    let mut dialog = PermissionDialog::new(&permission("Bash", json!({"command":"ls"})));
    dialog.handle_key(ch('a'));
    assert_eq!(
        dialog.scope_labels(),
        ["Always allow every Bash call in this session"]
    );
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("allow_always", None)
    );
}

#[test]
fn releases_and_modified_keys_are_ignored() {
    let mut dialog = PermissionDialog::new(&bash_request());
    let mut release = ch('y');
    release.kind = KeyEventKind::Release;
    assert_eq!(dialog.handle_key(release), DialogAction::None);
    assert_eq!(
        dialog.handle_key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::CONTROL)),
        DialogAction::None
    );
    assert_eq!(dialog.handle_key(ch('x')), DialogAction::None);
    assert_eq!(dialog.handle_key(key(KeyCode::Esc)), DialogAction::None);
}

#[test]
fn a_click_selects_and_never_confirms() {
    let mut dialog = PermissionDialog::new(&bash_request());
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 30));
    let area = Rect::new(0, 10, 80, dialog.desired_height(80, 20));
    dialog.render(area, &mut buf);
    let row = (area.top()..area.bottom())
        .find(|&y| row_text(&buf, y).contains("No, and stop this turn"))
        .unwrap();
    assert_eq!(dialog.choice_at(area, 10, row), Some(3));
    assert_eq!(
        dialog.choice_at(area, 10, area.top()),
        None,
        "the title row"
    );
    assert_eq!(dialog.choice_at(area, 10, area.top() - 1), None, "outside");
    dialog.select_choice(3);
    // Selecting sent nothing; Enter confirms what was clicked.
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        respond("deny_and_stop", Some(STOP_MESSAGE))
    );
}

#[test]
fn diff_rows_use_the_diff_styles() {
    let mut dialog = PermissionDialog::new(&edit_request());
    let area = Rect::new(0, 0, 80, 20);
    let mut buf = Buffer::empty(area);
    dialog.render(area, &mut buf);
    let added = (0..20)
        .find(|&y| row_text(&buf, y).starts_with("  + fn greet"))
        .unwrap();
    let removed = (0..20)
        .find(|&y| row_text(&buf, y).starts_with("  - fn greet"))
        .unwrap();
    assert!(removed < added);
    assert_eq!(buf[(2, added)].fg, theme::diff_added().fg.unwrap());
    assert_eq!(buf[(6, added)].fg, theme::diff_added().fg.unwrap());
    assert_eq!(buf[(2, removed)].fg, theme::diff_removed().fg.unwrap());
}

#[test]
fn permission_height_is_capped() {
    let dialog = PermissionDialog::new(&write_request());
    assert!(dialog.desired_height(80, 100) > 20);
    for max in 0..20 {
        assert!(dialog.desired_height(80, max) <= max);
    }
}

// ---- question keys ----

#[test]
fn single_question_answers_on_enter() {
    let mut dialog = QuestionDialog::new(&ask(vec![language()]));
    assert_eq!(dialog.request_id(), "ask-1");
    assert_eq!(
        press(&mut dialog, &[key(KeyCode::Down), key(KeyCode::Enter)]),
        answers(&[("Which language should the greeting use?", &["English"])])
    );
}

#[test]
fn digits_pick_options() {
    let mut dialog = QuestionDialog::new(&ask(vec![language()]));
    assert_eq!(
        dialog.handle_key(ch('1')),
        answers(&[("Which language should the greeting use?", &["Japanese"])])
    );
}

#[test]
fn two_questions_then_submit() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    // Enter picks Japanese and moves on.
    assert_eq!(dialog.handle_key(key(KeyCode::Enter)), DialogAction::None);
    assert_eq!(dialog.current_question(), Some(1));
    // Space and the full-width space toggle.
    press(
        &mut dialog,
        &[ch(' '), ch('j'), ch('\u{3000}'), ch('j'), ch(' '), ch(' ')],
    );
    assert_eq!(dialog.handle_key(key(KeyCode::Enter)), DialogAction::None);
    assert_eq!(dialog.current_question(), None, "on the Submit step");
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        answers(&[
            ("Which language should the greeting use?", &["Japanese"]),
            ("Which extras do you want?", &["Emoji", "Signature"]),
        ])
    );
}

#[test]
fn multi_select_enter_with_nothing_checked_takes_the_highlighted_option() {
    let mut dialog = QuestionDialog::new(&ask(vec![extras()]));
    press(&mut dialog, &[ch('j'), ch('j'), key(KeyCode::Enter)]);
    assert_eq!(dialog.current_question(), None);
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        answers(&[("Which extras do you want?", &["Timestamp"])])
    );
}

#[test]
fn partial_answers_survive_switching_questions() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    press(
        &mut dialog,
        &[
            key(KeyCode::Tab),
            ch(' '),
            ch('j'),
            ch('j'),
            ch('j'),
            ch(' '),
        ],
    );
    press(
        &mut dialog,
        &[key(KeyCode::Left), key(KeyCode::Left), key(KeyCode::Left)],
    );
    assert_eq!(dialog.current_question(), Some(0));
    // The app drops focus, renders other things, comes back: the dialog is the same value.
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 20));
    dialog.render(Rect::new(0, 0, 80, 20), &mut buf);
    press(&mut dialog, &[key(KeyCode::Right)]);
    assert_eq!(dialog.current_question(), Some(1));
    press(&mut dialog, &[key(KeyCode::BackTab), ch('2')]);
    assert_eq!(dialog.current_question(), Some(1));
    press(
        &mut dialog,
        &[
            key(KeyCode::Right),
            key(KeyCode::Right),
            key(KeyCode::Right),
        ],
    );
    assert_eq!(dialog.current_question(), None, "Right stops at Submit");
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        answers(&[
            ("Which language should the greeting use?", &["English"]),
            ("Which extras do you want?", &["Emoji", "Colour"]),
        ])
    );
}

#[test]
fn submit_leaves_unanswered_questions_out() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    press(&mut dialog, &[key(KeyCode::Right), key(KeyCode::Right)]);
    assert_eq!(dialog.handle_key(key(KeyCode::Enter)), answers(&[]));
}

#[test]
fn type_something_becomes_the_answer() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    press(
        &mut dialog,
        &[ch('1'), key(KeyCode::Left), key(KeyCode::End), ch('k')],
    );
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        DialogAction::WantText {
            purpose: TextPurpose::FreeText { question: 0 }
        }
    );
    assert_eq!(dialog.provide_text("Klingon".into()), DialogAction::None);
    assert_eq!(dialog.free_text(0), Some("Klingon"));
    assert_eq!(dialog.current_question(), Some(1));
    // In a multi-select question the text joins the checked options.
    press(&mut dialog, &[ch(' '), key(KeyCode::End), ch('k')]);
    assert_eq!(
        dialog.handle_key(ch(' ')),
        DialogAction::WantText {
            purpose: TextPurpose::FreeText { question: 1 }
        }
    );
    assert_eq!(dialog.provide_text("Confetti".into()), DialogAction::None);
    assert_eq!(dialog.current_question(), None);
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        answers(&[
            ("Which language should the greeting use?", &["Klingon"]),
            ("Which extras do you want?", &["Emoji", "Confetti"]),
        ])
    );
}

#[test]
fn free_text_answers_a_single_question_at_once() {
    let mut dialog = QuestionDialog::new(&ask(vec![language()]));
    press(&mut dialog, &[ch('j'), ch('j')]);
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        DialogAction::WantText {
            purpose: TextPurpose::FreeText { question: 0 }
        }
    );
    // An empty text keeps the choices open.
    assert_eq!(dialog.provide_text("  ".into()), DialogAction::None);
    assert_eq!(dialog.current_question(), Some(0));
    assert_eq!(
        dialog.provide_text("Esperanto".into()),
        answers(&[("Which language should the greeting use?", &["Esperanto"])])
    );
}

#[test]
fn chat_about_this_declines() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    assert_eq!(
        press(&mut dialog, &[key(KeyCode::End), key(KeyCode::Enter)]),
        DialogAction::Answer(QuestionResponse::Decline {
            message: Some(CHAT_MESSAGE.into())
        })
    );
}

#[test]
fn question_click_selects_and_tabs_switch() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    let area = Rect::new(0, 4, 80, dialog.desired_height(80, 19));
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 24));
    dialog.render(area, &mut buf);
    let english = (area.top()..area.bottom())
        .find(|&y| row_text(&buf, y).contains("English"))
        .unwrap();
    assert_eq!(dialog.choice_at(area, 5, english), Some(1));
    dialog.select_choice(1);
    assert_eq!(
        dialog.current_question(),
        Some(0),
        "a click does not answer"
    );
    let tabs = area.top() + 1;
    let tab_row = row_text(&buf, tabs);
    let extras_byte = tab_row.find("Extras").unwrap();
    let extras_x = u16::try_from(tab_row[..extras_byte].chars().count()).unwrap();
    assert_eq!(dialog.tab_at(area, extras_x + 1, tabs), Some(1));
    assert_eq!(dialog.tab_at(area, 0, tabs), None);
    dialog.select_tab(1);
    assert_eq!(dialog.current_question(), Some(1));
    dialog.select_tab(0);
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        DialogAction::None,
        "Enter picks the clicked option and moves on"
    );
    dialog.select_tab(2);
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        answers(&[("Which language should the greeting use?", &["English"])])
    );
}

#[test]
fn cramped_choices_scroll_and_hit_test_what_is_drawn() {
    let mut dialog = QuestionDialog::new(&ask(vec![language(), extras()]));
    press(&mut dialog, &[key(KeyCode::Right)]);
    for max in 0..12 {
        assert!(dialog.desired_height(80, max) <= max);
    }
    let area = Rect::new(0, 0, 80, 8);
    for (presses, label) in [
        (0, "Emoji"),
        (3, "Colour"),
        (5, "Chat about this"),
        (1, "Signature"),
    ] {
        let mut dialog = dialog.clone();
        for _ in 0..presses {
            dialog.handle_key(key(KeyCode::Down));
        }
        let mut buf = Buffer::empty(area);
        dialog.render(area, &mut buf);
        let row = (0..8).find(|&y| row_text(&buf, y).contains(label)).unwrap();
        assert_eq!(dialog.choice_at(area, 4, row), Some(presses), "{label}");
        let text: String = (0..8).map(|y| row_text(&buf, y) + "\n").collect();
        assert!(text.contains("more"), "{text}");
    }
}

fn row_text(buf: &Buffer, y: u16) -> String {
    let area = buf.area;
    (area.left()..area.right())
        .map(|x| buf[(x, y)].symbol())
        .collect::<String>()
}

/// The facts under a file's name (lines written, edits, every occurrence) are worded in the UI's
/// language, not in the agent module's English.
#[test]
fn snapshot_write_and_multi_edit_permission_in_japanese() {
    codiva_tui::i18n::with_lang(codiva_protocol::lang::Lang::Ja, || {
        let mut dialog = PermissionDialog::new(&write_request());
        insta::assert_snapshot!(
            "permission_write_ja_80x24",
            draw_permission(&mut dialog, 80, 24).backend()
        );
        let request = permission(
            "MultiEdit",
            json!({"file_path":"README.md","edits":[
                {"old_string":"a\n","new_string":"b\n"},
                {"old_string":"c\n","new_string":"d\n"}
            ]}),
        );
        let mut dialog = PermissionDialog::new(&request);
        insta::assert_snapshot!(
            "permission_multi_edit_ja_80x24",
            draw_permission(&mut dialog, 80, 24).backend()
        );
    });
}

/// A request that offers only allow once and deny (as an agent without "always" or "stop"
/// answers would): only those are drawn, and the other letters do nothing.
#[test]
fn only_the_answers_the_request_offers_are_shown() {
    use codiva_protocol::tool::PermissionOptionKind;
    let mut request = bash_request();
    request.options.retain(|option| {
        matches!(
            option.kind,
            PermissionOptionKind::AllowOnce | PermissionOptionKind::Deny
        )
    });
    let mut dialog = PermissionDialog::new(&request);
    let screen = format!("{}", draw_permission(&mut dialog, 80, 24).backend());
    assert!(screen.contains("(y)") && screen.contains("(n)"), "{screen}");
    assert!(
        !screen.contains("(a)") && !screen.contains("(s)"),
        "{screen}"
    );
    assert!(
        screen.contains("y allow · n deny · ↑↓ Enter choose"),
        "{screen}"
    );
    assert_eq!(dialog.handle_key(ch('a')), DialogAction::None);
    assert!(!dialog.scope_menu_open());
    assert_eq!(dialog.handle_key(ch('s')), DialogAction::None);
    // The second choice shown is deny: Down then Enter asks for its reason.
    dialog.handle_key(key(KeyCode::Down));
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        DialogAction::WantText {
            purpose: TextPurpose::DenyReason
        }
    );
    assert_eq!(
        dialog.provide_text("no".into()),
        respond("deny", Some("no"))
    );
    assert_eq!(dialog.handle_key(ch('y')), respond("allow_once", None));
}
