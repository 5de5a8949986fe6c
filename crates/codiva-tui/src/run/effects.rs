//! What the app's effects do: files it reads and writes (the input history, the prompt), programs that take
//! the terminal, links for the desktop, and requests to the manager (sent as tasks, so a slow
//! merge never blocks typing; `requests.rs`); each answers the app with a [`Done`].

use std::io;
use std::path::PathBuf;

use codiva_client::Client;
use tokio::sync::mpsc;

use super::TuiOptions;
use crate::app::{App, Done, Effect};
use crate::i18n::{AgentText, AppText, ViewText, tf};

pub(super) fn run_effects(
    manager: &Client,
    options: &TuiOptions,
    app: &App,
    effects: Vec<Effect>,
    done: &mpsc::UnboundedSender<Done>,
) {
    for effect in effects {
        match effect {
            Effect::SaveInputHistory => {
                let _ = app.save_input_history(&options.input_history_path);
            }
            Effect::Foreground { .. } => {}
            Effect::EditPrompt if app.info.remote.is_some() => {
                let host = app.info.remote.as_ref().map_or("", |r| r.host.as_str());
                let _ = done.send(Done::Info(tf(AgentText::RemotePrompt, &[host])));
            }
            Effect::EditPrompt => {
                let text = std::fs::read_to_string(&options.prompt_path).unwrap_or_default();
                let _ = done.send(Done::EditPrompt(text));
            }
            Effect::SavePrompt { text } => {
                let result = save_prompt(&options.prompt_path, &text);
                let _ = done.send(match result {
                    Ok(()) => Done::Info(tf(
                        AppText::InfoPromptSaved,
                        &[&options.prompt_path.display().to_string()],
                    )),
                    Err(err) => Done::Error(tf(
                        AppText::ErrPromptSave,
                        &[&options.prompt_path.display().to_string(), &err.to_string()],
                    )),
                });
            }
            Effect::OpenUrl { url } => {
                let done = done.clone();
                // An address on the remote host's own loopback would open this machine's.
                if let Some(remote) = &app.info.remote
                    && is_loopback_url(&url)
                {
                    let _ = done.send(Done::Info(tf(
                        AgentText::RemoteLoopbackUrl,
                        &[&url, &remote.host],
                    )));
                    continue;
                }
                tokio::spawn(async move {
                    if let Err(err) = codiva_os::desktop_notify::open_url(&url).await {
                        let _ = done.send(Done::Error(tf(
                            AppText::ErrOpenUrl,
                            &[&url, &err.to_string()],
                        )));
                    }
                });
            }
            Effect::Quit | Effect::Shutdown => {}
            Effect::Request { request, purpose } => {
                let manager = manager.clone();
                let done = done.clone();
                tokio::spawn(async move {
                    let result = super::requests::send(&manager, request.clone()).await;
                    let _ = done.send(Done::Answered {
                        request: Box::new(request),
                        purpose,
                        result,
                    });
                });
            }
            Effect::ReadLog { id } => {
                let manager = manager.clone();
                let done = done.clone();
                tokio::spawn(async move {
                    let _ = done.send(super::requests::read_log(&manager, id).await);
                });
            }
        }
    }
}

/// Whether `url` points at the machine's own loopback (`localhost`, `127.x`, `[::1]`).
pub fn is_loopback_url(url: &str) -> bool {
    let Some(rest) = url.split_once("://").map(|(_, rest)| rest) else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || host.starts_with("127.")
}

/// The command line that runs `$SHELL` or the editor in `cwd` on the remote host: `ssh -t`
/// with one shell-quoted command (the remote user's own `$SHELL`, `$VISUAL`/`$EDITOR`).
pub fn remote_foreground(
    remote: &crate::app::RemoteHost,
    what: &crate::app::Foreground,
    cwd: &std::path::Path,
) -> Vec<String> {
    let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let program = match what {
        crate::app::Foreground::Shell => "exec \"${SHELL:-sh}\"".to_owned(),
        crate::app::Foreground::Editor { path } => format!(
            "exec \"${{VISUAL:-${{EDITOR:-vi}}}}\" {}",
            quote(path.as_deref().unwrap_or("."))
        ),
    };
    let mut argv = remote.ssh.clone();
    // The destination is the last word: `-t` goes before it.
    let destination = argv.pop().unwrap_or_default();
    argv.extend(["-t".to_owned(), "--".to_owned(), destination]);
    argv.push(format!(
        "cd {} && {program}",
        quote(&cwd.display().to_string())
    ));
    argv
}

