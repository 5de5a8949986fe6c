//! `/diff`: a session's whole diff against its base (commits, uncommitted edits and untracked
//! files, as the core's bounded `diff_text` returns it), drawn over the body: the files with
//! their `+`/`−` counts (beside the diff when the terminal is wide, above it when not) and the
//! coloured unified diff with each line's number in its file. Lines are cut at the edge, never
//! wrapped, so a row is a line and scrolling is exact.
//!
//! It is also where the user reviews the session: a cursor row (keys, or a click) or a range
//! (Shift+↑↓, `v`) takes a comment written in a small editor (`review_panel.rs`); the session's
//! comments — kept by the manager, the same in every client — are marked on the rows they name
//! (`diff_anchor.rs`) and listed under the diff, where they are edited or removed; `S` sends
//! them to the agent as one message.

use codiva_protocol::review::{ReviewAnchor, ReviewComment};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::diff_anchor::{RowPlace, anchor_of, places, rows_of};
use super::review_panel::{CommentEditor, EditTarget, EditorAction, LIST_ROWS_MAX, ListRows};
use crate::dialog::sanitize;
use crate::i18n::{ReviewText, ViewText, t, tf};
use crate::theme;
use crate::width::{fit, truncate};

/// Terminals at least this wide show the files beside the diff.
const SIDE_BY_SIDE_MIN: u16 = 100;
/// Rows of the file list above the diff on a narrow terminal.
const FILES_ABOVE_MAX: u16 = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffFile {
    pub path: String,
    /// The line of its `diff --git` header.
    pub start: usize,
    pub added: usize,
    pub removed: usize,
}

/// Where the keys go inside the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Focus {
    Diff,
    /// The comments' list, this one chosen.
    List(usize),
}

/// Where the last frame drew each part (for clicks).
#[derive(Debug, Clone, Copy, Default)]
struct Drawn {
    diff: Rect,
    list: Rect,
    list_first: usize,
}

#[derive(Debug, Clone)]
pub struct DiffView {
    pub id: String,
    title: String,
    /// `None` while the diff is being read.
    lines: Option<Vec<String>>,
    files: Vec<DiffFile>,
    /// Each line's place in its file (`diff_anchor.rs`).
    places: Vec<Option<RowPlace>>,
    truncated: bool,
    scroll: usize,
    /// Rows of diff the last frame showed (a page).
    page: usize,
    /// The line the cursor is on.
    cursor: usize,
    /// The other end of a range being selected (the cursor is one end).
    mark: Option<usize>,
    /// The session's comments, as its row last said.
    comments: Vec<ReviewComment>,
    /// The rows each comment is on in this diff (`None`: not in it now).
    comment_rows: Vec<Option<(usize, usize)>>,
    focus: Focus,
    /// Boxed: the composer is large, and the view is one variant of the overlays.
    editor: Option<Box<CommentEditor>>,
    drawn: Drawn,
}

pub enum DiffAction {
    None,
    Close,
    /// Something to tell the user (in the notice line).
    Notice(String),
    Add {
        anchor: ReviewAnchor,
        lines: Vec<String>,
        body: String,
    },
    Edit {
        comment_id: String,
        body: String,
    },
    Remove {
        comment_id: String,
    },
    /// Send every comment to the agent.
    Send,
}

/// The files of a unified diff, with their line counts.
pub fn parse_files(lines: &[String]) -> Vec<DiffFile> {
    let mut files: Vec<DiffFile> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            // `a/<path> b/<path>`: the new path is after the last " b/".
            let path = rest
                .rfind(" b/")
                .map_or(rest, |at| &rest[at + 3..])
                .to_owned();
            files.push(DiffFile {
                path,
                start: index,
                added: 0,
                removed: 0,
            });
        } else if let Some(file) = files.last_mut() {
            if line.starts_with('+') && !line.starts_with("+++ ") {
                file.added += 1;
            } else if line.starts_with('-') && !line.starts_with("--- ") {
                file.removed += 1;
            }
        }
    }
    files
}

