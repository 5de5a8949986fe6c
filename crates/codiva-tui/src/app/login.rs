//! What to do when a session needs a login: which credential the agent used (its handshake's
//! `account`: `apiKeySource`, `tokenSource`) and how to fix it — `/login`, or the variable in
//! the daemon's environment (the agent takes it from the daemon: a new value needs the daemon
//! started again) — then Ctrl+R. Shown over the log of a session whose status is needs-login.

use codiva_protocol::agent::Account;

use crate::i18n::{AppText, t, tf};

/// A source the agent reports, unless it says there is none.
fn source(value: Option<&String>) -> Option<&str> {
    value
        .map(String::as_str)
        .filter(|s| !s.is_empty() && *s != "none")
}

/// The credential in use and its fix, in the UI's language.
pub fn help(account: Option<&Account>) -> String {
    let api_key = account.and_then(|a| source(a.api_key_source.as_ref()));
    let token = account.and_then(|a| source(a.token_source.as_ref()));
    match (api_key, token) {
        (Some(key), _) => tf(AppText::LoginApiKey, &[key]),
        (None, Some(token)) => tf(AppText::LoginToken, &[token]),
        (None, None) => t(AppText::LoginNone).to_owned(),
    }
}
