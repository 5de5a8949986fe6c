//! What streaming a long reply costs the real `codiva` binary, without the agent: the binary's
//! terminal UI runs in a pty with the session's log open, and its `claude` is this bench
//! (`--fake-claude`), which answers the handshake and then replays one turn of a real capture
//! (`claude-two-turns.jsonl`) with its one text delta stretched into a reply of markdown, paced
//! (about 700 lines a second, as Claude Code writes a long answer) or fast (in one second). The figure is
//! codiva's own CPU time (user + system, not its children) per streamed MB, plus what it wrote
//! to the terminal.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codiva_testkit::pty::Pty;
use serde_json::{Value, json};

/// Bytes of reply text (as in the side-by-side measurement: a 1 MB reply).
pub const REPLY_BYTES: usize = 1024 * 1024;
/// Text per delta line: a 1 MB reply is ~11k lines, as Claude Code streams it.
pub const DELTA_BYTES: usize = 95;
/// How long the paced reply takes (as Claude Code writes a long answer).
pub const PACED: Duration = Duration::from_secs(16);
/// How long the fast reply takes (as Claude Code relays a fast model: ~11 lines a ms).
pub const FAST: Duration = Duration::from_secs(1);

/// One run's figures.
#[derive(Debug, Clone, Copy)]
pub struct Streamed {
    /// codiva's CPU seconds (the UI and its daemon) from the first delta until it settled
    /// after the last line.
    pub cpu_s: f64,
    /// Of which the UI's process.
    pub ui_cpu_s: f64,
    /// Of which the daemon's (0 with the manager in the UI's process).
    pub daemon_cpu_s: f64,
    /// Of which its highlighter thread's (painting the code of the completed message; the
    /// first block of a language compiles its grammar, ~50 ms for Rust).
    pub highlight_s: f64,
    /// Bytes codiva wrote to the terminal over the same stretch.
    pub written: usize,
    /// Frames drawn (cursor placements; ratatui places the caret once per frame).
    pub frames: usize,
    /// Times the UI's threads went to sleep and were woken (voluntary context switches; not
    /// moved by the machine's load the way CPU time is).
    pub wakeups: u64,
    /// The same for the daemon's threads.
    pub daemon_wakeups: u64,
    pub seconds: f64,
}

/// The reply: markdown paragraphs, lists and code, numbered so no two stretches are alike.
pub fn reply_text(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 2048);
    let mut n = 0;
    while out.len() < bytes {
        n += 1;
        out.push_str(&format!(
            "## Step {n}\n\nThe **parser** reads line {n} of the input and hands each `event` to the \
             reducer, which keeps the session's state; nothing else is shared between tasks.\n\n\
             - first, check the header of block {n}\n- then the body (see `src/lib.rs`)\n\n\
             ```rust\nfn step_{n}(input: &str) -> usize {{\n    input.lines().filter(|l| !l.is_empty()).count()\n}}\n```\n\n"
        ));
    }
    out
}

