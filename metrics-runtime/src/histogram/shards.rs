//! The cells of a histogram, in *blocks*: every histogram has one, its *base* block, and one
//! that threads record into at the same time also gets [`Shards`], a block per shard, where a
//! thread records into the block its thread number selects (`thread_shard.rs`). An
//! uncontended series thus costs one block whatever the machine's core count, and a contended
//! one keeps its threads on different cache lines. No two histograms ever share a line.
//!
//! When and how the shards are added is told in `promote.rs`.

use std::sync::Arc;

use super::bucket_lookup::{linear_index, BucketLookup};
use super::exemplars::HistogramExemplars;
use super::native_state::{NativeCore, NativeScrape};
use super::sync::{AtomicU64, LazyBox, Mutex, Ordering};
use super::thread_shard::MAX_SHARDS;

pub(super) struct HistogramCore {
    /// Finite, strictly increasing upper bounds; the `+Inf` bucket is implicit. Shared by
    /// every histogram with the same bounds (`bounds.rs`).
    pub(super) bounds: Arc<[f64]>,
    /// The bucket search of observations and merged batches, when the bounds suit it (every
    /// vLLM list does).
    pub(super) lookup: Option<Arc<BucketLookup>>,
    pub(super) layout: Layout,
    /// The block every record writes until the histogram has [`Shards`], and that every scrape
    /// reads (records that started before the shards came may still be writing it).
    pub(super) base: Box<[Line]>,
    /// A block per shard, installed (by a scrape's lock holder) once records meet on the base
    /// block; read lock-free by every record from then on.
    pub(super) shards: LazyBox<Shards>,
    /// The merge areas of the blocks local views merge into, made by a block's first merge.
    pub(super) merges: LazyBox<MergeAreas>,
    /// What scrapes know between them; held by one scrape at a time, and by a record only to
    /// install the shards, when no scrape holds it (a record never waits for it).
    pub(super) scrape: Mutex<ScrapeState>,
    /// The native buckets' record side, for a histogram that has them.
    pub(super) native: Option<Box<NativeCore>>,
    /// A native-only histogram (native buckets, no classic bound): a record's native bucket
    /// count is its last write, released, and stands for its `+Inf` count, which then holds
    /// only what no native table took (nothing, as every value has a native bucket, NaN that
    /// of +Inf). One locked instruction fewer per record; a scrape waits on the native counts
    /// too, and adds them back into `+Inf`.
    pub(super) ends_in_native: bool,
    /// The exemplar slots, allocated on the first exemplar (`exemplars.rs`).
    pub(super) exemplars: HistogramExemplars,
}

/// Where the cells of a block are.
///
/// * [`STARTED`]: the block's *hot half* (the top bit) and how many observations were
///   started in the block and not yet drained (the other 63 bits; a histogram without native
///   buckets never drains, so there it is every observation ever started). Every record adds
///   its observation count here first, and the value it gets back names the half it then
///   writes to.
/// * Two *halves*, each a sum (its first cell, `f64` bits) and one non-cumulative count per
///   bucket, the last `+Inf`, all written with atomic read-modify-writes.
///
/// A record writes the sum first and the bucket counts last (with release ordering), so once a
/// scrape sees a half's bucket counts add up to the observations started in it, every one of
/// them is complete, sum included.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// Buckets, `+Inf` included.
    pub(super) buckets: usize,
}

/// The cell holding a block's hot half and started count.
pub(super) const STARTED: usize = 0;
/// The hot-half bit of [`STARTED`]; the bits below it count started observations.
pub(super) const HOT_BIT: u64 = 1 << 63;
/// The started count of a [`STARTED`] value.
pub(super) const COUNT_MASK: u64 = HOT_BIT - 1;

impl Layout {
    /// The first cell (the sum) of a half.
    pub(super) fn half(self, half: usize) -> usize {
        1 + half * (self.buckets + 1)
    }

    /// Cells per block.
    pub(super) fn cells(self) -> usize {
        self.half(2)
    }

    /// Lines per block.
    pub(super) fn lines(self) -> usize {
        self.cells().div_ceil(CELLS_PER_LINE)
    }

