//! Attach equals watching (issue 24): a UI that attaches to a session late (or resyncs after a
//! gap, or comes back after its daemon restarted) takes the session's state from
//! `session/snapshot` and shows the same screen as one that watched every event: the waiting
//! permission or question with its dialog, the usage line, the agent's own commands.

use codiva_protocol::agent::{
    Account, AgentInfo, CommandInfo, Question, QuestionOption, QuestionRequest, TokenUsage,
};
use codiva_protocol::lang::Lang;
use codiva_protocol::log::LogEntry;
use codiva_protocol::session::{
    Prompt, PromptResolution, SessionEvent, SessionSnapshot, Status, TodoProgress, UsageView,
};
use codiva_tui::app::{App, Done, Effect, Focus, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use crate::support::*;

const ID: &str = "ask-perm";

fn agent() -> AgentInfo {
    AgentInfo {
        version: Some("2.1.332".into()),
        models: Vec::new(),
        commands: vec![CommandInfo {
            name: "compact".into(),
            description: Some("Clear history but keep a summary".into()),
            argument_hint: None,
        }],
        account: Some(Account {
            api_key_source: Some("ANTHROPIC_API_KEY".into()),
            api_provider: Some("firstParty".into()),
            ..Account::default()
        }),
        permission_mode: Some(codiva_protocol::tool::PermissionMode::Default),
    }
}

fn usage() -> UsageView {
    UsageView {
        tokens: TokenUsage {
            input: 84_200,
            output: 3_100,
            cache_read: 0,
            cache_creation: 0,
        },
        context_used: 84_200,
        context_window: Some(200_000),
        cost_usd: Some(0.4213),
    }
}

fn question(request_id: &str) -> Prompt {
    Prompt::Question(QuestionRequest {
        request_id: request_id.into(),
        questions: vec![Question {
            question: "どの言語で書きますか？ Which language?".into(),
            header: Some("言語".into()),
            multi_select: false,
            options: ["日本語", "English"]
                .iter()
                .map(|label| QuestionOption {
                    label: (*label).into(),
                    description: None,
                })
                .collect(),
        }],
        input: json!({}),
        tool_use_id: None,
    })
}

/// What the session's events were, in order (the agent connected, reported usage, asked).
fn events(prompts: &[Prompt]) -> Vec<SessionEvent> {
    let mut events = vec![
        SessionEvent::Connected { agent: agent() },
        SessionEvent::Usage { usage: usage() },
    ];
    events.extend(prompts.iter().map(|prompt| SessionEvent::PromptOpened {
        prompt: prompt.clone(),
    }));
    events
}

/// The daemon's `session/snapshot` after those events.
fn snapshot(prompts: &[Prompt]) -> SessionSnapshot {
    SessionSnapshot {
        status: if prompts.is_empty() {
            Status::Running
        } else {
            Status::AwaitingPermission
        },
        detail: None,
        detail_code: None,
        connected: true,
        agent_session_id: Some("0000".into()),
        model: Some("claude-sonnet-4-5".into()),
        model_entry: None,
        permission_mode: Some(codiva_protocol::tool::PermissionMode::Default),
        prompts: prompts.to_vec(),
        todos: TodoProgress::default(),
        todo_items: Vec::new(),
        usage: usage(),
        subagents: Vec::new(),
        log: Vec::new(),
        dropped_entries: 0,
        streaming: String::new(),
        agent: Some(agent()),
        seq: None,
    }
}

/// A UI that watched the session's events as they came.
fn watched(prompts: &[Prompt]) -> App {
    let mut app = busy_app();
    for e in events(prompts) {
        event(&mut app, ID, e);
    }
    app
}

/// A UI started after those events: the rows, then each session's snapshot.
fn attached(prompts: &[Prompt]) -> App {
    let mut app = busy_app();
    let effects = app.attached();
    assert!(
        effects.contains(&request(ClientRequest::SessionSnapshot(sid(ID)))),
        "every session's state is asked for: {effects:?}"
    );
    snapshot_arrived(&mut app, ID, snapshot(prompts));
    app
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    format!("{}", draw(app, width, height).backend())
}

/// The list and the opened session look the same in both UIs, in English and Japanese;
/// snapshots of the attached one under `name`.
fn same_screens(prompts: &[Prompt], name: &str) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut watched = watched(prompts);
            let mut attached = attached(prompts);
            for (w, h) in [(80, 24), (120, 40)] {
                assert_eq!(
                    screen(&mut attached, w, h),
                    screen(&mut watched, w, h),
                    "list at {w}x{h}"
                );
            }
            open_detail(&mut watched);
            open_detail(&mut attached);
            for (w, h) in [(80, 24), (120, 40)] {
                assert_eq!(
                    screen(&mut attached, w, h),
                    screen(&mut watched, w, h),
                    "{name} at {w}x{h}"
                );
                insta::assert_snapshot!(
                    format!("{name}{suffix}_{w}x{h}"),
                    draw(&mut attached, w, h).backend()
                );
            }
        });
    }
}

