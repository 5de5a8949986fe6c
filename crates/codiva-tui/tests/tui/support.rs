//! The screens the app tests share: sessions in every state, an open session with a log and
//! a permission, keys and drawing at the two standard sizes.

use std::path::PathBuf;

use codiva_client::ClientError;
pub use codiva_protocol::ClientRequest;
use codiva_protocol::agent::{NoteLevel, PermissionRequest};
use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use codiva_protocol::manager::{ManagerEvent, SessionInfo, SessionPhase};
pub use codiva_protocol::params::{
    AgentParams, ConfigSetParams, ConfirmParams, FullMessageParams, LoginIdParams,
    LoginInputParams, LoginParams, ModelParams, NoParams, RenameParams, SendParams, SessionParams,
};
use codiva_protocol::session::{Prompt, SessionEvent, Status, TodoProgress};
use codiva_tui::app::{App, AppInfo, Done, Effect, UiEvent};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

pub fn info() -> AppInfo {
    AppInfo {
        version: "0.1.0".into(),
        cwd: "~/work/app".into(),
        base: "main".into(),
        agent: "claude".into(),
        model: None,
        warnings: Vec::new(),
        agents: Vec::new(),
        remote: None,
        detached: false,
    }
}

pub fn session(
    id: &str,
    title: &str,
    status: Status,
    phase: SessionPhase,
    minute: u64,
) -> SessionInfo {
    SessionInfo {
        id: id.into(),
        title: title.into(),
        prompt: title.into(),
        branch: format!("codiva/{id}"),
        worktree: PathBuf::from(format!("/work/app/.codiva/worktrees/{id}")),
        base: "main".into(),
        phase,
        status,
        detail: None,
        detail_code: None,
        agent: "claude".into(),
        agent_session_id: Some("0000".into()),
        model: Some("claude-sonnet-4-5".into()),
        cost_usd: Some(0.05),
        active_ms: minute * 61_000,
        created_at: minute,
        pending_prompts: 0,
        todos: TodoProgress::default(),
        prs: Default::default(),
        in_place: false,
        mcp_servers: Vec::new(),
        resources: None,
        review: Vec::new(),
        group: None,
        check: None,
    }
}

pub fn add(app: &mut App, session: SessionInfo) {
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session,
    })));
}

pub fn event(app: &mut App, id: &str, event: SessionEvent) {
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Event {
        id: id.into(),
        event,
    })));
}

pub fn key(app: &mut App, code: KeyCode) {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

pub fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

pub fn draw(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| app.render(frame)).unwrap();
    terminal
}

/// Snapshots `app` at 80×24 and 120×40, as `<name>_80x24` and `<name>_120x40` (a macro, so
/// the snapshots are named after the calling test module).
macro_rules! snapshot_at_both_sizes {
    ($app:expr, $name:expr) => {{
        let app: &mut codiva_tui::app::App = $app;
        let name: &str = $name;
        insta::assert_snapshot!(
            format!("{name}_80x24"),
            $crate::support::draw(app, 80, 24).backend()
        );
        insta::assert_snapshot!(
            format!("{name}_120x40"),
            $crate::support::draw(app, 120, 40).backend()
        );
    }};
}
pub(crate) use snapshot_at_both_sizes;

