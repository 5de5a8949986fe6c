//! The finishing and picking views: the restore list, the merge confirmation that says what
//! will happen, remove after a y/n, the diff view, the model picker, the config view, the list
//! filter, rename, and the shell/editor handover effects. Snapshots at both sizes, in English
//! and Japanese.

use codiva_protocol::agent::{AgentInfo, ModelChoice};
use codiva_protocol::lang::Lang;
use codiva_protocol::manager::{DiffStat, DiffText, SessionPhase, StatusEntry};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_tui::app::{App, Effect, Foreground, Purpose, UiEvent, View};
use codiva_tui::i18n::with_lang;
use crossterm::event::KeyCode;

use crate::support::*;

fn both_languages(name: &str, scenario: impl Fn() -> App) {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = scenario();
            snapshot_at_both_sizes!(&mut app, &format!("{name}{suffix}"));
        });
    }
}

/// Types a command and presses Enter; returns its effects.
fn command(app: &mut App, line: &str) -> Vec<Effect> {
    typed(app, line);
    app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
        code,
        crossterm::event::KeyModifiers::NONE,
    )))
}

fn with_discarded() -> App {
    let mut app = busy_app();
    for (id, title, minute) in [
        ("old-idea", "Try a new cache layer", 12),
        ("spike", "スパイク: 検索を速くする", 13),
    ] {
        add(
            &mut app,
            session(
                id,
                title,
                Status::Completed,
                SessionPhase::Discarded,
                minute,
            ),
        );
    }
    app
}

#[test]
fn restore_list_shows_discarded_sessions_and_restores_the_chosen_one() {
    both_languages("restore_list", || {
        let mut app = with_discarded();
        assert!(command(&mut app, "/restore").is_empty());
        app
    });
    let mut app = with_discarded();
    command(&mut app, "/restore");
    press(&mut app, KeyCode::Down);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::SessionRestore(sid("old-idea")))]
    );
    assert!(!app.overlay_open());
}

#[test]
fn restore_list_when_nothing_was_discarded() {
    let mut app = busy_app();
    command(&mut app, "/restore");
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(
        screen.contains("No discarded session to restore."),
        "{screen}"
    );
    press(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
}

fn stat(ahead: u64, uncommitted: &[&str]) -> DiffStat {
    DiffStat {
        commits_ahead: ahead,
        uncommitted: uncommitted
            .iter()
            .map(|path| StatusEntry {
                status: " M".into(),
                path: (*path).into(),
                orig_path: None,
            })
            .collect(),
        ..DiffStat::default()
    }
}

fn merge_asked(ahead: u64, uncommitted: &[&str]) -> App {
    let mut app = busy_app();
    key(&mut app, KeyCode::Tab);
    assert_eq!(
        press(&mut app, KeyCode::Char('m')),
        vec![diff_for("fix-login", Purpose::MergePreview)]
    );
    answer_ok(
        &mut app,
        &diff_for("fix-login", Purpose::MergePreview),
        stat(ahead, uncommitted),
    );
    app
}

#[test]
fn merge_confirmation_says_what_will_happen() {
    both_languages("confirm_merge_commits_uncommitted", || {
        merge_asked(3, &["src/login.rs", "notes.md"])
    });
    both_languages("confirm_merge_commits_only", || merge_asked(2, &[]));
}

#[test]
fn merge_confirmation_offers_to_have_the_agent_commit_first() {
    let mut app = merge_asked(3, &["src/login.rs"]);
    let effects = press(&mut app, KeyCode::Char('c'));
    // The same request as `/commit` without a message: the manager asks the agent.
    assert_eq!(effects, vec![commit("fix-login", None)]);
    let mut app = merge_asked(3, &["src/login.rs"]);
    assert_eq!(
        press(&mut app, KeyCode::Char('y')),
        vec![request(ClientRequest::SessionMerge(sid("fix-login")))]
    );
}

#[test]
fn nothing_to_merge_only_says_so() {
    let mut app = merge_asked(0, &[]);
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("nothing to merge"), "{screen}");
    // Uncommitted work but no commit: `y` merges nothing; `c` asks the agent.
    let mut app = merge_asked(0, &["a.txt"]);
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
}

