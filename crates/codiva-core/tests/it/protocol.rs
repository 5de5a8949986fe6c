//! Every protocol type survives serialize → deserialize unchanged, over what the real captures
//! produce: each fixture's events (bare, as a manager event, numbered, as a notification) and
//! its final snapshot and log page, plus the shapes the manager and serve answer with.

use std::fmt::Debug;

use codiva_protocol::error::{ErrorBody, ErrorData, InvalidFieldData, RefusalCode, RefusalData};
use codiva_protocol::github::{
    PrChecks, PrFailedCheck, PrMergeable, PrState, PrUnavailable, PrView, SessionPr, SessionPrs,
};
use codiva_protocol::manager::{
    DiffStat, DiscardOutcome, DiscardPreview, FileStat, FreshPreview, ManagerEvent,
    ManagerSnapshot, ReadPage, SequencedEvent, SessionInfo, SessionPhase, StatusEntry,
};
use codiva_protocol::params::SessionEventParams;
use codiva_protocol::session::{Status, TodoProgress};
use codiva_protocol::{ClientRequest, ImageInput, ServerNotification, UserInput};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(what: &str, value: &T) {
    let text = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("{what}: does not read back ({err}): {text}"));
    assert_eq!(&back, value, "{what}: changed on the way: {text}");
}

fn usage() -> codiva_protocol::manager::ResourceUsage {
    codiva_protocol::manager::ResourceUsage {
        rss_bytes: 512 * 1024 * 1024,
        cpu_percent: 12.5,
        processes: 3,
    }
}

fn session(phase: SessionPhase) -> SessionInfo {
    SessionInfo {
        id: "add-health".to_owned(),
        title: "add health".to_owned(),
        prompt: "add a health check".to_owned(),
        branch: "codiva/add-health".to_owned(),
        worktree: "/r/.codiva/worktrees/add-health".into(),
        base: "main".to_owned(),
        phase,
        status: Status::Completed,
        detail: Some("step 2/5".to_owned()),
        detail_code: Some(codiva_protocol::log::NoteCode::new("step", &["2", "5"])),
        agent: "claude".to_owned(),
        agent_session_id: Some("9b1c".to_owned()),
        model: None,
        cost_usd: Some(0.0125),
        active_ms: 1840,
        created_at: 1_796_000_400_123,
        pending_prompts: 1,
        todos: TodoProgress { done: 2, total: 5 },
        prs: Default::default(),
        in_place: false,
        mcp_servers: Vec::new(),
        resources: None,
        review: Vec::new(),
        group: None,
        check: None,
    }
}

#[test]
fn every_captured_event_and_snapshot_round_trips() {
    let replays = crate::replay::replay_all();
    let mut events = 0;
    let mut seq = 0;
    for replay in &replays {
        let name = &replay.name;
        for event in &replay.events {
            seq += 1;
            let what = format!("{name} event {seq}");
            round_trip(&what, event);
            let manager = ManagerEvent::Event {
                id: "s".to_owned(),
                event: event.clone(),
            };
            round_trip(&what, &manager);
            round_trip(
                &what,
                &SequencedEvent {
                    seq,
                    event: manager,
                },
            );
            let params = SessionEventParams {
                seq,
                session_id: "s".to_owned(),
                event: event.clone(),
            };
            round_trip(&what, &params);
            // The variant is the method name; every session notification has these params.
            round_trip(&what, &ServerNotification::SessionLog(params));
            events += 1;
        }
        round_trip(&format!("{name} snapshot"), &replay.snapshot);
        round_trip(
            &format!("{name} page"),
            &ReadPage {
                entries: replay.snapshot.log.clone(),
                next_after: None,
                dropped_entries: replay.snapshot.dropped_entries,
            },
        );
    }
    assert!(replays.len() >= 20, "only {} fixtures", replays.len());
    // Every kind of event the captures produce was covered.
    let kinds: std::collections::BTreeSet<String> = replays
        .iter()
        .flat_map(|replay| &replay.events)
        .map(|event| serde_json::to_value(event).unwrap()["event"].to_string())
        .collect();
    for kind in [
        "status",
        "log",
        "stream",
        "prompt_opened",
        "prompt_closed",
        "connected",
        "usage",
        "subagent",
        "todos",
    ] {
        assert!(
            kinds.contains(&format!("\"{kind}\"")),
            "no {kind} event in the captures: {kinds:?}"
        );
    }
    assert!(events > 500, "only {events} events");
}

