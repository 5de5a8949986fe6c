//! Notification sequences are well-formed whatever the title and body (they come from model
//! output): one introducer, one terminator per sequence, no control character inside, no `;`
//! beyond the format's own separators, and a well-formed tmux wrapper around all of it.
//!
//! Control characters are checked per character, not per byte: UTF-8 continuation bytes of
//! ordinary characters lie in 0x80..0xBF and are not C1 controls to a UTF-8 terminal.

use codiva_tui::notify::{
    BODY_MAX_CHARS, Channel, DEFAULT_MAX_CHARS, Notification, Notifier, sanitize_title, sequence,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

const ESC: char = '\x1b';
const BEL: char = '\x07';

/// Text rich in what could break a sequence: ESC, BEL, ST (7- and 8-bit), CSI/OSC/DCS in their
/// 8-bit forms, separators, line breaks, DEL, plus arbitrary characters.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\x1b".to_owned()),
        Just("\x07".to_owned()),
        Just("\x1b\\".to_owned()),
        Just("\x1b]0;".to_owned()),
        Just("\x1bPtmux;".to_owned()),
        Just("\u{9c}".to_owned()),
        Just("\u{9b}".to_owned()),
        Just("\u{9d}".to_owned()),
        Just("\u{90}".to_owned()),
        Just("\u{85}".to_owned()),
        Just(";".to_owned()),
        Just(":".to_owned()),
        Just("=".to_owned()),
        Just("\n\r\t".to_owned()),
        Just("\u{7f}".to_owned()),
        Just("  ".to_owned()),
        any::<char>().prop_map(String::from),
        "[a-z]{1,8}",
        "[日本語🙂]{1,3}",
    ];
    prop::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), hostile_text()]
}

fn channel() -> impl Strategy<Value = Channel> {
    prop_oneof![
        Just(Channel::Osc777),
        Just(Channel::Osc9),
        Just(Channel::Osc99)
    ]
}

fn is_c0_c1_or_del(ch: char) -> bool {
    ch.is_control()
}

/// Undoes the tmux wrapper: `ESC P tmux; <inner, ESC doubled> ESC \`.
fn unwrap_tmux(wrapped: &str) -> Result<String, TestCaseError> {
    let middle = wrapped
        .strip_prefix("\x1bPtmux;")
        .and_then(|rest| rest.strip_suffix("\x1b\\"))
        .ok_or_else(|| TestCaseError::fail(format!("not a tmux wrapper: {wrapped:?}")))?;
    let mut inner = String::with_capacity(middle.len());
    let mut chars = middle.chars();
    while let Some(ch) = chars.next() {
        if ch == ESC {
            // Every ESC inside is doubled; a lone one would end the passthrough early.
            prop_assert_eq!(chars.next(), Some(ESC), "lone ESC inside the wrapper");
        }
        inner.push(ch);
    }
    Ok(inner)
}

/// A sequence's content: no C0 (ESC, BEL, …), C1 (ST, CSI, OSC, …) or DEL.
fn check_content(content: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        !content.chars().any(is_c0_c1_or_del),
        "control character in {:?}",
        content
    );
    Ok(())
}