/// Regression: with uncommitted work and no commit, the question offered `y merge`, and `y`
/// then closed it without a word. Now it says there is nothing to merge and offers only `c`
/// and `n`; `y` leaves the question open.
#[test]
fn nothing_to_merge_with_uncommitted_work_offers_only_the_commit() {
    both_languages("confirm_merge_nothing_uncommitted", || {
        merge_asked(0, &["a.txt"])
    });
    let mut app = merge_asked(0, &["a.txt"]);
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("nothing to merge"), "{screen}");
    assert!(!screen.contains("y merge"), "{screen}");
    assert!(!screen.contains("Merge codiva/"), "{screen}");
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        screen.contains("c ask the agent to commit them"),
        "{screen}"
    );
    assert_eq!(
        press(&mut app, KeyCode::Char('c')),
        vec![commit("fix-login", None)]
    );
}

/// Regression: a key with Ctrl answered the question as its letter — Ctrl+C over "c ask the
/// agent to commit them" sent the commit, Ctrl+Y merged. Ctrl+C now cancels as `n` and Esc do;
/// any other Ctrl or Alt key leaves the question open.
#[test]
fn ctrl_keys_never_answer_a_question_and_ctrl_c_cancels_it() {
    let ctrl = |app: &mut App, c: char, modifiers: crossterm::event::KeyModifiers| {
        app.handle(UiEvent::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char(c),
            modifiers,
        )))
    };
    use crossterm::event::KeyModifiers as M;
    let mut app = merge_asked(3, &["src/login.rs"]);
    assert!(ctrl(&mut app, 'y', M::CONTROL).is_empty());
    assert!(ctrl(&mut app, 'c', M::ALT).is_empty());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        screen.contains("c ask the agent to commit first"),
        "{screen}"
    );
    assert!(ctrl(&mut app, 'c', M::CONTROL).is_empty());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        !screen.contains("c ask the agent to commit first"),
        "{screen}"
    );
    // Closed: a later `y` is not an answer to it.
    assert!(
        !press(&mut app, KeyCode::Char('y'))
            .contains(&request(ClientRequest::SessionMerge(sid("fix-login"))))
    );
}

/// A question that opens drops the notice of an earlier answer (it would say the same twice).
#[test]
fn a_merge_question_replaces_an_earlier_notice() {
    let mut app = merge_asked(0, &[]);
    assert!(app.notice().is_some());
    let asked = press(&mut app, KeyCode::Char('m'));
    answer_ok(&mut app, &asked[0], stat(0, &["a.txt"]));
    assert_eq!(app.notice(), None);
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert_eq!(screen.matches("nothing to merge").count(), 1, "{screen}");
}

/// Regression: `1 commits`, `1 uncommitted files are`.
#[test]
fn one_commit_and_one_file_are_singular() {
    let mut app = merge_asked(1, &["a.txt"]);
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        screen.contains("1 commit on codiva/fix-login is merged"),
        "{screen}"
    );
    assert!(
        screen.contains("1 uncommitted file is NOT merged"),
        "{screen}"
    );
    let mut app = merge_asked(2, &["a.txt", "b.txt"]);
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        screen.contains("2 commits on codiva/fix-login are merged"),
        "{screen}"
    );
    assert!(
        screen.contains("2 uncommitted files are NOT merged"),
        "{screen}"
    );
}

/// Regression: `x` on a merged (or discarded) session removed it at once, without a question.
#[test]
fn remove_of_a_finished_session_asks_first() {
    let mut app = busy_app();
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::End);
    assert!(press(&mut app, KeyCode::Char('x')).is_empty());
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("Remove Bump the version"), "{screen}");
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert!(press(&mut app, KeyCode::Char('x')).is_empty());
    assert_eq!(
        press(&mut app, KeyCode::Char('y')),
        vec![discard("merged", true, None)]
    );
}

const DIFF: &str = "\
diff --git a/src/config.rs b/src/config.rs
index 1111111..2222222 100644
--- a/src/config.rs
+++ b/src/config.rs
@@ -1,5 +1,6 @@
 use std::path::Path;
