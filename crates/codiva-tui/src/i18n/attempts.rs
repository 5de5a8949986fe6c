//! The words of attempts: the `/attempts` form, a group's rows in the list, the compare view,
//! keeping one attempt, and a session's check, in English and Japanese.

keys_with_words! {
    /// The words of groups of attempts and of checks.
    AttemptText {
        GroupTitle => "{0} {0|attempt|attempts}: {1}", "試行 {0} 件: {1}";
        GroupCounts => "{0} running · {1} waiting · {2} ended", "実行中 {0} · 待機 {1} · 終了 {2}";
        HintGroupRow => "↑↓ select · Enter/← → fold · c compare · Esc: composer", "↑↓ 選択 · Enter/← → 折りたたみ · c 比較 · Esc: 入力欄";
        GroupCountsShort => "{0} run {1} wait {2} ended", "実行{0} 待機{1} 終了{2}";
        FormTitle => "Attempts: one instruction to several agents, side by side", "試行: 一つの指示を複数のエージェントで並べて実行";
        FormAgents => "Agents and models", "エージェントとモデル";
        FormAgentsHint => "agent or agent:model, separated by commas (claude, codex, claude:opus)", "agent または agent:model をカンマ区切りで（claude, codex, claude:opus）";
        FormInstalled => "installed: {0}", "インストール済み: {0}";
        FormInstruction => "Instruction", "指示";
        FormInstructionPlaceholder => "what every attempt is to do", "すべての試行に与える指示";
        FormPreview => "{0} {0|attempt|attempts}, each in its own worktree and branch:", "試行 {0} 件（それぞれ専用のワークツリーとブランチ）:";
        FormDefaultModel => "its default model", "既定のモデル";
        FormHint => "Tab next field · Enter start · Esc cancel", "Tab 次の欄 · Enter 開始 · Esc 取り消し";
        FormEmpty => "name at least one agent", "エージェントを一つ以上指定してください";
        FormTooMany => "{0} attempts; at most {1}", "試行 {0} 件は多すぎます（最大 {1} 件）";
        FormMalformed => "“{0}” is not agent or agent:model", "「{0}」は agent または agent:model の形ではありません";
        FormUnknownAgent => "unknown agent: {0} (installed: {1})", "不明なエージェント: {0}（インストール済み: {1}）";
        FormNotInstalled => "{0} is not installed: {1}", "{0} はインストールされていません: {1}";
        FormNoInstruction => "type the instruction every attempt is given", "各試行に与える指示を入力してください";
        Started => "started {0} {0|attempt|attempts}: {1}", "試行を {0} 件開始しました: {1}";
        NotInGroup => "this session is not one of a group's attempts", "このセッションはグループの試行ではありません";
        CompareTitle => "Compare {0} {0|attempt|attempts}: {1}", "試行 {0} 件の比較: {1}";
        CompareLoading => "reading the attempts' figures…", "試行の数値を取得中…";
        ColAttempt => "attempt", "試行";
        ColStatus => "status", "状態";
        ColFiles => "files", "ファイル";
        ColLines => "lines", "行";
        ColCommits => "commits", "コミット";
        ColCheck => "check", "チェック";
        ColTime => "time", "時間";
        ColTokens => "tokens", "トークン";
        ColCost => "cost", "費用";
        CompareHint => "↑↓ attempt · Enter diff · v diff with another · k keep · r check · R refresh · Esc close", "↑↓ 試行 · Enter 差分 · v 別の試行との差分 · k 残す · r チェック · R 更新 · Esc 閉じる";
        CompareMarked => "v on another: the diff from {0} · Esc: none", "別の試行で v: {0} からの差分 · Esc: 取り消し";
        CompareSame => "choose another attempt than {0}", "{0} 以外の試行を選んでください";
        CompareNoWork => "no worktree", "ワークツリーなし";
        CompareKept => "kept", "残した試行";
        CompareDetail => "{0} · branch {1}", "{0} · ブランチ {1}";
        CompareGitError => "git: {0}", "git: {0}";
        CompareChanged => "changed: {0}", "変更: {0}";
        CheckPassed => "passed", "成功";
        CheckFailed => "failed", "失敗";
        CheckFailedCode => "failed (exit {0})", "失敗（終了コード {0}）";
        CheckTimedOut => "timed out", "時間切れ";
        CheckError => "could not run", "実行できず";
        CheckRunning => "running", "実行中";
        CheckUnknown => "unknown", "不明";
        CheckNone => "—", "—";
        CheckLabel => "check {0}: {1}", "チェック {0}: {1}";
        CheckShort => "check {0}", "チェック {0}";
        CheckStarted => "check started: {0}", "チェックを開始しました: {0}";
        KeepTitle => "Keep {0} for “{1}”? It stays as any session; the others are discarded (archived, /restore brings one back):", "「{1}」の試行 {0} を残しますか？ 通常のセッションとして残り、他は破棄されます（アーカイブされ、/restore で戻せます）:";
        KeepNone => "Keep {0} for “{1}”? No other attempt is left to discard.", "「{1}」の試行 {0} を残しますか？ 破棄する他の試行はありません。";
        KeepOther => "✗ {0} · {1}: {2}", "✗ {0} · {1}: {2}";
        KeepNothingLost => "nothing uncommitted", "未コミットなし";
        KeepUncommitted => "{0} uncommitted {0|file|files} archived", "未コミットのファイル {0} 件をアーカイブ";
        KeepArchived => "{0} {0|commit|commits} archived", "コミット {0} 件をアーカイブ";
        KeepDone => "kept {0}; {1} other {1|attempt|attempts} discarded (/restore brings one back)", "{0} を残しました。他の試行 {1} 件を破棄しました（/restore で戻せます）";
        RefAlreadyKept => "this group already kept {0}", "このグループはすでに {0} を残しています";
        RefCheckRunning => "the check is running already", "チェックはすでに実行中です";
        RefNoCheckConfigured => "this repository names no check: set check = \"…\" in .codiva/config.toml", "このリポジトリにはチェックがありません: .codiva/config.toml に check = \"…\" を設定してください";
        RefNoSuchGroup => "no group {0}", "グループ {0} はありません";
        RefNotInGroup => "{0} is not an attempt of group {1}", "{0} はグループ {1} の試行ではありません";
        RefTooManyAttempts => "{0} attempts; at most {1}", "試行 {0} 件は多すぎます（最大 {1} 件）";
    }
}
