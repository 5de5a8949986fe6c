//! The words of `/fix-ci`, `/commit`, `/recover` and the session view's uncommitted files, in
//! English and Japanese, and the refusals of the manager they bring (worded with the rest in
//! `i18n::refusal_text`).

keys_with_words! {
    /// The words of the repair commands.
    RepairText {
        FixCiSent => "sent {0} failed {0|check|checks} of #{1} to the agent ({2} bytes of log)", "#{1} の失敗したチェック {0} 件をエージェントに送りました（ログ {2} バイト）";
        Committed => "committed {0} {0|file|files} as {1}", "{0} 件のファイルを {1} としてコミットしました";
        AskedCommit => "asked the agent to commit {0} uncommitted {0|file|files}", "未コミットのファイル {0} 件のコミットをエージェントに依頼しました";
        Uncommitted => "{0} uncommitted: {1}", "未コミット {0} 件: {1}";
        UncommittedHint => "/commit", "/commit";
        NothingStuck => "no stuck pull request (none failed its checks or conflicts)", "止まっているプルリクエストはありません（チェック失敗も競合もなし）";
        RecoverTitle => "Repair {0} stuck {0|session|sessions} one by one?", "止まっている {0} 件のセッションを順に修復しますか？";
        RecoverCounts => "{0} with failed checks (fix-ci: the failures go to the agent), {1} conflicting (sync: the base is merged in, then pushed)", "チェック失敗 {0} 件（fix-ci: 失敗内容をエージェントへ）、競合 {1} 件（sync: ベースをマージしてプッシュ）";
        Recovered => "recover: {0} of {1} succeeded", "recover: {1} 件中 {0} 件成功";
        RecoverFailed => "failed: {0}", "失敗: {0}";
        RefNoPr => "session {0} has no open pull request (/pr opens one)", "セッション {0} にはオープンなプルリクエストがありません（/pr で作成）";
        ReviewSent => "sent {0} review {0|thread|threads} of #{1} to the agent ({2} bytes)", "#{1} のレビュー {0} 件をエージェントに送りました（{2} バイト）";
        ReviewLeftOut => "{0} more did not fit (see the pull request)", "ほか {0} 件は収まりませんでした（プルリクエストを参照）";
        RefNoUnresolvedReviews => "pull request #{0} has no unresolved review thread", "プルリクエスト #{0} に未解決のレビューはありません";
        RefReviewsSentAlready => "the {1} unresolved review {1|thread|threads} of pull request #{0} {1|was|were} sent to the agent already", "プルリクエスト #{0} の未解決のレビュー {1} 件は送信済みです";
        RefNothingFailing => "pull request #{0} has no failed check (checks: {1})", "プルリクエスト #{0} に失敗したチェックはありません（チェック: {1}）";
        RefNothingToCommit => "session {0} has no uncommitted changes", "セッション {0} に未コミットの変更はありません";
        RefCommitFailed => "committing failed: {0}", "コミットに失敗しました: {0}";
        RefNothingToMergeCommit => "nothing to merge: {0} has no commits that {1} lacks, and {2} {2|file is|files are} uncommitted — /commit first", "マージするものがありません: {0} には {1} にないコミットがなく、{2} 件が未コミットです。先に /commit を";
        RefNothingToPushCommit => "nothing to push: {0} has no commits that {1} lacks, and {2} {2|file is|files are} uncommitted — /commit first", "プッシュするものがありません: {0} には {1} にないコミットがなく、{2} 件が未コミットです。先に /commit を";
    }
}
