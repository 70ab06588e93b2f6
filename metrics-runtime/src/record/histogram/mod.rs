//! A lock-free histogram that plugs into a prometheus-client [`Registry`].
//!
//! prometheus-client's `Histogram` takes a mutex on every `observe`, which serialises every
//! worker recording into a hot histogram (inter-token latency is observed once per output batch
//! of every request). This one records with two relaxed atomic operations on the common path:
//! one `fetch_add` on the bucket the value falls into, and one compare-and-swap loop that adds
//! the value to the sum (stored as `f64` bits).
//!
//! Both land in the calling thread's *shard*: the histogram keeps one block of cells (sum and
//! bucket counts) per shard, each block on cache lines of its own, and every thread records
//! into the shard its thread index selects. Threads observing into the same histogram thus
//! update different cache lines instead of bouncing one line between cores, and no two
//! histograms ever share a line. A scrape adds the shards up.
//!
//! Rules (what a scraper may rely on, whatever is observed and whenever it scrapes):
//! * `_count` is not stored: it is derived from the buckets at encode time, so it always equals
//!   the `+Inf` bucket, even while observations race with a scrape.
//! * NaN and +Inf observations are counted in the `+Inf` bucket (the Go client's behaviour), -Inf
//!   in the first bucket (it is below every bound); none of them is added to `_sum`, so a
//!   single bad sample can never turn the sum into NaN.
//! * `_sum` saturates at `±f64::MAX` instead of overflowing to `±Inf` (two observations of
//!   `1e308` would otherwise make it infinite for good, and `rate()` over it NaN), so the
//!   encoded `_sum` is always a finite number: each shard's sum saturates, and so does their
//!   total.
//! * Encoded output is byte-identical to prometheus-client's `Histogram` for finite observations
//!   (whose sum does not overflow): observations from one thread are summed in order in one
//!   shard, and adding the other shards' `0.0` is exact.
//!
//! [`Registry`]: prometheus_client::registry::Registry

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

pub(crate) mod bucket_lookup;

use crate::record::histogram::bucket_lookup::BucketLookup;
use crate::record::local::{HistogramBuffer, LocalHistogram};

/// A histogram with fixed bucket bounds whose `observe` is lock-free.
///
/// Cloning is cheap and yields a handle to the same histogram (like prometheus-client's metric
/// types), so a clone can be cached in a handle struct and recorded into from any thread.
///
/// ```
/// use metric_handles::Histogram;
///
/// let latency = Histogram::new([0.1, 0.5, 1.0]);
/// latency.observe(0.3);
/// latency.observe(f64::NAN); // counted in +Inf, not added to the sum
/// let snapshot = latency.snapshot();
/// assert_eq!(snapshot.count(), 2);
/// assert_eq!(snapshot.sum(), 0.3);
/// assert_eq!(snapshot.bucket_counts(), &[0, 1, 0, 1]);
/// ```
#[derive(Clone)]
pub struct Histogram {
    core: Arc<HistogramCore>,
}

struct HistogramCore {
    /// Finite, strictly increasing upper bounds; the `+Inf` bucket is implicit.
    bounds: Box<[f64]>,
    /// The bucket search of merged batches, when the bounds suit it (every vLLM list does).
    lookup: Option<Arc<BucketLookup>>,
    /// `shard_count()` blocks of `lines_per_shard` lines. In each block, cell 0 holds the sum of
    /// the shard's finite observations (as `f64::to_bits`), and cells `1..=bounds.len() + 1`
    /// its non-cumulative bucket counts, the last one being `+Inf`; `observe` adds to them with
    /// atomic read-modify-writes. From cell [`merged`](Self::merged) on, the block has a second
    /// area for merged batches: a flag, a sum and the bucket counts, written only by the
    /// merge holding the flag (see [`merge`](Self::merge)). The histogram's state is the total
    /// of both areas of every shard.
    lines: Box<[Line]>,
    lines_per_shard: usize,
    /// The first cell of each block's merge area (its flag).
    merged: usize,
    /// `shard_count() - 1` (a power of two minus one): masks a thread index into a shard.
    shard_mask: usize,
}

/// Bucket lists up to this long (vLLM's longest has 23 buckets) are merged with a per-bucket
/// count on the stack; longer ones with one `fetch_add` per merged value.
const MERGE_BUCKETS: usize = 64;

