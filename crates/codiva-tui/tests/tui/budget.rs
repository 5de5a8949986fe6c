//! Agents kept in budget as the UI shows them: a session queued for an agent slot (`⧖`), and
//! what each running agent uses — a list column at 200×60 (none at 80×24), a total in the
//! header, the session's own numbers in its title line. Snapshots in English and Japanese;
//! the numbers come only from the manager's `Resources` events.

use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{ManagerEvent, ResourceUsage, SessionPhase, SessionResources};
use codiva_protocol::session::Status;
use codiva_tui::app::{App, UiEvent};
use codiva_tui::i18n::with_lang;
use crossterm::event::KeyCode;

use crate::support::*;

fn usage(mib: u64, cpu_percent: f64) -> Option<ResourceUsage> {
    Some(ResourceUsage {
        rss_bytes: mib * 1024 * 1024,
        cpu_percent,
        processes: 3,
    })
}

fn sample(app: &mut App, samples: &[(&str, Option<ResourceUsage>)]) {
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Resources {
        sessions: samples
            .iter()
            .map(|(id, resources)| SessionResources {
                id: (*id).into(),
                resources: *resources,
            })
            .collect(),
    })));
}

/// Two running agents measured, one session queued behind them, one completed (its agent
/// stopped: nothing measured).
fn budget_app() -> App {
    let mut app = App::new(info());
    add(
        &mut app,
        session(
            "fix-login",
            "Fix the login redirect loop",
            Status::Completed,
            SessionPhase::Active,
            1,
        ),
    );
    for (id, title, minute) in [
        ("add-tests", "Add tests for the parser", 2),
        ("port-cli", "CLI を clap 4 に移植する", 3),
    ] {
        add(
            &mut app,
            session(id, title, Status::Running, SessionPhase::Active, minute),
        );
    }
    add(
        &mut app,
        session(
            "changelog",
            "Write the changelog",
            Status::Queued,
            SessionPhase::Active,
            4,
        ),
    );
    sample(
        &mut app,
        &[
            ("add-tests", usage(412, 37.4)),
            ("port-cli", usage(1400, 102.0)),
        ],
    );
    app
}

fn snapshot(app: &mut App, name: &str, width: u16, height: u16) {
    insta::assert_snapshot!(
        format!("{name}_{width}x{height}"),
        draw(app, width, height).backend()
    );
}

#[test]
fn the_list_shows_queued_sessions_and_what_agents_use_when_wide_enough() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = budget_app();
            snapshot(&mut app, &format!("budget_list{suffix}"), 80, 24);
            snapshot(&mut app, &format!("budget_list{suffix}"), 200, 60);
        });
    }
    // At 80 columns there is no room for the column; at 200 there is, with the numbers sent.
    let mut app = budget_app();
    let narrow = format!("{:?}", draw(&mut app, 80, 24).backend());
    let wide = format!("{:?}", draw(&mut app, 200, 60).backend());
    assert!(!narrow.contains("412 MiB   37%"), "{narrow}");
    assert!(wide.contains("412 MiB   37%"), "{wide}");
    assert!(wide.contains("1.4 GiB  102%"), "{wide}");
    // The header's total counts every measured agent, at both sizes.
    assert!(narrow.contains("agents 1.8 GiB · CPU 139%"), "{narrow}");
}

#[test]
fn an_agent_gone_leaves_the_column_and_the_total() {
    let mut app = budget_app();
    sample(&mut app, &[("add-tests", None), ("port-cli", None)]);
    let wide = format!("{:?}", draw(&mut app, 200, 60).backend());
    assert!(!wide.contains("MiB") && !wide.contains("GiB"), "{wide}");
    assert!(!wide.contains("CPU"), "{wide}");
}

#[test]
fn the_session_view_says_what_its_agent_uses() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = budget_app();
            // Open "add-tests": focus the list, select it, press Enter.
            key(&mut app, KeyCode::Tab);
            key(&mut app, KeyCode::Down);
            key(&mut app, KeyCode::Enter);
            assert_eq!(app.view, codiva_tui::app::View::Detail("add-tests".into()));
            snapshot(&mut app, &format!("budget_session{suffix}"), 80, 24);
            snapshot(&mut app, &format!("budget_session{suffix}"), 200, 60);
        });
    }
}

#[test]
fn the_idle_stop_note_is_worded_in_both_languages() {
    let code = codiva_protocol::log::NoteCode::new("idle_stopped", &["600"]);
    let en = with_lang(Lang::En, || {
        codiva_tui::i18n::note_text("english", Some(&code)).into_owned()
    });
    let ja = with_lang(Lang::Ja, || {
        codiva_tui::i18n::note_text("english", Some(&code)).into_owned()
    });
    assert_eq!(
        en,
        "the agent was idle for 600 s: its process was stopped; the next message resumes the conversation"
    );
    assert!(ja.contains("600 秒"), "{ja}");
    // A message held for a slot and not sent comes back in full, in either language.
    let code = codiva_protocol::log::NoteCode::new("not_sent", &["fix the parser"]);
    let en = with_lang(Lang::En, || {
        codiva_tui::i18n::note_text("english", Some(&code)).into_owned()
    });
    let ja = with_lang(Lang::Ja, || {
        codiva_tui::i18n::note_text("english", Some(&code)).into_owned()
    });
    assert_eq!(
        en,
        "not sent (the session left the queue before an agent slot freed): fix the parser"
    );
    assert!(
        ja.starts_with("送信されていません") && ja.ends_with(": fix the parser"),
        "{ja}"
    );
    // A queued session's status changing to running is not worth a notification.
    assert_eq!(
        codiva_tui::notify::transition(Some(Status::Queued), Status::Running),
        None
    );
}
