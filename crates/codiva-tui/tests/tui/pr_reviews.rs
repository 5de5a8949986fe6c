//! Unresolved review threads of a session's own pull request: their count in the list's PR
//! cell (`✓ #14 ✎2`) and in the session view's PR line (`2 unresolved review threads ·
//! /address-review`); none shown at zero, nor for a merged pull request. Snapshots at 80×24 and
//! 200×60, in English and Japanese. `/address-review` in the session view sends the request;
//! its refusals (none unresolved, all sent already) are worded in both languages.

use codiva_client::ClientError;
use codiva_protocol::ClientRequest;
use codiva_protocol::error::{ErrorBody, ErrorData, REFUSED, RefusalCode, RefusalData};
use codiva_protocol::github::{PrChecks, PrMergeable, PrState, PrView, SessionPr, SessionPrs};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{ManagerEvent, SessionPhase};
use codiva_protocol::session::Status;
use codiva_tui::app::{App, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::*;

fn prs(number: u64, state: PrState, reviews: Option<u64>) -> SessionPrs {
    SessionPrs {
        prs: vec![SessionPr {
            number,
            url: format!("https://github.com/acme/app/pull/{number}"),
            own: true,
            view: Some(PrView {
                state,
                draft: false,
                checks: PrChecks::Passed,
                mergeable: PrMergeable::Mergeable,
                failed: Vec::new(),
                unresolved_reviews: reviews,
            }),
        }],
        watched: true,
        checked: true,
        unavailable: None,
        paused_until_ms: None,
    }
}

/// Two unresolved, one, none, not counted yet, and a merged pull request that had some.
fn app() -> App {
    let mut app = App::new(info());
    let rows = [
        ("Two review threads open", prs(14, PrState::Open, Some(2))),
        ("One review thread open", prs(15, PrState::Open, Some(1))),
        ("All threads resolved", prs(16, PrState::Open, Some(0))),
        ("Not counted yet", prs(17, PrState::Open, None)),
        ("Merged with threads", prs(18, PrState::Merged, Some(3))),
    ];
    for (index, (title, prs)) in rows.into_iter().enumerate() {
        let mut row = session(
            &format!("s{index:02}"),
            title,
            Status::Completed,
            SessionPhase::Active,
            u64::try_from(index).unwrap() + 1,
        );
        row.prs = prs;
        add(&mut app, row);
    }
    app
}

fn detail_of(index: usize) -> App {
    let mut app = app();
    key(&mut app, KeyCode::Tab);
    for _ in 0..index {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail(format!("s{index:02}")));
    app
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    let terminal = draw(app, width, height);
    let buffer = terminal.backend().buffer().clone();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Snapshots at 80×24 and 200×60, English and Japanese.
fn snapshots(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            insta::assert_snapshot!(
                format!("{name}{suffix}_80x24"),
                draw(&mut app, 80, 24).backend()
            );
            insta::assert_snapshot!(
                format!("{name}{suffix}_200x60"),
                draw(&mut app, 200, 60).backend()
            );
        });
    }
}

#[test]
fn the_pr_cell_counts_unresolved_review_threads() {
    snapshots("pr_reviews_list", app);
    for (width, height) in [(80, 24), (200, 60)] {
        let text = screen(&mut app(), width, height);
        assert!(text.contains("✓ #14 ✎2"), "{text}");
        assert!(text.contains("✓ #15 ✎1"), "{text}");
        for number in ["#16", "#17"] {
            let row = text.lines().find(|l| l.contains(number)).unwrap();
            assert!(!row.contains('✎'), "no count at zero or unknown: {row}");
        }
        let merged = text.lines().find(|l| l.contains("#18")).unwrap();
        assert!(!merged.contains('✎'), "a merged pull request: {merged}");
    }
}

#[test]
fn the_session_view_names_the_count_and_the_command() {
    snapshots("pr_reviews_line", || detail_of(0));
    snapshots("pr_reviews_line_one", || detail_of(1));
    let text = screen(&mut detail_of(0), 200, 60);
    assert!(
        text.contains("2 unresolved review threads · /address-review"),
        "{text}"
    );
    let text = with_lang(Lang::Ja, || screen(&mut detail_of(1), 200, 60));
    // A wide character's second cell reads as a space here.
    assert!(
        text.replace(' ', "").contains("未解決のレビュー1件"),
        "{text}"
    );
    let text = screen(&mut detail_of(2), 200, 60);
    assert!(!text.contains("review thread"), "{text}");
}

#[test]
fn the_count_goes_when_the_threads_are_resolved() {
    let mut app = app();
    assert!(screen(&mut app, 80, 24).contains("#14 ✎2"));
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::PrStatus {
        id: "s00".into(),
        prs: prs(14, PrState::Open, Some(0)),
    })));
    let text = screen(&mut app, 80, 24);
    let row = text.lines().find(|l| l.contains("#14")).unwrap();
    assert!(!row.contains('✎'), "{row}");
}

fn refusal(reason: RefusalCode, args: &[&str]) -> ClientError {
    ClientError::Server(Box::new(ErrorBody {
        code: REFUSED,
        message: "refused".into(),
        data: Some(ErrorData::Refusal(RefusalData {
            reason,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            fresh: None,
        })),
    }))
}

#[test]
fn address_review_is_a_command_of_the_session_view_and_its_refusals_are_worded() {
    let mut app = detail_of(0);
    typed(&mut app, "/address-review");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    let sent = request(ClientRequest::SessionAddressReview(sid("s00")));
    assert_eq!(effects, vec![sent.clone()]);
    for (lang, none, already) in [
        (
            Lang::En,
            "pull request #14 has no unresolved review thread",
            "the 2 unresolved review threads of pull request #14 were sent to the agent already",
        ),
        (
            Lang::Ja,
            "プルリクエスト #14 に未解決のレビューはありません",
            "プルリクエスト #14 の未解決のレビュー 2 件は送信済みです",
        ),
    ] {
        with_lang(lang, || {
            answer_err(
                &mut app,
                &sent,
                refusal(RefusalCode::NoUnresolvedReviews, &["14", "0"]),
            );
            assert_eq!(app.notice().map(|n| n.0), Some(none));
            answer_err(
                &mut app,
                &sent,
                refusal(RefusalCode::NoUnresolvedReviews, &["14", "2"]),
            );
            assert_eq!(app.notice().map(|n| n.0), Some(already));
        });
    }
}