/// Checks one unwrapped sequence (or kitty's pair of sequences).
fn check_sequence(channel: Channel, inner: &str) -> Result<(), TestCaseError> {
    match channel {
        Channel::Osc777 => {
            let content = inner
                .strip_prefix("\x1b]777;notify;")
                .and_then(|rest| rest.strip_suffix(BEL))
                .ok_or_else(|| TestCaseError::fail(format!("bad OSC 777: {inner:?}")))?;
            check_content(content)?;
            // Exactly the separator between title and body.
            prop_assert_eq!(content.matches(';').count(), 1, "{:?}", content);
            let (title, _body) = content.split_once(';').unwrap_or_default();
            prop_assert!(!title.is_empty());
        }
        Channel::Osc9 => {
            let content = inner
                .strip_prefix("\x1b]9;")
                .and_then(|rest| rest.strip_suffix(BEL))
                .ok_or_else(|| TestCaseError::fail(format!("bad OSC 9: {inner:?}")))?;
            check_content(content)?;
            prop_assert!(!content.contains(';'), "{:?}", content);
            prop_assert!(!content.is_empty());
        }
        Channel::Osc99 => {
            let chunks: Vec<&str> = inner.split("\x1b\\").collect();
            // Two sequences, each ending in ST, and nothing after the last one.
            prop_assert_eq!(chunks.len(), 3, "{:?}", inner);
            prop_assert_eq!(chunks[2], "");
            for (index, chunk) in chunks[..2].iter().enumerate() {
                let content = chunk
                    .strip_prefix("\x1b]99;")
                    .ok_or_else(|| TestCaseError::fail(format!("bad OSC 99: {chunk:?}")))?;
                check_content(content)?;
                let (metadata, payload) = content
                    .split_once(';')
                    .ok_or_else(|| TestCaseError::fail(format!("no metadata: {content:?}")))?;
                prop_assert!(!payload.contains(';'), "{:?}", payload);
                for pair in metadata.split(':') {
                    let (key, value) = pair
                        .split_once('=')
                        .ok_or_else(|| TestCaseError::fail(format!("bad pair {pair:?}")))?;
                    prop_assert!(key.len() == 1 && key.chars().all(|c| c.is_ascii_alphabetic()));
                    prop_assert!(
                        !value.is_empty()
                            && value
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric()
                                    || matches!(c, '-' | '_' | '+' | '.')),
                        "bad value {:?}",
                        value
                    );
                }
                let done = if index == 0 { "d=0" } else { "d=1" };
                prop_assert!(
                    metadata.split(':').any(|pair| pair == done),
                    "{:?}",
                    metadata
                );
            }
        }
        Channel::Desktop | Channel::None => prop_assert!(false, "no sequence expected"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn sequences_are_well_formed(
        channel in channel(),
        title in text(),
        body in text(),
        in_tmux in any::<bool>(),
    ) {
        let seq = sequence(channel, &title, &body, in_tmux).expect("a sequence");
        prop_assert!(!seq.chars().any(|ch| ('\u{80}'..='\u{9f}').contains(&ch)), "C1 in {:?}", seq);
        prop_assert!(!seq.contains('\x7f'), "DEL in {:?}", seq);
        let inner = if in_tmux {
            unwrap_tmux(&seq)?
        } else {
            prop_assert!(!seq.starts_with("\x1bP"));
            seq.clone()
        };
        prop_assert!(inner.starts_with("\x1b]"), "{:?}", inner);
        check_sequence(channel, &inner)?;
    }

    #[test]
    fn notifier_output_is_well_formed(
        channel in channel(),
        title in text(),
        body in text(),
        in_tmux in any::<bool>(),
    ) {
        let mut notifier = Notifier::new(channel, true, in_tmux);
        let Notification::Write(seq) = notifier.notification(&title, &body) else {
            return Err(TestCaseError::fail("no sequence"));
        };
        let inner = if in_tmux { unwrap_tmux(&seq)? } else { seq };
        check_sequence(channel, &inner)?;
    }

    #[test]
    fn desktop_texts_are_clean(title in text(), body in text()) {
        let mut notifier = Notifier::new(Channel::Desktop, true, false);
        let Notification::Desktop { title, body } = notifier.notification(&title, &body) else {
            return Err(TestCaseError::fail("no desktop notification"));
        };
        for text in [&title, &body] {
            check_content(text)?;
        }
        prop_assert!(!title.is_empty());
        prop_assert!(title.chars().count() <= DEFAULT_MAX_CHARS);
        prop_assert!(body.chars().count() <= BODY_MAX_CHARS);
    }

    #[test]
    fn sanitized_text_is_one_clean_capped_line(text in text(), max in 0usize..150) {
        let clean = sanitize_title(&text, max);
        check_content(&clean)?;
        prop_assert!(clean.chars().count() <= max);
        prop_assert!(!clean.contains(';'));
        prop_assert!(!clean.contains("  "));
        prop_assert_eq!(clean.trim(), clean.as_str());
        prop_assert!(!clean.chars().any(|ch| ch.is_whitespace() && ch != ' '));
    }

    #[test]
    fn ordinary_titles_arrive_unchanged(title in "[A-Za-z0-9][A-Za-z0-9 ,.!?-]{0,60}") {
        let expected = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let seq = sequence(Channel::Osc777, &title, "completed", false).expect("a sequence");
        prop_assert_eq!(seq, format!("\x1b]777;notify;{expected};completed\x07"));
    }
}

#[test]
fn the_acceptance_title() {
    // ESC, BEL, C1 controls and `;` in one title.
    let title = "fix\x1b]0;evil\x07 the \u{9b}2J\u{9c}bug; now\x1b\\";
    for channel in [Channel::Osc777, Channel::Osc9, Channel::Osc99] {
        for in_tmux in [false, true] {
            let seq = sequence(channel, title, "needs your answer", in_tmux).unwrap();
            let inner = if in_tmux {
                unwrap_tmux(&seq).unwrap()
            } else {
                seq
            };
            check_sequence(channel, &inner).unwrap();
        }
    }
    assert_eq!(
        sequence(Channel::Osc777, title, "needs your answer", false).unwrap(),
        "\x1b]777;notify;fix]0,evil the 2Jbug, now\\;needs your answer\x07"
    );
}
