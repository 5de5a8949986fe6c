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

const WAIT: Duration = Duration::from_secs(60);
const ESC: &[u8] = b"\x1b";
const CTRL_C: &[u8] = b"\x03";
const CTRL_R: &[u8] = b"\x12";

struct Ui {
    pty: Pty,
    repo: TestRepo,
    _sandbox: AgentSandbox,
    state: tempfile::TempDir,
    mock: MockServer,
}

fn start(script: impl FnOnce(&Path) -> Script) -> Ui {
    let repo = TestRepo::new().unwrap();
    let mock = MockServer::start(script(repo.path())).unwrap();
    let sandbox = AgentSandbox::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let config = state.path().join("config.toml");
    std::fs::write(&config, "fetch_base = false\n").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
    command
        .current_dir(repo.path())
        .env_clear()
        .envs(sandbox.claude_env(&mock.url()))
        .env("TERM", "xterm-256color")
        .env("CODIVA_CLAUDE", claude_binary())
        .env("CODIVA_STATE_DIR", state.path())
        .env("CODIVA_CONFIG", &config);
    let pty = Pty::spawn(command, 40, 120).unwrap();
    pty.wait_for_text("codiva 0.1.0", WAIT);
    Ui {
        pty,
        repo,
        _sandbox: sandbox,
        state,
        mock,
    }
}

impl Ui {
    fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(self.repo.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn quit(mut self) {
        self.pty.type_line("/exit");
        let status = self
            .pty
            .wait_exit(Duration::from_secs(30))
            .expect("codiva exits after /exit");
        assert!(status.success(), "exit status {status:?}");
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
    let mut ui = start(|_| {
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
    });
    ui.pty.type_line("build the greeting file");
    ui.pty.wait_for_text("Running", WAIT);
    // Enter on the empty composer focuses the list; Enter again opens the session.
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("‹ build the greeting file", WAIT);
    ui.pty.wait_for_text("Streaming the plan", WAIT);
    // The permission: allowed with `y`.
    ui.pty.wait_for_text("Allow Bash?", WAIT);
    ui.pty.send(b"y");
    // The question: pick the first option, then submit.
    ui.pty.wait_for_text("Which greeting?", WAIT);
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
