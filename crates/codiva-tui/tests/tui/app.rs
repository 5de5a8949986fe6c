//! Whole-screen snapshots of the app: the list in every state, the detail view with dialogs,
//! the palette, a confirmation, at 80×24, 120×40 and a narrow terminal.

use codiva_protocol::agent::{PermissionRequest, Question, QuestionOption, QuestionRequest};
use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::session::{Prompt, Scope, SessionEvent, Status};
use codiva_tui::app::{App, UiEvent};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

use crate::support::*;

#[test]
fn list_empty() {
    let mut app = App::new(info());
    snapshot_at_both_sizes!(&mut app, "list_empty");
}

#[test]
fn list_with_every_status() {
    let mut app = busy_app();
    snapshot_at_both_sizes!(&mut app, "list_every_status");
    insta::assert_snapshot!(
        "list_every_status_200x30",
        draw(&mut app, 200, 30).backend()
    );
    insta::assert_snapshot!(
        "list_every_status_narrow_50x20",
        draw(&mut app, 50, 20).backend()
    );
}

#[test]
fn list_scrolls_with_more_markers() {
    let mut app = App::new(info());
    for index in 0..30 {
        add(
            &mut app,
            session(
                &format!("s{index:02}"),
                &format!("Session number {index}"),
                Status::Completed,
                SessionPhase::Active,
                index,
            ),
        );
    }
    // Focus the list and walk down.
    key(&mut app, KeyCode::Tab);
    for _ in 0..15 {
        key(&mut app, KeyCode::Down);
    }
    snapshot_at_both_sizes!(&mut app, "list_scrolled");
}

#[test]
fn palette_shows_only_commands_of_the_view() {
    let mut app = busy_app();
    typed(&mut app, "/");
    snapshot_at_both_sizes!(&mut app, "palette_list");
    typed(&mut app, "c");
    insta::assert_snapshot!(
        "palette_list_filtered_80x24",
        draw(&mut app, 80, 24).backend()
    );
}

#[test]
fn detail_with_a_permission_dialog_with_a_diff() {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: Prompt::Permission(as_claude(PermissionRequest {
                request_id: "r1".into(),
                tool: "Edit".into(),
                view: Default::default(),
                options: Vec::new(),
                input: json!({"file_path": "/work/app/src/config.rs",
                "old_string": "fn load() -> Config {\n    parse(read())\n}",
                "new_string": "fn load() -> Result<Config> {\n    let text = read()?;\n    parse(&text)\n}"}),
                description: None,
                suggestions: vec![
                    json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"}),
                ],
                tool_use_id: Some("t2".into()),
                agent_id: None,
                blocked_path: None,
                reason: None,
            })),
        },
    );
    snapshot_at_both_sizes!(&mut app, "detail_permission_diff");
}

#[test]
fn detail_with_a_multi_select_question() {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: Prompt::Question(QuestionRequest {
                request_id: "q1".into(),
                questions: vec![Question {
                    question: "Which modules should get tests?".into(),
                    header: Some("Tests".into()),
                    multi_select: true,
                    options: ["parse", "validate", "defaults", "全部 (all)"]
                        .iter()
                        .map(|label| QuestionOption {
                            label: (*label).into(),
                            description: Some(format!("tests for {label}")),
                        })
                        .collect(),
                }],
                input: json!({}),
                tool_use_id: None,
            }),
        },
    );
    // The question that appeared waits for the user to move to it.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('\u{3000}'));
    snapshot_at_both_sizes!(&mut app, "detail_question_multi");
}

#[test]
fn detail_streaming_a_long_reply_follows_the_tail() {
    let mut app = detail_app();
    let mut text = String::new();
    for line in 0..500 {
        // A hard break: one row a line, Markdown while streaming as after.
        text.push_str(&format!("streamed line {line} 日本語 🎌  \n"));
    }
    event(
        &mut app,
        "ask-perm",
        SessionEvent::Stream { text, reset: false },
    );
    snapshot_at_both_sizes!(&mut app, "detail_streaming_500");
}

