//! The terminal UI's numbers: first frame, frame cost against log length, frame time while
//! sessions stream, idle CPU, memory with large logs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use codiva_core::manager::Manager;
use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, LogEntry};
use codiva_protocol::manager::{ManagerEvent, SessionInfo, SessionPhase};
use codiva_protocol::session::{Scope, SessionEvent, Status, TodoProgress};
use codiva_testkit::pty::Pty;
use codiva_tui::app::{App, AppInfo, Done, UiEvent, View};
use codiva_tui::log_view::LogView;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::stream_replay::Placement;
use crate::table::{Align, Table};

fn info() -> AppInfo {
    AppInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        cwd: "~/bench".into(),
        base: "main".into(),
        agent: "claude".into(),
        model: None,
        warnings: Vec::new(),
        agents: Vec::new(),
        remote: None,
        detached: false,
    }
}

/// The daemon's RSS with 20 idle sessions at most: the in-process UI and manager idled at
/// 10.2 MB with none, codiva's predecessor at 139.5 MB (measured side by side, 2026-12-01); the
/// UI with 20 sessions of 10,000 log lines each is held to 30 MiB too.
const DAEMON_RSS_TARGET: u64 = 30 * 1024 * 1024;

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

pub(crate) fn verdict(ok: bool) -> String {
    if ok { "PASS" } else { "FAIL" }.to_owned()
}

