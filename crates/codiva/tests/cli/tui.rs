//! The terminal UI end to end: the built binary in a pseudo-terminal, the real Claude Code CLI,
//! the mock model server. Keys are typed as a terminal sends them; assertions read the screen.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use codiva_testkit::pty::Pty;
use codiva_testkit::{
    AgentSandbox, Match, MockMessage, MockServer, Reply, Script, TestRepo, claude_binary,
};
use serde_json::json;

mod diff_review;
mod over_the_daemon;

const WAIT: Duration = Duration::from_secs(60);
const ESC: &[u8] = b"\x1b";
const CTRL_C: &[u8] = b"\x03";
const CTRL_R: &[u8] = b"\x12";

pub(crate) struct Ui {
    pub(crate) pty: Pty,
    repo: TestRepo,
    pub(crate) sandbox: AgentSandbox,
    state: tempfile::TempDir,
    config: std::path::PathBuf,
    pub(crate) mock: MockServer,
}

/// Where the UI's manager runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The repository's daemon (the default): quitting leaves it running; the test stops it.
    Daemon,
    /// A `codiva serve --stdio` child, over the stream client (`CODIVA_TUI_OVER_SERVE=1`).
    OverServe,
    /// In the UI's process (`CODIVA_IN_PROCESS=1`): quitting stops the sessions.
    InProcess,
}

fn start(script: impl FnOnce(&Path) -> Script) -> Ui {
    start_with(script, Mode::Daemon)
}

fn start_with(script: impl FnOnce(&Path) -> Script, mode: Mode) -> Ui {
    start_custom(script, mode, &[], None)
}

/// As [`start_with`], with these variables set (`Some`) or removed (`None`) on top of the
/// sandbox's agent environment, and this configuration file (default: no base fetch, titles
/// from the prompt).
pub(crate) fn start_custom(
    script: impl FnOnce(&Path) -> Script,
    mode: Mode,
    env: &[(&str, Option<&str>)],
    config: Option<&str>,
) -> Ui {
    let repo = TestRepo::new().unwrap();
    let mock = MockServer::start(script(repo.path())).unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    // Titles from the prompt: a one-shot title request would take the mock's scripted answers.
    let text = config.unwrap_or("fetch_base = false\ntitles = \"prompt\"\n");
    let config = state.path().join("config.toml");
    std::fs::write(&config, text).unwrap();
    let mut command = codiva_command(repo.path(), &sandbox, &mock, state.path(), &config);
    match mode {
        Mode::Daemon => {}
        Mode::OverServe => {
            command.env("CODIVA_TUI_OVER_SERVE", "1");
        }
        Mode::InProcess => {
            command.env("CODIVA_IN_PROCESS", "1");
        }
    }
    for (key, value) in env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    let pty = Pty::spawn(command, 40, 120).unwrap();
    pty.wait_for_text("codiva 0.1.0", WAIT);
    Ui {
        pty,
        repo,
        sandbox,
        state,
        config,
        mock,
    }
}

/// `codiva` in `repo`, in the test's sandbox.
fn codiva_command(
    repo: &Path,
    sandbox: &AgentSandbox,
    mock: &MockServer,
    state: &Path,
    config: &Path,
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
    command
        .current_dir(repo)
        .env_clear()
        .envs(sandbox.claude_env(&mock.url()))
        .env("TERM", "xterm-256color")
        .env("CODIVA_CLAUDE", claude_binary())
        .env("CODIVA_STATE_DIR", state)
        .env("CODIVA_CONFIG", config);
    command
}

impl Drop for Ui {
    /// A test that fails half-way kills codiva (the pty does); its agents must not outlive it,
    /// nor its daemon.
    fn drop(&mut self) {
        // codiva first (it would restart an agent it sees die), then what it left behind.
        self.pty.kill();
        stop_daemon(self.codiva(), self.repo.path());
        if let Ok(entries) = std::fs::read_dir(self.state.path().join("children")) {
            for entry in entries.filter_map(|e| e.ok()) {
                if let Ok(text) = std::fs::read_to_string(entry.path())
                    && let Ok(record) = serde_json::from_str::<serde_json::Value>(&text)
                    && let Some(pgid) = record["pgid"].as_u64()
                {
                    codiva_testkit::kill_process_group(u32::try_from(pgid).unwrap_or(0));
                }
            }
        }
    }
}

