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
//! - **Streaming.** The message being written is Markdown after the last entry, rendered by
//!   the completed message's rules one block at a time: a frame after a delta renders only the
//!   block being written ([`stream`]); the completed assistant entry replaces it without moving
//!   its rows. A retrying request shows as one dim row after it.
//! - **Cards.** Tool calls, folds of calls, subagents and thinking blocks are cards that open
//!   and close ([`cards`], [`cursor`]). Opening, closing, selecting or animating a card changes
//!   its entry's revision and re-measures that entry alone (a fold: its calls); a subagent's own
//!   entries live inside the view, never at the top level.

mod ansi;
mod block;
mod cache;
mod cards;
mod cursor;
pub mod cut_message;
mod entry_block;
pub use cut_message::CutMessage;
mod find;
mod fold;
mod layout;
mod question_card;
mod stream;
mod todos;

use std::collections::{BTreeSet, HashMap};

use codiva_protocol::log::{EntryKind, LogEntry};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::i18n::{AppText, ViewText, tf, tn};
use crate::theme::{self, glyph};
use crate::width::{byte_at_column, truncate};
use block::{Block, Look};
use cache::LineCache;
use fold::Fold;
use layout::HeightIndex;
use stream::{StreamRow, StreamText};

/// A piece of a link on screen (see [`LogView::visible_links`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibleLink {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub url: String,
}

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
    /// The "retrying" row at the end.
    Retry,
    /// The "↓ N more lines" status row.
    Status,
}

/// Where the top of the view is while scrolled up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// Row `row` of entry `id`'s block (its lines, then the gap row).
    Entry { id: u64, row: usize },
    /// Row `row` after the entries: the streaming text, then the retry row (a streaming row
    /// becomes the next entry's row when the stream completes into it).
    Stream { row: usize },
}

