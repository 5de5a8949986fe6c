//! Finding the agents on this machine: every row of the catalog and every `[agents.<id>]` of
//! the config file, each the same way — its program given on the command line, else
//! `$CODIVA_<ID>`, else the config's `<id>_path`, else its binary in `PATH` and the usual
//! install directories; then its version against the range codiva was tested with, when it
//! has a version flag. What is found becomes the manager's [`Providers`]; what is not is
//! listed with how to install it. What the user should hear is data ([`Finding`]), worded in
//! the UI's language (`startup_words.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use codiva_protocol::lang::Lang;

use super::catalog::{self, AgentSpec};
use super::{MissingAgent, Provider, Providers};
use crate::acp::{AcpAgent, AcpProvider};
use crate::config::{AgentEntry, Config, LangEnv};
use crate::process::{self, LocateError};

#[path = "../startup_words.rs"]
mod words;
pub use words::{Finding, NotThere, Unread, config_agent_install};

/// The agents found, and what the user should hear.
pub struct Found {
    pub providers: Providers,
    /// What the user should hear, in the order found.
    pub findings: Vec<Finding>,
    /// The language [`Found::warnings`] and [`Found::problems`] speak (the UI's).
    pub lang: Lang,
}

impl Found {
    /// A version outside the tested range or unreadable, the config's `agent` not installed
    /// (one line each, in the UI's language).
    pub fn warnings(&self) -> Vec<String> {
        self.findings
            .iter()
            .filter(|finding| !matches!(finding, Finding::ProgramMissing { .. }))
            .map(|finding| finding.words(self.lang))
            .collect()
    }

    /// Why an agent whose program was configured was not found there (its id, one line in
    /// the UI's language).
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        self.findings
            .iter()
            .filter_map(|finding| match finding {
                Finding::ProgramMissing { id, .. } => Some((*id, finding.words(self.lang))),
                _ => None,
            })
            .collect()
    }
}

