//! The provider-neutral event type.
//!
//! Each agent adapter (Claude Code today; Codex and ACP agents next) translates its own wire
//! lines into [`AgentEvent`]s, and the session state machine (`session_state`) reduces them.
//! Nothing here names a provider's wire format.

use codiva_protocol::agent::{
    AgentInfo, ModelChoice, NoteLevel, PermissionRequest, Question, QuestionOption,
    QuestionRequest, RetryInfo, TokenUsage,
};
use codiva_protocol::session::TodoStatus;
use codiva_protocol::tool::{PermissionMode, ToolCallView};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::json::str_field;

/// What an agent told us, in provider-neutral terms.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// The agent answered the handshake: it is connected.
    Connected(AgentInfo),
    /// A turn begins (Claude: `system/init`, emitted before every turn).
    TurnStarted {
        agent_session_id: String,
        model: Option<String>,
        permission_mode: Option<PermissionMode>,
    },
    /// A model request is going out.
    Requesting,
    PermissionModeChanged(PermissionMode),
    /// The agent's MCP servers and their status (all of them, as the agent reported them).
    McpServers(Vec<codiva_protocol::mcp::McpServerState>),
    ModelChanged(Option<String>),
    /// A failed model request is about to be retried.
    Retrying(RetryInfo),
    /// A new model message starts streaming: any partial text so far is void.
    MessageStarted {
        message_id: String,
    },
    /// Streamed text of the top-level agent.
    TextDelta {
        text: String,
    },
    /// Streamed thinking of the top-level agent.
    ThinkingDelta {
        text: String,
    },
    /// A completed block of a model message. `parent` is the tool-use id of the subagent call
    /// that produced it (`None` for the top-level agent).
    Block {
        message_id: String,
        parent: Option<String>,
        block: AgentBlock,
        usage: Option<TokenUsage>,
        model: Option<String>,
    },
    /// Token usage of one model response reported apart from its content (counted once per
    /// `response_id`), with the model's context window when the agent tells it.
    Usage {
        response_id: String,
        usage: TokenUsage,
        context_window: Option<u64>,
    },
    /// The agent's own error message in place of a model answer (API error after retries).
    ApiError {
        parent: Option<String>,
        message: String,
        status: Option<u16>,
        kind: Option<String>,
    },
    ToolResult {
        parent: Option<String>,
        tool_use_id: String,
        text: String,
        is_error: bool,
        /// What the call did to the agent's TODO list, applied when it succeeded at the top
        /// level (the provider knows which of its tools keep one).
        todo: Option<TodoChange>,
    },
    /// A call still running when its turn ended, whose end the agent never reported (ACP: the
    /// prompt's answer ends the turn). Its status says so; a later report still gives it its
    /// outcome.
    ToolUnreported {
        tool_use_id: String,
    },
    /// A running tool call's kind, title, content or input as the agent now reports them
    /// (agents that send a call before its input is complete, and refine it as it runs).
    ToolUpdated {
        tool_use_id: String,
        view: ToolCallView,
        input: Option<Value>,
        summary: Option<String>,
    },
    /// Output of a running tool call so far (a command's output as it streams): appended to
    /// its terminal content until the call's result arrives.
    ToolOutput {
        tool_use_id: String,
        text: String,
    },
    /// A subagent's prompt (the first user message of its conversation).
    SubagentPrompt {
        parent: String,
        text: String,
    },
    /// The agent echoed a user message it received (delivery acknowledgement).
    UserEcho {
        text: String,
    },
    /// The agent marked the conversation as interrupted.
    InterruptMarker,
    /// The agent continued by itself after a cut-off answer.
    SyntheticContinuation,
    PermissionRequest(PermissionRequest),
    QuestionRequest(QuestionRequest),
    /// A pending request (permission or question) was withdrawn by the agent.
    RequestWithdrawn {
        request_id: String,
    },
    SubagentStarted(SubagentStart),
    SubagentProgress(SubagentProgress),
    /// A subagent finished (any terminal status).
    SubagentSettled {
        task_id: String,
        status: codiva_protocol::session::SubagentStatus,
        summary: Option<String>,
    },
    /// The full set of live background tasks (replace semantics).
    BackgroundTasks {
        task_ids: Vec<String>,
    },
    Compacted {
        trigger: Option<String>,
        pre_tokens: Option<u64>,
    },
    /// The plan usage of the agent's login as the agent reports it (subscription logins).
    PlanUsage(codiva_protocol::plan_usage::PlanUsage),
    /// The end of a turn.
    TurnEnded(TurnEnd),
    /// The agent could not continue the conversation it was asked to resume (it does not
    /// exist, e.g. because the agent died before writing it). The agent exits without reading
    /// its input.
    ResumeFailed {
        message: String,
    },
    /// The answer to a host request such as set_model (informational).
    RequestFailed {
        what: String,
        error: String,
    },
    /// Something worth a line in the log that fits no other event.
    Note {
        level: NoteLevel,
        text: String,
        /// A stable kind, for front ends that word notes in their own language.
        code: Option<codiva_protocol::log::NoteCode>,
    },
}

