//! Table-driven tests of the session state machine on hand-built event sequences.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use codiva_protocol::agent::{PermissionRequest, QuestionRequest, TokenUsage};
use codiva_protocol::log::ToolStatus;
use codiva_protocol::tool::PermissionMode;
use serde_json::{Value, json};

use super::*;
use crate::agent_event::{AgentBlock, SubagentStart, TurnEnd};
use crate::claude::tools;

#[path = "session_state_tests/fold.rs"]
mod fold;
#[path = "session_state_tests/prompts_and_turns.rs"]
mod prompts_and_turns;
#[path = "session_state_tests/status_table.rs"]
mod status_table;
#[path = "session_state_tests/streaming.rs"]
mod streaming;
#[path = "session_state_tests/subagents_and_budget.rs"]
mod subagents_and_budget;

// -- builders ---------------------------------------------------------------------------------

fn agent(event: AgentEvent) -> Input {
    Input::Agent(event)
}

fn connected() -> Input {
    agent(AgentEvent::Connected(AgentInfo::default()))
}

fn turn_started() -> Input {
    agent(AgentEvent::TurnStarted {
        agent_session_id: "sess-1".to_owned(),
        model: Some("claude-opus-5-5".to_owned()),
        permission_mode: Some(PermissionMode::Default),
    })
}

fn sent(text: &str) -> Input {
    Input::UserSent {
        text: text.to_owned(),
        echo: text.to_owned(),
    }
}

fn echo(text: &str) -> Input {
    agent(AgentEvent::UserEcho {
        text: text.to_owned(),
    })
}

fn end(outcome: TurnOutcome) -> Input {
    agent(AgentEvent::TurnEnded(TurnEnd {
        outcome,
        agent_session_id: Some("sess-1".to_owned()),
        process_cost_usd: None,
        context_window: None,
        denials: Vec::new(),
        final_text: None,
    }))
}

fn completed() -> Input {
    end(TurnOutcome::Completed)
}

fn permission(request_id: &str) -> Input {
    agent(AgentEvent::PermissionRequest(PermissionRequest {
        request_id: request_id.to_owned(),
        tool: "Write".to_owned(),
        view: crate::claude::tool_view::tool_view(
            "Write",
            &json!({"file_path": "/w/a.txt", "content": "a"}),
        ),
        options: crate::claude::tool_view::permission_options("Write", &[]),
        input: json!({"file_path": "/w/a.txt", "content": "a"}),
        description: Some("a.txt".to_owned()),
        suggestions: Vec::new(),
        tool_use_id: Some(format!("toolu_{request_id}")),
        agent_id: None,
        blocked_path: None,
        reason: None,
    }))
}

fn question(request_id: &str) -> Input {
    agent(AgentEvent::QuestionRequest(QuestionRequest {
        request_id: request_id.to_owned(),
        questions: Vec::new(),
        input: json!({"questions": []}),
        tool_use_id: Some(format!("toolu_{request_id}")),
    }))
}

fn answered(request_id: &str, resolution: PromptResolution) -> Input {
    Input::PromptAnswered {
        request_id: request_id.to_owned(),
        resolution,
    }
}

fn withdrawn(request_id: &str) -> Input {
    agent(AgentEvent::RequestWithdrawn {
        request_id: request_id.to_owned(),
    })
}

fn subagent(task_id: &str, background: bool) -> Input {
    agent(AgentEvent::SubagentStarted(SubagentStart {
        task_id: task_id.to_owned(),
        tool_use_id: Some(format!("toolu_{task_id}")),
        description: Some("Inspect the repo".to_owned()),
        subagent_type: Some("general-purpose".to_owned()),
        background,
    }))
}

fn settled(task_id: &str) -> Input {
    agent(AgentEvent::SubagentSettled {
        task_id: task_id.to_owned(),
        status: codiva_protocol::session::SubagentStatus::Completed,
        summary: Some("done".to_owned()),
    })
}

fn background(task_ids: &[&str]) -> Input {
    agent(AgentEvent::BackgroundTasks {
        task_ids: task_ids.iter().map(|id| (*id).to_owned()).collect(),
    })
}

fn exited(code: i32, stderr: &str, requested: bool) -> Input {
    Input::ProcessExited {
        code: Some(code),
        signal: None,
        stderr_tail: stderr.to_owned(),
        requested,
    }
}

fn retrying(attempt: u32) -> Input {
    agent(AgentEvent::Retrying(RetryInfo {
        attempt,
        max: 10,
        delay_ms: 500,
        status: Some(529),
        error: Some("overloaded".to_owned()),
    }))
}

fn message_started(id: &str) -> Input {
    agent(AgentEvent::MessageStarted {
        message_id: id.to_owned(),
    })
}

