//! The manager's jobs: one session's slow merge and another's slow stop do not hold up a third
//! session's events (real Claude Code against the mock model server).

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codiva_core::git::IgnoredMode;
use codiva_core::manager::{CreateOptions, Manager, ManagerEvent, ManagerOptions, SessionPhase};
use codiva_core::process::EnvPolicy;
use codiva_core::session_state::{SessionEvent, Status};
use codiva_testkit::{AgentSandbox, Match, MockMessage, MockServer, Reply, Script, TestRepo};

const WAIT: Duration = Duration::from_secs(120);
/// The mock streams the third session's text in chunks this far apart.
const CHUNK_MS: u64 = 40;
/// The most the manager may add to a gap between two of its events.
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
    events: &mut tokio::sync::broadcast::Receiver<ManagerEvent>,
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
    let mut last = Instant::now();
    let mut gaps = Vec::new();
    while !(merge.is_finished() && stop.is_finished()) {
        let next = tokio::time::timeout(Duration::from_millis(50), events.recv()).await;
        if let Ok(Ok(ManagerEvent::Event {
            id,
            event: SessionEvent::Stream { .. },
        })) = next
            && id == charlie
        {
            let now = Instant::now();
            gaps.push(now - last);
            last = now;
        }
        assert!(started.elapsed() < WAIT, "the operations did not end");
    }
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
    let worst = gaps.iter().max().copied().unwrap_or_default();
    eprintln!(
        "merge {merge_took:?}, stop {stop_took:?}: {} events of charlie, the longest gap {worst:?}",
        gaps.len()
    );
    assert!(
        gaps.len() >= 20,
        "charlie streamed only {} events in {merge_took:?} / {stop_took:?}",
        gaps.len()
    );
    assert!(
        worst <= Duration::from_millis(CHUNK_MS) + BOUND,
        "a gap of {worst:?} between charlie's events (merge {merge_took:?}, stop {stop_took:?})"
    );
    manager.shutdown().await;
}
