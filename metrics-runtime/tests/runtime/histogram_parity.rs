//! Our lock-free histogram encodes byte-for-byte like prometheus-client's `Histogram` for
//! finite observations, in both text formats, alone and inside a labelled family.

use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::prometheus_client::encoding::{prometheus_text, text};
use metric_handles::prometheus_client::metrics::family::Family as PcFamily;
use metric_handles::prometheus_client::metrics::histogram::Histogram as PcHistogram;
use metric_handles::prometheus_client::registry::{Metric, Registry};
use metric_handles::{Family, Histogram, NoLabels};
use proptest::prelude::*;

fn both_formats(registry: &Registry) -> (String, String) {
    let mut openmetrics = String::new();
    text::encode(&mut openmetrics, registry).expect("encodes");
    let mut classic = String::new();
    prometheus_text::encode(&mut classic, registry).expect("encodes");
    (openmetrics, classic)
}

/// `metric` registered alone as `name`, encoded in both formats.
fn both_formats_of(name: &str, help: &str, metric: impl Metric) -> (String, String) {
    let mut registry = Registry::default();
    registry.register(name, help, metric);
    both_formats(&registry)
}

fn bounds() -> impl Strategy<Value = Vec<f64>> {
    // Strictly increasing, finite bounds (1 to 25 of them), including awkward decimals.
    prop::collection::btree_set(-1_000_000i64..1_000_000, 1..25).prop_map(|set| {
        set.into_iter()
            .map(|n| n as f64 / 1000.0)
            .collect::<Vec<_>>()
    })
}

fn observation() -> impl Strategy<Value = f64> {
    prop_oneof![
        -2000.0..2000.0f64,
        (-2000i64..2000).prop_map(|n| n as f64 / 1000.0),
        Just(0.0),
        Just(1e-9),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn exposition_is_identical_to_prometheus_client(
        bounds in bounds(),
        observations in prop::collection::vec(observation(), 0..200),
    ) {
        let ours = Histogram::new(bounds.clone());
        let theirs = PcHistogram::new(bounds.clone());
        for &v in &observations {
            ours.observe(v);
            theirs.observe(v);
        }
        prop_assert_eq!(
            both_formats_of("latency_seconds", "Latency", ours),
            both_formats_of("latency_seconds", "Latency", theirs)
        );
    }
}

#[test]
fn a_labelled_family_encodes_like_prometheus_clients_family() {
    const BOUNDS: [f64; 6] = [0.001, 0.01, 0.1, 1.0, 2.5, 10.0];
    let ours: Family<NoLabels, Histogram> =
        new_family(SeriesSpec::new().with_buckets(BOUNDS.to_vec()));
    let theirs: PcFamily<Vec<(String, String)>, PcHistogram> =
        PcFamily::new_with_constructor(|| PcHistogram::new(BOUNDS));
    let ours_handle = ours.get_or_create(&NoLabels);
    let theirs_handle = theirs.get_or_create(&Vec::new()).clone();
    for v in [0.0005, 0.02, 0.02, 3.0, 99.0, 1.0] {
        ours_handle.observe(v);
        theirs_handle.observe(v);
    }
    assert_eq!(
        both_formats_of("ttft_seconds", "Time to first token", ours),
        both_formats_of("ttft_seconds", "Time to first token", theirs)
    );
}
