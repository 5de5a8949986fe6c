//! The UI's words in English and Japanese. Every string a person reads in codiva's own screens
//! comes from here. Each language is an exhaustive `match` over [`Key`], so a key missing from
//! one language does not compile; a test checks that both languages use the same
//! placeholders (`{0}`, `{1}`, …).
//!
//! The language: `CODIVA_LANG`, then the config's `language`, then the locale (`LC_ALL`,
//! `LC_MESSAGES`, `LANG`); `ja…` means Japanese, anything else English.

use std::sync::OnceLock;

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
    DetailPlaceholder,
    EmptyHint,
    MoreAbove,
    MoreBelow,
    Sessions,
    Waiting,
    DefaultModel,
    Base,
    YesNo,
    TabToAnswer,
    Conflicts,
    Tokens,
    ModeLabel,
    ModeConfirm,
    ModeAuto,
    HintListFocus,
    HintListDialog,
    HintList,
    HintDetailDialog,
    HintDetailLog,
    HintDetail,
    BadgeStarting,
    BadgeRunning,
    BadgePermission,
    BadgeQuestion,
    BadgeCompleted,
    BadgeInterrupted,
    BadgeRateLimited,
    BadgeLoginNeeded,
    BadgeFailed,
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
    EditingPrompt,
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
    Resuming,
    NothingToResume,
    TypeTextForDialog,
    MergeTitle,
    MergeDetail,
    UnknownCommand,
    CommandNotHere,
    ModelForNew,
    ModelHelp,
    ModelsUnknown,
    NothingToClear,
    ClearConfirm,
    Help,
    InboxEmpty,
    InboxMore,
    CmdModelList,
    CmdModelDetail,
    CmdPrompt,
    CmdConfig,
    CmdDiff,
    CmdSync,
    CmdRemove,
    CmdClear,
    CmdHelp,
    CmdExitList,
    CmdExitDetail,
    AgentCommand,
    PermYes,
    PermAlways,
    PermDeny,
    PermStop,
    PermTitle,
    PermScopeTitle,
    PermHint,
    PermSubagent,
    PermBlockedPath,
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
    CardThinking,
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
    ErrNoSuchSession,
    ErrStopped,
    ErrContainedPanic,
    ErrContainedPanicNoLog,
];

/// The text of `key` in the current language.
pub fn t(key: Key) -> &'static str {
    text(lang(), key)
}

/// The text of `key` with `{0}`, `{1}`, … replaced by `args`.
pub fn tf(key: Key, args: &[&str]) -> String {
    let mut out = t(key).to_owned();
    for (index, arg) in args.iter().enumerate() {
        out = out.replace(&format!("{{{index}}}"), arg);
    }
    out
}

pub fn text(lang: Lang, key: Key) -> &'static str {
    match lang {
        Lang::En => en(key),
        Lang::Ja => ja(key),
    }
}

