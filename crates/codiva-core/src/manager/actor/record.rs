//! A session's record in the manager: what it is (ids, worktree, branch, phase), what it
//! shows front ends ([`SessionInfo`]) and what is saved of it ([`PersistedSession`]).

use std::path::PathBuf;

use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::session::{Status, TodoProgress};
use codiva_protocol::tool::PermissionMode;
use codiva_protocol::{ImageInput, UserInput};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{Actor, title_of, unix_ms};
use crate::agent_event::TurnOutcome;
use crate::manager::CreateOptions;
use crate::persist::{PersistedSession, SavedStatus};
use crate::session::SessionCommand;

pub(super) struct Record {
    pub(super) id: String,
    pub(super) title: String,
    /// Where `title` came from: an agent's title replaces only the prompt's.
    pub(super) title_origin: crate::title::TitleOrigin,
    pub(super) prompt: String,
    pub(super) slug: String,
    pub(super) branch: String,
    pub(super) worktree: PathBuf,
    pub(super) base: String,
    pub(super) created_at: u64,
    pub(super) phase: SessionPhase,
    pub(super) status: Status,
    pub(super) detail: Option<String>,
    /// What `detail` says, by name and values (a running session's details only).
    pub(super) detail_code: Option<codiva_protocol::log::NoteCode>,
    /// The provider that runs the session (its stable id: `claude`).
    pub(super) agent: String,
    /// The conversation each agent the session ran before had (resumed when it comes back).
    pub(super) agent_sessions: std::collections::BTreeMap<String, String>,
    pub(super) agent_session_id: Option<String>,
    pub(super) model: Option<String>,
    pub(super) permission_mode: Option<PermissionMode>,
    pub(super) approval: ApprovalPolicy,
    pub(super) cost_usd: Option<f64>,
    pub(super) active_ms: u64,
    pub(super) active_since: Option<Instant>,
    pub(super) pending_prompts: usize,
    pub(super) todos: TodoProgress,
    /// The session task's commands (`None`: no task, e.g. restored and not opened yet).
    pub(super) commands: Option<mpsc::UnboundedSender<SessionCommand>>,
    pub(super) forwarder: Option<JoinHandle<()>>,
    /// Asks the forwarder for a snapshot placed in the event stream (`forward.rs`).
    pub(super) snapshots: Option<
        mpsc::UnboundedSender<crate::manager::Reply<codiva_protocol::session::SessionSnapshot>>,
    >,
    /// Counts the session tasks started: the end of an older one is told apart.
    pub(super) task_epoch: u64,
    /// Messages sent while the worktree was being made.
    pub(super) queued: Vec<UserInput>,
    /// Restored from disk: its task starts (log from the transcript) when first needed.
    pub(super) restored_outcome: Option<TurnOutcome>,
    /// The tokens of this session's latest discard previews (newest last, a few kept): a
    /// stale one is told apart from a token that was never given.
    pub(super) issued_tokens: Vec<String>,
    /// Pull requests, the branch's own first, with what was last found about each.
    pub(super) prs: Vec<codiva_protocol::github::SessionPr>,
    /// The branch was pushed: its pull request is looked for even before one is known.
    pub(super) pushed: bool,
    /// What the branch's pull request lookups found, and when (`github::poll`).
    pub(super) watch: crate::github::poll::PrWatch,
    /// `auto_pr` was tried for this session (once per session).
    pub(super) auto_pr_tried: bool,
    /// A repair turn is on (fix-ci, or a sync that needs the agent): when it completes with
    /// new commits the branch is pushed (`repair.rs`). Holds the head it started from.
    pub(super) push_after_turn: Option<super::repair::RepairTurn>,
    /// Automatic repairs made, by kind (`auto_recover`; saved).
    pub(super) recover_attempts: std::collections::BTreeMap<String, u32>,
    /// Review threads sent to the agent (`address_review.rs`: each once; saved).
    pub(super) reviews_sent: Vec<String>,
    /// Pull requests `auto_ready` asked to mark ready (once each).
    pub(super) ready_asked: Vec<u64>,
    /// Lookups pause until then (Unix ms), as of the last lookup of this session.
    pub(super) paused_until_ms: Option<u64>,
    /// Runs in `worktree` itself: no worktree or branch of its own (`in_place.rs`).
    pub(super) in_place: bool,
    /// What the session adds to its agent (MCP config file, tool rules, prompt).
    pub(super) extras: super::in_place::SessionExtras,
    /// Its MCP servers' statuses as the agent last reported them.
    pub(super) mcp_servers: Vec<codiva_protocol::mcp::McpServerState>,
    /// Messages waiting for an agent slot (`max_running_agents`, `budget.rs`), in order.
    pub(super) held: Vec<UserInput>,
    /// While queued: the session's own status, detail and code, which `Queued` covers.
    pub(super) queued_over: Option<(
        Status,
        Option<String>,
        Option<codiva_protocol::log::NoteCode>,
    )>,
    /// Its agent has a turn in progress, as the manager last learned it: set when it passes
    /// the task a message, then from each status the task reports (`budget.rs`).
    pub(super) in_turn: bool,
    /// The pid (= process group) of the session's live agent process, 0 when none runs;
    /// written by the session task, read by the resource sampling.
    pub(super) agent_pid: std::sync::Arc<std::sync::atomic::AtomicU32>,
    /// The last resource sample of the agent's process group.
    pub(super) resources: Option<codiva_protocol::manager::ResourceUsage>,
    /// Comments on its diff not yet sent (`review.rs`; saved).
    pub(super) review: Vec<codiva_protocol::review::ReviewComment>,
    /// The number of the next comment's id (ids are never reused; saved).
    pub(super) review_next: u64,
    /// The group of attempts it is one of (`groups.rs`; saved).
    pub(super) group: Option<String>,
    /// Its latest check (`checks.rs`; saved).
    pub(super) check: Option<codiva_protocol::group::CheckRun>,
    /// The tokens its agent last reported (summed over its messages; saved).
    pub(super) tokens: Option<codiva_protocol::agent::TokenUsage>,
}

