//! Recording through the `metrics` facade's macros and handles allocates nothing once a
//! series exists, and a steady scrape of its families into a reused buffer allocates nothing:
//! memory does not grow with the traffic between two scrapes (metrics-exporter-prometheus
//! keeps every histogram observation until its next render).

use metric_handles::metrics_facade::FacadeBuilder;
use metric_handles::{ExpositionFormat, Registry};

use crate::counting::allocations_during;

#[test]
fn ten_million_observations_between_two_scrapes_allocate_nothing() {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new().build(&mut registry);
    let mut body = Vec::new();
    metrics::with_local_recorder(&recorder, || {
        // The series exist (and the scrape's buffers have their size) after one round.
        let latency = metrics::histogram!("request_seconds", "route" => "/chat");
        let tokens = metrics::counter!("tokens", "kind" => "output");
        latency.record(0.2);
        tokens.increment(1);
        metrics::gauge!("queue_depth").set(1.0);
        metrics::histogram!("request_seconds", "route" => "/embed").record(0.1);
        ExpositionFormat::OpenMetrics
            .encode_into(&registry, &mut body)
            .unwrap();

        let allocations = allocations_during(|| {
            for i in 0..10_000_000u32 {
                latency.record(f64::from(i % 1_000) / 100.0);
            }
            for i in 0..100_000u32 {
                // The macro path: a lookup by the key's hash, then the record.
                metrics::histogram!("request_seconds", "route" => "/embed").record(0.1);
                metrics::counter!("tokens", "kind" => "output").increment(u64::from(i % 3));
                metrics::gauge!("queue_depth").increment(1.0);
                tokens.increment(1);
            }
            body.clear();
            ExpositionFormat::OpenMetrics
                .encode_into(&registry, &mut body)
                .unwrap();
        });
        assert_eq!(allocations, 0);
    });
    let text = String::from_utf8(body).unwrap();
    assert!(
        text.contains("request_seconds_count{route=\"/chat\"} 10000001"),
        "{text}"
    );
    assert!(
        text.contains("request_seconds_count{route=\"/embed\"} 100001"),
        "{text}"
    );
}
