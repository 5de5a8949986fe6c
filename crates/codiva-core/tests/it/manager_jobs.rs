//! The manager's jobs: one session's slow merge and another's slow stop do not hold up a third
//! session's events (real Claude Code against the mock model server).
//!
//! What the manager adds is measured against a control taken under the same load: the third
//! session's wire log, which stamps each line of the agent as the session's reader takes it. A
//! loaded machine stretches the agent's own cadence (both sides see that); a manager that awaits
//! a merge or a stop in its loop stretches only what reaches the subscriber — by seconds. The
//! session buffers more events than the whole stream holds, so a stalled manager does not slow
//! the reader (the control stays independent of what it checks).

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::process::EnvPolicy;
use codiva_protocol::manager::{ManagerEvent, SessionPhase};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{AgentSandbox, Match, MockMessage, MockServer, Reply, Script, TestRepo};

const WAIT: Duration = Duration::from_secs(120);
/// The mock streams the third session's text in chunks this far apart.
const CHUNK_MS: u64 = 40;
/// The most the manager may add to a gap between two of its events (over the longest gap
/// between the agent's lines in the same time).
const BOUND: Duration = Duration::from_millis(100);

/// Adds a big tree (many files: the merge and the worktree removal take long) and a long
/// history to the repository, with `git fast-import`.
fn grow(repo: &TestRepo, files: usize, commits: usize) {
    let head = repo.git(&["rev-parse", "HEAD"]).unwrap();
    let mut stream = String::new();
    stream.push_str("blob\nmark :1\ndata 6\nfiller\n");
    stream.push_str(&format!(
        "commit refs/heads/main\nmark :2\ncommitter T <t@t> 0 +0000\ndata 4\nbig\nfrom {}\n",
        head.trim()
    ));
    for index in 0..files {
        stream.push_str(&format!("M 100644 :1 bulk/{:03}/f{index}\n", index % 100));
    }
    for index in 0..commits {
        let text = format!("{index}\n");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter T <t@t> {index} +0000\ndata 2\nc\nM 100644 inline history.txt\ndata {}\n{text}\n",
            text.len()
        ));
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    repo.git(&["reset", "-q", "--hard", "main"]).unwrap();
}

/// The agent program: Claude Code, except in a worktree named `stubborn…`, where it ignores
/// SIGTERM and outlives its input by 10 s (only SIGKILL stops it).
fn wrapper(dir: &Path) -> PathBuf {
    let path = dir.join("agent.sh");
    let claude = codiva_testkit::claude_binary();
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ncase \"$PWD\" in\n  */stubborn*) trap '' TERM; \"{0}\" \"$@\"; sleep 10; exit 0 ;;\nesac\nexec \"{0}\" \"$@\"\n",
            claude.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn commit_a_file(worktree: &Path, name: &str) {
    std::fs::write(worktree.join(format!("{name}.txt")), "work\n").unwrap();
    for args in [
        &["add", "-A"][..],
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            name,
        ],
    ] {
        let status = Command::new("git")
            .args(args)
            .current_dir(worktree)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success());
    }
}

