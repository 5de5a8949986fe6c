//! The permission dialog: which tool wants to run and what it will do (a command, a file with a
//! coloured preview of its diff, else the input as JSON), and the answers the request offers,
//! in this order: `y` allow once, `a` always allow (a menu of the scopes offered), `n` deny (the
//! reason is typed in the app's composer), `s` deny and stop the turn. An answer the agent does
//! not offer is not shown and its key does nothing. A click only selects a choice; keys confirm.

use codiva_protocol::agent::PermissionRequest;
use codiva_protocol::tool::PermissionOptionKind;
use codiva_protocol::tool::{PermissionScope, ScopePhrase, ToolContent};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::dialog::{BodyRow, INDENT, Sections, choice_rows, footer_line, title_line, wrapped};
pub use crate::dialog::{DialogAction, PermissionAnswer, TextPurpose};
use crate::diff_preview::{self, DiffLine};
use crate::i18n::{AppText, t, tf, tn};
use crate::theme;
use crate::width;

/// The message sent when the user denies without typing a reason.
pub const DEFAULT_DENY_MESSAGE: &str = "Denied by the user";
/// The message sent with "deny and stop".
pub const STOP_MESSAGE: &str = "The user denied this and stopped the turn.";

/// Rows a preview (diff, file content, JSON) takes at most before "… N more lines".
const PREVIEW_ROWS: usize = 16;
/// Unchanged lines shown around each change of a diff.
const DIFF_CONTEXT: usize = 3;

/// One of the main choices.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Choice {
    /// Allow once: the option's id.
    Allow(String),
    /// Open the menu of allow-always scopes.
    Always,
    /// Deny with a reason typed next: the option's id.
    Deny(String),
    /// Deny and stop the turn: the option's id.
    Stop(String),
}

impl Choice {
    /// Its part of the footer's key hints.
    fn hint(&self) -> AppText {
        match self {
            Choice::Allow(_) => AppText::PermHintAllow,
            Choice::Always => AppText::PermHintAlways,
            Choice::Deny(_) => AppText::PermHintDeny,
            Choice::Stop(_) => AppText::PermHintStop,
        }
    }

    /// Label and key.
    fn label(&self) -> (AppText, char) {
        match self {
            Choice::Allow(_) => (AppText::PermYes, 'y'),
            Choice::Always => (AppText::PermAlways, 'a'),
            Choice::Deny(_) => (AppText::PermDeny, 'n'),
            Choice::Stop(_) => (AppText::PermStop, 's'),
        }
    }
}

/// The main choices `request` offers, in the dialog's order.
fn choices(request: &PermissionRequest) -> Vec<Choice> {
    let id = |kind| request.option_of(kind).map(|option| option.id.clone());
    let mut choices = Vec::new();
    choices.extend(id(PermissionOptionKind::AllowOnce).map(Choice::Allow));
    if request.always_options().next().is_some() {
        choices.push(Choice::Always);
    }
    choices.extend(id(PermissionOptionKind::Deny).map(Choice::Deny));
    choices.extend(id(PermissionOptionKind::DenyAndStop).map(Choice::Stop));
    choices
}

