//! One side of the native buckets a scrape keeps: the non-empty buckets by ascending index.
//!
//! A sorted vector rather than a map. It holds at most about the bucket limit of entries (160
//! by default); a drain mostly adds to buckets it already has (a binary search and an add),
//! and every scrape reads it whole, in order, to build its snapshot, which is then a copy of
//! one slice. A `BTreeMap` made that read a pointer walk over several nodes per series and a
//! drain's new bucket a node allocation.

/// Non-empty buckets `(index, count)`, sorted by index, each index once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct NativeBuckets(Vec<(i32, u64)>);

impl NativeBuckets {
    /// Adds `count` observations to bucket `index`, making it if it is new.
    pub(super) fn add(&mut self, index: i32, count: u64) {
        match self.0.binary_search_by_key(&index, |&(at, _)| at) {
            Ok(found) => {
                let total = &mut self.0[found].1;
                *total = total.wrapping_add(count);
            }
            Err(slot) => self.0.insert(slot, (index, count)),
        }
    }

    /// The buckets, by ascending index.
    pub(super) fn as_slice(&self) -> &[(i32, u64)] {
        &self.0
    }

    /// How many buckets are non-empty.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// The lowest index, if any bucket is non-empty.
    pub(super) fn lowest(&self) -> Option<i32> {
        self.0.first().map(|&(index, _)| index)
    }

    /// The observations in every bucket.
    #[cfg(test)]
    pub(super) fn observations(&self) -> u64 {
        self.0
            .iter()
            .fold(0u64, |total, &(_, count)| total.wrapping_add(count))
    }

    /// Moves every bucket to `new_index(index)`, adding up those that land on the same one.
    /// `new_index` must never decrease as `index` grows (lowering the resolution does not: it
    /// merges neighbours), which keeps the order, so this is one pass in place.
    pub(super) fn reindex(&mut self, new_index: impl Fn(i32) -> i32) {
        let mut kept = 0usize;
        for read in 0..self.0.len() {
            let (index, count) = self.0[read];
            let index = new_index(index);
            if kept > 0 && self.0[kept - 1].0 == index {
                let total = &mut self.0[kept - 1].1;
                *total = total.wrapping_add(count);
            } else {
                self.0[kept] = (index, count);
                kept += 1;
            }
        }
        self.0.truncate(kept);
    }

    /// Removes the buckets `remove` says to, returning the observations they held.
    pub(super) fn remove_where(&mut self, remove: impl Fn(i32) -> bool) -> u64 {
        let mut removed = 0u64;
        self.0.retain(|&(index, count)| {
            let gone = remove(index);
            if gone {
                removed = removed.wrapping_add(count);
            }
            !gone
        });
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::NativeBuckets;
    use std::collections::BTreeMap;

    /// The same adds, in a scattered order, as a map of the buckets.
    #[test]
    fn adds_in_any_order_keep_the_buckets_sorted_and_summed_like_a_map() {
        let mut buckets = NativeBuckets::default();
        let mut expected = BTreeMap::new();
        for i in 0..500i32 {
            let index = (i * 37) % 101 - 50;
            let count = (i % 7 + 1) as u64;
            buckets.add(index, count);
            *expected.entry(index).or_insert(0u64) += count;
        }
        let expected: Vec<_> = expected.into_iter().collect();
        assert_eq!(buckets.as_slice(), &expected[..]);
        assert_eq!(buckets.len(), 101);
        assert_eq!(buckets.lowest(), Some(-50));
        let total: u64 = expected.iter().map(|&(_, n)| n).sum();
        assert_eq!(buckets.observations(), total);
    }

    #[test]
    fn a_reindex_merges_the_buckets_that_land_together_and_keeps_the_rest() {
        let mut buckets = NativeBuckets::default();
        for (index, count) in [(-3, 1), (-2, 2), (1, 4), (2, 8), (3, 16), (7, 32)] {
            buckets.add(index, count);
        }
        // Halving: `2j - 1` and `2j` become `j`.
        buckets.reindex(|index| (index >> 1) + (index & 1));
        assert_eq!(buckets.as_slice(), &[(-1, 3), (1, 12), (2, 16), (4, 32)]);
        // A map that merges nothing changes nothing.
        let before = buckets.clone();
        buckets.reindex(|index| index);
        assert_eq!(buckets, before);
        // Everything into one bucket.
        buckets.reindex(|_| 0);
        assert_eq!(buckets.as_slice(), &[(0, 63)]);
    }

    #[test]
    fn removing_buckets_returns_what_they_held() {
        let mut buckets = NativeBuckets::default();
        for index in -2..=2 {
            buckets.add(index, (10 + index) as u64);
        }
        assert_eq!(buckets.remove_where(|index| index <= 0), 8 + 9 + 10);
        assert_eq!(buckets.as_slice(), &[(1, 11), (2, 12)]);
        assert_eq!(buckets.remove_where(|_| false), 0);
    }
}
