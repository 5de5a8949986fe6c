#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use super::*;

fn fake_env() -> impl Fn(&str) -> Option<String> {
    let map: HashMap<&str, &str> = HashMap::from([
        ("TERM", "xterm-kitty"),
        ("TERM_PROGRAM", "tmux"),
        ("ANTHROPIC_API_KEY", "sk-ant-secret-value"),
        ("CLAUDE_CODE_OAUTH_TOKEN", "oauth-secret-value"),
        ("HOME", "/home/secret-user"),
        ("PATH", "/secret/bin"),
    ]);
    move |name| map.get(name).map(|value| (*value).to_owned())
}

fn report(unix_ms: u64) -> CrashReport {
    let mut report = CrashReport::new(
        "9.8.7",
        "index out of bounds\x1b[31m".to_owned(),
        Some("crates/codiva-tui/src/app.rs:10:5".to_owned()),
        "   0: codiva::main\n   1: std::rt::lang_start".to_owned(),
        &fake_env(),
    );
    report.unix_ms = unix_ms;
    report.size = Some((120, 40));
    report.status_counts = Some(BTreeMap::from([
        ("completed".to_owned(), 2),
        ("running".to_owned(), 1),
    ]));
    report.thread = Some("main".to_owned());
    report
}

#[test]
fn the_log_has_the_facts_and_no_other_environment() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_crash_log(dir.path(), &report(1_700_000_000_123)).unwrap();
    assert_eq!(
        path,
        dir.path().join("crashes").join("crash-1700000000123.txt")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    for expected in [
        "codiva version: 9.8.7",
        &format!("os: {} ({})", std::env::consts::OS, std::env::consts::ARCH),
        "TERM: xterm-kitty",
        "TERM_PROGRAM: tmux",
        "terminal size: 120x40",
        "sessions: completed 2, running 1",
        "thread: main",
        "location: crates/codiva-tui/src/app.rs:10:5",
        "message: index out of bounds\\u{1b}[31m",
        "0: codiva::main",
    ] {
        assert!(text.contains(expected), "{expected:?} missing in:\n{text}");
    }
    for secret in ["secret", "ANTHROPIC", "OAUTH", "HOME", "PATH"] {
        assert!(!text.contains(secret), "{secret:?} leaked:\n{text}");
    }
    assert!(!text.contains('\x1b'), "raw escape in the log");
}

#[test]
fn only_the_newest_ten_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let crashes = dir.path().join("crashes");
    std::fs::create_dir_all(&crashes).unwrap();
    std::fs::write(crashes.join("notes.txt"), "keep me").unwrap();
    for ms in 1..=12u64 {
        write_crash_log(dir.path(), &report(ms * 1000)).unwrap();
    }
    // Two in the same millisecond get distinct names.
    let again = write_crash_log(dir.path(), &report(12_000)).unwrap();
    assert_eq!(again, crashes.join("crash-12000-1.txt"));
    let mut names: Vec<String> = std::fs::read_dir(&crashes)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut expected: Vec<String> = (4..=12u64)
        .map(|n| format!("crash-{}.txt", n * 1000))
        .chain(["crash-12000-1.txt".to_owned(), "notes.txt".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(names, expected);
}

#[test]
fn status_counts_are_shared() {
    let counts = status_counts_handle();
    let app_side = counts.clone();
    app_side.set(BTreeMap::from([("running".to_owned(), 3)]));
    assert_eq!(
        counts.get(),
        Some(BTreeMap::from([("running".to_owned(), 3)]))
    );
}

#[test]
fn the_short_report_is_one_safe_paragraph() {
    let text = short_report(
        "boom\x1b]0;title\x07",
        &Ok(PathBuf::from("/state/crashes/crash-1.txt")),
    );
    assert_eq!(
        text,
        "\ncodiva crashed: boom]0,title. A crash log was written to /state/crashes/crash-1.txt. \
         Your sessions are saved; run codiva again to continue.\n"
    );
    let failed = short_report("boom", &Err(io::Error::other("disk full")));
    assert!(failed.contains("The crash log could not be written (disk full)."));
}

#[test]
fn a_panic_off_the_ui_thread_is_logged_and_left_to_the_ui() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let flushed = Arc::new(AtomicBool::new(false));
    let flag = flushed.clone();
    let previous = std::panic::take_hook();
    install(
        dir.path().to_owned(),
        CrashInfo {
            version: "9.8.7".to_owned(),
            status_counts: status_counts_handle(),
            flush: Some(Box::new(move || flag.store(true, Ordering::SeqCst))),
        },
    );
    let joined = std::thread::spawn(|| panic!("task failed\x1b[2J")).join();
    std::panic::set_hook(previous);
    assert!(joined.is_err());
    let contained = take_contained();
    assert_eq!(contained.len(), 1, "{contained:?}");
    // Printed into a notice: no escape reaches the terminal.
    assert!(!contained[0].message.contains('\x1b'), "{contained:?}");
    assert!(contained[0].message.starts_with("task failed"));
    let log = contained[0].log.clone().unwrap();
    assert!(log.starts_with(dir.path().join("crashes")), "{log:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("task failed"), "{text}");
    // The UI goes on: the state is saved as usual, not by the hook.
    assert!(!flushed.load(Ordering::SeqCst));
    assert!(take_contained().is_empty());
}
