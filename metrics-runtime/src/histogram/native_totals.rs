//! The read side of native buckets: the buckets a scrape has drained so far, at one schema,
//! and the strategies that keep them within the bucket limit (client_golang's
//! `limitBuckets`: reset, widen the zero bucket, halve the resolution).
//!
//! Only scrapes touch these, one at a time under the scrape lock, so they are plain data.

use super::native_buckets::NativeBuckets;
use super::native_config::NativeConfig;
use super::native_index::{coarsen_index, upper_bound, MIN_SCHEMA};
use super::native_table::NativeKey;

/// Native buckets at one schema: the zero bucket and each side's non-empty buckets by index.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct NativeTotals {
    pub(super) schema: i8,
    pub(super) zero_threshold: f64,
    pub(super) zero_count: u64,
    pub(super) positive: NativeBuckets,
    pub(super) negative: NativeBuckets,
}

impl NativeTotals {
    /// No observations, at the configured schema and zero threshold.
    pub(super) fn empty(config: &NativeConfig) -> Self {
        NativeTotals {
            schema: config.schema(),
            zero_threshold: config.threshold(),
            zero_count: 0,
            positive: NativeBuckets::default(),
            negative: NativeBuckets::default(),
        }
    }

    /// Adds `count` observations of bucket `key` (at any schema: the coarser of the two wins).
    /// A bucket wholly inside the zero bucket joins it.
    pub(super) fn add(&mut self, key: NativeKey, count: u64) {
        if key.schema < self.schema {
            self.coarsen_to(key.schema);
        }
        let index = coarsen_index(key.index, key.schema, self.schema);
        if upper_bound(self.schema, index) <= self.zero_threshold {
            self.zero_count = self.zero_count.wrapping_add(count);
            return;
        }
        let side = if key.negative {
            &mut self.negative
        } else {
            &mut self.positive
        };
        side.add(index, count);
    }

    /// Lowers the resolution to `schema` (below the current one), merging buckets.
    pub(super) fn coarsen_to(&mut self, schema: i8) {
        let from = self.schema;
        self.schema = schema;
        for side in [&mut self.positive, &mut self.negative] {
            side.reindex(|index| coarsen_index(index, from, schema));
        }
        self.fold_into_zero_bucket();
    }

    /// Moves every bucket wholly inside the zero bucket into it.
    fn fold_into_zero_bucket(&mut self) {
        let (schema, threshold) = (self.schema, self.zero_threshold);
        for side in [&mut self.positive, &mut self.negative] {
            let moved = side.remove_where(|index| upper_bound(schema, index) <= threshold);
            self.zero_count = self.zero_count.wrapping_add(moved);
        }
    }

    /// The observations held: the zero bucket's and every bucket's.
    #[cfg(test)]
    pub(super) fn observations(&self) -> u64 {
        self.zero_count
            .wrapping_add(self.positive.observations())
            .wrapping_add(self.negative.observations())
    }

    /// Non-empty buckets, both sides (the zero bucket not counted).
    pub(super) fn bucket_count(&self) -> usize {
        self.positive.len() + self.negative.len()
    }

    /// Widens the zero bucket to the upper bound of the lowest bucket (of either side), if that
    /// stays within `max_threshold` (client_golang's `maybeWidenZeroBucket`). `false` when it
    /// cannot.
    pub(super) fn widen_zero_bucket(&mut self, max_threshold: f64) -> bool {
        let lowest = match (self.positive.lowest(), self.negative.lowest()) {
            (Some(p), Some(n)) => p.min(n),
            (Some(p), None) => p,
            (None, Some(n)) => n,
            (None, None) => return false,
        };
        let threshold = upper_bound(self.schema, lowest);
        if threshold <= self.zero_threshold || threshold > max_threshold {
            return false;
        }
        self.zero_threshold = threshold;
        self.fold_into_zero_bucket();
        true
    }

    /// Whether a strategy has lowered the resolution or widened the zero bucket since the
    /// configuration (or the last reset).
    pub(super) fn is_degraded(&self, config: &NativeConfig) -> bool {
        self.schema < config.schema() || self.zero_threshold > config.threshold()
    }

    /// Applies the strategies other than the reset until the buckets fit within `config`'s
    /// limit or nothing more can be done: widen the zero bucket, else halve the resolution.
    pub(super) fn limit(&mut self, config: &NativeConfig) {
        while self.bucket_count() > config.bucket_limit() as usize {
            if self.widen_zero_bucket(config.zero_threshold_limit()) {
                continue;
            }
            if self.schema <= MIN_SCHEMA {
                return;
            }
            self.coarsen_to(self.schema - 1);
        }
    }
}

/// One side of a native histogram as Prometheus encodes it: spans `(offset, length)` of
/// consecutive buckets, and each bucket's count as the difference from the previous one's.
/// A gap of up to two empty buckets is written as zero counts rather than a new span (the
/// cheaper encoding, as client_golang and prometheus-client do).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeSpans {
    /// `(offset from the end of the previous span, or the first index; length)`.
    pub spans: Vec<(i32, u32)>,
    /// Count differences, bucket by bucket across the spans.
    pub deltas: Vec<i64>,
}

impl NativeSpans {
    /// The spans and deltas of `buckets` (`(index, count)`, ascending, each index once).
    pub(super) fn of(buckets: &[(i32, u64)]) -> Self {
        let runs = BucketRuns(buckets);
        let mut out = NativeSpans::default();
        runs.spans(|offset, length| out.spans.push((offset, length)));
        runs.deltas(|delta| out.deltas.push(delta));
        out
    }
}

