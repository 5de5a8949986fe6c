//! One manager per repository: a second `codiva serve` or terminal UI on a repository that one
//! already manages is refused with one line naming the holder; the lock goes with the holder,
//! whether it exits or is killed.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use codiva_testkit::pty::Pty;
use codiva_testkit::{Script, claude_binary};
use serde_json::json;

use crate::serve::client::World;

/// The terminal UI's command for `world`'s repository.
fn tui_command(world: &World) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_codiva"));
    command
        .current_dir(world.repo.path())
        .env_clear()
        .envs(world.sandbox.claude_env(&world.mock.url()))
        .env("TERM", "xterm-256color")
        .env("CODIVA_CLAUDE", claude_binary())
        .env("CODIVA_STATE_DIR", world.state.path())
        .env("CODIVA_CONFIG", &world.config);
    command
}

fn run_refused(mut command: Command) -> String {
    let output: Output = command.stdin(Stdio::null()).output().expect("run codiva");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
    stderr
}

#[test]
fn a_second_manager_is_refused_naming_the_serve_that_holds_the_repository() {
    let world = World::new(|_| Script::new());
    let mut first = world.serve();
    first.ok("initialize", json!({}));
    let holder = format!("codiva serve (pid {})", first.child.id());

    let refused = run_refused(world.command(world.repo.path()));
    assert!(refused.contains(&holder), "{refused}");
    assert!(
        refused.contains("already manages this repository"),
        "{refused}"
    );
    // From a subdirectory too: the lock belongs to the repository, not the directory.
    let sub = world.repo.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    assert!(run_refused(world.command(&sub)).contains(&holder));
    // The UI opens its terminal first (without one it starts nothing): under a terminal it is
    // refused the same way, in one line, exit 1.
    let mut ui = Pty::spawn(tui_command(&world), 24, 200).unwrap();
    // The line is read from the terminal as it comes (it may come after the exit is seen).
    ui.wait_for_text(&holder, Duration::from_secs(30));
    let status = ui
        .wait_exit(Duration::from_secs(30))
        .expect("the refused UI exits");
    let output = String::from_utf8_lossy(&ui.output()).into_owned();
    assert_eq!(status.code(), Some(1), "{output}");

    // The holder still works, and its state is its own.
    first.ok("session/list", json!({}));
    assert!(first.close().success());

    // Released on exit: the next one starts; released on SIGKILL too (the kernel drops it).
    let mut second = world.serve();
    second.ok("initialize", json!({}));
    second.kill9();
    drop(second);
    let mut third = world.serve();
    third.ok("initialize", json!({}));
    assert!(third.close().success());
}

#[test]
fn serve_is_refused_while_the_terminal_ui_holds_the_repository() {
    let world = World::new(|_| Script::new());
    // The UI that runs its manager itself (by default it attaches to the daemon).
    let mut command = tui_command(&world);
    command.env("CODIVA_IN_PROCESS", "1");
    let mut ui = Pty::spawn(command, 40, 120).unwrap();
    ui.wait_for_text("codiva 0.1.0", Duration::from_secs(60));
    let refused = run_refused(world.command(world.repo.path()));
    assert!(
        refused.contains(&format!("codiva (terminal UI) (pid {})", ui.pid())),
        "{refused}"
    );
    ui.kill();
    let mut server = world.serve();
    server.ok("initialize", json!({}));
    assert!(server.close().success());
}
