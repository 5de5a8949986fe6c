//! The words of the finishing and picking views (restore list, merge confirmation, diff view,
//! model picker, config view, list filter, rename, shell and editor, git fixes, a cut message's
//! footer or header and a streaming reply's first row, the whole-message view and search), in
//! English and Japanese. An area of the catalogue (see `i18n.rs`): an exhaustive `match` per
//! language and the same `{n}` placeholders in both (tested).

use crate::i18n::t;

keys!(
    /// Every key of these views' words.
    ViewText,
    en: en,
    ja: ja,
    [
        CutFooter,
        CutHeader,
        StreamHidden,
        MessageTitle,
        MessageLoading,
        MessageCannotRead,
        MessageHint,
        SearchHint,
        LogSearchHint,
        SearchTyping,
        SearchNone,
        SearchWrapped,
        FocusView,
        PickerHint,
        RestoreTitle,
        RestoreEmpty,
        RestoreRow,
        Restoring,
        InfoRestored,
        ModelTitleSession,
        ModelTitleNew,
        ModelCurrent,
        ModelDefault,
        DiffTitle,
        DiffFiles,
        DiffTruncated,
        DiffEmpty,
        DiffLoading,
        ConfigTitle,
        ConfigHint,
        ConfigEditHint,
        ConfigDefault,
        ConfigDefaultSearched,
        ConfigDefaultCli,
        ConfigDefaultFirstAgent,
        ConfigDefaultNoLimit,
        ConfigSaved,
        MergeAhead,
        MergeNothing,
        MergeUncommitted,
        MergeCommitFirst,
        MergeChoices,
        MergeCommitChoices,
        CommitAsked,
        RemoveFinished,
        FilterLine,
        FilterEditing,
        FilterNoMatch,
        RenameHint,
        InfoRenamed,
        ShellBack,
        ShellFailed,
        GitFixIdentity,
        GitFixLock,
        GitFixOverwritten,
        UsageResetsIn,
        UsageRateLimited,
        DurationDaysHours,
        DurationHoursMinutes,
        DurationMinutes,
    ]
);

fn en(key: ViewText) -> &'static str {
    match key {
        ViewText::CutFooter => "… {0} more not shown · Enter in the log opens the whole message",
        ViewText::CutHeader => "↑ {0} above not shown — Enter for all",
        ViewText::StreamHidden => "↑ {0} above not shown",
        ViewText::MessageTitle => "The whole message ({0})",
        ViewText::MessageLoading => "reading the message from the agent's transcript…",
        ViewText::MessageCannotRead => "The whole message cannot be shown:",
        ViewText::MessageHint => "↑↓ PgUp PgDn Home End scroll · / search · Esc close",
        ViewText::SearchHint => "n/N next/previous match · Esc end the search · / new search",
        ViewText::LogSearchHint => {
            "n/N next/previous match · Esc end the search · ↑↓ PgUp PgDn scroll"
        }
        ViewText::SearchTyping => "/{0} · Enter find · Esc cancel",
        ViewText::SearchNone => "no match for “{0}”",
        ViewText::SearchWrapped => "the search went on from the other end",
        ViewText::FocusView => "view",
        ViewText::PickerHint => "↑↓ move · Enter choose · Esc close",
        ViewText::RestoreTitle => {
            "Discarded sessions: Enter restores one (its branch and worktree come back)"
        }
        ViewText::RestoreEmpty => "No discarded session to restore.",
        ViewText::RestoreRow => "{0} · active {1}",
        ViewText::Restoring => "restoring {0}…",
        ViewText::InfoRestored => "restored {0}: its branch and worktree are back",
        ViewText::ModelTitleSession => "Model for {0}",
        ViewText::ModelTitleNew => "Model for new sessions",
        ViewText::ModelCurrent => "current",
        ViewText::ModelDefault => "default (the agent's choice)",
        ViewText::DiffTitle => "Diff of {0} against {1}",
        ViewText::DiffFiles => "{0} {0|file|files}",
        ViewText::DiffTruncated => "the diff is cut at 1 MiB",
        ViewText::DiffEmpty => "No changes yet.",
        ViewText::DiffLoading => "reading the diff…",
        ViewText::ConfigTitle => "Configuration {0}",
        ViewText::ConfigHint => {
            "↑↓ move · Enter edit · Esc close · saved values apply the next time codiva starts"
        }
        ViewText::ConfigEditHint => {
            "New value of {0} (empty: back to the default) · Enter saves · Esc cancels"
        }
        ViewText::ConfigDefault => "default: {0}",
        ViewText::ConfigDefaultSearched => "searched (PATH, ~/.local/bin, …)",
        ViewText::ConfigDefaultCli => "the CLI's default",
        ViewText::ConfigDefaultFirstAgent => "the first installed (Claude Code, then Codex)",
        ViewText::ConfigDefaultNoLimit => "no limit",
        ViewText::ConfigSaved => "saved {0} in {1}; it applies the next time codiva starts",
        ViewText::MergeAhead => {
            "{0} {0|commit|commits} on {1} {0|is|are} merged into {2} with a merge commit; the worktree is removed after (the branch stays archived)."
        }
        ViewText::MergeNothing => {
            "{0} has no commits that {1} lacks: there is nothing to merge yet."
        }
        ViewText::MergeUncommitted => {
            "{0} uncommitted {0|file is|files are} NOT merged and {0|is|are} lost with the worktree: {1}"
        }
        ViewText::MergeCommitFirst => {
            "c asks the agent to commit them first (it gets an instruction; merge again when it is done)."
        }
        ViewText::MergeChoices => "y merge · n cancel · c ask the agent to commit first",
        ViewText::MergeCommitChoices => "c ask the agent to commit them · n close",
        ViewText::CommitAsked => "asked {0} to commit its changes; merge again when it has",
        ViewText::RemoveFinished => {
            "Remove {0} from the list? Its log goes; its branch tip stays under refs/codiva/archive/."
        }
        ViewText::FilterLine => "filter: {0}  ({1} of {2})",
        ViewText::FilterEditing => {
            "type to filter by title, branch or status · Enter keep · Esc clear"
        }
        ViewText::FilterNoMatch => "No session matches “{0}”.",
        ViewText::RenameHint => "edit the title and press Enter (empty: back to the instruction)",
        ViewText::InfoRenamed => "renamed to “{0}”",
        ViewText::ShellBack => "back from {0} (exit {1})",
        ViewText::ShellFailed => "could not run {0}: {1}",
        ViewText::GitFixIdentity => {
            "Fix: tell git who you are, then try again: git config --global user.name \"Your Name\" && git config --global user.email you@example.com"
        }
        ViewText::GitFixLock => {
            "Fix: another git command holds the repository's lock; if none is running, remove the stale .git/index.lock (or .git/worktrees/…/index.lock) it names."
        }
        ViewText::GitFixOverwritten => {
            "Fix: the main checkout has files in the way; commit or stash them there (git stash -u), then merge again."
        }
        ViewText::UsageResetsIn => "resets in {0}",
        ViewText::UsageRateLimited => "rate limited · resets {0}",
        ViewText::DurationDaysHours => "{0}d {1}h",
        ViewText::DurationHoursMinutes => "{0}h {1}m",
        ViewText::DurationMinutes => "{0}m",
    }
}

