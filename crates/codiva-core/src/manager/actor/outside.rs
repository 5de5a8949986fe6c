//! `history/list`, `history/read` and `history/adopt`: the agents' own conversations for the
//! repository that codiva does not manage (begun in a plain terminal in its root or one of its
//! worktrees), listed and read from the agents' records (`crate::outside`, off the actor's
//! thread), and one taken on as a session. An adopted conversation becomes a session as a
//! restored one is: its record names the agent's conversation id, its log is rebuilt from the
//! agent's records when first read, and its next message resumes that conversation — in the
//! directory it ran in (a session in place), or in a new worktree on a new branch, to which
//! the agent's records are carried first (`Provider::carry_conversation`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use codiva_protocol::log::EntryKind;
use codiva_protocol::manager::SessionInfo;
use codiva_protocol::outside::{
    AdoptPlace, HistoryAdoptParams, HistoryListParams, HistoryListResult, HistoryReadResult,
    OutsideConversation, OutsideConversationRef,
};

use super::record::Record;
use super::{Actor, unix_ms};
use crate::git::{self, Repo};
use crate::manager::{ManagerError, Reply};
use crate::outside::{self, READ_WINDOW};
use crate::persist::{PersistedSession, SavedStatus};
use crate::provider::{InvalidInput, Provider, RecordsError};

/// A conversation being adopted: the directory it ran in, what its listing says and how its
/// record ends, and the new worktree made for it (with a warning when its setup failed), if
/// one was asked for.
type Adopting = (
    PathBuf,
    (OutsideConversation, SavedStatus),
    Option<(git::Worktree, Option<String>)>,
);

/// How much of a record's end is read for how its last turn ended.
const ENDING_WINDOW: u64 = 1024 * 1024;

impl Actor {
    /// The agents' conversation ids codiva's sessions hold (current and earlier agents').
    fn managed_conversations(&self) -> BTreeSet<String> {
        self.records
            .values()
            .flat_map(|record| {
                record
                    .agent_session_id
                    .iter()
                    .chain(record.agent_sessions.values())
                    .cloned()
            })
            .collect()
    }

    pub(super) fn history_list(
        &mut self,
        params: HistoryListParams,
        reply: Reply<HistoryListResult>,
    ) {
        let repo = self.repo.clone();
        let providers = self.options.providers.clone();
        let managed = self.managed_conversations();
        let env = self.options.env.clone();
        self.job(
            None,
            async move {
                let dirs = repository_dirs(&repo).await;
                tokio::task::spawn_blocking(move || {
                    outside::list(&providers, &dirs, &env, &managed, params.query.as_deref())
                })
                .await
                .map_err(|err| ManagerError::Internal(format!("listing conversations: {err}")))
            },
            move |_, result| reply.send(result),
        );
    }

    pub(super) fn history_read(
        &mut self,
        conversation: OutsideConversationRef,
        reply: Reply<HistoryReadResult>,
    ) {
        let provider = match self.outside_provider(&conversation.agent, &conversation.id) {
            Ok(provider) => provider,
            Err(err) => return reply.send(Err(err)),
        };
        let repo = self.repo.clone();
        let env = self.options.env.clone();
        self.job(
            None,
            async move {
                let cwd = repository_dir(&repo, &conversation.cwd).await?;
                let id = conversation.id.clone();
                let read = tokio::task::spawn_blocking(move || {
                    provider.read_outside(&cwd, &id, READ_WINDOW, &env)
                })
                .await
                .map_err(|err| ManagerError::Internal(format!("reading a conversation: {err}")))?;
                let log = match read {
                    Some(Ok(log)) => log,
                    Some(Err(err)) => return Err(no_conversation(&conversation.id, &err)),
                    None => {
                        return Err(InvalidInput::new(
                            "agent",
                            format!("{} keeps no records codiva reads", conversation.agent),
                        )
                        .into());
                    }
                };
                Ok(HistoryReadResult {
                    entries: log
                        .entries
                        .into_iter()
                        .enumerate()
                        .map(|(index, kind)| codiva_protocol::log::LogEntry {
                            id: index as u64 + 1,
                            at_ms: 0,
                            kind,
                        })
                        .collect(),
                    skipped_bytes: log.skipped_bytes,
                    dropped_entries: log.dropped_entries,
                })
            },
            move |_, result| reply.send(result),
        );
    }

