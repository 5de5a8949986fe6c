//! Pull requests in the list and the session view: every glyph of the PR cell (checking, no
//! pull request, number known and state loading, state unknown, green, checks running, failed,
//! conflicting, merged, closed, a dimmed draft, `+n` more), the PR line and the one-line summary
//! of several, `/pr` and `P` after a y/n, `p` and a click opening the pull request.
//! Snapshots at both sizes, in English and Japanese.

use codiva_protocol::github::{
    PrChecks, PrMergeable, PrState, PrUnavailable, PrView, SessionPr, SessionPrs,
};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{ManagerEvent, SessionPhase};
use codiva_protocol::session::Status;
use codiva_tui::app::{App, Effect, Purpose, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use crate::support::*;

fn pr(number: u64, view: Option<PrView>) -> SessionPr {
    SessionPr {
        number,
        url: format!("https://github.com/acme/app/pull/{number}"),
        own: true,
        view,
    }
}

fn view(state: PrState, checks: PrChecks, mergeable: PrMergeable, draft: bool) -> PrView {
    PrView {
        state,
        draft,
        checks,
        mergeable,
        failed: Vec::new(),
        unresolved_reviews: None,
    }
}

fn open(checks: PrChecks) -> Option<PrView> {
    Some(view(PrState::Open, checks, PrMergeable::Mergeable, false))
}

fn watched(prs: Vec<SessionPr>) -> SessionPrs {
    SessionPrs {
        prs,
        watched: true,
        checked: true,
        unavailable: None,
        paused_until_ms: None,
    }
}

fn failed_lookup() -> Option<PrUnavailable> {
    Some(PrUnavailable {
        reason: "rate_limited".into(),
        message: "GitHub rate limit reached".into(),
    })
}

/// One session per glyph, in this order.
fn glyph_sessions() -> Vec<(&'static str, SessionPrs)> {
    let mut checking = watched(Vec::new());
    checking.checked = false;
    let mut unknown = watched(vec![pr(13, None)]);
    unknown.unavailable = failed_lookup();
    let mut several = watched(vec![
        pr(30, open(PrChecks::Passed)),
        pr(
            31,
            Some(view(
                PrState::Merged,
                PrChecks::Passed,
                PrMergeable::Unknown,
                false,
            )),
        ),
        pr(32, open(PrChecks::Pending)),
    ]);
    several.prs[1].own = false;
    several.prs[2].own = false;
    vec![
        ("Checking for a pull request", checking),
        ("No pull request", SessionPrs::default()),
        ("Number known, state loading", watched(vec![pr(12, None)])),
        ("State unknown after a failed lookup", unknown),
        (
            "Green and mergeable",
            watched(vec![pr(14, open(PrChecks::Passed))]),
        ),
        (
            "Checks running",
            watched(vec![pr(15, open(PrChecks::Pending))]),
        ),
        (
            "Checks failed",
            watched(vec![pr(16, open(PrChecks::Failed))]),
        ),
        (
            "Conflicting with the base",
            watched(vec![pr(
                17,
                Some(view(
                    PrState::Open,
                    PrChecks::Passed,
                    PrMergeable::Conflicting,
                    false,
                )),
            )]),
        ),
        (
            "Merged on GitHub",
            watched(vec![pr(
                18,
                Some(view(
                    PrState::Merged,
                    PrChecks::Passed,
                    PrMergeable::Unknown,
                    false,
                )),
            )]),
        ),
        (
            "Closed without merging",
            watched(vec![pr(
                19,
                Some(view(
                    PrState::Closed,
                    PrChecks::None,
                    PrMergeable::Unknown,
                    false,
                )),
            )]),
        ),
        (
            "A draft with checks running",
            watched(vec![pr(
                20,
                Some(view(
                    PrState::Open,
                    PrChecks::Pending,
                    PrMergeable::Mergeable,
                    true,
                )),
            )]),
        ),
        ("Three pull requests", several),
    ]
}

fn glyph_app() -> App {
    let mut app = App::new(info());
    for (index, (title, prs)) in glyph_sessions().into_iter().enumerate() {
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

/// The app with session `index` of [`glyph_app`] open.
fn detail_of(index: usize) -> App {
    let mut app = glyph_app();
    key(&mut app, KeyCode::Tab);
    for _ in 0..index {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail(format!("s{index:02}")));
    app
}

fn both_languages(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            snapshot_at_both_sizes!(&mut app, &format!("{name}{suffix}"));
        });
    }
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

#[test]
fn every_glyph_in_the_list() {
    both_languages("pr_glyphs", glyph_app);
    let mut app = glyph_app();
    let text = screen(&mut app, 120, 40);
    for cell in [
        "⋯ #12",
        "? #13",
        "✓ #14",
        "● #15",
        "✗ #16",
        "✗ #17",
        "⑂ #18",
        "⊘ #19",
        "● #20",
        "✓ #30 +2",
    ] {
        assert!(text.contains(cell), "{cell} missing:\n{text}");
    }
}

#[test]
fn a_draft_number_is_dimmed() {
    let mut app = glyph_app();
    let terminal = draw(&mut app, 120, 40);
    let buffer = terminal.backend().buffer();
    let number_style = |number: &str| {
        (0..buffer.area.height)
            .find_map(|y| {
                let row: String = (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect();
                let at = row.find(number)?;
                let column = row[..at].chars().count();
                Some(buffer[(u16::try_from(column + 1).unwrap(), y)].modifier)
            })
            .unwrap()
    };
    let dim = ratatui::style::Modifier::DIM;
    assert!(number_style("#20").contains(dim), "a draft is dim");
    assert!(!number_style("#14").contains(dim), "an open one is not");
}

#[test]
fn the_session_view_shows_its_pull_request_line() {
    // One pull request with its state in words; a failed lookup keeps it and says so; several
    // as a one-line summary; a session still being checked.
    both_languages("pr_line_single", || detail_of(10));
    both_languages("pr_line_lookup_failed", || detail_of(3));
    both_languages("pr_line_several", || detail_of(11));
    both_languages("pr_line_checking", || detail_of(0));
    let mut app = detail_of(11);
    let text = screen(&mut app, 120, 40);
    assert!(
        text.contains("3 pull requests: ✓ #30 · ⑂ #31 · ● #32"),
        "{text}"
    );
}

#[test]
fn the_pull_request_opens_with_p_and_a_click() {
    let mut app = glyph_app();
    key(&mut app, KeyCode::Tab);
    for _ in 0..4 {
        key(&mut app, KeyCode::Down);
    }
    let effects = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('p'),
        KeyModifiers::NONE,
    )));
    assert_eq!(
        effects,
        vec![Effect::OpenUrl {
            url: "https://github.com/acme/app/pull/14".into()
        }]
    );
    // No pull request: a notice, nothing opened.
    key(&mut app, KeyCode::Home);
    key(&mut app, KeyCode::Down);
    let effects = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('p'),
        KeyModifiers::NONE,
    )));
    assert!(effects.is_empty());
    // A click on the PR cell of the row of #16 (the seventh row) opens it.
    let text = screen(&mut app, 120, 40);
    let (row, line) = text
        .lines()
        .enumerate()
        .find(|(_, line)| line.contains("#16"))
        .unwrap();
    let column = line[..line.find("#16").unwrap()].chars().count();
    let effects = app.handle(UiEvent::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: u16::try_from(column).unwrap(),
        row: u16::try_from(row).unwrap(),
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(
        effects,
        vec![Effect::OpenUrl {
            url: "https://github.com/acme/app/pull/16".into()
        }]
    );
}

