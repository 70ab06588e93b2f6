//! What a histogram with native buckets keeps: what records share with scrapes
//! ([`NativeCore`]: the tables of both halves and the layout in force) and what scrapes keep
//! between them ([`NativeScrape`]). The protocol that uses them is in `native_snapshot.rs`.

use std::time::Instant;

use super::native_config::NativeConfig;
use super::native_table::NativeTable;
use super::native_totals::NativeTotals;
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
    /// The classic bucket counts drained, `+Inf` last.
    pub(super) classic_buckets: Box<[u64]>,
    /// The sum drained.
    pub(super) classic_sum: f64,
    pub(super) native: NativeTotals,
    pub(super) last_reset: Instant,
}

impl NativeScrape {
    pub(super) fn new(config: &NativeConfig, buckets: usize) -> Self {
        NativeScrape {
            classic_buckets: vec![0; buckets].into_boxed_slice(),
            classic_sum: 0.0,
            native: NativeTotals::empty(config),
            last_reset: Instant::now(),
        }
    }
}