/// `codiva-bench --fake-claude BYTES PACE_MS DIR [claude flags…]`: a Claude Code that answers
/// every prompt with the reply; writes `DIR/started` before the first delta and `DIR/done`
/// after the result line. With [`STAMPED`] among the flags each delta begins with the time it
/// was written ([`stamp`]), for latency figures.
pub fn fake_claude_main(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--version") {
        println!("2.1.332 (Claude Code)");
        return Ok(());
    }
    let bytes: usize = args.first().context("BYTES")?.parse()?;
    let pace = Duration::from_millis(args.get(1).context("PACE_MS")?.parse()?);
    let dir = PathBuf::from(args.get(2).context("DIR")?);
    let capture = std::fs::read_to_string(
        crate::corpus::default_fixture_dir().join("claude-two-turns.jsonl"),
    )?;
    let lines: Vec<Value> = capture
        .lines()
        .take(12)
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    if lines.len() < 12 {
        bail!("the capture is shorter than one turn");
    }
    let text = reply_text(bytes);
    let stamped = args.iter().any(|a| a == STAMPED);
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(input) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match input["type"].as_str() {
            Some("control_request") => {
                let mut answer = lines[0].clone();
                answer["response"]["request_id"] = input["request_id"].clone();
                writeln!(out, "{answer}")?;
                out.flush()?;
            }
            Some("user") => {
                turn(&mut out, &lines, &input, &text, pace, &dir, stamped)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn turn(
    out: &mut impl Write,
    lines: &[Value],
    input: &Value,
    text: &str,
    pace: Duration,
    dir: &Path,
    stamped: bool,
) -> Result<()> {
    let session = lines[1]["session_id"].clone();
    let mut echo = input.clone();
    echo["session_id"] = session;
    echo["isReplay"] = json!(true);
    if echo.get("uuid").is_none() {
        echo["uuid"] = lines[3]["uuid"].clone();
    }
    for line in [&lines[1], &lines[2], &echo, &lines[4], &lines[5]] {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    std::fs::write(dir.join("started"), "")?;
    let chunks = text_chunks(text);
    let started = Instant::now();
    let step = pace / u32::try_from(chunks.len().max(1)).unwrap_or(u32::MAX);
    let mut delta = lines[6].clone();
    for (i, chunk) in chunks.iter().enumerate() {
        delta["event"]["delta"]["text"] = if stamped {
            json!(format!("{}{chunk}", stamp(now_us())))
        } else {
            json!(chunk)
        };
        writeln!(out, "{delta}")?;
        if !pace.is_zero() {
            out.flush()?;
            let due = started + step * u32::try_from(i + 1).unwrap_or(u32::MAX);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    let mut assistant = lines[7].clone();
    assistant["message"]["content"][0]["text"] = json!(text);
    let mut result = lines[11].clone();
    result["result"] = json!(text);
    for line in [&assistant, &lines[8], &lines[9], &lines[10], &result] {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    std::fs::write(dir.join("done"), "")?;
    Ok(())
}

/// How many delta lines a reply of `bytes` is streamed in.
pub fn delta_count(bytes: usize) -> usize {
    text_chunks(&reply_text(bytes)).len()
}

/// The fake's flag for stamped deltas.
pub const STAMPED: &str = "--bench-stamped";

/// Microseconds since the epoch (the clock both processes share).
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
        })
}

/// The mark a stamped delta begins with.
fn stamp(us: u64) -> String {
    format!("[@{us}@]")
}

/// Every stamp in `text` (streamed text merges the deltas of a batch; the reply has no `@`).
pub fn stamps(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.split("[@")
        .skip(1)
        .filter_map(|rest| rest.split_once("@]")?.0.parse().ok())
}

/// The latest stamp in `text`.
pub fn latest_stamp(text: &str) -> Option<u64> {
    stamps(text).max()
}

/// The text in pieces of about [`DELTA_BYTES`], cut on character boundaries.
fn text_chunks(text: &str) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = codiva_protocol::text::ceil_boundary(text, start + DELTA_BYTES);
        chunks.push(&text[start..end]);
        start = end;
    }
    chunks
}

/// Where the session manager runs while the reply streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// In the repository's daemon, which the UI starts and attaches to (the default).
    Daemon,
    /// In the UI's process (`CODIVA_IN_PROCESS=1`).
    InProcess,
}

