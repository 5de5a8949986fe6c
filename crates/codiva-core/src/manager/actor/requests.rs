//! The actor's handler of each request the protocol routes to the session manager: its params
//! are checked and become the actor's work, its answer is the declared result, encoded. The
//! match is over every request, so a request routed here has a handler or does not compile.

use codiva_protocol::error::RefusalCode;
use codiva_protocol::group::{CheckTrigger, RunCheckResult};
use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::{ManagerSnapshot, ReadPage, SessionPhase};
use codiva_protocol::methods::Route;
use codiva_protocol::params::{
    CommitsResult, Done, FullMessageResult, PrResult, SessionListResult, SessionResult, SyncResult,
};
use codiva_protocol::session::Scope;
use codiva_protocol::text::cut_text;
use codiva_protocol::{ClientRequest, UserInput};
use serde_json::Value;

use super::jobs::reply_later;
use super::record::Record;
use super::{Actor, refused};
use crate::github::draft::clean_line;
use crate::manager::requests::{permission_response, question_response};
use crate::manager::{CreateOptions, MAX_FULL_MESSAGE, ManagerError, Reply, encode};
use crate::provider::{InvalidInput, Provider};
use crate::session::{LogPage, SessionCommand};

/// What `session/resume` sends when the caller gives no text.
const CONTINUE: &str = "Continue where you left off.";

/// Most entries one `session/read` returns.
const MAX_READ: usize = 1000;

/// Entries one `session/read` returns when it names no limit.
const DEFAULT_READ: usize = 200;

/// Checks what the params alone say, before anything else (also before the session is looked
/// up): nothing is sent when a value is bad. With a provider, also the values that agent
/// cannot take (the session's agent, else the default one).
pub(super) fn validate(
    request: &ClientRequest,
    provider: Option<&dyn Provider>,
) -> Result<(), ManagerError> {
    match request {
        ClientRequest::SessionSend(p) => {
            if p.text.trim().is_empty() && p.images.is_empty() {
                return Err(
                    InvalidInput::new("text", "expected a non-empty message (or images)").into(),
                );
            }
            if let Some(provider) = provider {
                for (index, image) in p.images.iter().enumerate() {
                    provider.check_image(
                        &format!("images[{index}]"),
                        &image.media_type,
                        &image.data,
                    )?;
                }
            }
            Ok(())
        }
        ClientRequest::SessionSetPermissionMode(p) => {
            if let Some(provider) = provider {
                provider.check_permission_mode("mode", p.mode)?;
            }
            Ok(())
        }
        ClientRequest::SessionRespondPermission(p) => Ok(permission_response(p).map(drop)?),
        ClientRequest::SessionAnswerQuestion(p) => Ok(question_response(p.clone()).map(drop)?),
        _ => Ok(()),
    }
}

/// Refuses what the session's agent cannot do (its capabilities say so), before anything is
/// sent to it.
pub(super) fn check_capability(
    request: &ClientRequest,
    provider: &dyn Provider,
) -> Result<(), ManagerError> {
    let capabilities = provider.capabilities();
    let (able, option) = match request {
        ClientRequest::SessionInterrupt(_) => (capabilities.interrupt, "interrupt"),
        ClientRequest::SessionSetModel(_) => (capabilities.set_model, "set_model"),
        _ => return Ok(()),
    };
    if able {
        return Ok(());
    }
    Err(refused(
        RefusalCode::UnsupportedByAgent,
        &[provider.id(), option],
        format!("{} cannot do {option}", provider.display_name()),
    ))
}

/// Whether the request needs the session's task (a restored session's is started first; a
/// discarded or merged session's too, for its log). A message to a discarded or merged
/// session is refused without one.
pub(super) fn needs_task(request: &ClientRequest, phase: &SessionPhase) -> bool {
    match request {
        ClientRequest::SessionSend(_)
        | ClientRequest::SessionResume(_)
        | ClientRequest::ReviewSend(_) => {
            !matches!(phase, SessionPhase::Discarded | SessionPhase::Merged { .. })
        }
        ClientRequest::SessionRead(_)
        | ClientRequest::SessionFullMessage(_)
        | ClientRequest::SessionSnapshot(_)
        | ClientRequest::SessionInterrupt(_)
        | ClientRequest::SessionRespondPermission(_)
        | ClientRequest::SessionAnswerQuestion(_)
        | ClientRequest::SessionSetModel(_)
        | ClientRequest::SessionSetPermissionMode(_)
        | ClientRequest::SessionSetAgent(_) => true,
        _ => false,
    }
}

/// A reply for the actor's own result `T`, answered as `encode(into(T))`.
fn answered<T: Send + 'static, R: serde::Serialize>(
    reply: Reply<Value>,
    into: impl FnOnce(T) -> R + Send + 'static,
) -> Reply<T> {
    reply.map(move |result| encode(into(result)))
}

