//! The detail view's session log: entries rendered one by one at the current width, cached, and
//! drawn only where they meet the viewport.
//!
//! - **Cost per frame follows the visible rows.** A height index per width ([`layout`], a
//!   Fenwick tree of entry heights) finds the first visible entry in O(log n); only the entries
//!   that meet the viewport are rendered, and their lines are cached by (entry id, revision,
//!   width) in a bounded LRU ([`cache`]). A width change re-measures every entry once.
//! - **Scrolling.** At the bottom the view follows the tail. Scrolled up, it is anchored by
//!   (entry id, row in entry) from the top, so output growing below never moves a line; the
//!   last row then says how many rows are below.
//! - **Rows.** Each entry is its lines plus one empty row; every line is exactly one row (an
//!   empty line keeps its height) and is clipped at the right edge, never squeezed.
//! - **Streaming.** The message being written is plain wrapped text after the last entry,
//!   re-wrapped only from its last row on each delta ([`stream`]); the completed assistant entry
//!   (Markdown) replaces it.

mod cache;
mod cells;
mod layout;
mod stream;

use codiva_core::session_log::LogEntry;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::theme::{self, glyph};
use crate::width::byte_at_column;
use cache::LineCache;
use layout::HeightIndex;
use stream::StreamText;

/// What is drawn at a cell of the view (see [`LogView::row_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRef {
    pub place: RowPlace,
    /// The row's text as drawn (without styles).
    pub text: String,
    /// The cell column inside the row.
    pub column: usize,
    /// The byte offset in `text` of the grapheme covering `column` (`text.len()` past its end).
    pub byte: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowPlace {
    /// Row `row` of entry `id`'s lines.
    Entry { id: u64, row: usize },
    /// The empty row after entry `id`.
    Gap { after: u64 },
    /// Row `row` of the streaming text.
    Stream { row: usize },
    /// The "↓ N more lines" status row.
    Status,
}

/// Where the top of the view is while scrolled up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// Row `row` of entry `id`'s block (its lines, then the gap row).
    Entry { id: u64, row: usize },
    /// Row `row` of the streaming text (becomes the next entry's row when the stream
    /// completes into it).
    Stream { row: usize },
}

#[derive(Debug)]
struct Stored {
    entry: LogEntry,
    /// Unique across the view's life: a changed entry never matches a stale cache line.
    revision: u64,
}

/// The rows a frame shows.
#[derive(Debug, Clone, Copy)]
struct Viewport {
    top: usize,
    /// Log rows (the status row excluded).
    rows: usize,
    below: usize,
    following: bool,
}

#[derive(Debug)]
pub struct LogView {
    entries: Vec<Stored>,
    next_revision: u64,
    /// The width `index` measures (0: none yet).
    index_width: u16,
    /// Block heights (lines + the gap row) of `entries` at `index_width`.
    index: HeightIndex,
    cache: LineCache,
    stream: StreamText,
    follow: bool,
    anchor: Anchor,
    /// The view's height at the last frame.
    height: u16,
    frame: u64,
}

impl Default for LogView {
    fn default() -> Self {
        Self::new()
    }
}

impl LogView {
    pub fn new() -> Self {
        LogView {
            entries: Vec::new(),
            next_revision: 0,
            index_width: 0,
            index: HeightIndex::default(),
            cache: LineCache::default(),
            stream: StreamText::default(),
            follow: true,
            anchor: Anchor::Entry { id: 0, row: 0 },
            height: 0,
            frame: 0,
        }
    }

    /// Replaces every entry (the initial load). The scroll position survives when its entry is
    /// still there.
    pub fn set_entries(&mut self, mut entries: Vec<LogEntry>) {
        if !entries.is_sorted_by_key(|e| e.id) {
            entries.sort_by_key(|e| e.id);
        }
        entries.dedup_by_key(|e| e.id);
        self.entries = entries
            .into_iter()
            .map(|entry| {
                let revision = self.bump();
                Stored { entry, revision }
            })
            .collect();
        self.cache.clear();
        self.reindex();
    }

    /// Appends `entry`, or replaces the entry with its id (an update may hit any entry).
    pub fn apply(&mut self, entry: LogEntry, update: bool) {
        let _ = update; // The id decides: a known id is replaced, a new one is added.
        let revision = self.bump();
        match self.position(entry.id) {
            Ok(index) => {
                self.cache.remove(entry.id);
                self.entries[index] = Stored { entry, revision };
                if self.index_width > 0 {
                    let height = self.measure(index);
                    self.index.set(index, height);
                }
            }
            Err(index) if index == self.entries.len() => {
                let id = entry.id;
                self.entries.push(Stored { entry, revision });
                if self.index_width > 0 {
                    let height = self.measure(index);
                    self.index.push(height);
                }
                if let Anchor::Stream { row } = self.anchor
                    && self.stream.is_empty()
                {
                    // The streamed message completed into this entry: keep the same row.
                    self.anchor = Anchor::Entry { id, row };
                }
            }
            Err(index) => {
                self.entries.insert(index, Stored { entry, revision });
                self.reindex();
            }
        }
    }

