//! The daemon's command-line clients: `codiva attach` (a bridge to the daemon's socket, or its
//! path for an editor), `codiva stop` and `codiva status` (docs/daemon.md).

use std::path::PathBuf;
use std::process::ExitCode;

use codiva_protocol::methods::request;
use codiva_protocol::params::NoParams;
use codiva_protocol::text::sanitize_title;
use codiva_tui::i18n::{AgentText, tf, tn};
use tokio::io::AsyncWriteExt;

use crate::daemon;

#[derive(clap::Args, Debug)]
pub struct AttachArgs {
    /// Bridge stdin/stdout to the daemon's socket (the serve protocol, docs/serve-api.md).
    #[arg(long, required_unless_present = "print_socket")]
    stdio: bool,
    /// Print the daemon's socket path and exit (the daemon is started when it does not run).
    #[arg(long, conflicts_with = "stdio")]
    print_socket: bool,
    /// The repository (default: the current directory).
    #[arg(long)]
    repo: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct StopArgs {
    /// The repository (default: the current directory).
    #[arg(long)]
    repo: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// One JSON object: `{"daemon": {…} | null, "sessions": [session/list's rows]}`.
    #[arg(long)]
    json: bool,
    /// The repository (default: the current directory).
    #[arg(long)]
    repo: Option<PathBuf>,
}

fn repo_or_cwd(repo: Option<PathBuf>) -> Result<PathBuf, String> {
    repo.map_or_else(std::env::current_dir, Ok)
        .map_err(|err| format!("no current directory: {err}"))
}

/// The daemon's place for the repository named (default: the current directory).
async fn place_of(repo: Option<PathBuf>) -> Result<daemon::Place, String> {
    daemon::place_for(&repo_or_cwd(repo)?).await
}

/// The language of these commands' lines: `CODIVA_LANG`, the configuration's `language`, the
/// locale (as the UI picks it).
fn init_language() {
    let (config, _) = codiva_core::config::load(&codiva_core::config::config_path());
    codiva_tui::i18n::init(crate::tui::ui_language(config.language.as_deref()));
}

/// Prints one line on stdout. A reader that left (`codiva status | head -1`: a broken pipe)
/// is no error: `Err(SUCCESS)`, and the command ends quietly; any other failure is said.
fn print_line(text: impl std::fmt::Display) -> Result<(), ExitCode> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(err) => Err(fail(&format!("cannot write the output: {err}"))),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("codiva: {message}");
    ExitCode::FAILURE
}

pub async fn run_attach(args: AttachArgs) -> ExitCode {
    let repo = match repo_or_cwd(args.repo) {
        Ok(repo) => repo,
        Err(message) => return fail(&message),
    };
    // The handshake first: a daemon of another version is replaced when it can be.
    let place = match daemon::attach(&repo).await {
        Ok(attached) => {
            tracing::debug!(version = %attached.init.server.version, "attached to the daemon");
            // The bridge (or the editor) opens a connection of its own.
            drop(attached.client);
            attached.place
        }
        Err(message) => return fail(&message),
    };
    if args.print_socket {
        return print_line(place.socket.display())
            .err()
            .unwrap_or(ExitCode::SUCCESS);
    }
    match daemon::connect_or_start(&place).await {
        Ok(stream) => bridge(stream).await,
        Err(message) => fail(&message),
    }
}

/// stdin → the socket, the socket → stdout, until the daemon closes the connection (after the
/// end of stdin it answers what it was asked, then closes).
async fn bridge(stream: tokio::net::UnixStream) -> ExitCode {
    let (mut from_daemon, mut to_daemon) = stream.into_split();
    let upstream = tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        let _ = tokio::io::copy(&mut stdin, &mut to_daemon).await;
        let _ = to_daemon.shutdown().await;
    });
    let mut stdout = tokio::io::stdout();
    let copied = tokio::io::copy(&mut from_daemon, &mut stdout).await;
    let _ = stdout.flush().await;
    upstream.abort();
    match copied {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => fail(&format!("the connection to the daemon failed: {err}")),
    }
}

