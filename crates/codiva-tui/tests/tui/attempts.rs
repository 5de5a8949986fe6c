//! Attempts in the TUI: the `/attempts` form, a group's rows in the list (collapsed and
//! expanded, by key and by mouse), the check cell, the compare view, diffs of an attempt and
//! between two, keeping one after a confirmation that lists the others — at 80×24 and 200×60,
//! in English and Japanese, and at widths and with text that must not break it.

use codiva_protocol::ClientRequest;
use codiva_protocol::agent::{AgentAvailability, AgentStatus, TokenUsage};
use codiva_protocol::group::{
    Attempt, AttemptDiffParams, AttemptDiscard, AttemptFigures, AttemptSpec, CheckRun, CheckState,
    CheckTrigger, CreateGroupParams, GroupChange, GroupCompare, GroupInfo, GroupParams,
    GroupResult, KeepOutcome, KeepParams, LastAttemptsResult, RunCheckResult, WorkFigures,
};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{
    DiffText, DiscardPreview, FileStat, ManagerEvent, SessionInfo, SessionPhase,
};
use codiva_protocol::params::NoParams;
use codiva_protocol::session::{SessionEvent, Status};
use codiva_tui::app::{App, Effect, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use crate::support::{add, answer_ok, draw, event, info, key, permission, session, typed};

const INSTRUCTION: &str = "Add a /health endpoint that reports the build and the uptime";

fn check(state: CheckState, exit_code: Option<i32>) -> Box<CheckRun> {
    Box::new(CheckRun {
        state,
        command: "cargo test -q".into(),
        started_at: 0,
        duration_ms: (state != CheckState::Running).then_some(4_200),
        exit_code,
        signal: None,
        detail: None,
        trigger: CheckTrigger::TurnCompleted,
    })
}

fn attempt(id: &str, agent: &str, model: Option<&str>, status: Status, minute: u64) -> SessionInfo {
    let mut row = session(id, INSTRUCTION, status, SessionPhase::Active, minute);
    row.agent = agent.into();
    row.model = model.map(str::to_owned);
    row.group = Some("g1".into());
    row.branch = format!("codiva/add-health-{id}");
    row
}

fn group() -> GroupInfo {
    let spec = |agent: &str, model: Option<&str>| AttemptSpec::new(agent, model.map(str::to_owned));
    GroupInfo {
        id: "g1".into(),
        instruction: INSTRUCTION.into(),
        attempts: vec![
            Attempt {
                session_id: "a1".into(),
                spec: spec("claude", None),
            },
            Attempt {
                session_id: "a2".into(),
                spec: spec("codex", None),
            },
            Attempt {
                session_id: "a3".into(),
                spec: spec("claude", Some("opus")),
            },
        ],
        created_at: 0,
        kept: None,
    }
}

fn agents() -> Vec<AgentAvailability> {
    let agent = |id: &str, name: &str, status: AgentStatus| AgentAvailability {
        id: id.into(),
        name: name.into(),
        status,
        default: id == "claude",
        capabilities: None,
        program: None,
        install: (status == AgentStatus::NotInstalled).then(|| format!("npm i -g {id}")),
        login: None,
        version: None,
        model_aliases: Vec::new(),
    };
    vec![
        agent("claude", "Claude Code", AgentStatus::Ready),
        agent("codex", "Codex", AgentStatus::Ready),
        agent("gemini", "Gemini CLI", AgentStatus::NotInstalled),
    ]
}

/// A plain session, the group of three attempts (running, waiting for a permission, done with
/// its check passed), and a plain session after it whose check failed.
fn group_app() -> App {
    let mut app = App::new(codiva_tui::app::AppInfo {
        agents: agents(),
        ..info()
    });
    let mut before = session(
        "fix-login",
        "Fix the login redirect loop",
        Status::Completed,
        SessionPhase::Active,
        1,
    );
    before.check = Some(check(CheckState::Passed, Some(0)));
    add(&mut app, before);
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Group {
        change: GroupChange::Created,
        group: group(),
    })));
    add(
        &mut app,
        attempt(
            "a1",
            "claude",
            Some("claude-sonnet-4-5"),
            Status::Running,
            2,
        ),
    );
    let mut codex = attempt(
        "a2",
        "codex",
        Some("gpt-5.5"),
        Status::AwaitingPermission,
        3,
    );
    codex.pending_prompts = 1;
    add(&mut app, codex);
    let mut opus = attempt(
        "a3",
        "claude",
        Some("claude-opus-4-1"),
        Status::Completed,
        4,
    );
    opus.check = Some(check(CheckState::Running, None));
    add(&mut app, opus);
    event(
        &mut app,
        "a2",
        SessionEvent::PromptOpened {
            prompt: permission("r1", "cargo add axum"),
        },
    );
    let mut after = session(
        "docs",
        "日本語のドキュメントを更新する 🎌",
        Status::Completed,
        SessionPhase::Active,
        5,
    );
    after.check = Some(check(CheckState::Failed, Some(101)));
    add(&mut app, after);
    app
}

