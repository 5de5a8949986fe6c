//! The `/` command palette: filtered by prefix, showing only the commands the current view
//! can run.

use super::View;
use crate::i18n::{AgentText, AppText, PrText, RepairText, ViewText, t, tf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Model,
    Agent,
    Login,
    Prompt,
    Config,
    Diff,
    Sync,
    Pr,
    FixCi,
    Commit,
    Recover,
    Remove,
    Restore,
    Commits,
    Rename,
    Shell,
    Edit,
    Clear,
    Help,
    Shutdown,
    Exit,
}

impl Command {
    pub const ALL: [Command; 21] = [
        Command::Model,
        Command::Agent,
        Command::Login,
        Command::Prompt,
        Command::Config,
        Command::Diff,
        Command::Sync,
        Command::Pr,
        Command::FixCi,
        Command::Commit,
        Command::Recover,
        Command::Remove,
        Command::Restore,
        Command::Commits,
        Command::Rename,
        Command::Shell,
        Command::Edit,
        Command::Clear,
        Command::Help,
        Command::Shutdown,
        Command::Exit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Command::Model => "model",
            Command::Agent => "agent",
            Command::Login => "login",
            Command::Prompt => "prompt",
            Command::Config => "config",
            Command::Diff => "diff",
            Command::Sync => "sync",
            Command::Pr => "pr",
            Command::FixCi => "fix-ci",
            Command::Commit => "commit",
            Command::Recover => "recover",
            Command::Remove => "remove",
            Command::Restore => "restore",
            Command::Commits => "commits",
            Command::Rename => "rename",
            Command::Shell => "shell",
            Command::Edit => "edit",
            Command::Clear => "clear",
            Command::Help => "help",
            Command::Shutdown => "shutdown",
            Command::Exit => "exit",
        }
    }

    pub fn description(self, view: &View) -> &'static str {
        match self {
            Command::Restore => return t(ViewText::CmdRestore),
            Command::Commits => return t(ViewText::CmdCommits),
            Command::Rename => return t(ViewText::CmdRename),
            Command::Shell => return t(ViewText::CmdShell),
            Command::Edit => return t(ViewText::CmdEdit),
            Command::Pr => return t(PrText::CmdPr),
            Command::Login => {
                return t(AgentText::CmdLogin);
            }
            Command::FixCi => return t(RepairText::CmdFixCi),
            Command::Commit => return t(RepairText::CmdCommit),
            Command::Recover => return t(RepairText::CmdRecover),
            _ => {}
        }
        t(match (self, view) {
            (Command::Model, View::List) => AppText::CmdModelList,
            (Command::Model, View::Detail(_)) => AppText::CmdModelDetail,
            (Command::Agent, View::List) => AppText::CmdAgentList,
            (Command::Agent, View::Detail(_)) => AppText::CmdAgentDetail,
            (Command::Prompt, _) => AppText::CmdPrompt,
            (Command::Config, _) => AppText::CmdConfig,
            (Command::Diff, _) => AppText::CmdDiff,
            (Command::Sync, _) => AppText::CmdSync,
            (Command::Remove, _) => AppText::CmdRemove,
            (Command::Clear, _) => AppText::CmdClear,
            (Command::Help, _) => AppText::CmdHelp,
            (Command::Shutdown, _) => AppText::CmdShutdown,
            (Command::Exit, _) => AppText::CmdExit,
            (
                Command::Restore
                | Command::Commits
                | Command::Rename
                | Command::Shell
                | Command::Edit
                | Command::Pr
                | Command::Login
                | Command::FixCi
                | Command::Commit
                | Command::Recover,
                _,
            ) => AppText::CmdHelp,
        })
    }

    pub fn parse(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn available_in(self, view: &View) -> bool {
        match self {
            Command::Diff
            | Command::Commits
            | Command::Sync
            | Command::Remove
            | Command::Rename
            | Command::Shell
            | Command::Edit => matches!(view, View::Detail(_)),
            Command::Clear
            | Command::Prompt
            | Command::Config
            | Command::Restore
            | Command::Shutdown => {
                matches!(view, View::List)
            }
            Command::Model
            | Command::Agent
            | Command::Login
            | Command::Help
            | Command::Exit
            | Command::Pr
            | Command::FixCi
            | Command::Commit
            | Command::Recover => true,
        }
    }
}

/// One palette row: a codiva command, or one of the agent's own (forwarded as a message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Codiva(Command),
    Agent { name: String, description: String },
}

impl Item {
    pub fn name(&self) -> &str {
        match self {
            Item::Codiva(command) => command.name(),
            Item::Agent { name, .. } => name,
        }
    }

    pub fn description(&self, view: &View) -> String {
        match self {
            Item::Codiva(command) => command.description(view).to_owned(),
            Item::Agent { description, .. } => tf(AppText::AgentCommand, &[description]),
        }
    }
}

#[derive(Debug, Default)]
pub struct Palette {
    open: bool,
    matches: Vec<Item>,
    selected: usize,
}

impl Palette {
    pub fn is_open(&self) -> bool {
        self.open && !self.matches.is_empty()
    }

    pub fn close(&mut self) {
        self.open = false;
        self.matches.clear();
        self.selected = 0;
    }

    /// Follows the composer: open while it holds `/` and a command-name prefix. `agent` are the
    /// agent's own commands (offered in a session's view only).
    pub fn update(&mut self, text: &str, view: &View, agent: &[(String, String)]) {
        let Some(prefix) = text.strip_prefix('/') else {
            self.close();
            return;
        };
        if prefix.contains(char::is_whitespace) {
            self.close();
            return;
        }
        let mut matches: Vec<Item> = Command::ALL
            .into_iter()
            .filter(|c| c.available_in(view) && c.name().starts_with(prefix))
            .map(Item::Codiva)
            .collect();
        if matches!(view, View::Detail(_)) {
            matches.extend(
                agent
                    .iter()
                    .filter(|(name, _)| name.starts_with(prefix) && Command::parse(name).is_none())
                    .map(|(name, description)| Item::Agent {
                        name: name.clone(),
                        description: description.clone(),
                    }),
            );
        }
        if matches != self.matches {
            self.selected = 0;
        }
        self.matches = matches;
        self.open = true;
    }

    pub fn matches(&self) -> &[Item] {
        &self.matches
    }

    pub fn selected_index(&self) -> usize {
        self.selected
    }

    pub fn selected(&self) -> Option<Item> {
        self.is_open()
            .then(|| self.matches.get(self.selected).cloned())
            .flatten()
    }

    pub fn next(&mut self) {
        if !self.matches.is_empty() {
            self.selected = (self.selected + 1) % self.matches.len();
        }
    }

    pub fn previous(&mut self) {
        if !self.matches.is_empty() {
            self.selected = (self.selected + self.matches.len() - 1) % self.matches.len();
        }
    }
}
