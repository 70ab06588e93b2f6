//! A histogram with native buckets costs what its buckets use, and records without allocating
//! once they are in use: no table until the first record into a half of a native shard, a
//! first table of 16 slots, a larger one only when an interval between scrapes brings more
//! new buckets than the tables made so far hold. Once a working set of buckets has been seen
//! in both halves, an observation and a local view's merge of the same buckets allocate
//! nothing, scrape after scrape.

use crate::counting::{allocations_during, live_bytes};
use metric_handles::histogram::NativeConfig;
use metric_handles::Histogram;

/// Values over many native buckets at schema 3, positive, negative and zero.
fn value(i: u64) -> f64 {
    (i % 97) as f64 * 0.37 - 9.0
}

/// Records the working set of [`value`] from this thread and scrapes, twice: each half of
/// this thread's native shard has then made the tables those buckets need.
fn warm(histogram: &Histogram, record: impl Fn(&Histogram)) {
    for _ in 0..2 {
        record(histogram);
        histogram.snapshot();
    }
}

#[test]
fn observing_into_native_buckets_in_use_never_allocates() {
    let histogram = Histogram::new_classic_and_native([0.1, 1.0, 10.0], NativeConfig::default());
    let observe_all = |h: &Histogram| {
        for i in 0..10_000u64 {
            h.observe(value(i));
        }
        h.observe(f64::NAN);
        h.observe(f64::INFINITY);
    };
    warm(&histogram, observe_all);
    // Scrape after scrape, the same buckets in either half: nothing allocated.
    for round in 0..4 {
        let allocations = allocations_during(|| observe_all(&histogram));
        assert_eq!(
            allocations, 0,
            "round {round}: the native observe path allocated"
        );
        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.count(), 10_002 * (round + 3));
        // NaN counts in the native bucket of +Inf.
        assert_eq!(
            snapshot.native().map(|n| n.count()),
            Some(10_002 * (round + 3))
        );
    }
}

#[test]
fn local_views_merge_into_native_buckets_in_use_without_allocating() {
    let histogram = Histogram::new_native(NativeConfig::from_factor(1.1).max_buckets(40));
    let merge_all = |h: &Histogram| {
        for request in 0..100u64 {
            let mut latency = h.local();
            for i in 0..100u64 {
                latency.observe(value(request * 100 + i));
            }
        }
    };
    warm(&histogram, merge_all);
    for round in 0..4 {
        let allocations = allocations_during(|| merge_all(&histogram));
        assert_eq!(
            allocations, 0,
            "round {round}: the native merge path allocated"
        );
        assert_eq!(
            histogram.snapshot().native().map(|n| n.count()),
            Some(10_000 * (round + 3))
        );
    }
}

#[test]
fn a_native_series_holds_no_table_until_recorded_and_a_small_one_for_8_buckets() {
    let before = live_bytes();
    let histogram = Histogram::new_native(NativeConfig::default());
    let created = live_bytes() - before;
    // The cells, the native state and no table (before: 16 KiB a table, 4 or 8 tables).
    assert!(created < 1_024, "a new native series holds {created} bytes");
    // 8 observations a factor 1.5 apart: 8 distinct buckets at the default schema 3, in one
    // table of 16 slots (192 bytes of slots and 64 of counters).
    for i in 0..8 {
        histogram.observe(1.5f64.powi(i));
    }
    let recorded = live_bytes() - before - created;
    assert!(
        (1..=256).contains(&recorded),
        "8 buckets took {recorded} bytes"
    );
    let native = histogram.snapshot();
    assert_eq!(native.native().map(|n| n.positive().len()), Some(8));
}