impl Record {
    /// It has its worktree: active, or stopped by a merge's conflict (not preparing, merged
    /// or discarded).
    pub(super) fn has_worktree(&self) -> bool {
        matches!(
            self.phase,
            SessionPhase::Active | SessionPhase::Conflict { .. }
        )
    }

    pub(super) fn restored(saved: PersistedSession) -> Record {
        let (phase, status, outcome) = match saved.status {
            SavedStatus::Discarded => (SessionPhase::Discarded, Status::Interrupted, None),
            SavedStatus::Completed => (
                SessionPhase::Active,
                Status::Completed,
                Some(TurnOutcome::Completed),
            ),
            SavedStatus::Failed => (
                SessionPhase::Active,
                Status::Failed,
                Some(TurnOutcome::Failed {
                    message: saved.detail.clone().unwrap_or_default(),
                }),
            ),
            // Still true after a restart, and the detail says what to do about it.
            SavedStatus::NeedsLogin => (
                SessionPhase::Active,
                Status::NeedsLogin,
                Some(TurnOutcome::NeedsLogin {
                    message: saved.detail.clone().unwrap_or_default(),
                }),
            ),
            SavedStatus::RateLimited => (
                SessionPhase::Active,
                Status::RateLimited,
                Some(TurnOutcome::RateLimited {
                    message: saved.detail.clone().unwrap_or_default(),
                }),
            ),
            // Running or awaiting: the process is gone; resumable.
            SavedStatus::Starting
            | SavedStatus::Running
            | SavedStatus::AwaitingPermission
            | SavedStatus::AwaitingAnswer
            | SavedStatus::Interrupted
            | SavedStatus::Queued
            | SavedStatus::Unknown => (
                SessionPhase::Active,
                Status::Interrupted,
                Some(TurnOutcome::Interrupted),
            ),
        };
        Record::of_saved(saved, phase, status, outcome)
    }

    /// The record of what `saved` holds, in `phase` with `status` (`outcome`: as restored
    /// from disk); what only runs (its task, its turn, lookups) starts empty.
    fn of_saved(
        saved: PersistedSession,
        phase: SessionPhase,
        status: Status,
        outcome: Option<TurnOutcome>,
    ) -> Record {
        Record {
            id: saved.id,
            title: saved.title,
            title_origin: saved.title_origin,
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
            agent: saved.agent,
            agent_sessions: saved.agent_sessions,
            agent_session_id: saved.agent_session_id,
            model: saved.model,
            permission_mode: saved.permission_mode,
            approval: saved.approval,
            cost_usd: saved.cost_usd,
            active_ms: saved.active_ms,
            active_since: None,
            pending_prompts: 0,
            todos: TodoProgress::default(),
            commands: None,
            forwarder: None,
            snapshots: None,
            task_epoch: 0,
            queued: Vec::new(),
            restored_outcome: outcome,
            issued_tokens: Vec::new(),
            prs: saved
                .prs
                .into_iter()
                .map(|pr| codiva_protocol::github::SessionPr {
                    number: pr.number,
                    url: pr.url,
                    own: pr.own,
                    view: None,
                })
                .collect(),
            pushed: saved.pushed,
            watch: Default::default(),
            auto_pr_tried: saved.auto_pr_tried,
            push_after_turn: None,
            recover_attempts: saved.recover_attempts,
            reviews_sent: saved.reviews_sent,
            ready_asked: Vec::new(),
            paused_until_ms: None,
            in_place: saved.in_place,
            extras: super::in_place::SessionExtras {
                mcp_config: saved.mcp_config,
                callers_mcp_config: false,
                append_system_prompt: saved.append_system_prompt,
                allowed_tools: saved.allowed_tools,
                disallowed_tools: saved.disallowed_tools,
            },
            mcp_servers: Vec::new(),
            held: Vec::new(),
            queued_over: None,
            in_turn: false,
            agent_pid: Default::default(),
            resources: None,
            review: saved.review,
            review_next: saved.review_next.max(1),
            group: saved.group,
            check: saved.check.map(super::checks::restored_check),
            tokens: saved.tokens,
        }
    }

