//! Task list tools: TaskCreate/TaskUpdate and TodoWrite drive the progress a user sees
//! (PROTOCOL_NOTES §1.11).

use codiva_core::session::PermissionResponse;
use codiva_protocol::log::ToolStatus;
use codiva_protocol::session::{SessionEvent, Status, TodoProgress};
use codiva_testkit::{AgentSandbox, Reply, Script};
use serde_json::json;

use super::harness::{Run, Setup};

fn todo_setup(tasks: bool) -> Setup {
    let mut sandbox = AgentSandbox::new()
        .expect("sandbox")
        .with_env("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1");
    if !tasks {
        sandbox = sandbox.with_env("CLAUDE_CODE_ENABLE_TASKS", "0");
    }
    Setup {
        sandbox,
        ..Setup::default()
    }
}

/// Waits until the session settles, allowing any permission prompt on the way (the task
/// tools are expected to need none).
async fn settle_allowing(run: &mut Run) -> (Status, usize) {
    let mut prompts = 0;
    loop {
        let event = run
            .until("a prompt or a settled status", |event| {
                matches!(event, SessionEvent::PromptOpened { .. })
                    || matches!(event, SessionEvent::Status { status, .. } if status.is_settled())
            })
            .await;
        match event {
            SessionEvent::PromptOpened { prompt } => {
                prompts += 1;
                run.respond(prompt.request_id(), PermissionResponse::Allow);
            }
            SessionEvent::Status { status, .. } => return (status, prompts),
            _ => unreachable!(),
        }
    }
}

fn progress_events(run: &Run) -> Vec<TodoProgress> {
    run.events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Todos { progress, .. } => Some(*progress),
            _ => None,
        })
        .collect()
}

fn details(run: &Run) -> Vec<(Status, Option<String>)> {
    run.events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Status { status, detail, .. } => Some((*status, detail.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn task_tools_drive_progress() {
    let script = Script::new()
        .then(Reply::tool_use(
            "TaskCreate",
            json!({"subject": "Write tests", "description": "Write the end-to-end tests"}),
        ))
        .then(Reply::tool_use(
            "TaskCreate",
            json!({"subject": "Run tests", "description": "Run them all"}),
        ))
        .then(Reply::tool_use(
            "TaskUpdate",
            json!({"taskId": "1", "status": "completed"}),
        ))
        .then(Reply::text("One of two tasks is done."));
    let mut run = Run::start_with(
        "claude-todo-tasks",
        script,
        todo_setup(true),
        Some("plan the work as tasks"),
    );
    let (status, prompts) = settle_allowing(&mut run).await;
    assert_eq!(status, Status::Completed, "events:\n{}", run.dump());
    assert_eq!(prompts, 0, "task tools are allowed without asking");
    assert_eq!(
        progress_events(&run),
        vec![
            TodoProgress { done: 0, total: 1 },
            TodoProgress { done: 0, total: 2 },
            TodoProgress { done: 1, total: 2 },
        ]
    );
    let statuses = details(&run);
    let running_details: Vec<&str> = statuses
        .iter()
        .filter(|(s, _)| *s == Status::Running)
        .filter_map(|(_, d)| d.as_deref())
        .collect();
    assert!(
        running_details.contains(&"step 0/2") && running_details.contains(&"step 1/2"),
        "the step shows while running: {statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&(Status::Completed, None)));
    let tools = run.tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, vec!["TaskCreate", "TaskCreate", "TaskUpdate"]);
    assert!(
        tools
            .iter()
            .all(|tool| tool.status == ToolStatus::Succeeded),
        "{tools:?}"
    );
    assert!(
        tools[1]
            .result
            .as_deref()
            .is_some_and(|r| r.contains("Task #2 created")),
        "{:?}",
        tools[1].result
    );
    let snapshot = run.snapshot().await;
    assert_eq!(snapshot.todos, TodoProgress { done: 1, total: 2 });
    // The CLI keeps the tasks on disk, per session.
    let session = snapshot.agent_session_id.expect("agent session");
    let dir = run.sandbox.home.path().join(".claude/tasks").join(&session);
    let first = std::fs::read_to_string(dir.join("1.json")).expect("task 1 on disk");
    assert!(
        first.contains("Write tests") && first.contains("completed"),
        "{first}"
    );
    let second = std::fs::read_to_string(dir.join("2.json")).expect("task 2 on disk");
    assert!(
        second.contains("Run tests") && second.contains("pending"),
        "{second}"
    );
    assert_eq!(
        run.assistant_texts(),
        vec!["One of two tasks is done.".to_owned()]
    );
    run.finish().await;
}

#[tokio::test]
async fn todo_write_drives_progress() {
    let script = Script::new()
        .then(Reply::tool_use(
            "TodoWrite",
            json!({"todos": [
                {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
                {"content": "Write the fix", "status": "in_progress", "activeForm": "Writing the fix"},
                {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"}
            ]}),
        ))
        .then(Reply::text("Working through the list."));
    let mut run = Run::start_with(
        "claude-todo-write",
        script,
        todo_setup(false),
        Some("make a todo list"),
    );
    let (status, prompts) = settle_allowing(&mut run).await;
    assert_eq!(status, Status::Completed, "events:\n{}", run.dump());
    assert_eq!(prompts, 0, "TodoWrite is allowed without asking");
    assert_eq!(
        progress_events(&run),
        vec![TodoProgress { done: 1, total: 3 }]
    );
    let statuses = details(&run);
    assert!(
        statuses
            .iter()
            .any(|(s, d)| *s == Status::Running && d.as_deref() == Some("step 1/3")),
        "{statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&(Status::Completed, None)));
    let tools = run.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "TodoWrite");
    assert_eq!(tools[0].status, ToolStatus::Succeeded);
    assert_eq!(
        run.snapshot().await.todos,
        TodoProgress { done: 1, total: 3 }
    );
    run.finish().await;
}
