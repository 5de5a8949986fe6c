//! `codiva` with no arguments: the terminal UI over this repository's session manager, which
//! it reaches through a `codiva_client::Client`: by default over the socket of the
//! repository's daemon (started when it does not run, `crate::daemon`), so quitting leaves the
//! sessions running. Two undocumented modes remain for tests and debugging:
//! `CODIVA_IN_PROCESS=1` runs the manager in this process (quitting stops it), and
//! `CODIVA_TUI_OVER_SERVE=1` runs it in a `codiva serve --stdio` child.

use std::process::ExitCode;
use std::time::Duration;

use codiva_tui::app::AppInfo;
use codiva_tui::crash::CrashInfo;
use codiva_tui::notify::Notifier;
use codiva_tui::run::TuiOptions;

/// How long a crash waits for the session state to be written.
const CRASH_SAVE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the `serve` child gets to stop its sessions after the UI quits.
const SERVE_CHILD_GRACE: Duration = Duration::from_secs(10);

pub async fn run() -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(err) => {
            eprintln!("codiva: no current directory: {err}");
            return ExitCode::from(2);
        }
    };
    // The language first, so that every line below is in it; then the terminal, so that a
    // codiva that cannot take it starts nothing (no daemon, no manager); then the repository.
    choose_language();
    if let Err(err) = codiva_tui::terminal::check() {
        use codiva_tui::i18n::{AppText, tf};
        eprintln!(
            "codiva: {}",
            tf(AppText::StartNoTerminal, &[&err.to_string()])
        );
        return ExitCode::FAILURE;
    }
    if let Some(line) = repository_problem(&cwd).await {
        eprintln!("codiva: {line}");
        return ExitCode::FAILURE;
    }
    let over_serve = std::env::var_os("CODIVA_TUI_OVER_SERVE").is_some_and(|value| value == "1");
    let in_process = std::env::var_os("CODIVA_IN_PROCESS").is_some_and(|value| value == "1");
    // Again after `Quit::Recheck` (no agent was installed): a fresh manager finds the agents
    // installed since, and the UI comes back with what was typed.
    let mut rechecked = None;
    // After the daemon went away (killed, out of memory): a new one is started and the UI
    // attaches to it with what the user had ([`codiva_tui::run::Resume`]).
    let mut resume = None;
    let mut lost_tries = 0;
    loop {
        let ran = if over_serve {
            run_over_serve(cwd.clone(), rechecked.take()).await
        } else if !in_process {
            run_over_daemon(cwd.clone(), rechecked.take(), resume.take()).await
        } else {
            run_in_process(cwd.clone(), rechecked.take()).await
        };
        match ran {
            Ran::Exit(code) => return code,
            Ran::Recheck(draft) => rechecked = Some(draft),
            Ran::Lost(lost) => {
                resume = Some(lost);
                lost_tries = 0;
            }
            Ran::AttachFailed(lost, message) if lost_tries < crate::remote::RETRIES => {
                lost_tries += 1;
                tracing::info!(%message, lost_tries, "attaching to the daemon again");
                let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(true);
                tokio::select! {
                    () = tokio::time::sleep(crate::remote::RETRY_DELAY) => {}
                    received = signals.recv() => {
                        return ExitCode::from(codiva_os::shutdown_signals::exit_status(received));
                    }
                }
                resume = Some(lost);
            }
            Ran::AttachFailed(_, message) => {
                eprintln!("codiva: {message}");
                return ExitCode::FAILURE;
            }
        }
    }
}

/// How one run of the UI ended, for [`run`].
enum Ran {
    Exit(ExitCode),
    /// Look for the agents again (a fresh manager) and run the UI again with this draft.
    Recheck(String),
    /// The daemon went away: attach again (a new one is started) and come back with this.
    Lost(codiva_tui::run::Resume),
    /// Attaching again after [`Ran::Lost`] failed (why): try again, a few times.
    AttachFailed(codiva_tui::run::Resume, String),
}

