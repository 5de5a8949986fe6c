//! Every request the app sends has an answer the app understands: one case per request (as the
//! app builds it), with a result of the method's declared type, and what the app shows after
//! that result and after a failure. The table must cover every method of the protocol that the
//! app sends — a method missing from it (and from the list of those it does not send) fails
//! here — and each case's request goes through the loop's sender (`run::requests::send`),
//! whose typed call checks that the result has the method's declared type.

use std::sync::Arc;

use codiva_client::{Backend, BoxFuture, Client, ClientError};
use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{DiffStat, DiffText, DiscardOutcome, DiscardPreview};
use codiva_protocol::params::{
    AgentsResult, ApprovalParams, CommitResult, CommitsResult, ConfigResult, FixCiResult,
    FullMessageResult, LoginStarted, PrResult, QuestionParams, RecoverItem, RecoverKind,
    RecoverParams, RecoverResult, ResumeParams, SessionResult, SyncResult,
};
use codiva_protocol::session::SessionSnapshot;
use codiva_tui::app::{App, Effect, Purpose};
use codiva_tui::i18n::{AppText, RepairText, ViewText, t, tf, with_lang};
use crossterm::event::KeyCode;
use serde_json::{Value, json};

use crate::support::*;

/// What the manager says when it fails a request in the table.
const FAILURE: &str = "the manager said no";

/// The protocol's requests the app never sends as a request of its own: the loop's log read
/// sends `session/read` (inside `Effect::ReadLog`), the binary sends the rest.
const NOT_SENT: &[&str] = &[
    "initialize",
    "session/list",
    "session/read",
    "session/setPermissionMode",
    "session/mcpReconnect",
    "manager/snapshot",
    "daemon/shutdown",
    // The check's output is for other clients (`serve`); the TUI shows the result.
    "session/checkOutput",
];

type Check = Box<dyn Fn(&mut App, &[Effect])>;

/// One request the app sends and what its answers do.
struct Case {
    /// The request, as the app builds it.
    effect: Effect,
    /// Brings the app to where it sent the request (a view open, a question asked).
    prepare: fn(&mut App),
    /// A result of the method's declared type.
    ok: Value,
    after_ok: Check,
    after_err: Check,
}

fn nothing(_: &mut App) {}

fn no_notice() -> Check {
    Box::new(|app, effects| {
        assert_eq!(app.notice(), None);
        assert!(effects.is_empty(), "{effects:?}");
    })
}

fn says(text: String) -> Check {
    Box::new(move |app, _| assert_eq!(app.notice(), Some((text.as_str(), false))))
}

/// The failure in the notice line, as an error.
fn failure_said() -> Check {
    Box::new(|app, effects| {
        assert_eq!(app.notice(), Some((FAILURE, true)));
        assert!(effects.is_empty(), "{effects:?}");
    })
}

/// `y` now sends `effect` (the question the answer asked is up).
fn yes_sends(effect: Effect) -> Check {
    Box::new(move |app, _| {
        assert_eq!(press(app, KeyCode::Char('y')), vec![effect.clone()]);
    })
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(codiva_tui::app::UiEvent::Key(
        crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::NONE),
    ))
}

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    typed(app, line);
    press(app, KeyCode::Enter)
}

fn screen(app: &mut App) -> String {
    format!("{}", draw(app, 120, 40).backend())
}

fn value(result: impl serde::Serialize) -> Value {
    serde_json::to_value(result).unwrap()
}

/// The row of `ask-perm`, the open session of [`detail_app`].
fn row() -> codiva_protocol::manager::SessionInfo {
    detail_app()
        .sessions()
        .iter()
        .find(|s| s.id == "ask-perm")
        .cloned()
        .unwrap()
}

fn stat(ahead: u64, uncommitted: &[&str]) -> DiffStat {
    DiffStat {
        commits_ahead: ahead,
        uncommitted: uncommitted
            .iter()
            .map(|path| codiva_protocol::manager::StatusEntry {
                status: "??".into(),
                path: (*path).into(),
                orig_path: None,
            })
            .collect(),
        ..DiffStat::default()
    }
}