-fn load() -> Config {
-    parse(read())
+/// Loads the config (日本語のコメント).
+fn load(path: &Path) -> Config {
+    parse(read(path))
 }
 
diff --git a/src/parse.rs b/src/parse.rs
new file mode 100644
--- /dev/null
+++ b/src/parse.rs
@@ -0,0 +1,3 @@
+pub fn parse(text: &str) -> Config {
+    toml::from_str(text).unwrap_or_default()
+}
diff --git a/notes.md b/notes.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/notes.md
@@ -0,0 +1 @@
+untracked notes 🎌
";

fn diff_open() -> App {
    let mut app = detail_app();
    assert_eq!(
        command(&mut app, "/diff"),
        vec![request(ClientRequest::SessionDiffText(sid("ask-perm")))]
    );
    answer_ok(
        &mut app,
        &request(ClientRequest::SessionDiffText(sid("ask-perm"))),
        DiffText {
            text: DIFF.into(),
            truncated: false,
        },
    );
    app
}

#[test]
fn diff_view_lists_files_and_colours_the_diff() {
    both_languages("diff_view", diff_open);
    with_lang(Lang::En, || {
        let mut app = diff_open();
        press(&mut app, KeyCode::Char('n'));
        press(&mut app, KeyCode::Char('n'));
        insta::assert_snapshot!(
            "diff_view_third_file_80x24",
            draw(&mut app, 80, 24).backend()
        );
        press(&mut app, KeyCode::Esc);
        assert!(!app.overlay_open());
        assert_eq!(app.view, View::Detail("ask-perm".into()));
    });
}

#[test]
fn diff_view_while_loading_and_cut() {
    let mut app = detail_app();
    command(&mut app, "/diff");
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("reading the diff"), "{screen}");
    answer_ok(
        &mut app,
        &request(ClientRequest::SessionDiffText(sid("ask-perm"))),
        DiffText {
            text: DIFF.into(),
            truncated: true,
        },
    );
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("cut at 1 MiB"), "{screen}");
}

pub(crate) fn connect_with_models(app: &mut App, id: &str) {
    let model = |id: &str, name: &str, description: &str| ModelChoice {
        id: id.into(),
        display_name: Some(name.into()),
        description: Some(description.into()),
    };
    event(
        app,
        id,
        SessionEvent::Connected {
            agent: AgentInfo {
                models: vec![
                    model(
                        "default",
                        "Default (recommended)",
                        "Use the default model (currently Opus 5.5)",
                    ),
                    model(
                        "opus",
                        "Opus",
                        "Opus 5.5 · Best for everyday, complex tasks",
                    ),
                    model(
                        "sonnet",
                        "Sonnet",
                        "Sonnet 5.5 · Efficient for routine tasks",
                    ),
                    model("haiku", "Haiku", "Haiku 5.5 · Fastest for quick answers"),
                ],
                ..AgentInfo::default()
            },
        },
    );
}

fn model_picker() -> App {
    let mut app = detail_app();
    let mut session = session(
        "ask-perm",
        "Refactor the config loader into modules",
        Status::AwaitingPermission,
        SessionPhase::Active,
        3,
    );
    session.model = Some("sonnet".into());
    add(&mut app, session);
    connect_with_models(&mut app, "ask-perm");
    assert!(command(&mut app, "/model").is_empty());
    app
}

#[test]
fn model_picker_from_the_agents_list_with_the_current_one_marked() {
    both_languages("model_picker", model_picker);
    let mut app = model_picker();
    press(&mut app, KeyCode::Down);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::SessionSetModel(ModelParams {
            session_id: "ask-perm".into(),
            model: Some("haiku".into())
        }))]
    );
    // `default` means the agent's own choice.
    let mut app = model_picker();
    press(&mut app, KeyCode::Home);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::SessionSetModel(ModelParams {
            session_id: "ask-perm".into(),
            model: None
        }))]
    );
}

/// Regression: `/model` never marked the current model — the agent reports it by name
/// (`claude-sonnet-…`) while the rows are its aliases. The alias the name is, is marked.
fn model_picker_reported_by_name() -> App {
    let mut app = detail_app();
    let mut session = session(
        "ask-perm",
        "Refactor the config loader into modules",
        Status::AwaitingPermission,
        SessionPhase::Active,
        3,
    );
    session.model = Some("claude-sonnet-5-5-20261001".into());
    add(&mut app, session);
    connect_with_models(&mut app, "ask-perm");
    assert!(command(&mut app, "/model").is_empty());
    app
}

