//! Attempts and checks with the scripted provider (a real child process, deterministic): one
//! instruction started as a group of sessions side by side (within `max_running_agents`), the
//! repository's check run when each turn completes, the group compared from git, one attempt
//! kept while the others are discarded losslessly (and one restored), all of it kept across a
//! restart; a check's time limit, its stop with its session, and the requests about it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use codiva_core::check::CheckOptions;
use codiva_core::manager::{BudgetOptions, Manager, ManagerError};
use codiva_protocol::error::RefusalCode;
use codiva_protocol::group::{
    AttemptDiffParams, AttemptSpec, CheckState, CheckTrigger, CreateGroupParams, GroupChange,
    GroupParams, KeepOutcome, KeepParams,
};
use codiva_protocol::manager::{ManagerEvent, SessionInfo, SessionPhase};
use codiva_protocol::methods::request;
use codiva_protocol::params::{Decision, NoParams, PermissionParams, SessionParams};
use codiva_protocol::session::{Prompt, SessionEvent, Status};
use codiva_testkit::TestRepo;
use tokio::sync::broadcast;

use super::options;

/// Waits for a manager event `pick` takes.
async fn until_manager<T>(
    events: &mut codiva_core::manager::EventReceiver,
    mut pick: impl FnMut(&ManagerEvent) -> Option<T>,
) -> T {
    let wait = async {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(found) = pick(&event) {
                        return found;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the manager stopped"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("timed out waiting for a manager event")
}

/// Waits until every session of `ids` has shown a row `done` takes; the rows seen meanwhile
/// go to `seen`.
async fn until_all(
    events: &mut codiva_core::manager::EventReceiver,
    ids: &[String],
    seen: &mut Vec<SessionInfo>,
    done: impl Fn(&SessionInfo) -> bool,
) -> BTreeMap<String, SessionInfo> {
    let mut rows = BTreeMap::new();
    until_manager(events, |event| {
        if let ManagerEvent::Session { session } = event
            && ids.contains(&session.id)
        {
            seen.push(session.clone());
            if done(session) {
                rows.insert(session.id.clone(), session.clone());
            }
        }
        (rows.len() == ids.len()).then_some(())
    })
    .await;
    rows
}

fn checks(command: &str, timeout: Duration) -> CheckOptions {
    CheckOptions {
        command: Some(command.to_owned()),
        timeout,
    }
}

fn refusal(err: ManagerError) -> RefusalCode {
    match err {
        ManagerError::Refused(refusal) => refusal.code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_runs_side_by_side_is_checked_compared_and_one_attempt_is_kept() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    // Two agents at once: the third attempt waits its turn.
    options.budget = BudgetOptions {
        max_running_agents: Some(2),
        ..BudgetOptions::default()
    };
    // Fails in the attempt whose worktree is named for the model `fast`, passes elsewhere.
    options.checks = checks(
        "echo \"checking $(basename \"$CODIVA_WORKTREE\")\"; case \"$CODIVA_WORKTREE\" in *-fast) echo 'it broke' >&2; exit 4;; esac",
        Duration::from_secs(60),
    );
    let (manager, _) = Manager::start(options.clone()).await.unwrap();
    let mut events = manager.subscribe();

    let specs = AttemptSpec::parse_list("scripted, scripted, scripted:fast").unwrap();
    let created = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "  ask permission  ".to_owned(),
            attempts: specs.clone(),
            ..CreateGroupParams::default()
        })
        .await
        .unwrap();
    let group = created.group.clone();
    assert_eq!(group.instruction, "ask permission");
    assert_eq!(group.attempts.len(), 3);
    let ids: Vec<String> = created.sessions.iter().map(|s| s.id.clone()).collect();
    assert_eq!(
        ids,
        [
            "ask-permission-scripted",
            "ask-permission-scripted-2",
            "ask-permission-scripted-fast"
        ]
    );
    let branches: BTreeSet<_> = created.sessions.iter().map(|s| s.branch.clone()).collect();
    assert_eq!(branches.len(), 3, "one branch per attempt: {branches:?}");
    for session in &created.sessions {
        assert_eq!(session.group.as_deref(), Some(group.id.as_str()));
        assert_eq!(session.prompt, "ask permission");
        assert_eq!(session.phase, SessionPhase::Preparing);
    }
    assert_eq!(created.sessions[2].model.as_deref(), Some("fast"));

    // Each attempt asks a permission, answered as it comes; two hold the agent slots meanwhile,
    // so the third waits its turn. Every attempt then completes and is checked: two pass, the
    // `fast` one fails.
    let mut seen = Vec::new();
    let mut rows = BTreeMap::new();
    let mut answered = BTreeSet::new();
    // Prompts are answered once the third attempt showed it waits (the two asking hold both
    // slots until then).
    let mut waiting: Vec<(String, String)> = Vec::new();
    let mut queued = false;
    while rows.len() < ids.len() {
        let event = until_manager(&mut events, |event| Some(event.clone())).await;
        match event {
            ManagerEvent::Event {
                id,
                event:
                    SessionEvent::PromptOpened {
                        prompt: Prompt::Permission(asked),
                    },
            } if ids.contains(&id) => {
                assert!(answered.insert(id.clone()), "{id} asked twice");
                waiting.push((id, asked.request_id));
            }
            ManagerEvent::Session { session } if ids.contains(&session.id) => {
                queued |= session.status == Status::Queued;
                if session.status == Status::Completed
                    && session.check.as_ref().is_some_and(|c| c.state.is_settled())
                {
                    rows.insert(session.id.clone(), session.clone());
                }
                seen.push(session);
            }
            _ => {}
        }
        if !queued {
            assert!(waiting.len() <= 2, "three agents ran at once");
            continue;
        }
        for (id, request_id) in waiting.drain(..) {
            manager
                .request::<request::SessionRespondPermission>(PermissionParams {
                    session_id: id,
                    request_id,
                    option: None,
                    decision: Some(Decision::Allow),
                    suggestion: None,
                    message: None,
                })
                .await
                .unwrap();
        }
    }
    assert_eq!(answered.len(), 3);
    // Which attempt waits is whichever worktree was made last.
    let held: BTreeSet<_> = seen
        .iter()
        .filter(|s| s.status == Status::Queued)
        .map(|s| s.id.clone())
        .collect();
    assert_eq!(
        held.len(),
        1,
        "max_running_agents held one attempt back: {held:?}"
    );
    for id in &ids[..2] {
        let check = rows[id].check.clone().unwrap();
        assert_eq!(check.state, CheckState::Passed, "{id}: {check:?}");
        assert_eq!(check.trigger, CheckTrigger::TurnCompleted);
        assert_eq!(check.exit_code, Some(0));
    }
    let failed = rows[&ids[2]].check.clone().unwrap();
    assert_eq!(failed.state, CheckState::Failed);
    assert_eq!(failed.exit_code, Some(4));
    let output = manager
        .request::<request::SessionCheckOutput>(SessionParams {
            session_id: ids[2].clone(),
        })
        .await
        .unwrap();
    assert!(
        output
            .tail
            .contains("checking ask-permission-scripted-fast"),
        "{output:?}"
    );
    assert!(output.tail.contains("it broke"), "{output:?}");

    // The attempts' work, as git sees it: one uncommitted file, one committed, one untracked
    // beside a change to a file both others also wrote.
    let worktree = |n: usize| rows[&ids[n]].worktree.clone();
    std::fs::write(worktree(0).join("shared.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(worktree(1).join("shared.txt"), "one\n2\n").unwrap();
    git(&worktree(1), &["add", "shared.txt"]);
    git(
        &worktree(1),
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-q",
            "-m",
            "shared",
        ],
    );
    let compare = manager
        .request::<request::GroupCompare>(GroupParams {
            group_id: group.id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(compare.attempts.len(), 3);
    let first = compare.attempts[0].work.clone().unwrap();
    assert_eq!(
        (first.insertions, first.deletions, first.commits),
        (3, 0, 0)
    );
    assert_eq!(first.files.len(), 1);
    assert_eq!(first.uncommitted, 1);
    let second = compare.attempts[1].work.clone().unwrap();
    assert_eq!(
        (second.insertions, second.commits, second.uncommitted),
        (2, 1, 0)
    );
    assert_eq!(compare.attempts[2].work.clone().unwrap().files, Vec::new());
    assert_eq!(compare.attempts[2].spec, specs[2]);
    assert_eq!(
        compare.attempts[2].session.check.as_ref().map(|c| c.state),
        Some(CheckState::Failed)
    );
    // The scripted agent reports no usage: nothing is made up.
    assert!(compare.attempts.iter().all(|a| a.tokens.is_none()));

    // One attempt against the base, and the same file in two attempts.
    let against_base = manager
        .request::<request::GroupDiff>(AttemptDiffParams {
            session_id: ids[0].clone(),
            other: None,
            path: Some("shared.txt".to_owned()),
        })
        .await
        .unwrap();
    assert!(
        against_base.text.contains("+three"),
        "{}",
        against_base.text
    );
    let between = manager
        .request::<request::GroupDiff>(AttemptDiffParams {
            session_id: ids[0].clone(),
            other: Some(ids[1].clone()),
            path: Some("shared.txt".to_owned()),
        })
        .await
        .unwrap();
    // One file under its own path in both, not a deletion and an addition of two.
    assert!(
        between
            .text
            .starts_with("diff --git a/shared.txt b/shared.txt\n"),
        "{}",
        between.text
    );
    assert_eq!(
        between.text.matches("diff --git").count(),
        1,
        "{}",
        between.text
    );
    assert!(between.text.contains("-2"), "{}", between.text);
    assert!(between.text.contains("+two"), "{}", between.text);
    assert!(between.text.contains("+three"), "{}", between.text);
    let outside = manager
        .request::<request::GroupDiff>(AttemptDiffParams {
            session_id: ids[0].clone(),
            other: Some(ids[1].clone()),
            path: Some("../secret".to_owned()),
        })
        .await;
    assert!(
        matches!(outside, Err(ManagerError::Invalid(_))),
        "{outside:?}"
    );

    // Keep the second (titled otherwise meanwhile): first a preview of what discarding the
    // others removes.
    manager
        .request::<request::SessionRename>(codiva_protocol::params::RenameParams {
            session_id: ids[1].clone(),
            title: "the second try".to_owned(),
        })
        .await
        .unwrap();
    let preview = manager
        .request::<request::GroupKeep>(KeepParams {
            group_id: group.id.clone(),
            session_id: ids[1].clone(),
            confirm_token: None,
        })
        .await
        .unwrap();
    let KeepOutcome::NeedsConfirmation {
        discard,
        confirm_token,
    } = preview
    else {
        panic!("no preview: {preview:?}");
    };
    let listed: Vec<_> = discard.iter().map(|d| d.session_id.clone()).collect();
    assert_eq!(listed, [ids[0].clone(), ids[2].clone()]);
    assert_eq!(discard[0].preview.uncommitted, ["shared.txt"]);
    let kept = manager
        .request::<request::GroupKeep>(KeepParams {
            group_id: group.id.clone(),
            session_id: ids[1].clone(),
            confirm_token: Some(confirm_token),
        })
        .await
        .unwrap();
    let KeepOutcome::Kept {
        group: kept_group,
        session,
        discarded,
    } = kept
    else {
        panic!("not kept: {kept:?}");
    };
    assert_eq!(kept_group.kept.as_deref(), Some(ids[1].as_str()));
    assert_eq!(session.title, "ask permission");
    assert_eq!(session.phase, SessionPhase::Active);
    assert_eq!(discarded.len(), 2);
    assert!(discarded.iter().all(|s| s.phase == SessionPhase::Discarded));
    let change = until_manager(&mut events, |event| match event {
        ManagerEvent::Group { change, group } if group.id == kept_group.id => Some(*change),
        _ => None,
    })
    .await;
    assert_eq!(change, GroupChange::Kept);
    let again = manager
        .request::<request::GroupKeep>(KeepParams {
            group_id: group.id.clone(),
            session_id: ids[0].clone(),
            confirm_token: None,
        })
        .await;
    assert_eq!(refusal(again.unwrap_err()), RefusalCode::AlreadyKept);

    // A discarded attempt comes back with its uncommitted work.
    let restored = manager.restore(&ids[0]).await.unwrap();
    assert_eq!(restored.phase, SessionPhase::Active);
    assert_eq!(
        std::fs::read_to_string(restored.worktree.join("shared.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );

    // After a restart: the group, its kept attempt and the attempts last asked for.
    manager.shutdown().await;
    let (manager, _) = Manager::start(options).await.unwrap();
    let snapshot = manager
        .request::<request::ManagerSnapshot>(NoParams {})
        .await
        .unwrap();
    assert_eq!(snapshot.groups.len(), 1);
    assert_eq!(snapshot.groups[0].kept.as_deref(), Some(ids[1].as_str()));
    assert_eq!(snapshot.groups[0].attempts.len(), 3);
    let rows: Vec<_> = snapshot
        .sessions
        .iter()
        .filter(|s| s.group.as_deref() == Some(group.id.as_str()))
        .collect();
    assert_eq!(rows.len(), 3);
    let fast = rows.iter().find(|s| s.id == ids[2]).unwrap();
    assert_eq!(
        fast.check.as_ref().map(|c| c.state),
        Some(CheckState::Failed)
    );
    let last = manager
        .request::<request::GroupLastAttempts>(NoParams {})
        .await
        .unwrap();
    assert_eq!(last.attempts, specs);
    assert_eq!(last.text, "scripted, scripted, scripted:fast");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_has_a_time_limit_and_stops_with_its_session() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let pids = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    // Each run writes its pid, then outlasts its time limit (its child too).
    let pid_file = pids.path().join("pid");
    options.checks = checks(
        &format!(
            "echo $$ > '{}'; echo started; sleep 600 & wait",
            pid_file.display()
        ),
        Duration::from_secs(1),
    );
    let (manager, _) = Manager::start(options).await.unwrap();
    let mut events = manager.subscribe();
    let created = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "say hello".to_owned(),
            attempts: vec![AttemptSpec::new("scripted", None)],
            ..CreateGroupParams::default()
        })
        .await
        .unwrap();
    let id = created.sessions[0].id.clone();
    let mut seen = Vec::new();
    let rows = until_all(&mut events, std::slice::from_ref(&id), &mut seen, |s| {
        s.check.as_ref().is_some_and(|c| c.state.is_settled())
    })
    .await;
    let check = rows[&id].check.clone().unwrap();
    assert_eq!(check.state, CheckState::TimedOut, "{check:?}");
    assert!(check.detail.is_some());
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Its whole group was killed and reaped: no process of it is left.
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "check {pid} left behind"
    );
    let output = manager
        .request::<request::SessionCheckOutput>(SessionParams {
            session_id: id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(output.tail, "started\n");

    // On demand; asked again while it runs, refused.
    std::fs::remove_file(&pid_file).unwrap();
    let started = manager
        .request::<request::SessionRunCheck>(SessionParams {
            session_id: id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(started.check.state, CheckState::Running);
    assert_eq!(started.check.trigger, CheckTrigger::Requested);
    let twice = manager
        .request::<request::SessionRunCheck>(SessionParams {
            session_id: id.clone(),
        })
        .await;
    assert_eq!(refusal(twice.unwrap_err()), RefusalCode::CheckRunning);
    // Discarded while it runs: it is stopped with its session.
    let wait_pid = async {
        loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse::<i32>()
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let pid = tokio::time::timeout(Duration::from_secs(30), wait_pid)
        .await
        .expect("the check never started");
    let token = match manager.discard(&id, None).await.unwrap() {
        codiva_protocol::manager::DiscardOutcome::NeedsConfirmation { confirm_token, .. } => {
            confirm_token
        }
        other => panic!("{other:?}"),
    };
    manager.discard(&id, Some(token)).await.unwrap();
    let stopped = until_manager(&mut events, |event| match event {
        ManagerEvent::Session { session }
            if session.id == id
                && session.check.as_ref().is_some_and(|c| {
                    c.trigger == CheckTrigger::Requested && c.state.is_settled()
                }) =>
        {
            session.check.clone()
        }
        _ => None,
    })
    .await;
    assert_eq!(stopped.state, CheckState::Error, "{stopped:?}");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "check {pid} left behind"
    );
    manager.shutdown().await;
}

/// The row of session `id` whose check passed, started at `after` or later.
async fn passed_after(
    events: &mut codiva_core::manager::EventReceiver,
    id: &str,
    after: u64,
) -> SessionInfo {
    let mut seen = Vec::new();
    until_all(events, &[id.to_owned()], &mut seen, |s| {
        s.check
            .as_ref()
            .is_some_and(|c| c.state == CheckState::Passed && c.started_at >= after)
    })
    .await
    .remove(id)
    .unwrap()
}

/// Every session is checked, not only attempts: after each completed turn, again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_outside_any_group_is_checked_after_each_turn() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = options(&repo, home.path().to_path_buf());
    options.checks = checks("echo checked", Duration::from_secs(60));
    let (manager, _) = Manager::start(options).await.unwrap();
    let mut events = manager.subscribe();
    let info = manager
        .create(codiva_core::manager::CreateOptions {
            prompt: "say hello".to_owned(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(info.group, None);
    let first = passed_after(&mut events, &info.id, 0).await.check.unwrap();
    manager
        .send(&info.id, codiva_protocol::UserInput::text("say it again"))
        .await
        .unwrap();
    let second = passed_after(&mut events, &info.id, first.started_at + 1).await;
    assert_eq!(second.status, Status::Completed);
    assert_eq!(second.check.unwrap().trigger, CheckTrigger::TurnCompleted);
    manager.shutdown().await;
}

/// A check that runs when the manager stops is stopped with it (and reaped), and reads back
/// as `error` after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_stops_with_the_manager() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let pids = tempfile::tempdir().unwrap();
    let pid_file = pids.path().join("pid");
    let mut options = options(&repo, home.path().to_path_buf());
    options.checks = checks(
        &format!("echo $$ > '{}'; sleep 600 & wait", pid_file.display()),
        Duration::from_secs(600),
    );
    let (manager, _) = Manager::start(options.clone()).await.unwrap();
    let mut events = manager.subscribe();
    let created = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "say hello".to_owned(),
            attempts: vec![AttemptSpec::new("scripted", None)],
            ..CreateGroupParams::default()
        })
        .await
        .unwrap();
    let id = created.sessions[0].id.clone();
    let mut seen = Vec::new();
    until_all(&mut events, std::slice::from_ref(&id), &mut seen, |s| {
        s.status == Status::Completed
            && s.check
                .as_ref()
                .is_some_and(|c| c.state == CheckState::Running)
    })
    .await;
    let wait_pid = async {
        loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse::<i32>()
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let pid = tokio::time::timeout(Duration::from_secs(30), wait_pid)
        .await
        .expect("the check never started");
    manager.shutdown().await;
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "check {pid} outlived the manager"
    );
    let (manager, _) = Manager::start(options).await.unwrap();
    let rows = manager.list().await.unwrap();
    let check = rows[0].check.clone().unwrap();
    assert_eq!(check.state, CheckState::Error, "{check:?}");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_groups_and_checks_refuse() {
    let repo = TestRepo::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (manager, _) = Manager::start(options(&repo, home.path().to_path_buf()))
        .await
        .unwrap();
    let mut events = manager.subscribe();
    let eleven = vec![AttemptSpec::new("scripted", None); 11];
    let too_many = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "x".to_owned(),
            attempts: eleven,
            ..CreateGroupParams::default()
        })
        .await;
    assert_eq!(refusal(too_many.unwrap_err()), RefusalCode::TooManyAttempts);
    let unknown = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "x".to_owned(),
            attempts: vec![
                AttemptSpec::new("scripted", None),
                AttemptSpec::new("nobody", None),
            ],
            ..CreateGroupParams::default()
        })
        .await;
    assert_eq!(refusal(unknown.unwrap_err()), RefusalCode::UnknownAgent);
    let none = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "x".to_owned(),
            attempts: Vec::new(),
            ..CreateGroupParams::default()
        })
        .await;
    assert!(matches!(none, Err(ManagerError::Invalid(_))), "{none:?}");
    // Nothing was created by the refused ones.
    assert!(manager.list().await.unwrap().is_empty());
    let no_group = manager
        .request::<request::GroupCompare>(GroupParams {
            group_id: "g-nothing".to_owned(),
        })
        .await;
    assert_eq!(refusal(no_group.unwrap_err()), RefusalCode::NoSuchGroup);

    let created = manager
        .request::<request::GroupCreate>(CreateGroupParams {
            prompt: "say hello".to_owned(),
            attempts: vec![AttemptSpec::new("scripted", None)],
            ..CreateGroupParams::default()
        })
        .await
        .unwrap();
    let id = created.sessions[0].id.clone();
    let mut seen = Vec::new();
    let rows = until_all(&mut events, std::slice::from_ref(&id), &mut seen, |s| {
        s.status == Status::Completed
    })
    .await;
    // No check configured: none ran, and none can be asked for.
    assert_eq!(rows[&id].check, None);
    let asked = manager
        .request::<request::SessionRunCheck>(SessionParams {
            session_id: id.clone(),
        })
        .await;
    assert_eq!(refusal(asked.unwrap_err()), RefusalCode::NoCheckConfigured);
    // The repository names one, wrongly: it runs as an error that says why.
    std::fs::create_dir_all(repo.path().join(".codiva")).unwrap();
    std::fs::write(repo.path().join(".codiva/config.toml"), "check = 7\n").unwrap();
    let wrong = manager
        .request::<request::SessionRunCheck>(SessionParams {
            session_id: id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(wrong.check.state, CheckState::Error);
    assert!(
        wrong
            .check
            .detail
            .as_deref()
            .is_some_and(|d| d.contains(".codiva/config.toml")),
        "{wrong:?}"
    );
    // Named rightly, it runs in the worktree, and its output is kept.
    std::fs::write(
        repo.path().join(".codiva/config.toml"),
        "check = \"pwd; echo \\\"$CODIVA_REPO_ROOT\\\"\"\n",
    )
    .unwrap();
    manager
        .request::<request::SessionRunCheck>(SessionParams {
            session_id: id.clone(),
        })
        .await
        .unwrap();
    let ran = until_manager(&mut events, |event| match event {
        ManagerEvent::Session { session }
            if session.id == id
                && session
                    .check
                    .as_ref()
                    .is_some_and(|c| c.state == CheckState::Passed) =>
        {
            Some(session.clone())
        }
        _ => None,
    })
    .await;
    let output = manager
        .request::<request::SessionCheckOutput>(SessionParams {
            session_id: id.clone(),
        })
        .await
        .unwrap();
    let worktree = ran.worktree.canonicalize().unwrap();
    assert!(
        output
            .tail
            .starts_with(&format!("{}\n", worktree.display())),
        "{output:?}"
    );
    assert!(
        output.tail.ends_with(&format!(
            "{}\n",
            repo.path().canonicalize().unwrap().display()
        )),
        "{output:?}"
    );
    let other = manager
        .request::<request::GroupKeep>(KeepParams {
            group_id: created.group.id.clone(),
            session_id: "not-an-attempt".to_owned(),
            confirm_token: None,
        })
        .await;
    assert_eq!(refusal(other.unwrap_err()), RefusalCode::NotInGroup);
    // A group whose every session is removed goes.
    let token = match manager.remove(&id, None).await.unwrap() {
        codiva_protocol::manager::DiscardOutcome::NeedsConfirmation { confirm_token, .. } => {
            confirm_token
        }
        other => panic!("{other:?}"),
    };
    manager.remove(&id, Some(token)).await.unwrap();
    let gone = until_manager(&mut events, |event| match event {
        ManagerEvent::GroupRemoved { id } => Some(id.clone()),
        _ => None,
    })
    .await;
    assert_eq!(gone, created.group.id);
    let snapshot = manager
        .request::<request::ManagerSnapshot>(NoParams {})
        .await
        .unwrap();
    assert!(snapshot.groups.is_empty());
    manager.shutdown().await;
}
