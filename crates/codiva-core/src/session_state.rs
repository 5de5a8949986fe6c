//! The session state machine: a pure reducer from provider-neutral inputs to state and
//! front-end events. No IO, no clock: time comes in with every input.
//!
//! Status is never stored as a free-standing field that events poke at. It is *derived* from
//! the parts that hold the truth (open turns, the prompt queue, the background-task set, the
//! last outcome, the process phase) after each batch of inputs, and a [`SessionEvent::Status`]
//! is emitted only when the derived value changes. That is what keeps "Running forever" and
//! "Completed while a subagent works" out by construction.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use crate::agent_event::{
    AgentBlock, AgentEvent, AgentInfo, NoteLevel, RetryInfo, TodoChange, TokenUsage, TurnEnd,
    TurnOutcome,
};
use crate::session_log::{EntryKind, Log, LogEntry, NoteCode, ToolEntry, ToolStatus, one_line};

/// No output for this long while a turn runs (and nobody is asked anything) flags a stall.
pub const STALL_AFTER_MS: u64 = 10 * 60 * 1000;

/// Once the background agents a finished turn waited for are done, Claude Code starts a turn
/// by itself to hand their results to the parent. The session stays Running until that turn
/// ends, or for at most this long if it never comes.
pub const FOLLOW_UP_GRACE_MS: u64 = 60 * 1000;

/// The TODO list keeps at most this many items, each at most [`MAX_TODO_CHARS`] long.
const MAX_TODOS: usize = 1000;
const MAX_TODO_CHARS: usize = 500;

pub use codiva_protocol::session::{
    Prompt, PromptResolution, Scope, SessionEvent, SessionSnapshot, Status, SubagentView, TodoItem,
    TodoProgress, TodoStatus, UsageView,
};

/// Everything the reducer consumes: what the agent said and what the host did.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // applied one at a time, never stored in bulk
pub enum Input {
    Agent(AgentEvent),
    /// A new agent process was started (first start, restart or resume).
    ProcessStarted,
    /// Starting the agent failed (binary missing, bad cwd, …).
    SpawnFailed {
        message: String,
    },
    /// The agent process ended. `requested` when codiva asked it to stop.
    ProcessExited {
        code: Option<i32>,
        signal: Option<i32>,
        stderr_tail: String,
        requested: bool,
    },
    /// The user sent a message: `text` is what the log shows, `echo` the text the agent's
    /// echo of it will carry (its text parts, joined by newlines).
    UserSent {
        text: String,
        echo: String,
    },
    /// A message the user sent earlier was sent again to a new agent process (the old one
    /// never read it): it is awaited again, nothing new is logged.
    UserResent {
        echo: String,
    },
    /// The agent's conversation is gone (resume failed); the next process starts a new one.
    ForgetAgentSession,
    /// The user asked to stop the running turn.
    InterruptRequested,
    /// The user (or a front end's policy) answered a prompt.
    PromptAnswered {
        request_id: String,
        resolution: PromptResolution,
    },
    /// Time passes (drives the stall flag).
    Tick,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProcessPhase {
    NotStarted,
    Alive,
    Exited,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpenTurn {
    cancelled: bool,
}

/// A message written to the agent that it has not taken up yet: no echo of it and no turn
/// that it started has been seen. The agent decides what becomes of it — folded into the
/// running turn (its echo arrives mid-turn) or queued for a turn of its own (a `system/init`,
/// then the echo) — so the session keeps running until one of those ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unacked {
    echo: String,
    /// The agent started a turn while this message was the oldest one waiting: the message
    /// is that turn's (slash commands such as `/cost` are never echoed), and the turn's end
    /// settles it.
    started_turn: bool,
}

#[derive(Debug, Clone, Default)]
struct Subagent {
    view: Option<SubagentView>,
    log: Option<Log>,
}

#[derive(Debug, Clone)]
struct ToolRef {
    scope: Scope,
    entry_id: u64,
    started_ms: u64,
}

/// One session's state.
#[derive(Debug)]
pub struct SessionState {
    now_ms: u64,
    process: ProcessPhase,
    connected: bool,
    agent: Option<AgentInfo>,
    agent_session_id: Option<String>,
    model: Option<String>,
    permission_mode: Option<String>,
    /// The turn the agent is running (from its `system/init`, or the echo of a message when
    /// none runs, until its `result`).
    turn: Option<OpenTurn>,
    /// Messages the agent has not taken up yet, oldest first.
    unacked: VecDeque<Unacked>,
    last_outcome: Option<TurnOutcome>,
    exit_note: Option<String>,
    prompts: VecDeque<Prompt>,
    retry: Option<RetryInfo>,
    stream_text: String,
    thinking_text: String,
    log: Log,
    subagents: HashMap<String, Subagent>,
    task_to_tool: HashMap<String, String>,
    running_tasks: BTreeSet<String>,
    background_tasks: BTreeSet<String>,
    gate_pending: bool,
    /// Since when the turn the agent starts by itself after its background agents finished
    /// is awaited (the second half of the completion gate).
    follow_up_since: Option<u64>,
    tools: HashMap<String, ToolRef>,
    denied_tools: HashSet<String>,
    todos: Vec<TodoItem>,
    usage: UsageView,
    seen_messages: RecentIds,
    cost_base: f64,
    last_activity_ms: u64,
    stalled: bool,
    status: Status,
    detail: Option<String>,
    outbox: Vec<SessionEvent>,
}

impl Default for SessionState {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionState {
    pub fn new() -> Self {
        SessionState {
            now_ms: 0,
            process: ProcessPhase::NotStarted,
            connected: false,
            agent: None,
            agent_session_id: None,
            model: None,
            permission_mode: None,
            turn: None,
            unacked: VecDeque::new(),
            last_outcome: None,
            exit_note: None,
            prompts: VecDeque::new(),
            retry: None,
            stream_text: String::new(),
            thinking_text: String::new(),
            log: Log::new(),
            subagents: HashMap::new(),
            task_to_tool: HashMap::new(),
            running_tasks: BTreeSet::new(),
            background_tasks: BTreeSet::new(),
            gate_pending: false,
            follow_up_since: None,
            tools: HashMap::new(),
            denied_tools: HashSet::new(),
            todos: Vec::new(),
            usage: UsageView::default(),
            seen_messages: RecentIds::default(),
            cost_base: 0.0,
            last_activity_ms: 0,
            stalled: false,
            status: Status::Starting,
            detail: None,
            outbox: Vec::new(),
        }
    }

