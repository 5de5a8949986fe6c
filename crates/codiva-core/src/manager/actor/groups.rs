//! Groups of attempts in the actor: one instruction started as one session per attempt (agent
//! and model), each on its own worktree and branch, side by side; the group kept with its
//! sessions (in the state file, so it survives a restart) and told to clients
//! (`ManagerEvent::Group`); the figures that compare its attempts (git and the sessions' own
//! usage); the diff between two attempts; and keeping one attempt while the others go through
//! the lossless discard. The sessions themselves are ordinary sessions (`lifecycle.rs`): the
//! agent slots, checks, prompts and every other request treat them as any other.

use std::collections::{BTreeMap, BTreeSet};

use codiva_protocol::error::RefusalCode;
use codiva_protocol::group::{
    Attempt, AttemptDiffParams, AttemptDiscard, AttemptFigures, AttemptSpec, CreateGroupParams,
    GroupChange, GroupCompare, GroupInfo, GroupResult, KeepOutcome, KeepParams, LastAttemptsResult,
    MAX_ATTEMPTS,
};
use codiva_protocol::manager::{DiffText, DiscardOutcome, ManagerEvent, SessionPhase};
use codiva_protocol::methods::request;
use codiva_protocol::params::ConfirmParams;

use super::{Actor, refused, unix_ms};
use crate::git;
use crate::manager::{CreateOptions, ManagerError, Reply};
use crate::provider::InvalidInput;
use crate::slug;

/// The groups of a repository's sessions and the attempts its last group was started with.
#[derive(Debug, Default)]
pub(super) struct Groups {
    pub(super) by_id: BTreeMap<String, GroupInfo>,
    pub(super) last_attempts: Vec<AttemptSpec>,
}

impl Groups {
    /// The groups saved in the state file, each keeping only the attempts whose sessions were
    /// restored (a group with none left is dropped).
    pub(super) fn restored(
        saved: Vec<GroupInfo>,
        last_attempts: Vec<AttemptSpec>,
        listed: &BTreeSet<String>,
    ) -> Groups {
        let by_id = saved
            .into_iter()
            .filter_map(|mut group| {
                group.attempts.retain(|a| listed.contains(&a.session_id));
                if group
                    .kept
                    .as_ref()
                    .is_some_and(|kept| !listed.contains(kept))
                {
                    group.kept = None;
                }
                (!group.attempts.is_empty()).then(|| (group.id.clone(), group))
            })
            .collect();
        Groups {
            by_id,
            last_attempts,
        }
    }

    pub(super) fn list(&self) -> Vec<GroupInfo> {
        self.by_id.values().cloned().collect()
    }
}

