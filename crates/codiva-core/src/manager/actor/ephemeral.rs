//! An ephemeral manager's one session (`Manager::start_ephemeral`, `codiva exec`): created in
//! place in the manager's directory without asking git anything (the directory need not be a
//! repository), run once — when its turn has settled its agent is stopped through the session
//! task's one stop path (input closed, a short grace, then the process group signalled: ACP
//! agents do not exit when their input closes) — and when its task has ended the manager
//! stops, which closes its event stream. Nothing is written but the wire log (the state file
//! and the histories are not: `persistence.rs`).

use std::collections::BTreeSet;
use std::path::PathBuf;

use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::SessionInfo;

use super::{Actor, refused};
use crate::manager::{CreateOptions, Ephemeral, ManagerError};
use crate::provider::InvalidInput;
use crate::session::SessionCommand;

/// The one session's spec and how far it got.
pub(super) struct OneShot {
    pub(super) spec: Ephemeral,
    /// `session/create` took the one session.
    created: bool,
    /// Its turn settled: its agent is being stopped.
    finishing: bool,
    /// Its task has ended (its agent reaped).
    ended: bool,
}

impl OneShot {
    pub(super) fn new(spec: Ephemeral) -> Self {
        OneShot {
            spec,
            created: false,
            finishing: false,
            ended: false,
        }
    }

    pub(super) fn ended(&self) -> bool {
        self.ended
    }
}

impl Actor {
    /// An ephemeral manager's `session/create`, checked as every session's is
    /// (`lifecycle.rs`): the one session, in place in the manager's directory (`in_place`,
    /// resolved), with no git asked which names are taken.
    pub(super) fn add_ephemeral(
        &mut self,
        options: CreateOptions,
        prompt: String,
        in_place: Option<PathBuf>,
    ) -> Result<SessionInfo, ManagerError> {
        if self.ephemeral.as_ref().is_some_and(|one| one.created) {
            let dir = self.repo.root().display().to_string();
            return Err(refused(
                RefusalCode::InPlaceBusy,
                &[&dir, &self.ephemeral_id()],
                format!("this manager runs one session in {dir}; it was created already"),
            ));
        }
        let Some(dir) = in_place else {
            return Err(InvalidInput::new(
                "in_place",
                "this manager runs one session in place: expected its directory",
            )
            .into());
        };
        let info = self.add_in_place(options, prompt, BTreeSet::new(), dir)?;
        if let Some(one) = self.ephemeral.as_mut() {
            one.created = true;
        }
        Ok(info)
    }

    /// The one session's id, as the caller named it.
    pub(super) fn ephemeral_id(&self) -> String {
        self.ephemeral
            .as_ref()
            .map(|one| one.spec.id.clone())
            .unwrap_or_default()
    }

    /// Session `id`'s status settled: in an ephemeral manager its turn is over, and so is the
    /// session — its agent is stopped (once).
    pub(super) fn one_shot_settled(&mut self, id: &str) {
        let Some(one) = self.ephemeral.as_mut() else {
            return;
        };
        if one.finishing {
            return;
        }
        one.finishing = true;
        if let Some(commands) = self.records.get(id).and_then(|r| r.commands.as_ref()) {
            let _ = commands.send(SessionCommand::Shutdown);
        }
    }

    /// Session `id`'s task ended: an ephemeral manager's work is done.
    pub(super) fn one_shot_ended(&mut self, id: &str) {
        if let Some(one) = self.ephemeral.as_mut()
            && self.records.contains_key(id)
        {
            one.ended = true;
        }
    }
}
