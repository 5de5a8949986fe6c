//! The words of a session's review in the diff view: the cursor and the range, the comment
//! editor, the comments' list, sending them, and the manager's refusals about them, in English
//! and Japanese.

keys_with_words! {
    /// The review's words.
    ReviewText {
        Hint => "c comment · S send review · l comments · ↑↓ line · Shift+↑↓/v range · n/p file · Esc close", "c コメント · S レビューを送る · l 一覧 · ↑↓ 行 · Shift+↑↓/v 範囲 · n/p ファイル · Esc 閉じる";
        ListHint => "Enter/e edit · d remove · S send review · ↑↓ choose · Esc back to the diff", "Enter/e 編集 · d 削除 · S レビューを送る · ↑↓ 選ぶ · Esc 差分に戻る";
        EditorHint => "Enter save · Shift+Enter new line · Esc cancel", "Enter 保存 · Shift+Enter 改行 · Esc 取り消し";
        Heading => "Review: {0} {0|comment|comments} · S sends {0|it|them} to the agent as one message", "レビュー: コメント {0} 件 · S で 1 通のメッセージとしてエージェントに送る";
        EditorNew => "Comment on {0}", "{0} へのコメント";
        EditorEdit => "Edit the comment on {0}", "{0} へのコメントを編集";
        Placeholder => "What should change here?", "ここで何を直すべきか書いてください";
        Range => "{0} {0|line|lines} selected", "{0} 行を選択中";
        NotALine => "Move to a line of the diff to comment on it.", "コメントするには差分の行に移動してください。";
        NotInDiff => "not in the diff now", "いまの差分にはない";
        NoComments => "No comments yet: c comments on the line under the cursor.", "コメントはまだありません。c でカーソル行にコメントします。";
        Sent => "Review sent to the agent: {0} {0|comment|comments}.", "レビューをエージェントに送りました（コメント {0} 件）。";
        SentCut => "Review sent to the agent: {0} {0|comment|comments}; {1} bytes left out to keep the message within its budget.", "レビューをエージェントに送りました（コメント {0} 件）。上限に収めるため {1} バイトを省きました。";
        RefNoComments => "{0} has no review comments to send.", "{0} には送るレビューコメントがありません。";
        RefNoSuchComment => "That comment is gone (sent or removed by another client).", "そのコメントはもうありません（送信済みか、別のクライアントで削除済み）。";
        RefFull => "{0} holds {1} review comments already: send them first.", "{0} にはすでにレビューコメントが {1} 件あります。先に送ってください。";
    }
}
