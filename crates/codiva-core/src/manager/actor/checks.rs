//! The repository's check command in the actor: run in a session's worktree when its turn
//! completes and on `session/runCheck`, for every session of the repository (attempts or not).
//! A run is a job without a lane (it may take minutes; the session's other requests go on),
//! fenced by a run number: a run replaced by a newer one (a turn completed while it ran) reports
//! back to nobody. Its state is the record's `check` (in the row, saved), the end of its output
//! is kept in memory for `session/checkOutput`. Stopping the session's agent (discard, merge,
//! shutdown) stops its check.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use codiva_protocol::error::RefusalCode;
use codiva_protocol::group::{CheckOutput, CheckRun, CheckState, CheckTrigger};
use tokio::sync::oneshot;

use super::{Actor, refused, unix_ms};
use crate::check::{self, CheckFinish, CheckOptions, CheckSpec};
use crate::manager::ManagerError;

/// The repository's own settings file (beside `.codiva/setup` and `.codiva/prompt.md`).
const REPO_CONFIG: &str = ".codiva/config.toml";
/// A larger repository settings file is not read.
const REPO_CONFIG_MAX: u64 = 64 * 1024;
/// The longest time limit a check may have (a day).
const MAX_CHECK_TIMEOUT: u64 = 24 * 3600;

/// The checks running now and the output of the last one of each session.
#[derive(Default)]
pub(super) struct Checks {
    running: BTreeMap<String, Running>,
    next_run: u64,
    /// The end of each session's last check's output, and how many bytes came before it.
    outputs: BTreeMap<String, (String, u64)>,
}

struct Running {
    run: u64,
    /// Sent (or dropped) to stop it.
    stop: Option<oneshot::Sender<()>>,
}

/// A check saved while it ran: codiva stopped before it ended.
pub(super) fn restored_check(mut check: CheckRun) -> CheckRun {
    if check.state == CheckState::Running {
        check.state = CheckState::Error;
        check.detail = Some("codiva stopped while it ran".to_owned());
    }
    check
}

/// The check command and time limit for the repository at `root`: its `.codiva/config.toml`
/// (`check`, `check_timeout` in seconds), else the user's configuration. An unreadable or
/// invalid file is an error (the check runs as `error`, saying why).
pub(super) fn resolve(root: &Path, user: &CheckOptions) -> Result<CheckOptions, String> {
    let path = root.join(REPO_CONFIG);
    let text = match std::fs::metadata(&path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(user.clone()),
        Err(err) => return Err(format!("cannot read {REPO_CONFIG}: {err}")),
        Ok(meta) if meta.len() > REPO_CONFIG_MAX => {
            return Err(format!("{REPO_CONFIG} is over {REPO_CONFIG_MAX} bytes"));
        }
        Ok(_) => std::fs::read_to_string(&path)
            .map_err(|err| format!("cannot read {REPO_CONFIG}: {err}"))?,
    };
    parse_repo_config(&text, user)
}

/// [`resolve`] of the file's text. Keys other than `check` and `check_timeout` are left to
/// other readers.
pub(super) fn parse_repo_config(text: &str, user: &CheckOptions) -> Result<CheckOptions, String> {
    let table = text
        .parse::<toml::Table>()
        .map_err(|err| format!("{REPO_CONFIG}: {}", err.message().trim()))?;
    let mut options = user.clone();
    match table.get("check") {
        None => {}
        Some(toml::Value::String(command)) if !command.trim().is_empty() => {
            options.command = Some(command.clone());
        }
        Some(_) => return Err(format!("{REPO_CONFIG}: check must be a non-empty string")),
    }
    match table.get("check_timeout") {
        None => {}
        Some(toml::Value::Integer(secs))
            if (1..=i64::try_from(MAX_CHECK_TIMEOUT).unwrap_or(i64::MAX)).contains(secs) =>
        {
            options.timeout = Duration::from_secs(secs.unsigned_abs());
        }
        Some(_) => {
            return Err(format!(
                "{REPO_CONFIG}: check_timeout must be whole seconds, 1 to {MAX_CHECK_TIMEOUT}"
            ));
        }
    }
    Ok(options)
}

impl Actor {
    /// Runs the check for session `id` if the repository names one: after a completed turn
    /// (a check still running is replaced), or asked for (refused while one runs).
    pub(super) fn run_check(&mut self, id: &str, trigger: CheckTrigger) {
        if let Err(err) = self.start_check(id, trigger) {
            tracing::debug!(id, %err, "no check run");
        }
    }