/// Stops the repository's daemon, if one runs (`codiva stop`), and kills it if that fails.
fn stop_daemon(mut codiva: Command, repo: &Path) {
    let holder = std::fs::read_to_string(repo.join(".codiva/manager.lock"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(text.trim()).ok());
    let stopped = codiva
        .arg("stop")
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|output| output.status.success());
    if let Some(holder) = holder
        && holder["what"] == "codiva daemon"
        && let Some(pid) = holder["pid"].as_u64()
        && (!stopped || crate::serve::client::alive(u32::try_from(pid).unwrap_or(0)))
    {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(pid.to_string())
            .status();
    }
}

impl Ui {
    /// `codiva` in the repository, in the test's sandbox.
    fn codiva(&self) -> Command {
        codiva_command(
            self.repo.path(),
            &self.sandbox,
            &self.mock,
            self.state.path(),
            &self.config,
        )
    }

    fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(self.repo.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    pub(crate) fn quit(mut self) {
        // Back to the list if a session is open (there `/exit` would only close it), then quit.
        // (Esc from the log returns to the composer, a second one leaves the session.)
        for _ in 0..2 {
            self.pty.send(ESC);
            std::thread::sleep(Duration::from_millis(100));
        }
        self.pty.type_line("/exit");
        let status = self
            .pty
            .wait_exit(Duration::from_secs(30))
            .expect("codiva exits after /exit");
        assert!(status.success(), "exit status {status:?}");
        // The daemon kept the sessions; the test's end stops it and every agent.
        stop_daemon(self.codiva(), self.repo.path());
        let children = std::fs::read_dir(self.state.path().join("children"))
            .map(|entries| entries.count())
            .unwrap_or(0);
        assert_eq!(children, 0, "every agent process was reaped");
        assert!(
            self.mock.unmatched().is_empty(),
            "the mock answered every request"
        );
    }
}

#[test]
fn a_session_from_instruction_to_merge() {
    instruction_to_merge(Mode::Daemon);
}

/// The same flow with the UI over the stream client and a `codiva serve` child.
#[test]
fn a_session_from_instruction_to_merge_over_codiva_serve() {
    instruction_to_merge(Mode::OverServe);
}

fn instruction_to_merge(mode: Mode) {
    let script = |_: &Path| {
        let first = || Match::FirstUserContains("build the greeting".into());
        Script::new()
            .then_when(
                first(),
                Reply::message(
                    MockMessage::new()
                        .text_slow("Streaming the plan: write greeting.txt and commit it. ", 2, 120)
                        .tool_use(
                            "Bash",
                            json!({"command": "printf 'hello\\n' > greeting.txt && git add greeting.txt && git commit -qm 'Add greeting'",
                                   "description": "Write and commit the greeting"}),
                        ),
                ),
            )
            .then_when(
                first(),
                Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which greeting?", "header": "Greeting", "multiSelect": false,
                        "options": [{"label": "Hello", "description": "plain"}, {"label": "Hi", "description": "short"}]}]}),
                ),
            )
            .then_when(
                first(),
                Reply::message(MockMessage::new().text_slow("slow words ".repeat(300), 4, 40)),
            )
            .then_when(first(), Reply::text("All done."))
    };
    let mut ui = start_with(script, mode);
    ui.pty.type_line("build the greeting file");
    ui.pty.wait_for_text("Running", WAIT);
    // Enter on the empty composer focuses the list; Enter again opens the session.
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("‹ build the greeting file", WAIT);
    ui.pty.wait_for_text("Streaming the plan", WAIT);
    // The permission: the dialog waits for the user to move to it (Tab), then `y` allows.
    ui.pty.wait_for_text("Allow Bash?", WAIT);
    ui.pty.send(b"\t");
    ui.pty.wait_for_text("answer · Esc", WAIT);
    ui.pty.send(b"y");
    // The question: to it with Tab, pick the first option, then submit.
    ui.pty.wait_for_text("Which greeting?", WAIT);
    ui.pty.send(b"\t");
    ui.pty.wait_for_text("answer · Esc", WAIT);
    ui.pty.send(b"\r");
    std::thread::sleep(Duration::from_millis(200));
    if ui.pty.screen().contains("Which greeting?") {
        ui.pty.send(b"\r");
    }
    // Interrupt the slow answer, then resume.
    ui.pty.wait_for_text("slow words", WAIT);
    ui.pty.send(CTRL_C);
    ui.pty.wait_for_text("Interrupted", WAIT);
    ui.pty.send(CTRL_R);
    ui.pty.wait_for_text("All done.", WAIT);
    ui.pty.wait_for_text("Completed", WAIT);
    // Back to the list, merge with m, y.
    ui.pty.send(ESC);
    ui.pty.wait_for("the list", WAIT, |screen| {
        !screen.contains("‹ build the greeting file")
    });
    ui.pty.send(b"\r");
    ui.pty.send(b"m");
    ui.pty
        .wait_for_text("Merge codiva/build-the-greeting-file into main?", WAIT);
    ui.pty.send(b"y");
    ui.pty
        .wait_for_text("merged codiva/build-the-greeting-file into main", WAIT);
    let log = ui.git(&["log", "--format=%s", "main"]);
    assert!(
        log.contains("Add greeting"),
        "the commit is on the base branch: {log}"
    );
    assert_eq!(
        std::fs::read_to_string(ui.repo.path().join("greeting.txt")).unwrap(),
        "hello\n"
    );
    let requests = ui.mock.message_requests();
    assert!(
        requests.iter().any(|r| r
            .body
            .to_string()
            .contains(r#"\"Which greeting?\"=\"Hello\""#)),
        "the answer reached the model"
    );
    ui.quit();
}

#[test]
fn three_instructions_back_to_back() {
    let mut ui = start(|_| {
        Script::new()
            .then_when(
                Match::FirstUserContains("first task".into()),
                Reply::text("First done."),
            )
            .then_when(
                Match::FirstUserContains("second task".into()),
                Reply::text("Second done."),
            )
            .then_when(
                Match::FirstUserContains("third task".into()),
                Reply::text("Third done."),
            )
    });
    ui.pty.type_line("first task please");
    ui.pty.type_line("second task please");
    ui.pty.type_line("third task please");
    let screen = ui.pty.wait_for("three completed sessions", WAIT, |screen| {
        screen.matches("Completed").count() >= 3
    });
    for title in [
        "first task please",
        "second task please",
        "third task please",
    ] {
        assert!(screen.contains(title), "{title} is listed:\n{screen}");
    }
    assert!(screen.contains("3 sessions"), "{screen}");
    ui.quit();
}

/// Regression: letters typed for the next instruction answered a permission that appeared
/// meanwhile (`n` denied with the rest of the sentence as the reason, `s` stopped the turn).
#[test]
fn typing_while_another_session_asks_lands_in_the_composer() {
    let mut ui = start(|_| {
        Script::new()
            .then_when(
                Match::FirstUserContains("FIRST".into()),
                Reply::tool_use(
                    "Bash",
                    json!({"command": "touch first.txt", "description": "Touch a file"}),
                ),
            )
            .then_when(
                Match::FirstUserContains("FIRST".into()),
                Reply::text("First done."),
            )
            .then_when(
                Match::FirstUserContains("NEXT".into()),
                Reply::text("Next done."),
            )
    });
    ui.pty.type_line("FIRST asks");
    // Half of the next instruction, then the first session's request arrives.
    ui.pty.send(b"NEXT: say ");
    ui.pty.wait_for_text("● 1 waiting", WAIT);
    ui.pty.wait_for_text("Allow Bash?", WAIT);
    ui.pty.send(b"yes, no, stop, always [[scenario]] ok");
    let screen = ui
        .pty
        .wait_for_text("NEXT: say yes, no, stop, always [[scenario]] ok", WAIT);
    assert!(
        screen.contains("Allow Bash?"),
        "the request waits:\n{screen}"
    );
    ui.pty.send(b"\r");
    let screen = ui
        .pty
        .wait_for("the instruction became a session", WAIT, |s| {
            s.contains("2 sessions") && s.contains("Completed")
        });
    assert!(screen.contains("● 1 waiting"), "still pending:\n{screen}");
    assert!(
        !ui.repo
            .path()
            .join(".codiva/worktrees/first-asks/first.txt")
            .exists()
    );
    // Ctrl+N moves to the dialog; now `y` allows.
    ui.pty.send(b"\x0e");
    ui.pty.wait_for("the dialog has the keys", WAIT, |s| {
        s.contains("answer the selected session") && s.contains("touch first.txt")
    });
    ui.pty.send(b"y");
    ui.pty.wait_for("both completed", WAIT, |s| {
        s.matches("Completed").count() >= 2
    });
    assert!(
        ui.repo
            .path()
            .join(".codiva/worktrees/first-asks/first.txt")
            .exists()
    );
    ui.quit();
}

#[test]
fn the_inbox_answers_two_waiting_sessions_without_opening_them() {
    let mut ui = start(|_| {
        let bash = |command: &str| {
            Reply::tool_use(
                "Bash",
                json!({"command": command, "description": "Touch a file"}),
            )
        };
        Script::new()
            .then_when(
                Match::FirstUserContains("FIRST".into()),
                bash("touch first.txt"),
            )
            .then_when(
                Match::FirstUserContains("FIRST".into()),
                Reply::text("First done."),
            )
            .then_when(
                Match::FirstUserContains("SECOND".into()),
                bash("touch second.txt"),
            )
            .then_when(
                Match::FirstUserContains("SECOND".into()),
                Reply::text("Second done."),
            )
    });
    ui.pty.type_line("FIRST asks");
    ui.pty.type_line("SECOND asks");
    ui.pty.wait_for_text("● 2 waiting", WAIT);
    // The inbox takes the one that has waited longest — either may have asked first.
    let mut answered = Vec::new();
    // Before the first Ctrl+N the selected session's own dialog may already hold the keys (a
    // prompt opening for the selected row takes them), so that screen is only the inbox's once
    // its notice of the other waiting session shows; the second time, nothing held the keys.
    for (remaining, inbox_notice) in [("● 1 waiting", "1 more waiting"), ("Completed", "")] {
        ui.pty.send(b"\x0e"); // Ctrl+N
        // The footer says when the dialog has the keys: only then is the screen the inbox's.
        let screen = ui.pty.wait_for("a dialog from the inbox", WAIT, |s| {
            s.contains("answer the selected session")
                && s.contains(inbox_notice)
                && ["touch first.txt", "touch second.txt"]
                    .iter()
                    .any(|c| s.contains(c) && !answered.contains(c))
        });
        assert!(!screen.contains('‹'), "no session was opened:\n{screen}");
        let command = ["touch first.txt", "touch second.txt"]
            .into_iter()
            .find(|c| screen.contains(c) && !answered.contains(c))
            .unwrap();
        answered.push(command);
        ui.pty.send(b"y");
        ui.pty.wait_for_text(remaining, WAIT);
    }
    let screen = ui.pty.wait_for("both completed", WAIT, |s| {
        s.matches("Completed").count() >= 2
    });
    assert!(!screen.contains('‹'), "still the list:\n{screen}");
    assert!(
        ui.repo
            .path()
            .join(".codiva/worktrees/first-asks/first.txt")
            .exists()
    );
    assert!(
        ui.repo
            .path()
            .join(".codiva/worktrees/second-asks/second.txt")
            .exists()
    );
    ui.quit();
}

#[test]
fn a_drag_over_the_log_copies_the_visible_text() {
    use base64::Engine as _;
    let mut ui = start(|_| {
        Script::new().then_when(
            Match::FirstUserContains("copy".into()),
            Reply::text("Copy this exact line: 日本語 and 🎌 emoji.\n\nAnd a second line."),
        )
    });
    ui.pty.type_line("copy test");
    ui.pty.wait_for_text("Completed", WAIT);
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    let screen = ui.pty.wait_for_text("And a second line.", WAIT);
    let lines: Vec<&str> = screen.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains("Copy this exact line"))
        .expect("the first line is on screen");
    let second = lines
        .iter()
        .position(|l| l.contains("And a second line."))
        .expect("the second line is on screen");
    assert_eq!(
        second,
        first + 2,
        "two paragraphs, one empty row between:\n{screen}"
    );
    // Drag from the start of the first line to the end of the second (SGR mouse, 1-based).
    let start_col = 1;
    let end_col = codiva_tui::width::str_width(lines[second]);
    let (y1, y2) = (first + 1, second + 1);
    ui.pty.send(format!("\x1b[<0;{start_col};{y1}M").as_bytes());
    ui.pty.send(format!("\x1b[<32;{};{y1}M", 10).as_bytes());
    ui.pty.send(format!("\x1b[<32;{end_col};{y2}M").as_bytes());
    ui.pty.send(format!("\x1b[<0;{end_col};{y2}m").as_bytes());
    let deadline = std::time::Instant::now() + WAIT;
    let payload = loop {
        let output = ui.pty.output();
        let text = String::from_utf8_lossy(&output);
        if let Some(at) = text.find("\x1b]52;c;") {
            let rest = &text[at + 7..];
            let end = rest.find('\x07').expect("a terminated OSC 52");
            break rest[..end].to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no OSC 52 was written"
        );
        std::thread::sleep(Duration::from_millis(30));
    };
    let copied = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(payload)
            .unwrap(),
    )
    .unwrap();
    let expected = lines[first..=second]
        .iter()
        .map(|line| line.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(copied, expected, "exactly the visible text");
    assert!(copied.contains("日本語 and 🎌 emoji."));
    ui.quit();
}

