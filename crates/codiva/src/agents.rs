//! The agents codiva knows and where they are on this machine: the composition root, the one
//! place that names each provider. Each is found the same way (its configured path, then
//! `PATH` and the usual install directories); one not found is listed with its install command,
//! and codiva runs with whichever are installed.

use std::path::PathBuf;
use std::sync::Arc;

use codiva_core::config::Config;
use codiva_core::process::LocateError;
use codiva_core::provider::{MissingAgent, Provider, Providers};
use codiva_core::{acp, claude, codex, paths, process};

/// The agents found, and warnings for the user (a version outside the tested range, a
/// configured path that is not a program).
pub struct Found {
    pub providers: Providers,
    pub warnings: Vec<String>,
    /// Why an agent with a configured path was not found there (its id, one line).
    pub problems: Vec<(&'static str, String)>,
}

/// The ACP agents codiva knows: preset, binary, the variable that names its program, how to
/// install it.
const ACP_AGENTS: [(&str, &str, &str, &str); 4] = [
    (
        "grok",
        "grok",
        "CODIVA_GROK",
        "curl -fsSL https://x.ai/cli/install.sh | bash",
    ),
    (
        "gemini",
        "gemini",
        "CODIVA_GEMINI",
        "npm install -g @google/gemini-cli",
    ),
    (
        "codex-acp",
        "codex-acp",
        "CODIVA_CODEX_ACP",
        "npm install -g @zed-industries/codex-acp",
    ),
    (
        "claude-code-acp",
        "claude-code-acp",
        "CODIVA_CLAUDE_CODE_ACP",
        "npm install -g @zed-industries/claude-code-acp",
    ),
];

/// Programs given on the command line (`codiva exec --claude PATH`), by agent id: they win over
/// the variable and the config.
#[derive(Debug, Default)]
pub struct Flags {
    pub claude: Option<PathBuf>,
}

impl Flags {
    fn program(&self, id: &str) -> Option<&PathBuf> {
        match id {
            "claude" => self.claude.as_ref(),
            _ => None,
        }
    }
}

/// The configured program of an agent: its flag, else `$<env>`, else the config's key.
fn configured(flag: Option<&PathBuf>, env: &str, config: Option<&PathBuf>) -> Option<PathBuf> {
    flag.cloned()
        .or_else(|| {
            std::env::var_os(env)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        })
        .or_else(|| config.cloned())
}

/// Finds every agent codiva knows (the programs in `flags` first).
pub async fn find(config: &Config, flags: &Flags) -> Found {
    let mut installed: Vec<(Arc<dyn Provider>, Option<PathBuf>)> = Vec::new();
    let mut missing = Vec::new();
    let mut warnings = Vec::new();
    let mut problems = Vec::new();

    let claude_home = paths::home_dir().join(".claude");
    let claude_path = configured(
        flags.program("claude"),
        "CODIVA_CLAUDE",
        config.claude_path.as_ref(),
    );
    match claude::launch::find_claude(claude_path.as_deref()).await {
        Ok((program, warning)) => {
            warnings.extend(warning.map(|warning| format!("Claude Code {warning}")));
            let provider = claude::ClaudeProvider::new(program.clone(), claude_home);
            installed.push((Arc::new(provider), Some(program)));
        }
        Err(err) => missing.push(missing_agent(
            "claude",
            "Claude Code",
            "npm install -g @anthropic-ai/claude-code",
            err,
            &mut problems,
        )),
    }

    let codex_path = configured(
        flags.program("codex"),
        "CODIVA_CODEX",
        config.codex_path.as_ref(),
    );
    match codex::launch::find_codex(codex_path.as_deref()).await {
        Ok((program, warning)) => {
            warnings.extend(warning.map(|warning| format!("Codex {warning}")));
            installed.push((
                Arc::new(codex::CodexProvider::new(program.clone())),
                Some(program),
            ));
        }
        Err(err) => missing.push(missing_agent(
            "codex",
            "Codex",
            "npm install -g @openai/codex",
            err,
            &mut problems,
        )),
    }

    // Agents over the Agent Client Protocol, by their presets.
    let home = paths::home_dir();
    let path_var = std::env::var_os("PATH");
    for (preset, binary, env, install) in ACP_AGENTS {
        let configured = configured(flags.program(preset), env, None);
        match process::locate_program(
            binary,
            configured.as_deref(),
            path_var.as_deref(),
            Some(&home),
        ) {
            Ok(program) => {
                if let Some(agent) = acp::AcpAgent::preset(preset, program.clone()) {
                    installed.push((Arc::new(acp::AcpProvider::new(agent)), Some(program)));
                }
            }
            Err(err) => {
                let name = acp::AcpAgent::preset(preset, PathBuf::new())
                    .map_or(preset, |agent| agent.display_name);
                missing.push(missing_agent(preset, name, install, err, &mut problems));
            }
        }
    }

    if let Some(agent) = &config.agent
        && !installed.iter().any(|(provider, _)| provider.id() == agent)
    {
        warnings.push(format!(
            "config agent = {agent:?}: that agent is not installed; new sessions run the first installed one"
        ));
    }
    Found {
        providers: Providers::new(installed, missing, config.agent.as_deref()),
        warnings,
        problems,
    }
}

/// An agent not found; a configured path that is wrong is also a problem (it names the path).
fn missing_agent(
    id: &'static str,
    name: &'static str,
    install: &str,
    err: LocateError,
    problems: &mut Vec<(&'static str, String)>,
) -> MissingAgent {
    if !matches!(err, LocateError::NotFound { .. }) {
        problems.push((id, format!("{name}: {err}")));
    }
    MissingAgent {
        id,
        name,
        install: install.to_owned(),
    }
}