/// What the tool will do, ready to draw at any width.
#[derive(Debug, Clone)]
enum Subject {
    Command {
        command: String,
    },
    /// A file and a diff per edit (one for Write, where every line is added).
    File {
        path: String,
        note: Option<String>,
        diffs: Vec<Vec<DiffLine>>,
    },
    Json {
        text: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Main,
    /// The always-allow scope menu is open.
    Scope,
}

#[derive(Debug, Clone)]
pub struct PermissionDialog {
    request_id: String,
    tool: String,
    subagent: bool,
    subject: Subject,
    /// Dimmed lines under the subject: the description, the blocked path, the reason.
    notes: Vec<String>,
    choices: Vec<Choice>,
    /// The scope menu's entries: the allow-always options' scopes in words, in order.
    scopes: Vec<String>,
    /// For each entry of `scopes`: its option's id.
    always: Vec<String>,
    mode: Mode,
    selected: usize,
    scope_selected: usize,
    scroll: usize,
}

impl PermissionDialog {
    pub fn new(request: &PermissionRequest) -> Self {
        let view = &request.view;
        let mut notes = Vec::new();
        let command = view.content.iter().find_map(|content| match content {
            ToolContent::Terminal { command, .. } => Some(command.clone()),
            _ => None,
        });
        let diffs: Vec<(&str, Vec<DiffLine>)> = view
            .content
            .iter()
            .filter_map(|content| match content {
                ToolContent::Diff { path, old, new } => Some((
                    path.as_str(),
                    match old {
                        Some(old) => diff_preview::diff_lines(old, new),
                        None => diff_preview::all_added(new),
                    },
                )),
                _ => None,
            })
            .collect();
        let subject = if let Some(command) = command {
            if let Some(description) = request
                .description
                .clone()
                .or_else(|| view.notes.first().map(tool_note))
            {
                notes.push(description);
            }
            Subject::Command { command }
        } else if let Some((path, _)) = diffs.first() {
            Subject::File {
                path: if path.is_empty() { "(no path)" } else { path }.to_owned(),
                note: view
                    .notes
                    .first()
                    .map(tool_note)
                    .filter(|note| !note.is_empty()),
                diffs: diffs.into_iter().map(|(_, diff)| diff).collect(),
            }
        } else {
            if let Some(description) = &request.description {
                notes.push(description.clone());
            }
            let input = &request.input;
            Subject::Json {
                text: serde_json::to_string_pretty(input).unwrap_or_else(|_| input.to_string()),
            }
        };
        if let Some(blocked) = &request.blocked_path {
            notes.push(tf(AppText::PermBlockedPath, &[blocked]));
        }
        if let Some(reason) = &request.reason {
            notes.push(reason.clone());
        }
        let scopes: Vec<String> = request
            .always_options()
            .map(|option| match &option.scope {
                Some(scope) => describe_scope(scope, &option.label),
                None => option.label.clone(),
            })
            .collect();
        let always: Vec<String> = request
            .always_options()
            .map(|option| option.id.clone())
            .collect();
        let title = if view.title.is_empty() {
            request.tool.clone()
        } else {
            view.title.clone()
        };
        PermissionDialog {
            request_id: request.request_id.clone(),
            tool: title,
            choices: choices(request),
            always,
            subagent: request.agent_id.is_some(),
            subject,
            notes,
            scopes,
            mode: Mode::Main,
            selected: 0,
            scope_selected: 0,
            scroll: 0,
        }
    }

    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// Whether the always-allow scope menu is open.
    pub fn scope_menu_open(&self) -> bool {
        self.mode == Mode::Scope
    }

    /// Esc inside the dialog: from the scope menu back to the main choices (`true`); on the
    /// main choices there is no level to go back to (`false`: the app decides where Esc leads).
    pub fn step_back(&mut self) -> bool {
        match self.mode {
            Mode::Scope => {
                self.mode = Mode::Main;
                self.scroll = 0;
                true
            }
            Mode::Main => false,
        }
    }

    /// Where [`Self::step_back`] leads, for the footer; `None` on the main choices.
    pub fn back_hint(&self) -> Option<AppText> {
        (self.mode == Mode::Scope).then_some(AppText::HintEscChoices)
    }

