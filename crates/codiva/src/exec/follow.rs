//! What `codiva exec` does with its session, wherever it runs (in this process or in the
//! daemon): one path over the client seam. It creates the session, prints its events, answers
//! its prompts as `--approve` and `--answers` say, ends at once on a signal (the first Ctrl+C
//! too: in process the agent is stopped, in the daemon its turn interrupted), and ends
//! when the session does (in process: once its turn settled and the agent was stopped; in the
//! daemon: when the turn settles, the session staying there).

use std::collections::{BTreeMap, HashSet};

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
use codiva_protocol::session::{Prompt, SessionEvent, SessionSnapshot, Status};

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
        SessionSnapshot::initial(),
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

/// Follows session `id` from `view` (what is known of it: nothing yet for a session just
/// created, its snapshot for one followed again): what exec knows of the session is the
/// protocol's fold of its events (`codiva_protocol::view`), as for every client — its status,
/// and the prompts waiting, each answered once as `--approve` and `--answers` say.
#[allow(clippy::too_many_arguments)]
async fn follow(
    client: &Client,
    id: String,
    events: &mut Subscription,
    host: Host,
    signals: &mut ShutdownSignals,
    (approve, answers): (Approve, &BTreeMap<String, Vec<String>>),
    printer: &mut Printer,
    mut view: SessionSnapshot,
) -> Result<Followed, String> {
    let mut answerer = Answerer {
        answered: HashSet::new(),
        approve,
        answers,
    };
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
    answerer.answer_waiting(client, &id, &view, printer).await;
    loop {
        if host == Host::Daemon && view.status.is_settled() {
            // The turn is over: nothing happens until someone acts. (A session waiting on a
            // prompt is answered here, so it is not settled.)
            break;
        }
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
        let (seq, event) = match update {
            Some(Update::Event {
                seq,
                event: ManagerEvent::Event { id: of, event },
            }) if of == id => (seq, event),
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
                // Events were lost: the session is taken again as it stands, placed in the
                // stream, or else its row says where it is.
                match session_snapshot(client, &id).await {
                    Some(snapshot) => view = snapshot,
                    None => {
                        if let Some(session) = snapshot.sessions.iter().find(|s| s.id == id) {
                            view.status = session.status;
                            view.detail.clone_from(&session.detail);
                        }
                    }
                }
                answerer.answer_waiting(client, &id, &view, printer).await;
                continue;
            }
            None if host == Host::InProcess => break,
            None => {
                // The daemon or the connection to it went away; the session goes on there.
                return Ok(Followed {
                    id,
                    status: view.status,
                    detail: view.detail,
                    signal: None,
                    lost: true,
                });
            }
        };
        // The snapshot the view stands on holds it already.
        if view.seq.is_some_and(|place| seq <= place) {
            continue;
        }
        printer.event(&event);
        view.apply(&event);
        // A prompt is answered once the session says it waits (the status that follows its
        // opening, in the same batch), so what is printed reads in order: the prompt, the
        // session awaiting it, the answer. Any other event after it would answer it too.
        if view.status.awaits_user() || !matches!(event, SessionEvent::PromptOpened { .. }) {
            answerer.answer_waiting(client, &id, &view, printer).await;
        }
    }
    Ok(Followed {
        id,
        status: view.status,
        detail: view.detail,
        signal,
        lost: false,
    })
}

/// exec's answers to a session's prompts: each prompt once, as `--approve` and `--answers` say.
pub(super) struct Answerer<'a> {
    answered: HashSet<String>,
    approve: Approve,
    answers: &'a BTreeMap<String, Vec<String>>,
}

impl<'a> Answerer<'a> {
    pub(super) fn new(approve: Approve, answers: &'a BTreeMap<String, Vec<String>>) -> Self {
        Answerer {
            answered: HashSet::new(),
            approve,
            answers,
        }
    }

    /// Answers every prompt of the view not answered yet.
    pub(super) async fn answer_waiting(
        &mut self,
        client: &Client,
        id: &str,
        view: &SessionSnapshot,
        printer: &mut Printer,
    ) {
        for prompt in &view.prompts {
            if self.answered.insert(prompt.request_id().to_owned()) {
                let answer = answer_prompt(id, prompt, self.approve, self.answers);
                printer.decision(&answer);
                send_answer(client, answer).await;
            }
        }
    }
}

