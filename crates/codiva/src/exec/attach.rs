//! `codiva exec --attach`: the one session runs in the repository's daemon (started when it
//! does not run), as a client of it. The session is created with `--approve`'s policy (the
//! manager answers what it allows); what is still asked is answered here as `exec` answers it
//! (`--answers`, else denied or declined); the events and the exit code are `exec`'s. The
//! session stays in the daemon afterwards, like any other (`codiva` shows it).
//!
//! A daemon that cannot be started or reached (or goes away) is a runtime failure, not a usage
//! error: the outcome is `failed` with the reason (exit code 1, as plain `exec` when its agent
//! cannot start), and `--json` ends with its `exit` line as usual.

use std::collections::BTreeMap;

use codiva_client::Update;
use codiva_core::session::{PermissionResponse, QuestionResponse, SessionCommand};
use codiva_core::session_state::{SessionEvent, Status};
use codiva_os::shutdown_signals::{self, ShutdownSignals};
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::methods::request;
use codiva_protocol::params::{
    Answer, CreateParams, Decision, PermissionParams, QuestionParams, SessionParams,
};

use super::{ExecArgs, Outcome, Printer, answer_prompt};

/// Runs `args.prompt` as a session of the daemon until it settles (or a signal).
pub(super) async fn drive(
    args: &ExecArgs,
    permission_mode: Option<codiva_core::tool::PermissionMode>,
    answers: &BTreeMap<String, Vec<String>>,
    printer: &mut Printer,
) -> Result<Outcome, String> {
    // Over ssh: the connection lives until the session settles.
    let mut remote = None;
    let client = match &args.remote {
        Some(target) => {
            let target = crate::remote::RemoteTarget::parse(target)?;
            let connection = match crate::remote::attach(&target).await {
                Ok(connection) => connection,
                Err(message) => return Ok(unreachable(message)),
            };
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
    let outcome = drive_on(args, &client, permission_mode, answers, printer).await;
    if let Some(connection) = remote {
        connection.close(std::time::Duration::from_secs(5)).await;
    }
    outcome
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

async fn drive_on(
    args: &ExecArgs,
    client: &codiva_client::Client,
    permission_mode: Option<codiva_core::tool::PermissionMode>,
    answers: &BTreeMap<String, Vec<String>>,
    printer: &mut Printer,
) -> Result<Outcome, String> {
    let client = client.clone();
    // Subscribed before the session exists: none of its events is missed.
    let mut events = match client.subscribe().await {
        Ok((_, events)) => events,
        Err(err) => return Ok(unreachable(format!("the daemon did not answer: {err}"))),
    };
    let created = client
        .call::<request::SessionCreate>(CreateParams {
            prompt: args.prompt.clone(),
            images: Vec::new(),
            model: args.model.clone(),
            permission_mode,
            agent: args.agent.clone(),
            approval_policy: Some(args.approve.policy()),
            in_place: None,
            mcp_servers: match &args.mcp_config {
                Some(path) => super::mcp_servers_in(path)?,
                None => Default::default(),
            },
            append_system_prompt: args.append_system_prompt.clone(),
            allowed_tools: args.allowed_tools.clone(),
            disallowed_tools: args.disallowed_tools.clone(),
        })
        .await
        .map_err(|err| err.to_string())?;
    let id = created.session.id;
    eprintln!(
        "codiva: session {id} runs in the repository's daemon ({})",
        created.session.worktree.display()
    );
    let mut status = Status::Starting;
    let mut detail = None;
    let mut interrupted_by_user = false;
    let mut stopped_by = None;
    let mut signals = ShutdownSignals::all_terminating();
    let interrupt = || {
        let client = client.clone();
        let id = id.clone();
        async move {
            let _ = client
                .call::<request::SessionInterrupt>(SessionParams { session_id: id })
                .await;
        }
    };
    loop {
        let update = tokio::select! {
            update = events.recv() => update,
            signal = signals.recv() => {
                interrupt().await;
                if signal == shutdown_signals::SIGINT && !interrupted_by_user {
                    interrupted_by_user = true;
                    continue;
                }
                stopped_by = Some(signal);
                break;
            }
        };
        let event = match update {
            Some(Update::Event {
                event: ManagerEvent::Event { id: of, event },
                ..
            }) if of == id => event,
            Some(Update::Event { .. }) => continue,
            Some(Update::Resync(snapshot)) => {
                // Events were lost: the session's row says where it is.
                if let Some(session) = snapshot.sessions.iter().find(|s| s.id == id) {
                    status = session.status;
                    detail.clone_from(&session.detail);
                    if settled(status) {
                        break;
                    }
                }
                continue;
            }
            None => {
                return Ok(unreachable(format!(
                    "the daemon went away; session {id} is restored when it starts again"
                )));
            }
        };
        printer.event(&event);
        match &event {
            SessionEvent::Status {
                status: s,
                detail: d,
                ..
            } => {
                status = *s;
                detail.clone_from(d);
                if settled(status) {
                    break;
                }
            }
            SessionEvent::PromptOpened { prompt } => {
                let command = answer_prompt(prompt, args.approve, answers);
                printer.decision(&command);
                answer(&client, &id, command).await;
            }
            _ => {}
        }
    }
    if interrupted_by_user && !matches!(status, Status::Completed) {
        status = Status::Interrupted;
    }
    Ok(Outcome {
        status,
        detail,
        signal: stopped_by,
        pr_failed: None,
        in_daemon: true,
    })
}

/// The turn is over: nothing happens until someone acts. (A session waiting on a prompt is
/// answered here, so it is not settled.)
fn settled(status: Status) -> bool {
    status.is_settled()
}

/// Sends `exec`'s answer to a prompt as the protocol's request. A prompt the manager's policy
/// answered meanwhile refuses it (`no_pending_prompt`), which is fine.
async fn answer(client: &codiva_client::Client, id: &str, command: SessionCommand) {
    let result = match command {
        SessionCommand::RespondPermission {
            request_id,
            response,
            ..
        } => {
            let (decision, message) = match response {
                PermissionResponse::Deny { message } => (Decision::Deny, Some(message)),
                _ => (Decision::Allow, None),
            };
            client
                .call::<request::SessionRespondPermission>(PermissionParams {
                    session_id: id.to_owned(),
                    request_id,
                    option: None,
                    decision: Some(decision),
                    suggestion: None,
                    message,
                })
                .await
        }
        SessionCommand::AnswerQuestion {
            request_id,
            response,
            ..
        } => {
            let (answers, decline, message) = match response {
                QuestionResponse::Answers(given) => (
                    given
                        .into_iter()
                        .map(|(question, mut labels)| {
                            let answer = if labels.len() == 1 {
                                Answer::One(labels.remove(0))
                            } else {
                                Answer::Many(labels)
                            };
                            (question, answer)
                        })
                        .collect(),
                    false,
                    None,
                ),
                QuestionResponse::Decline { message } => (BTreeMap::new(), true, message),
            };
            client
                .call::<request::SessionAnswerQuestion>(QuestionParams {
                    session_id: id.to_owned(),
                    request_id,
                    answers,
                    decline,
                    message,
                })
                .await
        }
        _ => return,
    };
    if let Err(err) = result
        && err
            .refusal()
            .is_none_or(|refusal| refusal.reason != "no_pending_prompt")
    {
        eprintln!("codiva: warning: the answer was not taken: {err}");
    }
}
