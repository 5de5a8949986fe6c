//! Attempts end to end (issue 28's acceptance) with the real Claude Code and Codex against the
//! mock model servers, in the repository's daemon: one instruction to `claude`, `codex` and
//! `claude:sonnet`, each writing its own file after a permission answered by a client (the
//! inbox); the repository's check passes for two and fails for one; the comparison shows what
//! git and the agents report; keeping one archives the others and restore brings one back.
//! `codiva exec --attempts` runs the same headless, prints the table and exits by the results.

use std::path::Path;
use std::process::{Command, Stdio};

use codiva_testkit::{Match, MockMessage, Reply, Rule, Script, Times, codex_binary};
use serde_json::{Value, json};

use crate::daemon::DaemonWorld;
use crate::serve::client::Server;

const INSTRUCTION: &str = "write your file";

/// Each agent (told apart by the model its requests name) writes its own file, then says so:
/// Claude's default model (opus) and Codex write `ok`, Claude on sonnet writes `broken`.
fn script() -> Script {
    let always = |when: Match, reply: Reply| Rule::new(when, reply).times(Times::Always);
    let first = |model: &str| {
        Match::All(vec![
            Match::ModelContains(model.to_owned()),
            Match::LastUserContains(INSTRUCTION.to_owned()),
        ])
    };
    let bash = |command: &str| {
        Reply::tool_use(
            "Bash",
            json!({"command": command, "description": "write the file"}),
        )
    };
    Script::new()
        .rule(always(
            first("sonnet"),
            bash("printf 'broken\\n' > sonnet.txt"),
        ))
        .rule(always(
            Match::ModelContains("sonnet".into()),
            Reply::text("Wrote sonnet.txt."),
        ))
        .rule(always(first("opus"), bash("printf 'ok\\n' > opus.txt")))
        .rule(always(
            Match::ModelContains("opus".into()),
            Reply::text("Wrote opus.txt."),
        ))
        .rule(always(
            first("gpt"),
            Reply::message(MockMessage::new().text("Writing.").custom_tool(
                "apply_patch",
                "*** Begin Patch\n*** Add File: codex.txt\n+ok\n*** End Patch\n",
            )),
        ))
        .rule(always(
            Match::ModelContains("gpt".into()),
            Reply::text("Wrote codex.txt."),
        ))
}

/// The repository's own check: no `broken` in any text file of the worktree.
fn write_check(repo: &Path, check: &str) {
    std::fs::create_dir_all(repo.join(".codiva")).unwrap();
    std::fs::write(
        repo.join(".codiva/config.toml"),
        format!("check = {check:?}\ncheck_timeout = 120\n"),
    )
    .unwrap();
}

const CHECK: &str = "! grep -rqs broken --include='*.txt' .";

/// `codiva ARGS` in the daemon world, with Codex as well as Claude Code.
fn codiva(daemon: &DaemonWorld, args: &[&str]) -> Command {
    let world = &daemon.world;
    let codex = world.sandbox.codex_env(&world.mock.url()).unwrap();
    let mut command = daemon.codiva(args);
    for (key, value) in codex {
        if key == "CODEX_HOME" {
            command.env(key, value);
        }
    }
    command.env("CODIVA_CODEX", codex_binary());
    command
}

/// Waits until every attempt is completed with its check ended, answering each permission as
/// it comes (allowed); the last row of each.
fn settle(server: &mut Server, ids: &[String]) -> Vec<Value> {
    let mut rows: Vec<Option<Value>> = vec![None; ids.len()];
    let mut asked = 0;
    while rows.iter().any(Option::is_none) {
        let of_ours = |params: &Value| {
            ids.iter().any(|id| {
                params["session_id"] == id.as_str() || params["session"]["id"] == id.as_str()
            })
        };
        let (method, params) = {
            let note = server.wait("an attempt's permission or row", |method, params| {
                (method == "session/permission" || method == "session/updated") && of_ours(params)
            });
            let method = if note.get("prompt").is_some() {
                "session/permission"
            } else {
                "session/updated"
            };
            (method, note)
        };
        if method == "session/permission" {
            asked += 1;
            server.ok(
                "session/respondPermission",
                json!({
                    "session_id": params["session_id"],
                    "request_id": params["prompt"]["request_id"],
                    "decision": "allow",
                }),
            );
            continue;
        }
        let row = &params["session"];
        let at = ids.iter().position(|id| row["id"] == id.as_str()).unwrap();
        let check = row["check"]["state"].as_str().unwrap_or("");
        if row["status"] == "completed" && !check.is_empty() && check != "running" {
            rows[at] = Some(row.clone());
        }
    }
    assert_eq!(asked, 3, "each attempt asked once");
    rows.into_iter().map(Option::unwrap).collect()
}

