//! Pull requests through `codiva serve`: the real `gh` against the testkit's mock GitHub over
//! loopback HTTPS, a bare repository as the base's remote. Push and draft (`session/pr`),
//! status over polls as `session/prStatus` notifications, a failed lookup (HTTP 500, no answer)
//! that keeps what was known, a rate limit that pauses lookups, auto-ready, auto-PR, one batched lookup for three
//! sessions, and a pull request the agent opened itself with its own `gh`.

use codiva_testkit::{Fault, Match, MockCheck, MockGitHub, Reply, Rule, Script, Times, gh_binary};
use serde_json::{Value, json};

use super::client::{Server, World};

/// The mock GitHub, and the repository's `origin` a bare repository.
pub(super) struct Hub {
    pub(super) mock: MockGitHub,
    pub(super) bare: tempfile::TempDir,
}

pub(super) fn hub(world: &World, config: &str) -> Hub {
    hub_with(
        MockGitHub::start("owner", "repo", "main").unwrap(),
        world,
        config,
    )
}

pub(super) fn hub_with(mock: MockGitHub, world: &World, config: &str) -> Hub {
    let bare = tempfile::Builder::new()
        .prefix("codiva-bare-")
        .tempdir()
        .unwrap();
    world.git(bare.path(), &["init", "-q", "--bare", "-b", "main"]);
    let bare_path = bare.path().to_string_lossy().into_owned();
    world.git(world.repo.path(), &["remote", "add", "origin", &bare_path]);
    world.git(world.repo.path(), &["push", "-q", "origin", "main"]);
    std::fs::write(
        &world.config,
        format!(
            "fetch_base = false\ntitles = \"prompt\"\ngh_path = {:?}\ngithub_repo = {:?}\n{config}",
            gh_binary().to_string_lossy(),
            mock.repo_arg()
        ),
    )
    .unwrap();
    Hub { mock, bare }
}

/// `codiva serve` whose `gh` (and whose agents' `gh`) reach the mock; lookups every `tick_ms`.
pub(super) fn serve(world: &World, hub: &Hub, tick_ms: u64) -> Server {
    let mut command = world.command(world.repo.path());
    for (key, value) in hub.mock.gh_env() {
        // The agent's sandbox keeps its own HOME, TMPDIR and PATH.
        if key.starts_with("GH_") || key == "SSL_CERT_FILE" {
            command.env(key, value);
        }
    }
    command.env("CODIVA_PR_POLL_MS", tick_ms.to_string());
    // A GitHub that never answers is given up on sooner than gh's 30 s.
    command.env("CODIVA_GH_TIMEOUT_MS", "5000");
    Server::start(command, world.state.path())
}

pub(super) fn wait_prs(
    server: &mut Server,
    id: &str,
    what: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    server.wait(&format!("{id}: {what}"), |method, params| {
        method == "session/prStatus" && params["session_id"] == id && pred(params)
    })
}

fn unix_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

pub(super) fn run(name: &str, status: &'static str, conclusion: Option<&'static str>) -> MockCheck {
    MockCheck::Run {
        name: name.into(),
        status,
        conclusion,
        run_id: 40,
    }
}

