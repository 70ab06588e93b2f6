//! The merge protocol: a batch of locally recorded observations added to the calling
//! thread's block in one step (see [`Histogram::merge`](super::Histogram::merge)).

use super::buffer::HistogramBuffer;
use super::native_state::NativeCore;
use super::observe::Histogram;
use super::shards::{Block, HistogramCore, MERGE_FLAG};
use super::sum::{add_all_to_f64_bits, add_in_order};
use super::sync::{AtomicU64, Ordering};

/// Bucket lists up to this long (vLLM's longest has 23 buckets) are merged with a per-bucket
/// count on the stack; longer ones with one `fetch_add` per merged value.
pub(super) const MERGE_BUCKETS: usize = 64;

impl HistogramCore {
    /// Adds a batch of observations to the calling thread's block (see [`Histogram::merge`]).
    ///
    /// The batch goes to the block's *merge area* (made by the block's first merge) when its
    /// flag is free: one compare-and-swap takes the flag, one `fetch_add` on the block's
    /// started count counts the batch as started (and names the half), then the area's sum
    /// and every bucket of the half are updated with a plain load and store (no locked
    /// instruction per bucket: only the flag holder writes there), and a release store frees
    /// the flag. When another merge holds it (two threads merging into one block at once, a
    /// sign of contention, as in `observe`), the batch goes to the block's own cells with a
    /// compare-and-swap of the sum and one `fetch_add` per bucket it touched: nobody ever
    /// waits. The sum first, then the buckets, in both cases.
    ///
    /// [`Histogram::merge`]: super::Histogram::merge
    pub(super) fn merge(&self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        let met = self.with_block(|index, block| {
            if self.ends_in_native || self.layout.buckets > MERGE_BUCKETS {
                return self.merge_shared(index, block, values);
            }
            let Some(area) = self.merge_area_or_make(index) else {
                return self.merge_shared(index, block, values);
            };
            match claim_merge_flag(area) {
                Some(flag) => {
                    self.merge_owned(index, block, area, flag, values);
                    false
                }
                None => {
                    let _ = self.merge_shared(index, block, values);
                    true
                }
            }
        });
        if met {
            self.contended();
        }
    }

    /// The batch into `area` (block `index`'s merge area, whose flag the caller took), with
    /// plain loads and stores; frees the flag.
    #[inline]
    fn merge_owned(
        &self,
        index: usize,
        block: Block<'_>,
        area: Block<'_>,
        flag: &AtomicU64,
        values: &[f64],
    ) {
        let half = block.start(values.len() as u64);
        // Before the classic counts, whose release publishes it (as in `observe`).
        if let Some(native) = self.native.as_deref() {
            add_runs(native, index, half, values);
        }
        let sum = area.sum(half);
        let start = sum.map_or(0.0, |sum| f64::from_bits(sum.load(Ordering::Relaxed)));
        let mut counts: BatchCounts = [0; MERGE_BUCKETS];
        let total = self.count(values, start, &mut counts);
        if let Some(sum) = sum {
            sum.store(total.to_bits(), Ordering::Relaxed);
        }
        let counts = counts.get(..self.layout.buckets).unwrap_or(&counts);
        // Every bucket, touched or not: a plain load and store each, no branch. Release: a
        // scrape that sees the counts sees the sum.
        area.add_counts(self.layout.half(half) + 1, counts, |cell, count| {
            let total = cell.load(Ordering::Relaxed).wrapping_add(count);
            cell.store(total, Ordering::Release);
        });
        // Release: the next holder of the flag sees these stores.
        flag.store(0, Ordering::Release);
    }