#[test]
fn a_background_subagent_card_is_live_then_settles() {
    let mut ui = start(|_| {
        Script::new()
            .then_when(
                Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                Reply::text_slow("The repository has a README only. ", 2, 150),
            )
            .then_when(
                Match::AnyUserContains("<task-notification>".into()),
                Reply::text("All done."),
            )
            .then_when(
                Match::FirstUserContains("inspect in the background".into()),
                Reply::message(MockMessage::new().tool_use_with_id(
                    "toolu_bg_agent_ui01",
                    "Agent",
                    json!({"description": "Inspect the repo", "prompt": "SUBAGENT-PROMPT list files",
                           "subagent_type": "general-purpose", "run_in_background": true}),
                )),
            )
            .then_when(
                Match::FirstUserContains("inspect in the background".into()),
                Reply::text("Parent done while the agent works."),
            )
    });
    ui.pty.type_line("inspect in the background");
    ui.pty.wait_for_text("Running", WAIT);
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    // The card is live: its description, a spinner or progress line while the agent works.
    let live = ui.pty.wait_for("a live subagent card", WAIT, |screen| {
        screen.contains("Inspect the repo") && screen.contains("Parent done while the agent works.")
    });
    assert!(
        live.contains("waiting for 1 background agent") || live.contains("Running"),
        "the session is not complete while the agent works:\n{live}"
    );
    // It settles when the agent finishes; the session completes after the agent's follow-up.
    let done = ui.pty.wait_for("the settled card", WAIT, |screen| {
        screen.contains("All done.") && screen.contains("Completed")
    });
    assert!(done.contains("Inspect the repo"), "{done}");
    assert!(
        !done
            .lines()
            .any(|l| l.contains("Inspect the repo") && l.contains('⠋')),
        "no spinner once settled:\n{done}"
    );
    ui.quit();
}

