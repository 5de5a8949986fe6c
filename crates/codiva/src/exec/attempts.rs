//! `codiva exec --attempts claude,codex,claude:opus "…"`: one instruction to several agents
//! (or models) at once, headless. The attempts are a group of the repository's daemon (each on
//! its own worktree and branch, started with `--approve`'s policy; they stay there afterwards,
//! `codiva` shows them); exec follows them all over the client seam, answers what is still
//! asked as it answers a single session (`follow.rs`), waits until every attempt has settled
//! and its check (when the repository names one) has ended, then prints the group's comparison
//! (`group/compare`: the same figures the terminal UI shows) as a table, or with `--json` as
//! one object. It exits 0 when at least one attempt completed and passed its check (or
//! completed and no check ran), 1 otherwise, 128 + the signal on a signal (every attempt's turn
//! is interrupted first).

use std::collections::BTreeMap;
use std::process::ExitCode;

use codiva_client::{Client, Update};
use codiva_os::shutdown_signals::{self, ShutdownSignals};
use codiva_protocol::group::{
    AttemptFigures, AttemptSpec, CheckState, CreateGroupParams, GroupCompare, GroupParams,
};
use codiva_protocol::manager::{ManagerEvent, SessionInfo, SessionPhase};
use codiva_protocol::methods::request;
use codiva_protocol::params::SessionParams;
use codiva_protocol::session::{SessionEvent, SessionSnapshot, Status};
use codiva_protocol::text::sanitize_title_to;

use super::follow::Answerer;
use super::{ExecArgs, Printer, code};

/// Runs the group and prints its comparison; the exit code (see the module's comment).
pub(super) async fn drive(
    args: &ExecArgs,
    attempts: &str,
    permission_mode: Option<codiva_protocol::tool::PermissionMode>,
    answers: &BTreeMap<String, Vec<String>>,
) -> Result<ExitCode, String> {
    let specs = AttemptSpec::parse_list(attempts).map_err(|err| format!("--attempts: {err}"))?;
    let cwd = std::env::current_dir().map_err(|err| format!("no current directory: {err}"))?;
    let mut printer = Printer::new(args.json);
    let client = match crate::daemon::attach(&cwd).await {
        Ok(attached) => attached.client,
        Err(message) => {
            eprintln!("codiva: {message}");
            return Ok(ExitCode::from(code::FAILED));
        }
    };
    let (_, mut events) = client
        .subscribe()
        .await
        .map_err(|err| format!("the session manager did not answer: {err}"))?;
    let created = client
        .call::<request::GroupCreate>(CreateGroupParams {
            prompt: args.prompt.clone(),
            attempts: specs,
            images: Vec::new(),
            permission_mode,
            approval_policy: Some(args.approve.policy()),
        })
        .await
        .map_err(|err| err.to_string())?;
    let group = created.group.clone();
    let ids: Vec<String> = created.sessions.iter().map(|s| s.id.clone()).collect();
    eprintln!(
        "codiva: {} attempts run in the repository's daemon: {}",
        ids.len(),
        ids.join(", ")
    );
    let mut attempts = Attempts {
        rows: created
            .sessions
            .into_iter()
            .map(|row| (row.id.clone(), row))
            .collect(),
        views: ids
            .iter()
            .map(|id| (id.clone(), SessionSnapshot::initial()))
            .collect(),
        answerer: Answerer::new(args.approve, answers),
    };
    let mut signals = ShutdownSignals::all_terminating();
    let mut signal = None;
    while !attempts.all_done() {
        let update = tokio::select! {
            update = events.recv() => update,
            received = signals.recv() => {
                signal = Some(received);
                break;
            }
        };
        match update {
            Some(Update::Event {
                event: ManagerEvent::Session { session },
                ..
            }) if attempts.rows.contains_key(&session.id) => {
                attempts.row(session, &mut printer);
            }
            Some(Update::Event {
                seq,
                event: ManagerEvent::Event { id, event },
            }) if attempts.rows.contains_key(&id) => {
                attempts.event(&client, &id, seq, event, &mut printer).await;
            }
            Some(Update::Event { .. }) => {}
            Some(Update::Resync(snapshot)) => {
                for row in snapshot.sessions {
                    if attempts.rows.contains_key(&row.id) {
                        attempts.rows.insert(row.id.clone(), row);
                    }
                }
                attempts.resync(&client, &ids, &mut printer).await;
            }
            None => {
                eprintln!(
                    "codiva: the daemon went away; the attempts are kept there: `codiva` shows them"
                );
                return Ok(ExitCode::from(code::FAILED));
            }
        }
    }
    if let Some(signal) = signal {
        // Every attempt's turn is interrupted; the attempts stay in the daemon.
        for id in &ids {
            let _ = client
                .call::<request::SessionInterrupt>(SessionParams {
                    session_id: id.clone(),
                })
                .await;
        }
        eprintln!(
            "codiva: stopped by {}; the attempts' turns were interrupted (they stay in the daemon)",
            shutdown_signals::name(signal)
        );
        return Ok(ExitCode::from(shutdown_signals::exit_status(signal)));
    }
    let compare = client
        .call::<request::GroupCompare>(GroupParams {
            group_id: group.id.clone(),
        })
        .await
        .map_err(|err| err.to_string())?;
    let succeeded = compare.attempts.iter().any(succeeded);
    let exit = if succeeded { 0 } else { code::FAILED };
    if args.json {
        printer.json_line(&serde_json::json!({
            "event": "compare",
            "group": compare.group,
            "attempts": compare.attempts,
        }));
        printer.json_line(&serde_json::json!({"event": "exit", "code": exit}));
    } else {
        printer.write(&table(&compare));
        if !succeeded {
            eprintln!("codiva: no attempt completed and passed its check");
        }
    }
    Ok(ExitCode::from(exit))
}