/// A request whose success shows through the events that follow: no notice; a failure is said.
fn quiet(effect: Effect) -> Case {
    Case {
        effect,
        prepare: nothing,
        ok: json!({}),
        after_ok: no_notice(),
        after_err: failure_said(),
    }
}

fn cases() -> Vec<Case> {
    let id = "ask-perm";
    let session = row();
    let pr = PrResult {
        pr: codiva_protocol::github::SessionPr {
            number: 7,
            url: "https://github.com/o/r/pull/7".into(),
            own: true,
            view: None,
        },
        created: true,
    };
    let fix_ci = FixCiResult {
        pr: 7,
        checks: vec!["test".into()],
        log_bytes: 2048,
        log_truncated: false,
        message: String::new(),
    };
    let committed = CommitResult {
        commit: Some("9f2c01ab5e7d".into()),
        files: 2,
        asked_agent: false,
        message: String::new(),
    };
    let plan = RecoverResult {
        items: vec![RecoverItem {
            session_id: id.into(),
            kind: RecoverKind::FixCi,
            ok: None,
            message: String::new(),
        }],
        succeeded: 0,
        failed: 0,
    };
    let mut recovered = plan.clone();
    recovered.items[0].ok = Some(true);
    recovered.succeeded = 1;
    let preview = DiscardOutcome::NeedsConfirmation {
        preview: DiscardPreview {
            uncommitted: vec!["notes.txt".into()],
            unmerged_commits: Vec::new(),
        },
        confirm_token: "token-1".into(),
    };
    let config = ConfigResult {
        path: "~/.config/codiva/config.toml".into(),
        fields: Vec::new(),
    };
    let agents = AgentsResult {
        agents: vec![crate::views::availability(
            "claude",
            "Claude Code",
            true,
            true,
            "",
        )],
    };
    let session_result = SessionResult {
        session: session.clone(),
    };
    vec![
        // The new row comes as an event.
        Case {
            ok: value(&session_result),
            ..quiet(create("Fix the login"))
        },
        quiet(request(ClientRequest::SessionSend(SendParams {
            session_id: id.into(),
            text: "go on".into(),
            images: Vec::new(),
        }))),
        quiet(request(ClientRequest::SessionInterrupt(sid(id)))),
        quiet(request(ClientRequest::SessionResume(ResumeParams {
            session_id: id.into(),
            text: None,
        }))),
        quiet(respond(id, "r1", "allow_once", None)),
        quiet(request(ClientRequest::SessionAnswerQuestion(
            QuestionParams {
                session_id: id.into(),
                request_id: "q1".into(),
                answers: Default::default(),
                decline: true,
                message: None,
            },
        ))),
        quiet(request(ClientRequest::SessionSetApprovalPolicy(
            ApprovalParams {
                session_id: None,
                policy: ApprovalPolicy::AllowAll,
            },
        ))),
        quiet(request(ClientRequest::AgentsLoginInput(LoginInputParams {
            login_id: "login-1".into(),
            text: "code".into(),
        }))),
        quiet(request(ClientRequest::AgentsLoginCancel(LoginIdParams {
            login_id: "login-1".into(),
        }))),
        Case {
            effect: request(ClientRequest::SessionSetAgent(AgentParams {
                session_id: id.into(),
                agent: "codex".into(),
            })),
            prepare: nothing,
            ok: json!({}),
            after_ok: says(tf(AppText::InfoAgentSet, &[id, "codex"])),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionSetModel(ModelParams {
                session_id: id.into(),
                model: None,
            })),
            prepare: nothing,
            ok: json!({}),
            after_ok: says(tf(AppText::InfoModelSet, &[id, t(AppText::DefaultModel)])),
            after_err: failure_said(),
        },
        // The pane is rebuilt from the snapshot, or says it could not be had; no notice.
        Case {
            effect: request(ClientRequest::SessionSnapshot(sid(id))),
            prepare: nothing,
            ok: value(SessionSnapshot::initial()),
            after_ok: no_notice(),
            after_err: no_notice(),
        },
        Case {
            effect: request(ClientRequest::SessionDiffText(sid(id))),
            prepare: |app| {
                command(app, "/diff");
            },
            ok: value(DiffText {
                text: "diff --git a/src/answer.rs b/src/answer.rs\n+fn answer() {}\n".into(),
                truncated: false,
            }),
            after_ok: Box::new(|app, _| assert!(screen(app).contains("src/answer.rs"))),
            after_err: failure_said(),
        },
        // The whole message, or why not, is shown in its view (`full_message.rs`): no notice.
        Case {
            effect: request(ClientRequest::SessionFullMessage(FullMessageParams {
                session_id: id.into(),
                entry: 1,
                subagent: None,
            })),
            prepare: nothing,
            ok: value(FullMessageResult {
                text: "the whole text".into(),
            }),
            after_ok: no_notice(),
            after_err: no_notice(),
        },
        Case {
            effect: diff_for(id, Purpose::MergePreview),
            prepare: nothing,
            ok: value(stat(2, &[])),
            after_ok: yes_sends(request(ClientRequest::SessionMerge(sid(id)))),
            after_err: failure_said(),
        },
        Case {
            effect: diff_for(id, Purpose::PrPreview),
            prepare: nothing,
            ok: value(stat(2, &[])),
            after_ok: yes_sends(request(ClientRequest::SessionPr(sid(id)))),
            after_err: failure_said(),
        },
        // The session view's uncommitted line; a session without a worktree has none, unsaid.
        Case {
            effect: diff_for(id, Purpose::Uncommitted),
            prepare: nothing,
            ok: value(stat(0, &["src/answer.rs"])),
            after_ok: Box::new(|app, _| assert!(screen(app).contains("1 uncommitted"))),
            after_err: Box::new(|app, effects| {
                assert_eq!(app.notice(), None);
                assert!(effects.is_empty());
                assert!(!screen(app).contains("uncommitted"));
            }),
        },
        Case {
            effect: request(ClientRequest::SessionRestore(sid(id))),
            prepare: nothing,
            ok: value(&session_result),
            after_ok: says(tf(ViewText::InfoRestored, &[&session.title])),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionRename(RenameParams {
                session_id: id.into(),
                title: session.title.clone(),
            })),
            prepare: nothing,
            ok: value(&session_result),
            after_ok: says(tf(ViewText::InfoRenamed, &[&session.title])),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionMerge(sid(id))),
            prepare: nothing,
            ok: value(&session_result),
            after_ok: says(tf(AppText::InfoMerged, &[&session.branch, &session.base])),
            after_err: failure_said(),
        },
        Case {
            effect: discard(id, false, None),
            prepare: nothing,
            ok: value(&preview),
            after_ok: yes_sends(discard(id, false, Some("token-1"))),
            after_err: failure_said(),
        },
        Case {
            effect: discard(id, false, Some("token-1")),
            prepare: nothing,
            ok: value(DiscardOutcome::Discarded {
                session: Box::new(session.clone()),
            }),
            after_ok: says(tf(AppText::InfoDiscardedRestorable, &[id])),
            after_err: failure_said(),
        },
        Case {
            effect: discard(id, true, None),
            prepare: nothing,
            ok: value(&preview),
            after_ok: yes_sends(discard(id, true, Some("token-1"))),
            after_err: failure_said(),
        },
        Case {
            effect: discard(id, true, Some("token-1")),
            prepare: nothing,
            ok: value(DiscardOutcome::Removed { id: id.into() }),
            after_ok: says(tf(AppText::InfoRemoved, &[id])),
            after_err: failure_said(),
        },
        // A review's changes show by the session's row; only a failure says something.
        Case {
            ok: value(codiva_protocol::review::ReviewResult {
                comments: Vec::new(),
            }),
            ..quiet(request(ClientRequest::ReviewAdd(
                codiva_protocol::review::ReviewAddParams {
                    session_id: id.into(),
                    anchor: codiva_protocol::review::ReviewAnchor {
                        path: "src/a.rs".into(),
                        side: codiva_protocol::review::DiffSide::New,
                        start_line: 2,
                        end_line: 3,
                    },
                    lines: vec!["+a".into(), "+b".into()],
                    body: "Say why.".into(),
                },
            )))
        },
        Case {
            ok: value(codiva_protocol::review::ReviewResult {
                comments: Vec::new(),
            }),
            ..quiet(request(ClientRequest::ReviewEdit(
                codiva_protocol::review::ReviewEditParams {
                    session_id: id.into(),
                    comment_id: "c1".into(),
                    body: "Say why, please.".into(),
                },
            )))
        },
        Case {
            ok: value(codiva_protocol::review::ReviewResult {
                comments: Vec::new(),
            }),
            ..quiet(request(ClientRequest::ReviewRemove(
                codiva_protocol::review::ReviewRemoveParams {
                    session_id: id.into(),
                    comment_id: "c1".into(),
                },
            )))
        },
        Case {
            effect: request(ClientRequest::ReviewSend(sid(id))),
            prepare: nothing,
            ok: value(codiva_protocol::review::ReviewSendResult {
                sent: 2,
                cut_bytes: 512,
            }),
            after_ok: says(tf(codiva_tui::i18n::ReviewText::SentCut, &["2", "512"])),
            after_err: failure_said(),
        },
        // One subject a line under the count ("2 commits", "1 commit"), newest first.
        Case {
            effect: request(ClientRequest::SessionCommits(sid(id))),
            prepare: nothing,
            ok: value(CommitsResult {
                subjects: vec!["Second step".into(), "First step".into()],
                more: true,
            }),
            after_ok: says(
                [
                    format!(
                        "2 commits on {} that {} lacks:",
                        session.branch, session.base
                    ),
                    "• Second step".to_owned(),
                    "• First step".to_owned(),
                    t(codiva_tui::i18n::CommandText::CommitsMore).to_owned(),
                ]
                .join("\n"),
            ),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionSync(sid(id))),
            prepare: nothing,
            ok: value(SyncResult {
                message: "rebased on main".into(),
            }),
            after_ok: says("rebased on main".into()),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionPr(sid(id))),
            prepare: nothing,
            ok: value(&pr),
            after_ok: says(codiva_tui::pr_cell::opened(&pr)),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionFixCi(sid(id))),
            prepare: nothing,
            ok: value(&fix_ci),
            after_ok: says(tf(RepairText::FixCiSent, &["1", "7", "2048"])),
            after_err: failure_said(),
        },
        // How many threads went, and how many did not fit.
        Case {
            effect: request(ClientRequest::SessionAddressReview(sid(id))),
            prepare: nothing,
            ok: json!({"pr": 7, "threads": 2, "left_out": 1, "review_bytes": 900,
                       "truncated": true, "message": "sent 2 review threads of #7"}),
            after_ok: says(format!(
                "{} · {}",
                tf(RepairText::ReviewSent, &["2", "7", "900"]),
                tf(RepairText::ReviewLeftOut, &["1"])
            )),
            after_err: failure_said(),
        },
        // Said, and the files are looked up again.
        Case {
            effect: commit(id, Some("Fix")),
            prepare: nothing,
            ok: value(&committed),
            after_ok: Box::new(move |app, effects| {
                let text = tf(RepairText::Committed, &["2", "9f2c01ab"]);
                assert_eq!(app.notice(), Some((text.as_str(), false)));
                assert_eq!(effects, [diff_for(id, Purpose::Uncommitted)]);
            }),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionRecover(RecoverParams {
                dry_run: true,
            })),
            prepare: nothing,
            ok: value(&plan),
            after_ok: yes_sends(request(ClientRequest::SessionRecover(RecoverParams {
                dry_run: false,
            }))),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionRecover(RecoverParams {
                dry_run: false,
            })),
            prepare: nothing,
            ok: value(&recovered),
            after_ok: says(tf(RepairText::Recovered, &["1", "1"])),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::ConfigRead(NoParams {})),
            prepare: nothing,
            ok: value(&config),
            after_ok: Box::new(|app, _| assert!(app.overlay_open())),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::ConfigSet(ConfigSetParams {
                key: "model".into(),
                value: "opus".into(),
            })),
            prepare: nothing,
            ok: value(&config),
            after_ok: Box::new(|app, _| {
                assert!(app.overlay_open());
                let text = tf(
                    ViewText::ConfigSaved,
                    &["model", "~/.config/codiva/config.toml"],
                );
                assert_eq!(app.notice(), Some((text.as_str(), false)));
            }),
            after_err: failure_said(),
        },
        // A login that could not start closes its view with the reason.
        Case {
            effect: request(ClientRequest::AgentsLogin(LoginParams {
                agent: "claude".into(),
            })),
            prepare: |app| {
                command(app, "/login");
            },
            ok: value(LoginStarted {
                login_id: "login-1".into(),
            }),
            after_ok: Box::new(|app, _| {
                assert!(app.overlay_open());
                assert_eq!(app.notice(), None);
            }),
            after_err: Box::new(|app, _| {
                assert!(!app.overlay_open());
                assert_eq!(app.notice(), Some((FAILURE, true)));
            }),
        },
        // Every agent's availability; a failed check changes nothing and says nothing.
        Case {
            effect: request(ClientRequest::AgentsList(NoParams {})),
            prepare: nothing,
            ok: value(&agents),
            after_ok: Box::new(move |app, _| assert_eq!(app.info.agents, agents.agents)),
            after_err: Box::new(|app, effects| {
                assert!(app.info.agents.is_empty());
                assert_eq!(app.notice(), None);
                assert!(effects.is_empty());
            }),
        },
    ]
    .into_iter()
    .chain(attempt_cases(&session))
    .chain(history_cases(&session))
    .collect()
}

