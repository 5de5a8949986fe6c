//! The review's parts of the diff view: the list of the session's comments under the diff
//! (each with its `file:line` anchor and its first line, marked when the diff no longer has its
//! lines) and the small editor a comment is written in — the composer's own text input, in a
//! box at the bottom of the view where the composer sits.

use codiva_protocol::review::{ReviewAnchor, ReviewComment};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::diff_anchor::anchor_label;
use crate::composer::{Composer, ComposerAction};
use crate::dialog::sanitize;
use crate::i18n::{ReviewText, t, tf};
use crate::theme;
use crate::width::{fit, set_line, str_width, truncate};

/// The most rows of comments shown under the diff (more scroll).
pub const LIST_ROWS_MAX: u16 = 6;
/// The most rows of text the editor grows to.
const EDITOR_ROWS_MAX: u16 = 5;

/// What the editor's text becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditTarget {
    /// A new comment on these lines.
    New {
        anchor: ReviewAnchor,
        lines: Vec<String>,
    },
    /// A new text for this comment.
    Edit { comment_id: String },
}

/// What a key did in the editor.
pub enum EditorAction {
    None,
    Cancel,
    Submit(EditTarget, String),
}

#[derive(Debug, Clone)]
pub struct CommentEditor {
    pub target: EditTarget,
    /// `file:line` of what it comments on.
    label: String,
    composer: Composer,
}

impl CommentEditor {
    pub fn new(target: EditTarget, anchor: &ReviewAnchor, text: &str) -> Self {
        let mut composer = Composer::new().with_placeholder(t(ReviewText::Placeholder));
        composer.set_text(text);
        CommentEditor {
            target,
            label: anchor_label(anchor),
            composer,
        }
    }

    pub fn key(&mut self, key: crossterm::event::KeyEvent) -> EditorAction {
        match self.composer.handle_key(key) {
            ComposerAction::Submit(text) => EditorAction::Submit(self.target.clone(), text),
            ComposerAction::Unhandled(key) if key.code == crossterm::event::KeyCode::Esc => {
                EditorAction::Cancel
            }
            _ => EditorAction::None,
        }
    }

    pub fn paste(&mut self, text: &str) {
        self.composer.handle_paste(text);
    }

    /// Rows it takes at `width`: its text (1 to a few rows) and the box around it.
    pub fn height(&self, width: u16) -> u16 {
        self.composer
            .desired_height(width.saturating_sub(2))
            .min(EDITOR_ROWS_MAX)
            + 2
    }

    /// Draws the box and the text; returns where the caret goes.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        if area.height < 3 || area.width < 4 {
            return None;
        }
        let width = usize::from(area.width);
        let title = match self.target {
            EditTarget::New { .. } => tf(ReviewText::EditorNew, &[&self.label]),
            EditTarget::Edit { .. } => tf(ReviewText::EditorEdit, &[&self.label]),
        };
        let title = truncate(&format!("─ {} ", sanitize(&title)), width.saturating_sub(2));
        let rule = "─".repeat(width.saturating_sub(2 + str_width(&title)));
        set_line(
            buf,
            area.x,
            area.y,
            &Line::from(vec![
                Span::styled("┌", theme::focused_border()),
                Span::styled(title, theme::bold()),
                Span::styled(format!("{rule}┐"), theme::focused_border()),
            ]),
            area.width,
        );
        for y in area.y + 1..area.bottom() - 1 {
            set_line(
                buf,
                area.x,
                y,
                &Line::styled("│", theme::focused_border()),
                area.width,
            );
            set_line(
                buf,
                area.right() - 1,
                y,
                &Line::styled("│", theme::focused_border()),
                1,
            );
        }
        set_line(
            buf,
            area.x,
            area.bottom() - 1,
            &Line::styled(
                format!("└{}┘", "─".repeat(width.saturating_sub(2))),
                theme::focused_border(),
            ),
            area.width,
        );
        let inner = Rect::new(area.x + 1, area.y + 1, area.width - 2, area.height - 2);
        self.composer.render(inner, buf)
    }
}

/// The comments' list: a heading, then one row per comment from `first`; `selected` is marked
/// (`focused`: the list has the keys). `in_diff` says whether the diff still has a comment's
/// lines.
pub struct ListRows<'a> {
    pub comments: &'a [ReviewComment],
    pub in_diff: &'a dyn Fn(&ReviewComment) -> bool,
    pub selected: Option<usize>,
    pub focused: bool,
    pub first: usize,
}

impl ListRows<'_> {
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let count = self.comments.len();
        let heading = tf(ReviewText::Heading, &[&count.to_string()]);
        set_line(
            buf,
            area.x,
            area.y,
            &Line::styled(truncate(&format!("─ {heading} "), width), theme::accent()),
            area.width,
        );
        for (row, (index, comment)) in self
            .comments
            .iter()
            .enumerate()
            .skip(self.first)
            .take(usize::from(area.height.saturating_sub(1)))
            .enumerate()
        {
            let chosen = self.selected == Some(index);
            let marker = match (chosen, self.focused) {
                (true, true) => "›",
                (true, false) => "·",
                _ => " ",
            };
            let label = anchor_label(&comment.anchor);
            let label = fit(&sanitize(&label), (width / 3).clamp(8, 48));
            let first_line = comment.body.lines().next().unwrap_or("");
            let mut text = sanitize(first_line).into_owned();
            if comment.body.lines().nth(1).is_some() {
                text.push_str(" …");
            }
            let gone = if (self.in_diff)(comment) {
                String::new()
            } else {
                format!(" ({})", t(ReviewText::NotInDiff))
            };
            let room = width.saturating_sub(3 + str_width(&label) + 2 + str_width(&gone));
            let style = if chosen && self.focused {
                theme::bold()
            } else {
                theme::text()
            };
            let y = area.y + 1 + u16::try_from(row).unwrap_or(0);
            set_line(
                buf,
                area.x,
                y,
                &Line::from(vec![
                    Span::styled(format!("{marker} ●"), theme::accent()),
                    Span::styled(format!(" {label}  "), theme::dim()),
                    Span::styled(truncate(&text, room), style),
                    Span::styled(gone, theme::warning()),
                ]),
                area.width,
            );
        }
    }
}

/// What the notice says after `review/send`.
pub fn sent_text(result: &codiva_protocol::review::ReviewSendResult) -> String {
    let sent = result.sent.to_string();
    if result.cut_bytes == 0 {
        tf(ReviewText::Sent, &[&sent])
    } else {
        tf(ReviewText::SentCut, &[&sent, &result.cut_bytes.to_string()])
    }
}
