//! Reading a histogram: [`HistogramSnapshot`], the state a scrape encodes.

use super::native_totals::NativeSnapshot;
use super::shards::{HalfTotals, HistogramCore, ScrapeState, COUNT_MASK, HOT_BIT, STARTED};
use super::sync::{lock, spin_wait, Ordering};
use super::thread_shard::MAX_SHARDS;

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
        let mut bucket_counts = Vec::new();
        let sum = self.read_classic(state, &mut bucket_counts);
        HistogramSnapshot {
            bounds: self.bounds.to_vec(),
            bucket_counts,
            sum,
            native: None,
        }
    }

    /// [`snapshot`](Self::snapshot)'s classic part without allocating: the non-cumulative
    /// bucket counts (`+Inf` last) replace the contents of `counts`, and the sum is returned.
    /// Once `counts` has room for the buckets, reading a histogram without native buckets
    /// allocates nothing (what a scrape into a reused buffer needs); one with native buckets
    /// is read through a whole snapshot, which drains them and enforces their limit.
    pub(super) fn read_into(&self, counts: &mut Vec<u64>) -> f64 {
        let mut state = lock(&self.scrape);
        let state = &mut *state;
        if let Some(native) = &self.native {
            let snapshot = self.native_snapshot(native, state);
            counts.clear();
            counts.extend_from_slice(&snapshot.bucket_counts);
            return snapshot.sum;
        }
        self.read_classic(state, counts)
    }

    /// Turns the halves and reads the classic buckets and sum of a histogram without native
    /// buckets into `counts`, returning the sum.
    fn read_classic(&self, state: &mut ScrapeState, counts: &mut Vec<u64>) -> f64 {
        // The half turned cold now is read again from its cells into the totals it had when
        // last read (kept as they are when nothing was recorded into it since).
        let mut totals = std::mem::replace(&mut state.complete[state.hot], HalfTotals::empty());
        let cold = self.turn(state, false, &mut totals).cold;
        state.complete[cold] = totals;
        let hot = 1 - cold;
        let [first, second] = &state.complete;
        counts.clear();
        counts.extend(
            first
                .buckets
                .iter()
                .zip(second.buckets.iter())
                .map(|(a, b)| a.wrapping_add(*b)),
        );
        // The half read now first: with no earlier snapshot during the recording, the
        // other half holds nothing and adding its 0.0 is exact.
        saturating_sum(state.complete[cold].sum, state.complete[hot].sum)
    }

    /// Turns the cold half hot in every shard, waits for the records started in the half
    /// turned cold, and returns that half and what each shard recorded into it (so that the
    /// native tables of idle shards can be left unread too), with its classic totals over all
    /// shards in `totals`.
    ///
    /// With `drain`, the half's cells are cleared once read, and `totals` become what was
    /// added since the half was last drained. Without, the cells keep growing, and `totals`,
    /// which the caller passes as the half's totals when last read, become everything the
    /// half ever held. `state.counted` keeps, per shard and half, how many observations the
    /// half has held in all (read or drained), so that the wait knows what to expect either
    /// way.
    ///
    /// A half nobody recorded into since it was last read is not read again: without
    /// `drain`, when that holds in every shard, its totals are still exact (the common case
    /// of a series idle between scrapes, which then costs one locked add per shard); with
    /// `drain`, such a shard's cells are all zero, and it is skipped alone.
    pub(super) fn turn(
        &self,
        state: &mut ScrapeState,
        drain: bool,
        totals: &mut HalfTotals,
    ) -> Turned {
        let cold = state.hot;
        // Per shard: the records its cold half received since it was last read. A histogram
        // has at most `MAX_SHARDS` shards (`shard_count`).
        debug_assert!(state.counted.len() <= MAX_SHARDS);
        let mut fresh = [0u64; MAX_SHARDS];
        for ((shard, counted), fresh) in state.counted.iter_mut().enumerate().zip(&mut fresh) {
            *fresh = self.turn_shard(shard, counted, cold);
        }
        state.hot = 1 - cold;
        let turned = Turned {
            cold,
            fresh,
            shards: state.counted.len().min(MAX_SHARDS),
        };
        let fresh = turned.fresh();
        if !drain && fresh.iter().all(|&n| n == 0) {
            return turned;
        }
        totals.buckets.fill(0);
        totals.sum = 0.0;
        // What a shard's cold half is to hold once its records are complete.
        let expected = |shard: usize, fresh: u64| {
            if drain {
                fresh
            } else {
                state.counted.get(shard).map_or(0, |counted| counted[cold])
            }
        };
        match self.native.as_deref().filter(|_| self.ends_in_native) {
            // A native-only histogram's records end in native tables, which shards can
            // share: wait for all of the half at once.
            Some(native) => {
                let all = fresh.iter().fold(0u64, |all, &n| all.wrapping_add(n));
                if all & COUNT_MASK == 0 {
                    return turned;
                }
                let shards = 0..fresh.len();
                self.wait_until(all & COUNT_MASK, || {
                    let classic = shards.clone().map(|shard| self.half_count(shard, cold));
                    classic.fold(native.observations(cold, fresh), u64::wrapping_add)
                });
                for (shard, _) in fresh.iter().enumerate().filter(|(_, &n)| n != 0) {
                    self.take_half(shard, cold, drain, totals);
                }
            }
            None => {
                for (shard, &fresh) in fresh.iter().enumerate() {
                    if drain && fresh == 0 {
                        continue;
                    }
                    self.wait_until(expected(shard, fresh), || self.half_count(shard, cold));
                    self.take_half(shard, cold, drain, totals);
                }
            }
        }
        turned
    }

    /// Turns the other half of `shard` hot and returns how many records its now `cold` half
    /// received since it was last read, counting those started there that have yet to finish
    /// (`counted`: the shard's per-half counts, see [`Self::turn`], updated here).
    fn turn_shard(&self, shard: usize, counted: &mut [u64; 2], cold: usize) -> u64 {
        let hot = 1 - cold;
        let Some(started) = self.cell(shard, STARTED) else {
            return 0;
        };
        // Every record that added to the count before this turn writes the cold half; the
        // half holds them and what it held when last read.
        let before = started.fetch_add(HOT_BIT, Ordering::AcqRel);
        let in_cold = (before & COUNT_MASK).wrapping_sub(counted[hot]) & COUNT_MASK;
        let fresh = in_cold.wrapping_sub(counted[cold]) & COUNT_MASK;
        counted[cold] = in_cold;
        fresh
    }

    /// Adds `half` of `shard` (complete) into `totals`, and clears it with `drain`.
    fn take_half(&self, shard: usize, half: usize, drain: bool, totals: &mut HalfTotals) {
        self.add_half(shard, half, totals);
        if drain {
            self.clear_half(shard, half);
        }
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

    /// Waits until `count` (of a half's records) reaches `expected`: the records that started
    /// there before the scrape turned it cold have all finished. Counts only grow, and none is
    /// started in a cold half, so the total reaches `expected` exactly.
    fn wait_until(&self, expected: u64, count: impl Fn() -> u64) {
        let mut turn = 0u32;
        while count() & COUNT_MASK != expected {
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

    /// Adds `half` of `shard` (complete, see [`Self::wait_until`]) into `totals`.
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

/// What [`HistogramCore::turn`] did: the half it turned cold, and what each shard had
/// recorded into that half since it was last read.
pub(super) struct Turned {
    /// The half turned cold, read (and drained, with `drain`).
    pub(super) cold: usize,
    fresh: [u64; MAX_SHARDS],
    shards: usize,
}

impl Turned {
    /// Per classic shard: the records started in the cold half since it was last read
    /// (drained, for a histogram with native buckets). A native table of that half is written
    /// only by records started in a classic shard it serves, so the table of a shard whose
    /// shards all show 0 here is as its last drain left it: empty.
    pub(super) fn fresh(&self) -> &[u64] {
        &self.fresh[..self.shards]
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
