//! Frames that scroll: when a band of rows moved up (the log's tail following a reply), the
//! terminal is asked to move them itself (a scroll region, DECSTBM, and `CSI n S`) and only what
//! differs after the move is written, instead of every cell of every moved row.
//!
//! ratatui diffs each frame against its previous one, cell by cell, and keeps that buffer to
//! itself; [`Screen`] keeps its own copy of what the terminal shows (the previous frame with
//! the cells the last frame wrote), finds a shift that most changed rows share, and rewrites the
//! frame's cells as: the scroll, then the diff against the scrolled screen. Rows are compared by
//! a hash first and then cell by cell, so a scroll is only used where the rows are equal.

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
    /// The next frame, built here (kept to reuse its allocation).
    next: Buffer,
    next_hashes: Vec<u64>,
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
            next: shown.clone(),
            next_hashes: Vec::new(),
            shown,
            hashes,
        }
    }

    pub(super) fn area(&self) -> Rect {
        self.shown.area
    }

    /// Takes a frame's cells (ratatui's diff against the screen). Returns the scroll to do
    /// first and the cells to write after it, or `None` when the cells are best written as
    /// they are; either way the screen is then the frame. Most frames do not scroll (or move
    /// by more than the screen): for them this costs a hash of each changed row, not a copy.
    pub(super) fn frame<'a>(
        &'a mut self,
        updates: &[(u16, u16, &Cell)],
    ) -> Option<(Scroll, Cells<'a>)> {
        let area = self.shown.area;
        let width = usize::from(area.width);
        let height = usize::from(area.height);
        let mut changed = vec![false; height];
        for &(_, y, _) in updates {
            if let Some(row) = changed.get_mut(usize::from(y.wrapping_sub(area.y))) {
                *row = true;
            }
        }
        // The frame's row hashes: the screen's, with the cells of each changed row replaced.
        self.next_hashes.clone_from(&self.hashes);
        let mut at = 0;
        for (row, _) in changed.iter().enumerate().filter(|(_, c)| **c) {
            let y = area.y + row as u16;
            let mut hasher = RowHasher::default();
            for x in 0..area.width {
                while updates
                    .get(at)
                    .is_some_and(|&(ux, uy, _)| (uy, ux) < (y, x))
                {
                    at += 1;
                }
                match updates.get(at) {
                    Some(&(ux, uy, cell)) if (ux, uy) == (x, y) => hasher.cell(cell),
                    _ => hasher.cell(&self.shown.content[row * width + usize::from(x - area.x)]),
                }
            }
            self.next_hashes[row] = hasher.0;
        }
        let scroll = if changed.iter().filter(|c| **c).count() >= MIN_ROWS {
            self.find_shift(&changed)
        } else {
            None
        };
        let Some(n) = scroll else {
            self.take_in_place(updates);
            return None;
        };
        // A shift most changed rows share: build the frame and check the rows cell by cell.
        self.next.content.clone_from(&self.shown.content);
        for &(x, y, cell) in updates {
            if let Some(target) = self.next.cell_mut((x, y)) {
                *target = cell.clone();
            }
        }
        let Some(scroll) = self.band(n) else {
            std::mem::swap(&mut self.shown, &mut self.next);
            std::mem::swap(&mut self.hashes, &mut self.next_hashes);
            return None;
        };
        self.apply(scroll);
        Some((scroll, self.shown.diff(&self.next)))
    }

    /// The frame's cells written as they are: the screen takes them.
    fn take_in_place(&mut self, updates: &[(u16, u16, &Cell)]) {
        for &(x, y, cell) in updates {
            if let Some(target) = self.shown.cell_mut((x, y)) {
                *target = cell.clone();
            }
        }
        std::mem::swap(&mut self.hashes, &mut self.next_hashes);
    }

    /// After the cells of a [`Screen::frame`] that scrolled were written: the screen is the frame.
    pub(super) fn settle(&mut self) {
        std::mem::swap(&mut self.shown, &mut self.next);
        std::mem::swap(&mut self.hashes, &mut self.next_hashes);
    }

    /// The shift most changed non-blank rows share with a row further down the screen (by
    /// their hashes), if at least half of them do.
    fn find_shift(&self, changed: &[bool]) -> Option<usize> {
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

    /// The longest run of rows that are, moved up by `n`, what the frame (`next`) wants there,
    /// compared cell by cell; at least two rows.
    fn band(&self, n: usize) -> Option<Scroll> {
        let height = usize::from(self.shown.area.height);
        let moved = |y: usize| {
            self.hashes[y + n] == self.next_hashes[y]
                && self.shown.content[self.row(y + n)] == self.next.content[self.row(y)]
        };
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

    /// Moves rows of `shown` as the terminal does for `scroll`.
    fn apply(&mut self, scroll: Scroll) {
        let width = usize::from(self.shown.area.width);
        let top = usize::from(scroll.top - self.shown.area.y);
        let bottom = usize::from(scroll.bottom - self.shown.area.y);
        let n = usize::from(scroll.n);
        let band = &mut self.shown.content[top * width..(bottom + 1) * width];
        band.rotate_left(n * width);
        let fresh = band.len() - n * width;
        for cell in &mut band[fresh..] {
            *cell = Cell::EMPTY;
        }
        self.hashes[top..=bottom].rotate_left(n);
        let blank = blank_hash(self.shown.area.width);
        for hash in &mut self.hashes[bottom + 1 - n..=bottom] {
            *hash = blank;
        }
    }

    fn row(&self, y: usize) -> std::ops::Range<usize> {
        let width = usize::from(self.shown.area.width);
        y * width..(y + 1) * width
    }
}

fn row_hash(buffer: &Buffer, row: u16) -> u64 {
    let width = usize::from(buffer.area.width);
    let start = usize::from(row) * width;
    let mut hasher = RowHasher::default();
    for cell in &buffer.content[start..start + width] {
        hasher.cell(cell);
    }
    hasher.0
}

fn blank_hash(width: u16) -> u64 {
    let mut hasher = RowHasher::default();
    for _ in 0..width {
        hasher.cell(&Cell::EMPTY);
    }
    hasher.0
}

/// A quick hash of a row's symbols (rustc's Fx step). Rows it finds alike are compared cell by
/// cell (styles included) before anything scrolls, so it may ignore the styles.
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
