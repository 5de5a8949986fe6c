//! Sessions at start: the saved ones (pruned when their worktree is gone) and codiva worktrees
//! the state file does not list, adopted back with their conversation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::record::Record;
use super::{title_of, unix_ms};
use crate::git::{self, GitError, Repo};
use crate::persist::{PersistedSession, SavedStatus};
use crate::provider::Provider;

/// The records of the saved sessions whose worktree still exists (a discarded one has none).
/// A session saved before sessions named their agent ran the default one (`default_agent`).
pub(super) fn saved_records(
    sessions: Vec<PersistedSession>,
    default_agent: &str,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, Record> {
    let mut records = BTreeMap::new();
    for mut saved in sessions {
        if saved.agent.is_empty() {
            saved.agent = default_agent.to_owned();
        }
        let discarded = saved.status == SavedStatus::Discarded;
        if !discarded && !saved.worktree.is_dir() {
            warnings.push(format!(
                "session {}: its worktree {} is gone; it was removed from the list",
                saved.id,
                saved.worktree.display()
            ));
            // Its MCP config file goes with it.
            if let Some(path) = &saved.mcp_config {
                let _ = std::fs::remove_file(path);
            }
            continue;
        }
        records.insert(saved.id.clone(), Record::restored(saved));
    }
    records
}

/// Sessions whose worktree exists but which the state file does not list (a corrupt or lost
/// state file, a crash before the first save) are taken back: no session is lost. The agent
/// conversation is the one the agent recorded last for that worktree (the provider knows where).
pub(super) fn adopt_orphan_worktrees(
    repo: &Repo,
    worktrees: Result<Vec<PathBuf>, GitError>,
    provider: &dyn Provider,
    base: &str,
    records: &mut BTreeMap<String, Record>,
    warnings: &mut Vec<String>,
) {
    let Ok(worktrees) = worktrees else {
        return;
    };
    let dir = repo.worktrees_dir();
    let known: BTreeSet<PathBuf> = records.values().map(|r| r.worktree.clone()).collect();
    for path in worktrees {
        let Some(slug) = path
            .strip_prefix(&dir)
            .ok()
            .and_then(|rest| rest.to_str())
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_owned)
        else {
            continue;
        };
        if known.contains(&path) || records.contains_key(&slug) || !path.is_dir() {
            continue;
        }
        let agent_session_id = provider.latest_conversation(&path);
        let prompt = agent_session_id
            .as_deref()
            .and_then(|id| provider.conversation(&path, id)?.ok())
            .and_then(|log| {
                log.main.into_iter().find_map(|entry| match entry {
                    codiva_protocol::log::EntryKind::User { text } => Some(text),
                    _ => None,
                })
            })
            .unwrap_or_else(|| slug.clone());
        warnings.push(format!(
            "session {slug} was not in the state file; it was recovered from its worktree"
        ));
        records.insert(
            slug.clone(),
            Record::restored(PersistedSession {
                id: slug.clone(),
                title: title_of(&prompt),
                title_origin: crate::title::TitleOrigin::Prompt,
                prompt,
                branch: git::branch_name(&slug),
                slug,
                worktree: path,
                base: base.to_owned(),
                agent: provider.id().to_owned(),
                agent_session_id,
                status: SavedStatus::Interrupted,
                created_at: unix_ms(),
                ..PersistedSession::default()
            }),
        );
    }
}