/// Whether `gap` empty buckets after a bucket stay inside its span as zero deltas (see
/// [`NativeSpans`]). The span walk and the delta walk must agree on it, so both ask here.
fn bridges(gap: i32) -> bool {
    gap <= 2
}

/// One side's buckets walked as [`NativeSpans`] describes them, without building its vectors:
/// what an encoder that writes spans and deltas as it goes reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BucketRuns<'a>(&'a [(i32, u64)]);

impl BucketRuns<'_> {
    /// Whether there is no bucket (so no span and no delta).
    #[cfg(feature = "protobuf")]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Calls `span(offset, length)` for each span, in order.
    pub(crate) fn spans(&self, mut span: impl FnMut(i32, u32)) {
        let mut open: Option<(i32, u32)> = None;
        let mut next_index = 0i32;
        for &(index, _) in self.0 {
            let gap = index.wrapping_sub(next_index);
            match &mut open {
                Some((_, length)) if bridges(gap) => *length += gap as u32 + 1,
                _ => {
                    if let Some((offset, length)) = open {
                        span(offset, length);
                    }
                    open = Some((gap, 1));
                }
            }
            next_index = index.wrapping_add(1);
        }
        if let Some((offset, length)) = open {
            span(offset, length);
        }
    }

    /// Calls `delta(count - previous count)` for each bucket the spans cover, in order (a
    /// gap's empty buckets included).
    pub(crate) fn deltas(&self, mut delta: impl FnMut(i64)) {
        let mut previous = 0i64;
        let mut next_index = 0i32;
        for (n, &(index, count)) in self.0.iter().enumerate() {
            let gap = index.wrapping_sub(next_index);
            if n > 0 && bridges(gap) {
                for _ in 0..gap {
                    delta(previous.wrapping_neg());
                    previous = 0;
                }
            }
            let count = i64::try_from(count).unwrap_or(i64::MAX);
            delta(count.wrapping_sub(previous));
            previous = count;
            next_index = index.wrapping_add(1);
        }
    }
}

/// The native buckets of a [`HistogramSnapshot`](crate::histogram::HistogramSnapshot).
#[derive(Clone, Debug, PartialEq)]
pub struct NativeSnapshot {
    schema: i8,
    zero_threshold: f64,
    zero_count: u64,
    positive: Vec<(i32, u64)>,
    negative: Vec<(i32, u64)>,
}

impl NativeSnapshot {
    pub(super) fn of(totals: &NativeTotals) -> Self {
        NativeSnapshot {
            schema: totals.schema,
            zero_threshold: totals.zero_threshold,
            zero_count: totals.zero_count,
            positive: totals.positive.as_slice().to_vec(),
            negative: totals.negative.as_slice().to_vec(),
        }
    }

    /// The schema: bucket `k` holds `(2^((k-1) * 2^-schema), 2^(k * 2^-schema)]`.
    pub fn schema(&self) -> i8 {
        self.schema
    }

    /// Values with `|v| <=` this are in the zero bucket.
    pub fn zero_threshold(&self) -> f64 {
        self.zero_threshold
    }

    /// Observations in the zero bucket.
    pub fn zero_count(&self) -> u64 {
        self.zero_count
    }

    /// The non-empty buckets of positive values, `(index, count)` by ascending index.
    pub fn positive(&self) -> &[(i32, u64)] {
        &self.positive
    }

    /// The non-empty buckets of negative values, `(index, count)` by ascending index (of
    /// the absolute value).
    pub fn negative(&self) -> &[(i32, u64)] {
        &self.negative
    }

    /// Observations in every native bucket, the zero bucket included: the histogram's
    /// `_count` (NaN observations count in the bucket of +Inf).
    pub fn count(&self) -> u64 {
        self.positive
            .iter()
            .chain(&self.negative)
            .fold(self.zero_count, |total, &(_, count)| {
                total.wrapping_add(count)
            })
    }

    /// `(positive, negative)` spans as prometheus-client's encoders take them (see
    /// [`Self::needs_native_marker`]).
    pub(crate) fn encoder_spans(&self) -> (NativeSpans, NativeSpans) {
        let mut positive = self.positive_spans();
        if self.needs_native_marker() {
            positive.spans.push((0, 0));
        }
        (positive, self.negative_spans())
    }

    /// Whether an encoder writes one empty positive span: a histogram with no bucket, no zero
    /// count and a zero threshold of 0 would otherwise look classic to a protobuf reader
    /// (prometheus-client and client_golang write that span too).
    pub(crate) fn needs_native_marker(&self) -> bool {
        self.zero_threshold == 0.0
            && self.zero_count == 0
            && self.positive.is_empty()
            && self.negative.is_empty()
    }

    /// The positive buckets as Prometheus encodes them.
    pub fn positive_spans(&self) -> NativeSpans {
        NativeSpans::of(&self.positive)
    }

    /// The negative buckets as Prometheus encodes them.
    pub fn negative_spans(&self) -> NativeSpans {
        NativeSpans::of(&self.negative)
    }

    /// [`Self::positive_spans`], walked rather than built.
    #[cfg(feature = "protobuf")]
    pub(crate) fn positive_runs(&self) -> BucketRuns<'_> {
        BucketRuns(&self.positive)
    }

    /// [`Self::negative_spans`], walked rather than built.
    #[cfg(feature = "protobuf")]
    pub(crate) fn negative_runs(&self) -> BucketRuns<'_> {
        BucketRuns(&self.negative)
    }
}