#[test]
fn log_entries_of_subagents_stay_out_of_the_main_log() {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::Log {
            scope: Scope::Subagent("agent-1".into()),
            entry: log(
                10,
                EntryKind::Assistant {
                    text: "SUBAGENT TEXT".into(),
                },
            ),
            update: false,
            dropped: 0,
        },
    );
    let terminal = draw(&mut app, 80, 24);
    let screen = format!("{}", terminal.backend());
    assert!(!screen.contains("SUBAGENT TEXT"));
}

fn connect(app: &mut App, id: &str, subscription: Option<&str>) {
    use codiva_protocol::agent::{Account, AgentInfo, CommandInfo};
    event(
        app,
        id,
        SessionEvent::Connected {
            agent: AgentInfo {
                version: Some("2.1.332".into()),
                models: Vec::new(),
                commands: vec![
                    CommandInfo {
                        name: "compact".into(),
                        description: Some("Clear history but keep a summary".into()),
                        argument_hint: None,
                    },
                    CommandInfo {
                        name: "context".into(),
                        description: Some("Show context usage".into()),
                        argument_hint: None,
                    },
                ],
                account: Some(Account {
                    api_key_source: subscription.is_none().then(|| "ANTHROPIC_API_KEY".into()),
                    token_source: None,
                    api_provider: Some("firstParty".into()),
                    email: None,
                    subscription: subscription.map(Into::into),
                }),
                permission_mode: Some(codiva_protocol::tool::PermissionMode::Default),
            },
        },
    );
}

fn usage(app: &mut App, id: &str, cost: Option<f64>) {
    use codiva_protocol::agent::TokenUsage;
    use codiva_protocol::session::UsageView;
    event(
        app,
        id,
        SessionEvent::Usage {
            usage: UsageView {
                tokens: TokenUsage {
                    input: 84_200,
                    output: 3_100,
                    cache_read: 0,
                    cache_creation: 0,
                },
                context_used: 84_200,
                context_window: Some(200_000),
                cost_usd: cost,
            },
        },
    );
}

#[test]
fn status_bar_with_and_without_cost() {
    let mut app = detail_app();
    connect(&mut app, "ask-perm", None);
    usage(&mut app, "ask-perm", Some(0.4213));
    insta::assert_snapshot!("status_bar_cost_120x40", draw(&mut app, 120, 40).backend());
    let mut app = detail_app();
    connect(&mut app, "ask-perm", Some("Claude Max"));
    usage(&mut app, "ask-perm", Some(0.4213));
    let terminal = draw(&mut app, 120, 40);
    let screen = format!("{}", terminal.backend());
    assert!(!screen.contains("$0.42"), "no cost on a subscription");
    insta::assert_snapshot!(
        "status_bar_subscription_80x24",
        draw(&mut app, 80, 24).backend()
    );
}

#[test]
fn inbox_walks_waiting_sessions_oldest_first_without_opening_them() {
    let mut app = busy_app();
    event(
        &mut app,
        "ask-q",
        SessionEvent::PromptOpened {
            prompt: permission("r-old", "make test"),
        },
    );
    event(
        &mut app,
        "ask-perm",
        SessionEvent::PromptOpened {
            prompt: permission("r-new", "cargo fmt"),
        },
    );
    assert_eq!(app.inbox(), ["ask-q", "ask-perm"]);
    let ctrl_n = KeyEvent::new(KeyCode::Char('n'), KeyModifiers::CONTROL);
    app.handle(UiEvent::Key(ctrl_n));
    assert_eq!(
        app.view,
        codiva_tui::app::View::List,
        "the inbox does not open the session"
    );
    snapshot_at_both_sizes!(&mut app, "inbox_first");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, [respond("ask-q", "r-old", "allow_once", None)]);
    event(
        &mut app,
        "ask-q",
        SessionEvent::PromptClosed {
            request_id: "r-old".into(),
            resolution: codiva_protocol::session::PromptResolution::Allowed,
        },
    );
    app.handle(UiEvent::Key(ctrl_n));
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, [respond("ask-perm", "r-new", "allow_once", None)]);
}