/// How a run of the UI over a manager this process started ended: a recheck, else done (a
/// terminal error said).
fn ran(result: std::io::Result<codiva_tui::run::Quit>) -> Ran {
    match result {
        Ok(codiva_tui::run::Quit::Recheck { draft }) => Ran::Recheck(draft),
        Ok(_) => Ran::Exit(ExitCode::SUCCESS),
        Err(err) => {
            eprintln!("codiva: terminal error: {err}");
            Ran::Exit(ExitCode::FAILURE)
        }
    }
}

/// The UI over a manager in this process (`CODIVA_IN_PROCESS=1`): quitting stops it.
async fn run_in_process(cwd: std::path::PathBuf, rechecked: Option<String>) -> Ran {
    let started = match crate::bootstrap::start(cwd.clone(), "codiva (terminal UI)").await {
        Ok(started) => started,
        Err(message) => {
            eprintln!("codiva: {message}");
            return Ran::Exit(ExitCode::FAILURE);
        }
    };
    let manager = started.manager;
    codiva_tui::i18n::init(crate::tui::ui_language(started.config.language.as_deref()));
    let root = manager.root().to_path_buf();
    let home = codiva_core::paths::home_dir();
    let shown_cwd = match root.strip_prefix(&home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => root.display().to_string(),
    };
    let config = &started.config;
    // A panic writes a crash log and saves the sessions first. The save runs on the manager's
    // task (a tokio worker; the UI runs on this thread) and the hook waits at most
    // CRASH_SAVE_TIMEOUT on a std channel, so a manager that cannot answer (it is the one that
    // panicked, or the runtime is gone) only costs the timeout.
    let status_counts = codiva_tui::crash::status_counts_handle();
    let saver = manager.clone();
    codiva_tui::crash::install(
        codiva_core::paths::state_dir(),
        CrashInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            status_counts: status_counts.clone(),
            flush: Some(Box::new(move || {
                let _ = saver.save_now_blocking(CRASH_SAVE_TIMEOUT);
            })),
        },
    );
    let options = TuiOptions {
        info: AppInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            cwd: shown_cwd,
            base: manager.base().to_owned(),
            agent: manager.default_agent().unwrap_or_default().to_owned(),
            model: config.model.clone(),
            warnings: started.warnings.clone(),
            agents: manager.agents().to_vec(),
            remote: None,
            detached: false,
        },
        input_history_path: codiva_tui::composer::InputHistory::path_for(&root),
        prompt_path: root.join(".codiva").join("prompt.md"),
        mouse: config.mouse,
        notifier: Notifier::from_env(config.notifications),
        status_counts,
        rechecked,
        resume: None,
    };
    let client = codiva_server::in_process::client(
        manager.clone(),
        codiva_server::Host {
            warnings: started.warnings,
            config_path: started.config_path.clone(),
            ..codiva_server::Host::new(crate::daemon::versions())
        },
    );
    let result = codiva_tui::run::run(client, options).await;
    manager.shutdown().await;
    ran(result)
}

/// The UI over a `codiva serve --stdio` child of this binary: the child runs the manager, this
/// process only the UI (its own configuration for the UI's settings).
async fn run_over_serve(cwd: std::path::PathBuf, rechecked: Option<String>) -> Ran {
    use codiva_protocol::methods::request;
    use codiva_protocol::params::NoParams;
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => {
            eprintln!("codiva: cannot find this program: {err}");
            return Ran::Exit(ExitCode::FAILURE);
        }
    };
    let argv = [
        exe.display().to_string(),
        "serve".to_owned(),
        "--stdio".to_owned(),
        "--repo".to_owned(),
        cwd.display().to_string(),
    ];
    // The child's stderr would scribble on the UI; its warnings come through the protocol.
    let child = match codiva_client::stream::spawn_stdio(&argv, std::process::Stdio::null()) {
        Ok(child) => child,
        Err(err) => {
            eprintln!("codiva: cannot start codiva serve: {err}");
            return Ran::Exit(ExitCode::FAILURE);
        }
    };
    let client = child.client.clone();
    let init = match client.call::<request::Initialize>(NoParams {}).await {
        Ok(init) => init,
        Err(err) => {
            eprintln!("codiva: codiva serve did not start: {err}");
            let _ = child.shutdown(SERVE_CHILD_GRACE).await;
            return Ran::Exit(ExitCode::FAILURE);
        }
    };
    let agents = match first_agents(&client, &init).await {
        Ok(agents) => agents,
        Err(err) => {
            eprintln!("codiva: codiva serve did not list its agents: {err}");
            let _ = child.shutdown(SERVE_CHILD_GRACE).await;
            return Ran::Exit(ExitCode::FAILURE);
        }
    };
    let mut options = remote_options(init, agents, false);
    options.rechecked = rechecked;
    let result = codiva_tui::run::run(client, options).await;
    let _ = child.shutdown(SERVE_CHILD_GRACE).await;
    ran(result)
}

