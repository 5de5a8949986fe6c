//! The compare view of a group of attempts (`c` on a group or an attempt, `/compare`): one row
//! per attempt with what `group/compare` answers — agent and model, status, files changed,
//! lines +/−, commits, check, duration, tokens and cost; nothing is computed here but sums for
//! display — and under the table the selected attempt's branch, files and check. From it: an
//! attempt's diff against the base (Enter), the diff between two attempts (`v` on one, then on
//! another), keep one (`k`), its check again (`r`).

use codiva_protocol::group::{AttemptFigures, CheckRun, CheckState, GroupCompare};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::activity::Activity;
use super::list_view;
use crate::dialog::sanitize;
use crate::i18n::{AttemptText, t, tf};
use crate::theme;
use crate::width::{str_width, truncate};

pub struct CompareView {
    pub group_id: String,
    /// `None` while the figures are being read.
    data: Option<GroupCompare>,
    selected: usize,
    /// The attempt `v` was pressed on: the next `v` diffs from it.
    marked: Option<usize>,
    /// The attempt to select when the figures first arrive (the one selected in the list).
    first: Option<String>,
    /// The group as the list knows it, for the title while the figures are read.
    known: Option<codiva_protocol::group::GroupInfo>,
}

pub enum CompareAction {
    None,
    Close,
    /// Read the figures again.
    Refresh,
    /// `session_id`'s diff against its base (`other: None`) or from `other`.
    Diff {
        session_id: String,
        other: Option<String>,
    },
    /// Keep this attempt (the preview first).
    Keep {
        session_id: String,
    },
    /// Run the check of this attempt again.
    Check {
        session_id: String,
    },
    Notice(String),
}

/// One column of the table: its header, its width, and whether a narrow terminal drops it
/// (the lower `drop`, the sooner).
struct Column {
    header: AttemptText,
    width: usize,
    right: bool,
    drop: u8,
}

const COLUMNS: [Column; 9] = [
    Column {
        header: AttemptText::ColAttempt,
        width: 0,
        right: false,
        drop: u8::MAX,
    },
    Column {
        header: AttemptText::ColStatus,
        width: 12,
        right: false,
        drop: 8,
    },
    Column {
        header: AttemptText::ColFiles,
        width: 5,
        right: true,
        drop: 7,
    },
    Column {
        header: AttemptText::ColLines,
        width: 13,
        right: true,
        drop: 9,
    },
    Column {
        header: AttemptText::ColCommits,
        width: 7,
        right: true,
        drop: 3,
    },
    Column {
        header: AttemptText::ColCheck,
        width: 5,
        right: false,
        drop: 10,
    },
    Column {
        header: AttemptText::ColTime,
        width: 8,
        right: true,
        drop: 5,
    },
    Column {
        header: AttemptText::ColTokens,
        width: 7,
        right: true,
        drop: 2,
    },
    Column {
        header: AttemptText::ColCost,
        width: 7,
        right: true,
        drop: 1,
    },
];

/// The attempt's name in the table: what was asked for (`claude:opus`), or, with no model
/// asked for, the model the agent reports as the list names it (`codex/gpt-5.5`).
pub fn attempt_name(figures: &AttemptFigures) -> String {
    let asked = figures.spec.to_string();
    let name = match (&figures.spec.model, &figures.session.model) {
        (None, Some(reported)) => format!("{asked}/{reported}"),
        _ => asked,
    };
    codiva_protocol::text::sanitize_title(&name).unwrap_or_default()
}

/// A check as a glyph and a word.
pub fn check_words(check: Option<&CheckRun>) -> (String, Style) {
    let Some(check) = check else {
        return (t(AttemptText::CheckNone).to_owned(), theme::dim());
    };
    match check.state {
        CheckState::Passed => (
            format!("{} {}", theme::glyph::OK, t(AttemptText::CheckPassed)),
            theme::success(),
        ),
        CheckState::Failed => {
            let word = match check.exit_code {
                Some(code) => tf(AttemptText::CheckFailedCode, &[&code.to_string()]),
                None => t(AttemptText::CheckFailed).to_owned(),
            };
            (format!("{} {word}", theme::glyph::FAILED), theme::error())
        }
        CheckState::TimedOut => (
            format!("{} {}", theme::glyph::FAILED, t(AttemptText::CheckTimedOut)),
            theme::error(),
        ),
        CheckState::Error => (
            format!("{} {}", theme::glyph::FAILED, t(AttemptText::CheckError)),
            theme::error(),
        ),
        CheckState::Running => (
            format!("{} {}", theme::glyph::RUNNING, t(AttemptText::CheckRunning)),
            theme::accent(),
        ),
        CheckState::Unknown => (t(AttemptText::CheckUnknown).to_owned(), theme::dim()),
    }
}

