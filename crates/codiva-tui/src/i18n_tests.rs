//! The catalogue's checks: every area's keys worded in both languages with the same
//! placeholders, notes and refusals by code, the language choice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn placeholders(text: &str) -> Vec<usize> {
    let mut found: Vec<usize> = (0..10)
        .filter(|index| text.contains(&format!("{{{index}}}")))
        .collect();
    found.sort_unstable();
    found
}

/// Every key of an area: words in both languages, with the same placeholders.
fn check_area<K: Words>() {
    for key in K::ALL {
        let (en, ja) = (key.en(), key.ja());
        assert!(!en.is_empty() && !ja.is_empty(), "{key:?} is empty");
        assert_eq!(
            placeholders(en),
            placeholders(ja),
            "{key:?}: {en:?} vs {ja:?}"
        );
        // Plurals are `{N|one|many}` choices, never "session(s)".
        assert!(!en.contains("(s)"), "{key:?}: {en}");
    }
}

#[test]
fn both_languages_have_every_key_with_the_same_placeholders() {
    check_area::<AppText>();
    check_area::<ViewText>();
    check_area::<AgentText>();
    check_area::<RepairText>();
    check_area::<PrText>();
    check_area::<AttemptText>();
    check_area::<CommandText>();
    check_area::<ReviewText>();
    check_area::<OutsideText>();
}

#[test]
fn notes_by_code() {
    use codiva_protocol::log::NoteCode;
    let code = NoteCode::new("restarting", &["1", "3"]);
    assert_eq!(note_text("x", Some(&code)), "restarting the agent (1/3)");
    let ja = with_lang(Lang::Ja, || note_text("x", Some(&code)).into_owned());
    assert_eq!(ja, "エージェントを再起動しています（1/3）");
    assert_eq!(note_text("plain", None), "plain");
    // A later version's name reads as `Unknown`: the note's own text.
    let later: NoteCode =
        serde_json::from_value(serde_json::json!({"name": "not_a_code_yet", "args": []})).unwrap();
    assert_eq!(later.name, codiva_protocol::log::NoteName::Unknown);
    assert_eq!(note_text("odd", Some(&later)), "odd");
    assert_eq!(
        status_detail(Some("odd"), Some(&later)).as_deref(),
        Some("odd")
    );
    // The manager's push after a repair turn: the core's English text is the English wording.
    let pushed = NoteCode::new("repair_pushed", &["codiva/x", "origin"]);
    let core = "pushed the repair's commits of codiva/x to origin";
    assert_eq!(note_text(core, Some(&pushed)), core);
    let ja = with_lang(Lang::Ja, || note_text(core, Some(&pushed)).into_owned());
    assert_eq!(ja, "修正のコミット（codiva/x）を origin に push しました");
}

/// Notes worded by code: in English the core's own text (copied from where the core writes
/// each), in Japanese their own words.
#[test]
fn notes_worded_by_code_read_as_the_core_writes_them() {
    use codiva_protocol::log::NoteCode;
    for (code, core) in [
        (
            NoteCode::new("exited_before_turn", &["exit code 1", ": boom"]),
            "the agent exited before it took up the message (exit code 1): boom",
        ),
        (
            NoteCode::new("unsupported_request", &["fs/teleport"]),
            "refused a request codiva does not support: fs/teleport",
        ),
        (
            NoteCode::new("stop_reason", &["max_tokens"]),
            "the agent stopped the turn: max_tokens",
        ),
        (
            NoteCode::new("allowed_by_policy", &["Write", "allow edits"]),
            "Write allowed by the approval policy (allow edits)",
        ),
    ] {
        assert_eq!(
            with_lang(Lang::En, || note_text("x", Some(&code)).into_owned()),
            core
        );
        let ja = with_lang(Lang::Ja, || note_text(core, Some(&code)).into_owned());
        assert!(ja != core && !ja.is_empty(), "{code:?}: {ja}");
        for arg in &code.args {
            assert!(ja.contains(arg.as_str()), "{code:?}: {ja}");
        }
    }
    // Its text holds a number its args do not: shown as the core wrote it.
    let cut = NoteCode::new("message_cut", &[]);
    assert_eq!(
        with_lang(Lang::Ja, || note_text("cut to 1 byte", Some(&cut))
            .into_owned()),
        "cut to 1 byte"
    );
}

