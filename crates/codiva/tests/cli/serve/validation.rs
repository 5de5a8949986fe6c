//! Input is checked where it enters: answers to prompts that are not pending (or of the
//! other kind, or wider than what was offered), permission modes the agent does not have and
//! images it cannot take are refused with a named field or a refusal code, and nothing of them
//! reaches the agent (its wire log and the mock model server prove it).

use serde_json::{Value, json};

use codiva_testkit::{Match, MockMessage, Reply, Script};

use super::client::{Server, World};

/// Every line codiva wrote to the agents' stdin so far (all wire logs of the state dir).
fn lines_to_agent(world: &World) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(world.state.path().join("wire")) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .flat_map(|text| {
            text.lines()
                .filter(|line| line.contains(" >> "))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn refused(error: &Value, reason: &str) {
    assert_eq!(error["code"], -32002, "{error}");
    assert_eq!(error["data"]["reason"], reason, "{error}");
}

fn invalid(error: &Value, field: &str) {
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["data"]["field"], field, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains(field),
        "{error}"
    );
}

fn still_waiting(server: &mut Server, id: &str, status: &str) {
    let snapshot = server.ok("session/snapshot", json!({"session_id": id}));
    assert_eq!(snapshot["status"], status, "{snapshot}");
    assert_eq!(snapshot["prompts"].as_array().unwrap().len(), 1);
}

#[test]
fn stale_wrong_kind_and_widened_answers_are_refused() {
    let world = World::new(|repo| {
        let file = repo.join(".codiva/worktrees/perm-writes-a-file/out.txt");
        Script::new()
            .then_when(
                Match::LastUserContains("PERM".into()),
                Reply::message(
                    MockMessage::new().tool_use("Write", json!({"file_path": file, "content": "x\n"})),
                ),
            )
            .then_when(Match::Any, Reply::text("Written."))
            .then_when(
                Match::LastUserContains("ASK".into()),
                Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which greeting?", "header": "Greeting", "multiSelect": false,
                        "options": [{"label": "Hello", "description": "plain"}, {"label": "Hi", "description": "short"}]}]}),
                ),
            )
            .then_when(Match::Any, Reply::text("Answered."))
    });
    let id = "perm-writes-a-file";
    let mut server = world.serve();
    server.ok("session/create", json!({"prompt": "PERM writes a file"}));
    let prompt = server.wait_prompt(id, "permission");
    let request_id = prompt["request_id"].as_str().unwrap().to_owned();
    let offered = prompt["suggestions"].as_array().unwrap().len();
    assert!(offered > 0, "{prompt}");
    let answer = |decision: Value| {
        let mut params = json!({"session_id": id, "request_id": request_id});
        params
            .as_object_mut()
            .unwrap()
            .extend(decision.as_object().unwrap().clone());
        params
    };

    // A scope the request does not offer is not "the whole tool".
    let err = server
        .call(
            "session/respondPermission",
            answer(json!({"decision": "allow_always", "suggestion": offered})),
        )
        .unwrap_err();
    invalid(&err, "suggestion");
    // Unknown ids and the other kind of answer.
    let err = server
        .call(
            "session/respondPermission",
            json!({"session_id": id, "request_id": "nope", "decision": "allow"}),
        )
        .unwrap_err();
    refused(&err, "no_pending_prompt");
    assert_eq!(err["data"]["args"], json!(["nope"]));
    let err = server
        .call(
            "session/answerQuestion",
            answer(json!({"answers": {"Which greeting?": "Hello"}})),
        )
        .unwrap_err();
    refused(&err, "wrong_prompt_kind");
    // Wrong types name their field.
    let err = server
        .call(
            "session/respondPermission",
            answer(json!({"decision": "allow_always", "suggestion": "first"})),
        )
        .unwrap_err();
    invalid(&err, "suggestion");
    let err = server
        .call(
            "session/respondPermission",
            answer(json!({"decision": "yes"})),
        )
        .unwrap_err();
    invalid(&err, "decision");
    still_waiting(&mut server, id, "awaiting_permission");
    let answered: Vec<String> = lines_to_agent(&world)
        .into_iter()
        .filter(|line| line.contains(&request_id))
        .collect();
    assert_eq!(answered, Vec::<String>::new(), "nothing reached the agent");

    server.ok(
        "session/respondPermission",
        answer(json!({"decision": "allow"})),
    );
    server.wait_status(id, "completed");
    // Already answered.
    let err = server
        .call(
            "session/respondPermission",
            answer(json!({"decision": "allow"})),
        )
        .unwrap_err();
    refused(&err, "no_pending_prompt");
    let answers = lines_to_agent(&world)
        .into_iter()
        .filter(|line| line.contains(&request_id))
        .count();
    assert_eq!(answers, 1, "one answer reached the agent");

    // A question: a permission answer to it is refused too.
    server.ok("session/send", json!({"session_id": id, "text": "ASK me"}));
    let question = server.wait_prompt(id, "question");
    let question_id = question["request_id"].as_str().unwrap().to_owned();
    let err = server
        .call(
            "session/respondPermission",
            json!({"session_id": id, "request_id": question_id, "decision": "allow"}),
        )
        .unwrap_err();
    refused(&err, "wrong_prompt_kind");
    assert_eq!(err["data"]["args"], json!([question_id, "permission"]));
    let err = server
        .call(
            "session/answerQuestion",
            json!({"session_id": id, "request_id": question_id, "answers": {}}),
        )
        .unwrap_err();
    invalid(&err, "answers");
    still_waiting(&mut server, id, "awaiting_answer");
    assert!(
        !lines_to_agent(&world)
            .iter()
            .any(|line| line.contains(&question_id)),
        "nothing reached the agent"
    );
    server.ok(
        "session/answerQuestion",
        json!({"session_id": id, "request_id": question_id, "answers": {"Which greeting?": "Hi"}}),
    );
    server.wait_status(id, "completed");
    assert!(server.close().success());
}

