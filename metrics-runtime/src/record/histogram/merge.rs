//! The merge protocol: a batch of locally recorded observations added to the calling
//! thread's block in one step (see [`Histogram::merge`](super::Histogram::merge)).

use super::native_state::NativeCore;
use super::shards::{Block, HistogramCore};
use super::sum::add_all_to_f64_bits;
use super::sync::Ordering;

/// Bucket lists up to this long (vLLM's longest has 23 buckets) are merged with a per-bucket
/// count on the stack; longer ones with one `fetch_add` per merged value.
pub(super) const MERGE_BUCKETS: usize = 64;

impl HistogramCore {
    /// Adds a batch of observations to the calling thread's block (see [`Histogram::merge`]):
    /// one `fetch_add` counts the batch as started (and names the half), one compare-and-swap
    /// adds its values to the half's sum in order, and one `fetch_add` per bucket the batch
    /// touched adds its count there, after the sum (released, as in `observe`). Nobody ever
    /// waits. A swap that finds another thread's add in between installs the shards, as in
    /// `observe`.
    ///
    /// [`Histogram::merge`]: super::Histogram::merge
    pub(super) fn merge(&self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        let met = self.with_block(|index, block| {
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
            self.merge_counts(block, area, values);
            met
        });
        if met {
            self.contended();
        }
    }

    /// Adds the bucket counts of `values` to the half whose sum is cell `area` of `block`.
    #[inline]
    fn merge_counts(&self, block: Block<'_>, area: usize, values: &[f64]) {
        if self.layout.buckets > MERGE_BUCKETS {
            for &value in values {
                if let Some(cell) = block.cell(area + 1 + self.bucket_index(value)) {
                    cell.fetch_add(1, Ordering::Release);
                }
            }
            return;
        }
        let mut counts: BatchCounts = [0; MERGE_BUCKETS];
        let exact = |value| self.bucket_index(value);
        match &self.lookup {
            Some(lookup) => {
                let tables = lookup.tables();
                count_batch(values, &mut counts, |value| tables.index(value), exact);
            }
            None => count_batch(values, &mut counts, exact, exact),
        }
        let counts = counts.get(..self.layout.buckets).unwrap_or(&counts);
        block.add_counts(area + 1, counts, |cell, count| {
            if count != 0 {
                cell.fetch_add(count, Ordering::Release);
            }
        });
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

/// Counts `values` per bucket into `counts`, the bucket of each found by `bucket_of`, which
/// need not handle NaN. The searches are independent of each other, so they overlap.
///
/// A plain running sum tells whether the batch is the common one: a NaN or an infinity
/// anywhere leaves it non-finite for good, so a finite total proves that `bucket_of` saw no
/// such value. Anything else is counted again with `exact_bucket_of`.
#[inline(always)]
fn count_batch(
    values: &[f64],
    counts: &mut BatchCounts,
    bucket_of: impl Fn(f64) -> usize,
    exact_bucket_of: impl Fn(f64) -> usize,
) {
    let mut sum = 0.0;
    for &value in values {
        if let Some(count) = counts.get_mut(bucket_of(value)) {
            *count += 1;
        }
        sum += value;
    }
    if !sum.is_finite() {
        recount(values, counts, exact_bucket_of);
    }
}

/// The rare case of [`count_batch`]: a batch with a non-finite value or an overflowing sum.
#[cold]
fn recount(values: &[f64], counts: &mut BatchCounts, bucket_of: impl Fn(f64) -> usize) {
    counts.fill(0);
    for &value in values {
        if let Some(count) = counts.get_mut(bucket_of(value)) {
            *count += 1;
        }
    }
}
