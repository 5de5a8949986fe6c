//! Agents kept in budget, with the scripted provider (a real child process, deterministic):
//! an idle agent is stopped and the next message resumes its conversation; turns beyond
//! `max_running_agents` wait `queued` and start in order; each live agent's process group is
//! measured.

use std::time::Duration;

use codiva_core::manager::{BudgetOptions, CreateOptions, Manager};
use codiva_protocol::UserInput;
use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::{DiscardOutcome, ManagerEvent, SessionInfo, SessionPhase};
use codiva_protocol::session::{Scope, SessionEvent, Status};
use codiva_testkit::TestRepo;
use tokio::sync::broadcast;

use super::{log_texts, options, until, until_status};

fn create(prompt: &str) -> CreateOptions {
    CreateOptions {
        prompt: prompt.to_owned(),
        ..CreateOptions::default()
    }
}

/// Waits for a manager event `pick` takes.
async fn until_manager<T>(
    events: &mut codiva_core::manager::EventReceiver,
    mut pick: impl FnMut(&ManagerEvent) -> Option<T>,
) -> T {
    let wait = async {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(found) = pick(&event) {
                        return found;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the manager stopped"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .expect("timed out waiting for a manager event")
}

/// Waits for a row of session `id` that `pick` takes.
async fn until_info(
    events: &mut codiva_core::manager::EventReceiver,
    id: &str,
    pick: impl Fn(&SessionInfo) -> bool,
) -> SessionInfo {
    until_manager(events, |event| match event {
        ManagerEvent::Session { session } if session.id == id && pick(session) => {
            Some(session.clone())
        }
        _ => None,
    })
    .await
}

async fn status_of(manager: &Manager, id: &str) -> Status {
    let list = manager.list().await.unwrap();
    list.iter().find(|s| s.id == id).unwrap().status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_agent_is_stopped_and_the_next_message_resumes_its_conversation() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    options.budget = BudgetOptions {
        idle_stop: Some(Duration::from_millis(300)),
        sample_every: Duration::from_millis(100),
        ..BudgetOptions::default()
    };
    let (manager, _) = Manager::start(options).await.unwrap();
    let mut events = manager.subscribe();
    let id = manager.create(create("say hello")).await.unwrap().id;
    until_status(&mut events, &id, Status::Completed).await;
    let conversation = manager
        .snapshot(&id)
        .await
        .unwrap()
        .agent_session_id
        .unwrap();

    // Idle: the process is stopped, as asked for (no crash, no restart), and the session
    // keeps the agent's own last status.
    let requested = until(&mut events, &id, |event| match event {
        SessionEvent::AgentExited { requested, .. } => Some(*requested),
        _ => None,
    })
    .await;
    assert!(requested, "the stop was asked for");
    assert_eq!(status_of(&manager, &id).await, Status::Completed);
    let page = manager.read(&id, Scope::Main, None, 100).await.unwrap();
    let notes: Vec<_> = page
        .entries
        .iter()
        .filter_map(|entry| match &entry.kind {
            EntryKind::Note { code, .. } => code.as_ref().map(|code| code.name),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        ["idle_stopped"],
        "one short note, no failure or restart"
    );
    // Its resources are gone with it.
    until_manager(&mut events, |event| match event {
        ManagerEvent::Resources { sessions } => sessions
            .iter()
            .any(|s| s.id == id && s.resources.is_none())
            .then_some(()),
        _ => None,
    })
    .await;

    // The next message starts a process that resumes the same conversation.
    manager.send(&id, UserInput::text("again")).await.unwrap();
    until_status(&mut events, &id, Status::Completed).await;
    let texts = log_texts(&manager, &id).await;
    assert_eq!(
        texts.last().unwrap(),
        &format!("agent: echo: again [resumed {conversation}]")
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_beyond_the_cap_wait_queued_and_start_in_order() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    options.budget = BudgetOptions {
        idle_stop: None,
        max_running_agents: Some(1),
        sample_every: Duration::from_millis(100),
    };
    let (manager, _) = Manager::start(options).await.unwrap();
    let mut events = manager.subscribe();

    // The first session's turn runs (until interrupted) and holds the only slot.
    let first = manager.create(create("slow work")).await.unwrap().id;
    // Its agent's process group is measured while it runs.
    let sample = until_manager(&mut events, |event| match event {
        ManagerEvent::Resources { sessions } => sessions
            .iter()
            .find(|s| s.id == first)
            .and_then(|s| s.resources),
        _ => None,
    })
    .await;
    assert!(sample.rss_bytes > 0 && sample.processes >= 1, "{sample:?}");
    let listed = manager.list().await.unwrap();
    assert!(
        listed
            .iter()
            .find(|s| s.id == first)
            .unwrap()
            .resources
            .is_some()
    );

    // Two more wait, in order.
    let second = manager.create(create("hello second")).await.unwrap().id;
    until_info(&mut events, &second, |s| s.status == Status::Queued).await;
    let third = manager.create(create("hello third")).await.unwrap().id;
    until_info(&mut events, &third, |s| s.status == Status::Queued).await;
    let fourth = manager.create(create("hello fourth")).await.unwrap().id;
    until_info(&mut events, &fourth, |s| s.status == Status::Queued).await;
    assert_eq!(log_texts(&manager, &second).await, Vec::<String>::new());

    // A queued session can be interrupted: it leaves the queue without having run.
    manager.interrupt(&third).await.unwrap();
    assert_eq!(status_of(&manager, &third).await, Status::Interrupted);
    // ... or discarded: it leaves the queue too.
    let fifth = manager.create(create("hello fifth")).await.unwrap().id;
    until_info(&mut events, &fifth, |s| s.status == Status::Queued).await;
    let preview = manager.discard(&fifth, None).await.unwrap();
    let DiscardOutcome::NeedsConfirmation { confirm_token, .. } = preview else {
        panic!("a discard asks first: {preview:?}");
    };
    let discarded = manager.discard(&fifth, Some(confirm_token)).await.unwrap();
    let DiscardOutcome::Discarded { session } = discarded else {
        panic!("discarded: {discarded:?}");
    };
    assert_ne!(session.status, Status::Queued);

    // The slot frees: the second starts (not the fourth), runs and completes; then the fourth.
    manager.interrupt(&first).await.unwrap();
    let mut order = Vec::new();
    until_manager(&mut events, |event| match event {
        ManagerEvent::Event {
            id,
            event:
                SessionEvent::Status {
                    status: Status::Completed,
                    ..
                },
        } => {
            order.push(id.clone());
            (order.len() == 2).then_some(())
        }
        _ => None,
    })
    .await;
    assert_eq!(order, [second.clone(), fourth.clone()]);
    assert_eq!(
        log_texts(&manager, &second).await,
        ["user: hello second", "agent: echo: hello second"]
    );
    assert_eq!(log_texts(&manager, &third).await, Vec::<String>::new());
    let listed = manager.list().await.unwrap();
    let fifth_row = listed.iter().find(|s| s.id == fifth).unwrap();
    assert_eq!(fifth_row.phase, SessionPhase::Discarded);
    assert_ne!(fifth_row.status, Status::Queued);
    assert_eq!(status_of(&manager, &third).await, Status::Interrupted);
    manager.shutdown().await;
}

/// The notes of session `id`'s log: code name and args.
async fn note_codes(manager: &Manager, id: &str) -> Vec<(String, Vec<String>)> {
    let page = manager.read(id, Scope::Main, None, 1000).await.unwrap();
    page.entries
        .into_iter()
        .filter_map(|entry| match entry.kind {
            EntryKind::Note {
                code: Some(code), ..
            } => Some((code.name.as_str().to_owned(), code.args)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupting_a_queued_session_gives_its_held_messages_back_in_its_log() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    options.budget = BudgetOptions {
        idle_stop: None,
        max_running_agents: Some(1),
        sample_every: Duration::from_millis(100),
    };
    let (manager, _) = Manager::start(options).await.unwrap();
    let mut events = manager.subscribe();
    let first = manager.create(create("slow work")).await.unwrap().id;
    until_status(&mut events, &first, Status::Running).await;

    // The second session waits with two messages held: its first and one more.
    let second = manager.create(create("hello second")).await.unwrap().id;
    until_info(&mut events, &second, |s| s.status == Status::Queued).await;
    manager
        .send(&second, UserInput::text("and a second thought"))
        .await
        .unwrap();
    manager.interrupt(&second).await.unwrap();
    assert_eq!(status_of(&manager, &second).await, Status::Interrupted);

    // Neither was sent, and both are in its log, word for word.
    let wanted = vec![
        ("not_sent".to_owned(), vec!["hello second".to_owned()]),
        (
            "not_sent".to_owned(),
            vec!["and a second thought".to_owned()],
        ),
    ];
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let notes = note_codes(&manager, &second).await;
            if notes.len() >= wanted.len() {
                return notes;
            }
            until(&mut events, &second, |event| match event {
                SessionEvent::Log { .. } => Some(()),
                _ => None,
            })
            .await;
        }
    })
    .await
    .expect("the held messages come back in the log");
    assert_eq!(found, wanted);
    assert_eq!(log_texts(&manager, &second).await, Vec::<String>::new());

    // The slot frees: nothing of the second is sent later.
    manager.interrupt(&first).await.unwrap();
    until_status(&mut events, &first, Status::Interrupted).await;
    assert_eq!(status_of(&manager, &second).await, Status::Interrupted);
    assert_eq!(log_texts(&manager, &second).await, Vec::<String>::new());
    manager.shutdown().await;
}
