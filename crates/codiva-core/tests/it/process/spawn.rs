//! Spawning, group kills, shutdown escalation, stderr tail, environment scrubbing.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use codiva_core::process::procfs::live_group_members;
use codiva_core::process::{
    AgentProcess, EnvPolicy, ExitInfo, STDERR_TAIL_BYTES, SpawnError, SpawnSpec, spawn,
};

use super::{group_gone_within, sh, test_path, text};

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

async fn start(spec: SpawnSpec) -> AgentProcess {
    spawn(spec, None).await.unwrap()
}

/// Reads stdout until the line `ready`.
async fn until_ready(process: &mut AgentProcess) {
    loop {
        let item = process
            .stdout
            .next_line()
            .await
            .unwrap()
            .expect("EOF before ready");
        if text(item) == "ready" {
            return;
        }
    }
}

async fn all_lines(process: &mut AgentProcess) -> Vec<String> {
    let mut lines = Vec::new();
    while let Some(item) = process.stdout.next_line().await.unwrap() {
        lines.push(text(item));
    }
    lines
}

#[tokio::test]
async fn child_leads_its_own_group() {
    let mut process = start(sh("echo ready; exec sleep 1000")).await;
    until_ready(&mut process).await;
    let stat = codiva_core::process::procfs::read_stat(process.pid).unwrap();
    assert_eq!(stat.pgid, process.pid);
    assert_eq!(process.control.pgid(), process.pid);
    assert_eq!(process.control.try_exit(), None);
    process.control.kill_group_now();
    assert_eq!(process.control.wait().await, ExitInfo::Signal(SIGKILL));
}

#[tokio::test]
async fn shutdown_kills_grandchildren() {
    let mut process = start(sh("sleep 1000 & sleep 1000 & echo ready; wait")).await;
    until_ready(&mut process).await;
    let pgid = process.pid;
    assert!(
        live_group_members(pgid).len() >= 3,
        "{:?}",
        live_group_members(pgid)
    );

    let exit = process
        .control
        .shutdown(Some(process.stdin), Duration::from_millis(100))
        .await;
    assert_eq!(exit, ExitInfo::Signal(SIGTERM));
    assert!(
        group_gone_within(pgid, Duration::from_secs(3)).await,
        "{:?}",
        live_group_members(pgid)
    );
}

#[tokio::test]
async fn shutdown_escalates_to_sigkill_when_sigterm_is_ignored() {
    let mut process = start(sh("trap '' TERM; echo ready; while :; do sleep 1; done")).await;
    until_ready(&mut process).await;
    let pgid = process.pid;
    let started = Instant::now();
    let exit = process
        .control
        .shutdown(Some(process.stdin), Duration::from_millis(100))
        .await;
    assert_eq!(exit, ExitInfo::Signal(SIGKILL));
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(group_gone_within(pgid, Duration::from_secs(3)).await);
}