    // -- queries ------------------------------------------------------------------------------

    pub fn status(&self) -> Status {
        self.status
    }

    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    pub fn is_connected(&self) -> bool {
        self.connected
    }

    pub fn agent(&self) -> Option<&AgentInfo> {
        self.agent.as_ref()
    }

    pub fn agent_session_id(&self) -> Option<&str> {
        self.agent_session_id.as_deref()
    }

    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    pub fn permission_mode(&self) -> Option<&str> {
        self.permission_mode.as_deref()
    }

    pub fn log(&self) -> &Log {
        &self.log
    }

    pub fn subagent_log(&self, tool_use_id: &str) -> Option<&Log> {
        self.subagents.get(tool_use_id)?.log.as_ref()
    }

    pub fn subagents(&self) -> impl Iterator<Item = &SubagentView> {
        self.subagents.values().filter_map(|s| s.view.as_ref())
    }

    /// The prompt shown to the user now (FIFO: the oldest first).
    pub fn current_prompt(&self) -> Option<&Prompt> {
        self.prompts.front()
    }

    pub fn prompt(&self, request_id: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|p| p.request_id() == request_id)
    }

    pub fn pending_prompts(&self) -> usize {
        self.prompts.len()
    }

    pub fn todo_progress(&self) -> TodoProgress {
        TodoProgress {
            done: self
                .todos
                .iter()
                .filter(|todo| todo.status == TodoStatus::Completed)
                .count(),
            total: self.todos.len(),
        }
    }

    pub fn usage(&self) -> &UsageView {
        &self.usage
    }

    pub fn streaming_text(&self) -> &str {
        &self.stream_text
    }

    pub fn last_outcome(&self) -> Option<&TurnOutcome> {
        self.last_outcome.as_ref()
    }

    /// A turn is open in the agent, or a message it has not taken up yet waits for one.
    pub fn turn_open(&self) -> bool {
        self.turn.is_some() || !self.unacked.is_empty()
    }

    /// The agent is running a turn (not only holding messages it has not taken up yet).
    pub fn turn_running(&self) -> bool {
        self.turn.is_some()
    }

    /// The running turn was asked to stop; events until its end are late events.
    pub fn current_turn_cancelled(&self) -> bool {
        self.turn.is_some_and(|turn| turn.cancelled)
    }

    pub fn is_stalled(&self) -> bool {
        self.stalled
    }

    pub fn running_subagents(&self) -> usize {
        self.running_tasks.len()
    }

    // -- the reducer --------------------------------------------------------------------------

