//! What finding the agents at start-up tells the user, in the UI's language (English or
//! Japanese): discovery records each finding as data ([`Finding`]) and words it in the
//! language the configuration's warnings use (`CODIVA_LANG`, then the config's `language`,
//! then the locale), so the TUI, `codiva exec` and `codiva serve` (its `initialize`
//! warnings) show them in the language the UI speaks. Text that comes from the system (why a
//! program could not be started) stays as the system says it, inside the worded line.

use std::path::{Path, PathBuf};

use codiva_protocol::lang::Lang;

use crate::process::{LocateError, NotExecutable, OutsideTested, ProbeError};

/// Why an agent's version could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// The program could not be started (the system's words).
    Spawn(String),
    /// It did not answer within `seconds` (and was stopped).
    Timeout { seconds: u64 },
    /// It answered without a version: its exit status and the start of its output.
    NoVersion { status: String, output: String },
}

impl From<&ProbeError> for Unread {
    fn from(error: &ProbeError) -> Self {
        match error {
            ProbeError::Spawn { source, .. } => Unread::Spawn(source.to_string()),
            ProbeError::Timeout { after, .. } => Unread::Timeout {
                seconds: after.as_secs(),
            },
            ProbeError::NoVersion { status, output, .. } => Unread::NoVersion {
                status: status.clone(),
                output: output.clone(),
            },
        }
    }
}

/// Why an agent's program is not where it was looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotThere {
    /// The configured path is not an executable file.
    Configured {
        path: PathBuf,
        problem: NotExecutable,
    },
    /// `name` is in none of `searched`.
    NotFound {
        name: String,
        searched: Vec<PathBuf>,
    },
}

impl From<&LocateError> for NotThere {
    fn from(error: &LocateError) -> Self {
        match error {
            LocateError::Configured { path, problem } => NotThere::Configured {
                path: path.clone(),
                problem: *problem,
            },
            LocateError::NotFound { name, searched } => NotThere::NotFound {
                name: name.clone(),
                searched: searched.clone(),
            },
        }
    }
}

/// One thing found about the agents at start-up that the user should hear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// `agent`'s version is outside the range codiva was tested with (codiva still runs it).
    Version {
        agent: &'static str,
        outside: OutsideTested,
    },
    /// `agent`'s version could not be read: `program` asked with `flag`.
    VersionUnread {
        agent: &'static str,
        program: PathBuf,
        flag: &'static str,
        why: Unread,
    },
    /// The config's `agent` names an agent that is not installed.
    DefaultAgentMissing { agent: String },
    /// The program configured for an agent (`<id>_path`, `$CODIVA_<ID>`, `[agents.<id>]`'s
    /// `command`) is not there.
    ProgramMissing {
        id: &'static str,
        agent: &'static str,
        why: NotThere,
    },
}

impl Finding {
    /// The finding in `lang`.
    pub fn words(&self, lang: Lang) -> String {
        match (self, lang) {
            (Finding::Version { agent, outside }, _) => outside_words(agent, outside, lang),
            (
                Finding::VersionUnread {
                    agent,
                    program,
                    flag,
                    why,
                },
                Lang::En,
            ) => format!(
                "{agent}: could not read the version of {} ({})",
                program.display(),
                unread_words(flag, why, lang)
            ),
            (
                Finding::VersionUnread {
                    agent,
                    program,
                    flag,
                    why,
                },
                Lang::Ja,
            ) => format!(
                "{agent}: {} のバージョンを読めませんでした（{}）",
                program.display(),
                unread_words(flag, why, lang)
            ),
            (Finding::DefaultAgentMissing { agent }, Lang::En) => format!(
                "config agent = {agent:?}: that agent is not installed; new sessions run the first installed one"
            ),
            (Finding::DefaultAgentMissing { agent }, Lang::Ja) => format!(
                "config の agent = {agent:?}: その agent はインストールされていません。新しいセッションはインストールされている最初の agent で動きます"
            ),
            (Finding::ProgramMissing { agent, why, .. }, _) => {
                format!("{agent}: {}", not_there_words(why, lang))
            }
        }
    }
}