/// Snapshots of what `build` makes, at 80×24 and 200×60, in English and in Japanese (each
/// built in its language, so its notices are too).
fn snapshots(name: &str, build: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = build();
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

fn screen(app: &mut App, width: u16, height: u16) -> String {
    format!("{}", draw(app, width, height).backend())
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )))
}

fn request(request: ClientRequest) -> Effect {
    Effect::request(request)
}

/// The list has the keys, the selection on the group's row.
fn on_group_row(app: &mut App) {
    key(app, KeyCode::Tab);
    key(app, KeyCode::Home);
    key(app, KeyCode::Down);
}

#[test]
fn the_group_row_says_how_many_run_wait_and_have_ended() {
    let mut app = group_app();
    let wide = screen(&mut app, 200, 60);
    assert!(
        wide.contains("3 attempts: Add a /health endpoint"),
        "{wide}"
    );
    assert!(wide.contains("1 running · 1 waiting · 1 ended"), "{wide}");
    // Each attempt under it, by what it was started with.
    for label in ["├ claude", "├ codex", "└ claude:opus"] {
        assert!(wide.contains(label), "{label}: {wide}");
    }
    let narrow = screen(&mut app, 80, 24);
    assert!(narrow.contains("1 run 1 wait 1 ended"), "{narrow}");
}

/// Regression: attempts that were interrupted or failed were counted as 完了 ("completed") in
/// Japanese, beside rows saying 中断 and 失敗. They have ended; the count says so.
#[test]
fn interrupted_and_failed_attempts_count_as_ended_not_completed() {
    let app = || {
        let mut app = App::new(codiva_tui::app::AppInfo {
            agents: agents(),
            ..info()
        });
        app.handle(UiEvent::Manager(Box::new(ManagerEvent::Group {
            change: GroupChange::Created,
            group: group(),
        })));
        add(
            &mut app,
            attempt("a1", "claude", None, Status::Interrupted, 2),
        );
        add(&mut app, attempt("a2", "codex", None, Status::Failed, 3));
        add(
            &mut app,
            attempt("a3", "claude", None, Status::Completed, 4),
        );
        app
    };
    let english = screen(&mut app(), 200, 60);
    assert!(
        english.contains("0 running · 0 waiting · 3 ended"),
        "{english}"
    );
    let japanese = with_lang(Lang::Ja, || screen(&mut app(), 200, 60));
    assert!(
        japanese.contains("実行中 0 · 待機 0 · 終了 3"),
        "{japanese}"
    );
    assert!(!japanese.contains("完了 3"), "{japanese}");
}

#[test]
fn group_rows_expanded() {
    snapshots("group_expanded", group_app);
}