fn en(key: Key) -> &'static str {
    use Key::*;
    match key {
        ListPlaceholder => {
            "Type an instruction and press Enter to start a session (/ for commands)"
        }
        DetailPlaceholder => "Enter a follow-up instruction… (Esc: back · Ctrl+C: interrupt)",
        EmptyHint => "Type an instruction and press Enter to start your first session.",
        MoreAbove => "↑ {0} more",
        MoreBelow => "↓ {0} more",
        Sessions => "{0} sessions",
        Waiting => "● {0} waiting",
        DefaultModel => "default model",
        Base => "base {0}",
        YesNo => "y: yes · n: no",
        TabToAnswer => " (Tab: answer) ",
        Conflicts => " · conflicts: {0}",
        Tokens => "{0} tokens",
        ModeLabel => " mode: {0} (Shift+Tab)",
        ModeConfirm => "confirm",
        ModeAuto => "auto",
        HintListFocus => {
            "↑↓ select · Enter open · m merge · d discard · x remove · r resume · Tab focus"
        }
        HintListDialog => "answer the selected session · Tab: focus · Esc: composer",
        HintList => {
            "Enter: start · / commands · Ctrl+N: next waiting · Tab: focus · Shift+Tab: mode"
        }
        HintDetailDialog => "answer · Tab: read the log · Esc: back",
        HintDetailLog => "↑↓ PgUp PgDn scroll · m d x r · Tab/Esc: back",
        HintDetail => "Enter: send · Ctrl+C: interrupt · Ctrl+R: resume · Tab: log · Esc: back",
        BadgeStarting => "Starting",
        BadgeRunning => "Running",
        BadgePermission => "Permission",
        BadgeQuestion => "Question",
        BadgeCompleted => "Completed",
        BadgeInterrupted => "Interrupted",
        BadgeRateLimited => "Rate limited",
        BadgeLoginNeeded => "Login needed",
        BadgeFailed => "Failed",
        BadgePreparing => "Preparing",
        BadgeConflict => "Conflict",
        BadgeMerged => "Merged",
        BadgeDiscarded => "Discarded",
        BadgeStep => "Step {0}/{1}",
        Warning => "warning: {0}",
        DiscardTitle => "Discard session {0}?",
        RemoveTitle => "Remove session {0}?",
        NothingLost => "Nothing would be lost.",
        UncommittedLost => "Uncommitted files (kept in refs/codiva/archive, restorable): {0}",
        CommitsArchived => {
            "Commits not on the base (kept under refs/codiva/archive, restorable): {0}"
        }
        EditingPrompt => "editing .codiva/prompt.md — Enter saves (empty removes it), Esc cancels",
        PromptUnchanged => "prompt.md unchanged",
        Interrupting => "interrupting…",
        DialogDraftPending => {
            "letters answer the dialog only with an empty composer: send or clear what you typed (Ctrl+U), or choose with ↑↓ and Enter"
        }
        FocusComposer => "composer",
        FocusDialog => "dialog",
        FocusList => "list",
        FocusLog => "log",
        FocusConfirm => "confirm",
        CtrlCQuitHint => {
            "Ctrl+C does not quit: type /exit and press Enter (in a session, Ctrl+C interrupts its turn)"
        }
        CtrlCIdle => {
            "{0} is not working: nothing to interrupt (Esc: back to the list, where /exit quits)"
        }
        ExitConfirm => {
            "{0} session(s) still working: quitting stops them (they come back interrupted and resume on your next message). Quit codiva?"
        }
        Resuming => "resuming {0}…",
        NothingToResume => "nothing to resume here",
        TypeTextForDialog => "type the text and press Enter (Esc: back to the dialog)",
        MergeTitle => "Merge {0} into {1}?",
        MergeDetail => "git merge --no-ff {0} in the main checkout; then the worktree is removed.",
        UnknownCommand => "unknown command /{0} (/help lists them)",
        CommandNotHere => "/{0} is not available here",
        ModelForNew => "new sessions use model {0}",
        ModelHelp => "/model <id> — models: {0}",
        ModelsUnknown => "known once an agent has connected",
        NothingToClear => "no finished (merged or discarded) sessions to clear",
        ClearConfirm => {
            "Clear {0} finished session(s) from the list? Their branches stay archived."
        }
        Help => {
            "Enter: start/send · Shift+Enter: newline · Tab: switch focus · Esc: back · Ctrl+C: interrupt · Ctrl+R: resume · Ctrl+N: next waiting · Shift+Tab: auto/confirm · m/d/x: merge/discard/remove · /model /diff /sync /remove /prompt /config /clear /exit"
        }
        InboxEmpty => "nobody is waiting for you",
        InboxMore => "{0} more waiting (Ctrl+N: next)",
        CmdModelList => "model for new sessions",
        CmdModelDetail => "switch this session's model",
        CmdPrompt => "edit .codiva/prompt.md (instructions for every session)",
        CmdConfig => "show the configuration",
        CmdDiff => "what this session changed against its base",
        CmdSync => "merge the base into this session",
        CmdRemove => "discard this session and forget it",
        CmdClear => "clear merged and discarded sessions from the list",
        CmdHelp => "keys and commands",
        CmdExitList => "quit codiva (sessions are kept)",
        CmdExitDetail => "back to the list",
        AgentCommand => "{0} (agent)",
        PermYes => "Yes",
        PermAlways => "Yes, and don't ask again…",
        PermDeny => "No, and tell the agent what to do instead",
        PermStop => "No, and stop this turn",
        PermTitle => "Allow {0}?",
        PermScopeTitle => "Always allow {0}: choose a scope",
        PermHint => "y allow · a always · n deny · s stop · ↑↓ Enter choose",
        PermSubagent => "(subagent)",
        PermBlockedPath => "Blocked path: {0}",
        PermEveryCall => "Always allow every {0} call in this session",
        ScopeAllEdits => "Allow all edits",
        ScopeEveryTool => "Allow every tool",
        ScopePlan => "Switch to plan mode",
        ScopeAskEvery => "Ask for every tool",
        ScopeSwitchMode => "Switch to {0} mode",
        ScopeAlwaysAllow => "Always allow",
        ScopeAlwaysDeny => "Always deny",
        ScopeAlwaysAsk => "Always ask before",
        ScopeAccess => "Allow access to {0}",
        WhereSession => " in this session",
        WhereLocal => " (local settings)",
        WhereProject => " (project settings)",
        WhereUser => " (user settings)",
        QTypeSomething => "Type something…",
        QChat => "Chat about this",
        QSubmitAnswers => "Submit answers",
        QSubmit => "Submit",
        QTitleN => "Question {0}/{1}",
        QTitle => "Question",
        QHintMulti => "Space toggle · Enter next · ↑↓ move · ←→ questions",
        QHintSingleTabs => "Enter pick · ↑↓ move · ←→ questions",
        QHintSingle => "Enter pick · ↑↓ move",
        QReview => "Review your answers",
        QHintReview => "Enter submit · ←→ questions",
        TextDenyReason => "Tell the agent what to do instead (Enter sends; empty just denies)",
        TextFreeAnswer => "Type your answer (Enter sends)",
        CardDenied => "denied",
        CardStopped => "stopped",
        CardShowMoreOne => "… {0} more line (Enter: show more)",
        CardShowMore => "… {0} more lines (Enter: show more)",
        CardToolUse => "{0} tool use",
        CardToolUses => "{0} tool uses",
        CardStarting => "starting…",
        CardBackground => "background",
        CardEarlierOne => "… {0} earlier entry",
        CardEarlier => "… {0} earlier entries",
        CardTools => "{0} tools:",
        CardThinking => "Thinking…",
        NoteInterrupted => "interrupted",
        NoteContinued => "the answer was cut off; the agent continues",
        NoteDenied => "denied: {0}",
        NoteStalled => "no output from the agent for {0} minutes",
        NoteResumeFailed => "the conversation could not be resumed ({0}); a new one starts",
        NoteRequestFailed => "{0} failed: {1}",
        NoteEndedMidTurn => "the agent process ended mid-turn ({0}){1}",
        NoteExitedFirst => "the agent exited before its first turn ({0}){1}",
        NoteProcessEnded => "the agent process ended ({0})",
        NoteUnreadable => "skipped an unreadable line from the agent ({0})",
        NoteOversized => "skipped a line of {0} bytes from the agent (over the limit)",
        NoteRestartLimit => {
            "the agent exited {0} times in a row; it starts again on the next message"
        }
        NoteRestarting => "restarting the agent ({0}/{1})",
        NoteStopAfterInterrupt => {
            "the agent did not stop after the interrupt; stopping its process"
        }
        NoteUnknownLine => "ignored an unknown line kind from the agent: {0}",
        InfoPromptSaved => "saved {0}; new sessions get it",
        ErrPromptSave => "cannot save {0}: {1}",
        ErrOpenUrl => "cannot open {0}: {1}",
        InfoModelSet => "{0} now uses {1}",
        DiffSummary => "{0} file(s), +{1} −{2}, {3} commit(s) ahead",
        DiffUncommitted => "{0} uncommitted file(s)",
        InfoMerged => "merged {0} into {1}",
        InfoRemoved => "removed {0}",
        InfoDiscarded => "discarded {0}",
        InfoDiscardedRestorable => "discarded {0} (restorable: refs/codiva/archive/{0})",
        RefEmptyInstruction => "the instruction is empty",
        RefNoAgentYet => "session {0} has no agent yet",
        RefMergedStartNew => "session {0} was merged; start a new session",
        RefDiscardedRestore => "session {0} was discarded; restore it first",
        RefNotRunning => "session {0} is not running an agent",
        RefNoWorktree => "session {0} has no worktree",
        RefCannotMerge => "session {0} cannot be merged now",
        RefStillWorking => "session {0} is still working; interrupt it or wait until it finishes",
        RefMergeConflict => {
            "merging {0} into {1} conflicts in {2}; the merge was aborted and {1} is unchanged"
        }
        RefNothingToMerge => {
            "nothing to merge: {0} has no commits that {1} lacks (uncommitted changes stay in the session's worktree)"
        }
        RefMergeRefused => "{0}",
        RefAlreadyMerged => "session {0} is already merged",
        RefAlreadyDiscarded => "session {0} is already discarded",
        RefStillPreparing => "session {0} is still being prepared",
        RefTokenMismatch => "the confirmation token does not match; nothing was done",
        RefChangedSincePreview => "Session {0} changed since the preview; nothing was done.",
        RefNotDiscarded => "session {0} is not discarded",
        RefSyncBusy => {
            "session {0} is working; sync needs the agent's help, try again when it is idle"
        }
        RefNoPendingPrompt => {
            "no pending prompt {0} (unknown, already answered or withdrawn); nothing was sent"
        }
        RefWrongPromptKind => "prompt {0} is not a {1} prompt; nothing was sent",
        ErrNoSuchSession => "no session {0}",
        ErrStopped => "the session manager has stopped",
        ErrContainedPanic => {
            "internal error: {0}. codiva keeps running; a crash log was written to {1}"
        }
        ErrContainedPanicNoLog => {
            "internal error: {0}. codiva keeps running; the crash log could not be written ({1})"
        }
    }
}

