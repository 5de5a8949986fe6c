//! `cargo run --release -p codiva-bench [-- --quick]`: throughput of the line pipeline
//! (`parse_line` → `Translator::translate` → `SessionState::apply` → `drain_events`) over the
//! real CLI captures, and the memory a long replay takes. Prints markdown tables.
//!
//! The memory replays run in child processes (this binary with `--replay-child BYTES`) so
//! that each starts from the same clean heap and the throughput corpus does not show in
//! their RSS.

mod alloc;
mod client;
mod corpus;
mod daemon_stream;
mod mem;
mod pipeline;
mod profile;
mod sessions;
mod stream_replay;
mod table;
mod tui;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codiva_core::process::{LineReader, ReadLine};
use serde_json::{Value, json};

use crate::corpus::{Corpus, Fixtures, LineStream, default_fixture_dir};
use crate::pipeline::{Counts, Pipeline};
use crate::table::{Align, Table, signed_size};
pub(crate) use crate::table::{size, thousands};

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

const MIB: usize = 1024 * 1024;
/// Throughput target for every row, in MiB/s (median of the runs).
const TARGET_MIBS: f64 = 100.0;
/// Flatness rule: peak RSS of the large replay minus that of the small one.
const FLAT_LIMIT: u64 = 16 * MIB as u64;
/// Runs per throughput measurement.
const RUNS: usize = 3;
/// RSS is sampled every this many lines during a replay.
const SAMPLE_EVERY: u64 = 256;

