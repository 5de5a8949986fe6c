//! The words of the finishing and picking views (restore list, merge confirmation, diff view,
//! model picker, config view, list filter, rename, shell and editor, git fixes, a cut message's
//! footer or header and a streaming reply's first row, the whole-message view and search), in English and
//! Japanese. A part of the catalogue in its own file so that `i18n.rs` stays small; the same
//! rules: an exhaustive `match` per language and the same `{n}` placeholders in both (tested).

use crate::i18n::{Lang, lang};

macro_rules! view_keys {
    ($($key:ident),* $(,)?) => {
        /// Every string of these views.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum V { $($key),* }
        impl V {
            pub const ALL: &'static [V] = &[$(V::$key),*];
        }
    };
}

view_keys![
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
    CmdRestore,
    CmdCommits,
    CommitsNone,
    CommitsTitle,
    CommitsMore,
    CmdShell,
    CmdEdit,
    CmdRename,
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
    DiffHint,
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
];

pub fn vt(key: V) -> &'static str {
    text(lang(), key)
}

pub fn vtf(key: V, args: &[&str]) -> String {
    crate::i18n::fill(vt(key), args)
}

pub fn text(lang: Lang, key: V) -> &'static str {
    match lang {
        Lang::En => en(key),
        Lang::Ja => ja(key),
    }
}

fn en(key: V) -> &'static str {
    match key {
        V::CutFooter => "… {0} more not shown · Enter in the log opens the whole message",
        V::CutHeader => "↑ {0} above not shown — Enter for all",
        V::StreamHidden => "↑ {0} above not shown",
        V::MessageTitle => "The whole message ({0})",
        V::MessageLoading => "reading the message from the agent's transcript…",
        V::MessageCannotRead => "The whole message cannot be shown:",
        V::MessageHint => "↑↓ PgUp PgDn Home End scroll · / search · Esc close",
        V::SearchHint => "n/N next/previous match · Esc end the search · / new search",
        V::LogSearchHint => "n/N next/previous match · Esc end the search · ↑↓ PgUp PgDn scroll",
        V::SearchTyping => "/{0} · Enter find · Esc cancel",
        V::SearchNone => "no match for “{0}”",
        V::SearchWrapped => "the search went on from the other end",
        V::CmdRestore => "bring back a discarded session",
        V::CmdCommits => "the commits a merge or pull request would take",
        V::CommitsNone => "{0} has no commits that {1} lacks.",
        V::CommitsTitle => "{0} commits on {1} that {2} lacks:",
        V::CommitsMore => "… and more",
        V::CmdShell => "open $SHELL in the session's worktree",
        V::CmdEdit => "open $EDITOR in the session's worktree",
        V::CmdRename => "edit the session's title",
        V::FocusView => "view",
        V::PickerHint => "↑↓ move · Enter choose · Esc close",
        V::RestoreTitle => {
            "Discarded sessions: Enter restores one (its branch and worktree come back)"
        }
        V::RestoreEmpty => "No discarded session to restore.",
        V::RestoreRow => "{0} · active {1}",
        V::Restoring => "restoring {0}…",
        V::InfoRestored => "restored {0}: its branch and worktree are back",
        V::ModelTitleSession => "Model for {0}",
        V::ModelTitleNew => "Model for new sessions",
        V::ModelCurrent => "current",
        V::ModelDefault => "default (the agent's choice)",
        V::DiffTitle => "Diff of {0} against {1}",
        V::DiffFiles => "{0} files",
        V::DiffTruncated => "the diff is cut at 1 MiB",
        V::DiffEmpty => "No changes yet.",
        V::DiffHint => "↑↓ PgUp PgDn scroll · n/p next/previous file · Esc close",
        V::DiffLoading => "reading the diff…",
        V::ConfigTitle => "Configuration {0}",
        V::ConfigHint => {
            "↑↓ move · Enter edit · Esc close · saved values apply the next time codiva starts"
        }
        V::ConfigEditHint => {
            "New value of {0} (empty: back to the default) · Enter saves · Esc cancels"
        }
        V::ConfigDefault => "default: {0}",
        V::ConfigDefaultSearched => "searched (PATH, ~/.local/bin, …)",
        V::ConfigDefaultCli => "the CLI's default",
        V::ConfigDefaultFirstAgent => "the first installed (Claude Code, then Codex)",
        V::ConfigDefaultNoLimit => "no limit",
        V::ConfigSaved => "saved {0} in {1}; it applies the next time codiva starts",
        V::MergeAhead => {
            "{0} {0|commit|commits} on {1} {0|is|are} merged into {2} with a merge commit; the worktree is removed after (the branch stays archived)."
        }
        V::MergeNothing => "{0} has no commits that {1} lacks: there is nothing to merge yet.",
        V::MergeUncommitted => {
            "{0} uncommitted {0|file is|files are} NOT merged and {0|is|are} lost with the worktree: {1}"
        }
        V::MergeCommitFirst => {
            "c asks the agent to commit them first (it gets an instruction; merge again when it is done)."
        }
        V::MergeChoices => "y merge · n cancel · c ask the agent to commit first",
        V::MergeCommitChoices => "c ask the agent to commit them · n close",
        V::CommitAsked => "asked {0} to commit its changes; merge again when it has",
        V::RemoveFinished => {
            "Remove {0} from the list? Its log goes; its branch tip stays under refs/codiva/archive/."
        }
        V::FilterLine => "filter: {0}  ({1} of {2})",
        V::FilterEditing => "type to filter by title, branch or status · Enter keep · Esc clear",
        V::FilterNoMatch => "No session matches “{0}”.",
        V::RenameHint => "edit the title and press Enter (empty: back to the instruction)",
        V::InfoRenamed => "renamed to “{0}”",
        V::ShellBack => "back from {0} (exit {1})",
        V::ShellFailed => "could not run {0}: {1}",
        V::GitFixIdentity => {
            "Fix: tell git who you are, then try again: git config --global user.name \"Your Name\" && git config --global user.email you@example.com"
        }
        V::GitFixLock => {
            "Fix: another git command holds the repository's lock; if none is running, remove the stale .git/index.lock (or .git/worktrees/…/index.lock) it names."
        }
        V::GitFixOverwritten => {
            "Fix: the main checkout has files in the way; commit or stash them there (git stash -u), then merge again."
        }
        V::UsageResetsIn => "resets in {0}",
        V::UsageRateLimited => "rate limited · resets {0}",
        V::DurationDaysHours => "{0}d {1}h",
        V::DurationHoursMinutes => "{0}h {1}m",
        V::DurationMinutes => "{0}m",
    }
}

