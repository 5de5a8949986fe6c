//! Attach equals watching, over generated sessions: after every input, the state machine's
//! snapshot is the protocol's fold (`codiva_protocol::view`) of every event it emitted, and a
//! client that attached at any point (that snapshot, sent as JSON, then the events after it)
//! ends where one that watched from the start ends.

use codiva_protocol::session::SessionSnapshot;
use proptest::prelude::*;

use super::*;
use crate::agent_event::{SubagentProgress, TodoChange};
use crate::session_log::Log;

/// Few ids, so that prompts, subagents, tools and responses collide and repeat.
const IDS: &[&str] = &["a", "b", "c"];
const TEXTS: &[&str] = &["hi", "日本語のテキスト", "", "line\nline", "🎉 done"];
const MODELS: &[Option<&str>] = &[
    Some("claude-sonnet-4-5-20250929"),
    Some("opus"),
    Some("gpt-5.1-codex"),
    None,
];

fn id() -> impl Strategy<Value = &'static str> {
    prop::sample::select(IDS)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(TEXTS).prop_map(str::to_owned),
        // Long enough to fill a small log budget and, in a few deltas, the stream's cap.
        1 => (1usize..4).prop_map(|n| "長い".repeat(n * 12_000)),
    ]
}

fn model() -> impl Strategy<Value = Option<String>> {
    prop::sample::select(MODELS).prop_map(|m| m.map(str::to_owned))
}

fn mode() -> impl Strategy<Value = PermissionMode> {
    prop::sample::select(
        &[
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
            PermissionMode::DontAsk,
        ][..],
    )
}

fn outcome() -> impl Strategy<Value = TurnOutcome> {
    prop_oneof![
        Just(TurnOutcome::Completed),
        Just(TurnOutcome::Interrupted),
        Just(TurnOutcome::NeedsLogin {
            message: "401".to_owned()
        }),
        Just(TurnOutcome::RateLimited {
            message: "429".to_owned()
        }),
        Just(TurnOutcome::Failed {
            message: "boom".to_owned()
        }),
    ]
}

fn resolution() -> impl Strategy<Value = PromptResolution> {
    prop::sample::select(
        &[
            PromptResolution::Allowed,
            PromptResolution::Denied,
            PromptResolution::Answered,
            PromptResolution::Withdrawn,
        ][..],
    )
}

fn info() -> impl Strategy<Value = AgentInfo> {
    (any::<bool>(), prop::option::of(mode())).prop_map(|(models, permission_mode)| AgentInfo {
        version: Some("1.0.0".to_owned()),
        models: if models {
            ["default", "sonnet", "opus"]
                .iter()
                .map(|id| codiva_protocol::agent::ModelChoice {
                    id: (*id).to_owned(),
                    ..Default::default()
                })
                .collect()
        } else {
            Vec::new()
        },
        commands: Vec::new(),
        account: None,
        permission_mode,
    })
}

fn todo() -> impl Strategy<Value = TodoChange> {
    prop_oneof![
        (prop::option::of(id()), text()).prop_map(|(id, content)| TodoChange::Created {
            id: id.map(str::to_owned),
            content,
        }),
        (id(), any::<bool>()).prop_map(|(id, done)| TodoChange::Updated {
            id: id.to_owned(),
            status: Some(if done {
                TodoStatus::Completed
            } else {
                TodoStatus::InProgress
            }),
            content: None,
        }),
        id().prop_map(|id| TodoChange::Deleted { id: id.to_owned() }),
        prop::collection::vec(text(), 0..3).prop_map(|items| TodoChange::Replaced {
            items: items
                .into_iter()
                .map(|text| (text, TodoStatus::Pending))
                .collect(),
        }),
    ]
}

/// Top-level (none) or the tool-use id of a subagent's call.
fn parent() -> impl Strategy<Value = Option<String>> {
    prop::option::of(id().prop_map(|id| format!("toolu_{id}")))
}