#[test]
fn model_picker_marks_the_alias_of_the_model_the_agent_reports() {
    both_languages("model_picker_by_name", model_picker_reported_by_name);
    let mut app = model_picker_reported_by_name();
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    let marked: Vec<&str> = screen
        .lines()
        .filter(|line| line.contains("(current)"))
        .collect();
    assert_eq!(marked.len(), 1, "{screen}");
    assert!(marked[0].contains("sonnet"), "{screen}");
}

#[test]
fn model_picker_without_a_connected_agent_says_so() {
    let mut app = detail_app();
    command(&mut app, "/model");
    assert!(!app.overlay_open());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("/model"), "{screen}");
}

const CONFIG: &str = "\
# my codiva settings
model = \"claude-sonnet-4-5\"  # fast
fetch_base = false
language = \"ja\"
";

/// What `config/read` answers for a file holding `text` (the core reads it, as `serve` does).
fn config_result(text: &str) -> codiva_protocol::params::ConfigResult {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    let mut result = codiva_core::config_edit::read_file(&path).unwrap();
    result.path = "~/.config/codiva/config.toml".into();
    result
}

/// `config/set` of `model` to `opus`.
fn save_model() -> Effect {
    request(ClientRequest::ConfigSet(ConfigSetParams {
        key: "model".into(),
        value: "opus".into(),
    }))
}

fn config_open() -> App {
    let mut app = busy_app();
    assert_eq!(
        command(&mut app, "/config"),
        vec![request(ClientRequest::ConfigRead(NoParams {}))]
    );
    answer_ok(
        &mut app,
        &request(ClientRequest::ConfigRead(NoParams {})),
        config_result(CONFIG),
    );
    app
}

#[test]
fn config_view_shows_every_key_and_edits_one() {
    both_languages("config_view", config_open);
    both_languages("config_view_editing", || {
        let mut app = config_open();
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    });
    let mut app = config_open();
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    for _ in 0.."\"claude-sonnet-4-5\"".len() {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "opus");
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(ClientRequest::ConfigSet(ConfigSetParams {
            key: "model".into(),
            value: "opus".into()
        }))]
    );
    // The saved file comes back: the view shows it and says where it went.
    answer_ok(
        &mut app,
        &save_model(),
        config_result(&CONFIG.replace("\"claude-sonnet-4-5\"", "\"opus\"")),
    );
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("\"opus\""), "{screen}");
    assert!(screen.contains("saved model"), "{screen}");
}

/// `config_result(CONFIG)` with every key `config/set` takes (each agent's `<id>_path`): the
/// keys the answer lacks are added as unset text keys with their default, as the core words it.
fn config_with_every_settable_key() -> codiva_protocol::params::ConfigResult {
    use codiva_protocol::params::{ConfigField, ConfigFieldKind};
    let mut result = config_result(CONFIG);
    for field in codiva_core::config_edit::settable() {
        if result.fields.iter().all(|f| f.key != field.key) {
            result.fields.push(ConfigField {
                key: field.key.to_owned(),
                kind: ConfigFieldKind::Text,
                default: field.default.to_owned(),
                value: None,
            });
        }
    }
    result
}

/// The view lists every key `config/read` answers, every agent's `<id>_path` among them, and
/// scrolls to the last.
#[test]
fn config_view_lists_every_agents_path() {
    let open = || {
        let mut app = busy_app();
        command(&mut app, "/config");
        answer_ok(
            &mut app,
            &request(ClientRequest::ConfigRead(NoParams {})),
            config_with_every_settable_key(),
        );
        app
    };
    let keys: Vec<String> = config_with_every_settable_key()
        .fields
        .into_iter()
        .map(|field| field.key)
        .collect();
    for key in [
        "claude_path",
        "codex_path",
        "gemini_path",
        "claude-code-acp_path",
    ] {
        assert!(keys.iter().any(|k| k == key), "{key}: {keys:?}");
    }
    let mut app = open();
    let mut seen = String::new();
    for _ in 0..keys.len() {
        seen.push_str(&format!("{}", draw(&mut app, 80, 24).backend()));
        press(&mut app, KeyCode::Down);
    }
    for key in &keys {
        assert!(seen.contains(&format!(" {key} ")), "{key} not shown");
    }
    both_languages("config_view_end", || {
        let mut app = open();
        press(&mut app, KeyCode::End);
        app
    });
}

