//! One client's connection to the manager: JSON-RPC 2.0, one message per line, over any byte
//! stream (`serve --stdio`'s stdin/stdout, a daemon's socket connection). Requests are handled
//! concurrently; a bad request gets a JSON-RPC error and never ends the connection.
//!
//! What the connection writes goes through a bounded queue: a client that reads too slowly
//! stalls only its own event forwarder, whose broadcast receiver then lags; the lost events are
//! dropped (a warning says so, and the next event's `seq` shows the gap, so the client resyncs
//! from `manager/snapshot`) — memory never grows with a slow reader.

use std::sync::Arc;

use codiva_core::manager::Manager;
use codiva_core::process::{LineReader, ReadLine};
use codiva_protocol::ServerNotification;
use codiva_protocol::manager::SequencedEvent;
use codiva_protocol::params::WarningParams;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use crate::methods::{self, Host};
use crate::rpc::{self, RpcError, error_response};

/// Longest request line accepted; longer ones are skipped with an error response.
pub const MAX_REQUEST: usize = 16 * 1024 * 1024;

/// Messages queued for the writer before the event forwarder waits (and its broadcast
/// receiver lags).
const OUT_QUEUE: usize = 1024;

/// Why [`Connection::serve`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The client closed its side (EOF or a read error).
    Closed,
    /// The `stop` future finished: a shutdown signal (its number) or `daemon/shutdown` (`None`).
    Stopped(Option<i32>),
}

/// The writing side of one connection: the writer task, the event forwarder and the queue they
/// share.
pub struct Connection {
    out: mpsc::Sender<Value>,
    writer: JoinHandle<()>,
    notifier: JoinHandle<()>,
}

impl Connection {
    /// Starts writing to `writer`: the manager's events from now on (each with its `seq`). The
    /// start-up warnings are `initialize`'s (`Host::warnings_shown`), never replayed here.
    pub fn open<W>(writer: W, manager: &Manager) -> Connection
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, out_rx) = mpsc::channel::<Value>(OUT_QUEUE);
        let writer = tokio::spawn(write_messages(writer, out_rx));
        let notifier = tokio::spawn(forward_events(manager.subscribe_sequenced(), out.clone()));
        Connection {
            out,
            writer,
            notifier,
        }
    }

    /// Sends one message (a refusal before closing, …).
    pub async fn send(&self, message: Value) {
        let _ = self.out.send(message).await;
    }

    /// Answers the requests read from `reader` until the client closes it (then the requests
    /// still being answered are answered, for at most `drain`) or `stop` finishes.
    pub async fn serve<R>(
        &self,
        reader: R,
        manager: &Manager,
        host: &Arc<Host>,
        stop: impl Future<Output = Option<i32>>,
        drain: std::time::Duration,
    ) -> Ended
    where
        R: AsyncRead + Unpin,
    {
        let mut reader = LineReader::with_max_line(reader, MAX_REQUEST);
        let mut handlers = tokio::task::JoinSet::new();
        let mut stop = std::pin::pin!(stop);
        let ended = loop {
            while handlers.try_join_next().is_some() {}
            tokio::select! {
                line = reader.next_line() => match line {
                    Ok(Some(ReadLine::Line(bytes))) => {
                        if bytes.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        let manager = manager.clone();
                        let out = self.out.clone();
                        let host = host.clone();
                        handlers.spawn(async move {
                            if let Some(response) = handle_line(&manager, &host, &bytes).await {
                                let _ = out.send(response).await;
                            }
                        });
                    }
                    Ok(Some(ReadLine::Oversized { bytes })) => {
                        self.send(error_response(
                            Value::Null,
                            RpcError::invalid_request(format!(
                                "request of {bytes} bytes is over the limit of {MAX_REQUEST} bytes; it was skipped"
                            )),
                        ))
                        .await;
                    }
                    Ok(None) | Err(_) => break Ended::Closed,
                },
                signal = &mut stop => break Ended::Stopped(signal),
            }
        };
        if ended == Ended::Closed {
            let answered = async { while handlers.join_next().await.is_some() {} };
            let _ = tokio::time::timeout(drain, answered).await;
        } else {
            // The answers already given (`daemon/shutdown`'s own) are written; the others are
            // cut short with the manager.
            while handlers.try_join_next().is_some() {}
            handlers.detach_all();
        }
        ended
    }

    /// Stops forwarding events and writes what is queued; then the writing half is shut down.
    pub async fn close(self) {
        self.notifier.abort();
        drop(self.out);
        let _ = self.writer.await;
    }
}

async fn write_messages<W: AsyncWrite + Unpin>(mut writer: W, mut out: mpsc::Receiver<Value>) {
    while let Some(message) = out.recv().await {
        let Ok(mut line) = serde_json::to_vec(&message) else {
            continue;
        };
        line.push(b'\n');
        if writer.write_all(&line).await.is_err() {
            return;
        }
        // Everything already queued goes in the same flush.
        while let Ok(message) = out.try_recv() {
            let Ok(mut line) = serde_json::to_vec(&message) else {
                continue;
            };
            line.push(b'\n');
            if writer.write_all(&line).await.is_err() {
                return;
            }
        }
        if writer.flush().await.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}

/// One request line → its response (`None` for a notification from the client).
async fn handle_line(manager: &Manager, host: &Host, bytes: &[u8]) -> Option<Value> {
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

/// Manager events → JSON-RPC notifications, each with its `seq`. Waiting on a full queue makes
/// the broadcast receiver lag, which drops events rather than buffering them.
async fn forward_events(mut events: broadcast::Receiver<SequencedEvent>, out: mpsc::Sender<Value>) {
    loop {
        match events.recv().await {
            Ok(event) => {
                let notification = methods::notification(event);
                if out.send(rpc::notification(&notification)).await.is_err() {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                // The next event's `seq` shows the gap too.
                let warning = rpc::notification(&ServerNotification::Warning(WarningParams {
                    seq: None,
                    message: format!(
                        "{missed} events were dropped (the client reads too slowly); call manager/snapshot and session/read to catch up"
                    ),
                }));
                if out.send(warning).await.is_err() {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}