#[test]
fn agent_commands_are_offered_and_forwarded() {
    let mut app = detail_app();
    connect(&mut app, "ask-perm", None);
    typed(&mut app, "/co");
    snapshot_at_both_sizes!(&mut app, "palette_agent_commands");
    typed(&mut app, "mpact");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    assert_eq!(
        effects,
        [request(ClientRequest::SessionSend(SendParams {
            session_id: "ask-perm".into(),
            text: "/compact".into(),
            images: Vec::new(),
        }))]
    );
}

#[test]
fn japanese_screens() {
    use codiva_protocol::lang::Lang;
    use codiva_tui::i18n::with_lang;
    with_lang(Lang::Ja, || {
        let mut app = busy_app();
        snapshot_at_both_sizes!(&mut app, "ja_list");
        let mut app = detail_app();
        connect(&mut app, "ask-perm", None);
        usage(&mut app, "ask-perm", Some(0.12));
        insta::assert_snapshot!("ja_detail_120x40", draw(&mut app, 120, 40).backend());
        event(
            &mut app,
            "ask-perm",
            SessionEvent::PromptOpened {
                prompt: permission("r-ja", "cargo test"),
            },
        );
        insta::assert_snapshot!("ja_permission_80x24", draw(&mut app, 80, 24).backend());
        // The agent withdraws it (this client did not answer it: an answer from elsewhere would
        // add "resolved by another client", see notices.rs).
        event(
            &mut app,
            "ask-perm",
            SessionEvent::PromptClosed {
                request_id: "r-ja".into(),
                resolution: codiva_protocol::session::PromptResolution::Withdrawn,
            },
        );
        event(
            &mut app,
            "ask-perm",
            SessionEvent::PromptOpened {
                prompt: Prompt::Question(QuestionRequest {
                    request_id: "q-ja".into(),
                    questions: vec![Question {
                        question: "どの言語で書きますか？".into(),
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
                }),
            },
        );
        insta::assert_snapshot!("ja_question_80x24", draw(&mut app, 80, 24).backend());
    });
}

#[test]
fn when_the_dialog_closes_the_keys_return_to_the_composer() {
    let mut app = busy_app();
    event(
        &mut app,
        "ask-q",
        SessionEvent::PromptOpened {
            prompt: permission("r1", "make"),
        },
    );
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('n'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(app.focus, codiva_tui::app::Focus::Dialog);
    event(
        &mut app,
        "ask-q",
        SessionEvent::PromptClosed {
            request_id: "r1".into(),
            resolution: codiva_protocol::session::PromptResolution::Allowed,
        },
    );
    assert_eq!(
        app.focus,
        codiva_tui::app::Focus::Composer,
        "not a dialog that is gone"
    );
    typed(&mut app, "/exit");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    // Sessions are working: quitting would stop them, so codiva asks first.
    assert!(effects.is_empty(), "{effects:?}");
    assert!(!app.should_quit());
    let screen = format!("{:?}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("still working"), "{screen}");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, [codiva_tui::app::Effect::Quit]);
    assert!(app.should_quit());
}

#[test]
fn links_of_the_open_session_are_listed() {
    let mut app = detail_app();
    event(
        &mut app,
        "ask-perm",
        SessionEvent::Log {
            scope: Scope::Main,
            entry: log(
                20,
                EntryKind::Assistant {
                    text: "Read [the docs](https://example.invalid/docs) first.".into(),
                },
            ),
            update: false,
            dropped: 0,
        },
    );
    draw(&mut app, 80, 24);
    let links = app.visible_links();
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(links[0].url, "https://example.invalid/docs");
}

#[test]
fn a_drag_in_the_composer_copies_its_text() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut app = App::new(info());
    typed(&mut app, "copy me from the composer");
    draw(&mut app, 80, 24);
    let mouse = |kind, column, row| {
        UiEvent::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    // The composer is the row above the footer; its text starts after the prompt gutter.
    app.handle(mouse(MouseEventKind::Down(MouseButton::Left), 2, 22));
    app.handle(mouse(MouseEventKind::Drag(MouseButton::Left), 8, 22));
    app.handle(mouse(MouseEventKind::Up(MouseButton::Left), 8, 22));
    draw(&mut app, 80, 24);
    assert_eq!(app.take_clipboard().as_deref(), Some("copy me"));
}

#[test]
fn dialog_keys_go_to_the_dialog_on_screen_even_if_the_list_reorders() {
    let mut app = busy_app();
    event(
        &mut app,
        "ask-q",
        SessionEvent::PromptOpened {
            prompt: permission("r-q", "make"),
        },
    );
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('n'),
        KeyModifiers::CONTROL,
    )));
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("$ make"), "{screen}");
    // A session created earlier arrives late and sorts in front of the others.
    add(
        &mut app,
        session(
            "early",
            "An early session",
            Status::Running,
            SessionPhase::Active,
            0,
        ),
    );
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects, [respond("ask-q", "r-q", "allow_once", None)]);
}