#[test]
fn group_rows_collapsed_by_key() {
    snapshots("group_collapsed", || {
        let mut app = group_app();
        on_group_row(&mut app);
        press(&mut app, KeyCode::Enter);
        app
    });
    let mut app = group_app();
    on_group_row(&mut app);
    press(&mut app, KeyCode::Left);
    let folded = screen(&mut app, 200, 60);
    assert!(!folded.contains("├ codex"), "{folded}");
    // Down from the folded group goes to the session after it.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Detail("docs".into()));
    // → opens it again.
    let mut app = group_app();
    on_group_row(&mut app);
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Right);
    assert!(screen(&mut app, 200, 60).contains("├ codex"));
}

#[test]
fn a_click_on_the_group_row_collapses_and_expands_it() {
    let mut app = group_app();
    let click = |app: &mut App, row: u16| {
        app.handle(UiEvent::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 10,
            row,
            modifiers: KeyModifiers::NONE,
        }))
    };
    let text = screen(&mut app, 200, 60);
    // The group's row, where the last frame drew it.
    let row = text
        .lines()
        .position(|line| line.contains("3 attempts:"))
        .unwrap();
    click(&mut app, u16::try_from(row).unwrap());
    assert!(!screen(&mut app, 200, 60).contains("├ codex"));
    click(&mut app, u16::try_from(row).unwrap());
    assert!(screen(&mut app, 200, 60).contains("├ codex"));
}

#[test]
fn the_inbox_opens_a_collapsed_group_to_its_waiting_attempt() {
    let mut app = group_app();
    on_group_row(&mut app);
    press(&mut app, KeyCode::Enter);
    assert!(!screen(&mut app, 200, 60).contains("├ codex"));
    ctrl(&mut app, 'n');
    let text = screen(&mut app, 200, 60);
    assert!(text.contains("├ codex"), "{text}");
    // Its permission is under the list, answerable.
    assert!(text.contains("cargo add axum"), "{text}");
}

#[test]
fn every_session_shows_its_check_in_the_list_and_its_view() {
    let mut app = group_app();
    let text = screen(&mut app, 200, 60);
    let line = |needle: &str| {
        text.lines()
            .find(|line| line.contains(needle))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(line("Fix the login").contains('✓'), "{text}");
    assert!(line("日本語").contains('✗'), "{text}");
    // Open the failed one: its title line says it in words.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Enter);
    let view = screen(&mut app, 120, 40);
    assert!(view.contains("check ✗ failed (exit 101)"), "{view}");
}

#[test]
fn check_again_on_demand() {
    let mut app = group_app();
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Home);
    let effects = press(&mut app, KeyCode::Char('C'));
    let run = request(ClientRequest::SessionRunCheck(crate::support::sid(
        "fix-login",
    )));
    assert_eq!(effects, vec![run.clone()]);
    answer_ok(
        &mut app,
        &run,
        RunCheckResult {
            check: *check(CheckState::Running, None),
        },
    );
    assert_eq!(app.notice(), Some(("check started: cargo test -q", false)));
    // `/check` in a session's view asks the same.
    key(&mut app, KeyCode::Enter);
    typed(&mut app, "/check");
    assert_eq!(press(&mut app, KeyCode::Enter), vec![run]);
}

fn open_form(app: &mut App) -> Vec<Effect> {
    typed(app, "/attempts");
    press(app, KeyCode::Enter)
}

fn form_app() -> App {
    let mut app = group_app();
    let effects = open_form(&mut app);
    let last = request(ClientRequest::GroupLastAttempts(NoParams {}));
    assert_eq!(effects, vec![last.clone()]);
    answer_ok(
        &mut app,
        &last,
        LastAttemptsResult {
            attempts: Vec::new(),
            text: "claude, codex, claude:opus".into(),
        },
    );
    app
}

#[test]
fn the_form_prefilled_with_the_last_attempts() {
    snapshots("form", || {
        let mut app = form_app();
        typed(&mut app, "Make the parser accept 日本語 identifiers");
        app
    });
}

