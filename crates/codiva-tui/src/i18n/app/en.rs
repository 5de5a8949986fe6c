//! The English catalogue: the text of every [`AppText`]. An exhaustive `match`, so a key added to
//! the list in `app.rs` does not compile until it has its English words here.

use super::AppText;

pub(super) fn en(key: AppText) -> &'static str {
    use AppText::*;
    match key {
        ListPlaceholder => {
            "Type an instruction and press Enter to start a session (/ for commands)"
        }
        FollowUpPlaceholder => "Follow-up for {0} — Enter sends (Esc: back to the list)",
        MergedPlaceholder => {
            "{0} is merged — Enter offers to start a new session with what you type (Esc: back to the list)"
        }
        DiscardedPlaceholder => {
            "{0} is discarded — Enter offers to start a new session with what you type (Esc: back to the list)"
        }
        DenyReasonPlaceholder => {
            "Why deny? Tell the agent what to do instead — Enter denies (empty: just deny), Esc: back to the dialog"
        }
        AnswerPlaceholder => "Your answer — Enter sends it, Esc: back to the question",
        PromptPlaceholder => {
            ".codiva/prompt.md is empty — Enter saves (empty removes it), Esc cancels"
        }
        EmptyHint => "Type an instruction and press Enter to start your first session.",
        MoreAbove => "↑ {0} more",
        MoreBelow => "↓ {0} more",
        MoreLineBelow => "{0} more line",
        MoreLinesBelow => "{0} more lines",
        Sessions => "{0} sessions",
        SessionOne => "{0} session",
        Waiting => "● {0} waiting",
        DefaultModel => "default model",
        Base => "base {0}",
        YesNo => "y: yes · n: no",
        TabToAnswer => " (Tab: answer) ",
        Conflicts => " · conflicts: {0}",
        Tokens => "{0} tokens",
        McpSummary => "MCP {0}/{1}",
        InPlaceAt => "in place: {0}",
        McpFailed => "{0} failed",
        McpNeedsAuth => "{0} needs login",
        McpNotReported => "MCP {0} not reported by the agent",
        ModeLabel => " mode: {0} (Shift+Tab)",
        ModeLabelShort => " mode: {0} ",
        ModeConfirm => "confirm",
        ModeAuto => "auto",
        HintListFocus => {
            "↑↓ select · Enter open · Esc: composer · m merge · d discard · x remove · r resume"
        }
        HintList => "Enter: start · Tab: focus · / commands · Ctrl+N: next waiting · /help: keys",
        HintListDialog => "answer the selected session · Esc: composer · Tab: list",
        HintDetailDialog => "answer · Esc: back to the list · Tab: read the log",
        HintListDialogBack => "answer the selected session · {0} · Tab: list",
        HintDetailDialogBack => "answer · {0} · Tab: read the log",
        HintEscChoices => "Esc: back to the choices",
        HintEscPreviousQuestion => "Esc: previous question",
        HintDetailLog => {
            "↑↓ PgUp PgDn scroll · n/p cards · Enter open · / search · Esc: composer · m d x r"
        }
        HintDetail => {
            "Enter: send · Esc: back · Tab: log · Ctrl+C: interrupt · Ctrl+R: resume · /help: keys"
        }
        HintFinished => "Enter: offer a new session · Tab: log · Esc: back",
        HintDenyReason => {
            "Enter: deny with this reason · Esc: back to the dialog · Shift+Enter: new line"
        }
        HintAnswer => "Enter: send the answer · Esc: back to the question · Shift+Enter: new line",
        HintPrompt => "Enter: save .codiva/prompt.md · Esc: cancel · Shift+Enter: new line",
        BadgeStarting => "Starting",
        BadgeRunning => "Running",
        BadgePermission => "Permission",
        BadgeQuestion => "Question",
        BadgeCompleted => "Completed",
        BadgeInterrupted => "Interrupted",
        BadgeRateLimited => "Rate limited",
        BadgeLoginNeeded => "Login needed",
        BadgeFailed => "Failed",
        BadgeQueued => "Queued",
        BadgePreparing => "Preparing",
        BadgeConflict => "Conflict",
        BadgeMerged => "Merged",
        BadgeDiscarded => "Discarded",
        BadgeStep => "Step {0}/{1}",
        Warning => "warning: {0}",
        WarningOf => "warning {1}/{2}: {0}",
        DiscardTitle => "Discard session {0}?",
        RemoveTitle => "Remove session {0}?",
        NothingLost => "Nothing would be lost.",
        UncommittedLost => "Uncommitted files (kept in refs/codiva/archive, restorable): {0}",
        CommitsArchived => {
            "Commits not on the base (kept under refs/codiva/archive, restorable): {0}"
        }
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
            "{0} is not working: nothing to interrupt (Esc: back to the list; /exit quits)"
        }
        ExitConfirm => {
            "{0} {0|session is|sessions are} still working: quitting stops {0|it|them} ({0|it comes|they come} back interrupted and {0|resumes|resume} on your next message). Quit codiva?"
        }
        Resuming => "resuming {0}…",
        MergedFollowUp => {
            "{0} is merged: it takes no more messages. Start a new session with this instruction instead?"
        }
        DiscardedFollowUp => {
            "{0} is discarded: it takes no more messages. Start a new session with this instruction instead?"
        }
        NothingToResume => "nothing to resume here",
        TypeTextForDialog => "type the text and press Enter (Esc: back to the dialog)",
        MergeTitle => "Merge {0} into {1}?",
        MergeDetail => "git merge --no-ff {0} in the main checkout; then the worktree is removed.",
        UnknownCommand => "unknown command /{0} (/help lists them)",
        CommandNotHere => "/{0} is not available here",
        StartNoTerminal => {
            "cannot open the terminal ({0}): run codiva in a terminal (codiva exec runs one instruction without one)"
        }
        StartNotARepo => "{0} is not inside a git repository (run codiva in a git checkout)",
        StartNoCommits => {
            "the repository at {0} has no commits yet; make a first commit and try again"
        }
        CommandOnlyInList => "/{0} works in the session list (Esc or Ctrl+L to get there)",
        CommandOnlyInSession => "/{0} works inside a session (open one with Enter)",
        ModelForNew => "new sessions use model {0}",
        AgentForNew => "new sessions run {0}",
        AgentsTitle => "Agents:",
        AgentNotLoggedIn => "installed, not logged in (its own login check says so)",
        AgentCannotInterrupt => "{0} cannot stop a running turn; wait for it to finish",
        AgentCannotSetModel => "{0} cannot change the model of a running session",
        NoAgent => "no agent installed",
        AgentReady => "ready",
        AgentReadyDefault => "ready · new sessions run it",
        AgentNotInstalled => "not installed",
        NoAgentInstalled => {
            "No coding agent is installed, so nothing can run yet. Install one of these, then press Enter: codiva looks again (what you typed stays)."
        }
        NoAgentPlaceholder => {
            "Nothing can run yet: install an agent, then press Enter to look again"
        }
        HintNoAgent => "Enter: look for agents again · /help: keys",
        AgentFound => "{0} is installed now: press Enter to start the session",
        StillNoAgent => {
            "still no coding agent installed: install one of those listed, then press Enter again"
        }
        AgentUsage => {
            "agent: {0} · /agent claude or /agent codex switches (the log and the worktree stay)"
        }
        InfoAgentSet => {
            "session {0} goes on with {1}; your next message carries a summary of the work so far"
        }
        NoteAgentSwitched => "switched from {0} to {1}",
        ModelHelp => "/model <id> — models: {0}",
        ModelsUnknown => "known once an agent has connected",
        NothingToClear => "no finished (merged or discarded) sessions to clear",
        ClearConfirm => {
            "Clear {0} finished {0|session|sessions} from the list? {0|Its branch stays|Their branches stay} archived."
        }
        Help => concat!(
            "# Everywhere\n",
            "Tab\tmove the keys: composer → dialog → list / log\n",
            "Shift+Tab\trun mode: confirm (ask for every tool) / auto\n",
            "Ctrl+C\tover a view or form: close it as Esc does; in a session: interrupt its turn; else clear the composer (never quits)\n",
            "Ctrl+R\tresume an interrupted or failed session\n",
            "Ctrl+N\tthe session that has waited longest for you\n",
            "Ctrl+L\tthe session list, from anywhere (closes what is open)\n",
            "Ctrl+G (list)\tattempts: the instruction typed to several agents or models side by side (/attempts)\n",
            "/\tthe command palette: type to filter, ↑↓ Enter run (every command is listed at the end)\n",
            "# Composer\n",
            "Enter\twhat the footer says: start, send, deny with a reason, answer, save\n",
            "Shift+Enter, Alt+Enter, \\\tnew line\n",
            "Esc\tback to the list (a session), to the dialog (a reason or an answer), cancel (prompt.md)\n",
            "← → ↑ ↓, Home, End\tmove the caret\n",
            "Ctrl+← →, Ctrl+W, Ctrl+U\tword motion, delete a word, clear\n",
            "Ctrl+Z, Ctrl+Y\tundo, redo\n",
            "↑ ↓ (list)\tinstruction history\n",
            "# List\n",
            "↑ ↓, Home, End\tselect\n",
            "Enter, →\topen the session\n",
            "m, d, x, r\tmerge, discard, remove, resume (each asks first)\n",
            "p, click on #n\topen the pull request in the browser\n",
            "P, /pr\tpush the branch and open a draft pull request (asks first)\n",
            "F, /fix-ci\tsend the failed checks and their log to the agent\n",
            "f\tfilter the list by title, branch or status (Esc clears)\n",
            "Enter, ← →, click (a group's row)\tcollapse or expand a group of attempts\n",
            "c, /compare\tcompare the attempts of the selected group; keep one there\n",
            "C, /check\trun the repository's check again (✓ passed, ✗ failed)\n",
            "Esc\tback to the composer\n",
            "# Session\n",
            "Esc\tback to the list\n",
            "↑ ↓ PgUp PgDn\tscroll the log (empty composer or log focus)\n",
            "# Log\n",
            "n, p\tnext, previous card (tool, subagent, thinking)\n",
            "Enter, click\topen or close the card; on a cut message, open it whole\n",
            "/, n, N\tsearch the log, next, previous match (Esc ends the search)\n",
            "g, G, Home, End\ttop, bottom\n",
            "Esc\tclose the card selection; else back to the composer\n",
            "m, d, x, r\tmerge, discard, remove, resume\n",
            "# Permission dialog\n",
            "y, a, n, s\tallow, always allow (pick a scope), deny with a reason, deny and stop\n",
            "↑ ↓, Enter\tchoose (also with a draft in the composer)\n",
            "Esc\tscope menu: back to the choices; else back to the list (a session) or the composer\n",
            "# Question dialog\n",
            "↑ ↓, Enter\tmove, pick / next question\n",
            "Space\ttoggle (multiple choice)\n",
            "← →\tswitch questions\n",
            "Esc\tthe previous question; on the first, as in the permission dialog\n",
            "# Compare attempts\n",
            "↑ ↓, Enter\tchoose an attempt, its diff against the base (Esc comes back)\n",
            "v, v\tthe diff between two attempts: v on one, then on the other\n",
            "k\tkeep it: asks once, listing the others to be discarded (/restore brings one back)\n",
            "r, R\tits check again; read the figures again\n",
            "# Full message, diff, pickers\n",
            "↑ ↓ PgUp PgDn, g G\tscroll or move; Enter picks\n",
            "/, n, N\tsearch a full message\n",
            "n, p, Tab\tnext, previous file (diff)\n",
            "c, Shift+↑ ↓, v\tcomment on the line or range (diff); l lists the comments (e edit, d remove)\n",
            "S\tsend the comments to the agent as one review (diff)\n",
            "Esc, q\tclose\n",
            "# Login\n",
            "Ctrl+O\topen the sign-in address in the browser\n",
            "Enter\tsend the code the browser shows\n",
            "Esc\tcancel the login\n",
            "# Confirmation\n",
            "y, n, Esc\tyes, no\n",
            "# This help\n",
            "↑ ↓ PgUp PgDn\tscroll\n",
            "Esc, q\tclose\n",
        ),
        InboxEmpty => "nobody is waiting for you",
        InboxMore => "{0} more waiting (Ctrl+N: next)",
        HelpCommands => "Commands",
        HelpInSession => " (in a session)",
        HelpTitle => "Keys and commands",
        HelpMore => "↓ {0} more · ↑↓ PgUp PgDn scroll · Esc close",
        HelpEnd => "↑↓ PgUp PgDn scroll · Esc close",
        ShutdownConfirm => {
            "{0} sessions are still working: /shutdown stops the daemon and every agent (they come back interrupted and resume on your next message). Stop?"
        }
        ShutdownConfirmOne => {
            "1 session is still working: /shutdown stops the daemon and every agent (it comes back interrupted and resumes on your next message). Stop?"
        }
        DetachedWorking => "{0} sessions keep running; `codiva` re-attaches",
        DetachedWorkingOne => "1 session keeps running; `codiva` re-attaches",
        DetachedIdle => {
            "the sessions stay with codiva's daemon; `codiva` re-attaches, `codiva stop` stops it"
        }
        DaemonStopped => "stopped the daemon and every agent",
        ResolvedElsewhere => "resolved by another client",
        Reattached => {
            "the connection to the daemon was lost: attached again, the open session and your draft as they were"
        }
        AgentCommand => "{0} (agent)",
        PermYes => "Yes",
        PermAlways => "Yes, and don't ask again…",
        PermDeny => "No, and tell the agent what to do instead",
        PermStop => "No, and stop this turn",
        PermTitle => "Allow {0}?",
        PermScopeTitle => "Always allow {0}: choose a scope",
        PermHintAllow => "y allow",
        PermHintAlways => "a always",
        PermHintDeny => "n deny",
        PermHintStop => "s stop",
        PermHintChoose => "↑↓ Enter choose",
        PermScopeHint => "↑↓ choose · Enter allow · Esc: back to the choices",
        PermSubagent => "(subagent)",
        PermBlockedPath => "Path needing permission: {0}",
        NoteLine => "{0} line",
        NoteLines => "{0} lines",
        NoteEdit => "{0} edit",
        NoteEdits => "{0} edits",
        NoteEveryOccurrence => "every occurrence",
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
        CardUnreported => "outcome unknown",
        CardShowMoreOne => "… {0} more line (Enter: show more)",
        CardShowMore => "… {0} more lines (Enter: show more)",
        CardToolUse => "{0} tool use",
        CardToolUses => "{0} tool uses",
        CardStarting => "starting…",
        CardBackground => "background",
        CardEarlierOne => "… {0} earlier entry",
        CardEarlier => "… {0} earlier entries",
        CardTools => "{0} tools:",
        TodoProgress => "tasks: {0} of {1} done",
        DetailRetrying => "retrying ({0}/{1}) in {2}: {3}",
        DetailRetryingNoCause => "retrying ({0}/{1}) in {2}",
        DetailSeconds => "{0} s",
        DetailStep => "step {0}/{1}",
        DetailWaitingOne => "waiting for {0} background agent",
        DetailWaitingMany => "waiting for {0} background agents",
        DetailCollecting => "collecting background results",
        DetailStalled => "stalled: no output for {0} {0|minute|minutes}",
        CardChoices => "choices:",
        CardLaunchedInBackground => "started in the background",
        CardThinking => "Thinking…",
        CardFromLine => " · from line {0}",
        CardLimitLine => " · {0} line",
        CardLimitLines => " · {0} {0|line|lines}",
        CardSearchIn => " in {0}",
        CardFailedN => "{0} failed",
        CardDeniedN => "{0} denied",
        CardUnreportedN => "{0} outcome unknown",
        NoteInterrupted => "interrupted",
        NoteContinued => "the answer was cut off; the agent continues",
        NoteDenied => "denied: {0}",
        NoteStalled => "no output from the agent for {0} {0|minute|minutes}",
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
        NoteIdleStopped => {
            "the agent was idle for {0} s: its process was stopped; the next message resumes the conversation"
        }
        NoteCompacted => "conversation compacted",
        NoteCompactedTrigger => " ({0})",
        NoteCompactedTokens => ", {0} tokens before",
        CompactAuto => "auto",
        CompactManual => "manual",
        NoteNotSent => "not sent (the session left the queue before an agent slot freed): {0}",
        NoteRepairPushed => "pushed the repair's commits of {0} to {1}",
        NoteRepairPushFailed => "pushing the repair's commits of {0} failed: {1}",
        NoteRepairNotPushed => "the repair turn made no new commit: nothing was pushed",
        NoteExitedBeforeTurn => "the agent exited before it took up the message ({0}){1}",
        NoteUnsupportedRequest => "refused a request codiva does not support: {0}",
        NoteStopReason => "the agent stopped the turn: {0}",
        NoteAllowedByPolicy => "{0} allowed by the approval policy ({1})",
        ResourcesTotal => "agents {0} · CPU {1}",
        ResourcesSession => "{0} · CPU {1}",
        InfoPromptSaved => "saved {0}; new sessions get it",
        ErrPromptSave => "cannot save {0}: {1}",
        ErrOpenUrl => "cannot open {0}: {1}",
        InfoModelSet => "{0} now uses {1}",
        DiffSummary => "{0} {0|file|files}, +{1} −{2}, {3} {3|commit|commits} ahead",
        DiffUncommitted => "{0} uncommitted {0|file|files}",
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
        RefMessageNotCut => "entry {0} is not a message the log cut",
        RefMessageTooLong => "the message is {0} bytes, more than the {1} that can be shown",
        RefMessageNotInTranscript => "the whole message is not in session {0}'s transcript: {1}",
        RefConfigNotToml => {
            "{0} is not valid TOML (line {1}); fix it in an editor first (/edit, or your editor)"
        }
        RefConfigUnknownKey => "not saved: unknown key {0}",
        RefAgentNotInstalled => "{1} is not installed: install it with `{2}`",
        RefNoAgentInstalled => "no agent is installed; install one: {0}",
        RefUnknownAgent => "there is no agent {0} (installed: {1})",
        RefConfigInvalid => "not saved: {0}",
        RefConfigUnwritable => "cannot read or write {0}: {1}",
        RefNoRemote => "{0} has no remote to push to (no branch.{0}.remote, no origin)",
        RefNothingToPush => "nothing to push: {0} has no commits that {1} lacks",
        RefNotOwner => {
            "this codiva daemon belongs to another user (uid {0}); connections from uid {1} are refused"
        }
        RefPushFailed => "pushing {0} to {1} failed: {2}",
        RefGhMissing => "the GitHub CLI `gh` is not installed (https://cli.github.com)",
        RefGhNotAuthenticated => "gh is not logged in (run `gh auth login`): {0}",
        RefGhRateLimited => "GitHub's rate limit is reached; try again later",
        RefPrFailed => "the pull request could not be opened: {0}",
        RefLoginUnavailable => "{0} has no login codiva can run; log in with its own CLI",
        RefLoginRunning => "a login for {0} is already running",
        RefLoginFailed => "cannot start {0}'s login: {1}",
        RefNoSuchLogin => "that login is no longer running",
        RefInPlaceBusy => "session {1} already runs in {0}; discard it first",
        RefInPlaceNotInRepo => "{0} is not inside the repository {1}",
        RefInPlaceSession => "session {0} runs in place, with no branch of its own: no {1}",
        RefNoSuchMcpServer => "session {0} has no MCP server {1} (it has: {2})",
        RefUnsupportedByAgent => "{0} does not take {1}",
        ErrNoSuchSession => "no session {0}",
        ErrStopped => "the session manager has stopped",
        LoginApiKey => {
            "Login needed: the API key from {0} was refused. The agent takes the environment of codiva's daemon: /shutdown, set a valid key in {0} (or unset it and log in with /login), start codiva again, then Ctrl+R resumes."
        }
        LoginToken => {
            "Login needed: the login token from {0} was refused. The agent takes the environment of codiva's daemon: /shutdown, renew {0} (or unset it and log in with /login), start codiva again, then Ctrl+R resumes."
        }
        LoginNone => {
            "Login needed: Claude Code has no credential. Fix: log in with /login, then Ctrl+R resumes. A key in ANTHROPIC_API_KEY reaches the agent only through the daemon's environment: /shutdown, set it, start codiva again."
        }
        ErrContainedPanic => {
            "internal error: {0}. codiva keeps running; a crash log was written to {1}"
        }
        ErrContainedPanicNoLog => {
            "internal error: {0}. codiva keeps running; the crash log could not be written ({1})"
        }
    }
}
