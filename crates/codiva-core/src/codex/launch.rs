//! The command line codiva starts Codex with: `codex app-server` (JSON-RPC over stdio). The
//! model, approval policy, sandbox and system prompt go in `thread/start`, not on the command
//! line (docs/protocol/codex.md). Where its program is found and which versions were tested:
//! its row of [`crate::provider::catalog`].

use std::ffi::OsString;

/// `app-server`, with the plan tool on (without it codex 0.171 has no `update_plan` for
/// the catalog's classic models, so no plan reaches codiva).
pub const APP_SERVER_ARGS: &[&str] = &["app-server", "-c", "tools.update_plan.enabled=true"];

pub fn args() -> Vec<OsString> {
    APP_SERVER_ARGS.iter().map(OsString::from).collect()
}