/// A confirmation that came too late (the session changed since its preview) shows the fresh
/// preview to confirm again; yes confirms with the fresh token.
#[test]
fn a_stale_discard_asks_again_with_the_fresh_preview() {
    use codiva_client::ClientError;
    use codiva_protocol::error::{ErrorBody, ErrorData, REFUSED, RefusalData, STOPPED};
    use codiva_protocol::manager::{DiscardPreview, FreshPreview};

    let refused_again = || {
        ClientError::Server(Box::new(ErrorBody {
            code: REFUSED,
            message: "session fix-login changed since the preview".into(),
            data: Some(ErrorData::Refusal(RefusalData {
                reason: "changed_since_preview".into(),
                args: vec!["fix-login".into()],
                fresh: Some(FreshPreview {
                    preview: DiscardPreview {
                        uncommitted: vec!["notes.txt".into(), "late 日本語.txt".into()],
                        unmerged_commits: vec!["Keep notes".into()],
                    },
                    confirm_token: "fresh-token".into(),
                }),
            })),
        }))
    };
    let refused = refused_again();
    let mut app = busy_app();
    // The confirmation the app sent with the preview's token was refused.
    let confirm = request(ClientRequest::SessionDiscard(ConfirmParams {
        session_id: "fix-login".into(),
        confirm_token: Some("old-token".into()),
    }));
    answer_err(&mut app, &confirm, refused);
    snapshot_at_both_sizes!(&mut app, "confirm_discard_changed");
    let effects = app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(
        effects,
        [request(ClientRequest::SessionDiscard(ConfirmParams {
            session_id: "fix-login".into(),
            confirm_token: Some("fresh-token".into()),
        }))]
    );
    // Any other error is not a preview: it is said, and nothing is asked.
    let stopped = ClientError::Server(Box::new(ErrorBody {
        code: STOPPED,
        message: "the session manager has stopped".into(),
        data: None,
    }));
    for err in [stopped, ClientError::Disconnected] {
        let mut app = busy_app();
        answer_err(&mut app, &confirm, err);
        assert_eq!(app.notice().map(|(_, error)| error), Some(true));
        let effects = app.handle(UiEvent::Key(KeyEvent::new(
            KeyCode::Char('y'),
            KeyModifiers::NONE,
        )));
        assert!(effects.is_empty(), "{effects:?}");
    }
    // A refusal of the preview itself is an error too (no fresh preview to confirm).
    let mut app = busy_app();
    let preview = request(ClientRequest::SessionDiscard(ConfirmParams {
        session_id: "fix-login".into(),
        confirm_token: None,
    }));
    answer_err(&mut app, &preview, refused_again());
    assert_eq!(app.notice().map(|(_, error)| error), Some(true));
}