    /// The batch into block `index`'s own cells, with atomic read-modify-writes; returns
    /// whether the sum's compare-and-swap met another thread's add.
    #[inline]
    fn merge_shared(&self, index: usize, block: Block<'_>, values: &[f64]) -> bool {
        let half = block.start(values.len() as u64);
        let area = self.layout.half(half);
        let met = block
            .cell(area)
            .is_some_and(|sum| add_all_to_f64_bits(sum, values));
        if let Some(native) = self.native.as_deref() {
            // Before the classic counts, whose release publishes it (as in `observe`).
            let counted = add_runs(native, index, half, values);
            if self.ends_in_native {
                self.merge_uncounted(block, area, values.len() - counted);
                return met;
            }
        }
        if self.layout.buckets > MERGE_BUCKETS {
            for &value in values {
                if let Some(cell) = block.cell(area + 1 + self.bucket_index(value)) {
                    cell.fetch_add(1, Ordering::Release);
                }
            }
            return met;
        }
        let mut counts: BatchCounts = [0; MERGE_BUCKETS];
        let _ = self.count(values, 0.0, &mut counts);
        let counts = counts.get(..self.layout.buckets).unwrap_or(&counts);
        block.add_counts(area + 1, counts, |cell, count| {
            if count != 0 {
                cell.fetch_add(count, Ordering::Release);
            }
        });
        met
    }

    /// Counts `values` per bucket into `counts` and returns `start` plus the values added in
    /// order (see [`count_and_add`]).
    #[inline]
    fn count(&self, values: &[f64], start: f64, counts: &mut BatchCounts) -> f64 {
        let exact = |value| self.bucket_index(value);
        match &self.lookup {
            Some(lookup) => {
                let tables = lookup.tables();
                count_and_add(values, start, counts, |value| tables.index(value), exact)
            }
            None => count_and_add(values, start, counts, exact, exact),
        }
    }

    /// The values of a merge into a native-only histogram that no native table took (none:
    /// NaN counts as +Inf there), counted in its `+Inf` cell (see
    /// [`HistogramCore::ends_in_native`]). Out of line: it never happens in practice.
    #[cold]
    #[inline(never)]
    fn merge_uncounted(&self, block: Block<'_>, area: usize, uncounted: usize) {
        if uncounted == 0 {
            return;
        }
        if let Some(infinite) = block.cell(area + self.layout.buckets) {
            infinite.fetch_add(uncounted as u64, Ordering::Release);
        }
    }
}

/// The flag of merge area `area`, when this merge takes it (acquire: its stores follow the
/// previous holder's); `None` when another merge holds it.
#[inline]
fn claim_merge_flag(area: Block<'_>) -> Option<&AtomicU64> {
    area.cell(MERGE_FLAG).filter(|flag| {
        flag.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    })
}

/// Adds `values` to the native buckets of `half` of block `shard`, a run of equal values at once,
/// and returns how many it counted (every value, NaN in the bucket of +Inf, unless a table
/// is missing).
#[inline]
fn add_runs(native: &NativeCore, shard: usize, half: usize, values: &[f64]) -> usize {
    let mut counted = 0;
    let mut rest = values;
    while let Some((&value, tail)) = rest.split_first() {
        let run = 1 + tail
            .iter()
            .take_while(|v| v.to_bits() == value.to_bits())
            .count();
        if native.record(shard, half, value, run as u64) {
            counted += run;
        }
        rest = rest.get(run..).unwrap_or(&[]);
    }
    counted
}

/// A merged batch's count per bucket. Four bytes a count: with one byte, the counting ran
/// about a fifth slower (byte-wide read-modify-writes forward worse).
type BatchCounts = [u32; MERGE_BUCKETS];

/// Counts `values` per bucket into `counts` (the bucket of each found by `bucket_of`, which
/// need not handle NaN) and returns `start` plus the values added in order with the rules of
/// [`add_observation`](super::sum::add_observation). The searches are independent of each
/// other, so they overlap, and the chain of additions runs alongside them.
///
/// The common batch (every value finite, no overflow) is added with plain additions: they give
/// the same result as `add_observation` there, and a NaN, an infinity or an overflow anywhere
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

impl Histogram {
    /// Merges a batch of locally recorded observations and clears `pending`: the same result
    /// as observing each value in order, for two locked instructions per batch instead of three
    /// per value (a compare-and-swap takes the merge flag of this thread's shard, a `fetch_add`
    /// counts the batch as started, then plain stores add it; a merge that finds the flag
    /// taken falls back to one `fetch_add` per bucket it touches and one compare-and-swap for
    /// the sum, and never waits). Merging an empty buffer touches nothing.
    ///
    /// The sum is added first, the bucket counts last, and a scrape waits for a started batch
    /// to finish: it sees the whole batch or none of it.
    pub fn merge(&self, pending: &mut HistogramBuffer) {
        self.core.merge(pending.values());
        pending.clear();
    }
}
