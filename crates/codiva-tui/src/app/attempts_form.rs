//! The attempts form (`/attempts`, Ctrl+G in the list): which agents and models run the
//! instruction (`claude, codex, claude:opus`, prefilled with what the repository last used,
//! `group/lastAttempts`) and the instruction itself, drawn over the body. It checks the list
//! as it is typed (every agent known and installed, at most `MAX_ATTEMPTS`) and shows the
//! attempts it will start; Enter asks for `group/create` once both are there.

use codiva_protocol::agent::{AgentAvailability, AgentStatus};
use codiva_protocol::group::{AttemptSpec, AttemptsParseError, CreateGroupParams, MAX_ATTEMPTS};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::composer::{Composer, ComposerAction};
use crate::i18n::{AttemptText, t, tf};
use crate::theme;
use crate::width::{truncate, wrap_text};

/// The rows the instruction's editor grows to.
const INSTRUCTION_ROWS: u16 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Agents,
    Instruction,
}

pub struct AttemptsForm {
    agents: Composer,
    instruction: Composer,
    field: Field,
    /// The agents codiva knows (`agents/list`); empty: not known yet, nothing is checked.
    known: Vec<AgentAvailability>,
    /// The user typed in the agents' field: the remembered list arriving late does not replace it.
    edited: bool,
    /// Why Enter did not start (shown until the next key).
    error: Option<String>,
}

pub enum FormAction {
    None,
    Close,
    Start(CreateGroupParams),
}

impl AttemptsForm {
    /// The form with `agents` (a list as typed) and `instruction`.
    pub fn new(agents: &str, instruction: &str, known: Vec<AgentAvailability>) -> Self {
        let mut list = Composer::new().with_placeholder(t(AttemptText::FormAgentsHint));
        list.set_text(agents);
        let mut text = Composer::new().with_placeholder(t(AttemptText::FormInstructionPlaceholder));
        text.set_text(instruction);
        // The caret where typing goes next: the instruction, or, when that came with the
        // form (Ctrl+G over a typed instruction), the list to check before starting.
        let field = if instruction.trim().is_empty() && !agents.trim().is_empty() {
            Field::Instruction
        } else {
            Field::Agents
        };
        AttemptsForm {
            agents: list,
            instruction: text,
            field,
            known,
            edited: false,
            error: None,
        }
    }

    /// The repository's last list arrived (`group/lastAttempts`): it fills the agents' field
    /// unless the user typed there already or it is empty.
    pub fn remembered(&mut self, text: &str) {
        if !self.edited && !text.trim().is_empty() {
            self.agents.set_text(text);
        }
    }

    /// What the instruction's field holds now.
    pub fn instruction_text(&self) -> &str {
        self.instruction.text()
    }

