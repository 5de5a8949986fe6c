//! The rendered blocks of recently drawn entries, keyed by entry id and valid for one
//! (revision, width). Bounded by a soft budget of rows: when over it, the entries used longest
//! ago go first, but never one drawn in the current frame (evicting what the frame is about to
//! draw would re-render everything every frame).

use std::collections::HashMap;

use super::block::Block;

/// Rows kept across frames (soft: a frame that shows more keeps what it shows).
pub(crate) const MAX_CACHED_ROWS: usize = 8_000;
/// Entries kept across frames.
pub(crate) const MAX_CACHED_ENTRIES: usize = 2_000;

#[derive(Debug)]
struct Cached {
    revision: u64,
    width: u16,
    block: Block,
    /// The frame that last used this block.
    used: u64,
}

#[derive(Debug, Default)]
pub(crate) struct LineCache {
    entries: HashMap<u64, Cached>,
    rows: usize,
}

impl LineCache {
    /// The cached block of entry `id` if it is for `revision` and `width`.
    pub(crate) fn peek(&self, id: u64, revision: u64, width: u16) -> Option<&Block> {
        self.entries
            .get(&id)
            .filter(|c| c.revision == revision && c.width == width)
            .map(|c| &c.block)
    }

    /// The block of entry `id`, rendered by `render` when they are missing or stale; marks them
    /// used in `frame`.
    pub(crate) fn get_or_render(
        &mut self,
        id: u64,
        revision: u64,
        width: u16,
        frame: u64,
        render: impl FnOnce() -> Block,
    ) -> &Block {
        let cached = self.entries.entry(id).or_insert_with(|| Cached {
            revision: 0,
            width: 0,
            block: Block::default(),
            used: frame,
        });
        if cached.revision != revision || cached.width != width {
            let block = render();
            self.rows = (self.rows + block.lines.len()).saturating_sub(cached.block.lines.len());
            *cached = Cached {
                revision,
                width,
                block,
                used: frame,
            };
        }
        cached.used = cached.used.max(frame);
        &cached.block
    }

    /// Whether a block of `rows` more fits in the budget (a block measured anyway is kept
    /// only then).
    pub(crate) fn has_room(&self, rows: usize) -> bool {
        self.rows + rows <= MAX_CACHED_ROWS && self.entries.len() < MAX_CACHED_ENTRIES
    }

    /// Drops entry `id` (it changed or went away).
    pub(crate) fn remove(&mut self, id: u64) {
        if let Some(old) = self.entries.remove(&id) {
            self.rows = self.rows.saturating_sub(old.block.lines.len());
        }
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.rows = 0;
    }

    /// Brings the cache back under budget (to three quarters of it, so that a cache at the
    /// limit does not sort on every frame), keeping everything used in `frame`.
    pub(crate) fn trim(&mut self, frame: u64) {
        if self.rows <= MAX_CACHED_ROWS && self.entries.len() <= MAX_CACHED_ENTRIES {
            return;
        }
        let mut old: Vec<(u64, u64)> = self
            .entries
            .iter()
            .filter(|(_, c)| c.used < frame)
            .map(|(&id, c)| (c.used, id))
            .collect();
        old.sort_unstable();
        for (_, id) in old {
            if self.rows <= MAX_CACHED_ROWS * 3 / 4
                && self.entries.len() <= MAX_CACHED_ENTRIES * 3 / 4
            {
                break;
            }
            self.remove(id);
        }
    }

    #[cfg(test)]
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}
