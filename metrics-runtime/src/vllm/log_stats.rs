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

use super::types::CudagraphStats;

/// One CUDA-graph padding shape, the key the accumulator counts by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudagraphKey {
    /// Tokens before padding.
    pub num_unpadded_tokens: u64,
    /// Tokens after padding.
    pub num_padded_tokens: u64,
    /// Padding tokens added.
    pub num_paddings: u64,
    /// The CUDA-graph runtime mode.
    pub runtime_mode: String,
}

impl CudagraphKey {
    fn matches(&self, stats: &CudagraphStats) -> bool {
        self.num_unpadded_tokens == stats.num_unpadded_tokens
            && self.num_padded_tokens == stats.num_padded_tokens
            && self.num_paddings == stats.num_paddings
            && self.runtime_mode == stats.runtime_mode
    }
}

impl From<&CudagraphStats> for CudagraphKey {
    fn from(stats: &CudagraphStats) -> Self {
        CudagraphKey {
            num_unpadded_tokens: stats.num_unpadded_tokens,
            num_padded_tokens: stats.num_padded_tokens,
            num_paddings: stats.num_paddings,
            runtime_mode: stats.runtime_mode.clone(),
        }
    }
}

/// What one engine accumulated since the last drain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogStatsInterval {
    /// Speculative-decoding drafts.
    pub num_drafts: u64,
    /// Accepted tokens per draft position, summed element-wise (as long as the longest vector
    /// seen).
    pub accepted_per_pos: Vec<u64>,
    /// How many steps reported each CUDA-graph padding shape, in first-seen order.
    pub cudagraph: Vec<(CudagraphKey, u64)>,
}

impl LogStatsInterval {
    /// Adds one step's spec-decode stats. Sums saturate.
    ///
    /// ```
    /// use metric_handles::vllm::LogStatsInterval;
    /// let mut interval = LogStatsInterval::default();
    /// interval.add_spec_decode(2, &[1, 2]);
    /// interval.add_spec_decode(3, &[3, 4, 5]);
    /// assert_eq!(interval.num_drafts, 5);
    /// assert_eq!(interval.accepted_per_pos, [4, 6, 5]);
    /// ```
    pub fn add_spec_decode(&mut self, num_drafts: u64, accepted_per_pos: &[u64]) {
        self.num_drafts = self.num_drafts.saturating_add(num_drafts);
        add_elementwise(&mut self.accepted_per_pos, accepted_per_pos);
    }

    /// Counts one step's CUDA-graph padding shape.
    pub fn add_cudagraph(&mut self, stats: &CudagraphStats) {
        add_cudagraph_count(&mut self.cudagraph, stats, 1);
    }

    /// Adds another interval (another engine's, for a line over all engines).
    pub fn merge(&mut self, other: &LogStatsInterval) {
        self.num_drafts = self.num_drafts.saturating_add(other.num_drafts);
        add_elementwise(&mut self.accepted_per_pos, &other.accepted_per_pos);
        for (key, count) in &other.cudagraph {
            match self.cudagraph.iter_mut().find(|(k, _)| k == key) {
                Some((_, c)) => *c = c.saturating_add(*count),
                None => self.cudagraph.push((key.clone(), *count)),
            }
        }
    }
}

fn add_elementwise(into: &mut Vec<u64>, values: &[u64]) {
    if into.len() < values.len() {
        into.resize(values.len(), 0);
    }
    for (sum, v) in into.iter_mut().zip(values) {
        *sum = sum.saturating_add(*v);
    }
}

fn add_cudagraph_count(into: &mut Vec<(CudagraphKey, u64)>, stats: &CudagraphStats, n: u64) {
    // Few distinct shapes per interval: a linear scan compares in place, so only a new shape
    // allocates (its key).
    match into.iter_mut().find(|(k, _)| k.matches(stats)) {
        Some((_, count)) => *count = count.saturating_add(n),
        None => into.push((CudagraphKey::from(stats), n)),
    }
}

/// The concurrent accumulator of one engine.
#[derive(Debug)]
pub(crate) struct LogStatsAccumulator {
    num_drafts: AtomicU64,
    /// Longest per-position vector seen since the last drain.
    per_pos_len: AtomicUsize,
    /// Positions `0..N`, N = the configured number of speculative tokens.
    per_pos: Box<[AtomicU64]>,
    /// Positions `N..`, index `p - N` (cold: a misconfigured or changed draft length).
    beyond: Mutex<Vec<u64>>,
    cudagraph: Mutex<Vec<(CudagraphKey, u64)>>,
}

impl LogStatsAccumulator {
    pub(crate) fn new(positions: usize) -> Self {
        LogStatsAccumulator {
            num_drafts: AtomicU64::new(0),
            per_pos_len: AtomicUsize::new(0),
            per_pos: (0..positions).map(|_| AtomicU64::new(0)).collect(),
            beyond: Mutex::new(Vec::new()),
            cudagraph: Mutex::new(Vec::new()),
        }
    }

    /// Adds one step's spec-decode stats: atomics only while every position is pre-resolved.
    pub(crate) fn add_spec_decode(&self, num_drafts: u64, accepted_per_pos: &[u64]) {
        saturating_add(&self.num_drafts, num_drafts);
        self.per_pos_len
            .fetch_max(accepted_per_pos.len(), Ordering::Relaxed);
        let cached = self.per_pos.len().min(accepted_per_pos.len());
        for (slot, v) in self.per_pos.iter().zip(&accepted_per_pos[..cached]) {
            saturating_add(slot, *v);
        }
        if accepted_per_pos.len() > cached {
            let mut beyond = lock(&self.beyond);
            add_elementwise(&mut beyond, &accepted_per_pos[cached..]);
        }
    }

    pub(crate) fn add_cudagraph(&self, stats: &CudagraphStats) {
        add_cudagraph_count(&mut lock(&self.cudagraph), stats, 1);
    }

    /// Returns the totals since the last drain and resets them. A record racing with the drain
    /// lands either in this interval or the next, never in both and never lost.
    pub(crate) fn drain(&self) -> LogStatsInterval {
        let len = self.per_pos_len.swap(0, Ordering::Relaxed);
        let mut accepted_per_pos: Vec<u64> = self
            .per_pos
            .iter()
            .map(|slot| slot.swap(0, Ordering::Relaxed))
            .collect();
        accepted_per_pos.extend(std::mem::take(&mut *lock(&self.beyond)));
        // A racing record may have bumped a slot past `len` after the swap above; keep the
        // counts rather than truncate them away.
        let used = accepted_per_pos
            .iter()
            .rposition(|&v| v != 0)
            .map_or(0, |i| i + 1);
        accepted_per_pos.truncate(len.max(used));
        LogStatsInterval {
            num_drafts: self.num_drafts.swap(0, Ordering::Relaxed),
            accepted_per_pos,
            cudagraph: std::mem::take(&mut *lock(&self.cudagraph)),
        }
    }
}

fn saturating_add(cell: &AtomicU64, delta: u64) {
    if delta != 0 {
        let _ = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
            Some(c.saturating_add(delta))
        });
    }
}

// The protected data is plain counts, valid after any panic: ignore poisoning.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

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
