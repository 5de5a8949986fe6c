//! The UI's words in English and Japanese. Every string a person reads in codiva's own screens
//! comes from here. Each language is an exhaustive `match` over [`Key`], so a key missing from
//! one language does not compile; a test checks that both languages use the same
//! placeholders (`{0}`, `{1}`, …).
//!
//! The language: `CODIVA_LANG`, then the config's `language`, then the locale (`LC_ALL`,
//! `LC_MESSAGES`, `LANG`); `ja…` means Japanese, anything else English.

mod en;
mod ja;

use std::sync::OnceLock;

use en::en;
use ja::ja;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Ja,
}

static LANG: OnceLock<Lang> = OnceLock::new();

/// Picks the language once for the process (later calls keep the first choice).
pub fn init(lang: Lang) {
    let _ = LANG.set(lang);
}

thread_local! {
    static OVERRIDE: std::cell::Cell<Option<Lang>> = const { std::cell::Cell::new(None) };
}

pub fn lang() -> Lang {
    OVERRIDE
        .with(std::cell::Cell::get)
        .unwrap_or_else(|| *LANG.get().unwrap_or(&Lang::En))
}

/// Runs `f` with `lang` on this thread only (tests and previews; the process keeps its own).
pub fn with_lang<T>(lang: Lang, f: impl FnOnce() -> T) -> T {
    let previous = OVERRIDE.with(|cell| cell.replace(Some(lang)));
    let result = f();
    OVERRIDE.with(|cell| cell.set(previous));
    result
}

/// `CODIVA_LANG`, then `config` (the config file's `language`), then the locale.
pub fn choose(codiva_lang: Option<&str>, config: Option<&str>, locale: Option<&str>) -> Lang {
    let pick = |value: &str| -> Option<Lang> {
        let value = value.trim().to_ascii_lowercase();
        if value.is_empty() || value == "auto" {
            None
        } else if value.starts_with("ja") {
            Some(Lang::Ja)
        } else {
            Some(Lang::En)
        }
    };
    codiva_lang
        .and_then(pick)
        .or_else(|| config.and_then(pick))
        .or_else(|| locale.and_then(pick))
        .unwrap_or(Lang::En)
}

/// The locale from the environment, as the C library would pick it.
pub fn locale_from_env() -> Option<String> {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.is_empty())
}

macro_rules! keys {
    ($($key:ident),* $(,)?) => {
        /// Every UI string.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Key { $($key),* }
        impl Key {
            pub const ALL: &'static [Key] = &[$(Key::$key),*];
        }
    };
}