fn line_style(line: &str) -> Style {
    if line.starts_with("diff --git ") {
        theme::bold()
    } else if line.starts_with("+++ ") || line.starts_with("--- ") {
        theme::dim()
    } else if line.starts_with('+') {
        theme::diff_added()
    } else if line.starts_with('-') {
        theme::diff_removed()
    } else if line.starts_with("@@") {
        theme::accent()
    } else if line.starts_with(' ') || line.is_empty() {
        theme::text()
    } else {
        theme::dim()
    }
}

impl DiffView {
    /// An empty view while the diff is read.
    pub fn loading(id: String, branch: &str, base: &str) -> Self {
        DiffView {
            id,
            title: tf(ViewText::DiffTitle, &[branch, base]),
            lines: None,
            files: Vec::new(),
            places: Vec::new(),
            truncated: false,
            scroll: 0,
            page: 10,
            cursor: 0,
            mark: None,
            comments: Vec::new(),
            comment_rows: Vec::new(),
            focus: Focus::Diff,
            editor: None,
            drawn: Drawn::default(),
        }
    }

    pub fn set_text(&mut self, text: &str, truncated: bool) {
        let lines: Vec<String> = text
            .lines()
            .map(|line| sanitize(line).into_owned())
            .collect();
        self.files = parse_files(&lines);
        self.places = places(&lines);
        // The cursor starts on the first line a comment can be on.
        self.cursor = self.places.iter().position(Option::is_some).unwrap_or(0);
        self.lines = Some(lines);
        self.truncated = truncated;
        self.scroll = 0;
        self.mark = None;
        self.place_comments();
    }

    /// The session's comments now (its row changed, or the view is drawn).
    pub fn set_comments(&mut self, comments: &[ReviewComment]) {
        if self.comments != comments {
            self.comments = comments.to_vec();
            self.place_comments();
        }
        if let Focus::List(index) = self.focus {
            self.focus = match self.comments.len() {
                0 => Focus::Diff,
                n => Focus::List(index.min(n - 1)),
            };
        }
    }

    /// The footer's hint: what the keys do where they go now.
    pub fn hint(&self) -> String {
        let key = if self.editor.is_some() {
            ReviewText::EditorHint
        } else if matches!(self.focus, Focus::List(_)) {
            ReviewText::ListHint
        } else {
            ReviewText::Hint
        };
        t(key).to_owned()
    }

    /// A comment is being written: text keys go to it.
    pub fn editing(&self) -> bool {
        self.editor.is_some()
    }

    pub fn paste(&mut self, text: &str) {
        if let Some(editor) = &mut self.editor {
            editor.paste(text);
        }
    }

    fn line_count(&self) -> usize {
        self.lines.as_ref().map_or(0, Vec::len)
    }

    fn max_scroll(&self) -> usize {
        self.line_count().saturating_sub(self.page.max(1))
    }

    /// The file the cursor is in.
    fn current_file(&self) -> Option<usize> {
        self.files
            .iter()
            .rposition(|file| file.start <= self.cursor)
    }

    /// The rows of the range (the cursor's line alone without one), within the cursor's file.
    fn selection(&self) -> (usize, usize) {
        let Some(mark) = self.mark else {
            return (self.cursor, self.cursor);
        };
        let file = self.current_file();
        let file_start = file.map_or(0, |f| self.files[f].start);
        let file_end = file
            .and_then(|f| self.files.get(f + 1))
            .map_or(self.line_count(), |next| next.start)
            .saturating_sub(1);
        let mark = mark.clamp(file_start, file_end.max(file_start));
        (mark.min(self.cursor), mark.max(self.cursor))
    }