#[test]
fn a_waiting_permission_is_there_after_attaching() {
    same_screens(&[permission("r1", "cargo test")], "attached_permission");
}

#[test]
fn a_waiting_question_is_there_after_attaching() {
    same_screens(&[question("q1")], "attached_question");
}

#[test]
fn usage_is_there_after_attaching() {
    same_screens(&[], "attached_usage");
}

#[test]
fn the_inbox_finds_and_answers_a_prompt_from_the_snapshot() {
    let mut app = attached(&[permission("r1", "cargo test")]);
    assert_eq!(app.inbox(), [ID]);
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('n'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(app.focus, Focus::Dialog);
    assert_eq!(app.view, View::List);
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, [respond(ID, "r1", "allow_once", None)]);
}

#[test]
fn the_agents_commands_are_known_after_attaching() {
    let mut app = attached(&[]);
    open_detail(&mut app);
    typed(&mut app, "/compact");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    assert_eq!(
        effects,
        [request(ClientRequest::SessionSend(SendParams {
            session_id: ID.into(),
            text: "/compact".into(),
            images: Vec::new(),
        }))]
    );
}

#[test]
fn a_resync_takes_prompts_opened_and_closed_in_the_gap() {
    let mut app = watched(&[permission("r1", "cargo test")]);
    // Events were lost: r1 was answered elsewhere and r2 opened meanwhile.
    app.attached();
    snapshot_arrived(&mut app, ID, snapshot(&[question("q2")]));
    let mut expected = watched(&[question("q2")]);
    open_detail(&mut app);
    open_detail(&mut expected);
    assert_eq!(screen(&mut app, 80, 24), screen(&mut expected, 80, 24));
    assert_eq!(app.inbox(), [ID]);
}

#[test]
fn events_while_the_snapshot_is_asked_for_are_applied_over_it() {
    let mut app = busy_app();
    app.attached();
    // The prompt closes (and another opens) before the snapshot, taken earlier, arrives.
    event(
        &mut app,
        ID,
        SessionEvent::PromptClosed {
            request_id: "r1".into(),
            resolution: PromptResolution::Allowed,
        },
    );
    event(
        &mut app,
        ID,
        SessionEvent::PromptOpened {
            prompt: question("q2"),
        },
    );
    snapshot_arrived(&mut app, ID, snapshot(&[permission("r1", "cargo test")]));
    let mut expected = watched(&[question("q2")]);
    open_detail(&mut app);
    open_detail(&mut expected);
    assert_eq!(screen(&mut app, 120, 40), screen(&mut expected, 120, 40));
}

#[test]
fn the_inbox_key_pressed_before_the_snapshot_arrives_goes_to_its_prompt() {
    let mut app = busy_app();
    let mut row = session(
        ID,
        "Refactor the config loader into modules",
        Status::AwaitingPermission,
        codiva_protocol::manager::SessionPhase::Active,
        3,
    );
    row.pending_prompts = 1;
    add(&mut app, row);
    app.attached();
    let ctrl_n = KeyEvent::new(KeyCode::Char('n'), KeyModifiers::CONTROL);
    app.handle(UiEvent::Key(ctrl_n));
    let screen_before = screen(&mut app, 80, 24);
    assert!(
        !screen_before.contains("nobody is waiting"),
        "the row says one waits: its prompt is on its way\n{screen_before}"
    );
    snapshot_arrived(&mut app, ID, snapshot(&[permission("r1", "cargo test")]));
    assert_eq!(app.focus, Focus::Dialog, "the inbox key is answered now");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert!(
        matches!(&effects[..], [Effect::Request { request: ClientRequest::SessionRespondPermission(p), .. }] if p.request_id == "r1"),
        "{effects:?}"
    );
}

#[test]
fn a_resync_reads_the_open_sessions_log_again() {
    use codiva_protocol::log::EntryKind;
    let mut app = watched(&[]);
    open_detail(&mut app);
    // Events were lost, an entry among them: the open session's log is read again.
    let effects = app.attached();
    assert!(
        effects.contains(&Effect::ReadLog { id: ID.into() }),
        "{effects:?}"
    );
    assert!(!effects.contains(&Effect::ReadLog {
        id: "fix-login".into()
    }));
    app.handle(UiEvent::Done(Done::LogRead {
        id: ID.into(),
        entries: vec![
            log(
                0,
                EntryKind::User {
                    text: "Refactor the config loader into modules".into(),
                },
            ),
            log(
                7,
                EntryKind::Assistant {
                    text: "An answer the gap had taken.".into(),
                },
            ),
        ],
        subagents: Vec::new(),
        todos: Vec::new(),
    }));
    assert!(screen(&mut app, 80, 24).contains("An answer the gap had taken."));
}

