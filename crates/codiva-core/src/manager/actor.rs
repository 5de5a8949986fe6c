//! The manager's task: owns the session records, the repository and the state file.
//!
//! The actor itself never waits on anything slow. Git work, stopping an agent, rebuilding a
//! log from its transcript and writing the state file run as jobs (`jobs.rs`) that report
//! back; while one runs for a session, later calls for that session wait in its lane, and
//! every other session's calls and events go on. The parts: records (`record.rs`), sessions'
//! lifecycle (`lifecycle.rs`), finishing work (`finish.rs`, `discard.rs`), pull requests
//! (`pulls.rs`: push and open; `pr_poll.rs`: look them up again; `repair.rs`: fix-ci, commit,
//! push after a sync), sessions found at
//! start (`adoption.rs`), the state file and each session's neutral history (`persistence.rs`,
//! `histories.rs`). Events leave through one function, [`Actor::emit`], which stamps their
//! `seq` (`manager/events.rs`).

mod address_review;
mod adoption;
mod budget;
mod checks;
mod discard;
mod ephemeral;
mod finish;
mod forward;
mod full_text;
mod groups;
mod histories;
mod in_place;
mod jobs;
mod lifecycle;
mod outside;
mod persistence;
mod pr_poll;
mod pulls;
mod record;
mod repair;
mod requests;
mod review;
mod titles;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::session::SessionEvent;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::events::EventBus;

use super::{Call, Ephemeral, Manager, ManagerError, ManagerOptions, StartError};
use crate::git::Repo;
use crate::persist;
use crate::repo_lock::{LockError, RepoLock};
use record::Record;

/// How often the main checkout's branch is checked.
const BASE_CHECK: Duration = Duration::from_secs(2);
/// When the GitHub repository of the base's remote is looked up after the start.
const GITHUB_LOOKUP_DELAY: Duration = Duration::from_millis(300);

pub(super) async fn start(options: ManagerOptions) -> Result<(Manager, Vec<String>), StartError> {
    let (repo, facts) = Repo::open_for_start(&options.cwd).await?;
    let mut warnings = Vec::new();
    if let Err(err) = repo.ensure_codiva_dir() {
        warnings.push(format!("cannot write .codiva/.gitignore: {err}"));
    }
    // Before the state file is read: one manager per repository (repo_lock.rs).
    let lock = match RepoLock::acquire(&repo.root().join(".codiva"), &options.holder) {
        Ok(lock) => Some(lock),
        Err(err @ LockError::Held { .. }) => return Err(StartError::Locked(err)),
        Err(err @ LockError::Io { .. }) => {
            warnings.push(format!(
                "{err}; a second codiva on this repository is not refused"
            ));
            None
        }
    };
    let base = facts.branch.unwrap_or_else(|| "HEAD".to_owned());
    let state_path = persist::state_path(repo.root());
    let loaded = persist::load(&state_path)
        .map_err(|err| ManagerError::StateFile(std::sync::Arc::new(err)))?;
    warnings.extend(loaded.warning);
    let default = options.providers.default_provider().cloned();
    let (saved_groups, last_attempts) = (loaded.state.groups, loaded.state.last_attempts);
    let mut records = adoption::saved_records(
        loaded.state.sessions,
        default.as_ref().map_or("", |provider| provider.id()),
        &mut warnings,
    );
    if let Some(provider) = &default {
        adoption::adopt_orphan_worktrees(
            &repo,
            facts.worktrees,
            provider.as_ref(),
            &base,
            &mut records,
            &mut warnings,
        );
    }
    let repo_lock = lock;
    let listed = records.keys().cloned().collect();
    let groups = groups::Groups::restored(saved_groups, last_attempts, &listed);
    let (manager, actor, receivers) = Actor::new(options, repo, base, state_path, records);
    let actor = Actor {
        repo_lock,
        groups,
        ..actor
    };
    tokio::spawn(actor.run(receivers));
    Ok((manager, warnings))
}

