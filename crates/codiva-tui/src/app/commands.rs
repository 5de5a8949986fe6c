//! Every `/` command, declared once: its name, the view that offers it, its words in English
//! and Japanese, and what it does — app code, or one request about the session in view with
//! the function that reads its answer. The palette (`palette.rs`), `/help` (`help.rs`) and the
//! key handler (`keys.rs::run_command`) read [`COMMANDS`]; none of them names a command.
//!
//! Adding a command that sends one request: a line in [`COMMANDS`] made with
//! [`Spec::request`], its answer function below and its words in [`CommandText`].

use codiva_client::ClientError;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::methods::request;
use codiva_protocol::params::{AgentParams, ModelParams, NoParams, SessionParams};
use codiva_protocol::{ClientRequest, Request};
use serde_json::Value;

use super::answers::decode;
use super::requests::{discard, session_params};
use super::{App, Confirm, Effect, Foreground, View};
use crate::i18n::{AppText, RepairText, t, tf, tn};

crate::i18n::keys_with_words! {
    /// The commands' words: what each does (as the palette and `/help` show it) and what the
    /// request commands say with their answers. An area of the catalogue (see `i18n.rs`).
    CommandText {
        Model => "model for new sessions", "新しいセッションのモデル";
        ModelInSession => "switch this session's model", "このセッションのモデルを切り替え";
        Agent => "agent for new sessions", "新しいセッションのエージェント";
        AgentInSession => "go on with another agent", "別のエージェントで続ける";
        Login => "log in to an agent with its own login", "エージェント自身のログインでログインする";
        Prompt => "edit .codiva/prompt.md (instructions for every session)", ".codiva/prompt.md を編集（全セッション共通の指示）";
        Config => "show the configuration", "設定を表示";
        Diff => "what this session changed against its base", "このセッションがベースから変えた内容";
        Sync => "merge the base into this session", "ベースをこのセッションにマージ";
        Pr => "push the branch and open a draft pull request", "ブランチをプッシュしてドラフトのプルリクエストを作成";
        FixCi => "send the failed checks and their log to the agent", "失敗したチェックとログをエージェントに送る";
        AddressReview => "send the pull request's unresolved review threads to the agent", "プルリクエストの未解決のレビューをエージェントに送る";
        Commit => "commit the work: /commit <message>, or the agent writes one", "作業をコミット: /commit <メッセージ>、なければエージェントに依頼";
        Recover => "repair every stuck pull request (fix-ci or sync)", "止まっているプルリクエストをすべて修復（fix-ci か sync）";
        Remove => "discard this session and forget it", "このセッションを破棄して一覧から削除";
        Restore => "bring back a discarded session", "破棄したセッションを元に戻す";
        Commits => "the commits a merge or pull request would take", "マージやプルリクエストに含まれるコミット";
        CommitsNone => "{0} has no commits that {1} lacks.", "{0} には {1} にないコミットがありません。";
        CommitsTitle => "{2} commits on {0} that {1} lacks:", "{0} にあって {1} にないコミット {2} 件:";
        CommitsTitleOne => "1 commit on {0} that {1} lacks:", "{0} にあって {1} にないコミット 1 件:";
        CommitsMore => "… and more", "…ほかにもあります";
        Rename => "edit the session's title", "セッションのタイトルを編集";
        Shell => "open $SHELL in the session's worktree", "セッションのワークツリーで $SHELL を開く";
        Edit => "open $EDITOR in the session's worktree", "セッションのワークツリーで $EDITOR を開く";
        Clear => "clear merged and discarded sessions from the list", "マージ済み・破棄済みのセッションを一覧から片付け";
        Attempts => "one instruction to several agents or models, side by side: /attempts claude, codex", "一つの指示を複数のエージェントやモデルで並べて実行: /attempts claude, codex";
        Compare => "compare the attempts of this group; keep one", "このグループの試行を比較して一つを残す";
        Check => "run the repository's check in this session's worktree", "このセッションのワークツリーでリポジトリのチェックを実行";
        History => "conversations begun outside codiva (Claude Code, Codex): read or continue one", "codiva の外で始めた会話 (Claude Code・Codex): 読む・続ける";
        Help => "keys and commands", "キーとコマンド";
        Shutdown => "stop the daemon and every agent", "デーモンとすべてのエージェントを停止";
        Exit => "quit codiva (sessions are kept)", "codiva を終了（セッションは保存されます）";
    }
}

use CommandText as W;
use Offered::{Anywhere, List, Session};

