//! Frames that scroll: when a band of rows moved up (the log's tail following a reply), the
//! terminal is asked to move them itself (a scroll region, DECSTBM, and `CSI n S`) and only what
//! differs after the move is written, instead of every cell of every moved row.
//!
//! In full screen the frame is not diffed by ratatui (every cell against its previous frame,
//! then handed over to be compared again): [`Screen`] keeps what the terminal shows, compares
//! each row of the frame with it once, hashes the rows that differ to find a shift that most of
//! them share, and gives the frame's cells as: the scroll, then the cells that differ from the
//! scrolled screen. The scroll is chosen by the rows' hashes alone: what differs after it is
//! found cell by cell all the same, so rows a hash took for equal cost bytes, never a wrong
//! screen. The frame's buffer then becomes the screen (a swap, not a copy).

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;

/// A frame that changes fewer rows than this is written as it is (a scroll saves nothing).
const MIN_ROWS: usize = 3;

/// A frame's cells: column, row, cell.
pub(super) type Cells<'a> = Vec<(u16, u16, &'a Cell)>;

/// The terminal's screen as the frames left it.
pub(super) struct Screen {
    shown: Buffer,
    /// A hash of each row of `shown`.
    hashes: Vec<u64>,
    /// The frame's row hashes while it is presented.
    next_hashes: Vec<u64>,
    /// Which rows of the frame differ from the screen's.
    changed: Vec<bool>,
    /// A blank row (what the terminal shows in the rows a scroll brings in).
    blank: Vec<Cell>,
}

/// Rows `top..=bottom` (0-based) move up by `n`; the `n` rows at the bottom become blank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scroll {
    pub top: u16,
    pub bottom: u16,
    pub n: u16,
}

impl Scroll {
    /// The escape sequence: reset the colours (new rows take the current background), set the
    /// region, scroll it, and give the whole screen back (DECSTBM also homes the cursor; the
    /// frame's cells are placed by position after it).
    pub(super) fn sequence(self) -> String {
        format!(
            "\x1b[0m\x1b[{};{}r\x1b[{}S\x1b[r",
            self.top + 1,
            self.bottom + 1,
            self.n
        )
    }
}

impl Screen {
    /// A blank screen of `area` (after a clear, or before the first frame).
    pub(super) fn blank(area: Rect) -> Self {
        let shown = Buffer::empty(area);
        let hashes = (0..area.height).map(|y| row_hash(&shown, y)).collect();
        Screen {
            blank: vec![Cell::EMPTY; usize::from(area.width)],
            next_hashes: Vec::new(),
            changed: Vec::new(),
            shown,
            hashes,
        }
    }

    pub(super) fn area(&self) -> Rect {
        self.shown.area
    }