/// Streams one reply of `bytes` into the real binary with its log open (paced over `pace`, or
/// at once for zero) and measures codiva's side of it.
pub fn measure(
    codiva: &Path,
    bytes: usize,
    pace: Duration,
    placement: Placement,
) -> Result<Streamed> {
    let dir = std::env::temp_dir().join(format!(
        "codiva-bench-stream-{}-{}",
        std::process::id(),
        pace.as_millis()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let result = measure_in(codiva, bytes, pace, placement, &dir);
    // Whatever happened, the daemon the UI started goes.
    crate::tui::stop_daemon(&dir.join("repo"));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Under `dir`: a repository with one commit (`repo`, returned), the fake claude streaming
/// `bytes` over `pace` (`claude`; deltas stamped with their write time when `stamped`) and a
/// config without base fetches or title requests (`config.toml`).
pub fn fake_setup(dir: &Path, bytes: usize, pace: Duration, stamped: bool) -> Result<PathBuf> {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo)?;
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "bench"],
        &["config", "user.email", "bench@example.invalid"],
        &["commit", "-q", "--allow-empty", "-m", "init"],
    ] {
        let status = Command::new("git").args(args).current_dir(&repo).status()?;
        if !status.success() {
            bail!("git {args:?} failed");
        }
    }
    let fake = dir.join("claude");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nexec '{}' --fake-claude {bytes} {} '{}' {}\"$@\"\n",
            std::env::current_exe()?.display(),
            pace.as_millis(),
            dir.display(),
            if stamped {
                format!("{STAMPED} ")
            } else {
                String::new()
            }
        ),
    )?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::write(
        dir.join("config.toml"),
        "fetch_base = false\ntitles = \"prompt\"\n",
    )?;
    Ok(repo)
}

fn measure_in(
    codiva: &Path,
    bytes: usize,
    pace: Duration,
    placement: Placement,
    dir: &Path,
) -> Result<Streamed> {
    let repo = fake_setup(dir, bytes, pace, false)?;
    let fake = dir.join("claude");
    let config = dir.join("config.toml");
    let mut command = Command::new(codiva);
    command
        .current_dir(&repo)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.join("home"))
        .env("TERM", "xterm-256color")
        .env("CODIVA_CLAUDE", &fake)
        .env("CODIVA_CONFIG", &config)
        .env("CODIVA_STATE_DIR", dir.join("state"));
    if placement == Placement::InProcess {
        command.env("CODIVA_IN_PROCESS", "1");
    }
    let mut pty = Pty::spawn(command, 40, 120)?;
    let header = format!("codiva {}", env!("CARGO_PKG_VERSION"));
    wait(&pty, Duration::from_secs(20), |s| s.contains(&header))?;
    pty.type_line("write the long answer");
    wait(&pty, Duration::from_secs(20), |s| s.contains("Running"))?;
    // Enter on the empty composer focuses the list; Enter again opens the session.
    pty.send(b"\r");
    pty.send(b"\r");
    wait(&pty, Duration::from_secs(20), |s| {
        s.contains("‹ write the long answer")
    })?;
    let started_file = dir.join("started");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !started_file.exists() {
        if Instant::now() > deadline {
            bail!("the fake claude never started:\n{}", pty.screen());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let pid = pty.pid();
    let t0 = Instant::now();
    // The UI and the daemon that parses the agent's stream (the agent, its child, is not
    // counted).
    let daemon = match placement {
        Placement::Daemon => Some(crate::tui::daemon_pid(&repo).context("no daemon runs")?),
        Placement::InProcess => None,
    };
    let daemon_ticks = || daemon.map_or(Ok(0), crate::tui::cpu_ticks);
    let mut ui_meter = CpuMeter::start(pid)?;
    let mut daemon_meter = daemon.map(CpuMeter::start).transpose()?;
    let sample = |ui: &mut CpuMeter, daemon: &mut Option<CpuMeter>| {
        ui.sample();
        if let Some(daemon) = daemon.as_mut() {
            daemon.sample();
        }
    };
    let highlight0 = highlighter_ticks(pid);
    let wakeups0 = wakeups(pid);
    let daemon_wakeups0 = daemon.map_or(0, wakeups);
    let out0 = pty.output();
    let done_file = dir.join("done");
    let deadline = Instant::now() + pace + Duration::from_secs(60);
    let mut sampled = Instant::now();
    while !done_file.exists() {
        if Instant::now() > deadline {
            bail!("the reply never ended:\n{}", pty.screen());
        }
        std::thread::sleep(Duration::from_millis(5));
        if sampled.elapsed() >= CpuMeter::EVERY {
            sample(&mut ui_meter, &mut daemon_meter);
            sampled = Instant::now();
        }
    }
    // Settled: codiva's CPU no longer moves (it has drawn the completed message).
    let mut last = (crate::tui::cpu_ticks(pid)?, daemon_ticks()?);
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        sample(&mut ui_meter, &mut daemon_meter);
        let now = (crate::tui::cpu_ticks(pid)?, daemon_ticks()?);
        if now == last {
            break;
        }
        last = now;
    }
    sample(&mut ui_meter, &mut daemon_meter);
    let seconds = t0.elapsed().as_secs_f64();
    let highlight = highlighter_ticks(pid) - highlight0;
    let ui_wakeups = wakeups(pid).saturating_sub(wakeups0);
    let daemon_wakeups = daemon.map_or(0, wakeups).saturating_sub(daemon_wakeups0);
    let out = pty.output();
    let written = &out[out0.len().min(out.len())..];
    let frames = count(written, b"\x1b[?25h").max(count(written, b"\x1b[?25l"));
    let screen = pty.screen();
    pty.kill();
    if !screen.contains("Completed") && !screen.contains("Step") {
        bail!("the reply is not on screen:\n{screen}");
    }
    let ui_cpu_s = ui_meter.used_s();
    let daemon_cpu_s = daemon_meter.as_ref().map_or(0.0, CpuMeter::used_s);
    Ok(Streamed {
        cpu_s: ui_cpu_s + daemon_cpu_s,
        ui_cpu_s,
        daemon_cpu_s,
        highlight_s: highlight as f64 / crate::tui::USER_HZ,
        written: written.len(),
        frames,
        wakeups: ui_wakeups,
        daemon_wakeups,
        seconds,
    })
}

