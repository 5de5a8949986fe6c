//! The words of the agent picker (`/agent`) and the login view (`/login`), in English and
//! Japanese. An area of the catalogue (see `i18n.rs`): an exhaustive `match` per language and the
//! same `{n}` placeholders in both (tested).

keys!(
    /// Every key of these views' words.
    AgentText,
    en: en,
    ja: ja,
    [
        PickerTitleNew,
        PickerTitleSession,
        Ready,
        LoggedIn,
        NotLoggedIn,
        LoginUnknown,
        NotInstalled,
        InstallWith,
        InstallHint,
        LoginTitle,
        LoginStarting,
        LoginOpen,
        LoginCode,
        LoginPaste,
        LoginWaitBrowser,
        LoginCodeSent,
        LoginSucceeded,
        LoginFailed,
        LoginCancelled,
        LoginHintRunning,
        LoginHintInput,
        LoginHintDone,
        LoginOutput,
        LoginRemoteHost,
        LoginChoose,
        LoginMethodEnv,
        LoginSetEnv,
        LoginHintChoose,
        ModelAlias,
        RemoteLoopbackUrl,
        RemotePrompt,
        RemoteDetached,
        RemoteLost,
        RemoteGone,
        DaemonGone,
        RemoteDetachedOne,
        StatusOne,
        StatusMany,
        StoppedIdle,
        StoppedOne,
        StoppedMany,
        NoDaemon,
    ]
);

fn en(key: AgentText) -> &'static str {
    match key {
        AgentText::PickerTitleNew => "Agent for new sessions",
        AgentText::PickerTitleSession => "Agent for {0} (the worktree and the log stay)",
        AgentText::Ready => "ready",
        AgentText::LoggedIn => "ready · logged in ({0})",
        AgentText::NotLoggedIn => "installed · not logged in: /login {0}",
        AgentText::LoginUnknown => "installed · login unknown ({0})",
        AgentText::NotInstalled => "not installed",
        AgentText::InstallWith => "install: {0}",
        AgentText::InstallHint => "{0} is not installed; install it with: {1}",
        AgentText::LoginTitle => "Log in to {0}",
        AgentText::LoginStarting => "Starting {0}'s own login…",
        AgentText::LoginOpen => "Open this address in a browser:",
        AgentText::LoginCode => "One-time code: {0}",
        AgentText::LoginPaste => "Then paste the code the page shows here and press Enter:",
        AgentText::LoginWaitBrowser => "Waiting for the browser to finish the login…",
        AgentText::LoginCodeSent => "Code sent; waiting for {0}…",
        AgentText::LoginSucceeded => "Logged in to {0}.",
        AgentText::LoginFailed => "The login did not succeed: {0}",
        AgentText::LoginCancelled => "The login was cancelled.",
        AgentText::LoginHintRunning => "Ctrl+O open in browser · Esc cancel",
        AgentText::LoginHintInput => "Enter send code · Ctrl+O open · Esc cancel",
        AgentText::LoginHintDone => "Esc close",
        AgentText::LoginOutput => "What {0} printed:",
        AgentText::LoginRemoteHost => "(the login runs on {0}; its address opens here)",
        AgentText::LoginChoose => "{0} offers these ways to log in:",
        AgentText::LoginMethodEnv => "reads {0} from the environment",
        AgentText::LoginSetEnv => {
            "Set {0} in the environment codiva runs in, then start codiva again. codiva stores no keys."
        }
        AgentText::LoginHintChoose => "↑↓ choose · Enter log in · Esc cancel",
        AgentText::ModelAlias => "alias: the agent picks the latest model of this name",
        AgentText::RemoteLoopbackUrl => {
            "{0} is an address on {1}: open it there (or forward its port with ssh -L)"
        }
        AgentText::RemotePrompt => {
            ".codiva/prompt.md is on {0}: edit it there (/shell in a session opens a shell on {0})"
        }
        AgentText::RemoteLost => "the connection to {0} was lost; attaching again…",
        AgentText::RemoteGone => "the daemon on {0} stopped",
        AgentText::DaemonGone => "the repository's daemon stopped; `codiva` starts it again",
        AgentText::RemoteDetached => {
            "{2} sessions keep running on {0}; `codiva --remote {1}` re-attaches"
        }
        AgentText::RemoteDetachedOne => {
            "1 session keeps running on {0}; `codiva --remote {1}` re-attaches"
        }
        AgentText::StatusOne => "codiva daemon {0} for {1}: 1 session",
        AgentText::StatusMany => "codiva daemon {0} for {1}: {2} sessions",
        AgentText::StoppedIdle => "stopped the daemon of {0}",
        AgentText::StoppedOne => "stopped the daemon of {0} (1 working session interrupted)",
        AgentText::StoppedMany => "stopped the daemon of {0} ({1} working sessions interrupted)",
        AgentText::NoDaemon => "no daemon runs for {0}",
    }
}