    /// A zeroed block whose records write half `hot` first.
    pub(super) fn new_block(self, hot: usize) -> Box<[Line]> {
        let lines: Box<[Line]> = (0..self.lines()).map(|_| Line::zeroed()).collect();
        if hot == 1 {
            if let Some(started) = lines.first().map(|line| &line.0[STARTED]) {
                started.store(HOT_BIT, Ordering::Relaxed);
            }
        }
        lines
    }
}

/// The blocks of a contended histogram, one per shard (see the module documentation).
pub(super) struct Shards {
    /// `count` blocks of `layout.lines()` lines each.
    lines: Box<[Line]>,
    /// The shard count minus one (a power of two minus one): masks a thread index into a
    /// shard.
    pub(super) mask: usize,
}

impl Shards {
    /// `count` (a power of two, at most [`MAX_SHARDS`]) zeroed blocks whose records write half
    /// `hot` first.
    pub(super) fn new(layout: Layout, count: usize, hot: usize) -> Self {
        let count = count.clamp(1, MAX_SHARDS).next_power_of_two();
        Shards {
            lines: (0..count).flat_map(|_| layout.new_block(hot)).collect(),
            mask: count - 1,
        }
    }

    /// Shard `shard`'s block.
    #[inline]
    pub(super) fn block(&self, layout: Layout, shard: usize) -> Block<'_> {
        let per_block = layout.lines();
        let first = shard * per_block;
        Block {
            lines: self.lines.get(first..first + per_block).unwrap_or(&[]),
            layout,
        }
    }

    /// How many shards there are.
    pub(super) fn count(&self) -> usize {
        self.mask + 1
    }
}

/// The most blocks a histogram has: its base block and a block per shard.
pub(super) const MAX_BLOCKS: usize = 1 + MAX_SHARDS;

/// Per block, the cells merges write with plain loads and stores (see `merge.rs`), laid out as
/// a block is ([`Layout`]) but for its first cell: the *merge flag*, which the one merge that
/// writes the area holds. Made as merges first need them, so a histogram nobody merges into
/// holds none: a pointer.
pub(super) struct MergeAreas {
    areas: [LazyBox<Box<[Line]>>; MAX_BLOCKS],
}

impl MergeAreas {
    pub(super) fn new() -> Self {
        MergeAreas {
            areas: std::array::from_fn(|_| LazyBox::new()),
        }
    }
}

/// The cell of a merge area's flag.
pub(super) const MERGE_FLAG: usize = STARTED;

/// What the scrapes of one histogram carry from one to the next (see [`Histogram::snapshot`]).
/// A histogram without native buckets carries nothing: the cells are the totals.
///
/// [`Histogram::snapshot`]: super::Histogram::snapshot
pub(super) struct ScrapeState {
    /// The native buckets' read side, for a histogram that has them, made by its first
    /// scrape.
    pub(super) native: Option<Box<NativeScrape>>,
}

/// A half's totals over all blocks.
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
}

/// Cells per [`Line`].
pub(super) const CELLS_PER_LINE: usize = 16;

/// 128 bytes, aligned to 128: two cache lines, because adjacent-line prefetchers move lines in
/// pairs, so a line's neighbour counts as shared too (crossbeam's `CachePadded` does the same).
#[repr(align(128))]
pub(super) struct Line(pub(super) [AtomicU64; CELLS_PER_LINE]);

impl Line {
    pub(super) fn zeroed() -> Self {
        Line(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// One block's lines, borrowed: what a record or a scrape works on.
#[derive(Clone, Copy)]
pub(super) struct Block<'a> {
    pub(super) lines: &'a [Line],
    pub(super) layout: Layout,
}

impl<'a> Block<'a> {
    /// The sum cell of `half`.
    #[inline]
    pub(super) fn sum(self, half: usize) -> Option<&'a AtomicU64> {
        self.cell(self.layout.half(half))
    }

    /// The bucket cells of `half`, `+Inf` last.
    pub(super) fn buckets(self, half: usize) -> impl Iterator<Item = &'a AtomicU64> {
        let first = self.layout.half(half) + 1;
        let lines = self.lines.get(first / CELLS_PER_LINE..).unwrap_or(&[]);
        let cells = lines.iter().flat_map(|line| line.0.iter());
        cells.skip(first % CELLS_PER_LINE).take(self.layout.buckets)
    }