impl AgentEvent {
    /// `block` of the main conversation's message `message_id`, with no usage or model (an
    /// agent that reports those does so on its own events).
    pub fn block(message_id: String, block: AgentBlock) -> AgentEvent {
        AgentEvent::Block {
            message_id,
            parent: None,
            block,
            usage: None,
            model: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum AgentBlock {
    Text(String),
    Thinking(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
        /// A one-line summary for the log, worded by the provider that knows the tool.
        summary: String,
        /// Kind, title and content, built by the provider that knows the tool.
        view: ToolCallView,
        /// Set when the call starts a subagent (the provider knows which tools do).
        subagent: Option<Box<SubagentCall>>,
    },
}

/// A tool call that starts a subagent: what the log shows of it before the agent reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubagentCall {
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub background: bool,
}

/// A change to the agent's TODO list, in provider-neutral terms.
#[derive(Debug, Clone, PartialEq)]
pub enum TodoChange {
    /// One item added (pending); without an id, it is numbered after the items there are.
    Created {
        id: Option<String>,
        content: String,
    },
    /// One item's status (and perhaps its wording) changed.
    Updated {
        id: String,
        status: Option<TodoStatus>,
        content: Option<String>,
    },
    Deleted {
        id: String,
    },
    /// The whole list replaced: each item's wording and status.
    Replaced {
        items: Vec<(String, TodoStatus)>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SubagentStart {
    pub task_id: String,
    pub tool_use_id: Option<String>,
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub background: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SubagentProgress {
    pub task_id: String,
    pub last_tool: Option<String>,
    pub tokens: u64,
    pub tool_uses: u64,
    pub elapsed_ms: u64,
}

/// How a turn ended, classified.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEnd {
    pub outcome: TurnOutcome,
    pub agent_session_id: Option<String>,
    /// Cumulative cost reported by this agent process, if the agent reports one.
    pub process_cost_usd: Option<f64>,
    pub context_window: Option<u64>,
    pub denials: Vec<String>,
    pub final_text: Option<String>,
}

impl TurnEnd {
    /// A turn that failed for `message`, with nothing else known of it.
    pub fn failed(message: String) -> TurnEnd {
        TurnEnd {
            outcome: TurnOutcome::Failed { message },
            agent_session_id: None,
            process_cost_usd: None,
            context_window: None,
            denials: Vec::new(),
            final_text: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnOutcome {
    Completed,
    /// Stopped by the user (or by codiva on their behalf).
    Interrupted,
    NeedsLogin {
        message: String,
    },
    RateLimited {
        message: String,
    },
    Failed {
        message: String,
    },
}

/// A TODO item's or plan step's status from an agent's word for it (`pending`,
/// `in_progress` — Codex's app server writes `inProgress` —, `completed`); any other word is
/// pending.
pub fn todo_status(word: &str) -> TodoStatus {
    match word {
        "completed" => TodoStatus::Completed,
        "in_progress" | "inProgress" => TodoStatus::InProgress,
        _ => TodoStatus::Pending,
    }
}

/// A model from an agent's JSON list of them: its id at the JSON pointer `id` (none: no
/// model), its name for people at `name`, its description at `/description`.
pub fn model_choice(entry: &Value, id: &str, name: &str) -> Option<ModelChoice> {
    let text = |pointer: &str| {
        entry
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Some(ModelChoice {
        id: text(id)?,
        display_name: text(name),
        description: text("/description"),
    })
}

/// The questions of an agent's question tool in the shape Claude Code's `AskUserQuestion` takes
/// and xAI's ACP extension copies: `questions` (1–4 of them), each with its `question`,
/// `header`, `multiSelect` and `options` (2–4, each a `label` and a `description`).
pub fn questions(input: &Value) -> Vec<Question> {
    crate::json::items(input, "questions")
        .map(|question| Question {
            question: str_field(question, "question")
                .unwrap_or_default()
                .to_owned(),
            header: str_field(question, "header").map(str::to_owned),
            multi_select: question
                .get("multiSelect")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            options: crate::json::items(question, "options")
                .map(|option| QuestionOption {
                    label: str_field(option, "label").unwrap_or_default().to_owned(),
                    description: str_field(option, "description").map(str::to_owned),
                })
                .collect(),
        })
        .collect()
}

/// What an agent's plan shows besides its steps.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanText {
    /// The steps, one per line, as the call's content and its result (ACP agents).
    Steps,
    /// The agent's explanation (when it gave one) as the call's content and summary; the
    /// steps, one per line, as its result (Codex's app server).
    Explanation(Option<String>),
    /// No content and an empty result (`codex exec`, whose plan is a list and nothing more).
    Nothing,
}

/// An agent's plan in the log: a call of its plan tool `name` (kind TODO, title `Plan`,
/// summarised by its explanation or by its number of steps) and that call's result, which
/// replaces the TODO list with `steps`. `input` is the agent's own message, kept for display.
pub fn plan_call(
    id: String,
    name: &str,
    input: Value,
    steps: Vec<(String, TodoStatus)>,
    shown: PlanText,
) -> [AgentEvent; 2] {
    use codiva_protocol::tool::{ToolContent, ToolKind};
    let lines = || {
        steps
            .iter()
            .map(|(step, status)| format!("[{status:?}] {step}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let count = format!("{} steps", steps.len());
    let (content, summary, text) = match shown {
        PlanText::Steps => {
            let text = lines();
            (vec![ToolContent::Text { text: text.clone() }], count, text)
        }
        PlanText::Explanation(explanation) => (
            explanation
                .iter()
                .map(|text| ToolContent::Text { text: text.clone() })
                .collect(),
            explanation.unwrap_or(count),
            lines(),
        ),
        PlanText::Nothing => (Vec::new(), count, String::new()),
    };
    let call = AgentBlock::ToolUse {
        id: id.clone(),
        name: name.to_owned(),
        input,
        summary,
        view: ToolCallView {
            tool_kind: ToolKind::Todo,
            title: "Plan".to_owned(),
            content,
            notes: Vec::new(),
        },
        subagent: None,
    };
    [
        AgentEvent::block(id.clone(), call),
        AgentEvent::ToolResult {
            parent: None,
            tool_use_id: id,
            text,
            is_error: false,
            todo: Some(TodoChange::Replaced { items: steps }),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<(String, TodoStatus)> {
        vec![
            ("read".to_owned(), todo_status("completed")),
            ("write".to_owned(), todo_status("inProgress")),
            ("test".to_owned(), todo_status("pending")),
        ]
    }

    fn parts(events: [AgentEvent; 2]) -> (String, Vec<String>, String, Vec<(String, TodoStatus)>) {
        let [
            AgentEvent::Block {
                block: AgentBlock::ToolUse { summary, view, .. },
                ..
            },
            AgentEvent::ToolResult {
                text,
                todo: Some(TodoChange::Replaced { items }),
                ..
            },
        ] = events
        else {
            panic!("a plan is a call and its result");
        };
        assert_eq!(view.title, "Plan");
        let content = view
            .content
            .into_iter()
            .map(|content| match content {
                codiva_protocol::tool::ToolContent::Text { text } => text,
                other => panic!("{other:?}"),
            })
            .collect();
        (summary, content, text, items)
    }

    #[test]
    fn a_plan_is_a_call_whose_result_replaces_the_todo_list_as_each_agent_shows_it() {
        let lines = "[Completed] read\n[InProgress] write\n[Pending] test";
        let acp = plan_call(
            "plan-1".into(),
            "plan",
            Value::Null,
            steps(),
            PlanText::Steps,
        );
        assert_eq!(
            parts(acp),
            ("3 steps".into(), vec![lines.into()], lines.into(), steps())
        );
        let why = PlanText::Explanation(Some("tests first".into()));
        let codex = plan_call("plan-t-1".into(), "update_plan", Value::Null, steps(), why);
        assert_eq!(
            parts(codex),
            (
                "tests first".into(),
                vec!["tests first".into()],
                lines.into(),
                steps()
            )
        );
        let plain = PlanText::Explanation(None);
        let codex = plan_call(
            "plan-t-2".into(),
            "update_plan",
            Value::Null,
            steps(),
            plain,
        );
        assert_eq!(
            parts(codex),
            ("3 steps".into(), Vec::new(), lines.into(), steps())
        );
        let exec = plan_call(
            "plan-1".into(),
            "update_plan",
            Value::Null,
            steps(),
            PlanText::Nothing,
        );
        assert_eq!(
            parts(exec),
            ("3 steps".into(), Vec::new(), String::new(), steps())
        );
    }

    #[test]
    fn every_agents_word_for_a_status() {
        assert_eq!(todo_status("completed"), TodoStatus::Completed);
        assert_eq!(todo_status("in_progress"), TodoStatus::InProgress);
        assert_eq!(todo_status("inProgress"), TodoStatus::InProgress);
        assert_eq!(todo_status("pending"), TodoStatus::Pending);
        assert_eq!(todo_status("later"), TodoStatus::Pending);
    }

    /// A model needs its id; its name and description are optional.
    #[test]
    fn a_model_is_read_from_its_entry() {
        let codex = serde_json::json!({"id": "gpt-5", "displayName": "GPT-5", "description": "d"});
        assert_eq!(
            model_choice(&codex, "/id", "/displayName"),
            Some(ModelChoice {
                id: "gpt-5".into(),
                display_name: Some("GPT-5".into()),
                description: Some("d".into()),
            })
        );
        let acp = serde_json::json!({"modelId": "m", "name": 3});
        assert_eq!(
            model_choice(&acp, "/modelId", "/name"),
            Some(ModelChoice {
                id: "m".into(),
                display_name: None,
                description: None,
            })
        );
        assert_eq!(model_choice(&acp, "/id", "/name"), None);
    }

    /// Claude Code's and xAI's question shape; what is missing is empty, not an error.
    #[test]
    fn questions_are_read_leniently() {
        let input = serde_json::json!({"questions": [
            {"question": "Which colour?", "header": "Colour", "multiSelect": true,
             "options": [{"label": "Red", "description": "warm"}, {"label": "Blue"}]},
            {"header": 3}
        ]});
        let questions = questions(&input);
        assert_eq!(questions.len(), 2);
        assert_eq!(questions[0].question, "Which colour?");
        assert_eq!(questions[0].header.as_deref(), Some("Colour"));
        assert!(questions[0].multi_select);
        let labels: Vec<_> = questions[0].options.iter().map(|o| &o.label).collect();
        assert_eq!(labels, ["Red", "Blue"]);
        assert_eq!(questions[0].options[1].description, None);
        assert_eq!(
            (questions[1].question.as_str(), &questions[1].header),
            ("", &None)
        );
        assert!(questions[1].options.is_empty() && !questions[1].multi_select);
        assert!(super::questions(&serde_json::json!({"questions": "no"})).is_empty());
    }
}