    pub(super) fn history_adopt(&mut self, params: HistoryAdoptParams, reply: Reply<SessionInfo>) {
        let provider = match self.outside_provider(&params.agent, &params.id) {
            Ok(provider) => provider,
            Err(err) => return reply.send(Err(err)),
        };
        if params.place == AdoptPlace::Unknown {
            return reply.send(Err(InvalidInput::new(
                "place",
                "expected in_place or worktree",
            )
            .into()));
        }
        if let Some(record) = self.records.values().find(|record| {
            record.agent_session_id.as_deref() == Some(params.id.as_str())
                || record.agent_sessions.values().any(|id| *id == params.id)
        }) {
            return reply.send(Err(InvalidInput::new(
                "id",
                format!("session {} already continues this conversation", record.id),
            )
            .into()));
        }
        let repo = self.repo.clone();
        let taken: BTreeSet<String> = self.records.values().map(|r| r.slug.clone()).collect();
        let base = self.base.clone();
        let worktree_options = self.worktree_options();
        let git_lock = self.git_lock.clone();
        let agent = params.agent.clone();
        let env = self.options.env.clone();
        self.job(
            None,
            async move {
                let cwd = repository_dir(&repo, &params.cwd).await?;
                let found = find(provider.clone(), cwd.clone(), params.id.clone(), env).await?;
                if params.place != AdoptPlace::Worktree {
                    return Ok((cwd, found, None));
                }
                let mut taken = taken;
                taken.extend(repo.taken_slugs().await.map_err(ManagerError::from)?);
                let slug = crate::slug::slugify(&prompt_of(&found.0), &taken);
                // The record is carried first, where the worktree will be: nothing is made when
                // it cannot be.
                let carry = |to: PathBuf| {
                    let (provider, id, from) = (provider.clone(), found.0.id.clone(), cwd.clone());
                    async move {
                        tokio::task::spawn_blocking(move || {
                            provider.carry_conversation(&id, &from, &to)
                        })
                        .await
                        .map_err(|err| {
                            ManagerError::Internal(format!("carrying a conversation: {err}"))
                        })?
                        .map_err(|err| {
                            ManagerError::Internal(format!("carrying the conversation: {err}"))
                        })
                    }
                };
                let planned = repo.worktree_path(&slug);
                carry(planned.clone()).await?;
                let worktree = {
                    let _guard = git_lock.lock().await;
                    repo.create_worktree(&slug, &base, &worktree_options)
                        .await
                        .map_err(ManagerError::from)?
                };
                // The agent finds it by the directory as the OS resolves it (symlinks too).
                let real = worktree
                    .path
                    .canonicalize()
                    .unwrap_or_else(|_| worktree.path.clone());
                if real != planned {
                    carry(real).await?;
                }
                let setup = repo.run_setup(&worktree.path).await;
                let warning = setup.filter(|setup| !setup.success).map(|setup| {
                    format!(
                        ".codiva/setup failed in {}: {}",
                        worktree.path.display(),
                        setup.output.trim()
                    )
                });
                Ok((cwd, found, Some((worktree, warning))))
            },
            move |actor, result: Result<Adopting, ManagerError>| {
                reply.send(result.and_then(|adopting| actor.adopted(&agent, adopting)));
            },
        );
    }

    /// The session of an adopted conversation: in place in `cwd`, or in its new worktree.
    fn adopted(
        &mut self,
        agent: &str,
        (cwd, (found, ended), worktree): Adopting,
    ) -> Result<SessionInfo, ManagerError> {
        let (dir, branch, in_place) = match worktree {
            Some((worktree, warning)) => {
                if let Some(message) = warning {
                    self.emit(codiva_protocol::manager::ManagerEvent::Warning { message });
                }
                (worktree.path, worktree.branch, false)
            }
            None => (self.in_place_dir(&cwd)?, String::new(), true),
        };
        let prompt = prompt_of(&found);
        let taken: BTreeSet<String> = self.records.values().map(|r| r.slug.clone()).collect();
        let slug = match (in_place, dir.file_name().and_then(|name| name.to_str())) {
            // A worktree's directory is its slug (`<root>/.codiva/worktrees/<slug>`).
            (false, Some(name)) => name.to_owned(),
            _ => crate::slug::slugify(&prompt, &taken),
        };
        let record = Record::restored(PersistedSession {
            id: slug.clone(),
            title: codiva_protocol::text::default_title(&prompt),
            title_origin: crate::title::TitleOrigin::Prompt,
            prompt,
            slug: slug.clone(),
            branch,
            worktree: dir,
            base: self.base.clone(),
            agent: agent.to_owned(),
            agent_session_id: Some(found.id),
            // Its last turn as the record ends: completed, or stopped in its course.
            status: ended,
            created_at: unix_ms(),
            in_place,
            ..PersistedSession::default()
        });
        let info = record.info();
        self.records.insert(slug.clone(), record);
        self.emit_info(&slug);
        Ok(info)
    }

