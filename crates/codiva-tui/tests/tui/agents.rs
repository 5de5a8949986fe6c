//! The agent picker (`/agent` alone) and the login view (`/login`): every agent with whether it
//! runs here and is logged in, and an agent's own login as the manager reports it — the address,
//! the code typed back, cancel, success and failure. Snapshots at both sizes, in English and
//! Japanese.

use codiva_protocol::agent::{LoginPhase, LoginProgress, LoginState};
use codiva_protocol::lang::Lang;
use codiva_tui::app::{App, Effect, UiEvent};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::*;
use crate::views::availability;

/// What `claude auth login` (2.1.332) printed here (crates/codiva-core/tests/fixtures/login).
const CLAUDE_URL: &str =
    "https://claude.ai/oauth/authorize?z-xI-UwF9ip9dcg770n0WVwt1hrI1DMGQ7UvDjFX6CAQc";

fn both_languages(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            snapshot_at_both_sizes!(&mut app, &format!("{name}{suffix}"));
        });
    }
}

fn key(app: &mut App, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, modifiers)))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    key(app, code, KeyModifiers::NONE)
}

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    typed(app, line);
    press(app, KeyCode::Enter)
}

fn with_agents(mut app: App) -> App {
    let mut claude = availability(
        "claude",
        "Claude Code",
        true,
        true,
        "npm install -g @anthropic-ai/claude-code",
    );
    claude.login = Some(LoginState::LoggedIn {
        method: Some("api_key from ANTHROPIC_API_KEY".into()),
    });
    claude.version = Some("2.1.332".into());
    let mut codex = availability(
        "codex",
        "Codex",
        true,
        false,
        "npm install -g @openai/codex",
    );
    codex.login = Some(LoginState::NotLoggedIn);
    let grok = availability(
        "grok",
        "Grok",
        false,
        false,
        "curl -fsSL https://x.ai/cli/install.sh | bash",
    );
    app.info.agents = vec![claude, codex, grok];
    app
}

fn picker_in_list() -> App {
    let mut app = with_agents(busy_app());
    assert_eq!(
        command(&mut app, "/agent"),
        vec![request(ClientRequest::AgentsList(NoParams {}))]
    );
    assert!(app.overlay_open());
    app
}

#[test]
fn the_agent_picker_shows_every_agent_and_whether_it_can_run() {
    both_languages("agent_picker", picker_in_list);
    // Choosing an installed agent picks it for new sessions.
    let mut app = picker_in_list();
    press(&mut app, KeyCode::Down);
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(app.info.agent, "codex");
    assert!(!app.overlay_open());
    // A missing one says how to install it and changes nothing.
    let mut app = picker_in_list();
    press(&mut app, KeyCode::End);
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(app.info.agent, "claude");
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        screen.contains("curl -fsSL https://x.ai/cli/install.sh"),
        "{screen}"
    );
    // In a session, the choice switches the session.
    let mut app = with_agents(detail_app());
    command(&mut app, "/agent");
    press(&mut app, KeyCode::Down);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::SessionSetAgent(AgentParams {
            session_id: "ask-perm".into(),
            agent: "codex".into()
        }))]
    );
}

fn progress(phase: LoginPhase) -> LoginProgress {
    LoginProgress {
        login_id: "login-1".into(),
        agent: "claude".into(),
        phase,
        url: Some(CLAUDE_URL.into()),
        code: None,
        accepts_code: true,
        output: vec![
            "Opening browser to sign in…".into(),
            "If the browser didn't open, visit:".into(),
            CLAUDE_URL.into(),
            "Paste code here if prompted >".into(),
        ],
        error: None,
        methods: Vec::new(),
        choose_method: false,
        env_vars: Vec::new(),
    }
}

fn login_event(app: &mut App, login: LoginProgress) -> Vec<Effect> {
    app.handle(UiEvent::Manager(Box::new(
        codiva_protocol::manager::ManagerEvent::Login { login },
    )))
}

fn login_open() -> App {
    let mut app = with_agents(busy_app());
    assert_eq!(
        command(&mut app, "/login"),
        vec![request(ClientRequest::AgentsLogin(LoginParams {
            agent: "claude".into()
        }))]
    );
    app
}

fn login_running() -> App {
    let mut app = login_open();
    assert!(login_event(&mut app, progress(LoginPhase::Running)).is_empty());
    app
}

