//! `codiva` with no arguments: the terminal UI over this repository's session manager.

use std::process::ExitCode;

use codiva_tui::app::AppInfo;
use codiva_tui::run::TuiOptions;

pub async fn run() -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(err) => {
            eprintln!("codiva: no current directory: {err}");
            return ExitCode::from(2);
        }
    };
    let started = match crate::bootstrap::start(cwd.clone()).await {
        Ok(started) => started,
        Err(message) => {
            eprintln!("codiva: {message}");
            return ExitCode::FAILURE;
        }
    };
    let manager = started.manager;
    let root = manager.root().to_path_buf();
    let home = codiva_core::paths::home_dir();
    let shown_cwd = match root.strip_prefix(&home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => root.display().to_string(),
    };
    let config = &started.config;
    let config_summary = format!(
        "config {}: model {}, permission mode {}, ignored files {:?}, fetch base {}, max restarts {}",
        started.config_path.display(),
        config.model.as_deref().unwrap_or("default"),
        config.permission_mode.as_deref().unwrap_or("default"),
        config.ignored_files,
        config.fetch_base,
        config.max_restarts,
    );
    let options = TuiOptions {
        info: AppInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            cwd: shown_cwd,
            base: manager.base().to_owned(),
            agent: "claude".to_owned(),
            model: config.model.clone(),
            warnings: started.warnings,
        },
        history_path: codiva_tui::composer::History::path_for(&root),
        config_summary,
        prompt_path: root.join(".codiva").join("prompt.md"),
    };
    let result = codiva_tui::run::run(manager.clone(), options).await;
    manager.shutdown().await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("codiva: terminal error: {err}");
            ExitCode::FAILURE
        }
    }
}
