//! Streamed events end to end through the real daemon: `codiva serve --listen` (started as a
//! TUI starts it, by `codiva attach --print-socket`) runs the bench's fake Claude Code
//! (`--fake-claude`, a real capture's turn with stamped deltas), and a `codiva_client` stream
//! client on the daemon's socket takes the events. The same turn through a manager in this
//! process (its broadcast, no encoding) is the reference. Figures: events per second of a
//! fast reply (as the core batches it), and the latency from the agent writing a delta to the
//! client having it, for deltas 60 ms apart (each its own event).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codiva_core::manager::{CreateOptions, Manager};
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::methods::request;
use codiva_protocol::params::{CreateParams, NoParams};
use codiva_protocol::session::SessionEvent;
use tokio::sync::mpsc;

use crate::stream_replay::{self, delta_count, latest_stamp, now_us};
use crate::table::{Align, Table};

/// Bytes of the fast reply (streamed as fast as the fake writes).
const FAST_BYTES: usize = 256 * 1024;
/// The gap between two sparse deltas: more than the core's longest rest (`PacedPipe`'s 50 ms),
/// so each is read and sent on its own. At 20 ms (more than the dense-stream threshold, but
/// less than a rest) a run fell into batches of 2–3 deltas per rest whenever two deltas came
/// within 10 ms, and stayed there: ~10 ms latencies in that run against ~0.5 ms in the other,
/// so the "added" figure compared two modes rather than in-process and socket.
const SPARSE_GAP: Duration = Duration::from_millis(60);
/// Fast turns run this many times on each side (alternately): a turn is ~18 events, so one
/// run's events per second moves by a third with when the daemon's process gets a core.
const FAST_RUNS: usize = 3;
/// Sparse deltas not counted at the start of the turn (see [`Turn::quantile_after`]).
const WARM_UP: usize = 5;
/// Most latency the socket may add to a sparse delta over in-process, median and p99.
const TARGET_ADDED_MEDIAN: Duration = Duration::from_millis(1);
const TARGET_ADDED_P99: Duration = Duration::from_millis(5);
/// Events per second through the socket at least, as a share of in-process.
const TARGET_RATE_SHARE: f64 = 0.9;

/// One turn's figures.
struct Turn {
    events: usize,
    deltas: usize,
    /// From the first streamed event to the last.
    span: Duration,
    /// Per event: received − written (of the latest delta it carries).
    latencies: Vec<Duration>,
    /// Over the socket: `agents/list` answered after (first, second call).
    agents_list: Vec<Duration>,
}

impl Turn {
    fn per_sec(&self) -> f64 {
        self.events as f64 / self.span.as_secs_f64().max(1e-9)
    }
    fn quantile(&self, q: f64) -> Duration {
        self.quantile_after(0, q)
    }
    /// Over the events after the first `skip` (for sparse deltas: the turn begins with a burst
    /// of lines, after which the core rests once, up to 50 ms, as it does in either process;
    /// whether that rest catches one delta or two decided the p99).
    fn quantile_after(&self, skip: usize, q: f64) -> Duration {
        let mut sorted = self.latencies.get(skip..).unwrap_or_default().to_vec();
        sorted.sort();
        let index = ((sorted.len() as f64 * q) as usize).min(sorted.len().saturating_sub(1));
        sorted.get(index).copied().unwrap_or_default()
    }
}

/// The run with the median events per second.
fn median_rate(mut runs: Vec<Turn>) -> Turn {
    runs.sort_by(|a, b| a.per_sec().total_cmp(&b.per_sec()));
    let middle = runs.len() / 2;
    runs.swap_remove(middle)
}

/// Streamed events of one turn, until `deltas` stamped deltas have come.
async fn collect(mut events: mpsc::UnboundedReceiver<ManagerEvent>, deltas: usize) -> Result<Turn> {
    let mut turn = Turn {
        events: 0,
        deltas: 0,
        span: Duration::ZERO,
        latencies: Vec::with_capacity(deltas),
        agents_list: Vec::new(),
    };
    let mut first = None;
    let deadline = Instant::now() + Duration::from_secs(120);
    while turn.deltas < deltas {
        let wait = deadline.saturating_duration_since(Instant::now());
        let event = match tokio::time::timeout(wait, events.recv()).await {
            Ok(Some(event)) => event,
            Ok(None) => bail!("the event stream ended after {} deltas", turn.deltas),
            Err(_) => bail!("{} of {deltas} deltas within 120 s", turn.deltas),
        };
        let ManagerEvent::Event {
            event: SessionEvent::Stream { text, .. },
            ..
        } = event
        else {
            continue;
        };
        let received = now_us();
        let first = *first.get_or_insert_with(Instant::now);
        turn.span = first.elapsed();
        turn.events += 1;
        turn.deltas += stream_replay::stamps(&text).count();
        if let Some(written) = latest_stamp(&text) {
            turn.latencies
                .push(Duration::from_micros(received.saturating_sub(written)));
        }
    }
    Ok(turn)
}