pub fn busy_app() -> App {
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
    let mut running = session(
        "add-tests",
        "Add tests for the parser",
        Status::Running,
        SessionPhase::Active,
        2,
    );
    running.todos = TodoProgress { done: 2, total: 5 };
    add(&mut app, running);
    add(
        &mut app,
        session(
            "ask-perm",
            "Refactor the config loader into modules",
            Status::AwaitingPermission,
            SessionPhase::Active,
            3,
        ),
    );
    add(
        &mut app,
        session(
            "ask-q",
            "日本語のドキュメントを更新する 🎌",
            Status::AwaitingAnswer,
            SessionPhase::Active,
            4,
        ),
    );
    add(
        &mut app,
        session(
            "prep",
            "Upgrade dependencies",
            Status::Starting,
            SessionPhase::Preparing,
            5,
        ),
    );
    add(
        &mut app,
        session(
            "broken",
            "Investigate the flaky CI job",
            Status::Failed,
            SessionPhase::Active,
            6,
        ),
    );
    add(
        &mut app,
        session(
            "conflict",
            "Rename the user model",
            Status::Completed,
            SessionPhase::Conflict {
                files: vec!["src/user.rs".into()],
            },
            7,
        ),
    );
    add(
        &mut app,
        session(
            "paused",
            "Write the changelog",
            Status::Interrupted,
            SessionPhase::Active,
            8,
        ),
    );
    add(
        &mut app,
        session(
            "limit",
            "Port the CLI to clap 4",
            Status::RateLimited,
            SessionPhase::Active,
            9,
        ),
    );
    add(
        &mut app,
        session(
            "login",
            "Document the API",
            Status::NeedsLogin,
            SessionPhase::Active,
            10,
        ),
    );
    add(
        &mut app,
        session(
            "merged",
            "Bump the version",
            Status::Completed,
            SessionPhase::Merged {
                commit: "abc".into(),
            },
            11,
        ),
    );
    app
}

pub fn log(id: u64, kind: EntryKind) -> LogEntry {
    LogEntry {
        id,
        at_ms: id * 1000,
        kind,
    }
}

pub fn detail_app() -> App {
    let mut app = busy_app();
    open_detail(&mut app);
    app
}

/// Opens session `ask-perm` of [`busy_app`] and gives it its log.
pub fn open_detail(app: &mut App) {
    let id = "ask-perm";
    // Open the session: focus the list, select it, press Enter.
    key(app, KeyCode::Tab);
    for _ in 0..2 {
        key(app, KeyCode::Down);
    }
    key(app, KeyCode::Enter);
    assert_eq!(app.view, codiva_tui::app::View::Detail(id.into()));
    app.handle(UiEvent::Done(Done::LogRead {
        id: id.into(),
        entries: vec![
            log(0, EntryKind::User { text: "Refactor the config loader into modules".into() }),
            log(1, EntryKind::Assistant { text: "I'll split `config.rs` into **three** modules:\n\n- `parse.rs`\n- `validate.rs`\n- `defaults.rs`".into() }),
            log(2, EntryKind::Tool(Box::new(ToolEntry {
                tool_use_id: "t1".into(),
                name: "Read".into(),
                summary: "config.rs".into(),
                view: claude_view("Read", &json!({"file_path": "/work/app/src/config.rs"})),
                input: json!({"file_path": "/work/app/src/config.rs"}),
                status: ToolStatus::Succeeded,
                result: Some("…".into()),
                duration_ms: Some(12),
            }))),
            log(3, EntryKind::Note { level: NoteLevel::Info, text: "denied: Bash".into(), code: None }),
        ],
        subagents: Vec::new(),
        todos: Vec::new(),
    }));
}

/// The params of the requests about one session.
pub fn sid(id: &str) -> SessionParams {
    SessionParams {
        session_id: id.into(),
    }
}

/// The effect of sending `request` (its answer means what its method says).
pub fn request(request: ClientRequest) -> Effect {
    Effect::request(request)
}

/// `session/respondPermission` with the dialog's option `option` (and `message`).
pub fn respond(id: &str, request_id: &str, option: &str, message: Option<&str>) -> Effect {
    request(ClientRequest::SessionRespondPermission(
        codiva_protocol::params::PermissionParams {
            session_id: id.into(),
            request_id: request_id.into(),
            decision: None,
            option: Some(option.into()),
            suggestion: None,
            message: message.map(str::to_owned),
        },
    ))
}

/// The manager answers `session/snapshot` of `id` with `snapshot`.
pub fn snapshot_arrived(
    app: &mut App,
    id: &str,
    snapshot: codiva_protocol::session::SessionSnapshot,
) -> Vec<Effect> {
    answer_ok(
        app,
        &request(ClientRequest::SessionSnapshot(sid(id))),
        snapshot,
    )
}

