//! The cells of a histogram, one block per *shard*: a thread records into the block its
//! thread number selects (`thread_shard.rs`), so threads observing into the same histogram update different cache
//! lines, and no two histograms ever share a line.

use std::sync::Arc;

use super::bucket_lookup::{linear_index, BucketLookup};
use super::exemplars::HistogramExemplars;
use super::native_state::{NativeCore, NativeScrape};
use super::sync::{AtomicU64, Mutex, Ordering};

pub(super) struct HistogramCore {
    /// Finite, strictly increasing upper bounds; the `+Inf` bucket is implicit.
    pub(super) bounds: Box<[f64]>,
    /// The bucket search of observations and merged batches, when the bounds suit it (every
    /// vLLM list does).
    pub(super) lookup: Option<Arc<BucketLookup>>,
    /// `shard_count()` blocks of `lines_per_shard` lines (see [`Layout`]).
    pub(super) lines: Box<[Line]>,
    pub(super) lines_per_shard: usize,
    pub(super) layout: Layout,
    /// `shard_count() - 1` (a power of two minus one): masks a thread index into a shard.
    pub(super) shard_mask: usize,
    /// What scrapes know between them; held by one scrape at a time, never by a recorder.
    pub(super) scrape: Mutex<ScrapeState>,
    /// The native buckets' record side, for a histogram that has them.
    pub(super) native: Option<Box<NativeCore>>,
    /// A native-only histogram (native buckets, no classic bound): a record's native bucket
    /// count is its last write, released, and stands for its `+Inf` count, which then holds
    /// only what no native table took (nothing, as every value has a native bucket, NaN that
    /// of +Inf). One locked instruction fewer per
    /// record; a scrape waits on the native counts too, and adds them back into `+Inf`.
    pub(super) ends_in_native: bool,
    /// The exemplar slots, allocated on the first exemplar (`exemplars.rs`).
    pub(super) exemplars: HistogramExemplars,
}

/// Where the cells of one shard's block are.
///
/// * [`STARTED`]: the shard's *hot half* (the top bit) and how many observations were ever
///   started in the shard (the other 63 bits). Every record adds its observation count here
///   first, and the value it gets back names the half it then writes to.
/// * [`MERGE_FLAG`]: taken by the one merge that writes the shard's merge areas.
/// * Two *halves*, each an observe area and a merge area; each area a sum (cell 0, `f64`
///   bits) and one non-cumulative count per bucket, the last `+Inf`. `observe` adds to the
///   observe area with atomic read-modify-writes; the merge area is written with plain loads
///   and stores by the holder of the merge flag.
///
/// A record writes the sum first and the bucket counts last (with release ordering), so once a
/// scrape sees a half's bucket counts add up to the observations started in it, every one of
/// them is complete, sum included.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// Buckets, `+Inf` included.
    pub(super) buckets: usize,
}

/// The cell holding a shard's hot half and started count.
pub(super) const STARTED: usize = 0;
/// The cell of a shard's merge flag.
pub(super) const MERGE_FLAG: usize = 1;
/// The hot-half bit of [`STARTED`]; the bits below it count started observations.
pub(super) const HOT_BIT: u64 = 1 << 63;
/// The started count of a [`STARTED`] value.
pub(super) const COUNT_MASK: u64 = HOT_BIT - 1;

impl Layout {
    /// The first cell (the sum) of an area: `merged` picks the merge area.
    pub(super) fn area(self, half: usize, merged: bool) -> usize {
        let area_len = self.buckets + 1;
        2 + half * 2 * area_len + usize::from(merged) * area_len
    }

    /// Cells per shard block.
    pub(super) fn cells(self) -> usize {
        self.area(2, false)
    }
}

/// What the scrapes of one histogram carry from one to the next (see [`Histogram::snapshot`]).
pub(super) struct ScrapeState {
    /// The half records write to now, the same in every shard (a scrape turns them all).
    pub(super) hot: usize,
    /// Per half: its bucket counts and sum over all shards as the last scrape that turned it
    /// cold read them, complete.
    pub(super) complete: [HalfTotals; 2],
    /// Per shard and half: the observations the half has held in all, as of the last time
    /// it was read complete (see [`HistogramCore::turn`]).
    pub(super) counted: Box<[[u64; 2]]>,
    /// The native buckets' read side, for a histogram that has them.
    pub(super) native: Option<NativeScrape>,
}

/// A half's totals over all shards.
#[derive(Clone)]
pub(super) struct HalfTotals {
    pub(super) buckets: Box<[u64]>,
    pub(super) sum: f64,
}

impl HalfTotals {
    pub(super) fn zero(buckets: usize) -> Self {
        HalfTotals {
            buckets: vec![0; buckets].into_boxed_slice(),
            sum: 0.0,
        }
    }

    /// Totals of no bucket, a placeholder while a half's totals are being refilled.
    pub(super) fn empty() -> Self {
        HalfTotals {
            buckets: Box::default(),
            sum: 0.0,
        }
    }
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

impl HistogramCore {
    /// Cell `cell` of shard `shard`'s block (0: the sum; `1 + i`: bucket `i`).
    #[inline]
    pub(super) fn cell(&self, shard: usize, cell: usize) -> Option<&AtomicU64> {
        let line = self
            .lines
            .get(shard * self.lines_per_shard + cell / CELLS_PER_LINE)?;
        line.0.get(cell % CELLS_PER_LINE)
    }

    /// Counts `observations` as started in the shard whose [`STARTED`] cell is `started`, and
    /// returns the half they are to be written to. Acquire: a scrape that cleared the half
    /// (histograms with native buckets drain each half it reads) released the clearing with
    /// the turn this reads, and a record must add to the cleared cells, and read the native
    /// schema the scrape published before it. On x86 the instruction is the same either way.
    #[inline]
    pub(super) fn start(&self, started: &AtomicU64, observations: u64) -> usize {
        usize::from(started.fetch_add(observations, Ordering::Acquire) & HOT_BIT != 0)
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
