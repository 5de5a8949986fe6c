//! The process layer: the only place that builds `Command`s for agents.
//!
//! - [`spawn`](spawn::spawn) starts an agent CLI in its own process group with a scrubbed
//!   environment, piped stdio, a bounded stderr tail and an escalating shutdown
//!   ([`ProcessControl`]); dropping the last control handle SIGKILLs the whole group, and a
//!   watcher next to each agent stops its group when codiva's process ends without cleanup.
//! - [`LineReader`] reads JSON lines from the agent's stdout with a hard bound on line length;
//!   [`PacedPipe`] lets it read them in batches (one wake-up per batch, not per line).
//! - [`ChildRegistry`] records every live child on disk so that a later run can kill what a
//!   crashed run left behind.
//! - [`locate_program`] / [`probe_version`] find the agent binary and check its version.

pub mod child_registry;
pub mod line_reader;
pub mod locate;
pub(crate) mod output;
pub mod paced_pipe;
pub(crate) mod parent_watch;
pub mod procfs;
pub(crate) mod signal;
pub mod spawn;

pub use child_registry::{ChildRecord, ChildRegistry, ReapOutcome, ReapedChild};
pub use line_reader::{DEFAULT_MAX_LINE, LineReader, READ_CHUNK, ReadLine};
pub use locate::{
    Captured, LocateError, NotExecutable, OutsideTested, ProbeError, Supervision, Version,
    locate_program, probe_version, probe_version_with, run_captured, run_supervised, version_check,
};
pub use paced_pipe::PacedPipe;
pub use spawn::{
    AgentProcess, EnvPolicy, ExitInfo, ProcessControl, SCRUBBED_VARS, STDERR_TAIL_BYTES,
    SpawnError, SpawnSpec, StdinWriter, spawn,
};

/// A command for a short-lived tool whose output codiva reads (git, gh, a check), in `cwd`: no
/// stdin, stdout and stderr piped, in a process group of its own (so that killing the group on
/// a timeout also kills what the tool started), killed when dropped.
pub(crate) fn tool_command(
    program: impl AsRef<std::ffi::OsStr>,
    cwd: &std::path::Path,
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    command
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    command
}