/// The UI's language: `CODIVA_LANG`, then the config's `language` (`config_language`), then
/// the locale.
pub(crate) fn ui_language(config_language: Option<&str>) -> codiva_protocol::lang::Lang {
    let codiva_lang = std::env::var("CODIVA_LANG").ok();
    let locale = codiva_protocol::lang::locale_from_env();
    codiva_protocol::lang::Lang::choose(codiva_lang.as_deref(), config_language, locale.as_deref())
}

/// Sets the UI's language from the configuration file and the environment.
fn choose_language() {
    let (config, _) = codiva_core::config::load(&codiva_core::config::config_path());
    codiva_tui::i18n::init(crate::tui::ui_language(config.language.as_deref()));
}

/// Not in a git repository, or in one with no commit: the one line that says so, in the
/// UI's language. Other problems are the manager's to report when it starts.
async fn repository_problem(cwd: &std::path::Path) -> Option<String> {
    use codiva_core::git::GitError;
    use codiva_tui::i18n::{AppText, tf};
    match codiva_core::git::Repo::open(cwd).await {
        Err(GitError::NotARepo { path }) => {
            Some(tf(AppText::StartNotARepo, &[&path.display().to_string()]))
        }
        Err(GitError::NoCommits { path }) => {
            Some(tf(AppText::StartNoCommits, &[&path.display().to_string()]))
        }
        _ => None,
    }
}

/// The agents the first screen shows: `initialize`'s listing, which costs the server nothing
/// (the UI's run loop asks `agents/list` at once and fills in each agent's login and version
/// when they come: those run each agent's own checks, a second or so for Claude Code), or
/// `agents/list` from a server that predates it.
async fn first_agents(
    client: &codiva_client::Client,
    init: &codiva_protocol::params::InitializeResult,
) -> Result<Vec<codiva_protocol::agent::AgentAvailability>, codiva_client::ClientError> {
    use codiva_protocol::methods::request;
    use codiva_protocol::params::NoParams;
    if !init.agents.is_empty() {
        return Ok(init.agents.clone());
    }
    let list = client.call::<request::AgentsList>(NoParams {}).await?;
    Ok(list.agents)
}

/// The UI's options for a manager in another process: the UI's own settings from this
/// machine's configuration, the rest from the server's `initialize` and `agents/list`.
fn remote_options(
    init: codiva_protocol::params::InitializeResult,
    agents: Vec<codiva_protocol::agent::AgentAvailability>,
    detached: bool,
) -> TuiOptions {
    let (config, _) = codiva_core::config::load(&codiva_core::config::config_path());
    codiva_tui::i18n::init(crate::tui::ui_language(config.language.as_deref()));
    let root = init.repo.root;
    let home = codiva_core::paths::home_dir();
    let shown_cwd = match root.strip_prefix(&home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => root.display().to_string(),
    };
    let status_counts = codiva_tui::crash::status_counts_handle();
    // The server keeps the state (a `serve` child saves and stops when its stdin closes; the
    // daemon goes on): the crash hook needs no manager.
    codiva_tui::crash::install(
        codiva_core::paths::state_dir(),
        CrashInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            status_counts: status_counts.clone(),
            flush: None,
        },
    );
    TuiOptions {
        info: AppInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            cwd: shown_cwd,
            base: init.repo.base,
            agent: agents
                .iter()
                .find(|agent| agent.default)
                .map(|agent| agent.id.clone())
                .unwrap_or_default(),
            model: config.model.clone(),
            warnings: init.warnings,
            agents,
            remote: None,
            detached,
        },
        input_history_path: codiva_tui::composer::InputHistory::path_for(&root),
        prompt_path: root.join(".codiva").join("prompt.md"),
        mouse: config.mouse,
        notifier: Notifier::from_env(config.notifications),
        status_counts,
        rechecked: None,
        resume: None,
    }
}