pub fn run(quick: bool) -> Result<()> {
    let mut table = Table::new(&[
        ("measure", Align::Left),
        ("value", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    restored_rows(&mut table, quick, true)?;

    let (small, large) = frame_cost_by_log_length();
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
    table.row([
        "detail frame at 120×40, log of 100 lines".into(),
        ms(small),
        String::new(),
        String::new(),
    ]);
    table.row([
        "detail frame at 120×40, log of 200,000 lines".into(),
        format!("{} ({ratio:.2}×)", ms(large)),
        "≤ 2× the 100-line frame".into(),
        verdict(ratio <= 2.0),
    ]);
    let card = card_toggle_frame();
    table.row([
        "open or close a card + frame at 120×40, 300-message log".into(),
        ms(card),
        "< 4 ms".into(),
        verdict(card < Duration::from_millis(4)),
    ]);
    let code = code_block_frames();
    table.row([
        "2,000-line code block at 120×40: first frame (plain, highlighting asked for)".into(),
        ms(code.first),
        "< 4 ms".into(),
        verdict(code.first < Duration::from_millis(4)),
    ]);
    table.row([
        "2,000-line code block at 120×40: frame, highlighted, scrolling".into(),
        ms(code.frame),
        "< 4 ms".into(),
        verdict(code.frame < Duration::from_millis(4)),
    ]);
    table.row([
        "  highlighter thread, off the UI thread: the block's last screen painted after".into(),
        ms(code.painted),
        String::new(),
        String::new(),
    ]);
    let p99 = streaming_frames(if quick { 500 } else { 2000 });
    table.row([
        "p99 frame at 120×40 while 20 sessions stream at full speed".into(),
        ms(p99),
        "≤ 4 ms".into(),
        verdict(p99 <= Duration::from_millis(4)),
    ]);
    let (median, grouped) = grouped_list_frames(if quick { 500 } else { 2000 });
    table.row([
        "p99 list frame at 120×40, 10 groups of 5 attempts running (a row changes, spinners step)"
            .into(),
        format!("{} (median {})", ms(grouped), ms(median)),
        "≤ 4 ms".into(),
        verdict(grouped <= Duration::from_millis(4)),
    ]);
    let rss = memory_child()?;
    table.row([
        "RSS with 20 sessions holding 10,000 log lines each (fresh process)".into(),
        crate::size(rss),
        "≤ 30 MiB".into(),
        verdict(rss <= 30 * 1024 * 1024),
    ]);
    println!("## Terminal UI (release build)");
    println!();
    println!("{}", table.render());
    Ok(())
}

/// The rows over 20 restored sessions: the first frame in process and of the real binary
/// (starting its daemon, attaching to it), the daemon's RSS, idle CPU; with `streaming`, the
/// streaming rows of the binary too.
pub(crate) fn restored_rows(table: &mut Table, quick: bool, streaming: bool) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let dir = std::env::temp_dir().join(format!("codiva-bench-tui-{}", std::process::id()));
    let result = (|| -> Result<()> {
        // One session's transcript (and so its log) is 1 MiB: a UI that attaches asks every
        // session's `session/snapshot`, log included.
        let (repo, claude_home, _) = runtime.block_on(crate::sessions::restored_repo_with(
            &dir,
            20,
            256 * 1024,
            1024 * 1024,
        ))?;
        let first = runtime.block_on(first_frame_in_process(&repo, &claude_home, &dir))?;
        table.row([
            "first frame, 20 restored sessions, one with a 1 MiB log (in process: manager start + list + draw)".into(),
            ms(first),
            "≤ 50 ms".into(),
            verdict(first <= Duration::from_millis(50)),
        ]);
        match binary() {
            Some(codiva) => {
                let run = binary_in_pty(&codiva, &repo, &dir, quick);
                stop_daemon(&repo);
                let run = run?;
                table.row([
                    "first frame of the real binary in a pty, 20 restored sessions, one with a 1 MiB log (starting the daemon)".into(),
                    ms(run.first),
                    String::new(),
                    String::new(),
                ]);
                table.row([
                    "first frame of an attaching UI (the daemon runs), 20 sessions, one with a 1 MiB log".into(),
                    ms(run.attach_first),
                    "≤ 50 ms".into(),
                    verdict(run.attach_first <= Duration::from_millis(50)),
                ]);
                table.row([
                    "daemon RSS, 20 restored idle sessions (a UI attached)".into(),
                    crate::size(run.daemon_rss),
                    format!("≤ {}", crate::size(DAEMON_RSS_TARGET)),
                    verdict(run.daemon_rss <= DAEMON_RSS_TARGET),
                ]);
                table.row([
                    "idle CPU (UI + daemon), nothing streaming".into(),
                    format!("{:.2} %", run.idle),
                    "< 1 %".into(),
                    verdict(run.idle < 1.0),
                ]);
                table.row([
                    "idle CPU (UI + daemon) with a running (spinner) session, nothing streaming"
                        .into(),
                    format!("{:.2} %", run.spinning),
                    "< 1 %".into(),
                    verdict(run.spinning < 1.0),
                ]);
                if streaming {
                    streaming_rows(table, &codiva, &[Placement::Daemon])?;
                }
            }
            None => table.row([
                "the real binary (first frame, idle CPU)".to_owned(),
                "not built".to_owned(),
                "run scripts/bench".to_owned(),
                "NOT MEASURED".to_owned(),
            ]),
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// `--stream-only`: the streaming rows alone (to profile the binary while they run).
pub fn stream_only(daemon_only: bool) -> Result<()> {
    let mut table = Table::new(&[
        ("measure", Align::Left),
        ("value", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    let codiva = binary().context("build the codiva binary next to this bench")?;
    let placements: &[Placement] = if daemon_only {
        &[Placement::Daemon]
    } else {
        &[Placement::Daemon, Placement::InProcess]
    };
    streaming_rows(&mut table, &codiva, placements)?;
    println!("{}", table.render());
    Ok(())
}

/// The `codiva` binary built next to this bench (`scripts/bench` builds both).
pub(crate) fn binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let codiva = exe.parent()?.join("codiva");
    codiva.is_file().then_some(codiva)
}

async fn first_frame_in_process(repo: &Path, claude_home: &Path, dir: &Path) -> Result<Duration> {
    let started = Instant::now();
    let options = crate::sessions::manager_options(repo, claude_home, dir.join("state-tui"));
    let (manager, _) = Manager::start(options).await?;
    let mut app = App::new(info());
    for session in manager.list().await? {
        app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
            session,
        })));
    }
    let mut terminal = Terminal::new(TestBackend::new(120, 40))?;
    terminal.draw(|frame| app.render(frame))?;
    let elapsed = started.elapsed();
    manager.shutdown().await;
    Ok(elapsed)
}

/// What the real binary costs over its daemon.
struct BinaryRun {
    /// To the first frame, the daemon started on the way.
    first: Duration,
    /// To the first frame of a second UI, the daemon running.
    attach_first: Duration,
    daemon_rss: u64,
    /// CPU % of the UI and the daemon together.
    idle: f64,
    spinning: f64,
}

/// The pid of the repository's daemon, from its lock file (while it runs).
pub(crate) fn daemon_pid(repo: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(repo.join(".codiva/manager.lock")).ok()?;
    let holder: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    if holder["what"] != "codiva daemon" {
        return None;
    }
    let pid = u32::try_from(holder["pid"].as_u64()?).ok()?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    String::from_utf8_lossy(&cmdline)
        .contains("--listen")
        .then_some(pid)
}

/// Stops the repository's daemon (SIGTERM: its agents stopped, its state written) and waits
/// for it, at most 20 s.
pub(crate) fn stop_daemon(repo: &Path) {
    let Some(pid) = daemon_pid(repo) else {
        return;
    };
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The threads of `pid` and of the repository's daemon, each with its CPU time so far (ns), by
/// process and thread id.
pub(crate) fn ui_and_daemon_threads(
    pid: u32,
    repo: &Path,
) -> Result<std::collections::HashMap<(u32, u32), u64>> {
    let mut threads = std::collections::HashMap::new();
    for process in [Some(pid), daemon_pid(repo)].into_iter().flatten() {
        for (tid, ns) in thread_ns(process)? {
            threads.insert((process, tid), ns);
        }
    }
    Ok(threads)
}

/// CPU time spent between two readings of [`ui_and_daemon_threads`], ns: each thread's own
/// difference (a thread started in between counts from 0). A thread that ended in between is
/// not in `after`, and its time in the window is lost; summing the totals instead made the
/// difference negative then (a tokio blocking thread ends after 10 s idle), which wrapped.
fn cpu_between(
    before: &std::collections::HashMap<(u32, u32), u64>,
    after: &std::collections::HashMap<(u32, u32), u64>,
) -> u64 {
    after
        .iter()
        .map(|(thread, ns)| ns.saturating_sub(before.get(thread).copied().unwrap_or(0)))
        .sum()
}

/// Each thread's time on a CPU so far, ns (`/proc/<pid>/task/<tid>/schedstat`), by thread id;
/// a thread that ended while this read is left out. For the idle rows: the ticks of
/// `/proc/<pid>/stat` count in 10 ms steps, 0.2–0.5 % of their window, as much as the figure
/// itself.
pub(crate) fn thread_ns(pid: u32) -> Result<std::collections::HashMap<u32, u64>> {
    let mut threads = std::collections::HashMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let task = task?;
        let Ok(stat) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        let on_cpu: u64 = stat
            .split_whitespace()
            .next()
            .context("schedstat format")?
            .parse()?;
        let tid = task
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
            .context("a task id")?;
        threads.insert(tid, on_cpu);
    }
    Ok(threads)
}

fn rss(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .context("no VmRSS")?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()?;
    Ok(kib * 1024)
}

/// Time to the first frame of the real binary (starting the daemon, then attaching to it), the
/// daemon's RSS, and the CPU use of UI and daemon while idle and while one session works
/// without output (its spinner and time move; nothing else changes). The caller stops the
/// daemon.
fn binary_in_pty(codiva: &Path, repo: &Path, dir: &Path, quick: bool) -> Result<BinaryRun> {
    let home = dir.join("home");
    let config = dir.join("config.toml");
    std::fs::write(&config, "fetch_base = false\ntitles = \"prompt\"\n")?;
    // An agent that takes its prompt and never answers: the session stays working, silent.
    let agent = dir.join("silent-agent");
    std::fs::write(&agent, "#!/bin/sh\nexec cat >/dev/null\n")?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755))?;
    }
    let command = || {
        let mut command = Command::new(codiva);
        command
            .current_dir(repo)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &home)
            .env("TERM", "xterm-256color")
            .env("CODIVA_CLAUDE", &agent)
            .env("CODIVA_CONFIG", &config)
            .env("CODIVA_STATE_DIR", dir.join("state-pty"));
        command
    };
    let header = format!("codiva {}", env!("CARGO_PKG_VERSION"));
    let first_frame = || -> Result<(Pty, Duration)> {
        let started = Instant::now();
        let pty = Pty::spawn(command(), 40, 120)?;
        while !pty.screen().contains(&header) {
            if started.elapsed() > Duration::from_secs(10) {
                anyhow::bail!("codiva did not draw its first frame:\n{}", pty.screen());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok((pty, started.elapsed()))
    };
    let (mut pty, first) = first_frame()?;
    // Let start-up settle, then measure CPU time over an idle stretch.
    std::thread::sleep(Duration::from_millis(500));
    let pid = pty.pid();
    let before = ui_and_daemon_threads(pid, repo)?;
    let window = if quick {
        Duration::from_secs(2)
    } else {
        Duration::from_secs(5)
    };
    std::thread::sleep(window);
    let after = ui_and_daemon_threads(pid, repo)?;
    let idle = percent(cpu_between(&before, &after), window);
    let daemon_rss = rss(daemon_pid(repo).context("no daemon runs")?)?;
    // One session that works: wait for its spinner, settle, measure again.
    pty.type_line("a silent task");
    let started = Instant::now();
    let spinning = |screen: &str| {
        screen.contains("a silent task")
            && codiva_tui::theme::glyph::SPINNER
                .iter()
                .any(|frame| screen.contains(frame))
    };
    while !spinning(&pty.screen()) {
        if started.elapsed() > Duration::from_secs(20) {
            anyhow::bail!("no running session showed a spinner:\n{}", pty.screen());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let before = ui_and_daemon_threads(pid, repo)?;
    std::thread::sleep(window);
    let after = ui_and_daemon_threads(pid, repo)?;
    let running = percent(cpu_between(&before, &after), window);
    // Quit (the daemon keeps the sessions), then attach again.
    pty.type_line("/exit");
    let _ = pty.wait_exit(Duration::from_secs(10));
    let (mut pty, attach_first) = first_frame()?;
    pty.type_line("/exit");
    let _ = pty.wait_exit(Duration::from_secs(10));
    Ok(BinaryRun {
        first,
        attach_first,
        daemon_rss,
        idle,
        spinning: running,
    })
}

fn percent(ns: u64, window: Duration) -> f64 {
    ns as f64 / window.as_nanos() as f64 * 100.0
}

/// codiva's CPU per streamed MB, a 1 MB reply paced over 16 s and over 1 s, its log open.
fn streaming_rows(table: &mut Table, codiva: &Path, placements: &[Placement]) -> Result<()> {
    use crate::stream_replay::{FAST, PACED, REPLY_BYTES, measure};
    let mb = REPLY_BYTES as f64 / (1024.0 * 1024.0);
    for &placement in placements {
        let (whose, target_applies) = match placement {
            Placement::Daemon => ("UI + daemon", true),
            Placement::InProcess => ("manager in the UI's process", false),
        };
        for (name, pace, target) in [
            ("paced over 16 s", PACED, 0.25),
            ("fast, over 1 s", FAST, 0.1),
        ] {
            // The run with the median CPU of three: one run moves by ±10 % with the machine
            // (a VM's neighbours), more than most changes measured here.
            let count = if target_applies { RUNS } else { 1 };
            let mut runs = (0..count)
                .map(|_| measure(codiva, REPLY_BYTES, pace, placement))
                .collect::<Result<Vec<_>>>()?;
            runs.sort_by(|a, b| a.cpu_s.total_cmp(&b.cpu_s));
            let spread = (runs[0].cpu_s / mb, runs[count - 1].cpu_s / mb);
            let run = runs.swap_remove(count / 2);
            let per_mb = run.cpu_s / mb;
            table.row([
                format!(
                    "CPU per streamed MB in the real binary ({whose}), log open, 1 MB reply {name}{}",
                    if count > 1 {
                        format!(" (median of {count}: {:.2}–{:.2})", spread.0, spread.1)
                    } else {
                        String::new()
                    }
                ),
                format!("{per_mb:.2} s"),
                if target_applies {
                    format!("≤ {target} s")
                } else {
                    String::new()
                },
                if target_applies {
                    verdict(per_mb <= target)
                } else {
                    String::new()
                },
            ]);
            if placement == Placement::Daemon {
                table.row([
                    format!("  of which the UI / the daemon ({name})"),
                    format!(
                        "{:.2} s / {:.2} s",
                        run.ui_cpu_s / mb,
                        run.daemon_cpu_s / mb
                    ),
                    String::new(),
                    String::new(),
                ]);
            }
            table.row([
                format!("  of which highlighting the completed message's code ({name})"),
                format!("{:.2} s", run.highlight_s / mb),
                String::new(),
                String::new(),
            ]);
            let fps = run.frames as f64 / run.seconds.max(1e-9);
            table.row([
                format!("  frames / bytes to the terminal ({name})"),
                format!(
                    "{} frames ({fps:.0}/s), {} ({} per frame)",
                    run.frames,
                    crate::size(run.written as u64),
                    crate::size((run.written / run.frames.max(1)) as u64)
                ),
                String::new(),
                String::new(),
            ]);
            let per_s = |n: u64| n as f64 / run.seconds.max(1e-9);
            table.row([
                format!("  wake-ups of the UI's / the daemon's threads ({name})"),
                format!(
                    "{} ({:.0}/s) / {} ({:.0}/s)",
                    run.wakeups,
                    per_s(run.wakeups),
                    run.daemon_wakeups,
                    per_s(run.daemon_wakeups)
                ),
                String::new(),
                String::new(),
            ]);
        }
    }
    Ok(())
}

/// Runs of each streaming row (its median is reported).
const RUNS: usize = 3;

/// Clock ticks per second in /proc/<pid>/stat (USER_HZ: 100 on every Linux this runs on).
pub(crate) const USER_HZ: f64 = 100.0;

pub(crate) fn cpu_ticks(pid: u32) -> Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let rest = stat.rsplit_once(')').context("stat format")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the comm: state is field 3; utime 14, stime 15 (1-based) → indices 11, 12.
    let utime: u64 = fields.get(11).context("utime")?.parse()?;
    let stime: u64 = fields.get(12).context("stime")?.parse()?;
    Ok(utime + stime)
}

fn note(id: u64, text: String) -> LogEntry {
    LogEntry {
        id,
        at_ms: id,
        kind: EntryKind::Note {
            level: NoteLevel::Info,
            text,
            code: None,
        },
    }
}

/// A 300-message log (text, tool calls with results, a subagent call); the average time to
/// open or close a card and draw the frame.
fn card_toggle_frame() -> Duration {
    use codiva_protocol::log::{ToolEntry, ToolStatus};
    let mut entries = Vec::new();
    for id in 0..300u64 {
        let kind = match id % 3 {
            0 => EntryKind::Assistant {
                text: format!("Message {id} with **bold** text and `code`.\n\n- one\n- two"),
            },
            1 => EntryKind::Tool(Box::new(ToolEntry {
                tool_use_id: format!("t{id}"),
                name: "Bash".into(),
                summary: format!("cargo test --package p{id}"),
                view: codiva_core::claude::tool_view::tool_view(
                    "Bash",
                    &serde_json::json!({"command": format!("cargo test --package p{id}")}),
                ),
                input: serde_json::json!({"command": format!("cargo test --package p{id}")}),
                status: ToolStatus::Succeeded,
                result: Some((0..60).map(|l| format!("test line {l} ... ok\n")).collect()),
                duration_ms: Some(1200),
            })),
            _ => EntryKind::Note {
                level: NoteLevel::Info,
                text: format!("note {id}"),
                code: None,
            },
        };
        entries.push(LogEntry {
            id,
            at_ms: id,
            kind,
        });
    }
    let area = Rect::new(0, 0, 120, 40);
    let mut view = LogView::new();
    view.set_entries(entries);
    let mut buffer = Buffer::empty(area);
    view.render(area, &mut buffer);
    // Cards near the tail are on screen: select one and open/close it repeatedly.
    view.select_previous_card();
    let frames = 1_000u32;
    let started = Instant::now();
    for _ in 0..frames {
        view.toggle_selected();
        buffer.reset();
        view.render(area, &mut buffer);
    }
    started.elapsed() / frames
}

struct CodeFrames {
    first: Duration,
    frame: Duration,
    painted: Duration,
}

/// A message with a 2,000-line Rust block, its end on screen (the view follows the tail): the
/// first frame (drawn plain, highlighting asked for), the wait until the highlighter thread
/// has painted that screen (all 2,000 lines: a grammar's state runs from the block's first
/// line), then frames scrolling through the highlighted block.
fn code_block_frames() -> CodeFrames {
    let code: String = (0..2000)
        .map(|i| format!("    let value_{i} = compute(\"item {i}\", {i}) + 1; // step {i}\n"))
        .collect();
    let text = format!("The block:\n\n```rust\nfn main() {{\n{code}}}\n```\n");
    let entries = vec![LogEntry {
        id: 1,
        at_ms: 0,
        kind: EntryKind::Assistant { text },
    }];
    let area = Rect::new(0, 0, 120, 40);
    let mut view = LogView::new();
    view.set_entries(entries);
    let mut buffer = Buffer::empty(area);
    let started = Instant::now();
    view.render(area, &mut buffer);
    let first = started.elapsed();
    let started = Instant::now();
    codiva_tui::markdown::wait_idle();
    let painted = started.elapsed();
    let frames = 1_000u32;
    let started = Instant::now();
    for i in 0..frames {
        if i % 200 < 100 {
            view.scroll_up(20);
        } else {
            view.scroll_down(20);
        }
        buffer.reset();
        view.render(area, &mut buffer);
    }
    CodeFrames {
        first,
        frame: started.elapsed() / frames,
        painted,
    }
}

/// Entries of ten rows each.
fn big_log(entries: u64) -> Vec<LogEntry> {
    (0..entries)
        .map(|id| {
            let text: Vec<String> = (1..=9)
                .map(|l| format!("entry {id} line {l} with some words"))
                .collect();
            note(id, text.join("\n"))
        })
        .collect()
}

/// Average frame of a log view following its tail: 100 lines, then 200,000 lines.
fn frame_cost_by_log_length() -> (Duration, Duration) {
    let area = Rect::new(0, 0, 120, 40);
    let mut results = Vec::new();
    for entries in [10, 20_000] {
        let mut view = LogView::new();
        view.set_entries(big_log(entries));
        let mut buffer = Buffer::empty(area);
        view.render(area, &mut buffer);
        let frames = 3_000u32;
        let started = Instant::now();
        for i in 0..frames {
            if i % 2 == 0 {
                view.scroll_up(3);
            } else {
                view.scroll_down(3);
            }
            buffer.reset();
            view.render(area, &mut buffer);
        }
        results.push(started.elapsed() / frames);
    }
    (results[0], results[1])
}

fn session(index: usize) -> SessionInfo {
    SessionInfo {
        id: format!("s{index:02}"),
        title: format!("streaming session {index}"),
        prompt: String::new(),
        branch: format!("codiva/s{index:02}"),
        worktree: PathBuf::new(),
        base: "main".into(),
        phase: SessionPhase::Active,
        status: Status::Running,
        detail: None,
        detail_code: None,
        agent: "claude".into(),
        agent_session_id: None,
        model: None,
        cost_usd: None,
        active_ms: 0,
        created_at: index as u64,
        pending_prompts: 0,
        todos: TodoProgress::default(),
        prs: Default::default(),
        in_place: false,
        mcp_servers: Vec::new(),
        resources: None,
        review: Vec::new(),
        group: None,
        check: None,
    }
}

/// The list at 120×40 with 10 groups of 5 attempts each (50 sessions, every one running, so
/// every row has a spinner and a ticking time), the first group collapsed: the median and the
/// p99 of one frame — a session's row changing, the spinner's step, the draw.
fn grouped_list_frames(frames: usize) -> (Duration, Duration) {
    use codiva_protocol::group::{Attempt, AttemptSpec, GroupChange, GroupInfo};
    let mut app = App::new(info());
    let agents = ["claude", "codex", "claude", "gemini", "claude"];
    for group in 0..10 {
        let id = format!("g{group}");
        let mut attempts = Vec::new();
        for (index, agent) in agents.iter().enumerate() {
            let mut row = session(group * 5 + index);
            row.title = format!("group {group}: make the parser faster");
            row.agent = (*agent).into();
            row.group = Some(id.clone());
            attempts.push(Attempt {
                session_id: row.id.clone(),
                spec: AttemptSpec::new(*agent, (index == 4).then(|| "opus".to_owned())),
            });
            app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
                session: row,
            })));
        }
        app.handle(UiEvent::Manager(Box::new(ManagerEvent::Group {
            change: GroupChange::Created,
            group: GroupInfo {
                id,
                instruction: format!("group {group}: make the parser faster"),
                attempts,
                created_at: 0,
                kept: None,
            },
        })));
    }
    // The list has the keys; the first group folds.
    for code in [KeyCode::Tab, KeyCode::Home, KeyCode::Enter] {
        app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
    let Ok(mut terminal) = Terminal::new(TestBackend::new(120, 40));
    let mut times = Vec::with_capacity(frames);
    for frame in 0..frames {
        let started = Instant::now();
        let mut row = session(frame % 50);
        row.title = format!("group {}: make the parser faster", frame % 50 / 5);
        row.group = Some(format!("g{}", frame % 50 / 5));
        row.active_ms = frame as u64 * 16;
        app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
            session: row,
        })));
        app.handle(UiEvent::Animate);
        let _ = terminal.draw(|f| app.render(f));
        times.push(started.elapsed());
    }
    times.sort();
    (
        times[times.len() / 2],
        times[(times.len() * 99 / 100).min(times.len() - 1)],
    )
}

