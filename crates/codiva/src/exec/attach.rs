//! `codiva exec --attach`: the one session runs in the repository's daemon (started when it
//! does not run), as a client of it. The session is created with `--approve`'s policy (the
//! manager answers what it allows); what is still asked is answered here as `exec` answers it
//! (`--answers`, else denied or declined); the events and the exit code are `exec`'s
//! (`follow.rs`). The session stays in the daemon afterwards, like any other (`codiva` shows
//! it).
//!
//! A daemon that cannot be started or reached (or goes away) is a runtime failure, not a usage
//! error: the outcome is `failed` with the reason (exit code 1, as plain `exec` when its agent
//! cannot start), and `--json` ends with its `exit` line as usual.

use std::collections::BTreeMap;

use codiva_os::shutdown_signals::ShutdownSignals;
use codiva_protocol::session::Status;

use super::follow::{self, Host};
use super::{ExecArgs, Outcome, Printer};

/// Runs `args.prompt` as a session of the daemon until it settles (or a signal).
pub(super) async fn drive(
    args: &ExecArgs,
    permission_mode: Option<codiva_protocol::tool::PermissionMode>,
    answers: &BTreeMap<String, Vec<String>>,
    printer: &mut Printer,
) -> Result<Outcome, String> {
    // Over ssh: the connection lives until the session settles.
    let mut remote = None;
    let client = match &args.remote {
        Some(target) => {
            let target = crate::remote::RemoteTarget::parse(target)?;
            let connection = crate::remote::attach(&target).await?;
            let client = connection.client.clone();
            remote = Some(connection);
            client
        }
        None => {
            let cwd =
                std::env::current_dir().map_err(|err| format!("no current directory: {err}"))?;
            match crate::daemon::attach(&cwd).await {
                Ok(attached) => attached.client,
                Err(message) => return Ok(unreachable(message)),
            }
        }
    };
    let params = follow::create_params(args, permission_mode, Host::Daemon)?;
    let mut signals = ShutdownSignals::all_terminating();
    let followed = follow::run(
        &client,
        params,
        Host::Daemon,
        &mut signals,
        (args.approve, answers),
        printer,
    )
    .await;
    if let Some(connection) = remote {
        connection.close(std::time::Duration::from_secs(5)).await;
    }
    let followed = followed?;
    Ok(Outcome {
        status: followed.status,
        detail: followed.detail,
        signal: followed.signal,
        pr_failed: None,
        in_daemon: true,
    })
}

/// The daemon could not be started or reached, or went away: the session failed (a runtime
/// failure, exit code 1), with the reason.
fn unreachable(message: String) -> Outcome {
    Outcome {
        status: Status::Failed,
        detail: Some(message),
        signal: None,
        pr_failed: None,
        in_daemon: true,
    }
}
