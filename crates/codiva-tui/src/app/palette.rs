//! The `/` command palette: filtered by prefix, showing only the commands the current view
//! can run.

use super::View;
pub use super::commands::Command;
use crate::i18n::{AppText, tf};

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
        let mut matches: Vec<Item> = Command::all()
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