/// Regression: the `/config` view's "saved" notice was still shown on the `/login` screen
/// opened next. A notice made in a view over the body belongs to that view.
#[test]
fn a_config_notice_stays_in_the_config_view() {
    let mut app = config_open();
    answer_ok(&mut app, &save_model(), config_result(CONFIG));
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("saved model"), "{screen}");
    press(&mut app, KeyCode::Esc);
    assert!(!app.overlay_open());
    assert_eq!(app.notice(), None);
    assert_eq!(
        command(&mut app, "/login"),
        vec![request(ClientRequest::AgentsLogin(LoginParams {
            agent: "claude".into()
        }))]
    );
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(!screen.contains("saved model"), "{screen}");
    // A notice of the list is not shown over the login view either, and is back after it.
    let mut app = busy_app();
    command(&mut app, "/nonsense");
    assert!(app.notice().is_some());
    command(&mut app, "/login");
    assert_eq!(app.notice(), None);
    press(&mut app, KeyCode::Esc);
    assert!(
        app.notice()
            .is_some_and(|(text, _)| text.contains("nonsense"))
    );
}

/// Regression: `/restore` inside a discarded session said "not available here" without
/// saying where it is.
#[test]
fn a_command_of_another_view_says_where_it_works() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::Ja, "_ja")] {
        with_lang(lang, || {
            let mut app = detail_app();
            command(&mut app, "/restore");
            snapshot_at_both_sizes!(&mut app, &format!("restore_in_a_session{suffix}"));
        });
    }
    let mut app = detail_app();
    command(&mut app, "/restore");
    let (text, _) = app.notice().unwrap();
    assert!(
        text.contains("/restore works in the session list"),
        "{text}"
    );
    let mut app = busy_app();
    command(&mut app, "/diff");
    let (text, _) = app.notice().unwrap();
    assert!(text.contains("/diff works inside a session"), "{text}");
}

#[test]
fn config_that_is_not_toml_is_reported_not_shown() {
    let mut app = busy_app();
    let read = command(&mut app, "/config");
    // What `config/read` refuses a file that is not TOML with.
    let refused = codiva_client::ClientError::Server(Box::new(codiva_protocol::error::ErrorBody {
        code: codiva_protocol::error::REFUSED,
        message: "the file is not valid TOML (line 1)".into(),
        data: Some(codiva_protocol::error::ErrorData::Refusal(
            codiva_protocol::error::RefusalData {
                reason: "config_not_toml".into(),
                args: vec!["c.toml".into(), "1".into()],
                fresh: None,
            },
        )),
    }));
    answer_err(&mut app, &read[0], refused);
    assert!(!app.overlay_open());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("not valid TOML (line 1)"), "{screen}");
}

fn filtered(query: &str) -> App {
    let mut app = busy_app();
    key(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('f'));
    typed(&mut app, query);
    app
}

#[test]
fn list_filter_by_title_branch_or_status() {
    both_languages("list_filter", || filtered("the"));
    // Enter keeps the filter; the selection walks only the rows shown.
    let mut app = filtered("fail");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![
            Effect::ReadLog {
                id: "broken".into()
            },
            diff_for("broken", Purpose::Uncommitted)
        ]
    );
    assert_eq!(app.view, View::Detail("broken".into()));
    let mut app = filtered("codiva/ask");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("2 of 11"), "{screen}");
    assert!(!screen.contains("Fix the login"), "{screen}");
    // Esc drops the filter.
    press(&mut app, KeyCode::Esc);
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("Fix the login"), "{screen}");
    let mut app = filtered("zzz");
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(screen.contains("No session matches"), "{screen}");
}