/// `/history`'s requests (`tests/tui/outside.rs` has their views).
fn history_cases(session: &codiva_protocol::manager::SessionInfo) -> Vec<Case> {
    use codiva_protocol::outside::{
        AdoptPlace, HistoryAdoptParams, HistoryListParams, HistoryReadResult,
        OutsideConversationRef,
    };
    use codiva_tui::i18n::OutsideText;
    vec![
        // The list fills the open view; a failure is said inside it.
        Case {
            effect: request(ClientRequest::HistoryList(HistoryListParams::default())),
            prepare: |app| {
                command(app, "/history");
            },
            ok: value(outside_list()),
            after_ok: Box::new(|app, effects| {
                assert!(effects.is_empty(), "{effects:?}");
                assert!(screen(app).contains("Fix the flaky login test"));
            }),
            after_err: Box::new(|app, _| {
                let text = screen(app);
                assert!(
                    text.contains(&tf(OutsideText::CannotList, &[FAILURE])),
                    "{text}"
                );
            }),
        },
        // The conversation opens read-only; a failure is said in its place.
        Case {
            effect: request(ClientRequest::HistoryRead(OutsideConversationRef {
                agent: "claude".into(),
                id: "c1".into(),
                cwd: "/work/repo".into(),
            })),
            prepare: history_open,
            ok: value(HistoryReadResult {
                entries: vec![log(
                    1,
                    codiva_protocol::log::EntryKind::Assistant {
                        text: "The flaky test raced the cookie.".into(),
                    },
                )],
                skipped_bytes: 0,
                dropped_entries: 0,
            }),
            after_ok: Box::new(|app, _| {
                assert!(screen(app).contains("The flaky test raced the cookie."));
            }),
            after_err: Box::new(|app, _| {
                let text = screen(app);
                assert!(
                    text.contains(&tf(OutsideText::CannotRead, &[FAILURE])),
                    "{text}"
                );
            }),
        },
        // The adopted session opens; a refusal is said and the view stays.
        Case {
            effect: request(ClientRequest::HistoryAdopt(HistoryAdoptParams {
                agent: "claude".into(),
                id: "c1".into(),
                cwd: "/work/repo".into(),
                place: AdoptPlace::InPlace,
            })),
            prepare: history_listed,
            ok: value(SessionResult {
                session: session.clone(),
            }),
            after_ok: Box::new(|app, _| {
                assert!(!app.overlay_open());
                assert!(app.notice().is_some_and(
                    |(text, error)| !error && text.contains("continues the conversation")
                ));
            }),
            after_err: Box::new(|app, _| {
                assert!(app.overlay_open());
                assert_eq!(
                    app.notice(),
                    Some((tf(OutsideText::CannotAdopt, &[FAILURE]).as_str(), true))
                );
            }),
        },
    ]
}