#[derive(Debug)]
struct Stored {
    entry: LogEntry,
    /// Unique across the view's life: a changed entry (or a change in how it looks) never
    /// matches a stale cached block.
    revision: u64,
    fold: Fold,
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
    /// Open cards, the card cursor, the spinner frame, the subagents.
    look: Look,
    /// Top-level entries that draw a spinner (ids).
    animated: BTreeSet<u64>,
    /// The `Agent`/`Task` call of each subagent: tool-use id → entry id.
    agent_calls: HashMap<String, u64>,
    /// The "retrying" row.
    retry: Option<String>,
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
            look: Look::default(),
            animated: BTreeSet::new(),
            agent_calls: HashMap::new(),
            retry: None,
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
        if self.stream.is_retired() {
            self.stream.clear();
        }
        let roles = fold::roles(entries.iter());
        self.agent_calls.clear();
        self.entries = entries
            .into_iter()
            .zip(roles)
            .map(|(entry, fold)| {
                note_agent_call(&mut self.agent_calls, &entry);
                let revision = self.bump();
                Stored {
                    entry,
                    revision,
                    fold,
                }
            })
            .collect();
        self.refresh_animated();
        self.settle_selection();
        self.cache.clear();
        self.reindex();
    }

    /// Appends `entry`, or replaces the entry with its id (an update may hit any entry).
    pub fn apply(&mut self, entry: LogEntry, update: bool) {
        let _ = update; // The id decides: a known id is replaced, a new one is added.
        note_agent_call(&mut self.agent_calls, &entry);
        self.follow_todo_call(entry.id, &entry.kind);
        match self.position(entry.id) {
            Ok(index) => {
                self.entries[index].entry = entry;
                self.refold_around(index);
                self.touch(index);
            }
            Err(index) if index == self.entries.len() => {
                let id = entry.id;
                if self.stream.is_retired() {
                    // The completed message (or what ended it) takes the retired rows' place.
                    self.stream.clear();
                }
                let revision = self.bump();
                self.entries.push(Stored {
                    entry,
                    revision,
                    fold: Fold::None,
                });
                if self.index_width > 0 {
                    self.index.push(0);
                }
                self.refold_around(index);
                self.touch(index);
                if let Anchor::Stream { row } = self.anchor
                    && self.stream.is_empty()
                {
                    // The streamed message completed into this entry: keep the same row.
                    self.anchor = Anchor::Entry { id, row };
                }
            }
            Err(index) => {
                let revision = self.bump();
                self.entries.insert(
                    index,
                    Stored {
                        entry,
                        revision,
                        fold: Fold::None,
                    },
                );
                let roles = fold::roles(self.entries.iter().map(|s| &s.entry));
                for (stored, role) in self.entries.iter_mut().zip(roles) {
                    if stored.fold != role {
                        stored.fold = role;
                        stored.revision = self.next_revision + 1;
                        self.next_revision += 1;
                    }
                }
                self.refresh_animated();
                self.settle_selection();
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

    /// The message being written is complete (or given up): its rows stay until the next
    /// entry, the next streaming text or a retry replaces them, so the frames between the
    /// session's reset and the completed entry (a large entry arrives later) show the same rows.
    pub fn reset_stream(&mut self) {
        self.stream.retire();
    }

    /// The rows of a message that was reset stay only until the entry it became: anything else
    /// that happens first (an interrupt's status, usage) means no entry comes, and they go (a
    /// client that attaches then never sees them, so one that watched does not either).
    pub fn drop_retired_stream(&mut self) {
        if self.stream.is_retired() {
            self.stream.clear();
        }
    }

    /// The streaming text (`""` once reset).
    pub fn streaming(&self) -> &str {
        if self.stream.is_retired() {
            ""
        } else {
            self.stream.text()
        }
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
            if self.index.height(index) == 0 {
                // A call folded away.
                index += 1;
                continue;
            }
            let stored = &self.entries[index];
            let (entries, look) = (&self.entries, &self.look);
            let block = self.cache.get_or_render(
                stored.entry.id,
                stored.revision,
                area.width,
                self.frame,
                || entry_block::block(entries, index, area.width, look),
            );
            let mut code = block
                .code
                .iter()
                .skip_while(|code| code.row < offset)
                .peekable();
            for (row, line) in block.lines.iter().enumerate().skip(offset) {
                if y == view.rows {
                    break;
                }
                // A code row: painted by the highlighter once its block is done.
                let painted = match code.next_if(|code| code.row == row) {
                    Some(code) => crate::markdown::restyle(line, code),
                    None => None,
                };
                crate::width::set_line(
                    buf,
                    area.x,
                    area.y + row16(y),
                    painted.as_ref().unwrap_or(line),
                    area.width,
                );
                y += 1;
            }
            if block.gap {
                y += 1;
            }
            index += 1;
            offset = 0;
        }
        if index == self.entries.len() {
            let mut row = offset;
            while y < view.rows {
                let Some(line) = self.tail_line(row) else {
                    break;
                };
                crate::width::set_line(buf, area.x, area.y + row16(y), &line, area.width);
                y += 1;
                row += 1;
            }
        }
        if !view.following {
            let status = Line::from(Span::styled(status_text(view.below), theme::accent()));
            crate::width::set_line(buf, area.x, area.bottom() - 1, &status, area.width);
        }
        self.cache.trim(self.frame);
    }

    /// Row `row` after the entries: the streaming text, then the retry row.
    fn tail_line(&self, row: usize) -> Option<Line<'static>> {
        match self.stream.row(row) {
            Some(StreamRow::Text(line)) => return Some(line.clone()),
            Some(StreamRow::Hidden(bytes)) => {
                return Some(Line::from(Span::styled(hidden_text(bytes), theme::dim())));
            }
            None => {}
        }
        let retry = self.retry.as_ref().filter(|_| row == self.stream.rows())?;
        let width = usize::from(self.index_width.max(1));
        Some(Line::from(Span::styled(
            truncate(retry, width),
            theme::dim(),
        )))
    }

    /// Rows after the entries: the streaming text and the retry row.
    fn tail_rows(&self) -> usize {
        self.stream.rows() + usize::from(self.retry.is_some())
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
        let entries: usize = (0..self.entries.len())
            .map(|index| entry_block::height(&self.entries, index, width, &self.look))
            .sum();
        let mut tail = usize::from(self.retry.is_some());
        tail += self.stream.rows_at(width);
        trailing(entries, tail, self.entries.len())
    }

    /// What is drawn at (`column`, `row`) in `area`, with the layout of the last frame drawn in
    /// an area of that width (`None` outside the area, below the content, or at a width not
    /// drawn yet).
    /// The URL under a cell (a link in a completed message), with the same layout as `render`:
    /// every row of a link that wraps answers with the whole URL.
    pub fn link_at(&self, area: Rect, column: u16, row: u16) -> Option<String> {
        self.visible_links(area)
            .into_iter()
            .find(|link| link.y == row && (link.x..link.x + link.width).contains(&column))
            .map(|link| link.url)
    }

    /// The links on screen (for OSC 8 hyperlinks and clicks): one per row piece.
    pub fn visible_links(&self, area: Rect) -> Vec<VisibleLink> {
        if area.width != self.index_width || area.height == 0 {
            return Vec::new();
        }
        let height = usize::from(area.height);
        let view = self.viewport(height);
        let mut links = Vec::new();
        for y in 0..view.rows.min(height) {
            if view.top + y >= self.total() {
                break;
            }
            let (index, offset) = self.index.find(view.top + y);
            let Some(stored) = self.entries.get(index) else {
                continue;
            };
            let built;
            let block = match self
                .cache
                .peek(stored.entry.id, stored.revision, area.width)
            {
                Some(block) => block,
                None => {
                    built = entry_block::block(&self.entries, index, area.width, &self.look);
                    &built
                }
            };
            for link in block.links.iter().filter(|link| link.row == offset) {
                let x = area.x + link.start_col;
                if x >= area.right() {
                    continue;
                }
                links.push(VisibleLink {
                    x,
                    y: area.y + u16::try_from(y).unwrap_or(0),
                    width: link.end_col.min(area.width).saturating_sub(link.start_col),
                    url: link.url.clone(),
                });
            }
        }
        links
    }

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
                        Some(block) => block.lines.get(offset).map(line_text),
                        None => entry_block::block(&self.entries, index, area.width, &self.look)
                            .lines
                            .get(offset)
                            .map(line_text),
                    };
                    match line {
                        Some(text) => (RowPlace::Entry { id, row: offset }, text),
                        None => (RowPlace::Gap { after: id }, String::new()),
                    }
                }
                None => {
                    let text = line_text(&self.tail_line(offset)?);
                    if offset < self.stream.rows() {
                        (RowPlace::Stream { row: offset }, text)
                    } else {
                        (RowPlace::Retry, text)
                    }
                }
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

    /// Block height of entry `index` at the index width; its block goes to the cache, as the
    /// entry is probably about to be drawn.
    fn measure(&mut self, index: usize) -> usize {
        let width = self.index_width;
        if self.folded_away(index) {
            return 0;
        }
        let (entries, look) = (&self.entries, &self.look);
        let stored = &entries[index];
        self.cache
            .get_or_render(stored.entry.id, stored.revision, width, self.frame, || {
                entry_block::block(entries, index, width, look)
            })
            .height()
    }

    /// The block of entry `index` at the index width (cached).
    fn block(&mut self, index: usize) -> &Block {
        let width = self.index_width;
        let (entries, look) = (&self.entries, &self.look);
        let stored = &entries[index];
        self.cache
            .get_or_render(stored.entry.id, stored.revision, width, self.frame, || {
                entry_block::block(entries, index, width, look)
            })
    }

    /// A call inside a closed fold (it draws nothing).
    fn folded_away(&self, index: usize) -> bool {
        matches!(self.entries[index].fold, Fold::Member { head, .. }
            if !self.look.is_open(block::CardKey::Fold(head)))
    }

    /// Entry `index` looks different: a new revision, and its height measured again.
    fn touch(&mut self, index: usize) {
        let revision = self.bump();
        let stored = &mut self.entries[index];
        stored.revision = revision;
        if cards::animated(&stored.entry, &self.look) {
            self.animated.insert(stored.entry.id);
        } else {
            self.animated.remove(&stored.entry.id);
        }
        if self.index_width > 0 {
            let height = self.measure(index);
            self.index.set(index, height);
        }
    }

    fn refresh_animated(&mut self) {
        self.animated = self
            .entries
            .iter()
            .filter(|s| cards::animated(&s.entry, &self.look))
            .map(|s| s.entry.id)
            .collect();
    }

    /// Recomputes the folds around entry `index` (the stretch of calls it is in or between)
    /// after it changed or arrived; entries whose part changed, and the heads of folds that
    /// may show it, are touched (`index` itself is the caller's).
    fn refold_around(&mut self, index: usize) {
        let foldable = |i: usize| fold::foldable(&self.entries[i].entry);
        let mut lo = index;
        while lo > 0 && foldable(lo - 1) {
            lo -= 1;
        }
        let mut hi = index + 1;
        while hi < self.entries.len() && foldable(hi) {
            hi += 1;
        }
        let inside = foldable(index);
        let roles = fold::roles(self.entries[lo..hi].iter().map(|s| &s.entry));
        let mut touched = Vec::new();
        for (k, role) in roles.into_iter().enumerate() {
            let i = lo + k;
            let stored = &mut self.entries[i];
            let changed = stored.fold != role;
            stored.fold = role;
            if i != index && (changed || (inside && matches!(role, Fold::Head { .. }))) {
                touched.push(i);
            }
        }
        // Every part is settled before any is drawn: a head draws its members.
        for i in touched {
            self.touch(i);
        }
        self.settle_selection();
    }

    fn set_width(&mut self, width: u16) {
        if width != self.index_width {
            self.index_width = width;
            self.reindex();
        }
        self.stream.set_width(width);
        self.stream.prepare();
    }

    /// Measures every entry at the index width (a width change, a load). An entry that has to
    /// be drawn to be measured (a message: its Markdown) is kept in the cache while there is
    /// room, the newest first (the tail is what a view following it draws next): otherwise the
    /// first frame after a load drew those entries twice.
    fn reindex(&mut self) {
        let width = self.index_width;
        if width == 0 {
            return;
        }
        let mut heights = vec![0; self.entries.len()];
        for index in (0..self.entries.len()).rev() {
            let s = &self.entries[index];
            let (id, revision) = (s.entry.id, s.revision);
            heights[index] = match self.cache.peek(id, revision, width) {
                Some(block) => block.height(),
                None => match entry_block::measure(&self.entries, index, width, &self.look) {
                    Ok(rows) => rows,
                    Err(block) => {
                        let rows = block.height();
                        if self.cache.has_room(block.lines.len()) {
                            self.cache
                                .get_or_render(id, revision, width, self.frame, || block);
                        }
                        rows
                    }
                },
            };
        }
        self.index = HeightIndex::from_heights(heights);
    }

    /// All rows at the index width.
    fn total(&self) -> usize {
        trailing(self.index.total(), self.tail_rows(), self.entries.len())
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
                self.index.total() + row.min(self.tail_rows().saturating_sub(1))
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

/// All rows: the entries' blocks and the rows after them (streaming text, retry row); without
/// rows after them the last entry's gap row is not shown.
fn trailing(entry_rows: usize, tail_rows: usize, entries: usize) -> usize {
    if tail_rows == 0 && entries > 0 {
        entry_rows.saturating_sub(1)
    } else {
        entry_rows + tail_rows
    }
}

/// Remembers which entry is the `Agent`/`Task` call of a subagent.
fn note_agent_call(calls: &mut HashMap<String, u64>, entry: &LogEntry) {
    if let EntryKind::Tool(tool) = &entry.kind
        && cards::is_agent(tool)
    {
        calls.insert(tool.tool_use_id.clone(), entry.id);
    }
}

fn status_text(below: usize) -> String {
    let more = tn(below, AppText::MoreLineBelow, AppText::MoreLinesBelow, &[]);
    format!("{} {more}", glyph::MORE_BELOW)
}

/// The first row of a streaming reply longer than the memory cap (the completed message's
/// first row says the same and that Enter opens it all).
fn hidden_text(bytes: usize) -> String {
    tf(ViewText::StreamHidden, &[&cut_message::byte_size(bytes)])
}

fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn row16(row: usize) -> u16 {
    u16::try_from(row).unwrap_or(u16::MAX)
}

#[cfg(test)]
#[path = "log_view_tests.rs"]
mod tests;
