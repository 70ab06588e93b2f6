//! The per-engine log-stats accumulator: spec-decode and CUDA-graph figures that are not
//! exported as metrics but summed per interval for the periodic log line, as vLLM does.
//!
//! [`LogStatsInterval`] is the plain-value form (sum of drafts, element-wise per-position sum,
//! CUDA-graph key counts). [`LogStatsAccumulator`] is the concurrent form the scheduler recorder
//! writes into: atomics for drafts and the pre-resolved positions, so recording spec-decode stats
//! takes no lock; a mutex only for positions beyond the configured count and for CUDA-graph
//! stats (both rare, and the latter carries a heap string anyway).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::vllm::scheduler::cudagraph::{CudagraphCounts, CudagraphKey};
use crate::vllm::scheduler::input::CudagraphStats;
use crate::vllm::sync::lock;

/// The most per-position spec-decode values the log stats keep: positions at or past it are
/// summed into [`LogStatsInterval::accepted_beyond_logged`], so the log line's per-position list
/// stays short whatever vector the engine reports (every token is still counted).
pub const MAX_LOGGED_POSITIONS: usize = 128;

/// What one engine accumulated since the last drain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogStatsInterval {
    /// Speculative-decoding drafts.
    pub num_drafts: u64,
    /// Accepted tokens per draft position, summed element-wise (as long as the longest vector
    /// seen, at most [`MAX_LOGGED_POSITIONS`]).
    pub accepted_per_pos: Vec<u64>,
    /// Accepted tokens at positions [`MAX_LOGGED_POSITIONS`] and beyond, summed.
    pub accepted_beyond_logged: u64,
    /// How many steps reported each CUDA-graph padding shape, in first-seen order (at most
    /// [`MAX_CUDAGRAPH_SHAPES`](crate::vllm::scheduler::MAX_CUDAGRAPH_SHAPES) shapes).
    pub cudagraph: Vec<(CudagraphKey, u64)>,
    /// Steps whose CUDA-graph shape was not kept: it came after
    /// [`MAX_CUDAGRAPH_SHAPES`](crate::vllm::scheduler::MAX_CUDAGRAPH_SHAPES) others in the interval.
    pub cudagraph_other_steps: u64,
}

impl LogStatsInterval {
    /// Adds one step's spec-decode stats. Sums saturate.
    ///
    /// ```
    /// use metric_handles::vllm::log::LogStatsInterval;
    /// let mut interval = LogStatsInterval::default();
    /// interval.add_spec_decode(2, &[1, 2]);
    /// interval.add_spec_decode(3, &[3, 4, 5]);
    /// assert_eq!(interval.num_drafts, 5);
    /// assert_eq!(interval.accepted_per_pos, [4, 6, 5]);
    /// ```
    pub fn add_spec_decode(&mut self, num_drafts: u64, accepted_per_pos: &[u64]) {
        self.num_drafts = self.num_drafts.saturating_add(num_drafts);
        let beyond = add_elementwise(&mut self.accepted_per_pos, accepted_per_pos);
        self.accepted_beyond_logged = self.accepted_beyond_logged.saturating_add(beyond);
    }

    /// Counts one step's CUDA-graph padding shape.
    pub fn add_cudagraph(&mut self, stats: &CudagraphStats) {
        let mut counts = self.take_cudagraph();
        counts.add_stats(stats);
        self.put_cudagraph(counts);
    }

    /// Adds another interval (another engine's, for a line over all engines).
    pub fn merge(&mut self, other: &LogStatsInterval) {
        self.num_drafts = self.num_drafts.saturating_add(other.num_drafts);
        let beyond = add_elementwise(&mut self.accepted_per_pos, &other.accepted_per_pos);
        self.accepted_beyond_logged = self
            .accepted_beyond_logged
            .saturating_add(other.accepted_beyond_logged)
            .saturating_add(beyond);
        let mut counts = self.take_cudagraph();
        for (key, count) in &other.cudagraph {
            counts.add_key(key, *count);
        }
        counts.add_other(other.cudagraph_other_steps);
        self.put_cudagraph(counts);
    }