/// `950`, `12.3k`, `1.2M`.
pub fn tokens(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", count as f64 / 1_000.0),
        _ => format!("{:.1}M", count as f64 / 1_000_000.0),
    }
}

impl CompareView {
    /// The view while the figures are read; `first`: the attempt to select then, `known`: the
    /// group as the list has it.
    pub fn loading(
        group_id: String,
        first: Option<String>,
        known: Option<codiva_protocol::group::GroupInfo>,
    ) -> Self {
        CompareView {
            group_id,
            data: None,
            selected: 0,
            marked: None,
            first,
            known,
        }
    }

    /// The figures arrived: the selection stays on the same attempt.
    pub fn set(&mut self, data: GroupCompare) {
        let selected = match self.first.take() {
            Some(first) => Some(first),
            None => self.selected_figures().map(|f| f.session.id.clone()),
        };
        let marked = self
            .marked
            .and_then(|index| self.attempts().get(index))
            .map(|f| f.session.id.clone());
        let position = |id: &Option<String>, data: &GroupCompare| {
            id.as_ref()
                .and_then(|id| data.attempts.iter().position(|f| f.session.id == *id))
        };
        self.selected = position(&selected, &data).unwrap_or(0);
        self.marked = position(&marked, &data);
        self.data = Some(data);
    }

    fn attempts(&self) -> &[AttemptFigures] {
        self.data.as_ref().map_or(&[], |d| d.attempts.as_slice())
    }

    fn selected_figures(&self) -> Option<&AttemptFigures> {
        self.attempts().get(self.selected)
    }

    /// The sessions the view shows (a change to one of them reads the figures again).
    pub fn shows(&self, session_id: &str) -> bool {
        self.attempts().iter().any(|f| f.session.id == session_id)
    }

