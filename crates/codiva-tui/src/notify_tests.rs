#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn detects_the_terminal() {
    let cases: &[(&[(&str, &str)], Channel)] = &[
        (&[("TERM", "xterm-kitty")], Channel::Osc99),
        (
            &[
                ("TERM", "tmux-256color"),
                ("TERM_PROGRAM", "tmux"),
                ("KITTY_WINDOW_ID", "3"),
            ],
            Channel::Osc99,
        ),
        (&[("TERM_PROGRAM", "iTerm.app")], Channel::Osc9),
        (
            &[("TERM_PROGRAM", "tmux"), ("LC_TERMINAL", "iTerm2")],
            Channel::Osc9,
        ),
        (&[("TERM_PROGRAM", "WezTerm")], Channel::Osc777),
        (&[("TERM_PROGRAM", "ghostty")], Channel::Osc777),
        (&[("TERM", "xterm-ghostty")], Channel::Osc777),
        (&[("TERM", "foot")], Channel::Osc777),
        (&[("TERM", "foot-extra")], Channel::Osc777),
        (&[("TERM", "rxvt-unicode-256color")], Channel::Osc777),
        (
            &[("TERM", "xterm-256color"), ("VTE_VERSION", "7600")],
            Channel::Osc777,
        ),
        (&[("WT_SESSION", "b7d5…")], Channel::Osc777),
        // Started from a kitty shell, but this terminal is VS Code's.
        (
            &[
                ("TERM_PROGRAM", "vscode"),
                ("KITTY_WINDOW_ID", "1"),
                ("DISPLAY", ":0"),
            ],
            Channel::Desktop,
        ),
        (
            &[("TERM", "xterm-256color"), ("DISPLAY", ":0")],
            Channel::Desktop,
        ),
        (&[("WAYLAND_DISPLAY", "wayland-0")], Channel::Desktop),
        (
            &[("DISPLAY", ":0"), ("SSH_CONNECTION", "1 2 3 4")],
            Channel::None,
        ),
        (&[("TERM", "xterm-256color")], Channel::None),
        (&[("TERM", ""), ("TERM_PROGRAM", " ")], Channel::None),
    ];
    for (pairs, expected) in cases {
        assert_eq!(detect_on(&env_of(pairs), false), *expected, "{pairs:?}");
    }
    assert_eq!(
        detect_on(&env_of(&[("TERM_PROGRAM", "Apple_Terminal")]), true),
        Channel::Desktop
    );
    assert_eq!(
        detect_on(&env_of(&[("SSH_TTY", "/dev/pts/1")]), true),
        Channel::None
    );
}

#[test]
fn sanitize_removes_controls_and_separators() {
    let cases = [
        ("plain title", "plain title"),
        ("a\x1b]0;pwned\x07b", "a]0,pwnedb"),
        ("x\u{9b}31m\u{9c}\u{9d}y\u{7f}", "x31my"),
        ("  line\none\r\n\ttwo  ", "line one two"),
        ("semi;colon", "semi,colon"),
        ("nel\u{85}next", "nel next"),
        ("\x1b\x07\u{90}", ""),
        ("日本語のタイトル", "日本語のタイトル"),
    ];
    for (input, expected) in cases {
        assert_eq!(
            sanitize_title(input, DEFAULT_MAX_CHARS),
            expected,
            "{input:?}"
        );
    }
}

#[test]
fn sanitize_caps_with_an_ellipsis() {
    assert_eq!(sanitize_title("abcdef", 6), "abcdef");
    assert_eq!(sanitize_title("abcdefg", 6), "abcde…");
    assert_eq!(sanitize_title("abcd efg", 6), "abcd…");
    assert_eq!(sanitize_title("絵文字🙂テスト", 4), "絵文字…");
    assert_eq!(sanitize_title("abc", 0), "");
    let long = "x".repeat(500);
    assert_eq!(
        sanitize_title(&long, DEFAULT_MAX_CHARS).chars().count(),
        100
    );
}