    /// The scope menu's entries in order; the last is the tool-wide rule.
    pub fn scope_labels(&self) -> &[String] {
        &self.scopes
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogAction {
        if key.kind == KeyEventKind::Release
            || key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SUPER)
        {
            return DialogAction::None;
        }
        match self.mode {
            Mode::Main => match key.code {
                KeyCode::Char(c @ ('y' | 'Y' | 'a' | 'A' | 'n' | 'N' | 's' | 'S')) => {
                    let c = c.to_ascii_lowercase();
                    match self.choices.iter().position(|choice| choice.label().1 == c) {
                        Some(index) => self.activate(index),
                        None => DialogAction::None,
                    }
                }
                KeyCode::Enter => self.activate(self.selected),
                code => {
                    self.selected = moved(code, self.selected, self.choices.len());
                    DialogAction::None
                }
            },
            Mode::Scope => match key.code {
                KeyCode::Enter => self.pick_scope(self.scope_selected),
                KeyCode::Esc => {
                    self.step_back();
                    DialogAction::None
                }
                code => {
                    self.scope_selected = moved(code, self.scope_selected, self.scopes.len());
                    DialogAction::None
                }
            },
        }
    }

    /// The text the app collected after `WantText { purpose: DenyReason }`: denies with it (an
    /// empty text denies with [`DEFAULT_DENY_MESSAGE`]).
    pub fn provide_text(&mut self, text: String) -> DialogAction {
        let text = text.trim();
        let message = if text.is_empty() {
            DEFAULT_DENY_MESSAGE.to_owned()
        } else {
            text.to_owned()
        };
        match self.choices.iter().find_map(|choice| match choice {
            Choice::Deny(id) => Some(id.clone()),
            _ => None,
        }) {
            Some(option) => DialogAction::Respond(PermissionAnswer {
                option,
                message: Some(message),
            }),
            None => DialogAction::None,
        }
    }

    /// Selects choice `index` of what is shown (a click): never confirms.
    pub fn select_choice(&mut self, index: usize) {
        match self.mode {
            Mode::Main if index < self.choices.len() => self.selected = index,
            Mode::Scope if index < self.scopes.len() => self.scope_selected = index,
            _ => {}
        }
    }

    /// Rows the dialog wants at `width`, never more than `max`.
    pub fn desired_height(&self, width: u16, max: u16) -> u16 {
        self.sections(usize::from(width)).desired_height(max)
    }

    pub fn render(&mut self, area: Rect, buf: &mut Buffer) {
        let sections = self.sections(usize::from(area.width));
        sections.render(area, buf, &mut self.scroll);
    }

    /// The choice drawn at (`column`, `row`) when the dialog was rendered into `area`.
    pub fn choice_at(&self, area: Rect, column: u16, row: u16) -> Option<usize> {
        self.sections(usize::from(area.width))
            .choice_at(area, self.scroll, column, row)
    }

    fn activate(&mut self, index: usize) -> DialogAction {
        let Some(choice) = self.choices.get(index) else {
            return DialogAction::None;
        };
        self.selected = index;
        let answer = |option: &String, message: Option<&str>| {
            DialogAction::Respond(PermissionAnswer {
                option: option.clone(),
                message: message.map(str::to_owned),
            })
        };
        match choice {
            Choice::Allow(id) => answer(id, None),
            Choice::Always => {
                self.mode = Mode::Scope;
                self.scope_selected = 0;
                self.scroll = 0;
                DialogAction::None
            }
            Choice::Deny(_) => DialogAction::WantText {
                purpose: TextPurpose::DenyReason,
            },
            Choice::Stop(id) => answer(id, Some(STOP_MESSAGE)),
        }
    }

    /// The allow-always option `index` of the menu.
    fn pick_scope(&mut self, index: usize) -> DialogAction {
        match self.always.get(index) {
            Some(option) => DialogAction::Respond(PermissionAnswer {
                option: option.clone(),
                message: None,
            }),
            None => DialogAction::None,
        }
    }