/// A repository and a fake claude streaming `bytes` of stamped deltas over `pace`.
fn setup(dir: &Path, bytes: usize, pace: Duration) -> Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    Ok(stream_replay::fake_setup(dir, bytes, pace, true)?.canonicalize()?)
}

/// The turn through a manager in this process.
async fn in_process(dir: &Path, bytes: usize, pace: Duration) -> Result<Turn> {
    let repo = setup(dir, bytes, pace)?;
    let claude_home = dir.join("home/.claude");
    let mut options = crate::sessions::manager_options(&repo, &claude_home, dir.join("state"));
    options.providers = codiva_core::provider::Providers::one(std::sync::Arc::new(
        codiva_core::claude::ClaudeProvider::new(dir.join("claude"), claude_home.clone()),
    ));
    let (manager, _) = Manager::start(options).await?;
    let mut events = manager.subscribe();
    let (tx, rx) = mpsc::unbounded_channel();
    let forward = tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    manager
        .create(CreateOptions {
            prompt: "stream the stamped reply".to_owned(),
            ..CreateOptions::default()
        })
        .await?;
    let turn = collect(rx, delta_count(bytes)).await;
    forward.abort();
    manager.shutdown().await;
    turn
}

/// The turn through the daemon's socket to a stream client.
async fn over_socket(codiva: &Path, dir: &Path, bytes: usize, pace: Duration) -> Result<Turn> {
    let repo = setup(dir, bytes, pace)?;
    let output = Command::new(codiva)
        .args(["attach", "--print-socket", "--repo"])
        .arg(&repo)
        .current_dir(&repo)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.join("home"))
        .env("CODIVA_CLAUDE", dir.join("claude"))
        .env("CODIVA_CONFIG", dir.join("config.toml"))
        .env("CODIVA_STATE_DIR", dir.join("state"))
        .output()
        .context("codiva attach --print-socket")?;
    if !output.status.success() {
        bail!(
            "codiva attach --print-socket: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let socket = String::from_utf8(output.stdout)?.trim().to_owned();
    let stream = tokio::net::UnixStream::connect(&socket)
        .await
        .with_context(|| format!("connecting to {socket}"))?;
    let (read, write) = stream.into_split();
    let client = codiva_client::stream::connect(read, write);
    client.call::<request::Initialize>(NoParams {}).await?;
    // Twice: the first asks each agent's version, the second finds it cached.
    let mut agents_list = Vec::new();
    for _ in 0..2 {
        let asked = Instant::now();
        client.call::<request::AgentsList>(NoParams {}).await?;
        agents_list.push(asked.elapsed());
    }
    let (_, mut events) = client.subscribe().await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let forward = tokio::spawn(async move {
        while let Some(update) = events.recv().await {
            let codiva_client::Update::Event { event, .. } = update else {
                continue;
            };
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    client
        .call::<request::SessionCreate>(CreateParams {
            prompt: "stream the stamped reply".to_owned(),
            ..CreateParams::default()
        })
        .await?;
    let mut turn = collect(rx, delta_count(bytes)).await?;
    forward.abort();
    turn.agents_list = agents_list;
    Ok(turn)
}

/// Runs `over_socket` and stops its daemon whatever happened.
async fn socket_turn(codiva: &Path, dir: &Path, bytes: usize, pace: Duration) -> Result<Turn> {
    let turn = over_socket(codiva, dir, bytes, pace).await;
    crate::tui::stop_daemon(&dir.join("repo"));
    turn
}

pub fn run(codiva: &Path, quick: bool) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let base = std::env::temp_dir().join(format!("codiva-bench-daemon-{}", std::process::id()));
    let sparse = if quick { 40 } else { 100 };
    let sparse_bytes = sparse * stream_replay::DELTA_BYTES;
    let sparse_pace = SPARSE_GAP * u32::try_from(delta_count(sparse_bytes)).unwrap_or(u32::MAX);
    let result = runtime.block_on(async {
        let mut fast_local = Vec::new();
        let mut fast_socket = Vec::new();
        for run in 0..FAST_RUNS {
            fast_local.push(
                in_process(
                    &base.join(format!("fast-local-{run}")),
                    FAST_BYTES,
                    Duration::ZERO,
                )
                .await?,
            );
            fast_socket.push(
                socket_turn(
                    codiva,
                    &base.join(format!("fast-socket-{run}")),
                    FAST_BYTES,
                    Duration::ZERO,
                )
                .await?,
            );
        }
        let (fast_local, fast_socket) = (median_rate(fast_local), median_rate(fast_socket));
        let sparse_local =
            in_process(&base.join("sparse-local"), sparse_bytes, sparse_pace).await?;
        let sparse_socket = socket_turn(
            codiva,
            &base.join("sparse-socket"),
            sparse_bytes,
            sparse_pace,
        )
        .await?;
        anyhow::Ok([fast_local, fast_socket, sparse_local, sparse_socket])
    });
    let _ = std::fs::remove_dir_all(&base);
    let [fast_local, fast_socket, sparse_local, sparse_socket] = result?;

    println!(
        "## Through the daemon's socket: the fake claude's stamped deltas (a real capture's turn), \
         `codiva serve --listen` → stream client, against a manager in this process"
    );
    println!();
    let mut table = Table::new(&[
        ("measure", Align::Left),
        ("in-process", Align::Right),
        ("daemon socket", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    let share = fast_socket.per_sec() / fast_local.per_sec().max(1e-9);
    table.row([
        format!(
            "events/s, a {} reply as fast as the fake writes ({} deltas → {} / {} events; median of {FAST_RUNS} runs)",
            crate::size(FAST_BYTES as u64),
            fast_local.deltas,
            fast_local.events,
            fast_socket.events
        ),
        format!("{:.0}", fast_local.per_sec()),
        format!("{:.0} ({:.0} %)", fast_socket.per_sec(), share * 100.0),
        format!("≥ {:.0} % of in-process", TARGET_RATE_SHARE * 100.0),
        crate::tui::verdict(share >= TARGET_RATE_SHARE),
    ]);
    table.row([
        "  latency per event, fast (median / p99; includes the core's batching)".to_owned(),
        format!(
            "{} / {}",
            ms(fast_local.quantile(0.5)),
            ms(fast_local.quantile(0.99))
        ),
        format!(
            "{} / {}",
            ms(fast_socket.quantile(0.5)),
            ms(fast_socket.quantile(0.99))
        ),
        String::new(),
        String::new(),
    ]);
    let added_median = sparse_socket
        .quantile_after(WARM_UP, 0.5)
        .saturating_sub(sparse_local.quantile_after(WARM_UP, 0.5));
    let added_p99 = sparse_socket
        .quantile_after(WARM_UP, 0.99)
        .saturating_sub(sparse_local.quantile_after(WARM_UP, 0.99));
    table.row([
        format!(
            "latency per event, {} deltas {} ms apart, after the first {WARM_UP} (median / p99); added: {} / {}",
            sparse_local.deltas,
            SPARSE_GAP.as_millis(),
            ms(added_median),
            ms(added_p99)
        ),
        format!(
            "{} / {}",
            ms(sparse_local.quantile_after(WARM_UP, 0.5)),
            ms(sparse_local.quantile_after(WARM_UP, 0.99))
        ),
        format!(
            "{} / {}",
            ms(sparse_socket.quantile_after(WARM_UP, 0.5)),
            ms(sparse_socket.quantile_after(WARM_UP, 0.99))
        ),
        format!(
            "added < {} / < {}",
            ms(TARGET_ADDED_MEDIAN),
            ms(TARGET_ADDED_P99)
        ),
        crate::tui::verdict(added_median < TARGET_ADDED_MEDIAN && added_p99 < TARGET_ADDED_P99),
    ]);
    table.row([
        "agents/list over the socket, first / second call (each agent's login check and \
         --version; the fake claude; the attaching UI's first frame no longer waits for it)"
            .to_owned(),
        String::new(),
        fast_socket
            .agents_list
            .iter()
            .map(|d| ms(*d))
            .collect::<Vec<_>>()
            .join(" / "),
        String::new(),
        String::new(),
    ]);
    println!("{}", table.render());
    Ok(())
}

/// `--daemon-only`: the rows over the daemon (restoring and listing sessions, the socket, the
/// attaching UI's first frame, the daemon's RSS and idle CPU).
pub fn daemon_only(quick: bool) -> Result<()> {
    let codiva = crate::tui::binary().context("build the codiva binary next to this bench")?;
    crate::sessions::run(quick)?;
    run(&codiva, quick)?;
    let mut table = Table::new(&[
        ("measure", Align::Left),
        ("value", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    crate::tui::restored_rows(&mut table, quick, false)?;
    println!("{}", table.render());
    Ok(())
}
