//! Event sequence numbers: every notification carries the next `seq`, `manager/snapshot`
//! answers with the rows and the `seq` they reflect, and a client that sees a number skipped
//! resyncs from a snapshot.

use serde_json::{Value, json};

use codiva_testkit::{Match, Reply, Script};

use super::client::World;

fn script() -> Script {
    Script::new()
        .then_when(
            Match::FirstUserContains("SEQ".into()),
            Reply::text("First."),
        )
        .then(Reply::text("Second."))
}

/// The `seq` of each notification that has one, in arrival order.
fn seqs(notes: &[Value]) -> Vec<u64> {
    notes
        .iter()
        .filter_map(|note| note["params"]["seq"].as_u64())
        .collect()
}

/// The first place where a number was skipped: `(last seen, next seen)`.
fn first_gap(seqs: &[u64]) -> Option<(u64, u64)> {
    seqs.windows(2)
        .find(|pair| pair[1] != pair[0] + 1)
        .map(|pair| (pair[0], pair[1]))
}

/// A client's rows: the snapshot's, then every `session/updated` after its `seq`.
fn rows_after(snapshot: &Value, notes: &[Value]) -> Vec<Value> {
    let base = snapshot["seq"].as_u64().unwrap();
    let mut rows: Vec<Value> = snapshot["sessions"].as_array().unwrap().clone();
    for note in notes {
        let params = &note["params"];
        if note["method"] == "session/updated" && params["seq"].as_u64().unwrap() > base {
            let session = params["session"].clone();
            match rows.iter_mut().find(|row| row["id"] == session["id"]) {
                Some(row) => *row = session,
                None => rows.push(session),
            }
        }
    }
    rows
}

#[test]
fn notifications_are_numbered_and_a_snapshot_resyncs_after_a_gap() {
    let world = World::new(|_| script());
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    assert_eq!(init["capabilities"]["event_seq"], true);
    let empty = server.ok("manager/snapshot", json!({}));
    assert_eq!(empty, json!({"seq": 0, "sessions": []}));

    server.ok("session/create", json!({"prompt": "SEQ one"}));
    let id = "seq-one";
    server.wait_status(id, "completed");

    // Every event notification is numbered, from 1, without a gap.
    let events: Vec<&Value> = server
        .arrived
        .iter()
        .filter(|note| note["method"] != "warning")
        .collect();
    assert!(
        events.iter().all(|note| note["params"]["seq"].is_u64()),
        "{events:?}"
    );
    let numbers = seqs(&server.arrived);
    assert_eq!(numbers.first(), Some(&1));
    assert_eq!(first_gap(&numbers), None, "{numbers:?}");

    // The snapshot reflects exactly the events up to its seq: the rows it gives are the rows
    // the numbered `session/updated`s up to it built.
    let snapshot = server.ok("manager/snapshot", json!({}));
    let at = snapshot["seq"].as_u64().unwrap();
    assert!(at >= *numbers.last().unwrap());
    let built = rows_after(&json!({"seq": 0, "sessions": []}), &server.arrived);
    let upto: Vec<Value> = server
        .arrived
        .iter()
        .filter(|note| note["params"]["seq"].as_u64().is_some_and(|seq| seq <= at))
        .cloned()
        .collect();
    assert_eq!(built, rows_after(&json!({"seq": 0, "sessions": []}), &upto));
    assert_eq!(snapshot["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(snapshot["sessions"][0]["status"], "completed");
    assert_eq!(snapshot["sessions"], json!(built));

    // A client that missed events (here: it drops what arrives while the second turn runs)
    // sees the gap in the numbers and resyncs from a fresh snapshot.
    let before = server.arrived.len();
    server.ok("session/send", json!({"session_id": id, "text": "again"}));
    server.wait_status(id, "running");
    server.wait_status(id, "completed");
    // The snapshot taken now, and the events up to its seq (some may still be on their way).
    let resync = server.ok("manager/snapshot", json!({}));
    let resync_at = resync["seq"].as_u64().unwrap();
    if seqs(&server.arrived).last() < Some(&resync_at) {
        server.wait(&format!("event {resync_at}"), |_, params| {
            params["seq"].as_u64() == Some(resync_at)
        });
    }
    let later = server.arrived[before..].to_vec();
    let later_numbers = seqs(&later);
    assert_eq!(later_numbers.last(), Some(&resync_at));
    assert_eq!(
        later_numbers.first(),
        Some(&(at + 1)),
        "the stream goes on from the snapshot"
    );
    assert_eq!(first_gap(&later_numbers), None);
    let mut with_loss = vec![json!({"params": {"seq": at}})];
    with_loss.extend(later.iter().skip(3).cloned());
    let gap = first_gap(&seqs(&with_loss)).expect("a lost event shows as a gap");
    assert_eq!(gap, (at, at + 4));
    assert_eq!(
        resync["sessions"],
        json!(rows_after(&snapshot, &later)),
        "the fresh snapshot is what the full stream built"
    );
    assert_eq!(resync["sessions"][0]["status"], "completed");
    server.close();
}
