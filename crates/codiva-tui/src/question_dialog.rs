//! The question dialog (AskUserQuestion): one question at a time under a tab row of their
//! headers (`Language │ Extras │ Submit`), options as radio buttons or checkboxes, then "Type
//! something…" (a free-text answer typed in the app's composer) and "Chat about this" (decline).
//! Partial answers live in the dialog, so they survive switching questions and the app moving
//! focus away and back. A click only selects; keys confirm.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use codiva_protocol::agent::QuestionResponse;
use codiva_protocol::agent::{Question, QuestionRequest};

use crate::dialog::{
    BodyRow, INDENT, Sections, Slot, choice_rows, footer_line, title_line, wrapped,
};
pub use crate::dialog::{DialogAction, TextPurpose};
use crate::i18n::{AppText, t, tf};
use crate::theme::{self, glyph};
use crate::width;

/// The message sent when the user picks "Chat about this".
pub const CHAT_MESSAGE: &str = "The user wants to discuss this before answering.";
fn type_label() -> &'static str {
    t(AppText::QTypeSomething)
}

fn chat_label() -> &'static str {
    t(AppText::QChat)
}

fn submit_label() -> &'static str {
    t(AppText::QSubmitAnswers)
}
/// Cells a tab's header takes at most.
const TAB_MAX: usize = 16;

/// One question's answer so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Answer {
    /// Per option: checked (multi-select) or picked (single-select, at most one).
    picked: Vec<bool>,
    free_text: Option<String>,
}

impl Answer {
    fn is_empty(&self) -> bool {
        !self.picked.contains(&true) && self.free_text.is_none()
    }
}

#[derive(Debug, Clone)]
pub struct QuestionDialog {
    request_id: String,
    questions: Vec<Question>,
    answers: Vec<Answer>,
    /// The highlighted choice of each question, and of the Submit step (last).
    cursors: Vec<usize>,
    /// The question shown; `questions.len()` is the Submit step.
    current: usize,
    /// The question the app is collecting free text for.
    text_for: Option<usize>,
    scroll: usize,
}

/// What a choice row of a question is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Option(usize),
    TypeSomething,
    Chat,
    Submit,
}

