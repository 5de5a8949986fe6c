//! Jobs and lanes: how the actor does slow work without waiting for it.
//!
//! A job is a task that does one slow thing (git, stopping an agent, reading a transcript,
//! writing the state file) and reports back with a closure the actor applies to itself. A job
//! for one session holds that session's lane: calls for the session that arrive meanwhile wait,
//! in order, and run when the job has reported back (so a session's operations never overlap,
//! as when the actor did them itself), while other sessions' calls and every session's events
//! go on. A job that panics still reports back (its caller hears that the manager stopped).

use std::future::Future;

use codiva_protocol::{ClientRequest, Request};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::lifecycle::wait_stopped;
use super::{Actor, Internal, requests};
use crate::git::Repo;
use crate::manager::{ManagerError, Reply, decode};

/// What a job does to the actor when it reports back.
pub(super) type Apply = Box<dyn FnOnce(&mut Actor) + Send>;

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

    /// A job on session `id`'s lane that changes the repository: once `stopping` (a task taken
    /// with [`Actor::take_task`]) has ended, `work` runs with the repository under the git lock
    /// (an agent slow to stop does not hold the lock).
    pub(super) fn git_job<T: Send + 'static, F: Future<Output = T> + Send + 'static>(
        &mut self,
        id: &str,
        stopping: Option<JoinHandle<()>>,
        work: impl FnOnce(Repo) -> F + Send + 'static,
        then: impl FnOnce(&mut Actor, T) + Send + 'static,
    ) {
        let repo = self.repo.clone();
        let git_lock = self.git_lock.clone();
        self.job(
            Some(id),
            async move {
                wait_stopped(stopping).await;
                let _guard = git_lock.lock().await;
                work(repo).await
            },
            then,
        );
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

    /// Runs the requests waiting for a session, in order, until one starts a job.
    fn run_waiting(&mut self, id: &str) {
        while !self.stopping && !self.lanes.contains(id) {
            let Some((request, reply)) =
                self.waiting.get_mut(id).and_then(|queue| queue.pop_front())
            else {
                break;
            };
            self.dispatch(request, reply);
        }
        if self.waiting.get(id).is_some_and(|queue| queue.is_empty()) {
            self.waiting.remove(id);
        }
    }

    /// Takes one request: it waits when a job holds its session's lane, and when the
    /// session's task must first be started (a restored session's log is rebuilt by a job).
    pub(super) fn dispatch(&mut self, request: ClientRequest, reply: Reply<Value>) {
        if self.stopping {
            return;
        }
        // What the session's agent takes (a session whose agent is gone fails when its task
        // is needed); without such a session, what the default agent takes (a bad value is
        // named before an unknown session).
        let record = request.session_id().and_then(|id| self.records.get(id));
        let of_session = record.is_some();
        let provider = match record {
            Some(record) => self.options.providers.get(&record.agent),
            None => self.options.providers.default_provider(),
        }
        .cloned();
        let checked = requests::validate(&request, provider.as_deref()).and_then(|()| {
            // What an agent cannot do at all is refused for its sessions only (an unknown
            // session is named as such).
            match &provider {
                Some(provider) if of_session => {
                    requests::check_capability(&request, provider.as_ref())
                }
                _ => Ok(()),
            }
        });
        if let Err(err) = checked {
            return reply.send(Err(err));
        }
        if let Some(id) = request.session_id().map(str::to_owned) {
            if self.lanes.contains(&id) {
                self.waiting
                    .entry(id)
                    .or_default()
                    .push_back((request, reply));
                return;
            }
            let needs_task = self
                .records
                .get(&id)
                .is_some_and(|record| requests::needs_task(&request, &record.phase));
            if needs_task {
                match self.ensure_task(&id) {
                    Ok(true) => {}
                    Ok(false) => {
                        // A job rebuilds the log; this request runs first when it is done.
                        self.waiting
                            .entry(id)
                            .or_default()
                            .push_front((request, reply));
                        return;
                    }
                    Err(err) => return reply.send(Err(err)),
                }
            }
        }
        self.answer_request(request, reply);
    }

    /// [`Actor::dispatch`] of request `R`, answered in its declared type (the actor's own
    /// requests: a repair's message, an automatic recovery).
    pub(super) fn dispatch_typed<R: Request>(&mut self, params: R::Params, reply: Reply<R::Result>)
    where
        R::Result: Send + 'static,
    {
        self.dispatch(R::request(params), reply.map(decode));
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
        Err(err) => reply.send(Err(err)),
        Ok(None) => reply.send(map(None)),
        Ok(Some(rx)) => {
            tokio::spawn(async move {
                reply.send(map(rx.await.ok()));
            });
        }
    }
}