fn outside_list() -> codiva_protocol::outside::HistoryListResult {
    codiva_protocol::outside::HistoryListResult {
        conversations: vec![codiva_protocol::outside::OutsideConversation {
            agent: "claude".into(),
            id: "c1".into(),
            cwd: "/work/repo".into(),
            modified_ms: 1_796_628_600_000,
            size_bytes: 48_213,
            first_instruction: Some("Fix the flaky login test".into()),
        }],
        more: false,
        unavailable: Vec::new(),
    }
}

/// `/history` open with its list.
fn history_listed(app: &mut App) {
    let effects = command(app, "/history");
    answer_ok(app, &effects[0], value(outside_list()));
}

/// `/history`'s first conversation opened.
fn history_open(app: &mut App) {
    history_listed(app);
    press(app, KeyCode::Enter);
}

/// The attempts' requests (`attempts.rs` has their views).
fn attempt_cases(session: &codiva_protocol::manager::SessionInfo) -> Vec<Case> {
    use codiva_protocol::group::{
        Attempt, AttemptDiffParams, AttemptSpec, CheckRun, CheckState, CheckTrigger,
        CreateGroupParams, GroupCompare, GroupInfo, GroupParams, GroupResult, KeepOutcome,
        KeepParams, LastAttemptsResult, RunCheckResult,
    };
    use codiva_tui::i18n::AttemptText;
    let group = GroupInfo {
        id: "g1".into(),
        instruction: "Fix the login".into(),
        attempts: vec![Attempt {
            session_id: session.id.clone(),
            spec: AttemptSpec::new("claude", None),
        }],
        created_at: 0,
        kept: None,
    };
    let keep = |token: Option<&str>| {
        request(ClientRequest::GroupKeep(KeepParams {
            group_id: "g1".into(),
            session_id: session.id.clone(),
            confirm_token: token.map(str::to_owned),
        }))
    };
    vec![
        // The group's rows come as events; the answer says it started.
        Case {
            effect: request(ClientRequest::GroupCreate(CreateGroupParams {
                prompt: "Fix the login".into(),
                attempts: vec![AttemptSpec::new("claude", None)],
                ..CreateGroupParams::default()
            })),
            prepare: nothing,
            ok: value(GroupResult {
                group: group.clone(),
                sessions: Vec::new(),
            }),
            after_ok: says(tf(AttemptText::Started, &["1", "claude"])),
            after_err: failure_said(),
        },
        // The repository's last list fills the open form; without one the form keeps its own.
        Case {
            effect: request(ClientRequest::GroupLastAttempts(NoParams {})),
            prepare: |app| {
                press(app, KeyCode::Esc);
                command(app, "/attempts");
            },
            ok: value(LastAttemptsResult {
                attempts: vec![AttemptSpec::new("codex", Some("gpt-5.5".into()))],
                text: "codex:gpt-5.5".into(),
            }),
            after_ok: Box::new(|app, _| assert!(screen(app).contains("› codex:gpt-5.5"))),
            after_err: Box::new(|app, _| {
                assert!(screen(app).contains("› claude"));
                assert_eq!(app.notice(), None);
            }),
        },
        // The figures fill the compare view (none is open here: nothing to show).
        Case {
            effect: request(ClientRequest::GroupCompare(GroupParams {
                group_id: "g1".into(),
            })),
            prepare: nothing,
            ok: value(GroupCompare {
                group: group.clone(),
                attempts: Vec::new(),
            }),
            after_ok: no_notice(),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::GroupDiff(AttemptDiffParams {
                session_id: session.id.clone(),
                other: None,
                path: None,
            })),
            prepare: nothing,
            ok: value(DiffText {
                text: String::new(),
                truncated: false,
            }),
            after_ok: no_notice(),
            after_err: failure_said(),
        },
        // The preview asks once; `y` keeps with its token.
        Case {
            effect: keep(None),
            prepare: nothing,
            ok: value(KeepOutcome::NeedsConfirmation {
                discard: Vec::new(),
                confirm_token: "k-1".into(),
            }),
            after_ok: yes_sends(keep(Some("k-1"))),
            after_err: failure_said(),
        },
        Case {
            effect: request(ClientRequest::SessionRunCheck(sid(&session.id))),
            prepare: nothing,
            ok: value(RunCheckResult {
                check: CheckRun {
                    state: CheckState::Running,
                    command: "cargo test -q".into(),
                    started_at: 0,
                    duration_ms: None,
                    exit_code: None,
                    signal: None,
                    detail: None,
                    trigger: CheckTrigger::Requested,
                },
            }),
            after_ok: says(tf(AttemptText::CheckStarted, &["cargo test -q"])),
            after_err: failure_said(),
        },
    ]
}