/// One agent event, top-level or from a subagent.
fn agent_event() -> impl Strategy<Value = AgentEvent> {
    prop_oneof![
        1 => info().prop_map(AgentEvent::Connected),
        1 => (id(), model(), prop::option::of(mode())).prop_map(|(id, model, permission_mode)| {
            AgentEvent::TurnStarted {
                agent_session_id: format!("sess-{id}"),
                model,
                permission_mode,
            }
        }),
        1 => mode().prop_map(AgentEvent::PermissionModeChanged),
        1 => model().prop_map(AgentEvent::ModelChanged),
        1 => (1u32..4).prop_map(|attempt| AgentEvent::Retrying(RetryInfo {
            attempt,
            max: 10,
            delay_ms: 500,
            status: Some(529),
            error: None,
        })),
        1 => id().prop_map(|id| AgentEvent::MessageStarted {
            message_id: format!("msg_{id}")
        }),
        3 => text().prop_map(|text| AgentEvent::TextDelta { text }),
        1 => text().prop_map(|text| AgentEvent::ThinkingDelta { text }),
        1 => (id(), parent(), text(), any::<bool>()).prop_map(|(id, parent, text, usage)| {
            AgentEvent::Block {
                message_id: format!("msg_{id}"),
                parent,
                block: AgentBlock::Text(text),
                usage: usage.then_some(TokenUsage {
                    input: 10,
                    output: 5,
                    cache_read: 1,
                    cache_creation: 0,
                }),
                model: None,
            }
        }),
        1 => (id(), parent(), any::<bool>()).prop_map(|(id, parent, agent)| {
            let (name, input) = if agent {
                ("Task", json!({"description": "look", "prompt": "look", "subagent_type": "general-purpose"}))
            } else {
                ("Write", json!({"file_path": "/w/a.txt", "content": "a"}))
            };
            AgentEvent::Block {
                message_id: format!("msg_{id}"),
                parent,
                block: AgentBlock::ToolUse {
                    id: format!("toolu_{id}"),
                    name: name.to_owned(),
                    summary: tools::tool_summary(name, &input),
                    view: crate::claude::tool_view::tool_view(name, &input),
                    subagent: tools::subagent_call(name, &input),
                    input,
                },
                usage: None,
                model: None,
            }
        }),
        1 => (id(), parent(), text(), any::<bool>(), prop::option::of(todo())).prop_map(
            |(id, parent, text, is_error, todo)| AgentEvent::ToolResult {
                parent,
                tool_use_id: format!("toolu_{id}"),
                text,
                is_error,
                todo,
            }
        ),
        1 => (id(), text()).prop_map(|(id, text)| AgentEvent::ToolOutput {
            tool_use_id: format!("toolu_{id}"),
            text,
        }),
        1 => (id(), 0u64..100, prop::option::of(1000u64..200_000)).prop_map(
            |(id, tokens, context_window)| AgentEvent::Usage {
                response_id: format!("resp_{id}"),
                usage: TokenUsage {
                    input: tokens,
                    output: tokens / 2,
                    cache_read: 0,
                    cache_creation: 0,
                },
                context_window,
            }
        ),
        1 => (parent(), text()).prop_map(|(parent, message)| AgentEvent::ApiError {
            parent,
            message,
            status: Some(500),
            kind: None,
        }),
        1 => (id(), text()).prop_map(|(id, text)| AgentEvent::UserEcho {
            text: format!("{id}{text}")
        }),
        1 => Just(AgentEvent::InterruptMarker),
        2 => (id(), any::<bool>()).prop_map(|(id, ask)| if ask {
            let Input::Agent(event) = question(id) else { unreachable!() };
            event
        } else {
            let Input::Agent(event) = permission(id) else { unreachable!() };
            event
        }),
        1 => id().prop_map(|id| AgentEvent::RequestWithdrawn {
            request_id: id.to_owned()
        }),
        1 => (id(), any::<bool>()).prop_map(|(id, background)| {
            AgentEvent::SubagentStarted(crate::agent_event::SubagentStart {
                task_id: format!("task_{id}"),
                tool_use_id: Some(format!("toolu_{id}")),
                description: Some("look".to_owned()),
                subagent_type: None,
                background,
            })
        }),
        1 => (id(), 0u64..1000).prop_map(|(id, tokens)| AgentEvent::SubagentProgress(
            SubagentProgress {
                task_id: format!("task_{id}"),
                last_tool: Some("Read".to_owned()),
                tokens,
                tool_uses: tokens / 10,
                elapsed_ms: tokens * 3,
            }
        )),
        1 => (id(), prop::sample::select(&[
            codiva_protocol::session::SubagentStatus::Completed,
            codiva_protocol::session::SubagentStatus::Failed,
            codiva_protocol::session::SubagentStatus::Stopped,
            codiva_protocol::session::SubagentStatus::Unknown,
        ][..])).prop_map(|(id, status)| AgentEvent::SubagentSettled {
            task_id: format!("task_{id}"),
            status,
            summary: Some("done".to_owned()),
        }),
        1 => prop::collection::vec(id(), 0..3).prop_map(|ids| AgentEvent::BackgroundTasks {
            task_ids: ids.into_iter().map(|id| format!("task_{id}")).collect()
        }),
        1 => Just(AgentEvent::Compacted {
            trigger: Some("auto".to_owned()),
            pre_tokens: Some(1000)
        }),
        2 => (outcome(), prop::option::of(id()), prop::option::of(0.0f64..2.0)).prop_map(
            |(outcome, session, cost)| AgentEvent::TurnEnded(TurnEnd {
                outcome,
                agent_session_id: session.map(|id| format!("sess-{id}")),
                process_cost_usd: cost,
                context_window: None,
                denials: Vec::new(),
                final_text: None,
            })
        ),
        1 => Just(AgentEvent::ResumeFailed {
            message: "No conversation found".to_owned()
        }),
        1 => text().prop_map(|text| AgentEvent::Note {
            level: NoteLevel::Info,
            text,
            code: None,
        }),
    ]
}