#[tokio::test]
async fn shutdown_closes_stdin_first() {
    let process = start(SpawnSpec {
        program: PathBuf::from("cat"),
        args: Vec::new(),
        ..sh("")
    })
    .await;
    let started = Instant::now();
    let exit = process
        .control
        .shutdown(Some(process.stdin), Duration::from_secs(10))
        .await;
    assert_eq!(exit, ExitInfo::Code(0));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn leader_exit_kills_the_rest_of_the_group() {
    let mut process = start(sh("sleep 1000 & echo ready; exit 3")).await;
    until_ready(&mut process).await;
    let pgid = process.pid;
    assert_eq!(process.control.wait().await, ExitInfo::Code(3));
    assert!(group_gone_within(pgid, Duration::from_secs(3)).await);
    // The background `sleep` held stdout open; with it gone, stdout ends.
    let rest = tokio::time::timeout(Duration::from_secs(5), all_lines(&mut process)).await;
    assert_eq!(rest.unwrap(), Vec::<String>::new());
}

#[tokio::test]
async fn dropping_the_process_kills_its_group() {
    let mut process = start(sh("sleep 1000 & echo ready; sleep 1000")).await;
    until_ready(&mut process).await;
    let pgid = process.pid;
    drop(process);
    assert!(
        group_gone_within(pgid, Duration::from_secs(3)).await,
        "{:?}",
        live_group_members(pgid)
    );
}

#[tokio::test]
async fn a_remaining_control_clone_keeps_the_child_alive() {
    let mut process = start(sh("echo ready; exec sleep 1000")).await;
    until_ready(&mut process).await;
    let pgid = process.pid;
    let control = process.control.clone();
    drop(process);
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The agent and its watcher (parent_watch.rs).
    assert!(live_group_members(pgid).contains(&pgid));
    assert_eq!(live_group_members(pgid).len(), 2);
    assert_eq!(control.try_exit(), None);
    drop(control);
    assert!(group_gone_within(pgid, Duration::from_secs(3)).await);
}

#[tokio::test]
async fn wait_from_several_places() {
    let process = start(sh("sleep 0.2; exit 7")).await;
    let other = process.control.clone();
    let waiter = tokio::spawn(async move { other.wait().await });
    let (a, b) = tokio::join!(process.control.wait(), waiter);
    let b = b.unwrap();
    assert_eq!((a, b), (ExitInfo::Code(7), ExitInfo::Code(7)));
    assert_eq!(process.control.try_exit(), Some(ExitInfo::Code(7)));
    assert_eq!(process.control.wait().await, ExitInfo::Code(7));
}

#[tokio::test]
async fn stderr_tail_keeps_only_the_end() {
    let script = r#"i=0; while [ $i -lt 3000 ]; do echo "line $i" >&2; i=$((i+1)); done; printf 'END é' >&2"#;
    let process = start(sh(script)).await;
    assert_eq!(process.control.wait().await, ExitInfo::Code(0));
    let tail = process.control.stderr_tail();
    assert!(tail.len() <= STDERR_TAIL_BYTES, "{}", tail.len());
    assert!(tail.len() > STDERR_TAIL_BYTES - 20, "{}", tail.len());
    assert!(tail.ends_with("line 2999\nEND é"), "{tail:?}");
    assert!(!tail.contains("line 100\n"));
}

fn env_of(lines: &[String], name: &str) -> Option<String> {
    lines
        .iter()
        .find_map(|line| line.strip_prefix(&format!("{name}=")).map(str::to_owned))
}

#[tokio::test]
async fn exact_env_is_an_allowlist_without_scrubbed_vars() {
    let mut process = start(SpawnSpec {
        program: PathBuf::from("env"),
        args: Vec::new(),
        env: EnvPolicy::Exact(vec![
            ("PATH".into(), test_path()),
            ("CLAUDECODE".into(), "1".into()),
            ("CODIVA_TEST_FOO".into(), "bar".into()),
        ]),
        ..sh("")
    })
    .await;
    let lines = all_lines(&mut process).await;
    assert_eq!(process.control.wait().await, ExitInfo::Code(0));
    assert_eq!(env_of(&lines, "CODIVA_TEST_FOO").as_deref(), Some("bar"));
    assert_eq!(env_of(&lines, "CLAUDECODE"), None);
    assert_eq!(lines.len(), 2, "{lines:?}");
}

#[tokio::test]
async fn inherit_env_removes_and_scrubs() {
    let mut process = start(SpawnSpec {
        program: PathBuf::from("env"),
        args: Vec::new(),
        env: EnvPolicy::Inherit {
            remove: vec!["HOME".into()],
            set: vec![
                ("CLAUDECODE".into(), "1".into()),
                ("CLAUDE_CODE_ENTRYPOINT".into(), "cli".into()),
                ("CLAUDE_CODE_SESSION_ID".into(), "abc".into()),
                ("CODIVA_TEST_KEEP".into(), "yes".into()),
            ],
        },
        ..sh("")
    })
    .await;
    let lines = all_lines(&mut process).await;
    assert_eq!(process.control.wait().await, ExitInfo::Code(0));
    assert_eq!(env_of(&lines, "CODIVA_TEST_KEEP").as_deref(), Some("yes"));
    for name in [
        "HOME",
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_CODE_SESSION_ID",
    ] {
        assert_eq!(env_of(&lines, name), None, "{name} reached the child");
    }
    if std::env::var_os("PATH").is_some() {
        assert!(env_of(&lines, "PATH").is_some(), "PATH is inherited");
    }
}

#[tokio::test]
async fn missing_binary_is_not_found() {
    for program in ["/nonexistent/codiva-agent", "codiva-no-such-agent-xyz"] {
        let err = spawn(
            SpawnSpec {
                program: PathBuf::from(program),
                args: Vec::new(),
                ..sh("")
            },
            None,
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&err, SpawnError::NotFound { program: p } if p == &PathBuf::from(program)),
            "{err:?}"
        );
        assert!(err.to_string().contains(program), "{err}");
    }
}