/// An ephemeral manager (`Manager::start_ephemeral`): none of the above is read, taken or
/// written; the directory is only resolved.
pub(super) async fn start_ephemeral(
    mut options: ManagerOptions,
    ephemeral: Ephemeral,
) -> Result<Manager, StartError> {
    let root = std::fs::canonicalize(&options.cwd).map_err(|err| {
        ManagerError::Invalid(crate::provider::InvalidInput::new(
            "cwd",
            format!("cannot use {}: {err}", options.cwd.display()),
        ))
    })?;
    // One session, once: no agent is stopped for being idle, no title is asked of an agent,
    // nothing is done on GitHub.
    options.budget.idle_stop = None;
    options.titles = crate::title::TitleMode::Prompt;
    options.github.auto_pr = false;
    options.github.auto_ready = false;
    options.github.auto_recover = false;
    options.github.auto_address_review = false;
    let (manager, actor, receivers) = Actor::new(
        options,
        Repo::unchecked(root),
        String::new(),
        PathBuf::new(),
        BTreeMap::new(),
    );
    let actor = Actor {
        ephemeral: Some(ephemeral::OneShot::new(ephemeral)),
        ..actor
    };
    tokio::spawn(actor.run(receivers));
    Ok(manager)
}

/// The actor's inboxes: calls from `Manager` handles, messages from its own helper tasks.
type Receivers = (
    mpsc::UnboundedReceiver<Call>,
    mpsc::UnboundedReceiver<Internal>,
);

impl Actor {
    /// A manager and its actor over `records`, holding no lock yet.
    fn new(
        options: ManagerOptions,
        repo: Repo,
        base: String,
        state_path: PathBuf,
        records: BTreeMap<String, Record>,
    ) -> (Manager, Actor, Receivers) {
        let default = options.providers.default_provider().cloned();
        let (calls_tx, calls_rx) = mpsc::unbounded_channel();
        let events = EventBus::new();
        let (internal_tx, internal_rx) = mpsc::unbounded_channel();
        let manager = Manager::new(
            calls_tx,
            events.sender(),
            repo.root().to_path_buf(),
            base.clone(),
            (options.providers.clone(), options.env.clone()),
        );
        let base_cell = manager.base_cell();
        let actor = Actor {
            histories: histories::Histories::new(
                repo.root().to_path_buf(),
                default.as_ref().map_or("", |provider| provider.id()),
            ),
            base_cell,
            options,
            repo,
            base,
            state_path,
            records,
            events,
            internal_tx,
            persist_at: None,
            persist_failed: false,
            saving: None,
            save_again: None,
            git_lock: std::sync::Arc::new(tokio::sync::Mutex::new(())),
            repo_lock: None,
            lanes: BTreeSet::new(),
            waiting: BTreeMap::new(),
            jobs_running: 0,
            checking_base: false,
            base_stamp: None,
            stopping: false,
            default_approval: ApprovalPolicy::Ask,
            // Looked up by a job once the manager runs (git commands kept off the start).
            github_repo: None,
            github_waiting: Some(Vec::new()),
            gh_paused_until: None,
            polling: false,
            stop_titles: tokio::sync::watch::Sender::new(false),
            turn_queue: VecDeque::new(),
            sampler: budget::Sampler::default(),
            ephemeral: None,
            groups: groups::Groups::default(),
            checks: checks::Checks::default(),
        };
        (manager, actor, (calls_rx, internal_rx))
    }
}

/// Messages from the manager's own helper tasks.
// Session events are most of them: not boxed, one allocation fewer per event.
#[allow(clippy::large_enum_variant)]
enum Internal {
    Event(String, SessionEvent),
    /// A session's snapshot, placed in its event stream: every event before it was sent
    /// before this, none after (`forward.rs`).
    Snapshot(
        codiva_protocol::session::SessionSnapshot,
        crate::manager::Reply<codiva_protocol::session::SessionSnapshot>,
    ),
    /// A session task ended (the epoch of the task, see [`Record::task_epoch`]).
    Ended(String, u64),
    /// A job finished: its result is applied to the actor; `lane` is the session it held.
    Done {
        lane: Option<String>,
        apply: jobs::Apply,
    },
}