/// Cells per [`Line`].
const CELLS_PER_LINE: usize = 16;

/// 128 bytes, aligned to 128: two cache lines, because adjacent-line prefetchers move lines in
/// pairs, so a line's neighbour counts as shared too (crossbeam's `CachePadded` does the same).
#[repr(align(128))]
struct Line([AtomicU64; CELLS_PER_LINE]);

impl Line {
    fn zeroed() -> Self {
        Line(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// The most shards a histogram has: enough to keep common core counts apart, bounded so that
/// a histogram's memory stays small on a very large machine.
const MAX_SHARDS: usize = 16;

/// Shards per histogram: the machine's parallelism rounded up to a power of two, at most
/// [`MAX_SHARDS`]. Computed once (it may read cgroup files).
fn shard_count() -> usize {
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
fn thread_index() -> usize {
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

impl Histogram {
    /// Creates a histogram with the given upper bounds.
    ///
    /// The bounds are sanitised rather than rejected, so construction never fails or panics:
    /// non-finite bounds are dropped (the `+Inf` bucket always exists), and the rest are sorted
    /// and de-duplicated. The derive validates bounds at compile time, so generated code never
    /// relies on this.
    pub fn new(bounds: impl IntoIterator<Item = f64>) -> Self {
        let mut bounds: Vec<f64> = bounds.into_iter().filter(|b| b.is_finite()).collect();
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        let shards = shard_count();
        // The sum, one cell per bound and `+Inf`; then the merge area: its flag, its sum and
        // again one cell per bucket.
        let merged = bounds.len() + 2;
        let lines_per_shard = (2 * merged + 1).div_ceil(CELLS_PER_LINE);
        let lines = (0..shards * lines_per_shard)
            .map(|_| Line::zeroed())
            .collect();
        Histogram {
            core: Arc::new(HistogramCore {
                lookup: BucketLookup::shared(&bounds),
                bounds: bounds.into_boxed_slice(),
                lines,
                lines_per_shard,
                merged,
                shard_mask: shards - 1,
            }),
        }
    }

    /// Records one observation. Lock-free and allocation-free.
    #[inline]
    pub fn observe(&self, value: f64) {
        let core = &*self.core;
        let shard = thread_index() & core.shard_mask;
        // `bucket_index` returns at most `bounds.len()`, so the cell is within the shard's
        // block; `cell` returns `None` rather than panicking were it not.
        if let Some(count) = core.cell(shard, 1 + core.bucket_index(value)) {
            count.fetch_add(1, Ordering::Relaxed);
        }
        if value.is_finite() && value != 0.0 {
            if let Some(sum) = core.cell(shard, 0) {
                add_to_f64_bits(sum, value);
            }
        }
    }

    /// Merges a batch of locally recorded observations and clears `pending`: the same result
    /// as observing each value in order, for one locked instruction per batch instead of two
    /// per value (a compare-and-swap takes the merge flag of this thread's shard, then plain
    /// stores add the batch; a merge that finds the flag taken falls back to one `fetch_add`
    /// per bucket it touches and one compare-and-swap for the sum, and never waits). Merging an
    /// empty buffer touches nothing.
    ///
    /// The bucket counts are added first, then the sum: `_count` is derived from the
    /// buckets, so a scrape racing the merge still sees `_count` = `+Inf`.
    pub fn merge(&self, pending: &mut HistogramBuffer) {
        self.core.merge(pending.values());
        pending.clear();
    }

    /// A request-local view that records with plain stores and merges into this histogram
    /// every [`DEFAULT_FLUSH_INTERVAL`](crate::DEFAULT_FLUSH_INTERVAL) observations, on
    /// `flush` and on drop (see [`LocalHistogram`]).
    pub fn local(&self) -> LocalHistogram<'_> {
        LocalHistogram::new(self, crate::DEFAULT_FLUSH_INTERVAL)
    }

    /// The finite upper bounds of the buckets (the `+Inf` bucket is implicit).
    pub fn bounds(&self) -> &[f64] {
        &self.core.bounds
    }

    /// Reads the histogram's current state.
    ///
    /// Buckets are read one by one without stopping writers, so a snapshot taken while
    /// observations are in flight may include some of them and not others; it is always
    /// internally consistent in that `count()` equals the `+Inf` bucket.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let core = &*self.core;
        let shards = 0..=core.shard_mask;
        let load = |shard, cell| {
            core.cell(shard, cell)
                .map_or(0, |c| c.load(Ordering::Relaxed))
        };
        let merged = core.merged;
        let bucket_counts: Vec<u64> = (1..=core.bounds.len() + 1)
            .map(|cell| {
                shards.clone().fold(0u64, |total, shard| {
                    total
                        .wrapping_add(load(shard, cell))
                        .wrapping_add(load(shard, merged + 1 + cell))
                })
            })
            .collect();
        // Adding a shard's (or area's) 0.0 is exact: a histogram recorded only with `observe`
        // on one thread, or only with merges, sums exactly as its values were added.
        let sum = shards.fold(0.0, |total, shard| {
            [0, merged + 1].iter().fold(total, |total, &cell| {
                (total + f64::from_bits(load(shard, cell))).clamp(-f64::MAX, f64::MAX)
            })
        });
        HistogramSnapshot {
            bounds: core.bounds.to_vec(),
            bucket_counts,
            sum,
        }
    }
}

impl HistogramCore {
    /// Cell `cell` of shard `shard`'s block (0: the sum; `1 + i`: bucket `i`).
    #[inline]
    fn cell(&self, shard: usize, cell: usize) -> Option<&AtomicU64> {
        let line = self
            .lines
            .get(shard * self.lines_per_shard + cell / CELLS_PER_LINE)?;
        line.0.get(cell % CELLS_PER_LINE)
    }

    /// Applies `add` to each cell of shard `shard`'s block from cell `first` on, paired with
    /// `counts` in order. Line by line, with slices, so that a cell costs no division and no
    /// bounds check.
    #[inline]
    fn add_counts(
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

    /// Adds a batch of observations to the calling thread's shard (see [`Histogram::merge`]).
    ///
    /// The batch goes to the shard's merge area when its flag is free: one compare-and-swap
    /// takes the flag, then every cell of the area is updated with a plain load and store (no
    /// locked instruction per bucket: only the flag holder writes there), and a release store
    /// frees the flag. When another merge holds it (more merging threads than shards), the
    /// batch goes to the shard's `observe` cells with one `fetch_add` per bucket instead:
    /// nobody ever waits. Buckets first, then the sum, in both cases.
    fn merge(&self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        let shard = thread_index() & self.shard_mask;
        let buckets = self.bounds.len() + 1;
        if buckets > MERGE_BUCKETS {
            for &value in values {
                if let Some(cell) = self.cell(shard, 1 + self.bucket_index(value)) {
                    cell.fetch_add(1, Ordering::Relaxed);
                }
            }
            if let Some(sum) = self.cell(shard, 0) {
                add_all_to_f64_bits(sum, values);
            }
            return;
        }
        let flag = self.cell(shard, self.merged);
        let owned = flag.filter(|flag| {
            flag.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        });
        let area = self.merged + 1;
        // With the flag, the area's sum is ours to replay the batch onto; without it, the sum
        // is added afterwards with a compare-and-swap.
        let start = match (owned, self.cell(shard, area)) {
            (Some(_), Some(sum)) => f64::from_bits(sum.load(Ordering::Relaxed)),
            _ => 0.0,
        };
        let mut counts: BatchCounts = [0; MERGE_BUCKETS];
        let exact = |value| self.bucket_index(value);
        let sum = match &self.lookup {
            Some(lookup) => count_and_add(
                values,
                start,
                &mut counts,
                |value| lookup.index(value),
                exact,
            ),
            None => count_and_add(values, start, &mut counts, exact, exact),
        };
        let counts = counts.get(..buckets).unwrap_or(&counts);
        if let Some(flag) = owned {
            // Every bucket, touched or not: a plain load and store each, no branch.
            self.add_counts(shard, area + 1, counts, |cell, count| {
                let total = cell.load(Ordering::Relaxed).wrapping_add(count);
                cell.store(total, Ordering::Relaxed);
            });
            if let Some(cell) = self.cell(shard, area) {
                cell.store(sum.to_bits(), Ordering::Relaxed);
            }
            // Release: the next holder of the flag sees these stores.
            flag.store(0, Ordering::Release);
        } else {
            self.add_counts(shard, 1, counts, |cell, count| {
                if count != 0 {
                    cell.fetch_add(count, Ordering::Relaxed);
                }
            });
            if let Some(cell) = self.cell(shard, 0) {
                add_all_to_f64_bits(cell, values);
            }
        }
    }

    /// Index of the first bucket whose upper bound is `>= value`; NaN and values above every
    /// bound go to the `+Inf` bucket at index `bounds.len()`.
    #[inline]
    fn bucket_index(&self, value: f64) -> usize {
        // Bucket lists are short (vLLM's longest has 22 bounds). A branch-free linear count
        // beats a binary search at these sizes and is exactly the right answer for NaN: every
        // comparison with NaN is false, so NaN lands in +Inf.
        if self.bounds.len() <= 32 {
            self.bounds.iter().filter(|&&b| b < value).count()
                + usize::from(value.is_nan()) * self.bounds.len()
        } else if value.is_nan() {
            self.bounds.len()
        } else {
            self.bounds.partition_point(|&b| b < value)
        }
    }
}

/// Adds a finite `delta` to an `f64` stored as bits, with a compare-and-swap loop, saturating
/// at `±f64::MAX`: the cell starts at 0 and only ever holds finite values, so the sum of two
/// finite values is finite or `±Inf`, never NaN, and the clamp keeps it finite.
#[inline]
fn add_to_f64_bits(cell: &AtomicU64, delta: f64) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let next = (f64::from_bits(current) + delta)
            .clamp(-f64::MAX, f64::MAX)
            .to_bits();
        match cell.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// `total + value` with the rules of [`Histogram::observe`]: a non-finite value is not added,
/// and the result saturates at `±f64::MAX`. Skipping zeros as `observe` does changes nothing:
/// the total is never `-0.0` (non-zero additions that cancel give `+0.0`), and adding `±0.0`
/// to anything else leaves it as it is. The saturation is a branch that is never taken in
/// practice, so a batch's additions form a chain of plain `addsd`s.
#[inline]
fn add_observation(total: f64, value: f64) -> f64 {
    let value = if value.is_finite() { value } else { 0.0 };
    let next = total + value;
    if next.is_finite() {
        next
    } else {
        next.clamp(-f64::MAX, f64::MAX)
    }
}

/// A merged batch's count per bucket. Four bytes a count: with one byte, the counting ran
/// about a fifth slower (byte-wide read-modify-writes forward worse).
type BatchCounts = [u32; MERGE_BUCKETS];

/// Counts `values` per bucket into `counts` (the bucket of each found by `bucket_of`, which
/// need not handle NaN) and returns `start` plus the values added in order with the rules of
/// [`add_observation`]. The searches are independent of each other, so they overlap, and the
/// chain of additions runs alongside them.
///
/// The common batch (every value finite, no overflow) is added with plain additions: they give
/// the same result as [`add_observation`] there, and a NaN, an infinity or an overflow anywhere
/// leaves the plain total non-finite for good, so a finite total proves the batch common.
/// Anything else is counted again with `exact_bucket_of` and added with the rules.
#[inline(always)]
fn count_and_add(
    values: &[f64],
    start: f64,
    counts: &mut BatchCounts,
    bucket_of: impl Fn(f64) -> usize,
    exact_bucket_of: impl Fn(f64) -> usize,
) -> f64 {
    let mut sum = start;
    for &value in values {
        if let Some(count) = counts.get_mut(bucket_of(value)) {
            *count += 1;
        }
        sum += value;
    }
    if sum.is_finite() {
        return sum;
    }
    recount_and_add(values, start, counts, exact_bucket_of)
}

/// The rare case of [`count_and_add`]: a batch with a non-finite value or an overflowing sum.
#[cold]
fn recount_and_add(
    values: &[f64],
    start: f64,
    counts: &mut BatchCounts,
    bucket_of: impl Fn(f64) -> usize,
) -> f64 {
    counts.fill(0);
    for &value in values {
        if let Some(count) = counts.get_mut(bucket_of(value)) {
            *count += 1;
        }
    }
    add_in_order(start, values)
}

/// `start` plus `values` added one by one in order (see [`add_observation`]): exactly what
/// observing them one by one adds, so a merged batch sums as its values would.
#[inline]
fn add_in_order(start: f64, values: &[f64]) -> f64 {
    values
        .iter()
        .fold(start, |total, &v| add_observation(total, v))
}

/// Adds `values` in order (see [`add_in_order`]) to an `f64` stored as bits, in one
/// compare-and-swap (retried as a whole if another thread's add came in between).
fn add_all_to_f64_bits(cell: &AtomicU64, values: &[f64]) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let total = add_in_order(f64::from_bits(current), values);
        match cell.compare_exchange_weak(
            current,
            total.to_bits(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// A point-in-time copy of a [`Histogram`]'s state.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSnapshot {
    bounds: Vec<f64>,
    bucket_counts: Vec<u64>,
    sum: f64,
}

impl HistogramSnapshot {
    /// The number of observations, derived from the buckets (so it always equals `+Inf`).
    pub fn count(&self) -> u64 {
        self.bucket_counts
            .iter()
            .copied()
            .fold(0, u64::wrapping_add)
    }

    /// The sum of all finite observations.
    pub fn sum(&self) -> f64 {
        self.sum
    }

    /// The finite upper bounds.
    pub fn bounds(&self) -> &[f64] {
        &self.bounds
    }

    /// Non-cumulative counts per bucket, the last one being `+Inf`.
    pub fn bucket_counts(&self) -> &[u64] {
        &self.bucket_counts
    }

    /// `(upper bound, non-cumulative count)` pairs including `(+Inf, n)`, the shape
    /// prometheus-client's encoder expects.
    fn encoder_buckets(&self) -> Vec<(f64, u64)> {
        self.bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(self.bucket_counts.iter().copied())
            .collect()
    }
}

impl fmt::Debug for Histogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.snapshot();
        f.debug_struct("Histogram")
            .field("bounds", &snapshot.bounds)
            .field("count", &snapshot.count())
            .field("sum", &snapshot.sum)
            .finish()
    }
}

impl TypedMetric for Histogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for Histogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        let snapshot = self.snapshot();
        encoder.encode_histogram::<NoLabelSet>(
            snapshot.sum,
            snapshot.count(),
            &snapshot.encoder_buckets(),
            None,
        )
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_land_in_the_first_bucket_whose_bound_is_not_below_them() {
        let h = Histogram::new([1.0, 2.0, 5.0]);
        for v in [0.5, 1.0, 1.5, 2.0, 4.9, 5.0, 5.1, -3.0] {
            h.observe(v);
        }
        assert_eq!(h.snapshot().bucket_counts(), &[3, 2, 2, 1]);
        assert_eq!(h.snapshot().count(), 8);
    }

    #[test]
    fn non_finite_observations_count_in_inf_and_never_reach_the_sum() {
        let h = Histogram::new([1.0]);
        h.observe(f64::NAN);
        h.observe(f64::INFINITY);
        h.observe(f64::NEG_INFINITY);
        h.observe(0.25);
        let s = h.snapshot();
        // -Inf is below every bound, so it is counted in the first bucket.
        assert_eq!(s.bucket_counts(), &[2, 2]);
        assert_eq!(s.sum(), 0.25);
    }

    #[test]
    fn the_sum_saturates_instead_of_overflowing_to_infinity() {
        let h = Histogram::new([1.0]);
        h.observe(f64::MAX);
        h.observe(f64::MAX);
        assert_eq!(h.snapshot().sum(), f64::MAX);
        h.observe(-f64::MAX);
        assert_eq!(h.snapshot().sum(), 0.0);
        for _ in 0..3 {
            h.observe(-f64::MAX);
        }
        assert_eq!(h.snapshot().sum(), -f64::MAX);
        assert_eq!(h.snapshot().count(), 6);
    }

    #[test]
    fn bounds_are_sanitised_not_rejected() {
        let h = Histogram::new([5.0, f64::NAN, 1.0, 1.0, f64::INFINITY, 2.0]);
        assert_eq!(h.bounds(), &[1.0, 2.0, 5.0]);
    }

    #[test]
    fn long_bucket_lists_use_the_binary_search_with_the_same_result() {
        let bounds: Vec<f64> = (1..=100).map(f64::from).collect();
        let h = Histogram::new(bounds.clone());
        let short = Histogram::new(bounds[..30].to_vec());
        for v in [0.0, 1.0, 29.5, 30.0, 31.0, 99.9, 100.0, 1e9, f64::NAN] {
            let expected = bounds.iter().position(|&b| b >= v).unwrap_or(bounds.len());
            assert_eq!(h.core.bucket_index(v), expected, "value {v}");
            let expected_short = bounds[..30].iter().position(|&b| b >= v).unwrap_or(30);
            assert_eq!(short.core.bucket_index(v), expected_short, "value {v}");
        }
    }

    #[test]
    fn concurrent_observations_are_all_counted_and_summed() {
        let h = Histogram::new([0.5, 1.5]);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..10_000 {
                        h.observe(1.0);
                    }
                });
            }
        });
        let snap = h.snapshot();
        assert_eq!(snap.count(), 40_000);
        assert_eq!(snap.bucket_counts(), &[0, 40_000, 0]);
        assert_eq!(snap.sum(), 40_000.0);
    }

    #[test]
    fn shards_never_share_a_cache_line_pair() {
        let h = Histogram::new(ITL);
        let core = &*h.core;
        let line_of = |shard, cell| {
            core.cell(shard, cell)
                .map(|c| c as *const AtomicU64 as usize / 128)
        };
        // The last cell of a block: the merge area's `+Inf` bucket.
        let last = core.merged + 1 + ITL.len() + 1;
        for shard in 0..core.shard_mask {
            let end = line_of(shard, last).expect("last cell of a shard");
            let next = line_of(shard + 1, 0).expect("first cell of the next shard");
            assert!(
                end < next,
                "shard {shard} ends on the line where the next one starts"
            );
        }
        // The shard's last cell is inside the block, and the next cell is not.
        assert!(core.cell(core.shard_mask, last).is_some());
        assert!(core
            .cell(core.shard_mask, core.lines_per_shard * CELLS_PER_LINE)
            .is_none());
    }

    #[test]
    fn threads_are_numbered_in_the_order_they_first_record() {
        let first = std::thread::spawn(thread_index).join().expect("thread");
        let second = std::thread::spawn(thread_index).join().expect("thread");
        // Other tests may number threads in between, but a number is never handed out twice.
        assert!(second > first, "{first} then {second}");
    }

    #[test]
    fn the_snapshot_adds_every_shard_up() {
        let h = Histogram::new([1.0, 2.0]);
        let values = [0.5, 1.5, 2.5, 0.25];
        std::thread::scope(|s| {
            for _ in 0..(2 * MAX_SHARDS) {
                s.spawn(|| values.iter().for_each(|&v| h.observe(v)));
            }
        });
        let snap = h.snapshot();
        let n = 2 * MAX_SHARDS as u64;
        assert_eq!(snap.bucket_counts(), &[2 * n, n, n]);
        assert_eq!(snap.count(), 4 * n);
        assert_eq!(snap.sum(), 4.75 * n as f64);
    }

    #[test]
    fn the_total_of_saturated_shards_saturates_too() {
        let h = Histogram::new([1.0]);
        // Enough threads that at least two shards saturate whatever the shard count.
        std::thread::scope(|s| {
            for _ in 0..(2 * MAX_SHARDS) {
                s.spawn(|| h.observe(f64::MAX));
            }
        });
        assert_eq!(h.snapshot().sum(), f64::MAX);
    }

    #[test]
    fn a_merge_that_finds_the_flag_taken_adds_to_the_observe_cells() {
        let h = Histogram::new([1.0, 2.0]);
        let core = &*h.core;
        let shard = thread_index() & core.shard_mask;
        let flag = core.cell(shard, core.merged).expect("flag cell");
        let mut pending = HistogramBuffer::new();
        for v in [0.5, 1.5, 1.5] {
            assert!(pending.push(v));
        }
        // Another merge holds this shard's flag: the batch goes to the observe cells.
        flag.store(1, Ordering::Relaxed);
        h.merge(&mut pending);
        let direct = |cell| core.cell(shard, cell).map(|c| c.load(Ordering::Relaxed));
        assert_eq!((direct(1), direct(2)), (Some(1), Some(2)));
        assert_eq!(f64::from_bits(direct(0).unwrap_or(0)), 3.5);
        // Freed: the next batch goes to the merge area, and both show in the snapshot.
        flag.store(0, Ordering::Relaxed);
        for v in [2.5, 0.25] {
            assert!(pending.push(v));
        }
        h.merge(&mut pending);
        assert_eq!(direct(core.merged + 2 + 2), Some(1));
        let snapshot = h.snapshot();
        assert_eq!(snapshot.bucket_counts(), &[2, 2, 1]);
        assert_eq!(snapshot.sum(), 6.25);
        assert_eq!(flag.load(Ordering::Relaxed), 0);
    }

    const ITL: [f64; 19] = [
        0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
        20.0, 40.0, 80.0,
    ];
}
