//! The session manager's numbers: restoring many sessions with large transcripts, opening
//! their logs, and how fast `create` answers (before the worktree is ready).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codiva_core::git::{IgnoredMode, Repo, WorktreeOptions};
use codiva_core::manager::{CreateOptions, Manager, ManagerOptions};
use codiva_core::persist::{self, PersistedSession, StateFile};
use codiva_core::process::EnvPolicy;
use codiva_core::transcript;
use codiva_protocol::session::Scope;

use crate::table::{Align, Table};

const TRANSCRIPT_BYTES: usize = 2 * 1024 * 1024;
const STARTS: usize = 7;

pub fn run(quick: bool) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(measure(if quick { 10 } else { 50 }))
}

fn transcript_source() -> Result<Vec<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../codiva-core/tests/fixtures/claude-transcripts/write-allow/projects/-work-repo");
    let file = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .context("no transcript fixture")?;
    let text = std::fs::read_to_string(&file)?;
    Ok(text.lines().map(str::to_owned).collect())
}

async fn measure(count: usize) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("codiva-bench-sessions-{}", std::process::id()));
    let result = measure_in(&dir, count).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()?;
    if !status.success() {
        bail!("git {args:?} failed");
    }
    Ok(())
}

/// A repository with `count` sessions in `state.json`, each with its worktree and a
/// transcript of about `transcript_bytes` (a real capture repeated). Returns the repository
/// and Claude's home.
pub async fn restored_repo(
    dir: &Path,
    count: usize,
    transcript_bytes: usize,
) -> Result<(PathBuf, PathBuf, usize)> {
    restored_repo_with(dir, count, transcript_bytes, transcript_bytes).await
}

/// [`restored_repo`] whose first session's transcript is about `first_bytes` instead.
pub async fn restored_repo_with(
    dir: &Path,
    count: usize,
    transcript_bytes: usize,
    first_bytes: usize,
) -> Result<(PathBuf, PathBuf, usize)> {
    let repo_dir = dir.join("repo");
    let claude_home = dir.join("home/.claude");
    std::fs::create_dir_all(&repo_dir)?;
    git(&repo_dir, &["init", "-q", "-b", "main"])?;
    git(&repo_dir, &["config", "user.name", "bench"])?;
    git(
        &repo_dir,
        &["config", "user.email", "bench@example.invalid"],
    )?;
    std::fs::write(repo_dir.join("README.md"), "bench\n")?;
    git(&repo_dir, &["add", "README.md"])?;
    git(&repo_dir, &["commit", "-qm", "init"])?;
    let repo_dir = repo_dir.canonicalize()?;

    let repo = Repo::open(&repo_dir).await?;
    let source = transcript_source()?;
    let options = WorktreeOptions {
        fetch: false,
        ignored: IgnoredMode::None,
        exclude: Vec::new(),
    };
    let mut sessions = Vec::new();
    let mut written = 0;
    for index in 0..count {
        let slug = format!("bench-session-{index:02}");
        let worktree = repo.create_worktree(&slug, "main", &options).await?;
        let session_id = format!("00000000-0000-4000-8000-{index:012}");
        let path = transcript::transcript_path(&claude_home, &worktree.path, &session_id);
        std::fs::create_dir_all(path.parent().context("transcript dir")?)?;
        let bytes = if index == 0 {
            first_bytes
        } else {
            transcript_bytes
        };
        let mut text = String::with_capacity(bytes + 64 * 1024);
        while text.len() < bytes {
            for line in &source {
                text.push_str(line);
                text.push('\n');
            }
        }
        written = text.len();
        std::fs::write(&path, text)?;
        sessions.push(PersistedSession {
            id: slug.clone(),
            title: slug.clone(),
            prompt: slug.clone(),
            branch: worktree.branch.clone(),
            slug,
            worktree: worktree.path.clone(),
            base: "main".into(),
            agent: "claude".into(),
            agent_session_id: Some(session_id),
            status: codiva_core::persist::SavedStatus::Completed,
            ..PersistedSession::default()
        });
    }
    persist::save(
        &persist::state_path(&repo_dir),
        &StateFile {
            version: persist::SCHEMA_VERSION,
            sessions,
            ..StateFile::default()
        },
    )?;
    Ok((repo_dir, claude_home, written))
}

/// Options for a manager over a bench repository (the agent binary is never started).
pub fn manager_options(repo_dir: &Path, claude_home: &Path, state_dir: PathBuf) -> ManagerOptions {
    ManagerOptions {
        checks: Default::default(),
        cwd: repo_dir.to_path_buf(),
        providers: codiva_core::provider::Providers::one(std::sync::Arc::new(
            codiva_core::claude::ClaudeProvider::new(
                PathBuf::from("/bin/true"),
                claude_home.to_path_buf(),
            ),
        )),
        env: EnvPolicy::Exact(vec![("PATH".into(), "/usr/bin:/bin".into())]),
        state_dir,
        registry: None,
        model: None,
        permission_mode: None,
        fetch_base: false,
        ignored_files: IgnoredMode::None,
        ignored_files_exclude: Vec::new(),
        max_restarts: 0,
        wire_log_cap: 1024 * 1024,
        holder: "codiva-bench".to_owned(),
        github: Default::default(),
        // No one-shot title requests: they would take the mock's scripted answers.
        titles: codiva_core::title::TitleMode::Prompt,
        budget: Default::default(),
    }
}