/// Attached again after the daemon died: the session that was open opens again, the composer
/// has its text back, and a notice says what happened.
fn resumed() -> App {
    let mut app = App::new(info());
    for session in busy_app().sessions() {
        add(&mut app, session.clone());
    }
    let effects = app.resume(&codiva_tui::run::Resume {
        draft: "a follow-up I was typing".into(),
        open: Some(ID.into()),
    });
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::ReadLog { id, .. } if id == ID)),
        "the open session's log is read: {effects:?}"
    );
    app
}

#[test]
fn a_ui_attached_again_after_its_daemon_died_keeps_the_view_and_the_draft() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = resumed();
            assert_eq!(app.view, View::Detail(ID.into()));
            assert_eq!(app.composer_mut().text(), "a follow-up I was typing");
            snapshot_at_both_sizes!(&mut app, &format!("resumed_after_daemon_died{suffix}"));
        });
    }
    // A session that is gone (removed meanwhile) leaves the list open, the draft kept.
    let mut app = App::new(info());
    app.resume(&codiva_tui::run::Resume {
        draft: "kept".into(),
        open: Some("gone".into()),
    });
    assert_eq!(app.view, View::List);
    assert_eq!(app.composer_mut().text(), "kept");
}

/// Every captured session of the conformance corpus (real Claude Code, Codex and ACP runs):
/// a UI that attached after any number of its events — a prompt open, a subagent running,
/// mid-stream, after completion — shows what a UI that watched from the start shows, at that
/// point and once the rest of the events have come.
#[test]
fn every_captured_session_looks_the_same_attached_at_any_point() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/conformance/session");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the conformance corpus")
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no captured session in {}",
        dir.display()
    );
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let events: Vec<SessionEvent> = document["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|step| serde_json::from_value(step["event"].clone()).unwrap())
            .collect();
        for k in 0..=events.len() {
            // One that watched the first `k` events (not drawn meanwhile: a dialog closed by
            // another client leaves a notice only where it was seen).
            let mut watched = captured_app(&name);
            open_captured(&mut watched, &SessionSnapshot::initial(), &[], |_| {});
            for e in &events[..k] {
                event(&mut watched, ID, e.clone());
            }
            // Between a stream's reset and the entry it became (one batch of the daemon's,
            // never a frame of its own) the watching UI keeps the retired rows on purpose.
            if k > 0 && matches!(events[k - 1], SessionEvent::Stream { reset: true, .. }) {
                continue;
            }
            // Started after `k` events: it opens the session at once, then the snapshot and
            // the log it asked for arrive.
            let mut late = captured_app(&name);
            late.attached();
            let snapshot = SessionSnapshot::folded(&events[..k]);
            open_captured(&mut late, &snapshot, &events[..k], |app| {
                snapshot_arrived(app, ID, snapshot.clone());
            });
            for (w, h) in [(80, 24), (120, 40)] {
                assert_eq!(
                    screen(&mut late, w, h),
                    screen(&mut watched, w, h),
                    "{name}: attached after {k} of {} events, at {w}x{h}",
                    events.len()
                );
            }
            for event_after in &events[k..] {
                event(&mut late, ID, event_after.clone());
            }
            // One that watched throughout, drawn where the late one was first drawn (what a
            // dialog closed by another client says depends on whether it was seen).
            let mut whole = captured_app(&name);
            open_captured(&mut whole, &SessionSnapshot::initial(), &[], |_| {});
            for (index, e) in events.iter().enumerate() {
                if index == k {
                    screen(&mut whole, 120, 40);
                }
                event(&mut whole, ID, e.clone());
            }
            assert_eq!(
                screen(&mut late, 120, 40),
                screen(&mut whole, 120, 40),
                "{name}: attached after {k} of {} events, then the rest",
                events.len()
            );
        }
    }
}

/// A UI with the one session `ID`, its row named after the capture.
fn captured_app(name: &str) -> App {
    let mut app = App::new(info());
    add(
        &mut app,
        session(
            ID,
            name,
            Status::Running,
            codiva_protocol::manager::SessionPhase::Active,
            1,
        ),
    );
    app
}