/// The UI over the repository's daemon: quitting detaches (one line says what keeps running);
/// `/shutdown` stops the daemon and its agents.
async fn run_over_daemon(
    cwd: std::path::PathBuf,
    rechecked: Option<String>,
    resume: Option<codiva_tui::run::Resume>,
) -> Ran {
    use codiva_tui::i18n::{AppText, tn};
    // Attaching again after the daemon died: a signal (the terminal closed, SIGTERM) ends it.
    let attaching = async {
        if resume.is_none() {
            return Some(crate::daemon::attach(&cwd).await);
        }
        let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(true);
        tokio::select! {
            attached = crate::daemon::attach(&cwd) => Some(attached),
            _ = signals.recv() => None,
        }
    };
    let Some(attached) = attaching.await else {
        return Ran::Exit(ExitCode::FAILURE);
    };
    let attached = match attached {
        Ok(attached) => attached,
        Err(message) => match resume {
            Some(resume) => return Ran::AttachFailed(resume, message),
            None => {
                eprintln!("codiva: {message}");
                return Ran::Exit(ExitCode::FAILURE);
            }
        },
    };
    let client = attached.client;
    let socket = attached.place.socket.clone();
    let agents = match first_agents(&client, &attached.init).await {
        Ok(agents) => agents,
        Err(err) => {
            eprintln!("codiva: the daemon did not list its agents: {err}");
            return Ran::Exit(ExitCode::FAILURE);
        }
    };
    let mut options = remote_options(attached.init, agents, true);
    options.rechecked = rechecked;
    options.resume = resume;
    let result = codiva_tui::run::run(client.clone(), options).await;
    // The terminal may be gone (SIGHUP): what cannot be written is dropped.
    let say = |line: String| {
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "codiva: {line}");
    };
    match result {
        Ok(codiva_tui::run::Quit::Shutdown) => match crate::daemon::stop(&client).await {
            Ok(()) => say(codiva_tui::i18n::t(AppText::DaemonStopped).to_owned()),
            Err(message) => {
                eprintln!("codiva: {message}");
                return Ran::Exit(ExitCode::FAILURE);
            }
        },
        // No agent was installed: a daemon started afresh finds the ones installed since
        // (it has no session that could be working).
        Ok(codiva_tui::run::Quit::Recheck { draft }) => {
            if let Err(message) = crate::daemon::stop(&client).await {
                eprintln!("codiva: {message}");
                return Ran::Exit(ExitCode::FAILURE);
            }
            return Ran::Recheck(draft);
        }
        // The daemon died (killed, out of memory: its socket file is still there): the caller
        // starts a new one and attaches again; the sessions come back from the state it wrote.
        Ok(codiva_tui::run::Quit::Lost(resume)) if socket.exists() => return Ran::Lost(resume),
        // It was stopped (`codiva stop`, `/shutdown` in another UI, a signal, idle): it removes
        // its socket first. Not started again behind the user's back.
        Ok(codiva_tui::run::Quit::Lost(_)) => {
            eprintln!(
                "codiva: {}",
                codiva_tui::i18n::t(codiva_tui::i18n::AgentText::DaemonGone)
            );
            return Ran::Exit(ExitCode::FAILURE);
        }
        Ok(codiva_tui::run::Quit::Detach) => {
            let working = crate::daemon::working_count(&client).await.unwrap_or(0);
            say(if working > 0 {
                tn(
                    working,
                    AppText::DetachedWorkingOne,
                    AppText::DetachedWorking,
                    &[],
                )
            } else {
                codiva_tui::i18n::t(AppText::DetachedIdle).to_owned()
            });
        }
        Err(err) => {
            eprintln!("codiva: terminal error: {err}");
            return Ran::Exit(ExitCode::FAILURE);
        }
    }
    Ran::Exit(ExitCode::SUCCESS)
}