keys![
    ListPlaceholder,
    FollowUpPlaceholder,
    MergedPlaceholder,
    DiscardedPlaceholder,
    DenyReasonPlaceholder,
    AnswerPlaceholder,
    PromptPlaceholder,
    EmptyHint,
    MoreAbove,
    MoreBelow,
    MoreLineBelow,
    MoreLinesBelow,
    Sessions,
    SessionOne,
    Waiting,
    DefaultModel,
    Base,
    YesNo,
    TabToAnswer,
    Conflicts,
    Tokens,
    McpSummary,
    InPlaceAt,
    McpFailed,
    McpNeedsAuth,
    McpNotReported,
    ModeLabel,
    ModeLabelShort,
    ModeConfirm,
    ModeAuto,
    HintListFocus,
    HintListDialog,
    HintList,
    HintDetailDialog,
    HintListDialogBack,
    HintDetailDialogBack,
    HintEscChoices,
    HintEscPreviousQuestion,
    HintDetailLog,
    HintDetail,
    HintFinished,
    HintDenyReason,
    HintAnswer,
    HintPrompt,
    BadgeStarting,
    BadgeRunning,
    BadgePermission,
    BadgeQuestion,
    BadgeCompleted,
    BadgeInterrupted,
    BadgeRateLimited,
    BadgeLoginNeeded,
    BadgeFailed,
    BadgeQueued,
    BadgePreparing,
    BadgeConflict,
    BadgeMerged,
    BadgeDiscarded,
    BadgeStep,
    Warning,
    DiscardTitle,
    RemoveTitle,
    NothingLost,
    UncommittedLost,
    CommitsArchived,
    PromptUnchanged,
    Interrupting,
    DialogDraftPending,
    FocusComposer,
    FocusDialog,
    FocusList,
    FocusLog,
    FocusConfirm,
    CtrlCQuitHint,
    CtrlCIdle,
    ExitConfirm,
    MergedFollowUp,
    DiscardedFollowUp,
    Resuming,
    NothingToResume,
    TypeTextForDialog,
    MergeTitle,
    MergeDetail,
    UnknownCommand,
    CommandNotHere,
    CommandOnlyInList,
    StartNoTerminal,
    StartNotARepo,
    StartNoCommits,
    CommandOnlyInSession,
    ModelForNew,
    AgentForNew,
    AgentsTitle,
    AgentNotLoggedIn,
    AgentCannotInterrupt,
    AgentCannotSetModel,
    NoAgent,
    AgentReady,
    AgentReadyDefault,
    AgentNotInstalled,
    NoAgentInstalled,
    NoAgentPlaceholder,
    HintNoAgent,
    AgentFound,
    StillNoAgent,
    AgentUsage,
    InfoAgentSet,
    NoteAgentSwitched,
    ModelHelp,
    ModelsUnknown,
    NothingToClear,
    ClearConfirm,
    Help,
    InboxEmpty,
    InboxMore,
    CmdModelList,
    CmdModelDetail,
    CmdAgentList,
    CmdAgentDetail,
    CmdPrompt,
    CmdConfig,
    CmdDiff,
    CmdSync,
    CmdRemove,
    CmdClear,
    CmdHelp,
    HelpTitle,
    HelpCommands,
    HelpInSession,
    HelpMore,
    HelpEnd,
    CmdExit,
    Reattached,
    CmdShutdown,
    ShutdownConfirm,
    ShutdownConfirmOne,
    DetachedWorking,
    DetachedWorkingOne,
    DetachedIdle,
    DaemonStopped,
    ResolvedElsewhere,
    AgentCommand,
    PermYes,
    PermAlways,
    PermDeny,
    PermStop,
    PermTitle,
    PermScopeTitle,
    PermHintAllow,
    PermHintAlways,
    PermHintDeny,
    PermHintStop,
    PermHintChoose,
    PermScopeHint,
    PermSubagent,
    PermBlockedPath,
    NoteLine,
    NoteLines,
    NoteEdit,
    NoteEdits,
    NoteEveryOccurrence,
    PermEveryCall,
    ScopeAllEdits,
    ScopeEveryTool,
    ScopePlan,
    ScopeAskEvery,
    ScopeSwitchMode,
    ScopeAlwaysAllow,
    ScopeAlwaysDeny,
    ScopeAlwaysAsk,
    ScopeAccess,
    WhereSession,
    WhereLocal,
    WhereProject,
    WhereUser,
    QTypeSomething,
    QChat,
    QSubmitAnswers,
    QSubmit,
    QTitleN,
    QTitle,
    QHintMulti,
    QHintSingleTabs,
    QHintSingle,
    QReview,
    QHintReview,
    TextDenyReason,
    TextFreeAnswer,
    CardDenied,
    CardStopped,
    CardShowMoreOne,
    CardShowMore,
    CardToolUse,
    CardToolUses,
    CardStarting,
    CardBackground,
    CardEarlierOne,
    CardEarlier,
    CardTools,
    TodoProgress,
    DetailRetrying,
    DetailRetryingNoCause,
    DetailSeconds,
    DetailStep,
    DetailWaitingOne,
    DetailWaitingMany,
    DetailCollecting,
    DetailStalled,
    CardChoices,
    CardLaunchedInBackground,
    CardThinking,
    CardFromLine,
    CardLimitLine,
    CardLimitLines,
    CardSearchIn,
    CardFailedN,
    CardDeniedN,
    NoteInterrupted,
    NoteContinued,
    NoteDenied,
    NoteStalled,
    NoteResumeFailed,
    NoteRequestFailed,
    NoteEndedMidTurn,
    NoteExitedFirst,
    NoteProcessEnded,
    NoteUnreadable,
    NoteOversized,
    NoteRestartLimit,
    NoteRestarting,
    NoteStopAfterInterrupt,
    NoteUnknownLine,
    NoteIdleStopped,
    NoteNotSent,
    NoteRepairPushed,
    NoteRepairPushFailed,
    NoteRepairNotPushed,
    NoteCompacted,
    NoteCompactedTrigger,
    NoteCompactedTokens,
    CompactAuto,
    CompactManual,
    ResourcesTotal,
    ResourcesSession,
    InfoPromptSaved,
    ErrPromptSave,
    ErrOpenUrl,
    InfoModelSet,
    DiffSummary,
    DiffUncommitted,
    InfoMerged,
    InfoRemoved,
    InfoDiscarded,
    InfoDiscardedRestorable,
    RefEmptyInstruction,
    RefNoAgentYet,
    RefMergedStartNew,
    RefDiscardedRestore,
    RefNotRunning,
    RefNoWorktree,
    RefCannotMerge,
    RefStillWorking,
    RefMergeConflict,
    RefNothingToMerge,
    RefMergeRefused,
    RefAlreadyMerged,
    RefAlreadyDiscarded,
    RefStillPreparing,
    RefTokenMismatch,
    RefChangedSincePreview,
    RefNotDiscarded,
    RefSyncBusy,
    RefNoPendingPrompt,
    RefWrongPromptKind,
    RefMessageNotCut,
    RefMessageTooLong,
    RefMessageNotInTranscript,
    RefConfigNotToml,
    RefAgentNotInstalled,
    RefNoAgentInstalled,
    RefUnknownAgent,
    RefConfigUnknownKey,
    RefConfigInvalid,
    RefConfigUnwritable,
    RefNoRemote,
    RefNothingToPush,
    RefNotOwner,
    RefPushFailed,
    RefGhMissing,
    RefGhNotAuthenticated,
    RefGhRateLimited,
    RefPrFailed,
    RefLoginUnavailable,
    RefLoginRunning,
    RefLoginFailed,
    RefNoSuchLogin,
    RefInPlaceBusy,
    RefInPlaceNotInRepo,
    RefInPlaceSession,
    RefNoSuchMcpServer,
    RefUnsupportedByAgent,
    ErrNoSuchSession,
    ErrStopped,
    LoginApiKey,
    LoginToken,
    LoginNone,
    ErrContainedPanic,
    ErrContainedPanicNoLog,
];