    /// The attempts the list names, or why it cannot be started.
    fn attempts(&self) -> Result<Vec<AttemptSpec>, String> {
        let specs = AttemptSpec::parse_list(self.agents.text()).map_err(|err| match err {
            AttemptsParseError::Empty => t(AttemptText::FormEmpty).to_owned(),
            AttemptsParseError::TooMany(count) => tf(
                AttemptText::FormTooMany,
                &[&count.to_string(), &MAX_ATTEMPTS.to_string()],
            ),
            AttemptsParseError::Malformed(item) => tf(
                AttemptText::FormMalformed,
                &[&crate::dialog::sanitize(&item)],
            ),
        })?;
        if self.known.is_empty() {
            return Ok(specs);
        }
        for spec in &specs {
            match self.known.iter().find(|agent| agent.id == spec.agent) {
                None => {
                    return Err(tf(
                        AttemptText::FormUnknownAgent,
                        &[&crate::dialog::sanitize(&spec.agent), &self.installed()],
                    ));
                }
                Some(agent) if agent.status == AgentStatus::NotInstalled => {
                    return Err(tf(
                        AttemptText::FormNotInstalled,
                        &[&agent.name, agent.install.as_deref().unwrap_or("")],
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(specs)
    }

    /// The installed agents' ids, for the hint.
    fn installed(&self) -> String {
        self.known
            .iter()
            .filter(|agent| agent.status == AgentStatus::Ready)
            .map(|agent| agent.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn editor(&mut self) -> &mut Composer {
        match self.field {
            Field::Agents => &mut self.agents,
            Field::Instruction => &mut self.instruction,
        }
    }

    pub fn paste(&mut self, text: &str) {
        self.error = None;
        if self.field == Field::Agents {
            self.edited = true;
            // The list is one line.
            self.agents.handle_paste(&text.replace(['\r', '\n'], " "));
        } else {
            self.instruction.handle_paste(text);
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> FormAction {
        self.error = None;
        match key.code {
            KeyCode::Esc => return FormAction::Close,
            KeyCode::Tab | KeyCode::BackTab => {
                self.field = match self.field {
                    Field::Agents => Field::Instruction,
                    Field::Instruction => Field::Agents,
                };
                return FormAction::None;
            }
            _ => {}
        }
        let field = self.field;
        match self.editor().handle_key(key) {
            ComposerAction::Submit(text) => {
                // The editor gave its text away with Enter: it keeps it until the form starts.
                self.editor().set_text(&text);
                self.enter(field)
            }
            ComposerAction::Unhandled(key) => match (key.code, field) {
                (KeyCode::Down, Field::Agents) => {
                    self.field = Field::Instruction;
                    FormAction::None
                }
                (KeyCode::Up, Field::Instruction) => {
                    self.field = Field::Agents;
                    FormAction::None
                }
                (KeyCode::Enter, _) => self.enter(field),
                _ => FormAction::None,
            },
            ComposerAction::Changed => {
                if field == Field::Agents {
                    self.edited = true;
                }
                FormAction::None
            }
            ComposerAction::None => FormAction::None,
        }
    }

    /// Enter: start when the list and the instruction both hold (from either field: Ctrl+G over
    /// a typed instruction opens the form ready to start); in the list with no instruction yet,
    /// on to the instruction.
    fn enter(&mut self, field: Field) -> FormAction {
        let attempts = match self.attempts() {
            Ok(attempts) => attempts,
            Err(err) => {
                self.field = Field::Agents;
                self.error = Some(err);
                return FormAction::None;
            }
        };
        let prompt = self.instruction.text().trim().to_owned();
        if field == Field::Agents && prompt.is_empty() {
            self.field = Field::Instruction;
            return FormAction::None;
        }
        if prompt.is_empty() {
            self.error = Some(t(AttemptText::FormNoInstruction).to_owned());
            return FormAction::None;
        }
        FormAction::Start(CreateGroupParams {
            prompt,
            attempts,
            ..CreateGroupParams::default()
        })
    }

    /// The footer's hints.
    pub fn hint(&self) -> String {
        t(AttemptText::FormHint).to_owned()
    }

    /// Draws the form into `area`; returns where the caret goes.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        if area.height == 0 {
            return None;
        }
        let width = usize::from(area.width);
        let bottom = area.bottom();
        let mut y = area.y;
        let title = Line::styled(
            truncate(&format!(" {}", t(AttemptText::FormTitle)), width),
            theme::bold(),
        );
        put(buf, area, &mut y, &title);
        y = (y + 1).min(bottom);
        let agents_label = label(t(AttemptText::FormAgents), self.field == Field::Agents);
        put(buf, area, &mut y, &agents_label);
        let agents_caret = self.agents.render(field_area(area, y, 1), buf);
        y = (y + 1).min(bottom);
        let installed = self.installed();
        if !installed.is_empty() {
            let text = format!("    {}", tf(AttemptText::FormInstalled, &[&installed]));
            put(
                buf,
                area,
                &mut y,
                &Line::styled(truncate(&text, width), theme::dim()),
            );
        }
        y = (y + 1).min(bottom);
        let instruction_label = label(
            t(AttemptText::FormInstruction),
            self.field == Field::Instruction,
        );
        put(buf, area, &mut y, &instruction_label);
        let rows = self
            .instruction
            .desired_height(area.width.saturating_sub(2))
            .clamp(1, INSTRUCTION_ROWS)
            .min(bottom.saturating_sub(y));
        let instruction_caret = self.instruction.render(field_area(area, y, rows), buf);
        y = (y + rows + 1).min(bottom);
        for line in self.outcome(width) {
            put(buf, area, &mut y, &line);
        }
        match self.field {
            Field::Agents => agents_caret,
            Field::Instruction => instruction_caret,
        }
    }

    /// What Enter would start, or why it would not.
    fn outcome(&self, width: usize) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        let error = match (&self.error, self.attempts()) {
            (Some(error), _) => error.clone(),
            (None, Err(error)) => error,
            (None, Ok(attempts)) => {
                lines.push(Line::styled(
                    format!(
                        "   {}",
                        tf(AttemptText::FormPreview, &[&attempts.len().to_string()])
                    ),
                    theme::dim(),
                ));
                for (index, spec) in attempts.iter().enumerate() {
                    let model = spec
                        .model
                        .clone()
                        .unwrap_or_else(|| t(AttemptText::FormDefaultModel).to_owned());
                    let text = format!(
                        "    {}. {} · {}",
                        index + 1,
                        crate::dialog::sanitize(&spec.agent),
                        crate::dialog::sanitize(&model)
                    );
                    lines.push(Line::from(vec![Span::styled(
                        truncate(&text, width),
                        theme::text(),
                    )]));
                }
                return lines;
            }
        };
        for row in wrap_text(&error, width.saturating_sub(4).max(1)) {
            lines.push(Line::styled(
                format!("    {}", &error[row.start..row.end]),
                theme::error(),
            ));
        }
        lines
    }
}

/// A row of the form at `*y` (moved down), while it is inside `area`.
fn put(buf: &mut Buffer, area: Rect, y: &mut u16, line: &Line) {
    if *y < area.bottom() {
        crate::width::set_line(buf, area.x, *y, line, area.width);
        *y += 1;
    }
}

/// A field's label, marked while the field has the keys.
fn label(text: &str, focused: bool) -> Line<'static> {
    if focused {
        Line::styled(
            format!(" {} {text}", theme::glyph::CARD_SELECTED),
            theme::accent(),
        )
    } else {
        Line::styled(format!("   {text}"), theme::dim())
    }
}

/// An editor's place: indented under its label, `rows` high, inside `area`.
fn field_area(area: Rect, y: u16, rows: u16) -> Rect {
    Rect::new(area.x + 2, y, area.width.saturating_sub(2), rows).intersection(area)
}