#[test]
fn rename_edits_the_title_in_the_composer() {
    let mut app = detail_app();
    assert!(command(&mut app, "/rename").is_empty());
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![request(ClientRequest::SessionRename(RenameParams {
            session_id: "ask-perm".into(),
            title: "Refactor the config loader into modules".into()
        }))]
    );
    assert_eq!(
        command(&mut app, "/rename Split config.rs"),
        vec![request(ClientRequest::SessionRename(RenameParams {
            session_id: "ask-perm".into(),
            title: "Split config.rs".into()
        }))]
    );
}

#[test]
fn shell_and_editor_run_in_the_worktree() {
    let mut app = detail_app();
    let worktree = std::path::PathBuf::from("/work/app/.codiva/worktrees/ask-perm");
    assert_eq!(
        command(&mut app, "/shell"),
        vec![Effect::Foreground {
            what: Foreground::Shell,
            cwd: worktree.clone()
        }]
    );
    assert_eq!(
        command(&mut app, "/edit src/config.rs"),
        vec![Effect::Foreground {
            what: Foreground::Editor {
                path: Some("src/config.rs".into())
            },
            cwd: worktree
        }]
    );
}

#[test]
fn a_git_error_comes_with_its_fix() {
    let mut app = busy_app();
    answer_err(
        &mut app,
        &request(ClientRequest::SessionMerge(sid("fix-login"))),
        refused(
            "`git merge --no-ff --no-edit codiva/fix-login` failed (exit 128): Committer identity unknown",
        ),
    );
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("git config --global user.name"), "{screen}");
}

pub(crate) fn availability(
    id: &str,
    name: &str,
    ready: bool,
    default: bool,
    install: &str,
) -> codiva_protocol::agent::AgentAvailability {
    use codiva_protocol::agent::{AgentAvailability, AgentCapabilities, AgentStatus};
    AgentAvailability {
        id: id.into(),
        name: name.into(),
        status: if ready {
            AgentStatus::Ready
        } else {
            AgentStatus::NotInstalled
        },
        default,
        capabilities: ready.then(AgentCapabilities::default),
        program: ready.then(|| format!("/usr/local/bin/{id}")),
        install: (!ready).then(|| install.into()),
        login: None,
        version: None,
        model_aliases: Vec::new(),
    }
}

/// The empty list says which agents are there, which one new sessions run, and how to install
/// the others; with none installed it says to install one first (and the header says so).
#[test]
fn the_empty_list_shows_each_agent_and_how_to_install_it() {
    let claude_install = "npm install -g @anthropic-ai/claude-code";
    let codex_install = "npm install -g @openai/codex";
    both_languages("agents_one_installed", || {
        let mut info = crate::support::info();
        info.agents = vec![
            availability("claude", "Claude Code", true, true, claude_install),
            availability("codex", "Codex", false, false, codex_install),
        ];
        App::new(info)
    });
    both_languages("agents_login", || {
        use codiva_protocol::agent::LoginState;
        let mut info = crate::support::info();
        let mut claude = availability("claude", "Claude Code", true, true, claude_install);
        claude.login = Some(LoginState::LoggedIn {
            method: Some("api_key from ANTHROPIC_API_KEY".into()),
        });
        let mut codex = availability("codex", "Codex", true, false, codex_install);
        codex.login = Some(LoginState::NotLoggedIn);
        info.agents = vec![claude, codex];
        App::new(info)
    });
    both_languages("agents_none_installed", || {
        let mut info = crate::support::info();
        info.agent = String::new();
        info.agents = vec![
            availability("claude", "Claude Code", false, false, claude_install),
            availability("codex", "Codex", false, false, codex_install),
        ];
        App::new(info)
    });
}

/// With no agent installed and nothing typed yet.
fn no_agent_app() -> App {
    let mut info = crate::support::info();
    info.agent = String::new();
    info.agents = vec![
        availability(
            "claude",
            "Claude Code",
            false,
            false,
            "npm install -g @anthropic-ai/claude-code",
        ),
        availability(
            "codex",
            "Codex",
            false,
            false,
            "npm install -g @openai/codex",
        ),
    ];
    App::new(info)
}

