//! [`GaugeHistogram`]: OpenMetrics' gauge histogram, a distribution of what is present now
//! (items in a queue by age, requests by size) whose buckets and sum go up and down.
//!
//! Its cells are its own and small: one signed count per bucket and the sum as `f64` bits.
//! The histogram's sharded cells and scrape protocol make a monotonic distribution consistent
//! at every scrape; a gauge histogram is a gauge, read cell by cell as a gauge is.

use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// A distribution of what is present now: [`add`](Self::add) a value when an item arrives,
/// [`remove`](Self::remove) the same value when it leaves. Each is an atomic add to the
/// value's bucket and a compare-and-swap on the sum; nothing is allocated or locked.
///
/// The exposition is OpenMetrics' `gaugehistogram`: `_bucket` (cumulative, `+Inf` last),
/// `_gcount` (the `+Inf` bucket) and `_gsum`. A Prometheus-text (0.0.4) scraper gets what
/// Python's `prometheus_client` writes there: the buckets as a `histogram` family, then
/// `_gcount` and `_gsum` as two gauge families.
///
/// As in [`Histogram`](crate::Histogram), NaN and +Inf are counted in the `+Inf` bucket and
/// -Inf in the first, and non-finite values are never added to the sum. A bucket that more
/// values left than entered (a `remove` without its `add`) is exposed as 0, and with no
/// negative bucket bound the sum is exposed as at least 0, so the exposition always parses;
/// the cells keep the true balance, so a late `add` restores it.
///
/// ```
/// use metric_handles::{Family, MetricHandles, NoLabels, Registry};
/// use metric_handles::histogram::GaugeHistogram;
///
/// #[derive(MetricHandles)]
/// #[metric_handles(handles = QueueHandles, labels = NoLabels)]
/// struct QueueMetrics {
///     /// Waiting requests by prompt length
///     #[metric(name = "waiting_prompt_tokens", buckets = [128.0, 1024.0, 8192.0])]
///     waiting: Family<NoLabels, GaugeHistogram>,
/// }
///
/// let mut registry = Registry::default();
/// let queue = QueueMetrics::register(&mut registry).resolve(&NoLabels);
/// queue.waiting.add(100.0);
/// queue.waiting.add(2000.0);
/// queue.waiting.remove(100.0);
/// let scrape = metric_handles::testing::Scrape::of(&registry);
/// assert_eq!(scrape.value("waiting_prompt_tokens_gcount", &[]), Some(1.0));
/// assert_eq!(scrape.value("waiting_prompt_tokens_gsum", &[]), Some(2000.0));
/// ```
#[derive(Clone)]
pub struct GaugeHistogram {
    cells: Arc<Cells>,
}

struct Cells {
    /// The finite upper bounds, strictly increasing; the `+Inf` bucket is implicit.
    bounds: Arc<[f64]>,
    /// How many values are in each bucket (not cumulative), `+Inf` last.
    counts: Box<[AtomicI64]>,
    /// The sum of the finite values present, as `f64` bits.
    sum: AtomicU64,
}

impl GaugeHistogram {
    /// An empty gauge histogram with `bounds` (finite, strictly increasing: the family's
    /// checked bounds).
    pub(crate) fn with_bounds(bounds: Arc<[f64]>) -> Self {
        let counts = (0..=bounds.len()).map(|_| AtomicI64::new(0)).collect();
        GaugeHistogram {
            cells: Arc::new(Cells {
                bounds,
                counts,
                sum: AtomicU64::new(0f64.to_bits()),
            }),
        }
    }

    /// One value enters: its bucket gains one, the sum gains the value.
    #[inline]
    pub fn add(&self, value: f64) {
        self.change(value, 1);
    }

    /// One value leaves: its bucket loses one, the sum loses the value.
    #[inline]
    pub fn remove(&self, value: f64) {
        self.change(value, -1);
    }

    #[inline]
    fn change(&self, value: f64, by: i64) {
        let cells = &*self.cells;
        let bucket = if value.is_nan() {
            cells.bounds.len()
        } else {
            cells.bounds.partition_point(|bound| *bound < value)
        };
        if let Some(count) = cells.counts.get(bucket) {
            count.fetch_add(by, Ordering::Relaxed);
        }
        if value.is_finite() && value != 0.0 {
            let delta = if by > 0 { value } else { -value };
            add_to_sum(&cells.sum, delta);
        }
    }

