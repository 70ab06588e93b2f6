//! The read side of native buckets: the buckets a scrape has drained so far, at one schema,
//! and the strategies that keep them within the bucket limit (client_golang's
//! `limitBuckets`: reset, widen the zero bucket, halve the resolution).
//!
//! Only scrapes touch these, one at a time under the scrape lock, so they are plain maps.

use std::collections::BTreeMap;

use super::native_config::NativeConfig;
use super::native_index::{coarsen_index, upper_bound, MIN_SCHEMA};
use super::native_table::NativeKey;

/// Native buckets at one schema: the zero bucket and each side's non-empty buckets by index.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct NativeTotals {
    pub(super) schema: i8,
    pub(super) zero_threshold: f64,
    pub(super) zero_count: u64,
    pub(super) positive: BTreeMap<i32, u64>,
    pub(super) negative: BTreeMap<i32, u64>,
}

impl NativeTotals {
    /// No observations, at the configured schema and zero threshold.
    pub(super) fn empty(config: &NativeConfig) -> Self {
        NativeTotals {
            schema: config.schema(),
            zero_threshold: config.threshold(),
            zero_count: 0,
            positive: BTreeMap::new(),
            negative: BTreeMap::new(),
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
        let total = side.entry(index).or_insert(0);
        *total = total.wrapping_add(count);
    }

    /// Adds every bucket of `other` (see [`Self::add`]).
    pub(super) fn add_all(&mut self, other: &NativeTotals) {
        self.zero_count = self.zero_count.wrapping_add(other.zero_count);
        for (negative, side) in [(false, &other.positive), (true, &other.negative)] {
            for (&index, &count) in side {
                let key = NativeKey {
                    negative,
                    schema: other.schema,
                    index,
                };
                self.add(key, count);
            }
        }
    }

    /// Lowers the resolution to `schema` (below the current one), merging buckets.
    pub(super) fn coarsen_to(&mut self, schema: i8) {
        let from = self.schema;
        self.schema = schema;
        for side in [&mut self.positive, &mut self.negative] {
            let fine = std::mem::take(side);
            for (index, count) in fine {
                let total = side.entry(coarsen_index(index, from, schema)).or_insert(0);
                *total = total.wrapping_add(count);
            }
        }
        self.fold_into_zero_bucket();
    }

    /// Moves every bucket wholly inside the zero bucket into it.
    fn fold_into_zero_bucket(&mut self) {
        let (schema, threshold) = (self.schema, self.zero_threshold);
        let mut moved = 0u64;
        for side in [&mut self.positive, &mut self.negative] {
            side.retain(|&index, &mut count| {
                let inside = upper_bound(schema, index) <= threshold;
                if inside {
                    moved = moved.wrapping_add(count);
                }
                !inside
            });
        }
        self.zero_count = self.zero_count.wrapping_add(moved);
    }

    /// The observations held: the zero bucket's and every bucket's.
    pub(super) fn observations(&self) -> u64 {
        let buckets = self.positive.values().chain(self.negative.values());
        buckets.fold(self.zero_count, |total, &count| total.wrapping_add(count))
    }

    /// Non-empty buckets, both sides (the zero bucket not counted).
    pub(super) fn bucket_count(&self) -> usize {
        self.positive.len() + self.negative.len()
    }

    /// Widens the zero bucket to the upper bound of the lowest bucket (of either side), if that
    /// stays within `max_threshold` (client_golang's `maybeWidenZeroBucket`). `false` when it
    /// cannot.
    pub(super) fn widen_zero_bucket(&mut self, max_threshold: f64) -> bool {
        let lowest = match (self.positive.keys().next(), self.negative.keys().next()) {
            (Some(&p), Some(&n)) => p.min(n),
            (Some(&p), None) => p,
            (None, Some(&n)) => n,
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
    /// The spans and deltas of `buckets` (`(index, count)`, ascending).
    pub(super) fn of(buckets: impl IntoIterator<Item = (i32, u64)>) -> Self {
        let mut out = NativeSpans::default();
        let mut previous_count = 0i64;
        let mut next_index = 0i32;
        for (n, (index, count)) in buckets.into_iter().enumerate() {
            let gap = index.wrapping_sub(next_index);
            if n == 0 || gap > 2 {
                out.spans.push((gap, 0));
            } else {
                for _ in 0..gap {
                    out.push_delta(0, &mut previous_count);
                }
            }
            out.push_delta(
                i64::try_from(count).unwrap_or(i64::MAX),
                &mut previous_count,
            );
            next_index = index.wrapping_add(1);
        }
        out
    }

    fn push_delta(&mut self, count: i64, previous: &mut i64) {
        if let Some((_, length)) = self.spans.last_mut() {
            *length += 1;
        }
        self.deltas.push(count.wrapping_sub(*previous));
        *previous = count;
    }
}

/// The native buckets of a [`HistogramSnapshot`](crate::HistogramSnapshot).
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
        let side = |buckets: &BTreeMap<i32, u64>| {
            buckets
                .iter()
                .map(|(&index, &count)| (index, count))
                .collect()
        };
        NativeSnapshot {
            schema: totals.schema,
            zero_threshold: totals.zero_threshold,
            zero_count: totals.zero_count,
            positive: side(&totals.positive),
            negative: side(&totals.negative),
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

    /// Observations in every native bucket, the zero bucket included (`_count` less the NaN
    /// observations).
    pub fn count(&self) -> u64 {
        self.positive
            .iter()
            .chain(&self.negative)
            .fold(self.zero_count, |total, &(_, count)| {
                total.wrapping_add(count)
            })
    }

    /// `(positive, negative)` spans as prometheus-client's encoders take them: a histogram with
    /// no bucket, no zero count and a zero threshold of 0 gets one empty positive span, which
    /// tells a protobuf reader it is native rather than classic (prometheus-client and
    /// client_golang do the same).
    pub(crate) fn encoder_spans(&self) -> (NativeSpans, NativeSpans) {
        let mut positive = self.positive_spans();
        if self.zero_threshold == 0.0
            && self.zero_count == 0
            && positive.spans.is_empty()
            && self.negative.is_empty()
        {
            positive.spans.push((0, 0));
        }
        (positive, self.negative_spans())
    }

    /// The positive buckets as Prometheus encodes them.
    pub fn positive_spans(&self) -> NativeSpans {
        NativeSpans::of(self.positive.iter().copied())
    }

    /// The negative buckets as Prometheus encodes them.
    pub fn negative_spans(&self) -> NativeSpans {
        NativeSpans::of(self.negative.iter().copied())
    }
}
