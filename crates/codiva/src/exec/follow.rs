//! What `codiva exec` does with its session, wherever it runs (in this process or in the
//! daemon): one path over the client seam. It creates the session, prints its events, answers
//! its prompts as `--approve` and `--answers` say, ends at once on a signal (the first Ctrl+C
//! too: in process the agent is stopped, in the daemon its turn interrupted), and ends
//! when the session does (in process: once its turn settled and the agent was stopped; in the
//! daemon: when the turn settles, the session staying there).

use std::collections::BTreeMap;

use codiva_client::{Client, Subscription, Update};
use codiva_core::approval::Decide;
use codiva_os::shutdown_signals::ShutdownSignals;
use codiva_protocol::agent::QuestionRequest;
use codiva_protocol::approval::ApprovalPolicy;
use codiva_protocol::manager::ManagerEvent;
use codiva_protocol::methods::request;
use codiva_protocol::params::{
    Answer, CreateParams, Decision, PermissionParams, QuestionParams, SessionParams,
};
use codiva_protocol::session::{Prompt, SessionEvent, Status};

use super::{Approve, ExecArgs, Printer};

/// Where the session runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Host {
    /// In this process, the one session of an ephemeral manager: its events end when it has
    /// ended (its turn settled, its agent stopped).
    InProcess,
    /// In the repository's daemon: followed until its turn settles; it stays there.
    Daemon,
}

/// How following the session ended.
pub(super) struct Followed {
    pub id: String,
    pub status: Status,
    pub detail: Option<String>,
    /// The signal that ended exec.
    pub signal: Option<i32>,
    /// The connection to the daemon ended before the session settled (`status` is what was
    /// known then): the caller attaches again and [`resume`]s.
    pub lost: bool,
}

impl Followed {
    /// The session's host could not be reached or went away (also again, after a lost
    /// connection; the reason then says the session goes on there): a runtime failure (exit 1).
    pub(super) fn failed(id: String, reason: String) -> Self {
        Self {
            id,
            status: Status::Failed,
            detail: Some(reason),
            signal: None,
            lost: false,
        }
    }
}

/// The session `exec` asks for. In the daemon it carries `--approve`'s policy (the manager
/// answers what it allows, also once exec has gone); in process exec answers every prompt
/// itself, so each shows with its answer.
pub(super) fn create_params(
    args: &ExecArgs,
    permission_mode: Option<codiva_protocol::tool::PermissionMode>,
    host: Host,
) -> Result<CreateParams, String> {
    Ok(CreateParams {
        prompt: args.prompt.clone(),
        images: Vec::new(),
        model: args.model.clone(),
        permission_mode,
        agent: args.agent.clone(),
        approval_policy: (host == Host::Daemon).then(|| args.approve.policy()),
        in_place: None,
        mcp_servers: match &args.mcp_config {
            Some(path) => super::mcp_servers_in(path)?,
            None => Default::default(),
        },
        append_system_prompt: args.append_system_prompt.clone(),
        allowed_tools: args.allowed_tools.clone(),
        disallowed_tools: args.disallowed_tools.clone(),
    })
}

/// Subscribes to the manager's events, before [`run`] creates the session: none of its events
/// is missed. The manager's failing to answer is the outcome.
pub(super) async fn subscribe(client: &Client) -> Result<Subscription, Followed> {
    match client.subscribe().await {
        Ok((_, events)) => Ok(events),
        Err(err) => Err(Followed::failed(
            String::new(),
            format!("the session manager did not answer: {err}"),
        )),
    }
}

/// Creates the session and follows it (see the module's comment).
pub(super) async fn run(
    client: &Client,
    events: &mut Subscription,
    params: CreateParams,
    host: Host,
    signals: &mut ShutdownSignals,
    (approve, answers): (Approve, &BTreeMap<String, Vec<String>>),
    printer: &mut Printer,
) -> Result<Followed, String> {
    let created = client
        .call::<request::SessionCreate>(params)
        .await
        .map_err(|err| err.to_string())?;
    let id = created.session.id;
    if host == Host::Daemon {
        eprintln!(
            "codiva: session {id} runs in the repository's daemon ({})",
            created.session.worktree.display()
        );
    }
    follow(
        client,
        id,
        events,
        host,
        signals,
        (approve, answers),
        printer,
    )
    .await
}

