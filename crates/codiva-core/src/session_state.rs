//! The session state machine: a pure reducer from provider-neutral inputs to state and
//! front-end events. No IO, no clock: time comes in with every input.
//!
//! Status is never stored as a free-standing field that events poke at. It is *derived* from
//! the parts that hold the truth (open turns, the prompt queue, the background-task set, the
//! last outcome, the process phase) after each batch of inputs, and a [`SessionEvent::Status`]
//! is emitted only when the derived value changes. That is what keeps "Running forever" and
//! "Completed while a subagent works" out by construction.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use codiva_protocol::agent::{AgentInfo, NoteLevel, RetryInfo};
use codiva_protocol::log::{EntryKind, NoteCode, NoteName};
use codiva_protocol::session::{
    Prompt, PromptResolution, Scope, SessionEvent, Status, SubagentView, TodoItem, TodoProgress,
    TodoStatus, UsageView,
};
use codiva_protocol::text::one_line;
use codiva_protocol::tool::PermissionMode;

use crate::agent_event::{AgentEvent, TurnOutcome};
use crate::session_log::Log;

/// No output for this long while a turn runs (and nobody is asked anything) flags a stall.
pub const STALL_AFTER_MS: u64 = 10 * 60 * 1000;

/// Once the background agents a finished turn waited for are done, Claude Code starts a turn
/// by itself to hand their results to the parent. The session stays Running until that turn
/// ends, or for at most this long if it never comes.
pub const FOLLOW_UP_GRACE_MS: u64 = 60 * 1000;

/// The TODO list keeps at most this many items, each at most [`MAX_TODO_CHARS`] long.
const MAX_TODOS: usize = 1000;
const MAX_TODO_CHARS: usize = 500;

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
    /// The session goes on with another agent (`from`, `to`: their names for people), whose
    /// conversation is `resume` (none: a new one), in `permission_mode` (none: the agent's
    /// own; a mode the new agent lacks was dropped).
    AgentSwitched {
        from: String,
        to: String,
        resume: Option<String>,
        permission_mode: Option<PermissionMode>,
    },
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
    permission_mode: Option<PermissionMode>,
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
    /// The agent runs on a subscription login (its account says so, or it reports plan
    /// usage): what it reports as a cost is no bill, and no cost is reported.
    subscription: bool,
    last_activity_ms: u64,
    stalled: bool,
    status: Status,
    detail: Option<String>,
    /// The status is said again even if unchanged (a new failure to start: front ends and the
    /// manager's agent slots hear that the message they sent ended).
    restate: bool,
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
            subscription: false,
            last_activity_ms: 0,
            stalled: false,
            status: Status::Starting,
            detail: None,
            restate: false,
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

    pub fn permission_mode(&self) -> Option<PermissionMode> {
        self.permission_mode
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
                if self.connected {
                    // The previous process was stopped without its end being seen: it is
                    // gone all the same, and the new one connects anew.
                    self.connected = false;
                    self.outbox.push(SessionEvent::AgentExited {
                        code: None,
                        signal: None,
                        requested: true,
                    });
                }
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
                self.restate = true;
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
            Input::ForgetAgentSession => self.set_agent_session(None),
            Input::AgentSwitched {
                from,
                to,
                resume,
                permission_mode,
            } => {
                self.connected = false;
                self.agent = None;
                self.model = None;
                self.permission_mode = None;
                // Whether the next agent's cost is a bill is for its own login to say.
                self.subscription = false;
                self.outbox.push(SessionEvent::AgentSwitched {
                    from: from.clone(),
                    to: to.clone(),
                });
                self.set_agent_session(resume);
                if let Some(mode) = permission_mode {
                    self.set_permission_mode(mode);
                }
                self.coded_note(
                    Scope::Main,
                    NoteLevel::Info,
                    NoteCode::new(NoteName::AgentSwitched, &[&from, &to]),
                    format!("switched from {from} to {to}"),
                );
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
                        NoteCode::new(NoteName::Stalled, &[&minutes]),
                        format!("no output from the agent for {minutes} minutes"),
                    );
                }
            }
        }
    }

    fn set_agent_session(&mut self, id: Option<String>) {
        if self.agent_session_id != id {
            self.agent_session_id = id.clone();
            self.outbox.push(SessionEvent::AgentSession { id });
        }
    }

    /// Returns the events produced since the last call, with a status event at the end if the
    /// derived status (or its detail) changed.
    pub fn drain_events(&mut self) -> Vec<SessionEvent> {
        self.settle_status();
        std::mem::take(&mut self.outbox)
    }

    /// Queues a status event when the status (or its detail) changed since the last one: after
    /// every agent line, so a status that lasted only between two lines of a batch is still
    /// reported, in order.
    pub fn settle_status(&mut self) {
        let (status, detail) = self.derive_status();
        if status != self.status || detail != self.detail || self.restate {
            // Only for a status that goes out (this runs after every input).
            let detail_code = self.running_detail_code(status);
            self.restate = false;
            self.status = status;
            self.detail = detail.clone();
            self.outbox.push(SessionEvent::Status {
                status,
                detail,
                detail_code,
            });
        }
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
                NoteName::Retrying,
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
                NoteName::Stalled,
                &[&(STALL_AFTER_MS / 60_000).to_string()],
            ))
        } else if self.gate_pending && !turn_open {
            Some(NoteCode::new(
                NoteName::WaitingForAgents,
                &[&self.running_tasks.len().to_string()],
            ))
        } else if self.follow_up_since.is_some() && !turn_open {
            Some(NoteCode::new(NoteName::CollectingResults, &[]))
        } else {
            let progress = self.todo_progress();
            (progress.total > 0).then(|| {
                NoteCode::new(
                    NoteName::Step,
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

/// The line of an agent's stderr that says why it stopped: the last that mentions an error,
/// else the last one (a CLI often warns about something harmless first).
fn error_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let last = lines.clone().next_back().unwrap_or_default();
    let error = lines.rfind(|line| line.to_ascii_lowercase().contains("error"));
    one_line(error.unwrap_or(last), 400)
}

mod agent_events;
mod prompts_and_log;
mod restore;
mod turns;

pub use restore::RestoredSession;

#[cfg(test)]
#[path = "session_state_tests.rs"]
mod tests;