#[test]
fn the_form_starts_a_group_of_the_named_attempts() {
    let mut app = form_app();
    typed(&mut app, "Make the parser faster");
    let effects = press(&mut app, KeyCode::Enter);
    let create = request(ClientRequest::GroupCreate(CreateGroupParams {
        prompt: "Make the parser faster".into(),
        attempts: vec![
            AttemptSpec::new("claude", None),
            AttemptSpec::new("codex", None),
            AttemptSpec::new("claude", Some("opus".into())),
        ],
        ..CreateGroupParams::default()
    }));
    assert_eq!(effects, vec![create.clone()]);
    assert!(!app.overlay_open());
    // The answer lists the group and selects its row.
    let mut made = group();
    made.id = "g2".into();
    made.instruction = "Make the parser faster".into();
    for attempt in &mut made.attempts {
        attempt.session_id = format!("b-{}", attempt.session_id);
    }
    let sessions = made
        .attempts
        .iter()
        .enumerate()
        .map(|(index, a)| {
            let mut row = attempt(&a.session_id, &a.spec.agent, None, Status::Starting, 10);
            row.group = Some("g2".into());
            row.created_at = 10 + index as u64;
            row.phase = SessionPhase::Preparing;
            row
        })
        .collect();
    answer_ok(
        &mut app,
        &create,
        GroupResult {
            group: made,
            sessions,
        },
    );
    assert_eq!(
        app.notice(),
        Some(("started 3 attempts: claude, codex, claude:opus", false))
    );
    let text = screen(&mut app, 200, 60);
    assert!(
        text.contains("› ⠋ ▾ 3 attempts: Make the parser faster"),
        "{text}"
    );
}

