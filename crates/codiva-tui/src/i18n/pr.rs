//! The words of a session's pull requests: the session view's PR line, `/pr` and what it did,
//! in English and Japanese.

keys_with_words! {
    /// The words of the PR cell and line.
    PrText {
        Checking => "looking for a pull request…", "プルリクエストを確認中…";
        Loading => "state loading", "状態を取得中";
        Unknown => "state unknown", "状態不明";
        Open => "open", "オープン";
        Draft => "draft", "ドラフト";
        Merged => "merged", "マージ済み";
        Closed => "closed", "クローズ済み";
        ChecksRunning => "checks running", "チェック実行中";
        ChecksFailed => "checks failed", "チェック失敗";
        ChecksPassed => "checks passed", "チェック成功";
        Conflicting => "conflicts with the base", "ベースと競合";
        Reviews => "{0} unresolved review {0|thread|threads} · /address-review", "未解決のレビュー {0} 件 · /address-review";
        Several => "{0} pull requests:", "プルリクエスト {0} 件:";
        LookupFailed => "lookup failed ({0}); showing the last known", "取得に失敗（{0}）。最後に分かった状態を表示";
        RateLimited => "rate limited, paused", "API 上限のため一時停止";
        NotAuthenticated => "gh is not logged in", "gh が未ログイン";
        NotInstalled => "gh is not installed", "gh が未インストール";
        Network => "GitHub unreachable", "GitHub に接続できません";
        Failed => "gh failed", "gh のエラー";
        ConfirmPr => "Push {0} and open a draft pull request into {1}?", "{0} をプッシュして {1} へのドラフトのプルリクエストを作りますか？";
        Opened => "opened draft pull request #{0}: {1}", "ドラフトのプルリクエスト #{0} を作りました: {1}";
        Pushed => "pushed; pull request #{0}: {1}", "プッシュしました。プルリクエスト #{0}: {1}";
        NoPr => "this session has no pull request yet (/pr opens one)", "このセッションにはまだプルリクエストがありません（/pr で作成）";
    }
}