/// Waits until every session of `ids` has reported `status` (in any order: which one finishes
/// first depends on the machine's load).
async fn wait_status(
    events: &mut codiva_core::manager::EventReceiver,
    ids: &[&str],
    status: Status,
) {
    let mut waiting: Vec<&str> = ids.to_vec();
    tokio::time::timeout(WAIT, async {
        while !waiting.is_empty() {
            match events.recv().await {
                Ok(ManagerEvent::Session { session }) if session.status == status => {
                    waiting.retain(|id| *id != session.id);
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                _ => {}
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{waiting:?} never became {status:?}"));
    assert!(
        waiting.is_empty(),
        "the manager stopped; {waiting:?} never became {status:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_merge_and_a_slow_stop_do_not_delay_another_sessions_events() {
    let setup = Instant::now();
    let repo = TestRepo::new().unwrap();
    grow(&repo, 6_000, 1_000);
    eprintln!("grown in {:?}", setup.elapsed());
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mock = MockServer::start(
        Script::new()
            .then_when(
                Match::FirstUserContains("ALPHA".into()),
                Reply::text("Alpha done."),
            )
            .then_when(
                Match::FirstUserContains("STUBBORN".into()),
                Reply::text("Stubborn done."),
            )
            .then_when(
                Match::FirstUserContains("CHARLIE".into()),
                Reply::message(MockMessage::new().text_slow("tick ".repeat(400), 5, CHUNK_MS)),
            ),
    )
    .unwrap();
    let (manager, _) = Manager::start(ManagerOptions {
        checks: Default::default(),
        cwd: repo.path().to_path_buf(),
        providers: codiva_core::provider::Providers::one(std::sync::Arc::new(
            codiva_core::claude::ClaudeProvider::new(
                wrapper(tmp.path()),
                sandbox.home.path().join(".claude"),
            ),
        )),
        env: EnvPolicy::Exact(sandbox.claude_env(&mock.url())),
        state_dir: tmp.path().join("state"),
        registry: None,
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 0,
        wire_log_cap: 1024 * 1024,
        holder: "codiva test".to_owned(),
        github: Default::default(),
        // No one-shot title requests: they would take the mock's scripted answers.
        titles: codiva_core::title::TitleMode::Prompt,
        budget: Default::default(),
    })
    .await
    .unwrap();
    let mut events = manager.subscribe();
    let create = |prompt: &str| CreateOptions {
        prompt: prompt.to_owned(),
        ..CreateOptions::default()
    };

    // Alpha has a commit to merge; Stubborn's agent is alive and idle.
    let alpha = manager.create(create("ALPHA merges")).await.unwrap().id;
    let stubborn = manager
        .create(create("STUBBORN stops slowly"))
        .await
        .unwrap()
        .id;
    assert!(stubborn.starts_with("stubborn"), "{stubborn}");
    wait_status(&mut events, &[&alpha, &stubborn], Status::Completed).await;
    for id in [&alpha, &stubborn] {
        commit_a_file(&repo.path().join(".codiva/worktrees").join(id), id);
    }

    eprintln!("set up in {:?}", setup.elapsed());
    // Charlie streams steadily; while it does, Alpha and Stubborn are merged (Stubborn's agent
    // is stopped after its merge).
    let charlie = manager.create(create("CHARLIE streams")).await.unwrap().id;
    tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(ManagerEvent::Event {
                id,
                event: SessionEvent::Stream { .. },
            }) = events.recv().await
                && id == charlie
            {
                return;
            }
        }
    })
    .await
    .expect("charlie never streamed");
    let started = Instant::now();
    let merge = tokio::spawn({
        let manager = manager.clone();
        let alpha = alpha.clone();
        async move {
            let info = manager.merge(&alpha).await;
            (info, started.elapsed())
        }
    });
    let stop = tokio::spawn({
        let manager = manager.clone();
        let stubborn = stubborn.clone();
        async move {
            let outcome = manager.merge(&stubborn).await;
            (outcome, started.elapsed())
        }
    });
    let window_start = SystemTime::now();
    let mut received = Vec::new();
    while !(merge.is_finished() && stop.is_finished()) {
        let next = tokio::time::timeout(Duration::from_millis(50), events.recv()).await;
        if let Ok(Ok(ManagerEvent::Event {
            id,
            event: SessionEvent::Stream { .. },
        })) = next
            && id == charlie
        {
            received.push(SystemTime::now());
        }
        assert!(started.elapsed() < WAIT, "the operations did not end");
    }
    let window_end = SystemTime::now();
    let (merged, merge_took) = merge.await.unwrap();
    let (stopped, stop_took) = stop.await.unwrap();
    for info in [merged.unwrap(), stopped.unwrap()] {
        assert!(
            matches!(info.phase, SessionPhase::Merged { .. }),
            "{info:?}"
        );
    }
    // The stop alone takes seconds (stdin grace, then SIGTERM ignored until SIGKILL).
    assert!(stop_took >= Duration::from_secs(3), "{stop_took:?}");
    let charlie_info = manager
        .list()
        .await
        .unwrap()
        .into_iter()
        .find(|s| s.id == charlie)
        .unwrap();
    assert_eq!(
        charlie_info.status,
        Status::Running,
        "charlie streamed throughout"
    );
    // Both measured alike, up to the end of the window: events held back until the
    // operations ended show as a long last gap.
    let worst = longest_gap(&received, window_start, window_end);
    // Stopped first: the wire log is flushed whole.
    manager.shutdown().await;
    let agent_lines = text_lines_read(&tmp.path().join("state/wire"), &charlie);
    let control = longest_gap(&agent_lines, window_start, window_end);
    eprintln!(
        "merge {merge_took:?}, stop {stop_took:?}: {} events of charlie, the longest gap {worst:?} \
         (between the agent's lines: {control:?})",
        received.len()
    );
    assert!(
        received.len() >= 20,
        "charlie streamed only {} events in {merge_took:?} / {stop_took:?}",
        received.len()
    );
    assert!(
        worst <= control.max(Duration::from_millis(CHUNK_MS)) + BOUND,
        "a gap of {worst:?} between charlie's events, {control:?} between its agent's lines \
         (merge {merge_took:?}, stop {stop_took:?})"
    );
}

/// When the session's reader took each of the agent's text deltas: the wire log's stamps of
/// session `id`'s `<<` lines that carry a `text_delta`.
fn text_lines_read(wire_dir: &Path, id: &str) -> Vec<SystemTime> {
    // `<repo>-<id>.log`, and `.log.1` when it was rotated.
    let name = format!("-{id}.log");
    let mut stamps = Vec::new();
    for entry in std::fs::read_dir(wire_dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().contains(&name) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            if let Some((stamp, rest)) = line.split_once(" << ")
                && rest.contains("\"text_delta\"")
            {
                stamps.push(parse_stamp(stamp));
            }
        }
    }
    assert!(!stamps.is_empty(), "no wire log of {id} in {wire_dir:?}");
    stamps.sort();
    stamps
}

/// `2026-11-30T05:40:00.123Z` → the time.
fn parse_stamp(stamp: &str) -> SystemTime {
    let number = |range: std::ops::Range<usize>| -> i64 {
        stamp
            .get(range)
            .and_then(|digits| digits.parse().ok())
            .unwrap_or_else(|| panic!("not a wire-log time: {stamp:?}"))
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    // Days since 1970-01-01 (H. Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + number(11..13) * 3600 + number(14..16) * 60 + number(17..19);
    UNIX_EPOCH
        + Duration::from_secs(u64::try_from(seconds).unwrap())
        + Duration::from_millis(u64::try_from(number(20..23)).unwrap())
}

/// The longest time without a line in `[start, end]` (from `start` to the first line, between
/// lines, and from the last line to `end`), as the events' gaps are measured.
fn longest_gap(stamps: &[SystemTime], start: SystemTime, end: SystemTime) -> Duration {
    let inside = stamps.iter().copied().filter(|t| *t > start && *t < end);
    let points: Vec<SystemTime> = std::iter::once(start)
        .chain(inside)
        .chain(std::iter::once(end))
        .collect();
    points
        .windows(2)
        .map(|pair| pair[1].duration_since(pair[0]).unwrap_or_default())
        .max()
        .unwrap_or_default()
}