    /// The message being written, shown after the last entry as plain wrapped text (`""`:
    /// none).
    pub fn set_streaming(&mut self, text: &str) {
        self.stream.set(text);
    }

    pub fn push_stream(&mut self, delta: &str) {
        self.stream.push(delta);
    }

    pub fn reset_stream(&mut self) {
        self.stream.clear();
    }

    /// The streaming text.
    pub fn streaming(&self) -> &str {
        self.stream.text()
    }

    /// Draws the visible rows; scrolled up, the last row says how many rows are below.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        if area.width == 0 || area.height == 0 {
            return;
        }
        self.frame += 1;
        self.set_width(area.width);
        self.height = area.height;
        let height = usize::from(area.height);
        // Everything fits: follow again, unless the top is a streamed message that is about to
        // come back as its completed entry.
        let completing = matches!(self.anchor, Anchor::Stream { .. }) && self.stream.is_empty();
        if !self.follow && !completing && self.total() <= height {
            self.follow = true;
        }
        let view = self.viewport(height);
        let (mut index, mut offset) = self.index.find(view.top);
        let mut y = 0;
        while y < view.rows && index < self.entries.len() {
            let stored = &self.entries[index];
            let lines = self.cache.get_or_render(
                stored.entry.id,
                stored.revision,
                area.width,
                self.frame,
                || cells::render(&stored.entry, area.width),
            );
            for line in lines.iter().skip(offset) {
                if y == view.rows {
                    break;
                }
                buf.set_line(area.x, area.y + row16(y), line, area.width);
                y += 1;
            }
            // The gap row after the entry.
            y += 1;
            index += 1;
            offset = 0;
        }
        if index == self.entries.len() {
            let mut row = offset;
            while y < view.rows {
                let Some(text) = self.stream.row(row) else {
                    break;
                };
                let line = Line::from(Span::styled(cells::display(text), theme::text()));
                buf.set_line(area.x, area.y + row16(y), &line, area.width);
                y += 1;
                row += 1;
            }
        }
        if !view.following {
            let status = Line::from(Span::styled(status_text(view.below), theme::accent()));
            buf.set_line(area.x, area.bottom() - 1, &status, area.width);
        }
        self.cache.trim(self.frame);
    }

    pub fn scroll_up(&mut self, rows: usize) {
        if self.index_width == 0 || rows == 0 {
            return;
        }
        let height = usize::from(self.height);
        if self.total() <= height {
            return;
        }
        let top = self.viewport(height).top.saturating_sub(rows);
        self.follow = false;
        self.anchor = self.anchor_at(top);
    }

    pub fn scroll_down(&mut self, rows: usize) {
        if self.follow || self.index_width == 0 {
            return;
        }
        let height = usize::from(self.height);
        let top = self.viewport(height).top + rows;
        if top >= self.total().saturating_sub(height) {
            self.follow = true;
        } else {
            self.anchor = self.anchor_at(top);
        }
    }

    pub fn page_up(&mut self) {
        self.scroll_up(self.page());
    }

    pub fn page_down(&mut self) {
        self.scroll_down(self.page());
    }

    pub fn to_top(&mut self) {
        if self.index_width > 0 && self.total() > usize::from(self.height) {
            self.follow = false;
            self.anchor = self.anchor_at(0);
        }
    }

    /// Back to the bottom, following the tail again.
    pub fn to_bottom(&mut self) {
        self.follow = true;
    }

    pub fn is_following(&self) -> bool {
        self.follow
    }

    /// Rows below the view (0 while following).
    pub fn lines_below(&self) -> usize {
        if self.follow || self.index_width == 0 {
            return 0;
        }
        self.viewport(usize::from(self.height)).below
    }

    /// All rows of the log at `width`: O(1)-ish at the width last drawn, a full measure at any
    /// other width.
    pub fn total_rows(&self, width: u16) -> usize {
        if width == self.index_width {
            return self.total();
        }
        let entries: usize = self
            .entries
            .iter()
            .map(|s| cells::height(&s.entry, width) + 1)
            .sum();
        let stream = if self.stream.is_empty() {
            0
        } else {
            crate::width::wrap_text(self.stream.text(), usize::from(width.max(1))).len()
        };
        trailing(entries, stream, self.entries.len())
    }

    /// What is drawn at (`column`, `row`) in `area`, with the layout of the last frame drawn in
    /// an area of that width (`None` outside the area, below the content, or at a width not
    /// drawn yet).
    pub fn row_at(&self, area: Rect, column: u16, row: u16) -> Option<RowRef> {
        if !area.contains((column, row).into()) || area.width != self.index_width {
            return None;
        }
        let height = usize::from(area.height);
        let view = self.viewport(height);
        let y = usize::from(row - area.y);
        let column = usize::from(column - area.x);
        let (place, text) = if !view.following && y + 1 == height {
            (RowPlace::Status, status_text(view.below))
        } else {
            if y >= view.rows || view.top + y >= self.total() {
                return None;
            }
            let (index, offset) = self.index.find(view.top + y);
            match self.entries.get(index) {
                Some(stored) => {
                    let id = stored.entry.id;
                    let line = match self.cache.peek(id, stored.revision, area.width) {
                        Some(lines) => lines.get(offset).map(line_text),
                        None => cells::render(&stored.entry, area.width)
                            .get(offset)
                            .map(line_text),
                    };
                    match line {
                        Some(text) => (RowPlace::Entry { id, row: offset }, text),
                        None => (RowPlace::Gap { after: id }, String::new()),
                    }
                }
                None => (
                    RowPlace::Stream { row: offset },
                    cells::display(self.stream.row(offset)?),
                ),
            }
        };
        let byte = byte_at_column(&text, column);
        Some(RowRef {
            place,
            text,
            column,
            byte,
        })
    }

    fn bump(&mut self) -> u64 {
        self.next_revision += 1;
        self.next_revision
    }

    /// The entry with `id`, or where it would go (ids are increasing).
    fn position(&self, id: u64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&id, |s| s.entry.id)
    }

    /// Block height of entry `index` at the index width; its lines go to the cache, as the
    /// entry is probably about to be drawn.
    fn measure(&mut self, index: usize) -> usize {
        let width = self.index_width;
        let stored = &self.entries[index];
        let lines =
            self.cache
                .get_or_render(stored.entry.id, stored.revision, width, self.frame, || {
                    cells::render(&stored.entry, width)
                });
        lines.len() + 1
    }

    fn set_width(&mut self, width: u16) {
        if width != self.index_width {
            self.index_width = width;
            self.reindex();
        }
        self.stream.set_width(width);
    }

    /// Measures every entry at the index width (a width change, a load).
    fn reindex(&mut self) {
        let width = self.index_width;
        if width == 0 {
            return;
        }
        let heights = self
            .entries
            .iter()
            .map(|s| {
                let lines = match self.cache.peek(s.entry.id, s.revision, width) {
                    Some(lines) => lines.len(),
                    None => cells::height(&s.entry, width),
                };
                lines + 1
            })
            .collect();
        self.index = HeightIndex::from_heights(heights);
    }

    /// All rows at the index width.
    fn total(&self) -> usize {
        trailing(self.index.total(), self.stream.rows(), self.entries.len())
    }

    fn page(&self) -> usize {
        usize::from(self.height).saturating_sub(2).max(1)
    }

    fn viewport(&self, height: usize) -> Viewport {
        let total = self.total();
        if self.follow || total <= height {
            return Viewport {
                top: total.saturating_sub(height),
                rows: height,
                below: 0,
                following: true,
            };
        }
        let rows = height.saturating_sub(1);
        let top = self.resolve(self.anchor).min(total.saturating_sub(rows));
        Viewport {
            top,
            rows,
            below: total.saturating_sub(top + rows),
            following: false,
        }
    }

    /// The row an anchor stands for now.
    fn resolve(&self, anchor: Anchor) -> usize {
        match anchor {
            Anchor::Entry { id, row } => match self.position(id) {
                Ok(index) => {
                    self.index.prefix(index) + row.min(self.index.height(index).saturating_sub(1))
                }
                Err(index) => self.index.prefix(index),
            },
            Anchor::Stream { row } => {
                self.index.total() + row.min(self.stream.rows().saturating_sub(1))
            }
        }
    }

    fn anchor_at(&self, top: usize) -> Anchor {
        let (index, row) = self.index.find(top);
        match self.entries.get(index) {
            Some(stored) => Anchor::Entry {
                id: stored.entry.id,
                row,
            },
            None => Anchor::Stream { row },
        }
    }
}

