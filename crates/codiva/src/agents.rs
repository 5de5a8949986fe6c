//! The agents codiva runs and where they are on this machine, for the front ends that start a
//! manager (`bootstrap.rs`, `exec`): every agent is a row of the core's catalog
//! (`codiva_core::provider::catalog`) or an `[agents.<id>]` of the config file, found by
//! `codiva_core::provider::discovery`; this module adds what the command line gives
//! (`codiva exec --claude PATH`).

use std::path::PathBuf;

use codiva_core::config::Config;
pub use codiva_core::provider::discovery::Found;

/// Programs given on the command line (`codiva exec --claude PATH`): they win over the
/// variable and the config.
#[derive(Debug, Default)]
pub struct Flags {
    pub claude: Option<PathBuf>,
}

/// Finds every agent codiva knows (the programs in `flags` first).
pub async fn find(config: &Config, flags: &Flags) -> Found {
    let programs: Vec<(&str, PathBuf)> = flags
        .claude
        .iter()
        .map(|program| ("claude", program.clone()))
        .collect();
    codiva_core::provider::discovery::find(config, &programs).await
}
