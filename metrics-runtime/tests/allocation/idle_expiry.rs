//! A family whose series expire when idle records without allocating, like any other: expiry
//! adds nothing to the record path (the sweeps at scrape time do the work).

use std::time::Duration;

use crate::counting::allocations_during;
use crate::support::exposition::encode_text;
use metric_handles::{
    Counter, Dynamic, Family, LabelSet, MetricHandles, NoLabels, RegisterOptions,
};
use metric_handles::{Histogram, Registry};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Route {
    pub route: String,
}

#[derive(Debug, MetricHandles)]
pub struct Routes {
    /// Requests by route
    #[metric(name = "alloc_idle:requests", idle_timeout = "5m")]
    pub requests: Family<NoLabels, Dynamic<Route, Counter>>,
    /// Latency by route
    #[metric(name = "alloc_idle:latency", unit = "seconds", buckets = [0.1, 1.0])]
    pub latency: Family<NoLabels, Dynamic<Route, Histogram>>,
}

#[test]
fn records_and_lookups_on_an_expiring_family_allocate_nothing() {
    let mut registry = Registry::default();
    let options =
        RegisterOptions::new().idle_timeout("alloc_idle:latency", Duration::from_millis(1));
    let metrics = Routes::register_with(&mut registry, &options);
    let handles = metrics.resolve(&NoLabels);
    let route = Route {
        route: "/v1/chat".to_owned(),
    };
    let requests = handles.requests.get_or_create(&route);
    let latency = handles.latency.get_or_create(&route);
    // Scrapes sweep (and with the 1 ms timeout, expire the histogram's series): the records
    // after them find the series where they left them.
    for _ in 0..3 {
        encode_text(&registry);
        std::thread::sleep(Duration::from_millis(2));
    }
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            requests.inc();
            latency.observe(0.5);
            // A lookup of a known label set, which also brings a dormant series back.
            handles.requests.get_or_create(&route).inc();
            handles.latency.get_or_create(&route).observe(0.2);
        }
    });
    assert_eq!(allocations, 0);
    let text = encode_text(&registry);
    assert!(
        text.contains("alloc_idle:requests_total{route=\"/v1/chat\"} 2000"),
        "{text}"
    );
    assert!(
        text.contains("alloc_idle:latency_seconds_count{route=\"/v1/chat\"} 2000"),
        "{text}"
    );
}
