//! The client over a byte stream: JSON-RPC 2.0, one message per line, as `codiva serve --stdio`
//! speaks it (`docs/serve-api.md`). Any `AsyncRead` + `AsyncWrite` pair will do: a child's
//! stdio ([`spawn_stdio`]) or, later, a socket.
//!
//! One task writes requests; one reads lines, answers the pending call a response names and
//! turns notifications back into sequenced manager events for the subscribers. When the stream
//! ends, every pending call and later call fails with [`ClientError::Disconnected`] and the
//! event stream closes.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codiva_protocol::error::ErrorBody;
use codiva_protocol::manager::SequencedEvent;
use codiva_protocol::{ClientRequest, ServerNotification};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::{Backend, BoxFuture, Client, ClientError};

/// Events buffered per subscriber before it lags (and resyncs).
const EVENT_BUFFER: usize = 4096;

type Pending = Arc<Mutex<Option<HashMap<u64, oneshot::Sender<Result<Value, ClientError>>>>>>;

/// The stream transport behind a [`Client`].
pub struct StreamBackend {
    next_id: AtomicU64,
    /// `None` once the stream is closed.
    pending: Pending,
    out: mpsc::UnboundedSender<Vec<u8>>,
    /// Weak: only the reading task holds the sender, so the event stream closes with the
    /// stream.
    events: broadcast::WeakSender<SequencedEvent>,
}

/// A client over `reader`/`writer`; the tasks that run it live as long as the stream does.
pub fn connect<R, W>(reader: R, writer: W) -> Client
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    connect_closable(reader, writer).0
}

/// [`connect`], and a sender that closes the writing half (whatever clones of the client
/// remain): the server sees the end of its input.
pub fn connect_closable<R, W>(reader: R, writer: W) -> (Client, oneshot::Sender<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, out_rx) = mpsc::unbounded_channel();
    let (close, close_rx) = oneshot::channel();
    let (events, _) = broadcast::channel(EVENT_BUFFER);
    let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
    tokio::spawn(write_lines(writer, out_rx, close_rx));
    let weak = events.downgrade();
    tokio::spawn(read_lines(reader, pending.clone(), events));
    let client = Client::new(Arc::new(StreamBackend {
        next_id: AtomicU64::new(1),
        pending,
        out,
        events: weak,
    }));
    (client, close)
}

impl Backend for StreamBackend {
    fn request(&self, request: ClientRequest) -> BoxFuture<Result<Value, ClientError>> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let sent = (|| {
            let mut message = serde_json::to_value(&request)
                .map_err(|err| ClientError::Protocol(format!("cannot encode: {err}")))?;
            if let Value::Object(map) = &mut message {
                map.insert("jsonrpc".to_owned(), json!("2.0"));
                map.insert("id".to_owned(), json!(id));
            }
            let mut line = serde_json::to_vec(&message)
                .map_err(|err| ClientError::Protocol(format!("cannot encode: {err}")))?;
            line.push(b'\n');
            match self.pending.lock() {
                Ok(mut pending) => match pending.as_mut() {
                    Some(pending) => {
                        pending.insert(id, tx);
                    }
                    None => return Err(ClientError::Disconnected),
                },
                Err(_) => return Err(ClientError::Disconnected),
            }
            self.out.send(line).map_err(|_| ClientError::Disconnected)
        })();
        Box::pin(async move {
            sent?;
            rx.await.unwrap_or(Err(ClientError::Disconnected))
        })
    }

    fn events(&self) -> broadcast::Receiver<SequencedEvent> {
        match self.events.upgrade() {
            Some(events) => events.subscribe(),
            // The stream is gone: a receiver that is closed already.
            None => broadcast::channel(1).1,
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
    mut close: oneshot::Receiver<()>,
) {
    // A finished receiver must not be polled again (tokio panics "called after complete").
    let mut closer_gone = false;
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            closed = &mut close, if !closer_gone => match closed {
                Ok(()) => None,
                // A dropped closer (plain `connect`) closes nothing.
                Err(_) => {
                    closer_gone = true;
                    continue;
                }
            },
        };
        let Some(line) = line else { break };
        if writer.write_all(&line).await.is_err() {
            return;
        }
        // Everything already queued goes in the same flush.
        while let Ok(line) = lines.try_recv() {
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

/// How `codiva serve` begins a notification (its keys in order: `jsonrpc`, `method`,
/// `params`), so the method comes before its params and they need no buffering.
pub const NOTIFICATION_START: &[u8] = br#"{"jsonrpc":"2.0","method":"#;

async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    pending: Pending,
    events: broadcast::Sender<SequencedEvent>,
) {
    let mut lines = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => handle_line(&line, &pending, &events),
        }
    }
    // The stream is gone: every pending call fails, the event stream closes.
    if let Ok(mut pending) = pending.lock()
        && let Some(calls) = pending.take()
    {
        for (_, call) in calls {
            let _ = call.send(Err(ClientError::Disconnected));
        }
    }
}