/// Runs `$SHELL` or `$EDITOR` in `cwd` with the terminal (`codiva_os::foreground` spawns and
/// reaps it) — over `ssh -t` when the repository is on another host; says how it ended.
pub(super) async fn run_foreground(
    what: crate::app::Foreground,
    cwd: PathBuf,
    remote: Option<&crate::app::RemoteHost>,
) -> Done {
    // Over ssh the command runs from here (the remote side changes to `cwd`); it is named by
    // its host.
    let (argv, dir, name) = if let Some(remote) = remote {
        let argv = remote_foreground(remote, &what, &cwd);
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        (argv, here, format!("ssh {}", remote.host))
    } else {
        let argv = local_foreground(&what);
        let name = argv.first().cloned().unwrap_or_default();
        (argv, cwd, name)
    };
    match codiva_os::foreground::run(&argv, &dir, &[]).await {
        Ok(status) => {
            let code = status
                .code()
                .map_or_else(|| "signal".to_owned(), |code| code.to_string());
            Done::Info(tf(ViewText::ShellBack, &[&name, &code]))
        }
        Err(err) => Done::Error(tf(ViewText::ShellFailed, &[&name, &err.to_string()])),
    }
}

/// The command line of `$SHELL` or `$EDITOR` (`$VISUAL` first) on this machine.
fn local_foreground(what: &crate::app::Foreground) -> Vec<String> {
    let env = |name: &str| std::env::var(name).ok();
    match what {
        crate::app::Foreground::Shell => {
            codiva_os::foreground::shell_command(env("SHELL").as_deref())
        }
        crate::app::Foreground::Editor { path } => {
            let mut argv = codiva_os::foreground::editor_command(
                env("VISUAL").as_deref(),
                env("EDITOR").as_deref(),
            );
            argv.push(path.clone().unwrap_or_else(|| ".".to_owned()));
            argv
        }
    }
}

fn save_prompt(path: &std::path::Path, text: &str) -> io::Result<()> {
    if text.trim().is_empty() {
        return match std::fs::remove_file(path) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        };
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("md.tmp");
    std::fs::write(&tmp, format!("{}\n", text.trim_end()))?;
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod remote_tests {
    use super::*;
    use crate::app::{Foreground, RemoteHost};

    #[test]
    fn loopback_addresses_are_told_apart() {
        for url in [
            "http://localhost:3000/",
            "http://127.0.0.1:8080/x",
            "https://[::1]:443",
            "http://user@LOCALHOST",
            "http://app.localhost:5173",
            "http://0.0.0.0:8000",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
        for url in [
            "https://github.com/o/r/pull/1",
            "http://localhost.example.com",
            "http://10.0.0.1",
            "mailto:a@localhost",
            "not a url",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }

    #[test]
    fn a_remote_shell_or_editor_runs_over_ssh_in_the_worktree() {
        let remote = RemoteHost {
            host: "box".into(),
            ssh: vec!["ssh".into(), "-p".into(), "2222".into(), "me@box".into()],
        };
        let cwd = std::path::Path::new("/src/my app/.codiva/worktrees/fix-it");
        assert_eq!(
            remote_foreground(&remote, &Foreground::Shell, cwd),
            [
                "ssh",
                "-p",
                "2222",
                "-t",
                "--",
                "me@box",
                "cd '/src/my app/.codiva/worktrees/fix-it' && exec \"${SHELL:-sh}\""
            ]
        );
        let editor = remote_foreground(
            &remote,
            &Foreground::Editor {
                path: Some("it's.rs".into()),
            },
            cwd,
        );
        assert_eq!(
            editor.last().unwrap(),
            r#"cd '/src/my app/.codiva/worktrees/fix-it' && exec "${VISUAL:-${EDITOR:-vi}}" 'it'\''s.rs'"#
        );
    }
}
