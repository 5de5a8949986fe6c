//! `/diff`: a session's whole diff against its base (commits, uncommitted edits and untracked
//! files, as the core's bounded `diff_text` returns it), drawn over the body: the files with
//! their `+`/`−` counts (beside the diff when the terminal is wide, above it when not) and the
//! coloured unified diff, scrolled by line, page or file. Lines are cut at the edge, never
//! wrapped, so a row is a line and scrolling is exact.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::dialog::sanitize;
use crate::i18n::{ViewText, t, tf};
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

#[derive(Debug, Clone)]
pub struct DiffView {
    pub id: String,
    title: String,
    /// `None` while the diff is being read.
    lines: Option<Vec<String>>,
    files: Vec<DiffFile>,
    truncated: bool,
    scroll: usize,
    /// Rows of diff the last frame showed (a page).
    page: usize,
}

pub enum DiffAction {
    None,
    Close,
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
            truncated: false,
            scroll: 0,
            page: 10,
        }
    }

    pub fn set_text(&mut self, text: &str, truncated: bool) {
        let lines: Vec<String> = text
            .lines()
            .map(|line| sanitize(line).into_owned())
            .collect();
        self.files = parse_files(&lines);
        self.lines = Some(lines);
        self.truncated = truncated;
        self.scroll = 0;
    }

    fn line_count(&self) -> usize {
        self.lines.as_ref().map_or(0, Vec::len)
    }

    fn max_scroll(&self) -> usize {
        self.line_count().saturating_sub(self.page.max(1))
    }

    /// The file the top row belongs to.
    fn current_file(&self) -> Option<usize> {
        self.files
            .iter()
            .rposition(|file| file.start <= self.scroll)
    }

    pub fn key(&mut self, key: KeyEvent) -> DiffAction {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return DiffAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-(self.page.max(1) as isize)),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(self.page.max(1) as isize),
            KeyCode::Home | KeyCode::Char('g') => self.scroll = 0,
            KeyCode::End | KeyCode::Char('G') => self.scroll = self.max_scroll(),
            KeyCode::Char('n') | KeyCode::Tab => {
                let next = self.files.iter().find(|file| file.start > self.scroll);
                if let Some(file) = next {
                    self.scroll = file.start.min(self.max_scroll().max(file.start));
                }
            }
            KeyCode::Char('p') | KeyCode::BackTab => {
                let previous = self
                    .files
                    .iter()
                    .rev()
                    .find(|file| file.start < self.scroll);
                self.scroll = previous.map_or(0, |file| file.start);
            }
            _ => {}
        }
        DiffAction::None
    }

    pub fn scroll_by(&mut self, rows: isize) {
        self.scroll = self
            .scroll
            .saturating_add_signed(rows)
            .min(self.max_scroll());
    }

    pub fn render(&mut self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let mut title = format!(" {}", self.title);
        if self.lines.is_some() {
            title.push_str(&format!(
                " · {}",
                tf(ViewText::DiffFiles, &[&self.files.len().to_string()])
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
        let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        let Some(lines) = &self.lines else {
            crate::width::set_line(
                buf,
                body.x,
                body.y,
                &Line::styled(format!("  {}", t(ViewText::DiffLoading)), theme::dim()),
                body.width,
            );
            return;
        };
        if lines.is_empty() {
            crate::width::set_line(
                buf,
                body.x,
                body.y,
                &Line::styled(format!("  {}", t(ViewText::DiffEmpty)), theme::dim()),
                body.width,
            );
            return;
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
        self.render_files(files_area, buf);
        if area.width >= SIDE_BY_SIDE_MIN {
            for y in body.top()..body.bottom() {
                if let Some(cell) = buf.cell_mut((files_area.right(), y)) {
                    cell.set_symbol("│");
                    cell.set_style(theme::border());
                }
            }
        }
        let Some(lines) = &self.lines else {
            return;
        };
        let diff_width = usize::from(diff_area.width);
        for (row, line) in lines
            .iter()
            .skip(self.scroll)
            .take(usize::from(diff_area.height))
            .enumerate()
        {
            let y = diff_area.y + u16::try_from(row).unwrap_or(0);
            crate::width::set_line(
                buf,
                diff_area.x,
                y,
                &Line::styled(truncate(line, diff_width), line_style(line)),
                diff_area.width,
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
        for (row, (index, file)) in self.files.iter().enumerate().skip(first).enumerate() {
            if row >= rows {
                break;
            }
            let counts = format!(" +{} −{}", file.added, file.removed);
            let marker = if index == current { "›" } else { " " };
            let path_width = width.saturating_sub(2 + crate::width::str_width(&counts));
            let style = if index == current {
                theme::bold()
            } else {
                theme::text()
            };
            let y = area.y + u16::try_from(row).unwrap_or(0);
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