#[test]
fn sequences_per_channel() {
    assert_eq!(
        sequence(Channel::Osc777, "Fix; login", "completed", false).unwrap(),
        "\x1b]777;notify;Fix, login;completed\x07"
    );
    assert_eq!(
        sequence(Channel::Osc9, "Fix login", "needs your answer", false).unwrap(),
        "\x1b]9;Fix login: needs your answer\x07"
    );
    assert_eq!(
        sequence(Channel::Osc99, "Fix login", "failed", false).unwrap(),
        "\x1b]99;i=codiva:d=0;Fix login\x1b\\\x1b]99;i=codiva:d=1:p=body;failed\x1b\\"
    );
    assert_eq!(
        sequence(Channel::Osc9, "t", "b", true).unwrap(),
        "\x1bPtmux;\x1b\x1b]9;t: b\x07\x1b\\"
    );
    assert_eq!(
        sequence(Channel::Osc99, "t", "b", true).unwrap(),
        "\x1bPtmux;\x1b\x1b]99;i=codiva:d=0;t\x1b\x1b\\\x1b\x1b]99;i=codiva:d=1:p=body;b\x1b\x1b\\\x1b\\"
    );
    assert_eq!(sequence(Channel::Desktop, "t", "b", false), None);
    assert_eq!(sequence(Channel::None, "t", "b", false), None);
    // An empty title still names the sender.
    assert_eq!(
        sequence(Channel::Osc777, "\x1b", "b", false).unwrap(),
        "\x1b]777;notify;codiva;b\x07"
    );
}

#[test]
fn notifier_follows_focus_and_the_setting() {
    let mut notifier = Notifier::new(Channel::Osc777, true, false);
    assert!(notifier.should_notify(), "focus unknown: notify");
    notifier.on_focus(true);
    assert!(!notifier.should_notify());
    assert_eq!(notifier.notification("t", "b"), Notification::None);
    notifier.on_focus(false);
    assert_eq!(
        notifier.notification("t;x", "b"),
        Notification::Write("\x1b]777;notify;t,x;b\x07".to_owned())
    );

    let mut off = Notifier::new(Channel::Osc777, false, false);
    assert!(!off.should_notify());
    assert_eq!(off.notification("t", "b"), Notification::None);
    assert!(!Notifier::disabled().should_notify());
    assert!(!Notifier::new(Channel::None, true, false).should_notify());

    let mut desktop = Notifier::new(Channel::Desktop, true, true);
    assert_eq!(
        desktop.notification("\x1b[31mred\x1b[0m", "completed"),
        Notification::Desktop {
            title: "[31mred[0m".to_owned(),
            body: "completed".to_owned()
        }
    );
}

#[test]
fn kitty_notifications_get_distinct_ids() {
    let mut notifier = Notifier::new(Channel::Osc99, true, false);
    let ids: Vec<String> = (0..2)
        .map(|_| match notifier.notification("t", "b") {
            Notification::Write(text) => text.split(['=', ':']).nth(1).expect("an id").to_owned(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_ne!(ids[0], ids[1]);
    assert!(ids[0].starts_with("codiva-"), "{ids:?}");
}

#[test]
fn transitions_that_notify() {
    use Status::*;
    let table: &[(Option<Status>, Status, Option<&str>)] = &[
        (Some(Running), AwaitingAnswer, Some("needs your answer")),
        (
            Some(Running),
            AwaitingPermission,
            Some("needs a permission"),
        ),
        (
            Some(AwaitingPermission),
            AwaitingAnswer,
            Some("needs your answer"),
        ),
        (Some(Running), Completed, Some("completed")),
        (Some(Starting), Failed, Some("failed")),
        (Some(Running), NeedsLogin, Some("needs attention")),
        (Some(Running), RateLimited, Some("needs attention")),
        (Some(Running), Interrupted, Some("was interrupted")),
        (Some(Completed), Running, None),
        (Some(Starting), Running, None),
        (Some(AwaitingPermission), Running, None),
        (Some(Completed), Completed, None),
        (Some(AwaitingAnswer), AwaitingAnswer, None),
        (None, Completed, None),
        (None, AwaitingAnswer, None),
        (None, Failed, None),
    ];
    for (previous, now, expected) in table {
        assert_eq!(
            transition(*previous, *now),
            *expected,
            "{previous:?} → {now:?}"
        );
    }
}

#[test]
fn status_watch_remembers_and_counts() {
    let mut watch = StatusWatch::default();
    assert_eq!(watch.observe("a", Status::Completed), None, "restored");
    assert_eq!(watch.observe("b", Status::Running), None);
    assert_eq!(watch.observe("b", Status::Running), None);
    assert_eq!(
        watch.observe("b", Status::AwaitingAnswer),
        Some("needs your answer")
    );
    assert_eq!(watch.observe("c", Status::Running), None);
    assert_eq!(
        watch.counts(),
        BTreeMap::from([
            ("awaiting_answer".to_owned(), 1),
            ("completed".to_owned(), 1),
            ("running".to_owned(), 1),
        ])
    );
    watch.forget("c");
    assert_eq!(watch.counts().get("running"), None);
    assert_eq!(watch.observe("c", Status::Failed), None, "seen anew");
}
