//! `/history`: the agents' conversations begun outside codiva — the list (date, agent, size,
//! first instruction), its search, one opened read-only with its tool cards, and "continue in
//! codiva" in place or in a new worktree — at 80×24 and 200×60, in English and Japanese.

use codiva_protocol::ClientRequest;
use codiva_protocol::lang::Lang;
use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::outside::{
    AdoptPlace, HistoryListResult, HistoryReadResult, OutsideConversation,
};
use codiva_protocol::params::SessionResult;
use codiva_protocol::session::Status;
use codiva_tui::app::{App, Effect, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::{answer_ok, busy_app, draw, key, log, refused, session, typed};

/// 2026-12-07 07:30 UTC.
const NOW_MS: u64 = 1_796_628_600_000;

fn conversation(
    id: &str,
    agent: &str,
    cwd: &str,
    age_min: u64,
    size: u64,
    first: Option<&str>,
) -> OutsideConversation {
    OutsideConversation {
        agent: agent.into(),
        id: id.into(),
        cwd: cwd.into(),
        modified_ms: NOW_MS - age_min * 60_000,
        size_bytes: size,
        first_instruction: first.map(str::to_owned),
    }
}

fn listed() -> HistoryListResult {
    HistoryListResult {
        conversations: vec![
            conversation(
                "0b4c7e1a-claude",
                "claude",
                "/work/repo",
                5,
                48_213,
                Some("Fix the flaky login test and explain why it failed"),
            ),
            conversation(
                "rollout-2026-12-06",
                "codex",
                "/work/repo",
                95,
                1_250_000,
                Some("ログイン画面のリダイレクトを直して 🚀 and add a regression test"),
            ),
            conversation(
                "9f00aa2b-claude",
                "claude",
                "/work/repo/.codiva/worktrees/spike",
                60 * 26,
                209_715_200,
                Some("Profile the importer\u{1b}[2J on the 2 GB fixture\u{202e}"),
            ),
            conversation(
                "c0ffee00-claude",
                "claude",
                "/work/repo",
                60 * 72,
                512,
                None,
            ),
        ],
        more: false,
        unavailable: Vec::new(),
    }
}

fn tool(id: u64, name: &str, summary: &str, result: &str) -> LogEntry {
    log(
        id,
        EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: format!("toolu_{id}"),
            name: name.into(),
            summary: summary.into(),
            view: crate::support::claude_view(name, &serde_json::Value::Null),
            input: serde_json::Value::Null,
            status: ToolStatus::Succeeded,
            result: Some(result.into()),
            duration_ms: Some(840),
        })),
    )
}

fn read() -> HistoryReadResult {
    HistoryReadResult {
        entries: vec![
            log(
                1,
                EntryKind::User {
                    text: "Fix the flaky login test and explain why it failed".into(),
                },
            ),
            tool(
                2,
                "Bash",
                "cargo test login -- --nocapture",
                "test login ... FAILED",
            ),
            tool(3, "Read", "tests/login.rs", "fn login() {}"),
            tool(4, "Edit", "tests/login.rs", "ok"),
            log(
                5,
                EntryKind::Assistant {
                    text: "The test raced the **session cookie**; it now waits for it. \
                           ログインテストを直しました。"
                        .into(),
                },
            ),
        ],
        skipped_bytes: 0,
        dropped_entries: 0,
    }
}

/// The effect that asks for `method`, if `effects` hold one.
fn requested<'a>(effects: &'a [Effect], method: &str) -> Option<&'a Effect> {
    effects.iter().find(
        |effect| matches!(effect, Effect::Request { request, .. } if request.method() == method),
    )
}

/// `/history` typed on the list; the view asks for the list.
fn open_history(app: &mut App) -> Effect {
    typed(app, "/history");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    requested(&effects, "history/list")
        .cloned()
        .expect("/history asks for the list")
}