#[test]
fn three_attempts_are_checked_compared_and_one_is_kept() {
    let daemon = DaemonWorld::new(|_| script());
    write_check(daemon.world.repo.path(), CHECK);
    let mut server = Server::start(
        codiva(&daemon, &["attach", "--stdio"]),
        daemon.world.state.path(),
    );
    server.owns_agents = false;
    server.ok("initialize", json!({}));
    let created = server.ok(
        "group/create",
        json!({
            "prompt": INSTRUCTION,
            "attempts": [
                {"agent": "claude"},
                {"agent": "codex"},
                {"agent": "claude", "model": "sonnet"},
            ],
        }),
    );
    let group = created["group"]["id"].as_str().unwrap().to_owned();
    let ids: Vec<String> = created["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        ids,
        [
            "write-your-file-claude",
            "write-your-file-codex",
            "write-your-file-claude-sonnet"
        ]
    );
    let updated = server.wait("the group", |method, params| {
        method == "group/updated" && params["group"]["id"] == group.as_str()
    });
    assert_eq!(updated["change"], "created");

    let rows = settle(&mut server, &ids);
    let checks: Vec<&str> = rows
        .iter()
        .map(|row| row["check"]["state"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["passed", "passed", "failed"], "{rows:?}");
    let output = server.ok("session/checkOutput", json!({"session_id": ids[2]}));
    assert_eq!(output["check"]["exit_code"], 1, "{output}");

    // The comparison: each attempt's own file, as git sees it, and the agents' own usage.
    let compare = server.ok("group/compare", json!({"group_id": group}));
    let attempts = compare["attempts"].as_array().unwrap();
    for (attempt, file) in attempts.iter().zip(["opus.txt", "codex.txt", "sonnet.txt"]) {
        let work = &attempt["work"];
        assert_eq!(work["files"][0]["path"], file, "{attempt}");
        assert_eq!(work["files"].as_array().unwrap().len(), 1, "{attempt}");
        assert_eq!(work["insertions"], 1, "{attempt}");
        assert_eq!(work["commits"], 0, "{attempt}");
        assert_eq!(work["uncommitted"], 1, "{attempt}");
        assert!(
            attempt["tokens"]["input"].as_u64().unwrap() > 0,
            "{attempt}"
        );
    }
    assert_eq!(attempts[1]["session"]["agent"], "codex");
    assert!(
        attempts[2]["session"]["model"]
            .as_str()
            .is_some_and(|model| model.contains("sonnet")),
        "{}",
        attempts[2]
    );
    assert_eq!(attempts[2]["spec"]["model"], "sonnet");
    assert_eq!(attempts[2]["session"]["check"]["state"], "failed");
    // Two attempts side by side: what the first has that the third has not, and back.
    let between = server.ok("group/diff", json!({"session_id": ids[0], "other": ids[2]}));
    let text = between["text"].as_str().unwrap();
    assert!(text.contains("+ok") && text.contains("-broken"), "{text}");

    // Keep the first: one confirmation that lists the other two, then they are archived.
    let preview = server.ok(
        "group/keep",
        json!({"group_id": group, "session_id": ids[0]}),
    );
    assert_eq!(preview["outcome"], "needs_confirmation");
    let listed: Vec<&str> = preview["discard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[1].as_str(), ids[2].as_str()]);
    let kept = server.ok(
        "group/keep",
        json!({
            "group_id": group,
            "session_id": ids[0],
            "confirm_token": preview["confirm_token"],
        }),
    );
    assert_eq!(kept["outcome"], "kept", "{kept}");
    assert_eq!(kept["session"]["title"], INSTRUCTION);
    assert_eq!(kept["group"]["kept"], ids[0].as_str());
    let worktree = |row: &Value| Path::new(row["worktree"].as_str().unwrap()).to_path_buf();
    for discarded in kept["discarded"].as_array().unwrap() {
        assert_eq!(discarded["phase"], "discarded", "{discarded}");
        assert!(!worktree(discarded).exists(), "{discarded}");
    }
    // The third comes back, with its file.
    let restored = server.ok("session/restore", json!({"session_id": ids[2]}));
    assert_eq!(restored["session"]["phase"], "active");
    assert_eq!(
        std::fs::read_to_string(worktree(&restored["session"]).join("sonnet.txt")).unwrap(),
        "broken\n"
    );
    let snapshot = server.ok("manager/snapshot", json!({}));
    assert_eq!(snapshot["groups"][0]["kept"], ids[0].as_str(), "{snapshot}");
    assert!(server.close().success());
}

#[test]
fn exec_attempts_prints_the_comparison_and_exits_by_the_results() {
    let daemon = DaemonWorld::new(|_| script());
    let repo = daemon.world.repo.path().to_path_buf();
    write_check(&repo, CHECK);
    let run = |args: &[&str]| {
        let output = codiva(&daemon, args).stdin(Stdio::null()).output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let attempts = [
        "exec",
        "--attempts",
        "claude,codex,claude:sonnet",
        "--approve",
        "all",
    ];
    let (code, stdout, stderr) = run(&[&attempts[..], &[INSTRUCTION]].concat());
    assert_eq!(code, Some(0), "{stderr}\n{stdout}");
    assert!(
        stderr.contains("3 attempts run in the repository's daemon"),
        "{stderr}"
    );
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|line| !line.starts_with("attempt "))
        .collect();
    assert_eq!(table.len(), 4, "{stdout}");
    assert!(
        table[1].starts_with("write-your-file-claude ") && table[1].contains('✓'),
        "{stdout}"
    );
    assert!(
        table[2].starts_with("write-your-file-codex ") && table[2].contains('✓'),
        "{stdout}"
    );
    assert!(
        table[3].starts_with("write-your-file-claude-sonnet ") && table[3].contains('✗'),
        "{stdout}"
    );
    assert!(table[1].contains("+1 −0"), "{stdout}");

    // A check nobody passes: exit 1, and with --json the same figures as one object.
    write_check(&repo, "exit 1");
    let (code, stdout, stderr) = run(&[&attempts[..], &["--json", INSTRUCTION]].concat());
    assert_eq!(code, Some(1), "{stderr}\n{stdout}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let compare = lines
        .iter()
        .find(|line| line["event"] == "compare")
        .unwrap_or_else(|| panic!("{stdout}"));
    let attempts = compare["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3);
    assert!(
        attempts
            .iter()
            .all(|a| a["session"]["check"]["state"] == "failed"
                && a["session"]["status"] == "completed"),
        "{compare}"
    );
    assert_eq!(attempts[0]["work"]["files"][0]["path"], "opus.txt");
    assert_eq!(lines.last().unwrap()["event"], "exit");
    assert_eq!(lines.last().unwrap()["code"], 1);
}

/// A signal while the attempts work: every attempt's turn is interrupted (they stay in the
/// daemon) and exec exits 128 + the signal.
#[test]
fn exec_attempts_interrupts_every_attempt_on_a_signal() {
    use std::io::BufRead as _;
    use std::time::{Duration, Instant};

    let daemon = DaemonWorld::new(|_| {
        // Far longer than the test: about 30 s of streaming.
        Script::new().always(Reply::message(MockMessage::new().text_slow(
            "slow words ".repeat(220),
            4,
            50,
        )))
    });
    let mut child = codiva(
        &daemon,
        &["exec", "--attempts", "claude,claude:sonnet", "write slowly"],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let started = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("exec said nothing");
    assert!(started.contains("2 attempts run"), "{started}");
    let statuses = || {
        let (ok, stdout, stderr) = daemon.run(&["status", "--json"]);
        assert!(ok, "{stderr}");
        let status: Value = serde_json::from_str(stdout.trim()).unwrap();
        status["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["status"].as_str().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
    };
    let until = |want: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let now = statuses();
            if now.len() == 2 && now.iter().all(|s| s == want) {
                return;
            }
            assert!(Instant::now() < deadline, "never all {want}: {now:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    until("running");
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    // Its last words (read by the thread, which may still be at them).
    let mut said = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(10)) {
        let done = line.contains("interrupted");
        said.push(line);
        if done {
            break;
        }
    }
    assert!(
        said.iter().any(|line| line.contains("interrupted")),
        "{said:?}"
    );
    until("interrupted");
}