    /// The finite upper bounds of the buckets (the `+Inf` bucket is implicit).
    pub fn bounds(&self) -> &[f64] {
        &self.cells.bounds
    }

    /// Reads the bucket counts (not cumulative, `+Inf` last, each at least 0) into `counts`
    /// and returns the sum as exposed (at least 0 when no bound is negative).
    pub(crate) fn read_into(&self, counts: &mut Vec<u64>) -> f64 {
        counts.clear();
        counts.extend(
            self.cells
                .counts
                .iter()
                .map(|count| u64::try_from(count.load(Ordering::Relaxed)).unwrap_or(0)),
        );
        let sum = f64::from_bits(self.cells.sum.load(Ordering::Relaxed));
        let negative_buckets = self.cells.bounds.first().is_some_and(|first| *first < 0.0);
        if negative_buckets {
            sum
        } else {
            sum.max(0.0)
        }
    }

    /// The count of values present (the `+Inf` bucket, each bucket counted as at least 0)
    /// and their sum, as a scrape reads them.
    pub fn snapshot(&self) -> (u64, f64) {
        let mut counts = Vec::new();
        let sum = self.read_into(&mut counts);
        (counts.iter().copied().fold(0, u64::wrapping_add), sum)
    }
}

/// Adds a finite `delta` to an `f64` stored as bits, saturating at `±f64::MAX` so the sum
/// stays finite whatever is added.
#[inline]
fn add_to_sum(cell: &AtomicU64, delta: f64) {
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

impl fmt::Debug for GaugeHistogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (count, sum) = self.snapshot();
        f.debug_struct("GaugeHistogram")
            .field("bounds", &self.bounds())
            .field("count", &count)
            .field("sum", &sum)
            .finish()
    }
}

/// prometheus-client has no gauge histogram: its encoders get the buckets, sum and count as
/// a histogram, which is how Prometheus stores a gauge histogram's classic buckets.
impl TypedMetric for GaugeHistogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for GaugeHistogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        let mut counts = Vec::new();
        let sum = self.read_into(&mut counts);
        let count = counts.iter().copied().fold(0, u64::wrapping_add);
        // prometheus-client's encoders take each bucket's own count and accumulate them.
        let buckets: Vec<(f64, u64)> = self
            .bounds()
            .iter()
            .copied()
            .chain([f64::INFINITY])
            .zip(counts)
            .collect();
        encoder.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        <Self as TypedMetric>::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gauge_histogram(bounds: &[f64]) -> GaugeHistogram {
        GaugeHistogram::with_bounds(Arc::from(bounds))
    }

    #[test]
    fn values_enter_and_leave_their_buckets() {
        let h = gauge_histogram(&[1.0, 10.0]);
        h.add(0.5);
        h.add(1.0);
        h.add(5.0);
        h.add(50.0);
        h.remove(0.5);
        let mut counts = Vec::new();
        let sum = h.read_into(&mut counts);
        assert_eq!(counts, [1, 1, 1]);
        assert_eq!(sum, 56.0);
    }

    #[test]
    fn non_finite_values_are_counted_but_not_summed() {
        let h = gauge_histogram(&[1.0]);
        h.add(f64::NAN);
        h.add(f64::INFINITY);
        h.add(f64::NEG_INFINITY);
        let mut counts = Vec::new();
        assert_eq!(h.read_into(&mut counts), 0.0);
        assert_eq!(counts, [1, 2]);
    }

    #[test]
    fn more_removed_than_added_reads_as_empty_and_recovers() {
        let h = gauge_histogram(&[1.0]);
        h.remove(0.5);
        assert_eq!(h.snapshot(), (0, 0.0));
        h.add(0.5);
        h.add(0.5);
        assert_eq!(h.snapshot(), (1, 0.5));
    }

    #[test]
    fn a_negative_sum_is_kept_when_a_bound_is_negative() {
        let h = gauge_histogram(&[-1.0, 1.0]);
        h.add(-3.0);
        assert_eq!(h.snapshot(), (1, -3.0));
        let h = gauge_histogram(&[1.0]);
        h.add(-3.0);
        assert_eq!(h.snapshot(), (1, 0.0));
    }
}
