//! The client seam's cost: manager events delivered to a `codiva_client` subscriber in-process
//! (a broadcast) and over the stream transport (the JSON-RPC lines `codiva serve` writes, over a
//! kernel socket pair, decoded by the stream client): events per second, and the latency one
//! event adds, ping-pong (the next event is sent once the last arrived).
//!
//! The server side here encodes each event with `codiva serve`'s own code (`codiva_server`:
//! the protocol's `ServerNotification`, one line) and answers `manager/snapshot`; the manager
//! itself is left out, so the figures are the transport's own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codiva_client::{Backend, BoxFuture, Client, ClientError, Update};
use codiva_protocol::ClientRequest;
use codiva_protocol::manager::{ManagerEvent, ManagerSnapshot, SequencedEvent};
use codiva_protocol::session::SessionEvent;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc};

use crate::table::{Align, Table};

/// Events per second a subscriber must at least get through the stream client.
const TARGET_EVENTS_PER_SEC: f64 = 50_000.0;
/// Most latency the stream may add to one event (median), over in-process.
const TARGET_ADDED_LATENCY: Duration = Duration::from_millis(1);

pub fn run(quick: bool) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(measure(if quick { 50_000 } else { 200_000 }, 2_000))
}

/// A streamed piece of text, the commonest event.
fn event(seq: u64) -> SequencedEvent {
    SequencedEvent {
        seq,
        event: ManagerEvent::Event {
            id: "bench-session".to_owned(),
            event: SessionEvent::Stream {
                text: "Reading the module to see where the parser keeps its state; ".to_owned(),
                reset: false,
            },
        },
    }
}

/// The event as `codiva serve` writes it (the server library's own encoding).
fn line(sequenced: SequencedEvent) -> Result<Vec<u8>> {
    let notification = codiva_server::methods::notification(sequenced);
    let mut line = serde_json::to_vec(&codiva_server::rpc::notification(&notification))?;
    line.push(b'\n');
    Ok(line)
}

/// In-process: events straight from a broadcast, as the binary's backend gives the manager's.
struct Local {
    events: broadcast::Sender<SequencedEvent>,
}

impl Backend for Local {
    fn request(&self, _: ClientRequest) -> BoxFuture<Result<Value, ClientError>> {
        Box::pin(async {
            serde_json::to_value(ManagerSnapshot {
                seq: 0,
                sessions: Vec::new(),
                groups: Vec::new(),
            })
            .map_err(|err| ClientError::Protocol(err.to_string()))
        })
    }

    fn events(&self) -> broadcast::Receiver<SequencedEvent> {
        self.events.subscribe()
    }
}

/// Tells the event source how many events to send next.
type Sender = mpsc::UnboundedSender<u64>;

/// Over a socket pair: a server task answers requests (`manager/snapshot`) and writes events.
async fn stream() -> Result<(Client, Sender)> {
    let (server, client_end) = tokio::net::UnixStream::pair()?;
    let (client_read, client_write) = client_end.into_split();
    let client = codiva_client::stream::connect(client_read, client_write);
    let (server_read, server_write) = server.into_split();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        let mut writer = tokio::io::BufWriter::new(server_write);
        while let Some(line) = out_rx.recv().await {
            if writer.write_all(&line).await.is_err() {
                return;
            }
            while let Ok(line) = out_rx.try_recv() {
                if writer.write_all(&line).await.is_err() {
                    return;
                }
            }
            if writer.flush().await.is_err() {
                return;
            }
        }
    });
    let answers = out_tx.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(server_read).lines();
        while let Ok(Some(request)) = lines.next_line().await {
            let Ok(request) = serde_json::from_str::<Value>(&request) else {
                continue;
            };
            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"seq": 0, "sessions": []}});
            if let Ok(mut line) = serde_json::to_vec(&answer) {
                line.push(b'\n');
                let _ = answers.send(line);
            }
        }
    });
    let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
    tokio::spawn(async move {
        let mut seq = 0;
        while let Some(count) = rx.recv().await {
            for _ in 0..count {
                seq += 1;
                if let Ok(line) = line(event(seq)) {
                    let _ = out_tx.send(line);
                }
            }
        }
    });
    Ok((client, tx))
}