/// Opens session `ID`, lets `meanwhile` happen, and answers its `session/read` with the log
/// `snapshot` holds (and the subagents' logs `events` wrote), as the daemon would.
fn open_captured(
    app: &mut App,
    snapshot: &SessionSnapshot,
    events: &[SessionEvent],
    meanwhile: impl FnOnce(&mut App),
) {
    key(app, KeyCode::Tab);
    key(app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail(ID.into()));
    meanwhile(app);
    let mut subagents: Vec<(codiva_protocol::session::SubagentView, Vec<LogEntry>)> = snapshot
        .subagents
        .iter()
        .map(|view| (view.clone(), Vec::new()))
        .collect();
    for event in events {
        if let SessionEvent::Log {
            scope: codiva_protocol::session::Scope::Subagent(tool_use_id),
            entry,
            update,
            ..
        } = event
            && let Some((_, log)) = subagents
                .iter_mut()
                .find(|(view, _)| view.tool_use_id == *tool_use_id)
        {
            match log.iter_mut().find(|e| e.id == entry.id) {
                Some(kept) if *update => *kept = entry.clone(),
                None if !*update => log.push(entry.clone()),
                _ => {}
            }
        }
    }
    app.handle(UiEvent::Done(Done::LogRead {
        id: ID.into(),
        entries: snapshot.log.clone(),
        subagents,
        todos: snapshot.todo_items.clone(),
    }));
}

/// A snapshot that says its place in the manager's stream (`seq`) takes exactly the events
/// after it: deltas of the message being written that came while it was asked for show once
/// each, whether the snapshot holds them or not.
#[test]
fn a_snapshot_placed_in_the_stream_takes_exactly_the_deltas_after_it() {
    let deltas = ["Once upon ", "a time ", "there was ", "a parser."];
    let stream = |text: &str| SessionEvent::Stream {
        text: text.into(),
        reset: false,
    };
    let mut watched = captured_app("streaming");
    open_captured(&mut watched, &SessionSnapshot::initial(), &[], |_| {});
    for delta in deltas {
        event(&mut watched, ID, stream(delta));
    }
    // Attached after the first delta; three more come while the snapshot is on its way, and
    // the daemon took it after the second of them (seq 12).
    let mut late = captured_app("streaming");
    late.attached();
    let mut snapshot = SessionSnapshot::initial();
    for delta in &deltas[..3] {
        snapshot.apply(&stream(delta));
    }
    snapshot.seq = Some(12);
    open_captured(&mut late, &SessionSnapshot::initial(), &[], |app| {
        for (seq, delta) in [(11, deltas[1]), (12, deltas[2]), (13, deltas[3])] {
            app.at_seq(seq);
            event(app, ID, stream(delta));
        }
        snapshot_arrived(app, ID, snapshot);
    });
    for (w, h) in [(80, 24), (120, 40)] {
        let shown = screen(&mut late, w, h);
        assert!(
            shown.contains("Once upon a time there was a parser."),
            "{shown}"
        );
        assert_eq!(shown, screen(&mut watched, w, h), "at {w}x{h}");
    }
}

/// An event the snapshot holds that is read after it (answers and notifications share the
/// connection, not one order) is not applied again: its delta shows once.
#[test]
fn an_event_the_snapshot_holds_read_after_it_is_not_applied_again() {
    let stream = |text: &str| SessionEvent::Stream {
        text: text.into(),
        reset: false,
    };
    let mut late = captured_app("streaming");
    late.attached();
    let mut snapshot = SessionSnapshot::initial();
    snapshot.apply(&stream("Once upon "));
    snapshot.apply(&stream("a time."));
    snapshot.seq = Some(12);
    open_captured(&mut late, &SessionSnapshot::initial(), &[], |app| {
        snapshot_arrived(app, ID, snapshot);
        // Seq 12 is in the snapshot; 13 is not.
        app.at_seq(12);
        event(app, ID, stream("a time."));
        app.at_seq(13);
        event(app, ID, stream(" The end."));
    });
    let shown = screen(&mut late, 120, 40);
    assert!(shown.contains("Once upon a time. The end."), "{shown}");
    assert!(!shown.contains("a time.a time."), "{shown}");
}

#[test]
fn a_resync_drops_the_sessions_removed_in_the_gap() {
    let mut app = watched(&[]);
    let other = session(
        "other",
        "Write the changelog",
        Status::Completed,
        codiva_protocol::manager::SessionPhase::Active,
        1,
    );
    add(&mut app, other);
    assert!(app.sessions().iter().any(|s| s.id == "other"));
    // Events were lost, the others' removal among them: the manager's rows now have only ID.
    let kept: Vec<_> = app
        .sessions()
        .iter()
        .filter(|s| s.id == ID)
        .cloned()
        .collect();
    for event in app.rows_taken_afresh(kept) {
        app.handle(UiEvent::Manager(Box::new(event)));
    }
    let ids: Vec<&str> = app.sessions().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [ID]);
}