#[test]
fn ctrl_g_takes_the_typed_instruction_into_the_form() {
    let mut app = group_app();
    typed(&mut app, "Fix the flaky test");
    let effects = ctrl(&mut app, 'g');
    assert_eq!(
        effects,
        vec![request(ClientRequest::GroupLastAttempts(NoParams {}))]
    );
    let text = screen(&mut app, 80, 24);
    assert!(text.contains("Fix the flaky test"), "{text}");
    // Esc gives it back to the composer.
    press(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
    assert_eq!(app.composer_mut().text(), "Fix the flaky test");
}

/// Ctrl+G over a typed instruction, the repository's last list arrived: the form holds both.
fn ctrl_g_form_app() -> App {
    let mut app = group_app();
    typed(&mut app, "Fix the flaky test");
    let effects = ctrl(&mut app, 'g');
    let last = request(ClientRequest::GroupLastAttempts(NoParams {}));
    assert_eq!(effects, vec![last.clone()]);
    answer_ok(
        &mut app,
        &last,
        LastAttemptsResult {
            attempts: Vec::new(),
            text: "claude, codex".into(),
        },
    );
    app
}

/// Regression: the form opened by Ctrl+G over a typed instruction took two Enters (the first
/// only moved to the instruction's field): with the list and the instruction both there, one
/// Enter starts the group, and the form is gone.
#[test]
fn ctrl_g_then_one_enter_starts_the_group() {
    let mut app = ctrl_g_form_app();
    let effects = press(&mut app, KeyCode::Enter);
    let create = request(ClientRequest::GroupCreate(CreateGroupParams {
        prompt: "Fix the flaky test".into(),
        attempts: vec![
            AttemptSpec::new("claude", None),
            AttemptSpec::new("codex", None),
        ],
        ..CreateGroupParams::default()
    }));
    assert_eq!(effects, vec![create]);
    assert!(!app.overlay_open());
    snapshots("form_ctrl_g_one_enter", || {
        let mut app = ctrl_g_form_app();
        press(&mut app, KeyCode::Enter);
        app
    });
    // Without an instruction, Enter in the list still goes on to the instruction's field.
    let mut app = group_app();
    ctrl(&mut app, 'g');
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert!(app.overlay_open());
    typed(&mut app, "Now the instruction");
    assert_eq!(press(&mut app, KeyCode::Enter).len(), 1);
    assert!(!app.overlay_open());
}

/// Regression: Ctrl+C did nothing while the form was open. It cancels the form as Esc does:
/// the form closes and what was typed as the instruction goes back to the composer (Ctrl+C
/// never quits codiva).
#[test]
fn ctrl_c_closes_the_form_as_esc_does() {
    let mut app = ctrl_g_form_app();
    assert!(ctrl(&mut app, 'c').is_empty());
    assert!(!app.overlay_open());
    assert_eq!(app.composer_mut().text(), "Fix the flaky test");
    snapshots("form_ctrl_c_closed", || {
        let mut app = ctrl_g_form_app();
        ctrl(&mut app, 'c');
        app
    });
}

#[test]
fn the_form_says_why_it_cannot_start() {
    snapshots("form_unknown_agent", || {
        let mut app = group_app();
        typed(&mut app, "/attempts claude, grok:fast");
        press(&mut app, KeyCode::Enter);
        typed(&mut app, "anything");
        press(&mut app, KeyCode::Enter);
        app
    });
    let mut app = group_app();
    typed(&mut app, "/attempts claude, gemini");
    press(&mut app, KeyCode::Enter);
    typed(&mut app, "anything");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    let text = screen(&mut app, 120, 40);
    assert!(
        text.contains("Gemini CLI is not installed: npm i -g gemini"),
        "{text}"
    );
    // A malformed item and no instruction are said too, and nothing starts.
    let mut app = group_app();
    typed(&mut app, "/attempts claude, :opus");
    press(&mut app, KeyCode::Enter);
    assert!(screen(&mut app, 120, 40).contains("“:opus” is not agent or agent:model"));
    let mut app = group_app();
    typed(&mut app, "/attempts claude");
    press(&mut app, KeyCode::Enter);
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert!(screen(&mut app, 120, 40).contains("type the instruction every attempt is given"));
}

fn figures(
    row: SessionInfo,
    spec: AttemptSpec,
    files: &[(&str, u64, u64)],
    commits: u64,
) -> AttemptFigures {
    let files: Vec<FileStat> = files
        .iter()
        .map(|(path, added, deleted)| FileStat {
            path: (*path).into(),
            old_path: None,
            added: Some(*added),
            deleted: Some(*deleted),
        })
        .collect();
    AttemptFigures {
        work: Some(WorkFigures {
            insertions: files.iter().filter_map(|f| f.added).sum(),
            deletions: files.iter().filter_map(|f| f.deleted).sum(),
            files,
            commits,
            uncommitted: 0,
        }),
        git_error: None,
        tokens: Some(TokenUsage {
            input: 1_200,
            output: 3_400,
            cache_read: 15_000,
            cache_creation: 0,
        }),
        duration_ms: row.active_ms,
        spec,
        session: row,
    }
}

fn compare_data(app: &App) -> GroupCompare {
    let row = |id: &str| app.sessions().iter().find(|s| s.id == id).cloned().unwrap();
    let mut opus = row("a3");
    opus.check = Some(check(CheckState::Passed, Some(0)));
    let mut codex = row("a2");
    codex.check = Some(check(CheckState::Failed, Some(1)));
    codex.cost_usd = None;
    GroupCompare {
        group: group(),
        attempts: vec![
            figures(
                row("a1"),
                AttemptSpec::new("claude", None),
                &[("src/health.rs", 42, 0), ("src/main.rs", 3, 1)],
                1,
            ),
            figures(
                codex,
                AttemptSpec::new("codex", None),
                &[("src/routes/health.rs", 58, 2)],
                0,
            ),
            AttemptFigures {
                tokens: None,
                ..figures(
                    opus,
                    AttemptSpec::new("claude", Some("opus".into())),
                    &[("src/health.rs", 37, 0), ("tests/health.rs", 20, 0)],
                    2,
                )
            },
        ],
    }
}

fn compare_app() -> App {
    let mut app = group_app();
    on_group_row(&mut app);
    let effects = press(&mut app, KeyCode::Char('c'));
    let ask = request(ClientRequest::GroupCompare(GroupParams {
        group_id: "g1".into(),
    }));
    assert_eq!(effects, vec![ask.clone()]);
    let data = compare_data(&app);
    answer_ok(&mut app, &ask, data);
    app
}

#[test]
fn the_compare_view() {
    snapshots("compare", compare_app);
    let mut app = compare_app();
    let text = screen(&mut app, 200, 60);
    for figure in [
        "+45 −1",
        "+58 −2",
        "+57 −0",
        "19.6k",
        "$0.05",
        "claude:opus",
    ] {
        assert!(text.contains(figure), "{figure}: {text}");
    }
    // A figure nobody reported is a dash, not a guess.
    let opus_row = text
        .lines()
        .find(|line| line.contains("claude:opus"))
        .unwrap();
    assert!(opus_row.contains('—'), "{opus_row}");
}

#[test]
fn the_compare_view_while_it_loads_and_at_narrow_widths() {
    let mut app = group_app();
    on_group_row(&mut app);
    press(&mut app, KeyCode::Char('c'));
    assert!(screen(&mut app, 80, 24).contains("reading the attempts' figures…"));
    let mut app = compare_app();
    for (width, height) in [(20, 6), (40, 10), (59, 12), (61, 12), (99, 30)] {
        let text = screen(&mut app, width, height);
        assert!(text.contains("claude"), "{width}×{height}: {text}");
    }
}

#[test]
fn an_attempts_diff_against_the_base_and_back_to_the_compare_view() {
    let mut app = compare_app();
    press(&mut app, KeyCode::Down);
    let effects = press(&mut app, KeyCode::Enter);
    let diff = request(ClientRequest::GroupDiff(AttemptDiffParams {
        session_id: "a2".into(),
        other: None,
        path: None,
    }));
    assert_eq!(effects, vec![diff.clone()]);
    answer_ok(
        &mut app,
        &diff,
        DiffText {
            text: "diff --git a/src/routes/health.rs b/src/routes/health.rs\n--- /dev/null\n+++ b/src/routes/health.rs\n@@ -0,0 +1 @@\n+pub fn health() {}\n".into(),
            truncated: false,
        },
    );
    let text = screen(&mut app, 120, 40);
    assert!(
        text.contains("Diff of codiva/add-health-a2 against main"),
        "{text}"
    );
    assert!(text.contains("+pub fn health() {}"), "{text}");
    press(&mut app, KeyCode::Esc);
    assert!(screen(&mut app, 120, 40).contains("Compare 3 attempts"));
}

#[test]
fn a_diff_between_two_attempts() {
    let mut app = compare_app();
    assert!(press(&mut app, KeyCode::Char('v')).is_empty());
    // The footer says what the next `v` does.
    assert!(
        screen(&mut app, 80, 24).contains("v on another: the diff from claude/claude-sonnet-4-5")
    );
    // `v` on the same one says to choose another.
    assert!(press(&mut app, KeyCode::Char('v')).is_empty());
    assert_eq!(
        app.notice(),
        Some((
            "choose another attempt than claude/claude-sonnet-4-5",
            false
        ))
    );
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let effects = press(&mut app, KeyCode::Char('v'));
    assert_eq!(
        effects,
        vec![request(ClientRequest::GroupDiff(AttemptDiffParams {
            session_id: "a3".into(),
            other: Some("a1".into()),
            path: None,
        }))]
    );
    let text = screen(&mut app, 120, 40);
    assert!(
        text.contains("Diff of codiva/add-health-a3 against codiva/add-health-a1"),
        "{text}"
    );
}

fn keep_preview() -> KeepOutcome {
    KeepOutcome::NeedsConfirmation {
        discard: vec![
            AttemptDiscard {
                session_id: "a1".into(),
                preview: DiscardPreview {
                    uncommitted: vec!["src/main.rs".into()],
                    unmerged_commits: vec!["abc1234 add health".into()],
                },
            },
            AttemptDiscard {
                session_id: "a2".into(),
                preview: DiscardPreview::default(),
            },
        ],
        confirm_token: "t-1".into(),
    }
}

fn keep(token: Option<&str>) -> Effect {
    request(ClientRequest::GroupKeep(KeepParams {
        group_id: "g1".into(),
        session_id: "a3".into(),
        confirm_token: token.map(str::to_owned),
    }))
}

fn keep_app() -> App {
    let mut app = compare_app();
    press(&mut app, KeyCode::End);
    let effects = press(&mut app, KeyCode::Char('k'));
    assert_eq!(effects, vec![keep(None)]);
    answer_ok(&mut app, &keep(None), keep_preview());
    app
}

#[test]
fn keep_one_asks_once_listing_the_others() {
    snapshots("keep_confirm", keep_app);
    let mut app = keep_app();
    let text = screen(&mut app, 200, 60);
    assert!(text.contains("Keep claude:opus for"), "{text}");
    assert!(
        text.contains(
            "✗ claude · codiva/add-health-a1: 1 uncommitted file archived · 1 commit archived"
        ),
        "{text}"
    );
    assert!(
        text.contains("✗ codex · codiva/add-health-a2: nothing uncommitted"),
        "{text}"
    );
    // `y` keeps it with the preview's token.
    assert_eq!(press(&mut app, KeyCode::Char('y')), vec![keep(Some("t-1"))]);
    let mut kept = group();
    kept.kept = Some("a3".into());
    let row = |id: &str| app.sessions().iter().find(|s| s.id == id).cloned().unwrap();
    let (a1, a2, a3) = (row("a1"), row("a2"), row("a3"));
    answer_ok(
        &mut app,
        &keep(Some("t-1")),
        KeepOutcome::Kept {
            group: kept,
            session: Box::new(a3),
            discarded: vec![a1, a2],
        },
    );
    assert!(!app.overlay_open());
    assert_eq!(
        app.notice(),
        Some((
            "kept claude:opus; 2 other attempts discarded (/restore brings one back)",
            false
        ))
    );
    // A kept group is a group no more: its sessions are listed as any others.
    let text = screen(&mut app, 200, 60);
    assert!(!text.contains("3 attempts:"), "{text}");
}

#[test]
fn keep_says_no_and_nothing_happens() {
    let mut app = keep_app();
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert!(app.overlay_open());
}

#[test]
fn a_member_that_changes_reads_the_figures_again() {
    let mut app = compare_app();
    let mut done = app
        .sessions()
        .iter()
        .find(|s| s.id == "a1")
        .cloned()
        .unwrap();
    done.status = Status::Completed;
    let effects = app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session: done.clone(),
    })));
    assert_eq!(
        effects,
        vec![request(ClientRequest::GroupCompare(GroupParams {
            group_id: "g1".into()
        }))]
    );
    // The same row again changes nothing.
    let effects = app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session: done,
    })));
    assert!(effects.is_empty(), "{effects:?}");
}