/// Every command, in the palette's order.
pub static COMMANDS: &[Spec] = &[
    Spec::app(
        "model",
        Anywhere,
        W::Model,
        Some(W::ModelInSession),
        |app, id, arg| app.model_command(id, arg),
    ),
    Spec::app(
        "agent",
        Anywhere,
        W::Agent,
        Some(W::AgentInSession),
        |app, id, arg| app.agent_command(id, arg),
    ),
    Spec::app("login", Anywhere, W::Login, None, |app, _, arg| {
        app.open_login(arg)
    }),
    Spec::app("prompt", List, W::Prompt, None, |_, _, _| {
        vec![Effect::EditPrompt]
    }),
    Spec::app("config", List, W::Config, None, |_, _, _| {
        vec![Effect::request(ClientRequest::ConfigRead(NoParams {}))]
    }),
    Spec::app("diff", Session, W::Diff, None, |app, id, _| {
        id.map(|id| app.open_diff(id)).unwrap_or_default()
    }),
    Spec::request::<request::SessionSync>("sync", W::Sync, synced),
    Spec::app("pr", Anywhere, W::Pr, None, |app, _, _| app.ask_pr()),
    Spec::request::<request::SessionAddressReview>(
        "address-review",
        W::AddressReview,
        review_addressed,
    ),
    Spec::app("fix-ci", Anywhere, W::FixCi, None, |app, _, _| {
        app.fix_ci_current()
    }),
    Spec::app("commit", Anywhere, W::Commit, None, |app, _, arg| {
        app.commit_current(arg)
    }),
    Spec::app("recover", Anywhere, W::Recover, None, |_, _, _| {
        vec![super::repair::recover(true)]
    }),
    Spec::app("remove", Session, W::Remove, None, |app, _, _| {
        app.ask_remove()
    }),
    Spec::app("restore", List, W::Restore, None, |app, _, _| {
        app.open_restore();
        Vec::new()
    }),
    Spec::request::<request::SessionCommits>("commits", W::Commits, commits_listed),
    Spec::app("rename", Session, W::Rename, None, |app, _, arg| {
        app.rename(arg)
    }),
    Spec::app("shell", Session, W::Shell, None, |app, _, _| {
        app.run_in_worktree(Foreground::Shell)
    }),
    Spec::app("edit", Session, W::Edit, None, |app, _, arg| {
        app.run_in_worktree(Foreground::Editor {
            path: (!arg.is_empty()).then(|| arg.to_owned()),
        })
    }),
    Spec::app("clear", List, W::Clear, None, |app, _, _| {
        app.clear_finished()
    }),
    Spec::app("attempts", List, W::Attempts, None, |app, _, arg| {
        app.open_attempts(arg)
    }),
    Spec::app("compare", Anywhere, W::Compare, None, |app, _, _| {
        app.open_compare()
    }),
    Spec::app("check", Anywhere, W::Check, None, |app, _, _| {
        app.check_current()
    }),
    Spec::app("history", Anywhere, W::History, None, |app, _, _| {
        app.open_history()
    }),
    Spec::app("help", Anywhere, W::Help, None, |app, _, _| {
        app.open_help();
        Vec::new()
    }),
    Spec::app("shutdown", List, W::Shutdown, None, |app, _, _| {
        app.shut_down()
    }),
    Spec::app("exit", Anywhere, W::Exit, None, |app, _, _| app.exit()),
];

/// The view a command is offered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    Anywhere,
    /// The session list only.
    List,
    /// A session's view only.
    Session,
}

/// App code a command runs: `(app, the session in view, the text after the name)`.
type RunApp = fn(&mut App, Option<String>, &str) -> Vec<Effect>;

/// Reads a request command's answer: `(app, the session it was about, the result)`.
type Answer = fn(&mut App, &str, Result<Value, ClientError>) -> Vec<Effect>;

/// What a command does.
#[derive(Clone, Copy)]
enum Run {
    App(RunApp),
    /// One request about the session in view (`build` from its id), answered by `answer`.
    Request {
        method: &'static str,
        build: fn(SessionParams) -> ClientRequest,
        answer: Answer,
    },
}

/// One command.
pub struct Spec {
    name: &'static str,
    offered: Offered,
    about: CommandText,
    /// Its words in a session's view, where they differ from the list's.
    about_in_session: Option<CommandText>,
    run: Run,
}

impl Spec {
    const fn app(
        name: &'static str,
        offered: Offered,
        about: CommandText,
        about_in_session: Option<CommandText>,
        run: RunApp,
    ) -> Spec {
        Spec {
            name,
            offered,
            about,
            about_in_session,
            run: Run::App(run),
        }
    }

