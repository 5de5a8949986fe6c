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

use codiva_protocol::error::RefusalCode;
use codiva_protocol::log::NoteName;

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
    NoteExitedBeforeTurn,
    NoteUnsupportedRequest,
    NoteStopReason,
    NoteAllowedByPolicy,
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

/// A note of the engine in the current language: by its code when the catalogue words it,
/// else its own (English) text.
pub fn note_text<'a>(
    text: &'a str,
    code: Option<&codiva_protocol::log::NoteCode>,
) -> std::borrow::Cow<'a, str> {
    let Some(code) = code else {
        return std::borrow::Cow::Borrowed(text);
    };
    let key = match code.name {
        NoteName::Compacted => return std::borrow::Cow::Owned(compacted(&code.args)),
        NoteName::Interrupted => Key::NoteInterrupted,
        NoteName::ContinuedAfterCut => Key::NoteContinued,
        NoteName::AgentSwitched => Key::NoteAgentSwitched,
        NoteName::Denied => Key::NoteDenied,
        NoteName::Stalled => Key::NoteStalled,
        NoteName::ResumeFailed => Key::NoteResumeFailed,
        NoteName::RequestFailed => Key::NoteRequestFailed,
        NoteName::EndedMidTurn => Key::NoteEndedMidTurn,
        NoteName::ExitedBeforeFirstTurn => Key::NoteExitedFirst,
        NoteName::ProcessEnded => Key::NoteProcessEnded,
        NoteName::UnreadableLine => Key::NoteUnreadable,
        NoteName::OversizedLine => Key::NoteOversized,
        NoteName::RestartLimit => Key::NoteRestartLimit,
        NoteName::Restarting => Key::NoteRestarting,
        NoteName::StopAfterInterrupt => Key::NoteStopAfterInterrupt,
        NoteName::UnknownLine => Key::NoteUnknownLine,
        NoteName::IdleStopped => Key::NoteIdleStopped,
        NoteName::NotSent => Key::NoteNotSent,
        NoteName::RepairPushed => Key::NoteRepairPushed,
        NoteName::RepairPushFailed => Key::NoteRepairPushFailed,
        NoteName::RepairNotPushed => Key::NoteRepairNotPushed,
        NoteName::ExitedBeforeTurn => Key::NoteExitedBeforeTurn,
        NoteName::UnsupportedRequest => Key::NoteUnsupportedRequest,
        NoteName::StopReason => Key::NoteStopReason,
        NoteName::AllowedByPolicy => Key::NoteAllowedByPolicy,
        // Its text holds a number its args do not: the core's English text.
        NoteName::MessageCut => return std::borrow::Cow::Borrowed(text),
        // Status details ([`status_detail`]), not notes; a later version's name.
        NoteName::Retrying
        | NoteName::Step
        | NoteName::WaitingForAgents
        | NoteName::CollectingResults
        | NoteName::Unknown => return std::borrow::Cow::Borrowed(text),
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
        Some(code) => code.name == NoteName::Compacted,
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
    let translated = match code.name {
        NoteName::Retrying => {
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
        NoteName::Step => tf(Key::DetailStep, &[arg(0), arg(1)]),
        NoteName::WaitingForAgents => tn(
            arg(0).parse().unwrap_or(0),
            Key::DetailWaitingOne,
            Key::DetailWaitingMany,
        ),
        NoteName::CollectingResults => t(Key::DetailCollecting).to_owned(),
        NoteName::Stalled => tf(Key::DetailStalled, &[arg(0)]),
        // Notes, not details; a later version's name: the core's text.
        NoteName::Compacted
        | NoteName::Interrupted
        | NoteName::ContinuedAfterCut
        | NoteName::AgentSwitched
        | NoteName::Denied
        | NoteName::ResumeFailed
        | NoteName::RequestFailed
        | NoteName::EndedMidTurn
        | NoteName::ExitedBeforeFirstTurn
        | NoteName::ExitedBeforeTurn
        | NoteName::ProcessEnded
        | NoteName::UnreadableLine
        | NoteName::OversizedLine
        | NoteName::RestartLimit
        | NoteName::Restarting
        | NoteName::StopAfterInterrupt
        | NoteName::UnknownLine
        | NoteName::IdleStopped
        | NoteName::NotSent
        | NoteName::RepairPushed
        | NoteName::RepairPushFailed
        | NoteName::RepairNotPushed
        | NoteName::MessageCut
        | NoteName::UnsupportedRequest
        | NoteName::StopReason
        | NoteName::AllowedByPolicy
        | NoteName::Unknown => return text.map(str::to_owned),
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

/// A manager refusal in the current language: its reason's words with its `args` (`None`:
/// a reason of a later codiva; its message says it in English). Every reason is worded here,
/// by the general catalogue or by the repair commands' (`repair_text`), in both languages.
pub fn refusal_text(reason: RefusalCode, args: &[&str]) -> Option<String> {
    use crate::repair_text::{R, rf};
    let key = match reason {
        RefusalCode::EmptyInstruction => Key::RefEmptyInstruction,
        RefusalCode::NoAgentYet => Key::RefNoAgentYet,
        RefusalCode::MergedStartNew => Key::RefMergedStartNew,
        RefusalCode::DiscardedRestoreFirst => Key::RefDiscardedRestore,
        RefusalCode::NotRunningAgent => Key::RefNotRunning,
        RefusalCode::NoWorktree => Key::RefNoWorktree,
        RefusalCode::CannotMergeNow => Key::RefCannotMerge,
        RefusalCode::StillWorking => Key::RefStillWorking,
        RefusalCode::MergeConflict => Key::RefMergeConflict,
        RefusalCode::MergeRefused => Key::RefMergeRefused,
        RefusalCode::AlreadyMerged => Key::RefAlreadyMerged,
        RefusalCode::AlreadyDiscarded => Key::RefAlreadyDiscarded,
        RefusalCode::StillPreparing => Key::RefStillPreparing,
        RefusalCode::TokenMismatch => Key::RefTokenMismatch,
        RefusalCode::ChangedSincePreview => Key::RefChangedSincePreview,
        RefusalCode::NotDiscarded => Key::RefNotDiscarded,
        RefusalCode::SyncBusy => Key::RefSyncBusy,
        RefusalCode::NoPendingPrompt => Key::RefNoPendingPrompt,
        RefusalCode::WrongPromptKind => Key::RefWrongPromptKind,
        RefusalCode::MessageNotCut => Key::RefMessageNotCut,
        RefusalCode::MessageTooLong => Key::RefMessageTooLong,
        RefusalCode::MessageNotInTranscript => Key::RefMessageNotInTranscript,
        RefusalCode::ConfigNotToml => Key::RefConfigNotToml,
        RefusalCode::AgentNotInstalled => Key::RefAgentNotInstalled,
        RefusalCode::NoAgentInstalled => Key::RefNoAgentInstalled,
        RefusalCode::UnknownAgent => Key::RefUnknownAgent,
        RefusalCode::ConfigUnknownKey => Key::RefConfigUnknownKey,
        RefusalCode::ConfigInvalid => Key::RefConfigInvalid,
        RefusalCode::ConfigUnwritable => Key::RefConfigUnwritable,
        RefusalCode::NoRemote => Key::RefNoRemote,
        RefusalCode::NotOwner => Key::RefNotOwner,
        RefusalCode::PushFailed => Key::RefPushFailed,
        RefusalCode::GhMissing => Key::RefGhMissing,
        RefusalCode::GhNotAuthenticated => Key::RefGhNotAuthenticated,
        RefusalCode::GhRateLimited => Key::RefGhRateLimited,
        RefusalCode::PrFailed => Key::RefPrFailed,
        RefusalCode::LoginUnavailable => Key::RefLoginUnavailable,
        RefusalCode::LoginRunning => Key::RefLoginRunning,
        RefusalCode::LoginFailed => Key::RefLoginFailed,
        RefusalCode::NoSuchLogin => Key::RefNoSuchLogin,
        RefusalCode::InPlaceBusy => Key::RefInPlaceBusy,
        RefusalCode::InPlaceNotInRepo => Key::RefInPlaceNotInRepo,
        RefusalCode::InPlaceSession => Key::RefInPlaceSession,
        RefusalCode::NoSuchMcpServer => Key::RefNoSuchMcpServer,
        RefusalCode::UnsupportedByAgent => Key::RefUnsupportedByAgent,
        // With a third value (files uncommitted) it is an offer to commit first.
        RefusalCode::NothingToMerge if args.len() == 3 => {
            return Some(rf(R::RefNothingToMergeCommit, args));
        }
        RefusalCode::NothingToMerge => Key::RefNothingToMerge,
        RefusalCode::NothingToPush if args.len() == 3 => {
            return Some(rf(R::RefNothingToPushCommit, args));
        }
        RefusalCode::NothingToPush => Key::RefNothingToPush,
        RefusalCode::NoPr => return Some(rf(R::RefNoPr, args)),
        RefusalCode::NothingFailing => return Some(rf(R::RefNothingFailing, args)),
        RefusalCode::NothingToCommit => return Some(rf(R::RefNothingToCommit, args)),
        RefusalCode::CommitFailed => return Some(rf(R::RefCommitFailed, args)),
        RefusalCode::Unknown => return None,
    };
    Some(tf(key, args))
}

/// A manager error in the current language (git's own messages stay as git wrote them).
pub fn manager_error(error: &codiva_client::ClientError) -> String {
    use codiva_client::ClientError;
    use codiva_protocol::error::{NO_SUCH_SESSION, STOPPED};
    if let Some(refusal) = error.refusal() {
        let args: Vec<&str> = refusal.args.iter().map(String::as_str).collect();
        return refusal_text(refusal.reason, &args).unwrap_or_else(|| error.to_string());
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