/// Session `id` as it stands, placed in the event stream; `None` when it cannot be had.
async fn session_snapshot(client: &Client, id: &str) -> Option<SessionSnapshot> {
    client
        .call::<request::SessionSnapshot>(SessionParams {
            session_id: id.to_owned(),
        })
        .await
        .ok()
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
    // What is known of it is its snapshot, placed in the stream: the events after it follow
    // (a prompt that opened meanwhile is in it, and answered).
    let view = session_snapshot(client, &id).await.unwrap_or_else(|| {
        let mut view = SessionSnapshot::initial();
        view.status = row.status;
        view.detail.clone_from(&row.detail);
        view
    });
    follow(
        client,
        id,
        &mut events,
        Host::Daemon,
        signals,
        (approve, answers),
        printer,
        view,
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
        && err.refusal().is_none_or(|refusal| {
            refusal.reason != codiva_protocol::error::RefusalCode::NoPendingPrompt
        })
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::{Arc, Mutex};

    use codiva_client::{Backend, BoxFuture, ClientError};
    use codiva_protocol::ClientRequest;
    use codiva_protocol::agent::PermissionRequest;
    use codiva_protocol::manager::{ManagerSnapshot, SequencedEvent, SessionInfo};
    use codiva_protocol::session::{PromptResolution, SessionEvent, Status};
    use serde_json::{Value, json};
    use tokio::sync::broadcast;

    use super::*;

    const ID: &str = "ask";

    fn permission(request_id: &str) -> Prompt {
        Prompt::Permission(PermissionRequest {
            request_id: request_id.into(),
            tool: "Bash".into(),
            view: Default::default(),
            input: json!({"command": "touch x"}),
            description: None,
            options: Vec::new(),
            suggestions: Vec::new(),
            tool_use_id: None,
            agent_id: None,
            blocked_path: None,
            reason: None,
        })
    }

    fn row(status: Status) -> SessionInfo {
        serde_json::from_value(json!({
            "id": ID, "title": "t", "prompt": "p", "branch": "codiva/ask",
            "worktree": "/w", "base": "main", "phase": "active", "status": status,
            "detail": null, "agent": "claude", "agent_session_id": null, "model": null,
            "cost_usd": null, "active_ms": 0, "created_at": 0, "pending_prompts": 1,
            "todos": {"done": 0, "total": 0}
        }))
        .unwrap()
    }

    /// A daemon whose session waits on permission `r1` (its snapshot, at seq 11, holds it);
    /// around the snapshot's answer the events 11–14 come: the prompt opened (held by the
    /// snapshot), then running, the prompt closed, completed.
    struct Daemon {
        events: broadcast::Sender<SequencedEvent>,
        answers: Mutex<Vec<String>>,
    }

    impl Backend for Daemon {
        fn request(&self, request: ClientRequest) -> BoxFuture<Result<Value, ClientError>> {
            let answer = match &request {
                ClientRequest::ManagerSnapshot(_) => serde_json::to_value(ManagerSnapshot {
                    seq: 10,
                    sessions: vec![row(Status::AwaitingPermission)],
                    groups: Vec::new(),
                })
                .unwrap(),
                ClientRequest::SessionSnapshot(_) => {
                    let opened = SessionEvent::PromptOpened {
                        prompt: permission("r1"),
                    };
                    let mut snapshot = SessionSnapshot::initial();
                    snapshot.apply(&opened);
                    snapshot.apply(&SessionEvent::Status {
                        status: Status::AwaitingPermission,
                        detail: None,
                        detail_code: None,
                    });
                    snapshot.seq = Some(11);
                    let later = [
                        opened,
                        SessionEvent::Status {
                            status: Status::Running,
                            detail: None,
                            detail_code: None,
                        },
                        SessionEvent::PromptClosed {
                            request_id: "r1".into(),
                            resolution: PromptResolution::Allowed,
                        },
                        SessionEvent::Status {
                            status: Status::Completed,
                            detail: None,
                            detail_code: None,
                        },
                    ];
                    for (seq, event) in (11..).zip(later) {
                        let _ = self.events.send(SequencedEvent {
                            seq,
                            event: ManagerEvent::Event {
                                id: ID.into(),
                                event,
                            },
                        });
                    }
                    serde_json::to_value(snapshot).unwrap()
                }
                ClientRequest::SessionRespondPermission(params) => {
                    self.answers.lock().unwrap().push(params.request_id.clone());
                    json!({})
                }
                other => panic!("unexpected request {}", other.method()),
            };
            Box::pin(async move { Ok(answer) })
        }

        fn events(&self) -> broadcast::Receiver<SequencedEvent> {
            self.events.subscribe()
        }
    }

    /// exec following a session again is the fold over its snapshot: the prompt the snapshot
    /// holds is answered once, though its event is read again after the snapshot, and the
    /// outcome is what the later events say.
    #[tokio::test]
    async fn a_followed_again_session_answers_its_waiting_prompt_once() {
        let daemon = Arc::new(Daemon {
            events: broadcast::channel(64).0,
            answers: Mutex::new(Vec::new()),
        });
        let client = Client::new(daemon.clone());
        let mut signals = ShutdownSignals::new(false);
        let mut printer = Printer::new(true);
        let followed = resume(
            &client,
            ID.into(),
            &mut signals,
            (Approve::All, &BTreeMap::new()),
            &mut printer,
        )
        .await
        .unwrap();
        assert_eq!(followed.status, Status::Completed);
        assert_eq!(*daemon.answers.lock().unwrap(), ["r1"]);
    }
}
