//! The cells of a histogram, one block per *shard*: a thread records into the block its
//! thread number selects, so threads observing into the same histogram update different cache
//! lines, and no two histograms ever share a line.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::bucket_lookup::{linear_index, BucketLookup};

pub(super) struct HistogramCore {
    /// Finite, strictly increasing upper bounds; the `+Inf` bucket is implicit.
    pub(super) bounds: Box<[f64]>,
    /// The bucket search of merged batches, when the bounds suit it (every vLLM list does).
    pub(super) lookup: Option<Arc<BucketLookup>>,
    /// `shard_count()` blocks of `lines_per_shard` lines. In each block, cell 0 holds the sum of
    /// the shard's finite observations (as `f64::to_bits`), and cells `1..=bounds.len() + 1`
    /// its non-cumulative bucket counts, the last one being `+Inf`; `observe` adds to them with
    /// atomic read-modify-writes. From cell [`merged`](Self::merged) on, the block has a second
    /// area for merged batches: a flag, a sum and the bucket counts, written only by the
    /// merge holding the flag (see [`merge`](Self::merge)). The histogram's state is the total
    /// of both areas of every shard.
    pub(super) lines: Box<[Line]>,
    pub(super) lines_per_shard: usize,
    /// The first cell of each block's merge area (its flag).
    pub(super) merged: usize,
    /// `shard_count() - 1` (a power of two minus one): masks a thread index into a shard.
    pub(super) shard_mask: usize,
}

/// Cells per [`Line`].
pub(super) const CELLS_PER_LINE: usize = 16;

/// 128 bytes, aligned to 128: two cache lines, because adjacent-line prefetchers move lines in
/// pairs, so a line's neighbour counts as shared too (crossbeam's `CachePadded` does the same).
#[repr(align(128))]
pub(super) struct Line([AtomicU64; CELLS_PER_LINE]);

impl Line {
    pub(super) fn zeroed() -> Self {
        Line(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// The most shards a histogram has: enough to keep common core counts apart, bounded so that
/// a histogram's memory stays small on a very large machine.
pub(super) const MAX_SHARDS: usize = 16;

/// Shards per histogram: the machine's parallelism rounded up to a power of two, at most
/// [`MAX_SHARDS`]. Computed once (it may read cgroup files).
pub(super) fn shard_count() -> usize {
    static SHARDS: OnceLock<usize> = OnceLock::new();
    *SHARDS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .next_power_of_two()
            .min(MAX_SHARDS)
    })
}

/// A per-thread number, handed out in the order threads first record (masked into a shard
/// by the caller): consecutive threads get consecutive numbers, so with as many shards as
/// cores, the busy threads of a runtime land on different shards.
#[inline]
pub(super) fn thread_index() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static INDEX: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    // `try_with` cannot fail for a `const`-initialised `Cell` (it has no destructor); the
    // fallback keeps `observe` panic-free regardless.
    INDEX
        .try_with(|index| {
            let current = index.get();
            if current != usize::MAX {
                return current;
            }
            // Never `usize::MAX` in practice: that would take 2^64 threads.
            let assigned = NEXT.fetch_add(1, Ordering::Relaxed);
            index.set(assigned);
            assigned
        })
        .unwrap_or(0)
}

impl HistogramCore {
    /// Cell `cell` of shard `shard`'s block (0: the sum; `1 + i`: bucket `i`).
    #[inline]
    pub(super) fn cell(&self, shard: usize, cell: usize) -> Option<&AtomicU64> {
        let line = self
            .lines
            .get(shard * self.lines_per_shard + cell / CELLS_PER_LINE)?;
        line.0.get(cell % CELLS_PER_LINE)
    }

    /// Applies `add` to each cell of shard `shard`'s block from cell `first` on, paired with
    /// `counts` in order. Line by line, with slices, so that a cell costs no division and no
    /// bounds check.
    #[inline]
    pub(super) fn add_counts(
        &self,
        shard: usize,
        first: usize,
        mut counts: &[u32],
        add: impl Fn(&AtomicU64, u64),
    ) {
        let block = shard * self.lines_per_shard;
        let lines = self
            .lines
            .get(block + first / CELLS_PER_LINE..block + self.lines_per_shard)
            .unwrap_or(&[]);
        let mut skip = first % CELLS_PER_LINE;
        for line in lines {
            let cells = line.0.get(skip..).unwrap_or(&[]);
            let n = cells.len().min(counts.len());
            let (now, rest) = counts.split_at(n);
            for (cell, &count) in cells.iter().zip(now) {
                add(cell, u64::from(count));
            }
            counts = rest;
            if counts.is_empty() {
                return;
            }
            skip = 0;
        }
    }

    /// Index of the first bucket whose upper bound is `>= value` (see
    /// [`bucket_lookup::linear_index`](super::bucket_lookup::linear_index)).
    #[inline]
    pub(super) fn bucket_index(&self, value: f64) -> usize {
        linear_index(&self.bounds, value)
    }
}