/// The status session `id` ended with, from its events until their stream closes (in
/// process, after exec stopped it on a signal: its turn interrupted); `None` when none came.
/// They are not printed: exec ended at the signal.
pub(super) async fn ended_with(
    events: &mut Subscription,
    id: &str,
) -> Option<(Status, Option<String>)> {
    let mut ended = None;
    while let Some(update) = events.recv().await {
        match update {
            Update::Event {
                event:
                    ManagerEvent::Event {
                        id: of,
                        event: SessionEvent::Status { status, detail, .. },
                    },
                ..
            } if of == id => ended = Some((status, detail)),
            Update::Resync(snapshot) => {
                if let Some(session) = snapshot.sessions.iter().find(|s| s.id == id) {
                    ended = Some((session.status, session.detail.clone()));
                }
            }
            Update::Event { .. } => {}
        }
    }
    ended
}

async fn follow(
    client: &Client,
    id: String,
    events: &mut Subscription,
    host: Host,
    signals: &mut ShutdownSignals,
    (approve, answers): (Approve, &BTreeMap<String, Vec<String>>),
    printer: &mut Printer,
) -> Result<Followed, String> {
    let mut status = Status::Starting;
    let mut detail = None;
    let mut signal = None;
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
            received = signals.recv() => {
                // Any signal (the first Ctrl+C too) ends exec at once, whatever the session is
                // doing: a session in process is stopped (by the caller), one in the daemon has
                // its turn interrupted and stays.
                if host == Host::Daemon {
                    interrupt().await;
                }
                signal = Some(received);
                break;
            }
        };
        let event = match update {
            Some(Update::Event {
                event: ManagerEvent::Event { id: of, event },
                ..
            }) if of == id => event,
            Some(Update::Event {
                event: ManagerEvent::Warning { message },
                ..
            }) if host == Host::InProcess => {
                // The manager passes a session's own warning on as its own, named: printed as
                // the session's event it was (a JSON line with `--json`).
                match message.strip_prefix(&format!("session {id}: ")) {
                    Some(own) => printer.event(&SessionEvent::Warning {
                        message: own.to_owned(),
                    }),
                    None => printer.note(&message),
                }
                continue;
            }
            Some(Update::Event { .. }) => continue,
            Some(Update::Resync(snapshot)) => {
                // Events were lost: the session's row says where it is.
                if let Some(session) = snapshot.sessions.iter().find(|s| s.id == id) {
                    status = session.status;
                    detail.clone_from(&session.detail);
                    if host == Host::Daemon && status.is_settled() {
                        break;
                    }
                }
                continue;
            }
            None if host == Host::InProcess => break,
            None => {
                // The daemon or the connection to it went away; the session goes on there.
                return Ok(Followed {
                    id,
                    status,
                    detail,
                    signal: None,
                    lost: true,
                });
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
                // The turn is over: nothing happens until someone acts. (A session waiting on
                // a prompt is answered here, so it is not settled.)
                if host == Host::Daemon && status.is_settled() {
                    break;
                }
            }
            SessionEvent::PromptOpened { prompt } => {
                let answer = answer_prompt(&id, prompt, approve, answers);
                printer.decision(&answer);
                send_answer(client, answer).await;
            }
            _ => {}
        }
    }
    Ok(Followed {
        id,
        status,
        detail,
        signal,
        lost: false,
    })
}

/// Follows session `id` again over a new connection to its daemon (after [`Followed::lost`]):
/// a session that settled meanwhile ends at once with its outcome (a daemon that was killed
/// restores it interrupted: that is its outcome); a prompt that opened meanwhile is answered
/// as exec answers it; the rest as [`run`] does. What was printed in between is in the
/// session's log (`codiva` shows it).
pub(super) async fn resume(
    client: &Client,
    id: String,
    signals: &mut ShutdownSignals,
    (approve, answers): (Approve, &BTreeMap<String, Vec<String>>),
    printer: &mut Printer,
) -> Result<Followed, String> {
    let (snapshot, mut events) = match client.subscribe().await {
        Ok(subscribed) => subscribed,
        Err(err) => {
            return Ok(Followed {
                lost: true,
                ..Followed::failed(id, format!("the session manager did not answer: {err}"))
            });
        }
    };
    let Some(row) = snapshot.sessions.iter().find(|s| s.id == id) else {
        return Ok(Followed::failed(
            id.clone(),
            format!("session {id} is no longer in the daemon"),
        ));
    };
    if row.status.is_settled() {
        return Ok(Followed {
            id,
            status: row.status,
            detail: row.detail.clone(),
            signal: None,
            lost: false,
        });
    }
    if let Ok(session) = client
        .call::<request::SessionSnapshot>(SessionParams {
            session_id: id.clone(),
        })
        .await
    {
        for prompt in &session.prompts {
            let answer = answer_prompt(&id, prompt, approve, answers);
            printer.decision(&answer);
            send_answer(client, answer).await;
        }
    }
    follow(
        client,
        id,
        &mut events,
        Host::Daemon,
        signals,
        (approve, answers),
        printer,
    )
    .await
}

