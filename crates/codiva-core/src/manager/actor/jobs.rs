//! Jobs and lanes: how the actor does slow work without waiting for it.
//!
//! A job is a task that does one slow thing (git, stopping an agent, reading a transcript,
//! writing the state file) and reports back with a closure the actor applies to itself. A job
//! for one session holds that session's lane: calls for the session that arrive meanwhile wait,
//! in order, and run when the job has reported back (so a session's operations never overlap,
//! as when the actor did them itself), while other sessions' calls and every session's events
//! go on. A job that panics still reports back (its caller hears that the manager stopped).

use std::future::Future;

use codiva_protocol::UserInput;
use tokio::sync::oneshot;

use super::record::Record;
use super::{Actor, Internal};
use crate::manager::info::{ManagerSnapshot, SessionPhase};
use crate::manager::{Call, ManagerError};
use crate::provider::Provider;
use crate::session::{LogPage, SessionCommand};

/// What a job does to the actor when it reports back.
pub(super) type Apply = Box<dyn FnOnce(&mut Actor) + Send>;

/// What `session/resume` sends when the caller gives no text.
const CONTINUE: &str = "Continue where you left off.";

impl Call {
    /// The session this call is about (its lane), if any.
    fn session_id(&self) -> Option<&str> {
        match self {
            Call::Read { id, .. } | Call::Discard { id, .. } => Some(id),
            Call::Snapshot(id, _)
            | Call::Send(id, _, _)
            | Call::Interrupt(id, _)
            | Call::Resume(id, _, _)
            | Call::RespondPermission(id, _, _, _)
            | Call::AnswerQuestion(id, _, _, _)
            | Call::SetModel(id, _, _)
            | Call::SetPermissionMode(id, _, _)
            | Call::SetAgent(id, _, _)
            | Call::SetApprovalPolicy(Some(id), _, _)
            | Call::Diff(id, _)
            | Call::DiffText(id, _)
            | Call::FullText { id, .. }
            | Call::Rename(id, _, _)
            | Call::Merge(id, _)
            | Call::Restore(id, _)
            | Call::Sync(id, _)
            | Call::Pr(id, _)
            | Call::McpReconnect(id, _, _)
            | Call::FixCi(id, _)
            | Call::Commit(id, _, _) => Some(id),
            Call::Create(..)
            | Call::List(_)
            | Call::SnapshotAll(_)
            | Call::SetApprovalPolicy(None, _, _)
            | Call::SaveNow(_)
            | Call::Emit(_)
            | Call::Shutdown(_) => None,
        }
    }