#[test]
fn push_a_draft_and_follow_its_checks_until_it_is_marked_ready() {
    let world = World::new(|_| Script::new().always(Reply::text("Done.")));
    let hub = hub(&world, "auto_ready = true\n");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let id = "add-a-health-check";
    server.ok("session/create", json!({"prompt": "Add a health check"}));
    server.wait_status(id, "completed");

    // Nothing to push yet: refused with a stable reason, nothing opened.
    let err = server
        .call("session/pr", json!({"session_id": id}))
        .unwrap_err();
    assert_eq!(err["data"]["reason"], "nothing_to_push", "{err}");
    assert!(hub.mock.prs().is_empty());

    let worktree = world.worktree(id);
    std::fs::write(worktree.join("health.txt"), "ok\n").unwrap();
    world.git(&worktree, &["add", "health.txt"]);
    world.git(&worktree, &["commit", "-qm", "Add the health endpoint"]);
    let opened = server.ok("session/pr", json!({"session_id": id}));
    assert_eq!(opened["created"], true, "{opened}");
    assert_eq!(opened["pr"]["number"], 1);
    assert_eq!(opened["pr"]["url"], hub.mock.pr_url(1));
    let branch = format!("codiva/{id}");
    let tip = world.git(&worktree, &["rev-parse", "HEAD"]);
    assert_eq!(
        world.git(
            hub.bare.path(),
            &["rev-parse", &format!("refs/heads/{branch}")]
        ),
        tip,
        "the branch was pushed to the base's remote"
    );
    let pr = &hub.mock.prs()[0];
    assert!(pr.draft);
    assert_eq!(
        (pr.head.as_str(), pr.base.as_str()),
        (branch.as_str(), "main")
    );
    assert_eq!(pr.title, "Add a health check");
    assert!(pr.body.contains("Add a health check"), "{}", pr.body);
    assert!(pr.body.contains("- Add the health endpoint"), "{}", pr.body);

    // Checks running, then failed, then green: each reaches the client as a notification.
    hub.mock
        .set_checks(1, vec![run("test", "IN_PROGRESS", None)]);
    wait_prs(&mut server, id, "checks running", |p| {
        p["prs"][0]["view"]["checks"] == "pending" && p["prs"][0]["view"]["draft"] == true
    });
    // A server error: the lookup is unavailable and what was known stays.
    hub.mock.fail_next(Fault::ServerError);
    let failed = wait_prs(&mut server, id, "a failed lookup", |p| {
        p["unavailable"]["reason"] == "network"
    });
    assert_eq!(failed["prs"][0]["view"]["checks"], "pending", "{failed}");
    assert!(
        failed.get("paused_until_ms").is_none(),
        "a 500 does not pause"
    );
    // No answer at all: the call times out (its process group killed); the same.
    hub.mock.fail_next(Fault::Hang);
    let hung = wait_prs(&mut server, id, "a lookup that timed out", |p| {
        p["unavailable"]["reason"] == "timeout"
    });
    assert_eq!(hung["prs"][0]["view"]["checks"], "pending", "{hung}");
    hub.mock
        .set_checks(1, vec![run("test", "COMPLETED", Some("FAILURE"))]);
    let red = wait_prs(&mut server, id, "checks failed", |p| {
        p["prs"][0]["view"]["checks"] == "failed"
    });
    assert_eq!(red["prs"][0]["view"]["failed"][0]["name"], "test");
    assert!(red.get("unavailable").is_none(), "a good answer clears it");
    hub.mock
        .set_checks(1, vec![run("test", "COMPLETED", Some("SUCCESS"))]);
    wait_prs(&mut server, id, "checks passed", |p| {
        p["prs"][0]["view"]["checks"] == "passed"
    });
    // auto_ready: marked ready for review, and seen so at the next lookup.
    wait_prs(&mut server, id, "ready for review", |p| {
        p["prs"][0]["view"]["draft"] == false
    });
    assert!(!hub.mock.prs()[0].draft);

    // A rate limit keeps what was known and pauses lookups for the back-off (15 ticks).
    let before = unix_ms();
    hub.mock.fail_next(Fault::RateLimited {
        reset_epoch: before / 1000 + 60,
    });
    hub.mock
        .set_checks(1, vec![run("test", "IN_PROGRESS", None)]);
    let limited = wait_prs(&mut server, id, "a rate limit", |p| {
        p["unavailable"]["reason"] == "rate_limited"
    });
    assert_eq!(limited["prs"][0]["view"]["checks"], "passed", "{limited}");
    let paused = limited["paused_until_ms"].as_u64().expect("paused");
    assert!(paused >= before + 15 * 200, "{paused} vs {before}");

    // Asked again: pushed again, the same pull request.
    let again = server.ok("session/pr", json!({"session_id": id}));
    assert_eq!(again["created"], false);
    assert_eq!(again["pr"]["number"], 1);
    assert_eq!(hub.mock.prs().len(), 1);
    let listed = server.ok("session/list", json!({}));
    assert_eq!(listed["sessions"][0]["prs"]["prs"][0]["number"], 1);
}