struct Actor {
    /// Shared with the `Manager` handles, so `Manager::base` is current.
    base_cell: std::sync::Arc<std::sync::RwLock<String>>,
    options: ManagerOptions,
    repo: Repo,
    base: String,
    state_path: PathBuf,
    records: BTreeMap<String, Record>,
    events: EventBus,
    internal_tx: mpsc::UnboundedSender<Internal>,
    persist_at: Option<Instant>,
    persist_failed: bool,
    /// A write of the state file is under way; these wait for it to end.
    saving: Option<Vec<std::sync::mpsc::Sender<()>>>,
    /// Another write is due when the running one ends; these wait for that one.
    save_again: Option<Vec<std::sync::mpsc::Sender<()>>>,
    /// Each session's neutral history (`history.rs`), saved with the state file.
    histories: histories::Histories,
    /// Held around git operations that write refs, config or worktree metadata: git takes
    /// those locks without waiting, so two concurrent `worktree add`s can fail.
    git_lock: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// This manager's claim on the repository, released when it stops.
    repo_lock: Option<RepoLock>,
    /// Sessions a job is working on: their calls wait in `waiting` until it reports back.
    lanes: BTreeSet<String>,
    waiting: BTreeMap<
        String,
        VecDeque<(
            codiva_protocol::ClientRequest,
            super::Reply<serde_json::Value>,
        )>,
    >,
    jobs_running: usize,
    checking_base: bool,
    /// The `HEAD` file when git last answered which branch is checked out.
    base_stamp: Option<crate::git::HeadStamp>,
    /// Shutting down: no new session task starts, no waiting call runs.
    stopping: bool,
    /// The approval policy of sessions created without one.
    default_approval: ApprovalPolicy,
    /// `host/owner/repo` (lower case) of the repository pull requests go to, if known: an
    /// agent's pull request URLs are recognised by it.
    github_repo: Option<String>,
    /// Tool results that arrived before `github_repo` was looked up (`None` once it was):
    /// read for pull request URLs when it is known.
    github_waiting: Option<Vec<(String, String)>>,
    /// Pull request lookups pause until then (after a rate limit or an auth error).
    gh_paused_until: Option<std::time::Instant>,
    /// A pull request lookup job runs.
    polling: bool,
    /// Set at shutdown: title requests under way stop (`titles.rs`).
    stop_titles: tokio::sync::watch::Sender<bool>,
    /// Sessions queued for an agent slot, oldest first (`budget.rs`).
    turn_queue: VecDeque<String>,
    /// The resource sampling's state (`budget.rs`).
    sampler: budget::Sampler,
    /// An ephemeral manager's one session, run once (`ephemeral.rs`); `None` for a
    /// repository's manager.
    ephemeral: Option<ephemeral::OneShot>,
    /// The groups of attempts and the attempts the last one was started with (`groups.rs`).
    groups: groups::Groups,
    /// The checks running now and the last output of each session's (`checks.rs`).
    checks: checks::Checks,
}