fn method(effect: &Effect) -> &'static str {
    match effect {
        Effect::Request { request, .. } => request.method(),
        other => panic!("not a request: {other:?}"),
    }
}

#[test]
fn every_request_the_app_sends_has_its_answers_understood() {
    with_lang(Lang::En, || {
        for case in cases() {
            // Named on stderr, which a failing test shows.
            eprintln!("answering {}", method(&case.effect));
            let mut app = detail_app();
            (case.prepare)(&mut app);
            let effects = answer_ok(&mut app, &case.effect, case.ok.clone());
            (case.after_ok)(&mut app, &effects);

            let mut app = detail_app();
            (case.prepare)(&mut app);
            let effects = answer_err(&mut app, &case.effect, refused(FAILURE));
            (case.after_err)(&mut app, &effects);
        }
    });
}

#[test]
fn the_table_covers_every_request_the_app_can_send() {
    let cases = cases();
    let covered: Vec<&str> = cases.iter().map(|case| method(&case.effect)).collect();
    for method in codiva_protocol::ClientRequest::METHODS {
        assert!(
            covered.contains(method) || NOT_SENT.contains(method),
            "{method}: a request of the protocol that this table does not know — add a case \
             (and its answer to App::answered or list it \
             in NOT_SENT"
        );
    }
    for method in NOT_SENT {
        assert!(!covered.contains(method), "{method} is sent after all");
    }
}