/// An instruction longer than any row, in Japanese and with controls and a bidi override.
fn long_instruction() -> String {
    format!(
        "{} 日本語の説明🎌\u{202e}\u{1b}[2J {}",
        "とても長い指示".repeat(20),
        "x".repeat(300)
    )
}

#[test]
fn long_and_multibyte_instructions_at_any_width() {
    let mut app = group_app();
    let mut long = group();
    long.instruction = long_instruction();
    // What another client named an attempt is shown without its controls.
    long.attempts[2].spec.model = Some("op\u{1b}[2Jus\u{202e}".into());
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Group {
        change: GroupChange::Changed,
        group: long,
    })));
    for (width, height) in [
        (1, 1),
        (10, 3),
        (30, 8),
        (59, 10),
        (60, 10),
        (80, 24),
        (200, 60),
    ] {
        let text = screen(&mut app, width, height);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
    }
    on_group_row(&mut app);
    let effects = press(&mut app, KeyCode::Char('c'));
    let mut data = compare_data(&app);
    data.group.instruction = long_instruction();
    answer_ok(&mut app, &effects[0], data);
    for (width, height) in [(1, 1), (10, 3), (30, 8), (80, 24)] {
        let text = screen(&mut app, width, height);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
    }
    insta::assert_snapshot!("long_instruction_80x24", draw(&mut app, 80, 24).backend());
}

