//! Reading a histogram: [`HistogramSnapshot`], the state a scrape encodes.

use super::native_totals::NativeSnapshot;
use super::shards::{Block, HalfTotals, HistogramCore, COUNT_MASK, HOT_BIT, MAX_BLOCKS};
use super::sync::{lock, spin_wait, Ordering};

impl HistogramCore {
    /// Reads the histogram's current state: `count()`, `sum()` and every bucket from one set
    /// of observations, whatever records race the read.
    ///
    /// Records write to the *hot* one of two halves of cells. A snapshot turns the other half
    /// hot, waits until the records that started in the now cold half before the turn have
    /// finished (records take a few nanoseconds; the wait spins, then yields), and reads the
    /// cold half. Together with what the other half held before the turn, that is every
    /// observation started before the turn and none after it. Records never wait for a
    /// snapshot; snapshots of one histogram take turns (a lock only they take).
    pub(super) fn snapshot(&self) -> HistogramSnapshot {
        let mut state = lock(&self.scrape);
        if let Some(native) = &self.native {
            return self.native_snapshot(native, &mut state);
        }
        let mut bucket_counts = vec![0; self.layout.buckets];
        let sum = self.read_classic(&mut bucket_counts);
        drop(state);
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
        if let Some(native) = &self.native {
            let snapshot = self.native_snapshot(native, &mut state);
            counts.clear();
            counts.extend_from_slice(&snapshot.bucket_counts);
            return snapshot.sum;
        }
        counts.clear();
        counts.resize(self.layout.buckets, 0);
        self.read_classic(counts)
    }

    /// The half records write now, the same in every block. Read with the scrape lock held,
    /// which every turn and every new block is made under.
    pub(super) fn hot_half(&self) -> usize {
        let started = self.base().started();
        started.map_or(0, |s| usize::from(s.load(Ordering::Relaxed) & HOT_BIT != 0))
    }

    /// Reads a histogram without native buckets into `counts` (zeroed, one per bucket) and
    /// returns its sum, with the scrape lock held. Its cells only grow, so its totals are the
    /// two halves of every block added up:
    /// 1. the cold half of each block, complete (the last scrape waited for its records, and
    ///    none started there since), and the observations it holds;
    /// 2. the turn: each block's other half turned cold, its started count read in the same
    ///    instruction; the observations started in that half are the count less what the
    ///    first half holds;
    /// 3. each block's half turned cold, once it holds them all.
    fn read_classic(&self, counts: &mut [u64]) -> f64 {
        let mut sum = 0.0;
        let complete = 1 - self.hot_half();
        let mut held = [0u64; MAX_BLOCKS];
        self.for_each_block(|index, block| {
            if let Some(held) = held.get_mut(index) {
                *held = self.add_half(index, block, complete, counts, &mut sum);
            }
        });
        let mut expected = [0u64; MAX_BLOCKS];
        self.for_each_block(|index, block| {
            if let (Some(expected), Some(&held)) = (expected.get_mut(index), held.get(index)) {
                *expected = turn(block).wrapping_sub(held) & COUNT_MASK;
            }
        });
        let cold = 1 - complete;
        self.for_each_block(|index, block| {
            let expected = expected.get(index).copied().unwrap_or(0);
            wait_until(expected, || self.half_count(index, block, cold));
            self.add_half(index, block, cold, counts, &mut sum);
        });
        sum
    }

    /// Turns the cold half hot in every block of a histogram with native buckets, waits for
    /// the records started in the half turned cold, adds its classic totals over all blocks
    /// into `totals` and clears it (a *drain*), and returns that half and what each block had
    /// recorded into it (so that the native tables of idle blocks can be left unread too).
    ///
    /// Each block's started count holds the observations not drained yet, which after the
    /// last drain are all in the half turned cold now; the drain takes them off again. A
    /// block nobody recorded into since is skipped: its cells are all zero.
    pub(super) fn drain_turn(&self, totals: &mut HalfTotals) -> Turned {
        let cold = self.hot_half();
        let mut turned = Turned {
            cold,
            fresh: [0; MAX_BLOCKS],
            blocks: 0,
        };
        self.for_each_block(|index, block| {
            if let Some(fresh) = turned.fresh.get_mut(index) {
                *fresh = turn(block);
                turned.blocks = index + 1;
            }
        });
        let fresh = turned.fresh;
        match self.native.as_deref().filter(|_| self.ends_in_native) {
            // A native-only histogram's records end in native tables, which blocks can
            // share: wait for all of the half at once.
            Some(native) => {
                let all = fresh.iter().fold(0u64, |all, &n| all.wrapping_add(n)) & COUNT_MASK;
                if all == 0 {
                    return turned;
                }
                self.wait_until_all(cold, all, || native.observations(cold, turned.fresh()));
                self.for_each_block(|index, block| {
                    let fresh = fresh.get(index).copied().unwrap_or(0);
                    if fresh != 0 {
                        self.drain_half(index, block, cold, fresh, totals);
                    }
                });
            }
            None => self.for_each_block(|index, block| {
                let fresh = fresh.get(index).copied().unwrap_or(0);
                if fresh != 0 {
                    wait_until(fresh, || self.half_count(index, block, cold));
                    self.drain_half(index, block, cold, fresh, totals);
                }
            }),
        }
        turned
    }

