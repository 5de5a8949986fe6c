//! Where codiva keeps its own files.

use std::path::PathBuf;

/// codiva's state directory: `$CODIVA_STATE_DIR`, else `$XDG_STATE_HOME/codiva`, else
/// `~/.local/state/codiva` (wire logs, the child registry, crash logs).
pub fn state_dir() -> PathBuf {
    if let Some(dir) = non_empty_var("CODIVA_STATE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = non_empty_var("XDG_STATE_HOME") {
        return PathBuf::from(dir).join("codiva");
    }
    home_dir().join(".local/state/codiva")
}

/// The user's home directory (`$HOME`, else `/`).
pub fn home_dir() -> PathBuf {
    non_empty_var("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

fn non_empty_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}
