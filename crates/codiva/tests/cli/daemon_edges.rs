//! The daemon's edges: its start-up warnings reach the user once (not with every connection),
//! and `exec --attach` that cannot start its daemon fails as a runtime failure (exit 1, not
//! clap's usage code 2).

use std::process::Stdio;

use codiva_testkit::{Reply, Script};
use serde_json::{Value, json};

use crate::daemon::DaemonWorld;

/// A state file that is not JSON: the daemon starts with a `corrupt` warning.
fn with_corrupt_state(daemon: &DaemonWorld) {
    let dir = daemon.world.repo.path().join(".codiva");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("state.json"), b"{\"version\":1,\"sessions\":[").unwrap();
}

#[test]
fn the_start_up_warnings_reach_the_first_ui_and_no_other_connection() {
    let daemon = DaemonWorld::new(|_| Script::new().then(Reply::text("ok")));
    with_corrupt_state(&daemon);
    // Commands that only look (the version check of `attach`, `status`) leave them for a UI.
    let _ = daemon.socket();
    let (ok, _, stderr) = daemon.run(&["status"]);
    assert!(ok, "{stderr}");

    // The first UI gets them in `initialize` — once, not also as notifications.
    let mut first = daemon.attach();
    let init = first.ok("initialize", json!({}));
    assert!(init["warnings"].to_string().contains("corrupt"), "{init}");
    first.ok("manager/snapshot", json!({}));

    // Every later connection: none, neither in `initialize` nor as a notification.
    let mut second = daemon.attach();
    let init = second.ok("initialize", json!({}));
    assert_eq!(init["warnings"], json!([]), "{init}");
    second.ok("manager/snapshot", json!({}));
    second.ok("session/list", json!({}));
    for client in [&first, &second] {
        let warnings: Vec<&Value> = client
            .arrived
            .iter()
            .filter(|note| note["method"] == "warning")
            .collect();
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    assert!(first.close().success());
    assert!(second.close().success());
}

#[test]
fn exec_attach_that_cannot_start_the_daemon_is_a_runtime_failure() {
    let daemon = DaemonWorld::new(|_| Script::new().then(Reply::text("ok")));
    // The socket's directory cannot be created: a file stands where it would be.
    let runtime = daemon.runtime.path().join("not-a-directory");
    std::fs::write(&runtime, b"").unwrap();
    let output = daemon
        .codiva(&["exec", "--attach", "--json", "say ok"])
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}\n{stdout}");
    assert!(stderr.contains("codiva: failed:"), "{stderr}");
    assert!(stderr.contains("not-a-directory"), "{stderr}");
    let exit: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(exit["event"], "exit", "{exit}");
    assert_eq!(exit["status"], "failed", "{exit}");
    assert_eq!(exit["code"], 1, "{exit}");
}