/// Programs given on the command line (`codiva exec --claude PATH`), by agent id: they win
/// over the variable and the config.
pub type Programs<'a> = &'a [(&'a str, PathBuf)];

/// Finds every built-in agent and every agent of the config file (`programs` first); what
/// the user should hear is worded in the UI's language (`CODIVA_LANG`, the config's
/// `language`, the locale).
pub async fn find(config: &Config, programs: Programs<'_>) -> Found {
    let lang = LangEnv::from_process().lang(config.language.as_deref());
    find_in(config, programs, lang).await
}

/// [`find`] with what the user should hear in `lang`.
pub async fn find_in(config: &Config, programs: Programs<'_>, lang: Lang) -> Found {
    let home = crate::paths::home_dir();
    let path_var = std::env::var_os("PATH");
    let mut installed: Vec<(Arc<dyn Provider>, Option<PathBuf>)> = Vec::new();
    let mut missing = Vec::new();
    let mut findings = Vec::new();

    // Each agent is looked for and asked its version side by side: a version probe starts a
    // program (a Node one takes a second), and start-up waits for the slowest, not the sum.
    let mut probes = tokio::task::JoinSet::new();
    for (index, spec) in catalog::BUILTIN.iter().enumerate() {
        let flag = programs
            .iter()
            .find(|(id, _)| *id == spec.id)
            .map(|(_, path)| path.clone());
        let configured = flag
            .or_else(|| {
                std::env::var_os(spec.env_var())
                    .filter(|value| !value.is_empty())
                    .map(PathBuf::from)
            })
            .or_else(|| config.agent_paths.get(spec.id).cloned());
        let (path_var, home) = (path_var.clone(), home.clone());
        probes.spawn(async move {
            let found = locate(spec, configured.as_deref(), path_var.as_deref(), &home).await;
            (index, found)
        });
    }
    let mut found: Vec<_> = probes.join_all().await;
    found.sort_by_key(|(index, _)| *index);
    for ((_, result), spec) in found.into_iter().zip(catalog::BUILTIN) {
        match result {
            Ok((program, finding)) => {
                findings.extend(finding);
                installed.push((spec.provider(program.clone()), Some(program)));
            }
            Err(err) => missing.push(missing_agent(
                spec.id,
                spec.display_name,
                spec.install.to_owned(),
                &err,
                &mut findings,
            )),
        }
    }

    for entry in &config.agents {
        let (id, name) = leaked_names(entry);
        match process::locate_program(
            &entry.command.to_string_lossy(),
            None,
            path_var.as_deref(),
            Some(&home),
        ) {
            Ok(program) => {
                let provider = AcpProvider::new(custom_agent(entry, id, name, program.clone()));
                installed.push((Arc::new(provider), Some(program)));
            }
            Err(err) => {
                // A configured command that is not there is always worth a line.
                findings.push(Finding::ProgramMissing {
                    id,
                    agent: name,
                    why: NotThere::from(&err),
                });
                missing.push(MissingAgent {
                    id,
                    name,
                    install: config_agent_install(&entry.id, &entry.command, lang),
                });
            }
        }
    }

    if let Some(agent) = &config.agent
        && !installed.iter().any(|(provider, _)| provider.id() == agent)
    {
        findings.push(Finding::DefaultAgentMissing {
            agent: agent.clone(),
        });
    }
    Found {
        providers: Providers::new(installed, missing, config.agent.as_deref()),
        findings,
        lang,
    }
}

/// Finds `spec`'s program (`configured`, else its binary in `path_var` and the usual install
/// directories under `home`) and, when it has a version flag, asks its version. Returns the
/// program and, when the version is outside the tested range or cannot be read, what the
/// user should hear (codiva still runs it).
pub async fn locate(
    spec: &AgentSpec,
    configured: Option<&Path>,
    path_var: Option<&std::ffi::OsStr>,
    home: &Path,
) -> Result<(PathBuf, Option<Finding>), LocateError> {
    let program = process::locate_program(spec.binary, configured, path_var, Some(home))?;
    let Some(check) = spec.version else {
        return Ok((program, None));
    };
    let finding = match process::probe_version_with(&program, check.flag).await {
        Ok(version) => process::version_check(version, check.oldest, check.newest).map(|outside| {
            Finding::Version {
                agent: spec.display_name,
                outside,
            }
        }),
        Err(err) => Some(Finding::VersionUnread {
            agent: spec.display_name,
            program: program.clone(),
            flag: check.flag,
            why: Unread::from(&err),
        }),
    };
    Ok((program, finding))
}

/// The agent a config entry describes, run from `program`.
fn custom_agent(
    entry: &AgentEntry,
    id: &'static str,
    name: &'static str,
    program: PathBuf,
) -> AcpAgent {
    let mut agent = AcpAgent::custom(id, name, program, entry.args.clone());
    agent.env.clone_from(&entry.env);
    agent.system_prompt = entry.system_prompt;
    agent.modes.clone_from(&entry.modes);
    agent
}

/// The entry's id and name for the life of the process (a provider's are `&'static`; the
/// config is read once per manager).
fn leaked_names(entry: &AgentEntry) -> (&'static str, &'static str) {
    let id: &'static str = Box::leak(entry.id.clone().into_boxed_str());
    let name = match &entry.display_name {
        Some(name) => Box::leak(name.clone().into_boxed_str()),
        None => id,
    };
    (id, name)
}

/// An agent not found; a configured path that is wrong is also a finding (it names the path).
fn missing_agent(
    id: &'static str,
    name: &'static str,
    install: String,
    err: &LocateError,
    findings: &mut Vec<Finding>,
) -> MissingAgent {
    if !matches!(err, LocateError::NotFound { .. }) {
        findings.push(Finding::ProgramMissing {
            id,
            agent: name,
            why: NotThere::from(err),
        });
    }
    MissingAgent { id, name, install }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn program(dir: &Path, name: &str, script: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Every agent with a version flag has its version checked, ACP agents too (Gemini CLI);
    /// one without is never asked (it would start instead).
    #[tokio::test]
    async fn versions_are_checked_by_the_row() {
        let dir = tempfile::tempdir().unwrap();
        let gemini = catalog::builtin("gemini").unwrap();
        let old = program(dir.path(), "gemini", "echo 0.50.0");
        let (found, warning) = locate(gemini, Some(&old), None, dir.path()).await.unwrap();
        assert_eq!(found, old);
        assert_eq!(
            warning,
            Some(Finding::Version {
                agent: "Gemini CLI",
                outside: process::OutsideTested::Older {
                    found: process::Version::new(0, 50, 0),
                    oldest: process::Version::new(0, 61, 0),
                },
            })
        );
        let tested = program(dir.path(), "gemini-ok", "echo 0.61.0");
        assert_eq!(
            locate(gemini, Some(&tested), None, dir.path())
                .await
                .unwrap()
                .1,
            None
        );
        // codex-acp has no version flag: a program that would fail when asked is not asked.
        let codex_acp = catalog::builtin("codex-acp").unwrap();
        let runs = dir.path().join("runs");
        let agent = program(
            dir.path(),
            "codex-acp",
            &format!("echo run >> '{}'; exit 2", runs.display()),
        );
        assert_eq!(
            locate(codex_acp, Some(&agent), None, dir.path())
                .await
                .unwrap(),
            (agent, None)
        );
        assert!(!runs.exists(), "never started");
    }

    /// The program is looked for the same way for every row: configured, else `PATH`.
    #[tokio::test]
    async fn a_row_is_found_by_its_binary_in_path() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let grok = program(&bin, "grok", "exit 0");
        let spec = catalog::builtin("grok").unwrap();
        let path = std::ffi::OsString::from(&bin);
        let (found, _) = locate(spec, None, Some(&path), dir.path()).await.unwrap();
        assert_eq!(found, grok);
        let err = locate(
            spec,
            Some(&dir.path().join("nope")),
            Some(&path),
            dir.path(),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, LocateError::Configured { .. }), "{err}");
    }

    /// `<id>_path` in the config is the program of every built-in agent; `[agents.<id>]`
    /// adds an agent with the entry's facts.
    #[tokio::test]
    async fn the_config_names_programs_and_adds_agents() {
        let dir = tempfile::tempdir().unwrap();
        let gemini = program(dir.path(), "my-gemini", "echo 0.61.0");
        let acp = program(dir.path(), "my-acp", "exit 0");
        let text = format!(
            "gemini_path = {:?}\n[agents.mine]\ncommand = {:?}\nargs = [\"--acp\"]\n\
             display_name = \"Mine\"\nsystem_prompt = \"meta_rules\"\nenv = {{ K = \"v\" }}\n\
             modes = {{ plan = \"ro\" }}\n",
            gemini.display().to_string(),
            acp.display().to_string()
        );
        let (config, warnings) = crate::config::parse(&text, Path::new("c.toml"));
        assert!(warnings.is_empty(), "{warnings:?}");
        let found = find(&config, &[]).await;
        let listed = found.providers.availability();
        let gemini_row = listed.iter().find(|agent| agent.id == "gemini").unwrap();
        assert_eq!(
            gemini_row.program.as_deref(),
            Some(gemini.to_str().unwrap())
        );
        let mine = listed.iter().find(|agent| agent.id == "mine").unwrap();
        assert_eq!(
            (mine.name.as_str(), mine.program.as_deref()),
            ("Mine", acp.to_str())
        );
        let provider = found.providers.get("mine").unwrap();
        let command = provider.command(&super::super::Launch::default());
        assert_eq!(command.args, ["--acp"]);
        assert_eq!(command.env, [("K".to_owned(), "v".to_owned())]);
        assert!(
            provider
                .check_permission_mode("mode", codiva_protocol::tool::PermissionMode::Plan)
                .is_ok()
        );
        let env = crate::process::EnvPolicy::Exact(Vec::new());
        assert!(matches!(
            provider.login_state(&env),
            Some(codiva_protocol::agent::LoginState::Unknown { .. })
        ));
    }

    /// A config agent whose command is not there is listed as missing, with a line that says
    /// where it was looked for.
    #[tokio::test]
    async fn a_config_agent_without_its_program_is_missing_and_said() {
        let text = "[agents.gone]\ncommand = \"/nonexistent/agent\"\n";
        let (config, _) = crate::config::parse(text, Path::new("c.toml"));
        let found = find(&config, &[]).await;
        assert!(found.providers.get("gone").is_none());
        let missing = found.providers.missing("gone").unwrap();
        assert!(missing.install.contains("[agents.gone]"), "{missing:?}");
        let problems: Vec<_> = found
            .problems()
            .into_iter()
            .filter(|(id, _)| *id == "gone")
            .collect();
        assert_eq!(problems.len(), 1, "{:?}", found.findings);
    }

    /// What start-up tells the user is in the UI's language: a version outside the tested
    /// range, a configured program that is not there (with the system's own words), the
    /// config's `agent` not installed, and where a config agent's program should be.
    #[tokio::test]
    async fn findings_speak_the_uis_language() {
        let dir = tempfile::tempdir().unwrap();
        let gemini = program(dir.path(), "old-gemini", "echo 0.50.0");
        let text = format!(
            "agent = \"nope\"\ngemini_path = {:?}\ngrok_path = \"/nonexistent/grok\"\n\
             [agents.gone]\ncommand = \"/nonexistent/agent\"\n",
            gemini.display().to_string()
        );
        let (config, warnings) = crate::config::parse(&text, Path::new("c.toml"));
        assert!(warnings.is_empty(), "{warnings:?}");
        let found = find_in(&config, &[], Lang::Ja).await;
        // Only these: an agent of this machine's PATH may add its own line.
        let warnings = found.warnings();
        for expected in [
            "Gemini CLI のバージョン 0.50.0 は codiva で試した最も古いバージョン（0.61.0）より古いです。動かない機能があるかもしれません。更新を検討してください",
            "config の agent = \"nope\": その agent はインストールされていません。新しいセッションはインストールされている最初の agent で動きます",
        ] {
            assert!(
                warnings.iter().any(|w| w == expected),
                "{expected} in {warnings:#?}"
            );
        }
        assert_eq!(
            found.problems(),
            [
                (
                    "grok",
                    "Grok: 設定されたプログラム /nonexistent/grok はありません".to_owned()
                ),
                (
                    "gone",
                    "gone: /nonexistent/agent が見つかりません。探した場所: /nonexistent/agent"
                        .to_owned()
                ),
            ]
        );
        assert_eq!(
            found.providers.missing("gone").unwrap().install,
            "codiva の config の [agents.gone] の command（/nonexistent/agent）"
        );
        let found = find_in(&config, &[], Lang::En).await;
        assert_eq!(
            found.problems()[0].1,
            "Grok: the configured program /nonexistent/grok does not exist"
        );
        assert!(
            found
                .warnings()
                .iter()
                .any(|w| w.starts_with("config agent = \"nope\": that agent is not installed")),
            "{:?}",
            found.warnings()
        );
    }
}
