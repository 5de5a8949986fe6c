//! The actor's neutral histories: one record per session, folded from its events, written
//! with the state file and removed with the session.
//!
//! A session's file is read the first time its record is needed (its first event, or a
//! restore without a transcript), never at start. Writes go off the actor's thread (in the
//! state file's job: [`Histories::begin_save`] takes what to write, [`PendingSave::run`] writes
//! it, [`Histories::finish_save`] applies the outcome), only for records that changed, and
//! never over a file of a newer schema. Files of sessions that are no longer listed are removed
//! when the set of sessions changes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::EntryKind;
use codiva_protocol::session::SessionEvent;

use crate::history::AgentRef;
use crate::history::History;
use crate::history_file;
use crate::provider::{ConversationLog as RestoredLog, RecordsError};

struct Entry {
    history: History,
    dirty: bool,
    /// Counts the changes: a write of an older version leaves the record dirty.
    version: u64,
    /// `false` for a file of a newer schema (or one that cannot be read): never written.
    writable: bool,
}

pub(super) struct Histories {
    repo_root: PathBuf,
    /// The agent a session's new history names (the manager's provider).
    agent: &'static str,
    entries: BTreeMap<String, Entry>,
    /// The sessions listed when files were last pruned (`None`: not pruned yet).
    pruned_for: Option<BTreeSet<String>>,
    failed: bool,
}

/// What a save found: warnings for the user, and whether to try again later.
pub(super) struct Saved {
    pub warnings: Vec<String>,
    pub retry: bool,
}

impl Histories {
    pub(super) fn new(repo_root: PathBuf, agent: &'static str) -> Self {
        Histories {
            repo_root,
            agent,
            entries: BTreeMap::new(),
            pruned_for: None,
            failed: false,
        }
    }

    /// The record of a session, read from disk the first time; a warning when its file was
    /// corrupt, newer or unreadable.
    fn entry(&mut self, id: &str, now_ms: u64) -> (Option<&mut Entry>, Option<String>) {
        let mut warning = None;
        if !self.entries.contains_key(id) {
            let Some(path) = history_file::path(&self.repo_root, id) else {
                return (None, None);
            };
            let loaded = history_file::load(&path, now_ms);
            warning = loaded.warning;
            let agent = self.agent;
            self.entries.insert(
                id.to_owned(),
                Entry {
                    history: loaded.history.unwrap_or_else(|| History::new(agent)),
                    dirty: false,
                    version: 0,
                    writable: loaded.writable,
                },
            );
        }
        (self.entries.get_mut(id), warning)
    }

    /// Folds a session event into its record. Returns whether a save is due, and a warning
    /// about the record's file, if any.
    pub(super) fn apply(
        &mut self,
        id: &str,
        now_ms: u64,
        event: &SessionEvent,
    ) -> (bool, Option<String>) {
        let (entry, warning) = self.entry(id, now_ms);
        let Some(entry) = entry else {
            return (false, warning);
        };
        let changed = entry.history.apply(now_ms, event);
        entry.dirty |= changed && entry.writable;
        if changed {
            entry.version += 1;
        }
        (changed && entry.writable, warning)
    }

    /// The session went on with another agent: recorded (the turns after are that agent's).
    pub(super) fn switch_agent(&mut self, id: &str, now_ms: u64, to: AgentRef) {
        if let (Some(entry), _) = self.entry(id, now_ms) {
            entry.history.switch_agent(now_ms, to);
            entry.dirty |= entry.writable;
            entry.version += 1;
        }
    }

    /// A session's record (empty when there is none).
    pub(super) fn get(&mut self, id: &str, now_ms: u64) -> (Option<&History>, Option<String>) {
        let (entry, warning) = self.entry(id, now_ms);
        (entry.map(|entry| &entry.history), warning)
    }

    /// What to write: the records that changed, and (when the set of sessions changed) the
    /// files of sessions no longer listed (`live`) to remove; forgets the records of those
    /// sessions. The writing is [`PendingSave::run`], off the actor.
    pub(super) fn begin_save(&mut self, live: BTreeSet<String>) -> PendingSave {
        self.entries.retain(|id, _| live.contains(id));
        let mut writes = Vec::new();
        let mut warnings = Vec::new();
        for (id, entry) in &self.entries {
            if !entry.dirty {
                continue;
            }
            let Some(path) = history_file::path(&self.repo_root, id) else {
                continue;
            };
            match history_file::encode(id, &entry.history) {
                Ok(bytes) => writes.push(Write {
                    id: id.clone(),
                    version: entry.version,
                    path,
                    bytes,
                }),
                Err(err) => warnings.push(format!("session {id}: history not written: {err}")),
            }
        }
        let prune = (self.pruned_for.as_ref() != Some(&live)).then_some(live);
        PendingSave {
            root: self.repo_root.clone(),
            writes,
            prune,
            warnings,
        }
    }