/// The text of the keep token: each other attempt's discard token, by session.
fn keep_token(tokens: &[(String, String)]) -> String {
    tokens
        .iter()
        .map(|(id, token)| format!("{id}:{token}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn read_keep_token(token: &str) -> BTreeMap<String, String> {
    token
        .split(',')
        .filter_map(|item| item.split_once(':'))
        .map(|(id, token)| (id.to_owned(), token.to_owned()))
        .collect()
}

impl Actor {
    pub(super) fn group(&self, group_id: &str) -> Result<&GroupInfo, ManagerError> {
        self.groups.by_id.get(group_id).ok_or_else(|| {
            refused(
                RefusalCode::NoSuchGroup,
                &[group_id],
                format!("no group {group_id}"),
            )
        })
    }

    /// `group/create`: checks every attempt first (nothing is created when one cannot run),
    /// then makes one session per attempt under slugs no branch, worktree or session has.
    pub(super) fn create_group(&mut self, p: CreateGroupParams, reply: Reply<GroupResult>) {
        match self.check_group(&p) {
            Ok(()) => {}
            Err(err) => return reply.send(Err(err)),
        }
        self.with_taken_slugs(reply, move |actor, taken| actor.add_group(p, taken));
    }

    fn check_group(&self, p: &CreateGroupParams) -> Result<(), ManagerError> {
        if self.ephemeral.is_some() {
            return Err(InvalidInput::new(
                "attempts",
                "attempts need a repository's manager (each runs in a worktree of its own)",
            )
            .into());
        }
        if p.prompt.trim().is_empty() {
            return Err(refused(
                RefusalCode::EmptyInstruction,
                &[],
                "the instruction is empty".to_owned(),
            ));
        }
        if p.attempts.is_empty() {
            return Err(InvalidInput::new("attempts", "expected at least one attempt").into());
        }
        if p.attempts.len() > MAX_ATTEMPTS {
            let (count, max) = (p.attempts.len().to_string(), MAX_ATTEMPTS.to_string());
            return Err(refused(
                RefusalCode::TooManyAttempts,
                &[&count, &max],
                format!("{count} attempts; a group has at most {max}"),
            ));
        }
        for (index, spec) in p.attempts.iter().enumerate() {
            if spec.agent.trim().is_empty() || spec.model.as_deref().is_some_and(str::is_empty) {
                return Err(InvalidInput::new(
                    format!("attempts[{index}]"),
                    "expected an agent and, optionally, a model",
                )
                .into());
            }
            let provider = self.provider_for(&spec.agent)?;
            if let Some(mode) = p.permission_mode {
                provider.check_permission_mode("permission_mode", mode)?;
            }
            for (image, input) in p.images.iter().enumerate() {
                provider.check_image(
                    &format!("images[{image}]"),
                    &input.media_type,
                    &input.data,
                )?;
            }
        }
        Ok(())
    }

    fn add_group(
        &mut self,
        p: CreateGroupParams,
        mut taken: BTreeSet<String>,
    ) -> Result<GroupResult, ManagerError> {
        taken.extend(self.records.values().map(|record| record.slug.clone()));
        let prompt = p.prompt.trim().to_owned();
        let group_ids: BTreeSet<String> = self.groups.by_id.keys().cloned().collect();
        let id = format!("g-{}", slug::slugify(&prompt, &strip_prefix(&group_ids)));
        let mut group = GroupInfo {
            id: id.clone(),
            instruction: prompt.clone(),
            attempts: Vec::new(),
            created_at: unix_ms(),
            kept: None,
        };
        let mut sessions = Vec::new();
        for spec in &p.attempts {
            let slug = slug::attempt_slug(&prompt, &spec.to_string(), &taken);
            taken.insert(slug.clone());
            let options = CreateOptions {
                prompt: prompt.clone(),
                images: p
                    .images
                    .iter()
                    .map(|image| (image.media_type.clone(), image.data.clone()))
                    .collect(),
                model: spec.model.clone(),
                permission_mode: p.permission_mode,
                agent: Some(spec.agent.clone()),
                approval: p.approval_policy.clone(),
                ..CreateOptions::default()
            };
            match self.add_named_session(options, prompt.clone(), slug, Some(id.clone())) {
                Ok(info) => {
                    group.attempts.push(Attempt {
                        session_id: info.id.clone(),
                        spec: spec.clone(),
                    });
                    sessions.push(info);
                }
                // What the checks before could not foresee: the attempts made so far stay a
                // group (no session is left naming a group nobody knows).
                Err(err) if !group.attempts.is_empty() => {
                    self.groups.by_id.insert(id, group.clone());
                    self.emit(ManagerEvent::Group {
                        change: GroupChange::Created,
                        group,
                    });
                    self.mark_dirty();
                    return Err(err);
                }
                Err(err) => return Err(err),
            }
        }
        self.groups.by_id.insert(id, group.clone());
        self.groups.last_attempts = p.attempts;
        self.emit(ManagerEvent::Group {
            change: GroupChange::Created,
            group: group.clone(),
        });
        self.mark_dirty();
        Ok(GroupResult { group, sessions })
    }

    pub(super) fn last_attempts(&self) -> LastAttemptsResult {
        LastAttemptsResult {
            text: AttemptSpec::format_list(&self.groups.last_attempts),
            attempts: self.groups.last_attempts.clone(),
        }
    }

    /// A session is no longer listed: it leaves its group, and a group with no session left
    /// goes.
    pub(super) fn left_groups(&mut self, id: &str) {
        self.forget_check(id);
        let Some(group_id) = self
            .groups
            .by_id
            .values()
            .find(|group| group.has(id))
            .map(|group| group.id.clone())
        else {
            return;
        };
        let Some(group) = self.groups.by_id.get_mut(&group_id) else {
            return;
        };
        group.attempts.retain(|a| a.session_id != id);
        if group.kept.as_deref() == Some(id) {
            group.kept = None;
        }
        if group.attempts.is_empty() {
            self.groups.by_id.remove(&group_id);
            self.emit(ManagerEvent::GroupRemoved { id: group_id });
        } else {
            let group = group.clone();
            self.emit(ManagerEvent::Group {
                change: GroupChange::Changed,
                group,
            });
        }
        self.mark_dirty();
    }

    /// `group/compare`: each attempt's row, its work against its base (git, read off the
    /// actor), its tokens and its active time.
    pub(super) fn compare_group(&mut self, group_id: &str, reply: Reply<GroupCompare>) {
        let group = match self.group(group_id) {
            Ok(group) => group.clone(),
            Err(err) => return reply.send(Err(err)),
        };
        let mut rows = Vec::new();
        for attempt in &group.attempts {
            let Some(record) = self.records.get(&attempt.session_id) else {
                continue;
            };
            let place = record
                .has_worktree()
                .then(|| (record.worktree.clone(), record.base.clone()));
            rows.push((record.info(), attempt.spec.clone(), record.tokens, place));
        }
        let repo = self.repo.clone();
        self.job(
            None,
            async move {
                let mut attempts = Vec::new();
                for (session, spec, tokens, place) in rows {
                    let (work, git_error) = match place {
                        Some((worktree, base)) => match repo.work_figures(&worktree, &base).await {
                            Ok(work) => (Some(work), None),
                            Err(err) => (None, Some(err.to_string())),
                        },
                        None => (None, None),
                    };
                    attempts.push(AttemptFigures {
                        duration_ms: session.active_ms,
                        session,
                        spec,
                        work,
                        git_error,
                        tokens,
                    });
                }
                GroupCompare { group, attempts }
            },
            move |_, compare| reply.send(Ok(compare)),
        );
    }

    /// `group/diff`: an attempt against its base, or against another session's worktree.
    pub(super) fn attempt_diff(&mut self, p: AttemptDiffParams, reply: Reply<DiffText>) {
        if let Some(path) = &p.path
            && let Err(err) = git::check_relative_path(path)
        {
            return reply.send(Err(InvalidInput::new("path", err).into()));
        }
        let (worktree, base) = match self.worktree_and_base(&p.session_id) {
            Ok(found) => found,
            Err(err) => return reply.send(Err(err)),
        };
        let other = match &p.other {
            Some(other) => match self.worktree_and_base(other) {
                Ok(found) => Some(found),
                Err(err) => return reply.send(Err(err)),
            },
            None => None,
        };
        let repo = self.repo.clone();
        let path = p.path;
        self.job(
            Some(&p.session_id),
            async move {
                match other {
                    None => repo.diff_text_of(&worktree, &base, path.as_deref()).await,
                    Some((other, other_base)) => {
                        repo.diff_between(
                            (&other, &other_base),
                            (&worktree, &base),
                            path.as_deref(),
                        )
                        .await
                    }
                }
            },
            move |_, result| reply.send(result.map_err(ManagerError::from)),
        );
    }

    /// `group/keep`: the preview (every other attempt's discard preview, one token for all),
    /// or with the token: the others discarded, the kept one titled with the instruction.
    pub(super) fn keep(&mut self, p: KeepParams, reply: Reply<KeepOutcome>) {
        let group = match self.group(&p.group_id) {
            Ok(group) => group.clone(),
            Err(err) => return reply.send(Err(err)),
        };
        if !group.has(&p.session_id) {
            return reply.send(Err(refused(
                RefusalCode::NotInGroup,
                &[&p.session_id, &group.id],
                format!("session {} is not an attempt of {}", p.session_id, group.id),
            )));
        }
        if let Some(kept) = &group.kept {
            return reply.send(Err(refused(
                RefusalCode::AlreadyKept,
                &[kept],
                format!("{} kept {kept} already", group.id),
            )));
        }
        // The attempts still to discard: those not discarded, merged or removed already.
        let others: Vec<String> = group
            .attempts
            .iter()
            .map(|a| a.session_id.clone())
            .filter(|id| *id != p.session_id)
            .filter(|id| {
                self.records.get(id).is_some_and(|record| {
                    !matches!(
                        record.phase,
                        SessionPhase::Discarded | SessionPhase::Merged { .. }
                    )
                })
            })
            .collect();
        let given = p.confirm_token.as_deref().map(read_keep_token);
        if let Some(given) = &given
            && given.keys().collect::<BTreeSet<_>>() != others.iter().collect::<BTreeSet<_>>()
        {
            // Another attempt was discarded, restored or removed since the preview.
            return reply.send(Err(refused(
                RefusalCode::ChangedSincePreview,
                &[&group.id],
                format!(
                    "{}'s attempts changed since the preview; nothing was discarded",
                    group.id
                ),
            )));
        }
        let mut answers = Vec::new();
        for id in &others {
            let (discard, answer) = Reply::channel();
            let token = given.as_ref().and_then(|given| given.get(id).cloned());
            self.dispatch_typed::<request::SessionDiscard>(
                ConfirmParams {
                    session_id: id.clone(),
                    confirm_token: token,
                },
                discard,
            );
            answers.push((id.clone(), answer));
        }
        let confirmed = given.is_some();
        self.job(
            None,
            async move {
                let mut outcomes = Vec::new();
                for (id, answer) in answers {
                    let outcome = answer.await.unwrap_or(Err(ManagerError::Stopped));
                    outcomes.push((id, outcome));
                }
                outcomes
            },
            move |actor, outcomes| {
                let result = if confirmed {
                    actor.kept(&group.id, &p.session_id, outcomes)
                } else {
                    keep_preview(outcomes)
                };
                reply.send(result);
            },
        );
    }

    /// The discards were confirmed: the first refusal is the answer (the attempts discarded
    /// before it stay discarded, restorable); else the attempt is kept.
    fn kept(
        &mut self,
        group_id: &str,
        id: &str,
        outcomes: Vec<(String, Result<DiscardOutcome, ManagerError>)>,
    ) -> Result<KeepOutcome, ManagerError> {
        let mut discarded = Vec::new();
        for (_, outcome) in outcomes {
            match outcome? {
                DiscardOutcome::Discarded { session } => discarded.push(*session),
                DiscardOutcome::NeedsConfirmation { .. } | DiscardOutcome::Removed { .. } => {}
            }
        }
        let instruction = self.group(group_id)?.instruction.clone();
        let session = self.rename(id, &instruction)?;
        let group = {
            let group = self
                .groups
                .by_id
                .get_mut(group_id)
                .ok_or_else(|| ManagerError::NoSuchSession(id.to_owned()))?;
            group.kept = Some(id.to_owned());
            group.clone()
        };
        self.emit(ManagerEvent::Group {
            change: GroupChange::Kept,
            group: group.clone(),
        });
        self.mark_dirty();
        Ok(KeepOutcome::Kept {
            group,
            session: Box::new(session),
            discarded,
        })
    }
}

/// The previews of the other attempts, as one confirmation.
fn keep_preview(
    outcomes: Vec<(String, Result<DiscardOutcome, ManagerError>)>,
) -> Result<KeepOutcome, ManagerError> {
    let mut discard = Vec::new();
    let mut tokens = Vec::new();
    for (id, outcome) in outcomes {
        if let DiscardOutcome::NeedsConfirmation {
            preview,
            confirm_token,
        } = outcome?
        {
            tokens.push((id.clone(), confirm_token));
            discard.push(AttemptDiscard {
                session_id: id,
                preview,
            });
        }
    }
    Ok(KeepOutcome::NeedsConfirmation {
        discard,
        confirm_token: keep_token(&tokens),
    })
}

/// Group ids without their `g-`, for [`slug::slugify`] to avoid.
fn strip_prefix(ids: &BTreeSet<String>) -> BTreeSet<String> {
    ids.iter()
        .filter_map(|id| id.strip_prefix("g-"))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keep_token_names_each_attempts_token() {
        let tokens = vec![
            ("fix-claude".to_owned(), "abc123".to_owned()),
            ("fix-codex".to_owned(), "def456".to_owned()),
        ];
        let token = keep_token(&tokens);
        let read = read_keep_token(&token);
        assert_eq!(read.len(), 2);
        assert_eq!(read["fix-claude"], "abc123");
        assert_eq!(read["fix-codex"], "def456");
        assert!(read_keep_token("").is_empty());
    }

    #[test]
    fn a_restored_group_keeps_only_listed_attempts() {
        let group = |id: &str, sessions: &[&str]| GroupInfo {
            id: id.into(),
            instruction: "do it".into(),
            attempts: sessions
                .iter()
                .map(|s| Attempt {
                    session_id: (*s).into(),
                    spec: AttemptSpec::new("claude", None),
                })
                .collect(),
            created_at: 0,
            kept: Some(sessions[0].into()),
        };
        let listed: BTreeSet<String> = ["b".to_owned()].into_iter().collect();
        let groups = Groups::restored(
            vec![group("g-1", &["a", "b"]), group("g-2", &["c"])],
            vec![AttemptSpec::new("codex", None)],
            &listed,
        );
        let list = groups.list();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].attempts.len(), 1);
        assert_eq!(list[0].attempts[0].session_id, "b");
        assert_eq!(list[0].kept, None);
        assert_eq!(groups.last_attempts.len(), 1);
    }
}
