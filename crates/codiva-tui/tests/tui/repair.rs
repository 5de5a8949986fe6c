//! `/fix-ci`, `/commit`, `/recover` and the session view's uncommitted files: the effects each
//! asks for, the recover confirmation with its counts, the honest summary after it, the
//! uncommitted line (a short list, `+n` when long) looked up when the view opens and when the
//! agent settles. Snapshots at 80x24 and 200x60, in English and Japanese.

use codiva_protocol::lang::Lang;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::params::{
    CommitResult, RecoverItem, RecoverKind, RecoverParams, RecoverResult,
};
use codiva_protocol::session::Status;
use codiva_tui::app::{App, Effect, Purpose, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::KeyCode;

use crate::support::*;

fn app_with(status: Status) -> App {
    let mut app = App::new(info());
    add(
        &mut app,
        session(
            "fix-login",
            "Fix the login",
            status,
            SessionPhase::Active,
            1,
        ),
    );
    add(
        &mut app,
        session(
            "add-health",
            "Add a health check",
            Status::Completed,
            SessionPhase::Active,
            2,
        ),
    );
    app
}

/// The session view of `fix-login`; returns the effects opening it asked for.
fn open(app: &mut App) -> Vec<Effect> {
    key(app, KeyCode::Tab);
    let effects = app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )));
    assert_eq!(app.view, View::Detail("fix-login".into()));
    effects
}

fn uncommitted(app: &mut App, files: &[&str]) {
    let stat = codiva_protocol::manager::DiffStat {
        uncommitted: files
            .iter()
            .map(|path| codiva_protocol::manager::StatusEntry {
                status: "??".into(),
                path: (*path).to_owned(),
                orig_path: None,
            })
            .collect(),
        ..Default::default()
    };
    answer_ok(app, &diff_for("fix-login", Purpose::Uncommitted), stat);
}

/// `session/recover`, a dry run or not.
fn recover(dry_run: bool) -> Effect {
    request(ClientRequest::SessionRecover(RecoverParams { dry_run }))
}

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    typed(app, line);
    app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )))
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

fn at_80_and_200(name: &str, scenario: impl Fn() -> App) {
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
fn the_session_view_lists_its_uncommitted_files() {
    let mut app = app_with(Status::Completed);
    let effects = open(&mut app);
    assert!(
        effects.contains(&diff_for("fix-login", Purpose::Uncommitted)),
        "looked up when the view opens: {effects:?}"
    );
    let few = || {
        let mut app = app_with(Status::Completed);
        open(&mut app);
        uncommitted(&mut app, &["src/login.rs", "tests/"]);
        app
    };
    at_80_and_200("uncommitted_few", few);
    let many = || {
        let mut app = app_with(Status::Completed);
        open(&mut app);
        uncommitted(
            &mut app,
            &["a.rs", "b.rs", "c.rs", "d.rs", "e.rs", "f.rs", "g.rs"],
        );
        app
    };
    at_80_and_200("uncommitted_many", many);
    let text = with_lang(Lang::En, || screen(&mut many(), 200, 60));
    assert!(
        text.contains("± 7 uncommitted: a.rs, b.rs, c.rs, d.rs, +3 · /commit"),
        "{text}"
    );
    // None: no line.
    let mut clean = app_with(Status::Completed);
    open(&mut clean);
    uncommitted(&mut clean, &[]);
    assert!(!screen(&mut clean, 200, 60).contains("uncommitted"));
}

#[test]
fn the_files_are_looked_up_again_when_the_agent_settles() {
    let mut app = app_with(Status::Running);
    open(&mut app);
    let still = session(
        "fix-login",
        "Fix the login",
        Status::Running,
        SessionPhase::Active,
        1,
    );
    add(&mut app, still);
    let done = session(
        "fix-login",
        "Fix the login",
        Status::Completed,
        SessionPhase::Active,
        1,
    );
    let effects = app.handle(UiEvent::Manager(Box::new(
        codiva_protocol::manager::ManagerEvent::Session {
            session: done.clone(),
        },
    )));
    assert_eq!(effects, vec![diff_for("fix-login", Purpose::Uncommitted)]);
    // Settled already: not again.
    let effects = app.handle(UiEvent::Manager(Box::new(
        codiva_protocol::manager::ManagerEvent::Session { session: done },
    )));
    assert!(effects.is_empty(), "{effects:?}");
}

#[test]
fn commit_with_a_message_or_by_the_agent() {
    let mut app = app_with(Status::Completed);
    open(&mut app);
    assert_eq!(
        command(&mut app, "/commit Fix the login redirect"),
        vec![commit("fix-login", Some("Fix the login redirect"))]
    );
    assert_eq!(
        command(&mut app, "/commit"),
        vec![commit("fix-login", None)]
    );
    // Its answer is said, and the files are looked up again.
    let done = CommitResult {
        commit: Some("9f2c01ab5e7d".into()),
        files: 2,
        asked_agent: false,
        message: String::new(),
    };
    let effects = with_lang(Lang::En, || {
        answer_ok(&mut app, &commit("fix-login", Some("Fix")), done)
    });
    assert_eq!(effects, vec![diff_for("fix-login", Purpose::Uncommitted)]);
    assert_eq!(app.notice(), Some(("committed 2 files as 9f2c01ab", false)));
}

#[test]
fn fix_ci_from_the_session_view_and_with_f_in_the_list() {
    let mut app = app_with(Status::Completed);
    key(&mut app, KeyCode::Tab);
    assert_eq!(
        app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char('F'),
            crossterm::event::KeyModifiers::SHIFT,
        ))),
        vec![request(ClientRequest::SessionFixCi(sid("fix-login")))]
    );
    let mut app = app_with(Status::Completed);
    open(&mut app);
    assert_eq!(
        command(&mut app, "/fix-ci"),
        vec![request(ClientRequest::SessionFixCi(sid("fix-login")))]
    );
}