    /// The installed agent `agent`, for conversation `id` (a name its records may have).
    fn outside_provider(&self, agent: &str, id: &str) -> Result<Arc<dyn Provider>, ManagerError> {
        if !outside::valid_id(id) {
            return Err(InvalidInput::new("id", "expected an agent's conversation id").into());
        }
        self.provider_for(agent)
    }
}

/// The directories whose conversations are listed: the repository's root and every worktree
/// git knows (the root alone when git cannot list them).
async fn repository_dirs(repo: &Repo) -> Vec<PathBuf> {
    let mut dirs = vec![repo.root().to_path_buf()];
    if let Ok(worktrees) = repo.registered_worktrees().await {
        for worktree in worktrees {
            if !dirs.iter().any(|dir| same_dir(dir, &worktree)) {
                dirs.push(worktree);
            }
        }
    }
    dirs
}

/// `cwd` when it is one of [`repository_dirs`]; refused otherwise.
async fn repository_dir(repo: &Repo, cwd: &str) -> Result<PathBuf, ManagerError> {
    let path = Path::new(cwd);
    if !path.is_absolute() {
        return Err(InvalidInput::new("cwd", "expected an absolute path").into());
    }
    repository_dirs(repo)
        .await
        .into_iter()
        .find(|dir| same_dir(dir, path))
        .ok_or_else(|| {
            InvalidInput::new(
                "cwd",
                format!("{cwd} is neither the repository nor one of its worktrees"),
            )
            .into()
        })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (a.canonicalize(), b.canonicalize()),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Conversation `id` run in `cwd` as the agent's outside reading rebuilds it (its record's end),
/// as a restored session's log: for an adopted conversation of an agent that rebuilds no log
/// of its own (Codex). `None` when the agent keeps no records it reads.
pub(super) fn outside_log(
    provider: &dyn Provider,
    cwd: &Path,
    id: &str,
    env: crate::process::EnvPolicy,
) -> Option<Result<crate::provider::ConversationLog, RecordsError>> {
    let read = provider.read_outside(cwd, id, READ_WINDOW, &env)?;
    Some(read.map(|log| crate::provider::ConversationLog {
        main: log.entries,
        subagents: Vec::new(),
        todos: None,
    }))
}

/// Conversation `id` as the agent lists it for `cwd`, and how its record ends (refused when it
/// recorded none there).
async fn find(
    provider: Arc<dyn Provider>,
    cwd: PathBuf,
    id: String,
    env: crate::process::EnvPolicy,
) -> Result<(OutsideConversation, SavedStatus), ManagerError> {
    let wanted = id.clone();
    let listed = tokio::task::spawn_blocking(move || {
        let dirs = std::slice::from_ref(&cwd);
        // The agent's records, else its own listing (an ACP agent's `session/list`).
        let found = provider
            .outside_conversations(dirs, &env)
            .or_else(|| {
                provider
                    .listed_conversations(dirs, &env, outside::LIST_LIMIT)
                    .and_then(Result::ok)
            })
            .unwrap_or_default()
            .into_iter()
            .find(|conversation| conversation.id == wanted)?;
        let end = provider.read_outside(&cwd, &wanted, ENDING_WINDOW, &env);
        Some((found, ending(end.and_then(Result::ok).as_ref())))
    })
    .await
    .map_err(|err| ManagerError::Internal(format!("listing conversations: {err}")))?;
    listed.ok_or_else(|| {
        InvalidInput::new("id", format!("no conversation {id} is recorded there")).into()
    })
}

/// How a record's last turn ended: completed when the agent had the last word (a reply after
/// everything else), interrupted when it stopped in the turn's course (the user's message
/// unanswered, a tool call or thinking last) or the record cannot tell.
fn ending(log: Option<&crate::outside::OutsideLog>) -> SavedStatus {
    let last = log.and_then(|log| {
        log.entries
            .iter()
            .rev()
            .find(|entry| !matches!(entry, EntryKind::Note { .. }))
    });
    match last {
        Some(EntryKind::Assistant { .. }) => SavedStatus::Completed,
        _ => SavedStatus::Interrupted,
    }
}

/// The text a session's title and slug come from: the first instruction, else the id.
fn prompt_of(conversation: &OutsideConversation) -> String {
    conversation
        .first_instruction
        .clone()
        .unwrap_or_else(|| conversation.id.clone())
}

fn no_conversation(id: &str, error: &RecordsError) -> ManagerError {
    InvalidInput::new("id", format!("conversation {id} cannot be read: {error}")).into()
}
