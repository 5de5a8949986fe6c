//! A session's life in the manager: created (its worktree made by a job), its task started,
//! its events reduced into the record (and its neutral history), messages and answers passed
//! to it, its log rebuilt from the agent's transcript or codiva's history when a restored
//! session is first used (a job), its task stopped.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use codiva_protocol::UserInput;
use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::{ManagerEvent, SessionInfo, SessionPhase};
use codiva_protocol::session::{SessionEvent, Status};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::histories;
use super::jobs::reply_later;
use super::record::Record;
use super::{Actor, refused, repo_key, still_working, unix_ms};
use crate::git::{self, WorktreeOptions};
use crate::manager::{CreateOptions, ManagerError, Reply};
use crate::provider::{Provider, RecordsError};
use crate::session::{AnswerError, SessionCommand, SessionConfig};
use crate::session_state::{RestoredSession, SessionState};
use crate::{session_task, slug};

/// How long a stopping session task may take before the manager goes on without it.
const STOP_WAIT: Duration = Duration::from_secs(15);
/// The longest handover a switch of agents puts before the next message.
const HANDOVER_BUDGET: usize = 16 * 1024;

/// Waits (bounded) until a session task taken with [`Actor::take_task`] has ended.
pub(super) async fn wait_stopped(forwarder: Option<JoinHandle<()>>) {
    if let Some(forwarder) = forwarder {
        let _ = tokio::time::timeout(STOP_WAIT, forwarder).await;
    }
}

impl Actor {
    /// The installed provider of agent `agent`, or why a session of it cannot run.
    pub(super) fn provider_for(&self, agent: &str) -> Result<Arc<dyn Provider>, ManagerError> {
        let providers = &self.options.providers;
        if let Some(provider) = providers.get(agent) {
            return Ok(provider.clone());
        }
        if let Some(missing) = providers.missing(agent) {
            return Err(refused(
                RefusalCode::AgentNotInstalled,
                &[missing.id, missing.name, &missing.install],
                format!(
                    "{} is not installed; install it with: {}",
                    missing.name, missing.install
                ),
            ));
        }
        if agent.is_empty() {
            return Err(self.no_agent_installed());
        }
        let known = providers.ids().join(", ");
        Err(refused(
            RefusalCode::UnknownAgent,
            &[agent, &known],
            format!("no agent {agent:?} (installed: {known})"),
        ))
    }

    /// No agent is installed: what to install.
    fn no_agent_installed(&self) -> ManagerError {
        let hints = crate::manager::install_hints(&self.options.providers);
        refused(
            RefusalCode::NoAgentInstalled,
            &[&hints],
            format!("no coding agent is installed; install one ({hints})"),
        )
    }

    pub(super) fn create(&mut self, options: CreateOptions, reply: Reply<SessionInfo>) {
        let prompt = options.prompt.trim().to_owned();
        if prompt.is_empty() {
            reply.send(Err(refused(
                RefusalCode::EmptyInstruction,
                &[],
                "the instruction is empty".to_owned(),
            )));
            return;
        }
        let agent = match &options.agent {
            Some(agent) => agent.clone(),
            None => match self.options.providers.default_provider() {
                Some(provider) => provider.id().to_owned(),
                None => {
                    reply.send(Err(self.no_agent_installed()));
                    return;
                }
            },
        };
        let provider = match self.provider_for(&agent) {
            Ok(provider) => provider,
            Err(err) => {
                reply.send(Err(err));
                return;
            }
        };
        let mut options = options;
        options.agent = Some(agent);
        if let Err(err) = self.check_extras(provider.as_ref(), &options) {
            reply.send(Err(err));
            return;
        }
        let in_place = match options.in_place.take().map(|dir| self.in_place_dir(&dir)) {
            Some(Ok(dir)) => Some(dir),
            Some(Err(err)) => {
                reply.send(Err(err));
                return;
            }
            None => None,
        };
        let checked = (|| {
            if let Some(mode) = &options.permission_mode {
                provider.check_permission_mode("permission_mode", *mode)?;
            }
            for (index, (media_type, data)) in options.images.iter().enumerate() {
                provider.check_image(&format!("images[{index}]"), media_type, data)?;
            }
            Ok::<(), ManagerError>(())
        })();
        if let Err(err) = checked {
            reply.send(Err(err));
            return;
        }
        if self.ephemeral.is_some() {
            // No git asked which names are taken: the directory need not be a repository, and
            // the manager has no other session.
            reply.send(self.add_ephemeral(options, prompt, in_place));
            return;
        }
        self.with_taken_slugs(reply, move |actor, taken| match in_place {
            Some(dir) => actor.add_in_place(options, prompt, taken, dir),
            None => actor.add_session(options, prompt, taken),
        });
    }