    /// [`Actor::run_check`], saying why it did not start.
    pub(super) fn start_check(
        &mut self,
        id: &str,
        trigger: CheckTrigger,
    ) -> Result<CheckRun, ManagerError> {
        if self.ephemeral.is_some() {
            return Err(no_check());
        }
        let worktree = self.with_worktree(id)?.worktree.clone();
        let resolved = resolve(self.repo.root(), &self.options.checks);
        let (command, timeout) = match &resolved {
            Ok(CheckOptions {
                command: Some(command),
                timeout,
            }) => (command.clone(), *timeout),
            Ok(_) => return Err(no_check()),
            Err(_) => (String::new(), Duration::ZERO),
        };
        if let Some(running) = self.checks.running.get_mut(id) {
            if trigger == CheckTrigger::Requested {
                return Err(refused(
                    RefusalCode::CheckRunning,
                    &[id],
                    format!("session {id}'s check is running"),
                ));
            }
            // A newer turn's check replaces it; its end reports to nobody.
            drop(running.stop.take());
        }
        self.checks.next_run += 1;
        let run = self.checks.next_run;
        let mut check = CheckRun {
            state: CheckState::Running,
            command: command.clone(),
            started_at: unix_ms(),
            duration_ms: None,
            exit_code: None,
            signal: None,
            detail: None,
            trigger,
        };
        if let Err(problem) = resolved {
            // The repository's file is wrong: say so where the result shows.
            check.state = CheckState::Error;
            check.duration_ms = Some(0);
            check.detail = Some(problem);
            self.checks.running.remove(id);
            self.checks.outputs.remove(id);
            self.record(id)?.check = Some(check.clone());
            self.emit_info(id);
            return Ok(check);
        }
        let (stop, stopped) = oneshot::channel();
        self.checks.running.insert(
            id.to_owned(),
            Running {
                run,
                stop: Some(stop),
            },
        );
        self.record(id)?.check = Some(check.clone());
        self.emit_info(id);
        let spec = CheckSpec {
            command,
            worktree,
            repo_root: self.repo.root().to_path_buf(),
            timeout,
            env: self.options.env.clone(),
            registry: self.options.registry.clone(),
        };
        let owned_id = id.to_owned();
        self.job(None, check::run(spec, stopped), move |actor, finish| {
            actor.check_finished(&owned_id, run, finish);
        });
        Ok(check)
    }

    fn check_finished(&mut self, id: &str, run: u64, finish: CheckFinish) {
        if self.checks.running.get(id).is_none_or(|r| r.run != run) {
            return;
        }
        self.checks.running.remove(id);
        self.checks
            .outputs
            .insert(id.to_owned(), (finish.tail, finish.omitted_bytes));
        let Some(record) = self.records.get_mut(id) else {
            self.checks.outputs.remove(id);
            return;
        };
        if let Some(check) = &mut record.check {
            check.state = finish.state;
            check.duration_ms = Some(finish.duration_ms);
            check.exit_code = finish.exit_code;
            check.signal = finish.signal;
            check.detail = finish.detail;
        }
        self.emit_info(id);
    }

    /// Stops the session's running check (its end is still recorded: `error`, stopped).
    pub(super) fn stop_check(&mut self, id: &str) {
        if let Some(running) = self.checks.running.get_mut(id) {
            drop(running.stop.take());
        }
    }

    /// The session's latest check and the end of its output (`session/checkOutput`).
    pub(super) fn check_output(&mut self, id: &str) -> Result<CheckOutput, ManagerError> {
        let check = self.record(id)?.check.clone();
        let (tail, omitted_bytes) = match (&check, self.checks.outputs.get(id)) {
            // The output of a running check is read when it ends.
            (Some(check), Some(output)) if check.state.is_settled() => output.clone(),
            _ => (String::new(), 0),
        };
        Ok(CheckOutput {
            check,
            tail,
            omitted_bytes,
        })
    }

    /// A removed session's kept output goes with it.
    pub(super) fn forget_check(&mut self, id: &str) {
        self.stop_check(id);
        self.checks.outputs.remove(id);
    }
}

fn no_check() -> ManagerError {
    refused(
        RefusalCode::NoCheckConfigured,
        &[],
        "the repository names no check command (check = \"…\" in .codiva/config.toml or the configuration file)"
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_file_overrides_the_user_configuration() {
        let user = CheckOptions {
            command: Some("make test".into()),
            timeout: Duration::from_secs(60),
        };
        let both = parse_repo_config("check = \"cargo test -q\"\ncheck_timeout = 5\n", &user);
        assert_eq!(
            both,
            Ok(CheckOptions {
                command: Some("cargo test -q".into()),
                timeout: Duration::from_secs(5),
            })
        );
        assert_eq!(parse_repo_config("setup = 1\n", &user), Ok(user.clone()));
        assert!(parse_repo_config("check = 3\n", &user).is_err());
        assert!(parse_repo_config("check_timeout = 0\n", &user).is_err());
        assert!(parse_repo_config("check = [\n", &user).is_err());
    }

    #[test]
    fn a_check_saved_while_it_ran_comes_back_as_an_error() {
        let running = CheckRun {
            state: CheckState::Running,
            command: "true".into(),
            started_at: 1,
            duration_ms: None,
            exit_code: None,
            signal: None,
            detail: None,
            trigger: CheckTrigger::TurnCompleted,
        };
        let back = restored_check(running);
        assert_eq!(back.state, CheckState::Error);
        assert!(back.detail.is_some());
    }
}