#[test]
fn the_login_view_shows_the_address_and_takes_the_code() {
    both_languages("login_starting", login_open);
    both_languages("login_running", login_running);
    let mut app = login_running();
    // Ctrl+O opens the address here.
    assert_eq!(
        key(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL),
        vec![Effect::OpenUrl {
            url: CLAUDE_URL.into()
        }]
    );
    // Letters go to the code, never to a decision; Enter sends it.
    typed(&mut app, "abc#123");
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::AgentsLoginInput(LoginInputParams {
            login_id: "login-1".into(),
            text: "abc#123".into()
        }))]
    );
    // An empty code is not sent.
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    // Esc stops the login.
    assert_eq!(
        press(&mut app, KeyCode::Esc),
        vec![request(ClientRequest::AgentsLoginCancel(LoginIdParams {
            login_id: "login-1".into()
        }))]
    );
    assert!(!app.overlay_open());
}

/// Claude Code's answer to a code it cannot take (measured), shown under the editor.
#[test]
fn a_code_the_agent_did_not_take_shows_its_answer() {
    both_languages("login_code_rejected", || {
        let mut app = login_running();
        typed(&mut app, "abc123");
        press(&mut app, KeyCode::Enter);
        let mut answered = progress(LoginPhase::Running);
        answered.output[3] = "Paste code here if prompted > That doesn't look like the full code. Copy all of it, including the # in the middle.".into();
        login_event(&mut app, answered);
        app
    });
}

#[test]
fn a_finished_login_says_how_it_ended_and_refreshes_the_agents() {
    both_languages("login_succeeded", || {
        let mut app = login_running();
        assert_eq!(
            login_event(&mut app, progress(LoginPhase::Succeeded)),
            vec![request(ClientRequest::AgentsList(NoParams {}))]
        );
        app
    });
    both_languages("login_failed", || {
        let mut app = login_running();
        let mut failed = progress(LoginPhase::Failed);
        failed.error = Some("OAuth error: \u{1b}[31mInvalid code\u{1b}[0m".into());
        login_event(&mut app, failed);
        app
    });
    let mut app = login_running();
    login_event(&mut app, progress(LoginPhase::Succeeded));
    // Esc (or Enter) closes a finished login; nothing is cancelled.
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert!(!app.overlay_open());
}

#[test]
fn another_agents_login_does_not_change_the_view() {
    let mut app = login_running();
    let mut other = progress(LoginPhase::Failed);
    other.agent = "codex".into();
    other.login_id = "login-2".into();
    assert_eq!(
        login_event(&mut app, other),
        vec![request(ClientRequest::AgentsList(NoParams {}))]
    );
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("paste the code"), "{screen}");
}

#[test]
fn a_login_that_cannot_start_closes_with_the_reason() {
    let mut app = login_open();
    let login = request(ClientRequest::AgentsLogin(LoginParams {
        agent: "claude".into(),
    }));
    answer_err(
        &mut app,
        &login,
        refused("Grok has no login codiva can run; log in with its own CLI"),
    );
    assert!(!app.overlay_open());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("no login codiva can run"), "{screen}");
}

/// On a remote repository the header names the host and the login view says where the login
/// runs (its address still opens here).
#[test]
fn a_remote_repository_names_its_host() {
    both_languages("login_remote", || {
        let mut app = with_agents(busy_app());
        app.info.remote = Some(codiva_tui::app::RemoteHost {
            host: "build-box".into(),
            ssh: vec!["ssh".into(), "me@build-box".into()],
        });
        command(&mut app, "/login");
        login_event(&mut app, progress(LoginPhase::Running));
        app
    });
}

/// A model chosen for new sessions (the config's, or `/model`'s) names a model of the agent it
/// was chosen for: choosing another agent for new sessions, by name or in the picker, starts
/// them on that agent's own default (the header says so, and `session/create` names no model).
#[test]
fn another_agent_for_new_sessions_starts_on_its_own_model() {
    let mut app = with_agents(busy_app());
    app.info.model = Some("opus".into());
    command(&mut app, "/agent claude");
    assert_eq!(app.info.model.as_deref(), Some("opus"), "the same agent");
    command(&mut app, "/agent codex");
    assert_eq!(
        (app.info.agent.as_str(), app.info.model.as_deref()),
        ("codex", None)
    );
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("codex · default"), "{screen}");
    typed(&mut app, "Port the parser");
    let effects = press(&mut app, KeyCode::Enter);
    let sent = request(ClientRequest::SessionCreate(
        codiva_protocol::params::CreateParams {
            prompt: "Port the parser".into(),
            agent: Some("codex".into()),
            ..Default::default()
        },
    ));
    assert!(effects.contains(&sent), "{effects:?}");
    // The picker: a model named for codex is left behind with codex.
    command(&mut app, "/model gpt-5.4");
    assert_eq!(app.info.model.as_deref(), Some("gpt-5.4"));
    command(&mut app, "/agent");
    press(&mut app, KeyCode::Home);
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(
        (app.info.agent.as_str(), app.info.model.as_deref()),
        ("claude", None)
    );
}