fn ja(key: V) -> &'static str {
    match key {
        V::CutFooter => "… ほか {0} は表示していません · ログで Enter を押すと全文を開きます",
        V::CutHeader => "↑ 上の {0} は表示していません — Enter で全文",
        V::StreamHidden => "↑ 上の {0} は表示していません",
        V::MessageTitle => "メッセージ全文（{0}）",
        V::MessageLoading => "エージェントの記録からメッセージを読んでいます…",
        V::MessageCannotRead => "メッセージ全文を表示できません:",
        V::MessageHint => "↑↓ PgUp PgDn Home End スクロール · / 検索 · Esc 閉じる",
        V::SearchHint => "n/N 次/前の一致 · Esc 検索を終了 · / 新しい検索",
        V::LogSearchHint => "n/N 次/前の一致 · Esc 検索を終了 · ↑↓ PgUp PgDn スクロール",
        V::SearchTyping => "/{0} · Enter 検索 · Esc 取り消し",
        V::SearchNone => "「{0}」に一致するものはありません",
        V::SearchWrapped => "端まで来たので反対側から続けて検索しました",
        V::CmdRestore => "破棄したセッションを元に戻す",
        V::CmdCommits => "マージやプルリクエストに含まれるコミット",
        V::CommitsNone => "{0} には {1} にないコミットがありません。",
        V::CommitsTitle => "{1} にあって {2} にないコミット {0} 件:",
        V::CommitsMore => "…ほかにもあります",
        V::CmdShell => "セッションのワークツリーで $SHELL を開く",
        V::CmdEdit => "セッションのワークツリーで $EDITOR を開く",
        V::CmdRename => "セッションのタイトルを編集",
        V::FocusView => "画面",
        V::PickerHint => "↑↓ 移動 · Enter 選択 · Esc 閉じる",
        V::RestoreTitle => {
            "破棄したセッション: Enter で元に戻す（ブランチとワークツリーが戻ります）"
        }
        V::RestoreEmpty => "元に戻せる破棄済みセッションはありません。",
        V::RestoreRow => "{0} · 作業時間 {1}",
        V::Restoring => "{0} を元に戻しています…",
        V::InfoRestored => "{0} を元に戻しました（ブランチとワークツリーが戻りました）",
        V::ModelTitleSession => "{0} のモデル",
        V::ModelTitleNew => "新しいセッションのモデル",
        V::ModelCurrent => "現在",
        V::ModelDefault => "既定（エージェントが選ぶ）",
        V::DiffTitle => "{0} と {1} の差分",
        V::DiffFiles => "{0} ファイル",
        V::DiffTruncated => "差分は 1 MiB で切っています",
        V::DiffEmpty => "まだ変更はありません。",
        V::DiffHint => "↑↓ PgUp PgDn スクロール · n/p 次/前のファイル · Esc 閉じる",
        V::DiffLoading => "差分を読んでいます…",
        V::ConfigTitle => "設定 {0}",
        V::ConfigHint => {
            "↑↓ 移動 · Enter 編集 · Esc 閉じる · 保存した値は次に codiva を起動したときに有効"
        }
        V::ConfigEditHint => "{0} の新しい値（空なら既定に戻す）· Enter 保存 · Esc 取消",
        V::ConfigDefault => "既定: {0}",
        V::ConfigDefaultSearched => "自動で探す（PATH、~/.local/bin など）",
        V::ConfigDefaultCli => "CLI の既定",
        V::ConfigDefaultFirstAgent => "インストール済みの最初のもの（Claude Code、次に Codex）",
        V::ConfigDefaultNoLimit => "制限なし",
        V::ConfigSaved => "{0} を {1} に保存しました（次に codiva を起動したときに有効）",
        V::MergeAhead => {
            "{1} の {0} 件のコミットをマージコミットで {2} にマージします。その後ワークツリーは削除されます（ブランチはアーカイブに残ります）。"
        }
        V::MergeNothing => {
            "{0} には {1} にないコミットがありません。まだマージするものはありません。"
        }
        V::MergeUncommitted => {
            "未コミットの {0} ファイルはマージされず、ワークツリーと一緒に失われます: {1}"
        }
        V::MergeCommitFirst => {
            "c でエージェントに先にコミットを頼みます（指示を送ります。終わったらもう一度マージ）。"
        }
        V::MergeChoices => "y マージ · n 取消 · c 先にエージェントにコミットを頼む",
        V::MergeCommitChoices => "c エージェントにコミットを頼む · n 閉じる",
        V::CommitAsked => "{0} に変更のコミットを頼みました。終わったらもう一度マージしてください",
        V::RemoveFinished => {
            "{0} を一覧から削除しますか？ ログは消えます。ブランチの先端は refs/codiva/archive/ に残ります。"
        }
        V::FilterLine => "絞り込み: {0}（{2} 件中 {1} 件）",
        V::FilterEditing => "入力してタイトル・ブランチ・状態で絞り込み · Enter 確定 · Esc 解除",
        V::FilterNoMatch => "「{0}」に合うセッションはありません。",
        V::RenameHint => "タイトルを編集して Enter（空なら指示文に戻す）",
        V::InfoRenamed => "タイトルを「{0}」にしました",
        V::ShellBack => "{0} から戻りました（終了コード {1}）",
        V::ShellFailed => "{0} を実行できません: {1}",
        V::GitFixIdentity => {
            "対処: git に名前とメールを設定してからやり直してください: git config --global user.name \"Your Name\" && git config --global user.email you@example.com"
        }
        V::GitFixLock => {
            "対処: 別の git コマンドがリポジトリをロックしています。実行中のものがなければ、示された古い .git/index.lock（または .git/worktrees/…/index.lock）を削除してください。"
        }
        V::GitFixOverwritten => {
            "対処: メインのチェックアウトにじゃまなファイルがあります。そこでコミットするか退避（git stash -u）してから、もう一度マージしてください。"
        }
        V::UsageResetsIn => "{0}後にリセット",
        V::UsageRateLimited => "利用上限に到達 · {0} にリセット",
        V::DurationDaysHours => "{0}日{1}時間",
        V::DurationHoursMinutes => "{0}時間{1}分",
        V::DurationMinutes => "{0}分",
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
        Some(V::GitFixIdentity)
    } else if lower.contains("index.lock") && lower.contains("file exists") {
        Some(V::GitFixLock)
    } else if lower.contains("would be overwritten by merge") {
        Some(V::GitFixOverwritten)
    } else {
        None
    };
    match fix {
        Some(fix) => format!("{message}\n{}", vt(fix)),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders(text: &str) -> Vec<usize> {
        (0..10)
            .filter(|index| text.contains(&format!("{{{index}}}")))
            .collect()
    }

    #[test]
    fn both_languages_have_every_key_with_the_same_placeholders() {
        for key in V::ALL {
            let (en, ja) = (text(Lang::En, *key), text(Lang::Ja, *key));
            assert!(!en.is_empty() && !ja.is_empty(), "{key:?}");
            assert_eq!(placeholders(en), placeholders(ja), "{key:?}");
        }
    }

    #[test]
    fn git_errors_come_with_their_fix() {
        let identity = "`git merge --no-ff --no-edit codiva/x` failed (exit 128): Committer identity unknown\n\n*** Please tell me who you are.";
        let out = crate::i18n::with_lang(Lang::En, || with_git_fix(identity));
        assert!(out.starts_with(identity));
        assert!(out.contains("git config --global user.email"), "{out}");
        let ja = crate::i18n::with_lang(Lang::Ja, || with_git_fix(identity));
        assert!(ja.contains("git config --global user.name"), "{ja}");
        let lock = "fatal: Unable to create '/r/.git/index.lock': File exists.";
        assert!(with_git_fix(lock).contains("index.lock"));
        assert_eq!(with_git_fix("fatal: boom"), "fatal: boom");
    }
}
