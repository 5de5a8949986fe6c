//! Session titles made by the session's own agent: one one-shot request to its cheapest model,
//! without tools ([`Provider::title_request`]), run in a process group of its own with a time
//! limit, recorded in the child registry and watched like an agent (no codiva that dies leaves
//! it running). The answer is model output: it is sanitised here, before it becomes a title that
//! reaches a terminal, a notification or a pull request.

use std::time::Duration;

use codiva_protocol::text::sanitize_title_to;

use crate::process::{ChildRegistry, EnvPolicy, Supervision};
use crate::provider::{Provider, TitleError};

/// The longest title an agent's answer gives, in characters.
pub const MAX_GENERATED_TITLE_CHARS: usize = 60;

/// How long the one-shot may take before it is killed (and the prompt's first line stays).
pub const TITLE_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Where a new session's title comes from (config `titles`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TitleMode {
    /// The session's agent makes one when it can
    /// ([`codiva_protocol::agent::AgentCapabilities::titles`]); else, or when that fails, the
    /// first line of the prompt.
    #[default]
    Agent,
    /// The first line of the prompt.
    Prompt,
}

impl TitleMode {
    /// The config value (`agent`, `prompt`).
    pub fn name(self) -> &'static str {
        match self {
            TitleMode::Agent => "agent",
            TitleMode::Prompt => "prompt",
        }
    }

    pub fn parse(text: &str) -> Option<TitleMode> {
        match text {
            "agent" => Some(TitleMode::Agent),
            "prompt" => Some(TitleMode::Prompt),
            _ => None,
        }
    }
}

/// Where a session's current title came from (kept in `state.json`): an agent's title replaces
/// only one taken from the prompt, never one a person gave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TitleOrigin {
    /// The first line of the prompt.
    #[default]
    Prompt,
    /// Made by the session's agent.
    Agent,
    /// Given by hand (`/rename`, `session/rename`).
    User,
}

/// At most this much of the instruction goes into the request (a pasted log needs no more to
/// be named, and a command line has a length limit).
const INSTRUCTION_CHARS: usize = 2000;

/// Why an agent gave no title ([`generate`]); the prompt's first line stays.
#[derive(Debug, thiserror::Error)]
pub enum NoTitle {
    /// The agent has no one-shot for titles.
    #[error("{agent} makes no titles")]
    Unsupported {
        /// The agent's name for people.
        agent: &'static str,
    },
    /// The one-shot could not be run, or did not finish in time (and was killed).
    #[error(transparent)]
    Run(#[from] crate::process::ProbeError),
    /// Its output gave no title (`stderr`: the end of what it printed there, one line).
    #[error("{reason}{}", if stderr.is_empty() { String::new() } else { format!(" ({stderr})") })]
    Answer {
        #[source]
        reason: TitleError,
        stderr: String,
    },
    /// The title is empty once cleaned.
    #[error("the agent answered an empty title")]
    Empty,
}

/// Asks `provider` for a title for `instruction`: `Ok` with a clean one-line title of at most
/// [`MAX_GENERATED_TITLE_CHARS`] characters, or why there is none (the agent cannot, it
/// failed, it timed out, or it answered nothing usable).
pub async fn generate(
    provider: &dyn Provider,
    instruction: &str,
    env: &EnvPolicy,
    limit: Duration,
    registry: Option<&ChildRegistry>,
) -> Result<String, NoTitle> {
    let instruction: String = instruction.chars().take(INSTRUCTION_CHARS).collect();
    let command = provider
        .title_request(&instruction)
        .ok_or_else(|| NoTitle::Unsupported {
            agent: provider.display_name(),
        })?;
    let env = with_vars(env, &command.env);
    let supervision = Supervision {
        registry,
        label: "title one-shot",
    };
    let run = crate::process::run_supervised(
        &command.program,
        &command.args,
        &env,
        limit,
        Some(supervision),
    )
    .await?;
    let raw = provider
        .read_title(&run.stdout, run.success)
        .map_err(|reason| {
            let stderr = run.stderr.trim();
            NoTitle::Answer {
                reason,
                stderr: if stderr.is_empty() {
                    String::new()
                } else {
                    codiva_protocol::text::one_line(stderr, 200)
                },
            }
        })?;
    clean(&raw).ok_or(NoTitle::Empty)
}

/// A model's answer made a title: sanitised (no control characters or escape sequences, no
/// bidirectional overrides, one line), surrounding quotes dropped, at most
/// [`MAX_GENERATED_TITLE_CHARS`] characters. Only the first non-empty line counts.
pub fn clean(raw: &str) -> Option<String> {
    let line = raw.lines().map(str::trim).find(|line| !line.is_empty())?;
    let quotes: &[char] = &['"', '\'', '`', '“', '”', '「', '」', '『', '』'];
    let line = line
        .strip_prefix("Title:")
        .or_else(|| line.strip_prefix("タイトル:"))
        .unwrap_or(line)
        .trim()
        .trim_matches(quotes);
    sanitize_title_to(line, MAX_GENERATED_TITLE_CHARS)
}

fn with_vars(env: &EnvPolicy, vars: &[(String, String)]) -> EnvPolicy {
    let mut env = env.clone();
    match &mut env {
        EnvPolicy::Inherit { set, .. } | EnvPolicy::Exact(set) => {
            set.extend(vars.iter().cloned());
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escape_sequence_in_a_title_is_neutralised() {
        // ESC, CSI and OSC parts: the control characters go, what is left is plain text.
        let raw = "\u{1b}[31mFix\u{1b}[0m the \u{1b}]0;pwned\u{7}login\u{9b}2J loop";
        let title = clean(raw).unwrap();
        assert!(!title.chars().any(char::is_control), "{title:?}");
        assert_eq!(title, "[31mFix [0m the ]0;pwned login 2J loop");
    }

    #[test]
    fn a_title_is_one_short_clean_line() {
        assert_eq!(
            clean("\n  \"Add a login page\"\nmore text").unwrap(),
            "Add a login page"
        );
        assert_eq!(
            clean("「ログイン画面を追加」").unwrap(),
            "ログイン画面を追加"
        );
        assert_eq!(clean("Title: Fix a\u{202e}b").unwrap(), "Fix ab");
        assert_eq!(clean(" \n \t"), None);
        let long = "長".repeat(100);
        assert_eq!(
            clean(&long).unwrap().chars().count(),
            MAX_GENERATED_TITLE_CHARS
        );
    }

    #[test]
    fn title_modes_read_their_config_names() {
        for mode in [TitleMode::Agent, TitleMode::Prompt] {
            assert_eq!(TitleMode::parse(mode.name()), Some(mode));
        }
        assert_eq!(TitleMode::parse("model"), None);
    }
}