pub async fn run_stop(args: StopArgs) -> ExitCode {
    let place = match place_of(args.repo).await {
        Ok(place) => place,
        Err(message) => return fail(&message),
    };
    let stream = match daemon::connect(&place).await {
        Ok(Some(stream)) => stream,
        Ok(None) => {
            init_language();
            let root = place.root.display().to_string();
            let line = format!("codiva: {}", tf(AgentText::NoDaemon, &[&root]));
            return print_line(line).err().unwrap_or(ExitCode::SUCCESS);
        }
        Err(message) => return fail(&message),
    };
    let (client, _) = match daemon::handshake(stream).await {
        Ok(opened) => opened,
        Err(message) => return fail(&message),
    };
    let working = daemon::working_count(&client).await.unwrap_or(0);
    match daemon::stop(&client).await {
        Ok(()) => {
            init_language();
            let root = place.root.display().to_string();
            let line = if working == 0 {
                tf(AgentText::StoppedIdle, &[&root])
            } else {
                tn(
                    working,
                    AgentText::StoppedOne,
                    AgentText::StoppedMany,
                    &[&root],
                )
            };
            print_line(format!("codiva: {line}"))
                .err()
                .unwrap_or(ExitCode::SUCCESS)
        }
        Err(message) => fail(&message),
    }
}

pub async fn run_status(args: StatusArgs) -> ExitCode {
    let place = match place_of(args.repo).await {
        Ok(place) => place,
        Err(message) => return fail(&message),
    };
    let stream = match daemon::connect(&place).await {
        Ok(stream) => stream,
        Err(message) => return fail(&message),
    };
    let Some(stream) = stream else {
        let printed = if args.json {
            print_line(serde_json::json!({"daemon": null, "sessions": []}))
        } else {
            init_language();
            let root = place.root.display().to_string();
            print_line(format!("codiva: {}", tf(AgentText::NoDaemon, &[&root])))
        };
        return printed.err().unwrap_or(ExitCode::SUCCESS);
    };
    let (client, init) = match daemon::handshake(stream).await {
        Ok(opened) => opened,
        Err(message) => return fail(&message),
    };
    let sessions = match client.call::<request::SessionList>(NoParams {}).await {
        Ok(list) => list.sessions,
        Err(err) => return fail(&format!("the daemon did not list its sessions: {err}")),
    };
    if args.json {
        let value = serde_json::json!({
            "daemon": {
                "version": init.server.version,
                "protocol_version": init.protocol_version,
                "root": init.repo.root,
                "socket": place.socket,
            },
            "sessions": sessions,
        });
        return print_line(value).err().unwrap_or(ExitCode::SUCCESS);
    }
    init_language();
    let root = place.root.display().to_string();
    if let Err(code) = print_line(tn(
        sessions.len(),
        AgentText::StatusOne,
        AgentText::StatusMany,
        &[&init.server.version, &root],
    )) {
        return code;
    }
    for session in &sessions {
        let phase = match &session.phase {
            codiva_protocol::manager::SessionPhase::Active => session.status.as_str(),
            codiva_protocol::manager::SessionPhase::Preparing => "preparing",
            codiva_protocol::manager::SessionPhase::Conflict { .. } => "conflict",
            codiva_protocol::manager::SessionPhase::Merged { .. } => "merged",
            codiva_protocol::manager::SessionPhase::Discarded => "discarded",
        };
        if let Err(code) = print_line(format_args!(
            "  {:<24} {:<20} {:<8} {}",
            sanitize_title(&session.id).unwrap_or_default(),
            phase,
            sanitize_title(&session.agent).unwrap_or_default(),
            sanitize_title(&session.title).unwrap_or_default()
        )) {
            return code;
        }
    }
    ExitCode::SUCCESS
}