    /// Waits until the classic counts of `half` of every block, plus `native` (the native
    /// tables' count of it), reach `expected`.
    fn wait_until_all(&self, half: usize, expected: u64, native: impl Fn() -> u64) {
        wait_until(expected, || {
            let mut total = native();
            self.for_each_block(|index, block| {
                total = total.wrapping_add(self.half_count(index, block, half));
            });
            total
        });
    }
}

/// Turns `block`'s other half hot, and returns the block's started count as it was.
fn turn(block: Block<'_>) -> u64 {
    block.started().map_or(0, |started| {
        started.fetch_add(HOT_BIT, Ordering::AcqRel) & COUNT_MASK
    })
}

/// Waits until `count` (of a half's records) reaches `expected`: the records that started
/// there before the scrape turned it cold have all finished. Counts only grow, and none is
/// started in a cold half, so the total reaches `expected` exactly.
fn wait_until(expected: u64, count: impl Fn() -> u64) {
    let mut turn = 0u32;
    while count() & COUNT_MASK != expected {
        spin_wait(turn);
        turn = turn.saturating_add(1);
    }
}

/// The bucket counts of `half` of `cells` (a block or a merge area), added up.
fn count_of(cells: Block<'_>, half: usize) -> u64 {
    // Acquire: a record's sum is written before its counts, so it is visible once its
    // counts are.
    let buckets = cells.buckets(half);
    buckets.fold(0u64, |total, cell| {
        total.wrapping_add(cell.load(Ordering::Acquire))
    })
}

/// Adds `half` of `cells` (a block or a merge area, complete, see [`wait_until`]) into
/// `counts` and `sum`, and returns the observations it holds.
fn add_cells(cells: Block<'_>, half: usize, counts: &mut [u64], sum: &mut f64) -> u64 {
    let mut held = 0u64;
    for (total, cell) in counts.iter_mut().zip(cells.buckets(half)) {
        let count = cell.load(Ordering::Acquire);
        *total = total.wrapping_add(count);
        held = held.wrapping_add(count);
    }
    if let Some(cell) = cells.sum(half) {
        *sum = saturating_sum(*sum, f64::from_bits(cell.load(Ordering::Acquire)));
    }
    held
}

/// Clears `half` of `cells` (complete, read, and written by no record until a scrape turns it
/// hot again: that turn releases these stores to every record started after it).
fn clear_cells(cells: Block<'_>, half: usize) {
    if let Some(sum) = cells.sum(half) {
        sum.store(0, Ordering::Relaxed);
    }
    for cell in cells.buckets(half) {
        cell.store(0, Ordering::Relaxed);
    }
}

impl HistogramCore {
    /// The bucket counts of `half` of block `index` and of its merge area, added up. Reads
    /// the merge area's pointer each time: a merge that made it may be the one waited for.
    fn half_count(&self, index: usize, block: Block<'_>, half: usize) -> u64 {
        let merged = self
            .merge_area(index)
            .map_or(0, |area| count_of(area, half));
        count_of(block, half).wrapping_add(merged)
    }

    /// Adds `half` of block `index` and of its merge area (complete) into `counts` and `sum`,
    /// and returns the observations they hold.
    fn add_half(
        &self,
        index: usize,
        block: Block<'_>,
        half: usize,
        counts: &mut [u64],
        sum: &mut f64,
    ) -> u64 {
        let held = add_cells(block, half, counts, sum);
        let merged = self
            .merge_area(index)
            .map_or(0, |area| add_cells(area, half, counts, sum));
        held.wrapping_add(merged)
    }

    /// Adds `half` of block `index` and of its merge area into `totals`, clears them, and
    /// takes their `fresh` observations off the block's started count.
    fn drain_half(
        &self,
        index: usize,
        block: Block<'_>,
        half: usize,
        fresh: u64,
        totals: &mut HalfTotals,
    ) {
        self.add_half(index, block, half, &mut totals.buckets, &mut totals.sum);
        clear_cells(block, half);
        if let Some(area) = self.merge_area(index) {
            clear_cells(area, half);
        }
        if let Some(started) = block.started() {
            started.fetch_sub(fresh, Ordering::Relaxed);
        }
    }
}

/// What [`HistogramCore::drain_turn`] did: the half it turned cold, and what each block had
/// recorded into that half since it was last drained.
pub(super) struct Turned {
    /// The half turned cold, read and drained.
    pub(super) cold: usize,
    fresh: [u64; MAX_BLOCKS],
    blocks: usize,
}

impl Turned {
    /// Per block: the records started in the cold half since it was last drained. A native
    /// table of that half is written only by records started in a block it serves, so the
    /// table of a block that shows 0 here is as its last drain left it: empty.
    pub(super) fn fresh(&self) -> &[u64] {
        self.fresh.get(..self.blocks).unwrap_or(&[])
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
