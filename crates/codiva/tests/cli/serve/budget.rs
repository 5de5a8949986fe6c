//! Agents kept in budget, end to end with the real Claude Code against the mock model server:
//! an idle agent is stopped after `agent_idle_stop` and the next message resumes the same
//! conversation; with `max_running_agents = 1` a second session waits `queued` until the first
//! finishes; a running agent's process group is measured.

use codiva_testkit::{Match, Reply, Rule, Script};
use serde_json::{Value, json};

use super::client::{World, alive};

fn config(world: &World, extra: &str) {
    std::fs::write(
        &world.config,
        format!("fetch_base = false\ntitles = \"prompt\"\n{extra}"),
    )
    .unwrap();
}

/// The agent's command line (`/proc/<pid>/cmdline`, NUL-separated).
fn args_of(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn session_row(server: &mut super::client::Server, id: &str) -> Value {
    let list = server.ok("session/list", json!({}));
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .cloned()
        .unwrap()
}

#[test]
fn an_idle_agent_is_stopped_and_the_next_message_resumes_its_conversation() {
    let world = World::new(|_| {
        Script::new()
            .rule(Rule::new(
                Match::LastUserContains("SECOND".into()),
                // Long enough that the resumed process is still streaming when it is looked at.
                Reply::text_slow("Second answer, streamed slowly. ".repeat(20), 8, 40),
            ))
            .rule(Rule::new(
                Match::FirstUserContains("IDLE".into()),
                Reply::text("First answer."),
            ))
    });
    config(&world, "agent_idle_stop = \"2s\"\n");
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let id = server.ok("session/create", json!({"prompt": "IDLE then stop"}))["session"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    server.wait_status(&id, "completed");
    let conversation = server.wait("the agent's session id", |m, p| {
        m == "session/agentSession" && p["session_id"] == id
    })["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let children = world.recorded_children();
    assert_eq!(children.len(), 1, "{children:?}");
    let (first_pid, _) = children[0];

    // Idle for 2 s: the process is stopped (asked for), reaped, and nothing else changes.
    let exited = server.wait("the idle agent to stop", |m, p| {
        m == "session/agentExited" && p["session_id"] == id
    });
    assert_eq!(exited["requested"], true, "{exited}");
    assert!(!alive(first_pid), "the idle agent's process is gone");
    assert!(world.recorded_children().is_empty());
    let row = session_row(&mut server, &id);
    assert_eq!(row["status"], "completed", "{row}");
    assert!(
        row.get("resources").is_none(),
        "no process, no resources: {row}"
    );
    let statuses: Vec<&Value> = server
        .arrived
        .iter()
        .filter(|n| n["method"] == "session/status" && n["params"]["session_id"] == id)
        .map(|n| &n["params"]["status"])
        .collect();
    assert_eq!(
        statuses.last().unwrap().as_str(),
        Some("completed"),
        "{statuses:?}"
    );

    // The next message resumes the same conversation in a new process (what the first turn
    // streamed is set aside: only the second turn's stream counts below).
    server.notes.clear();
    server.ok(
        "session/send",
        json!({"session_id": id, "text": "SECOND message"}),
    );
    server.wait("the second answer streaming", |m, p| {
        m == "session/stream" && p["session_id"] == id
    });
    let children = world.recorded_children();
    assert_eq!(children.len(), 1, "{children:?}");
    let (second_pid, _) = children[0];
    assert_ne!(second_pid, first_pid);
    let args = args_of(second_pid);
    let resume = args.iter().position(|arg| arg == "--resume");
    assert_eq!(
        resume.and_then(|at| args.get(at + 1)),
        Some(&conversation),
        "{args:?}"
    );
    server.wait_status(&id, "completed");
    // The model saw the first exchange: it is the same conversation.
    let last = world.mock.message_requests().last().cloned().unwrap();
    let body = last.body.to_string();
    assert!(
        body.contains("IDLE then stop") && body.contains("First answer."),
        "{body}"
    );
    assert!(server.close().success());
}

#[test]
fn with_one_agent_slot_a_second_session_waits_queued_until_the_first_finishes() {
    let world = World::new(|_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::FirstUserContains("ALPHA".into()),
                    Reply::text_slow("Alpha is working on it. ".repeat(30), 8, 40),
                )
                .times(codiva_testkit::Times::Always),
            )
            .rule(
                Rule::new(
                    Match::FirstUserContains("BRAVO".into()),
                    Reply::text("Bravo done."),
                )
                .times(codiva_testkit::Times::Always),
            )
    });
    config(&world, "max_running_agents = 1\n");
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let alpha = server.ok("session/create", json!({"prompt": "ALPHA runs first"}))["session"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    server.wait("alpha streaming", |m, p| {
        m == "session/stream" && p["session_id"] == alpha
    });
    // Its agent's process group is measured while it works.
    let sample = server.wait("alpha's resources", |m, p| {
        m == "session/resources"
            && p["sessions"].as_array().is_some_and(|s| {
                s.iter()
                    .any(|s| s["id"] == alpha && s["resources"].is_object())
            })
    });
    let usage = sample["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == alpha)
        .unwrap()["resources"]
        .clone();
    assert!(usage["rss_bytes"].as_u64().unwrap() > 0, "{usage}");
    assert!(usage["processes"].as_u64().unwrap() >= 1, "{usage}");

    let bravo = server.ok("session/create", json!({"prompt": "BRAVO waits"}))["session"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    server.wait("bravo queued", |m, p| {
        m == "session/updated" && p["session"]["id"] == bravo && p["session"]["status"] == "queued"
    });
    server.wait_status(&alpha, "completed");
    server.wait_status(&bravo, "completed");

    // Bravo's agent did nothing before Alpha's turn ended: its first status after the queue
    // comes after Alpha's completion, and the model saw no Bravo request before then.
    let index = |pred: &dyn Fn(&Value) -> bool| server.arrived.iter().position(pred).unwrap();
    let alpha_done = index(&|n| {
        n["method"] == "session/status"
            && n["params"]["session_id"] == alpha
            && n["params"]["status"] == "completed"
    });
    let bravo_first =
        index(&|n| n["method"] == "session/status" && n["params"]["session_id"] == bravo);
    assert!(alpha_done < bravo_first, "{alpha_done} < {bravo_first}");
    let requests = world.mock.message_requests();
    let first_bravo = requests
        .iter()
        .position(|r| r.body.to_string().contains("BRAVO waits"))
        .unwrap();
    let last_alpha = requests
        .iter()
        .rposition(|r| r.body.to_string().contains("ALPHA runs first"))
        .unwrap();
    assert!(last_alpha < first_bravo, "{last_alpha} < {first_bravo}");
    assert_eq!(session_row(&mut server, &bravo)["status"], "completed");
    assert!(server.close().success());
}