    pub fn hint(&self) -> String {
        match self.marked.and_then(|index| self.attempts().get(index)) {
            Some(marked) => tf(AttemptText::CompareMarked, &[&attempt_name(marked)]),
            None => t(AttemptText::CompareHint).to_owned(),
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> CompareAction {
        let last = self.attempts().len().saturating_sub(1);
        match key.code {
            KeyCode::Esc if self.marked.is_some() => self.marked = None,
            KeyCode::Esc | KeyCode::Char('q') => return CompareAction::Close,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Char('R') => return CompareAction::Refresh,
            KeyCode::Enter | KeyCode::Char('d') => {
                if let Some(figures) = self.selected_figures() {
                    return CompareAction::Diff {
                        session_id: figures.session.id.clone(),
                        other: None,
                    };
                }
            }
            KeyCode::Char('v') => return self.diff_between(),
            KeyCode::Char('k') => {
                if let Some(figures) = self.selected_figures() {
                    return CompareAction::Keep {
                        session_id: figures.session.id.clone(),
                    };
                }
            }
            KeyCode::Char('r') => {
                if let Some(figures) = self.selected_figures() {
                    return CompareAction::Check {
                        session_id: figures.session.id.clone(),
                    };
                }
            }
            _ => {}
        }
        CompareAction::None
    }

    /// The wheel: the selection moves by `rows` attempts.
    pub fn move_by(&mut self, rows: isize) {
        let last = self.attempts().len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(rows).min(last);
    }

    /// `v`: marks the selected attempt; on another, the diff from the marked one to it.
    fn diff_between(&mut self) -> CompareAction {
        let Some(marked) = self.marked else {
            if self.selected_figures().is_some() {
                self.marked = Some(self.selected);
            }
            return CompareAction::None;
        };
        let (Some(from), Some(to)) = (self.attempts().get(marked), self.selected_figures()) else {
            return CompareAction::None;
        };
        if marked == self.selected {
            return CompareAction::Notice(tf(AttemptText::CompareSame, &[&attempt_name(from)]));
        }
        let action = CompareAction::Diff {
            session_id: to.session.id.clone(),
            other: Some(from.session.id.clone()),
        };
        self.marked = None;
        action
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, activity: Activity<'_>) {
        if area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let group = self.data.as_ref().map(|d| &d.group).or(self.known.as_ref());
        let count = group.map_or(0, |g| g.attempts.len());
        let instruction = group
            .and_then(|g| codiva_protocol::text::sanitize_title(&g.instruction))
            .unwrap_or_default();
        let title = format!(
            " {}",
            tf(
                AttemptText::CompareTitle,
                &[&count.to_string(), &instruction]
            )
        );
        crate::width::set_line(
            buf,
            area.x,
            area.y,
            &Line::styled(truncate(&title, width), theme::bold()),
            area.width,
        );
        let mut y = area.y + 1;
        let Some(data) = &self.data else {
            if y < area.bottom() {
                let text = format!("  {}", t(AttemptText::CompareLoading));
                crate::width::set_line(
                    buf,
                    area.x,
                    y,
                    &Line::styled(text, theme::dim()),
                    area.width,
                );
            }
            return;
        };
        let columns = fitting_columns(width);
        if y < area.bottom() {
            let header = columns
                .iter()
                .map(|(column, width)| cell(t(column.header), *width, column.right))
                .collect::<Vec<_>>()
                .join(" ");
            crate::width::set_line(
                buf,
                area.x,
                y,
                &Line::styled(format!("  {header}"), theme::dim()),
                area.width,
            );
            y += 1;
        }
        for (index, figures) in data.attempts.iter().enumerate() {
            if y >= area.bottom() {
                break;
            }
            let kept = data.group.kept.as_deref() == Some(figures.session.id.as_str());
            let line = self.row(index, figures, kept, &columns, activity);
            crate::width::set_line(buf, area.x, y, &line, area.width);
            y += 1;
        }
        y += 1;
        if let Some(figures) = self.selected_figures() {
            for line in details(figures, width) {
                if y >= area.bottom() {
                    break;
                }
                crate::width::set_line(buf, area.x, y, &line, area.width);
                y += 1;
            }
        }
    }

    fn row(
        &self,
        index: usize,
        figures: &AttemptFigures,
        kept: bool,
        columns: &[(&Column, usize)],
        activity: Activity<'_>,
    ) -> Line<'static> {
        let selected = index == self.selected;
        let marker = match (selected, self.marked == Some(index)) {
            (_, true) => "◆ ",
            (true, false) => "› ",
            _ => "  ",
        };
        let base = if selected {
            theme::selected()
        } else {
            Style::default()
        };
        let mut spans = vec![Span::styled(marker.to_owned(), base)];
        let work = figures.work.as_ref();
        for (number, (column, width)) in columns.iter().enumerate() {
            if number > 0 {
                spans.push(Span::styled(" ", base));
            }
            let (text, style) = match column.header {
                AttemptText::ColAttempt => {
                    let mut name = attempt_name(figures);
                    if kept {
                        name = format!("{name} ({})", t(AttemptText::CompareKept));
                    }
                    (name, base)
                }
                AttemptText::ColStatus => list_view::badge(&figures.session),
                AttemptText::ColFiles => (
                    work.map_or_else(|| "—".to_owned(), |w| w.files.len().to_string()),
                    theme::text(),
                ),
                AttemptText::ColLines => {
                    let Some(work) = work else {
                        spans.push(Span::styled(cell("—", *width, true), theme::dim()));
                        continue;
                    };
                    let added = format!("+{}", work.insertions);
                    let removed = format!("−{}", work.deletions);
                    let pad = width.saturating_sub(str_width(&added) + 1 + str_width(&removed));
                    spans.push(Span::raw(" ".repeat(pad)));
                    spans.push(Span::styled(added, theme::diff_added()));
                    spans.push(Span::raw(" "));
                    spans.push(Span::styled(removed, theme::diff_removed()));
                    continue;
                }
                AttemptText::ColCommits => (
                    work.map_or_else(|| "—".to_owned(), |w| w.commits.to_string()),
                    theme::text(),
                ),
                AttemptText::ColCheck => {
                    let (glyph, style) =
                        list_view::check_cell(figures.session.check.as_deref(), activity);
                    let glyph = if figures.session.check.is_none() {
                        "—"
                    } else {
                        glyph
                    };
                    (glyph.to_owned(), style)
                }
                AttemptText::ColTime => (list_view::duration(figures.duration_ms), theme::dim()),
                AttemptText::ColTokens => (
                    figures.tokens.as_ref().map_or_else(
                        || "—".to_owned(),
                        |u| tokens(u.input + u.output + u.cache_read + u.cache_creation),
                    ),
                    theme::dim(),
                ),
                AttemptText::ColCost => (
                    figures
                        .session
                        .cost_usd
                        .map_or_else(|| "—".to_owned(), |cost| format!("${cost:.2}")),
                    theme::dim(),
                ),
                _ => (String::new(), theme::dim()),
            };
            spans.push(Span::styled(cell(&text, *width, column.right), style));
        }
        Line::from(spans)
    }
}

/// The columns that fit `width` cells, each with its width; the attempt's column takes what
/// the others leave.
fn fitting_columns(width: usize) -> Vec<(&'static Column, usize)> {
    // The marker (2) and the attempt's narrowest.
    const ATTEMPT_MIN: usize = 12;
    // A column is as wide as its figures or its header in the UI's language.
    let wide = |c: &Column| c.width.max(str_width(t(c.header)));
    let mut kept: Vec<&Column> = COLUMNS.iter().filter(|c| c.drop != u8::MAX).collect();
    let used = |kept: &[&Column]| 2 + ATTEMPT_MIN + kept.iter().map(|c| wide(c) + 1).sum::<usize>();
    while used(&kept) > width {
        let Some(lowest) = kept
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| c.drop)
            .map(|(index, _)| index)
        else {
            break;
        };
        kept.remove(lowest);
    }
    let others: usize = kept.iter().map(|c| wide(c) + 1).sum::<usize>();
    let attempt = width.saturating_sub(2 + others).clamp(ATTEMPT_MIN, 40);
    std::iter::once((&COLUMNS[0], attempt))
        .chain(kept.into_iter().map(|c| (c, wide(c))))
        .collect()
}

