//! Starting the session manager for a repository: configuration, the agent binary, the child
//! registry (reaping what a crashed run left), and the manager itself. Shared by every front end
//! that manages sessions (`serve`, the TUI).

use std::path::{Path, PathBuf};

use codiva_core::config::{self, Config};
use codiva_core::manager::{Manager, ManagerOptions};
use codiva_core::paths;
use codiva_core::process::{ChildRegistry, EnvPolicy};

pub struct Started {
    pub manager: Manager,
    /// Warnings for the user: config problems, an agent version outside the tested range, a
    /// corrupt state file, pruned or recovered sessions.
    pub warnings: Vec<String>,
    pub config: Config,
    pub config_path: PathBuf,
}

/// Why the manager could not start: one line for the user.
#[derive(Debug)]
pub struct StartError {
    pub message: String,
    /// Another codiva holds the repository's lock.
    pub locked: bool,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Opens the registry of live agent processes under `state_dir`, first killing the ones an
/// earlier run left behind.
pub fn open_registry(state_dir: &Path) -> std::io::Result<ChildRegistry> {
    let registry = ChildRegistry::open(state_dir.join("children"))?;
    for reaped in registry.reap_stale() {
        tracing::info!(
            pid = reaped.record.pid,
            "reaped a process left by an earlier run"
        );
    }
    Ok(registry)
}

/// Starts the manager for the repository containing `cwd`, as `holder` (`codiva serve`, …: what
/// a second manager refused on this repository is told). The error is one line for the user.
/// It starts with no agent installed: `agents/list` (and the TUI's empty list) says what to
/// install, and creating a session refuses.
pub async fn start(cwd: PathBuf, holder: &str) -> Result<Started, StartError> {
    let config_path = config::config_path();
    let (config, config_warnings) = config::load(&config_path);
    let mut warnings: Vec<String> = config_warnings.iter().map(ToString::to_string).collect();
    let found = crate::agents::find(&config, &crate::agents::Flags::default()).await;
    warnings.extend(found.warnings());
    warnings.extend(found.problems().into_iter().map(|(_, problem)| problem));
    let state_dir = paths::state_dir();
    let registry = match open_registry(&state_dir) {
        Ok(registry) => Some(registry),
        Err(err) => {
            warnings.push(format!("cannot use the child registry: {err}"));
            None
        }
    };
    let options = ManagerOptions {
        cwd,
        providers: found.providers,
        env: EnvPolicy::Inherit {
            remove: codiva_own_vars(),
            set: Vec::new(),
        },
        state_dir,
        registry,
        model: config.model.clone(),
        permission_mode: config.permission_mode,
        fetch_base: config.fetch_base,
        ignored_files: config.ignored_files,
        ignored_files_exclude: config.ignored_files_exclude.clone(),
        max_restarts: config.max_restarts,
        wire_log_cap: config.wire_log_max_mb.saturating_mul(1024 * 1024),
        holder: holder.to_owned(),
        github: github_options(&config),
        titles: config.titles,
        budget: codiva_core::manager::BudgetOptions {
            idle_stop: config.agent_idle_stop,
            max_running_agents: config
                .max_running_agents
                .and_then(|n| usize::try_from(n).ok()),
            ..Default::default()
        },
        checks: codiva_core::check::CheckOptions {
            command: config.check.clone(),
            timeout: std::time::Duration::from_secs(config.check_timeout),
        },
    };
    let (manager, manager_warnings) = Manager::start(options).await.map_err(|err| StartError {
        locked: matches!(err, codiva_core::manager::StartError::Locked(_)),
        message: err.to_string(),
    })?;
    warnings.extend(manager_warnings);
    Ok(Started {
        manager,
        warnings,
        config,
        config_path,
    })
}

/// How the manager runs `gh`: the configured binary, `--repo` when configured, and the
/// polling policy (for tests: `CODIVA_PR_POLL_MS` scales it, `CODIVA_GH_TIMEOUT_MS` shortens
/// the 30 s timeout of a `gh` call).
pub fn github_options(config: &config::Config) -> codiva_core::manager::GithubOptions {
    let mut gh = codiva_core::github::Gh::new(
        config
            .gh_path
            .clone()
            .unwrap_or_else(|| PathBuf::from("gh")),
    );
    if let Some(repo) = &config.github_repo {
        gh = gh.with_repo(repo.clone());
    }
    if let Some(ms) = std::env::var("CODIVA_GH_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
    {
        gh = gh.with_timeout(std::time::Duration::from_millis(ms.max(100)));
    }
    let policy = std::env::var("CODIVA_PR_POLL_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        .map(|ms| {
            codiva_core::github::poll::PollPolicy::scaled(std::time::Duration::from_millis(ms))
        })
        .unwrap_or_default();
    codiva_core::manager::GithubOptions {
        gh,
        repo: config.github_repo.clone(),
        auto_pr: config.auto_pr,
        auto_ready: config.auto_ready,
        auto_recover: config.auto_recover,
        auto_address_review: config.auto_address_review,
        policy,
    }
}

/// Variables codiva reads for itself; agents must not inherit them.
pub fn codiva_own_vars() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(key, _)| key.into_string().ok())
        .filter(|key| key.starts_with("CODIVA_"))
        .collect()
}