/// One input: mostly the agent's, then what the host does.
fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        12 => agent_event().prop_map(Input::Agent),
        2 => Just(Input::ProcessStarted),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(code, requested)| Input::ProcessExited {
            code: Some(i32::from(code)),
            signal: None,
            stderr_tail: "error: bad flag".to_owned(),
            requested,
        }),
        1 => Just(Input::SpawnFailed {
            message: "no such file".to_owned()
        }),
        2 => (id(), text()).prop_map(|(id, text)| {
            let text = format!("{id}{text}");
            Input::UserSent {
                echo: text.clone(),
                text,
            }
        }),
        1 => id().prop_map(|id| Input::UserResent {
            echo: id.to_owned()
        }),
        1 => Just(Input::ForgetAgentSession),
        1 => (prop::option::of(id()), prop::option::of(mode())).prop_map(|(resume, permission_mode)| Input::AgentSwitched {
            from: "claude".to_owned(),
            to: "codex".to_owned(),
            resume: resume.map(|id| format!("sess-{id}")),
            permission_mode,
        }),
        1 => Just(Input::InterruptRequested),
        2 => (id(), resolution()).prop_map(|(id, resolution)| Input::PromptAnswered {
            request_id: id.to_owned(),
            resolution,
        }),
        1 => Just(Input::Tick),
    ]
}

/// How far the clock moves before an input: a little, or past the stall and follow-up limits.
fn step() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 1u64..2000, 1 => Just(STALL_AFTER_MS)]
}

fn through_json<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn the_snapshot_is_the_fold_of_the_events(
        inputs in prop::collection::vec((step(), input()), 1..60),
        small_log in any::<bool>(),
    ) {
        let mut state = SessionState::new();
        if small_log {
            // Entries are dropped from the front: the fold drops them too.
            state.log = Log::with_budget(64 * 1024);
        }
        let mut now = 0;
        let mut events = Vec::new();
        let mut view = SessionSnapshot::initial();
        let mut snapshots = vec![(0, SessionSnapshot::initial())];
        for (index, (step, input)) in inputs.into_iter().enumerate() {
            now += step;
            state.apply(now, input);
            for event in state.drain_events() {
                view.apply(&event);
                events.push(event);
            }
            prop_assert_eq!(&state.snapshot(), &view, "after input {}", index);
            snapshots.push((events.len(), state.snapshot()));
        }
        for (k, snapshot) in snapshots {
            let mut late = through_json(&snapshot);
            for event in &events[k..] {
                late.apply(&through_json(event));
            }
            prop_assert_eq!(&late, &view, "attached after {} events", k);
        }
    }
}
