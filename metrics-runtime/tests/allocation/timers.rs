//! Timing a span allocates nothing: starting, stopping, dropping and discarding a timer on a
//! shared histogram, an owned clone and a request-local view.

use crate::counting::allocations_during;
use metric_handles::{Histogram, Timer};

#[test]
fn timers_never_allocate() {
    let histogram = Histogram::new([0.001, 0.01, 0.1]);
    let mut local = histogram.local();
    let owned = histogram.clone();
    // Warm up: the calling thread's shard index is assigned on its first record, and the
    // histogram's first merge makes its merge area.
    histogram.observe(0.0);
    local.observe(0.0);
    local.flush();

    let allocations = allocations_during(|| {
        for _ in 0..10_000 {
            drop(histogram.start_timer());
            histogram.start_timer().observe_duration();
            histogram.start_timer().discard();
            drop(Timer::start(&owned));
            local.start_timer().observe_duration();
        }
    });
    assert_eq!(allocations, 0);
    drop(local);
    assert_eq!(histogram.snapshot().count(), 2 + 4 * 10_000);
}
