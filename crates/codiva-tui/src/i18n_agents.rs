//! The words of the agent picker (`/agent`) and the login view (`/login`), in English and
//! Japanese. A part of the catalogue in its own file, with the same rules as the others: an
//! exhaustive `match` per language and the same `{n}` placeholders in both (tested).

use crate::i18n::{Lang, lang};

macro_rules! agent_keys {
    ($($key:ident),* $(,)?) => {
        /// Every string of these views.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum A { $($key),* }
        impl A {
            pub const ALL: &'static [A] = &[$(A::$key),*];
        }
    };
}

agent_keys![
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
    CmdLogin,
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
];

/// The text for a count: `one` when `count` is 1, else `many` (with the count as argument
/// `count_at`; the others as given).
pub fn atn(count: usize, one: A, many: A, args: &[&str]) -> String {
    let key = if count == 1 { one } else { many };
    let count = count.to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.push(&count);
    atf(key, &all)
}

pub fn at(key: A) -> &'static str {
    text(lang(), key)
}

pub fn atf(key: A, args: &[&str]) -> String {
    crate::i18n::fill(at(key), args)
}

pub fn text(lang: Lang, key: A) -> &'static str {
    match lang {
        Lang::En => en(key),
        Lang::Ja => ja(key),
    }
}

fn en(key: A) -> &'static str {
    match key {
        A::PickerTitleNew => "Agent for new sessions",
        A::PickerTitleSession => "Agent for {0} (the worktree and the log stay)",
        A::Ready => "ready",
        A::LoggedIn => "ready · logged in ({0})",
        A::NotLoggedIn => "installed · not logged in: /login {0}",
        A::LoginUnknown => "installed · login unknown ({0})",
        A::NotInstalled => "not installed",
        A::InstallWith => "install: {0}",
        A::InstallHint => "{0} is not installed; install it with: {1}",
        A::LoginTitle => "Log in to {0}",
        A::LoginStarting => "Starting {0}'s own login…",
        A::LoginOpen => "Open this address in a browser:",
        A::LoginCode => "One-time code: {0}",
        A::LoginPaste => "Then paste the code the page shows here and press Enter:",
        A::LoginWaitBrowser => "Waiting for the browser to finish the login…",
        A::LoginCodeSent => "Code sent; waiting for {0}…",
        A::LoginSucceeded => "Logged in to {0}.",
        A::LoginFailed => "The login did not succeed: {0}",
        A::LoginCancelled => "The login was cancelled.",
        A::LoginHintRunning => "Ctrl+O open in browser · Esc cancel",
        A::LoginHintInput => "Enter send code · Ctrl+O open · Esc cancel",
        A::LoginHintDone => "Esc close",
        A::LoginOutput => "What {0} printed:",
        A::LoginRemoteHost => "(the login runs on {0}; its address opens here)",
        A::LoginChoose => "{0} offers these ways to log in:",
        A::LoginMethodEnv => "reads {0} from the environment",
        A::LoginSetEnv => {
            "Set {0} in the environment codiva runs in, then start codiva again. codiva stores no keys."
        }
        A::LoginHintChoose => "↑↓ choose · Enter log in · Esc cancel",
        A::ModelAlias => "alias: the agent picks the latest model of this name",
        A::CmdLogin => "log in to an agent with its own login",
        A::RemoteLoopbackUrl => {
            "{0} is an address on {1}: open it there (or forward its port with ssh -L)"
        }
        A::RemotePrompt => {
            ".codiva/prompt.md is on {0}: edit it there (/shell in a session opens a shell on {0})"
        }
        A::RemoteLost => "the connection to {0} was lost; attaching again…",
        A::RemoteGone => "the daemon on {0} stopped",
        A::DaemonGone => "the repository's daemon stopped; `codiva` starts it again",
        A::RemoteDetached => "{2} sessions keep running on {0}; `codiva --remote {1}` re-attaches",
        A::RemoteDetachedOne => "1 session keeps running on {0}; `codiva --remote {1}` re-attaches",
        A::StatusOne => "codiva daemon {0} for {1}: 1 session",
        A::StatusMany => "codiva daemon {0} for {1}: {2} sessions",
        A::StoppedIdle => "stopped the daemon of {0}",
        A::StoppedOne => "stopped the daemon of {0} (1 working session interrupted)",
        A::StoppedMany => "stopped the daemon of {0} ({1} working sessions interrupted)",
        A::NoDaemon => "no daemon runs for {0}",
    }
}