    fn take_cudagraph(&mut self) -> CudagraphCounts {
        let mut counts = CudagraphCounts::default();
        for (key, count) in std::mem::take(&mut self.cudagraph) {
            counts.add_key(&key, count);
        }
        counts.add_other(std::mem::take(&mut self.cudagraph_other_steps));
        counts
    }

    fn put_cudagraph(&mut self, counts: CudagraphCounts) {
        (self.cudagraph, self.cudagraph_other_steps) = counts.into_parts();
    }
}

/// Adds `values` element-wise into `into`, which grows up to [`MAX_LOGGED_POSITIONS`];
/// returns the sum of the values past it.
fn add_elementwise(into: &mut Vec<u64>, values: &[u64]) -> u64 {
    let kept = values.len().min(MAX_LOGGED_POSITIONS);
    if into.len() < kept {
        into.resize(kept, 0);
    }
    for (sum, v) in into.iter_mut().zip(&values[..kept]) {
        *sum = sum.saturating_add(*v);
    }
    values[kept..]
        .iter()
        .fold(0u64, |sum, v| sum.saturating_add(*v))
}

/// The concurrent accumulator of one engine.
#[derive(Debug)]
pub(crate) struct LogStatsAccumulator {
    num_drafts: AtomicU64,
    /// Longest per-position vector seen since the last drain.
    per_pos_len: AtomicUsize,
    /// Positions `0..N`, N = the configured number of speculative tokens.
    per_pos: Box<[AtomicU64]>,
    /// Positions `N..MAX_LOGGED_POSITIONS`, index `p - N` (cold: a misconfigured or changed
    /// draft length), and the sum of the positions past them.
    beyond: Mutex<(Vec<u64>, u64)>,
    cudagraph: Mutex<CudagraphCounts>,
}

impl LogStatsAccumulator {
    pub(crate) fn new(positions: usize) -> Self {
        LogStatsAccumulator {
            num_drafts: AtomicU64::new(0),
            per_pos_len: AtomicUsize::new(0),
            per_pos: (0..positions.min(MAX_LOGGED_POSITIONS))
                .map(|_| AtomicU64::new(0))
                .collect(),
            beyond: Mutex::new((Vec::new(), 0)),
            cudagraph: Mutex::new(CudagraphCounts::default()),
        }
    }

    /// Adds one step's spec-decode stats: atomics only while every position is pre-resolved.
    pub(crate) fn add_spec_decode(&self, num_drafts: u64, accepted_per_pos: &[u64]) {
        add_saturating(&self.num_drafts, num_drafts);
        self.per_pos_len.fetch_max(
            accepted_per_pos.len().min(MAX_LOGGED_POSITIONS),
            Ordering::Relaxed,
        );
        let cached = self.per_pos.len().min(accepted_per_pos.len());
        for (slot, v) in self.per_pos.iter().zip(&accepted_per_pos[..cached]) {
            add_saturating(slot, *v);
        }
        if accepted_per_pos.len() > cached {
            let mut beyond = lock(&self.beyond);
            let (positions, past) = &mut *beyond;
            // `positions` starts at `cached`, so it may hold `MAX_LOGGED_POSITIONS - cached`.
            let rest = &accepted_per_pos[cached..];
            let kept = rest.len().min(MAX_LOGGED_POSITIONS - cached);
            let sum_past = add_elementwise(positions, &rest[..kept]);
            *past = past
                .saturating_add(sum_past)
                .saturating_add(rest[kept..].iter().fold(0u64, |s, v| s.saturating_add(*v)));
        }
    }

    pub(crate) fn add_cudagraph(&self, stats: &CudagraphStats) {
        lock(&self.cudagraph).add_stats(stats);
    }