#[test]
fn refusals_by_code() {
    use codiva_protocol::error::{ErrorBody, ErrorData, REFUSED, RefusalData};
    let error = codiva_client::ClientError::Server(Box::new(ErrorBody {
        code: REFUSED,
        message: "English".into(),
        data: Some(ErrorData::Refusal(RefusalData {
            reason: "still_working".into(),
            args: vec!["fix-login".into()],
            fresh: None,
        })),
    }));
    assert_eq!(
        manager_error(&error),
        "session fix-login is still working; interrupt it or wait until it finishes"
    );
    let ja = with_lang(Lang::Ja, || manager_error(&error));
    assert!(ja.starts_with("セッション fix-login はまだ作業中"), "{ja}");
}

/// The exhaustive match gives every reason words at compile time; this holds it to giving
/// them (no known reason falls through to the English message), in both languages and with
/// the placeholders its args fill.
#[test]
fn every_refusal_code_is_worded_in_both_languages() {
    let args = ["a", "b", "c", "d", "e"];
    for code in RefusalCode::ALL {
        for lang in [Lang::En, Lang::Ja] {
            let words = with_lang(lang, || refusal_text(*code, &args));
            let words = words.unwrap_or_else(|| panic!("{code:?} has no words in {lang:?}"));
            assert!(!words.is_empty(), "{code:?}");
            assert!(placeholders(&words).is_empty(), "{code:?}: {words}");
        }
    }
    assert_eq!(refusal_text(RefusalCode::Unknown, &args), None);
}

/// A refusal of a later codiva: its reason reads as `Unknown`, and its English message is shown.
#[test]
fn an_unknown_refusal_shows_its_message() {
    use codiva_protocol::error::ErrorBody;
    let body: ErrorBody = serde_json::from_value(serde_json::json!({
        "code": codiva_protocol::error::REFUSED,
        "message": "the session is on the moon",
        "data": {"reason": "on_the_moon", "args": ["s"]},
    }))
    .unwrap();
    let error = codiva_client::ClientError::Server(Box::new(body));
    assert_eq!(
        error.refusal().map(|r| r.reason),
        Some(RefusalCode::Unknown)
    );
    let ja = with_lang(Lang::Ja, || manager_error(&error));
    assert_eq!(ja, error.to_string());
    assert!(ja.contains("the session is on the moon"), "{ja}");
}

#[test]
fn fill_replaces_placeholders_and_plural_choices_once() {
    let text = "{0} {0|session keeps|sessions keep} running on {1}";
    assert_eq!(
        fill(text, &["1", "host"]),
        "1 session keeps running on host"
    );
    assert_eq!(
        fill(text, &["3", "host"]),
        "3 sessions keep running on host"
    );
    assert_eq!(
        fill(text, &["0", "host"]),
        "0 sessions keep running on host"
    );
    // An argument is never read as a template (model text may contain `{1}`).
    assert_eq!(fill("{0} and {1}", &["{1}", "b"]), "{1} and b");
    // Braces that are not ours stay, and placeholders inside them still fill.
    assert_eq!(fill("{\"a\": {0}} {x} {", &["1"]), "{\"a\": 1} {x} {");
    assert_eq!(fill("{2} {0|one}", &["1"]), "{2} one");
}

/// Regression: `1 commits`. Counts that can be one are worded with plural choices.
#[test]
fn one_is_singular_in_english() {
    with_lang(Lang::En, || {
        assert_eq!(
            tf(ViewText::MergeAhead, &["1", "b", "main"]),
            "1 commit on b is merged into main with a merge commit; the worktree is removed after (the branch stays archived)."
        );
        assert!(
            tf(ViewText::MergeUncommitted, &["1", "a.txt"])
                .starts_with("1 uncommitted file is NOT merged and is lost")
        );
        assert_eq!(
            tf(AppText::NoteStalled, &["1"]),
            "no output from the agent for 1 minute"
        );
        assert_eq!(
            tf(AppText::DetailStalled, &["2"]),
            "stalled: no output for 2 minutes"
        );
        assert_eq!(tf(AppText::CardLimitLines, &["1"]), " · 1 line");
    });
}

