//! The batched ITL baseline: how vLLM's Rust frontend records inter-token latency since it
//! stopped taking a lock per token (vllm-project/vllm, `rust/src/metrics/src/itl.rs`).
//!
//! Each request keeps a plain local accumulator (sum, count, one count per bucket, found by a
//! linear scan for the first bound `>= value`) and merges it into the shared histogram under
//! one write lock every 32 tokens and at the end of the stream; a scrape reads the totals
//! under the read lock. Reimplemented here from that description, with `std`'s `RwLock` (vLLM
//! uses parking_lot's, which prometheus-client builds on too; the uncontended cost is one
//! locked instruction to lock and one to unlock either way).

use std::sync::{Arc, RwLock};

use crate::fixtures::ITL_BUCKETS;

/// Buckets: the finite bounds and `+Inf`.
const BUCKETS: usize = ITL_BUCKETS.len() + 1;

/// A request's pending observations.
#[derive(Clone, Debug, Default)]
pub struct PendingItl {
    sum: f64,
    count: u64,
    buckets: [u64; BUCKETS],
}

impl PendingItl {
    /// Records one interval locally.
    #[inline]
    pub fn observe(&mut self, value: f64) {
        self.sum += value;
        self.count += 1;
        // The first bound >= value; NaN and values above every bound go to `+Inf`.
        let index = ITL_BUCKETS
            .iter()
            .position(|&bound| bound >= value)
            .unwrap_or(ITL_BUCKETS.len());
        if let Some(bucket) = self.buckets.get_mut(index) {
            *bucket += 1;
        }
    }

    /// Observations not merged yet.
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// The shared histogram the requests merge into.
#[derive(Clone, Debug, Default)]
pub struct BatchedItl {
    totals: Arc<RwLock<PendingItl>>,
}

impl BatchedItl {
    /// Merges `pending` under the write lock and clears it; an empty batch takes no lock.
    #[inline]
    pub fn flush(&self, pending: &mut PendingItl) {
        if pending.count == 0 {
            return;
        }
        let batch = std::mem::take(pending);
        // A poisoned lock still holds consistent totals (nothing panics while holding it).
        let mut totals = self.totals.write().unwrap_or_else(|e| e.into_inner());
        totals.sum += batch.sum;
        totals.count += batch.count;
        for (total, count) in totals.buckets.iter_mut().zip(batch.buckets) {
            *total += count;
        }
    }

    /// `(count, sum)` as a scrape reads them.
    pub fn totals(&self) -> (u64, f64) {
        let totals = self.totals.read().unwrap_or_else(|e| e.into_inner());
        (totals.count, totals.sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_batches_add_up() {
        let shared = BatchedItl::default();
        let mut pending = PendingItl::default();
        for v in [0.005, 0.3, 100.0, f64::NAN] {
            pending.observe(v);
        }
        assert_eq!(pending.count(), 4);
        shared.flush(&mut pending);
        shared.flush(&mut pending);
        assert_eq!(pending.count(), 0);
        let (count, _) = shared.totals();
        assert_eq!(count, 4);
        let totals = shared.totals.read().expect("not poisoned");
        assert_eq!(totals.buckets[0], 1);
        assert_eq!(totals.buckets[7], 1);
        assert_eq!(totals.buckets[ITL_BUCKETS.len()], 2);
    }
}