fn ja(key: Key) -> &'static str {
    use Key::*;
    match key {
        ListPlaceholder => "指示を入力して Enter でセッション開始（/ でコマンド）",
        DetailPlaceholder => "追加の指示を入力…（Esc: 戻る · Ctrl+C: 中断）",
        EmptyHint => "指示を入力して Enter を押すと、最初のセッションが始まります。",
        MoreAbove => "↑ ほか {0} 件",
        MoreBelow => "↓ ほか {0} 件",
        Sessions => "{0} セッション",
        Waiting => "● {0} 件が応答待ち",
        DefaultModel => "既定のモデル",
        Base => "ベース {0}",
        YesNo => "y: はい · n: いいえ",
        TabToAnswer => "（Tab: 応答）",
        Conflicts => " · 競合: {0}",
        Tokens => "{0} トークン",
        ModeLabel => " モード: {0}（Shift+Tab）",
        ModeConfirm => "確認",
        ModeAuto => "自動",
        HintListFocus => "↑↓ 選択 · Enter 開く · m マージ · d 破棄 · x 削除 · r 再開 · Tab 移動",
        HintListDialog => "選択中のセッションに応答 · Tab: 移動 · Esc: 入力欄",
        HintList => {
            "Enter: 開始 · / コマンド · Ctrl+N: 次の応答待ち · Tab: 移動 · Shift+Tab: モード"
        }
        HintDetailDialog => "応答 · Tab: ログを読む · Esc: 戻る",
        HintDetailLog => "↑↓ PgUp PgDn スクロール · m d x r · Tab/Esc: 戻る",
        HintDetail => "Enter: 送信 · Ctrl+C: 中断 · Ctrl+R: 再開 · Tab: ログ · Esc: 戻る",
        BadgeStarting => "起動中",
        BadgeRunning => "実行中",
        BadgePermission => "許可待ち",
        BadgeQuestion => "質問あり",
        BadgeCompleted => "完了",
        BadgeInterrupted => "中断",
        BadgeRateLimited => "レート制限",
        BadgeLoginNeeded => "要ログイン",
        BadgeFailed => "失敗",
        BadgePreparing => "準備中",
        BadgeConflict => "競合",
        BadgeMerged => "マージ済み",
        BadgeDiscarded => "破棄済み",
        BadgeStep => "ステップ {0}/{1}",
        Warning => "警告: {0}",
        DiscardTitle => "セッション {0} を破棄しますか？",
        RemoveTitle => "セッション {0} を削除しますか？",
        NothingLost => "失われるものはありません。",
        UncommittedLost => "未コミットのファイル（refs/codiva/archive に保存、復元可能）: {0}",
        CommitsArchived => "ベースにないコミット（refs/codiva/archive に保存、復元可能）: {0}",
        EditingPrompt => ".codiva/prompt.md を編集中 — Enter で保存（空なら削除）、Esc で取消",
        PromptUnchanged => "prompt.md は変更していません",
        Interrupting => "中断しています…",
        DialogDraftPending => {
            "入力欄が空のときだけ文字キーでダイアログに応答します。入力を送信するか消去（Ctrl+U）するか、↑↓ と Enter で選んでください"
        }
        FocusComposer => "入力欄",
        FocusDialog => "ダイアログ",
        FocusList => "一覧",
        FocusLog => "ログ",
        FocusConfirm => "確認",
        CtrlCQuitHint => {
            "Ctrl+C では終了しません。/exit と入力して Enter（セッション内の Ctrl+C はターンの中断）"
        }
        CtrlCIdle => {
            "{0} は作業していないため中断するものはありません（Esc: 一覧へ。終了は一覧で /exit）"
        }
        ExitConfirm => {
            "{0} 件のセッションが作業中です。終了すると止まります（次回は中断状態で戻り、次のメッセージで再開します）。codiva を終了しますか？"
        }
        Resuming => "{0} を再開しています…",
        NothingToResume => "再開できるものはありません",
        TypeTextForDialog => "テキストを入力して Enter（Esc: ダイアログに戻る）",
        MergeTitle => "{0} を {1} にマージしますか？",
        MergeDetail => {
            "メインのチェックアウトで git merge --no-ff {0} を実行し、worktree を削除します。"
        }
        UnknownCommand => "不明なコマンド /{0}（/help で一覧）",
        CommandNotHere => "/{0} はここでは使えません",
        ModelForNew => "新しいセッションはモデル {0} を使います",
        ModelHelp => "/model <id> — モデル: {0}",
        ModelsUnknown => "エージェント接続後にわかります",
        NothingToClear => "片付ける完了済み（マージ済み・破棄済み）のセッションはありません",
        ClearConfirm => {
            "完了済みのセッション {0} 件を一覧から片付けますか？ブランチは保存されたままです。"
        }
        Help => {
            "Enter: 開始/送信 · Shift+Enter: 改行 · Tab: 移動 · Esc: 戻る · Ctrl+C: 中断 · Ctrl+R: 再開 · Ctrl+N: 次の応答待ち · Shift+Tab: 自動/確認 · m/d/x: マージ/破棄/削除 · /model /diff /sync /remove /prompt /config /clear /exit"
        }
        InboxEmpty => "応答待ちのセッションはありません",
        InboxMore => "ほかに {0} 件が応答待ち（Ctrl+N: 次へ）",
        CmdModelList => "新しいセッションのモデル",
        CmdModelDetail => "このセッションのモデルを切り替え",
        CmdPrompt => ".codiva/prompt.md を編集（全セッション共通の指示）",
        CmdConfig => "設定を表示",
        CmdDiff => "このセッションがベースから変えた内容",
        CmdSync => "ベースをこのセッションにマージ",
        CmdRemove => "このセッションを破棄して一覧から削除",
        CmdClear => "マージ済み・破棄済みのセッションを一覧から片付け",
        CmdHelp => "キーとコマンド",
        CmdExitList => "codiva を終了（セッションは保存されます）",
        CmdExitDetail => "一覧に戻る",
        AgentCommand => "{0}（エージェント）",
        PermYes => "はい",
        PermAlways => "はい、今後は確認しない…",
        PermDeny => "いいえ、代わりの指示を伝える",
        PermStop => "いいえ、このターンを止める",
        PermTitle => "{0} を許可しますか？",
        PermScopeTitle => "{0} を常に許可: 範囲を選ぶ",
        PermHint => "y 許可 · a 常に · n 拒否 · s 停止 · ↑↓ Enter 選択",
        PermSubagent => "（サブエージェント）",
        PermBlockedPath => "ブロックされたパス: {0}",
        PermEveryCall => "このセッションでは {0} をすべて許可",
        ScopeAllEdits => "すべての編集を許可",
        ScopeEveryTool => "すべてのツールを許可",
        ScopePlan => "プランモードに切り替え",
        ScopeAskEvery => "ツールごとに確認",
        ScopeSwitchMode => "{0} モードに切り替え",
        ScopeAlwaysAllow => "常に許可:",
        ScopeAlwaysDeny => "常に拒否:",
        ScopeAlwaysAsk => "常に確認:",
        ScopeAccess => "{0} へのアクセスを許可",
        WhereSession => "（このセッション）",
        WhereLocal => "（ローカル設定）",
        WhereProject => "（プロジェクト設定）",
        WhereUser => "（ユーザー設定）",
        QTypeSomething => "自由に入力…",
        QChat => "このことについて話す",
        QSubmitAnswers => "回答を送信",
        QSubmit => "送信",
        QTitleN => "質問 {0}/{1}",
        QTitle => "質問",
        QHintMulti => "Space 切替 · Enter 次へ · ↑↓ 移動 · ←→ 質問",
        QHintSingleTabs => "Enter 選択 · ↑↓ 移動 · ←→ 質問",
        QHintSingle => "Enter 選択 · ↑↓ 移動",
        QReview => "回答の確認",
        QHintReview => "Enter 送信 · ←→ 質問",
        TextDenyReason => {
            "代わりにどうするかをエージェントに伝える（Enter で送信、空なら拒否のみ）"
        }
        TextFreeAnswer => "回答を入力（Enter で送信）",
        CardDenied => "拒否",
        CardStopped => "停止",
        CardShowMoreOne => "… ほか {0} 行（Enter: もっと見る）",
        CardShowMore => "… ほか {0} 行（Enter: もっと見る）",
        CardToolUse => "ツール {0} 回",
        CardToolUses => "ツール {0} 回",
        CardStarting => "開始中…",
        CardBackground => "バックグラウンド",
        CardEarlierOne => "… それ以前の {0} 件",
        CardEarlier => "… それ以前の {0} 件",
        CardTools => "{0} 個のツール:",
        CardThinking => "思考中…",
        NoteInterrupted => "中断しました",
        NoteContinued => "回答が途中で切れたため、エージェントが続きを書きます",
        NoteDenied => "拒否: {0}",
        NoteStalled => "エージェントから {0} 分間出力がありません",
        NoteResumeFailed => "会話を再開できませんでした（{0}）。新しい会話を始めます",
        NoteRequestFailed => "{0} に失敗しました: {1}",
        NoteEndedMidTurn => "エージェントのプロセスがターンの途中で終了しました（{0}）{1}",
        NoteExitedFirst => "エージェントが最初のターンの前に終了しました（{0}）{1}",
        NoteProcessEnded => "エージェントのプロセスが終了しました（{0}）",
        NoteUnreadable => "エージェントの読めない行を読み飛ばしました（{0}）",
        NoteOversized => "上限を超える {0} バイトの行を読み飛ばしました",
        NoteRestartLimit => {
            "エージェントが {0} 回続けて終了しました。次のメッセージで再び起動します"
        }
        NoteRestarting => "エージェントを再起動しています（{0}/{1}）",
        NoteStopAfterInterrupt => "中断後もエージェントが止まらないため、プロセスを停止します",
        NoteUnknownLine => "エージェントの未知の行を無視しました: {0}",
        InfoPromptSaved => "{0} を保存しました。新しいセッションから使われます",
        ErrPromptSave => "{0} を保存できません: {1}",
        ErrOpenUrl => "{0} を開けません: {1}",
        InfoModelSet => "{0} は {1} を使います",
        DiffSummary => "{0} ファイル、+{1} −{2}、ベースより {3} コミット先行",
        DiffUncommitted => "未コミットのファイル {0} 件",
        InfoMerged => "{0} を {1} にマージしました",
        InfoRemoved => "{0} を削除しました",
        InfoDiscarded => "{0} を破棄しました",
        InfoDiscardedRestorable => "{0} を破棄しました（refs/codiva/archive/{0} から復元できます）",
        RefEmptyInstruction => "指示が空です",
        RefNoAgentYet => "セッション {0} にはまだエージェントがありません",
        RefMergedStartNew => "セッション {0} はマージ済みです。新しいセッションを始めてください",
        RefDiscardedRestore => "セッション {0} は破棄済みです。先に復元してください",
        RefNotRunning => "セッション {0} ではエージェントが動いていません",
        RefNoWorktree => "セッション {0} には worktree がありません",
        RefCannotMerge => "セッション {0} は今はマージできません",
        RefStillWorking => "セッション {0} はまだ作業中です。中断するか、終わるまで待ってください",
        RefMergeConflict => {
            "{0} を {1} にマージすると {2} で競合します。マージは中止し、{1} は変わっていません"
        }
        RefNothingToMerge => {
            "マージするものがありません: {0} には {1} にないコミットがありません（未コミットの変更はセッションの worktree に残っています）"
        }
        RefMergeRefused => "マージできません: {0}",
        RefAlreadyMerged => "セッション {0} はマージ済みです",
        RefAlreadyDiscarded => "セッション {0} は破棄済みです",
        RefStillPreparing => "セッション {0} はまだ準備中です",
        RefTokenMismatch => "確認トークンが一致しません。何も実行していません",
        RefChangedSincePreview => {
            "セッション {0} はプレビューの後に変わりました。何も実行していません。"
        }
        RefNotDiscarded => "セッション {0} は破棄されていません",
        RefSyncBusy => {
            "セッション {0} は作業中です。同期にはエージェントの手が要るので、手が空いてからもう一度"
        }
        RefNoPendingPrompt => {
            "待っている確認 {0} はありません（不明、回答済み、または取り下げ済み）。何も送っていません"
        }
        RefWrongPromptKind => "確認 {0} は種類 {1} ではありません。何も送っていません",
        ErrNoSuchSession => "セッション {0} はありません",
        ErrStopped => "セッションマネージャーが停止しています",
        ErrContainedPanic => "内部エラー: {0}。codiva は動作を続けます。クラッシュログ: {1}",
        ErrContainedPanicNoLog => {
            "内部エラー: {0}。codiva は動作を続けます。クラッシュログを書けませんでした（{1}）"
        }
    }
}

