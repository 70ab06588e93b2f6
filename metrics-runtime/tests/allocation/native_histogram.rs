//! A histogram with native buckets records without allocating once warm: an observation,
//! a local view's merge, and a bucket seen for the first time since the last scrape (a slot
//! claimed in a table allocated up front) alike.

use crate::counting::allocations_during;
use metric_handles::{Histogram, NativeConfig};

/// Values over many native buckets at schema 3, positive, negative and zero.
fn value(i: u64) -> f64 {
    (i % 97) as f64 * 0.37 - 9.0
}

#[test]
fn observing_into_native_buckets_never_allocates() {
    let histogram = Histogram::new_classic_and_native([0.1, 1.0, 10.0], NativeConfig::default());
    // The thread's first record numbers the thread.
    histogram.observe(1.0);
    let allocations = allocations_during(|| {
        for i in 0..10_000u64 {
            histogram.observe(value(i));
        }
        histogram.observe(f64::NAN);
        histogram.observe(f64::INFINITY);
    });
    assert_eq!(allocations, 0, "the native observe path allocated");
    let snapshot = histogram.snapshot();
    assert_eq!(snapshot.count(), 10_003);
    // NaN counts in the native bucket of +Inf.
    assert_eq!(snapshot.native().map(|n| n.count()), Some(10_003));
}

#[test]
fn local_views_merge_into_native_buckets_without_allocating() {
    let histogram = Histogram::new_native(NativeConfig::from_factor(1.1).max_buckets(40));
    histogram.observe(1.0);
    let allocations = allocations_during(|| {
        for request in 0..100u64 {
            let mut latency = histogram.local();
            for i in 0..100u64 {
                latency.observe(value(request * 100 + i));
            }
        }
    });
    assert_eq!(allocations, 0, "the native merge path allocated");
    assert_eq!(
        histogram.snapshot().native().map(|n| n.count()),
        Some(10_001)
    );
}