#[test]
fn bogus_permission_modes_and_bad_images_never_reach_the_agent() {
    let world = World::new(|_| Script::new().always(Reply::text("Fine.")));
    std::fs::write(
        &world.config,
        "fetch_base = false\ntitles = \"prompt\"\npermission_mode = \"bogus\"\n",
    )
    .unwrap();
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    let warnings = init["warnings"].to_string();
    assert!(
        warnings.contains("permission_mode") && warnings.contains("bogus"),
        "{warnings}"
    );

    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let err = server
        .call(
            "session/create",
            json!({"prompt": "hello", "permission_mode": "bogus"}),
        )
        .unwrap_err();
    invalid(&err, "permission_mode");
    let err = server
        .call(
            "session/create",
            json!({"prompt": "hello", "images": [{"media_type": "image/png", "data": "%%% not base64"}]}),
        )
        .unwrap_err();
    invalid(&err, "images[0].data");
    let err = server
        .call(
            "session/create",
            json!({"prompt": "hello", "images": [{"media_type": "image/png", "data": png},
                                                  {"media_type": "image/bmp", "data": png}]}),
        )
        .unwrap_err();
    invalid(&err, "images[1].media_type");
    let err = server
        .call(
            "session/create",
            json!({"prompt": "hello", "images": [{"media_type": "image/jpeg", "data": png}]}),
        )
        .unwrap_err();
    invalid(&err, "images[0].data");
    let err = server
        .call(
            "session/create",
            json!({"prompt": "hello", "images": [{"media_type": "image/png"}]}),
        )
        .unwrap_err();
    invalid(&err, "images");
    assert!(err["message"].as_str().unwrap().contains("data"), "{err}");
    let list = server.ok("session/list", json!({}));
    assert_eq!(list["sessions"], json!([]), "no session was created");
    assert!(world.mock.message_requests().is_empty());

    // A valid session: a bogus mode or image sent to it changes nothing.
    server.ok(
        "session/create",
        json!({"prompt": "hello there", "images": [{"media_type": "image/png", "data": png}]}),
    );
    let id = "hello-there";
    server.wait_status(id, "completed");
    let requests = world.mock.message_requests().len();
    let before = server.ok("session/snapshot", json!({"session_id": id}));
    let err = server
        .call(
            "session/setPermissionMode",
            json!({"session_id": id, "mode": "bogus"}),
        )
        .unwrap_err();
    invalid(&err, "mode");
    let err = server
        .call(
            "session/send",
            json!({"session_id": id, "text": "look", "images": [{"media_type": "image/gif", "data": "QUFBQUFBQUJC"}]}),
        )
        .unwrap_err();
    invalid(&err, "images[0].data");
    let err = server
        .call("session/read", json!({"session_id": id, "limit": -1}))
        .unwrap_err();
    invalid(&err, "limit");
    let after = server.ok("session/snapshot", json!({"session_id": id}));
    assert_eq!(after["permission_mode"], before["permission_mode"]);
    assert_eq!(after["status"], "completed");
    assert_eq!(world.mock.message_requests().len(), requests);
    let to_agent = lines_to_agent(&world);
    assert!(
        !to_agent
            .iter()
            .any(|line| line.contains("bogus") || line.contains("QUFBQUFBQUJC")),
        "{to_agent:#?}"
    );
    // The documented clamp: at most 1000 entries, at least one.
    let page = server.ok("session/read", json!({"session_id": id, "limit": 0}));
    assert_eq!(page["entries"].as_array().unwrap().len(), 1);
    assert!(server.close().success());
}

/// What an empty answer does (documented in serve-api.md): codiva passes it on (the prompt
/// closes as `answered`), and Claude Code tells the model that the user did not answer — in a
/// tool result that is not an error, unlike a decline.
#[test]
fn an_empty_answer_tells_the_model_the_user_did_not_answer() {
    let world = World::new(|_| {
        Script::new()
            .then_when(
                Match::LastUserContains("ASK".into()),
                Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which greeting?", "header": "Greeting", "multiSelect": false,
                        "options": [{"label": "Hello", "description": "plain"}, {"label": "Hi", "description": "short"}]}]}),
                ),
            )
            .then_when(Match::Any, Reply::text("Answered."))
    });
    let mut server = world.serve();
    server.ok("session/create", json!({"prompt": "ASK me"}));
    let question = server.wait_prompt("ask-me", "question");
    server.ok(
        "session/answerQuestion",
        json!({"session_id": "ask-me", "request_id": question["request_id"], "answers": {"Which greeting?": ""}}),
    );
    let closed = server.wait("the prompt closed", |m, _| m == "session/promptClosed");
    assert_eq!(closed["resolution"], "answered");
    server.wait_status("ask-me", "completed");
    let last = world.mock.message_requests().last().cloned().unwrap();
    let body = last.body.to_string();
    assert!(
        body.contains(r#""content":"The user did not answer the questions.","tool_use_id""#),
        "{body}"
    );
    assert!(!body.contains(r#""is_error":true"#), "not an error result");
    assert!(server.close().success());
}