    /// Applies one input at `now_ms` (milliseconds since the session was created). Events
    /// accumulate until [`SessionState::drain_events`].
    pub fn apply(&mut self, now_ms: u64, input: Input) {
        self.now_ms = self.now_ms.max(now_ms);
        match input {
            Input::Agent(event) => {
                self.last_activity_ms = self.now_ms;
                if self.stalled {
                    self.stalled = false;
                }
                self.agent_event(event);
            }
            Input::ProcessStarted => {
                self.process = ProcessPhase::Alive;
                self.connected = false;
                // `exit_note` stays: it explains the last outcome until the next turn ends
                // (an automatic restart must not erase why the turn was interrupted).
                // A new process knows nothing of the old one's tasks, turns or messages.
                self.turn = None;
                self.unacked.clear();
                self.running_tasks.clear();
                self.background_tasks.clear();
                self.gate_pending = false;
                self.follow_up_since = None;
                self.cost_base = self.usage.cost_usd.unwrap_or(0.0);
                self.last_activity_ms = self.now_ms;
            }
            Input::SpawnFailed { message } => {
                self.process = ProcessPhase::Exited;
                self.turn = None;
                self.unacked.clear();
                self.follow_up_since = None;
                self.note(Scope::Main, NoteLevel::Error, message.clone());
                self.last_outcome = Some(TurnOutcome::Failed { message });
            }
            Input::ProcessExited {
                code,
                signal,
                stderr_tail,
                requested,
            } => self.process_exited(code, signal, &stderr_tail, requested),
            Input::UserSent { text, echo } => {
                self.last_activity_ms = self.now_ms;
                self.follow_up_since = None;
                self.unacked.push_back(Unacked {
                    echo,
                    started_turn: false,
                });
                self.push_entry(Scope::Main, EntryKind::User { text });
            }
            Input::UserResent { echo } => {
                self.last_activity_ms = self.now_ms;
                self.unacked.push_back(Unacked {
                    echo,
                    started_turn: false,
                });
            }
            Input::ForgetAgentSession => {
                self.agent_session_id = None;
            }
            Input::InterruptRequested => {
                if let Some(turn) = self.turn.as_mut() {
                    turn.cancelled = true;
                }
            }
            Input::PromptAnswered {
                request_id,
                resolution,
            } => {
                // The agent resumes now: the stall clock restarts at the answer, not at its
                // last line before the prompt (which may be long ago).
                self.last_activity_ms = self.now_ms;
                self.close_prompt(&request_id, resolution);
            }
            Input::Tick => {
                if let Some(since) = self.follow_up_since
                    && self.now_ms.saturating_sub(since) >= FOLLOW_UP_GRACE_MS
                {
                    self.follow_up_since = None;
                }
                if self.turn_open()
                    && self.prompts.is_empty()
                    && !self.stalled
                    && self.now_ms.saturating_sub(self.last_activity_ms) >= STALL_AFTER_MS
                {
                    self.stalled = true;
                    let minutes = (STALL_AFTER_MS / 60_000).to_string();
                    self.coded_note(
                        Scope::Main,
                        NoteLevel::Warning,
                        NoteCode::new("stalled", &[&minutes]),
                        format!("no output from the agent for {minutes} minutes"),
                    );
                }
            }
        }
    }

    /// Returns the events produced since the last call, with a status event at the end if the
    /// derived status (or its detail) changed.
    pub fn drain_events(&mut self) -> Vec<SessionEvent> {
        let (status, detail) = self.derive_status();
        let detail_code = self.running_detail_code(status);
        if status != self.status || detail != self.detail {
            self.status = status;
            self.detail = detail.clone();
            self.outbox.push(SessionEvent::Status {
                status,
                detail,
                detail_code,
            });
        }
        std::mem::take(&mut self.outbox)
    }

    /// What the detail of a running session says, by name and values (see
    /// `SessionEvent::Status`); the same choice as [`Self::derive_status`] makes.
    fn running_detail_code(&self, status: Status) -> Option<NoteCode> {
        if status != Status::Running {
            return None;
        }
        let turn_open = self.turn_open();
        if let Some(retry) = &self.retry {
            let http = retry.status.map(|s| s.to_string()).unwrap_or_default();
            Some(NoteCode::new(
                "retrying",
                &[
                    &retry.attempt.to_string(),
                    &retry.max.to_string(),
                    &retry.delay_ms.to_string(),
                    &http,
                    retry.error.as_deref().unwrap_or_default(),
                ],
            ))
        } else if self.stalled {
            Some(NoteCode::new(
                "stalled",
                &[&(STALL_AFTER_MS / 60_000).to_string()],
            ))
        } else if self.gate_pending && !turn_open {
            Some(NoteCode::new(
                "waiting_for_agents",
                &[&self.running_tasks.len().to_string()],
            ))
        } else if self.follow_up_since.is_some() && !turn_open {
            Some(NoteCode::new("collecting_results", &[]))
        } else {
            let progress = self.todo_progress();
            (progress.total > 0).then(|| {
                NoteCode::new(
                    "step",
                    &[&progress.done.to_string(), &progress.total.to_string()],
                )
            })
        }
    }

    /// The detail's code as it stands (see [`Self::running_detail_code`]).
    pub fn detail_code(&self) -> Option<NoteCode> {
        self.running_detail_code(self.status)
    }

    fn derive_status(&self) -> (Status, Option<String>) {
        if let Some(prompt) = self.prompts.front() {
            let status = match prompt {
                Prompt::Permission(_) => Status::AwaitingPermission,
                Prompt::Question(_) => Status::AwaitingAnswer,
            };
            return (status, None);
        }
        if self.process == ProcessPhase::Alive && !self.connected && self.last_outcome.is_none() {
            return (Status::Starting, None);
        }
        let turn_open = self.turn_open();
        if turn_open || self.gate_pending || self.follow_up_since.is_some() {
            let detail = if let Some(retry) = &self.retry {
                Some(format!("retrying ({}/{})", retry.attempt, retry.max))
            } else if self.stalled {
                Some(format!(
                    "stalled: no output for {} minutes",
                    STALL_AFTER_MS / 60_000
                ))
            } else if self.gate_pending && !turn_open {
                Some(format!(
                    "waiting for {} background agent{}",
                    self.running_tasks.len(),
                    if self.running_tasks.len() == 1 {
                        ""
                    } else {
                        "s"
                    }
                ))
            } else if self.follow_up_since.is_some() && !turn_open {
                Some("collecting background results".to_owned())
            } else {
                let progress = self.todo_progress();
                (progress.total > 0).then(|| format!("step {}/{}", progress.done, progress.total))
            };
            return (Status::Running, detail);
        }
        match &self.last_outcome {
            None => (Status::Starting, None),
            Some(TurnOutcome::Completed) => (Status::Completed, None),
            Some(TurnOutcome::Interrupted) => (Status::Interrupted, self.exit_note.clone()),
            Some(TurnOutcome::RateLimited { message }) => {
                (Status::RateLimited, Some(message.clone()))
            }
            Some(TurnOutcome::NeedsLogin { message }) => {
                (Status::NeedsLogin, Some(message.clone()))
            }
            Some(TurnOutcome::Failed { message }) => (Status::Failed, Some(message.clone())),
        }
    }

