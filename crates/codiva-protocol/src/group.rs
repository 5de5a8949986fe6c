//! Attempts: one instruction given to several agents (or models) at once, each in a session of
//! its own, kept together as a group so they can be measured side by side and one of them kept.
//! Also the check a repository names (a command run in a session's worktree when its turn
//! completes, for every session), whose result the session's row carries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::agent::TokenUsage;
use crate::manager::{DiscardPreview, FileStat, SessionInfo};
use crate::vocabulary::closed_vocabulary;

/// The most attempts one group may have.
pub const MAX_ATTEMPTS: usize = 10;

/// One attempt to start: an agent (an id of `agents/list`) and, optionally, the model it runs.
/// Written `agent` or `agent:model` (`claude`, `codex`, `claude:opus`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttemptSpec {
    pub agent: String,
    /// The model as the user named it (passed to the agent as `session/create`'s `model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Why a list of attempts could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptsParseError {
    /// No attempt at all.
    Empty,
    /// More than [`MAX_ATTEMPTS`].
    TooMany(usize),
    /// An item with no agent (`:opus`, `claude:` or an empty item between commas), as written.
    Malformed(String),
}

impl std::fmt::Display for AttemptsParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttemptsParseError::Empty => f.write_str("no attempt named"),
            AttemptsParseError::TooMany(n) => {
                write!(f, "{n} attempts; at most {MAX_ATTEMPTS}")
            }
            AttemptsParseError::Malformed(item) => {
                write!(f, "{item:?} is not `agent` or `agent:model`")
            }
        }
    }
}

impl std::error::Error for AttemptsParseError {}

impl AttemptSpec {
    pub fn new(agent: impl Into<String>, model: Option<String>) -> Self {
        AttemptSpec {
            agent: agent.into(),
            model,
        }
    }

    /// Reads `claude, codex, claude:opus` (commas or whitespace between items; an agent may
    /// be named more than once).
    pub fn parse_list(text: &str) -> Result<Vec<AttemptSpec>, AttemptsParseError> {
        let mut specs = Vec::new();
        for item in text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|item| !item.is_empty())
        {
            let (agent, model) = match item.split_once(':') {
                Some((agent, model)) => (agent, Some(model)),
                None => (item, None),
            };
            if agent.is_empty() || model.is_some_and(str::is_empty) {
                return Err(AttemptsParseError::Malformed(item.to_owned()));
            }
            specs.push(AttemptSpec::new(agent, model.map(str::to_owned)));
        }
        if specs.is_empty() {
            return Err(AttemptsParseError::Empty);
        }
        if specs.len() > MAX_ATTEMPTS {
            return Err(AttemptsParseError::TooMany(specs.len()));
        }
        Ok(specs)
    }

    /// The list as [`AttemptSpec::parse_list`] reads it: `claude, codex, claude:opus`.
    pub fn format_list(specs: &[AttemptSpec]) -> String {
        specs
            .iter()
            .map(AttemptSpec::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for AttemptSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.model {
            Some(model) => write!(f, "{}:{model}", self.agent),
            None => f.write_str(&self.agent),
        }
    }
}

/// One attempt of a group: its session and what it was started with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attempt {
    pub session_id: String,
    #[serde(flatten)]
    pub spec: AttemptSpec,
}

/// A group of attempts as clients see it (`manager/snapshot`'s `groups`, `group/updated`). How
/// many run, wait or are done, and the elapsed time, follow from the attempts' session rows
/// (each carries `group`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupInfo {
    pub id: String,
    /// The instruction every attempt was given (what the user typed, trimmed).
    pub instruction: String,
    /// In the order they were named.
    pub attempts: Vec<Attempt>,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
    /// The attempt kept (`group/keep`); the others were discarded then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

impl GroupInfo {
    /// Whether `session_id` is one of its attempts.
    pub fn has(&self, session_id: &str) -> bool {
        self.attempts.iter().any(|a| a.session_id == session_id)
    }
}

closed_vocabulary! {
    /// What happened to a group (`group/updated`'s `change`).
    pub enum GroupChange {
        /// It was just created (its sessions come as `session/updated`).
        Created = "created",
        /// Its attempts changed (one was removed).
        Changed = "changed",
        /// One attempt was kept (`kept`) and the others discarded.
        Kept = "kept",
    }
}