/// What exec knows of the attempts: their rows, their sessions' folds, the prompts answered.
struct Attempts<'a> {
    rows: BTreeMap<String, SessionInfo>,
    views: BTreeMap<String, SessionSnapshot>,
    answerer: Answerer<'a>,
}

impl Attempts<'_> {
    /// Every attempt settled, and its check (if one runs) ended.
    fn all_done(&self) -> bool {
        self.rows.values().all(done)
    }

    fn row(&mut self, row: SessionInfo, printer: &mut Printer) {
        let was = self.rows.get(&row.id);
        let check = |row: Option<&SessionInfo>| row.and_then(|r| r.check.as_ref()).map(|c| c.state);
        let check_now = check(Some(&row));
        if check_now != check(was) && !printer.json {
            match check_now {
                Some(CheckState::Running) => printer.line(&format!("[{}] check running", row.id)),
                Some(state) => printer.line(&format!("[{}] check {state}", row.id)),
                None => {}
            }
        }
        self.rows.insert(row.id.clone(), row);
    }

    async fn event(
        &mut self,
        client: &Client,
        id: &str,
        seq: u64,
        event: SessionEvent,
        printer: &mut Printer,
    ) {
        let Some(view) = self.views.get_mut(id) else {
            return;
        };
        if view.seq.is_some_and(|place| seq <= place) {
            return;
        }
        if printer.json {
            let mut line = serde_json::to_value(&event).unwrap_or_default();
            if let Some(object) = line.as_object_mut() {
                object.insert("session_id".into(), id.into());
            }
            printer.json_line(&line);
        } else if let SessionEvent::Status { status, detail, .. } = &event {
            let mut line = format!("[{id}] · {}", status.as_str());
            if let Some(detail) = detail.as_deref().and_then(|d| sanitize_title_to(d, 200)) {
                line.push_str(&format!(" — {detail}"));
            }
            printer.line(&line);
        }
        view.apply(&event);
        if view.status.awaits_user() || !matches!(event, SessionEvent::PromptOpened { .. }) {
            let view = view.clone();
            self.answer(client, id, &view, printer).await;
        }
    }

    /// After lost events: each attempt's session as it stands, its waiting prompts answered.
    async fn resync(&mut self, client: &Client, ids: &[String], printer: &mut Printer) {
        for id in ids {
            let snapshot = client
                .call::<request::SessionSnapshot>(SessionParams {
                    session_id: id.clone(),
                })
                .await;
            if let Ok(snapshot) = snapshot {
                self.views.insert(id.clone(), snapshot.clone());
                self.answer(client, id, &snapshot, printer).await;
            }
        }
    }

    async fn answer(
        &mut self,
        client: &Client,
        id: &str,
        view: &SessionSnapshot,
        printer: &mut Printer,
    ) {
        if !printer.json && !view.prompts.is_empty() {
            printer.prefix = Some(format!("[{id}]"));
        }
        self.answerer
            .answer_waiting(client, id, view, printer)
            .await;
        printer.prefix = None;
    }
}