fn done(reply: Reply<Value>) -> Reply<()> {
    answered(reply, |()| Done {})
}

fn session(reply: Reply<Value>) -> Reply<codiva_protocol::manager::SessionInfo> {
    answered(reply, |session| SessionResult { session })
}

impl Actor {
    /// Answers one request (its session's lane is free and its task ready).
    pub(super) fn answer_request(&mut self, request: ClientRequest, reply: Reply<Value>) {
        match request {
            ClientRequest::SessionCreate(p) => {
                let options = CreateOptions {
                    prompt: p.prompt,
                    images: p
                        .images
                        .into_iter()
                        .map(|image| (image.media_type, image.data))
                        .collect(),
                    model: p.model,
                    permission_mode: p.permission_mode,
                    agent: p.agent,
                    approval: p.approval_policy,
                    in_place: p.in_place,
                    mcp_servers: p.mcp_servers,
                    append_system_prompt: p.append_system_prompt,
                    allowed_tools: p.allowed_tools,
                    disallowed_tools: p.disallowed_tools,
                };
                self.create(options, session(reply));
            }
            ClientRequest::SessionList(_) => {
                let sessions = self.records.values().map(Record::info).collect();
                reply.send(encode(SessionListResult { sessions }));
            }
            ClientRequest::ManagerSnapshot(_) => {
                // Between two events: the rows reflect exactly the events up to `seq`.
                reply.send(encode(ManagerSnapshot {
                    seq: self.events.last_seq(),
                    sessions: self.records.values().map(Record::info).collect(),
                    groups: self.groups.list(),
                }));
            }
            ClientRequest::SessionRead(p) => {
                let scope = p.subagent.map_or(Scope::Main, Scope::Subagent);
                let limit = p.limit.unwrap_or(DEFAULT_READ).clamp(1, MAX_READ);
                self.read(
                    &p.session_id,
                    scope,
                    p.after,
                    limit,
                    answered(reply, |page| page),
                );
            }
            ClientRequest::SessionSnapshot(p) => {
                let reply = answered(reply, |snapshot| snapshot);
                let id = p.session_id;
                let reply = match self.records.get(&id).and_then(|r| r.snapshots.as_ref()) {
                    // Placed in the session's event stream, with its `seq`.
                    Some(snapshots) => match snapshots.send(reply) {
                        Ok(()) => return,
                        Err(tokio::sync::mpsc::error::SendError(reply)) => reply,
                    },
                    None => reply,
                };
                let asked = self.ask(&id, SessionCommand::Snapshot);
                reply_later(reply, asked, move |snapshot| {
                    snapshot.ok_or_else(|| {
                        refused(
                            RefusalCode::NoAgentYet,
                            &[&id],
                            format!("session {id} has no agent yet"),
                        )
                    })
                });
            }
            ClientRequest::SessionSend(p) => {
                let input = UserInput::with_images(p.text, p.images);
                done(reply).send(self.send(&p.session_id, input));
            }
            ClientRequest::SessionInterrupt(p) => {
                done(reply).send(self.interrupt(&p.session_id));
            }
            ClientRequest::SessionResume(p) => {
                let text = p.text.unwrap_or_else(|| CONTINUE.to_owned());
                done(reply).send(self.send(&p.session_id, UserInput::text(text)));
            }
            ClientRequest::SessionRespondPermission(p) => match permission_response(&p) {
                Ok(response) => {
                    let request_id = p.request_id;
                    self.answer(&p.session_id, done(reply), |answered| {
                        SessionCommand::RespondPermission {
                            request_id,
                            response,
                            reply: Some(answered),
                        }
                    });
                }
                Err(err) => reply.send(Err(err.into())),
            },
            ClientRequest::SessionAnswerQuestion(p) => {
                let (id, request_id) = (p.session_id.clone(), p.request_id.clone());
                match question_response(p) {
                    Ok(response) => {
                        self.answer(&id, done(reply), |answered| {
                            SessionCommand::AnswerQuestion {
                                request_id,
                                response,
                                reply: Some(answered),
                            }
                        });
                    }
                    Err(err) => reply.send(Err(err.into())),
                }
            }
            ClientRequest::SessionSetAgent(p) => {
                done(reply).send(self.switch_agent(&p.session_id, &p.agent));
            }
            ClientRequest::SessionSetModel(p) => {
                let id = p.session_id;
                if let Ok(record) = self.record(&id) {
                    record.model = p.model.clone();
                }
                let result = self.command(&id, SessionCommand::SetModel(p.model));
                self.emit_info(&id);
                done(reply).send(result);
            }
            ClientRequest::SessionSetPermissionMode(p) => {
                let id = p.session_id;
                if let Ok(record) = self.record(&id) {
                    record.permission_mode = Some(p.mode);
                }
                done(reply).send(self.command(&id, SessionCommand::SetPermissionMode(p.mode)));
            }
            ClientRequest::SessionSetApprovalPolicy(p) => {
                done(reply).send(self.set_approval_policy(p.session_id.as_deref(), p.policy));
            }
            ClientRequest::SessionDiff(p) => {
                let reply = answered(reply, |stat| stat);
                self.refuse_in_place(&p.session_id, "diff", reply, Actor::diff);
            }
            ClientRequest::SessionDiffText(p) => {
                let reply = answered(reply, |text| text);
                self.refuse_in_place(&p.session_id, "diff", reply, Actor::diff_text);
            }
            ClientRequest::SessionFullMessage(p) => {
                let scope = p.subagent.map_or(Scope::Main, Scope::Subagent);
                let reply = answered(reply, |text| FullMessageResult { text });
                self.full_message(&p.session_id, scope, p.entry, reply);
            }
            ClientRequest::SessionRename(p) => {
                session(reply).send(self.rename(&p.session_id, &p.title));
            }
            ClientRequest::SessionMerge(p) => {
                let reply = session(reply);
                self.refuse_in_place(&p.session_id, "merge", reply, Actor::merge);
            }
            ClientRequest::SessionDiscard(p) => {
                let reply = answered(reply, |outcome| outcome);
                self.discard_or_forget(&p.session_id, p.confirm_token, false, reply);
            }
            ClientRequest::SessionRemove(p) => {
                let reply = answered(reply, |outcome| outcome);
                self.discard_or_forget(&p.session_id, p.confirm_token, true, reply);
            }
            ClientRequest::SessionRestore(p) => {
                let reply = session(reply);
                self.refuse_in_place(&p.session_id, "restore", reply, Actor::restore);
            }
            ClientRequest::SessionSync(p) => {
                let reply = answered(reply, |message| SyncResult { message });
                self.refuse_in_place(&p.session_id, "sync", reply, Actor::sync);
            }
            ClientRequest::SessionPr(p) => {
                let reply = answered(reply, |(pr, created)| PrResult { pr, created });
                self.refuse_in_place(&p.session_id, "pr", reply, |actor, id, reply| {
                    actor.pr(id, Some(reply));
                });
            }
            ClientRequest::SessionMcpReconnect(p) => {
                done(reply).send(self.mcp_reconnect(&p.session_id, &p.server));
            }
            ClientRequest::SessionFixCi(p) => {
                let reply = answered(reply, |result| result);
                self.refuse_in_place(&p.session_id, "fix-ci", reply, Actor::fix_ci);
            }
            ClientRequest::SessionAddressReview(p) => {
                let reply = answered(reply, |result| result);
                self.refuse_in_place(
                    &p.session_id,
                    "address-review",
                    reply,
                    Actor::address_review,
                );
            }
            ClientRequest::SessionCommits(p) => {
                let reply = answered(reply, |result| result);
                self.refuse_in_place(&p.session_id, "commits", reply, Actor::commits);
            }
            ClientRequest::SessionCommit(p) => {
                let reply = answered(reply, |result| result);
                self.refuse_in_place(&p.session_id, "commit", reply, |actor, id, reply| {
                    actor.commit(id, p.message, reply);
                });
            }
            ClientRequest::ReviewAdd(p) => {
                answered(reply, |result| result).send(self.review_add(p));
            }
            ClientRequest::ReviewEdit(p) => {
                answered(reply, |result| result).send(self.review_edit(p));
            }
            ClientRequest::ReviewRemove(p) => {
                answered(reply, |result| result).send(self.review_remove(p));
            }
            ClientRequest::ReviewSend(p) => {
                self.review_send(&p.session_id, answered(reply, |result| result));
            }
            ClientRequest::HistoryList(p) => {
                self.history_list(p, answered(reply, |result| result));
            }
            ClientRequest::HistoryRead(p) => {
                self.history_read(p, answered(reply, |result| result));
            }
            ClientRequest::HistoryAdopt(p) => {
                self.history_adopt(p, session(reply));
            }
            ClientRequest::SessionRunCheck(p) => {
                let check = self.start_check(&p.session_id, CheckTrigger::Requested);
                answered(reply, |check| RunCheckResult { check }).send(check);
            }
            ClientRequest::SessionCheckOutput(p) => {
                answered(reply, |output| output).send(self.check_output(&p.session_id));
            }
            ClientRequest::GroupCreate(p) => {
                self.create_group(p, answered(reply, |result| result));
            }
            ClientRequest::GroupLastAttempts(_) => {
                reply.send(encode(self.last_attempts()));
            }
            ClientRequest::GroupCompare(p) => {
                self.compare_group(&p.group_id, answered(reply, |compare| compare));
            }
            ClientRequest::GroupDiff(p) => {
                let reply = answered(reply, |text| text);
                let id = p.session_id.clone();
                self.refuse_in_place(&id, "diff", reply, |actor, _, reply| {
                    actor.attempt_diff(p, reply);
                });
            }
            ClientRequest::GroupKeep(p) => self.keep(p, answered(reply, |outcome| outcome)),
            // Answered by the manager's handle (`Manager::handle`) or by the server.
            request @ (ClientRequest::SessionRecover(_)
            | ClientRequest::Initialize(_)
            | ClientRequest::AgentsList(_)
            | ClientRequest::AgentsLogin(_)
            | ClientRequest::AgentsLoginInput(_)
            | ClientRequest::AgentsLoginCancel(_)
            | ClientRequest::ConfigRead(_)
            | ClientRequest::ConfigSet(_)
            | ClientRequest::DaemonShutdown(_)) => {
                debug_assert!(
                    request.route() == Route::Server
                        || matches!(request, ClientRequest::SessionRecover(_))
                );
                reply.send(Err(ManagerError::NotRouted(request.method())));
            }
        }
    }

