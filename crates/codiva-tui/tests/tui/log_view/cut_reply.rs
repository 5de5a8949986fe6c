//! A reply longer than the memory cap (issue 24): the tail its reader follows while it streams
//! is what stays on screen when it completes, the completed message keeps its end, and its
//! first row says how much is not shown and that Enter opens it all.

use codiva_core::session_log::Log;
use codiva_protocol::lang::Lang;
use codiva_protocol::log::EntryKind;
use codiva_protocol::text::{MAX_MESSAGE_TEXT, ceil_boundary};
use codiva_tui::i18n::with_lang;
use codiva_tui::log_view::{CutMessage, LogView};

use ratatui::buffer::Buffer;

use super::{row, terminal, user};

/// A long Markdown reply: sections with headings, emphasis, lists and code, about 1.5 × the
/// cap.
fn long_reply(japanese: bool) -> String {
    let mut text = String::new();
    let mut part = 0;
    while text.len() < MAX_MESSAGE_TEXT * 3 / 2 {
        part += 1;
        if japanese {
            text.push_str(&format!(
                "## 第{part}部\n\n設定を**移す**手順です。`config/{part}.toml` を読み、古い値を新しい形に直してから書き戻します。絵文字 🎌 も入ります。\n\n- 読む\n- 直す\n\n```rust\nfn part_{part}() {{}}\n```\n\n"
            ));
        } else {
            text.push_str(&format!(
                "## Part {part}\n\nThis step **moves** the settings: read `config/{part}.toml`, rewrite the old values in the new shape, and write it back.\n\n- read\n- rewrite\n\n```rust\nfn part_{part}() {{}}\n```\n\n"
            ));
        }
    }
    if japanese {
        text.push_str(&format!("以上、全{part}部です。"));
    } else {
        text.push_str(&format!("That is all {part} parts."));
    }
    text
}

fn screen(buffer: &Buffer) -> Vec<String> {
    (0..buffer.area.height).map(|y| row(buffer, y)).collect()
}

/// Draws a frame; returns what it drew (a test backend keeps stale symbols behind wide
/// characters, which a terminal overwrites).
fn draw(
    terminal: &mut ratatui::Terminal<ratatui::backend::TestBackend>,
    view: &mut LogView,
) -> Buffer {
    terminal
        .draw(|frame| view.render(frame.area(), frame.buffer_mut()))
        .unwrap()
        .buffer
        .clone()
}

/// The view drawn on a fresh terminal, for a snapshot.
fn fresh(view: &mut LogView, width: u16, height: u16) -> ratatui::backend::TestBackend {
    let mut term = terminal(width, height);
    draw(&mut term, view);
    term.backend().clone()
}

/// Regression: at completion the view switched to the reply's first 256 KiB and the tail the
/// reader was following was gone.
#[test]
fn a_reply_over_the_cap_keeps_its_tail_on_screen_when_it_completes() {
    for (lang, name) in [(Lang::En, "en"), (Lang::Ja, "ja")] {
        with_lang(lang, || {
            for (width, height) in [(80, 24), (120, 40)] {
                let whole = long_reply(lang == Lang::Ja);
                // The log as the core keeps it: the prompt, then the completed reply, capped.
                let mut log = Log::new();
                let prompt = log.push(
                    0,
                    EntryKind::User {
                        text: "Write the migration plan.".into(),
                    },
                );
                let mut view = LogView::new();
                view.set_entries(vec![user(prompt.id, "Write the migration plan.")]);
                let mut term = terminal(width, height);
                draw(&mut term, &mut view);
                let mut sent = 0;
                let mut deltas = 0;
                while sent < whole.len() {
                    let end = ceil_boundary(&whole, sent + 997);
                    view.push_stream(&whole[sent..end]);
                    sent = end;
                    deltas += 1;
                    if deltas % 50 == 0 {
                        draw(&mut term, &mut view);
                    }
                }
                let streaming = draw(&mut term, &mut view);
                let before = screen(&streaming);
                assert!(view.is_following());
                let last = before.last().unwrap().replace(' ', "");
                assert!(
                    last.ends_with("parts.") || last.ends_with("です。"),
                    "{before:#?}"
                );

                // The session completes the message: the stream resets, and the entry (large,
                // so it may come a frame later) arrives; no frame in between shows neither.
                view.reset_stream();
                let between = draw(&mut term, &mut view);
                assert_eq!(
                    screen(&between),
                    before,
                    "{name} {width}x{height}: reset, no entry yet"
                );
                let reply = log.push(
                    1,
                    EntryKind::Assistant {
                        text: whole.clone(),
                    },
                );
                view.apply(reply.clone(), false);
                let completed = draw(&mut term, &mut view);
                assert_eq!(
                    screen(&completed),
                    before,
                    "{name} {width}x{height}: the same tail"
                );
                insta::assert_snapshot!(
                    format!("cut_reply_tail_{name}_{width}x{height}"),
                    fresh(&mut view, width, height)
                );
                let cut = Some(CutMessage {
                    subagent: None,
                    entry: reply.id,
                    size: whole.len(),
                });
                assert_eq!(view.cut_message_in_view(), cut);

                // Its first row says what is not shown and that Enter opens it all.
                view.to_top();
                let top = draw(&mut term, &mut view);
                let header = row(&top, 2).replace(' ', "");
                assert!(
                    header.ends_with("abovenotshown—Enterforall")
                        || header.ends_with("は表示していません—Enterで全文"),
                    "{header}"
                );
                insta::assert_snapshot!(
                    format!("cut_reply_top_{name}_{width}x{height}"),
                    fresh(&mut view, width, height)
                );
                assert_eq!(view.cut_message_in_view(), cut);
            }
        });
    }
}

/// A reset stream's rows stay until what replaces them: the completed entry, a retry row, or
/// the next message's text; never both the old rows and their replacement.
#[test]
fn a_reset_stream_stays_until_something_replaces_it() {
    let mut term = terminal(80, 24);
    let mut view = LogView::new();
    view.set_entries(vec![user(0, "Go.")]);
    view.push_stream("Partial answer");
    view.reset_stream();
    assert_eq!(view.streaming(), "");
    assert!(screen(&draw(&mut term, &mut view)).contains(&"Partial answer".to_owned()));
    view.set_retry(Some("retrying in 2 s".into()));
    let rows = screen(&draw(&mut term, &mut view));
    assert!(!rows.contains(&"Partial answer".to_owned()), "{rows:#?}");

    view.push_stream("Second try");
    view.reset_stream();
    view.push_stream("Next message");
    let rows = screen(&draw(&mut term, &mut view));
    assert!(
        !rows.iter().any(|row| row.contains("Second try")),
        "{rows:#?}"
    );
    assert!(rows.contains(&"Next message".to_owned()), "{rows:#?}");
}
