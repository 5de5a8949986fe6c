//! Whether an ACP agent is logged in, from where the agent keeps its login — without starting
//! it (`agents/list` stays fast). ACP's `initialize` lists the ways to log in but never says
//! whether the agent is; `session/new` fails with `-32000` when it is not, which needs a
//! process and, for some agents, seconds. What each preset reads (measured:
//! docs/protocol/acp-login.md):
//!
//! * codex-acp: Codex's `auth.json` in `$CODEX_HOME` (else `~/.codex`). Its `authenticate`
//!   with an API-key method writes that file; the variable alone is not a login (`session/new`
//!   still answers `-32000`).
//! * claude-code-acp: Claude Code's `.credentials.json` in `$CLAUDE_CONFIG_DIR` (else
//!   `~/.claude`), or `ANTHROPIC_API_KEY` / `CLAUDE_CODE_OAUTH_TOKEN`.
//! * Gemini CLI: `settings.json`'s `security.auth.selectedType` in `~/.gemini` (`$GEMINI_CLI_HOME`
//!   replaces the home): `oauth-personal` with `oauth_creds.json` (it may keep the login in the
//!   system keychain instead: then it is not known), `gemini-api-key` with `GEMINI_API_KEY`,
//!   `vertex-ai` with `GOOGLE_API_KEY` or a Cloud project and location; none selected:
//!   `GEMINI_API_KEY`.
//! * Grok: `auth.json` in `$GROK_HOME` (else `~/.grok`), or `XAI_API_KEY` (docs/protocol/acp-login.md).
//!
//! Every variable is read as the agents see it (the manager's environment policy). Only the
//! presence of a file or variable is checked, never a token's validity.

use std::path::{Path, PathBuf};

use codiva_protocol::agent::LoginState;
use serde_json::Value;

use crate::process::EnvPolicy;

/// Where an agent keeps its login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credentials {
    /// Not known to codiva (a configured agent).
    Unknown,
    Codex,
    Claude,
    Gemini,
    Grok,
}

impl Credentials {
    /// What the agent's login files and variables say (`unknown` when codiva does not know
    /// where it keeps its login: an agent from the config file).
    pub fn state(self, env: &EnvPolicy) -> Option<LoginState> {
        let home = || env.var("HOME").map(PathBuf::from);
        let dir = |var: &str, default: &str| {
            env.var(var)
                .map(PathBuf::from)
                .or_else(|| home().map(|home| home.join(default)))
        };
        match self {
            Credentials::Unknown => Some(LoginState::Unknown {
                reason: "codiva does not know where this agent keeps its login".to_owned(),
            }),
            Credentials::Codex => Some(codex(dir("CODEX_HOME", ".codex").as_deref())),
            Credentials::Claude => {
                Some(claude(env, dir("CLAUDE_CONFIG_DIR", ".claude").as_deref()))
            }
            Credentials::Gemini => {
                let home = env.var("GEMINI_CLI_HOME").map(PathBuf::from).or_else(home);
                Some(gemini(
                    env,
                    home.map(|home| home.join(".gemini")).as_deref(),
                ))
            }
            Credentials::Grok => Some(grok(env, dir("GROK_HOME", ".grok").as_deref())),
        }
    }
}

fn logged_in(method: impl Into<String>) -> LoginState {
    LoginState::LoggedIn {
        method: Some(method.into()),
    }
}

fn exists(dir: Option<&Path>, file: &str) -> bool {
    dir.is_some_and(|dir| dir.join(file).is_file())
}

fn codex(dir: Option<&Path>) -> LoginState {
    let Some(auth) = dir
        .map(|dir| dir.join("auth.json"))
        .filter(|path| path.is_file())
    else {
        return LoginState::NotLoggedIn;
    };
    let json = std::fs::read_to_string(&auth)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .unwrap_or(Value::Null);
    let present = |key: &str| json.get(key).is_some_and(|value| !value.is_null());
    if present("tokens") {
        logged_in("ChatGPT")
    } else if present("OPENAI_API_KEY") {
        logged_in("API key")
    } else {
        logged_in("auth.json")
    }
}

fn claude(env: &EnvPolicy, dir: Option<&Path>) -> LoginState {
    for var in ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"] {
        if env.var(var).is_some() {
            return logged_in(var);
        }
    }
    if exists(dir, ".credentials.json") {
        return logged_in("Claude account");
    }
    if cfg!(target_os = "macos") {
        // Claude Code keeps its login in the keychain there.
        return LoginState::Unknown {
            reason: "Claude Code keeps its login in the macOS keychain".to_owned(),
        };
    }
    LoginState::NotLoggedIn
}

