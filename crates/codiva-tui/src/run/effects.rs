//! What the app's effects do: files it reads and writes (history, config, prompt), programs that
//! take the terminal, and manager calls (run as tasks, so a slow merge never blocks typing);
//! each answers the app with a [`Done`].

use std::io;
use std::path::PathBuf;

use codiva_client::{Client, ClientError};
use codiva_protocol::manager::DiscardOutcome;
use codiva_protocol::methods::request;
use codiva_protocol::params::{
    AgentParams, Answer, ConfigSetParams, ConfirmParams, CreateParams, FullMessageParams,
    ModelParams, NoParams, PermissionParams, QuestionParams, ReadParams, RenameParams,
    ResumeParams, SendParams, SessionParams,
};
use tokio::sync::mpsc;

use super::TuiOptions;
use crate::app::{App, Done, Effect};
use crate::i18n::{Key, t, tf};

pub(super) fn run_effects(
    manager: &Client,
    options: &TuiOptions,
    app: &App,
    effects: Vec<Effect>,
    done: &mpsc::UnboundedSender<Done>,
) {
    for effect in effects {
        match effect {
            Effect::SaveHistory => {
                let _ = app.composer_history_save(&options.history_path);
            }
            Effect::Foreground { .. } => {}
            Effect::EditPrompt if app.info.remote.is_some() => {
                let host = app.info.remote.as_ref().map_or("", |r| r.host.as_str());
                let _ = done.send(Done::Info(crate::i18n_agents::atf(
                    crate::i18n_agents::A::RemotePrompt,
                    &[host],
                )));
            }
            Effect::EditPrompt => {
                let text = std::fs::read_to_string(&options.prompt_path).unwrap_or_default();
                let _ = done.send(Done::EditPrompt(text));
            }
            Effect::SavePrompt { text } => {
                let result = save_prompt(&options.prompt_path, &text);
                let _ = done.send(match result {
                    Ok(()) => Done::Info(tf(
                        Key::InfoPromptSaved,
                        &[&options.prompt_path.display().to_string()],
                    )),
                    Err(err) => Done::Error(tf(
                        Key::ErrPromptSave,
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
                    let _ = done.send(Done::Info(crate::i18n_agents::atf(
                        crate::i18n_agents::A::RemoteLoopbackUrl,
                        &[&url, &remote.host],
                    )));
                    continue;
                }
                tokio::spawn(async move {
                    if let Err(err) = codiva_os::desktop_notify::open_url(&url).await {
                        let _ =
                            done.send(Done::Error(tf(Key::ErrOpenUrl, &[&url, &err.to_string()])));
                    }
                });
            }
            Effect::Quit | Effect::Shutdown => {}
            effect => {
                let manager = manager.clone();
                let done = done.clone();
                let model = app.info.model.clone();
                // The agent the header names (`/agent` changes it for new sessions).
                let agent = (!app.info.agent.is_empty()).then(|| app.info.agent.clone());
                tokio::spawn(async move {
                    if let Some(answer) = call(&manager, effect, model, agent).await {
                        let _ = done.send(answer);
                    }
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
    use crate::i18n_views::{V, vtf};
    if let Some(remote) = remote {
        let argv = remote_foreground(remote, &what, &cwd);
        let name = format!("ssh {}", remote.host);
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        return match codiva_os::foreground::run(&argv, &here, &[]).await {
            Ok(status) => {
                let code = status
                    .code()
                    .map_or_else(|| "signal".to_owned(), |code| code.to_string());
                Done::Info(vtf(V::ShellBack, &[&name, &code]))
            }
            Err(err) => Done::Error(vtf(V::ShellFailed, &[&name, &err.to_string()])),
        };
    }
    let env = |name: &str| std::env::var(name).ok();
    let argv = match &what {
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
    };
    let name = argv.first().cloned().unwrap_or_default();
    match codiva_os::foreground::run(&argv, &cwd, &[]).await {
        Ok(status) => {
            let code = status
                .code()
                .map_or_else(|| "signal".to_owned(), |code| code.to_string());
            Done::Info(vtf(V::ShellBack, &[&name, &code]))
        }
        Err(err) => Done::Error(vtf(V::ShellFailed, &[&name, &err.to_string()])),
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

/// A discard or remove refused because the session changed since its preview: the fresh
/// preview the refusal carries, to confirm again. `None` for any other error.
pub fn stale_discard(id: &str, forget: bool, err: &ClientError) -> Option<Done> {
    let fresh = err.refusal()?.fresh.as_ref()?;
    Some(Done::DiscardPreview {
        id: id.to_owned(),
        forget,
        preview: fresh.preview.clone(),
        token: fresh.confirm_token.clone(),
        changed: true,
    })
}

/// Runs one manager call; returns what the app should hear about it.
async fn call(
    manager: &Client,
    effect: Effect,
    default_model: Option<String>,
    agent: Option<String>,
) -> Option<Done> {
    // A git error comes with its fix when it has a known one (committer identity, a lock…).
    let error = |err: ClientError| {
        Some(Done::Error(crate::i18n_views::with_git_fix(
            &crate::i18n::manager_error(&err),
        )))
    };
    let session = |id: &str| SessionParams {
        session_id: id.to_owned(),
    };
    match effect {
        Effect::Create { prompt } => manager
            .call::<request::SessionCreate>(CreateParams {
                prompt,
                images: Vec::new(),
                model: default_model,
                permission_mode: None,
                agent,
                approval_policy: None,
                ..CreateParams::default()
            })
            .await
            .err()
            .and_then(error),
        Effect::Send { id, text } => manager
            .call::<request::SessionSend>(SendParams {
                session_id: id,
                text,
                images: Vec::new(),
            })
            .await
            .err()
            .and_then(error),
        Effect::Interrupt { id } => manager
            .call::<request::SessionInterrupt>(session(&id))
            .await
            .err()
            .and_then(error),
        Effect::Resume { id } => manager
            .call::<request::SessionResume>(ResumeParams {
                session_id: id,
                text: None,
            })
            .await
            .err()
            .and_then(error),
        Effect::RespondPermission {
            id,
            request_id,
            response,
        } => manager
            .call::<request::SessionRespondPermission>(permission_params(id, request_id, response))
            .await
            .err()
            .and_then(error),
        Effect::AnswerQuestion {
            id,
            request_id,
            response,
        } => manager
            .call::<request::SessionAnswerQuestion>(question_params(id, request_id, response))
            .await
            .err()
            .and_then(error),
        Effect::SetApprovalPolicy { id, policy } => manager
            .call::<request::SessionSetApprovalPolicy>(codiva_protocol::params::ApprovalParams {
                session_id: id.clone(),
                policy: policy.clone(),
            })
            .await
            .err()
            .and_then(error),
        Effect::SetAgent { id, agent } => match manager
            .call::<request::SessionSetAgent>(AgentParams {
                session_id: id.clone(),
                agent: agent.clone(),
            })
            .await
        {
            Ok(_) => Some(Done::Info(tf(Key::InfoAgentSet, &[&id, &agent]))),
            Err(err) => error(err),
        },
        Effect::SetModel { id, model } => match manager
            .call::<request::SessionSetModel>(ModelParams {
                session_id: id.clone(),
                model: model.clone(),
            })
            .await
        {
            Ok(_) => Some(Done::Info(tf(
                Key::InfoModelSet,
                &[&id, model.as_deref().unwrap_or(t(Key::DefaultModel))],
            ))),
            Err(err) => error(err),
        },
        Effect::Snapshot { id } => {
            let snapshot = manager
                .call::<request::SessionSnapshot>(session(&id))
                .await
                .ok()
                .map(Box::new);
            Some(Done::Snapshot { id, snapshot })
        }
        Effect::Read { id } => {
            let read = |after, subagent| {
                manager.call::<request::SessionRead>(ReadParams {
                    session_id: id.clone(),
                    after,
                    limit: Some(1000),
                    subagent,
                })
            };
            let mut entries = Vec::new();
            let mut after = None;
            loop {
                match read(after, None).await {
                    Ok(page) => {
                        entries.extend(page.entries);
                        match page.next_after {
                            Some(next) => after = Some(next),
                            None => break,
                        }
                    }
                    Err(err) => return error(err),
                }
            }
            // Each subagent's own log, for its card.
            let mut subagents = Vec::new();
            let mut todos = Vec::new();
            if let Ok(snapshot) = manager.call::<request::SessionSnapshot>(session(&id)).await {
                todos = snapshot.todo_items;
                for view in snapshot.subagents {
                    let entries = match read(None, Some(view.tool_use_id.clone())).await {
                        Ok(page) => page.entries,
                        Err(_) => Vec::new(),
                    };
                    subagents.push((view, entries));
                }
            }
            Some(Done::Read {
                id,
                entries,
                subagents,
                todos,
            })
        }
        Effect::Diff { id } => match manager.call::<request::SessionDiffText>(session(&id)).await {
            Ok(diff) => Some(Done::Diff {
                id,
                text: diff.text,
                truncated: diff.truncated,
            }),
            Err(err) => error(err),
        },
        Effect::FullMessage {
            id,
            entry,
            subagent,
        } => {
            let params = FullMessageParams {
                session_id: id.clone(),
                entry,
                subagent,
            };
            let text = manager
                .call::<request::SessionFullMessage>(params)
                .await
                .map(|result| result.text)
                .map_err(|err| crate::i18n::manager_error(&err));
            Some(Done::FullMessage { id, entry, text })
        }
        Effect::MergePreview { id } => {
            match manager.call::<request::SessionDiff>(session(&id)).await {
                Ok(stat) => Some(Done::MergePreview { id, stat }),
                Err(err) => error(err),
            }
        }
        Effect::PrPreview { id } => {
            match manager.call::<request::SessionDiff>(session(&id)).await {
                Ok(stat) => Some(Done::PrPreview { id, stat }),
                Err(err) => error(err),
            }
        }
        Effect::Restore { id } => match manager.call::<request::SessionRestore>(session(&id)).await
        {
            Ok(result) => Some(Done::Info(crate::i18n_views::vtf(
                crate::i18n_views::V::InfoRestored,
                &[&result.session.title],
            ))),
            Err(err) => error(err),
        },
        Effect::Rename { id, title } => match manager
            .call::<request::SessionRename>(RenameParams {
                session_id: id,
                title,
            })
            .await
        {
            Ok(result) => Some(Done::Info(crate::i18n_views::vtf(
                crate::i18n_views::V::InfoRenamed,
                &[&result.session.title],
            ))),
            Err(err) => error(err),
        },
        Effect::Merge { id } => match manager.call::<request::SessionMerge>(session(&id)).await {
            Ok(result) => Some(Done::Info(tf(
                Key::InfoMerged,
                &[&result.session.branch, &result.session.base],
            ))),
            Err(err) => error(err),
        },
        Effect::DiscardPreview { id, forget } => match discard(manager, &id, forget, None).await {
            Ok(DiscardOutcome::NeedsConfirmation {
                preview,
                confirm_token,
            }) => Some(Done::DiscardPreview {
                id,
                forget,
                preview,
                token: confirm_token,
                changed: false,
            }),
            Ok(DiscardOutcome::Removed { id }) => Some(Done::Info(tf(Key::InfoRemoved, &[&id]))),
            Ok(DiscardOutcome::Discarded { session }) => {
                Some(Done::Info(tf(Key::InfoDiscarded, &[&session.id])))
            }
            Err(err) => error(err),
        },
        Effect::Discard { id, token, forget } => {
            match discard(manager, &id, forget, Some(token)).await {
                Ok(DiscardOutcome::Discarded { session }) => {
                    Some(Done::Info(tf(Key::InfoDiscardedRestorable, &[&session.id])))
                }
                Ok(DiscardOutcome::Removed { id }) => {
                    Some(Done::Info(tf(Key::InfoRemoved, &[&id])))
                }
                Ok(DiscardOutcome::NeedsConfirmation { .. }) => None,
                Err(err) => stale_discard(&id, forget, &err).or_else(|| error(err)),
            }
        }
        Effect::Sync { id } => match manager.call::<request::SessionSync>(session(&id)).await {
            Ok(result) => Some(Done::Info(result.message)),
            Err(err) => error(err),
        },
        Effect::Pr { id } => match manager.call::<request::SessionPr>(session(&id)).await {
            Ok(result) => Some(Done::Info(crate::pr_cell::opened(&result))),
            Err(err) => error(err),
        },
        Effect::Repair(effect) => Some(super::repair_effects::run(manager, effect).await),
        Effect::ShowConfig => Some(
            match manager.call::<request::ConfigRead>(NoParams {}).await {
                Ok(result) => Done::Config {
                    result,
                    saved: None,
                },
                Err(err) => Done::Error(crate::i18n::manager_error(&err)),
            },
        ),
        Effect::SaveConfig { key, value } => {
            let params = ConfigSetParams {
                key: key.clone(),
                value,
            };
            Some(match manager.call::<request::ConfigSet>(params).await {
                Ok(result) => Done::Config {
                    result,
                    saved: Some(key),
                },
                Err(err) => Done::Error(crate::i18n::manager_error(&err)),
            })
        }
        Effect::Login { agent } => {
            let params = codiva_protocol::params::LoginParams { agent };
            match manager.call::<request::AgentsLogin>(params).await {
                Ok(_) => None,
                Err(err) => Some(Done::LoginRefused(crate::i18n::manager_error(&err))),
            }
        }
        Effect::LoginInput { login_id, text } => {
            let params = codiva_protocol::params::LoginInputParams { login_id, text };
            manager
                .call::<request::AgentsLoginInput>(params)
                .await
                .err()
                .and_then(error)
        }
        Effect::LoginCancel { login_id } => {
            let params = codiva_protocol::params::LoginIdParams { login_id };
            manager
                .call::<request::AgentsLoginCancel>(params)
                .await
                .err()
                .and_then(error)
        }
        Effect::RefreshAgents => manager
            .call::<request::AgentsList>(NoParams {})
            .await
            .ok()
            .map(|list| Done::Agents(list.agents)),
        Effect::SaveHistory
        | Effect::OpenUrl { .. }
        | Effect::Foreground { .. }
        | Effect::EditPrompt
        | Effect::SavePrompt { .. }
        | Effect::Quit
        | Effect::Shutdown => None,
    }
}

/// `session/discard`, or `session/remove` when the session is to be forgotten.
async fn discard(
    manager: &Client,
    id: &str,
    forget: bool,
    confirm_token: Option<String>,
) -> Result<DiscardOutcome, ClientError> {
    let params = ConfirmParams {
        session_id: id.to_owned(),
        confirm_token,
    };
    if forget {
        manager.call::<request::SessionRemove>(params).await
    } else {
        manager.call::<request::SessionDiscard>(params).await
    }
}

/// The dialog's answer as `session/respondPermission` params.
fn permission_params(
    session_id: String,
    request_id: String,
    response: crate::dialog::PermissionAnswer,
) -> PermissionParams {
    PermissionParams {
        session_id,
        request_id,
        decision: None,
        option: Some(response.option),
        suggestion: None,
        message: response.message,
    }
}

/// The dialog's answer as `session/answerQuestion` params.
fn question_params(
    session_id: String,
    request_id: String,
    response: codiva_protocol::agent::QuestionResponse,
) -> QuestionParams {
    use codiva_protocol::agent::QuestionResponse;
    match response {
        QuestionResponse::Answers(answers) => QuestionParams {
            session_id,
            request_id,
            answers: answers
                .into_iter()
                .map(|(question, labels)| (question, Answer::Many(labels)))
                .collect(),
            decline: false,
            message: None,
        },
        QuestionResponse::Decline { message } => QuestionParams {
            session_id,
            request_id,
            answers: Default::default(),
            decline: true,
            message,
        },
    }
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