fn listed_app() -> App {
    let mut app = busy_app();
    let list = open_history(&mut app);
    answer_ok(&mut app, &list, listed());
    app
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn snapshot(app: &mut App, name: &str) {
    for lang in [Lang::En, Lang::Ja] {
        let tag = match lang {
            Lang::Ja => "ja",
            _ => "en",
        };
        with_lang(lang, || {
            insta::assert_snapshot!(format!("{name}_{tag}_80x24"), draw(app, 80, 24).backend());
            insta::assert_snapshot!(format!("{name}_{tag}_200x60"), draw(app, 200, 60).backend());
        });
    }
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    format!("{}", draw(app, width, height).backend())
}

#[test]
fn the_list_shows_date_agent_size_and_first_instruction() {
    let mut app = busy_app();
    let list = open_history(&mut app);
    with_lang(Lang::En, || {
        assert!(screen(&mut app, 80, 24).contains("reading the agents' records"));
    });
    answer_ok(&mut app, &list, listed());
    let text = screen(&mut app, 200, 60);
    assert!(text.contains("2026-12-07 07:25"), "{text}");
    assert!(text.contains("200.0 MiB"), "{text}");
    assert!(text.contains("codex"), "{text}");
    // Untrusted text: no escape sequence or bidi override reaches the terminal.
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text}"
    );
    assert!(text.contains("Profile the importer"), "{text}");
    snapshot(&mut app, "history_list");
}

#[test]
fn an_empty_history_says_where_conversations_come_from() {
    let mut app = busy_app();
    let list = open_history(&mut app);
    answer_ok(&mut app, &list, HistoryListResult::default());
    with_lang(Lang::En, || {
        assert!(screen(&mut app, 80, 24).contains("No conversation that codiva does not manage"));
    });
}

#[test]
fn typing_after_a_slash_searches_the_list() {
    let mut app = listed_app();
    press(&mut app, KeyCode::Char('/'));
    for c in "ログイン".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let text = screen(&mut app, 200, 60);
    assert!(text.contains("ログイン画面"), "{text}");
    assert!(!text.contains("flaky"), "{text}");
    snapshot(&mut app, "history_search");
    // Enter keeps the search; `c` then acts on the match, not on the first of all.
    press(&mut app, KeyCode::Enter);
    let effects = press(&mut app, KeyCode::Char('c'));
    let Some(Effect::Request {
        request: ClientRequest::HistoryAdopt(params),
        ..
    }) = requested(&effects, "history/adopt")
    else {
        panic!("c continues the selected conversation: {effects:?}")
    };
    assert_eq!(params.id, "rollout-2026-12-06");
    assert_eq!(params.agent, "codex");
    assert_eq!(params.place, AdoptPlace::InPlace);
    // Esc clears the search before it closes the view.
    let mut app = listed_app();
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Char('z'));
    press(&mut app, KeyCode::Char('z'));
    with_lang(Lang::En, || {
        assert!(screen(&mut app, 80, 24).contains("no conversation matches “zz”"));
    });
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Esc);
    assert!(screen(&mut app, 200, 60).contains("flaky"));
    press(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
}

#[test]
fn a_conversation_opens_read_only_with_its_tool_cards() {
    let mut app = listed_app();
    let effects = press(&mut app, KeyCode::Enter);
    let read_request = requested(&effects, "history/read")
        .cloned()
        .expect("Enter reads the conversation");
    let Effect::Request {
        request: ClientRequest::HistoryRead(conversation),
        ..
    } = &read_request
    else {
        unreachable!()
    };
    assert_eq!(conversation.id, "0b4c7e1a-claude");
    assert_eq!(conversation.cwd, "/work/repo");
    with_lang(Lang::En, || {
        assert!(screen(&mut app, 80, 24).contains("reading the conversation"));
    });
    answer_ok(&mut app, &read_request, read());
    // The three calls show folded as one card, as in a session.
    let text = screen(&mut app, 200, 60);
    assert!(text.contains("3 tools: Bash, Read, Edit"), "{text}");
    snapshot(&mut app, "history_read");
    // `n` selects the card, Enter opens it: each call with its summary.
    press(&mut app, KeyCode::Char('n'));
    press(&mut app, KeyCode::Enter);
    let text = screen(&mut app, 200, 60);
    assert!(text.contains("cargo test login"), "{text}");
    assert!(text.contains("tests/login.rs"), "{text}");
    snapshot(&mut app, "history_read_cards_open");
    // Nothing typed reaches a session: the view is read-only, and Esc goes back to the list.
    let effects = press(&mut app, KeyCode::Char('x'));
    assert!(effects.is_empty(), "{effects:?}");
    press(&mut app, KeyCode::Esc);
    assert!(screen(&mut app, 200, 60).contains("ログイン画面"));
    assert!(app.overlay_open());
}