/// An attempt that will do nothing more by itself: its turn settled (or it was discarded,
/// merged) and its check, if one runs, ended.
fn done(row: &SessionInfo) -> bool {
    let settled = row.status.is_settled()
        || matches!(
            row.phase,
            SessionPhase::Discarded | SessionPhase::Merged { .. }
        );
    settled && row.check.as_ref().is_none_or(|c| c.state.is_settled())
}

/// Completed, and passed its check (or no check ran).
fn succeeded(attempt: &AttemptFigures) -> bool {
    attempt.session.status == Status::Completed
        && attempt
            .session
            .check
            .as_ref()
            .is_none_or(|c| c.state == CheckState::Passed)
}

/// The comparison as a text table, one row per attempt (agent text made one clean line).
pub(super) fn table(compare: &GroupCompare) -> String {
    let header = [
        "attempt", "agent", "model", "status", "check", "files", "+/-", "commits", "time",
        "tokens", "cost",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    for attempt in &compare.attempts {
        let session = &attempt.session;
        let clean = |text: &str| sanitize_title_to(text, 40).unwrap_or_else(|| "-".to_owned());
        let model = session
            .model
            .as_deref()
            .or(attempt.spec.model.as_deref())
            .map_or_else(|| "-".to_owned(), clean);
        let status = match &session.phase {
            SessionPhase::Discarded => "discarded".to_owned(),
            SessionPhase::Merged { .. } => "merged".to_owned(),
            _ => session.status.as_str().to_owned(),
        };
        let check = match session.check.as_ref().map(|c| c.state) {
            None => "-".to_owned(),
            Some(CheckState::Passed) => "✓".to_owned(),
            Some(CheckState::Running) => "…".to_owned(),
            Some(CheckState::Failed) => "✗".to_owned(),
            Some(state) => format!("✗ {state}"),
        };
        let (files, lines, commits) = match &attempt.work {
            Some(work) => (
                work.files.len().to_string(),
                format!("+{} −{}", work.insertions, work.deletions),
                work.commits.to_string(),
            ),
            None => ("-".to_owned(), "-".to_owned(), "-".to_owned()),
        };
        let tokens = attempt.tokens.map_or_else(
            || "-".to_owned(),
            |t| count(t.input + t.output + t.cache_read + t.cache_creation),
        );
        let cost = session
            .cost_usd
            .map_or_else(|| "-".to_owned(), |usd| format!("${usd:.4}"));
        rows.push(vec![
            clean(&session.id),
            clean(&session.agent),
            model,
            status,
            check,
            files,
            lines,
            commits,
            duration(attempt.duration_ms),
            tokens,
            cost,
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|col| {
            rows.iter()
                .map(|r| r[col].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| {
                let pad = width - cell.chars().count();
                format!("{cell}{}", " ".repeat(pad))
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `1m 02s`, `45s`, `1h 03m`.
fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs % 3600 / 60),
    }
}

/// `950`, `12.3k`, `1.2M`.
fn count(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use codiva_protocol::agent::TokenUsage;
    use codiva_protocol::group::{Attempt, CheckRun, CheckTrigger, GroupInfo, WorkFigures};
    use codiva_protocol::manager::FileStat;

    use super::*;

    fn row(id: &str, status: Status, check: Option<CheckState>) -> SessionInfo {
        let value = serde_json::json!({
            "id": id, "title": "t", "prompt": "p", "branch": format!("codiva/{id}"),
            "worktree": "/w", "base": "main", "phase": "active", "status": status,
            "detail": null, "agent": "claude", "agent_session_id": null, "model": "opus",
            "cost_usd": 0.0123, "active_ms": 62_000, "created_at": 0, "pending_prompts": 0,
            "todos": {"done": 0, "total": 0},
        });
        let mut row: SessionInfo = serde_json::from_value(value).unwrap();
        row.check = check.map(|state| {
            Box::new(CheckRun {
                state,
                command: "cargo test".into(),
                started_at: 0,
                duration_ms: Some(1),
                exit_code: None,
                signal: None,
                detail: None,
                trigger: CheckTrigger::TurnCompleted,
            })
        });
        row
    }

    fn figures(row: SessionInfo) -> AttemptFigures {
        AttemptFigures {
            spec: AttemptSpec::new("claude", Some("opus".into())),
            work: Some(WorkFigures {
                files: vec![FileStat {
                    path: "a.rs".into(),
                    old_path: None,
                    added: Some(14),
                    deleted: Some(3),
                }],
                insertions: 14,
                deletions: 3,
                commits: 1,
                uncommitted: 0,
            }),
            git_error: None,
            tokens: Some(TokenUsage {
                input: 10_000,
                output: 2_300,
                cache_read: 0,
                cache_creation: 0,
            }),
            duration_ms: row.active_ms,
            session: row,
        }
    }

    #[test]
    fn an_attempt_succeeds_when_it_completed_and_its_check_passed_or_none_ran() {
        let ok = |status, check| succeeded(&figures(row("a", status, check)));
        assert!(ok(Status::Completed, Some(CheckState::Passed)));
        assert!(ok(Status::Completed, None));
        assert!(!ok(Status::Completed, Some(CheckState::Failed)));
        assert!(!ok(Status::Completed, Some(CheckState::TimedOut)));
        assert!(!ok(Status::Failed, None));
        assert!(!done(&row(
            "a",
            Status::Completed,
            Some(CheckState::Running)
        )));
        assert!(done(&row("a", Status::Completed, Some(CheckState::Failed))));
        assert!(!done(&row("a", Status::Queued, None)));
    }

    #[test]
    fn the_table_has_one_row_per_attempt_in_aligned_columns() {
        let compare = GroupCompare {
            group: GroupInfo {
                id: "g-fix".into(),
                instruction: "fix".into(),
                attempts: vec![Attempt {
                    session_id: "fix-claude-opus".into(),
                    spec: AttemptSpec::new("claude", Some("opus".into())),
                }],
                created_at: 0,
                kept: None,
            },
            attempts: vec![
                figures(row(
                    "fix-claude-opus",
                    Status::Completed,
                    Some(CheckState::Passed),
                )),
                figures(row(
                    "fix-codex\u{1b}[2J",
                    Status::Failed,
                    Some(CheckState::TimedOut),
                )),
            ],
        };
        let text = table(&compare);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("attempt"));
        assert!(lines[1].contains("✓"), "{text}");
        assert!(lines[1].contains("+14 −3"), "{text}");
        assert!(lines[1].contains("12.3k"), "{text}");
        assert!(lines[1].contains("1m 02s"), "{text}");
        assert!(lines[1].contains("$0.0123"), "{text}");
        assert!(lines[2].contains("✗ timed_out"), "{text}");
        // The columns line up: "agent" starts at the same place in every row.
        let at = lines[0].find("agent").unwrap();
        assert_eq!(
            lines[1].chars().skip(at).take(6).collect::<String>(),
            "claude"
        );
    }
}