    /// Checks the values the agent could not take, before anything else (also before the
    /// session is looked up): nothing is sent when one is bad.
    fn validate(&self, provider: &dyn Provider) -> Result<(), ManagerError> {
        match self {
            Call::Send(_, input, _) => {
                for (index, image) in input.images.iter().enumerate() {
                    provider.check_image(
                        &format!("images[{index}]"),
                        &image.media_type,
                        &image.data,
                    )?;
                }
                Ok(())
            }
            Call::SetPermissionMode(_, mode, _) => {
                provider.check_permission_mode("mode", *mode)?;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Refuses what the session's agent cannot do (its capabilities say so), before anything
    /// is sent to it.
    fn check_capability(&self, provider: &dyn Provider) -> Result<(), ManagerError> {
        let capabilities = provider.capabilities();
        let (able, option) = match self {
            Call::Interrupt(..) => (capabilities.interrupt, "interrupt"),
            Call::SetModel(..) => (capabilities.set_model, "set_model"),
            _ => return Ok(()),
        };
        if able {
            return Ok(());
        }
        Err(super::refused(
            "unsupported_by_agent",
            &[provider.id(), option],
            format!("{} cannot do {option}", provider.display_name()),
        ))
    }

    /// Whether the call needs the session's task (a restored session's is started first; a
    /// discarded or merged session's too, for its log). A message to a discarded or merged
    /// session is refused without one.
    fn needs_task(&self, phase: &SessionPhase) -> bool {
        match self {
            Call::Send(..) | Call::Resume(..) => {
                !matches!(phase, SessionPhase::Discarded | SessionPhase::Merged { .. })
            }
            Call::Read { .. }
            | Call::Snapshot(..)
            | Call::Interrupt(..)
            | Call::RespondPermission(..)
            | Call::AnswerQuestion(..)
            | Call::SetModel(..)
            | Call::SetPermissionMode(..)
            | Call::SetAgent(..) => true,
            _ => false,
        }
    }
}

impl Actor {
    /// Runs `work` as a job; `then` applies its output. With a `lane`, the session's calls
    /// wait until `then` has run.
    pub(super) fn job<T: Send + 'static>(
        &mut self,
        lane: Option<&str>,
        work: impl Future<Output = T> + Send + 'static,
        then: impl FnOnce(&mut Actor, T) + Send + 'static,
    ) {
        if let Some(id) = lane {
            self.lanes.insert(id.to_owned());
        }
        self.jobs_running += 1;
        let lane = lane.map(str::to_owned);
        let internal = self.internal_tx.clone();
        tokio::spawn(async move {
            let apply: Apply = match tokio::spawn(work).await {
                Ok(output) => Box::new(move |actor: &mut Actor| then(actor, output)),
                Err(err) => {
                    tracing::warn!(%err, "a manager job failed");
                    Box::new(|_: &mut Actor| {})
                }
            };
            let _ = internal.send(Internal::Done { lane, apply });
        });
    }

    pub(super) fn job_done(&mut self, lane: Option<String>, apply: Apply) {
        self.jobs_running = self.jobs_running.saturating_sub(1);
        if let Some(id) = &lane {
            self.lanes.remove(id);
        }
        apply(self);
        if let Some(id) = lane {
            self.run_waiting(&id);
        }
    }

    /// Runs the calls waiting for a session, in order, until one starts a job.
    fn run_waiting(&mut self, id: &str) {
        while !self.stopping && !self.lanes.contains(id) {
            let Some(call) = self.waiting.get_mut(id).and_then(|queue| queue.pop_front()) else {
                break;
            };
            self.dispatch(call);
        }
        if self.waiting.get(id).is_some_and(|queue| queue.is_empty()) {
            self.waiting.remove(id);
        }
    }

    /// Takes one call: it waits when a job holds its session's lane, and when the session's
    /// task must first be started (a restored session's log is rebuilt by a job).
    pub(super) fn dispatch(&mut self, call: Call) {
        if self.stopping {
            return;
        }
        // What the session's agent takes (a session whose agent is gone fails when its task
        // is needed); without such a session, what the default agent takes (a bad value is
        // named before an unknown session).
        let record = call.session_id().and_then(|id| self.records.get(id));
        let of_session = record.is_some();
        let provider = match record {
            Some(record) => self.options.providers.get(&record.agent),
            None => self.options.providers.default_provider(),
        }
        .cloned();
        if let Some(provider) = provider {
            // What an agent cannot do at all is refused for its sessions only (an unknown
            // session is named as such).
            let checked = call.validate(provider.as_ref()).and_then(|()| {
                if of_session {
                    call.check_capability(provider.as_ref())
                } else {
                    Ok(())
                }
            });
            if let Err(err) = checked {
                reply_err(call, err);
                return;
            }
        }
        if let Some(id) = call.session_id().map(str::to_owned) {
            if self.lanes.contains(&id) {
                self.waiting.entry(id).or_default().push_back(call);
                return;
            }
            let needs_task = self
                .records
                .get(&id)
                .is_some_and(|record| call.needs_task(&record.phase));
            if needs_task {
                match self.ensure_task(&id) {
                    Ok(true) => {}
                    Ok(false) => {
                        // A job rebuilds the log; this call runs first when it is done.
                        self.waiting.entry(id).or_default().push_front(call);
                        return;
                    }
                    Err(err) => {
                        reply_err(call, err);
                        return;
                    }
                }
            }
        }
        self.call(call);
    }

    fn call(&mut self, call: Call) {
        match call {
            Call::Create(options, reply) => self.create(options, reply),
            Call::List(reply) => {
                let _ = reply.send(Ok(self.records.values().map(Record::info).collect()));
            }
            Call::SnapshotAll(reply) => {
                // Between two events: the rows reflect exactly the events up to `seq`.
                let _ = reply.send(Ok(ManagerSnapshot {
                    seq: self.events.last_seq(),
                    sessions: self.records.values().map(Record::info).collect(),
                }));
            }
            Call::Read {
                id,
                scope,
                after,
                limit,
                reply,
            } => {
                let asked = self.ask(&id, |reply| SessionCommand::ReadLog {
                    scope,
                    after,
                    limit,
                    reply,
                });
                reply_later(reply, asked, |page| {
                    let page = page.unwrap_or_else(LogPage::default);
                    Ok(crate::manager::ReadPage {
                        entries: page.entries,
                        next_after: page.next_after,
                        dropped_entries: page.dropped,
                    })
                });
            }
            Call::Snapshot(id, reply) => {
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
                        super::refused(
                            "no_agent_yet",
                            &[&id],
                            format!("session {id} has no agent yet"),
                        )
                    })
                });
            }
            Call::Send(id, input, reply) => {
                let _ = reply.send(self.send(&id, input));
            }
            Call::Interrupt(id, reply) => {
                let _ = reply.send(self.interrupt(&id));
            }
            Call::Resume(id, text, reply) => {
                let text = text.unwrap_or_else(|| CONTINUE.to_owned());
                let _ = reply.send(self.send(&id, UserInput::text(text)));
            }
            Call::RespondPermission(id, request_id, response, reply) => {
                self.answer(&id, reply, |answered| SessionCommand::RespondPermission {
                    request_id,
                    response,
                    reply: Some(answered),
                });
            }
            Call::AnswerQuestion(id, request_id, response, reply) => {
                self.answer(&id, reply, |answered| SessionCommand::AnswerQuestion {
                    request_id,
                    response,
                    reply: Some(answered),
                });
            }
            Call::SetAgent(id, agent, reply) => {
                let result = self.switch_agent(&id, &agent);
                let _ = reply.send(result);
            }
            Call::SetModel(id, model, reply) => {
                if let Ok(record) = self.record(&id) {
                    record.model = model.clone();
                }
                let result = self.command(&id, SessionCommand::SetModel(model));
                self.emit_info(&id);
                let _ = reply.send(result);
            }
            Call::SetPermissionMode(id, mode, reply) => {
                if let Ok(record) = self.record(&id) {
                    record.permission_mode = Some(mode);
                }
                let result = self.command(&id, SessionCommand::SetPermissionMode(mode));
                let _ = reply.send(result);
            }
            Call::SetApprovalPolicy(id, policy, reply) => {
                let _ = reply.send(self.set_approval_policy(id.as_deref(), policy));
            }
            Call::Diff(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "diff", reply) {
                    self.diff(&id, reply);
                }
            }
            Call::DiffText(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "diff", reply) {
                    self.diff_text(&id, reply);
                }
            }
            Call::FullText {
                id,
                kept,
                total,
                reply,
            } => self.full_text(&id, kept, total, reply),
            Call::Rename(id, title, reply) => {
                let _ = reply.send(self.rename(&id, &title));
            }
            Call::Merge(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "merge", reply) {
                    self.merge(&id, reply);
                }
            }
            Call::Discard {
                id,
                confirm,
                forget,
                reply,
            } => {
                if let Some(reply) = self.forget_in_place(&id, reply) {
                    self.discard(&id, confirm, forget, reply);
                }
            }
            Call::Restore(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "restore", reply) {
                    self.restore(&id, reply);
                }
            }
            Call::Sync(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "sync", reply) {
                    self.sync(&id, reply);
                }
            }
            Call::Pr(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "pr", reply) {
                    self.pr(&id, Some(reply));
                }
            }
            Call::McpReconnect(id, server, reply) => {
                let _ = reply.send(self.mcp_reconnect(&id, &server));
            }
            Call::FixCi(id, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "fix-ci", reply) {
                    self.fix_ci(&id, reply);
                }
            }
            Call::Commit(id, message, reply) => {
                if let Some(reply) = self.refuse_in_place(&id, "commit", reply) {
                    self.commit(&id, message, reply);
                }
            }
            Call::SaveNow(done) => self.save(Some(done)),
            Call::Emit(event) => self.emit(*event),
            Call::Shutdown(_) => {}
        }
    }
}