fn handle_line(line: &[u8], pending: &Pending, events: &broadcast::Sender<SequencedEvent>) {
    // Notifications are most of the traffic (a streamed reply is one per batch): read straight
    // into their type, not through a `Value` first. Anything else goes the general way.
    if line.starts_with(NOTIFICATION_START)
        && let Ok(notification) = serde_json::from_slice::<ServerNotification>(line)
    {
        if let Some(event) = crate::sequenced_event(notification) {
            let _ = events.send(event);
        }
        return;
    }
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    message.remove("jsonrpc");
    if message.contains_key("method") {
        if let Ok(notification) =
            serde_json::from_value::<ServerNotification>(Value::Object(message))
            && let Some(event) = crate::sequenced_event(notification)
        {
            let _ = events.send(event);
        }
        return;
    }
    let Some(id) = message.get("id").and_then(Value::as_u64) else {
        return;
    };
    let answer = match (message.remove("result"), message.remove("error")) {
        (Some(result), None) => Ok(result),
        (_, Some(error)) => Err(serde_json::from_value::<ErrorBody>(error).map_or_else(
            |err| ClientError::Protocol(err.to_string()),
            |body| ClientError::Server(Box::new(body)),
        )),
        (None, None) => Err(ClientError::Protocol(
            "a response without result".to_owned(),
        )),
    };
    let call = pending
        .lock()
        .ok()
        .and_then(|mut pending| pending.as_mut().and_then(|calls| calls.remove(&id)));
    if let Some(call) = call {
        let _ = call.send(answer);
    }
}

/// A `codiva serve --stdio` child and the client over its stdio.
pub struct StdioChild {
    pub client: Client,
    close: oneshot::Sender<()>,
    child: tokio::process::Child,
}

/// Starts `argv` (a `codiva serve --stdio` command line) with piped stdin and stdout; its
/// stderr goes to `stderr`. The child is killed if this handle is dropped without
/// [`StdioChild::shutdown`].
pub fn spawn_stdio(argv: &[String], stderr: Stdio) -> std::io::Result<StdioChild> {
    let Some((program, args)) = argv.split_first() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "an empty command line",
        ));
    };
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other("the child's stdio is not piped"));
    };
    let (client, close) = connect_closable(stdout, stdin);
    Ok(StdioChild {
        client,
        close,
        child,
    })
}

impl StdioChild {
    /// Closes the child's stdin (the server then stops its sessions and exits) and waits for
    /// it, at most `grace`, then kills it.
    pub async fn shutdown(self, grace: Duration) -> Option<std::process::ExitStatus> {
        let StdioChild {
            client,
            close,
            mut child,
        } = self;
        drop(client);
        close_and_reap(close, &mut child, grace).await
    }
}