/// What `session/diff` answers for the branch: `ahead` commits, `uncommitted` files.
fn pushable(ahead: u64, uncommitted: usize) -> codiva_protocol::manager::DiffStat {
    codiva_protocol::manager::DiffStat {
        commits_ahead: ahead,
        uncommitted: (0..uncommitted)
            .map(|i| codiva_protocol::manager::StatusEntry {
                status: " M".into(),
                path: format!("f{i}.txt"),
                orig_path: None,
            })
            .collect(),
        ..Default::default()
    }
}

/// `P` on the selected session: the core is asked what there is to push, and answers.
fn pr_asked(app: &mut App, ahead: u64, uncommitted: usize) {
    let asked = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('P'),
        KeyModifiers::SHIFT,
    )));
    assert_eq!(asked, vec![diff_for("s01", Purpose::PrPreview)]);
    answer_ok(app, &asked[0], pushable(ahead, uncommitted));
}

#[test]
fn pr_asks_first_then_pushes_and_opens() {
    both_languages("pr_confirm", || {
        let mut app = glyph_app();
        key(&mut app, KeyCode::Tab);
        key(&mut app, KeyCode::Down);
        pr_asked(&mut app, 2, 0);
        app
    });
    let mut app = glyph_app();
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Down);
    pr_asked(&mut app, 2, 0);
    let effects = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, vec![request(ClientRequest::SessionPr(sid("s01")))]);
    // `/pr` in a session view asks the same.
    let mut app = detail_of(1);
    typed(&mut app, "/pr");
    assert_eq!(
        app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
            KeyCode::Enter,
            KeyModifiers::NONE,
        ))),
        vec![diff_for("s01", Purpose::PrPreview)]
    );
    answer_ok(
        &mut app,
        &diff_for("s01", Purpose::PrPreview),
        pushable(1, 0),
    );
    let effects = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, vec![request(ClientRequest::SessionPr(sid("s01")))]);
}

/// Regression: `P` asked y/n and only then found there was nothing to push. Now the check
/// comes first, and a branch with nothing to push is said so at once (with `/commit` when
/// there is uncommitted work), without a question.
#[test]
fn nothing_to_push_is_said_before_any_question() {
    both_languages("pr_nothing_to_push", || {
        let mut app = glyph_app();
        key(&mut app, KeyCode::Tab);
        key(&mut app, KeyCode::Down);
        pr_asked(&mut app, 0, 2);
        app
    });
    let mut app = glyph_app();
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Down);
    pr_asked(&mut app, 0, 0);
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("nothing to push"), "{screen}");
    assert!(!screen.contains("Push codiva/"), "{screen}");
    let effects = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert!(
        effects.iter().all(|e| !matches!(
            e,
            Effect::Request {
                request: ClientRequest::SessionPr(_),
                ..
            }
        )),
        "{effects:?}"
    );
}

#[test]
fn a_pr_status_notification_updates_the_row() {
    let mut app = glyph_app();
    let mut prs = watched(vec![pr(40, open(PrChecks::Failed))]);
    prs.prs[0].url = "https://github.com/acme/app/pull/40".into();
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::PrStatus {
        id: "s01".into(),
        prs,
    })));
    let text = screen(&mut app, 120, 40);
    let row = text
        .lines()
        .find(|l| l.contains("No pull request"))
        .unwrap();
    assert!(row.contains("✗ #40"), "{row}");
}
