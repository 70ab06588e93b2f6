//! Reading a histogram: [`HistogramSnapshot`], the state a scrape encodes.

use std::sync::atomic::Ordering;

use super::shards::HistogramCore;

impl HistogramCore {
    /// Reads the histogram's current state.
    ///
    /// Buckets are read one by one without stopping writers, so a snapshot taken while
    /// observations are in flight may include some of them and not others; it is always
    /// internally consistent in that `count()` equals the `+Inf` bucket.
    pub(super) fn snapshot(&self) -> HistogramSnapshot {
        let core = self;
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

/// A point-in-time copy of a [`Histogram`]'s state.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSnapshot {
    pub(super) bounds: Vec<f64>,
    pub(super) bucket_counts: Vec<u64>,
    pub(super) sum: f64,
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
    pub(super) fn encoder_buckets(&self) -> Vec<(f64, u64)> {
        self.bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(self.bucket_counts.iter().copied())
            .collect()
    }
}