#[tokio::test]
async fn non_executable_is_permission_denied() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agent");
    std::fs::write(&file, "#!/bin/sh\necho hi\n").unwrap();
    let err = spawn(
        SpawnSpec {
            program: file,
            args: Vec::new(),
            ..sh("")
        },
        None,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, SpawnError::PermissionDenied { .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn missing_cwd_is_reported_as_such() {
    let err = spawn(
        SpawnSpec {
            cwd: PathBuf::from("/nonexistent/codiva-cwd"),
            ..sh("true")
        },
        None,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, SpawnError::CwdMissing { .. }), "{err:?}");
    assert!(err.to_string().contains("/nonexistent/codiva-cwd"), "{err}");
}

#[tokio::test]
async fn cwd_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let canonical = dir.path().canonicalize().unwrap();
    let mut process = start(SpawnSpec {
        cwd: canonical.clone(),
        ..sh("pwd -P")
    })
    .await;
    let lines = all_lines(&mut process).await;
    assert_eq!(lines, vec![canonical.display().to_string()]);
}

/// Starts `script` (which prints `ready`) on a runtime of its own, then drops the runtime with
/// the handles forgotten: no `Drop` and no reaper runs, as when codiva is SIGKILLed. Returns the
/// group id and how long the group took to disappear (`None`: still there after 5 s).
fn abandon(script: &str) -> (u32, Option<Duration>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let pgid = runtime.block_on(async {
        let mut process = start(sh(script)).await;
        until_ready(&mut process).await;
        let pgid = process.pid;
        std::mem::forget(process);
        pgid
    });
    let abandoned = Instant::now();
    drop(runtime);
    while abandoned.elapsed() < Duration::from_secs(5) {
        if live_group_members(pgid).is_empty() {
            return (pgid, Some(abandoned.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (pgid, None)
}

#[test]
fn an_abandoned_agent_gets_sigterm_and_its_group_goes() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("term");
    let (pgid, gone) = abandon(&format!(
        "sleep 1000 & trap 'echo term > {}; exit 0' TERM; echo ready; while :; do sleep 0.1; done",
        marker.display()
    ));
    let gone = gone.unwrap_or_else(|| panic!("left: {:?}", live_group_members(pgid)));
    assert!(gone < Duration::from_secs(2), "{gone:?}");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "term\n",
        "the leader is asked to stop first (Claude Code then ends its tools)"
    );
}

#[test]
fn an_abandoned_agent_that_ignores_sigterm_is_killed() {
    let (pgid, gone) = abandon("trap '' TERM; echo ready; while :; do sleep 0.1; done");
    let gone = gone.unwrap_or_else(|| panic!("left: {:?}", live_group_members(pgid)));
    assert!(gone < Duration::from_secs(2), "{gone:?}");
}