/// 20 sessions stream deltas as fast as they come; one of them is on screen. Returns the p99
/// of the time spent per frame (handling the events since the last frame plus drawing).
fn streaming_frames(frames: usize) -> Duration {
    let mut app = App::new(info());
    for index in 0..20 {
        app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
            session: session(index),
        })));
    }
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Tab,
        KeyModifiers::NONE,
    )));
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    debug_assert_eq!(app.view, View::Detail("s00".into()));
    app.handle(UiEvent::Done(Done::LogRead {
        id: "s00".into(),
        entries: big_log(200),
        subagents: Vec::new(),
        todos: Vec::new(),
    }));
    let Ok(mut terminal) = Terminal::new(TestBackend::new(120, 40));
    let mut times = Vec::with_capacity(frames);
    let mut next_id = 1_000;
    for frame in 0..frames {
        let started = Instant::now();
        for index in 0..20 {
            let id = format!("s{index:02}");
            let event = if frame % 50 == 49 {
                next_id += 1;
                SessionEvent::Log {
                    scope: Scope::Main,
                    entry: LogEntry {
                        id: next_id,
                        at_ms: 0,
                        kind: EntryKind::Assistant {
                            text: format!("A **finished** message {frame}, with `code`."),
                        },
                    },
                    update: false,
                    dropped: 0,
                }
            } else {
                SessionEvent::Stream {
                    text: format!("word{frame} and more words, "),
                    reset: false,
                }
            };
            app.handle(UiEvent::Manager(Box::new(ManagerEvent::Event {
                id,
                event,
            })));
        }
        let _ = terminal.draw(|f| app.render(f));
        times.push(started.elapsed());
    }
    times.sort();
    times[(times.len() * 99 / 100).min(times.len() - 1)]
}