/// `session/create` of `prompt` as the app of [`info`] sends it (its agent, the default model).
pub fn create(prompt: &str) -> Effect {
    request(ClientRequest::SessionCreate(
        codiva_protocol::params::CreateParams {
            prompt: prompt.into(),
            agent: Some("claude".into()),
            ..Default::default()
        },
    ))
}

/// `session/diff` of `id`, asked for `purpose`.
pub fn diff_for(id: &str, purpose: codiva_tui::app::Purpose) -> Effect {
    Effect::request_for(ClientRequest::SessionDiff(sid(id)), purpose)
}

/// `session/commit` of `id` (`None`: the agent is asked to commit).
pub fn commit(id: &str, message: Option<&str>) -> Effect {
    request(ClientRequest::SessionCommit(
        codiva_protocol::params::CommitParams {
            session_id: id.into(),
            message: message.map(str::to_owned),
        },
    ))
}

/// `session/remove` (`forget`) or `session/discard` of `id`, with the confirmation's token.
pub fn discard(id: &str, forget: bool, token: Option<&str>) -> Effect {
    let params = ConfirmParams {
        session_id: id.into(),
        confirm_token: token.map(str::to_owned),
    };
    request(if forget {
        ClientRequest::SessionRemove(params)
    } else {
        ClientRequest::SessionDiscard(params)
    })
}

/// A refusal the manager words by its `reason` and `args` (its English message is unused).
pub fn refusal(reason: codiva_protocol::error::RefusalCode, args: &[&str]) -> ClientError {
    use codiva_protocol::error::{ErrorBody, ErrorData, REFUSED, RefusalData};
    ClientError::Server(Box::new(ErrorBody {
        code: REFUSED,
        message: String::new(),
        data: Some(ErrorData::Refusal(RefusalData {
            reason,
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            fresh: None,
        })),
    }))
}

/// The manager answers `effect` (a request the app asked for) with `result`.
pub fn answer_ok(app: &mut App, effect: &Effect, result: impl serde::Serialize) -> Vec<Effect> {
    let value = serde_json::to_value(result).unwrap();
    let done = effect.answer(Ok(value)).expect("a request");
    app.handle(UiEvent::Done(done))
}

/// The manager answers `effect` (a request the app asked for) with `err`.
pub fn answer_err(app: &mut App, effect: &Effect, err: ClientError) -> Vec<Effect> {
    let done = effect.answer(Err(err)).expect("a request");
    app.handle(UiEvent::Done(done))
}

/// An error the manager says in words only (no refusal code the UI words itself).
pub fn refused(message: &str) -> ClientError {
    ClientError::Server(Box::new(codiva_protocol::error::ErrorBody {
        code: codiva_protocol::error::REFUSED,
        message: message.into(),
        data: None,
    }))
}

pub fn permission(request_id: &str, command: &str) -> Prompt {
    Prompt::Permission(as_claude(PermissionRequest {
        request_id: request_id.into(),
        tool: "Bash".into(),
        view: Default::default(),
        options: Vec::new(),
        input: json!({"command": command}),
        description: None,
        suggestions: Vec::new(),
        tool_use_id: None,
        agent_id: None,
        blocked_path: None,
        reason: None,
    }))
}

/// `request` as Claude's provider fills it: kind, title and content from the tool's input,
/// the options from its suggestions.
pub fn as_claude(mut request: PermissionRequest) -> PermissionRequest {
    request.view = codiva_core::claude::tool_view::tool_view(&request.tool, &request.input);
    request.options =
        codiva_core::claude::tool_view::permission_options(&request.tool, &request.suggestions);
    request
}

/// A call's kind, title and content as Claude's provider builds them.
pub fn claude_view(name: &str, input: &serde_json::Value) -> codiva_protocol::tool::ToolCallView {
    codiva_core::claude::tool_view::tool_view(name, input)
}