fn ja(key: ViewText) -> &'static str {
    match key {
        ViewText::CutFooter => {
            "… ほか {0} は表示していません · ログで Enter を押すと全文を開きます"
        }
        ViewText::CutHeader => "↑ 上の {0} は表示していません — Enter で全文",
        ViewText::StreamHidden => "↑ 上の {0} は表示していません",
        ViewText::MessageTitle => "メッセージ全文（{0}）",
        ViewText::MessageLoading => "エージェントの記録からメッセージを読んでいます…",
        ViewText::MessageCannotRead => "メッセージ全文を表示できません:",
        ViewText::MessageHint => "↑↓ PgUp PgDn Home End スクロール · / 検索 · Esc 閉じる",
        ViewText::SearchHint => "n/N 次/前の一致 · Esc 検索を終了 · / 新しい検索",
        ViewText::LogSearchHint => "n/N 次/前の一致 · Esc 検索を終了 · ↑↓ PgUp PgDn スクロール",
        ViewText::SearchTyping => "/{0} · Enter 検索 · Esc 取り消し",
        ViewText::SearchNone => "「{0}」に一致するものはありません",
        ViewText::SearchWrapped => "端まで来たので反対側から続けて検索しました",
        ViewText::FocusView => "画面",
        ViewText::PickerHint => "↑↓ 移動 · Enter 選択 · Esc 閉じる",
        ViewText::RestoreTitle => {
            "破棄したセッション: Enter で元に戻す（ブランチとワークツリーが戻ります）"
        }
        ViewText::RestoreEmpty => "元に戻せる破棄済みセッションはありません。",
        ViewText::RestoreRow => "{0} · 作業時間 {1}",
        ViewText::Restoring => "{0} を元に戻しています…",
        ViewText::InfoRestored => "{0} を元に戻しました（ブランチとワークツリーが戻りました）",
        ViewText::ModelTitleSession => "{0} のモデル",
        ViewText::ModelTitleNew => "新しいセッションのモデル",
        ViewText::ModelCurrent => "現在",
        ViewText::ModelDefault => "既定（エージェントが選ぶ）",
        ViewText::DiffTitle => "{0} と {1} の差分",
        ViewText::DiffFiles => "{0} ファイル",
        ViewText::DiffTruncated => "差分は 1 MiB で切っています",
        ViewText::DiffEmpty => "まだ変更はありません。",
        ViewText::DiffLoading => "差分を読んでいます…",
        ViewText::ConfigTitle => "設定 {0}",
        ViewText::ConfigHint => {
            "↑↓ 移動 · Enter 編集 · Esc 閉じる · 保存した値は次に codiva を起動したときに有効"
        }
        ViewText::ConfigEditHint => "{0} の新しい値（空なら既定に戻す）· Enter 保存 · Esc 取消",
        ViewText::ConfigDefault => "既定: {0}",
        ViewText::ConfigDefaultSearched => "自動で探す（PATH、~/.local/bin など）",
        ViewText::ConfigDefaultCli => "CLI の既定",
        ViewText::ConfigDefaultFirstAgent => {
            "インストール済みの最初のもの（Claude Code、次に Codex）"
        }
        ViewText::ConfigDefaultNoLimit => "制限なし",
        ViewText::ConfigSaved => "{0} を {1} に保存しました（次に codiva を起動したときに有効）",
        ViewText::MergeAhead => {
            "{1} の {0} 件のコミットをマージコミットで {2} にマージします。その後ワークツリーは削除されます（ブランチはアーカイブに残ります）。"
        }
        ViewText::MergeNothing => {
            "{0} には {1} にないコミットがありません。まだマージするものはありません。"
        }
        ViewText::MergeUncommitted => {
            "未コミットの {0} ファイルはマージされず、ワークツリーと一緒に失われます: {1}"
        }
        ViewText::MergeCommitFirst => {
            "c でエージェントに先にコミットを頼みます（指示を送ります。終わったらもう一度マージ）。"
        }
        ViewText::MergeChoices => "y マージ · n 取消 · c 先にエージェントにコミットを頼む",
        ViewText::MergeCommitChoices => "c エージェントにコミットを頼む · n 閉じる",
        ViewText::CommitAsked => {
            "{0} に変更のコミットを頼みました。終わったらもう一度マージしてください"
        }
        ViewText::RemoveFinished => {
            "{0} を一覧から削除しますか？ ログは消えます。ブランチの先端は refs/codiva/archive/ に残ります。"
        }
        ViewText::FilterLine => "絞り込み: {0}（{2} 件中 {1} 件）",
        ViewText::FilterEditing => {
            "入力してタイトル・ブランチ・状態で絞り込み · Enter 確定 · Esc 解除"
        }
        ViewText::FilterNoMatch => "「{0}」に合うセッションはありません。",
        ViewText::RenameHint => "タイトルを編集して Enter（空なら指示文に戻す）",
        ViewText::InfoRenamed => "タイトルを「{0}」にしました",
        ViewText::ShellBack => "{0} から戻りました（終了コード {1}）",
        ViewText::ShellFailed => "{0} を実行できません: {1}",
        ViewText::GitFixIdentity => {
            "対処: git に名前とメールを設定してからやり直してください: git config --global user.name \"Your Name\" && git config --global user.email you@example.com"
        }
        ViewText::GitFixLock => {
            "対処: 別の git コマンドがリポジトリをロックしています。実行中のものがなければ、示された古い .git/index.lock（または .git/worktrees/…/index.lock）を削除してください。"
        }
        ViewText::GitFixOverwritten => {
            "対処: メインのチェックアウトにじゃまなファイルがあります。そこでコミットするか退避（git stash -u）してから、もう一度マージしてください。"
        }
        ViewText::UsageResetsIn => "{0}後にリセット",
        ViewText::UsageRateLimited => "利用上限に到達 · {0} にリセット",
        ViewText::DurationDaysHours => "{0}日{1}時間",
        ViewText::DurationHoursMinutes => "{0}時間{1}分",
        ViewText::DurationMinutes => "{0}分",
    }
}

/// A git error's message with the fix for the problems a user can fix (git's own words first).
pub fn with_git_fix(message: &str) -> String {
    let lower = message.to_ascii_lowercase();
    let fix = if lower.contains("please tell me who you are")
        || lower.contains("author identity unknown")
        || lower.contains("committer identity unknown")
        || lower.contains("unable to auto-detect email address")
    {
        Some(ViewText::GitFixIdentity)
    } else if lower.contains("index.lock") && lower.contains("file exists") {
        Some(ViewText::GitFixLock)
    } else if lower.contains("would be overwritten by merge") {
        Some(ViewText::GitFixOverwritten)
    } else {
        None
    };
    match fix {
        Some(fix) => format!("{message}\n{}", t(fix)),
        None => message.to_owned(),
    }
}
