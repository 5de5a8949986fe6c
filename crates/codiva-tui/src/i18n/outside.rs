//! The words of `/history` (the agents' own conversations begun outside codiva: the list, its
//! search, the read-only view, continuing one in codiva), in English and Japanese.

keys_with_words! {
    /// `/history`'s words.
    OutsideText {
        Title => "Conversations begun outside codiva in this repository ({0})", "このリポジトリで codiva の外で始めた会話 ({0} 件)";
        TitleMore => "Conversations begun outside codiva in this repository (the newest {0})", "このリポジトリで codiva の外で始めた会話 (新しい {0} 件)";
        Loading => "reading the agents' records…", "エージェントの記録を読んでいます…";
        Empty => "No conversation that codiva does not manage: a claude or codex run in this repository shows here.", "codiva が管理していない会話はありません。このリポジトリで claude や codex を実行するとここに出ます。";
        NoMatch => "no conversation matches “{0}”", "「{0}」に一致する会話はありません";
        Matching => "{0} matching", "{0} 件一致";
        CannotList => "The conversations cannot be listed: {0}", "会話を一覧できません: {0}";
        Unavailable => "not listed — {0}", "一覧にできなかったもの — {0}";
        NoInstruction => "(no instruction at its start)", "(冒頭に指示がありません)";
        ListHint => "↑↓ move · Enter read · / search · Esc close", "↑↓ 移動 · Enter 読む · / 検索 · Esc 閉じる";
        SearchHint => "type to search · Enter keep · Esc clear", "入力して検索 · Enter 確定 · Esc 消去";
        ReadHint => "↑↓ scroll · n/p card · Enter open/close · Esc back", "↑↓ スクロール · n/p カード · Enter 開閉 · Esc 戻る";
        Actions => "c continue it in codiva here · w continue it in a new worktree", "c codiva でここで続ける · w 新しいワークツリーで続ける";
        ReadOnly => "read-only", "読み取り専用";
        ReadFacts => "{0} · {1} · {2}", "{0} · {1} · {2}";
        Reading => "reading the conversation from the agent's records…", "エージェントの記録から会話を読んでいます…";
        CannotRead => "The conversation cannot be read: {0}", "会話を読めません: {0}";
        Skipped => "↑ the first {0} of this conversation are not read (only its end is)", "↑ この会話の最初の {0} は読んでいません (末尾だけ)";
        Adopting => "continuing the conversation in codiva…", "会話を codiva で続けます…";
        Adopted => "{0} continues the conversation: your next message resumes it.", "{0} が会話を引き継ぎました。次のメッセージで再開します。";
        CannotAdopt => "The conversation cannot be continued: {0}", "会話を続けられません: {0}";
    }
}