/// Ends a child's channel (`close`, from [`connect_closable`]: the child reads the end of its
/// input) and waits for the child, at most `grace`, then kills it; its exit status where one
/// was read.
pub async fn close_and_reap(
    close: oneshot::Sender<()>,
    child: &mut tokio::process::Child,
    grace: Duration,
) -> Option<std::process::ExitStatus> {
    let _ = close.send(());
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(status) => status.ok(),
        Err(_) => {
            let _ = child.kill().await;
            child.wait().await.ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;

    /// Regression: with `connect` (its closer dropped at once), the writer polled the finished
    /// closer again on its next line and panicked; requests after the first were never sent.
    #[tokio::test]
    async fn a_plain_connection_writes_every_request() {
        let (client_side, server_side) = tokio::io::duplex(64 * 1024);
        let (client_read, client_write) = tokio::io::split(client_side);
        let client = connect(client_read, client_write);
        let (server_read, mut server_write) = tokio::io::split(server_side);
        let server = tokio::spawn(async move {
            let mut lines = BufReader::new(server_read).lines();
            let mut seen = 0;
            while let Ok(Some(line)) = lines.next_line().await {
                let request: Value = serde_json::from_str(&line).unwrap();
                let answer =
                    serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {}});
                server_write
                    .write_all(format!("{answer}\n").as_bytes())
                    .await
                    .unwrap();
                seen += 1;
                if seen == 3 {
                    break;
                }
            }
            seen
        });
        for _ in 0..3 {
            // One at a time, so the writer goes round its loop between them.
            tokio::task::yield_now().await;
            let done = tokio::time::timeout(
                Duration::from_secs(10),
                client.call::<codiva_protocol::methods::request::SessionInterrupt>(
                    codiva_protocol::params::SessionParams {
                        session_id: "s".into(),
                    },
                ),
            )
            .await;
            assert!(matches!(done, Ok(Ok(_))), "{done:?}");
        }
        assert_eq!(server.await.unwrap(), 3);
    }

    /// The event stream closes when the server closes the connection (the client still held a
    /// sender of its own, so a subscriber never learnt that the manager was gone).
    #[tokio::test]
    async fn the_event_stream_closes_with_the_connection() {
        let (client_side, server_side) = tokio::io::duplex(1024);
        let (client_read, client_write) = tokio::io::split(client_side);
        let client = connect(client_read, client_write);
        let mut events = client.raw_events();
        drop(server_side);
        let end = tokio::time::timeout(Duration::from_secs(10), events.recv()).await;
        assert!(
            matches!(end, Ok(Err(broadcast::error::RecvError::Closed))),
            "{end:?}"
        );
        // A subscriber that comes later finds it closed too.
        assert!(matches!(
            client.raw_events().recv().await,
            Err(broadcast::error::RecvError::Closed)
        ));
    }

    /// A notification in the server's form is read straight into its type, and gives the event
    /// the general way gives; one whose keys come in another order still arrives.
    #[test]
    fn notifications_take_the_fast_path_and_arrive_the_same() {
        use codiva_protocol::params::SessionEventParams;
        use codiva_protocol::session::SessionEvent;
        let notification = ServerNotification::SessionStream(SessionEventParams {
            seq: 7,
            session_id: "s1".into(),
            event: SessionEvent::Stream {
                text: "fn main() {}\n\"quoted\" — 日本語".into(),
                reset: false,
            },
        });
        // As `codiva serve` writes it (`serve::rpc::notification`): a map with `jsonrpc` added.
        let mut message = serde_json::to_value(&notification).unwrap();
        message["jsonrpc"] = json!("2.0");
        let line = serde_json::to_vec(&message).unwrap();
        assert!(
            line.starts_with(NOTIFICATION_START),
            "{}",
            String::from_utf8_lossy(&line)
        );
        // What the fast path does (the general way would hide its failure).
        let direct = serde_json::from_slice::<ServerNotification>(&line);
        assert_eq!(direct.unwrap(), notification);
        let reordered = format!(
            r#"{{"params":{},"method":"session/stream","jsonrpc":"2.0"}}"#,
            message["params"]
        );
        let expected = crate::sequenced_event(notification).unwrap();
        let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
        for line in [line, reordered.into_bytes()] {
            let (events, mut received) = broadcast::channel(4);
            handle_line(&line, &pending, &events);
            assert_eq!(received.try_recv().unwrap(), expected);
        }
    }
}