#[test]
fn a_removed_group_lists_its_sessions_as_any_others() {
    let mut app = group_app();
    on_group_row(&mut app);
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::GroupRemoved {
        id: "g1".into(),
    })));
    let text = screen(&mut app, 200, 60);
    assert!(!text.contains("3 attempts:"), "{text}");
    assert!(!text.contains("├ "), "{text}");
    // Enter opens the session the selection fell to.
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.view, View::Detail(_)));
}

#[test]
fn the_compare_view_opens_on_the_attempt_selected_in_the_list() {
    let mut app = group_app();
    on_group_row(&mut app);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let effects = press(&mut app, KeyCode::Char('c'));
    let data = compare_data(&app);
    answer_ok(&mut app, &effects[0], data);
    assert_eq!(
        press(&mut app, KeyCode::Char('k')),
        vec![request(ClientRequest::GroupKeep(KeepParams {
            group_id: "g1".into(),
            session_id: "a2".into(),
            confirm_token: None,
        }))]
    );
    // ← on an attempt goes to its group's row; `c` there opens on the first attempt.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Left);
    let effects = press(&mut app, KeyCode::Char('c'));
    let data = compare_data(&app);
    answer_ok(&mut app, &effects[0], data);
    let text = screen(&mut app, 200, 60);
    let selected = text.lines().find(|line| line.contains("› claude")).unwrap();
    assert!(selected.contains("claude/claude-sonnet-4-5"), "{text}");
}