    /// What to write for the frame `next` (of this screen's area): the scroll to do first, if
    /// a band of rows moved up, and the cells that then differ (ratatui's rules for wide
    /// characters, [`diff_row`]). Each row is compared once; only rows that differ are hashed
    /// (to find a shift) and diffed cell by cell. [`Screen::settle`] after writing them.
    pub(super) fn present<'a>(&mut self, next: &'a Buffer) -> (Option<Scroll>, Cells<'a>) {
        debug_assert_eq!(next.area, self.shown.area, "a frame of the screen's size");
        let area = self.shown.area;
        let width = usize::from(area.width);
        let height = usize::from(area.height);
        self.next_hashes.clone_from(&self.hashes);
        self.changed.clear();
        self.changed.resize(height, false);
        let mut count = 0;
        for y in 0..height {
            let row = self.row(y);
            if !same_cells(&self.shown.content[row.clone()], &next.content[row.clone()]) {
                self.changed[y] = true;
                self.next_hashes[y] = hash_cells(&next.content[row]);
                count += 1;
            }
        }
        let scroll = if count >= MIN_ROWS {
            self.find_shift().and_then(|n| self.band(n))
        } else {
            None
        };
        let mut cells = Vec::new();
        for y in 0..height {
            // What the terminal shows in this row before the cells are written.
            let before: &[Cell] = match scroll {
                Some(s) if (usize::from(s.top)..=usize::from(s.bottom)).contains(&y) => {
                    let from = y + usize::from(s.n);
                    if from <= usize::from(s.bottom) {
                        &self.shown.content[self.row(from)]
                    } else {
                        &self.blank
                    }
                }
                _ if self.changed[y] => &self.shown.content[self.row(y)],
                _ => continue,
            };
            let y_at = area.y + y as u16;
            diff_row(
                before,
                &next.content[y * width..(y + 1) * width],
                area.x,
                y_at,
                &mut cells,
            );
        }
        (scroll, cells)
    }

    /// The cells [`Screen::present`] gave were written: the screen is the frame now. `next`
    /// gets the buffer the screen was kept in, blank, to draw the next frame in.
    pub(super) fn settle(&mut self, next: &mut Buffer) {
        std::mem::swap(&mut self.shown, next);
        std::mem::swap(&mut self.hashes, &mut self.next_hashes);
        next.reset();
    }

    /// Cells written by ratatui's own diff (a frame drawn outside [`Screen::present`]): the
    /// screen takes them.
    pub(super) fn take(&mut self, updates: &[(u16, u16, &Cell)]) {
        let top = self.shown.area.y;
        let mut rows: Vec<u16> = Vec::new();
        for &(x, y, cell) in updates {
            if let Some(target) = self.shown.cell_mut((x, y)) {
                *target = cell.clone();
                if rows.last() != Some(&y) {
                    rows.push(y);
                }
            }
        }
        for y in rows {
            let row = y - top;
            self.hashes[usize::from(row)] = row_hash(&self.shown, row);
        }
    }

    /// The shift most changed non-blank rows share with a row further down the screen (by
    /// their hashes), if at least half of them do.
    fn find_shift(&self) -> Option<usize> {
        let changed = &self.changed;
        let height = changed.len();
        let blank = blank_hash(self.shown.area.width);
        let mut votes = vec![0usize; height];
        let mut voters = 0;
        for y in (0..height).filter(|&y| changed[y] && self.next_hashes[y] != blank) {
            voters += 1;
            for (n, votes) in votes.iter_mut().enumerate().take(height - y).skip(1) {
                if self.hashes[y + n] == self.next_hashes[y] {
                    *votes += 1;
                }
            }
        }
        let (n, &best) = votes
            .iter()
            .enumerate()
            .max_by_key(|(n, v)| (**v, usize::MAX - n))?;
        // Half the changed rows at least (a scroll moves nearly all of them; text that repeats,
        // like a code fence, matches a few rows by chance).
        (best >= 2 && 2 * best >= voters).then_some(n)
    }

    /// The longest run of rows whose hashes say they are, moved up by `n`, what the frame wants
    /// there; at least two rows.
    fn band(&self, n: usize) -> Option<Scroll> {
        let height = usize::from(self.shown.area.height);
        let moved = |y: usize| self.hashes[y + n] == self.next_hashes[y];
        let mut best_run: Option<(usize, usize)> = None;
        let mut y = 0;
        while y + n < height {
            if !moved(y) {
                y += 1;
                continue;
            }
            let start = y;
            while y + n < height && moved(y) {
                y += 1;
            }
            if best_run.is_none_or(|(a, b)| y - start > b - a) {
                best_run = Some((start, y));
            }
        }
        let (start, end) = best_run?;
        if end - start < 2 {
            return None;
        }
        let top = self.shown.area.y;
        Some(Scroll {
            top: top + start as u16,
            bottom: top + (end - 1 + n) as u16,
            n: n as u16,
        })
    }

    fn row(&self, y: usize) -> std::ops::Range<usize> {
        let width = usize::from(self.shown.area.width);
        y * width..(y + 1) * width
    }
}

