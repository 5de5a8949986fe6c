//! The manager's task: owns the session records, the repository and the state file.

mod discard;
mod histories;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codiva_protocol::{ImageInput, UserInput};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::events::EventBus;
use super::info::{ManagerEvent, ManagerSnapshot, ReadPage, SessionInfo, SessionPhase};
use super::{Call, CreateOptions, Manager, ManagerError, ManagerOptions, StartError};
use crate::agent_event::TurnOutcome;
use crate::git::{self, MergeOutcome, Repo, SyncOutcome, WorktreeOptions};
use crate::persist::{self, PersistedSession, StateFile};
use crate::provider::Provider;
use crate::repo_lock::{LockError, RepoLock};
use crate::session::{AnswerError, LogPage, SessionCommand, SessionConfig};
use crate::session_state::{
    RestoredSession, Scope, SessionEvent, SessionState, Status, TodoProgress,
};
use crate::{session_task, slug};

/// State is written this long after the last change (coalescing bursts of events).
const PERSIST_DEBOUNCE: Duration = Duration::from_millis(300);
/// How often the main checkout's branch is checked.
const BASE_CHECK: Duration = Duration::from_secs(2);
/// What `session/resume` sends when the caller gives no text.
const CONTINUE: &str = "Continue where you left off.";

pub(super) async fn start(options: ManagerOptions) -> Result<(Manager, Vec<String>), StartError> {
    let repo = Repo::open(&options.cwd).await?;
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
    let base = repo
        .current_branch()
        .await?
        .unwrap_or_else(|| "HEAD".to_owned());
    let state_path = persist::state_path(repo.root());
    let loaded =
        persist::load(&state_path).map_err(|err| ManagerError::StateFile(err.to_string()))?;
    warnings.extend(loaded.warning);
    let mut records = BTreeMap::new();
    for saved in loaded.state.sessions {
        let discarded = saved.status == "discarded";
        if !discarded && !saved.worktree.is_dir() {
            warnings.push(format!(
                "session {}: its worktree {} is gone; it was removed from the list",
                saved.id,
                saved.worktree.display()
            ));
            continue;
        }
        records.insert(saved.id.clone(), Record::restored(saved));
    }
    adopt_orphan_worktrees(
        &repo,
        options.provider.as_ref(),
        &base,
        &mut records,
        &mut warnings,
    )
    .await;
    let (calls_tx, calls_rx) = mpsc::unbounded_channel();
    let events = EventBus::new();
    let (internal_tx, internal_rx) = mpsc::unbounded_channel();
    let manager = Manager::new(
        calls_tx,
        events.senders(),
        repo.root().to_path_buf(),
        base.clone(),
    );
    let base_cell = manager.base_cell();
    let actor = Actor {
        histories: histories::Histories::new(repo.root().to_path_buf()),
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
        git_lock: std::sync::Arc::new(tokio::sync::Mutex::new(())),
        repo_lock: lock,
    };
    tokio::spawn(actor.run(calls_rx, internal_rx));
    Ok((manager, warnings))
}

/// Sessions whose worktree exists but which the state file does not list (a corrupt or lost
/// state file, a crash before the first save) are taken back: no session is lost. The agent
/// conversation is found in the CLI's transcript directory for that worktree (the newest one).
async fn adopt_orphan_worktrees(
    repo: &Repo,
    provider: &dyn Provider,
    base: &str,
    records: &mut BTreeMap<String, Record>,
    warnings: &mut Vec<String>,
) {
    let Ok(worktrees) = repo.registered_worktrees().await else {
        return;
    };
    let dir = repo.worktrees_dir();
    let known: BTreeSet<PathBuf> = records.values().map(|r| r.worktree.clone()).collect();
    for path in worktrees {
        let Some(slug) = path
            .strip_prefix(&dir)
            .ok()
            .and_then(|rest| rest.to_str())
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_owned)
        else {
            continue;
        };
        if known.contains(&path) || records.contains_key(&slug) || !path.is_dir() {
            continue;
        }
        let agent_session_id = provider.latest_conversation(&path);
        let prompt = agent_session_id
            .as_deref()
            .and_then(|id| provider.restore(&path, id)?.ok())
            .and_then(|log| {
                log.main.into_iter().find_map(|entry| match entry {
                    crate::session_log::EntryKind::User { text } => Some(text),
                    _ => None,
                })
            })
            .unwrap_or_else(|| slug.clone());
        warnings.push(format!(
            "session {slug} was not in the state file; it was recovered from its worktree"
        ));
        records.insert(
            slug.clone(),
            Record::restored(PersistedSession {
                id: slug.clone(),
                title: title_of(&prompt),
                prompt,
                branch: git::branch_name(&slug),
                slug,
                worktree: path,
                base: base.to_owned(),
                agent: provider.id().to_owned(),
                agent_session_id,
                status: "interrupted".to_owned(),
                created_at: unix_ms(),
                ..PersistedSession::default()
            }),
        );
    }
}