closed_vocabulary! {
    /// Where a session's check stands.
    pub enum CheckState {
        /// The command runs now.
        Running = "running",
        /// It exited 0.
        Passed = "passed",
        /// It exited with another status or was killed by a signal.
        Failed = "failed",
        /// It outran the time limit (`check_timeout`) and was killed.
        TimedOut = "timed_out",
        /// It could not be run (see `detail`), or it was stopped with its session.
        Error = "error",
    }
}

impl CheckState {
    /// Whether the check has ended (with any outcome).
    pub fn is_settled(self) -> bool {
        !matches!(self, CheckState::Running)
    }
}

/// A session's latest check: the repository's `check` command run in its worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckRun {
    pub state: CheckState,
    /// The command as configured (run by `sh -c` in the worktree).
    pub command: String,
    /// Milliseconds since the Unix epoch.
    pub started_at: u64,
    /// How long it ran; `None` while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Its exit status, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Why it could not run or was stopped (state `error`), in English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Why it ran: a completed turn, or a request.
    pub trigger: CheckTrigger,
}

closed_vocabulary! {
    /// Why a check ran.
    pub enum CheckTrigger {
        /// The session's turn completed.
        TurnCompleted = "turn_completed",
        /// A client asked (`session/runCheck`).
        Requested = "requested",
    }
}

// -- params and results ----------------------------------------------------------------------

/// Params of `group/create`: one instruction, one session per attempt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreateGroupParams {
    pub prompt: String,
    /// At least one, at most [`MAX_ATTEMPTS`]; an agent may appear more than once.
    pub attempts: Vec<AttemptSpec>,
    #[serde(default)]
    pub images: Vec<crate::input::ImageInput>,
    /// For every attempt whose agent takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<crate::tool::PermissionMode>,
    /// Every attempt's approval policy (none: the server's default for new sessions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<crate::approval::ApprovalPolicy>,
}

/// The answer to `group/create`: the group and its sessions (each `preparing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupResult {
    pub group: GroupInfo,
    pub sessions: Vec<SessionInfo>,
}

/// Params naming one group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupParams {
    pub group_id: String,
}

/// The answer to `group/lastAttempts`: the attempts the repository's last group was started
/// with (empty before the first), to prefill a form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LastAttemptsResult {
    pub attempts: Vec<AttemptSpec>,
    /// The same as text (`claude, codex, claude:opus`), as [`AttemptSpec::parse_list`] reads it.
    pub text: String,
}

/// The answer to `group/compare`: one row of figures per attempt, in the group's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupCompare {
    pub group: GroupInfo,
    pub attempts: Vec<AttemptFigures>,
}

/// One attempt measured: the session's row (agent, model, status, phase, check, cost,
/// `active_ms`) and what git and the agent's own usage say of it. Nothing is estimated: a
/// figure nobody reported is `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttemptFigures {
    pub session: SessionInfo,
    /// What was asked for (the group's `attempts`): the row's `model` is what the agent
    /// reported.
    pub spec: AttemptSpec,
    /// Its work against the base: `None` when it has no worktree to read (discarded, merged,
    /// still preparing) or git failed (`git_error` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<WorkFigures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_error: Option<String>,
    /// Tokens the agent reported for the session (summed over its messages); `None` when the
    /// agent reported none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenUsage>,
    /// Time spent preparing or running, in milliseconds (the row's `active_ms`).
    pub duration_ms: u64,
}

/// An attempt's work against its base, committed or not: the worktree as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WorkFigures {
    /// Every file that differs from the merge base (committed, uncommitted and untracked).
    pub files: Vec<FileStat>,
    /// Sum of `files[].added`.
    pub insertions: u64,
    /// Sum of `files[].deleted`.
    pub deletions: u64,
    /// Commits on its branch that the base lacks.
    pub commits: u64,
    /// Files changed but not committed (untracked included).
    pub uncommitted: u64,
}

/// Params of `group/diff`: one attempt against its base, or against another attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttemptDiffParams {
    /// The attempt (any session with a worktree).
    pub session_id: String,
    /// Another session: the diff from it to `session_id` (`a/` is `other`'s worktree, `b/` is
    /// `session_id`'s). None: `session_id` against its base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    /// Only this file (a path in the repository). None: every file either changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// Params of `group/keep`: keep one attempt and discard the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KeepParams {
    pub group_id: String,
    /// The attempt to keep.
    pub session_id: String,
    /// Absent: preview only. The token of a preview: confirm exactly it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_token: Option<String>,
}

/// What discarding one other attempt would remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttemptDiscard {
    pub session_id: String,
    pub preview: DiscardPreview,
}