    /// Asks git (in a job) which slugs a branch or a worktree has taken, then replies with what
    /// `add` makes of them: a new session's name, or a group's, is none of those.
    pub(super) fn with_taken_slugs<T: Send + 'static>(
        &mut self,
        reply: Reply<T>,
        add: impl FnOnce(&mut Actor, BTreeSet<String>) -> Result<T, ManagerError> + Send + 'static,
    ) {
        let repo = self.repo.clone();
        self.job(
            None,
            async move { repo.taken_slugs().await },
            move |actor, taken| {
                let result = taken
                    .map_err(ManagerError::from)
                    .and_then(|taken| add(actor, taken));
                reply.send(result);
            },
        );
    }

    /// The record of a new session (its slug not taken by a branch, a worktree or a session),
    /// and the job that makes its worktree.
    fn add_session(
        &mut self,
        options: CreateOptions,
        prompt: String,
        mut taken: BTreeSet<String>,
    ) -> Result<SessionInfo, ManagerError> {
        taken.extend(self.records.values().map(|record| record.slug.clone()));
        let slug = slug::slugify(&prompt, &taken);
        self.add_named_session(options, prompt, slug, None)
    }

    /// [`Actor::add_session`] under a slug already chosen; an attempt of `group` asks no agent
    /// for a title (the group's instruction is what its rows show).
    pub(super) fn add_named_session(
        &mut self,
        mut options: CreateOptions,
        prompt: String,
        slug: String,
        group: Option<String>,
    ) -> Result<SessionInfo, ManagerError> {
        let id = slug.clone();
        let extras = self.session_extras(&id, &mut options)?;
        let input = super::record::take_input(&mut options, &prompt);
        let worktree = self.repo.worktree_path(&slug);
        let mut record = self.new_record(
            slug.clone(),
            prompt.clone(),
            (git::branch_name(&slug), worktree, SessionPhase::Preparing),
            &options,
            extras,
        );
        record.queued = vec![input];
        record.group.clone_from(&group);
        record.track_activity();
        let info = record.info();
        self.records.insert(id.clone(), record);
        self.emit_info(&id);
        if group.is_none() {
            self.request_title(&id, &prompt);
        }
        // The worktree is made in the background; the caller has its answer now.
        let repo = self.repo.clone();
        let base = self.base.clone();
        let worktree_options = self.worktree_options();
        let git_lock = self.git_lock.clone();
        self.job(
            None,
            async move {
                let result = {
                    let _guard = git_lock.lock().await;
                    repo.create_worktree(&slug, &base, &worktree_options).await
                };
                let setup = match &result {
                    Ok(worktree) => repo.run_setup(&worktree.path).await,
                    Err(_) => None,
                };
                (result, setup)
            },
            move |actor, (result, setup)| actor.prepared(&id, result, setup),
        );
        Ok(info)
    }

    fn prepared(
        &mut self,
        id: &str,
        result: Result<git::Worktree, git::GitError>,
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
                            level: codiva_protocol::agent::NoteLevel::Info,
                            text: note,
                            code: None,
                        }),
                    );
                }
                let _ = state.drain_events();
                let queued = std::mem::take(&mut record.queued);
                self.start_task(id, None, state);
                // Through the agent slots (`budget.rs`): the first message may wait its turn.
                for input in queued {
                    if self.records.get(id).is_some_and(|r| r.commands.is_some()) {
                        let _ = self.submit(id, input);
                    }
                }
            }
            Err(err) => {
                record.phase = SessionPhase::Active;
                record.status = Status::Failed;
                record.detail = Some(format!("the worktree could not be created: {err}"));
                record.detail_code = None;
                record.queued.clear();
            }
        }
        if let Some(record) = self.records.get_mut(id) {
            record.track_activity();
        }
        self.emit_info(id);
    }

    /// Sends a command that answers through a oneshot; `None` when the session has no task
    /// (still preparing). The answer is awaited by the caller, never by the actor.
    pub(super) fn ask<T>(
        &mut self,
        id: &str,
        make: impl FnOnce(oneshot::Sender<T>) -> SessionCommand,
    ) -> Result<Option<oneshot::Receiver<T>>, ManagerError> {
        let record = self.record(id)?;
        let Some(commands) = &record.commands else {
            return Ok(None);
        };
        let (tx, rx) = oneshot::channel();
        if commands.send(make(tx)).is_err() {
            return Ok(None);
        }
        Ok(Some(rx))
    }

    /// Sends a message (its images were checked by `Call::validate`); queued while the
    /// worktree is made.
    pub(super) fn send(&mut self, id: &str, input: UserInput) -> Result<(), ManagerError> {
        let record = self.record(id)?;
        match &record.phase {
            SessionPhase::Preparing => {
                record.queued.push(input);
                return Ok(());
            }
            SessionPhase::Merged { .. } | SessionPhase::Discarded => {
                return Err(ended(id, &record.phase));
            }
            SessionPhase::Active | SessionPhase::Conflict { .. } => {}
        }
        self.submit(id, input)
    }

    pub(super) fn command(
        &mut self,
        id: &str,
        command: SessionCommand,
    ) -> Result<(), ManagerError> {
        let record = self.record(id)?;
        match &record.commands {
            Some(commands) if commands.send(command).is_ok() => Ok(()),
            _ => Err(refused(
                RefusalCode::NotRunningAgent,
                &[id],
                format!("session {id} is not running an agent"),
            )),
        }
    }

    /// Sends an answer to one of the session's prompts; the caller hears when the session task
    /// has taken it or said why not (an unknown, answered or other-kind prompt; a bad answer).
    pub(super) fn answer(
        &mut self,
        id: &str,
        reply: Reply<()>,
        make: impl FnOnce(oneshot::Sender<Result<(), AnswerError>>) -> SessionCommand,
    ) {
        let owned_id = id.to_owned();
        let not_running = move || {
            refused(
                RefusalCode::NotRunningAgent,
                &[&owned_id],
                format!("session {owned_id} is not running an agent"),
            )
        };
        let asked = self.ask(id, make);
        reply_later(reply, asked, move |answered| {
            answered.ok_or_else(not_running)?.map_err(|err| match err {
                AnswerError::NoSuchPrompt(ref request_id) => {
                    refused(RefusalCode::NoPendingPrompt, &[request_id], err.to_string())
                }
                AnswerError::WrongKind {
                    ref request_id,
                    expected,
                    ..
                } => refused(
                    RefusalCode::WrongPromptKind,
                    &[request_id, expected],
                    err.to_string(),
                ),
                AnswerError::Invalid(invalid) => ManagerError::Invalid(invalid),
            })
        });
    }

    /// `true` when the session's task runs or needs none. Otherwise (a restored, discarded or
    /// merged session) a job rebuilds its log, from the agent's transcript or, where that holds
    /// less, codiva's own history (`histories::restored_log`), and starts the task (the agent
    /// process itself starts on the next message); the caller waits in the session's lane.
    pub(super) fn ensure_task(&mut self, id: &str) -> Result<bool, ManagerError> {
        let agent = self.record(id)?.agent.clone();
        let record = self.record(id)?;
        if record.commands.is_some() || matches!(record.phase, SessionPhase::Preparing) {
            return Ok(true);
        }
        let provider = self.provider_for(&agent)?;
        let record = self.record(id)?;
        let restored = RestoredSession {
            outcome: record.restored_outcome.take(),
            detail: record.detail.clone(),
            agent_session_id: record.agent_session_id.clone(),
            model: record.model.clone(),
            permission_mode: record.permission_mode,
            cost_usd: record.cost_usd,
            ..RestoredSession::default()
        };
        let session_id = record.agent_session_id.clone();
        let cwd = record.worktree.clone();
        // The history is the actor's (read from its file the first time it is needed).
        let (history, warning) = self.histories.get(id, unix_ms());
        let summary = history
            .filter(|history| !history.is_empty())
            .map(|history| (history.user_messages(), history.log_entries()));
        if let Some(message) = warning {
            self.emit(ManagerEvent::Warning { message });
        }
        let owned_id = id.to_owned();
        // A conversation adopted from outside codiva has no history of codiva's: an agent that
        // rebuilds no log of its own gives its outside reading (`manager/actor/outside.rs`).
        let outside_env = summary.is_none().then(|| self.options.env.clone());
        self.job(
            Some(id),
            async move {
                let session_id = session_id?;
                let read = tokio::task::spawn_blocking(move || {
                    provider.conversation(&cwd, &session_id).or_else(|| {
                        super::outside::outside_log(
                            provider.as_ref(),
                            &cwd,
                            &session_id,
                            outside_env?,
                        )
                    })
                })
                .await;
                read.unwrap_or_else(|err| Some(Err(RecordsError::new(err))))
            },
            move |actor, transcript| {
                let mut restored = restored;
                if let Some(Ok(log)) = &transcript {
                    restored.todos = log.todos.clone().unwrap_or_default();
                }
                restored.main =
                    histories::restored_log(transcript, summary, &mut restored.subagents);
                if actor
                    .records
                    .get(&owned_id)
                    .is_some_and(|record| record.commands.is_none())
                {
                    let state = SessionState::restored(restored);
                    actor.start_task(&owned_id, None, state);
                }
            },
        );
        Ok(false)
    }

    pub(super) fn worktree_options(&self) -> WorktreeOptions {
        WorktreeOptions {
            fetch: self.options.fetch_base,
            ignored: self.options.ignored_files,
            exclude: self.options.ignored_files_exclude.clone(),
        }
    }

    fn session_config(&self, provider: Arc<dyn Provider>, record: &Record) -> SessionConfig {
        let mut config = SessionConfig::new(provider, record.worktree.clone());
        config.env = self.options.env.clone();
        config.model = record.model.clone();
        config.permission_mode = record.permission_mode;
        config.approval = record.approval.clone();
        config.resume = record.agent_session_id.clone();
        config.append_system_prompt = record
            .extras
            .system_prompt(self.system_prompt(record.in_place));
        config.extras = record.extras.agent_extras();
        config.registry = self.options.registry.clone().map(std::sync::Arc::new);
        config.max_restarts = self.options.max_restarts;
        config.wire_log_cap = self.options.wire_log_cap;
        config.idle_stop = self.options.budget.idle_stop;
        config.agent_pid = Some(record.agent_pid.clone());
        // A cap of 0 is no wire log (config `wire_log_max_mb`).
        config.wire_log = (self.options.wire_log_cap > 0).then(|| {
            self.options.state_dir.join("wire").join(format!(
                "{}-{}.log",
                repo_key(self.repo.root()),
                record.id
            ))
        });
        config
    }

    /// The symlink notice (when ignored files are shared with a worktree: not for a session in
    /// place) and `.codiva/prompt.md` (the repository's: not an ephemeral manager's, whose
    /// directory is no repository of codiva's).
    fn system_prompt(&self, in_place: bool) -> Option<String> {
        let mut parts = Vec::new();
        if self.options.ignored_files == git::IgnoredMode::Symlink && !in_place {
            parts.push(git::SHARED_SYMLINK_NOTICE.to_owned());
        }
        if self.ephemeral.is_none()
            && let Ok(text) = std::fs::read_to_string(self.repo.root().join(".codiva/prompt.md"))
        {
            let text = text.trim_start_matches('\u{feff}').trim();
            if !text.is_empty() {
                parts.push(text.to_owned());
            }
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    pub(super) fn start_task(&mut self, id: &str, first: Option<UserInput>, state: SessionState) {
        if self.stopping {
            return;
        }
        let Some(record) = self.records.get(id) else {
            return;
        };
        let provider = match self.provider_for(&record.agent) {
            Ok(provider) => provider,
            Err(err) => {
                // `create` and `ensure_task` checked it: the agent went missing since.
                self.emit(ManagerEvent::Warning {
                    message: format!("session {id}: {err}"),
                });
                return;
            }
        };
        let config = self.session_config(provider, record);
        let epoch = record.task_epoch + 1;
        let handle = session_task::start_with_state(config, first, state);
        let commands = handle.commands();
        let (snapshots, asked) = tokio::sync::mpsc::unbounded_channel();
        let forwarder = tokio::spawn(super::forward::forward(
            handle,
            id.to_owned(),
            epoch,
            self.internal_tx.clone(),
            asked,
        ));
        if let Some(record) = self.records.get_mut(id) {
            record.commands = Some(commands);
            record.forwarder = Some(forwarder);
            record.snapshots = Some(snapshots);
            record.task_epoch = epoch;
        }
    }

    /// Session `id` goes on with agent `agent` (see `Manager::set_agent`); its task runs
    /// (`Call::needs_task`).
    pub(super) fn switch_agent(&mut self, id: &str, agent: &str) -> Result<(), ManagerError> {
        let provider = self.provider_for(agent)?;
        let record = self.record(id)?;
        if record.agent == agent {
            return Ok(());
        }
        match record.phase {
            SessionPhase::Active | SessionPhase::Conflict { .. } => {}
            SessionPhase::Preparing => {
                return Err(refused(
                    RefusalCode::StillPreparing,
                    &[id],
                    format!("session {id} is still being prepared"),
                ));
            }
            SessionPhase::Merged { .. } | SessionPhase::Discarded => {
                return Err(ended(id, &record.phase));
            }
        }
        if !record.status.is_settled() {
            return Err(still_working(id));
        }
        let from = std::mem::replace(&mut record.agent, agent.to_owned());
        if let Some(conversation) = record.agent_session_id.take() {
            record.agent_sessions.insert(from, conversation);
        }
        let resume = record.agent_sessions.get(agent).cloned();
        record.agent_session_id = resume.clone();
        record.model = None;
        let branch = record.branch.clone();
        let commands = record.commands.clone();
        let now = unix_ms();
        let (history, _) = self.histories.get(id, now);
        let handover = history.map(|history| history.handover(&branch, HANDOVER_BUDGET));
        self.histories
            .switch_agent(id, now, crate::history::AgentRef::new(agent));
        if let Some(commands) = commands {
            let _ = commands.send(SessionCommand::SwitchAgent {
                provider,
                resume,
                handover,
            });
        }
        self.emit_info(id);
        self.mark_dirty();
        Ok(())
    }

    /// Asks the session's task to stop and hands back what to wait for
    /// ([`wait_stopped`], in a job: an agent slow to stop delays nobody else).
    pub(super) fn take_task(&mut self, id: &str) -> Option<JoinHandle<()>> {
        // A check stops with its session's agent (discard, merge, shutdown).
        self.stop_check(id);
        self.leave_queue(id);
        let record = self.records.get_mut(id)?;
        record.in_turn = false;
        if let Some(commands) = record.commands.take() {
            let _ = commands.send(SessionCommand::Shutdown);
        }
        record.snapshots = None;
        record.forwarder.take()
    }

    /// A session's policy (its task takes it now), or the default for new sessions.
    pub(super) fn set_approval_policy(
        &mut self,
        id: Option<&str>,
        policy: ApprovalPolicy,
    ) -> Result<(), ManagerError> {
        let Some(id) = id else {
            self.default_approval = policy;
            return Ok(());
        };
        let record = self.record(id)?;
        record.approval = policy.clone();
        if let Some(commands) = &record.commands {
            let _ = commands.send(SessionCommand::SetApprovalPolicy(policy));
        }
        self.mark_dirty();
        Ok(())
    }

    pub(super) fn session_event(&mut self, id: &str, event: SessionEvent) {
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
        let mut completed = false;
        let mut tool_result = None;
        let is_status = matches!(event, SessionEvent::Status { .. });
        // The agent's process ended: its last sample no longer stands (`budget.rs`).
        let mut gone = false;
        match &event {
            SessionEvent::Status {
                status,
                detail,
                detail_code,
            } => {
                // Under a queue, or a turn begins or ends: `budget.rs`.
                let queued = (record.queued_over.is_some()
                    || record.in_turn == status.is_settled())
                    && self.status_under_queue(id, *status, detail, detail_code);
                let Some(record) = self.records.get_mut(id) else {
                    return;
                };
                if !queued {
                    completed = *status == Status::Completed && record.status != Status::Completed;
                    record.status = *status;
                    record.detail = detail.clone();
                    record.detail_code = detail_code.clone();
                    record.track_activity();
                }
                changed = true;
            }
            SessionEvent::AgentSession { id: session_id } => {
                record.agent_session_id = session_id.clone();
                changed = true;
            }
            SessionEvent::Model { model } => {
                record.model = model.clone();
                changed = true;
            }
            SessionEvent::Usage { usage } if usage.cost_usd == record.cost_usd => {
                // Tokens alone are not shown in the row: kept for `group/compare` (none
                // reported reads as none, not as zero).
                record.tokens = reported_tokens(usage).or(record.tokens);
            }
            SessionEvent::Usage { usage } => {
                record.tokens = reported_tokens(usage).or(record.tokens);
                record.cost_usd = usage.cost_usd;
                changed = true;
            }
            SessionEvent::Todos { progress, .. } => {
                record.todos = *progress;
                changed = true;
            }
            SessionEvent::McpServers { servers } if *servers != record.mcp_servers => {
                record.mcp_servers = servers.clone();
                changed = true;
            }
            SessionEvent::AgentExited { .. } => gone = record.resources.take().is_some(),
            SessionEvent::PromptOpened { .. } => {
                record.pending_prompts += 1;
                changed = true;
            }
            SessionEvent::PromptClosed { .. } => {
                record.pending_prompts = record.pending_prompts.saturating_sub(1);
                changed = true;
            }
            SessionEvent::Log { entry, .. } => {
                if let codiva_protocol::log::EntryKind::Tool(tool) = &entry.kind
                    && let Some(result) = &tool.result
                    && result.contains("/pull/")
                    && super::pulls::creates_pr(tool)
                {
                    tool_result = Some(result.clone());
                }
            }
            _ => {}
        }
        self.emit(ManagerEvent::Event {
            id: id.to_owned(),
            event,
        });
        if completed {
            // Before the row goes out: the row that says the turn completed says its check
            // runs (a client waiting for both never sees the one without the other).
            self.run_check(id, codiva_protocol::group::CheckTrigger::TurnCompleted);
        }
        if changed {
            self.emit_info(id);
        }
        if is_status {
            // A turn may have ended: a queued session may start.
            self.start_queued();
        }
        if gone {
            self.emit(ManagerEvent::Resources {
                sessions: vec![codiva_protocol::manager::SessionResources {
                    id: id.to_owned(),
                    resources: None,
                }],
            });
        }
        if let Some(text) = tool_result {
            self.detect_prs(id, &text);
        }
        if completed {
            self.maybe_auto_pr(id);
        }
        if is_status {
            self.repair_turn_settled(id, completed);
        }
    }
}

/// The tokens a usage report holds, `None` when the agent reported none (all zero).
fn reported_tokens(
    usage: &codiva_protocol::session::UsageView,
) -> Option<codiva_protocol::agent::TokenUsage> {
    (usage.tokens != codiva_protocol::agent::TokenUsage::default()).then_some(usage.tokens)
}

/// Why a merged or discarded session takes no message and no other agent (its phase is
/// one of those two).
fn ended(id: &str, phase: &SessionPhase) -> ManagerError {
    if matches!(phase, SessionPhase::Discarded) {
        refused(
            RefusalCode::DiscardedRestoreFirst,
            &[id],
            format!("session {id} was discarded; restore it first"),
        )
    } else {
        refused(
            RefusalCode::MergedStartNew,
            &[id],
            format!("session {id} was merged; start a new session"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merged_or_discarded_session_says_what_to_do_instead() {
        let said = |phase| match ended("s1", &phase) {
            ManagerError::Refused(refusal) => (refusal.code, refusal.args, refusal.message),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            said(SessionPhase::Discarded),
            (
                RefusalCode::DiscardedRestoreFirst,
                vec!["s1".to_owned()],
                "session s1 was discarded; restore it first".to_owned()
            )
        );
        assert_eq!(
            said(SessionPhase::Merged {
                commit: "abc".into()
            }),
            (
                RefusalCode::MergedStartNew,
                vec!["s1".to_owned()],
                "session s1 was merged; start a new session".to_owned()
            )
        );
    }
}