#[test]
fn links_in_a_message_become_terminal_hyperlinks() {
    let mut ui = start(|_| {
        Script::new().then_when(
            Match::FirstUserContains("link please".into()),
            Reply::text("Read [the docs](https://example.invalid/docs) first."),
        )
    });
    ui.pty.type_line("link please");
    ui.pty.wait_for_text("Completed", WAIT);
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("the docs", WAIT);
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let output = String::from_utf8_lossy(&ui.pty.output()).into_owned();
        if let Some(at) = output.find("\x1b]8;;https://example.invalid/docs\x1b\\") {
            let rest = &output[at..];
            let end = rest
                .find("\x1b]8;;\x1b\\")
                .expect("the hyperlink is closed");
            assert!(
                rest[..end].contains("the docs"),
                "the link text is inside: {:?}",
                &rest[..end]
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no OSC 8 hyperlink was written"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
    ui.quit();
}

/// The terminal UI spawns through the same core code as `serve`: SIGKILLed mid-stream, it
/// leaves no agent working (each agent's watcher stops it).
#[test]
fn sigkill_of_the_ui_mid_stream_leaves_no_agent() {
    // The UI that owns its manager (with the daemon, agents outlive the UI by design).
    let mut ui = start_with(
        |_| {
            Script::new().then_when(
                Match::LastUserContains("SLOW".into()),
                Reply::message(MockMessage::new().text_slow("slow words ".repeat(300), 4, 50)),
            )
        },
        Mode::InProcess,
    );
    ui.pty.type_line("SLOW keep streaming");
    let deadline = std::time::Instant::now() + WAIT;
    let agents = loop {
        let agents = crate::orphans::recorded_agents(ui.state.path());
        let streaming = ui
            .mock
            .message_requests()
            .iter()
            .any(|r| r.body.to_string().contains("SLOW keep streaming"));
        if !agents.is_empty() && streaming {
            break agents;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the turn never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Well into the stream.
    std::thread::sleep(Duration::from_millis(500));
    let killed = std::time::Instant::now();
    ui.pty.kill();
    crate::orphans::assert_agents_gone(&agents, None, killed);
}

/// With no coding agent installed at all, `codiva` still opens: the empty list shows each agent
/// with its install command, in the UI's language. Enter keeps what was typed and looks again:
/// the daemon (which found no agent when it started) is started afresh, so an agent installed
/// meanwhile is found without leaving codiva; nothing starts before that.
#[test]
fn without_any_agent_the_ui_opens_and_says_what_to_install() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let config = state.path().join("config.toml");
    // Titles from the prompt: a one-shot title request would take the mock's scripted answers.
    std::fs::write(&config, "fetch_base = false\ntitles = \"prompt\"\n").unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let run = |lang: &str, expect: [&str; 3]| {
        let _ = std::fs::remove_file(bin.path().join("claude"));
        let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
        command
            .current_dir(repo.path())
            .env_clear()
            .env("PATH", &path)
            .env("HOME", home.path())
            .env("TERM", "xterm-256color")
            .env("CODIVA_LANG", lang)
            .env("CODIVA_STATE_DIR", state.path())
            .env("CODIVA_CONFIG", &config);
        let mut pty = Pty::spawn(command, 40, 120).unwrap();
        let screen = pty.wait_for_text("codiva 0.1.0", WAIT);
        assert!(screen.contains(expect[0]), "{screen}");
        assert!(
            screen.contains("npm install -g @anthropic-ai/claude-code")
                && screen.contains("npm install -g @openai/codex"),
            "{screen}"
        );
        assert!(!screen.contains("searched"), "{screen}");
        pty.type_line("add a health check");
        // Looked again, found nothing: what was typed is still there.
        let screen = pty.wait_for_text(expect[1], WAIT);
        assert!(screen.contains("› add a health check"), "{screen}");
        assert!(
            !repo.path().join(".codiva/worktrees").exists()
                || std::fs::read_dir(repo.path().join(".codiva/worktrees"))
                    .unwrap()
                    .next()
                    .is_none(),
            "no session was created"
        );
        // An agent installed meanwhile is found by the next look, without leaving codiva.
        std::os::unix::fs::symlink(claude_binary(), bin.path().join("claude")).unwrap();
        pty.send(b"\r");
        let screen = pty.wait_for_text(expect[2], WAIT);
        assert!(screen.contains("› add a health check"), "{screen}");
        pty.send(CTRL_C);
        pty.type_line("/exit");
        let status = pty
            .wait_exit(Duration::from_secs(30))
            .expect("codiva exits after /exit");
        assert!(status.success(), "exit status {status:?}");
        let mut stop = Command::new(env!("CARGO_BIN_EXE_codiva"));
        stop.current_dir(repo.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", home.path())
            .env("CODIVA_STATE_DIR", state.path())
            .env("CODIVA_CONFIG", &config);
        stop_daemon(stop, repo.path());
    };
    run(
        "en",
        [
            "No coding agent is installed",
            "still no coding agent installed",
            "Claude Code is installed now",
        ],
    );
    run(
        "ja",
        [
            "コーディングエージェントがインストールされていない",
            "まだコーディングエージェントがインストールされていません",
            "Claude Code がインストールされました",
        ],
    );
}

/// Regression: outside a git repository the one line codiva prints ignored `CODIVA_LANG=ja`.
/// It comes in the UI's language, and nothing starts (no daemon).
#[test]
fn outside_a_repository_the_one_line_is_in_the_ui_language() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    for (lang, expect) in [
        ("en", "is not inside a git repository"),
        ("ja", "は git リポジトリの中ではありません"),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
        command
            .current_dir(dir.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", dir.path())
            .env("TERM", "xterm-256color")
            .env("CODIVA_LANG", lang)
            .env("CODIVA_STATE_DIR", state.path())
            .env("CODIVA_CONFIG", state.path().join("config.toml"));
        let mut pty = Pty::spawn(command, 24, 120).unwrap();
        let status = pty
            .wait_exit(Duration::from_secs(30))
            .expect("codiva exits");
        assert_eq!(status.code(), Some(1));
        let output = String::from_utf8_lossy(&pty.output()).into_owned();
        assert!(output.contains(expect), "{lang}: {output}");
        assert!(
            !state.path().join("daemon").exists(),
            "no daemon was started"
        );
    }
}

/// Regression: a `codiva` that could not open its terminal still started the repository's
/// daemon. The terminal comes first: without one, codiva says so and starts nothing.
#[test]
fn without_a_terminal_nothing_starts() {
    let repo = TestRepo::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    for (lang, expect) in [
        ("en", "cannot open the terminal"),
        ("ja", "端末を開けません"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_codiva"))
            .current_dir(repo.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", state.path())
            .env("TERM", "xterm-256color")
            .env("CODIVA_LANG", lang)
            .env("CODIVA_STATE_DIR", state.path())
            .env("CODIVA_CONFIG", state.path().join("config.toml"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expect), "{lang}: {stderr}");
        assert!(
            !state.path().join("daemon").exists(),
            "no daemon was started"
        );
        assert!(!state.path().join("run").exists(), "no daemon socket");
    }
}

/// `/diff` on a session that changed a file shows the real diff (the file is uncommitted, so
/// it comes from the worktree); `/shell` hands the terminal to a shell in the worktree and
/// codiva's screen comes back when it exits.
#[test]
fn diff_view_and_a_shell_in_the_worktree() {
    let mut ui = start(|_| {
        let first = || Match::FirstUserContains("write the notes".into());
        Script::new()
            .then_when(
                first(),
                Reply::tool_use(
                    "Bash",
                    json!({"command": "printf 'DIFF-LINE one\\nDIFF-LINE two\\n' > notes.txt",
                           "description": "Write the notes"}),
                ),
            )
            .then_when(first(), Reply::text("Notes written."))
    });
    // Auto mode: the Bash call is allowed without a question.
    ui.pty.send(b"\x1b[Z");
    ui.pty.wait_for_text("mode: auto", WAIT);
    ui.pty.type_line("write the notes");
    ui.pty.wait_for_text("Completed", WAIT);
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("Notes written.", WAIT);
    ui.pty.type_line("/diff");
    let screen = ui.pty.wait_for_text("+DIFF-LINE two", WAIT);
    assert!(screen.contains("notes.txt"), "{screen}");
    assert!(screen.contains("1 file"), "{screen}");
    ui.pty.send(ESC);
    ui.pty
        .wait_for("the diff closed", WAIT, |s| !s.contains("+DIFF-LINE two"));
    ui.pty.type_line("/shell");
    // The shell has the terminal: codiva's screen is gone until it exits.
    ui.pty.wait_for("the shell has the terminal", WAIT, |s| {
        !s.contains("Notes written.")
    });
    ui.pty
        .send(b"echo from-the-shell > shell-was-here.txt; exit 3\r");
    let screen = ui.pty.wait_for_text("(exit 3)", WAIT);
    assert!(screen.contains("Notes written."), "redrawn:\n{screen}");
    assert!(
        ui.repo
            .path()
            .join(".codiva/worktrees/write-the-notes/shell-was-here.txt")
            .exists(),
        "the shell ran in the worktree"
    );
    // The keys are codiva's again.
    ui.pty.type_line("/diff");
    ui.pty.wait_for_text("shell-was-here.txt", WAIT);
    ui.pty.send(ESC);
    ui.quit();
}