/// The answer to `group/keep`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum KeepOutcome {
    /// Nothing was done: these attempts would be discarded (archived, restorable); call again
    /// with the token to confirm.
    NeedsConfirmation {
        discard: Vec<AttemptDiscard>,
        confirm_token: String,
    },
    /// Done: the group (with `kept`), the kept session (titled with the instruction) and the
    /// ones discarded.
    Kept {
        group: GroupInfo,
        session: Box<SessionInfo>,
        discarded: Vec<SessionInfo>,
    },
}

/// The answer to `session/runCheck`: the check just started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunCheckResult {
    pub check: CheckRun,
}

/// The answer to `session/checkOutput`: the session's latest check and the end of its output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckOutput {
    /// `None`: no check has run for the session (since codiva started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckRun>,
    /// The last bytes of its stdout and stderr, interleaved as written, cut at a character
    /// boundary, control characters but newline and tab replaced (command output: untrusted).
    pub tail: String,
    /// Bytes of output before `tail` that were not kept.
    pub omitted_bytes: u64,
}

// -- notification params ----------------------------------------------------------------------

/// `group/updated`: a group was created or changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupUpdatedParams {
    pub seq: u64,
    pub change: GroupChange,
    pub group: GroupInfo,
}

/// `group/removed`: none of a group's sessions is listed any more.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupRemovedParams {
    pub seq: u64,
    pub group_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_read_agents_and_models_and_write_back_the_same() {
        let specs = AttemptSpec::parse_list(" claude, codex claude:opus ,").unwrap();
        assert_eq!(
            specs,
            vec![
                AttemptSpec::new("claude", None),
                AttemptSpec::new("codex", None),
                AttemptSpec::new("claude", Some("opus".into())),
            ]
        );
        let text = AttemptSpec::format_list(&specs);
        assert_eq!(text, "claude, codex, claude:opus");
        assert_eq!(AttemptSpec::parse_list(&text).unwrap(), specs);
    }

    #[test]
    fn attempts_refuse_empty_malformed_and_too_many() {
        assert_eq!(
            AttemptSpec::parse_list(" , "),
            Err(AttemptsParseError::Empty)
        );
        assert_eq!(
            AttemptSpec::parse_list("claude, :opus"),
            Err(AttemptsParseError::Malformed(":opus".into()))
        );
        assert_eq!(
            AttemptSpec::parse_list("claude:"),
            Err(AttemptsParseError::Malformed("claude:".into()))
        );
        let eleven = ["claude"; MAX_ATTEMPTS + 1].join(",");
        assert_eq!(
            AttemptSpec::parse_list(&eleven),
            Err(AttemptsParseError::TooMany(MAX_ATTEMPTS + 1))
        );
    }

    #[test]
    fn the_list_fold_knows_groups() {
        use crate::manager::{ManagerEvent, ManagerSnapshot, SequencedEvent};
        use crate::view::Applied;
        let group = |id: &str, kept: Option<&str>| GroupInfo {
            id: id.into(),
            instruction: "fix it".into(),
            attempts: vec![Attempt {
                session_id: format!("{id}-claude"),
                spec: AttemptSpec::new("claude", None),
            }],
            created_at: 1,
            kept: kept.map(str::to_owned),
        };
        let mut list = ManagerSnapshot {
            seq: 0,
            sessions: Vec::new(),
            groups: Vec::new(),
        };
        let events = [
            ManagerEvent::Group {
                change: GroupChange::Created,
                group: group("g-b", None),
            },
            ManagerEvent::Group {
                change: GroupChange::Created,
                group: group("g-a", None),
            },
            ManagerEvent::Group {
                change: GroupChange::Kept,
                group: group("g-b", Some("g-b-claude")),
            },
            ManagerEvent::GroupRemoved { id: "g-a".into() },
        ];
        for (seq, event) in (1..).zip(events) {
            assert_eq!(list.apply(&SequencedEvent { seq, event }), Applied::Applied);
        }
        assert_eq!(list.groups, vec![group("g-b", Some("g-b-claude"))]);
        // A snapshot without groups (an older server) reads as none.
        let old: ManagerSnapshot = serde_json::from_str(r#"{"seq":3,"sessions":[]}"#).unwrap();
        assert!(old.groups.is_empty());
    }

    #[test]
    fn a_check_state_of_a_later_version_reads_as_unknown() {
        let state: CheckState = serde_json::from_str("\"flaky\"").unwrap();
        assert_eq!(state, CheckState::Unknown);
        assert!(state.is_settled());
    }
}
