//! Programs the user runs with the terminal: `$SHELL` or `$EDITOR` in a session's worktree.
//! Unlike an agent, the child gets codiva's terminal (stdin, stdout, stderr inherited) and stays
//! in codiva's process group, which is the terminal's foreground group, so it reads keys and
//! gets the terminal's signals; codiva ignores Ctrl+C and Ctrl+\ meanwhile, waits for it and
//! reaps it. The caller hands the terminal over first and takes it back after (the TUI's
//! `terminal` module). An argument vector, never a shell command line.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};

use tokio::process::Command;
use tokio::signal::unix::{SignalKind, signal};

/// The program and its arguments: `$VISUAL`, else `$EDITOR` (which may carry arguments,
/// `code --wait`), else `vi`.
pub fn editor_command(visual: Option<&str>, editor: Option<&str>) -> Vec<String> {
    let chosen = [visual, editor]
        .into_iter()
        .flatten()
        .find(|value| !value.trim().is_empty())
        .unwrap_or("vi");
    chosen.split_whitespace().map(str::to_owned).collect()
}

/// The user's shell: `$SHELL`, else `/bin/sh`.
pub fn shell_command(shell: Option<&str>) -> Vec<String> {
    vec![
        shell
            .filter(|value| !value.trim().is_empty())
            .unwrap_or("/bin/sh")
            .trim()
            .to_owned(),
    ]
}

/// Runs `argv` in `cwd` with the terminal and waits for it to exit (it is always reaped).
/// `env` is added to codiva's environment (e.g. `CODIVA_SESSION`).
pub async fn run(argv: &[String], cwd: &Path, env: &[(&str, OsString)]) -> io::Result<ExitStatus> {
    let Some((program, args)) = argv.split_first() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no program to run",
        ));
    };
    // Ctrl+C / Ctrl+\ typed in the child reach the whole foreground group: codiva must not
    // die of them. Listening replaces the default action for the life of the process (in raw
    // mode, which the UI uses, those keys are not signals anyway).
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut quit = signal(SignalKind::quit())?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn()?;
    loop {
        tokio::select! {
            status = child.wait() => return status,
            _ = interrupt.recv() => {}
            _ = quit.recv() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_and_shell_choice() {
        assert_eq!(
            editor_command(Some("code --wait"), Some("vim")),
            ["code", "--wait"]
        );
        assert_eq!(editor_command(Some(" "), Some("nano")), ["nano"]);
        assert_eq!(editor_command(None, None), ["vi"]);
        assert_eq!(shell_command(Some("/bin/zsh")), ["/bin/zsh"]);
        assert_eq!(shell_command(None), ["/bin/sh"]);
    }

    #[tokio::test]
    async fn runs_in_the_directory_and_reports_the_status() {
        let dir = tempfile::tempdir().unwrap();
        let argv: Vec<String> = ["sh", "-c", "pwd > here; exit 3"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let status = run(&argv, dir.path(), &[]).await.unwrap();
        assert_eq!(status.code(), Some(3));
        let here = std::fs::read_to_string(dir.path().join("here")).unwrap();
        assert_eq!(
            std::fs::canonicalize(here.trim()).unwrap(),
            std::fs::canonicalize(dir.path()).unwrap()
        );
    }
}