    pub(super) fn info(&self) -> SessionInfo {
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
            agent: self.agent.clone(),
            agent_session_id: self.agent_session_id.clone(),
            model: self.model.clone(),
            cost_usd: self.cost_usd,
            active_ms: self.active_ms + running,
            created_at: self.created_at,
            pending_prompts: self.pending_prompts,
            todos: self.todos,
            prs: self.pr_summary(),
            in_place: self.in_place,
            mcp_servers: self.mcp_servers.clone(),
            resources: self.resources,
            review: self.review.clone(),
            group: self.group.clone(),
            check: self.check.clone().map(Box::new),
        }
    }

    pub(super) fn persisted(&self) -> Option<PersistedSession> {
        // A queued message is not kept: the session comes back as it was before it.
        let own = self.queued_over.as_ref().map_or(self.status, |over| over.0);
        let status = match (&self.phase, own) {
            (SessionPhase::Preparing | SessionPhase::Merged { .. }, _) => return None,
            (SessionPhase::Discarded, _) => SavedStatus::Discarded,
            (_, status) => SavedStatus::from(status),
        };
        Some(PersistedSession {
            id: self.id.clone(),
            title: self.title.clone(),
            prompt: self.prompt.clone(),
            slug: self.slug.clone(),
            branch: self.branch.clone(),
            worktree: self.worktree.clone(),
            base: self.base.clone(),
            agent: self.agent.clone(),
            agent_session_id: self.agent_session_id.clone(),
            agent_sessions: self.agent_sessions.clone(),
            status,
            detail: self.detail.clone(),
            created_at: self.created_at,
            active_ms: self.info().active_ms,
            cost_usd: self.cost_usd,
            model: self.model.clone(),
            permission_mode: self.permission_mode,
            approval: self.approval.clone(),
            prs: self
                .prs
                .iter()
                .map(|pr| crate::persist::PersistedPr {
                    number: pr.number,
                    url: pr.url.clone(),
                    own: pr.own,
                })
                .collect(),
            pushed: self.pushed,
            auto_pr_tried: self.auto_pr_tried,
            title_origin: self.title_origin,
            in_place: self.in_place,
            mcp_config: self.extras.mcp_config.clone(),
            append_system_prompt: self.extras.append_system_prompt.clone(),
            allowed_tools: self.extras.allowed_tools.clone(),
            disallowed_tools: self.extras.disallowed_tools.clone(),
            recover_attempts: self.recover_attempts.clone(),
            reviews_sent: self.reviews_sent.clone(),
            review: self.review.clone(),
            review_next: self.review_next,
            group: self.group.clone(),
            check: self.check.clone(),
            tokens: self.tokens,
        })
    }

    /// Time counts while preparing or running (not while waiting for the user or idle).
    pub(super) fn track_activity(&mut self) {
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

/// The first message of a new session: its prompt and its images (taken from `options`).
pub(super) fn take_input(options: &mut CreateOptions, prompt: &str) -> UserInput {
    let images = std::mem::take(&mut options.images)
        .into_iter()
        .map(|(media_type, data)| ImageInput { media_type, data })
        .collect();
    UserInput::with_images(prompt.to_owned(), images)
}

impl Actor {
    /// The record of a session created now: `slug` is its id, `(branch, worktree, phase)`
    /// where and how it starts; the rest from `options` and the manager's defaults.
    pub(super) fn new_record(
        &self,
        slug: String,
        prompt: String,
        (branch, worktree, phase): (String, std::path::PathBuf, SessionPhase),
        options: &CreateOptions,
        extras: super::in_place::SessionExtras,
    ) -> Record {
        let saved = PersistedSession {
            id: slug.clone(),
            title: title_of(&prompt),
            title_origin: crate::title::TitleOrigin::Prompt,
            prompt,
            slug,
            branch,
            worktree,
            base: self.base.clone(),
            created_at: unix_ms(),
            agent: options.agent.clone().unwrap_or_default(),
            model: options
                .model
                .clone()
                .or_else(|| self.configured_model(options.agent.as_deref())),
            permission_mode: options.permission_mode.or(self.options.permission_mode),
            approval: options
                .approval
                .clone()
                .unwrap_or_else(|| self.default_approval.clone()),
            review_next: 1,
            ..PersistedSession::default()
        };
        let mut record = Record::of_saved(saved, phase, Status::Starting, None);
        record.extras = extras;
        record
    }

    /// The manager's model (the config's `model`) for a new session of `agent`: it was chosen
    /// for the default agent, so a session of another agent starts on that agent's own default
    /// (a Claude model name means nothing to Codex or an ACP agent).
    fn configured_model(&self, agent: Option<&str>) -> Option<String> {
        let default = self.options.providers.default_provider()?;
        (agent.is_none_or(|agent| agent == default.id()))
            .then(|| self.options.model.clone())
            .flatten()
    }
}