    fn sections(&self, width: usize) -> Sections {
        let title = match self.mode {
            Mode::Main => tf(AppText::PermTitle, &[&self.tool]),
            Mode::Scope => tf(AppText::PermScopeTitle, &[&self.tool]),
        };
        let note = self.subagent.then_some(t(AppText::PermSubagent));
        let (choices, selected, hint) = match self.mode {
            Mode::Main => (
                self.choices
                    .iter()
                    .enumerate()
                    .map(|(i, choice)| {
                        let (label, key) = choice.label();
                        choice_rows(
                            i == self.selected,
                            None,
                            t(label),
                            Some(&format!("({key})")),
                            width,
                        )
                    })
                    .collect(),
                self.selected,
                self.choices
                    .iter()
                    .map(|choice| t(choice.hint()))
                    .chain([t(AppText::PermHintChoose)])
                    .collect::<Vec<_>>()
                    .join(" · "),
            ),
            Mode::Scope => (
                self.scopes
                    .iter()
                    .enumerate()
                    .map(|(i, label)| {
                        choice_rows(i == self.scope_selected, None, label, None, width)
                    })
                    .collect(),
                self.scope_selected,
                t(AppText::PermScopeHint).to_owned(),
            ),
        };
        Sections {
            title: title_line(&title, note, width),
            header: Vec::new(),
            body: self.body(width),
            choices,
            selected,
            footer: Some(footer_line(&hint, width)),
        }
    }

    fn body(&self, width: usize) -> Vec<BodyRow> {
        let mut rows: Vec<BodyRow> = Vec::new();
        let push_preview = |rows: &mut Vec<BodyRow>, preview: diff_preview::Preview| {
            rows.extend(preview.rows.into_iter().map(BodyRow::new));
            if preview.hidden_lines > 0 {
                rows.push(BodyRow::more(preview.hidden_lines));
            }
        };
        match &self.subject {
            Subject::Command { command } => {
                rows.extend(command_rows(command, width).into_iter().map(BodyRow::new));
            }
            Subject::File { path, note, diffs } => {
                let mut spans = vec![
                    Span::raw(" ".repeat(INDENT)),
                    Span::styled(
                        width::truncate(path, width.saturating_sub(INDENT)),
                        theme::bold(),
                    ),
                ];
                if let Some(note) = note {
                    spans.push(Span::styled(format!(" · {note}"), theme::dim()));
                }
                rows.push(BodyRow::new(Line::from(spans)));
                let preview =
                    diff_preview::render_diffs(diffs, DIFF_CONTEXT, INDENT, width, PREVIEW_ROWS);
                push_preview(&mut rows, preview);
            }
            Subject::Json { text } => {
                let lines = wrapped(text, INDENT, width, theme::text());
                let hidden = lines.len().saturating_sub(PREVIEW_ROWS);
                rows.extend(lines.into_iter().take(PREVIEW_ROWS).map(BodyRow::new));
                if hidden > 0 {
                    rows.push(BodyRow::more(hidden));
                }
            }
        }
        for note in &self.notes {
            rows.extend(
                wrapped(note, INDENT, width, theme::dim())
                    .into_iter()
                    .map(BodyRow::new),
            );
        }
        rows
    }
}

/// `$ command`, wrapped with continuation rows under the command's first character, capped.
fn command_rows(command: &str, width: usize) -> Vec<Line<'static>> {
    let lead = INDENT + 2;
    let mut rows: Vec<Line<'static>> = wrapped(command, lead, width, theme::code());
    if let Some(pad) = rows.first_mut().and_then(|line| line.spans.first_mut()) {
        *pad = Span::styled(format!("{}$ ", " ".repeat(INDENT)), theme::dim());
    }
    if rows.len() > PREVIEW_ROWS {
        let hidden = rows.len() - PREVIEW_ROWS;
        rows.truncate(PREVIEW_ROWS);
        rows.push(Line::styled(
            format!("{}… {hidden} more lines", " ".repeat(lead)),
            theme::dim(),
        ));
    }
    rows
}

/// The cursor after a movement key; other keys leave it.
fn moved(code: KeyCode, current: usize, len: usize) -> usize {
    let last = len.saturating_sub(1);
    match code {
        KeyCode::Up | KeyCode::Char('k') => current.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => (current + 1).min(last),
        KeyCode::Home => 0,
        KeyCode::End => last,
        _ => current,
    }
}