/// Two pull requests: the branch's own (draft, a check failed) and one not looked up yet,
/// after a lookup that failed.
fn pull_requests() -> SessionPrs {
    SessionPrs {
        prs: vec![
            SessionPr {
                number: 12,
                url: "https://github.com/o/r/pull/12".to_owned(),
                own: true,
                view: Some(PrView {
                    state: PrState::Open,
                    draft: true,
                    checks: PrChecks::Failed,
                    mergeable: PrMergeable::Conflicting,
                    failed: vec![PrFailedCheck {
                        name: "test".to_owned(),
                        url: "https://github.com/o/r/actions/runs/5/job/6".to_owned(),
                    }],
                    unresolved_reviews: Some(2),
                }),
            },
            SessionPr {
                number: 14,
                url: "https://github.com/o/r/pull/14".to_owned(),
                own: false,
                view: None,
            },
        ],
        watched: true,
        checked: true,
        unavailable: Some(PrUnavailable {
            reason: "rate_limited".into(),
            message: "GitHub rate limit reached".to_owned(),
        }),
        paused_until_ms: Some(1_800_000_000_000),
    }
}

#[test]
fn manager_answers_and_errors_round_trip() {
    let phases = [
        SessionPhase::Preparing,
        SessionPhase::Active,
        SessionPhase::Conflict {
            files: vec!["README.md".to_owned()],
        },
        SessionPhase::Merged {
            commit: "abc123".to_owned(),
        },
        SessionPhase::Discarded,
    ];
    for phase in phases {
        let info = session(phase);
        round_trip("session info", &info);
        round_trip(
            "updated",
            &ManagerEvent::Session {
                session: info.clone(),
            },
        );
        round_trip(
            "discarded",
            &DiscardOutcome::Discarded {
                session: Box::new(info),
            },
        );
    }
    round_trip(
        "snapshot",
        &ManagerSnapshot {
            seq: 41,
            sessions: vec![session(SessionPhase::Active)],
            groups: Vec::new(),
        },
    );
    let preview = DiscardPreview {
        uncommitted: vec!["notes.txt".to_owned()],
        unmerged_commits: vec!["Add health check".to_owned()],
    };
    round_trip(
        "needs confirmation",
        &DiscardOutcome::NeedsConfirmation {
            preview: preview.clone(),
            confirm_token: "9f2c".to_owned(),
        },
    );
    round_trip("removed", &DiscardOutcome::Removed { id: "x".to_owned() });
    for event in [
        ManagerEvent::Removed { id: "x".to_owned() },
        ManagerEvent::Warning {
            message: "the state file cannot be written".to_owned(),
        },
        ManagerEvent::Base {
            branch: "trunk".to_owned(),
        },
        ManagerEvent::PrStatus {
            id: "add-health".to_owned(),
            prs: pull_requests(),
        },
        ManagerEvent::Login {
            login: codiva_protocol::agent::LoginProgress {
                login_id: "login-1".to_owned(),
                agent: "claude".to_owned(),
                phase: codiva_protocol::agent::LoginPhase::Failed,
                url: Some("https://claude.ai/oauth/authorize?z-DH9dPQ".to_owned()),
                code: None,
                accepts_code: true,
                output: vec!["Paste code here if prompted >".to_owned()],
                error: Some(
                    "Couldn't log in: getaddrinfo ENOTFOUND platform.claude.com".to_owned(),
                ),
                methods: Vec::new(),
                choose_method: false,
                env_vars: Vec::new(),
            },
        },
        ManagerEvent::Login {
            login: codiva_protocol::agent::LoginProgress {
                login_id: "login-2".to_owned(),
                agent: "codex-acp".to_owned(),
                phase: codiva_protocol::agent::LoginPhase::Running,
                url: None,
                code: None,
                accepts_code: false,
                output: Vec::new(),
                error: None,
                methods: vec![codiva_protocol::agent::LoginMethod {
                    id: "codex-api-key".to_owned(),
                    name: "Use CODEX_API_KEY".to_owned(),
                    description: Some(
                        "Requires setting the `CODEX_API_KEY` environment variable.".to_owned(),
                    ),
                    env_vars: vec!["CODEX_API_KEY".to_owned()],
                }],
                choose_method: true,
                env_vars: Vec::new(),
            },
        },
        ManagerEvent::Resources {
            sessions: vec![
                codiva_protocol::manager::SessionResources {
                    id: "add-health".to_owned(),
                    resources: Some(usage()),
                },
                codiva_protocol::manager::SessionResources {
                    id: "gone".to_owned(),
                    resources: None,
                },
            ],
        },
    ] {
        round_trip("manager event", &SequencedEvent { seq: 7, event });
    }
    let mut with_prs = session(SessionPhase::Active);
    with_prs.prs = pull_requests();
    round_trip("session info with pull requests", &with_prs);
    round_trip(
        "session/prStatus",
        &ServerNotification::SessionPrStatus(codiva_protocol::params::PrStatusParams {
            seq: 9,
            session_id: "add-health".to_owned(),
            prs: pull_requests(),
        }),
    );
    round_trip(
        "session/resources",
        &ServerNotification::SessionResources(codiva_protocol::params::ResourcesParams {
            seq: 10,
            sessions: vec![codiva_protocol::manager::SessionResources {
                id: "add-health".to_owned(),
                resources: Some(usage()),
            }],
        }),
    );
    let mut queued = session(SessionPhase::Active);
    queued.status = codiva_protocol::session::Status::Queued;
    queued.resources = Some(usage());
    round_trip("queued session with resources", &queued);
    // A row without resources leaves the field out (older clients read it as before).
    let plain = serde_json::to_value(session(SessionPhase::Active)).unwrap();
    assert!(plain.get("resources").is_none(), "{plain}");
    round_trip(
        "session/pr result",
        &codiva_protocol::params::PrResult {
            pr: pull_requests().prs[0].clone(),
            created: true,
        },
    );
    round_trip(
        "session/fixCi result",
        &codiva_protocol::params::FixCiResult {
            pr: 12,
            checks: vec!["build".to_owned()],
            log_bytes: 812,
            log_truncated: true,
            message: "sent 1 failed check(s)".to_owned(),
        },
    );
    round_trip(
        "session/addressReview result",
        &codiva_protocol::params::AddressReviewResult {
            pr: 12,
            threads: 2,
            left_out: 0,
            review_bytes: 640,
            truncated: false,
            message: "sent 2 review threads of #12".to_owned(),
        },
    );
    round_trip(
        "session/commit result",
        &codiva_protocol::params::CommitResult {
            commit: Some("9f2c".to_owned()),
            files: 3,
            asked_agent: false,
            message: "committed 3 file(s)".to_owned(),
        },
    );
    round_trip(
        "session/recover result",
        &codiva_protocol::params::RecoverResult {
            items: vec![
                codiva_protocol::params::RecoverItem {
                    session_id: "a".to_owned(),
                    kind: codiva_protocol::params::RecoverKind::FixCi,
                    ok: Some(true),
                    message: "sent".to_owned(),
                },
                codiva_protocol::params::RecoverItem {
                    session_id: "b".to_owned(),
                    kind: codiva_protocol::params::RecoverKind::Sync,
                    ok: None,
                    message: String::new(),
                },
            ],
            succeeded: 1,
            failed: 0,
        },
    );
    // An older row (no `prs`) still reads.
    let mut old = serde_json::to_value(session(SessionPhase::Active)).unwrap();
    old.as_object_mut().unwrap().remove("prs");
    let read: SessionInfo = serde_json::from_value(old).unwrap();
    assert_eq!(read.prs, SessionPrs::default());
    round_trip(
        "diff",
        &DiffStat {
            files: vec![FileStat {
                path: "b.rs".to_owned(),
                old_path: Some("a.rs".to_owned()),
                added: None,
                deleted: Some(1),
            }],
            insertions: 0,
            deletions: 1,
            uncommitted: vec![StatusEntry {
                status: "??".to_owned(),
                path: "scratch/".to_owned(),
                orig_path: None,
            }],
            commits_ahead: 1,
        },
    );
    for data in [
        None,
        Some(ErrorData::InvalidField(InvalidFieldData {
            field: "images[0].data".to_owned(),
        })),
        Some(ErrorData::Refusal(RefusalData {
            reason: RefusalCode::MergeConflict,
            args: vec!["codiva/two".to_owned(), "main".to_owned()],
            fresh: None,
        })),
        Some(ErrorData::Refusal(RefusalData {
            reason: RefusalCode::ChangedSincePreview,
            args: vec!["s".to_owned()],
            fresh: Some(FreshPreview {
                preview: preview.clone(),
                confirm_token: "41be".to_owned(),
            }),
        })),
    ] {
        round_trip(
            "error",
            &ErrorBody {
                code: -32002,
                message: "refused".to_owned(),
                data,
            },
        );
    }
    round_trip(
        "input",
        &UserInput {
            text: "look".to_owned(),
            images: vec![ImageInput {
                media_type: "image/png".to_owned(),
                data: "iVBO".to_owned(),
            }],
            command: Some("review".to_owned()),
            context: Some("[codiva handover] …".to_owned()),
        },
    );
    // What `config/read` answers: every key, set or not, of every kind.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "model = \"opus\" # fast\nmouse = false\n").unwrap();
    let config = codiva_core::config_edit::read_file(&path).unwrap();
    assert!(config.fields.iter().any(|f| f.value.is_some()));
    assert!(config.fields.iter().any(|f| f.value.is_none()));
    round_trip("config", &config);
}