impl QuestionDialog {
    pub fn new(request: &QuestionRequest) -> Self {
        let questions = request.questions.clone();
        let answers = questions
            .iter()
            .map(|q| Answer {
                picked: vec![false; q.options.len()],
                free_text: None,
            })
            .collect();
        QuestionDialog {
            request_id: request.request_id.clone(),
            cursors: vec![0; questions.len() + 1],
            questions,
            answers,
            current: 0,
            text_for: None,
            scroll: 0,
        }
    }

    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The question shown (an index into the request's questions), or `None` on the Submit step.
    pub fn current_question(&self) -> Option<usize> {
        (self.current < self.questions.len()).then_some(self.current)
    }

    /// The free-text answer typed for `question`, to seed the composer when the user edits it.
    pub fn free_text(&self, question: usize) -> Option<&str> {
        self.answers.get(question)?.free_text.as_deref()
    }

    /// The answers so far, keyed by question text: checked labels in option order, then the
    /// free text. Unanswered questions are left out.
    pub fn answers(&self) -> BTreeMap<String, Vec<String>> {
        self.questions
            .iter()
            .zip(&self.answers)
            .filter(|(_, answer)| !answer.is_empty())
            .map(|(question, answer)| (question.question.clone(), labels(question, answer)))
            .collect()
    }

    /// Whether the dialog ends in a Submit step: several questions, or one multi-select. A single
    /// single-select question is answered by picking.
    fn has_submit_step(&self) -> bool {
        self.questions.len() != 1 || self.questions.iter().any(|q| q.multi_select)
    }

    fn steps(&self) -> usize {
        self.questions.len() + usize::from(self.has_submit_step())
    }

    fn choices(&self) -> Vec<Choice> {
        match self.questions.get(self.current) {
            Some(question) => (0..question.options.len())
                .map(Choice::Option)
                .chain([Choice::TypeSomething, Choice::Chat])
                .collect(),
            None => vec![Choice::Submit],
        }
    }

    fn cursor(&self) -> usize {
        self.cursors.get(self.current).copied().unwrap_or(0)
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogAction {
        if key.kind == KeyEventKind::Release
            || key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SUPER)
        {
            return DialogAction::None;
        }
        let choices = self.choices();
        let cursor = self.cursor();
        match key.code {
            KeyCode::Left | KeyCode::BackTab => self.go_to(self.current.saturating_sub(1)),
            KeyCode::Right | KeyCode::Tab => self.go_to(self.current + 1),
            KeyCode::Up | KeyCode::Char('k') => self.set_cursor(cursor.saturating_sub(1)),
            KeyCode::Down | KeyCode::Char('j') => self.set_cursor(cursor + 1),
            KeyCode::Home => self.set_cursor(0),
            KeyCode::End => self.set_cursor(choices.len().saturating_sub(1)),
            KeyCode::Char(' ' | '\u{3000}') => {
                return match choices.get(cursor) {
                    Some(Choice::Option(i)) => {
                        self.toggle(*i);
                        DialogAction::None
                    }
                    Some(Choice::TypeSomething) => self.want_text(),
                    _ => DialogAction::None,
                };
            }
            KeyCode::Enter => return self.activate(choices.get(cursor).copied()),
            KeyCode::Esc => {
                self.step_back();
            }
            KeyCode::Char(digit @ '1'..='9') => {
                let index = digit as usize - '1' as usize;
                if let Some(&Choice::Option(i)) = choices.get(index) {
                    self.set_cursor(index);
                    if self.is_multi() {
                        self.toggle(i);
                    } else {
                        return self.activate(Some(Choice::Option(i)));
                    }
                }
            }
            _ => {}
        }
        DialogAction::None
    }

    /// The text the app collected after `WantText { purpose: FreeText { question } }`: it
    /// becomes that question's answer (alongside the checked options of a multi-select) and
    /// the dialog moves on. An empty text clears the free-text answer.
    pub fn provide_text(&mut self, text: String) -> DialogAction {
        let question = self.text_for.take().unwrap_or(self.current);
        let Some(answer) = self.answers.get_mut(question) else {
            return DialogAction::None;
        };
        let text = text.trim();
        if text.is_empty() {
            answer.free_text = None;
            return DialogAction::None;
        }
        answer.free_text = Some(text.to_owned());
        if !self.questions[question].multi_select {
            answer.picked.iter_mut().for_each(|p| *p = false);
        }
        self.current = question;
        self.advance()
    }

    /// Esc inside the dialog: from a later question (or the Submit step) to the one before,
    /// keeping every answer (`true`); on the first question there is no step to go back to
    /// (`false`: the app decides where Esc leads).
    pub fn step_back(&mut self) -> bool {
        if self.current == 0 {
            return false;
        }
        self.go_to(self.current - 1);
        true
    }

    /// Where [`Self::step_back`] leads, for the footer; `None` on the first question.
    pub fn back_hint(&self) -> Option<AppText> {
        (self.current > 0).then_some(AppText::HintEscPreviousQuestion)
    }

    /// Selects choice `index` of the question shown (a click): never confirms.
    pub fn select_choice(&mut self, index: usize) {
        if index < self.choices().len() {
            self.set_cursor(index);
        }
    }

    /// Shows question `index` (`questions.len()` = the Submit step), keeping every answer.
    pub fn select_tab(&mut self, index: usize) {
        self.go_to(index);
    }

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

    /// The tab (question index; `questions.len()` = Submit) drawn at (`column`, `row`).
    pub fn tab_at(&self, area: Rect, column: u16, row: u16) -> Option<usize> {
        let sections = self.sections(usize::from(area.width));
        match sections.slot_at(area, self.scroll, column, row)? {
            Slot::Header(0) => {
                let x = usize::from(column - area.x);
                self.tab_cells(usize::from(area.width))
                    .iter()
                    .position(|(start, end)| (*start..*end).contains(&x))
            }
            _ => None,
        }
    }

    fn is_multi(&self) -> bool {
        self.questions
            .get(self.current)
            .is_some_and(|q| q.multi_select)
    }

    fn go_to(&mut self, step: usize) {
        let step = step.min(self.steps().saturating_sub(1));
        if step != self.current {
            self.current = step;
            self.scroll = 0;
        }
    }

    fn set_cursor(&mut self, index: usize) {
        let last = self.choices().len().saturating_sub(1);
        if let Some(cursor) = self.cursors.get_mut(self.current) {
            *cursor = index.min(last);
        }
    }

    fn toggle(&mut self, option: usize) {
        let multi = self.is_multi();
        let Some(answer) = self.answers.get_mut(self.current) else {
            return;
        };
        if multi {
            if let Some(p) = answer.picked.get_mut(option) {
                *p = !*p;
            }
        } else {
            answer.picked.iter_mut().for_each(|p| *p = false);
            if let Some(p) = answer.picked.get_mut(option) {
                *p = true;
            }
            answer.free_text = None;
        }
    }

    fn want_text(&mut self) -> DialogAction {
        self.text_for = Some(self.current);
        DialogAction::WantText {
            purpose: TextPurpose::FreeText {
                question: self.current,
            },
        }
    }

    fn activate(&mut self, choice: Option<Choice>) -> DialogAction {
        match choice {
            Some(Choice::Option(i)) => {
                if self.is_multi() {
                    // Enter confirms the checks; with none, it takes the highlighted option.
                    if self.answers.get(self.current).is_some_and(Answer::is_empty) {
                        self.toggle(i);
                    }
                } else {
                    self.toggle(i);
                }
                self.advance()
            }
            Some(Choice::TypeSomething) => self.want_text(),
            Some(Choice::Chat) => DialogAction::Answer(QuestionResponse::Decline {
                message: Some(CHAT_MESSAGE.to_owned()),
            }),
            Some(Choice::Submit) => DialogAction::Answer(QuestionResponse::Answers(self.answers())),
            None => DialogAction::None,
        }
    }

    /// After a question is answered: the next question, the Submit step, or (a single
    /// single-select question) the answer itself.
    fn advance(&mut self) -> DialogAction {
        if self.current + 1 < self.steps() {
            self.go_to(self.current + 1);
            DialogAction::None
        } else if self.has_submit_step() {
            DialogAction::None
        } else {
            DialogAction::Answer(QuestionResponse::Answers(self.answers()))
        }
    }

    /// Tab titles: each question's header (✓ once answered), then "Submit".
    fn tab_titles(&self) -> Vec<String> {
        let mut titles: Vec<String> = self
            .questions
            .iter()
            .zip(&self.answers)
            .enumerate()
            .map(|(i, (question, answer))| {
                let header = tab_header(i, question);
                if answer.is_empty() {
                    header
                } else {
                    format!("{header} {}", glyph::OK)
                }
            })
            .collect();
        titles.push(t(AppText::QSubmit).to_owned());
        titles
    }

    /// The tab titles as drawn at `width` and each one's cell range.
    fn tab_layout(&self, width: usize) -> (Vec<String>, Vec<(usize, usize)>) {
        let mut titles = self.tab_titles();
        let n = titles.len();
        let separators = 3 * n.saturating_sub(1);
        let total: usize = titles.iter().map(|t| width::str_width(t)).sum::<usize>();
        if INDENT + total + separators > width {
            let each = (width.saturating_sub(INDENT + separators) / n.max(1)).max(1);
            titles = titles.iter().map(|t| width::truncate(t, each)).collect();
        }
        let mut x = INDENT;
        let cells = titles
            .iter()
            .map(|t| {
                let range = (x, x + width::str_width(t));
                x = range.1 + 3;
                range
            })
            .collect();
        (titles, cells)
    }

    fn tab_cells(&self, width: usize) -> Vec<(usize, usize)> {
        self.tab_layout(width).1
    }

    fn tab_row(&self, width: usize) -> Line<'static> {
        let (titles, _) = self.tab_layout(width);
        let mut spans = vec![Span::raw(" ".repeat(INDENT))];
        for (i, title) in titles.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" │ ", theme::border()));
            }
            let style = if i == self.current {
                theme::selected().patch(theme::bold())
            } else if i < self.questions.len() && !self.answers[i].is_empty() {
                theme::success()
            } else {
                theme::dim()
            };
            spans.push(Span::styled(title, style));
        }
        Line::from(spans)
    }

    fn sections(&self, width: usize) -> Sections {
        let header = if self.has_submit_step() {
            vec![self.tab_row(width)]
        } else {
            Vec::new()
        };
        let cursor = self.cursor();
        let choices = self.choices();
        let (title, body, hint) = match self.questions.get(self.current) {
            Some(question) => {
                let title = if self.questions.len() > 1 {
                    tf(
                        AppText::QTitleN,
                        &[
                            &(self.current + 1).to_string(),
                            &self.questions.len().to_string(),
                        ],
                    )
                } else {
                    t(AppText::QTitle).to_owned()
                };
                let body = wrapped(&question.question, INDENT, width, theme::bold())
                    .into_iter()
                    .map(BodyRow::new)
                    .collect();
                let hint = if question.multi_select {
                    t(AppText::QHintMulti)
                } else if self.has_submit_step() {
                    t(AppText::QHintSingleTabs)
                } else {
                    t(AppText::QHintSingle)
                };
                (title, body, hint)
            }
            None => (
                t(AppText::QReview).to_owned(),
                self.review_rows(width),
                t(AppText::QHintReview),
            ),
        };
        let rows = choices
            .iter()
            .enumerate()
            .map(|(i, choice)| self.choice_rows(*choice, i == cursor, width))
            .collect();
        Sections {
            title: title_line(&title, None, width),
            header,
            body,
            choices: rows,
            selected: cursor,
            footer: Some(footer_line(hint, width)),
        }
    }

    fn choice_rows(&self, choice: Choice, selected: bool, width: usize) -> Vec<Line<'static>> {
        let question = self.questions.get(self.current);
        let answer = self.answers.get(self.current);
        let multi = self.is_multi();
        let marker = |on: bool| match (multi, on) {
            (true, true) => glyph::CHECKED,
            (true, false) => glyph::UNCHECKED,
            (false, true) => glyph::RADIO_ON,
            (false, false) => glyph::RADIO_OFF,
        };
        match choice {
            Choice::Option(i) => {
                let option = question.and_then(|q| q.options.get(i));
                let on = answer
                    .and_then(|a| a.picked.get(i))
                    .copied()
                    .unwrap_or(false);
                choice_rows(
                    selected,
                    Some(marker(on)),
                    option.map_or("", |o| o.label.as_str()),
                    option.and_then(|o| o.description.as_deref()),
                    width,
                )
            }
            Choice::TypeSomething => {
                let text = answer.and_then(|a| a.free_text.as_deref());
                choice_rows(
                    selected,
                    Some(marker(text.is_some())),
                    type_label(),
                    text,
                    width,
                )
            }
            Choice::Chat => choice_rows(selected, Some("   "), chat_label(), None, width),
            Choice::Submit => {
                let unanswered = self.answers.iter().filter(|a| a.is_empty()).count();
                let note = match unanswered {
                    0 => None,
                    1 => Some("1 question unanswered".to_owned()),
                    n => Some(format!("{n} questions unanswered")),
                };
                choice_rows(selected, None, submit_label(), note.as_deref(), width)
            }
        }
    }

    /// The Submit step's body: each question's header and answer.
    fn review_rows(&self, width: usize) -> Vec<BodyRow> {
        let mut rows = Vec::new();
        for ((i, question), answer) in self.questions.iter().enumerate().zip(&self.answers) {
            let header = tab_header(i, question);
            let (text, style) = if answer.is_empty() {
                ("(no answer)".to_owned(), theme::dim())
            } else {
                (labels(question, answer).join(", "), theme::text())
            };
            let lead = format!("{header}: ");
            let lead_width = width::str_width(&lead);
            let mut lines = wrapped(&text, INDENT + lead_width, width, style);
            if let Some(pad) = lines.first_mut().and_then(|line| line.spans.first_mut()) {
                *pad = Span::styled(format!("{}{lead}", " ".repeat(INDENT)), theme::bold());
            }
            rows.extend(lines.into_iter().map(BodyRow::new));
        }
        rows
    }
}

/// Question `index`'s header as its tab and the Submit step name it: its own (cut to the tab's
/// width), else `Q<n>`.
fn tab_header(index: usize, question: &Question) -> String {
    let header = question
        .header
        .clone()
        .filter(|h| !h.trim().is_empty())
        .unwrap_or_else(|| format!("Q{}", index + 1));
    width::truncate(&header, TAB_MAX)
}

fn labels(question: &Question, answer: &Answer) -> Vec<String> {
    question
        .options
        .iter()
        .zip(&answer.picked)
        .filter(|(_, picked)| **picked)
        .map(|(option, _)| option.label.clone())
        .chain(answer.free_text.clone())
        .collect()
}