#[test]
fn auto_pr_opens_one_draft_per_session_and_three_are_looked_up_with_one_request() {
    // Each session's agent commits (a Bash command the session's rules allow), then finishes.
    let world = World::new(|_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains("agent work".into()),
                    Reply::text("Committed."),
                )
                .times(Times::Always),
            )
            .rule(
                Rule::new(
                    Match::FirstUserContains("COMMIT".into()),
                    Reply::tool_use(
                        "Bash",
                        json!({"command": "git commit --allow-empty -m 'agent work'", "description": "commit"}),
                    ),
                )
                .times(Times::Always),
            )
    });
    let hub = hub(&world, "auto_pr = true\n");
    let mut server = serve(&world, &hub, 2000);
    server.ok("initialize", json!({}));
    let rules =
        json!({"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "git commit"}]});
    let ids = ["commit-one", "commit-two", "commit-three"];
    for prompt in ["COMMIT one", "COMMIT two", "COMMIT three"] {
        server.ok(
            "session/create",
            json!({"prompt": prompt, "approval_policy": rules}),
        );
    }
    for id in ids {
        let opened = wait_prs(&mut server, id, "its automatic pull request", |p| {
            p["prs"][0]["own"] == true
        });
        assert!(opened["prs"][0]["number"].as_u64().is_some(), "{opened}");
    }
    let prs = hub.mock.prs();
    assert_eq!(prs.len(), 3, "one draft each: {prs:?}");
    assert!(prs.iter().all(|pr| pr.draft));
    assert!(server.close().success());

    // After a restart every watched session is stale at once: one `gh pr list` for the three,
    // and one count of their open pull requests' review threads.
    let before = hub.mock.request_count();
    let mut server = serve(&world, &hub, 2000);
    server.ok("initialize", json!({}));
    // The lookup may have answered before this client was there: the rows say it, else the
    // notifications that follow.
    loop {
        let listed = server.ok("session/list", json!({}));
        let sessions = listed["sessions"].as_array().unwrap();
        if sessions.iter().all(|s| s["prs"]["checked"] == true) {
            for s in sessions {
                assert_eq!(s["prs"]["prs"][0]["view"]["draft"], true, "{s}");
            }
            break;
        }
        server.wait("a lookup", |method, _| method == "session/prStatus");
    }
    let since: Vec<_> = hub.mock.requests().split_off(before);
    assert_eq!(
        since
            .iter()
            .map(|r| r.operation.clone().unwrap_or_default())
            .collect::<Vec<_>>(),
        vec![
            "PullRequestList".to_owned(),
            "ReviewThreadCounts".to_owned()
        ],
        "one request for the three sessions, and one for their review threads"
    );
    // Completed again (a later turn) does not open a second one.
    assert_eq!(hub.mock.prs().len(), 3);
}

#[test]
fn a_pull_request_the_agent_opened_with_its_own_gh_shows_in_the_list() {
    let mock = MockGitHub::start("owner", "repo", "main").unwrap();
    let id = "open-a-pull-request";
    let branch = format!("codiva/{id}");
    // The agent runs the real `gh`, with the environment codiva was given.
    let command = format!(
        "gh pr create --draft --title 'From the agent' --body 'agent' --base main --head {branch} --repo {}",
        mock.repo_arg()
    );
    let world = World::new(move |_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains("/pull/".into()),
                    Reply::text("Opened."),
                )
                .times(Times::Always),
            )
            .rule(
                Rule::new(
                    Match::FirstUserContains("Open a pull request".into()),
                    Reply::tool_use(
                        "Bash",
                        json!({"command": command, "description": "open a pull request"}),
                    ),
                )
                .times(Times::Always),
            )
    });
    let hub = hub_with(mock, &world, "");
    let mut server = serve(&world, &hub, 200);
    server.ok("initialize", json!({}));
    let rules =
        json!({"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "gh pr create"}]});
    server.ok(
        "session/create",
        json!({"prompt": "Open a pull request", "approval_policy": rules}),
    );
    let found = wait_prs(&mut server, id, "the agent's pull request", |p| {
        p["prs"][0]["number"] == 1
    });
    assert_eq!(found["prs"][0]["url"], hub.mock.pr_url(1), "{found}");
    // Its head is the session's branch: the branch's own, once looked up.
    wait_prs(&mut server, id, "looked up", |p| {
        p["prs"][0]["own"] == true && p["prs"][0]["view"]["draft"] == true
    });
    server.wait_status(id, "completed");
    let listed = server.ok("session/list", json!({}));
    assert_eq!(listed["sessions"][0]["prs"]["prs"][0]["number"], 1);
    assert_eq!(hub.mock.prs().len(), 1);
}