/// A backend that answers every request with one result.
struct Answering(Value);

impl Backend for Answering {
    fn request(
        &self,
        _request: codiva_protocol::ClientRequest,
    ) -> BoxFuture<Result<Value, ClientError>> {
        let value = self.0.clone();
        Box::pin(async move { Ok(value) })
    }

    fn events(&self) -> tokio::sync::broadcast::Receiver<codiva_protocol::manager::SequencedEvent> {
        tokio::sync::broadcast::channel(1).1
    }
}

#[tokio::test]
async fn the_loop_sends_every_request_of_the_table_and_its_result_has_the_declared_type() {
    for case in cases() {
        let Effect::Request { request, .. } = case.effect else {
            unreachable!()
        };
        let method = request.method();
        let client = Client::new(Arc::new(Answering(case.ok.clone())));
        let result = codiva_tui::run::requests::send(&client, request).await;
        assert_eq!(result, Ok(case.ok), "{method}");
    }
}

/// A snapshot of a session the list no longer has is dropped.
#[test]
fn a_snapshot_of_a_session_gone_meanwhile_changes_nothing() {
    let mut app = detail_app();
    let before = screen(&mut app);
    let effects = snapshot_arrived(&mut app, "gone", SessionSnapshot::initial());
    assert!(effects.is_empty());
    assert!(app.sessions().iter().all(|s| s.id != "gone"));
    assert_eq!(screen(&mut app), before);
}