#[test]
fn the_form_at_narrow_widths_with_long_multibyte_text() {
    let mut app = group_app();
    typed(
        &mut app,
        "/attempts claude:とても長いモデル名🎌, codex, claude:opus",
    );
    press(&mut app, KeyCode::Enter);
    typed(&mut app, &"日本語の指示🎌 ".repeat(40));
    for (width, height) in [(1, 1), (8, 3), (20, 5), (40, 12), (80, 24)] {
        let text = screen(&mut app, width, height);
        assert!(
            width < 40 || text.contains("claude"),
            "{width}×{height}: {text}"
        );
    }
    insta::assert_snapshot!("form_long_40x12", draw(&mut app, 40, 12).backend());
}

#[test]
fn the_wheel_moves_over_the_attempts() {
    let mut app = compare_app();
    let wheel = |app: &mut App, kind: MouseEventKind| {
        app.handle(UiEvent::Mouse(MouseEvent {
            kind,
            column: 10,
            row: 5,
            modifiers: KeyModifiers::NONE,
        }))
    };
    wheel(&mut app, MouseEventKind::ScrollDown);
    wheel(&mut app, MouseEventKind::ScrollDown);
    wheel(&mut app, MouseEventKind::ScrollDown);
    assert_eq!(press(&mut app, KeyCode::Char('k')), vec![keep(None)]);
    wheel(&mut app, MouseEventKind::ScrollUp);
    let text = screen(&mut app, 200, 60);
    assert!(
        text.lines()
            .any(|line| line.starts_with("\"› codex/gpt-5.5")),
        "{text}"
    );
}

#[test]
fn the_compare_view_with_one_attempt_marked_for_a_diff() {
    snapshots("compare_marked", || {
        let mut app = compare_app();
        press(&mut app, KeyCode::Char('v'));
        press(&mut app, KeyCode::Down);
        app
    });
}

#[test]
fn a_session_view_says_its_check() {
    snapshots("session_check", || {
        let mut app = group_app();
        key(&mut app, KeyCode::Tab);
        key(&mut app, KeyCode::End);
        key(&mut app, KeyCode::Enter);
        app
    });
}