#[test]
fn a_large_conversation_says_its_start_was_not_read() {
    let mut app = listed_app();
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let effects = press(&mut app, KeyCode::Enter);
    let read_request = requested(&effects, "history/read").cloned().unwrap();
    let mut result = read();
    result.skipped_bytes = 192 * 1024 * 1024;
    answer_ok(&mut app, &read_request, result);
    with_lang(Lang::En, || {
        let text = screen(&mut app, 200, 60);
        assert!(
            text.contains("the first 192.0 MiB of this conversation are not read"),
            "{text}"
        );
    });
}

#[test]
fn continue_in_a_new_worktree_and_the_session_opens() {
    let mut app = listed_app();
    press(&mut app, KeyCode::Enter);
    let effects = press(&mut app, KeyCode::Char('w'));
    let adopt = requested(&effects, "history/adopt").cloned().unwrap();
    let Effect::Request {
        request: ClientRequest::HistoryAdopt(params),
        ..
    } = &adopt
    else {
        unreachable!()
    };
    assert_eq!(params.place, AdoptPlace::Worktree);
    assert_eq!(params.id, "0b4c7e1a-claude");
    let adopted = session(
        "fix-the-flaky-login-test",
        "Fix the flaky login test",
        Status::Completed,
        SessionPhase::Active,
        9,
    );
    answer_ok(&mut app, &adopt, SessionResult { session: adopted });
    assert!(!app.overlay_open());
    assert_eq!(app.view, View::Detail("fix-the-flaky-login-test".into()));
    with_lang(Lang::En, || {
        assert!(screen(&mut app, 200, 60).contains("continues the conversation"));
    });
}

#[test]
fn a_refused_adoption_is_said_and_the_view_stays() {
    let mut app = listed_app();
    let effects = press(&mut app, KeyCode::Char('c'));
    let adopt = requested(&effects, "history/adopt").cloned().unwrap();
    crate::support::answer_err(
        &mut app,
        &adopt,
        refused("session fix-login already runs in /work/repo; discard it first"),
    );
    assert!(app.overlay_open());
    with_lang(Lang::En, || {
        let text = screen(&mut app, 200, 60);
        assert!(text.contains("cannot be continued"), "{text}");
    });
}

#[test]
fn a_failed_list_is_shown_in_the_view() {
    let mut app = busy_app();
    let list = open_history(&mut app);
    crate::support::answer_err(&mut app, &list, refused("git worktree list failed"));
    with_lang(Lang::En, || {
        let text = screen(&mut app, 200, 60);
        assert!(
            text.contains("cannot be listed: git worktree list failed"),
            "{text}"
        );
    });
    key(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
}

#[test]
fn an_agent_that_could_not_list_is_named_and_the_others_are_listed() {
    let mut app = busy_app();
    let list = open_history(&mut app);
    let mut result = listed();
    // An ACP agent's listing gives no size.
    result.conversations.push(conversation(
        "019a-codex-acp",
        "gemini",
        "/work/repo",
        30,
        0,
        Some("Port the importer to the new API"),
    ));
    result.unavailable = vec![codiva_protocol::outside::HistoryListFailure {
        agent: "grok".into(),
        error: "did not answer session/list within 20 s\u{1b}[2J".into(),
    }];
    answer_ok(&mut app, &list, result);
    let text = with_lang(Lang::En, || screen(&mut app, 200, 60));
    assert!(
        text.contains("not listed — grok: did not answer session/list"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("Port the importer to the new API"), "{text}");
    assert!(text.contains("Fix the flaky login test"), "{text}");
    snapshot(&mut app, "history_unavailable");
}
