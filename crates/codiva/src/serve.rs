//! `codiva serve --stdio`: the session manager as JSON-RPC 2.0, one message per line.
//!
//! stdin carries requests (and notifications from the client, which are ignored), stdout
//! carries responses and notifications only — never logs. Requests are handled concurrently;
//! a bad request gets a JSON-RPC error and never stops the server. The API is documented in
//! `docs/serve-api.md`.

pub(crate) mod methods;
pub(crate) mod rpc;

use std::process::ExitCode;
use std::sync::Arc;

use codiva_core::manager::{Manager, SequencedEvent};
use codiva_core::process::{LineReader, ReadLine};
use codiva_protocol::ServerNotification;
use codiva_protocol::params::WarningParams;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use rpc::{RpcError, error_response};

/// Longest request line accepted; longer ones are skipped with an error response.
const MAX_REQUEST: usize = 16 * 1024 * 1024;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Speak JSON-RPC over stdin/stdout (the only transport so far).
    #[arg(long)]
    stdio: bool,
    /// The repository to serve (default: the current directory).
    #[arg(long)]
    repo: Option<std::path::PathBuf>,
}

pub async fn run(args: ServeArgs) -> ExitCode {
    if !args.stdio {
        eprintln!("codiva: serve needs a transport: codiva serve --stdio");
        return ExitCode::from(2);
    }
    let cwd = match args.repo.map_or_else(std::env::current_dir, Ok) {
        Ok(cwd) => cwd,
        Err(err) => {
            eprintln!("codiva: no current directory: {err}");
            return ExitCode::from(2);
        }
    };
    let started = match crate::bootstrap::start(cwd, "codiva serve").await {
        Ok(started) => started,
        Err(message) => {
            eprintln!("codiva: {message}");
            return ExitCode::FAILURE;
        }
    };
    let manager = started.manager;
    let host = methods::Host {
        warnings: started.warnings,
        config_path: started.config_path,
    };
    match serve_stdio(manager, Arc::new(host)).await {
        None => ExitCode::SUCCESS,
        Some(signal) => ExitCode::from(codiva_os::shutdown_signals::exit_status(signal)),
    }
}

/// Serves until stdin ends (`None`) or a shutdown signal arrives (its number); then stops every
/// session and writes the state.
async fn serve_stdio(manager: Manager, host: Arc<methods::Host>) -> Option<i32> {
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(message) = out_rx.recv().await {
            let Ok(mut line) = serde_json::to_vec(&message) else {
                continue;
            };
            line.push(b'\n');
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let notifier = tokio::spawn(forward_events(
        manager.subscribe_sequenced(),
        out_tx.clone(),
    ));
    for warning in host.warnings.iter() {
        let _ = out_tx.send(rpc::notification(&ServerNotification::Warning(
            WarningParams {
                seq: None,
                message: warning.clone(),
            },
        )));
    }

    let mut reader = LineReader::with_max_line(tokio::io::stdin(), MAX_REQUEST);
    let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(true);
    let mut stopped_by = None;
    // Requests being answered: at stdin's end they are answered before the manager stops (a
    // script that pipes requests in and closes stdin gets every answer).
    let mut handlers = tokio::task::JoinSet::new();
    loop {
        while handlers.try_join_next().is_some() {}
        tokio::select! {
            line = reader.next_line() => match line {
                Ok(Some(ReadLine::Line(bytes))) => {
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let manager = manager.clone();
                    let out = out_tx.clone();
                    let host = host.clone();
                    handlers.spawn(async move {
                        if let Some(response) = handle_line(&manager, &host, &bytes).await {
                            let _ = out.send(response);
                        }
                    });
                }
                Ok(Some(ReadLine::Oversized { bytes })) => {
                    let _ = out_tx.send(error_response(
                        Value::Null,
                        RpcError::invalid_request(format!(
                            "request of {bytes} bytes is over the limit of {MAX_REQUEST} bytes; it was skipped"
                        )),
                    ));
                }
                Ok(None) | Err(_) => break,
            },
            signal = signals.recv() => {
                stopped_by = Some(signal);
                break;
            }
        }
    }
    if stopped_by.is_none() {
        let answered = async { while handlers.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(std::time::Duration::from_secs(30), answered).await;
    }
    manager.shutdown().await;
    notifier.abort();
    drop(out_tx);
    let _ = writer.await;
    stopped_by
}

/// One request line → its response (`None` for a notification from the client).
async fn handle_line(manager: &Manager, host: &methods::Host, bytes: &[u8]) -> Option<Value> {
    let message: Value = match serde_json::from_slice(bytes) {
        Ok(message) => message,
        Err(err) => {
            return Some(error_response(
                Value::Null,
                RpcError::parse(format!("not JSON: {err}")),
            ));
        }
    };
    let id = message.get("id").cloned();
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Some(error_response(
            id.unwrap_or(Value::Null),
            RpcError::invalid_request("a request needs a \"method\" string".to_owned()),
        ));
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(error_response(
            id.unwrap_or(Value::Null),
            RpcError::invalid_request("\"jsonrpc\" must be \"2.0\"".to_owned()),
        ));
    }
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let result = methods::dispatch(manager, host, method, params).await;
    let id = id?;
    Some(match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => error_response(id, error),
    })
}

/// Manager events → JSON-RPC notifications, each with its `seq`.
async fn forward_events(
    mut events: tokio::sync::broadcast::Receiver<SequencedEvent>,
    out: mpsc::UnboundedSender<Value>,
) {
    loop {
        match events.recv().await {
            Ok(event) => {
                let notification = methods::notification(event);
                if out.send(rpc::notification(&notification)).is_err() {
                    return;
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                // The next event's `seq` shows the gap too.
                let _ = out.send(rpc::notification(&ServerNotification::Warning(
                    WarningParams {
                        seq: None,
                        message: format!("{missed} events were dropped (the client reads too slowly); call manager/snapshot and session/read to catch up"),
                    },
                )));
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}
