//! The UI's words in English and Japanese. Every string a person reads in codiva's own screens
//! comes from here, through one pair of functions: [`t`] (a key's text) and [`tf`] (with its
//! `{0}`, `{1}`, … filled), and [`tn`] for counts. The keys are split by area, one enum each:
//! [`AppText`] (the list, the session view, the composer, dialogs, cards, notes, refusals),
//! [`ViewText`] (the finishing and picking views), [`AgentText`] (the agent picker, logins, the
//! daemon), [`RepairText`] (`/fix-ci`, `/commit`, `/recover`), [`PrText`] (pull requests) and
//! [`CommandText`] (the `/` commands' words, beside their table in `app/commands.rs`).
//! Each implements [`Words`] with an exhaustive `match` per language, so a key without words in
//! one language does not compile; a test checks that both languages use the same placeholders.
//!
//! The language: `CODIVA_LANG`, then the config's `language`, then the locale (`LC_ALL`,
//! `LC_MESSAGES`, `LANG`); `ja…` means Japanese, anything else English.

use std::sync::OnceLock;

use codiva_protocol::error::RefusalCode;
use codiva_protocol::log::NoteName;

use codiva_protocol::lang::Lang;

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

/// A catalogue area's keys: each key's words in English and in Japanese.
pub trait Words: Copy + std::fmt::Debug + 'static {
    /// Every key of the area, in declaration order.
    const ALL: &'static [Self];
    fn en(self) -> &'static str;
    fn ja(self) -> &'static str;
}

/// An area's key enum and its [`Words`]: `|key| en: <words of key>, ja: <words of key>` (the
/// two macros below say where each key's words are).
macro_rules! words_enum {
    ($(#[$doc:meta])* $name:ident [$($key:ident),*] |$k:ident| en: $en:expr, ja: $ja:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($key),*
        }
        impl $crate::i18n::Words for $name {
            const ALL: &'static [Self] = &[$(Self::$key),*];
            fn en(self) -> &'static str {
                let $k = self;
                $en
            }
            fn ja(self) -> &'static str {
                let $k = self;
                $ja
            }
        }
    };
}