    /// A command offered in a session's view that sends `R` about it.
    const fn request<R: Request<Params = SessionParams>>(
        name: &'static str,
        about: CommandText,
        answer: Answer,
    ) -> Spec {
        Spec {
            name,
            offered: Session,
            about,
            about_in_session: None,
            run: Run::Request {
                method: R::METHOD,
                build: R::request,
                answer,
            },
        }
    }
}

/// A command of [`COMMANDS`].
#[derive(Clone, Copy)]
pub struct Command(&'static Spec);

impl PartialEq for Command {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Command {}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "/{}", self.0.name)
    }
}

impl Command {
    /// Every command, in the palette's order.
    pub fn all() -> impl Iterator<Item = Command> {
        COMMANDS.iter().map(Command)
    }

    pub fn parse(name: &str) -> Option<Command> {
        Command::all().find(|c| c.name() == name)
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn description(self, view: &View) -> &'static str {
        match (view, self.0.about_in_session) {
            (View::Detail(_), Some(words)) => t(words),
            _ => t(self.0.about),
        }
    }

    pub fn available_in(self, view: &View) -> bool {
        match self.0.offered {
            Anywhere => true,
            List => matches!(view, View::List),
            Session => matches!(view, View::Detail(_)),
        }
    }

    /// Runs the command in `app` (offered in its view) for the session `id` in view.
    pub(super) fn run(self, app: &mut App, id: Option<String>, argument: &str) -> Vec<Effect> {
        match self.0.run {
            Run::App(run) => run(app, id, argument),
            Run::Request { build, .. } => id
                .map(|id| vec![Effect::request(build(session_params(id)))])
                .unwrap_or_default(),
        }
    }
}

/// The answer function of the command that sends `method`, if one does.
pub(super) fn answer_to(method: &str) -> Option<Answer> {
    COMMANDS.iter().find_map(|spec| match spec.run {
        Run::Request {
            method: sent,
            answer,
            ..
        } if sent == method => Some(answer),
        _ => None,
    })
}

/// `/sync`: what the merge did.
fn synced(app: &mut App, _id: &str, result: Result<Value, ClientError>) -> Vec<Effect> {
    match decode::<request::SessionSync>(result) {
        Ok(result) => app.said(result.message),
        Err(err) => app.failed(&err),
    }
    Vec::new()
}

/// `/address-review`: how many review threads went to the agent (and how many did not fit).
fn review_addressed(app: &mut App, _id: &str, result: Result<Value, ClientError>) -> Vec<Effect> {
    match decode::<request::SessionAddressReview>(result) {
        Ok(sent) => {
            let mut text = tf(
                RepairText::ReviewSent,
                &[
                    &sent.threads.to_string(),
                    &sent.pr.to_string(),
                    &sent.review_bytes.to_string(),
                ],
            );
            if sent.left_out > 0 {
                text.push_str(" · ");
                text.push_str(&tf(
                    RepairText::ReviewLeftOut,
                    &[&sent.left_out.to_string()],
                ));
            }
            app.said(text);
        }
        Err(err) => app.failed(&err),
    }
    Vec::new()
}

/// `/commits`: the branch's commits its base lacks, one subject a line.
fn commits_listed(app: &mut App, id: &str, result: Result<Value, ClientError>) -> Vec<Effect> {
    let result = match decode::<request::SessionCommits>(result) {
        Ok(result) => result,
        Err(err) => {
            app.failed(&err);
            return Vec::new();
        }
    };
    let Some(session) = app.sessions.iter().find(|s| s.id == id) else {
        return Vec::new();
    };
    let (branch, base) = (session.branch.clone(), session.base.clone());
    if result.subjects.is_empty() {
        app.said(tf(W::CommitsNone, &[&branch, &base]));
        return Vec::new();
    }
    let mut lines = vec![tn(
        result.subjects.len(),
        W::CommitsTitleOne,
        W::CommitsTitle,
        &[&branch, &base],
    )];
    lines.extend(result.subjects.iter().map(|subject| format!("• {subject}")));
    if result.more {
        lines.push(t(W::CommitsMore).to_owned());
    }
    app.said(lines.join("\n"));
    Vec::new()
}

impl App {
    /// `/exit`: quits from any view (Esc or Ctrl+L go back to the list).
    fn exit(&mut self) -> Vec<Effect> {
        if self.info.detached {
            // The daemon keeps every session: nothing stops.
            self.quit = true;
            vec![Effect::Quit]
        } else if self.working_count() > 0 {
            // Sessions stop with codiva: ask first.
            self.confirm = Some(Confirm {
                text: vec![tf(
                    AppText::ExitConfirm,
                    &[&self.working_count().to_string()],
                )],
                on_yes: vec![Effect::Quit],
                restore: None,
            });
            Vec::new()
        } else {
            self.quit = true;
            vec![Effect::Quit]
        }
    }