/// Answers `reply` when the session task has answered `asked` (off the actor: a session task
/// that is slow to answer delays only its own caller).
pub(super) fn reply_later<T: Send + 'static, U: Send + 'static>(
    reply: crate::manager::Reply<U>,
    asked: Result<Option<oneshot::Receiver<T>>, ManagerError>,
    map: impl FnOnce(Option<T>) -> Result<U, ManagerError> + Send + 'static,
) {
    match asked {
        Err(err) => {
            let _ = reply.send(Err(err));
        }
        Ok(None) => {
            let _ = reply.send(map(None));
        }
        Ok(Some(rx)) => {
            tokio::spawn(async move {
                let _ = reply.send(map(rx.await.ok()));
            });
        }
    }
}

/// Answers a call with an error (its session cannot be got ready).
fn reply_err(call: Call, err: ManagerError) {
    match call {
        Call::Read { reply, .. } => drop(reply.send(Err(err))),
        Call::Snapshot(_, reply) => drop(reply.send(Err(err))),
        Call::Send(_, _, reply)
        | Call::Interrupt(_, reply)
        | Call::Resume(_, _, reply)
        | Call::RespondPermission(_, _, _, reply)
        | Call::AnswerQuestion(_, _, _, reply)
        | Call::SetModel(_, _, reply)
        | Call::SetAgent(_, _, reply)
        | Call::SetPermissionMode(_, _, reply) => drop(reply.send(Err(err))),
        // Calls that do not need the task never get here; dropping the reply says "stopped".
        _ => {}
    }
}