fn gemini(env: &EnvPolicy, dir: Option<&Path>) -> LoginState {
    let selected = dir
        .and_then(|dir| std::fs::read_to_string(dir.join("settings.json")).ok())
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|json| {
            json.pointer("/security/auth/selectedType")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let set = |var: &str| env.var(var).is_some();
    match selected.as_deref() {
        Some("oauth-personal") => {
            if exists(dir, "oauth_creds.json") || exists(dir, "gemini-credentials.json") {
                logged_in("Google account")
            } else {
                LoginState::Unknown {
                    reason:
                        "Gemini CLI keeps its Google login in the system keychain or not at all"
                            .to_owned(),
                }
            }
        }
        Some("vertex-ai") => {
            if set("GOOGLE_API_KEY") {
                logged_in("Vertex AI (GOOGLE_API_KEY)")
            } else if set("GOOGLE_CLOUD_PROJECT") && set("GOOGLE_CLOUD_LOCATION") {
                logged_in("Vertex AI (GOOGLE_CLOUD_PROJECT)")
            } else {
                LoginState::NotLoggedIn
            }
        }
        Some("gemini-api-key") | None => {
            if set("GEMINI_API_KEY") {
                logged_in("GEMINI_API_KEY")
            } else {
                LoginState::NotLoggedIn
            }
        }
        Some(other) => LoginState::Unknown {
            reason: format!(
                "Gemini CLI logs in with {}",
                codiva_protocol::text::sanitize_title_to(other, 60).unwrap_or_default()
            ),
        },
    }
}

fn grok(env: &EnvPolicy, dir: Option<&Path>) -> LoginState {
    if env.var("XAI_API_KEY").is_some() {
        logged_in("XAI_API_KEY")
    } else if exists(dir, "auth.json") {
        logged_in("auth.json")
    } else {
        LoginState::NotLoggedIn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(home: &Path, vars: &[(&str, &str)]) -> EnvPolicy {
        let mut all = vec![("HOME".to_owned(), home.display().to_string())];
        all.extend(vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        EnvPolicy::Exact(all)
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn codex_acp_is_logged_in_only_with_codex_auth_file() {
        let home = tempfile::tempdir().unwrap();
        // The API key alone is no login for codex-acp (measured: session/new → -32000).
        let with_key = env(home.path(), &[("CODEX_API_KEY", "sk-x")]);
        assert_eq!(
            Credentials::Codex.state(&with_key),
            Some(LoginState::NotLoggedIn)
        );
        write(
            &home.path().join(".codex/auth.json"),
            r#"{"OPENAI_API_KEY":"sk-x","tokens":null}"#,
        );
        assert_eq!(
            Credentials::Codex.state(&with_key),
            Some(logged_in("API key"))
        );
        let elsewhere = tempfile::tempdir().unwrap();
        let moved = env(
            home.path(),
            &[("CODEX_HOME", &elsewhere.path().display().to_string())],
        );
        assert_eq!(
            Credentials::Codex.state(&moved),
            Some(LoginState::NotLoggedIn)
        );
        write(
            &elsewhere.path().join("auth.json"),
            r#"{"tokens":{"id_token":"x"}}"#,
        );
        assert_eq!(Credentials::Codex.state(&moved), Some(logged_in("ChatGPT")));
    }

    #[test]
    fn gemini_follows_its_selected_auth_type() {
        let home = tempfile::tempdir().unwrap();
        let bare = env(home.path(), &[]);
        assert_eq!(
            Credentials::Gemini.state(&bare),
            Some(LoginState::NotLoggedIn)
        );
        let keyed = env(home.path(), &[("GEMINI_API_KEY", "k")]);
        assert_eq!(
            Credentials::Gemini.state(&keyed),
            Some(logged_in("GEMINI_API_KEY"))
        );
        // What its `authenticate` wrote (measured, method vertex-ai).
        let settings = home.path().join(".gemini/settings.json");
        write(
            &settings,
            r#"{"security":{"auth":{"selectedType":"vertex-ai"}}}"#,
        );
        assert_eq!(
            Credentials::Gemini.state(&keyed),
            Some(LoginState::NotLoggedIn)
        );
        write(
            &settings,
            r#"{"security":{"auth":{"selectedType":"oauth-personal"}}}"#,
        );
        assert!(matches!(
            Credentials::Gemini.state(&bare),
            Some(LoginState::Unknown { .. })
        ));
        write(&home.path().join(".gemini/oauth_creds.json"), "{}");
        assert_eq!(
            Credentials::Gemini.state(&bare),
            Some(logged_in("Google account"))
        );
        write(
            &settings,
            "{\"security\":{\"auth\":{\"selectedType\":\"new-kind\\u001b[31m\"}}}",
        );
        let Some(LoginState::Unknown { reason }) = Credentials::Gemini.state(&bare) else {
            panic!("not unknown");
        };
        assert!(!reason.contains('\u{1b}'), "{reason:?}");
    }

    #[test]
    fn claude_and_grok_read_their_files_and_keys() {
        let home = tempfile::tempdir().unwrap();
        let bare = env(home.path(), &[]);
        if !cfg!(target_os = "macos") {
            assert_eq!(
                Credentials::Claude.state(&bare),
                Some(LoginState::NotLoggedIn)
            );
        }
        write(&home.path().join(".claude/.credentials.json"), "{}");
        assert_eq!(
            Credentials::Claude.state(&bare),
            Some(logged_in("Claude account"))
        );
        assert_eq!(
            Credentials::Grok.state(&bare),
            Some(LoginState::NotLoggedIn)
        );
        assert_eq!(
            Credentials::Grok.state(&env(home.path(), &[("XAI_API_KEY", "k")])),
            Some(logged_in("XAI_API_KEY"))
        );
        write(&home.path().join(".grok/auth.json"), "{}");
        assert_eq!(Credentials::Grok.state(&bare), Some(logged_in("auth.json")));
        assert!(matches!(
            Credentials::Unknown.state(&bare),
            Some(LoginState::Unknown { .. })
        ));
    }
}
