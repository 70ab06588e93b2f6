//! The merge protocol: a batch of locally recorded observations added to the calling
//! thread's shard in one step (see [`Histogram::merge`](super::Histogram::merge)).

use super::native_state::NativeCore;
use super::shards::{HistogramCore, MERGE_FLAG, STARTED};
use super::sum::{add_all_to_f64_bits, add_in_order};
use super::sync::{AtomicU64, Ordering};
use super::thread_shard::thread_index;

/// Bucket lists up to this long (vLLM's longest has 23 buckets) are merged with a per-bucket
/// count on the stack; longer ones with one `fetch_add` per merged value.
pub(super) const MERGE_BUCKETS: usize = 64;

impl HistogramCore {
    /// Adds a batch of observations to the calling thread's shard (see [`Histogram::merge`]).
    ///
    /// The batch goes to the merge area of the hot half when the shard's merge flag is free:
    /// one compare-and-swap takes the flag, one `fetch_add` counts the batch as started (and
    /// names the half), then every cell of the area is updated with a plain load and store
    /// (no locked instruction per bucket: only the flag holder writes there), and a release
    /// store frees the flag. When another merge holds it (more merging threads than shards),
    /// the batch goes to the half's observe cells with one `fetch_add` per bucket instead:
    /// nobody ever waits. The sum first, then the buckets, in both cases.
    pub(super) fn merge(&self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        let shard = thread_index() & self.shard_mask;
        let Some(started) = self.cell(shard, STARTED) else {
            return;
        };
        let batch = values.len() as u64;
        if let Some(native) = self.native.as_deref().filter(|_| self.ends_in_native) {
            self.merge_native_only(native, shard, started, values);
            return;
        }
        if self.layout.buckets > MERGE_BUCKETS {
            let half = self.start(started, batch);
            let area = self.layout.area(half, false);
            if let Some(sum) = self.cell(shard, area) {
                add_all_to_f64_bits(sum, values);
            }
            self.merge_native(shard, half, values);
            for &value in values {
                if let Some(cell) = self.cell(shard, area + 1 + self.bucket_index(value)) {
                    cell.fetch_add(1, Ordering::Release);
                }
            }
            return;
        }
        let owned = self.claim_merge_flag(shard);
        let half = self.start(started, batch);
        let area = self.layout.area(half, owned.is_some());
        // Before the classic counts, whose release publishes it (as in `observe`).
        self.merge_native(shard, half, values);
        // With the flag, the area's sum is ours to replay the batch onto; without it, the sum
        // is added afterwards with a compare-and-swap.
        let start = match (owned, self.cell(shard, area)) {
            (Some(_), Some(sum)) => f64::from_bits(sum.load(Ordering::Relaxed)),
            _ => 0.0,
        };
        let mut counts: BatchCounts = [0; MERGE_BUCKETS];
        let exact = |value| self.bucket_index(value);
        let sum = match &self.lookup {
            Some(lookup) => {
                let tables = lookup.tables();
                count_and_add(
                    values,
                    start,
                    &mut counts,
                    |value| tables.index(value),
                    exact,
                )
            }
            None => count_and_add(values, start, &mut counts, exact, exact),
        };
        let counts = counts.get(..self.layout.buckets).unwrap_or(&counts);
        if let Some(flag) = owned {
            if let Some(cell) = self.cell(shard, area) {
                cell.store(sum.to_bits(), Ordering::Relaxed);
            }
            // Every bucket, touched or not: a plain load and store each, no branch. Release:
            // a scrape that sees the counts sees the sum.
            self.add_counts(shard, area + 1, counts, |cell, count| {
                let total = cell.load(Ordering::Relaxed).wrapping_add(count);
                cell.store(total, Ordering::Release);
            });
            // Release: the next holder of the flag sees these stores.
            flag.store(0, Ordering::Release);
        } else {
            if let Some(cell) = self.cell(shard, area) {
                add_all_to_f64_bits(cell, values);
            }
            self.add_counts(shard, area + 1, counts, |cell, count| {
                if count != 0 {
                    cell.fetch_add(count, Ordering::Release);
                }
            });
        }
    }
}

impl HistogramCore {
    /// Adds a batch's values to the native buckets of `half` of `shard`, one atomic add each
    /// (a bucket index costs more than the add; runs of equal values are added at once).
    #[inline]
    fn merge_native(&self, shard: usize, half: usize, values: &[f64]) {
        if let Some(native) = &self.native {
            add_runs(native, shard, half, values);
        }
    }

    /// The merge flag of `shard`, when this merge takes it (acquire: its stores follow the
    /// previous holder's); `None` when another merge holds it.
    #[inline]
    fn claim_merge_flag(&self, shard: usize) -> Option<&AtomicU64> {
        self.cell(shard, MERGE_FLAG).filter(|flag| {
            flag.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// [`merge`](Self::merge) into a native-only histogram, whose records end on their
    /// native counts (see [`HistogramCore::ends_in_native`]): the batch counted as started,
    /// its sum, then its native buckets (one atomic add per run of equal values), then the
    /// values no native table took (none: NaN counts as +Inf there) in the `+Inf` cell. As in the classic merge, the
    /// holder of the shard's merge flag writes the merge area's sum and `+Inf` with plain
    /// loads and stores, and a merge that finds the flag taken adds to the observe area.
    /// Out of line, so that the classic merge's loop compiles as it would without it.
    #[inline(never)]
    fn merge_native_only(
        &self,
        native: &NativeCore,
        shard: usize,
        started: &AtomicU64,
        values: &[f64],
    ) {
        let owned = self.claim_merge_flag(shard);
        let half = self.start(started, values.len() as u64);
        let area = self.layout.area(half, owned.is_some());
        if let Some(sum) = self.cell(shard, area) {
            match owned {
                Some(_) => {
                    let total = add_in_order(f64::from_bits(sum.load(Ordering::Relaxed)), values);
                    sum.store(total.to_bits(), Ordering::Relaxed);
                }
                None => add_all_to_f64_bits(sum, values),
            }
        }
        // Released, after the sum: each ends the records it counts.
        let uncounted = values.len() - add_runs(native, shard, half, values);
        let infinite = self.cell(shard, area + self.layout.buckets);
        match (owned, infinite) {
            (Some(flag), infinite) => {
                if let Some(infinite) = infinite.filter(|_| uncounted > 0) {
                    let total = infinite
                        .load(Ordering::Relaxed)
                        .wrapping_add(uncounted as u64);
                    infinite.store(total, Ordering::Release);
                }
                // Release: the next holder of the flag sees these stores.
                flag.store(0, Ordering::Release);
            }
            (None, Some(infinite)) if uncounted > 0 => {
                infinite.fetch_add(uncounted as u64, Ordering::Release);
            }
            (None, _) => {}
        }
    }
}

/// Adds `values` to the native buckets of `half` of `shard`, a run of equal values at once,
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