impl Actor {
    async fn run(mut self, (mut calls, mut internal): Receivers) {
        // Pruned sessions leave the file right away.
        self.mark_dirty();
        // An ephemeral manager has no repository to follow.
        let repository = self.ephemeral.is_none();
        if repository {
            let (repo, base) = (self.repo.clone(), self.base.clone());
            let configured = self.options.github.repo.clone();
            self.job(
                None,
                async move {
                    // After the start's own work (listing, restoring) has had the CPU.
                    tokio::time::sleep(GITHUB_LOOKUP_DELAY).await;
                    github_repo(&repo, &base, configured.as_deref()).await
                },
                |actor, found| {
                    actor.github_repo = found;
                    for (id, text) in actor.github_waiting.take().unwrap_or_default() {
                        actor.detect_prs(&id, &text);
                    }
                },
            );
        }
        // The branch was just read by `start`: the first check is one interval away (a `git`
        // forked now would only compete with the first calls).
        let mut base_check =
            tokio::time::interval_at(tokio::time::Instant::now() + BASE_CHECK, BASE_CHECK);
        base_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut pr_check = tokio::time::interval(self.options.github.policy.tick);
        pr_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut sample = tokio::time::interval(self.options.budget.sample_every);
        sample.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let persist_at = self.persist_at;
            tokio::select! {
                _ = base_check.tick(), if repository => self.follow_base(),
                _ = pr_check.tick(), if repository => self.poll_prs(),
                _ = sample.tick() => self.sample_resources(),
                call = calls.recv() => match call {
                    Some(Call::Shutdown(done)) => {
                        self.shutdown(&mut internal).await;
                        // Released before the caller hears back: it may start the next manager.
                        self.repo_lock = None;
                        let _ = done.send(());
                        return;
                    }
                    Some(Call::Request(request, reply)) => self.dispatch(request, reply),
                    Some(Call::Emit(event)) => self.emit(*event),
                    Some(Call::SaveNow(done)) => self.save(Some(done)),
                    None => {
                        self.shutdown(&mut internal).await;
                        return;
                    }
                },
                Some(message) = internal.recv() => {
                    self.internal(message);
                    if self.ephemeral.as_ref().is_some_and(ephemeral::OneShot::ended) {
                        // Its one session has ended: so has the manager (and its events).
                        self.shutdown(&mut internal).await;
                        return;
                    }
                }
                _ = sleep_until(persist_at), if persist_at.is_some() => {
                    self.persist_at = None;
                    self.save(None);
                }
            }
        }
    }

    fn internal(&mut self, message: Internal) {
        match message {
            Internal::Event(id, event) => {
                let settled = matches!(
                    &event,
                    SessionEvent::Status { status, .. } if status.is_settled()
                );
                self.session_event(&id, event);
                if settled {
                    self.one_shot_settled(&id);
                }
            }
            Internal::Snapshot(mut snapshot, reply) => {
                // Every event of the session it holds has its `seq` now, and none after it.
                snapshot.seq = Some(self.events.last_seq());
                reply.send(Ok(snapshot));
            }
            Internal::Ended(id, epoch) => {
                if let Some(record) = self.records.get_mut(&id)
                    && record.task_epoch == epoch
                {
                    record.commands = None;
                    record.forwarder = None;
                    record.snapshots = None;
                    self.leave_queue(&id);
                    self.start_queued();
                    self.one_shot_ended(&id);
                }
            }
            Internal::Done { lane, apply } => self.job_done(lane, apply),
        }
    }

    /// Follows the branch checked out in the main checkout (a detached HEAD keeps the last).
    /// Git is asked only when the checkout's `HEAD` file changed since it last answered (it was
    /// a `git` process every 2 s, ~2 ms of CPU each).
    fn follow_base(&mut self) {
        if self.checking_base {
            return;
        }
        let stamp = self.repo.head_stamp();
        if stamp.is_some() && stamp == self.base_stamp {
            return;
        }
        self.checking_base = true;
        let repo = self.repo.clone();
        self.job(
            None,
            async move { repo.current_branch().await },
            move |actor, branch| {
                actor.checking_base = false;
                let Ok(branch) = branch else {
                    return;
                };
                actor.base_stamp = stamp;
                let Some(branch) = branch else {
                    return;
                };
                if branch != actor.base {
                    actor.base = branch.clone();
                    if let Ok(mut cell) = actor.base_cell.write() {
                        cell.clone_from(&branch);
                    }
                    actor.emit(ManagerEvent::Base { branch });
                }
            },
        );
    }

    /// The one way events leave the manager: each gets the next `seq`.
    fn emit(&self, event: ManagerEvent) {
        self.events.send(event);
    }

    fn emit_info(&mut self, id: &str) {
        if let Some(record) = self.records.get(id) {
            self.emit(ManagerEvent::Session {
                session: record.info(),
            });
        }
        self.mark_dirty();
    }

    fn record(&mut self, id: &str) -> Result<&mut Record, ManagerError> {
        self.records
            .get_mut(id)
            .ok_or_else(|| ManagerError::NoSuchSession(id.to_owned()))
    }

    /// Session `id`'s record when it has a worktree (active, or stopped by a conflict);
    /// refused `no_worktree` otherwise.
    fn with_worktree(&mut self, id: &str) -> Result<&mut Record, ManagerError> {
        let record = self.record(id)?;
        if !record.has_worktree() {
            return Err(refused(
                RefusalCode::NoWorktree,
                &[id],
                format!("session {id} has no worktree"),
            ));
        }
        Ok(record)
    }

    /// Session `id`'s record when it has a worktree and its agent is not working (refused
    /// `still_working` while it is).
    fn settled_with_worktree(&mut self, id: &str) -> Result<&mut Record, ManagerError> {
        let record = self.with_worktree(id)?;
        if !record.status.is_settled() {
            return Err(still_working(id));
        }
        Ok(record)
    }

    /// Stops every session (their processes are stopped and reaped), lets the jobs under way
    /// finish (bounded) and writes the state file. Calls still waiting are dropped (their
    /// callers hear that the manager stopped).
    async fn shutdown(&mut self, internal: &mut mpsc::UnboundedReceiver<Internal>) {
        const JOBS_GRACE: Duration = Duration::from_secs(20);
        self.stopping = true;
        self.stop_titles.send_replace(true);
        self.waiting.clear();
        let ids: Vec<String> = self.records.keys().cloned().collect();
        let forwarders: Vec<_> = ids.iter().filter_map(|id| self.take_task(id)).collect();
        self.job(
            None,
            async move {
                for forwarder in forwarders {
                    lifecycle::wait_stopped(Some(forwarder)).await;
                }
            },
            |_, ()| {},
        );
        let deadline = Instant::now() + JOBS_GRACE;
        while self.jobs_running > 0 {
            match tokio::time::timeout_at(deadline, internal.recv()).await {
                Ok(Some(message)) => self.internal(message),
                Ok(None) | Err(_) => break,
            }
        }
        for record in self.records.values_mut() {
            record.track_activity();
        }
        self.save_final().await;
    }
}

