//! An ACP agent's login over the protocol (`authenticate`), through the Manager's
//! `agents/login`, with the project's scripted agent: its methods offered in its own words,
//! an API-key method only named, a code typed back to the prompt it prints outside the
//! protocol, its refusal in its words, and a session that needed the login running after it.

use std::time::Duration;

use codiva_protocol::agent::{LoginPhase, LoginProgress};
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::Status;
use codiva_testkit::Script;
use tokio::sync::broadcast;

use super::harness::{Run, Which};

const WAIT: Duration = Duration::from_secs(60);

/// The next progress of login `id` that `pred` accepts.
async fn progress(
    events: &mut codiva_core::manager::EventReceiver,
    id: &str,
    what: &str,
    pred: impl Fn(&LoginProgress) -> bool,
) -> LoginProgress {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(ManagerEvent::Login { login })) if login.login_id == id && pred(&login) => {
                return login;
            }
            Ok(Ok(ManagerEvent::Login { login })) if login.login_id == id => {
                assert_eq!(login.phase, LoginPhase::Running, "before {what}: {login:?}");
            }
            Ok(Ok(_)) | Err(_) if tokio::time::Instant::now() < deadline => {}
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("no {what}: {other:?}"),
        }
    }
}

fn gone(pid_file: &std::path::Path) -> bool {
    let pid: i32 = std::fs::read_to_string(pid_file)
        .expect("the agent wrote its pid")
        .trim()
        .parse()
        .unwrap();
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) != 0 }
}

#[tokio::test]
async fn a_session_that_needs_login_runs_after_the_agents_own_login() {
    let mut run = Run::start(
        "scripted-login",
        Which::ScriptedLogin,
        Script::new(),
        "hello",
    )
    .await;
    // session/new answered -32000 (ACP's auth_required).
    run.settles(Status::NeedsLogin).await;
    let agent = "scripted-acp";
    let credentials = run.sandbox.home.path().join("scripted-login");
    let mut events = run.manager.subscribe();

    // An API-key method is only named: codiva stores no key.
    let id = run.manager.login(agent).await.expect("login starts");
    let offered = progress(&mut events, &id, "a choice", |p| p.choose_method).await;
    let names: Vec<&str> = offered.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["Log in to Scripted", "Use SCRIPTED_API_KEY"]);
    assert_eq!(offered.methods[1].env_vars, ["SCRIPTED_API_KEY"]);
    assert!(
        run.manager.login(agent).await.is_err(),
        "one login at a time"
    );
    run.manager.login_input(&id, "scripted-key").await.unwrap();
    let ended = progress(&mut events, &id, "the end", |p| {
        p.phase != LoginPhase::Running
    })
    .await;
    assert_eq!(ended.phase, LoginPhase::Failed);
    assert_eq!(ended.env_vars, ["SCRIPTED_API_KEY"]);
    assert!(ended.error.unwrap().contains("SCRIPTED_API_KEY"));

    // A wrong code: the agent's refusal, in its words, and its process gone.
    let id = run.manager.login(agent).await.expect("login starts");
    progress(&mut events, &id, "a choice", |p| p.choose_method).await;
    run.manager
        .login_input(&id, "scripted-login")
        .await
        .unwrap();
    let asked = progress(&mut events, &id, "a prompt", |p| {
        p.accepts_code && p.url.is_some()
    })
    .await;
    assert_eq!(
        asked.url.as_deref(),
        Some("https://login.example/authorize?client=scripted&state=1")
    );
    assert!(!asked.choose_method);
    for line in &asked.output {
        assert!(!line.contains('\u{1b}'), "{line:?}");
    }
    run.manager.login_input(&id, "bad-code").await.unwrap();
    let ended = progress(&mut events, &id, "the end", |p| {
        p.phase != LoginPhase::Running
    })
    .await;
    assert_eq!(ended.phase, LoginPhase::Failed);
    assert_eq!(
        ended.error.as_deref(),
        Some("Internal error: invalid authorization code (Opens a page that shows a code)")
    );
    assert!(
        ended.output.iter().any(|l| l.contains("invalid_grant")),
        "{:?}",
        ended.output
    );
    assert!(gone(&credentials.with_extension("pid")));
    assert!(!credentials.exists());

    // The right code: the agent keeps its login; cancelling a finished login is refused.
    let id = run.manager.login(agent).await.expect("login starts");
    progress(&mut events, &id, "a choice", |p| p.choose_method).await;
    run.manager
        .login_input(&id, "scripted-login")
        .await
        .unwrap();
    progress(&mut events, &id, "a prompt", |p| p.accepts_code).await;
    run.manager.login_input(&id, "good-code").await.unwrap();
    let ended = progress(&mut events, &id, "the end", |p| {
        p.phase != LoginPhase::Running
    })
    .await;
    assert_eq!(ended.phase, LoginPhase::Succeeded, "{ended:?}");
    assert!(credentials.is_file());
    assert!(gone(&credentials.with_extension("pid")));
    assert!(run.manager.login_cancel(&id).await.is_err());

    // The session's next message opens its session now.
    run.send("again").await;
    run.settles(Status::Completed).await;
    assert_eq!(run.assistant_texts(), ["echo: again"]);
    run.finish().await;
}

#[tokio::test]
async fn a_login_waiting_for_a_choice_is_cancelled_with_its_process() {
    let mut run = Run::start(
        "scripted-login-cancel",
        Which::ScriptedLogin,
        Script::new(),
        "hi",
    )
    .await;
    run.settles(Status::NeedsLogin).await;
    let mut events = run.manager.subscribe();
    let id = run
        .manager
        .login("scripted-acp")
        .await
        .expect("login starts");
    progress(&mut events, &id, "a choice", |p| p.choose_method).await;
    // A method the agent does not offer is no choice: the login still waits.
    run.manager.login_input(&id, "nope").await.unwrap();
    run.manager
        .login_input(&id, "scripted-login")
        .await
        .unwrap();
    progress(&mut events, &id, "a prompt", |p| p.accepts_code).await;
    run.manager.login_cancel(&id).await.unwrap();
    let ended = progress(&mut events, &id, "the end", |p| {
        p.phase != LoginPhase::Running
    })
    .await;
    assert_eq!(ended.phase, LoginPhase::Cancelled);
    let pid_file = run.sandbox.home.path().join("scripted-login.pid");
    assert!(gone(&pid_file));
    run.finish().await;
}