const USAGE: &str = "\
usage: codiva-bench [--quick] [--fixtures DIR]

  --quick          32 MiB throughput corpus, 16/64 MiB replays (for CI)
  --fixtures DIR   the *.jsonl captures (default: codiva-core's tests/fixtures/claude)
  --tui-only       only the terminal UI's table
  --stream-only    only its streaming rows (CPU per streamed MB; for profiling; with
                   --daemon only the rows over the daemon, for A/B runs)
  --daemon-only    only the rows over the daemon (sessions, socket, attach, RSS)
  --sessions-only  only the sessions table (restore and list 50, open a log, create)
  --throughput-only  only the parse/reduce throughput and where its time goes (for A/B runs;
                   --fixtures DIR to run two builds on the same captures)
";

#[derive(Debug, Clone, Copy)]
struct Sizes {
    corpus: usize,
    small_replay: usize,
    large_replay: usize,
    /// A replay long enough for the log to reach its budget (not in `--quick`).
    long_replay: Option<usize>,
}

#[derive(Debug)]
struct Options {
    quick: bool,
    tui_memory_child: bool,
    tui_only: bool,
    throughput_only: bool,
    fixtures: PathBuf,
    replay_child: Option<usize>,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options {
        quick: false,
        tui_memory_child: false,
        tui_only: false,
        throughput_only: false,
        fixtures: default_fixture_dir(),
        replay_child: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--tui-only" => options.tui_only = true,
            "--throughput-only" => options.throughput_only = true,
            "--fixtures" => {
                options.fixtures = args.next().context("--fixtures needs a directory")?.into();
            }
            "--tui-memory-child" => {
                return Ok(Options {
                    tui_memory_child: true,
                    ..options
                });
            }
            "--replay-child" => {
                let bytes = args.next().context("--replay-child needs a byte count")?;
                options.replay_child = Some(bytes.parse().context("--replay-child BYTES")?);
            }
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            // `cargo bench`-style harness flags are ignored.
            "--bench" => {}
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    Ok(options)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--fake-claude") {
        return stream_replay::fake_claude_main(&args[1..]);
    }
    // The modes that run one table, wherever they stand (`--quick --daemon-only` too).
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--stream-only") {
        return tui::stream_only(has("--daemon"));
    }
    if has("--sessions-only") {
        return sessions::run(false);
    }
    if has("--daemon-only") {
        return daemon_stream::daemon_only(has("--quick"));
    }
    let options = parse_args(args)?;
    if options.tui_memory_child {
        return tui::memory_child_main();
    }
    if options.tui_only {
        return tui::run(options.quick);
    }
    let fixtures = Fixtures::load(&options.fixtures)?;
    if let Some(bytes) = options.replay_child {
        return replay_child(&fixtures, bytes);
    }
    let sizes = if options.quick {
        Sizes {
            corpus: 32 * MIB,
            small_replay: 16 * MIB,
            large_replay: 64 * MIB,
            long_replay: None,
        }
    } else {
        Sizes {
            corpus: 256 * MIB,
            small_replay: 50 * MIB,
            large_replay: 200 * MIB,
            long_replay: Some(1024 * MIB),
        }
    };
    let started = Instant::now();
    println!(
        "codiva-bench{}: {} captures, {} lines / {} per repetition (ids made unique per \
         repetition), {} CPUs",
        if options.quick { " --quick" } else { "" },
        fixtures.files.len(),
        fixtures.lines_per_rep(),
        size(fixtures.bytes_per_rep() as u64),
        std::thread::available_parallelism().map_or(1, usize::from),
    );
    println!();

    pipeline::check_sessions(&fixtures)?;
    if options.throughput_only {
        return throughput(&fixtures, sizes);
    }
    memory(&options, sizes)?;
    throughput(&fixtures, sizes)?;
    sessions::run(options.quick)?;
    client::run(options.quick)?;
    if let Some(codiva) = tui::binary() {
        daemon_stream::run(&codiva, options.quick)?;
    }
    tui::run(options.quick)?;

    println!(
        "MiB = 2^20 bytes. Total time {:.1} s.",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

// -- throughput -------------------------------------------------------------------------------

struct Measured {
    times: Vec<Duration>,
    counts: Counts,
}

impl Measured {
    fn sorted(&self) -> Vec<Duration> {
        let mut times = self.times.clone();
        times.sort();
        times
    }
    fn best(&self) -> Duration {
        self.sorted()[0]
    }
    fn median(&self) -> Duration {
        let times = self.sorted();
        times[times.len() / 2]
    }
}

fn measure(mut run: impl FnMut() -> Result<Counts>) -> Result<Measured> {
    let mut times = Vec::with_capacity(RUNS);
    let mut counts = Counts::default();
    for _ in 0..RUNS {
        let start = Instant::now();
        counts = run()?;
        times.push(start.elapsed());
    }
    Ok(Measured { times, counts })
}

fn mibs(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / MIB as f64 / time.as_secs_f64().max(1e-9)
}

fn per_sec(n: u64, time: Duration) -> f64 {
    n as f64 / time.as_secs_f64().max(1e-9)
}

fn throughput(fixtures: &Fixtures, sizes: Sizes) -> Result<()> {
    let build = Instant::now();
    let corpus = Corpus::build(fixtures, sizes.corpus);
    println!(
        "## Throughput: {} in memory ({} repetitions, {} lines, built in {:.2} s), one thread, \
         {RUNS} runs each",
        size(corpus.bytes.len() as u64),
        corpus.reps,
        corpus.lines.len(),
        build.elapsed().as_secs_f64(),
    );
    println!();

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .context("tokio runtime")?;

    let mut rows: Vec<(&str, Measured)> = Vec::new();
    rows.push((
        "parse only (parse_line)",
        measure(|| {
            let mut pipeline = Pipeline::new(fixtures);
            for index in 0..corpus.lines.len() {
                pipeline.parse_only(corpus.line(index));
            }
            Ok(pipeline.counts)
        })?,
    ));
    rows.push((
        "parse + reduce (parse_line → translate → apply → drain_events)",
        measure(|| {
            let mut pipeline = Pipeline::new(fixtures);
            for index in 0..corpus.lines.len() {
                pipeline.feed(corpus.line(index));
            }
            Ok(pipeline.counts)
        })?,
    ));
    rows.push((
        "LineReader only (split lines from &[u8])",
        measure(|| {
            rt.block_on(async {
                let mut reader = LineReader::new(&corpus.bytes[..]);
                let mut counts = Counts::default();
                while let Some(item) = reader.next_line().await? {
                    counts.lines += 1;
                    counts.bytes += match item {
                        ReadLine::Line(line) => std::hint::black_box(line).len() as u64 + 1,
                        ReadLine::Oversized { bytes } => bytes + 1,
                    };
                }
                Ok(counts)
            })
        })?,
    ));
    rows.push((
        "LineReader + parse + reduce",
        measure(|| {
            rt.block_on(async {
                let mut pipeline = Pipeline::new(fixtures);
                let mut reader = LineReader::new(&corpus.bytes[..]);
                while let Some(item) = reader.next_line().await? {
                    match item {
                        ReadLine::Line(line) => pipeline.feed(&line),
                        ReadLine::Oversized { bytes } => pipeline.oversized(bytes),
                    }
                }
                Ok(pipeline.counts)
            })
        })?,
    ));

    let mut table = Table::new(&[
        ("benchmark", Align::Left),
        ("best MiB/s", Align::Right),
        ("median MiB/s", Align::Right),
        ("best lines/s", Align::Right),
        ("median lines/s", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    let mut missed = false;
    for (name, measured) in &rows {
        let counts = measured.counts;
        if counts.bytes != corpus.bytes.len() as u64 {
            bail!(
                "{name}: fed {} of {} bytes",
                counts.bytes,
                corpus.bytes.len()
            );
        }
        let median = mibs(counts.bytes, measured.median());
        let pass = median >= TARGET_MIBS;
        missed |= !pass;
        table.row([
            (*name).to_owned(),
            format!("{:.1}", mibs(counts.bytes, measured.best())),
            format!("{median:.1}"),
            thousands(per_sec(counts.lines, measured.best())),
            thousands(per_sec(counts.lines, measured.median())),
            format!("≥ {TARGET_MIBS:.0} MiB/s"),
            if pass { "PASS" } else { "FAIL" }.to_owned(),
        ]);
    }
    print!("{}", table.render());
    println!();
    if let Some((_, reduce)) = rows.get(1) {
        let c = reduce.counts;
        println!(
            "PASS/FAIL compares the median with the target. Per run: {} lines → {} agent events \
             → {} session events, {} parse errors.",
            c.lines, c.agent_events, c.session_events, c.parse_errors
        );
    }
    println!();
    breakdown(fixtures, &corpus, missed)?;
    Ok(())
}

/// One instrumented run with a timer around each stage of the pipeline.
fn breakdown(fixtures: &Fixtures, corpus: &Corpus, missed: bool) -> Result<()> {
    let start = Instant::now();
    let mut pipeline = Pipeline::new(fixtures);
    for index in 0..corpus.lines.len() {
        pipeline.feed_timed(corpus.line(index));
    }
    let total = start.elapsed();
    let stages = pipeline.stages;
    let lines = pipeline.counts.lines.max(1);
    println!(
        "## Where the time goes (one instrumented run, {:.2} s{})",
        total.as_secs_f64(),
        if missed {
            "; the target was missed"
        } else {
            ""
        }
    );
    println!();
    let mut table = Table::new(&[
        ("stage", Align::Left),
        ("time s", Align::Right),
        ("share", Align::Right),
        ("ns/line", Align::Right),
        ("MiB/s alone", Align::Right),
    ]);
    let timed = [
        ("parse_line", stages.parse),
        ("Translator::translate", stages.translate),
        ("SessionState::apply", stages.apply),
        ("drain_events (+ drop)", stages.drain),
        ("host inputs", stages.host),
    ];
    let sum: Duration = timed.iter().map(|(_, time)| *time).sum();
    let rest = total.saturating_sub(sum);
    for (name, time) in timed.into_iter().chain([("loop + timers", rest)]) {
        table.row([
            name.to_owned(),
            format!("{:.3}", time.as_secs_f64()),
            format!(
                "{:.1} %",
                100.0 * time.as_secs_f64() / total.as_secs_f64().max(1e-9)
            ),
            format!("{:.0}", time.as_nanos() as f64 / lines as f64),
            format!("{:.0}", mibs(pipeline.counts.bytes, time)),
        ]);
    }
    print!("{}", table.render());
    println!();

    let costs = profile::by_kind(fixtures, corpus);
    let parse_total: Duration = costs.iter().map(|cost| cost.parse).sum();
    let bytes_total: u64 = costs.iter().map(|cost| cost.bytes).sum::<u64>().max(1);
    println!(
        "parse_line by line kind (timed line by line; \"1st pass\" = the type/subtype probe \
         parse_line runs before the typed pass, replicated here; a content delta is read in \
         one pass without it):"
    );
    println!();
    let mut table = Table::new(&[
        ("line kind", Align::Left),
        ("lines", Align::Right),
        ("avg bytes", Align::Right),
        ("bytes", Align::Right),
        ("parse time", Align::Right),
        ("parse MiB/s", Align::Right),
        ("1st pass MiB/s", Align::Right),
        ("1st pass / parse", Align::Right),
    ]);
    for cost in &costs {
        table.row([
            cost.kind.clone(),
            cost.lines.to_string(),
            (cost.bytes / cost.lines.max(1)).to_string(),
            format!("{:.1} %", 100.0 * cost.bytes as f64 / bytes_total as f64),
            format!(
                "{:.1} %",
                100.0 * cost.parse.as_secs_f64() / parse_total.as_secs_f64().max(1e-9)
            ),
            format!("{:.0}", mibs(cost.bytes, cost.parse)),
            format!("{:.0}", mibs(cost.bytes, cost.probe)),
            format!(
                "{:.0} %",
                100.0 * cost.probe.as_secs_f64() / cost.parse.as_secs_f64().max(1e-9)
            ),
        ]);
    }
    let probe_total: Duration = costs.iter().map(|cost| cost.probe).sum();
    let lines_total: u64 = costs.iter().map(|cost| cost.lines).sum();
    table.row([
        "all".to_owned(),
        lines_total.to_string(),
        (bytes_total / lines_total.max(1)).to_string(),
        "100 %".to_owned(),
        "100 %".to_owned(),
        format!("{:.0}", mibs(bytes_total, parse_total)),
        format!("{:.0}", mibs(bytes_total, probe_total)),
        format!(
            "{:.0} %",
            100.0 * probe_total.as_secs_f64() / parse_total.as_secs_f64().max(1e-9)
        ),
    ]);
    print!("{}", table.render());
    println!();
    Ok(())
}

// -- memory -----------------------------------------------------------------------------------

/// What a replay child reports (bytes unless said otherwise).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Replay {
    bytes: u64,
    lines: u64,
    secs: f64,
    rss_before: u64,
    rss_peak: u64,
    hwm: u64,
    rss_after: u64,
    /// Live heap allocated by the replay (counted from just before the session was built).
    heap_peak: u64,
    heap_after: u64,
    /// Heap taken by a clone of the session log: what the log really holds.
    log_heap: u64,
    log_bytes: u64,
    log_len: u64,
    log_dropped: u64,
    /// Input fed, RSS and heap when the log first dropped an entry (0 if it never did).
    budget_bytes: u64,
    budget_rss: u64,
    budget_heap: u64,
}

macro_rules! replay_fields {
    ($m:ident) => {
        $m!(
            bytes,
            lines,
            rss_before,
            rss_peak,
            hwm,
            rss_after,
            heap_peak,
            heap_after,
            log_heap,
            log_bytes,
            log_len,
            log_dropped,
            budget_bytes,
            budget_rss,
            budget_heap
        )
    };
}

impl Replay {
    /// The highest RSS seen: the sampled peak or the kernel's high-water mark.
    fn peak(&self) -> u64 {
        self.rss_peak.max(self.hwm)
    }

    fn to_json(self) -> Value {
        let mut map = serde_json::Map::new();
        macro_rules! put {
            ($($field:ident),*) => { $( map.insert(stringify!($field).to_owned(), json!(self.$field)); )* };
        }
        replay_fields!(put);
        map.insert("secs".to_owned(), json!(self.secs));
        Value::Object(map)
    }

    fn from_json(value: &Value) -> Result<Replay> {
        let field = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_u64)
                .with_context(|| format!("replay report lacks {key}: {value}"))
        };
        let mut replay = Replay {
            secs: value.get("secs").and_then(Value::as_f64).unwrap_or(0.0),
            ..Replay::default()
        };
        macro_rules! get {
            ($($field:ident),*) => { $( replay.$field = field(stringify!($field))?; )* };
        }
        replay_fields!(get);
        Ok(replay)
    }
}

/// Streams `target` bytes of replay through one session and prints a JSON report.
fn replay_child(fixtures: &Fixtures, target: usize) -> Result<()> {
    let before = mem::read();
    alloc::enable();
    let mut stream = LineStream::new(fixtures, target);
    let mut pipeline = Pipeline::new(fixtures);
    let mut peak = before.rss;
    let mut budget = None;
    let mut since_sample = 0;
    let start = Instant::now();
    while let Some(line) = stream.next_line() {
        pipeline.feed(line);
        since_sample += 1;
        if since_sample == SAMPLE_EVERY {
            since_sample = 0;
            let rss = mem::read().rss;
            peak = peak.max(rss);
            if budget.is_none() && pipeline.state().log().dropped() > 0 {
                budget = Some((pipeline.counts.bytes, rss, alloc::live().max(0) as u64));
            }
        }
    }
    let (budget_bytes, budget_rss, budget_heap) = budget.unwrap_or_default();
    let secs = start.elapsed().as_secs_f64();
    let after = mem::read();
    let heap_peak = alloc::peak();
    let heap_after = alloc::live();
    let log = pipeline.state().log();
    let copy = log.clone();
    let log_heap = alloc::live() - heap_after;
    drop(copy);
    let report = Replay {
        bytes: pipeline.counts.bytes,
        lines: pipeline.counts.lines,
        secs,
        rss_before: before.rss,
        rss_peak: peak.max(after.rss),
        hwm: after.hwm,
        rss_after: after.rss,
        heap_peak: heap_peak.max(0) as u64,
        heap_after: heap_after.max(0) as u64,
        log_heap: log_heap.max(0) as u64,
        log_bytes: log.bytes() as u64,
        log_len: log.len() as u64,
        log_dropped: log.dropped(),
        budget_bytes,
        budget_rss,
        budget_heap,
    };
    println!("{}", report.to_json());
    Ok(())
}

fn run_replay(options: &Options, target: usize) -> Result<Replay> {
    let exe = std::env::current_exe().context("locating codiva-bench")?;
    let output = Command::new(exe)
        .arg("--replay-child")
        .arg(target.to_string())
        .arg("--fixtures")
        .arg(&options.fixtures)
        .output()
        .context("running the replay child")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "replay child failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let last = stdout.lines().last().unwrap_or_default();
    let value: Value =
        serde_json::from_str(last).with_context(|| format!("replay child printed {stdout:?}"))?;
    Replay::from_json(&value)
}

fn memory(options: &Options, sizes: Sizes) -> Result<()> {
    println!(
        "## Memory: a replay streamed through one SessionState (lines generated on the fly, \
         each replay in a fresh process, RSS sampled every {SAMPLE_EVERY} lines)"
    );
    println!();
    let small = run_replay(options, sizes.small_replay)?;
    let large = run_replay(options, sizes.large_replay)?;
    let mut replays = vec![small, large];
    if let Some(long) = sizes.long_replay {
        replays.push(run_replay(options, long)?);
    }

    let mut rss = Table::new(&[
        ("replay", Align::Left),
        ("lines", Align::Right),
        ("MiB/s", Align::Right),
        ("RSS before", Align::Right),
        ("peak RSS", Align::Right),
        ("VmHWM", Align::Right),
        ("RSS after", Align::Right),
        ("peak − before", Align::Right),
    ]);
    let mut heap = Table::new(&[
        ("replay", Align::Left),
        ("heap peak", Align::Right),
        ("heap after", Align::Right),
        ("log heap", Align::Right),
        ("rest of state", Align::Right),
        ("log().bytes()", Align::Right),
        ("log().len()", Align::Right),
        ("log().dropped()", Align::Right),
    ]);
    for replay in &replays {
        rss.row([
            size(replay.bytes),
            replay.lines.to_string(),
            format!(
                "{:.1}",
                replay.bytes as f64 / MIB as f64 / replay.secs.max(1e-9)
            ),
            size(replay.rss_before),
            size(replay.rss_peak),
            size(replay.hwm),
            size(replay.rss_after),
            size(replay.peak().saturating_sub(replay.rss_before)),
        ]);
        heap.row([
            size(replay.bytes),
            size(replay.heap_peak),
            size(replay.heap_after),
            size(replay.log_heap),
            size(replay.heap_after.saturating_sub(replay.log_heap)),
            size(replay.log_bytes),
            replay.log_len.to_string(),
            replay.log_dropped.to_string(),
        ]);
    }
    print!("{}", rss.render());
    println!();
    println!(
        "Heap (counted by the bench's allocator from just before the session is built; \"log \
         heap\" = what a clone of state.log() allocates, \"rest of state\" = heap after − log \
         heap):"
    );
    println!();
    print!("{}", heap.render());
    println!();

    let diff = large.peak() as i64 - small.peak() as i64;
    let pass = diff < FLAT_LIMIT as i64;
    println!(
        "Flat: peak({}) − peak({}) = {} (rule: < {}; peak = max(sampled VmRSS, VmHWM)) → {}",
        size(large.bytes),
        size(small.bytes),
        signed_size(diff),
        size(FLAT_LIMIT),
        if pass { "PASS" } else { "FAIL" }
    );
    let budget = codiva_core::session_log::LOG_BUDGET as u64;
    let per_mib = |replay: &Replay| replay.log_bytes as f64 / (replay.bytes as f64 / MIB as f64);
    if large.log_dropped == 0 {
        println!(
            "Between these two the log is under its budget ({}), so it still grows: about {:.1} \
             KiB of log().bytes() (≈ {:.1} KiB of heap) per MiB of this input; it reaches the \
             budget after about {:.0} MiB of replay.",
            size(budget),
            per_mib(&large) / 1024.0,
            large.log_heap as f64 / (large.bytes as f64 / MIB as f64) / 1024.0,
            budget as f64 / per_mib(&large).max(1.0)
        );
    }
    if let Some(long) = replays.get(2) {
        if long.budget_bytes > 0 {
            let span = (long.bytes - long.budget_bytes) as f64 / MIB as f64;
            let per_100 = |grown: u64, from: u64| {
                signed_size(((grown as f64 - from as f64) / span.max(1e-9) * 100.0) as i64)
            };
            println!(
                "Past the budget: in the {} replay the log first dropped an entry after {} of \
                 input (RSS {}); it then holds {} of log().bytes() in {} of heap. Over the \
                 remaining {}, peak RSS changed by {} and heap by {} per 100 MiB of input \
                 (what still grows once the log is capped: state nothing prunes).",
                size(long.bytes),
                size(long.budget_bytes),
                size(long.budget_rss),
                size(long.log_bytes),
                size(long.log_heap),
                size(long.bytes - long.budget_bytes),
                per_100(long.peak(), long.budget_rss),
                per_100(long.heap_after, long.budget_heap),
            );
        } else {
            println!(
                "The {} replay did not reach the log budget either.",
                size(long.bytes)
            );
        }
    }
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args() {
        let options = parse_args(["--quick".to_owned()]).unwrap();
        assert!(options.quick && options.replay_child.is_none());
        assert!(parse_args(["--nope".to_owned()]).is_err());
        let child = parse_args(["--replay-child".to_owned(), "42".to_owned()]).unwrap();
        assert_eq!(child.replay_child, Some(42));
    }

    #[test]
    fn replay_report_round_trips() {
        let replay = Replay {
            bytes: 1,
            lines: 2,
            secs: 0.5,
            rss_before: 3,
            rss_peak: 4,
            hwm: 5,
            rss_after: 6,
            heap_peak: 10,
            heap_after: 11,
            log_heap: 12,
            log_bytes: 7,
            log_len: 8,
            log_dropped: 9,
            budget_bytes: 13,
            budget_rss: 14,
            budget_heap: 15,
        };
        let back = Replay::from_json(&replay.to_json()).unwrap();
        assert_eq!(back, replay);
        assert_eq!(back.peak(), 5);
    }
}
