//! A lock-free histogram that plugs into a prometheus-client [`Registry`].
//!
//! prometheus-client's `Histogram` takes a mutex on every `observe`, which serialises every
//! worker recording into a hot histogram (inter-token latency is observed once per output batch
//! of every request). This one records with two relaxed atomic operations on the common path:
//! one `fetch_add` on the bucket the value falls into, and one compare-and-swap loop that adds
//! the value to the sum (stored as `f64` bits).
//!
//! Rules (DESIGN section 4):
//! * `_count` is not stored: it is derived from the buckets at encode time, so it always equals
//!   the `+Inf` bucket, even while observations race with a scrape.
//! * NaN and +Inf observations are counted in the `+Inf` bucket (the Go client's behaviour), -Inf
//!   in the first bucket (it is below every bound); none of them is added to `_sum`, so a single bad sample can never turn the sum into NaN.
//! * `_sum` saturates at `±f64::MAX` instead of overflowing to `±Inf` (two observations of
//!   `1e308` would otherwise make it infinite for good, and `rate()` over it NaN), so the
//!   encoded `_sum` is always a finite number.
//! * Encoded output is byte-identical to prometheus-client's `Histogram` for finite observations
//!   (whose sum does not overflow).
//!
//! [`Registry`]: prometheus_client::registry::Registry

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// A histogram with fixed bucket bounds whose `observe` is lock-free.
///
/// Cloning is cheap and yields a handle to the same histogram (like prometheus-client's metric
/// types), so a clone can be cached in a handle struct and recorded into from any thread.
///
/// ```
/// use metrics_runtime::Histogram;
///
/// let latency = Histogram::new([0.1, 0.5, 1.0]);
/// latency.observe(0.3);
/// latency.observe(f64::NAN); // counted in +Inf, not added to the sum
/// let snapshot = latency.snapshot();
/// assert_eq!(snapshot.count(), 2);
/// assert_eq!(snapshot.sum(), 0.3);
/// assert_eq!(snapshot.bucket_counts(), &[0, 1, 0, 1]);
/// ```
#[derive(Clone)]
pub struct Histogram {
    core: Arc<HistogramCore>,
}

struct HistogramCore {
    /// Finite, strictly increasing upper bounds; the `+Inf` bucket is implicit.
    bounds: Box<[f64]>,
    /// One counter per bound plus one for `+Inf` (non-cumulative).
    counts: Box<[AtomicU64]>,
    /// The sum of all finite observations, as `f64::to_bits`.
    sum_bits: AtomicU64,
}

impl Histogram {
    /// Creates a histogram with the given upper bounds.
    ///
    /// The bounds are sanitised rather than rejected, so construction never fails or panics:
    /// non-finite bounds are dropped (the `+Inf` bucket always exists), and the rest are sorted
    /// and de-duplicated. The derive validates bounds at compile time, so generated code never
    /// relies on this.
    pub fn new(bounds: impl IntoIterator<Item = f64>) -> Self {
        let mut bounds: Vec<f64> = bounds.into_iter().filter(|b| b.is_finite()).collect();
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        let counts = (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect();
        Histogram {
            core: Arc::new(HistogramCore {
                bounds: bounds.into_boxed_slice(),
                counts,
                sum_bits: AtomicU64::new(0f64.to_bits()),
            }),
        }
    }

    /// Records one observation. Lock-free and allocation-free.
    #[inline]
    pub fn observe(&self, value: f64) {
        let core = &*self.core;
        let index = core.bucket_index(value);
        // In bounds by construction: `counts` has `bounds.len() + 1` slots and `bucket_index`
        // returns at most `bounds.len()`.
        if let Some(count) = core.counts.get(index) {
            count.fetch_add(1, Ordering::Relaxed);
        }
        if value.is_finite() && value != 0.0 {
            add_to_f64_bits(&core.sum_bits, value);
        }
    }

    /// The finite upper bounds of the buckets (the `+Inf` bucket is implicit).
    pub fn bounds(&self) -> &[f64] {
        &self.core.bounds
    }

    /// Reads the histogram's current state.
    ///
    /// Buckets are read one by one without stopping writers, so a snapshot taken while
    /// observations are in flight may include some of them and not others; it is always
    /// internally consistent in that `count()` equals the `+Inf` bucket.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let core = &*self.core;
        let bucket_counts: Vec<u64> = core
            .counts
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        HistogramSnapshot {
            bounds: core.bounds.to_vec(),
            bucket_counts,
            sum: f64::from_bits(core.sum_bits.load(Ordering::Relaxed)),
        }
    }
}