    /// Applies what a save found (`None`: its writer panicked): the records written are clean
    /// (unless they changed meanwhile); warnings for the user, and whether to try again later.
    pub(super) fn finish_save(&mut self, done: Option<SaveDone>) -> Saved {
        let Some(done) = done else {
            tracing::warn!("the history writer panicked");
            return Saved {
                warnings: Vec::new(),
                retry: true,
            };
        };
        let SaveDone {
            idle,
            written,
            errors,
            pruned,
            mut warnings,
        } = done;
        if idle {
            return Saved {
                warnings,
                retry: false,
            };
        }
        for (id, version) in written {
            if let Some(entry) = self.entries.get_mut(&id)
                && entry.version == version
            {
                entry.dirty = false;
            }
        }
        if errors.is_empty() {
            if pruned.is_some() {
                self.pruned_for = pruned;
            }
            if std::mem::take(&mut self.failed) {
                warnings.push("the session histories are saved again".to_owned());
            }
            return Saved {
                warnings,
                retry: false,
            };
        }
        if !std::mem::replace(&mut self.failed, true) {
            warnings.push(format!(
                "{}; the previous history files are kept, codiva retries",
                errors.join("; ")
            ));
        }
        Saved {
            warnings,
            retry: true,
        }
    }
}

/// One record's file to write.
struct Write {
    id: String,
    version: u64,
    path: PathBuf,
    bytes: Vec<u8>,
}

/// The writes of one save, taken by [`Histories::begin_save`].
pub(super) struct PendingSave {
    root: PathBuf,
    writes: Vec<Write>,
    prune: Option<BTreeSet<String>>,
    warnings: Vec<String>,
}

/// What [`PendingSave::run`] did.
pub(super) struct SaveDone {
    /// There was nothing to write nor to prune.
    idle: bool,
    /// The records written, with the version written.
    written: Vec<(String, u64)>,
    errors: Vec<String>,
    /// The sessions whose files were kept, when files were pruned.
    pruned: Option<BTreeSet<String>>,
    warnings: Vec<String>,
}

impl PendingSave {
    /// Writes the records and prunes the files (blocking IO).
    pub(super) fn run(self) -> SaveDone {
        let idle = self.writes.is_empty() && self.prune.is_none();
        let mut written = Vec::new();
        let mut errors = Vec::new();
        for write in self.writes {
            match history_file::save(&write.path, &write.bytes) {
                Ok(()) => written.push((write.id, write.version)),
                Err(err) => errors.push(err.to_string()),
            }
        }
        if let Some(keep) = &self.prune {
            errors.extend(history_file::prune(&self.root, keep));
        }
        SaveDone {
            idle,
            written,
            errors,
            pruned: self.prune,
            warnings: self.warnings,
        }
    }
}

/// A restored session's main log: the agent's transcript when it holds at least as many user
/// messages as codiva's own history, the history (with a note saying it is codiva's summary)
/// otherwise; a warning note when the transcript cannot be read and there is no history.
/// `transcript` is `None` when the agent never named its conversation.
pub(super) fn restored_log(
    transcript: Option<Result<RestoredLog, RecordsError>>,
    history: Option<(usize, Vec<EntryKind>)>,
    subagents: &mut Vec<(String, Vec<EntryKind>)>,
) -> Vec<EntryKind> {
    let note = |level, text| EntryKind::Note {
        level,
        text,
        code: None,
    };
    let users = |log: &RestoredLog| {
        log.main
            .iter()
            .filter(|entry| matches!(entry, EntryKind::User { .. }))
            .count()
    };
    // The history only where it holds more than the transcript.
    let history = history.filter(|(messages, _)| match &transcript {
        Some(Ok(log)) => users(log) < *messages,
        Some(Err(_)) | None => true,
    });
    match (transcript, history) {
        (transcript, Some((messages, entries))) => {
            let why = match transcript {
                Some(Ok(log)) => format!(
                    "the agent's transcript holds {} of the {messages} messages codiva saw",
                    users(&log)
                ),
                Some(Err(err)) => format!("the agent's transcript is not available ({err})"),
                None => "the agent's conversation is not known".to_owned(),
            };
            let mut main = vec![note(
                NoteLevel::Info,
                format!(
                    "{why}; this is codiva's summary of the conversation: the messages, what \
                     the agent said and thought, and one line per tool call"
                ),
            )];
            main.extend(entries);
            main
        }
        (None, None) => Vec::new(),
        (Some(Ok(log)), None) => {
            *subagents = log.subagents;
            log.main
        }
        (Some(Err(err)), None) => vec![note(
            NoteLevel::Warning,
            format!("the log could not be rebuilt: {err}"),
        )],
    }
}
