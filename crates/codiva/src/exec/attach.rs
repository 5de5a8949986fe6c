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

/// Where exec's session runs: the repository's daemon here, or one on another host.
enum Place {
    Local(std::path::PathBuf),
    Remote(crate::remote::RemoteTarget, String),
}

impl Place {
    /// After a lost connection: whether attaching again may start a daemon here. A daemon that
    /// was stopped (`codiva stop`, a signal, idle) removes its socket first; one that died
    /// (SIGKILL, out of memory) leaves it. Only a dead one is replaced behind the user's back.
    async fn may_attach_again(&self) -> bool {
        match self {
            Place::Local(cwd) => match crate::daemon::place_for(cwd).await {
                Ok(place) => place.socket.exists(),
                Err(_) => false,
            },
            Place::Remote(..) => true,
        }
    }

    /// A client of the daemon (started when it does not run), and the connection to close.
    async fn attach(
        &self,
    ) -> Result<
        (
            codiva_client::Client,
            Option<crate::remote::RemoteConnection>,
        ),
        String,
    > {
        match self {
            Place::Local(cwd) => Ok((crate::daemon::attach(cwd).await?.client, None)),
            Place::Remote(target, _) => {
                let connection = crate::remote::attach(target).await?;
                Ok((connection.client.clone(), Some(connection)))
            }
        }
    }

    /// What to tell the user when the daemon cannot be reached again: the session goes on
    /// there, and how to get to it.
    fn gave_up(&self, id: &str, last: &str) -> String {
        match self {
            Place::Local(_) => format!(
                "the daemon could not be reached again ({last}); session {id} is kept: `codiva` shows it"
            ),
            Place::Remote(target, shown) => format!(
                "the connection to {} could not be made again ({last}); session {id} goes on there: `codiva --remote {shown}` shows it",
                target.host()
            ),
        }
    }
}

/// Runs `args.prompt` as a session of the daemon until it settles (or a signal). A dropped
/// connection (the daemon killed, ssh gone) is attached again — a new daemon is started here
/// when the old one died — as the UI does ([`crate::remote::RETRIES`] tries,
/// [`crate::remote::RETRY_DELAY`] apart); the outcome is the session's own.
pub(super) async fn drive(
    args: &ExecArgs,
    permission_mode: Option<codiva_protocol::tool::PermissionMode>,
    answers: &BTreeMap<String, Vec<String>>,
    printer: &mut Printer,
) -> Result<Outcome, String> {
    let place = match &args.remote {
        Some(target) => Place::Remote(crate::remote::RemoteTarget::parse(target)?, target.clone()),
        None => Place::Local(
            std::env::current_dir().map_err(|err| format!("no current directory: {err}"))?,
        ),
    };
    // Over ssh the first connection failing is what `--remote` says is wrong (one line).
    let (client, mut connection) = match place.attach().await {
        Ok(attached) => attached,
        Err(message) if matches!(place, Place::Remote(..)) => return Err(message),
        Err(message) => return Ok(unreachable(message)),
    };
    let params = follow::create_params(args, permission_mode, Host::Daemon)?;
    let mut signals = ShutdownSignals::all_terminating();
    let mut followed = match follow::subscribe(&client).await {
        Ok(mut events) => {
            follow::run(
                &client,
                &mut events,
                params,
                Host::Daemon,
                &mut signals,
                (args.approve, answers),
                printer,
            )
            .await
        }
        Err(failed) => Ok(failed),
    };
    drop(client);
    while let Ok(lost) = &followed
        && lost.lost
    {
        let id = lost.id.clone();
        if let Some(connection) = connection.take() {
            connection.close(std::time::Duration::from_secs(2)).await;
        }
        if !place.may_attach_again().await {
            followed = Ok(follow::Followed::failed(
                id.clone(),
                format!("the daemon was stopped; session {id} is kept: `codiva` shows it"),
            ));
            break;
        }
        eprintln!("codiva: the connection to session {id}'s daemon was lost; attaching again…");
        let mut tries = 0;
        let attached = loop {
            match place.attach().await {
                Ok(attached) => break Ok(attached),
                Err(message) if tries < crate::remote::RETRIES => {
                    tries += 1;
                    tracing::info!(%message, tries, "attaching again");
                    tokio::select! {
                        () = tokio::time::sleep(crate::remote::RETRY_DELAY) => {}
                        received = signals.recv() => break Err((Some(received), message)),
                    }
                }
                Err(message) => break Err((None, message)),
            }
        };
        match attached {
            Ok((client, now)) => {
                connection = now;
                followed =
                    follow::resume(&client, id, &mut signals, (args.approve, answers), printer)
                        .await;
            }
            Err((signal, message)) => {
                followed = Ok(follow::Followed {
                    signal,
                    ..follow::Followed::failed(id.clone(), place.gave_up(&id, &message))
                });
            }
        }
    }
    if let Some(connection) = connection {
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
