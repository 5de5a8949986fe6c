//! The Japanese catalogue: the text of every [`AppText`]. An exhaustive `match`, so a key added to
//! the list in `app.rs` does not compile until it has its Japanese words here.

use super::AppText;

pub(super) fn ja(key: AppText) -> &'static str {
    use AppText::*;
    match key {
        ListPlaceholder => "指示を入力して Enter でセッション開始（/ でコマンド）",
        FollowUpPlaceholder => "{0} への追加の指示 — Enter で送信（Esc: 一覧へ戻る）",
        MergedPlaceholder => {
            "{0} はマージ済み — Enter で入力内容から新しいセッションを始めるか確認します（Esc: 一覧へ戻る）"
        }
        DiscardedPlaceholder => {
            "{0} は破棄済み — Enter で入力内容から新しいセッションを始めるか確認します（Esc: 一覧へ戻る）"
        }
        DenyReasonPlaceholder => {
            "拒否の理由（代わりにすべきこと）— Enter で拒否（空なら理由なし）、Esc でダイアログへ"
        }
        AnswerPlaceholder => "回答を入力 — Enter で送信、Esc で質問へ戻る",
        PromptPlaceholder => ".codiva/prompt.md は空です — Enter で保存（空なら削除）、Esc で取消",
        EmptyHint => "指示を入力して Enter を押すと、最初のセッションが始まります。",
        MoreAbove => "↑ ほか {0} 件",
        MoreBelow => "↓ ほか {0} 件",
        MoreLineBelow => "ほか {0} 行",
        MoreLinesBelow => "ほか {0} 行",
        Sessions => "{0} セッション",
        SessionOne => "{0} セッション",
        Waiting => "● {0} 件が応答待ち",
        DefaultModel => "既定のモデル",
        Base => "ベース {0}",
        YesNo => "y: はい · n: いいえ",
        TabToAnswer => "（Tab: 応答）",
        Conflicts => " · 競合: {0}",
        Tokens => "{0} トークン",
        McpSummary => "MCP {0}/{1}",
        InPlaceAt => "その場: {0}",
        McpFailed => "{0} 失敗",
        McpNeedsAuth => "{0} 要ログイン",
        McpNotReported => "MCP {0} 件 状態の報告なし",
        ModeLabel => " モード: {0}（Shift+Tab）",
        ModeLabelShort => " モード: {0} ",
        ModeConfirm => "確認",
        ModeAuto => "自動",
        HintListFocus => "↑↓ 選択 · Enter 開く · Esc: 入力欄 · m マージ · d 破棄 · x 削除 · r 再開",
        HintListDialog => "選択中のセッションに応答 · Esc: 入力欄 · Tab: 一覧",
        HintDetailDialog => "応答 · Esc: 一覧へ戻る · Tab: ログを読む",
        HintListDialogBack => "選択中のセッションに応答 · {0} · Tab: 一覧",
        HintDetailDialogBack => "応答 · {0} · Tab: ログを読む",
        HintEscChoices => "Esc: 選択肢へ戻る",
        HintEscPreviousQuestion => "Esc: 前の質問へ",
        HintList => "Enter: 開始 · Tab: 移動 · / コマンド · Ctrl+N: 次の応答待ち · /help: キー一覧",
        HintDetailLog => {
            "↑↓ PgUp PgDn スクロール · n/p カード · Enter 開閉 · / 検索 · Esc: 入力欄 · m d x r"
        }
        HintDetail => {
            "Enter: 送信 · Esc: 戻る · Tab: ログ · Ctrl+C: 中断 · Ctrl+R: 再開 · /help: キー一覧"
        }
        HintFinished => "Enter: 新しいセッションを提案 · Tab: ログ · Esc: 戻る",
        HintDenyReason => "Enter: この理由で拒否 · Esc: ダイアログへ戻る · Shift+Enter: 改行",
        HintAnswer => "Enter: 回答を送信 · Esc: 質問へ戻る · Shift+Enter: 改行",
        HintPrompt => "Enter: .codiva/prompt.md を保存 · Esc: 取消 · Shift+Enter: 改行",
        BadgeStarting => "起動中",
        BadgeRunning => "実行中",
        BadgePermission => "許可待ち",
        BadgeQuestion => "質問あり",
        BadgeCompleted => "完了",
        BadgeInterrupted => "中断",
        BadgeRateLimited => "レート制限",
        BadgeLoginNeeded => "要ログイン",
        BadgeFailed => "失敗",
        BadgeQueued => "順番待ち",
        BadgePreparing => "準備中",
        BadgeConflict => "競合",
        BadgeMerged => "マージ済み",
        BadgeDiscarded => "破棄済み",
        BadgeStep => "ステップ {0}/{1}",
        Warning => "警告: {0}",
        WarningOf => "警告 {1}/{2}: {0}",
        DiscardTitle => "セッション {0} を破棄しますか？",
        RemoveTitle => "セッション {0} を削除しますか？",
        NothingLost => "失われるものはありません。",
        UncommittedLost => "未コミットのファイル（refs/codiva/archive に保存、復元可能）: {0}",
        CommitsArchived => "ベースにないコミット（refs/codiva/archive に保存、復元可能）: {0}",
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
            "{0} は作業していないため中断するものはありません（Esc: 一覧へ。終了は /exit）"
        }
        ExitConfirm => {
            "{0} 件のセッションが作業中です。終了すると止まります（次回は中断状態で戻り、次のメッセージで再開します）。codiva を終了しますか？"
        }
        Resuming => "{0} を再開しています…",
        MergedFollowUp => {
            "{0} はマージ済みのため、もうメッセージを受け付けません。この指示で新しいセッションを始めますか？"
        }
        DiscardedFollowUp => {
            "{0} は破棄済みのため、もうメッセージを受け付けません。この指示で新しいセッションを始めますか？"
        }
        NothingToResume => "再開できるものはありません",
        TypeTextForDialog => "テキストを入力して Enter（Esc: ダイアログに戻る）",
        MergeTitle => "{0} を {1} にマージしますか？",
        MergeDetail => {
            "メインのチェックアウトで git merge --no-ff {0} を実行し、worktree を削除します。"
        }
        UnknownCommand => "不明なコマンド /{0}（/help で一覧）",
        CommandNotHere => "/{0} はここでは使えません",
        StartNoTerminal => {
            "端末を開けません（{0}）: codiva は端末で実行してください（端末なしで指示を 1 つ実行するには codiva exec）"
        }
        StartNotARepo => {
            "{0} は git リポジトリの中ではありません（git のチェックアウトで codiva を実行してください）"
        }
        StartNoCommits => {
            "{0} のリポジトリにはまだコミットがありません。最初のコミットをしてからもう一度どうぞ"
        }
        CommandOnlyInList => "/{0} はセッション一覧で使えます（Esc か Ctrl+L で一覧へ）",
        CommandOnlyInSession => "/{0} はセッションの中で使えます（Enter でセッションを開く）",
        ModelForNew => "新しいセッションはモデル {0} を使います",
        AgentForNew => "新しいセッションは {0} で動きます",
        AgentsTitle => "エージェント:",
        AgentNotLoggedIn => "インストール済み・未ログイン（エージェント自身の確認による）",
        AgentCannotInterrupt => "{0} は実行中のターンを止められません。終わるまでお待ちください",
        AgentCannotSetModel => "{0} は実行中のセッションのモデルを変えられません",
        NoAgent => "エージェント未インストール",
        AgentReady => "使えます",
        AgentReadyDefault => "使えます · 新しいセッションはこれで動きます",
        AgentNotInstalled => "未インストール",
        NoAgentInstalled => {
            "コーディングエージェントがインストールされていないため、まだ何も実行できません。次のどれかをインストールしてから Enter を押すと、もう一度探します（入力した内容は残ります）。"
        }
        NoAgentPlaceholder => "まだ何も実行できません: エージェントを入れて Enter で再検索",
        HintNoAgent => "Enter: エージェントを再検索 · /help: キー一覧",
        AgentFound => "{0} がインストールされました: Enter でセッションを開始",
        StillNoAgent => {
            "まだコーディングエージェントがインストールされていません: 上のどれかをインストールしてもう一度 Enter"
        }
        AgentUsage => {
            "エージェント: {0} · /agent claude や /agent codex で切り替え（ログとワークツリーはそのまま）"
        }
        InfoAgentSet => {
            "セッション {0} は {1} で続けます。次のメッセージにこれまでの作業の要約が付きます"
        }
        NoteAgentSwitched => "{0} から {1} に切り替えました",
        ModelHelp => "/model <id> — モデル: {0}",
        ModelsUnknown => "エージェント接続後にわかります",
        NothingToClear => "片付ける完了済み（マージ済み・破棄済み）のセッションはありません",
        ClearConfirm => {
            "完了済みのセッション {0} 件を一覧から片付けますか？ブランチは保存されたままです。"
        }
        Help => concat!(
            "# どこでも\n",
            "Tab\tキーの移動: 入力欄 → ダイアログ → 一覧 / ログ\n",
            "Shift+Tab\t実行モード: 確認（ツールごとに確認）/ 自動\n",
            "Ctrl+C\t画面やフォームの上では Esc と同じく閉じる。セッション内ではターンを中断。それ以外は入力欄を消去（終了はしない）\n",
            "Ctrl+R\t中断・失敗したセッションを再開\n",
            "Ctrl+N\t最も長く応答を待っているセッションへ\n",
            "Ctrl+L\tどこからでもセッション一覧へ（開いているものは閉じる）\n",
            "Ctrl+G（一覧）\t試行: 入力した指示を複数のエージェントやモデルで並べて実行（/attempts）\n",
            "/\tコマンドパレット: 入力で絞り込み、↑↓ Enter で実行（全コマンドは末尾に）\n",
            "# 入力欄\n",
            "Enter\tフッターの表示どおり: 開始、送信、理由付きで拒否、回答、保存\n",
            "Shift+Enter, Alt+Enter, \\\t改行\n",
            "Esc\t一覧へ戻る（セッション）、ダイアログへ戻る（理由・回答）、取消（prompt.md）\n",
            "← → ↑ ↓, Home, End\tカーソル移動\n",
            "Ctrl+← →, Ctrl+W, Ctrl+U\t単語移動、単語削除、全消去\n",
            "Ctrl+Z, Ctrl+Y\t元に戻す、やり直す\n",
            "↑ ↓（一覧）\t指示の履歴\n",
            "# 一覧\n",
            "↑ ↓, Home, End\t選択\n",
            "Enter, →\tセッションを開く\n",
            "m, d, x, r\tマージ、破棄、削除、再開（それぞれ確認あり）\n",
            "p, #n をクリック\tプルリクエストをブラウザで開く\n",
            "P, /pr\tブランチをプッシュしてドラフトのプルリクエストを作成（確認あり）\n",
            "F, /fix-ci\t失敗したチェックとログをエージェントに送る\n",
            "f\tタイトル・ブランチ・状態で一覧を絞り込む（Esc で解除）\n",
            "Enter, ← →, クリック（グループの行）\t試行のグループを折りたたむ・広げる\n",
            "c, /compare\t選択したグループの試行を比較し、一つを残す\n",
            "C, /check\tリポジトリのチェックを再実行（✓ 成功、✗ 失敗）\n",
            "Esc\t入力欄へ戻る\n",
            "# セッション\n",
            "Esc\t一覧へ戻る\n",
            "↑ ↓ PgUp PgDn\tログをスクロール（入力欄が空か、ログにフォーカス）\n",
            "# ログ\n",
            "n, p\t次・前のカード（ツール、サブエージェント、思考）\n",
            "Enter, クリック\tカードを開く・閉じる。省略されたメッセージは全文を開く\n",
            "/, n, N\tログを検索、次・前の一致（Esc で検索終了）\n",
            "g, G, Home, End\t先頭、末尾\n",
            "Esc\tカードの選択を解除。なければ入力欄へ戻る\n",
            "m, d, x, r\tマージ、破棄、削除、再開\n",
            "# 許可ダイアログ\n",
            "y, a, n, s\t許可、常に許可（範囲を選ぶ）、理由付きで拒否、拒否して停止\n",
            "↑ ↓, Enter\t選択（入力欄に下書きがあっても可）\n",
            "Esc\t範囲メニューでは選択肢へ戻る。それ以外は一覧（セッション）または入力欄へ戻る\n",
            "# 質問ダイアログ\n",
            "↑ ↓, Enter\t移動、選択 / 次の質問\n",
            "Space\t切り替え（複数選択）\n",
            "← →\t質問の切り替え\n",
            "Esc\t前の質問へ。最初の質問では許可ダイアログと同じ\n",
            "# 試行の比較\n",
            "↑ ↓, Enter\t試行を選ぶ、そのベースとの差分（Esc で戻る）\n",
            "v, v\t二つの試行の間の差分: 一方で v、もう一方で v\n",
            "k\tこの試行を残す: 破棄する他の試行を示して一度だけ確認（/restore で戻せます）\n",
            "r, R\tそのチェックを再実行、数値を再取得\n",
            "# 全文表示・差分・選択\n",
            "↑ ↓ PgUp PgDn, g G\tスクロール・移動、Enter で選択\n",
            "/, n, N\t全文表示の中を検索\n",
            "n, p, Tab\t次・前のファイル（差分）\n",
            "c, Shift+↑ ↓, v\t行・範囲にコメント（差分）。l でコメント一覧（e 編集、d 削除）\n",
            "S\tコメントを 1 通のレビューとしてエージェントに送る（差分）\n",
            "Esc, q\t閉じる\n",
            "# ログイン\n",
            "Ctrl+O\tサインインのアドレスをブラウザで開く\n",
            "Enter\tブラウザに表示されたコードを送る\n",
            "Esc\tログインを取り消す\n",
            "# 確認\n",
            "y, n, Esc\tはい、いいえ\n",
            "# このヘルプ\n",
            "↑ ↓ PgUp PgDn\tスクロール\n",
            "Esc, q\t閉じる\n",
        ),
        InboxEmpty => "応答待ちのセッションはありません",
        InboxMore => "ほかに {0} 件が応答待ち（Ctrl+N: 次へ）",
        HelpCommands => "コマンド",
        HelpInSession => "（セッション内）",
        HelpTitle => "キーとコマンド",
        HelpMore => "↓ ほか {0} 行 · ↑↓ PgUp PgDn スクロール · Esc 閉じる",
        HelpEnd => "↑↓ PgUp PgDn スクロール · Esc 閉じる",
        ShutdownConfirm => {
            "{0} 件のセッションが作業中です: /shutdown はデーモンとすべてのエージェントを停止します（中断状態で戻り、次のメッセージで再開します）。停止しますか？"
        }
        ShutdownConfirmOne => {
            "1 件のセッションが作業中です: /shutdown はデーモンとすべてのエージェントを停止します（中断状態で戻り、次のメッセージで再開します）。停止しますか？"
        }
        DetachedWorking => "{0} 件のセッションは実行を続けます。`codiva` で再接続できます",
        DetachedWorkingOne => "1 件のセッションは実行を続けます。`codiva` で再接続できます",
        DetachedIdle => {
            "セッションは codiva のデーモンに残ります。`codiva` で再接続、`codiva stop` で停止できます"
        }
        DaemonStopped => "デーモンとすべてのエージェントを停止しました",
        ResolvedElsewhere => "別のクライアントが応答しました",
        Reattached => {
            "デーモンとの接続が切れたため再接続しました。開いていたセッションと入力中の内容はそのままです"
        }
        AgentCommand => "{0}（エージェント）",
        PermYes => "はい",
        PermAlways => "はい、今後は確認しない…",
        PermDeny => "いいえ、代わりの指示を伝える",
        PermStop => "いいえ、このターンを止める",
        PermTitle => "{0} を許可しますか？",
        PermScopeTitle => "{0} を常に許可: 範囲を選ぶ",
        PermHintAllow => "y 許可",
        PermHintAlways => "a 常に",
        PermHintDeny => "n 拒否",
        PermHintStop => "s 停止",
        PermHintChoose => "↑↓ Enter 選択",
        PermScopeHint => "↑↓ 選択 · Enter 許可 · Esc: 選択肢へ戻る",
        PermSubagent => "（サブエージェント）",
        PermBlockedPath => "許可が必要なパス: {0}",
        NoteLine => "{0} 行",
        NoteLines => "{0} 行",
        NoteEdit => "{0} 件の編集",
        NoteEdits => "{0} 件の編集",
        NoteEveryOccurrence => "すべての箇所",
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
        CardUnreported => "結果不明",
        CardShowMoreOne => "… ほか {0} 行（Enter: もっと見る）",
        CardShowMore => "… ほか {0} 行（Enter: もっと見る）",
        CardToolUse => "ツール {0} 回",
        CardToolUses => "ツール {0} 回",
        CardStarting => "開始中…",
        CardBackground => "バックグラウンド",
        CardEarlierOne => "… それ以前の {0} 件",
        CardEarlier => "… それ以前の {0} 件",
        CardTools => "{0} 個のツール:",
        TodoProgress => "タスク: {1} 件中 {0} 件完了",
        DetailRetrying => "再試行中 ({0}/{1})、{2}後: {3}",
        DetailRetryingNoCause => "再試行中 ({0}/{1})、{2}後",
        DetailSeconds => "{0} 秒",
        DetailStep => "ステップ {0}/{1}",
        DetailWaitingOne => "バックグラウンドのエージェント {0} 件を待っています",
        DetailWaitingMany => "バックグラウンドのエージェント {0} 件を待っています",
        DetailCollecting => "バックグラウンドの結果を集めています",
        DetailStalled => "停滞: {0} 分間出力がありません",
        CardChoices => "選択肢:",
        CardLaunchedInBackground => "バックグラウンドで開始しました",
        CardThinking => "思考中…",
        CardFromLine => " · {0} 行目から",
        CardLimitLine => " · {0} 行",
        CardLimitLines => " · {0} 行",
        CardSearchIn => " · 場所 {0}",
        CardFailedN => "{0} 件失敗",
        CardDeniedN => "{0} 件拒否",
        CardUnreportedN => "{0} 件結果不明",
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
        NoteIdleStopped => {
            "エージェントが {0} 秒間待機していたため、プロセスを停止しました。次のメッセージで会話を再開します"
        }
        NoteCompacted => "会話を圧縮しました",
        NoteCompactedTrigger => "（{0}）",
        NoteCompactedTokens => "、圧縮前 {0} トークン",
        CompactAuto => "自動",
        CompactManual => "手動",
        NoteNotSent => {
            "送信されていません（エージェントの空きを待つ間にセッションが順番待ちを外れました）: {0}"
        }
        NoteRepairPushed => "修正のコミット（{0}）を {1} に push しました",
        NoteRepairPushFailed => "修正のコミット（{0}）の push に失敗しました: {1}",
        NoteRepairNotPushed => "修正のターンで新しいコミットはなく、何も push していません",
        NoteExitedBeforeTurn => "エージェントがメッセージを受け取る前に終了しました（{0}）{1}",
        NoteUnsupportedRequest => "codiva が対応していない要求を断りました: {0}",
        NoteStopReason => "エージェントがターンを終えました: {0}",
        NoteAllowedByPolicy => "{0} を承認ポリシーで許可しました（{1}）",
        ResourcesTotal => "エージェント {0} · CPU {1}",
        ResourcesSession => "{0} · CPU {1}",
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
        RefMessageNotCut => "エントリ {0} は省略されたメッセージではありません",
        RefMessageTooLong => "メッセージは {0} バイトあり、表示できる {1} バイトを超えています",
        RefMessageNotInTranscript => {
            "セッション {0} のトランスクリプトにメッセージ全体がありません: {1}"
        }
        RefConfigNotToml => {
            "{0} は正しい TOML ではありません（{1} 行目）。先にエディタで直してください（/edit かお使いのエディタ）"
        }
        RefConfigUnknownKey => "保存していません: 未知のキー {0}",
        RefAgentNotInstalled => {
            "{1} がインストールされていません。`{2}` でインストールしてください"
        }
        RefNoAgentInstalled => "エージェントが未インストールです。インストール: {0}",
        RefUnknownAgent => "エージェント {0} はありません（インストール済み: {1}）",
        RefConfigInvalid => "保存していません: {0}",
        RefConfigUnwritable => "{0} を読み書きできません: {1}",
        RefNoRemote => {
            "{0} にはプッシュ先のリモートがありません（branch.{0}.remote も origin もありません）"
        }
        RefNothingToPush => "プッシュするものがありません: {0} には {1} にないコミットがありません",
        RefNotOwner => {
            "この codiva デーモンは別のユーザー（uid {0}）のものです。uid {1} からの接続は拒否されます"
        }
        RefPushFailed => "{0} を {1} にプッシュできませんでした: {2}",
        RefGhMissing => "GitHub CLI（gh）がインストールされていません（https://cli.github.com）",
        RefGhNotAuthenticated => {
            "gh がログインしていません（`gh auth login` を実行してください）: {0}"
        }
        RefGhRateLimited => "GitHub の API 利用上限に達しました。しばらくしてからもう一度",
        RefPrFailed => "プルリクエストを作れませんでした: {0}",
        RefLoginUnavailable => {
            "{0} には codiva から実行できるログインがありません。その CLI でログインしてください"
        }
        RefLoginRunning => "{0} のログインはすでに実行中です",
        RefLoginFailed => "{0} のログインを開始できません: {1}",
        RefNoSuchLogin => "そのログインはもう実行されていません",
        RefInPlaceBusy => "{0} ではセッション {1} がすでに動いています。先にそれを破棄してください",
        RefInPlaceNotInRepo => "{0} はリポジトリ {1} の中にありません",
        RefInPlaceSession => {
            "セッション {0} はその場で動いていて自分のブランチがないため、{1} はできません"
        }
        RefNoSuchMcpServer => "セッション {0} に MCP サーバー {1} はありません (あるもの: {2})",
        RefUnsupportedByAgent => "{0} は {1} に対応していません",
        ErrNoSuchSession => "セッション {0} はありません",
        ErrStopped => "セッションマネージャーが停止しています",
        LoginApiKey => {
            "ログインが必要です: {0} の API キーが拒否されました。エージェントは codiva のデーモンの環境を引き継ぎます: /shutdown し、{0} に有効なキーを設定して（または外して /login でログインして）codiva を起動し直すと、Ctrl+R で再開できます。"
        }
        LoginToken => {
            "ログインが必要です: {0} のログイントークンが拒否されました。エージェントは codiva のデーモンの環境を引き継ぎます: /shutdown し、{0} を更新して（または外して /login でログインして）codiva を起動し直すと、Ctrl+R で再開できます。"
        }
        LoginNone => {
            "ログインが必要です: Claude Code に認証情報がありません。対処: /login でログインすると、Ctrl+R で再開できます。ANTHROPIC_API_KEY のキーはデーモンの環境からしかエージェントに届きません: /shutdown し、設定してから codiva を起動し直してください。"
        }
        ErrContainedPanic => "内部エラー: {0}。codiva は動作を続けます。クラッシュログ: {1}",
        ErrContainedPanicNoLog => {
            "内部エラー: {0}。codiva は動作を続けます。クラッシュログを書けませんでした（{1}）"
        }
    }
}