pub(super) fn refused(code: RefusalCode, args: &[&str], message: String) -> ManagerError {
    ManagerError::Refused(super::Refusal {
        code,
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        message,
        fresh_preview: None,
    })
}

/// Session `id`'s agent is working: what it is asked now waits until it is not.
fn still_working(id: &str) -> ManagerError {
    refused(
        RefusalCode::StillWorking,
        &[id],
        format!("session {id} is still working; interrupt it or wait until it finishes"),
    )
}

/// The repository pull requests go to: as configured, else the base's remote on a
/// github.com-like host.
async fn github_repo(repo: &Repo, base: &str, configured: Option<&str>) -> Option<String> {
    if let Some(configured) = configured {
        return Some(configured.trim_end_matches('/').to_ascii_lowercase());
    }
    let remote = repo.base_remote(base).await.ok()??;
    let url = repo.remote_url(&remote).await.ok()??;
    pulls::repo_of_remote(&url)
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn title_of(prompt: &str) -> String {
    super::default_title(prompt)
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(0))
        .unwrap_or(0)
}

/// A stable short name for a repository (wire-log file names).
fn repo_key(root: &Path) -> String {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sanitized: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in root.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x100_0000_01b3);
    }
    format!("{sanitized}-{:08x}", hash as u32)
}