fn outside_words(agent: &str, outside: &OutsideTested, lang: Lang) -> String {
    match (outside, lang) {
        (OutsideTested::Older { found, oldest }, Lang::En) => format!(
            "{agent} version {found} is older than the oldest version codiva was tested with \
             ({oldest}); some features may not work — consider updating"
        ),
        (OutsideTested::Older { found, oldest }, Lang::Ja) => format!(
            "{agent} のバージョン {found} は codiva で試した最も古いバージョン（{oldest}）より古いです。\
             動かない機能があるかもしれません。更新を検討してください"
        ),
        (OutsideTested::Newer { found, newest }, Lang::En) => format!(
            "{agent} version {found} is newer than the newest version codiva was tested with \
             ({newest}); if something breaks, please report it"
        ),
        (OutsideTested::Newer { found, newest }, Lang::Ja) => format!(
            "{agent} のバージョン {found} は codiva で試した最も新しいバージョン（{newest}）より新しいです。\
             うまく動かないときは報告してください"
        ),
    }
}

fn unread_words(flag: &str, why: &Unread, lang: Lang) -> String {
    match (why, lang) {
        (Unread::Spawn(error), Lang::En) => format!("cannot run it: {error}"),
        (Unread::Spawn(error), Lang::Ja) => format!("起動できません: {error}"),
        (Unread::Timeout { seconds }, Lang::En) => {
            format!("{flag} did not finish within {seconds} s")
        }
        (Unread::Timeout { seconds }, Lang::Ja) => {
            format!("{flag} が {seconds} 秒以内に終わりませんでした")
        }
        (Unread::NoVersion { status, output }, Lang::En) => {
            format!("{flag} printed no version ({status}): {output:?}")
        }
        (Unread::NoVersion { status, output }, Lang::Ja) => {
            format!("{flag} がバージョンを出力しませんでした（{status}）: {output:?}")
        }
    }
}

fn not_there_words(why: &NotThere, lang: Lang) -> String {
    match (why, lang) {
        (NotThere::Configured { path, problem }, Lang::En) => format!(
            "the configured program {} {}",
            path.display(),
            match problem {
                NotExecutable::Missing => "does not exist",
                NotExecutable::NotAFile => "is not a file",
                NotExecutable::NoExecutePermission => "is not executable",
            }
        ),
        (NotThere::Configured { path, problem }, Lang::Ja) => format!(
            "設定されたプログラム {} {}",
            path.display(),
            match problem {
                NotExecutable::Missing => "はありません",
                NotExecutable::NotAFile => "はファイルではありません",
                NotExecutable::NoExecutePermission => "は実行できません（実行権限がありません）",
            }
        ),
        (NotThere::NotFound { name, searched }, Lang::En) => {
            format!("{name} not found; searched: {}", paths(searched, lang))
        }
        (NotThere::NotFound { name, searched }, Lang::Ja) => {
            format!(
                "{name} が見つかりません。探した場所: {}",
                paths(searched, lang)
            )
        }
    }
}

