//! The height index: how many rows each entry takes at one width, as a Fenwick tree, so that
//! the row where an entry starts and the entry at a given row are found in O(log n), and an
//! append or an update costs O(log n) too. It keeps only heights, never lines.

/// Heights of the entries (in log order) at one width.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeightIndex {
    heights: Vec<usize>,
    /// Fenwick tree over `heights`: `tree[i - 1]` holds the sum of `heights[i - lowbit(i)..i]`.
    tree: Vec<usize>,
}

fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}

impl HeightIndex {
    /// Builds the index in O(n).
    pub(crate) fn from_heights(heights: Vec<usize>) -> Self {
        let mut tree = heights.clone();
        for i in 1..=tree.len() {
            let parent = i + lowbit(i);
            if parent <= tree.len() {
                tree[parent - 1] = tree[parent - 1].wrapping_add(tree[i - 1]);
            }
        }
        HeightIndex { heights, tree }
    }

    pub(crate) fn height(&self, index: usize) -> usize {
        self.heights.get(index).copied().unwrap_or(0)
    }

    /// Appends the height of a new last entry.
    pub(crate) fn push(&mut self, height: usize) {
        let i = self.heights.len() + 1;
        // The new node covers `heights[i - lowbit(i)..i]`: the new value plus what came before.
        let node = height
            .wrapping_add(self.prefix(i - 1))
            .wrapping_sub(self.prefix(i - lowbit(i)));
        self.heights.push(height);
        self.tree.push(node);
    }

    /// Changes the height of entry `index`.
    pub(crate) fn set(&mut self, index: usize, height: usize) {
        let Some(old) = self.heights.get_mut(index) else {
            return;
        };
        let delta = height.wrapping_sub(*old);
        *old = height;
        let mut i = index + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1].wrapping_add(delta);
            i += lowbit(i);
        }
    }

    /// Rows taken by the first `count` entries: the row where entry `count` starts.
    pub(crate) fn prefix(&self, count: usize) -> usize {
        let mut i = count.min(self.tree.len());
        let mut sum = 0usize;
        while i > 0 {
            sum = sum.wrapping_add(self.tree[i - 1]);
            i -= lowbit(i);
        }
        sum
    }

    /// All rows.
    pub(crate) fn total(&self) -> usize {
        self.prefix(self.tree.len())
    }

    /// The entry covering row `row` and the row inside it; `(len, row - total)` past the end.
    pub(crate) fn find(&self, row: usize) -> (usize, usize) {
        let mut position = 0;
        let mut remaining = row;
        let mut step = self.tree.len().checked_ilog2().map_or(0, |log| 1 << log);
        while step > 0 {
            let next = position + step;
            if next <= self.tree.len() && self.tree[next - 1] <= remaining {
                position = next;
                remaining -= self.tree[next - 1];
            }
            step >>= 1;
        }
        (position, remaining)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_find_push_and_set_agree_with_a_plain_sum() {
        let mut heights: Vec<usize> = (0..37).map(|i| 1 + (i * 7) % 5).collect();
        let mut index = HeightIndex::from_heights(heights[..20].to_vec());
        for &h in &heights[20..] {
            index.push(h);
        }
        index.set(3, 9);
        heights[3] = 9;
        index.set(36, 1);
        heights[36] = 1;
        let mut start = 0;
        for (i, &h) in heights.iter().enumerate() {
            assert_eq!(index.prefix(i), start);
            for r in 0..h {
                assert_eq!(index.find(start + r), (i, r));
            }
            start += h;
        }
        assert_eq!(index.total(), start);
        assert_eq!(index.find(start + 2), (heights.len(), 2));
        assert_eq!(HeightIndex::default().find(4), (0, 4));
    }
}
