//! What one series of a `Dynamic` family holds in heap: its key (once), its rendered labels,
//! its slot in the map's index and entries, and its member. A label set keyed by one 13-byte
//! value, as the memory benchmark keys its series; 2,000 series, so the map's spare capacity
//! is counted the way it falls at that size.

use crate::counting::live_bytes;
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::member::FamilyMember;
use metric_handles::{Counter, Dynamic, Family, Gauge, Histogram, LabelSet, NoLabels};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Tenant {
    tenant: String,
}

const SERIES: usize = 2_000;

/// The live heap bytes per series that `SERIES` new label sets of a `Dynamic<Tenant, M>`
/// family leave behind (this thread's allocations only).
fn bytes_per_series<M: FamilyMember>(record: impl Fn(&M)) -> isize {
    bytes_per_series_of(SeriesSpec::new(), record)
}

/// [`bytes_per_series`] of a family built from `spec`.
fn bytes_per_series_of<M: FamilyMember>(spec: SeriesSpec, record: impl Fn(&M)) -> isize {
    let family: Family<NoLabels, Dynamic<Tenant, M>> = new_family(spec.with_max_series(SERIES));
    let by_tenant = family.get_or_create(&NoLabels);
    let before = live_bytes();
    for i in 0..SERIES {
        let tenant = Tenant {
            tenant: format!("tenant-{i:06}"),
        };
        record(&by_tenant.get_or_create(&tenant));
    }
    let per_series = (live_bytes() - before) / SERIES as isize;
    assert_eq!(by_tenant.len(), SERIES);
    assert_eq!(by_tenant.overflowed_lookups(), 0);
    eprintln!("{}: {per_series} heap bytes a series", M::KIND.as_str());
    per_series
}

// prometheus-client's `Family<Tenant, Counter>` holds about 105 bytes a series here; these
// bounds keep ours within 1.5 times that. The key is kept once (in its entry, no `Arc`), the
// index holds a 4-byte position, a map without an idle timeout keeps no expiry state, and a
// counter's exemplar slot is a pointer until its first exemplar.
#[test]
fn a_counter_series_holds_at_most_150_bytes() {
    let bytes = bytes_per_series::<Counter>(|counter| {
        counter.inc();
    });
    assert!(bytes <= 150, "{bytes} bytes a counter series");
}

#[test]
fn a_gauge_series_holds_at_most_135_bytes() {
    let bytes = bytes_per_series::<Gauge>(|gauge| {
        gauge.set(7);
    });
    assert!(bytes <= 135, "{bytes} bytes a gauge series");
}

/// vLLM's inter-token-latency bounds: 19 of them.
const ITL: [f64; 19] = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];

// prometheus-client's `Family<Tenant, Histogram>` with these bounds holds about 800 bytes a
// series. Ours keeps one block of cells (a started count, two halves of a sum and 20 bucket
// counts: 384 bytes on 128-byte lines) until two threads meet on it, shares its family's
// bounds, and keeps no scrape totals: whatever the machine's core count.
#[test]
fn a_classic_histogram_series_holds_at_most_700_bytes_whatever_the_core_count() {
    let spec = SeriesSpec::new().with_buckets(ITL.to_vec());
    let bytes = bytes_per_series_of::<Histogram>(spec, |histogram| {
        for value in [
            0.02, 0.03, 0.045, 0.0675, 0.10125, 0.151875, 0.2278125, 0.34171875,
        ] {
            histogram.observe(value);
        }
    });
    assert!(bytes <= 700, "{bytes} bytes a classic histogram series");
}