/// RSS of a fresh process holding 20 sessions of 10,000 log lines, each drawn once.
fn memory_child() -> Result<u64> {
    let exe = std::env::current_exe()?;
    let output = Command::new(exe).arg("--tui-memory-child").output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.trim()
        .parse()
        .with_context(|| format!("memory child said {text:?}"))
}

/// Run in the child: build the state, draw, print VmRSS in bytes.
pub fn memory_child_main() -> Result<()> {
    let mut app = App::new(info());
    let mut terminal = Terminal::new(TestBackend::new(120, 40))?;
    for index in 0..20 {
        app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
            session: session(index),
        })));
    }
    app.handle(UiEvent::Key(KeyEvent::new(
        KeyCode::Tab,
        KeyModifiers::NONE,
    )));
    for index in 0..20 {
        app.handle(UiEvent::Key(KeyEvent::new(
            KeyCode::Enter,
            KeyModifiers::NONE,
        )));
        app.handle(UiEvent::Done(Done::LogRead {
            id: format!("s{index:02}"),
            // 1,000 entries of 10 rows: 10,000 lines.
            entries: big_log(1_000),
            subagents: Vec::new(),
            todos: Vec::new(),
        }));
        terminal.draw(|f| app.render(f))?;
        app.handle(UiEvent::Key(KeyEvent::new(
            KeyCode::Esc,
            KeyModifiers::NONE,
        )));
        app.handle(UiEvent::Key(KeyEvent::new(
            KeyCode::Tab,
            KeyModifiers::NONE,
        )));
        app.handle(UiEvent::Key(KeyEvent::new(
            KeyCode::Down,
            KeyModifiers::NONE,
        )));
    }
    let status = std::fs::read_to_string("/proc/self/status")?;
    let rss_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .context("VmRSS")?;
    println!("{}", rss_kib * 1024);
    Ok(())
}

#[cfg(test)]
mod cpu_tests {
    use std::collections::HashMap;

    use super::cpu_between;

    /// Regression: a thread that ended in the window made the summed difference negative, and
    /// the idle row read 368934881474.19 %.
    #[test]
    fn a_thread_that_ends_in_the_window_does_not_wrap_the_difference() {
        let before = HashMap::from([((1, 1), 1_000), ((1, 2), 9_000_000), ((2, 7), 500)]);
        // Thread 1/2 ended; 2/8 started.
        let after = HashMap::from([((1, 1), 1_600), ((2, 7), 900), ((2, 8), 50)]);
        assert_eq!(cpu_between(&before, &after), 600 + 400 + 50);
    }
}