/// Messages from the manager's own helper tasks.
enum Internal {
    Event(String, SessionEvent),
    Ended(String),
    Prepared {
        id: String,
        result: Result<git::Worktree, String>,
        setup: Option<git::SetupResult>,
    },
}

struct Record {
    id: String,
    title: String,
    prompt: String,
    slug: String,
    branch: String,
    worktree: PathBuf,
    base: String,
    created_at: u64,
    phase: SessionPhase,
    status: Status,
    detail: Option<String>,
    /// What `detail` says, by name and values (a running session's details only).
    detail_code: Option<crate::session_log::NoteCode>,
    agent_session_id: Option<String>,
    model: Option<String>,
    permission_mode: Option<String>,
    cost_usd: Option<f64>,
    active_ms: u64,
    active_since: Option<Instant>,
    pending_prompts: usize,
    todos: TodoProgress,
    /// The session task's commands (`None`: no task, e.g. restored and not opened yet).
    commands: Option<mpsc::UnboundedSender<SessionCommand>>,
    forwarder: Option<JoinHandle<()>>,
    /// Messages sent while the worktree was being made.
    queued: Vec<UserInput>,
    /// Restored from disk: its task starts (log from the transcript) when first needed.
    restored_outcome: Option<TurnOutcome>,
    /// The tokens of this session's latest discard previews (newest last, a few kept): a
    /// stale one is told apart from a token that was never given.
    issued_tokens: Vec<String>,
}

impl Record {
    fn restored(saved: PersistedSession) -> Record {
        let (phase, status, outcome) = match saved.status.as_str() {
            "discarded" => (SessionPhase::Discarded, Status::Interrupted, None),
            "completed" => (
                SessionPhase::Active,
                Status::Completed,
                Some(TurnOutcome::Completed),
            ),
            "failed" => (
                SessionPhase::Active,
                Status::Failed,
                Some(TurnOutcome::Failed {
                    message: saved.detail.clone().unwrap_or_default(),
                }),
            ),
            // Still true after a restart, and the detail says what to do about it.
            "needs_login" => (
                SessionPhase::Active,
                Status::NeedsLogin,
                Some(TurnOutcome::NeedsLogin {
                    message: saved.detail.clone().unwrap_or_default(),
                }),
            ),
            "rate_limited" => (
                SessionPhase::Active,
                Status::RateLimited,
                Some(TurnOutcome::RateLimited {
                    message: saved.detail.clone().unwrap_or_default(),
                }),
            ),
            // Running or awaiting: the process is gone; resumable.
            _ => (
                SessionPhase::Active,
                Status::Interrupted,
                Some(TurnOutcome::Interrupted),
            ),
        };
        Record {
            id: saved.id,
            title: saved.title,
            prompt: saved.prompt,
            slug: saved.slug,
            branch: saved.branch,
            worktree: saved.worktree,
            base: saved.base,
            created_at: saved.created_at,
            phase,
            status,
            detail: saved.detail,
            detail_code: None,
            agent_session_id: saved.agent_session_id,
            model: saved.model,
            permission_mode: saved.permission_mode,
            cost_usd: saved.cost_usd,
            active_ms: saved.active_ms,
            active_since: None,
            pending_prompts: 0,
            todos: TodoProgress::default(),
            commands: None,
            forwarder: None,
            queued: Vec::new(),
            restored_outcome: outcome,
            issued_tokens: Vec::new(),
        }
    }

    fn info(&self) -> SessionInfo {
        let running = self.active_since.map_or(0, |since| {
            u64::try_from(since.elapsed().as_millis()).unwrap_or(0)
        });
        SessionInfo {
            id: self.id.clone(),
            title: self.title.clone(),
            prompt: self.prompt.clone(),
            branch: self.branch.clone(),
            worktree: self.worktree.clone(),
            base: self.base.clone(),
            phase: self.phase.clone(),
            status: self.status,
            detail: self.detail.clone(),
            detail_code: self.detail_code.clone(),
            agent: "claude".to_owned(),
            agent_session_id: self.agent_session_id.clone(),
            model: self.model.clone(),
            cost_usd: self.cost_usd,
            active_ms: self.active_ms + running,
            created_at: self.created_at,
            pending_prompts: self.pending_prompts,
            todos: self.todos,
        }
    }

    fn persisted(&self) -> Option<PersistedSession> {
        let status = match (&self.phase, self.status) {
            (SessionPhase::Preparing | SessionPhase::Merged { .. }, _) => return None,
            (SessionPhase::Discarded, _) => "discarded",
            (_, status) => status.as_str(),
        };
        Some(PersistedSession {
            id: self.id.clone(),
            title: self.title.clone(),
            prompt: self.prompt.clone(),
            slug: self.slug.clone(),
            branch: self.branch.clone(),
            worktree: self.worktree.clone(),
            base: self.base.clone(),
            agent: "claude".to_owned(),
            agent_session_id: self.agent_session_id.clone(),
            status: status.to_owned(),
            detail: self.detail.clone(),
            created_at: self.created_at,
            active_ms: self.info().active_ms,
            cost_usd: self.cost_usd,
            model: self.model.clone(),
            permission_mode: self.permission_mode.clone(),
        })
    }

