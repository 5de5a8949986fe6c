//! The command line codiva starts Codex with: `codex app-server` (JSON-RPC over stdio). The
//! model, approval policy, sandbox and system prompt go in `thread/start`, not on the command
//! line (docs/protocol/codex.md).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::process::{self, LocateError, Version};

/// `app-server`, with the plan tool on (without it codex 0.171 has no `update_plan` for
/// the catalog's classic models, so no plan reaches codiva).
pub const APP_SERVER_ARGS: &[&str] = &["app-server", "-c", "tools.update_plan.enabled=true"];

/// The oldest and newest Codex versions codiva was tested with (outside: a warning).
pub const TESTED_MIN: (u32, u32, u32) = (0, 171, 0);
pub const TESTED_MAX: (u32, u32, u32) = (0, 171, 0);

pub fn args() -> Vec<OsString> {
    APP_SERVER_ARGS.iter().map(OsString::from).collect()
}

/// Finds the `codex` binary (the configured path, then `PATH`, then the usual install dirs)
/// and probes its version; the warning says when it is outside the tested range.
pub async fn find_codex(
    configured: Option<&Path>,
) -> Result<(PathBuf, Option<String>), LocateError> {
    let path_var = std::env::var_os("PATH");
    let home = crate::paths::home_dir();
    let program = process::locate_program("codex", configured, path_var.as_deref(), Some(&home))?;
    let warning = match process::probe_version(&program).await {
        Ok(version) => {
            let (a, b, c) = TESTED_MIN;
            let (x, y, z) = TESTED_MAX;
            process::version_check(version, Version::new(a, b, c), Version::new(x, y, z))
        }
        Err(err) => Some(format!(
            "could not read the version of {}: {err}",
            program.display()
        )),
    };
    Ok((program, warning))
}
