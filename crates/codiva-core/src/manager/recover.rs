//! `/recover`, `session/recover`: every stuck session — its own pull request open and red
//! (failed checks) or conflicting with its base — repaired one by one: a conflicting one is
//! synced (the base merged in, the agent asked to resolve a conflict, pushed), a red one gets
//! fix-ci. A dry run only names them (a front end's y/n shows the counts). The answer says,
//! per session, whether its repair was done and why not; nothing is counted as a success that
//! was refused or failed.

use codiva_protocol::github::{PrChecks, PrMergeable, PrState};
use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::params::{RecoverItem, RecoverKind, RecoverResult};

use super::{Manager, ManagerError};

/// The most automatic repairs (`auto_recover`) per session and kind.
pub const MAX_AUTO_RECOVER: u32 = 2;

/// What a session needs to get unstuck, if it is stuck: it has its worktree and its own pull
/// request is open and conflicting (sync first: checks on a conflicting head are moot) or red.
pub fn stuck_kind(session: &SessionInfo) -> Option<RecoverKind> {
    stuck_of(&session.phase, &session.prs)
}

/// [`stuck_kind`] of a session's phase and pull requests.
pub(crate) fn stuck_of(
    phase: &SessionPhase,
    prs: &codiva_protocol::github::SessionPrs,
) -> Option<RecoverKind> {
    if !matches!(phase, SessionPhase::Active | SessionPhase::Conflict { .. }) {
        return None;
    }
    let view = prs.own()?.view.as_ref()?;
    if view.state != PrState::Open {
        return None;
    }
    if view.mergeable == PrMergeable::Conflicting {
        Some(RecoverKind::Sync)
    } else if view.checks == PrChecks::Failed {
        Some(RecoverKind::FixCi)
    } else {
        None
    }
}

impl Manager {
    /// The stuck sessions (by [`stuck_kind`], in list order) and, unless `dry_run`, each one's
    /// repair, one after the other.
    pub async fn recover(&self, dry_run: bool) -> Result<RecoverResult, ManagerError> {
        let stuck: Vec<(String, RecoverKind)> = self
            .list()
            .await?
            .iter()
            .filter_map(|s| stuck_kind(s).map(|kind| (s.id.clone(), kind)))
            .collect();
        let mut result = RecoverResult::default();
        for (id, kind) in stuck {
            let (ok, message) = if dry_run {
                (None, String::new())
            } else {
                let done = match kind {
                    RecoverKind::FixCi => self.fix_ci(&id).await.map(|r| r.message),
                    RecoverKind::Sync => self.sync(&id).await,
                };
                match done {
                    Ok(message) => {
                        result.succeeded += 1;
                        (Some(true), message)
                    }
                    Err(err) => {
                        result.failed += 1;
                        (Some(false), err.to_string())
                    }
                }
            };
            result.items.push(RecoverItem {
                session_id: id,
                kind,
                ok,
                message,
            });
        }
        Ok(result)
    }
}