/// A note of the engine in the current language: by its code when it has a known one, else
/// its own (English) text.
pub fn note_text<'a>(
    text: &'a str,
    code: Option<&codiva_core::session_log::NoteCode>,
) -> std::borrow::Cow<'a, str> {
    let Some(code) = code else {
        return std::borrow::Cow::Borrowed(text);
    };
    let key = match code.name.as_str() {
        "interrupted" => Key::NoteInterrupted,
        "continued_after_cut" => Key::NoteContinued,
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
        _ => return std::borrow::Cow::Borrowed(text),
    };
    let args: Vec<&str> = code.args.iter().map(String::as_str).collect();
    std::borrow::Cow::Owned(tf(key, &args))
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
        _ => return None,
    })
}

/// A manager error in the current language (git's own messages stay as git wrote them).
pub fn manager_error(error: &codiva_core::manager::ManagerError) -> String {
    use codiva_core::manager::ManagerError;
    match error {
        ManagerError::Refused(refusal) => match refusal_key(refusal.code) {
            Some(key) => {
                let args: Vec<&str> = refusal.args.iter().map(String::as_str).collect();
                tf(key, &args)
            }
            None => refusal.message.clone(),
        },
        ManagerError::NoSuchSession(id) => tf(Key::ErrNoSuchSession, &[id]),
        ManagerError::Stopped => t(Key::ErrStopped).to_owned(),
        ManagerError::Git(message) | ManagerError::StateFile(message) => message.clone(),
        ManagerError::Invalid(invalid) => invalid.to_string(),
    }
}

#[cfg(test)]
#[path = "i18n_tests.rs"]
mod tests;
