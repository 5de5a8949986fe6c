//! `encode`: one line for any text.

use super::*;

/// The line is a single line for every reader: no CR/LF bytes, no raw U+2028/U+2029 (some
/// splitters treat them as line ends), no raw control characters, and valid JSON.
fn assert_one_line(line: &str) -> Value {
    assert!(!line.bytes().any(|b| b == b'\n' || b == b'\r'), "{line:?}");
    assert!(!line.contains(['\u{2028}', '\u{2029}']), "{line:?}");
    assert!(!line.chars().any(|c| c < ' '), "{line:?}");
    serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line:?}"))
}

fn user_round_trip(text: &str) {
    let line = encode(&Outbound::User(UserInput::text(text)));
    let value = assert_one_line(line.as_str());
    assert_eq!(value["message"]["content"][0]["text"].as_str(), Some(text));
    assert_eq!(value["type"], "user");
}

fn permission_round_trip(text: &str) {
    let deny = encode(&Outbound::Permission {
        request_id: text.to_owned(),
        decision: PermissionDecision::Deny {
            message: text.to_owned(),
            interrupt: false,
        },
    });
    let value = assert_one_line(deny.as_str());
    assert_eq!(value["response"]["request_id"].as_str(), Some(text));
    assert_eq!(
        value["response"]["response"]["message"].as_str(),
        Some(text)
    );

    let allow = encode(&Outbound::Permission {
        request_id: "r".to_owned(),
        decision: PermissionDecision::Allow {
            updated_input: Some(json!({"command": text})),
            updated_permissions: vec![
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":text}]}),
            ],
        },
    });
    let value = assert_one_line(allow.as_str());
    assert_eq!(
        value["response"]["response"]["updatedInput"]["command"].as_str(),
        Some(text)
    );
}

/// An AskUserQuestion answer: the questions are keys, the labels values.
fn question_round_trip(question: &str, answer: &str) {
    let mut answers = serde_json::Map::new();
    answers.insert(question.to_owned(), Value::String(answer.to_owned()));
    let line = encode(&Outbound::Permission {
        request_id: "q".to_owned(),
        decision: PermissionDecision::Allow {
            updated_input: Some(json!({
                "questions": [{"question": question, "header": answer, "options": [], "multiSelect": false}],
                "answers": Value::Object(answers),
            })),
            updated_permissions: Vec::new(),
        },
    });
    let value = assert_one_line(line.as_str());
    let input = &value["response"]["response"]["updatedInput"];
    assert_eq!(input["answers"][question].as_str(), Some(answer));
    assert_eq!(input["questions"][0]["question"].as_str(), Some(question));
}

/// Text made of the characters that break naive line protocols.
fn nasty_text() -> impl Strategy<Value = String> {
    let nasty_char = prop_oneof![
        Just('\n'),
        Just('\r'),
        Just('\u{2028}'),
        Just('\u{2029}'),
        Just('"'),
        Just('\\'),
        Just('\u{85}'),
        Just('\u{feff}'),
        proptest::char::range('\u{0}', '\u{1f}'),
        proptest::char::range('\u{7f}', '\u{9f}'),
        proptest::char::range('\u{3040}', '\u{30ff}'),
        proptest::char::range('\u{4e00}', '\u{9fff}'),
        proptest::char::range('\u{1f300}', '\u{1faff}'),
        Just('\u{200d}'),
        Just('\u{fe0f}'),
        any::<char>(),
    ];
    proptest::collection::vec(nasty_char, 0..96).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn user_text_is_one_line_for_any_string(text in any::<String>()) {
        user_round_trip(&text);
    }

    #[test]
    fn user_text_is_one_line_for_nasty_strings(text in nasty_text()) {
        user_round_trip(&text);
    }

    #[test]
    fn permission_answers_are_one_line(text in prop_oneof![any::<String>(), nasty_text()]) {
        permission_round_trip(&text);
    }

    #[test]
    fn question_answers_are_one_line(
        question in prop_oneof![any::<String>(), nasty_text()],
        answer in nasty_text(),
    ) {
        question_round_trip(&question, &answer);
    }
}

#[test]
fn user_text_of_one_megabyte_is_one_line() {
    let unit = "日本語🎌\n\r\u{2028}\u{2029}\u{0}\u{1f}\u{7f}\u{9f}\"\\ text ";
    let mut text = String::with_capacity(1 << 20);
    while text.len() < 1 << 20 {
        text.push_str(unit);
    }
    user_round_trip(&text);
    permission_round_trip(&text);
}

/// A Rust `String` cannot hold a lone surrogate, so no such text can ever reach `encode`. The
/// one way one could be smuggled in is as a JSON escape from an outside client (`codiva serve`,
/// JSON-RPC); serde_json refuses it while decoding that request, before it is a `String`.
#[test]
fn lone_surrogates_are_rejected_before_they_could_reach_encode() {
    for escaped in [r#""\ud800""#, r#""\udc00""#, r#""a\ud83d b""#] {
        assert!(
            serde_json::from_str::<String>(escaped).is_err(),
            "{escaped}"
        );
        assert!(serde_json::from_str::<Value>(escaped).is_err(), "{escaped}");
        let request = format!(r#"{{"jsonrpc":"2.0","id":1,"params":{{"text":{escaped}}}}}"#);
        assert!(
            serde_json::from_str::<Value>(&request).is_err(),
            "{request}"
        );
    }
    // A well-formed pair is fine and round-trips.
    let text: String = serde_json::from_str(r#""\ud83c\udf8c""#).unwrap();
    assert_eq!(text, "🎌");
    user_round_trip(&text);
    // The same holds for the lines we read: a lone surrogate is an error, not a panic.
    assert!(
        parse_line(
            br#"{"type":"user","message":{"role":"user","content":"\ud800"},"isReplay":true}"#
        )
        .is_err()
    );
}