thread_local! {
    /// The calls [`tool_use`] made, by id, for [`tool_result`] to word its TODO change.
    static CALLS: std::cell::RefCell<HashMap<String, (String, Value)>> = Default::default();
}

/// A top-level tool call as the Claude translator words it (summary, subagent call).
fn tool_use(id: &str, name: &str, input: Value) -> Input {
    CALLS.with(|calls| {
        calls
            .borrow_mut()
            .insert(id.to_owned(), (name.to_owned(), input.clone()))
    });
    agent(AgentEvent::Block {
        message_id: format!("msg_{id}"),
        parent: None,
        block: AgentBlock::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            summary: tools::tool_summary(name, &input),
            view: crate::claude::tool_view::tool_view(name, &input),
            subagent: tools::subagent_call(name, &input),
            input,
        },
        usage: None,
        model: None,
    })
}

/// A successful result of the call [`tool_use`] made with `id`; `structured` is Claude's
/// `tool_use_result`, from which the translator words the call's TODO change.
fn tool_result(id: &str, structured: Option<Value>) -> Input {
    let call = CALLS.with(|calls| calls.borrow().get(id).cloned());
    let todo =
        call.and_then(|(name, input)| tools::todo_change(&name, &input, structured.as_ref()));
    agent(AgentEvent::ToolResult {
        parent: None,
        tool_use_id: id.to_owned(),
        text: "ok".to_owned(),
        is_error: false,
        todo,
    })
}

/// A process that is up, connected, with one turn running.
fn running() -> Vec<Input> {
    vec![
        Input::ProcessStarted,
        sent("hi"),
        connected(),
        turn_started(),
    ]
}

fn with(mut base: Vec<Input>, more: impl IntoIterator<Item = Input>) -> Vec<Input> {
    base.extend(more);
    base
}

/// Applies inputs 100 ms apart, draining after each one like the driver does.
struct Run {
    state: SessionState,
    now: u64,
    events: Vec<SessionEvent>,
}

impl Run {
    fn new() -> Self {
        Run {
            state: SessionState::new(),
            now: 0,
            events: Vec::new(),
        }
    }

    fn of(inputs: impl IntoIterator<Item = Input>) -> Self {
        let mut run = Run::new();
        run.all(inputs);
        run
    }

    fn all(&mut self, inputs: impl IntoIterator<Item = Input>) -> &mut Self {
        for input in inputs {
            self.apply(input);
        }
        self
    }

    fn apply(&mut self, input: Input) -> &mut Self {
        self.now += 100;
        self.at(self.now, input)
    }

    fn at(&mut self, now: u64, input: Input) -> &mut Self {
        self.now = now;
        self.state.apply(now, input);
        self.events.extend(self.state.drain_events());
        self
    }

    fn status(&self) -> (Status, Option<&str>) {
        (self.state.status(), self.state.detail())
    }

    fn closed(&self) -> Vec<(String, PromptResolution)> {
        self.events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::PromptClosed {
                    request_id,
                    resolution,
                } => Some((request_id.clone(), *resolution)),
                _ => None,
            })
            .collect()
    }

    fn notes(&self) -> Vec<(NoteLevel, String)> {
        self.state
            .log()
            .entries()
            .filter_map(|entry| match &entry.kind {
                EntryKind::Note { level, text, .. } => Some((*level, text.clone())),
                _ => None,
            })
            .collect()
    }
}

/// `session/snapshot` says which catalog entry the reported model is (issue 24 item 5): the
/// agent reports `claude-sonnet-…`, its catalog lists aliases.
#[test]
fn the_snapshot_names_the_catalog_entry_of_the_reported_model() {
    let model = |id: &str| codiva_protocol::agent::ModelChoice {
        id: id.to_owned(),
        display_name: None,
        description: None,
    };
    let catalog = AgentInfo {
        models: vec![model("default"), model("opus"), model("sonnet")],
        ..AgentInfo::default()
    };
    let mut run = Run::of([agent(AgentEvent::Connected(catalog))]);
    assert_eq!(run.state.snapshot().model_entry, None, "no model yet");
    run.apply(agent(AgentEvent::ModelChanged(Some(
        "claude-sonnet-4-5-20250929".to_owned(),
    ))));
    let snapshot = run.state.snapshot();
    assert_eq!(
        snapshot.model.as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(snapshot.model_entry.as_deref(), Some("sonnet"));
    // Without a catalog nothing is guessed.
    let mut bare = Run::of([connected()]);
    bare.apply(agent(AgentEvent::ModelChanged(Some(
        "claude-sonnet-4-5".to_owned(),
    ))));
    assert_eq!(bare.state.snapshot().model_entry, None);
}
