//! JSON-RPC errors as clients see them: the codes, and the `data` that lets a client word a
//! refusal or point at the faulty field itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::manager::FreshPreview;
use crate::vocabulary::closed_vocabulary;

/// Not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a JSON-RPC request (no `method`, `jsonrpc` not `"2.0"`, a line over the limit).
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid params; `data.field` names the field when one is at fault.
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// No session with that id.
pub const NO_SUCH_SESSION: i64 = -32001;
/// The request is valid but cannot be done now; `data` is a [`RefusalData`].
pub const REFUSED: i64 = -32002;
/// git failed.
pub const GIT_FAILED: i64 = -32003;
/// The manager has stopped.
pub const STOPPED: i64 = -32004;

/// The `error` member of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<ErrorData>,
}

/// What an error carries beyond its message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ErrorData {
    Refusal(RefusalData),
    InvalidField(InvalidFieldData),
    NoSuchSession(NoSuchSessionData),
}

/// Why a valid request was refused: a stable `reason` and its values (`args`); a stale
/// discard token also brings the fresh preview and its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RefusalData {
    pub reason: RefusalCode,
    pub args: Vec<String>,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub fresh: Option<FreshPreview>,
}

/// The params field at fault (`permission_mode`, `images[0].data`, `suggestion`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvalidFieldData {
    pub field: String,
}

/// The session id no session has (with -32001).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NoSuchSessionData {
    pub session_id: String,
}

closed_vocabulary! {
    /// The stable name of a refusal (a -32002 error's `data.reason`): what a client words in
    /// its own language, with the refusal's `args`. `unknown`: a reason of a later codiva; the
    /// error's `message` says it in English.
    pub enum RefusalCode {
        AgentNotInstalled = "agent_not_installed",
        AlreadyDiscarded = "already_discarded",
        AlreadyMerged = "already_merged",
        /// `group/keep` of a group that kept another attempt already [kept session id].
        AlreadyKept = "already_kept",
        CannotMergeNow = "cannot_merge_now",
        /// `session/runCheck` while the session's check runs.
        CheckRunning = "check_running",
        ChangedSincePreview = "changed_since_preview",
        CommitFailed = "commit_failed",
        ConfigInvalid = "config_invalid",
        ConfigNotToml = "config_not_toml",
        ConfigUnknownKey = "config_unknown_key",
        ConfigUnwritable = "config_unwritable",
        DiscardedRestoreFirst = "discarded_restore_first",
        EmptyInstruction = "empty_instruction",
        GhMissing = "gh_missing",
        GhNotAuthenticated = "gh_not_authenticated",
        GhRateLimited = "gh_rate_limited",
        InPlaceBusy = "in_place_busy",
        InPlaceNotInRepo = "in_place_not_in_repo",
        InPlaceSession = "in_place_session",
        LoginFailed = "login_failed",
        LoginRunning = "login_running",
        LoginUnavailable = "login_unavailable",
        MergeConflict = "merge_conflict",
        MergeRefused = "merge_refused",
        MergedStartNew = "merged_start_new",
        MessageNotCut = "message_not_cut",
        MessageNotInTranscript = "message_not_in_transcript",
        MessageTooLong = "message_too_long",
        NoAgentInstalled = "no_agent_installed",
        NoAgentYet = "no_agent_yet",
        /// `session/runCheck` in a repository that names no `check` command.
        NoCheckConfigured = "no_check_configured",
        NoPendingPrompt = "no_pending_prompt",
        NoPr = "no_pr",
        NoReviewComments = "no_review_comments",
        /// The session's pull request has no unresolved review thread [pr number].
        NoUnresolvedReviews = "no_unresolved_reviews",
        NoSuchReviewComment = "no_such_review_comment",
        /// No group with that id [group id].
        NoSuchGroup = "no_such_group",
        NoSuchMcpServer = "no_such_mcp_server",
        NoRemote = "no_remote",
        NoSuchLogin = "no_such_login",
        NoWorktree = "no_worktree",
        NotDiscarded = "not_discarded",
        NotRunningAgent = "not_running_agent",
        NothingFailing = "nothing_failing",
        NothingToCommit = "nothing_to_commit",
        NothingToMerge = "nothing_to_merge",
        NothingToPush = "nothing_to_push",
        /// The session is not one of the group's attempts [session id, group id].
        NotInGroup = "not_in_group",
        NotOwner = "not_owner",
        PrFailed = "pr_failed",
        PushFailed = "push_failed",
        ReviewFull = "review_full",
        StillPreparing = "still_preparing",
        StillWorking = "still_working",
        SyncBusy = "sync_busy",
        TokenMismatch = "token_mismatch",
        /// More attempts than a group may have [count, max].
        TooManyAttempts = "too_many_attempts",
        UnknownAgent = "unknown_agent",
        UnsupportedByAgent = "unsupported_by_agent",
        WrongPromptKind = "wrong_prompt_kind",
    }
}