/// An allow-always scope in words, in the user's language; one this version cannot word by
/// the agent's own `label`.
pub fn describe_scope(scope: &PermissionScope, label: &str) -> String {
    scope
        .describe(scope_phrase)
        .unwrap_or_else(|| label.to_owned())
}

/// A part of a scope's wording in the user's language; the command line and a place with no
/// word of its own stay in English.
fn scope_phrase(phrase: ScopePhrase<'_>) -> String {
    match phrase {
        ScopePhrase::EveryCall(tool) => tf(AppText::PermEveryCall, &[tool]),
        ScopePhrase::AllEdits => t(AppText::ScopeAllEdits).to_owned(),
        ScopePhrase::EveryTool => t(AppText::ScopeEveryTool).to_owned(),
        ScopePhrase::PlanMode => t(AppText::ScopePlan).to_owned(),
        ScopePhrase::AskEveryTool => t(AppText::ScopeAskEvery).to_owned(),
        ScopePhrase::SwitchMode(name) => tf(AppText::ScopeSwitchMode, &[name]),
        ScopePhrase::AlwaysAllow => t(AppText::ScopeAlwaysAllow).to_owned(),
        ScopePhrase::AlwaysDeny => t(AppText::ScopeAlwaysDeny).to_owned(),
        ScopePhrase::AlwaysAsk => t(AppText::ScopeAlwaysAsk).to_owned(),
        ScopePhrase::Access(directories) => tf(AppText::ScopeAccess, &[directories]),
        ScopePhrase::InSession => t(AppText::WhereSession).to_owned(),
        ScopePhrase::InLocalSettings => t(AppText::WhereLocal).to_owned(),
        ScopePhrase::InProjectSettings => t(AppText::WhereProject).to_owned(),
        ScopePhrase::InUserSettings => t(AppText::WhereUser).to_owned(),
        ScopePhrase::InCommandLine | ScopePhrase::InOther(_) => phrase.english(),
    }
}

/// A fact about the call in the UI's language.
fn tool_note(note: &codiva_protocol::tool::ToolNote) -> String {
    use codiva_protocol::tool::ToolNote;
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    match note {
        ToolNote::Text { text } => text.clone(),
        ToolNote::Lines { count: n } => tn(count(*n), AppText::NoteLine, AppText::NoteLines, &[]),
        ToolNote::Edits { count: n } => tn(count(*n), AppText::NoteEdit, AppText::NoteEdits, &[]),
        ToolNote::EveryOccurrence => t(AppText::NoteEveryOccurrence).to_owned(),
        ToolNote::Unknown => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codiva_core::claude::tool_view::permission_options;
    use serde_json::json;

    /// In English the dialog words every scope as the option's label does, and one it cannot
    /// word by the label (here a suggestion's JSON).
    #[test]
    fn scopes_in_english_read_as_the_labels() {
        let suggestions = [
            json!({"type":"setMode","mode":"acceptEdits","destination":"session"}),
            json!({"type":"setMode","mode":"plan","destination":"projectSettings"}),
            json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch bash1.txt && echo created-1"}],"behavior":"allow","destination":"localSettings"}),
            json!({"type":"addRules","rules":[{"toolName":"Read"}],"behavior":"deny","destination":"cliArg"}),
            json!({"type":"addDirectories","directories":["/repo"],"destination":"session"}),
            json!({"type":"removeRules","x":1}),
        ];
        let options = permission_options("Bash", &suggestions);
        let scoped: Vec<_> = options
            .iter()
            .filter_map(|option| Some((option.scope.as_ref()?, &option.label)))
            .collect();
        assert_eq!(scoped.len(), suggestions.len() + 1, "and every Bash call");
        for (scope, label) in scoped {
            assert_eq!(&describe_scope(scope, label), label, "{scope:?}");
        }
    }
}
