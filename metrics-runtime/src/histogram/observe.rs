//! The [`Histogram`] handle: construction, `observe`, and how it encodes.

use std::fmt;
use std::sync::Arc;

use prometheus_client::encoding::{
    EncodeMetric, MetricEncoder, NativeHistogram, NativeHistogramBuckets, NoLabelSet,
};
use prometheus_client::metrics::{MetricType, TypedMetric};

use super::bucket_lookup::BucketLookup;
use super::exemplars::HistogramExemplars;
use super::native_config::NativeConfig;
use super::native_state::NativeCore;
use super::shards::{HistogramCore, Layout, ScrapeState};
use super::snapshot::HistogramSnapshot;
use super::sum::add_to_f64_bits;
use super::sync::{LazyBox, Mutex, Ordering};

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
        Self::build(bounds, None)
    }

    /// Creates a histogram with native buckets only (see [`NativeConfig`]). Its classic side
    /// is the single `+Inf` bucket, so a text scrape sees `_bucket{le="+Inf"}`, `_sum` and
    /// `_count`, and a scraper that reads native histograms sees the native buckets.
    pub fn new_native(native: NativeConfig) -> Self {
        Self::build([], Some(native))
    }

    /// Creates a histogram with classic buckets at `bounds` (sanitised as by [`Self::new`])
    /// and native buckets beside them: a text scrape sees the classic ones.
    pub fn new_classic_and_native(
        bounds: impl IntoIterator<Item = f64>,
        native: NativeConfig,
    ) -> Self {
        Self::build(bounds, Some(native))
    }

    /// A histogram with the given classic bounds and, optionally, native buckets.
    pub fn with_native(
        bounds: impl IntoIterator<Item = f64>,
        native: Option<NativeConfig>,
    ) -> Self {
        Self::build(bounds, native)
    }

    fn build(bounds: impl IntoIterator<Item = f64>, native: Option<NativeConfig>) -> Self {
        let bounds = super::bounds::sanitise(bounds);
        let ends_in_native = native.is_some() && bounds.is_empty();
        let layout = Layout {
            buckets: bounds.len() + 1,
        };
        let scrape = ScrapeState { native: None };
        Histogram {
            core: Arc::new(HistogramCore {
                lookup: BucketLookup::shared(&bounds),
                bounds: super::bounds::shared(&bounds),
                layout,
                base: layout.new_block(0),
                shards: LazyBox::new(),
                merges: LazyBox::new(),
                scrape: Mutex::new(scrape),
                ends_in_native,
                native: native.map(|config| Box::new(NativeCore::new(config))),
                exemplars: HistogramExemplars::new(layout.buckets, native.is_some()),
            }),
        }
    }

    /// Records one observation. Lock-free: three relaxed-or-release read-modify-writes on the
    /// calling thread's block (the started count, which names the half to write, the sum and
    /// the bucket), and no wait on anything. With native buckets, one more for the native
    /// bucket; a native-only histogram skips the `+Inf` count. It allocates only when it is
    /// the first record of a series to meet another thread's (the shards, see `promote.rs`) or
    /// its native bucket is new.
    #[inline]
    pub fn observe(&self, value: f64) {
        self.observe_in_bucket(value);
    }

    /// The classic bucket `value` falls in (`+Inf` last).
    #[inline]
    pub(super) fn bucket_of(&self, value: f64) -> usize {
        self.core.bucket_of(value)
    }

    /// [`observe`](Self::observe), returning the classic bucket the value was counted in
    /// (where its exemplar goes).
    #[inline]
    pub(super) fn observe_in_bucket(&self, value: f64) -> usize {
        self.core.observe_in_bucket(value)
    }

    /// The native buckets' configuration, for a histogram that has them.
    pub fn native_config(&self) -> Option<NativeConfig> {
        self.core.native.as_ref().map(|native| *native.config)
    }

    /// The finite upper bounds of the buckets (the `+Inf` bucket is implicit).
    pub fn bounds(&self) -> &[f64] {
        &self.core.bounds
    }

    /// Reads the histogram's current state: `count()`, `sum()` and every bucket from one set
    /// of observations, whatever records race the read.
    ///
    /// Records write to the *hot* one of two halves of cells. A snapshot turns the other half
    /// hot, waits until the records that started in the now cold half before the turn have
    /// finished (records take a few nanoseconds; the wait spins, then yields), and reads the
    /// cold half. Together with what the previous snapshot read of the other half, that is
    /// every observation started before the turn and none after it. Records never wait for a
    /// snapshot; snapshots of one histogram take turns (a lock only they take).
    pub fn snapshot(&self) -> HistogramSnapshot {
        self.core.snapshot()
    }

    /// What [`snapshot`](Self::snapshot) reads, without allocating: the non-cumulative bucket
    /// counts (`+Inf` last) replace the contents of `counts`, and the sum is returned.
    pub(crate) fn read_into(&self, counts: &mut Vec<u64>) -> f64 {
        self.core.read_into(counts)
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
        let Some(native) = snapshot.native() else {
            return encoder.encode_histogram::<NoLabelSet>(
                snapshot.sum,
                snapshot.count(),
                &snapshot.encoder_buckets(),
                None,
            );
        };
        let (positive, negative) = native.encoder_spans();
        encoder.encode_histogram_with_native::<NoLabelSet>(
            snapshot.sum,
            snapshot.count(),
            &snapshot.encoder_buckets(),
            None,
            NativeHistogram {
                schema: i32::from(native.schema()),
                zero_threshold: native.zero_threshold(),
                zero_count: native.zero_count(),
                negative: NativeHistogramBuckets {
                    spans: &negative.spans,
                    deltas: &negative.deltas,
                },
                positive: NativeHistogramBuckets {
                    spans: &positive.spans,
                    deltas: &positive.deltas,
                },
                created: None,
            },
        )
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

impl HistogramCore {
    /// The classic bucket `value` falls in (`+Inf` last): the lookup table where the bounds
    /// suit it (two loads and a comparison; NaN is the one value it gets wrong), the linear
    /// count otherwise.
    #[inline]
    pub(super) fn bucket_of(&self, value: f64) -> usize {
        match &self.lookup {
            Some(lookup) if !value.is_nan() => lookup.index(value),
            _ => self.bucket_index(value),
        }
    }

    /// [`Histogram::observe`], returning the classic bucket the value was counted in (where
    /// its exemplar goes). On the core, so that a handle that holds the core alone (the
    /// `metrics` facade's) records with no extra hop.
    #[inline]
    pub(super) fn observe_in_bucket(&self, value: f64) -> usize {
        let bucket = self.bucket_of(value);
        let met = self.with_block(|index, block| {
            let half = block.start(1);
            let area = self.layout.half(half);
            let met = value.is_finite()
                && value != 0.0
                && block
                    .cell(area)
                    .is_some_and(|sum| add_to_f64_bits(sum, value));
            if let Some(native) = &self.native {
                if native.record(index, half, value, 1) && self.ends_in_native {
                    return met;
                }
            }
            // `bucket` is at most `bounds.len()`, so the cell is within the block.
            if let Some(count) = block.cell(area + 1 + bucket) {
                count.fetch_add(1, Ordering::Release);
            }
            met
        });
        if met {
            self.contended();
        }
        bucket
    }
}
