//! `codiva serve`: the session manager as JSON-RPC 2.0, one message per line.
//!
//! * `--stdio`: one client on stdin/stdout; stdout carries responses and notifications only —
//!   never logs. The end of stdin stops every session and the server.
//! * `--listen`: the repository's daemon in the foreground (`listen.rs`): many clients on a Unix
//!   socket; a client closing its connection never stops a session.
//!
//! Both speak the same per-connection protocol (`codiva_server::connection`), documented in
//! `docs/serve-api.md`; the daemon in `docs/daemon.md`.

pub(crate) mod listen;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use codiva_core::manager::Manager;
use codiva_server::{Connection, Ended, Host};

/// How long the answers still being computed get when stdin ends.
const STDIO_DRAIN: Duration = Duration::from_secs(30);

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Speak JSON-RPC over stdin/stdout to one client.
    #[arg(long, conflicts_with = "listen")]
    stdio: bool,
    /// Run the repository's daemon in the foreground: JSON-RPC for many clients on a Unix
    /// socket (docs/daemon.md).
    #[arg(long)]
    listen: bool,
    /// The repository to serve (default: the current directory).
    #[arg(long)]
    repo: Option<std::path::PathBuf>,
}

impl ServeArgs {
    /// `--listen`: the daemon.
    pub fn listen(&self) -> bool {
        self.listen
    }
}

pub async fn run(args: ServeArgs) -> ExitCode {
    if !args.stdio && !args.listen {
        eprintln!("codiva: serve needs a transport: codiva serve --stdio or codiva serve --listen");
        return ExitCode::from(2);
    }
    let cwd = match args.repo.map_or_else(std::env::current_dir, Ok) {
        Ok(cwd) => cwd,
        Err(err) => {
            eprintln!("codiva: no current directory: {err}");
            return ExitCode::from(2);
        }
    };
    if args.listen {
        return listen::run(cwd).await;
    }
    let started = match crate::bootstrap::start(cwd, "codiva serve").await {
        Ok(started) => started,
        Err(message) => {
            eprintln!("codiva: {message}");
            return ExitCode::FAILURE;
        }
    };
    let manager = started.manager;
    let host = Host {
        warnings: started.warnings,
        config_path: started.config_path,
        ..Host::new(crate::daemon::versions())
    };
    match serve_stdio(manager, Arc::new(host)).await {
        None => ExitCode::SUCCESS,
        Some(signal) => ExitCode::from(codiva_os::shutdown_signals::exit_status(signal)),
    }
}

/// Serves until stdin ends or `daemon/shutdown` is asked (`None`), or a shutdown signal arrives
/// (its number); then stops every session and writes the state.
async fn serve_stdio(manager: Manager, host: Arc<Host>) -> Option<i32> {
    let connection = Connection::open(tokio::io::stdout(), &manager);
    let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(true);
    let stop_asked = host.stop.clone();
    let stop = async move {
        tokio::select! {
            signal = signals.recv() => Some(signal),
            () = stop_asked.notified() => None,
        }
    };
    let ended = connection
        .serve(tokio::io::stdin(), &manager, &host, stop, STDIO_DRAIN)
        .await;
    manager.shutdown().await;
    connection.close().await;
    match ended {
        Ended::Closed => None,
        Ended::Stopped(signal) => signal,
    }
}