/// All rows: the entries' blocks and the streaming text; without a stream the last entry's gap
/// row is not shown.
fn trailing(entry_rows: usize, stream_rows: usize, entries: usize) -> usize {
    if stream_rows == 0 && entries > 0 {
        entry_rows - 1
    } else {
        entry_rows + stream_rows
    }
}

fn status_text(below: usize) -> String {
    let noun = if below == 1 { "line" } else { "lines" };
    format!("{} {below} more {noun}", glyph::MORE_BELOW)
}

fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn row16(row: usize) -> u16 {
    u16::try_from(row).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use codiva_core::agent_event::NoteLevel;
    use codiva_core::session_log::EntryKind;

    use super::*;

    /// Scrolling through a long log keeps the line cache within its budget (the cache does not
    /// grow with every frame).
    #[test]
    fn the_line_cache_stays_bounded() {
        let entries = (0..20_000)
            .map(|id| LogEntry {
                id,
                at_ms: 0,
                kind: EntryKind::Note {
                    level: NoteLevel::Info,
                    text: "a\nb\nc".into(),
                },
            })
            .collect();
        let mut view = LogView::new();
        view.set_entries(entries);
        let area = Rect::new(0, 0, 80, 40);
        let mut buf = Buffer::empty(area);
        view.render(area, &mut buf);
        view.to_top();
        while !view.is_following() {
            view.page_down();
            view.render(area, &mut buf);
            assert!(view.cache.rows() <= cache::MAX_CACHED_ROWS + 80);
            assert!(view.cache.len() <= cache::MAX_CACHED_ENTRIES + 40);
        }
    }
}