/// The text of `key` in the current language.
pub fn t(key: Key) -> &'static str {
    text(lang(), key)
}

/// The text of `key` with `{0}`, `{1}`, … replaced by `args`.
pub fn tf(key: Key, args: &[&str]) -> String {
    fill(t(key), args)
}

/// `template` with `{0}`, `{1}`, … replaced by `args`, and each plural choice
/// `{N|one|many}` replaced by `one` when argument N is `1`, else by `many` (English words
/// that follow a count: `{0} {0|session keeps|sessions keep} running`). Every catalogue
/// formats through here.
pub fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        let (index, choice) = match inner.split_once('|') {
            Some((index, choice)) => (index, Some(choice)),
            None => (inner, None),
        };
        match (
            index.parse::<usize>().ok().and_then(|i| args.get(i)),
            choice,
        ) {
            (Some(arg), None) => out.push_str(arg),
            (Some(arg), Some(choice)) => {
                let (one, many) = choice.split_once('|').unwrap_or((choice, choice));
                out.push_str(if *arg == "1" { one } else { many });
            }
            // Not a placeholder of ours (or no such argument): the brace is kept as written
            // and the scan goes on after it.
            (None, _) => {
                out.push('{');
                rest = after;
                continue;
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The text for a count: `one` when `count` is 1, else `many`, with `{0}` the count (Japanese
/// has one form; its two keys say the same).
pub fn tn(count: usize, one: Key, many: Key) -> String {
    let key = if count == 1 { one } else { many };
    tf(key, &[&count.to_string()])
}

pub fn text(lang: Lang, key: Key) -> &'static str {
    match lang {
        Lang::En => en(key),
        Lang::Ja => ja(key),
    }
}

/// A note of the engine in the current language: by its code when it has a known one, else
/// its own (English) text.
pub fn note_text<'a>(
    text: &'a str,
    code: Option<&codiva_protocol::log::NoteCode>,
) -> std::borrow::Cow<'a, str> {
    let Some(code) = code else {
        return std::borrow::Cow::Borrowed(text);
    };
    let key = match code.name.as_str() {
        "compacted" => return std::borrow::Cow::Owned(compacted(&code.args)),
        "interrupted" => Key::NoteInterrupted,
        "continued_after_cut" => Key::NoteContinued,
        "agent_switched" => Key::NoteAgentSwitched,
        "denied" => Key::NoteDenied,
        "stalled" => Key::NoteStalled,
        "resume_failed" => Key::NoteResumeFailed,
        "request_failed" => Key::NoteRequestFailed,
        "ended_mid_turn" => Key::NoteEndedMidTurn,
        "exited_before_first_turn" => Key::NoteExitedFirst,
        "process_ended" => Key::NoteProcessEnded,
        "unreadable_line" => Key::NoteUnreadable,
        "oversized_line" => Key::NoteOversized,
        "restart_limit" => Key::NoteRestartLimit,
        "restarting" => Key::NoteRestarting,
        "stop_after_interrupt" => Key::NoteStopAfterInterrupt,
        "unknown_line" => Key::NoteUnknownLine,
        "idle_stopped" => Key::NoteIdleStopped,
        "not_sent" => Key::NoteNotSent,
        "repair_pushed" => Key::NoteRepairPushed,
        "repair_push_failed" => Key::NoteRepairPushFailed,
        "repair_not_pushed" => Key::NoteRepairNotPushed,
        _ => return std::borrow::Cow::Borrowed(text),
    };
    let args: Vec<&str> = code.args.iter().map(String::as_str).collect();
    std::borrow::Cow::Owned(tf(key, &args))
}