impl HistogramCore {
    /// Index of the first bucket whose upper bound is `>= value`; NaN and values above every
    /// bound go to the `+Inf` bucket at index `bounds.len()`.
    #[inline]
    fn bucket_index(&self, value: f64) -> usize {
        // Bucket lists are short (vLLM's longest has 22 bounds). A branch-free linear count
        // beats a binary search at these sizes and is exactly the right answer for NaN: every
        // comparison with NaN is false, so NaN lands in +Inf.
        if self.bounds.len() <= 32 {
            self.bounds.iter().filter(|&&b| b < value).count()
                + usize::from(value.is_nan()) * self.bounds.len()
        } else if value.is_nan() {
            self.bounds.len()
        } else {
            self.bounds.partition_point(|&b| b < value)
        }
    }
}

/// Adds a finite `delta` to an `f64` stored as bits, with a compare-and-swap loop, saturating
/// at `±f64::MAX`: the cell starts at 0 and only ever holds finite values, so the sum of two
/// finite values is finite or `±Inf`, never NaN, and the clamp keeps it finite.
#[inline]
fn add_to_f64_bits(cell: &AtomicU64, delta: f64) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let next = (f64::from_bits(current) + delta)
            .clamp(-f64::MAX, f64::MAX)
            .to_bits();
        match cell.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// A point-in-time copy of a [`Histogram`]'s state.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSnapshot {
    bounds: Vec<f64>,
    bucket_counts: Vec<u64>,
    sum: f64,
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
    fn encoder_buckets(&self) -> Vec<(f64, u64)> {
        self.bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(self.bucket_counts.iter().copied())
            .collect()
    }
}

impl fmt::Debug for Histogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.snapshot();
        f.debug_struct("Histogram")
            .field("bounds", &snapshot.bounds)
            .field("count", &snapshot.count())
            .field("sum", &snapshot.sum)
            .finish()
    }
}

impl TypedMetric for Histogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for Histogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        let snapshot = self.snapshot();
        encoder.encode_histogram::<NoLabelSet>(
            snapshot.sum,
            snapshot.count(),
            &snapshot.encoder_buckets(),
            None,
        )
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_land_in_the_first_bucket_whose_bound_is_not_below_them() {
        let h = Histogram::new([1.0, 2.0, 5.0]);
        for v in [0.5, 1.0, 1.5, 2.0, 4.9, 5.0, 5.1, -3.0] {
            h.observe(v);
        }
        assert_eq!(h.snapshot().bucket_counts(), &[3, 2, 2, 1]);
        assert_eq!(h.snapshot().count(), 8);
    }

    #[test]
    fn non_finite_observations_count_in_inf_and_never_reach_the_sum() {
        let h = Histogram::new([1.0]);
        h.observe(f64::NAN);
        h.observe(f64::INFINITY);
        h.observe(f64::NEG_INFINITY);
        h.observe(0.25);
        let s = h.snapshot();
        // -Inf is below every bound, so it is counted in the first bucket.
        assert_eq!(s.bucket_counts(), &[2, 2]);
        assert_eq!(s.sum(), 0.25);
    }

    #[test]
    fn the_sum_saturates_instead_of_overflowing_to_infinity() {
        let h = Histogram::new([1.0]);
        h.observe(f64::MAX);
        h.observe(f64::MAX);
        assert_eq!(h.snapshot().sum(), f64::MAX);
        h.observe(-f64::MAX);
        assert_eq!(h.snapshot().sum(), 0.0);
        for _ in 0..3 {
            h.observe(-f64::MAX);
        }
        assert_eq!(h.snapshot().sum(), -f64::MAX);
        assert_eq!(h.snapshot().count(), 6);
    }

    #[test]
    fn bounds_are_sanitised_not_rejected() {
        let h = Histogram::new([5.0, f64::NAN, 1.0, 1.0, f64::INFINITY, 2.0]);
        assert_eq!(h.bounds(), &[1.0, 2.0, 5.0]);
    }

    #[test]
    fn long_bucket_lists_use_the_binary_search_with_the_same_result() {
        let bounds: Vec<f64> = (1..=100).map(f64::from).collect();
        let h = Histogram::new(bounds.clone());
        let short = Histogram::new(bounds[..30].to_vec());
        for v in [0.0, 1.0, 29.5, 30.0, 31.0, 99.9, 100.0, 1e9, f64::NAN] {
            let expected = bounds.iter().position(|&b| b >= v).unwrap_or(bounds.len());
            assert_eq!(h.core.bucket_index(v), expected, "value {v}");
            let expected_short = bounds[..30].iter().position(|&b| b >= v).unwrap_or(30);
            assert_eq!(short.core.bucket_index(v), expected_short, "value {v}");
        }
    }

    #[test]
    fn concurrent_observations_are_all_counted_and_summed() {
        let h = Histogram::new([0.5, 1.5]);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..10_000 {
                        h.observe(1.0);
                    }
                });
            }
        });
        let snap = h.snapshot();
        assert_eq!(snap.count(), 40_000);
        assert_eq!(snap.bucket_counts(), &[0, 40_000, 0]);
        assert_eq!(snap.sum(), 40_000.0);
    }
}
