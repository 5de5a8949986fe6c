//! `session/fullMessage`: a reply the log cut at its memory cap is read back whole from the
//! agent's own transcript (the real CLI wrote it).

use codiva_testkit::{Reply, Script};
use serde_json::{Value, json};

use super::client::World;

#[test]
fn a_cut_reply_is_read_back_whole_from_the_transcript() {
    // ~330 KB, over the log's 256 KiB cap for one message; Japanese so the cut falls between
    // the bytes of a character somewhere.
    let long: String = (0..9000)
        .map(|i| format!("line {i:05} of a long answer 長い回答\n"))
        .collect();
    assert!(long.len() > 300 * 1024);
    let world = World::new({
        let long = long.clone();
        move |_| Script::new().always(Reply::text(long))
    });
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    let session = server.ok("session/create", json!({"prompt": "write a long answer"}));
    let id = session["session"]["id"].as_str().unwrap().to_owned();
    server.wait_status(&id, "completed");

    let page = server.ok("session/read", json!({"session_id": id, "limit": 1000}));
    let entries = page["entries"].as_array().unwrap();
    let cut: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry["kind"] == "assistant")
        .collect();
    assert_eq!(cut.len(), 1, "{entries:?}");
    let kept = cut[0]["text"].as_str().unwrap();
    assert!(kept.len() < long.len());
    // The log keeps the reply's end, the one its reader followed (issue 24), after a marker of
    // how much went before: `[N more bytes] …` and a newline.
    let (marker, end) = kept.split_once('\n').unwrap();
    let count: usize = marker
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(" more bytes] …"))
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("the log keeps a cut copy: {marker:?}"));
    assert!(long.ends_with(end), "the end is kept");
    assert!(end.len() <= 256 * 1024 && end.ends_with("長い回答\n"));
    assert_eq!(count + end.len(), long.len());

    let full = server.ok(
        "session/fullMessage",
        json!({"session_id": id, "entry": cut[0]["id"]}),
    );
    assert_eq!(full["text"].as_str().unwrap(), long);

    // An entry that was not cut is refused with a reason a client can word.
    let user = entries
        .iter()
        .find(|entry| entry["kind"] == "user")
        .unwrap();
    let err = server
        .call(
            "session/fullMessage",
            json!({"session_id": id, "entry": user["id"]}),
        )
        .unwrap_err();
    assert_eq!(err["code"], -32002, "{err}");
    assert_eq!(err["data"]["reason"], "message_not_cut", "{err}");
}