struct Figures {
    per_sec: f64,
    latency_median: Duration,
}

/// `count` events in bursts of 1000 (throughput), then `pings` one at a time (latency).
async fn figures(client: Client, send: Sender, count: u64, pings: usize) -> Result<Figures> {
    let (_, mut events) = client.subscribe().await.context("subscribe")?;
    let started = Instant::now();
    let mut received = 0;
    while received < count {
        let burst = (count - received).min(1000);
        send.send(burst).context("sender gone")?;
        for _ in 0..burst {
            next_event(&mut events).await?;
        }
        received += burst;
    }
    let per_sec = count as f64 / started.elapsed().as_secs_f64().max(1e-9);
    let mut latencies = Vec::with_capacity(pings);
    for _ in 0..pings {
        let sent = Instant::now();
        send.send(1).context("sender gone")?;
        next_event(&mut events).await?;
        latencies.push(sent.elapsed());
    }
    latencies.sort();
    Ok(Figures {
        per_sec,
        latency_median: latencies
            .get(latencies.len() / 2)
            .copied()
            .unwrap_or_default(),
    })
}

async fn next_event(events: &mut codiva_client::Subscription) -> Result<()> {
    match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
        Ok(Some(Update::Event { .. })) => Ok(()),
        Ok(Some(Update::Resync(_))) => bail!("the subscriber fell behind"),
        Ok(None) => bail!("the event stream closed"),
        Err(_) => bail!("no event within 10 s"),
    }
}

async fn measure(count: u64, pings: usize) -> Result<()> {
    let (client, send) = in_process_numbered().await?;
    let local = figures(client, send, count, pings).await?;
    let (client, send) = stream().await?;
    let remote = figures(client, send, count, pings).await?;
    println!(
        "## Client seam: {count} streamed-text events to one subscriber, then {pings} one at a time"
    );
    println!();
    let mut table = Table::new(&[
        ("transport", Align::Left),
        ("events/s", Align::Right),
        ("latency (median)", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    let us = |d: Duration| format!("{:.1} µs", d.as_secs_f64() * 1e6);
    table.row([
        "in-process (broadcast)".to_owned(),
        crate::thousands(local.per_sec),
        us(local.latency_median),
        "".to_owned(),
        "".to_owned(),
    ]);
    let added = remote.latency_median.saturating_sub(local.latency_median);
    let pass = remote.per_sec >= TARGET_EVENTS_PER_SEC && added < TARGET_ADDED_LATENCY;
    table.row([
        format!(
            "stream client: serve's JSON lines over a socket pair (+{} per event)",
            us(added)
        ),
        crate::thousands(remote.per_sec),
        us(remote.latency_median),
        format!(
            "≥ {} /s, < {} added",
            crate::thousands(TARGET_EVENTS_PER_SEC),
            us(TARGET_ADDED_LATENCY)
        ),
        if pass { "PASS" } else { "FAIL" }.to_owned(),
    ]);
    println!("{}", table.render());
    Ok(())
}

async fn in_process_numbered() -> Result<(Client, Sender)> {
    let (events, _) = broadcast::channel(65_536);
    let client = Client::new(Arc::new(Local {
        events: events.clone(),
    }));
    let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
    tokio::spawn(async move {
        let mut seq = 0;
        while let Some(count) = rx.recv().await {
            for _ in 0..count {
                seq += 1;
                let _ = events.send(event(seq));
            }
        }
    });
    Ok((client, tx))
}

#[cfg(test)]
mod tests {
    /// The row runs end to end (small counts; the figures are the release run's).
    #[test]
    fn the_client_row_runs() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(super::measure(3_000, 50)).unwrap();
    }
}