use crate::remote::{RETRIES as REMOTE_RETRIES, RETRY_DELAY as REMOTE_RETRY_DELAY};

/// `codiva --remote [USER@]HOST:PATH`: the UI over the daemon of a repository on another host,
/// through `ssh` (`crate::remote`). A dropped connection is attached again — the daemon and its
/// agents went on there; quitting leaves them running, `/shutdown` stops them.
pub async fn run_remote(target: String) -> ExitCode {
    use codiva_tui::i18n::{AgentText, tf, tn};
    let shown = target.clone();
    let target = match crate::remote::RemoteTarget::parse(&target) {
        Ok(target) => target,
        Err(message) => {
            eprintln!("codiva: {message}");
            return ExitCode::from(2);
        }
    };
    let host = target.host().to_owned();
    let say = |line: String| {
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "codiva: {line}");
    };
    let mut reconnecting = false;
    let mut failures = 0;
    let mut rechecked = None;
    let mut resume = None;
    loop {
        let connection = match crate::remote::attach(&target).await {
            Ok(connection) => connection,
            Err(message) if reconnecting && failures < REMOTE_RETRIES => {
                failures += 1;
                eprintln!("codiva: {message}");
                tokio::time::sleep(REMOTE_RETRY_DELAY).await;
                continue;
            }
            Err(message) => {
                eprintln!("codiva: {message}");
                return ExitCode::FAILURE;
            }
        };
        failures = 0;
        let client = connection.client.clone();
        let agents = match first_agents(&client, &connection.init).await {
            Ok(agents) => agents,
            Err(err) => {
                eprintln!("codiva: the daemon on {host} did not list its agents: {err}");
                connection.close(SERVE_CHILD_GRACE).await;
                return ExitCode::FAILURE;
            }
        };
        let root = connection.init.repo.root.clone();
        let mut options = remote_options(connection.init.clone(), agents, true);
        options.info.cwd = root.display().to_string();
        options.info.remote = Some(crate::remote::host_for_ui(&target));
        options.rechecked = rechecked.take();
        options.resume = resume.take();
        // The composer's input history stays on this machine, one per remote repository.
        options.input_history_path = codiva_core::paths::state_dir()
            .join("remote")
            .join(crate::daemon::name_of(std::path::Path::new(&format!(
                "{}:{}",
                target.destination, target.path
            ))))
            .join("history.jsonl");
        let result = codiva_tui::run::run(client.clone(), options).await;
        match result {
            // No agent was installed there: its daemon started afresh finds the ones
            // installed since.
            Ok(codiva_tui::run::Quit::Recheck { draft }) => {
                if let Err(message) = crate::daemon::stop(&client).await {
                    eprintln!("codiva: {message}");
                }
                connection.close(SERVE_CHILD_GRACE).await;
                rechecked = Some(draft);
                continue;
            }
            Ok(codiva_tui::run::Quit::Lost(lost)) => {
                connection.close(Duration::from_secs(2)).await;
                eprintln!("codiva: {}", tf(AgentText::RemoteLost, &[&host]));
                reconnecting = true;
                resume = Some(lost);
                continue;
            }
            Ok(codiva_tui::run::Quit::Shutdown) => match crate::daemon::stop(&client).await {
                Ok(()) => say(tf(AgentText::RemoteGone, &[&host])),
                Err(message) => eprintln!("codiva: {message}"),
            },
            Ok(codiva_tui::run::Quit::Detach) => {
                let working = crate::daemon::working_count(&client).await.unwrap_or(0);
                say(tn(
                    working,
                    AgentText::RemoteDetachedOne,
                    AgentText::RemoteDetached,
                    &[&host, &shown],
                ));
            }
            Err(err) => {
                eprintln!("codiva: terminal error: {err}");
                connection.close(SERVE_CHILD_GRACE).await;
                return ExitCode::FAILURE;
            }
        }
        connection.close(SERVE_CHILD_GRACE).await;
        return ExitCode::SUCCESS;
    }
}
