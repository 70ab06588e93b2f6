//! The [`Histogram`] handle: construction, `observe`, and how it encodes.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

use super::bucket_lookup::BucketLookup;
use super::shards::{shard_count, thread_index, HistogramCore, Line, CELLS_PER_LINE};
use super::snapshot::HistogramSnapshot;
use super::sum::add_to_f64_bits;

/// A histogram with fixed bucket bounds whose `observe` is lock-free.
///
/// Cloning is cheap and yields a handle to the same histogram (like prometheus-client's metric
/// types), so a clone can be cached in a handle struct and recorded into from any thread.
///
/// ```
/// use metric_handles::Histogram;
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
    pub(super) core: Arc<HistogramCore>,
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
        let shards = shard_count();
        // The sum, one cell per bound and `+Inf`; then the merge area: its flag, its sum and
        // again one cell per bucket.
        let merged = bounds.len() + 2;
        let lines_per_shard = (2 * merged + 1).div_ceil(CELLS_PER_LINE);
        let lines = (0..shards * lines_per_shard)
            .map(|_| Line::zeroed())
            .collect();
        Histogram {
            core: Arc::new(HistogramCore {
                lookup: BucketLookup::shared(&bounds),
                bounds: bounds.into_boxed_slice(),
                lines,
                lines_per_shard,
                merged,
                shard_mask: shards - 1,
            }),
        }
    }

    /// Records one observation. Lock-free and allocation-free.
    #[inline]
    pub fn observe(&self, value: f64) {
        let core = &*self.core;
        let shard = thread_index() & core.shard_mask;
        // `bucket_index` returns at most `bounds.len()`, so the cell is within the shard's
        // block; `cell` returns `None` rather than panicking were it not.
        if let Some(count) = core.cell(shard, 1 + core.bucket_index(value)) {
            count.fetch_add(1, Ordering::Relaxed);
        }
        if value.is_finite() && value != 0.0 {
            if let Some(sum) = core.cell(shard, 0) {
                add_to_f64_bits(sum, value);
            }
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
        self.core.snapshot()
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