    /// Returns the totals since the last drain and resets them. A record racing with the drain
    /// lands either in this interval or the next, never in both and never lost.
    pub(crate) fn drain(&self) -> LogStatsInterval {
        let len = self.per_pos_len.swap(0, Ordering::Relaxed);
        let mut accepted_per_pos: Vec<u64> = self.per_pos.iter().map(drain_cell).collect();
        let (beyond, accepted_beyond_logged) = std::mem::take(&mut *lock(&self.beyond));
        accepted_per_pos.extend(beyond);
        // A racing record may have bumped a slot past `len` after the swap above; keep the
        // counts rather than truncate them away.
        let used = accepted_per_pos
            .iter()
            .rposition(|&v| v != 0)
            .map_or(0, |i| i + 1);
        accepted_per_pos.truncate(len.max(used));
        let (cudagraph, cudagraph_other_steps) =
            std::mem::take(&mut *lock(&self.cudagraph)).into_parts();
        LogStatsInterval {
            num_drafts: drain_cell(&self.num_drafts),
            accepted_per_pos,
            accepted_beyond_logged,
            cudagraph,
            cudagraph_other_steps,
        }
    }
}

/// Adds `delta` to a cell, saturating at `u64::MAX` rather than wrapping to a small total.
/// Once per scheduler step and position, off the per-token path: a compare-and-swap loop is
/// cheap enough, and a `swap` by [`drain_cell`] between its load and its store only makes it
/// retry.
fn add_saturating(cell: &AtomicU64, delta: u64) {
    let _ = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |total| {
        Some(total.saturating_add(delta))
    });
}

/// Takes a cell's total and resets it to 0.
fn drain_cell(cell: &AtomicU64) -> u64 {
    cell.swap(0, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_saturate_instead_of_wrapping() {
        let acc = LogStatsAccumulator::new(1);
        acc.add_spec_decode(u64::MAX - 1, &[u64::MAX - 1]);
        acc.add_spec_decode(5, &[5]);
        let drained = acc.drain();
        assert_eq!(drained.num_drafts, u64::MAX);
        assert_eq!(drained.accepted_per_pos, [u64::MAX]);
        assert_eq!(acc.drain().num_drafts, 0, "drained to zero");
    }

    #[test]
    fn the_spec_example_drains_the_same_with_any_number_of_preresolved_positions() {
        for positions in [0, 2, 3, 8] {
            let acc = LogStatsAccumulator::new(positions);
            acc.add_spec_decode(2, &[1, 2]);
            acc.add_spec_decode(3, &[3, 4, 5]);
            let drained = acc.drain();
            assert_eq!(drained.num_drafts, 5, "positions {positions}");
            assert_eq!(drained.accepted_per_pos, [4, 6, 5], "positions {positions}");
            assert_eq!(acc.drain(), LogStatsInterval::default(), "drain resets");
        }
    }

    #[test]
    fn cudagraph_shapes_are_counted_by_key() {
        let acc = LogStatsAccumulator::new(0);
        let a = CudagraphStats {
            num_unpadded_tokens: 3,
            num_padded_tokens: 4,
            num_paddings: 1,
            runtime_mode: "FULL".into(),
        };
        let b = CudagraphStats {
            runtime_mode: "PIECEWISE".into(),
            ..a.clone()
        };
        acc.add_cudagraph(&a);
        acc.add_cudagraph(&b);
        acc.add_cudagraph(&a);
        let drained = acc.drain();
        assert_eq!(
            drained.cudagraph,
            [(CudagraphKey::from(&a), 2), (CudagraphKey::from(&b), 1)]
        );
        let mut merged = drained.clone();
        merged.merge(&drained);
        assert_eq!(merged.cudagraph[0].1, 4);
    }

    #[test]
    fn merging_intervals_adds_elementwise() {
        let mut a = LogStatsInterval::default();
        a.add_spec_decode(1, &[1]);
        let mut b = LogStatsInterval::default();
        b.add_spec_decode(2, &[1, 1, 1]);
        a.merge(&b);
        assert_eq!((a.num_drafts, a.accepted_per_pos), (3, vec![2, 1, 1]));
    }
}