    fn agent_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::Connected(info) => {
                self.connected = true;
                if self.permission_mode.is_none() {
                    self.permission_mode = info.permission_mode.clone();
                }
                self.outbox.push(SessionEvent::Connected {
                    agent: info.clone(),
                });
                self.agent = Some(info);
            }
            AgentEvent::TurnStarted {
                agent_session_id,
                model,
                permission_mode,
            } => {
                if self.turn.is_none() {
                    // A turn for the oldest message waiting, or one the agent started by
                    // itself (e.g. after a background agent).
                    self.turn = Some(OpenTurn { cancelled: false });
                    if let Some(message) = self.unacked.iter_mut().find(|m| !m.started_turn) {
                        message.started_turn = true;
                    }
                }
                self.follow_up_since = None;
                // A turn cannot begin before the handshake; some agents skip it.
                self.connected = true;
                if !agent_session_id.is_empty()
                    && self.agent_session_id.as_deref() != Some(&agent_session_id)
                {
                    self.agent_session_id = Some(agent_session_id.clone());
                    self.outbox.push(SessionEvent::AgentSession {
                        id: agent_session_id,
                    });
                }
                if model.is_some() && model != self.model {
                    self.model = model.clone();
                    self.outbox.push(SessionEvent::Model { model });
                }
                if let Some(mode) = permission_mode {
                    self.set_permission_mode(mode);
                }
            }
            AgentEvent::Requesting => {}
            AgentEvent::PermissionModeChanged(mode) => self.set_permission_mode(mode),
            AgentEvent::ModelChanged(model) => {
                if model != self.model {
                    self.model = model.clone();
                    self.outbox.push(SessionEvent::Model { model });
                }
            }
            AgentEvent::Retrying(retry) => {
                self.reset_stream();
                self.retry = Some(retry);
            }
            AgentEvent::MessageStarted { .. } => {
                self.retry = None;
                self.reset_stream();
            }
            AgentEvent::TextDelta { text } => {
                // The snapshot's copy is capped; the deltas always go out, so a front end
                // keeps following a reply longer than the cap (it caps its own copy).
                if self.stream_text.len() < crate::session_log::MAX_MESSAGE_TEXT {
                    self.stream_text.push_str(&text);
                }
                self.outbox
                    .push(SessionEvent::Stream { text, reset: false });
            }
            AgentEvent::ThinkingDelta { text } => {
                if self.thinking_text.len() < crate::session_log::MAX_MESSAGE_TEXT {
                    self.thinking_text.push_str(&text);
                }
            }
            AgentEvent::Block {
                message_id,
                parent,
                block,
                usage,
                model: _,
            } => self.block(message_id, parent, block, usage),
            AgentEvent::ApiError {
                parent, message, ..
            } => {
                self.reset_stream();
                let scope = scope_of(parent);
                self.note(scope, NoteLevel::Error, message);
            }
            AgentEvent::ToolResult {
                parent: _,
                tool_use_id,
                text,
                is_error,
                todo,
            } => self.tool_result(&tool_use_id, text, is_error, todo),
            AgentEvent::SubagentPrompt { parent, text } => {
                self.push_entry(Scope::Subagent(parent), EntryKind::SubagentPrompt { text });
            }
            AgentEvent::UserEcho { text } => self.user_echo(&text),
            AgentEvent::InterruptMarker => {
                self.reset_stream();
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Info,
                    NoteCode::new("interrupted", &[]),
                    "interrupted".to_owned(),
                );
            }
            AgentEvent::SyntheticContinuation => {
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Info,
                    NoteCode::new("continued_after_cut", &[]),
                    "the answer was cut off; the agent continues".to_owned(),
                );
            }
            AgentEvent::PermissionRequest(request) => {
                self.open_prompt(Prompt::Permission(request));
            }
            AgentEvent::QuestionRequest(request) => {
                self.open_prompt(Prompt::Question(request));
            }
            AgentEvent::RequestWithdrawn { request_id } => {
                self.close_prompt(&request_id, PromptResolution::Withdrawn);
            }
            AgentEvent::SubagentStarted(start) => {
                self.running_tasks.insert(start.task_id.clone());
                if start.background {
                    self.background_tasks.insert(start.task_id.clone());
                }
                let tool_use_id = start
                    .tool_use_id
                    .clone()
                    .unwrap_or_else(|| start.task_id.clone());
                self.task_to_tool
                    .insert(start.task_id.clone(), tool_use_id.clone());
                self.update_subagent(&tool_use_id, |view| {
                    view.task_id = Some(start.task_id.clone());
                    view.background = start.background;
                    view.status = "running".to_owned();
                    if start.description.is_some() {
                        view.description = start.description.clone();
                    }
                    if start.subagent_type.is_some() {
                        view.subagent_type = start.subagent_type.clone();
                    }
                });
            }
            AgentEvent::SubagentProgress(progress) => {
                if let Some(tool_use_id) = self.task_to_tool.get(&progress.task_id).cloned() {
                    self.update_subagent(&tool_use_id, |view| {
                        view.last_tool = progress.last_tool.clone();
                        view.tokens = progress.tokens;
                        view.tool_uses = progress.tool_uses;
                        view.elapsed_ms = progress.elapsed_ms;
                    });
                }
            }
            AgentEvent::SubagentSettled {
                task_id,
                status,
                summary,
            } => {
                self.running_tasks.remove(&task_id);
                self.background_tasks.remove(&task_id);
                if let Some(tool_use_id) = self.task_to_tool.get(&task_id).cloned() {
                    self.update_subagent(&tool_use_id, |view| {
                        view.status = status.clone();
                        if summary.is_some() {
                            view.summary = summary.clone();
                        }
                    });
                    if status == "completed"
                        && let Some(report) = summary.filter(|text| !text.trim().is_empty())
                    {
                        self.log_subagent_report(tool_use_id, report);
                    }
                }
                self.release_gate();
            }
            AgentEvent::BackgroundTasks { task_ids } => {
                let live: BTreeSet<String> = task_ids.into_iter().collect();
                let gone: Vec<String> = self.background_tasks.difference(&live).cloned().collect();
                for task in gone {
                    self.running_tasks.remove(&task);
                }
                self.running_tasks.extend(live.iter().cloned());
                self.background_tasks = live;
                self.release_gate();
            }
            AgentEvent::Compacted {
                trigger,
                pre_tokens,
            } => {
                let mut text = "conversation compacted".to_owned();
                if let Some(trigger) = trigger {
                    text.push_str(&format!(" ({trigger})"));
                }
                if let Some(tokens) = pre_tokens {
                    text.push_str(&format!(", {tokens} tokens before"));
                }
                self.note(Scope::Main, NoteLevel::Info, text);
            }
            AgentEvent::TurnEnded(end) => self.turn_ended(end),
            AgentEvent::ResumeFailed { message } => {
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Warning,
                    NoteCode::new("resume_failed", &[&message]),
                    format!("the conversation could not be resumed ({message}); a new one starts"),
                );
            }
            AgentEvent::RequestFailed { what, error } => {
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Warning,
                    NoteCode::new("request_failed", &[&what, &error]),
                    format!("{what} failed: {error}"),
                );
            }
            AgentEvent::Note { level, text, code } => {
                self.push_entry(Scope::Main, EntryKind::Note { level, text, code });
            }
        }
    }

    fn block(
        &mut self,
        message_id: String,
        parent: Option<String>,
        block: AgentBlock,
        usage: Option<TokenUsage>,
    ) {
        if let Some(usage) = usage
            && self.seen_messages.insert(message_id)
        {
            self.usage.tokens.input += usage.input;
            self.usage.tokens.output += usage.output;
            self.usage.tokens.cache_read += usage.cache_read;
            self.usage.tokens.cache_creation += usage.cache_creation;
            if parent.is_none() {
                self.usage.context_used = usage.context() + usage.output;
            }
            self.outbox.push(SessionEvent::Usage {
                usage: self.usage.clone(),
            });
        }
        let scope = scope_of(parent.clone());
        match block {
            AgentBlock::Text(text) => {
                if scope == Scope::Main {
                    self.reset_stream();
                }
                self.push_entry(scope, EntryKind::Assistant { text });
            }
            AgentBlock::Thinking(text) => {
                if scope == Scope::Main {
                    self.thinking_text.clear();
                }
                self.push_entry(scope, EntryKind::Thinking { text });
            }
            AgentBlock::ToolUse {
                id,
                name,
                input,
                summary,
                view,
                subagent,
            } => {
                if scope == Scope::Main {
                    self.reset_stream();
                }
                if parent.is_none()
                    && let Some(call) = subagent
                {
                    self.update_subagent(&id, |view| {
                        view.description = call.description.clone();
                        view.subagent_type = call.subagent_type.clone();
                        view.background = call.background;
                    });
                }
                let entry = self.push_entry(
                    scope.clone(),
                    EntryKind::Tool(ToolEntry {
                        tool_use_id: id.clone(),
                        name,
                        summary,
                        view,
                        input,
                        status: ToolStatus::Running,
                        result: None,
                        duration_ms: None,
                    }),
                );
                self.tools.insert(
                    id,
                    ToolRef {
                        scope,
                        entry_id: entry.id,
                        started_ms: self.now_ms,
                    },
                );
            }
        }
    }

    fn tool_result(
        &mut self,
        tool_use_id: &str,
        text: String,
        is_error: bool,
        todo: Option<TodoChange>,
    ) {
        let Some(tool) = self.tools.remove(tool_use_id) else {
            return;
        };
        let status = if self.denied_tools.remove(tool_use_id) {
            ToolStatus::Denied
        } else if is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Succeeded
        };
        let duration = self.now_ms.saturating_sub(tool.started_ms);
        self.update_entry(&tool.scope, tool.entry_id, |kind| {
            if let EntryKind::Tool(entry) = kind {
                entry.status = status;
                entry.result = Some(text);
                entry.duration_ms = Some(duration);
            }
        });
        if tool.scope == Scope::Main
            && status == ToolStatus::Succeeded
            && let Some(change) = todo
        {
            self.track_todos(change);
        }
    }

    fn track_todos(&mut self, change: TodoChange) {
        let before = self.todos.clone();
        match change {
            TodoChange::Created { id, content } => {
                if self.todos.len() < MAX_TODOS {
                    let id = id.unwrap_or_else(|| (self.todos.len() + 1).to_string());
                    self.todos.push(TodoItem {
                        id,
                        content: one_line(&content, MAX_TODO_CHARS),
                        status: TodoStatus::Pending,
                    });
                }
            }
            TodoChange::Updated {
                id,
                status,
                content,
            } => {
                if let Some(todo) = self.todos.iter_mut().find(|todo| todo.id == id) {
                    if let Some(status) = status {
                        todo.status = status;
                    }
                    if let Some(content) = content {
                        todo.content = one_line(&content, MAX_TODO_CHARS);
                    }
                }
            }
            TodoChange::Deleted { id } => self.todos.retain(|todo| todo.id != id),
            TodoChange::Replaced { items } => {
                self.todos = items
                    .into_iter()
                    .take(MAX_TODOS)
                    .enumerate()
                    .map(|(index, (content, status))| TodoItem {
                        id: (index + 1).to_string(),
                        content: one_line(&content, MAX_TODO_CHARS),
                        status,
                    })
                    .collect();
            }
        }
        if self.todos != before {
            self.outbox.push(SessionEvent::Todos {
                progress: self.todo_progress(),
                items: self.todos.clone(),
            });
        }
    }

    /// The TODO list as it stands.
    pub fn todo_items(&self) -> &[TodoItem] {
        &self.todos
    }

    fn turn_ended(&mut self, end: TurnEnd) {
        self.reset_stream();
        self.retry = None;
        let cancelled = self.turn.take().is_some_and(|turn| turn.cancelled);
        // The messages that started this turn are settled with it, echoed or not.
        self.unacked.retain(|message| !message.started_turn);
        if let Some(id) = end.agent_session_id
            && self.agent_session_id.as_deref() != Some(&id)
        {
            self.agent_session_id = Some(id.clone());
            self.outbox.push(SessionEvent::AgentSession { id });
        }
        if let Some(cost) = end.process_cost_usd {
            self.usage.cost_usd = Some(self.cost_base + cost);
        }
        if end.context_window.is_some() {
            self.usage.context_window = end.context_window;
        }
        self.outbox.push(SessionEvent::Usage {
            usage: self.usage.clone(),
        });
        if !end.denials.is_empty() && end.outcome == TurnOutcome::Completed {
            let denied = end.denials.join(", ");
            self.coded_note(
                Scope::Main,
                NoteLevel::Info,
                NoteCode::new("denied", &[&denied]),
                format!("denied: {denied}"),
            );
        }
        match &end.outcome {
            TurnOutcome::Failed { message }
            | TurnOutcome::NeedsLogin { message }
            | TurnOutcome::RateLimited { message } => {
                // The agent's synthetic error message is usually logged already.
                let already = self.log.entries().last().is_some_and(
                    |entry| matches!(&entry.kind, EntryKind::Note { text, .. } if text == message),
                );
                if !already {
                    self.note(Scope::Main, NoteLevel::Error, message.clone());
                }
            }
            TurnOutcome::Interrupted if !cancelled => {}
            _ => {}
        }
        // A turn that completed while background agents still run is not complete yet.
        self.gate_pending = end.outcome == TurnOutcome::Completed && !self.running_tasks.is_empty();
        self.follow_up_since = None;
        self.last_outcome = Some(end.outcome);
        self.exit_note = None;
        // Prompts cannot outlive their turn.
        self.withdraw_all_prompts();
    }

    /// The agent took up a message: it is no longer waiting. Its echo arrives inside the
    /// turn that answers it — one the agent was already running (the message was folded into
    /// it: no new turn, one `result` answers both) or a new one. Echoes of anything else (a
    /// local command's output) match no message and change nothing.
    fn user_echo(&mut self, text: &str) {
        let Some(index) = self
            .unacked
            .iter()
            .position(|message| message.echo.trim() == text.trim())
        else {
            return;
        };
        self.unacked.remove(index);
        if self.turn.is_none() {
            self.turn = Some(OpenTurn { cancelled: false });
        }
    }

    /// Claude Code does not print a foreground subagent's text messages, only its tool calls;
    /// its final report arrives with the completion notice. The report ends the subagent's own
    /// log unless one of its messages already said the same (background agents print it).
    fn log_subagent_report(&mut self, tool_use_id: String, report: String) {
        let scope = Scope::Subagent(tool_use_id);
        let already = self.log_mut(&scope).entries().any(
            |entry| matches!(&entry.kind, EntryKind::Assistant { text } if text.trim() == report.trim()),
        );
        if !already {
            self.push_entry(scope, EntryKind::Assistant { text: report });
        }
    }

    fn release_gate(&mut self) {
        if self.gate_pending && self.running_tasks.is_empty() {
            self.gate_pending = false;
            if !self.turn_open() {
                // The agent hands the results over in a turn it starts by itself.
                self.follow_up_since = Some(self.now_ms);
            }
        }
    }

    fn process_exited(
        &mut self,
        code: Option<i32>,
        signal: Option<i32>,
        stderr_tail: &str,
        requested: bool,
    ) {
        self.process = ProcessPhase::Exited;
        self.connected = false;
        self.outbox.push(SessionEvent::AgentExited {
            code,
            signal,
            requested,
        });
        self.reset_stream();
        self.retry = None;
        self.withdraw_all_prompts();
        self.running_tasks.clear();
        self.background_tasks.clear();
        self.gate_pending = false;
        self.follow_up_since = None;
        let mid_turn = self.turn_open();
        self.turn = None;
        self.unacked.clear();
        let how = match (code, signal) {
            (_, Some(signal)) => format!("killed by signal {signal}"),
            (Some(code), None) => format!("exit code {code}"),
            (None, None) => "unknown exit".to_owned(),
        };
        let tail = last_lines(stderr_tail, 3);
        if mid_turn {
            let detail = if !requested && !tail.is_empty() {
                format!(": {tail}")
            } else {
                String::new()
            };
            let note = format!("the agent process ended mid-turn ({how}){detail}");
            self.coded_note(
                Scope::Main,
                NoteLevel::Warning,
                NoteCode::new("ended_mid_turn", &[&how, &detail]),
                note.clone(),
            );
            self.last_outcome = Some(TurnOutcome::Interrupted);
            self.exit_note = (!requested).then_some(note);
        } else if !requested && self.last_outcome.is_none() {
            let detail = if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            };
            let message = format!("the agent exited before its first turn ({how}){detail}");
            self.coded_note(
                Scope::Main,
                NoteLevel::Error,
                NoteCode::new("exited_before_first_turn", &[&how, &detail]),
                message.clone(),
            );
            self.last_outcome = Some(TurnOutcome::Failed { message });
        } else if !requested && code != Some(0) {
            self.coded_note(
                Scope::Main,
                NoteLevel::Info,
                NoteCode::new("process_ended", &[&how]),
                format!("the agent process ended ({how})"),
            );
        }
    }

    // -- helpers ------------------------------------------------------------------------------

    fn open_prompt(&mut self, prompt: Prompt) {
        if self
            .prompts
            .iter()
            .any(|p| p.request_id() == prompt.request_id())
        {
            return;
        }
        self.prompts.push_back(prompt.clone());
        self.outbox.push(SessionEvent::PromptOpened { prompt });
    }

    fn close_prompt(&mut self, request_id: &str, resolution: PromptResolution) {
        let Some(index) = self
            .prompts
            .iter()
            .position(|p| p.request_id() == request_id)
        else {
            return;
        };
        let Some(prompt) = self.prompts.remove(index) else {
            return;
        };
        if resolution == PromptResolution::Denied
            && let Some(tool_use_id) = prompt.tool_use_id()
        {
            self.denied_tools.insert(tool_use_id.to_owned());
        }
        self.outbox.push(SessionEvent::PromptClosed {
            request_id: request_id.to_owned(),
            resolution,
        });
    }

    fn withdraw_all_prompts(&mut self) {
        while let Some(prompt) = self.prompts.pop_front() {
            self.outbox.push(SessionEvent::PromptClosed {
                request_id: prompt.request_id().to_owned(),
                resolution: PromptResolution::Withdrawn,
            });
        }
    }

    fn set_permission_mode(&mut self, mode: String) {
        if self.permission_mode.as_deref() != Some(&mode) {
            self.permission_mode = Some(mode.clone());
            self.outbox.push(SessionEvent::PermissionMode { mode });
        }
    }

    fn reset_stream(&mut self) {
        self.thinking_text.clear();
        if !self.stream_text.is_empty() {
            self.stream_text.clear();
            self.outbox.push(SessionEvent::Stream {
                text: String::new(),
                reset: true,
            });
        }
    }

    fn note(&mut self, scope: Scope, level: NoteLevel, text: String) {
        self.push_entry(
            scope,
            EntryKind::Note {
                level,
                text,
                code: None,
            },
        );
    }

    /// A note of a known kind (front ends may word it in their language).
    fn coded_note(&mut self, scope: Scope, level: NoteLevel, code: NoteCode, text: String) {
        self.push_entry(
            scope,
            EntryKind::Note {
                level,
                text,
                code: Some(code),
            },
        );
    }

    fn log_mut(&mut self, scope: &Scope) -> &mut Log {
        match scope {
            Scope::Main => &mut self.log,
            Scope::Subagent(id) => self
                .subagents
                .entry(id.clone())
                .or_default()
                .log
                .get_or_insert_with(|| Log::with_budget(crate::session_log::LOG_BUDGET / 8)),
        }
    }

    fn push_entry(&mut self, scope: Scope, kind: EntryKind) -> LogEntry {
        let now = self.now_ms;
        let entry = self.log_mut(&scope).push(now, kind);
        self.outbox.push(SessionEvent::Log {
            scope,
            entry: entry.clone(),
            update: false,
        });
        entry
    }

    fn update_entry(&mut self, scope: &Scope, id: u64, change: impl FnOnce(&mut EntryKind)) {
        if let Some(entry) = self.log_mut(scope).update(id, change) {
            self.outbox.push(SessionEvent::Log {
                scope: scope.clone(),
                entry,
                update: true,
            });
        }
    }

    fn update_subagent(&mut self, tool_use_id: &str, change: impl FnOnce(&mut SubagentView)) {
        let subagent = self.subagents.entry(tool_use_id.to_owned()).or_default();
        let view = subagent.view.get_or_insert_with(|| SubagentView {
            tool_use_id: tool_use_id.to_owned(),
            task_id: None,
            description: None,
            subagent_type: None,
            background: false,
            status: "starting".to_owned(),
            last_tool: None,
            tokens: 0,
            tool_uses: 0,
            elapsed_ms: 0,
            summary: None,
        });
        change(view);
        let view = view.clone();
        self.outbox.push(SessionEvent::Subagent { subagent: view });
    }
}