fn ja(key: AgentText) -> &'static str {
    match key {
        AgentText::PickerTitleNew => "新しいセッションのエージェント",
        AgentText::PickerTitleSession => "{0} のエージェント（ワークツリーとログはそのまま）",
        AgentText::Ready => "利用可",
        AgentText::LoggedIn => "利用可 · ログイン済み（{0}）",
        AgentText::NotLoggedIn => "インストール済み · 未ログイン: /login {0}",
        AgentText::LoginUnknown => "インストール済み · ログイン状態不明（{0}）",
        AgentText::NotInstalled => "未インストール",
        AgentText::InstallWith => "インストール: {0}",
        AgentText::InstallHint => "{0} はインストールされていません。インストール: {1}",
        AgentText::LoginTitle => "{0} にログイン",
        AgentText::LoginStarting => "{0} 自身のログインを開始しています…",
        AgentText::LoginOpen => "ブラウザでこのアドレスを開いてください:",
        AgentText::LoginCode => "ワンタイムコード: {0}",
        AgentText::LoginPaste => "ページに表示されたコードをここに貼り付けて Enter:",
        AgentText::LoginWaitBrowser => "ブラウザでのログイン完了を待っています…",
        AgentText::LoginCodeSent => "コードを送りました。{0} を待っています…",
        AgentText::LoginSucceeded => "{0} にログインしました。",
        AgentText::LoginFailed => "ログインできませんでした: {0}",
        AgentText::LoginCancelled => "ログインを取り消しました。",
        AgentText::LoginHintRunning => "Ctrl+O ブラウザで開く · Esc 取消",
        AgentText::LoginHintInput => "Enter 送信 · Ctrl+O 開く · Esc 取消",
        AgentText::LoginHintDone => "Esc 閉じる",
        AgentText::LoginOutput => "{0} の出力:",
        AgentText::LoginRemoteHost => {
            "（ログインは {0} で実行されます。アドレスはこちらで開きます）"
        }
        AgentText::LoginChoose => "{0} のログイン方法:",
        AgentText::LoginMethodEnv => "環境変数 {0} を読みます",
        AgentText::LoginSetEnv => {
            "codiva を動かす環境で {0} を設定し、codiva を起動し直してください。codiva はキーを保存しません。"
        }
        AgentText::LoginHintChoose => "↑↓ 選択 · Enter ログイン · Esc 取消",
        AgentText::ModelAlias => "エイリアス: この名前の最新モデルをエージェントが選びます",
        AgentText::RemoteLoopbackUrl => {
            "{0} は {1} 上のアドレスです。そちらで開いてください（または ssh -L でポートを転送）"
        }
        AgentText::RemotePrompt => {
            ".codiva/prompt.md は {0} にあります。そちらで編集してください（セッションで /shell を使うと {0} のシェルが開きます）"
        }
        AgentText::RemoteLost => "{0} との接続が切れました。再接続しています…",
        AgentText::RemoteGone => "{0} のデーモンが停止しました",
        AgentText::DaemonGone => "リポジトリのデーモンが停止しました。`codiva` で再び起動します",
        AgentText::RemoteDetached => {
            "{0} で {2} 件のセッションが動き続けます。`codiva --remote {1}` で再接続できます"
        }
        AgentText::RemoteDetachedOne => {
            "{0} で 1 件のセッションが動き続けます。`codiva --remote {1}` で再接続できます"
        }
        AgentText::StatusOne => "{1} の codiva デーモン {0}: セッション 1 件",
        AgentText::StatusMany => "{1} の codiva デーモン {0}: セッション {2} 件",
        AgentText::StoppedIdle => "{0} のデーモンを停止しました",
        AgentText::StoppedOne => "{0} のデーモンを停止しました（作業中のセッション 1 件を中断）",
        AgentText::StoppedMany => "{0} のデーモンを停止しました（作業中のセッション {1} 件を中断）",
        AgentText::NoDaemon => "{0} のデーモンは動いていません",
    }
}