/// An area's key enum from its list of keys; its words are two functions, one exhaustive
/// `match` per language (`en: path, ja: path`).
macro_rules! keys {
    ($(#[$doc:meta])* $name:ident, en: $en:path, ja: $ja:path, [$($key:ident),* $(,)?]) => {
        $crate::i18n::words_enum!(
            $(#[$doc])* $name [$($key),*] |key| en: $en(key), ja: $ja(key)
        );
    };
}

/// An area's key enum with each key's words beside it: `Key => "English", "日本語";`.
macro_rules! keys_with_words {
    ($(#[$doc:meta])* $name:ident { $($key:ident => $en:literal, $ja:literal;)* }) => {
        $crate::i18n::words_enum!(
            $(#[$doc])* $name [$($key),*] |key|
            en: match key {
                $($name::$key => $en),*
            },
            ja: match key {
                $($name::$key => $ja),*
            }
        );
    };
}

pub(crate) use keys_with_words;
pub(crate) use words_enum;

pub mod agents;
pub mod app;
pub mod attempts;
pub mod outside;
pub mod pr;
pub mod repair;
pub mod review;
pub mod views;

pub use crate::app::CommandText;
pub use agents::AgentText;
pub use app::AppText;
pub use attempts::AttemptText;
pub use outside::OutsideText;
pub use pr::PrText;
pub use repair::RepairText;
pub use review::ReviewText;
pub use views::ViewText;

/// The text of `key` in the current language.
pub fn t<K: Words>(key: K) -> &'static str {
    text(lang(), key)
}

/// The text of `key` with `{0}`, `{1}`, … replaced by `args`.
pub fn tf<K: Words>(key: K, args: &[&str]) -> String {
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

/// The text for a count: `one` when `count` is 1, else `many`, with `args` and then the count
/// as the last argument (`{0}` when there are no others; Japanese has one form, its two keys
/// say the same).
pub fn tn<K: Words>(count: usize, one: K, many: K, args: &[&str]) -> String {
    let key = if count == 1 { one } else { many };
    let count = count.to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.push(&count);
    tf(key, &all)
}

/// The text of `key` in `lang`.
pub fn text<K: Words>(lang: Lang, key: K) -> &'static str {
    match lang {
        Lang::En => key.en(),
        Lang::Ja => key.ja(),
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
        NoteName::Interrupted => AppText::NoteInterrupted,
        NoteName::ContinuedAfterCut => AppText::NoteContinued,
        NoteName::AgentSwitched => AppText::NoteAgentSwitched,
        NoteName::Denied => AppText::NoteDenied,
        NoteName::Stalled => AppText::NoteStalled,
        NoteName::ResumeFailed => AppText::NoteResumeFailed,
        NoteName::RequestFailed => AppText::NoteRequestFailed,
        NoteName::EndedMidTurn => AppText::NoteEndedMidTurn,
        NoteName::ExitedBeforeFirstTurn => AppText::NoteExitedFirst,
        NoteName::ProcessEnded => AppText::NoteProcessEnded,
        NoteName::UnreadableLine => AppText::NoteUnreadable,
        NoteName::OversizedLine => AppText::NoteOversized,
        NoteName::RestartLimit => AppText::NoteRestartLimit,
        NoteName::Restarting => AppText::NoteRestarting,
        NoteName::StopAfterInterrupt => AppText::NoteStopAfterInterrupt,
        NoteName::UnknownLine => AppText::NoteUnknownLine,
        NoteName::IdleStopped => AppText::NoteIdleStopped,
        NoteName::NotSent => AppText::NoteNotSent,
        NoteName::RepairPushed => AppText::NoteRepairPushed,
        NoteName::RepairPushFailed => AppText::NoteRepairPushFailed,
        NoteName::RepairNotPushed => AppText::NoteRepairNotPushed,
        NoteName::ExitedBeforeTurn => AppText::NoteExitedBeforeTurn,
        NoteName::UnsupportedRequest => AppText::NoteUnsupportedRequest,
        NoteName::StopReason => AppText::NoteStopReason,
        NoteName::AllowedByPolicy => AppText::NoteAllowedByPolicy,
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
    let mut text = t(AppText::NoteCompacted).to_owned();
    let trigger = match arg(0) {
        "auto" => t(AppText::CompactAuto),
        "manual" => t(AppText::CompactManual),
        other => other,
    };
    if !trigger.is_empty() {
        text.push_str(&tf(AppText::NoteCompactedTrigger, &[trigger]));
    }
    if !arg(1).is_empty() {
        text.push_str(&tf(AppText::NoteCompactedTokens, &[arg(1)]));
    }
    text
}

/// Whether a note is the compaction divider: by its code (`compacted`); a note without a code
/// (in an older log), by its English words.
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
                tf(AppText::DetailRetryingNoCause, &[arg(0), arg(1), &delay])
            } else {
                tf(AppText::DetailRetrying, &[arg(0), arg(1), &delay, &cause])
            }
        }
        NoteName::Step => tf(AppText::DetailStep, &[arg(0), arg(1)]),
        NoteName::WaitingForAgents => tn(
            arg(0).parse().unwrap_or(0),
            AppText::DetailWaitingOne,
            AppText::DetailWaitingMany,
            &[],
        ),
        NoteName::CollectingResults => t(AppText::DetailCollecting).to_owned(),
        NoteName::Stalled => tf(AppText::DetailStalled, &[arg(0)]),
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
    tf(AppText::DetailSeconds, &[&value])
}

/// The notice for a panic codiva survived (see [`crate::crash::take_contained`]).
pub fn contained_panic(panic: &crate::crash::ContainedPanic) -> String {
    match &panic.log {
        Ok(path) => tf(
            AppText::ErrContainedPanic,
            &[&panic.message, &path.display().to_string()],
        ),
        Err(err) => tf(AppText::ErrContainedPanicNoLog, &[&panic.message, err]),
    }
}

/// A manager refusal in the current language: its reason's words with its `args` (`None`:
/// a reason of a later codiva; its message says it in English). Every reason is worded here,
/// by the app's keys or by the repair commands' ([`RepairText`]), in both languages.
pub fn refusal_text(reason: RefusalCode, args: &[&str]) -> Option<String> {
    let key = match reason {
        RefusalCode::EmptyInstruction => AppText::RefEmptyInstruction,
        RefusalCode::NoAgentYet => AppText::RefNoAgentYet,
        RefusalCode::MergedStartNew => AppText::RefMergedStartNew,
        RefusalCode::DiscardedRestoreFirst => AppText::RefDiscardedRestore,
        RefusalCode::NotRunningAgent => AppText::RefNotRunning,
        RefusalCode::NoWorktree => AppText::RefNoWorktree,
        RefusalCode::CannotMergeNow => AppText::RefCannotMerge,
        RefusalCode::StillWorking => AppText::RefStillWorking,
        RefusalCode::MergeConflict => AppText::RefMergeConflict,
        RefusalCode::MergeRefused => AppText::RefMergeRefused,
        RefusalCode::AlreadyMerged => AppText::RefAlreadyMerged,
        RefusalCode::AlreadyDiscarded => AppText::RefAlreadyDiscarded,
        RefusalCode::StillPreparing => AppText::RefStillPreparing,
        RefusalCode::TokenMismatch => AppText::RefTokenMismatch,
        RefusalCode::ChangedSincePreview => AppText::RefChangedSincePreview,
        RefusalCode::NotDiscarded => AppText::RefNotDiscarded,
        RefusalCode::SyncBusy => AppText::RefSyncBusy,
        RefusalCode::NoPendingPrompt => AppText::RefNoPendingPrompt,
        RefusalCode::WrongPromptKind => AppText::RefWrongPromptKind,
        RefusalCode::MessageNotCut => AppText::RefMessageNotCut,
        RefusalCode::MessageTooLong => AppText::RefMessageTooLong,
        RefusalCode::MessageNotInTranscript => AppText::RefMessageNotInTranscript,
        RefusalCode::ConfigNotToml => AppText::RefConfigNotToml,
        RefusalCode::AgentNotInstalled => AppText::RefAgentNotInstalled,
        RefusalCode::NoAgentInstalled => AppText::RefNoAgentInstalled,
        RefusalCode::UnknownAgent => AppText::RefUnknownAgent,
        RefusalCode::ConfigUnknownKey => AppText::RefConfigUnknownKey,
        RefusalCode::ConfigInvalid => AppText::RefConfigInvalid,
        RefusalCode::ConfigUnwritable => AppText::RefConfigUnwritable,
        RefusalCode::NoRemote => AppText::RefNoRemote,
        RefusalCode::NotOwner => AppText::RefNotOwner,
        RefusalCode::PushFailed => AppText::RefPushFailed,
        RefusalCode::GhMissing => AppText::RefGhMissing,
        RefusalCode::GhNotAuthenticated => AppText::RefGhNotAuthenticated,
        RefusalCode::GhRateLimited => AppText::RefGhRateLimited,
        RefusalCode::PrFailed => AppText::RefPrFailed,
        RefusalCode::LoginUnavailable => AppText::RefLoginUnavailable,
        RefusalCode::LoginRunning => AppText::RefLoginRunning,
        RefusalCode::LoginFailed => AppText::RefLoginFailed,
        RefusalCode::NoSuchLogin => AppText::RefNoSuchLogin,
        RefusalCode::InPlaceBusy => AppText::RefInPlaceBusy,
        RefusalCode::InPlaceNotInRepo => AppText::RefInPlaceNotInRepo,
        RefusalCode::InPlaceSession => AppText::RefInPlaceSession,
        RefusalCode::NoSuchMcpServer => AppText::RefNoSuchMcpServer,
        RefusalCode::UnsupportedByAgent => AppText::RefUnsupportedByAgent,
        // With a third value (files uncommitted) it is an offer to commit first.
        RefusalCode::NothingToMerge if args.len() == 3 => {
            return Some(tf(RepairText::RefNothingToMergeCommit, args));
        }
        RefusalCode::NothingToMerge => AppText::RefNothingToMerge,
        RefusalCode::NothingToPush if args.len() == 3 => {
            return Some(tf(RepairText::RefNothingToPushCommit, args));
        }
        RefusalCode::NothingToPush => AppText::RefNothingToPush,
        RefusalCode::NoPr => return Some(tf(RepairText::RefNoPr, args)),
        RefusalCode::NoReviewComments => return Some(tf(ReviewText::RefNoComments, args)),
        RefusalCode::NoSuchReviewComment => return Some(tf(ReviewText::RefNoSuchComment, args)),
        RefusalCode::ReviewFull => return Some(tf(ReviewText::RefFull, args)),
        RefusalCode::NothingFailing => return Some(tf(RepairText::RefNothingFailing, args)),
        // [pr, unresolved]: none unresolved, or every one sent already.
        RefusalCode::NoUnresolvedReviews => {
            let sent_already = args.get(1).is_some_and(|count| *count != "0");
            return Some(tf(
                if sent_already {
                    RepairText::RefReviewsSentAlready
                } else {
                    RepairText::RefNoUnresolvedReviews
                },
                args,
            ));
        }
        RefusalCode::NothingToCommit => return Some(tf(RepairText::RefNothingToCommit, args)),
        RefusalCode::CommitFailed => return Some(tf(RepairText::RefCommitFailed, args)),
        RefusalCode::AlreadyKept => return Some(tf(AttemptText::RefAlreadyKept, args)),
        RefusalCode::CheckRunning => return Some(tf(AttemptText::RefCheckRunning, args)),
        RefusalCode::NoCheckConfigured => {
            return Some(tf(AttemptText::RefNoCheckConfigured, args));
        }
        RefusalCode::NoSuchGroup => return Some(tf(AttemptText::RefNoSuchGroup, args)),
        RefusalCode::NotInGroup => return Some(tf(AttemptText::RefNotInGroup, args)),
        RefusalCode::TooManyAttempts => return Some(tf(AttemptText::RefTooManyAttempts, args)),
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
            tf(AppText::ErrNoSuchSession, &[id])
        }
        ClientError::Server(body) if body.code == STOPPED => t(AppText::ErrStopped).to_owned(),
        ClientError::Disconnected => t(AppText::ErrStopped).to_owned(),
        ClientError::Server(body) => body.message.clone(),
        ClientError::Protocol(message) => message.clone(),
    }
}

#[cfg(test)]
#[path = "i18n_tests.rs"]
mod tests;