async fn measure_in(dir: &Path, count: usize) -> Result<()> {
    let (repo_dir, claude_home, transcript_bytes) =
        restored_repo(dir, count, TRANSCRIPT_BYTES).await?;

    // Started STARTS times (each stopped before the next; the last one goes on to the rows
    // below): a single start of ~10 ms swings by half with whatever else the machine does.
    let mut starts = Vec::new();
    let (manager, listed) = loop {
        let options = manager_options(&repo_dir, &claude_home, dir.join("state"));
        let started = Instant::now();
        let (manager, warnings) = Manager::start(options).await?;
        let listed = manager.list().await?;
        starts.push(started.elapsed());
        if listed.len() != count || !warnings.is_empty() {
            bail!(
                "restored {} of {count} sessions: {warnings:?}",
                listed.len()
            );
        }
        if starts.len() == STARTS {
            break (manager, listed);
        }
        manager.shutdown().await;
    };
    let mut opens = Vec::new();
    let mut entries = 0;
    for session in &listed {
        let started = Instant::now();
        let page = manager.read(&session.id, Scope::Main, None, 200).await?;
        opens.push(started.elapsed());
        entries = page.entries.len();
    }
    let mut creates = Vec::new();
    for index in 0..5 {
        let started = Instant::now();
        manager
            .create(CreateOptions {
                prompt: format!("bench create number {index}"),
                ..CreateOptions::default()
            })
            .await?;
        creates.push(started.elapsed());
    }
    // A group of five attempts against five single sessions, rounds interleaved: from the
    // request to every worktree made and every task started.
    let rounds = if count <= 10 { 3 } else { 7 };
    let (mut groups, mut singles) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        groups.push(start_five(&manager, round, true).await?);
        singles.push(start_five(&manager, round, false).await?);
    }
    manager.shutdown().await;

    println!(
        "## Sessions: {count} restored sessions with {} transcripts each (a real capture repeated)",
        crate::size(transcript_bytes as u64)
    );
    println!();
    let mut table = Table::new(&[
        ("measure", Align::Left),
        ("median", Align::Right),
        ("worst", Align::Right),
        ("target", Align::Right),
        ("result", Align::Left),
    ]);
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let verdict = |worst: Duration, target: Duration| {
        if worst < target { "PASS" } else { "FAIL" }
    };
    let (median, worst) = median_worst(&mut starts);
    table.row([
        format!("start the manager and list {count} sessions ({STARTS} starts)"),
        ms(median),
        ms(worst),
        "< 1000 ms".into(),
        verdict(worst, Duration::from_secs(1)).into(),
    ]);
    let (median, worst) = median_worst(&mut opens);
    table.row([
        format!(
            "open one session's log (first read: transcript → log, {entries} entries returned)"
        ),
        ms(median),
        ms(worst),
        "< 100 ms".into(),
        verdict(worst, Duration::from_millis(100)).into(),
    ]);
    let (median, worst) = median_worst(&mut creates);
    table.row([
        "session/create answers (worktree still being made)".into(),
        ms(median),
        ms(worst),
        "< 20 ms".into(),
        verdict(worst, Duration::from_millis(20)).into(),
    ]);
    let (single_median, single_worst) = median_worst(&mut singles);
    table.row([
        format!("start 5 single sessions, until every worktree is made ({rounds} rounds)"),
        ms(single_median),
        ms(single_worst),
        "(reference)".into(),
        String::new(),
    ]);
    let (group_median, group_worst) = median_worst(&mut groups);
    let bound = single_median.mul_f64(1.10);
    table.row([
        format!("start a group of 5 attempts, until every worktree is made ({rounds} rounds)"),
        ms(group_median),
        ms(group_worst),
        format!("≤ {} (5 singles + 10 %)", ms(bound)),
        if group_median <= bound {
            "PASS"
        } else {
            "FAIL"
        }
        .into(),
    ]);
    println!("{}", table.render());
    Ok(())
}

/// Starts five sessions — one group of five attempts, or five single sessions one request
/// after another — and waits until each has its worktree and its task (phase no longer
/// `preparing`); how long that took from the first request.
async fn start_five(manager: &Manager, round: usize, group: bool) -> Result<Duration> {
    use codiva_protocol::group::{AttemptSpec, CreateGroupParams};
    use codiva_protocol::manager::{ManagerEvent, SessionPhase};
    let mut events = manager.subscribe();
    let started = Instant::now();
    let ids: Vec<String> = if group {
        let created = manager
            .request::<codiva_protocol::methods::request::GroupCreate>(CreateGroupParams {
                prompt: format!("bench group {round}"),
                attempts: vec![AttemptSpec::new("claude", None); 5],
                ..CreateGroupParams::default()
            })
            .await?;
        created.sessions.into_iter().map(|s| s.id).collect()
    } else {
        let mut ids = Vec::new();
        for index in 0..5 {
            let created = manager
                .create(CreateOptions {
                    prompt: format!("bench single {round} {index}"),
                    ..CreateOptions::default()
                })
                .await?;
            ids.push(created.id);
        }
        ids
    };
    let mut ready = std::collections::BTreeSet::new();
    let wait = async {
        while !ids.iter().all(|id| ready.contains(id)) {
            match events.recv().await {
                Ok(ManagerEvent::Session { session })
                    if session.phase != SessionPhase::Preparing =>
                {
                    ready.insert(session.id);
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .context("the five sessions' worktrees were not made within 60 s")?;
    Ok(started.elapsed())
}

fn median_worst(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let median = samples.get(samples.len() / 2).copied().unwrap_or_default();
    let worst = samples.last().copied().unwrap_or_default();
    (median, worst)
}