/// The compaction divider's words: `conversation compacted (auto), 155000 tokens before`;
/// the trigger and the token count are left out when the agent did not say.
fn compacted(args: &[String]) -> String {
    let arg = |index: usize| args.get(index).map_or("", String::as_str);
    let mut text = t(Key::NoteCompacted).to_owned();
    let trigger = match arg(0) {
        "auto" => t(Key::CompactAuto),
        "manual" => t(Key::CompactManual),
        other => other,
    };
    if !trigger.is_empty() {
        text.push_str(&tf(Key::NoteCompactedTrigger, &[trigger]));
    }
    if !arg(1).is_empty() {
        text.push_str(&tf(Key::NoteCompactedTokens, &[arg(1)]));
    }
    text
}

/// Whether a note is the compaction divider: by its code (`compacted`); a note written
/// before notes had codes, by its English words.
pub fn is_compaction(text: &str, code: Option<&codiva_protocol::log::NoteCode>) -> bool {
    match code {
        Some(code) => code.name == "compacted",
        None => text.starts_with("conversation compacted"),
    }
}

/// A session's status detail in the current language: by its code when it has a known one
/// (`retrying (2/10) in 4 s: overloaded (529)`), else the core's text. The text is the
/// agent's or the API's: the caller sanitises it.
pub fn status_detail(
    text: Option<&str>,
    code: Option<&codiva_protocol::log::NoteCode>,
) -> Option<String> {
    let Some(code) = code else {
        return text.map(str::to_owned);
    };
    let arg = |index: usize| code.args.get(index).map_or("", String::as_str);
    let translated = match code.name.as_str() {
        "retrying" => {
            let delay = seconds(arg(2).parse().unwrap_or(0));
            let cause = match (arg(4), arg(3)) {
                ("", "") => String::new(),
                (error, "") => error.to_owned(),
                ("", status) => status.to_owned(),
                (error, status) => format!("{error} ({status})"),
            };
            if cause.is_empty() {
                tf(Key::DetailRetryingNoCause, &[arg(0), arg(1), &delay])
            } else {
                tf(Key::DetailRetrying, &[arg(0), arg(1), &delay, &cause])
            }
        }
        "step" => tf(Key::DetailStep, &[arg(0), arg(1)]),
        "waiting_for_agents" => tn(
            arg(0).parse().unwrap_or(0),
            Key::DetailWaitingOne,
            Key::DetailWaitingMany,
        ),
        "collecting_results" => t(Key::DetailCollecting).to_owned(),
        "stalled" => tf(Key::DetailStalled, &[arg(0)]),
        _ => return text.map(str::to_owned),
    };
    Some(translated)
}

/// `4 s`, `0.6 s`, `12 s`.
fn seconds(ms: u64) -> String {
    let value = if ms >= 10_000 || ms.is_multiple_of(1000) {
        ms.div_ceil(1000).to_string()
    } else {
        format!("{}.{}", ms / 1000, (ms % 1000).div_ceil(100).min(9))
    };
    tf(Key::DetailSeconds, &[&value])
}

/// The notice for a panic codiva survived (see [`crate::crash::take_contained`]).
pub fn contained_panic(panic: &crate::crash::ContainedPanic) -> String {
    match &panic.log {
        Ok(path) => tf(
            Key::ErrContainedPanic,
            &[&panic.message, &path.display().to_string()],
        ),
        Err(err) => tf(Key::ErrContainedPanicNoLog, &[&panic.message, err]),
    }
}