fn plan() -> RecoverResult {
    let item = |id: &str, kind| RecoverItem {
        session_id: id.into(),
        kind,
        ok: None,
        message: String::new(),
    };
    RecoverResult {
        items: vec![
            item("add-health", RecoverKind::Sync),
            item("fix-login", RecoverKind::FixCi),
        ],
        succeeded: 0,
        failed: 0,
    }
}

fn confirming() -> App {
    let mut app = app_with(Status::Completed);
    assert_eq!(command(&mut app, "/recover"), vec![recover(true)]);
    answer_ok(&mut app, &recover(true), plan());
    app
}

#[test]
fn recover_asks_with_the_counts_then_says_how_many_succeeded() {
    at_80_and_200("recover_confirm", confirming);
    let mut app = confirming();
    let text = with_lang(Lang::En, || screen(&mut app, 200, 60));
    assert!(
        text.contains("Repair 2 stuck sessions one by one?"),
        "{text}"
    );
    assert!(text.contains("1 with failed checks"), "{text}");
    assert!(text.contains("1 conflicting"), "{text}");
    assert!(
        text.contains("add-health (sync), fix-login (fix-ci)"),
        "{text}"
    );
    assert_eq!(
        app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char('y'),
            crossterm::event::KeyModifiers::NONE,
        ))),
        vec![recover(false)]
    );
    let mut done = plan();
    done.items[0].ok = Some(false);
    done.items[0].message = "pushing codiva/add-health failed: \u{1b}[31mrefused".into();
    done.items[1].ok = Some(true);
    done.succeeded = 1;
    done.failed = 1;
    with_lang(Lang::En, || {
        answer_ok(&mut app, &recover(false), done);
        let (text, error) = app.notice().unwrap();
        assert!(error, "a failure is not reported as a success");
        assert!(
            text.starts_with("recover: 1 of 2 succeeded · failed: add-health (pushing"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "{text:?}");
    });

    // Nothing stuck: said, no question.
    let mut app = app_with(Status::Completed);
    command(&mut app, "/recover");
    answer_ok(&mut app, &recover(true), RecoverResult::default());
    let text = with_lang(Lang::En, || screen(&mut app, 200, 60));
    assert!(text.contains("no stuck pull request"), "{text}");
}
