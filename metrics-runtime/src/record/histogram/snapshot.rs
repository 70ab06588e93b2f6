//! Reading a histogram: [`HistogramSnapshot`], the state a scrape encodes.

use super::native_totals::NativeSnapshot;
use super::shards::{HalfTotals, HistogramCore, ScrapeState, COUNT_MASK, HOT_BIT, STARTED};
use super::sync::{lock, spin_wait, Ordering};

impl HistogramCore {
    /// Reads the histogram's current state: `count()`, `sum()` and every bucket from one set
    /// of observations, whatever records race the read.
    ///
    /// Records write to the *hot* one of two halves of cells. A snapshot turns the other half
    /// hot, waits until the records that started in the now cold half before the turn have
    /// finished (records take a few nanoseconds; the wait spins, then yields), and reads the
    /// cold half. Together with what the previous snapshot read of the other half, that is
    /// every observation started before the turn and none after it. Records never wait for a
    /// snapshot; snapshots of one histogram take turns (a lock only they take).
    pub(super) fn snapshot(&self) -> HistogramSnapshot {
        let mut state = lock(&self.scrape);
        let state = &mut *state;
        if let Some(native) = &self.native {
            return self.native_snapshot(native, state);
        }
        let (cold, totals) = self.turn(state, false);
        let hot = 1 - cold;
        state.complete[cold] = totals;
        let [first, second] = &state.complete;
        HistogramSnapshot {
            bounds: self.bounds.to_vec(),
            bucket_counts: first
                .buckets
                .iter()
                .zip(second.buckets.iter())
                .map(|(a, b)| a.wrapping_add(*b))
                .collect(),
            // The half read now first: with no earlier snapshot during the recording, the
            // other half holds nothing and adding its 0.0 is exact.
            sum: saturating_sum(state.complete[cold].sum, state.complete[hot].sum),
            native: None,
        }
    }

    /// Turns the cold half hot in every shard, waits for the records started in the half
    /// turned cold, and returns that half and its totals over all shards.
    ///
    /// With `drain`, the half's cells are cleared once read (the totals are what was added
    /// since the half was last drained); without, they keep growing and the totals are
    /// everything the half ever held. `state.counted` keeps, per shard and half, how many
    /// observations the half has held in all (read or drained), so that the wait knows what
    /// to expect either way.
    pub(super) fn turn(&self, state: &mut ScrapeState, drain: bool) -> (usize, HalfTotals) {
        let cold = state.hot;
        let hot = 1 - cold;
        let mut totals = HalfTotals::zero(self.layout.buckets);
        for (shard, counted) in state.counted.iter_mut().enumerate() {
            let Some(started) = self.cell(shard, STARTED) else {
                continue;
            };
            // Every record that added to the count before this turn writes the cold half;
            // the half holds them and what it held when last read.
            let before = started.fetch_add(HOT_BIT, Ordering::AcqRel);
            let in_cold = (before & COUNT_MASK).wrapping_sub(counted[hot]) & COUNT_MASK;
            let already_drained = if drain { counted[cold] } else { 0 };
            let in_cells = in_cold.wrapping_sub(already_drained) & COUNT_MASK;
            self.wait_until_complete(shard, cold, in_cells);
            self.add_half(shard, cold, &mut totals);
            if drain {
                self.clear_half(shard, cold);
            }
            counted[cold] = in_cold;
        }
        state.hot = hot;
        (cold, totals)
    }

    /// The bucket counts of `half` of `shard`, both areas, added up.
    fn half_count(&self, shard: usize, half: usize) -> u64 {
        let counts = |merged| {
            let first = self.layout.area(half, merged) + 1;
            (first..first + self.layout.buckets).fold(0u64, |total, cell| {
                // Acquire: a record's sum is written before its counts, so it is visible
                // once its counts are.
                let count = self
                    .cell(shard, cell)
                    .map_or(0, |c| c.load(Ordering::Acquire));
                total.wrapping_add(count)
            })
        };
        counts(false).wrapping_add(counts(true))
    }

    /// Waits until `half` of `shard` holds `expected` observations: the records that started
    /// there before the scrape turned it cold have all finished. Counts only grow, and none is
    /// started in a cold half, so the total reaches `expected` exactly.
    fn wait_until_complete(&self, shard: usize, half: usize, expected: u64) {
        let mut turn = 0u32;
        while self.half_count(shard, half) & COUNT_MASK != expected {
            spin_wait(turn);
            turn = turn.saturating_add(1);
        }
    }

    /// Clears `half` of `shard` (complete, read, and written by no record until a scrape turns
    /// it hot again: that turn releases these stores to every record started after it).
    fn clear_half(&self, shard: usize, half: usize) {
        for merged in [false, true] {
            let area = self.layout.area(half, merged);
            for cell in area..=area + self.layout.buckets {
                if let Some(cell) = self.cell(shard, cell) {
                    cell.store(0, Ordering::Relaxed);
                }
            }
        }
    }

    /// Adds `half` of `shard` (complete, see [`Self::wait_until_complete`]) into `totals`.
    fn add_half(&self, shard: usize, half: usize, totals: &mut HalfTotals) {
        let load = |cell| {
            self.cell(shard, cell)
                .map_or(0, |c| c.load(Ordering::Acquire))
        };
        for merged in [false, true] {
            let area = self.layout.area(half, merged);
            for (bucket, total) in totals.buckets.iter_mut().enumerate() {
                *total = total.wrapping_add(load(area + 1 + bucket));
            }
            totals.sum = saturating_sum(totals.sum, f64::from_bits(load(area)));
        }
    }
}

/// `a + b`, saturating at `±f64::MAX`.
pub(super) fn saturating_sum(a: f64, b: f64) -> f64 {
    (a + b).clamp(-f64::MAX, f64::MAX)
}

/// A point-in-time copy of a [`Histogram`](crate::Histogram)'s state.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSnapshot {
    pub(super) bounds: Vec<f64>,
    pub(super) bucket_counts: Vec<u64>,
    pub(super) sum: f64,
    pub(super) native: Option<NativeSnapshot>,
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

    /// The native buckets, for a histogram that has them.
    pub fn native(&self) -> Option<&NativeSnapshot> {
        self.native.as_ref()
    }

    /// `(upper bound, non-cumulative count)` pairs including `(+Inf, n)`, the shape
    /// prometheus-client's encoder expects.
    pub(super) fn encoder_buckets(&self) -> Vec<(f64, u64)> {
        self.bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(self.bucket_counts.iter().copied())
            .collect()
    }
}