#[test]
fn uncommitted_work_turns_nothing_to_merge_into_an_offer() {
    let (plain, offer) = with_lang(Lang::En, || {
        (
            refusal_text(RefusalCode::NothingToMerge, &["codiva/x", "main"]),
            refusal_text(RefusalCode::NothingToMerge, &["codiva/x", "main", "2"]),
        )
    });
    let plain = plain.unwrap();
    assert!(!plain.contains("/commit"), "the app's words: {plain}");
    let offer = offer.unwrap();
    assert!(
        offer.contains("2 files are uncommitted — /commit first"),
        "{offer}"
    );
}

#[test]
fn git_errors_come_with_their_fix() {
    use super::views::with_git_fix;
    let identity = "`git merge --no-ff --no-edit codiva/x` failed (exit 128): Committer identity unknown\n\n*** Please tell me who you are.";
    let out = with_lang(Lang::En, || with_git_fix(identity));
    assert!(out.starts_with(identity));
    assert!(out.contains("git config --global user.email"), "{out}");
    let ja = with_lang(Lang::Ja, || with_git_fix(identity));
    assert!(ja.contains("git config --global user.name"), "{ja}");
    let lock = "fatal: Unable to create '/r/.git/index.lock': File exists.";
    assert!(with_git_fix(lock).contains("index.lock"));
    assert_eq!(with_git_fix("fatal: boom"), "fatal: boom");
}

#[test]
fn one_commit_is_said_in_the_singular() {
    let said = |lang, count| {
        with_lang(lang, || {
            tn(
                count,
                CommandText::CommitsTitleOne,
                CommandText::CommitsTitle,
                &["codiva/x", "main"],
            )
        })
    };
    assert_eq!(said(Lang::En, 1), "1 commit on codiva/x that main lacks:");
    assert_eq!(said(Lang::En, 3), "3 commits on codiva/x that main lacks:");
    assert_eq!(
        said(Lang::Ja, 1),
        "codiva/x にあって main にないコミット 1 件:"
    );
    assert_eq!(
        said(Lang::Ja, 3),
        "codiva/x にあって main にないコミット 3 件:"
    );
}

/// A count followed by a plural noun is a `{N|one|many}` choice, so "1 files" is never drawn.
#[test]
fn a_count_before_a_plural_noun_has_a_singular() {
    fn check_area<K: Words>(found: &mut Vec<String>) {
        const NOUNS: &[&str] = &[
            "files", "commits", "sessions", "lines", "threads", "comments", "attempts", "minutes",
            "seconds", "agents", "entries", "changes", "errors",
        ];
        let names: Vec<String> = K::ALL.iter().map(|key| format!("{key:?}")).collect();
        for key in K::ALL {
            let name = format!("{key:?}");
            // Worded in two keys (`tn(count, one, many, …)`), or a count never below two.
            let singular = [
                format!("{name}One"),
                format!("{}One", name.trim_end_matches("Many")),
                name.trim_end_matches('s').to_owned(),
                format!("{}One", name.trim_end_matches('s')),
            ];
            if name.contains("TooMany")
                || singular
                    .iter()
                    .any(|one| *one != name && names.contains(one))
            {
                continue;
            }
            let en = key.en();
            for n in 0..10 {
                for noun in NOUNS {
                    if en.contains(&format!("{{{n}}} {noun}")) {
                        found.push(format!("{key:?}: {en}"));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    check_area::<AppText>(&mut found);
    check_area::<ViewText>(&mut found);
    check_area::<AgentText>(&mut found);
    check_area::<RepairText>(&mut found);
    check_area::<PrText>(&mut found);
    check_area::<CommandText>(&mut found);
    check_area::<AttemptText>(&mut found);
    check_area::<ReviewText>(&mut found);
    check_area::<OutsideText>(&mut found);
    assert!(found.is_empty(), "{found:#?}");
}
