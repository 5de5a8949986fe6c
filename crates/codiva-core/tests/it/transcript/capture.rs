//! Captures real Claude Code transcripts for the fixtures under
//! `tests/fixtures/claude-transcripts/<scenario>/`: the real CLI runs against the mock model
//! server in a sandbox, then the files it wrote under `<HOME>/.claude/projects/<cwd>/` are
//! copied with the run's paths replaced by placeholders (`/work/repo`, `/home/user`,
//! `/tmp/agent-tmp`, and their mangled forms).
//!
//! `CODIVA_CAPTURE_FIXTURES=1 cargo test -p codiva-core --test it transcript::capture` re-captures
//! (`CODIVA_CAPTURE_SCENARIOS=a,b` only those scenarios).

use std::path::{Path, PathBuf};

use codiva_core::transcript;
use codiva_testkit::{
    AgentSandbox, Match, MockMessage, MockServer, RawClaude, Reply, Script, TestRepo,
};
use serde_json::json;

/// Where the sanitised transcripts go: one fake `~/.claude` per scenario.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-transcripts")
}

/// The working directory the fixtures pretend the CLI ran in.
pub const REPO: &str = "/work/repo";
const HOME: &str = "/home/user";
const TMP: &str = "/tmp/agent-tmp";

/// A scenario: its script (given the repo path) and its turns.
struct Scenario {
    name: &'static str,
    script: fn(&Path) -> Script,
    /// `(message, interrupt while streaming)`.
    turns: &'static [(&'static str, bool)],
    /// Deny every permission prompt instead of allowing it.
    deny: bool,
    /// A message the user sends during the first turn, and when.
    during: Option<(&'static str, During)>,
    env: &'static [(&'static str, &'static str)],
}

pub const SUB_PROMPT: &str = "SUBAGENT-PROMPT list the files";
pub const FOLDED: &str = "FOLDED also mention the weather";
pub const QUEUED: &str = "QUEUED and then the next one";