#[test]
fn every_request_round_trips_through_the_method_table() {
    let requests = [
        ("initialize", json!({})),
        (
            "session/create",
            json!({"prompt": "p", "images": [{"media_type": "image/png", "data": "iVBO"}], "model": null, "permission_mode": "plan", "agent": "codex"}),
        ),
        (
            "session/create",
            json!({"prompt": "p", "images": [], "model": null, "permission_mode": null, "in_place": "/r/UnityProject",
                   "mcp_servers": {"unity-ops": {"type": "http", "url": "http://127.0.0.1:5/mcp", "headers": {"Authorization": "Bearer t"}},
                                   "tool": {"type": "stdio", "command": "srv", "args": ["-v"], "env": {"K": "V"}}},
                   "append_system_prompt": "You are in Unity.", "allowed_tools": ["mcp__unity-ops__ping"], "disallowed_tools": ["Bash"]}),
        ),
        ("session/list", json!({})),
        (
            "session/read",
            json!({"session_id": "s", "after": 3, "limit": 10, "subagent": "toolu_1"}),
        ),
        ("session/snapshot", json!({"session_id": "s"})),
        (
            "session/send",
            json!({"session_id": "s", "text": "t", "images": []}),
        ),
        ("session/interrupt", json!({"session_id": "s"})),
        ("session/resume", json!({"session_id": "s", "text": null})),
        (
            "session/respondPermission",
            json!({"session_id": "s", "request_id": "r", "decision": "allow_always", "suggestion": 0, "message": null}),
        ),
        (
            "session/answerQuestion",
            json!({"session_id": "s", "request_id": "r", "answers": {"Which?": "A", "Extras?": ["B", "C"]}, "decline": false, "message": null}),
        ),
        (
            "session/setModel",
            json!({"session_id": "s", "model": "opus"}),
        ),
        (
            "session/setPermissionMode",
            json!({"session_id": "s", "mode": "plan"}),
        ),
        (
            "session/setAgent",
            json!({"session_id": "s", "agent": "codex"}),
        ),
        (
            "session/setApprovalPolicy",
            json!({"session_id": "s", "policy": {"mode": "rules", "rules": [{"tool": "Bash", "command_prefix": "cargo test"}, {"tool": "Edit"}]}}),
        ),
        ("session/diff", json!({"session_id": "s"})),
        ("session/commits", json!({"session_id": "s"})),
        ("session/diffText", json!({"session_id": "s"})),
        (
            "session/rename",
            json!({"session_id": "s", "title": "Fix the parser"}),
        ),
        (
            "session/fullMessage",
            json!({"session_id": "s", "entry": 7, "subagent": null}),
        ),
        ("session/merge", json!({"session_id": "s"})),
        (
            "session/discard",
            json!({"session_id": "s", "confirm_token": "9f2c"}),
        ),
        (
            "session/remove",
            json!({"session_id": "s", "confirm_token": null}),
        ),
        ("session/restore", json!({"session_id": "s"})),
        ("session/sync", json!({"session_id": "s"})),
        ("session/pr", json!({"session_id": "s"})),
        (
            "session/mcpReconnect",
            json!({"session_id": "s", "server": "unity-ops"}),
        ),
        ("session/fixCi", json!({"session_id": "s"})),
        ("session/addressReview", json!({"session_id": "s"})),
        (
            "review/add",
            json!({"session_id": "s", "anchor": {"path": "src/a.rs", "side": "new", "start_line": 2, "end_line": 3}, "lines": ["+a", "+b"], "body": "Say why."}),
        ),
        (
            "review/edit",
            json!({"session_id": "s", "comment_id": "c1", "body": "Say why, please."}),
        ),
        (
            "review/remove",
            json!({"session_id": "s", "comment_id": "c1"}),
        ),
        ("review/send", json!({"session_id": "s"})),
        (
            "session/commit",
            json!({"session_id": "s", "message": "Fix the parser"}),
        ),
        ("session/recover", json!({"dry_run": true})),
        ("session/runCheck", json!({"session_id": "s"})),
        ("session/checkOutput", json!({"session_id": "s"})),
        (
            "group/create",
            json!({"prompt": "p", "attempts": [{"agent": "claude"}, {"agent": "claude", "model": "opus"}], "images": [], "approval_policy": {"mode": "allow_edits"}}),
        ),
        ("group/lastAttempts", json!({})),
        ("group/compare", json!({"group_id": "g-p"})),
        (
            "group/diff",
            json!({"session_id": "s", "other": "t", "path": "src/main.rs"}),
        ),
        (
            "group/keep",
            json!({"group_id": "g-p", "session_id": "s", "confirm_token": "t:9f2c"}),
        ),
        ("history/list", json!({"query": "parser"})),
        (
            "history/read",
            json!({"agent": "claude", "id": "0b6c2d1e-1f2a-4c3b-9d8e-7f6a5b4c3d2e", "cwd": "/r/app"}),
        ),
        (
            "history/adopt",
            json!({"agent": "codex", "id": "0b6c2d1e-1f2a-4c3b-9d8e-7f6a5b4c3d2e", "cwd": "/r/app", "place": "worktree"}),
        ),
        ("manager/snapshot", json!({})),
        ("agents/list", json!({})),
        ("agents/login", json!({"agent": "claude"})),
        (
            "agents/loginInput",
            json!({"login_id": "login-1", "text": "code#state"}),
        ),
        ("agents/loginCancel", json!({"login_id": "login-1"})),
        ("config/read", json!({})),
        ("config/set", json!({"key": "model", "value": "opus"})),
        ("daemon/shutdown", json!({})),
    ];
    assert_eq!(
        requests
            .iter()
            .map(|(method, _)| *method)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        ClientRequest::METHODS.len(),
        "a request is not covered"
    );
    for (method, params) in requests {
        let request = ClientRequest::parse(method, params.clone())
            .unwrap_or_else(|err| panic!("{method}: {err:?}"));
        assert_eq!(request.method(), method);
        round_trip(method, &request);
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"method": method, "params": params}),
            "{method}: the params on the wire changed"
        );
    }
}