    /// The subjects of the commits on the session's branch that its base lacks (agent-written:
    /// each made one clean line).
    fn commits(&mut self, id: &str, reply: Reply<CommitsResult>) {
        const LISTED: usize = 100;
        let record = match self.record(id) {
            Ok(record) => record,
            Err(err) => return reply.send(Err(err)),
        };
        if matches!(
            record.phase,
            SessionPhase::Preparing | SessionPhase::Discarded
        ) {
            return reply.send(Err(refused(
                RefusalCode::NoWorktree,
                &[id],
                format!("session {id} has no branch now"),
            )));
        }
        let (base, branch) = (record.base.clone(), record.branch.clone());
        let repo = self.repo.clone();
        self.job(
            Some(id),
            async move {
                repo.commit_subjects(
                    &format!("refs/heads/{base}"),
                    &format!("refs/heads/{branch}"),
                    LISTED + 1,
                )
                .await
            },
            move |_, listed| {
                reply.send(listed.map_err(ManagerError::from).map(|mut subjects| {
                    let more = subjects.len() > LISTED;
                    subjects.truncate(LISTED);
                    CommitsResult {
                        subjects: subjects
                            .iter()
                            .map(|subject| clean_line(subject, 200))
                            .collect(),
                        more,
                    }
                }))
            },
        );
    }