fn paths(searched: &[PathBuf], lang: Lang) -> String {
    if searched.is_empty() {
        return match lang {
            Lang::En => "(nothing)".to_owned(),
            Lang::Ja => "（なし）".to_owned(),
        };
    }
    searched
        .iter()
        .map(|path| path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How to make an `[agents.<id>]` agent available whose `command` is not there: what
/// `agents/list` and the TUI show where a built-in agent shows its install command.
pub fn config_agent_install(id: &str, command: &Path, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "the command of [agents.{id}] in codiva's config ({})",
            command.display()
        ),
        Lang::Ja => format!(
            "codiva の config の [agents.{id}] の command（{}）",
            command.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::Version;

    fn both(finding: &Finding) -> (String, String) {
        (finding.words(Lang::En), finding.words(Lang::Ja))
    }

    /// Every finding in English and Japanese; the system's own words stay inside the line.
    #[test]
    fn findings_are_worded_in_both_languages() {
        let older = Finding::Version {
            agent: "Gemini CLI",
            outside: OutsideTested::Older {
                found: Version::new(0, 50, 0),
                oldest: Version::new(0, 61, 0),
            },
        };
        assert_eq!(
            both(&older),
            (
                "Gemini CLI version 0.50.0 is older than the oldest version codiva was tested with (0.61.0); some features may not work — consider updating".to_owned(),
                "Gemini CLI のバージョン 0.50.0 は codiva で試した最も古いバージョン（0.61.0）より古いです。動かない機能があるかもしれません。更新を検討してください".to_owned(),
            )
        );
        let newer = Finding::Version {
            agent: "Codex",
            outside: OutsideTested::Newer {
                found: Version::new(9, 0, 0),
                newest: Version::new(0, 171, 0),
            },
        };
        assert_eq!(
            both(&newer),
            (
                "Codex version 9.0.0 is newer than the newest version codiva was tested with (0.171.0); if something breaks, please report it".to_owned(),
                "Codex のバージョン 9.0.0 は codiva で試した最も新しいバージョン（0.171.0）より新しいです。うまく動かないときは報告してください".to_owned(),
            )
        );
        let spawn = Finding::VersionUnread {
            agent: "Claude Code",
            program: PathBuf::from("/opt/claude"),
            flag: "--version",
            why: Unread::Spawn("Permission denied (os error 13)".to_owned()),
        };
        assert_eq!(
            both(&spawn),
            (
                "Claude Code: could not read the version of /opt/claude (cannot run it: Permission denied (os error 13))".to_owned(),
                "Claude Code: /opt/claude のバージョンを読めませんでした（起動できません: Permission denied (os error 13)）".to_owned(),
            )
        );
        let timeout = Finding::VersionUnread {
            agent: "Grok",
            program: PathBuf::from("/bin/grok"),
            flag: "--version",
            why: Unread::Timeout { seconds: 10 },
        };
        assert_eq!(
            both(&timeout).1,
            "Grok: /bin/grok のバージョンを読めませんでした（--version が 10 秒以内に終わりませんでした）"
        );
        let silent = Finding::VersionUnread {
            agent: "Grok",
            program: PathBuf::from("/bin/grok"),
            flag: "-V",
            why: Unread::NoVersion {
                status: "exit status: 1".to_owned(),
                output: "usage".to_owned(),
            },
        };
        assert_eq!(
            both(&silent).0,
            "Grok: could not read the version of /bin/grok (-V printed no version (exit status: 1): \"usage\")"
        );
        let default = Finding::DefaultAgentMissing {
            agent: "grok".to_owned(),
        };
        assert_eq!(
            both(&default),
            (
                "config agent = \"grok\": that agent is not installed; new sessions run the first installed one".to_owned(),
                "config の agent = \"grok\": その agent はインストールされていません。新しいセッションはインストールされている最初の agent で動きます".to_owned(),
            )
        );
        let configured = |problem| Finding::ProgramMissing {
            id: "gemini",
            agent: "Gemini CLI",
            why: NotThere::Configured {
                path: PathBuf::from("/opt/gemini"),
                problem,
            },
        };
        assert_eq!(
            both(&configured(NotExecutable::Missing)),
            (
                "Gemini CLI: the configured program /opt/gemini does not exist".to_owned(),
                "Gemini CLI: 設定されたプログラム /opt/gemini はありません".to_owned(),
            )
        );
        assert_eq!(
            both(&configured(NotExecutable::NotAFile)).1,
            "Gemini CLI: 設定されたプログラム /opt/gemini はファイルではありません"
        );
        assert_eq!(
            both(&configured(NotExecutable::NoExecutePermission)).0,
            "Gemini CLI: the configured program /opt/gemini is not executable"
        );
        let searched = |searched: Vec<PathBuf>| Finding::ProgramMissing {
            id: "mine",
            agent: "Mine",
            why: NotThere::NotFound {
                name: "/opt/mine".to_owned(),
                searched,
            },
        };
        assert_eq!(
            both(&searched(vec![PathBuf::from("/opt/mine")])),
            (
                "Mine: /opt/mine not found; searched: /opt/mine".to_owned(),
                "Mine: /opt/mine が見つかりません。探した場所: /opt/mine".to_owned(),
            )
        );
        assert_eq!(
            both(&searched(Vec::new())).1,
            "Mine: /opt/mine が見つかりません。探した場所: （なし）"
        );
        assert_eq!(
            config_agent_install("mine", Path::new("/opt/mine"), Lang::Ja),
            "codiva の config の [agents.mine] の command（/opt/mine）"
        );
    }

    /// The English line of a program not there is the error's own text.
    #[test]
    fn english_is_the_locate_errors_text() {
        for error in [
            LocateError::Configured {
                path: PathBuf::from("/x"),
                problem: NotExecutable::NotAFile,
            },
            LocateError::NotFound {
                name: "x".to_owned(),
                searched: vec![PathBuf::from("/a"), PathBuf::from("/b")],
            },
        ] {
            assert_eq!(
                not_there_words(&NotThere::from(&error), Lang::En),
                error.to_string()
            );
        }
    }
}