/// The ids of the most recent model messages, to count each message's usage once. Bounded:
/// a message's blocks arrive together, so only recent ids can repeat.
#[derive(Debug, Default)]
struct RecentIds {
    order: VecDeque<String>,
    set: HashSet<String>,
}

impl RecentIds {
    const CAPACITY: usize = 256;

    /// `true` if `id` was not seen recently (and remembers it).
    fn insert(&mut self, id: String) -> bool {
        if self.set.contains(&id) {
            return false;
        }
        if self.order.len() == Self::CAPACITY
            && let Some(oldest) = self.order.pop_front()
        {
            self.set.remove(&oldest);
        }
        self.set.insert(id.clone());
        self.order.push_back(id);
        true
    }
}

fn scope_of(parent: Option<String>) -> Scope {
    match parent {
        Some(id) => Scope::Subagent(id),
        None => Scope::Main,
    }
}

fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let start = lines.len().saturating_sub(count);
    one_line(&lines[start..].join(" | "), 400)
}

/// What a session brought back from disk starts with: its log (rebuilt from the agent's
/// transcript), how its last turn ended, and the agent session to resume. No process runs
/// until the next message.
#[derive(Debug, Clone, Default)]
pub struct RestoredSession {
    pub main: Vec<EntryKind>,
    /// Subagent logs by the tool-use id of their `Agent` call.
    pub subagents: Vec<(String, Vec<EntryKind>)>,
    pub outcome: Option<TurnOutcome>,
    pub detail: Option<String>,
    pub agent_session_id: Option<String>,
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    pub cost_usd: Option<f64>,
}