/// exec's answer to a prompt, as the protocol's request.
pub(super) enum PromptAnswer {
    Permission(PermissionParams),
    Question(QuestionParams),
}

impl PromptAnswer {
    /// What the text output says of it.
    pub(super) fn describe(&self) -> &'static str {
        match self {
            PromptAnswer::Permission(p) if p.decision == Some(Decision::Allow) => "allowed",
            PromptAnswer::Permission(_) => "denied",
            PromptAnswer::Question(q) if q.decline => "declined (no answers given)",
            PromptAnswer::Question(_) => "answered from --answers",
        }
    }
}

/// A permission is allowed when `--approve`'s policy allows it (the same decision the
/// manager's sessions take, `approval.rs`), else denied: there is nobody to ask. A question is
/// answered from `--answers`, else declined.
fn answer_prompt(
    id: &str,
    prompt: &Prompt,
    approve: Approve,
    answers: &BTreeMap<String, Vec<String>>,
) -> PromptAnswer {
    match prompt {
        Prompt::Permission(request) => {
            let kind = request.view.tool_kind;
            let allowed = approve
                .policy()
                .allows(&request.tool, kind, &request.input)
                .is_some();
            PromptAnswer::Permission(PermissionParams {
                session_id: id.to_owned(),
                request_id: request.request_id.clone(),
                option: None,
                decision: Some(if allowed {
                    Decision::Allow
                } else {
                    Decision::Deny
                }),
                suggestion: None,
                message: (!allowed).then(|| {
                    format!(
                        "codiva exec --approve {}: the user does not allow {} here.",
                        approve.name(),
                        request.tool
                    )
                }),
            })
        }
        Prompt::Question(request) => {
            let given = given_answers(request, answers);
            PromptAnswer::Question(QuestionParams {
                session_id: id.to_owned(),
                request_id: request.request_id.clone(),
                decline: given.is_empty(),
                message: given.is_empty().then(|| {
                    "The user is not available to answer questions (codiva exec); proceed with your best judgement."
                        .to_owned()
                }),
                answers: given,
            })
        }
    }
}

/// The answers `--answers` has for the request's questions.
fn given_answers(
    request: &QuestionRequest,
    answers: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Answer> {
    request
        .questions
        .iter()
        .filter_map(|q| {
            let labels = answers.get(&q.question)?;
            let answer = match labels.as_slice() {
                [one] => Answer::One(one.clone()),
                _ => Answer::Many(labels.clone()),
            };
            Some((q.question.clone(), answer))
        })
        .collect()
}

/// Sends the answer. A prompt the manager's policy answered meanwhile refuses it
/// (`no_pending_prompt`), which is fine.
async fn send_answer(client: &Client, answer: PromptAnswer) {
    let result = match answer {
        PromptAnswer::Permission(params) => client
            .call::<request::SessionRespondPermission>(params)
            .await
            .map(drop),
        PromptAnswer::Question(params) => client
            .call::<request::SessionAnswerQuestion>(params)
            .await
            .map(drop),
    };
    if let Err(err) = result
        && err
            .refusal()
            .is_none_or(|refusal| refusal.reason != "no_pending_prompt")
    {
        eprintln!("codiva: warning: the answer was not taken: {err}");
    }
}

impl Approve {
    pub(super) fn policy(self) -> ApprovalPolicy {
        match self {
            Approve::All => ApprovalPolicy::AllowAll,
            Approve::None => ApprovalPolicy::Ask,
            Approve::Edits => ApprovalPolicy::AllowEdits,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Approve::All => "all",
            Approve::None => "none",
            Approve::Edits => "edits",
        }
    }
}