/// The cells of `next` (one row, at column `x`, row `y`) to write over `before`, by the rules
/// of ratatui's `BufferDiff`: an equal cell is not written, nor the cells a wide character
/// covers; a wide emoji presentation (VS16) also writes its trailing cells where they changed,
/// and a narrow cell that replaces a wider one with a visible background writes the cells the
/// old one covered (terminals leave them painted otherwise).
pub(super) fn diff_row<'a>(before: &[Cell], next: &'a [Cell], x: u16, y: u16, out: &mut Cells<'a>) {
    use ratatui::buffer::{CellDiffOption, CellWidth as _};
    use ratatui::style::{Color, Modifier};
    const VISIBLE_ON_BLANK: Modifier = Modifier::REVERSED
        .union(Modifier::UNDERLINED)
        .union(Modifier::SLOW_BLINK)
        .union(Modifier::RAPID_BLINK)
        .union(Modifier::CROSSED_OUT);
    #[allow(deprecated)]
    fn is_skip(cell: &Cell) -> bool {
        matches!(cell.diff_option, CellDiffOption::Skip)
            || (cell.skip && matches!(cell.diff_option, CellDiffOption::None))
    }
    let len = next.len().min(before.len());
    let at = |i: usize| x + i as u16;
    let mut i = 0;
    while i < len {
        let current = &next[i];
        let previous = &before[i];
        let index = i;
        i += 1;
        match current.diff_option {
            CellDiffOption::Skip => {}
            _ if is_skip(current) => {}
            CellDiffOption::ForcedWidth(width) => {
                i = i.saturating_add(usize::from(width.get().saturating_sub(1)));
                if !same_cell(current, previous) {
                    out.push((at(index), y, current));
                }
            }
            CellDiffOption::None | CellDiffOption::AlwaysUpdate => {
                let cell_width = usize::from(current.cell_width());
                if matches!(current.diff_option, CellDiffOption::None)
                    && same_cell(current, previous)
                {
                    i += cell_width.saturating_sub(1);
                    continue;
                }
                out.push((at(index), y, current));
                let previous_width = usize::from(previous.cell_width());
                let trailing = if cell_width > 1 && current.symbol().contains('\u{FE0F}') {
                    Some(((index + cell_width).min(len), false))
                } else if cell_width > 1 {
                    i += cell_width - 1;
                    None
                } else if previous_width > cell_width
                    && (previous.bg != Color::Reset
                        || previous.modifier.intersects(VISIBLE_ON_BLANK))
                {
                    Some(((index + previous_width).min(len), true))
                } else {
                    None
                };
                if let Some((mut end, force)) = trailing {
                    let mut j = index + 1;
                    while j < end {
                        let k = j;
                        j += usize::from(next[k].cell_width().max(1));
                        end = end.max(j).min(len);
                        if !is_skip(&next[k]) && (force || before[k].symbol() != next[k].symbol()) {
                            out.push((at(k), y, &next[k]));
                        }
                    }
                    i = end;
                }
            }
        }
    }
}

/// `a == b` for rows, cell by cell (see [`same_cell`]).
fn same_cells(a: &[Cell], b: &[Cell]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_cell(a, b))
}

/// `a == b` as ratatui's `Cell` defines it (a blank symbol equals a space), with the styles
/// first and a one-byte symbol compared as a byte: most of a frame's cells, which the generic
/// string comparison sent through `memcmp`.
#[allow(deprecated)]
pub(super) fn same_cell(a: &Cell, b: &Cell) -> bool {
    a.fg == b.fg
        && a.bg == b.bg
        && a.modifier == b.modifier
        && a.underline_color == b.underline_color
        && a.diff_option == b.diff_option
        && a.skip == b.skip
        && match (a.symbol().as_bytes(), b.symbol().as_bytes()) {
            ([a], [b]) => a == b,
            (a, b) => a == b,
        }
}

fn hash_cells(cells: &[Cell]) -> u64 {
    let mut hasher = RowHasher::default();
    for cell in cells {
        hasher.cell(cell);
    }
    hasher.0
}

fn row_hash(buffer: &Buffer, row: u16) -> u64 {
    let width = usize::from(buffer.area.width);
    let start = usize::from(row) * width;
    hash_cells(&buffer.content[start..start + width])
}

fn blank_hash(width: u16) -> u64 {
    let mut hasher = RowHasher::default();
    for _ in 0..width {
        hasher.cell(&Cell::EMPTY);
    }
    hasher.0
}

/// A quick hash of a row's symbols (rustc's Fx step). It ignores the styles: rows it takes for
/// alike only choose the scroll, and every cell that differs after it is written.
#[derive(Default)]
struct RowHasher(u64);

impl RowHasher {
    fn cell(&mut self, cell: &Cell) {
        let symbol = cell.symbol().as_bytes();
        let mut word = [0u8; 8];
        let take = symbol.len().min(7);
        word[..take].copy_from_slice(&symbol[..take]);
        word[7] = symbol.len() as u8;
        self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
            .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}
