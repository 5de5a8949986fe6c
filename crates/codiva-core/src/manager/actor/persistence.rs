//! The state file from the actor's side: changes mark it dirty, a debounced write runs as a
//! job (one at a time; a change meanwhile writes again after it), a failed write warns once
//! and retries, and shutdown writes it one last time. The sessions' neutral histories
//! (`histories.rs`) are written in the same job, before the state file.

use std::sync::mpsc::Sender;
use std::time::Duration;

use codiva_protocol::manager::ManagerEvent;
use tokio::time::Instant;

use super::Actor;
use super::histories::SaveDone;
use super::record::Record;
use crate::persist::{self, PersistError, StateFile};

/// State is written this long after the last change (coalescing bursts of events).
const PERSIST_DEBOUNCE: Duration = Duration::from_millis(300);
/// A failed write is tried again this long after.
const PERSIST_RETRY: Duration = Duration::from_secs(5);

/// What a write did: the histories' part, and the state file's.
type Written = (SaveDone, Result<(), PersistError>);

impl Actor {
    pub(super) fn mark_dirty(&mut self) {
        // An ephemeral manager writes no state (`ephemeral.rs`).
        if self.persist_at.is_none() && self.ephemeral.is_none() {
            self.persist_at = Some(Instant::now() + PERSIST_DEBOUNCE);
        }
    }

    fn state_file(&self) -> StateFile {
        StateFile {
            version: persist::SCHEMA_VERSION,
            sessions: self
                .records
                .values()
                .filter_map(Record::persisted)
                .collect(),
            groups: self.groups.list(),
            last_attempts: self.groups.last_attempts.clone(),
        }
    }

    /// Writes the state file in a job; `done` hears when a write that started after this
    /// call has ended.
    pub(super) fn save(&mut self, done: Option<Sender<()>>) {
        if self.ephemeral.is_some() {
            // Nothing to write: done at once.
            if let Some(done) = done {
                let _ = done.send(());
            }
            return;
        }
        if let Some(_running) = &self.saving {
            // What changed since that write started is written after it.
            self.save_again.get_or_insert_with(Vec::new).extend(done);
            return;
        }
        self.saving = Some(done.into_iter().collect());
        let write = self.write();
        self.job(
            None,
            async move { tokio::task::spawn_blocking(write).await },
            |actor, written| {
                actor.written(written);
                for waiter in actor.saving.take().unwrap_or_default() {
                    let _ = waiter.send(());
                }
                if let Some(waiters) = actor.save_again.take() {
                    actor.saving = None;
                    let mut waiters = waiters.into_iter();
                    actor.save(waiters.next());
                    if let Some(running) = actor.saving.as_mut() {
                        running.extend(waiters);
                    }
                }
            },
        );
    }

    /// A write of the sessions' histories, then of the state file, as they are now: to run
    /// off the actor (it blocks).
    fn write(&mut self) -> impl FnOnce() -> Written + Send + 'static {
        let live = self.records.keys().cloned().collect();
        let histories = self.histories.begin_save(live);
        let state = self.state_file();
        let path = self.state_path.clone();
        move || {
            let histories = histories.run();
            (histories, persist::save(&path, &state))
        }
    }

    /// What a write found (`Err`: the writer panicked).
    fn written(&mut self, written: Result<Written, tokio::task::JoinError>) {
        match written {
            Ok((histories, result)) => {
                self.histories_saved(Some(histories));
                self.saved(result);
            }
            Err(err) => {
                tracing::warn!(%err, "the state writer panicked");
                self.histories_saved(None);
            }
        }
    }

    /// What the histories' part of a save found (`None`: the writer panicked).
    fn histories_saved(&mut self, done: Option<SaveDone>) {
        let saved = self.histories.finish_save(done);
        for message in saved.warnings {
            self.emit(ManagerEvent::Warning { message });
        }
        if saved.retry {
            self.persist_at = Some(Instant::now() + PERSIST_RETRY);
        }
    }

    fn saved(&mut self, result: Result<(), PersistError>) {
        match result {
            Ok(()) => {
                if self.persist_failed {
                    self.persist_failed = false;
                    self.emit(ManagerEvent::Warning {
                        message: "the session state is saved again".to_owned(),
                    });
                }
            }
            Err(err) => {
                if !self.persist_failed {
                    self.persist_failed = true;
                    self.emit(ManagerEvent::Warning {
                        message: format!("{err}; the previous state file is kept, codiva retries"),
                    });
                }
                // Retry later; nothing in memory is lost.
                self.persist_at = Some(Instant::now() + PERSIST_RETRY);
            }
        }
    }

    /// The last write, at shutdown (after the jobs under way have ended).
    pub(super) async fn save_final(&mut self) {
        if self.ephemeral.is_some() {
            return;
        }
        let write = self.write();
        let written = tokio::task::spawn_blocking(write).await;
        self.written(written);
    }
}