/// The catalogue key for a manager refusal code, if it has one.
fn refusal_key(code: &str) -> Option<Key> {
    Some(match code {
        "empty_instruction" => Key::RefEmptyInstruction,
        "no_agent_yet" => Key::RefNoAgentYet,
        "merged_start_new" => Key::RefMergedStartNew,
        "discarded_restore_first" => Key::RefDiscardedRestore,
        "not_running_agent" => Key::RefNotRunning,
        "no_worktree" => Key::RefNoWorktree,
        "cannot_merge_now" => Key::RefCannotMerge,
        "still_working" => Key::RefStillWorking,
        "merge_conflict" => Key::RefMergeConflict,
        "nothing_to_merge" => Key::RefNothingToMerge,
        "merge_refused" => Key::RefMergeRefused,
        "already_merged" => Key::RefAlreadyMerged,
        "already_discarded" => Key::RefAlreadyDiscarded,
        "still_preparing" => Key::RefStillPreparing,
        "token_mismatch" => Key::RefTokenMismatch,
        "changed_since_preview" => Key::RefChangedSincePreview,
        "not_discarded" => Key::RefNotDiscarded,
        "sync_busy" => Key::RefSyncBusy,
        "no_pending_prompt" => Key::RefNoPendingPrompt,
        "wrong_prompt_kind" => Key::RefWrongPromptKind,
        "message_not_cut" => Key::RefMessageNotCut,
        "message_too_long" => Key::RefMessageTooLong,
        "message_not_in_transcript" => Key::RefMessageNotInTranscript,
        "config_not_toml" => Key::RefConfigNotToml,
        "agent_not_installed" => Key::RefAgentNotInstalled,
        "no_agent_installed" => Key::RefNoAgentInstalled,
        "unknown_agent" => Key::RefUnknownAgent,
        "config_unknown_key" => Key::RefConfigUnknownKey,
        "config_invalid" => Key::RefConfigInvalid,
        "config_unwritable" => Key::RefConfigUnwritable,
        "no_remote" => Key::RefNoRemote,
        "nothing_to_push" => Key::RefNothingToPush,
        "not_owner" => Key::RefNotOwner,
        "push_failed" => Key::RefPushFailed,
        "gh_missing" => Key::RefGhMissing,
        "gh_not_authenticated" => Key::RefGhNotAuthenticated,
        "gh_rate_limited" => Key::RefGhRateLimited,
        "pr_failed" => Key::RefPrFailed,
        "login_unavailable" => Key::RefLoginUnavailable,
        "login_running" => Key::RefLoginRunning,
        "login_failed" => Key::RefLoginFailed,
        "no_such_login" => Key::RefNoSuchLogin,
        "in_place_busy" => Key::RefInPlaceBusy,
        "in_place_not_in_repo" => Key::RefInPlaceNotInRepo,
        "in_place_session" => Key::RefInPlaceSession,
        "no_such_mcp_server" => Key::RefNoSuchMcpServer,
        "unsupported_by_agent" => Key::RefUnsupportedByAgent,
        _ => return None,
    })
}

/// A manager error in the current language (git's own messages stay as git wrote them).
pub fn manager_error(error: &codiva_client::ClientError) -> String {
    use codiva_client::ClientError;
    use codiva_protocol::error::{NO_SUCH_SESSION, STOPPED};
    if let Some(refusal) = error.refusal() {
        let args: Vec<&str> = refusal.args.iter().map(String::as_str).collect();
        if let Some(text) = crate::repair_text::refusal(&refusal.reason, &args) {
            return text;
        }
        return match refusal_key(&refusal.reason) {
            Some(key) => {
                let args: Vec<&str> = refusal.args.iter().map(String::as_str).collect();
                tf(key, &args)
            }
            None => error.to_string(),
        };
    }
    match error {
        ClientError::Server(body) if body.code == NO_SUCH_SESSION => {
            let id = error.no_such_session().unwrap_or_default();
            tf(Key::ErrNoSuchSession, &[id])
        }
        ClientError::Server(body) if body.code == STOPPED => t(Key::ErrStopped).to_owned(),
        ClientError::Disconnected => t(Key::ErrStopped).to_owned(),
        ClientError::Server(body) => body.message.clone(),
        ClientError::Protocol(message) => message.clone(),
    }
}

#[cfg(test)]
#[path = "i18n_tests.rs"]
mod tests;