fn ja(key: A) -> &'static str {
    match key {
        A::PickerTitleNew => "新しいセッションのエージェント",
        A::PickerTitleSession => "{0} のエージェント（ワークツリーとログはそのまま）",
        A::Ready => "利用可",
        A::LoggedIn => "利用可 · ログイン済み（{0}）",
        A::NotLoggedIn => "インストール済み · 未ログイン: /login {0}",
        A::LoginUnknown => "インストール済み · ログイン状態不明（{0}）",
        A::NotInstalled => "未インストール",
        A::InstallWith => "インストール: {0}",
        A::InstallHint => "{0} はインストールされていません。インストール: {1}",
        A::LoginTitle => "{0} にログイン",
        A::LoginStarting => "{0} 自身のログインを開始しています…",
        A::LoginOpen => "ブラウザでこのアドレスを開いてください:",
        A::LoginCode => "ワンタイムコード: {0}",
        A::LoginPaste => "ページに表示されたコードをここに貼り付けて Enter:",
        A::LoginWaitBrowser => "ブラウザでのログイン完了を待っています…",
        A::LoginCodeSent => "コードを送りました。{0} を待っています…",
        A::LoginSucceeded => "{0} にログインしました。",
        A::LoginFailed => "ログインできませんでした: {0}",
        A::LoginCancelled => "ログインを取り消しました。",
        A::LoginHintRunning => "Ctrl+O ブラウザで開く · Esc 取消",
        A::LoginHintInput => "Enter 送信 · Ctrl+O 開く · Esc 取消",
        A::LoginHintDone => "Esc 閉じる",
        A::LoginOutput => "{0} の出力:",
        A::LoginRemoteHost => "（ログインは {0} で実行されます。アドレスはこちらで開きます）",
        A::LoginChoose => "{0} のログイン方法:",
        A::LoginMethodEnv => "環境変数 {0} を読みます",
        A::LoginSetEnv => {
            "codiva を動かす環境で {0} を設定し、codiva を起動し直してください。codiva はキーを保存しません。"
        }
        A::LoginHintChoose => "↑↓ 選択 · Enter ログイン · Esc 取消",
        A::ModelAlias => "エイリアス: この名前の最新モデルをエージェントが選びます",
        A::CmdLogin => "エージェント自身のログインでログインする",
        A::RemoteLoopbackUrl => {
            "{0} は {1} 上のアドレスです。そちらで開いてください（または ssh -L でポートを転送）"
        }
        A::RemotePrompt => {
            ".codiva/prompt.md は {0} にあります。そちらで編集してください（セッションで /shell を使うと {0} のシェルが開きます）"
        }
        A::RemoteLost => "{0} との接続が切れました。再接続しています…",
        A::RemoteGone => "{0} のデーモンが停止しました",
        A::DaemonGone => "リポジトリのデーモンが停止しました。`codiva` で再び起動します",
        A::RemoteDetached => {
            "{0} で {2} 件のセッションが動き続けます。`codiva --remote {1}` で再接続できます"
        }
        A::RemoteDetachedOne => {
            "{0} で 1 件のセッションが動き続けます。`codiva --remote {1}` で再接続できます"
        }
        A::StatusOne => "{1} の codiva デーモン {0}: セッション 1 件",
        A::StatusMany => "{1} の codiva デーモン {0}: セッション {2} 件",
        A::StoppedIdle => "{0} のデーモンを停止しました",
        A::StoppedOne => "{0} のデーモンを停止しました（作業中のセッション 1 件を中断）",
        A::StoppedMany => "{0} のデーモンを停止しました（作業中のセッション {1} 件を中断）",
        A::NoDaemon => "{0} のデーモンは動いていません",
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
        for key in A::ALL {
            let (en, ja) = (text(Lang::En, *key), text(Lang::Ja, *key));
            assert!(!en.is_empty() && !ja.is_empty(), "{key:?}");
            assert_eq!(placeholders(en), placeholders(ja), "{key:?}");
        }
    }
}
