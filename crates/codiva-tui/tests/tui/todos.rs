//! The agent's TODO list as a checklist card in the log: under the "N tools" line of a fold of
//! task calls, and under the latest single task call, in English and Japanese, at both sizes.

use codiva_protocol::lang::Lang;
use codiva_protocol::log::{EntryKind, LogEntry, ToolEntry, ToolStatus};
use codiva_protocol::session::{SessionEvent, TodoItem, TodoProgress, TodoStatus};
use codiva_tui::i18n::with_lang;
use serde_json::json;

use crate::support::{detail_app, draw, event, log, snapshot_at_both_sizes};

const ID: &str = "ask-perm";

fn task_call(id: u64, name: &str, summary: &str) -> LogEntry {
    log(
        id,
        EntryKind::Tool(Box::new(ToolEntry {
            tool_use_id: format!("toolu_{id}"),
            name: name.into(),
            summary: summary.into(),
            view: codiva_core::claude::tool_view::tool_view(name, &json!({"subject": summary})),
            input: json!({"subject": summary}),
            status: ToolStatus::Succeeded,
            result: Some("Task created".into()),
            duration_ms: Some(3),
        })),
    )
}

fn item(id: &str, content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        id: id.into(),
        content: content.into(),
        status,
    }
}

fn todos(app: &mut codiva_tui::app::App, items: Vec<TodoItem>) {
    let done = items
        .iter()
        .filter(|item| item.status == TodoStatus::Completed)
        .count();
    let progress = TodoProgress {
        done,
        total: items.len(),
    };
    event(app, ID, SessionEvent::Todos { progress, items });
}

fn entry(app: &mut codiva_tui::app::App, entry: LogEntry) {
    event(
        app,
        ID,
        SessionEvent::Log {
            scope: codiva_protocol::session::Scope::Main,
            entry,
            update: false,
            dropped: 0,
        },
    );
}

/// Three task calls (a fold) and the list they made, one item done and one being worked on.
fn checklist_app(items: Vec<TodoItem>) -> codiva_tui::app::App {
    let mut app = detail_app();
    entry(&mut app, task_call(10, "TaskCreate", "Split the loader"));
    entry(&mut app, task_call(11, "TaskCreate", "Move the defaults"));
    entry(&mut app, task_call(12, "TaskUpdate", "#1 → completed"));
    todos(&mut app, items);
    app
}

fn english_items() -> Vec<TodoItem> {
    vec![
        item(
            "1",
            "Split the loader into parse.rs and validate.rs",
            TodoStatus::Completed,
        ),
        item(
            "2",
            "Move the defaults\x1b[2J into defaults.rs",
            TodoStatus::InProgress,
        ),
        item(
            "3",
            "Document every key of the config file in docs/config.md, with an example for each one",
            TodoStatus::Pending,
        ),
    ]
}

#[test]
fn the_todo_list_shows_as_a_checklist_under_its_calls() {
    let mut app = checklist_app(english_items());
    snapshot_at_both_sizes!(&mut app, "todo_checklist");
}

#[test]
fn the_todo_checklist_in_japanese() {
    with_lang(Lang::Ja, || {
        let mut app = checklist_app(vec![
            item("1", "設定ローダーを分割する", TodoStatus::Completed),
            item(
                "2",
                "既定値を defaults.rs へ移す 🚚",
                TodoStatus::InProgress,
            ),
            item("3", "全キーを文書化する", TodoStatus::Pending),
        ]);
        snapshot_at_both_sizes!(&mut app, "ja_todo_checklist");
    });
}

#[test]
fn the_checklist_follows_the_latest_task_call() {
    let mut app = checklist_app(english_items());
    entry(
        &mut app,
        log(
            13,
            EntryKind::Assistant {
                text: "The loader is split.".into(),
            },
        ),
    );
    entry(&mut app, task_call(14, "TaskUpdate", "#2 → completed"));
    let mut items = english_items();
    items[1].status = TodoStatus::Completed;
    items[2].status = TodoStatus::InProgress;
    todos(&mut app, items);
    let screen = format!("{:?}", draw(&mut app, 120, 40).backend());
    // One checklist, after the latest call, with the new counts.
    assert_eq!(screen.matches("tasks: ").count(), 1, "{screen}");
    let call = screen.find("#2 → completed").unwrap();
    let list = screen.find("tasks: 2 of 3 done").unwrap();
    assert!(list > call, "{screen}");
    snapshot_at_both_sizes!(&mut app, "todo_checklist_moved");
}

/// A session opened after its task calls ran: the list read with the log (the session's
/// snapshot) is drawn, with no `Todos` event since; a list that came by event before the log
/// was read is newer and stays.
#[test]
fn a_session_opened_late_shows_its_todo_list() {
    use codiva_tui::app::{Done, UiEvent, View};
    use crossterm::event::KeyCode;
    let open = |early: Option<Vec<TodoItem>>| {
        let mut app = crate::support::busy_app();
        crate::support::key(&mut app, KeyCode::Tab);
        for _ in 0..2 {
            crate::support::key(&mut app, KeyCode::Down);
        }
        crate::support::key(&mut app, KeyCode::Enter);
        assert_eq!(app.view, View::Detail(ID.into()));
        if let Some(items) = early {
            todos(&mut app, items);
        }
        app.handle(UiEvent::Done(Done::LogRead {
            id: ID.into(),
            entries: vec![
                task_call(10, "TaskCreate", "Split the loader"),
                task_call(11, "TaskCreate", "Move the defaults"),
            ],
            subagents: Vec::new(),
            todos: english_items(),
        }));
        format!("{}", draw(&mut app, 120, 40).backend())
    };
    let screen = open(None);
    assert!(
        screen.contains("Split the loader into parse.rs"),
        "{screen}"
    );
    assert!(screen.contains("Move the defaults"), "{screen}");
    let newer = vec![item("1", "Write the migration guide", TodoStatus::Pending)];
    let screen = open(Some(newer));
    assert!(screen.contains("Write the migration guide"), "{screen}");
    assert!(
        !screen.contains("Split the loader into parse.rs"),
        "{screen}"
    );
}