/// CPU time of a process's threads from when it started, in ns (`schedstat`): the ticks of
/// `/proc/<pid>/stat` count in 10 ms steps, which is ±0.02 s on a 1 MB figure of UI and daemon
/// (a fifth of the fast target). Sampled while the reply streams, so that a thread that ends
/// (a blocking-pool thread) counts up to its last sample; a thread that starts counts whole.
struct CpuMeter {
    pid: u32,
    start: std::collections::HashMap<u32, u64>,
    last: std::collections::HashMap<u32, u64>,
}

impl CpuMeter {
    const EVERY: Duration = Duration::from_millis(50);

    fn start(pid: u32) -> Result<Self> {
        let now = crate::tui::thread_ns(pid)?;
        Ok(CpuMeter {
            pid,
            start: now.clone(),
            last: now,
        })
    }

    /// Takes the threads' figures now (a process that has just ended keeps its last ones).
    fn sample(&mut self) {
        if let Ok(now) = crate::tui::thread_ns(self.pid) {
            self.last.extend(now);
        }
    }

    fn used_s(&self) -> f64 {
        let ns: u64 = self
            .last
            .iter()
            .map(|(tid, ns)| ns.saturating_sub(self.start.get(tid).copied().unwrap_or(0)))
            .sum();
        ns as f64 / 1e9
    }
}

/// Voluntary context switches of all of codiva's threads so far.
fn wakeups(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let status = std::fs::read_to_string(task.path().join("status")).ok()?;
            status
                .lines()
                .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))?
                .trim()
                .parse::<u64>()
                .ok()
        })
        .sum()
}

/// CPU ticks of codiva's highlighter thread so far (0 before it starts).
fn highlighter_ticks(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|comm| comm.starts_with("codiva-highligh"))
        })
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .sum()
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| w == &needle)
        .count()
}

fn wait(pty: &Pty, timeout: Duration, pred: impl Fn(&str) -> bool) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        if pred(&pty.screen()) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("timed out; the screen:\n{}", pty.screen());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_reply() {
        let text = reply_text(10_000);
        let chunks = text_chunks(&text);
        assert_eq!(chunks.concat(), text);
        assert!(chunks.iter().all(|c| c.len() <= DELTA_BYTES + 3));
    }

    #[test]
    fn the_latest_stamp_of_merged_deltas_is_found() {
        // A delta may begin with any letter (`t` after the mark once hid a stamp).
        let text = format!("{}tone {}two", stamp(17), stamp(42));
        assert_eq!(latest_stamp(&text), Some(42));
        assert_eq!(stamps(&text).count(), 2);
        assert_eq!(latest_stamp("plain text"), None);
    }
}