    /// `/shutdown`: the daemon and every agent stop (after a y/n while sessions work).
    fn shut_down(&mut self) -> Vec<Effect> {
        let effects = vec![Effect::Shutdown, Effect::Quit];
        if self.working_count() > 0 {
            self.confirm = Some(Confirm {
                text: vec![tn(
                    self.working_count(),
                    AppText::ShutdownConfirmOne,
                    AppText::ShutdownConfirm,
                    &[],
                )],
                on_yes: effects,
                restore: None,
            });
            Vec::new()
        } else {
            self.quit = true;
            self.shutdown = true;
            effects
        }
    }

    /// `/model [name]`: the session's model (or, in the list, new sessions'); the picker
    /// without a name.
    fn model_command(&mut self, id: Option<String>, argument: &str) -> Vec<Effect> {
        match (id, argument.is_empty()) {
            (Some(id), false)
                if matches!(self.view, View::Detail(_))
                    && let Some(name) = self.lacks(&id, |caps| caps.set_model) =>
            {
                self.set_notice(tf(AppText::AgentCannotSetModel, &[&name]), true);
                Vec::new()
            }
            (Some(id), false) if matches!(self.view, View::Detail(_)) => {
                let model = (argument != "default").then(|| argument.to_owned());
                vec![Effect::request(ClientRequest::SessionSetModel(
                    ModelParams {
                        session_id: id,
                        model,
                    },
                ))]
            }
            (_, false) => {
                self.info.model = (argument != "default").then(|| argument.to_owned());
                self.set_notice(tf(AppText::ModelForNew, &[argument]), false);
                Vec::new()
            }
            (_, true) => {
                self.open_model_picker();
                Vec::new()
            }
        }
    }

    /// `/agent [name]`: the session goes on with another agent (or, in the list, new sessions
    /// run it); the picker without a name.
    fn agent_command(&mut self, id: Option<String>, argument: &str) -> Vec<Effect> {
        match (id, argument.is_empty()) {
            (Some(id), false) if matches!(self.view, View::Detail(_)) => {
                vec![Effect::request(ClientRequest::SessionSetAgent(
                    AgentParams {
                        session_id: id,
                        agent: argument.to_owned(),
                    },
                ))]
            }
            (_, false) => {
                self.set_notice(tf(AppText::AgentForNew, &[argument]), false);
                self.agent_for_new(argument.to_owned());
                Vec::new()
            }
            (_, true) => self.open_agent_picker(),
        }
    }

    /// New sessions run `agent`. A model chosen for new sessions (`/model`, or the config's
    /// `model` for the default agent) names a model of the agent it was chosen for: another
    /// agent starts on its own default.
    pub(super) fn agent_for_new(&mut self, agent: String) {
        if agent != self.info.agent {
            self.info.model = None;
        }
        self.info.agent = agent;
    }

    /// `/clear`: removes every merged or discarded session from the list, after a y/n.
    fn clear_finished(&mut self) -> Vec<Effect> {
        let finished: Vec<String> = self
            .sessions
            .iter()
            .filter(|s| {
                matches!(
                    s.phase,
                    SessionPhase::Merged { .. } | SessionPhase::Discarded
                )
            })
            .map(|s| s.id.clone())
            .collect();
        if finished.is_empty() {
            self.set_notice(t(AppText::NothingToClear), false);
            return Vec::new();
        }
        self.confirm = Some(Confirm {
            text: vec![tf(AppText::ClearConfirm, &[&finished.len().to_string()])],
            on_yes: finished
                .into_iter()
                .map(|id| discard(id, true, Some(String::new())))
                .collect(),
            restore: None,
        });
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name typed finds one command, and a method's answers go to one command.
    #[test]
    fn names_and_answered_methods_are_each_declared_once() {
        let mut names: Vec<&str> = COMMANDS.iter().map(|spec| spec.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a command name twice");
        let mut methods: Vec<&str> = COMMANDS
            .iter()
            .filter_map(|spec| match spec.run {
                Run::Request { method, .. } => Some(method),
                Run::App(_) => None,
            })
            .collect();
        methods.sort_unstable();
        let before = methods.len();
        methods.dedup();
        assert_eq!(methods.len(), before, "two commands answer one method");
        for method in methods {
            assert!(answer_to(method).is_some(), "{method}");
        }
        assert_eq!(
            answer_to(request::SessionCommits::METHOD).map(|f| f as usize),
            Some(commits_listed as Answer as usize)
        );
    }
}
