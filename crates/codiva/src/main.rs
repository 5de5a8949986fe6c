//! The `codiva` binary: command-line parsing and wiring. Front ends drive the core through its
//! session commands and events only.

mod agents;
mod attach;
mod bootstrap;
mod daemon;
mod exec;
mod exec_pr;
mod remote;
mod serve;
mod tui;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "codiva",
    version,
    about = "Run coding-agent sessions in parallel from one terminal"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Put the terminal back in order after a crashed program (mouse reporting, bracketed
    /// paste, focus events, keyboard enhancement, alternate screen, cursor) and exit; another
    /// process's raw mode is `stty sane`'s to undo.
    #[arg(long)]
    reset_terminal: bool,
    /// Attach to the daemon of a repository on another host over `ssh` (`[USER@]HOST:PATH`;
    /// `$CODIVA_SSH` is the ssh command, `$CODIVA_REMOTE_CODIVA` the codiva there).
    #[arg(long, value_name = "[USER@]HOST:PATH")]
    remote: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run one agent session headless in the current directory and print its events.
    Exec(Box<exec::ExecArgs>),
    /// Serve the session manager of this repository as JSON-RPC (docs/serve-api.md).
    Serve(serve::ServeArgs),
    /// Connect to this repository's daemon, starting it when it does not run (docs/daemon.md).
    Attach(attach::AttachArgs),
    /// Stop this repository's daemon and every agent it runs.
    Stop(attach::StopArgs),
    /// List this repository's sessions without a UI.
    Status(attach::StatusArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.reset_terminal {
        return match codiva_tui::terminal::reset() {
            Ok(()) => {
                eprintln!(
                    "codiva: terminal reset: {}",
                    codiva_tui::terminal::RESET_SUMMARY
                );
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("codiva: cannot reset the terminal: {err}");
                ExitCode::FAILURE
            }
        };
    }
    let daemon = matches!(&cli.command, Some(Command::Serve(args)) if args.listen());
    if !daemon {
        // The daemon logs to its own file (serve::listen).
        init_logging(None);
    }
    // The terminal UI runs on the main thread (`block_on`). As a client of a daemon (the
    // default) it has nothing else to run but the connection's reader and writer: one thread
    // for all of it, which also waits on the socket and the frame timers itself, so an event
    // or a frame wakes one thread instead of a worker that then wakes the UI (those wake-ups
    // were most of the CPU of an idle spinner and of a streamed reply, docs/performance.md).
    // With the manager in this process (`CODIVA_IN_PROCESS=1`), one worker runs the sessions
    // beside the UI; a second one only added steal wake-ups. The daemon runs on one worker too:
    // a streamed batch passes the reader, the session, the manager and each connection's
    // writer, and with two workers each hop could wake the other (docs/performance.md).
    let ui_client_only = cli.command.is_none()
        && std::env::var_os("CODIVA_IN_PROCESS").is_none_or(|value| value != "1");
    let workers = if cli.command.is_none() || daemon {
        1
    } else {
        2
    };
    let runtime = if ui_client_only {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("codiva: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let code = match cli.command {
        None => match cli.remote {
            Some(target) => runtime.block_on(tui::run_remote(target)),
            None => runtime.block_on(tui::run()),
        },
        Some(Command::Exec(args)) => runtime.block_on(exec::run(*args)),
        Some(Command::Serve(args)) => runtime.block_on(serve::run(args)),
        Some(Command::Attach(args)) => runtime.block_on(attach::run_attach(args)),
        Some(Command::Stop(args)) => runtime.block_on(attach::run_stop(args)),
        Some(Command::Status(args)) => runtime.block_on(attach::run_status(args)),
    };
    // The front end has stopped its agents and written its state. Do not wait for the runtime's
    // blocking threads: one may sit in a read of stdin (serve's requests, the terminal) that
    // only a line or EOF would end, which kept `codiva serve` alive after a SIGTERM.
    runtime.shutdown_background();
    code
}

/// Diagnostics go to `$CODIVA_LOG` (a file) when set, else to `default` (the daemon's log),
/// filtered by `RUST_LOG` (default `info`); never to stdout, which carries the front end's
/// output.
pub(crate) fn init_logging(default: Option<PathBuf>) {
    let Some(path) = std::env::var_os("CODIVA_LOG")
        .map(PathBuf::from)
        .or(default)
    else {
        return;
    };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        eprintln!("codiva: cannot open the log file {}", path.display());
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .init();
}