/// `text` in a cell `width` wide, aligned right or left.
fn cell(text: &str, width: usize, right: bool) -> String {
    let text = truncate(text, width);
    let pad = width.saturating_sub(str_width(&text));
    if right {
        format!("{}{text}", " ".repeat(pad))
    } else {
        format!("{text}{}", " ".repeat(pad))
    }
}

/// The selected attempt under the table: its model and branch, the files it changed, its
/// check (with the command), why git could not be read.
fn details(figures: &AttemptFigures, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let session = &figures.session;
    let model = session
        .model
        .clone()
        .or_else(|| figures.spec.model.clone())
        .unwrap_or_else(|| t(AttemptText::FormDefaultModel).to_owned());
    let head = format!(
        "  {} · {}",
        sanitize(&session.agent),
        tf(
            AttemptText::CompareDetail,
            &[&sanitize(&model), &sanitize(&session.branch)]
        )
    );
    lines.push(Line::styled(truncate(&head, width), theme::bold()));
    if let Some(work) = &figures.work {
        let files = work
            .files
            .iter()
            .map(|file| {
                let counts = match (file.added, file.deleted) {
                    (Some(added), Some(deleted)) => format!(" +{added} −{deleted}"),
                    _ => String::new(),
                };
                format!("{}{counts}", sanitize(&file.path))
            })
            .collect::<Vec<_>>()
            .join(", ");
        if !files.is_empty() {
            let text = format!("  {}", tf(AttemptText::CompareChanged, &[&files]));
            lines.push(Line::styled(truncate(&text, width), theme::text()));
        }
    } else if let Some(error) = &figures.git_error {
        let text = format!(
            "  {}",
            tf(AttemptText::CompareGitError, &[&sanitize(error)])
        );
        lines.push(Line::styled(truncate(&text, width), theme::error()));
    } else {
        let text = format!("  {}", t(AttemptText::CompareNoWork));
        lines.push(Line::styled(text, theme::dim()));
    }
    if let Some(check) = &session.check {
        let (words, style) = check_words(Some(check));
        let text = format!(
            "  {}",
            tf(
                AttemptText::CheckLabel,
                &[&words, &sanitize(&check.command)]
            )
        );
        lines.push(Line::styled(truncate(&text, width), style));
        if let Some(detail) = &check.detail {
            let text = format!("    {}", sanitize(detail));
            lines.push(Line::styled(truncate(&text, width), theme::dim()));
        }
    }
    lines
}