    /// Time counts while preparing or running (not while waiting for the user or idle).
    fn track_activity(&mut self) {
        let active = matches!(self.phase, SessionPhase::Preparing)
            || (self.phase == SessionPhase::Active && self.status == Status::Running);
        match (active, self.active_since) {
            (true, None) => self.active_since = Some(Instant::now()),
            (false, Some(since)) => {
                self.active_ms += u64::try_from(since.elapsed().as_millis()).unwrap_or(0);
                self.active_since = None;
            }
            _ => {}
        }
    }
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
    /// Each session's neutral history (`history.rs`), saved with the state file.
    histories: histories::Histories,
    /// Held around git operations that write refs, config or worktree metadata: git takes
    /// those locks without waiting, so two concurrent `worktree add`s can fail.
    git_lock: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// This manager's claim on the repository, released when it stops.
    repo_lock: Option<RepoLock>,
}

impl Actor {
    async fn run(
        mut self,
        mut calls: mpsc::UnboundedReceiver<Call>,
        mut internal: mpsc::UnboundedReceiver<Internal>,
    ) {
        // Pruned sessions leave the file right away.
        self.mark_dirty();
        let mut base_check = tokio::time::interval(BASE_CHECK);
        base_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let persist_at = self.persist_at;
            tokio::select! {
                _ = base_check.tick() => self.follow_base().await,
                call = calls.recv() => match call {
                    Some(Call::Shutdown(done)) => {
                        self.shutdown().await;
                        // Released before the caller hears back: it may start the next manager.
                        self.repo_lock = None;
                        let _ = done.send(());
                        return;
                    }
                    Some(call) => self.call(call).await,
                    None => {
                        self.shutdown().await;
                        return;
                    }
                },
                Some(message) = internal.recv() => self.internal(message).await,
                _ = sleep_until(persist_at), if persist_at.is_some() => {
                    self.persist_at = None;
                    self.save().await;
                }
            }
        }
    }

    /// Follows the branch checked out in the main checkout (a detached HEAD keeps the last).
    async fn follow_base(&mut self) {
        let Ok(Some(branch)) = self.repo.current_branch().await else {
            return;
        };
        if branch != self.base {
            self.base = branch.clone();
            if let Ok(mut cell) = self.base_cell.write() {
                cell.clone_from(&branch);
            }
            self.emit(ManagerEvent::Base { branch });
        }
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

    fn mark_dirty(&mut self) {
        if self.persist_at.is_none() {
            self.persist_at = Some(Instant::now() + PERSIST_DEBOUNCE);
        }
    }

    fn state_file(&self) -> StateFile {
        StateFile {
            version: persist::SCHEMA_VERSION,
            sessions: self
                .records
                .values()
                .filter_map(Record::persisted)
                .collect(),
        }
    }

    async fn save(&mut self) {
        let live = self.records.keys().cloned().collect();
        let saved = self.histories.save(live).await;
        for message in saved.warnings {
            self.emit(ManagerEvent::Warning { message });
        }
        if saved.retry {
            self.persist_at = Some(Instant::now() + Duration::from_secs(5));
        }
        let state = self.state_file();
        let path = self.state_path.clone();
        let result = tokio::task::spawn_blocking(move || persist::save(&path, &state)).await;
        match result {
            Ok(Ok(())) => {
                if self.persist_failed {
                    self.persist_failed = false;
                    self.emit(ManagerEvent::Warning {
                        message: "the session state is saved again".to_owned(),
                    });
                }
            }
            Ok(Err(err)) => {
                if !self.persist_failed {
                    self.persist_failed = true;
                    self.emit(ManagerEvent::Warning {
                        message: format!("{err}; the previous state file is kept, codiva retries"),
                    });
                }
                // Retry later; nothing in memory is lost.
                self.persist_at = Some(Instant::now() + Duration::from_secs(5));
            }
            Err(err) => tracing::warn!(%err, "the state writer panicked"),
        }
    }

    fn record(&mut self, id: &str) -> Result<&mut Record, ManagerError> {
        self.records
            .get_mut(id)
            .ok_or_else(|| ManagerError::NoSuchSession(id.to_owned()))
    }

    // -- calls --------------------------------------------------------------------------------

    async fn call(&mut self, call: Call) {
        match call {
            Call::Create(options, reply) => {
                let result = self.create(options).await;
                let _ = reply.send(result);
            }
            Call::List(reply) => {
                let _ = reply.send(Ok(self.records.values().map(Record::info).collect()));
            }
            Call::SnapshotAll(reply) => {
                // Between two events: the rows reflect exactly the events up to `seq`.
                let _ = reply.send(Ok(ManagerSnapshot {
                    seq: self.events.last_seq(),
                    sessions: self.records.values().map(Record::info).collect(),
                }));
            }
            Call::Read {
                id,
                scope,
                after,
                limit,
                reply,
            } => {
                let result = self.read(&id, scope, after, limit).await;
                let _ = reply.send(result);
            }
            Call::Snapshot(id, reply) => {
                let result = self.snapshot(&id).await;
                let _ = reply.send(result);
            }
            Call::Send(id, input, reply) => {
                let result = self.send(&id, input).await;
                let _ = reply.send(result);
            }
            Call::Interrupt(id, reply) => {
                let result = self.command(&id, SessionCommand::Interrupt).await;
                let _ = reply.send(result);
            }
            Call::Resume(id, text, reply) => {
                let text = text.unwrap_or_else(|| CONTINUE.to_owned());
                let result = self.send(&id, UserInput::text(text)).await;
                let _ = reply.send(result);
            }
            Call::RespondPermission(id, request_id, response, reply) => {
                let result = self
                    .answer(&id, |answered| SessionCommand::RespondPermission {
                        request_id,
                        response,
                        reply: Some(answered),
                    })
                    .await;
                let _ = reply.send(result);
            }
            Call::AnswerQuestion(id, request_id, response, reply) => {
                let result = self
                    .answer(&id, |answered| SessionCommand::AnswerQuestion {
                        request_id,
                        response,
                        reply: Some(answered),
                    })
                    .await;
                let _ = reply.send(result);
            }
            Call::SetModel(id, model, reply) => {
                if let Ok(record) = self.record(&id) {
                    record.model = model.clone();
                }
                let result = self.command(&id, SessionCommand::SetModel(model)).await;
                self.emit_info(&id);
                let _ = reply.send(result);
            }
            Call::SetPermissionMode(id, mode, reply) => {
                if let Err(err) = self.options.provider.check_permission_mode("mode", &mode) {
                    let _ = reply.send(Err(err.into()));
                    return;
                }
                if let Ok(record) = self.record(&id) {
                    record.permission_mode = Some(mode.clone());
                }
                let result = self
                    .command(&id, SessionCommand::SetPermissionMode(mode))
                    .await;
                let _ = reply.send(result);
            }
            Call::Diff(id, reply) => {
                let result = self.diff(&id).await;
                let _ = reply.send(result);
            }
            Call::DiffText(id, reply) => {
                let result = self.diff_text(&id).await;
                let _ = reply.send(result);
            }
            Call::Rename(id, title, reply) => {
                let result = self.rename(&id, &title);
                let _ = reply.send(result);
            }
            Call::Merge(id, reply) => {
                let result = self.merge(&id).await;
                let _ = reply.send(result);
            }
            Call::Discard {
                id,
                confirm,
                forget,
                reply,
            } => {
                let result = self.discard(&id, confirm, forget).await;
                let _ = reply.send(result);
            }
            Call::Restore(id, reply) => {
                let result = self.restore(&id).await;
                let _ = reply.send(result);
            }
            Call::Sync(id, reply) => {
                let result = self.sync(&id).await;
                let _ = reply.send(result);
            }
            Call::SaveNow(done) => {
                self.save().await;
                let _ = done.send(());
            }
            Call::Shutdown(_) => {}
        }
    }

    async fn create(&mut self, options: CreateOptions) -> Result<SessionInfo, ManagerError> {
        let prompt = options.prompt.trim().to_owned();
        if prompt.is_empty() {
            return Err(refused(
                "empty_instruction",
                &[],
                "the instruction is empty".to_owned(),
            ));
        }
        if let Some(mode) = &options.permission_mode {
            self.options
                .provider
                .check_permission_mode("permission_mode", mode)?;
        }
        for (index, (media_type, data)) in options.images.iter().enumerate() {
            self.options
                .provider
                .check_image(&format!("images[{index}]"), media_type, data)?;
        }
        let mut taken: BTreeSet<String> = self.repo.taken_slugs().await?;
        taken.extend(self.records.values().map(|record| record.slug.clone()));
        let slug = slug::slugify(&prompt, &taken);
        let id = slug.clone();
        let images = options
            .images
            .into_iter()
            .map(|(media_type, data)| ImageInput { media_type, data })
            .collect();
        let input = UserInput::with_images(prompt.clone(), images);
        let mut record = Record {
            id: id.clone(),
            title: title_of(&prompt),
            prompt: prompt.clone(),
            slug: slug.clone(),
            branch: git::branch_name(&slug),
            worktree: self.repo.worktree_path(&slug),
            base: self.base.clone(),
            created_at: unix_ms(),
            phase: SessionPhase::Preparing,
            status: Status::Starting,
            detail: None,
            detail_code: None,
            agent_session_id: None,
            model: options.model.or_else(|| self.options.model.clone()),
            permission_mode: options
                .permission_mode
                .or_else(|| self.options.permission_mode.clone()),
            cost_usd: None,
            active_ms: 0,
            active_since: None,
            pending_prompts: 0,
            todos: TodoProgress::default(),
            commands: None,
            forwarder: None,
            queued: vec![input],
            restored_outcome: None,
            issued_tokens: Vec::new(),
        };
        record.track_activity();
        let info = record.info();
        self.records.insert(id.clone(), record);
        self.emit_info(&id);
        // The worktree is made in the background; the caller has its answer now.
        let repo = self.repo.clone();
        let base = self.base.clone();
        let worktree_options = self.worktree_options();
        let internal = self.internal_tx.clone();
        let git_lock = self.git_lock.clone();
        tokio::spawn(async move {
            let result = {
                let _guard = git_lock.lock().await;
                repo.create_worktree(&slug, &base, &worktree_options)
                    .await
                    .map_err(|err| err.to_string())
            };
            let setup = match &result {
                Ok(worktree) => repo.run_setup(&worktree.path).await,
                Err(_) => None,
            };
            let _ = internal.send(Internal::Prepared { id, result, setup });
        });
        Ok(info)
    }

    async fn read(
        &mut self,
        id: &str,
        scope: Scope,
        after: Option<u64>,
        limit: usize,
    ) -> Result<ReadPage, ManagerError> {
        self.ensure_task(id).await?;
        let page = self
            .ask(id, |reply| SessionCommand::ReadLog {
                scope,
                after,
                limit,
                reply,
            })
            .await?
            .unwrap_or_else(LogPage::default);
        Ok(ReadPage {
            entries: page.entries,
            next_after: page.next_after,
            dropped_entries: page.dropped,
        })
    }

    async fn snapshot(
        &mut self,
        id: &str,
    ) -> Result<crate::session_state::SessionSnapshot, ManagerError> {
        self.ensure_task(id).await?;
        self.ask(id, SessionCommand::Snapshot)
            .await?
            .ok_or_else(|| {
                refused(
                    "no_agent_yet",
                    &[id],
                    format!("session {id} has no agent yet"),
                )
            })
    }

    /// Sends a command that answers through a oneshot; `None` when the session has no task
    /// (still preparing).
    async fn ask<T>(
        &mut self,
        id: &str,
        make: impl FnOnce(oneshot::Sender<T>) -> SessionCommand,
    ) -> Result<Option<T>, ManagerError> {
        let record = self.record(id)?;
        let Some(commands) = &record.commands else {
            return Ok(None);
        };
        let (tx, rx) = oneshot::channel();
        if commands.send(make(tx)).is_err() {
            return Ok(None);
        }
        Ok(rx.await.ok())
    }

    async fn send(&mut self, id: &str, input: UserInput) -> Result<(), ManagerError> {
        for (index, image) in input.images.iter().enumerate() {
            self.options.provider.check_image(
                &format!("images[{index}]"),
                &image.media_type,
                &image.data,
            )?;
        }
        let record = self.record(id)?;
        match &record.phase {
            SessionPhase::Preparing => {
                record.queued.push(input);
                return Ok(());
            }
            SessionPhase::Merged { .. } => {
                return Err(refused(
                    "merged_start_new",
                    &[id],
                    format!("session {id} was merged; start a new session"),
                ));
            }
            SessionPhase::Discarded => {
                return Err(refused(
                    "discarded_restore_first",
                    &[id],
                    format!("session {id} was discarded; restore it first"),
                ));
            }
            SessionPhase::Active | SessionPhase::Conflict { .. } => {}
        }
        self.ensure_task(id).await?;
        self.command(id, SessionCommand::Send(input)).await
    }

    async fn command(&mut self, id: &str, command: SessionCommand) -> Result<(), ManagerError> {
        if !matches!(command, SessionCommand::Send(_)) {
            self.ensure_task(id).await?;
        }
        let record = self.record(id)?;
        match &record.commands {
            Some(commands) if commands.send(command).is_ok() => Ok(()),
            _ => Err(refused(
                "not_running_agent",
                &[id],
                format!("session {id} is not running an agent"),
            )),
        }
    }

    /// Sends an answer to one of the session's prompts and waits until the session task has
    /// taken it or said why not (an unknown, answered or other-kind prompt; a bad answer).
    async fn answer(
        &mut self,
        id: &str,
        make: impl FnOnce(oneshot::Sender<Result<(), AnswerError>>) -> SessionCommand,
    ) -> Result<(), ManagerError> {
        self.ensure_task(id).await?;
        let not_running = || {
            refused(
                "not_running_agent",
                &[id],
                format!("session {id} is not running an agent"),
            )
        };
        let answered = self.ask(id, make).await?.ok_or_else(not_running)?;
        answered.map_err(|err| match err {
            AnswerError::NoSuchPrompt(ref request_id) => {
                refused("no_pending_prompt", &[request_id], err.to_string())
            }
            AnswerError::WrongKind {
                ref request_id,
                expected,
                ..
            } => refused(
                "wrong_prompt_kind",
                &[request_id, expected],
                err.to_string(),
            ),
            AnswerError::Invalid(invalid) => ManagerError::Invalid(invalid),
        })
    }

    /// Starts the session task of a restored session (its log rebuilt from the agent's
    /// transcript); the agent process itself starts on the next message.
    async fn ensure_task(&mut self, id: &str) -> Result<(), ManagerError> {
        let provider = self.options.provider.clone();
        let record = self.record(id)?;
        if record.commands.is_some() || matches!(record.phase, SessionPhase::Preparing) {
            return Ok(());
        }
        let mut restored = RestoredSession {
            outcome: record.restored_outcome.take(),
            detail: record.detail.clone(),
            agent_session_id: record.agent_session_id.clone(),
            model: record.model.clone(),
            permission_mode: record.permission_mode.clone(),
            cost_usd: record.cost_usd,
            ..RestoredSession::default()
        };
        let (session_id, cwd) = (record.agent_session_id.clone(), record.worktree.clone());
        let transcript = match session_id {
            Some(session_id) => {
                match tokio::task::spawn_blocking(move || provider.restore(&cwd, &session_id)).await
                {
                    Ok(read) => read,
                    Err(err) => Some(Err(err.to_string())),
                }
            }
            None => None,
        };
        let (history, warning) = self.histories.get(id, unix_ms());
        let summary = history
            .filter(|history| !history.is_empty())
            .map(|history| (history.user_messages(), history.log_entries()));
        if let Some(message) = warning {
            self.emit(ManagerEvent::Warning { message });
        }
        restored.main = histories::restored_log(transcript, summary, &mut restored.subagents);
        let state = SessionState::restored(restored);
        self.start_task(id, None, state);
        Ok(())
    }

    fn worktree_options(&self) -> WorktreeOptions {
        WorktreeOptions {
            fetch: self.options.fetch_base,
            ignored: self.options.ignored_files,
            exclude: self.options.ignored_files_exclude.clone(),
        }
    }

    fn session_config(&self, record: &Record) -> SessionConfig {
        let mut config = SessionConfig::new(self.options.provider.clone(), record.worktree.clone());
        config.env = self.options.env.clone();
        config.model = record.model.clone();
        config.permission_mode = record.permission_mode.clone();
        config.resume = record.agent_session_id.clone();
        config.append_system_prompt = self.system_prompt();
        config.registry = self.options.registry.clone().map(std::sync::Arc::new);
        config.max_restarts = self.options.max_restarts;
        config.wire_log_cap = self.options.wire_log_cap;
        config.wire_log = Some(self.options.state_dir.join("wire").join(format!(
            "{}-{}.log",
            repo_key(self.repo.root()),
            record.id
        )));
        config
    }

    /// The symlink notice (when ignored files are shared) and `.codiva/prompt.md`.
    fn system_prompt(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.options.ignored_files == git::IgnoredMode::Symlink {
            parts.push(git::SHARED_SYMLINK_NOTICE.to_owned());
        }
        if let Ok(text) = std::fs::read_to_string(self.repo.root().join(".codiva/prompt.md")) {
            let text = text.trim_start_matches('\u{feff}').trim();
            if !text.is_empty() {
                parts.push(text.to_owned());
            }
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    fn start_task(&mut self, id: &str, first: Option<UserInput>, state: SessionState) {
        let Some(record) = self.records.get(id) else {
            return;
        };
        let config = self.session_config(record);
        let handle = session_task::start_with_state(config, first, state);
        let commands = handle.commands();
        let internal = self.internal_tx.clone();
        let owned_id = id.to_owned();
        let forwarder = tokio::spawn(async move {
            let mut handle = handle;
            while let Some(event) = handle.next_event().await {
                if internal
                    .send(Internal::Event(owned_id.clone(), event))
                    .is_err()
                {
                    break;
                }
            }
            handle.shutdown().await;
            let _ = internal.send(Internal::Ended(owned_id));
        });
        if let Some(record) = self.records.get_mut(id) {
            record.commands = Some(commands);
            record.forwarder = Some(forwarder);
        }
    }

    async fn stop_task(&mut self, id: &str) {
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        if let Some(commands) = record.commands.take() {
            let _ = commands.send(SessionCommand::Shutdown);
        }
        if let Some(forwarder) = record.forwarder.take() {
            let _ = tokio::time::timeout(Duration::from_secs(15), forwarder).await;
        }
    }

    async fn diff(&mut self, id: &str) -> Result<git::DiffStat, ManagerError> {
        let record = self.record(id)?;
        let (worktree, base) = (record.worktree.clone(), record.base.clone());
        if !matches!(
            record.phase,
            SessionPhase::Active | SessionPhase::Conflict { .. }
        ) {
            return Err(refused(
                "no_worktree",
                &[id],
                format!("session {id} has no worktree"),
            ));
        }
        Ok(self.repo.diff_stat(&worktree, &base).await?)
    }

    async fn diff_text(&mut self, id: &str) -> Result<git::DiffText, ManagerError> {
        let record = self.record(id)?;
        let (worktree, base) = (record.worktree.clone(), record.base.clone());
        if !matches!(
            record.phase,
            SessionPhase::Active | SessionPhase::Conflict { .. }
        ) {
            return Err(refused(
                "no_worktree",
                &[id],
                format!("session {id} has no worktree"),
            ));
        }
        Ok(self
            .repo
            .diff_text(&worktree, &base, git::DIFF_TEXT_CAP)
            .await?)
    }

    fn rename(&mut self, id: &str, title: &str) -> Result<SessionInfo, ManagerError> {
        let record = self.record(id)?;
        record.title = super::sanitize_title(title).unwrap_or_else(|| title_of(&record.prompt));
        let info = record.info();
        self.emit_info(id);
        Ok(info)
    }

    async fn merge(&mut self, id: &str) -> Result<SessionInfo, ManagerError> {
        let record = self.record(id)?;
        if !matches!(
            record.phase,
            SessionPhase::Active | SessionPhase::Conflict { .. }
        ) {
            return Err(refused(
                "cannot_merge_now",
                &[id],
                format!("session {id} cannot be merged now"),
            ));
        }
        if !record.status.is_settled() {
            return Err(refused(
                "still_working",
                &[id],
                format!("session {id} is still working; interrupt it or wait until it finishes"),
            ));
        }
        let (branch, base, worktree, slug) = (
            record.branch.clone(),
            record.base.clone(),
            record.worktree.clone(),
            record.slug.clone(),
        );
        let git_lock = self.git_lock.clone();
        let _guard = git_lock.lock().await;
        match self.repo.merge(&branch, &base).await? {
            MergeOutcome::Merged { commit } => {
                self.stop_task(id).await;
                let cleanup = self
                    .repo
                    .remove_after_merge(&worktree, &branch, &base, &slug)
                    .await;
                let record = self.record(id)?;
                record.phase = SessionPhase::Merged { commit };
                record.track_activity();
                if let Err(err) = cleanup {
                    record.detail = Some(format!("merged; the worktree was not removed: {err}"));
                    record.detail_code = None;
                }
                let info = record.info();
                self.emit_info(id);
                Ok(info)
            }
            MergeOutcome::Conflict { files } => {
                let record = self.record(id)?;
                record.phase = SessionPhase::Conflict {
                    files: files.clone(),
                };
                self.emit_info(id);
                let files = files.join(", ");
                Err(refused(
                    "merge_conflict",
                    &[&branch, &base, &files],
                    format!(
                        "merging {branch} into {base} conflicts in {files}; the merge was aborted and {base} is unchanged"
                    ),
                ))
            }
            MergeOutcome::UpToDate => Err(refused(
                "nothing_to_merge",
                &[&branch, &base],
                format!(
                    "nothing to merge: {branch} has no commits that {base} lacks (uncommitted changes stay in the session's worktree)"
                ),
            )),
            MergeOutcome::Refused { reason } => {
                Err(refused("merge_refused", &[&reason], reason.clone()))
            }
        }
    }

    async fn sync(&mut self, id: &str) -> Result<String, ManagerError> {
        let record = self.record(id)?;
        if !matches!(
            record.phase,
            SessionPhase::Active | SessionPhase::Conflict { .. }
        ) {
            return Err(refused(
                "no_worktree",
                &[id],
                format!("session {id} has no worktree"),
            ));
        }
        let (worktree, base) = (record.worktree.clone(), record.base.clone());
        let busy = !record.status.is_settled();
        let message = match self.repo.sync(&worktree, &base).await? {
            SyncOutcome::UpToDate => return Ok(format!("already up to date with {base}")),
            SyncOutcome::Merged { .. } => {
                if let Ok(record) = self.record(id)
                    && matches!(record.phase, SessionPhase::Conflict { .. })
                {
                    record.phase = SessionPhase::Active;
                }
                self.emit_info(id);
                return Ok(format!("merged {base} into the session"));
            }
            SyncOutcome::Conflict { files } => format!(
                "I merged {base} into this branch and it conflicts in: {}. The conflict markers are in the files. Resolve the conflicts, then commit the merge.",
                files.join(", ")
            ),
            SyncOutcome::Dirty { files } => format!(
                "I want to merge {base} into this branch, but these files have uncommitted changes: {}. Commit your work (stage the files by name), then tell me you are done.",
                files.join(", ")
            ),
        };
        if busy {
            return Err(refused(
                "sync_busy",
                &[id],
                format!(
                    "session {id} is working; sync needs the agent's help, try again when it is idle"
                ),
            ));
        }
        self.send(id, UserInput::text(message.clone())).await?;
        Ok(format!("asked the agent: {message}"))
    }

    // -- internal -----------------------------------------------------------------------------

    async fn internal(&mut self, message: Internal) {
        match message {
            Internal::Prepared { id, result, setup } => self.prepared(&id, result, setup),
            Internal::Event(id, event) => self.session_event(&id, event),
            Internal::Ended(id) => {
                if let Some(record) = self.records.get_mut(&id) {
                    record.commands = None;
                    record.forwarder = None;
                }
            }
        }
    }

    fn prepared(
        &mut self,
        id: &str,
        result: Result<git::Worktree, String>,
        setup: Option<git::SetupResult>,
    ) {
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        match result {
            Ok(worktree) => {
                record.worktree = worktree.path;
                record.branch = worktree.branch;
                record.phase = SessionPhase::Active;
                let mut notes = worktree.warnings;
                if let Some(setup) = setup {
                    let mut text = format!(
                        ".codiva/setup {}",
                        if setup.success { "succeeded" } else { "failed" }
                    );
                    if !setup.output.trim().is_empty() {
                        text.push_str(":\n");
                        text.push_str(setup.output.trim_end());
                    }
                    notes.push(text);
                }
                let mut state = SessionState::new();
                for note in notes {
                    state.apply(
                        0,
                        crate::session_state::Input::Agent(crate::agent_event::AgentEvent::Note {
                            level: crate::agent_event::NoteLevel::Info,
                            text: note,
                            code: None,
                        }),
                    );
                }
                let _ = state.drain_events();
                let mut queued = std::mem::take(&mut record.queued).into_iter();
                let first = queued.next();
                self.start_task(id, first, state);
                for input in queued {
                    if let Some(record) = self.records.get(id)
                        && let Some(commands) = &record.commands
                    {
                        let _ = commands.send(SessionCommand::Send(input));
                    }
                }
            }
            Err(message) => {
                record.phase = SessionPhase::Active;
                record.status = Status::Failed;
                record.detail = Some(format!("the worktree could not be created: {message}"));
                record.detail_code = None;
                record.queued.clear();
            }
        }
        if let Some(record) = self.records.get_mut(id) {
            record.track_activity();
        }
        self.emit_info(id);
    }

    fn session_event(&mut self, id: &str, event: SessionEvent) {
        if !self.records.contains_key(id) {
            return;
        }
        if let SessionEvent::Warning { message } = event {
            self.emit(ManagerEvent::Warning {
                message: format!("session {id}: {message}"),
            });
            return;
        }
        let (history_changed, warning) = self.histories.apply(id, unix_ms(), &event);
        if let Some(message) = warning {
            self.emit(ManagerEvent::Warning { message });
        }
        if history_changed {
            self.mark_dirty();
        }
        let Some(record) = self.records.get_mut(id) else {
            return;
        };
        let mut changed = false;
        match &event {
            SessionEvent::Status {
                status,
                detail,
                detail_code,
            } => {
                record.status = *status;
                record.detail = detail.clone();
                record.detail_code = detail_code.clone();
                record.track_activity();
                changed = true;
            }
            SessionEvent::AgentSession { id: session_id } => {
                record.agent_session_id = Some(session_id.clone());
                changed = true;
            }
            SessionEvent::Model { model } => {
                record.model = model.clone();
                changed = true;
            }
            SessionEvent::Usage { usage } if usage.cost_usd != record.cost_usd => {
                record.cost_usd = usage.cost_usd;
                changed = true;
            }
            SessionEvent::Todos { progress, .. } => {
                record.todos = *progress;
                changed = true;
            }
            SessionEvent::PromptOpened { .. } => {
                record.pending_prompts += 1;
                changed = true;
            }
            SessionEvent::PromptClosed { .. } => {
                record.pending_prompts = record.pending_prompts.saturating_sub(1);
                changed = true;
            }
            _ => {}
        }
        self.emit(ManagerEvent::Event {
            id: id.to_owned(),
            event,
        });
        if changed {
            self.emit_info(id);
        }
    }

    async fn shutdown(&mut self) {
        let ids: Vec<String> = self.records.keys().cloned().collect();
        for id in &ids {
            if let Some(record) = self.records.get_mut(id)
                && let Some(commands) = &record.commands
            {
                let _ = commands.send(SessionCommand::Shutdown);
            }
        }
        for id in &ids {
            self.stop_task(id).await;
        }
        for record in self.records.values_mut() {
            record.track_activity();
        }
        self.save().await;
    }
}

fn refused(code: &'static str, args: &[&str], message: String) -> ManagerError {
    debug_assert!(
        super::REFUSAL_CODES.contains(&code),
        "refusal code {code:?} missing from REFUSAL_CODES"
    );
    ManagerError::Refused(super::Refusal {
        code,
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        message,
        fresh_preview: None,
    })
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