    /// A page of the session's log (`scope`), from its task.
    fn read(
        &mut self,
        id: &str,
        scope: Scope,
        after: Option<u64>,
        limit: usize,
        reply: Reply<ReadPage>,
    ) {
        let asked = self.ask(id, |reply| SessionCommand::ReadLog {
            scope,
            after,
            limit,
            reply,
        });
        reply_later(reply, asked, |page| {
            let page = page.unwrap_or_else(LogPage::default);
            Ok(ReadPage {
                entries: page.entries,
                next_after: page.next_after,
                dropped_entries: page.dropped,
            })
        });
    }

    /// The whole text of log entry `entry`, a message the log cut: the entry is read from the
    /// session's task, then the rest from the agent's transcript (`full_text.rs`).
    fn full_message(&mut self, id: &str, scope: Scope, entry: u64, reply: Reply<String>) {
        let owned_id = id.to_owned();
        let (page, answer) = Reply::channel();
        self.read(id, scope, entry.checked_sub(1), 1, page);
        self.job(Some(id), answer, move |actor, page| {
            let page = match page {
                Ok(Ok(page)) => page,
                Ok(Err(err)) => return reply.send(Err(err)),
                Err(_) => return reply.send(Err(ManagerError::Stopped)),
            };
            let text = page
                .entries
                .into_iter()
                .find(|e| e.id == entry)
                .and_then(|e| match e.kind {
                    EntryKind::Assistant { text } | EntryKind::Thinking { text } => Some(text),
                    _ => None,
                });
            let entry_name = entry.to_string();
            let Some((kept, cut)) = text.as_deref().and_then(cut_text) else {
                return reply.send(Err(refused(
                    RefusalCode::MessageNotCut,
                    &[&entry_name],
                    format!("entry {entry} is not a message the log cut"),
                )));
            };
            let total = kept.len() + cut;
            if total > MAX_FULL_MESSAGE {
                return reply.send(Err(refused(
                    RefusalCode::MessageTooLong,
                    &[&total.to_string(), &MAX_FULL_MESSAGE.to_string()],
                    format!("the message is {total} bytes, more than the {MAX_FULL_MESSAGE} shown"),
                )));
            }
            let kept = kept.to_owned();
            actor.full_text(&owned_id, kept, total, reply);
        });
    }
}
