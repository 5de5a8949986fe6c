//! A running session's status detail in the UI's language, from its code: the retry row with
//! its cause and delay, and the header's `step`, `waiting for`, `collecting`, `stalled`.

use codiva_protocol::lang::Lang;
use codiva_protocol::log::NoteCode;
use codiva_protocol::manager::{ManagerEvent, SessionInfo};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_tui::app::{App, UiEvent};
use codiva_tui::i18n::{status_detail, with_lang};

use crate::support::{detail_app, event, snapshot_at_both_sizes};

const ID: &str = "ask-perm";

/// The open session, running, with `detail` (and its code) as the manager reports it.
fn running_with(app: &mut App, detail: &str, code: NoteCode) {
    let mut session: SessionInfo = app.sessions().iter().find(|s| s.id == ID).cloned().unwrap();
    session.status = Status::Running;
    session.pending_prompts = 0;
    session.detail = Some(detail.into());
    session.detail_code = Some(code.clone());
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session,
    })));
    event(
        app,
        ID,
        SessionEvent::Status {
            status: Status::Running,
            detail: Some(detail.into()),
            detail_code: Some(code),
        },
    );
}

fn retrying() -> NoteCode {
    NoteCode::new("retrying", &["2", "10", "4000", "529", "overloaded"])
}

#[test]
fn a_retry_says_its_cause_and_delay() {
    let mut app = detail_app();
    running_with(&mut app, "retrying (2/10)", retrying());
    snapshot_at_both_sizes!(&mut app, "retrying");
}

#[test]
fn a_retry_in_japanese() {
    with_lang(Lang::Ja, || {
        let mut app = detail_app();
        running_with(&mut app, "retrying (2/10)", retrying());
        snapshot_at_both_sizes!(&mut app, "ja_retrying");
    });
}

#[test]
fn the_other_details_in_japanese() {
    with_lang(Lang::Ja, || {
        let mut app = detail_app();
        running_with(
            &mut app,
            "waiting for 2 background agents",
            NoteCode::new("waiting_for_agents", &["2"]),
        );
        snapshot_at_both_sizes!(&mut app, "ja_waiting_for_agents");
    });
}

#[test]
fn each_detail_code_is_worded_in_both_languages() {
    let cases = [
        (
            retrying(),
            "retrying (2/10) in 4 s: overloaded (529)",
            "再試行中 (2/10)、4 秒後: overloaded (529)",
        ),
        (
            NoteCode::new("retrying", &["1", "3", "566", "", ""]),
            "retrying (1/3) in 0.6 s",
            "再試行中 (1/3)、0.6 秒後",
        ),
        (
            NoteCode::new("step", &["2", "5"]),
            "step 2/5",
            "ステップ 2/5",
        ),
        (
            NoteCode::new("waiting_for_agents", &["1"]),
            "waiting for 1 background agent",
            "バックグラウンドのエージェント 1 件を待っています",
        ),
        (
            NoteCode::new("collecting_results", &[]),
            "collecting background results",
            "バックグラウンドの結果を集めています",
        ),
        (
            NoteCode::new("stalled", &["5"]),
            "stalled: no output for 5 minutes",
            "停滞: 5 分間出力がありません",
        ),
    ];
    for (code, en, ja) in cases {
        let word = |lang| with_lang(lang, || status_detail(Some("english"), Some(&code)));
        assert_eq!(word(Lang::En).as_deref(), Some(en));
        assert_eq!(word(Lang::Ja).as_deref(), Some(ja));
    }
    // Without a code, or with one this version does not know, the core's text stands.
    assert_eq!(
        status_detail(Some("rate limited"), None).as_deref(),
        Some("rate limited")
    );
    let unknown = NoteCode::new("something_new", &[]);
    assert_eq!(
        status_detail(Some("new"), Some(&unknown)).as_deref(),
        Some("new")
    );
}

/// The open session in place, with three MCP servers: one connected, one failed, one wanting a
/// login.
fn with_mcp_servers(app: &mut App) {
    use codiva_protocol::mcp::{McpServerState, McpStatus};
    let mut session: SessionInfo = app.sessions().iter().find(|s| s.id == ID).cloned().unwrap();
    let server = |name: &str, status| McpServerState {
        name: name.into(),
        status,
        error: None,
    };
    session.mcp_servers = vec![
        server("unity-ops", McpStatus::Connected),
        server("assets", McpStatus::Failed),
        server("web", McpStatus::NeedsAuth),
    ];
    // A Unity panel's session: in place, no branch.
    session.in_place = true;
    session.branch = String::new();
    session.worktree = "/work/game/UnityProject".into();
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session,
    })));
}

#[test]
fn mcp_servers_in_the_status_bar() {
    let mut app = detail_app();
    with_mcp_servers(&mut app);
    snapshot_at_both_sizes!(&mut app, "mcp_servers");
}

#[test]
fn mcp_servers_in_japanese() {
    with_lang(Lang::Ja, || {
        let mut app = detail_app();
        with_mcp_servers(&mut app);
        snapshot_at_both_sizes!(&mut app, "ja_mcp_servers");
    });
}

/// The open session's agent reports no MCP status (an ACP agent): its two servers are shown
/// as not reported, neither connected nor failed.
#[test]
fn mcp_servers_an_acp_agent_does_not_report() {
    use codiva_protocol::mcp::{McpServerState, McpStatus};
    for (lang, name) in [
        (Lang::En, "mcp_not_reported"),
        (Lang::Ja, "ja_mcp_not_reported"),
    ] {
        with_lang(lang, || {
            let mut app = detail_app();
            let mut session: SessionInfo =
                app.sessions().iter().find(|s| s.id == ID).cloned().unwrap();
            session.mcp_servers = ["unity-ops", "assets"]
                .into_iter()
                .map(|name| McpServerState {
                    name: name.into(),
                    status: McpStatus::NotReported,
                    error: None,
                })
                .collect();
            app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
                session,
            })));
            snapshot_at_both_sizes!(&mut app, name);
        });
    }
}

/// An in-place session's row names its directory where others name their branch.
#[test]
fn an_in_place_session_in_the_list() {
    for (lang, name) in [(Lang::En, "in_place_list"), (Lang::Ja, "ja_in_place_list")] {
        with_lang(lang, || {
            let mut app = crate::support::busy_app();
            let mut session = crate::support::session(
                "tidy-scene",
                "Tidy the scene",
                Status::Running,
                codiva_protocol::manager::SessionPhase::Active,
                9,
            );
            session.in_place = true;
            session.branch = String::new();
            session.worktree = "/work/game/UnityProject".into();
            crate::support::add(&mut app, session);
            snapshot_at_both_sizes!(&mut app, name);
        });
    }
}
