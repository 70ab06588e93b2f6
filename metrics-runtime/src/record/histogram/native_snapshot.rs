//! Native buckets in the scrape protocol: what records share with scrapes ([`NativeCore`]),
//! what scrapes keep between them ([`NativeScrape`]), and a scrape of a histogram with native
//! buckets, whose result is a [`NativeSnapshot`].
//!
//! A histogram with native buckets *drains* each half a scrape reads: the half's classic cells
//! and native table are added to the scrape's running totals and cleared. Its native buckets
//! then live in two places only: in the running totals (at one schema, within the bucket
//! limit, a plain map only scrapes touch) and in the two tables of the current and last
//! interval between scrapes. So every change of layout (a lower schema, a wider zero
//! bucket, a reset) is a rewrite of the running totals under the scrape lock, and records
//! never see one half-done: they learn the new schema and zero threshold from two atomics,
//! and the keys they write carry the schema they used.
//!
//! Consistency is the classic protocol's: a record writes its native bucket before its
//! classic bucket count (released), in the same half, so the wait that makes a half's
//! classic counts complete makes its native buckets complete too. Every snapshot's `_count`
//! equals its zero count plus its native buckets plus its NaN observations (counted in
//! `_count` and the classic `+Inf` bucket but in no native bucket, as in client_golang).

use std::time::Instant;

use super::native_config::NativeConfig;
use super::native_table::NativeTable;
use super::native_totals::{NativeSpans, NativeTotals};
use super::shards::{HalfTotals, HistogramCore, ScrapeState};
use super::snapshot::{saturating_sum, HistogramSnapshot};
use super::sync::{AtomicU64, Ordering};

/// What records of a histogram with native buckets use: the tables of both halves, and the
/// schema and zero threshold a scrape last published.
pub(super) struct NativeCore {
    pub(super) config: NativeConfig,
    tables: [NativeTable; 2],
    /// The schema records bucket at (an `i8`, sign-extended).
    schema: AtomicU64,
    /// The zero threshold records use (`f64` bits).
    zero_threshold: AtomicU64,
}

impl NativeCore {
    pub(super) fn new(config: NativeConfig) -> Self {
        NativeCore {
            config,
            tables: [NativeTable::new(&config), NativeTable::new(&config)],
            schema: AtomicU64::new(i64::from(config.schema()) as u64),
            zero_threshold: AtomicU64::new(config.threshold().to_bits()),
        }
    }

    /// Counts `n` observations of `value` in `half`'s table; NaN counts in no native bucket.
    /// Called after the record's start (whose acquire makes the published layout visible) and
    /// before its classic bucket count (whose release publishes this).
    #[inline]
    pub(super) fn record(&self, half: usize, value: f64, n: u64) {
        if value.is_nan() {
            return;
        }
        let schema = self.schema.load(Ordering::Relaxed) as i64 as i8;
        let zero_threshold = f64::from_bits(self.zero_threshold.load(Ordering::Relaxed));
        if let Some(table) = self.tables.get(half) {
            table.add(value, schema, zero_threshold, n);
        }
    }

    /// Makes `totals`' layout the one records use from now on.
    pub(super) fn publish(&self, totals: &NativeTotals) {
        self.schema
            .store(i64::from(totals.schema) as u64, Ordering::Relaxed);
        self.zero_threshold
            .store(totals.zero_threshold.to_bits(), Ordering::Relaxed);
    }

    /// Drains `half`'s table (see [`NativeTable::drain`]) into totals at the published layout.
    pub(super) fn drain(&self, half: usize) -> NativeTotals {
        let mut totals = NativeTotals::empty(&self.config);
        totals.schema = self.schema.load(Ordering::Relaxed) as i64 as i8;
        totals.zero_threshold = f64::from_bits(self.zero_threshold.load(Ordering::Relaxed));
        if let Some(table) = self.tables.get(half) {
            // `add` may move a bucket a record put outside an older, narrower zero bucket
            // into it: the table's zero count comes on top.
            let zero = table.drain(|key, count| totals.add(key, count));
            totals.zero_count = totals.zero_count.wrapping_add(zero);
        }
        totals
    }
}

/// What the scrapes of a histogram with native buckets keep between them: everything drained
/// since the last reset.
pub(super) struct NativeScrape {
    classic: HalfTotals,
    native: NativeTotals,
    last_reset: Instant,
}

impl NativeScrape {
    pub(super) fn new(config: &NativeConfig, buckets: usize) -> Self {
        NativeScrape {
            classic: HalfTotals::zero(buckets),
            native: NativeTotals::empty(config),
            last_reset: Instant::now(),
        }
    }
}

impl HistogramCore {
    /// A scrape of a histogram with native buckets (see the module documentation): turn and
    /// drain the cold half into the running totals, then keep them within the bucket limit.
    ///
    /// A reset is due when the buckets are over the limit, or a strategy has degraded them,
    /// and `min_reset` has passed since the last one. It happens at a second turn: this
    /// scrape's totals and the half written since the first turn are dropped, so the reset
    /// drops exactly the observations started before the second turn, whose acquiring readers
    /// (every record started after it) bucket with the configuration's layout again.
    pub(super) fn native_snapshot(
        &self,
        native: &NativeCore,
        state: &mut ScrapeState,
    ) -> HistogramSnapshot {
        let config = native.config;
        let (cold, classic) = self.turn(state, true);
        let drained = native.drain(cold);
        let Some(scrape) = state.native.as_mut() else {
            return self.empty_snapshot(None);
        };
        add_classic(&mut scrape.classic, &classic);
        scrape.native.add_all(&drained);
        let over = scrape.native.bucket_count() > config.bucket_limit() as usize;
        let reset_due = config
            .reset_after()
            .is_some_and(|after| scrape.last_reset.elapsed() >= after);
        if reset_due && (over || scrape.native.is_degraded(&config)) {
            let fresh = NativeTotals::empty(&config);
            native.publish(&fresh);
            // The second turn: what was written since the first one is dropped with the rest.
            let (second, _) = self.turn(state, true);
            let _ = native.drain(second);
            state.native = Some(NativeScrape::new(&config, self.layout.buckets));
            return self.empty_snapshot(Some(fresh));
        }
        let Some(scrape) = state.native.as_mut() else {
            return self.empty_snapshot(None);
        };
        scrape.native.limit(&config);
        native.publish(&scrape.native);
        HistogramSnapshot {
            bounds: self.bounds.to_vec(),
            bucket_counts: scrape.classic.buckets.to_vec(),
            sum: scrape.classic.sum,
            native: Some(NativeSnapshot::of(&scrape.native)),
        }
    }

    /// The snapshot of no observations (after a reset).
    fn empty_snapshot(&self, native: Option<NativeTotals>) -> HistogramSnapshot {
        HistogramSnapshot {
            bounds: self.bounds.to_vec(),
            bucket_counts: vec![0; self.layout.buckets],
            sum: 0.0,
            native: native.as_ref().map(NativeSnapshot::of),
        }
    }
}

/// Adds a drained half's classic totals to the running ones.
fn add_classic(totals: &mut HalfTotals, drained: &HalfTotals) {
    for (total, &count) in totals.buckets.iter_mut().zip(drained.buckets.iter()) {
        *total = total.wrapping_add(count);
    }
    totals.sum = saturating_sum(totals.sum, drained.sum);
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
    fn of(totals: &NativeTotals) -> Self {
        let side = |buckets: &std::collections::BTreeMap<i32, u64>| {
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
    pub(super) fn encoder_spans(&self) -> (NativeSpans, NativeSpans) {
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
