//! Titles and plan usage over `codiva serve`: a session's title made by its agent's cheapest
//! model arrives in `session/updated` (Japanese and English instructions), `session/rename`
//! wins over it; a subscription login's usage arrives as `session/planUsage`.

use serde_json::json;

use codiva_testkit::{Match, Reply, Rule, Script, UsageWindow, ratelimit_headers};

use super::client::World;

fn title_rule(word: &str, title: &str) -> Rule {
    Rule::new(
        Match::All(vec![
            Match::ModelContains("haiku".into()),
            Match::FirstUserContains(word.into()),
        ]),
        Reply::text(title),
    )
}

#[test]
fn generated_titles_arrive_and_a_rename_wins() {
    let world = World::new(|_| {
        Script::new()
            .rule(title_rule("テスト", "パーサーのテストを追加"))
            .rule(title_rule("tests", "Add parser tests"))
            .always(Reply::text("Done."))
    });
    std::fs::write(&world.config, "fetch_base = false\ntitles = \"agent\"\n").unwrap();
    let mut server = world.serve();
    let init = server.ok("initialize", json!({}));
    assert!(init["warnings"].as_array().unwrap().is_empty(), "{init}");
    let agents = server.ok("agents/list", json!({}));
    assert_eq!(
        agents["agents"][0]["capabilities"]["titles"], true,
        "{agents}"
    );

    for (prompt, title) in [
        ("パーサーのテストを書いてください", "パーサーのテストを追加"),
        ("write tests for the parser", "Add parser tests"),
    ] {
        let created = server.ok("session/create", json!({"prompt": prompt}));
        let id = created["session"]["id"].as_str().unwrap().to_owned();
        assert_eq!(created["session"]["title"], prompt);
        server.wait(&format!("the title {title:?}"), |method, params| {
            method == "session/updated"
                && params["session"]["id"] == id.as_str()
                && params["session"]["title"] == title
        });
        let listed = server.ok("session/list", json!({}));
        assert!(listed.to_string().contains(title), "{listed}");
        if title == "Add parser tests" {
            let renamed = server.ok(
                "session/rename",
                json!({"session_id": id, "title": "Parser \u{1b}[31mtests"}),
            );
            assert_eq!(renamed["session"]["title"], "Parser [31mtests");
        }
    }
    server.close();
}

#[test]
fn a_subscription_logins_usage_is_a_notification() {
    // Within a year (a window further away is left out of the CLI's reading).
    let reset = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let world =
        World::new(move |_| {
            Script::new().rule(Rule::new(Match::Any, Reply::text("Done.")).headers(
                ratelimit_headers(&[UsageWindow {
                    name: "5h",
                    utilization: 0.42,
                    reset,
                    status: "allowed",
                    surpassed_threshold: None,
                }]),
            ))
        });
    let mut command = world.command(world.repo.path());
    command
        .env_remove("ANTHROPIC_API_KEY")
        .env("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-codiva-test");
    let mut server = super::client::Server::start(command, world.state.path());
    server.ok("initialize", json!({}));
    let created = server.ok("session/create", json!({"prompt": "look around"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();
    let usage = server.wait("session/planUsage", |method, params| {
        method == "session/planUsage" && params["session_id"] == id.as_str()
    });
    assert_eq!(
        usage["usage"]["windows"],
        json!([{"kind": "five_hour", "utilization": 0.42, "resets_at": reset, "state": "allowed"}]),
        "{usage}"
    );
    server.wait_status(&id, "completed");
    server.close();
}