#[derive(Clone, Copy)]
enum During {
    /// While the first permission prompt is open (answered right after).
    Prompt,
    /// While the answer's text streams.
    Stream,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "text-ja",
            script: |_| {
                Script::new().then(Reply::message(
                    MockMessage::new()
                        .thinking("日本語で答えよう。", "sig-ja")
                        .text("こんにちは！日本語のテキストです。絵文字も🎌含みます。"),
                ))
            },
            turns: &[("日本語で挨拶して", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "write-allow",
            script: |repo| {
                Script::new()
                    .then(Reply::message(
                        MockMessage::new().text("Writing it.").tool_use_with_id(
                            "toolu_mock_write1",
                            "Write",
                            json!({"file_path": repo.join("hello.txt"), "content": "héllo 世界\n"}),
                        ),
                    ))
                    .then(Reply::text("Done: wrote hello.txt"))
            },
            turns: &[("create hello.txt", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "bash-fail",
            script: |_| {
                Script::new()
                    .then(Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_mock_bash1",
                        "Bash",
                        json!({"command": "echo partial; exit 3", "description": "Fail on purpose"}),
                    )))
                    .then(Reply::text("The command failed with exit code 3."))
            },
            turns: &[("run the failing command", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "interrupt",
            script: |_| {
                Script::new()
                    .then(Reply::text_slow(
                        "This is a very slow answer. ".repeat(40),
                        4,
                        50,
                    ))
                    .then(Reply::text("Back after the interrupt."))
            },
            turns: &[("tell me a long story", true), ("continue", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "subagent",
            script: |_| {
                Script::new()
                    .then_when(
                        Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                        Reply::message(MockMessage::new().text("Listing.").tool_use_with_id(
                            "toolu_mock_sub_ls",
                            "Bash",
                            json!({"command": "ls", "description": "List files"}),
                        )),
                    )
                    .then_when(
                        Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                        Reply::text("SUBAGENT-REPORT the repo has README.md only."),
                    )
                    .then_when(
                        Match::FirstUserContains("PARENT-PROMPT".into()),
                        Reply::message(MockMessage::new().tool_use_with_id(
                            "toolu_mock_agent1",
                            "Agent",
                            json!({
                                "description": "Inspect the repo",
                                "prompt": SUB_PROMPT,
                                "subagent_type": "general-purpose",
                                "run_in_background": false
                            }),
                        )),
                    )
                    .then_when(
                        Match::FirstUserContains("PARENT-PROMPT".into()),
                        Reply::text("Parent done: README.md only."),
                    )
            },
            turns: &[("PARENT-PROMPT inspect the repo", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "api-error",
            script: |_| {
                Script::new().always(Reply::error(500, "api_error", "Internal server error"))
            },
            turns: &[("say hi", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "write-deny",
            script: |repo| {
                Script::new()
                    .then(Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_mock_write_denied",
                        "Write",
                        json!({"file_path": repo.join("nope.txt"), "content": "no\n"}),
                    )))
                    .then(Reply::text("Understood, not writing it."))
            },
            turns: &[("create nope.txt", false)],
            deny: true,
            during: None,
            env: &[],
        },
        Scenario {
            name: "todos",
            script: |_| {
                Script::new()
                    .then(Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_mock_task_create",
                        "TaskCreate",
                        json!({"subject": "Write tests", "description": "Cover the reader"}),
                    )))
                    .then(Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_mock_task_update",
                        "TaskUpdate",
                        json!({"taskId": "1", "status": "completed"}),
                    )))
                    .then(Reply::text("Tests written."))
            },
            turns: &[("plan and write the tests", false)],
            deny: false,
            during: None,
            env: &[("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")],
        },
        Scenario {
            name: "subagent-background",
            script: |_| {
                Script::new()
                    .then_when(
                        Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                        Reply::text_slow("SUBAGENT-REPORT background done.", 4, 100),
                    )
                    .then_when(
                        Match::AnyUserContains("<task-notification>".into()),
                        Reply::text("All done."),
                    )
                    .then_when(
                        Match::FirstUserContains("PARENT-PROMPT".into()),
                        Reply::message(MockMessage::new().tool_use_with_id(
                            "toolu_mock_agent_bg",
                            "Agent",
                            json!({
                                "description": "Inspect in the background",
                                "prompt": SUB_PROMPT,
                                "subagent_type": "general-purpose",
                                "run_in_background": true
                            }),
                        )),
                    )
                    .then_when(
                        Match::FirstUserContains("PARENT-PROMPT".into()),
                        Reply::text("Parent done while the agent works."),
                    )
            },
            turns: &[("PARENT-PROMPT inspect the repo in the background", false)],
            deny: false,
            during: None,
            env: &[],
        },
        Scenario {
            name: "folded-message",
            script: |repo| {
                Script::new()
                    .then_when(
                        Match::LastUserContains("write notes.txt".into()),
                        Reply::tool_use(
                            "Write",
                            json!({"file_path": repo.join("notes.txt"), "content": "notes\n"}),
                        ),
                    )
                    .then_when(
                        Match::LastUserContains(FOLDED.into()),
                        Reply::text("Written, and it is sunny."),
                    )
            },
            turns: &[("write notes.txt", false)],
            deny: false,
            during: Some((FOLDED, During::Prompt)),
            env: &[],
        },
        Scenario {
            name: "queued-message",
            script: |_| {
                Script::new()
                    .then(Reply::text_slow("A slow first answer. ".repeat(10), 5, 40))
                    .then_when(
                        Match::LastUserContains(QUEUED.into()),
                        Reply::text("The queued answer."),
                    )
            },
            turns: &[("first", false)],
            deny: false,
            during: Some((QUEUED, During::Stream)),
            env: &[],
        },
    ]
}

/// Runs a turn in which the user sends `message` at `when`, until both are answered: one
/// result when the CLI folds it into the turn, two when it queues it for a turn of its own.
async fn turn_with_message(claude: &mut RawClaude, message: &str, when: During) -> String {
    let mut sent = false;
    let mut deltas = 0;
    let mut session_id = String::new();
    while let Some(line) = claude.next_line().await {
        let is_prompt =
            line["type"] == "control_request" && line["request"]["subtype"] == "can_use_tool";
        let is_delta = line["event"]["delta"]["type"] == "text_delta";
        deltas += usize::from(is_delta);
        let now = match when {
            During::Prompt => is_prompt,
            During::Stream => is_delta && deltas == 3,
        };
        if now && !sent {
            sent = true;
            // As codiva sends it: content blocks.
            claude
                .send(
                    json!({"type": "user", "parent_tool_use_id": null, "session_id": "",
                    "message": {"role": "user", "content": [{"type": "text", "text": message}]}}),
                )
                .await;
        }
        if is_prompt {
            claude
                .send(json!({"type": "control_response", "response": {
                    "subtype": "success", "request_id": line["request_id"],
                    "response": {"behavior": "allow"}}}))
                .await;
        }
        if line["type"] == "result" {
            session_id = line["session_id"].as_str().unwrap().to_owned();
            let answered = claude.seen.iter().any(|seen| {
                seen["type"] == "user"
                    && seen["isReplay"] == true
                    && seen.to_string().contains(message)
            });
            if answered {
                break;
            }
        }
    }
    session_id
}

async fn run(scenario: &Scenario, out: &Path) {
    let repo = TestRepo::new().unwrap();
    let server = MockServer::start((scenario.script)(repo.path())).unwrap();
    let mut sandbox = AgentSandbox::new().unwrap().with_max_retries(0);
    for (key, value) in scenario.env {
        sandbox = sandbox.with_env(*key, *value);
    }
    let mut claude = RawClaude::spawn(&sandbox, &server, repo.path());
    let mut session_id = String::new();
    for (index, (text, interrupt)) in scenario.turns.iter().enumerate() {
        claude.say(text).await;
        if let (0, Some((message, when))) = (index, scenario.during) {
            session_id = turn_with_message(&mut claude, message, when).await;
            continue;
        }
        let mut deltas = 0;
        let result = claude
            .until_result_interrupting(
                |_| {
                    if scenario.deny {
                        json!({"behavior": "deny", "message": "Not now, thanks."})
                    } else {
                        json!({"behavior": "allow"})
                    }
                },
                |line| {
                    let is_delta = line["event"]["delta"]["type"] == "text_delta";
                    deltas += usize::from(is_delta);
                    *interrupt && is_delta && deltas == 5
                },
            )
            .await;
        session_id = result["session_id"].as_str().unwrap().to_owned();
    }
    claude.finish().await;

    let cwd = repo.path().canonicalize().unwrap();
    let claude_home = sandbox.home.path().join(".claude");
    let source = transcript::project_dir(&claude_home, &cwd);
    assert!(
        transcript::transcript_path(&claude_home, &cwd, &session_id).is_file(),
        "the mangling rule must match the CLI's: {} has {:?}",
        source.display(),
        std::fs::read_dir(claude_home.join("projects"))
            .map(|dir| dir.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
    );
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (path, placeholder) in [
        (cwd.clone(), REPO),
        (repo.path().to_path_buf(), REPO),
        (sandbox.home.path().to_path_buf(), HOME),
        (sandbox.tmp.path().to_path_buf(), TMP),
    ] {
        for path in [path.clone(), path.canonicalize().unwrap_or(path)] {
            let text = path.display().to_string();
            pairs.push((transcript::mangle(&text), transcript::mangle(placeholder)));
            pairs.push((text, placeholder.to_owned()));
        }
    }
    pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    pairs.dedup();
    let port = server
        .url()
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_owned();
    pairs.push((format!("127.0.0.1:{port}"), "127.0.0.1:<PORT>".to_owned()));

    let target = out
        .join(scenario.name)
        .join("projects")
        .join(transcript::mangle(REPO));
    let _ = std::fs::remove_dir_all(out.join(scenario.name));
    copy_sanitised(&source, &target, &pairs);
}

/// Copies the transcript files (`*.jsonl`, `*.meta.json`) under `from` to `to`, replacing
/// `pairs` in their text. Other files (memory, tool output) are left out.
fn copy_sanitised(from: &Path, to: &Path, pairs: &[(String, String)]) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "memory" {
                copy_sanitised(&path, &to.join(&name), pairs);
            }
            continue;
        }
        if !(name.ends_with(".jsonl") || name.ends_with(".meta.json")) {
            continue;
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in pairs {
            text = text.replace(from.as_str(), to);
        }
        std::fs::create_dir_all(to).unwrap();
        std::fs::write(to.join(&name), text).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_transcript_fixtures() {
    if std::env::var_os("CODIVA_CAPTURE_FIXTURES").is_none_or(|v| v != "1") {
        return;
    }
    let only = std::env::var("CODIVA_CAPTURE_SCENARIOS").unwrap_or_default();
    for scenario in scenarios() {
        if !only.is_empty() && !only.split(',').any(|name| name == scenario.name) {
            continue;
        }
        run(&scenario, &fixtures_dir()).await;
    }
}

/// The directory rule checked against the CLI itself, with characters that are not ASCII
/// alphanumerics (dot, underscore, space, CJK, an emoji) and a path over 200 characters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_dir_matches_the_cli_for_odd_and_long_paths() {
    let repo = TestRepo::new().unwrap();
    let cwd = repo.path().join("odd dir_x.y 日本🎌").join("l".repeat(190));
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    assert!(cwd.to_string_lossy().encode_utf16().count() > 200);
    let server = MockServer::start(Script::new().then(Reply::text("はい"))).unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let mut claude = RawClaude::spawn(&sandbox, &server, &cwd);
    claude.say("hi").await;
    let result = claude.until_result(|_| json!({"behavior": "allow"})).await;
    let session = result["session_id"].as_str().unwrap().to_owned();
    claude.finish().await;
    let home = sandbox.home.path().join(".claude");
    let projects: Vec<_> = std::fs::read_dir(home.join("projects"))
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    assert!(
        transcript::transcript_path(&home, &cwd, &session).is_file(),
        "expected {}, the CLI wrote {projects:?}",
        transcript::project_dir(&home, &cwd).display()
    );
    let log = transcript::read_transcript(&home, &cwd, &session).unwrap();
    assert_eq!(
        log.main,
        vec![
            codiva_protocol::log::EntryKind::User { text: "hi".into() },
            codiva_protocol::log::EntryKind::Assistant {
                text: "はい".into()
            },
        ]
    );
}