/// Regression: with no agent installed the screen cut its hint at 80 columns, said "type an
/// instruction" although nothing can run, and Enter erased what was typed (and the only way
/// on was a restart). Now the hint wraps, the composer says what Enter does (look for agents
/// again), and Enter keeps the text and ends the UI for its caller to start the manager
/// afresh; the UI comes back with the text and says what it found.
#[test]
fn with_no_agent_enter_keeps_the_text_and_looks_again() {
    both_languages("no_agent_typed", || {
        let mut app = no_agent_app();
        typed(&mut app, "add a health check");
        app
    });
    let mut app = no_agent_app();
    let screen = format!("{}", draw(&mut app, 80, 24).backend());
    assert!(!screen.contains("Type an instruction"), "{screen}");
    assert!(screen.contains("press Enter to look again"), "{screen}");
    assert!(!screen.contains('…'), "nothing is cut: {screen}");
    typed(&mut app, "add a health check");
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(effects, vec![Effect::Quit]);
    assert!(app.should_quit() && app.recheck_requested());
    assert_eq!(app.composer_mut().text(), "add a health check");
    // Back after the look: still none, or one found.
    both_languages("no_agent_still_none", || {
        let mut app = no_agent_app();
        app.rechecked("add a health check");
        app
    });
    both_languages("no_agent_found", || {
        let mut info = crate::support::info();
        info.agents = vec![availability(
            "claude",
            "Claude Code",
            true,
            true,
            "npm install -g @anthropic-ai/claude-code",
        )];
        let mut app = App::new(info);
        app.rechecked("add a health check");
        app
    });
}

/// `/agent NAME` in a session switches it; in the list it picks the agent for new sessions;
/// alone it opens the agent picker.
#[test]
fn the_agent_command_switches_or_picks() {
    let mut app = detail_app();
    assert_eq!(
        command(&mut app, "/agent codex"),
        vec![request(ClientRequest::SessionSetAgent(AgentParams {
            session_id: "ask-perm".into(),
            agent: "codex".into()
        }))]
    );
    let mut app = busy_app();
    assert!(command(&mut app, "/agent codex").is_empty());
    assert_eq!(app.info.agent, "codex");
    // Alone it opens the agent picker (tests/tui/agents.rs).
    assert_eq!(
        command(&mut app, "/agent"),
        vec![request(ClientRequest::AgentsList(NoParams {}))]
    );
    assert!(app.overlay_open());
}

/// A feature shows only when the session's agent has it: `/model NAME` on an agent that
/// cannot change models in a running session says so and asks nothing of the manager.
#[test]
fn a_model_change_the_agent_cannot_make_is_not_asked_for() {
    let mut app = detail_app();
    app.info.agents = vec![availability("claude", "Claude Code", true, true, "")];
    assert!(command(&mut app, "/model opus").is_empty());
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        screen.contains("Claude Code cannot change the model"),
        "{screen}"
    );
    let mut app = detail_app();
    let mut agent = availability("claude", "Claude Code", true, true, "");
    if let Some(caps) = agent.capabilities.as_mut() {
        caps.set_model = true;
    }
    app.info.agents = vec![agent];
    assert_eq!(
        command(&mut app, "/model opus"),
        vec![request(ClientRequest::SessionSetModel(ModelParams {
            session_id: "ask-perm".into(),
            model: Some("opus".into())
        }))]
    );
}

/// Sessions that run different agents: the model cell names each one's agent too (one agent:
/// unchanged), in both languages and sizes.
#[test]
fn the_list_names_the_agent_when_sessions_run_several() {
    let mixed = || {
        let mut app = App::new(crate::support::info());
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
        let mut codex = session(
            "add-tests",
            "Add tests for the parser",
            Status::Running,
            SessionPhase::Active,
            2,
        );
        codex.agent = "codex".into();
        codex.model = Some("gpt-5.5".into());
        add(&mut app, codex);
        app
    };
    both_languages("list_two_agents", mixed);
    let mut app = mixed();
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(screen.contains("codex/gpt-5.5"), "{screen}");
    assert!(screen.contains("claude/claude-s"), "{screen}");
    let mut app = busy_app();
    let screen = format!("{}", draw(&mut app, 120, 40).backend());
    assert!(
        !screen.contains("claude/"),
        "one agent: the cell shows the model only\n{screen}"
    );
}
