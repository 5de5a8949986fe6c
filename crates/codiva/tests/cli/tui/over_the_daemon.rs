//! The terminal UI over the repository's daemon: a hung-up terminal leaves the session
//! running and `codiva` re-attaches; a prompt answered by another client leaves the UI.

use std::process::Command;
use std::time::Duration;

use codiva_testkit::pty::Pty;
use codiva_testkit::{Match, MockMessage, Reply, Script};
use serde_json::json;

use super::{WAIT, start};

/// Hanging up the terminal detaches: the daemon's agent streams on; `codiva` again shows the
/// session running with its log, and it completes without the agent having been restarted.
#[test]
fn a_hung_up_terminal_leaves_the_session_running_and_codiva_reattaches() {
    let mut ui = start(|_| {
        Script::new().then_when(
            Match::LastUserContains("SLOW".into()),
            Reply::message(MockMessage::new().text_slow("slow words ".repeat(80), 4, 50)),
        )
    });
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
    let status = Command::new("kill")
        .arg("-HUP")
        .arg(ui.pty.pid().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    let status = ui
        .pty
        .wait_exit(Duration::from_secs(30))
        .expect("codiva exits on SIGHUP");
    assert!(status.success(), "exit status {status:?}");
    ui.pty
        .wait_for_text("1 session keeps running; `codiva` re-attaches", WAIT);
    for (pid, _) in &agents {
        assert!(
            crate::serve::client::alive(*pid),
            "agent {pid} outlives the UI"
        );
    }

    ui.pty = Pty::spawn(ui.codiva(), 40, 120).unwrap();
    ui.pty.wait_for_text("codiva 0.1.0", WAIT);
    ui.pty.wait_for_text("Running", WAIT);
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("‹ SLOW keep streaming", WAIT);
    ui.pty.wait_for_text("slow words", WAIT);
    ui.pty.wait_for_text("Completed", WAIT);
    assert_eq!(
        crate::orphans::recorded_agents(ui.state.path()),
        agents,
        "the same agent finished the turn"
    );
    ui.quit();
}

/// The UI and a stream client on one daemon: the permissions the client's session asks show in
/// the UI; answered by the client, the UI's dialog goes with "resolved by another client",
/// under the list as in the session's own view; the client sees every event in `seq` order.
///
/// Each answer waits until the UI shows the view it is meant for: the selected session's
/// dialog is drawn under the list too, so "Allow Bash?" alone does not say the keys that open
/// the session were handled. An answer that came before them left its notice in the list, and
/// the session's view, opened right after, had none (the flake of 2026-12-07).
#[test]
fn a_permission_answered_by_another_client_leaves_the_ui() {
    let mut ui = start(|_| {
        Script::new()
            .then(Reply::tool_use(
                "Bash",
                json!({"command": "touch said-hi.txt", "description": "say hi"}),
            ))
            .then(Reply::tool_use(
                "Bash",
                json!({"command": "touch said-bye.txt", "description": "say bye"}),
            ))
            .then(Reply::text("Said hi."))
    });
    let mut attach = ui.codiva();
    attach.args(["attach", "--stdio"]);
    let mut client = crate::serve::client::Server::start(attach, ui.state.path());
    client.owns_agents = false;
    let created = client.ok("session/create", json!({"prompt": "ASK say hi"}));
    let id = created["session"]["id"].as_str().unwrap().to_owned();

    // The first, under the list (no key typed: the UI stays there).
    let prompt = client.wait_prompt(&id, "permission");
    ui.pty
        .wait_for("the dialog under the list", WAIT, |screen| {
            screen.contains("Allow Bash?") && screen.contains("touch said-hi.txt")
        });
    client.ok(
        "session/respondPermission",
        json!({"session_id": id, "request_id": prompt["request_id"], "decision": "allow"}),
    );
    ui.pty.wait_for_text("resolved by another client", WAIT);

    // The second, in the session's own view: Enter on the empty composer focuses the list,
    // Enter again opens the session with its dialog in hand (its footer says so).
    let prompt = client.wait_prompt(&id, "permission");
    ui.pty.wait_for_text("touch said-bye.txt", WAIT);
    ui.pty.send(b"\r");
    ui.pty.send(b"\r");
    ui.pty
        .wait_for("the session's view with its dialog", WAIT, |screen| {
            screen.contains("touch said-bye.txt")
                && screen.contains("answer · Esc: back to the list")
        });
    client.ok(
        "session/respondPermission",
        json!({"session_id": id, "request_id": prompt["request_id"], "decision": "allow"}),
    );
    ui.pty.wait_for_text("resolved by another client", WAIT);
    ui.pty.wait_for_text("Said hi.", WAIT);
    client.wait_status(&id, "completed");
    crate::daemon::assert_seq_in_order(&client);
    assert!(client.close().success());
    ui.quit();
}

/// How the first UI leaves while its session waits.
#[derive(Clone, Copy)]
enum Leave {
    Exit,
    Sigkill,
}

/// What the session asks.
#[derive(Clone, Copy, PartialEq)]
enum Ask {
    Permission,
    Question,
    /// A foreground subagent asks to run a command.
    SubagentPermission,
}

/// Issue 24: a prompt left waiting, the UI gone (`/exit` or SIGKILL) and `codiva` started
/// again: the new UI takes the prompt from the session's snapshot, Ctrl+N finds it with its
/// dialog, and answering it completes the turn.
fn a_waiting_prompt_is_there_after_the_ui_comes_back(leave: Leave, ask: Ask) {
    let question = ask == Ask::Question;
    let mut ui = start(|_| {
        let bash = || {
            Reply::tool_use(
                "Bash",
                json!({"command": "touch said-hi.txt", "description": "say hi"}),
            )
        };
        match ask {
            Ask::Question => Script::new()
                .then(Reply::tool_use(
                    "AskUserQuestion",
                    json!({"questions": [{"question": "Which greeting?", "header": "Greeting", "multiSelect": false,
                        "options": [{"label": "Hello", "description": "plain"}, {"label": "Hi", "description": "short"}]}]}),
                ))
                .then(Reply::text("Said hi.")),
            Ask::Permission => Script::new().then(bash()).then(Reply::text("Said hi.")),
            Ask::SubagentPermission => Script::new()
                .then_when(
                    Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                    Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_sub_touch_0001",
                        "Bash",
                        json!({"command": "touch sub-said-hi.txt", "description": "say hi"}),
                    )),
                )
                .then_when(
                    Match::FirstUserContains("SUBAGENT-PROMPT".into()),
                    Reply::text("The file is there."),
                )
                .then_when(
                    Match::FirstUserContains("ASK say hi".into()),
                    Reply::message(MockMessage::new().tool_use_with_id(
                        "toolu_agent_0001",
                        "Agent",
                        json!({
                            "description": "Say hi",
                            "prompt": "SUBAGENT-PROMPT make the file sub-said-hi.txt",
                            "subagent_type": "general-purpose",
                            "run_in_background": false
                        }),
                    )),
                )
                .then_when(
                    Match::FirstUserContains("ASK say hi".into()),
                    Reply::text("Said hi."),
                ),
        }
    });
    let dialog = match ask {
        Ask::Question => "Which greeting?",
        Ask::Permission => "touch said-hi.txt",
        Ask::SubagentPermission => "touch sub-said-hi.txt",
    };
    ui.pty.type_line("ASK say hi");
    ui.pty.wait_for_text("● 1 waiting", WAIT);
    match leave {
        Leave::Exit => ui.pty.type_line("/exit"),
        Leave::Sigkill => {
            let status = Command::new("kill")
                .arg("-KILL")
                .arg(ui.pty.pid().to_string())
                .status()
                .unwrap();
            assert!(status.success());
        }
    }
    ui.pty
        .wait_exit(Duration::from_secs(30))
        .expect("the first UI is gone");

    ui.pty = Pty::spawn(ui.codiva(), 40, 120).unwrap();
    ui.pty.wait_for_text("codiva 0.1.0", WAIT);
    ui.pty.wait_for_text("● 1 waiting", WAIT);
    ui.pty.send(b"\x0e"); // Ctrl+N
    let screen = ui.pty.wait_for("the dialog from the inbox", WAIT, |s| {
        s.contains("answer the selected session") && s.contains(dialog)
    });
    assert!(
        !screen.contains("nobody is waiting"),
        "the inbox found the prompt:\n{screen}"
    );
    if question {
        ui.pty.send(b"\r");
        std::thread::sleep(Duration::from_millis(200));
        if ui.pty.screen().contains("Which greeting?") {
            ui.pty.send(b"\r");
        }
    } else {
        ui.pty.send(b"y");
    }
    ui.pty.wait_for_text("Completed", WAIT);
    if question {
        assert!(
            ui.mock.message_requests().iter().any(|r| r
                .body
                .to_string()
                .contains(r#"\"Which greeting?\"=\"Hello\""#)),
            "the answer reached the model"
        );
    } else {
        let file = if ask == Ask::SubagentPermission {
            "sub-said-hi.txt"
        } else {
            "said-hi.txt"
        };
        assert!(
            ui.repo
                .path()
                .join(".codiva/worktrees/ask-say-hi")
                .join(file)
                .exists(),
            "the allowed tool ran"
        );
    }
    ui.quit();
}

#[test]
fn a_waiting_permission_is_there_after_the_ui_quit_and_came_back() {
    a_waiting_prompt_is_there_after_the_ui_comes_back(Leave::Exit, Ask::Permission);
}

#[test]
fn a_waiting_permission_is_there_after_the_ui_was_killed() {
    a_waiting_prompt_is_there_after_the_ui_comes_back(Leave::Sigkill, Ask::Permission);
}

#[test]
fn a_waiting_question_is_there_after_the_ui_quit_and_came_back() {
    a_waiting_prompt_is_there_after_the_ui_comes_back(Leave::Exit, Ask::Question);
}

#[test]
fn a_waiting_question_is_there_after_the_ui_was_killed() {
    a_waiting_prompt_is_there_after_the_ui_comes_back(Leave::Sigkill, Ask::Question);
}

#[test]
fn a_subagents_waiting_permission_is_there_after_the_ui_quit_and_came_back() {
    a_waiting_prompt_is_there_after_the_ui_comes_back(Leave::Exit, Ask::SubagentPermission);
}

#[test]
fn a_subagents_waiting_permission_is_there_after_the_ui_was_killed() {
    a_waiting_prompt_is_there_after_the_ui_comes_back(Leave::Sigkill, Ask::SubagentPermission);
}

/// Issue 24: the session's usage line (`ctx … tokens …`) is the same after the UI quit and
/// came back (it was only the model: usage came by event alone).
#[test]
fn the_usage_line_is_there_after_the_ui_quit_and_came_back() {
    let mut ui = start(|_| Script::new().then(Reply::text("Said hi.")));
    ui.pty.type_line("say hi");
    ui.pty.wait_for_text("Completed", WAIT);
    // Enter on the empty composer focuses the list; Enter again opens the session.
    let usage_line = |ui: &mut super::Ui| {
        ui.pty.send(b"\r");
        ui.pty.send(b"\r");
        let screen = ui.pty.wait_for("the usage line", WAIT, |s| {
            s.contains("Said hi.") && s.contains(" tokens")
        });
        screen
            .lines()
            .find(|line| line.contains(" tokens"))
            .unwrap()
            .trim()
            .to_owned()
    };
    let before = usage_line(&mut ui);
    for _ in 0..2 {
        ui.pty.send(b"\x1b");
        std::thread::sleep(Duration::from_millis(100));
    }
    ui.pty.type_line("/exit");
    ui.pty
        .wait_exit(Duration::from_secs(30))
        .expect("the first UI is gone");
    ui.pty = Pty::spawn(ui.codiva(), 40, 120).unwrap();
    ui.pty.wait_for_text("Completed", WAIT);
    let after = usage_line(&mut ui);
    assert_eq!(after, before);
    ui.quit();
}

/// The pid of the repository's daemon (its lock names it), once one runs.
fn daemon_pid(repo: &std::path::Path) -> Option<u32> {
    let text = std::fs::read_to_string(repo.join(".codiva/manager.lock")).ok()?;
    let holder: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    (holder["what"] == "codiva daemon")
        .then(|| u32::try_from(holder["pid"].as_u64()?).ok())
        .flatten()
        .filter(|pid| crate::serve::client::alive(*pid))
}

/// Regression: the local UI whose daemon died (SIGKILL, out of memory) quit with exit 1, its
/// screen and draft gone. It starts a new daemon and attaches again by itself, with the
/// session that was open still open and the text being typed still there.
#[test]
fn the_ui_attaches_again_when_its_daemon_is_killed_keeping_draft_and_view() {
    let mut ui = start(|_| Script::new().always(Reply::text("Done with the first.")));
    ui.pty.type_line("First task");
    ui.pty.wait_for_text("Completed", WAIT);
    // Open the session (the list has the keys after Tab) and type a follow-up, unsent.
    ui.pty.send(b"\t");
    ui.pty.send(b"\r");
    ui.pty.wait_for_text("‹ First task", WAIT);
    ui.pty.send(b"a draft that must survive");
    ui.pty.wait_for_text("a draft that must survive", WAIT);
    let first = daemon_pid(ui.repo.path()).expect("the daemon runs");
    let status = Command::new("kill")
        .arg("-KILL")
        .arg(first.to_string())
        .status()
        .unwrap();
    assert!(status.success());
    let screen = ui.pty.wait_for("attached again", WAIT, |screen| {
        screen.contains("attached again")
    });
    assert!(
        screen.contains("‹ First task"),
        "the session is open: {screen}"
    );
    assert!(
        screen.contains("a draft that must survive"),
        "the draft is kept: {screen}"
    );
    assert!(ui.pty.try_wait().is_none(), "codiva still runs");
    let second = daemon_pid(ui.repo.path()).expect("a new daemon runs");
    assert_ne!(second, first);
    // The UI works with the new daemon: the follow-up goes out.
    ui.pty.send(b"\r");
    ui.pty.wait_for("the follow-up's answer", WAIT, |screen| {
        screen
            .split("› a draft that must survive")
            .nth(1)
            .is_some_and(|after| after.contains("Done with the first."))
    });
    ui.quit();
}

/// A daemon stopped on purpose (`codiva stop` from a shell) is not started again behind the
/// user's back: the UI says the daemon went away and exits 1; no daemon runs afterwards.
#[test]
fn the_ui_does_not_restart_a_daemon_that_was_stopped_on_purpose() {
    let mut ui = start(|_| Script::new().always(Reply::text("Done.")));
    ui.pty.type_line("First task");
    ui.pty.wait_for_text("Completed", WAIT);
    assert!(daemon_pid(ui.repo.path()).is_some(), "the daemon runs");
    let stopped = ui
        .codiva()
        .arg("stop")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(stopped.status.success(), "{stopped:?}");
    let status = ui
        .pty
        .wait_exit(Duration::from_secs(30))
        .expect("the UI exits when its daemon was stopped");
    assert_eq!(status.code(), Some(1));
    ui.pty.wait_for_text("daemon", WAIT);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        daemon_pid(ui.repo.path()),
        None,
        "no daemon was started again"
    );
}
