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

/// Runs `$SHELL` or `$EDITOR` in `cwd` with the terminal (`codiva_os::foreground` spawns and
/// reaps it); says how it ended.
pub(super) async fn run_foreground(what: crate::app::Foreground, cwd: PathBuf) -> Done {
    use crate::i18n_views::{V, vtf};
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
