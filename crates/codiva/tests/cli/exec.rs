//! `codiva exec` with the real Claude Code CLI against the
//! project's mock model server.

use std::path::Path;
use std::process::{Command, Output};

use codiva_testkit::{
    AgentSandbox, MockMessage, MockServer, Reply, Script, TestRepo, claude_binary,
};
use serde_json::{Value, json};

pub struct Exec {
    pub mock: MockServer,
    pub repo: TestRepo,
    pub sandbox: AgentSandbox,
    pub state: tempfile::TempDir,
}

impl Exec {
    pub fn new(make_script: impl FnOnce(&Path) -> Script) -> Exec {
        Exec::with_sandbox(make_script, AgentSandbox::new().unwrap())
    }

    fn with_sandbox(make_script: impl FnOnce(&Path) -> Script, sandbox: AgentSandbox) -> Exec {
        let repo = TestRepo::new().unwrap();
        let mock = MockServer::start(make_script(repo.path())).unwrap();
        Exec {
            mock,
            repo,
            sandbox,
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    fn run_with(&self, args: &[&str], env: &[(String, String)]) -> Output {
        let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
            .arg("exec")
            .args(args)
            .current_dir(self.repo.path())
            .env_clear()
            .envs(self.sandbox.claude_env(&self.mock.url()))
            .env("CODIVA_CLAUDE", claude_binary())
            .env("CODIVA_STATE_DIR", self.state.path())
            .envs(env.iter().cloned())
            .output()
            .expect("run codiva");
        assert!(
            self.mock.unmatched().is_empty(),
            "the mock had no rule for a request"
        );
        output
    }
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}")))
        .collect()
}

fn write_script(repo: &Path) -> Script {
    Script::new()
        .then(Reply::message(
            MockMessage::new().text("Creating it.").tool_use(
                "Write",
                json!({"file_path": repo.join("hello.txt"), "content": "hello\n"}),
            ),
        ))
        .then(Reply::text("Done."))
}

#[test]
fn exec_json_approve_all_writes_the_file() {
    let exec = Exec::new(write_script);
    let output = exec.run(&["--json", "--approve", "all", "create hello.txt"]);
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(exec.repo.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
    let events = json_lines(&output);
    assert!(events.iter().any(|e| e["event"] == "prompt_opened"));
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "status" && e["status"] == "completed")
    );
    let exit = events.last().unwrap();
    assert_eq!(exit["event"], "exit");
    assert_eq!(exit["status"], "completed");
    assert_eq!(exit["code"], 0);
    assert!(
        std::fs::read_dir(exec.state.path().join("wire"))
            .unwrap()
            .count()
            == 1,
        "the wire log is written under the state dir"
    );
}

#[test]
fn exec_approve_none_denies_and_ends_cleanly() {
    let exec = Exec::new(write_script);
    let output = exec.run(&["--json", "--approve", "none", "create hello.txt"]);
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!exec.repo.path().join("hello.txt").exists());
    let events = json_lines(&output);
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "prompt_closed" && e["resolution"] == "denied"),
        "the denial is reported"
    );
    assert!(
        events.iter().any(|e| e["event"] == "log"
            && e["entry"]["kind"] == "tool"
            && e["entry"]["status"] == "denied"),
        "the tool shows as denied"
    );
    assert_eq!(events.last().unwrap()["status"], "completed");
}