    pub fn key(&mut self, key: KeyEvent) -> DiffAction {
        if let Some(editor) = &mut self.editor {
            return match editor.key(key) {
                EditorAction::None => DiffAction::None,
                EditorAction::Cancel => {
                    self.editor = None;
                    DiffAction::None
                }
                EditorAction::Submit(target, body) => {
                    self.editor = None;
                    self.mark = None;
                    match target {
                        EditTarget::New { anchor, lines } => DiffAction::Add {
                            anchor,
                            lines,
                            body,
                        },
                        EditTarget::Edit { comment_id } => DiffAction::Edit { comment_id, body },
                    }
                }
            };
        }
        if let Focus::List(index) = self.focus {
            return self.list_key(key, index);
        }
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Esc if self.mark.is_some() => self.mark = None,
            KeyCode::Esc | KeyCode::Char('q') => return DiffAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1, shift),
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1, shift),
            KeyCode::Char('K') => self.move_cursor(-1, true),
            KeyCode::Char('J') => self.move_cursor(1, true),
            KeyCode::PageUp => self.move_cursor(-(self.page.max(1) as isize), shift),
            KeyCode::PageDown | KeyCode::Char(' ') => {
                self.move_cursor(self.page.max(1) as isize, shift);
            }
            KeyCode::Home | KeyCode::Char('g') => self.move_cursor(isize::MIN / 2, false),
            KeyCode::End | KeyCode::Char('G') => self.move_cursor(isize::MAX / 2, false),
            KeyCode::Char('v') => {
                self.mark = match self.mark {
                    Some(_) => None,
                    None => Some(self.cursor),
                };
            }
            KeyCode::Char('n') | KeyCode::Tab => {
                let next = self.files.iter().find(|file| file.start > self.cursor);
                if let Some(start) = next.map(|file| file.start) {
                    self.jump_to(start);
                }
            }
            KeyCode::Char('p') | KeyCode::BackTab => {
                let current = self.current_file().map_or(0, |f| self.files[f].start);
                let target = if current < self.cursor {
                    current
                } else {
                    self.files
                        .iter()
                        .rev()
                        .find(|file| file.start < self.cursor)
                        .map_or(0, |file| file.start)
                };
                self.jump_to(target);
            }
            KeyCode::Char('c') | KeyCode::Enter => return self.open_editor(),
            KeyCode::Char('l') => {
                if self.comments.is_empty() {
                    return DiffAction::Notice(t(ReviewText::NoComments).to_owned());
                }
                self.choose(0);
            }
            KeyCode::Char('S') => return self.send(),
            _ => {}
        }
        DiffAction::None
    }

    fn list_key(&mut self, key: KeyEvent, index: usize) -> DiffAction {
        let count = self.comments.len();
        match key.code {
            KeyCode::Esc | KeyCode::Char('l') | KeyCode::Char('q') => self.focus = Focus::Diff,
            KeyCode::Up | KeyCode::Char('k') => self.choose(index.saturating_sub(1)),
            KeyCode::Down | KeyCode::Char('j') => {
                self.choose((index + 1).min(count.saturating_sub(1)))
            }
            KeyCode::Enter | KeyCode::Char('e') => {
                if let Some(comment) = self.comments.get(index) {
                    self.editor = Some(Box::new(CommentEditor::new(
                        EditTarget::Edit {
                            comment_id: comment.id.clone(),
                        },
                        &comment.anchor,
                        &comment.body,
                    )));
                }
            }
            KeyCode::Char('d') | KeyCode::Delete | KeyCode::Backspace => {
                if let Some(comment) = self.comments.get(index) {
                    return DiffAction::Remove {
                        comment_id: comment.id.clone(),
                    };
                }
            }
            KeyCode::Char('S') => return self.send(),
            _ => {}
        }
        DiffAction::None
    }

    fn send(&self) -> DiffAction {
        if self.comments.is_empty() {
            DiffAction::Notice(t(ReviewText::NoComments).to_owned())
        } else {
            DiffAction::Send
        }
    }

    /// The list chooses comment `index`; the diff's cursor goes to its first line (when the
    /// diff still has it).
    fn choose(&mut self, index: usize) {
        if self.comments.is_empty() {
            self.focus = Focus::Diff;
            return;
        }
        let index = index.min(self.comments.len() - 1);
        self.focus = Focus::List(index);
        if let Some(row) = self.first_row_of(&self.comments[index]) {
            self.mark = None;
            self.cursor = row;
            self.keep_cursor_visible();
        }
    }

    fn first_row_of(&self, comment: &ReviewComment) -> Option<usize> {
        let index = self.comments.iter().position(|c| c.id == comment.id)?;
        self.comment_rows
            .get(index)
            .copied()
            .flatten()
            .map(|(first, _)| first)
    }

    /// Whether the diff has a line `comment` names.
    fn in_diff(&self, comment: &ReviewComment) -> bool {
        self.first_row_of(comment).is_some()
    }

    /// Whether some comment is on the row.
    fn commented(&self, row: usize) -> bool {
        self.comment_rows
            .iter()
            .flatten()
            .any(|(first, last)| (*first..=*last).contains(&row))
    }

    /// Where each comment is in the diff now (`diff_anchor::rows_of`).
    fn place_comments(&mut self) {
        let lines = self.lines.as_deref().unwrap_or_default();
        let files: Vec<&str> = self.files.iter().map(|file| file.path.as_str()).collect();
        self.comment_rows = self
            .comments
            .iter()
            .map(|comment| rows_of(comment, lines, &self.places, &files))
            .collect();
    }

    fn open_editor(&mut self) -> DiffAction {
        let Some(lines) = &self.lines else {
            return DiffAction::None;
        };
        let (from, to) = self.selection();
        let anchor = self
            .current_file()
            .and_then(|f| anchor_of(lines, &self.places, &self.files[f].path, from, to));
        let Some((anchor, quoted)) = anchor else {
            return DiffAction::Notice(t(ReviewText::NotALine).to_owned());
        };
        self.editor = Some(Box::new(CommentEditor::new(
            EditTarget::New {
                anchor: anchor.clone(),
                lines: quoted,
            },
            &anchor,
            "",
        )));
        DiffAction::None
    }

    /// Moves the cursor by `rows` (`extend`: the range grows from where it was).
    fn move_cursor(&mut self, rows: isize, extend: bool) {
        if extend && self.mark.is_none() {
            self.mark = Some(self.cursor);
        } else if !extend && self.mark.is_some() && !matches!(rows, -1 | 1) {
            self.mark = None;
        }
        let last = self.line_count().saturating_sub(1);
        self.cursor = self.cursor.saturating_add_signed(rows).min(last);
        self.keep_cursor_visible();
    }

    /// The cursor on `row` with that row at the top.
    fn jump_to(&mut self, row: usize) {
        self.mark = None;
        self.cursor = row.min(self.line_count().saturating_sub(1));
        self.scroll = row.min(self.max_scroll());
    }

    fn keep_cursor_visible(&mut self) {
        let page = self.page.max(1);
        if self.cursor < self.scroll {
            self.scroll = self.cursor;
        } else if self.cursor >= self.scroll + page {
            self.scroll = self.cursor + 1 - page;
        }
        self.scroll = self.scroll.min(self.max_scroll());
    }

    /// The wheel: the page moves, the cursor stays on it.
    pub fn scroll_by(&mut self, rows: isize) {
        self.scroll = self
            .scroll
            .saturating_add_signed(rows)
            .min(self.max_scroll());
        let last_visible = self.scroll + self.page.max(1) - 1;
        self.cursor = self
            .cursor
            .clamp(self.scroll, last_visible.max(self.scroll));
        self.cursor = self.cursor.min(self.line_count().saturating_sub(1));
    }

    /// A click at (`column`, `row`): a diff line becomes the cursor (with Shift the range
    /// grows to it), a comment of the list is chosen.
    pub fn click(&mut self, column: u16, row: u16, shift: bool) {
        let inside = |area: Rect| {
            column >= area.x && column < area.right() && row >= area.y && row < area.bottom()
        };
        if self.editor.is_some() {
            return;
        }
        let drawn = self.drawn;
        if inside(drawn.diff) {
            let line = self.scroll + usize::from(row - drawn.diff.y);
            if line >= self.line_count() {
                return;
            }
            if shift {
                self.mark.get_or_insert(self.cursor);
            } else {
                self.mark = None;
            }
            self.focus = Focus::Diff;
            self.cursor = line;
        } else if inside(drawn.list) && row > drawn.list.y {
            let index = drawn.list_first + usize::from(row - drawn.list.y - 1);
            if index < self.comments.len() {
                self.choose(index);
            }
        }
    }

    /// Draws the view; returns where the caret goes (the comment editor's).
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        if area.height == 0 {
            return None;
        }
        let width = usize::from(area.width);
        let mut title = format!(" {}", self.title);
        if self.lines.is_some() {
            title.push_str(&format!(
                " · {}",
                tf(ViewText::DiffFiles, &[&self.files.len().to_string()])
            ));
        }
        let (from, to) = self.selection();
        if self.mark.is_some() {
            let count = (from..=to)
                .filter(|row| self.places.get(*row).copied().flatten().is_some())
                .count();
            title.push_str(&format!(
                " · {}",
                tf(ReviewText::Range, &[&count.to_string()])
            ));
        }
        let mut spans = vec![Span::styled(truncate(&title, width), theme::bold())];
        if self.truncated {
            spans.push(Span::styled(
                format!(" · {}", t(ViewText::DiffTruncated)),
                theme::warning(),
            ));
        }
        crate::width::set_line(buf, area.x, area.y, &Line::from(spans), area.width);
        let mut body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        let mut caret = None;
        if let Some(editor) = &mut self.editor {
            let height = editor.height(area.width).min(body.height.saturating_sub(1));
            let at = Rect::new(body.x, body.bottom() - height, body.width, height);
            caret = editor.render(at, buf);
            body.height -= height;
        }
        // Still asked for, or nothing changed: one dim line says which.
        let waiting = match &self.lines {
            None => Some(ViewText::DiffLoading),
            Some(lines) if lines.is_empty() => Some(ViewText::DiffEmpty),
            Some(_) => None,
        };
        if let Some(key) = waiting {
            crate::width::set_line(
                buf,
                body.x,
                body.y,
                &Line::styled(format!("  {}", t(key)), theme::dim()),
                body.width,
            );
            return caret;
        }
        // The comments' list under the diff, while there are comments.
        self.drawn.list = Rect::default();
        if !self.comments.is_empty() && body.height >= 6 {
            let rows = u16::try_from(self.comments.len())
                .unwrap_or(LIST_ROWS_MAX)
                .min(LIST_ROWS_MAX)
                .min(body.height / 3)
                .max(1);
            let list = Rect::new(body.x, body.bottom() - rows - 1, body.width, rows + 1);
            body.height -= rows + 1;
            let selected = match self.focus {
                Focus::List(index) => Some(index),
                Focus::Diff => None,
            };
            let shown = usize::from(rows);
            let first = selected.map_or(0, |index| index.saturating_sub(shown - 1));
            let in_diff = |comment: &ReviewComment| self.in_diff(comment);
            ListRows {
                comments: &self.comments,
                in_diff: &in_diff,
                selected,
                focused: selected.is_some(),
                first,
            }
            .render(list, buf);
            self.drawn.list = list;
            self.drawn.list_first = first;
        }
        let (files_area, diff_area) = if area.width >= SIDE_BY_SIDE_MIN {
            let files_width = (area.width / 3).min(40);
            (
                Rect::new(body.x, body.y, files_width, body.height),
                Rect::new(
                    body.x + files_width + 1,
                    body.y,
                    body.width - files_width - 1,
                    body.height,
                ),
            )
        } else {
            let rows = u16::try_from(self.files.len())
                .unwrap_or(FILES_ABOVE_MAX)
                .min(FILES_ABOVE_MAX)
                .min(body.height / 3);
            (
                Rect::new(body.x, body.y, body.width, rows),
                Rect::new(body.x, body.y + rows, body.width, body.height - rows),
            )
        };
        self.page = usize::from(diff_area.height);
        self.scroll = self.scroll.min(self.max_scroll());
        self.keep_cursor_visible();
        self.drawn.diff = diff_area;
        self.render_files(files_area, buf);
        if area.width >= SIDE_BY_SIDE_MIN {
            for y in body.top()..body.bottom() {
                if let Some(cell) = buf.cell_mut((files_area.right(), y)) {
                    cell.set_symbol("│");
                    cell.set_style(theme::border());
                }
            }
        }
        self.render_lines(diff_area, buf, (from, to));
        caret
    }

    /// The diff's rows: the cursor (`›`) or range (`▌`) mark, the line's number in its file, a
    /// `●` where a comment is, and the line.
    fn render_lines(&self, area: Rect, buf: &mut Buffer, (from, to): (usize, usize)) {
        let Some(lines) = &self.lines else {
            return;
        };
        let widest = self
            .places
            .iter()
            .flatten()
            .map(|place| place.line)
            .max()
            .unwrap_or(0);
        let number_width = widest.to_string().len().max(3);
        let text_width = usize::from(area.width).saturating_sub(number_width + 3);
        let ranged = self.mark.is_some();
        for (row, line) in lines
            .iter()
            .enumerate()
            .skip(self.scroll)
            .take(usize::from(area.height))
        {
            let y = area.y + u16::try_from(row - self.scroll).unwrap_or(0);
            let cursor = if row == self.cursor && self.focus == Focus::Diff {
                "›"
            } else if ranged && (from..=to).contains(&row) {
                "▌"
            } else {
                " "
            };
            let number = self.places[row].map_or(String::new(), |place| place.line.to_string());
            let comment = if self.commented(row) { "●" } else { " " };
            let style = line_style(line);
            let style = if ranged && (from..=to).contains(&row) || row == self.cursor {
                style.patch(theme::card_selected())
            } else {
                style
            };
            crate::width::set_line(
                buf,
                area.x,
                y,
                &Line::from(vec![
                    Span::styled(cursor, theme::accent()),
                    Span::styled(format!("{number:>number_width$}"), theme::dim()),
                    Span::styled(comment, theme::accent()),
                    Span::raw(" "),
                    Span::styled(truncate(line, text_width), style),
                ]),
                area.width,
            );
        }
    }

    fn render_files(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let rows = usize::from(area.height);
        let current = self.current_file().unwrap_or(0);
        let first = current.saturating_sub(rows.saturating_sub(1));
        let width = usize::from(area.width);
        for (y, is_current, file) in
            super::picker::visible_rows(&self.files, current, first, area.y, rows)
        {
            let counts = format!(" +{} −{}", file.added, file.removed);
            let marker = if is_current { "›" } else { " " };
            let path_width = width.saturating_sub(2 + crate::width::str_width(&counts));
            let style = if is_current {
                theme::bold()
            } else {
                theme::text()
            };
            let line = Line::from(vec![
                Span::styled(format!("{marker} "), style),
                Span::styled(fit(&file.path, path_width), style),
                Span::styled(format!(" +{}", file.added), theme::diff_added()),
                Span::styled(format!(" −{}", file.removed), theme::diff_removed()),
            ]);
            crate::width::set_line(buf, area.x, y, &line, area.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_counts_from_a_unified_diff() {
        let text = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1,2 @@\n-old\n+new\n+more\ndiff --git a/dir with space/b b/dir with space/b\nnew file mode 100644\n--- /dev/null\n+++ b/dir with space/b\n@@ -0,0 +1 @@\n+x\n";
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let files = parse_files(&lines);
        assert_eq!(files.len(), 2);
        assert_eq!(
            (files[0].path.as_str(), files[0].added, files[0].removed),
            ("src/a.rs", 2, 1)
        );
        assert_eq!(files[1].path, "dir with space/b");
        assert_eq!(files[1].start, 7);
        assert_eq!((files[1].added, files[1].removed), (1, 0));
    }
}