impl SessionState {
    /// A page of the main log or of a subagent's log.
    pub fn read_log(
        &self,
        scope: &Scope,
        after: Option<u64>,
        limit: usize,
    ) -> crate::session::LogPage {
        let log = match scope {
            Scope::Main => Some(&self.log),
            Scope::Subagent(id) => self.subagent_log(id),
        };
        let Some(log) = log else {
            return crate::session::LogPage::default();
        };
        let limit = limit.max(1);
        let mut entries: Vec<LogEntry> = log
            .entries()
            .filter(|entry| after.is_none_or(|after| entry.id > after))
            .take(limit + 1)
            .cloned()
            .collect();
        let more = entries.len() > limit;
        entries.truncate(limit);
        crate::session::LogPage {
            next_after: if more {
                entries.last().map(|e| e.id)
            } else {
                None
            },
            entries,
            dropped: log.dropped(),
        }
    }

    pub fn restored(restored: RestoredSession) -> Self {
        let mut state = SessionState::new();
        for kind in restored.main {
            state.log.push(0, kind);
        }
        for (tool_use_id, entries) in restored.subagents {
            let scope = Scope::Subagent(tool_use_id);
            for kind in entries {
                state.log_mut(&scope).push(0, kind);
            }
        }
        state.agent_session_id = restored.agent_session_id;
        state.model = restored.model;
        state.permission_mode = restored.permission_mode;
        state.usage.cost_usd = restored.cost_usd;
        state.last_outcome = restored.outcome;
        state.exit_note = restored.detail;
        let (status, detail) = state.derive_status();
        state.status = status;
        state.detail = detail;
        state
    }
}

impl SessionState {
    pub fn snapshot(&self) -> SessionSnapshot {
        let mut subagents: Vec<SubagentView> = self.subagents().cloned().collect();
        subagents.sort_by(|a, b| a.tool_use_id.cmp(&b.tool_use_id));
        SessionSnapshot {
            status: self.status,
            detail: self.detail.clone(),
            detail_code: self.detail_code(),
            connected: self.connected,
            agent_session_id: self.agent_session_id.clone(),
            model: self.model.clone(),
            permission_mode: self.permission_mode.clone(),
            prompts: self.prompts.iter().cloned().collect(),
            todos: self.todo_progress(),
            todo_items: self.todos.clone(),
            usage: self.usage.clone(),
            subagents,
            log: self.log.entries().cloned().collect(),
            dropped_entries: self.log.dropped(),
            streaming: self.stream_text.clone(),
        }
    }
}

#[cfg(test)]
#[path = "session_state_tests.rs"]
mod tests;