/// Regression: exec printed its answer to a prompt before the session said it awaited it
/// (`→ denied`, then `· awaiting_permission`).
#[test]
fn exec_prints_its_answer_after_the_session_awaits_it() {
    let exec = Exec::new(write_script);
    let output = exec.run(&["--approve", "none", "create hello.txt"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let awaiting = text.find("· awaiting_permission").expect("the status line");
    let denied = text.find("→ denied").expect("the answer");
    assert!(awaiting < denied, "{text}");
}

#[test]
fn exec_text_output_is_readable() {
    let exec = Exec::new(write_script);
    let output = exec.run(&["--approve", "edits", "create hello.txt"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Creating it."), "{text}");
    assert!(text.contains("⏺ Write hello.txt ✓"), "{text}");
    assert!(text.contains("Done."), "{text}");
    assert!(text.contains("· completed"), "{text}");
    // A reply that streamed is not printed a second time when its message entry arrives.
    assert_eq!(text.matches("Creating it.").count(), 1, "{text}");
    assert_eq!(text.matches("Done.").count(), 1, "{text}");
}

#[test]
fn exec_401_reports_needs_login() {
    let exec = Exec::with_sandbox(
        |_| {
            Script::new().always(Reply::error(
                401,
                "authentication_error",
                "invalid x-api-key",
            ))
        },
        AgentSandbox::new().unwrap().with_max_retries(1),
    );
    let output = exec.run(&["--json", "hello"]);
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("needs login"), "{stderr}");
    assert_eq!(json_lines(&output).last().unwrap()["status"], "needs_login");
}

#[test]
fn exec_answers_questions_from_a_file() {
    let question = "Which language should the greeting use?";
    let exec = Exec::new(|_| {
        Script::new()
            .then(Reply::tool_use(
                "AskUserQuestion",
                json!({"questions": [{"question": question, "header": "Language", "multiSelect": false,
                    "options": [{"label": "Japanese", "description": "日本語"}, {"label": "English", "description": "English"}]}]}),
            ))
            .then(Reply::text("こんにちは"))
    });
    let answers = exec.state.path().join("answers.json");
    std::fs::write(&answers, json!({question: "Japanese"}).to_string()).unwrap();
    let output = exec.run(&["--json", "--answers", answers.to_str().unwrap(), "greet me"]);
    assert!(output.status.success());
    let last = exec.mock.message_requests().last().cloned().unwrap();
    assert!(
        last.body
            .to_string()
            .contains(r#"\"Which language should the greeting use?\"=\"Japanese\""#)
    );
}

#[test]
fn exec_without_answers_declines_questions() {
    let exec = Exec::new(|_| {
        Script::new()
            .then(Reply::tool_use(
                "AskUserQuestion",
                json!({"questions": [{"question": "Tabs or spaces?", "header": "Style", "multiSelect": false,
                    "options": [{"label": "Tabs", "description": "t"}, {"label": "Spaces", "description": "s"}]}]}),
            ))
            .then(Reply::text("I'll pick spaces."))
    });
    let output = exec.run(&["--json", "format it"]);
    assert!(output.status.success());
    let events = json_lines(&output);
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "prompt_closed" && e["resolution"] == "declined")
    );
}

#[test]
fn exec_with_a_missing_binary_says_so() {
    let exec = Exec::new(|_| Script::new());
    let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
        .args(["exec", "--claude", "/nonexistent/claude", "hi"])
        .current_dir(exec.repo.path())
        .env_clear()
        .env("HOME", exec.sandbox.home.path())
        .env("CODIVA_STATE_DIR", exec.state.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/claude"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
}

/// Plain `exec` is a client of its own session in this process, not of the repository's
/// manager: it runs in a directory that is no repository, and in a repository it records
/// nothing (no `.codiva/`: no state file, lock or worktree), so the UI never lists its session.
#[test]
fn exec_runs_outside_a_repository_and_leaves_no_session_for_the_ui() {
    let exec = Exec::new(|_| Script::new().always(Reply::text("Hi there.")));
    let plain = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
        .args(["exec", "--json", "say hi"])
        .current_dir(plain.path())
        .env_clear()
        .envs(exec.sandbox.claude_env(&exec.mock.url()))
        .env("CODIVA_CLAUDE", claude_binary())
        .env("CODIVA_STATE_DIR", exec.state.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let exit = json_lines(&output).pop().unwrap();
    assert_eq!(
        (&exit["event"], &exit["status"]),
        (&json!("exit"), &json!("completed"))
    );

    let output = exec.run(&["--json", "say hi"]);
    assert!(output.status.success());
    assert_eq!(json_lines(&output).pop().unwrap()["status"], "completed");
    assert!(String::from_utf8_lossy(&output.stdout).contains("Hi there."));
    assert!(
        !exec.repo.path().join(".codiva").exists(),
        "exec wrote codiva's repository state"
    );
}

/// A permission mode the agent does not have is a usage error before anything starts (the
/// agent would exit with a usage error at every restart, shown as "interrupted mid-turn").
#[test]
fn exec_refuses_a_bogus_permission_mode_before_starting_the_agent() {
    let exec = Exec::new(|_| Script::new().always(Reply::text("never")));
    let output = exec.run(&["--json", "--permission-mode", "bogus", "hello"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--permission-mode") && stderr.contains("acceptEdits"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "no event: no agent ran");
    assert!(exec.mock.requests().is_empty(), "the agent never started");
    assert!(
        !exec.state.path().join("wire").exists(),
        "no wire log: no agent"
    );
}

/// `--agent` names an agent that is not installed: one line saying how to install it, exit 2,
/// nothing started; an agent codiva does not know is a usage error naming the known ones.
#[test]
fn exec_with_an_agent_that_is_not_installed_says_how_to_install_it() {
    let exec = Exec::new(|_| Script::new().always(Reply::text("never")));
    let output = exec.run(&["--agent", "codex", "hello"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("Codex is not installed")
            && stderr.contains("npm install -g @openai/codex"),
        "{stderr}"
    );
    // The issue's case: Grok (an ACP agent) on a machine without it.
    let output = exec.run(&["--agent", "grok", "hello"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("Grok is not installed") && stderr.contains("https://x.ai/cli/install.sh"),
        "{stderr}"
    );
    let output = exec.run(&["--agent", "grok9", "hello"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("grok9") && stderr.contains("claude"),
        "{stderr}"
    );
    assert!(exec.mock.requests().is_empty(), "no agent started");
}

/// `--agent codex` runs Codex (app-server) through the same session task: its reply streams
/// and the session completes.
#[test]
fn exec_runs_codex_when_asked() {
    let exec = Exec::new(|_| Script::new().always(Reply::text("Hello from the mock model.")));
    let env = exec.sandbox.codex_env(&exec.mock.url()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
        .args(["exec", "--agent", "codex", "--json", "say hello"])
        .current_dir(exec.repo.path())
        .env_clear()
        .envs(env)
        .env("CODIVA_CODEX", codiva_testkit::codex_binary())
        .env("CODIVA_STATE_DIR", exec.state.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let events = json_lines(&output);
    assert!(
        events.iter().any(|e| e["event"] == "log"
            && e["entry"]["kind"] == "assistant"
            && e["entry"]["text"] == "Hello from the mock model."),
        "{events:?}"
    );
    let exit = events.last().unwrap();
    assert_eq!(exit["status"], "completed");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[test]
fn exec_pr_pushes_the_branch_and_opens_a_draft_and_says_when_it_could_not() {
    use codiva_testkit::{Match, MockGitHub, Rule, Times, gh_binary};
    // The agent commits (allowed by --approve all), then finishes.
    let exec = Exec::new(|_| {
        Script::new()
            .rule(
                Rule::new(
                    Match::LastUserContains("exec work".into()),
                    Reply::text("Committed."),
                )
                .times(Times::Always),
            )
            .rule(
                Rule::new(
                    Match::Any,
                    Reply::tool_use(
                        "Bash",
                        json!({"command": "git commit --allow-empty -m 'exec work'", "description": "commit"}),
                    ),
                )
                .times(Times::Always),
            )
    });
    let github = MockGitHub::start("owner", "repo", "main").unwrap();
    let bare = tempfile::tempdir().unwrap();
    git(bare.path(), &["init", "-q", "--bare", "-b", "main"]);
    let repo = exec.repo.path();
    git(
        repo,
        &["remote", "add", "origin", &bare.path().to_string_lossy()],
    );
    git(repo, &["push", "-q", "origin", "main"]);
    git(repo, &["checkout", "-q", "-b", "feature"]);
    let config = exec.state.path().join("config.toml");
    let write_config = |gh: &Path| {
        std::fs::write(
            &config,
            format!(
                "gh_path = {:?}\ngithub_repo = {:?}\n",
                gh.to_string_lossy(),
                github.repo_arg()
            ),
        )
        .unwrap();
    };
    let mut env: Vec<(String, String)> = github
        .gh_env()
        .into_iter()
        .filter(|(key, _)| key.starts_with("GH_") || key == "SSL_CERT_FILE")
        .collect();
    env.push((
        "CODIVA_CONFIG".into(),
        config.to_string_lossy().into_owned(),
    ));

    // No gh where the config says: the session completed, the pull request failed: exit 5.
    write_config(Path::new("/nonexistent/gh"));
    let output = exec.run_with(&["--json", "--approve", "all", "--pr", "do the work"], &env);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(5), "stderr: {stderr}");
    assert!(stderr.contains("no pull request"), "{stderr}");
    let lines = json_lines(&output);
    let pr = lines.iter().find(|l| l["event"] == "pr").unwrap();
    assert_eq!(pr["outcome"], "failed", "{pr}");
    assert_eq!(lines.last().unwrap()["code"], 5);
    assert!(github.prs().is_empty());

    // With gh: pushed and opened; the exit status is the session's.
    write_config(&gh_binary());
    let output = exec.run_with(&["--json", "--approve", "all", "--pr", "do the work"], &env);
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    let pr = lines.iter().find(|l| l["event"] == "pr").unwrap();
    assert_eq!(pr["outcome"], "created", "{pr}");
    assert_eq!(pr["url"], github.pr_url(1));
    let opened = &github.prs()[0];
    assert!(opened.draft);
    assert_eq!(
        (opened.head.as_str(), opened.base.as_str()),
        ("feature", "main")
    );
    assert_eq!(opened.title, "do the work");
    assert!(opened.body.contains("- exec work"), "{}", opened.body);
    assert_eq!(
        git(bare.path(), &["rev-parse", "refs/heads/feature"]),
        git(repo, &["rev-parse", "HEAD"])
    );
}

/// `--mcp-config` with a stdio MCP server and `--allowed-tool` for its tool: the model's call
/// runs without a prompt (`--approve none` would deny one), its answer reaches the model, and
/// the server's status is printed.
#[test]
fn exec_takes_mcp_servers_and_allowed_tools() {
    let exec = Exec::new(|_| {
        Script::new()
            .then_when(
                codiva_testkit::Match::LastUserContains("PING".into()),
                Reply::tool_use("mcp__good__ping", json!({"text": "exec"})),
            )
            .then_when(
                codiva_testkit::Match::LastUserContains("pong exec".into()),
                Reply::text("Pinged."),
            )
            .always(Reply::text("ok"))
    });
    let config = exec.state.path().join("mcp.json");
    let server = codiva_testkit::mcp_stdio_binary();
    std::fs::write(
        &config,
        json!({"mcpServers": {"good": {"type": "stdio", "command": server}}}).to_string(),
    )
    .unwrap();
    let output = exec.run(&[
        "--json",
        "--approve",
        "none",
        "--mcp-config",
        config.to_str().unwrap(),
        "--allowed-tool",
        "mcp__good__ping",
        "PING the server",
    ]);
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let events = json_lines(&output);
    assert!(!events.iter().any(|e| e["event"] == "prompt_opened"));
    assert!(events.iter().any(|e| e["event"] == "mcp_servers"
        && e["servers"][0]["name"] == "good"
        && e["servers"][0]["status"] == "connected"));
    assert!(
        exec.mock
            .requests()
            .iter()
            .any(|r| r.last_user_text().is_some_and(|t| t.contains("pong exec")))
    );
    let missing = exec.run(&["--mcp-config", "/nonexistent/mcp.json", "hi"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--mcp-config"));
}

/// `--claude PATH` wins over `$CODIVA_CLAUDE` (it was silently overridden by the variable).
#[test]
fn exec_claude_flag_wins_over_the_variable() {
    let exec = Exec::new(|_| Script::new().always(Reply::text("From the flag's claude.")));
    let claude = claude_binary();
    let output = exec.run_with(
        &["--json", "--claude", claude.to_str().unwrap(), "say hi"],
        &[("CODIVA_CLAUDE".to_owned(), "/nonexistent/claude".to_owned())],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    assert!(!stderr.contains("/nonexistent/claude"), "{stderr}");
    assert_eq!(json_lines(&output).pop().unwrap()["status"], "completed");
}
