//! ACP agents in the agent picker (their login state, from their credential files) and their
//! login over the protocol in the login view: the agent's ways to log in in its own words, a
//! pick, and an API-key way that only names its variable; the model picker before an agent
//! reports its catalog (only its aliases) and after (the catalog). Snapshots at both sizes, in
//! English and Japanese.

use codiva_protocol::agent::{LoginMethod, LoginPhase, LoginProgress, LoginState};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::session::Status;
use codiva_tui::app::{App, Effect, UiEvent};
use codiva_tui::i18n::with_lang;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::*;
use crate::views::{availability, connect_with_models};

fn both_languages(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            snapshot_at_both_sizes!(&mut app, &format!("{name}{suffix}"));
        });
    }
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    typed(app, line);
    press(app, KeyCode::Enter)
}

/// Claude Code with its aliases, and the ACP presets as `agents/list` reports them when
/// Gemini CLI has `GEMINI_API_KEY`, codex-acp has no Codex login and claude-code-acp runs on
/// a machine where the login is in a keychain.
fn with_acp_agents(mut app: App) -> App {
    let mut claude = availability("claude", "Claude Code", true, true, "");
    claude.login = Some(LoginState::LoggedIn {
        method: Some("Claude account".into()),
    });
    claude.model_aliases = ["default", "opus", "sonnet", "haiku"]
        .map(String::from)
        .to_vec();
    let mut gemini = availability("gemini", "Gemini CLI", true, false, "");
    gemini.login = Some(LoginState::LoggedIn {
        method: Some("GEMINI_API_KEY".into()),
    });
    let mut codex_acp = availability("codex-acp", "Codex (ACP)", true, false, "");
    codex_acp.login = Some(LoginState::NotLoggedIn);
    let mut claude_acp = availability("claude-code-acp", "Claude Code (ACP)", true, false, "");
    claude_acp.login = Some(LoginState::Unknown {
        reason: "Claude Code keeps its login in the macOS keychain".into(),
    });
    let grok = availability(
        "grok",
        "Grok",
        false,
        false,
        "curl -fsSL https://x.ai/cli/install.sh | bash",
    );
    app.info.agents = vec![claude, gemini, codex_acp, claude_acp, grok];
    app
}

#[test]
fn the_agent_picker_shows_acp_agents_login_states() {
    both_languages("agent_picker_acp", || {
        let mut app = with_acp_agents(busy_app());
        assert_eq!(
            command(&mut app, "/agent"),
            vec![request(ClientRequest::AgentsList(NoParams {}))]
        );
        app
    });
}

/// codex-acp 0.16.0's `authMethods` (crates/codiva-core/tests/fixtures/acp-auth), as the
/// manager reports them.
fn codex_acp_methods() -> Vec<LoginMethod> {
    vec![
        LoginMethod {
            id: "chatgpt".into(),
            name: "Login with ChatGPT".into(),
            description: Some(
                "Use your ChatGPT login with Codex CLI (requires a paid ChatGPT subscription)"
                    .into(),
            ),
            env_vars: Vec::new(),
        },
        LoginMethod {
            id: "codex-api-key".into(),
            name: "Use CODEX_API_KEY".into(),
            description: Some("Requires setting the `CODEX_API_KEY` environment variable.".into()),
            env_vars: vec!["CODEX_API_KEY".into()],
        },
        LoginMethod {
            id: "openai-api-key".into(),
            name: "Use OPENAI_API_KEY".into(),
            description: Some("Requires setting the `OPENAI_API_KEY` environment variable.".into()),
            env_vars: vec!["OPENAI_API_KEY".into()],
        },
    ]
}

fn choosing() -> LoginProgress {
    LoginProgress {
        login_id: "login-1".into(),
        agent: "codex-acp".into(),
        phase: LoginPhase::Running,
        url: None,
        code: None,
        accepts_code: false,
        output: Vec::new(),
        error: None,
        methods: codex_acp_methods(),
        choose_method: true,
        env_vars: Vec::new(),
    }
}

fn login_event(app: &mut App, login: LoginProgress) -> Vec<Effect> {
    app.handle(UiEvent::Manager(Box::new(
        codiva_protocol::manager::ManagerEvent::Login { login },
    )))
}

fn login_choosing() -> App {
    let mut app = with_acp_agents(busy_app());
    assert_eq!(
        command(&mut app, "/login codex-acp"),
        vec![request(ClientRequest::AgentsLogin(LoginParams {
            agent: "codex-acp".into()
        }))]
    );
    assert!(login_event(&mut app, choosing()).is_empty());
    app
}

#[test]
fn the_login_view_offers_the_agents_ways_to_log_in() {
    both_languages("login_acp_methods", login_choosing);
    let mut app = login_choosing();
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Up);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::AgentsLoginInput(LoginInputParams {
            login_id: "login-1".into(),
            text: "codex-api-key".into()
        }))]
    );
    // Letters are no code while a way is being picked.
    typed(&mut app, "x");
    assert_eq!(
        press(&mut app, KeyCode::Esc),
        vec![request(ClientRequest::AgentsLoginCancel(LoginIdParams {
            login_id: "login-1".into()
        }))]
    );
}

#[test]
fn an_api_key_way_names_its_variable_and_stores_nothing() {
    both_languages("login_acp_env_var", || {
        let mut app = login_choosing();
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        let mut ended = choosing();
        ended.phase = LoginPhase::Failed;
        ended.choose_method = false;
        ended.env_vars = vec!["CODEX_API_KEY".into()];
        ended.error =
            Some("set CODEX_API_KEY where codiva's agents run (codiva stores no keys)".into());
        login_event(&mut app, ended);
        app
    });
}

fn detail_with(agent: &str) -> App {
    let mut app = with_acp_agents(detail_app());
    let mut session = session(
        "ask-perm",
        "Refactor the config loader into modules",
        Status::Completed,
        SessionPhase::Active,
        3,
    );
    session.agent = agent.into();
    session.model = Some("opus".into());
    add(&mut app, session);
    app
}

#[test]
fn before_the_catalog_the_model_picker_offers_only_aliases() {
    both_languages("model_picker_aliases", || {
        let mut app = detail_with("claude");
        assert!(command(&mut app, "/model").is_empty());
        assert!(app.overlay_open());
        app
    });
    let mut app = detail_with("claude");
    command(&mut app, "/model");
    press(&mut app, KeyCode::Down);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::SessionSetModel(ModelParams {
            session_id: "ask-perm".into(),
            model: Some("sonnet".into())
        }))]
    );
    // Once the agent reported its catalog, that is the list.
    let mut app = detail_with("claude");
    connect_with_models(&mut app, "ask-perm");
    command(&mut app, "/model");
    let screen = format!("{}", draw(&mut app, 200, 60).backend());
    assert!(!screen.contains("alias"), "{screen}");
    assert!(screen.contains("Haiku 5.5"), "{screen}");
    // An agent without aliases (Codex's models are ids that go stale) offers nothing.
    let mut app = detail_with("codex-acp");
    command(&mut app, "/model");
    assert!(!app.overlay_open());
}