    /// Cell `cell` of the block (see [`Layout`]).
    #[inline]
    pub(super) fn cell(self, cell: usize) -> Option<&'a AtomicU64> {
        let line = self.lines.get(cell / CELLS_PER_LINE)?;
        line.0.get(cell % CELLS_PER_LINE)
    }

    /// The block's [`STARTED`] cell.
    #[inline]
    pub(super) fn started(self) -> Option<&'a AtomicU64> {
        self.cell(STARTED)
    }

    /// Counts `observations` as started in the block and returns the half they are to be
    /// written to. Acquire: a scrape that cleared the half (histograms with native buckets
    /// drain each half they read) released the clearing with the turn this reads, and a record
    /// must add to the cleared cells, and read the native schema the scrape published before
    /// it. On x86 the instruction is the same either way.
    #[inline]
    pub(super) fn start(self, observations: u64) -> usize {
        self.started().map_or(0, |started| {
            usize::from(started.fetch_add(observations, Ordering::Acquire) & HOT_BIT != 0)
        })
    }

    /// Applies `add` to each cell from cell `first` on, paired with `counts` in order. Line by
    /// line, with slices, so that a cell costs no division and no bounds check.
    #[inline]
    pub(super) fn add_counts(
        self,
        first: usize,
        mut counts: &[u32],
        add: impl Fn(&AtomicU64, u64),
    ) {
        let lines = self.lines.get(first / CELLS_PER_LINE..).unwrap_or(&[]);
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
}

impl HistogramCore {
    /// The base block.
    #[inline]
    pub(super) fn base(&self) -> Block<'_> {
        Block {
            lines: &self.base,
            layout: self.layout,
        }
    }

    /// Calls `record` with the block the calling thread records into and its index (0 for
    /// the base block, `1 + shard` for a shard's), the index being what the native tables
    /// shard by and a scrape's per-block counts are indexed by.
    #[inline]
    pub(super) fn with_block<R>(&self, record: impl FnOnce(usize, Block<'_>) -> R) -> R {
        match self.shards.get() {
            None => record(0, self.base()),
            Some(shards) => {
                let shard = super::thread_shard::thread_index() & shards.mask;
                record(1 + shard, shards.block(self.layout, shard))
            }
        }
    }

    /// Calls `visit` with every block and its index (see [`Self::with_block`]), the base
    /// block first.
    pub(super) fn for_each_block(&self, mut visit: impl FnMut(usize, Block<'_>)) {
        visit(0, self.base());
        if let Some(shards) = self.shards.get() {
            for shard in 0..shards.count() {
                visit(1 + shard, shards.block(self.layout, shard));
            }
        }
    }

    /// The merge area of block `index`, if a merge made one.
    #[inline]
    pub(super) fn merge_area(&self, index: usize) -> Option<Block<'_>> {
        let lines = self.merges.get()?.areas.get(index)?.get()?;
        Some(Block {
            lines,
            layout: self.layout,
        })
    }

    /// The merge area of block `index`, made (zeroed, flag free) if it has none yet: on a
    /// block's first merge only.
    #[inline]
    pub(super) fn merge_area_or_make(&self, index: usize) -> Option<Block<'_>> {
        let areas = self.merges.get_or_init(MergeAreas::new);
        let lines = areas
            .areas
            .get(index)?
            .get_or_init(|| self.layout.new_block(0));
        Some(Block {
            lines,
            layout: self.layout,
        })
    }

    /// Index of the first bucket whose upper bound is `>= value` (see
    /// [`bucket_lookup::linear_index`](super::bucket_lookup::linear_index)).
    #[inline]
    pub(super) fn bucket_index(&self, value: f64) -> usize {
        linear_index(&self.bounds, value)
    }
}
